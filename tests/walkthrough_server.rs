//! The walkthrough example's server: its request handling as a plain
//! function, then over a real socket on 127.0.0.1.

mod support;

use serde_json::Value;
use support::functions::{find, BUILTINS};
use support::server::{handle, MAX_BODY};
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
        source.contains("fn f(x1: f64, x2: f64) -> f64 {"),
        "{source}"
    );
    assert!(source.trim_end().ends_with('}'));
    for f in list {
        assert!(f["source"]
            .as_str()
            .unwrap()
            .contains(&format!("fn {}(", f["name"].as_str().unwrap())));
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
        let query: Vec<String> = b
            .params
            .iter()
            .zip(b.start)
            .map(|(p, v)| format!("{p}={v}"))
            .collect();
        let (status, v) = json(
            "GET",
            &format!("/api/trace?f={}&{}", b.name, query.join("&")),
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
        ("POST", "/api/trace?f=f&x1=1&x2=2", b"", 405, "answers GET"),
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
    let (server, _) = support::server::bind(0).unwrap();
    let addr = server.server_addr().to_ip().unwrap();
    assert_eq!(addr.ip(), std::net::IpAddr::from([127, 0, 0, 1]));
}
