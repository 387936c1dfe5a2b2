//! The walkthrough example's server: its request handling as a plain
//! function, then over a real socket on 127.0.0.1.

mod support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::functions::{find, BUILTINS};
use support::http::{Config, MAX_HEAD};
use support::server::{handle, MAX_BODY, MAX_PAIRS};
use support::{http, Running};

fn json(method: &str, url: &str, body: &[u8]) -> (u16, Value) {
    let r = handle(method, url, body);
    assert!(
        r.content_type.starts_with("application/json"),
        "{url}: {}",
        r.content_type
    );
    (
        r.status,
        serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{url}: {e}: {}", r.body)),
    )
}

fn error_of(method: &str, url: &str, body: &[u8]) -> (u16, String) {
    let (status, v) = json(method, url, body);
    (
        status,
        v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: no error message: {v}"))
            .to_owned(),
    )
}

#[test]
fn the_page_is_self_contained() {
    let r = handle("GET", "/", b"");
    assert_eq!(r.status, 200);
    assert!(r.content_type.starts_with("text/html"));
    for button in [
        "id=\"forward\"",
        "id=\"backward\"",
        "id=\"descend\"",
        "id=\"reset\"",
    ] {
        assert!(r.body.contains(button), "{button}");
    }
    // Nothing loaded from elsewhere: no external script, style sheet or font.
    for outside in [
        "http://",
        "https://",
        "src=\"//",
        "@import",
        "@font-face",
        "<link",
    ] {
        assert!(!r.body.contains(outside), "the page refers to {outside}");
    }
    assert!(!r.body.contains("<script src"), "an external script");
}

#[test]
fn functions_are_listed_with_their_sources() {
    let (status, v) = json("GET", "/api/functions", b"");
    assert_eq!(status, 200);
    let list = v["functions"].as_array().unwrap();
    assert_eq!(list.len(), BUILTINS.len());
    assert!(list.len() >= 4);
    assert_eq!(list[0]["name"], "f");
    assert_eq!(list[0]["params"], serde_json::json!(["x1", "x2"]));
    assert_eq!(list[0]["start"], serde_json::json!([1.0, 2.0]));
    let source = list[0]["source"].as_str().unwrap();
    assert!(source.starts_with("#[grad"), "{source}");
    assert!(
        source.contains("fn f<T: Float>(x1: T, x2: T) -> T {"),
        "{source}"
    );
    assert!(source.trim_end().ends_with('}'));
    for f in list {
        assert!(f["source"]
            .as_str()
            .unwrap()
            .contains(&format!("fn {}<T: Float>(", f["name"].as_str().unwrap())));
    }
}

#[test]
fn the_trace_endpoint_is_the_generated_trace() {
    let (status, v) = json("GET", "/api/trace?f=f&x1=1&x2=2", b"");
    assert_eq!(status, 200);
    let trace = (find("f").unwrap().trace)(&[1.0, 2.0]);
    let expected: Value = serde_json::from_str(&trace.to_json()).unwrap();
    assert_eq!(v["trace"], expected);
    assert_eq!(v["inputs"]["x1"], 1.0);
    assert_eq!(v["svg"].as_str().unwrap(), trace.to_svg());
    let g = &v["trace"]["gradient"];
    assert_eq!(g[0]["value"].as_f64(), Some(-2.0 - 3f64.sin()));
    assert_eq!(g[1]["value"].as_f64(), Some(2.0 - 3f64.sin()));
    // Percent-encoded and spaced numbers read as numbers.
    let (status, v) = json("GET", "/api/trace?f=f&x1=%2D1.5e0&x2=+2", b"");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["inputs"]["x1"], -1.5);
    // Every built-in function traces at its start.
    for b in BUILTINS {
        let (status, v) = json(
            "GET",
            &format!("/api/trace?{}", support::start_query(b)),
            b"",
        );
        assert_eq!(status, 200, "{}: {v}", b.name);
        let names: Vec<&str> = v["trace"]["gradient"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, b.params, "{}", b.name);
    }
}

