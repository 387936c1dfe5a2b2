//! The walkthrough's transport: a small HTTP/1.1 server on
//! `std::net::TcpListener` that puts [`handle`] on 127.0.0.1.
//!
//! One request per connection, answered with `Connection: close`. Every
//! connection has a thread of its own, at most
//! [`Config::max_connections`] at once; a connection beyond those waits
//! half a second for a place, then gets a 503 (from at most as many
//! threads again) or, past both, is closed unanswered. A client has
//! [`Config::read_timeout`] from its connection to send its request's
//! head and body, and gets a 408 after that (or is closed, if it sent
//! nothing): a slow or silent client holds one thread for a few seconds,
//! and nobody else waits for it.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use super::server::{handle, Response, MAX_BODY};

/// The largest request head (request line and headers) accepted, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;

/// How long a connection is read from after its answer, so that closing
/// it does not reset it before the client has read the answer.
const LINGER: Duration = Duration::from_secs(1);

/// The most bytes read (and dropped) after an answer.
const LINGER_BYTES: usize = 1 << 20;

/// How long a connection waits for a place when all are taken, before it
/// is refused.
const ADMIT_WAIT: Duration = Duration::from_millis(500);

/// The headers of every answer besides its type and length.
const HEADERS: &str = "Cache-Control: no-store\r\n\
    X-Content-Type-Options: nosniff\r\n\
    Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'\r\n\
    Connection: close\r\n";

/// How the server treats its clients.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// How long a client has, from its connection, to send its request's
    /// head and body; after that it gets a 408 (or, if it sent nothing,
    /// is closed).
    pub read_timeout: Duration,
    /// How long writing an answer may wait on a client that does not read.
    pub write_timeout: Duration,
    /// The most connections served at once; the ones beyond get a 503.
    pub max_connections: usize,
}

impl Default for Config {
    /// 5 s to send a request, 5 s to take the answer, 16 connections.
    fn default() -> Config {
        Config {
            read_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(5),
            max_connections: 16,
        }
    }
}

/// A listening socket on 127.0.0.1, answering once given to [`run`].
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

/// A server on 127.0.0.1 at `port` (0: any free port).
pub fn bind(port: u16) -> Result<Server, String> {
    let cannot = |e: io::Error| format!("cannot listen on 127.0.0.1:{port}: {e}");
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(cannot)?;
    let addr = listener.local_addr().map_err(cannot)?;
    Ok(Server {
        listener,
        addr,
        shared: Arc::new(Shared {
            stopping: AtomicBool::new(false),
            live: Mutex::new(Live::default()),
            ended: Condvar::new(),
        }),
    })
}

impl Server {
    /// The address listened on (its port is the one bound, if 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops [`run`] from another thread.
    #[allow(dead_code)] // the tests stop their servers; the example runs until killed
    pub fn stopper(&self) -> Stop {
        Stop {
            shared: Arc::clone(&self.shared),
            addr: self.addr,
        }
    }
}

