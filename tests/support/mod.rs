//! What the walkthrough's tests share: the example's modules, a minimal
//! HTTP/1.1 client for 127.0.0.1, and a server started on a free port.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

#[path = "../../examples/walkthrough/functions.rs"]
pub mod functions;
// The module `http` (the server's transport) and the function `http` (the
// client below) share the name: one is a module, the other a value.
#[path = "../../examples/walkthrough/http.rs"]
pub mod http;
#[path = "../../examples/walkthrough/server.rs"]
pub mod server;
#[path = "../../examples/walkthrough/typed.rs"]
pub mod typed;

/// The query of a built-in at its starting point: `f=NAME&P1=..&P2=..`.
pub fn start_query(b: &functions::Builtin) -> String {
    let values: Vec<String> = b
        .params
        .iter()
        .zip(b.start)
        .map(|(p, v)| format!("{p}={v}"))
        .collect();
    format!("f={}&{}", b.name, values.join("&"))
}

/// One request to 127.0.0.1:`port`, `Connection: close`; the status and
/// the body (de-chunked if need be).
pub fn http(port: u16, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    // Read the head, then as much body as Content-Length says (or to the
    // end, or the last chunk): a server may keep the connection open.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let split = loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break split;
        }
        let n = stream.read(&mut buf).expect("read the response head");
        assert!(n > 0, "the connection closed before a response");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let length: Option<usize> = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    let mut body = raw[split + 4..].to_vec();
    loop {
        let complete = match length {
            Some(n) => body.len() >= n,
            None => chunked && body.ends_with(b"0\r\n\r\n"),
        };
        if complete {
            break;
        }
        let n = stream.read(&mut buf).expect("read the response body");
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    if chunked {
        body = dechunk(&body);
    }
    (status, String::from_utf8(body).expect("a UTF-8 body"))
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("hex size");
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// The walkthrough's server on a free port of 127.0.0.1, answering in a
/// thread until dropped.
pub struct Running {
    pub port: u16,
    stop: http::Stop,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// With the example's timeouts and connection limit.
    pub fn start() -> Running {
        Running::with(http::Config::default())
    }

    /// With `config`'s timeouts and connection limit.
    pub fn with(config: http::Config) -> Running {
        let server = http::bind(0).expect("bind");
        let port = server.local_addr().port();
        let stop = server.stopper();
        let thread = std::thread::spawn(move || http::run_with(server, config));
        Running {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