#[test]
fn descent_steps_against_the_gradient() {
    let trace = (find("f").unwrap().trace)(&[1.0, 2.0]);
    let g = trace.gradient();
    for (method, url, body) in [
        ("POST", "/api/descend", &b"f=f&x1=1&x2=2&rate=0.1"[..]),
        ("GET", "/api/descend?f=f&x1=1&x2=2&rate=0.1", &b""[..]),
    ] {
        let (status, v) = json(method, url, body);
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["from"]["gradient"]["x1"].as_f64(), Some(g[0].1));
        let (x1, x2) = (1.0 - 0.1 * g[0].1, 2.0 - 0.1 * g[1].1);
        assert_eq!(v["inputs"]["x1"].as_f64(), Some(x1));
        assert_eq!(v["inputs"]["x2"].as_f64(), Some(x2));
        let next = (find("f").unwrap().trace)(&[x1, x2]);
        assert_eq!(v["trace"]["value"].as_f64(), Some(next.value()));
        assert!(next.value() < trace.value(), "a small step goes down");
    }
    // Without a rate, the function's own.
    let (_, v) = json("POST", "/api/descend", b"f=rosenbrock&x=-1.2&y=1");
    assert_eq!(v["rate"].as_f64(), Some(find("rosenbrock").unwrap().rate));
}

#[test]
fn bad_requests_get_a_clear_4xx() {
    let cases: &[(&str, &str, &[u8], u16, &str)] = &[
        (
            "GET",
            "/api/trace?f=nope&x1=1&x2=2",
            b"",
            404,
            "no built-in function named \"nope\"",
        ),
        (
            "GET",
            "/api/trace?x1=1&x2=2",
            b"",
            400,
            "say which function",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=1",
            b"",
            400,
            "missing parameter x2",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=one&x2=2",
            b"",
            400,
            "x1 must be a number, not \"one\"",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=inf&x2=2",
            b"",
            400,
            "x1 must be a finite number",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=NaN&x2=2",
            b"",
            400,
            "x1 must be a finite number",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=1&x2=2&x3=0",
            b"",
            400,
            "f has no parameter x3",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=1&x1=2&x2=2",
            b"",
            400,
            "given twice",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=%zz&x2=2",
            b"",
            400,
            "bad percent escape",
        ),
        (
            "GET",
            "/api/trace?f=f&x1=1&x2=2&rate=1",
            b"",
            400,
            "no parameter rate",
        ),
        (
            "POST",
            "/api/descend",
            b"f=f&x1=1&x2=2&rate=-1",
            400,
            "rate must be positive",
        ),
        (
            "POST",
            "/api/descend",
            b"f=f&x1=1&x2=2&rate=1e308",
            422,
            "leaves the finite numbers",
        ),
        ("POST", "/api/descend", b"\xff\xfe", 400, "not UTF-8"),
        (
            "DELETE",
            "/api/trace?f=f&x1=1&x2=2",
            b"",
            405,
            "answers GET",
        ),
        ("PUT", "/api/functions", b"", 405, "answers GET"),
        ("DELETE", "/", b"", 405, "answers GET"),
        ("GET", "/etc/passwd", b"", 404, "no such page"),
    ];
    for (method, url, body, status, message) in cases {
        let (got, error) = error_of(method, url, body);
        assert_eq!(
            (got, error.contains(message)),
            (*status, true),
            "{method} {url}: {got} {error}"
        );
    }
    let big = vec![b'a'; MAX_BODY + 1];
    let (status, error) = error_of("POST", "/api/descend", &big);
    assert_eq!(status, 413);
    assert!(error.contains("limit"), "{error}");
}