/// Stops a server that [`run`] is answering (see [`Server::stopper`]).
#[allow(dead_code)] // the tests stop their servers; the example runs until killed
#[derive(Clone)]
pub struct Stop {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

#[allow(dead_code)] // the tests stop their servers; the example runs until killed
impl Stop {
    /// Makes [`run`] return: it accepts no more connections, closes the
    /// open ones, and returns when their threads have ended.
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop with a connection of our own.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

/// What the accept loop, the connections' threads and [`Stop`] share.
struct Shared {
    stopping: AtomicBool,
    live: Mutex<Live>,
    /// Signalled when a connection ends.
    ended: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Live> {
        // No code panics while holding the lock; if some did, the counts
        // would still be right.
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits, until `give_up` at most, for connections to end while
    /// `waiting` holds; the lock again.
    fn wait_while<'a>(
        &self,
        mut live: MutexGuard<'a, Live>,
        give_up: Instant,
        waiting: impl Fn(&Live) -> bool,
    ) -> MutexGuard<'a, Live> {
        while waiting(&live) {
            let left = give_up.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            live = match self.ended.wait_timeout(live, left) {
                Ok((live, _)) => live,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        live
    }
}

/// The open connections.
#[derive(Default)]
struct Live {
    next_id: u64,
    serving: usize,
    refusing: usize,
    /// A handle on each open connection, to shut it down when stopping.
    streams: HashMap<u64, TcpStream>,
}

/// What a connection's thread does with its request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Serve,
    Refuse,
}

/// A connection's place in [`Live`], given back when dropped (also when
/// its thread panics).
struct Slot {
    shared: Arc<Shared>,
    id: u64,
    role: Role,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut live = self.shared.lock();
        live.streams.remove(&self.id);
        match self.role {
            Role::Serve => live.serving -= 1,
            Role::Refuse => live.refusing -= 1,
        }
        self.shared.ended.notify_all();
    }
}

/// Answers requests until the process ends.
pub fn run(server: Server) {
    run_with(server, Config::default())
}

/// Answers requests with `config`'s timeouts and connection limit until
/// stopped by a [`Stop`]; then closes the open connections and returns
/// when their threads have ended.
pub fn run_with(server: Server, config: Config) {
    let Server {
        listener, shared, ..
    } = server;
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        match stream {
            Ok(stream) => admit(&shared, stream, config),
            // A connection that failed before it was accepted, or no file
            // descriptor left for it: try again, a moment later.
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
    let live = shared.lock();
    for stream in live.streams.values() {
        let _ = stream.shutdown(Shutdown::Both);
    }
    let give_up = Instant::now() + Duration::from_secs(5);
    drop(shared.wait_while(live, give_up, |live| !live.streams.is_empty()));
}

/// Gives `stream` a thread to serve it, or to refuse it with a 503 if
/// `max_connections` are being served (and none ends within
/// [`ADMIT_WAIT`]); closes it if as many are being refused too.
fn admit(shared: &Arc<Shared>, stream: TcpStream, config: Config) {
    let Ok(handle) = stream.try_clone() else {
        return;
    };
    let slot = {
        // A thread that has just answered gives its place back a moment
        // later: a burst of clients is served rather than refused.
        let give_up = Instant::now() + ADMIT_WAIT;
        let mut live = shared.wait_while(shared.lock(), give_up, |live| {
            live.serving >= config.max_connections
        });
        let role = if live.serving < config.max_connections {
            live.serving += 1;
            Role::Serve
        } else if live.refusing < config.max_connections {
            live.refusing += 1;
            Role::Refuse
        } else {
            return;
        };
        live.next_id += 1;
        let id = live.next_id;
        live.streams.insert(id, handle);
        Slot {
            shared: Arc::clone(shared),
            id,
            role,
        }
    };
    // If no thread can be had, the closure (the slot and the stream) is
    // dropped: the connection is closed and its slot given back.
    let _ = thread::Builder::new()
        .name("walkthrough-connection".to_owned())
        .spawn(move || {
            let role = slot.role;
            serve(stream, role, config);
            drop(slot);
        });
}

/// A JSON `{"error": ..}` answer, as `handle` gives.
fn error(status: u16, message: &str) -> Response {
    Response {
        status,
        content_type: "application/json; charset=utf-8",
        body: json!({ "error": message }).to_string(),
    }
}

/// Reads one request from `stream` and answers it (with [`handle`], or a
/// 503 when refusing), then closes the connection.
fn serve(mut stream: TcpStream, role: Role, config: Config) {
    let _ = stream.set_write_timeout(Some(config.write_timeout));
    let _ = stream.set_nodelay(true);
    // Whether the client may still be sending (it was answered before
    // its whole request was read).
    let (response, head_only, unread) = match read_request(&mut stream, config.read_timeout) {
        Ok(request) => {
            let response = match role {
                Role::Serve => handle(&request.method, &request.target, &request.body),
                Role::Refuse => error(
                    503,
                    &format!(
                        "the server is busy: it serves {} connections at once; try again in a moment",
                        config.max_connections
                    ),
                ),
            };
            (response, request.method == "HEAD", false)
        }
        Err(Failed::Gone) => return,
        Err(Failed::Answer(response)) => (response, false, true),
    };
    // A client that went away is not the server's problem.
    if write_response(&mut stream, &response, head_only).is_ok() && unread {
        linger(&mut stream);
    }
}

/// A request's method, target (path and query) and body.
struct Request {
    method: String,
    target: String,
    body: Vec<u8>,
}

/// Why there is no request to answer.
enum Failed {
    /// The client closed the connection, or sent nothing in time: no answer.
    Gone,
    /// The request cannot be read: this answer instead (4xx, 5xx).
    Answer(Response),
}

/// Reads a request: the head (at most [`MAX_HEAD`] bytes), then a body of
/// `Content-Length` bytes (at most [`MAX_BODY`]), all within `timeout`.
fn read_request(stream: &mut TcpStream, timeout: Duration) -> Result<Request, Failed> {
    let deadline = Instant::now() + timeout;
    let answer = |status, message: &str| Failed::Answer(error(status, message));
    let too_slow = || {
        answer(
            408,
            &format!("the request took over {} s", timeout.as_secs_f64()),
        )
    };
    let mut buf = Vec::with_capacity(1024);
    let mut scanned = 0;
    let (head_len, body_start) = loop {
        let end = head_end(&buf, scanned);
        if let Some(end) = end.filter(|&(head_len, _)| head_len <= MAX_HEAD) {
            break end;
        }
        if end.is_some() || buf.len() > MAX_HEAD {
            return Err(if buf[..MAX_HEAD].contains(&b'\n') {
                answer(
                    431,
                    &format!("the request head is over the limit of {MAX_HEAD} bytes"),
                )
            } else {
                answer(
                    414,
                    &format!("the request line is over the limit of {MAX_HEAD} bytes"),
                )
            });
        }
        // A line break in the last bytes may end the head with the next ones.
        scanned = buf.len().saturating_sub(3);
        match read_some(stream, &mut buf, 4096, deadline) {
            Ok(0) => return Err(Failed::Gone),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::TimedOut && !buf.is_empty() => {
                return Err(too_slow())
            }
            Err(_) => return Err(Failed::Gone),
        }
    };
    let Ok(head) = std::str::from_utf8(&buf[..head_len]) else {
        return Err(answer(400, "the request head is not UTF-8 text"));
    };
    let mut lines = head.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or_default();
    let mut words = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(answer(
            400,
            &format!("not a request line: {request_line:?}; expected METHOD /path HTTP/1.1"),
        ));
    };
    if method.is_empty() || target.is_empty() {
        return Err(answer(
            400,
            &format!("not a request line: {request_line:?}; expected METHOD /path HTTP/1.1"),
        ));
    }
    if !version.starts_with("HTTP/1.") {
        return Err(answer(
            505,
            &format!("this server speaks HTTP/1.1, not {version:?}"),
        ));
    }
    let mut length: Option<usize> = None;
    let mut expect_continue = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(answer(400, &format!("not a header line: {line:?}")));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let n = value
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| value.parse::<usize>().ok())
                .flatten();
            match (n, length) {
                (None, _) => {
                    return Err(answer(
                        400,
                        &format!("Content-Length must be a number of bytes, not {value:?}"),
                    ))
                }
                (Some(n), Some(seen)) if n != seen => {
                    return Err(answer(400, "two different Content-Length headers"))
                }
                (Some(n), _) => length = Some(n),
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(answer(
                411,
                "send the request body with a Content-Length, not a Transfer-Encoding",
            ));
        } else if name.eq_ignore_ascii_case("expect") && value.eq_ignore_ascii_case("100-continue")
        {
            expect_continue = true;
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_BODY {
        return Err(answer(
            413,
            &format!("the request body has {length} bytes; the limit is {MAX_BODY}"),
        ));
    }
    let mut body = buf[body_start..].to_vec();
    if expect_continue && body.len() < length {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    while body.len() < length {
        let missing = length - body.len();
        match read_some(stream, &mut body, missing, deadline) {
            Ok(0) => {
                return Err(answer(
                    400,
                    &format!(
                        "the request body ended after {} of its {length} bytes",
                        body.len()
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::TimedOut => return Err(too_slow()),
            Err(_) => return Err(Failed::Gone),
        }
    }
    // Bytes after the body (a pipelined request) go unanswered.
    body.truncate(length);
    Ok(Request {
        method: method.to_owned(),
        target: target.to_owned(),
        body,
    })
}

/// Where the head in `buf` ends, looking from `from` on: the length of
/// the head (its lines, up to the last line break) and where the body
/// starts (after the empty line). Lines end in CRLF, or LF alone.
fn head_end(buf: &[u8], from: usize) -> Option<(usize, usize)> {
    (from..buf.len()).find_map(|i| match &buf[i..] {
        [b'\n', b'\n', ..] => Some((i, i + 2)),
        [b'\n', b'\r', b'\n', ..] => Some((i, i + 3)),
        _ => None,
    })
}

/// Reads what the client sends next, at most `limit` bytes, onto `buf`,
/// waiting until `deadline` at most: the number of bytes, 0 at the end of
/// the stream, an error of kind `TimedOut` past the deadline.
fn read_some(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limit: usize,
    deadline: Instant,
) -> io::Result<usize> {
    let mut chunk = [0u8; 4096];
    let want = limit.min(chunk.len());
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(&mut chunk[..want]) {
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(n);
            }
            Err(e) => match e.kind() {
                io::ErrorKind::Interrupted => {}
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                    return Err(io::ErrorKind::TimedOut.into())
                }
                _ => return Err(e),
            },
        }
    }
}

/// Writes `response` with the headers every answer has; its body unless
/// `head_only` (a `HEAD` request's answer).
fn write_response(stream: &mut TcpStream, response: &Response, head_only: bool) -> io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{HEADERS}",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    if response.status == 503 {
        out.push_str("Retry-After: 1\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    if !head_only {
        out.extend_from_slice(response.body.as_bytes());
    }
    stream.write_all(&out)?;
    stream.flush()
}

/// After an answer given before the whole request was read: tells the
/// client that nothing more comes, then reads and drops what it still
/// sends until it closes (a second and a megabyte at most), since closing
/// a connection with unread bytes resets it, and the client may lose the
/// answer.
fn linger(stream: &mut TcpStream) {
    if stream.shutdown(Shutdown::Write).is_err() {
        return;
    }
    let deadline = Instant::now() + LINGER;
    let mut drained = 0;
    let mut sink = Vec::with_capacity(4096);
    while drained < LINGER_BYTES {
        sink.clear();
        match read_some(stream, &mut sink, 4096, deadline) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n,
        }
    }
}

/// The reason phrase of the statuses this server answers with.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}