#[test]
fn over_a_real_socket() {
    let server = Running::start();
    let port = server.port;
    let (status, page) = http(port, "GET", "/", "text/plain", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<title>See the derivative"));
    let (status, body) = http(port, "GET", "/api/trace?f=f&x1=1&x2=2", "text/plain", b"");
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["trace"]["gradient"][0]["value"].as_f64(),
        Some(-2.0 - 3f64.sin())
    );
    let (status, body) = http(
        port,
        "POST",
        "/api/descend",
        "application/x-www-form-urlencoded",
        b"f=f&x1=1&x2=2&rate=0.1",
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(port, "GET", "/api/trace?f=f&x1=x&x2=2", "text/plain", b"");
    assert_eq!(status, 400);
    assert!(body.contains("x1 must be a number"));
    // A body over the limit is refused before it is read.
    let big = vec![b'1'; 64 * 1024];
    let (status, body) = http(
        port,
        "POST",
        "/api/descend",
        "application/x-www-form-urlencoded",
        &big,
    );
    assert_eq!(status, 413, "{body}");
    drop(server);
    // The server listens on the loopback address only.
    let server = support::http::bind(0).unwrap();
    let addr = server.local_addr();
    assert_eq!(addr.ip(), std::net::IpAddr::from([127, 0, 0, 1]));
}

// The transport (issue 30, item 7): slow clients, many clients, too many
// parameters.

/// Connects and sends `bytes`, then nothing more: the connection stays
/// open until dropped.
fn send(port: u16, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.write_all(bytes).expect("send");
    stream
}

/// All the server sends on `stream` until it closes it; fails if that
/// takes over `limit`.
fn read_to_close(stream: &mut TcpStream, limit: Duration) -> String {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut answer = Vec::new();
    if let Err(e) = stream.read_to_end(&mut answer) {
        panic!(
            "the server kept the connection over {limit:?} ({e}); it sent {:?}",
            String::from_utf8_lossy(&answer)
        );
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// One request sent whole (the sending side then shut), and all the
/// answer until the server closes the connection.
fn ask(port: u16, request: &[u8]) -> String {
    let mut stream = send(port, request);
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    read_to_close(&mut stream, Duration::from_secs(10))
}

/// A POST that declares a body of 100 bytes and sends 10 of them.
const STALLED_POST: &[u8] = b"POST /api/descend HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nf=f&x1=1&x";

#[test]
fn a_stalled_client_does_not_hold_up_the_others() {
    // A long read timeout: the stalled clients still stall while the
    // other one is answered.
    let server = Running::with(Config {
        read_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    let port = server.port;
    let mut stalled = [
        send(port, STALLED_POST),
        // Half a head.
        send(port, b"GET /api/functions HTTP/1.1\r\nHost: 127."),
        // Nothing at all.
        send(port, b""),
    ];
    let (answered, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = answered.send(http(port, "GET", "/api/functions", "text/plain", b""));
    });
    let (status, body) = answer
        .recv_timeout(Duration::from_secs(5))
        .expect("GET /api/functions is answered within 5 s while other clients stall");
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["functions"].as_array().unwrap().len(), BUILTINS.len());
    // Meanwhile the stalled ones were still connected and waiting.
    for stream in &mut stalled {
        stream.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        match stream.read(&mut buf) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("a stalled client was answered or closed: {other:?}"),
        }
        stream.set_nonblocking(false).unwrap();
    }
    // Stopping the server closes them, unanswered.
    drop(server);
    for stream in &mut stalled {
        assert_eq!(read_to_close(stream, Duration::from_secs(10)), "");
    }
}

#[test]
fn a_stalled_client_is_timed_out() {
    let server = Running::with(Config {
        read_timeout: Duration::from_millis(300),
        ..Config::default()
    });
    let port = server.port;
    for request in [
        STALLED_POST,
        &b"GET /api/functions HTTP/1.1\r\nHost: 127."[..],
    ] {
        let mut stalled = send(port, request);
        let answer = read_to_close(&mut stalled, Duration::from_secs(10));
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        assert!(answer.contains("the request took over 0.3 s"), "{answer}");
    }
    // A client that sends nothing is closed, unanswered.
    let mut silent = send(port, b"");
    assert_eq!(read_to_close(&mut silent, Duration::from_secs(10)), "");
    // And the server goes on answering.
    let (status, _) = http(port, "GET", "/api/functions", "text/plain", b"");
    assert_eq!(status, 200);
}

#[test]
fn too_many_parameters_are_refused() {
    let cap = format!("the limit is {MAX_PAIRS}");
    let many: String = (0..50_000).map(|i| format!("&p{i}=1")).collect();
    for url in [
        format!("/api/trace?f=f&x1=1&x2=2{many}"),
        format!("/api/descend?f=f&x1=1&x2=2{many}"),
    ] {
        let (status, error) = error_of("GET", &url, b"");
        assert_eq!(status, 400, "{error}");
        assert!(error.contains(&cap), "{error}");
    }
    // At the cap the parameters are read (and the unknown ones refused);
    // one more is over it.
    let at_cap: String = (3..MAX_PAIRS).map(|i| format!("&p{i}=1")).collect();
    let (status, error) = error_of("GET", &format!("/api/trace?f=f&x1=1&x2=2{at_cap}"), b"");
    assert_eq!(status, 400);
    assert!(error.contains("f has no parameter p3"), "{error}");
    let (status, error) = error_of(
        "GET",
        &format!("/api/trace?f=f&x1=1&x2=2{at_cap}&one=1"),
        b"",
    );
    assert_eq!(status, 400);
    assert!(error.contains(&cap), "{error}");
    // Over a socket: a form under MAX_BODY bytes but over the cap, and a
    // request line over MAX_HEAD bytes.
    let server = Running::start();
    let form = format!("f=f&x1=1&x2=2{}", "&a=1".repeat(MAX_PAIRS));
    assert!(form.len() <= MAX_BODY);
    let (status, body) = http(
        server.port,
        "POST",
        "/api/descend",
        "application/x-www-form-urlencoded",
        form.as_bytes(),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(&cap), "{body}");
    let url = format!("/api/trace?f=f{many}");
    assert!(url.len() > MAX_HEAD);
    let (status, body) = http(server.port, "GET", &url, "text/plain", b"");
    assert_eq!(status, 414, "{body}");
}

#[test]
fn many_clients_at_once() {
    let server = Running::start();
    let port = server.port;
    let f = find("f").unwrap();
    let clients: Vec<_> = (0..8)
        .map(|client| {
            std::thread::spawn(move || {
                for i in 0..5 {
                    let x1 = client as f64 + i as f64 / 8.0;
                    let (status, body) = match i % 3 {
                        0 => http(
                            port,
                            "GET",
                            &format!("/api/trace?f=f&x1={x1}&x2=2"),
                            "text/plain",
                            b"",
                        ),
                        1 => http(
                            port,
                            "POST",
                            "/api/descend",
                            "application/x-www-form-urlencoded",
                            format!("f=f&x1={x1}&x2=2&rate=0.01").as_bytes(),
                        ),
                        _ => http(port, "GET", "/api/functions", "text/plain", b""),
                    };
                    assert_eq!(status, 200, "client {client}, request {i}: {body}");
                    let v: Value = serde_json::from_str(&body).unwrap();
                    match i % 3 {
                        0 => {
                            assert_eq!(v["inputs"]["x1"].as_f64(), Some(x1));
                            let trace = (f.trace)(&[x1, 2.0]).to_json();
                            let expected: Value = serde_json::from_str(&trace).unwrap();
                            assert_eq!(v["trace"], expected);
                        }
                        1 => {
                            assert_eq!(v["from"]["inputs"]["x1"].as_f64(), Some(x1));
                            assert_eq!(v["rate"].as_f64(), Some(0.01));
                        }
                        _ => assert_eq!(
                            v["functions"].as_array().map(Vec::len),
                            Some(BUILTINS.len())
                        ),
                    }
                }
            })
        })
        .collect();
    for client in clients {
        client.join().expect("a client got a wrong answer");
    }
}

#[test]
fn beyond_the_connection_limit_a_503() {
    let server = Running::with(Config {
        max_connections: 2,
        read_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    let port = server.port;
    // Connections are accepted in order: these two take both places.
    let first = send(port, b"");
    let second = send(port, b"");
    let (status, body) = http(port, "GET", "/api/functions", "text/plain", b"");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("busy"), "{body}");
    // A place comes back when its client goes.
    drop(first);
    let give_up = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = http(port, "GET", "/api/functions", "text/plain", b"");
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            Instant::now() < give_up,
            "the place of a closed connection never came back"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(second);
}

#[test]
fn the_transport_answers_with_its_headers() {
    let server = Running::start();
    let port = server.port;
    // HEAD: the head of the GET's answer, no body.
    let answer = ask(port, b"HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    let head = head.to_ascii_lowercase();
    for header in [
        "content-type: text/html; charset=utf-8",
        "cache-control: no-store",
        "x-content-type-options: nosniff",
        "content-security-policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'",
        "connection: close",
        &format!("content-length: {}", handle("GET", "/", b"").body.len()),
    ] {
        assert!(head.contains(header), "{header} not in {head}");
    }
    assert_eq!(body, "");
    // Requests the transport refuses itself, each with a JSON message.
    let cases: &[(&[u8], &str)] = &[
        (b"nonsense\r\n\r\n", "400 "),
        (b"GET / HTTP/2.0\r\n\r\n", "505 "),
        (b"GET / HTTP/1.1\r\nno colon\r\n\r\n", "400 "),
        (
            b"POST /api/descend HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            "400 ",
        ),
        (
            b"POST /api/descend HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "411 ",
        ),
        (
            b"POST /api/descend HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n",
            "413 ",
        ),
    ];
    for (request, status) in cases {
        let answer = ask(port, request);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{:?}: {answer}",
            String::from_utf8_lossy(request)
        );
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        assert!(v["error"].is_string(), "{v}");
    }
    let long_head = format!("GET / HTTP/1.1\r\nX-Long: {}\r\n\r\n", "a".repeat(MAX_HEAD));
    let answer = ask(port, long_head.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
    // A request with a body and bare line feeds, as some clients send.
    let answer = ask(
        port,
        b"POST /api/descend HTTP/1.1\nContent-Length: 22\n\nf=f&x1=1&x2=2&rate=0.1",
    );
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
}
