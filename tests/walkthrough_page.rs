//! The walkthrough page in headless Chromium, driven through chromedriver
//! by the W3C WebDriver protocol: forward steps until every node is shown,
//! backward steps until every accumulation is, one descent step, and the
//! numbers read back from the page equal the generated trace's.
//!
//! Skipped, with a message, where `chromium` or `chromedriver` is not
//! installed (Debian packages chromium and chromium-driver; `.ci/run`
//! installs them in CI). `WALKTHROUGH_SCREENSHOT=path` saves a screenshot
//! of the finished reverse sweep there (the README's is made so).

mod support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use autodiff::runtime::trace::format_number;
use serde_json::{json, Value};
use support::functions::find;
use support::{http, Running};

/// The element reference key of the W3C WebDriver protocol.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn on_path(names: &[&str]) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate.to_string_lossy().into_owned());
            }
        }
    }
    None
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A chromedriver process and one headless Chromium session.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    fn start(chromium: &str, chromedriver: &str) -> Browser {
        let port = free_port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                let (status, body) = http(port, "GET", "/status", "application/json", b"");
                if status == 200 && body.contains("\"ready\":true") {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--hide-scrollbars", "--window-size=1440,1350", "--force-device-scale-factor=1"]
            }
        }}});
        let v = browser.call("POST", "/session", capabilities);
        browser.session = v["sessionId"].as_str().expect("a session id").to_owned();
        browser
    }

    /// A WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if method == "GET" {
            String::new()
        } else {
            body.to_string()
        };
        let (status, text) = http(self.port, method, path, "application/json", body.as_bytes());
        let v: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn session(&self, method: &str, path: &str, body: Value) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn script(&self, script: &str) -> Value {
        self.session(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
    }

    fn element(&self, css: &str) -> String {
        let v = self.session(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        v[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_owned()
    }

    fn click(&self, css: &str) {
        let id = self.element(css);
        self.session("POST", &format!("/element/{id}/click"), json!({}));
    }

    fn text(&self, css: &str) -> String {
        let id = self.element(css);
        self.session("GET", &format!("/element/{id}/text"), Value::Null)
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn property(&self, css: &str, name: &str) -> Value {
        let id = self.element(css);
        self.session(
            "GET",
            &format!("/element/{id}/property/{name}"),
            Value::Null,
        )
    }

    /// Waits until the page has answered its last request.
    fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.script(
            "return document.body.dataset.busy === 'no' && !!document.querySelector('#graph svg');",
        ) != Value::Bool(true)
        {
            assert!(
                Instant::now() < deadline,
                "the page did not load: {}",
                self.text("#error")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn screenshot(&self, path: &str) {
        let v = self.session("GET", "/screenshot", Value::Null);
        let png = base64_decode(v.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"));
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                "application/json",
                b"",
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .map(value)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[test]
fn base64_decodes() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGVsbG8h"), b"hello!");
    assert_eq!(base64_decode("aGk="), b"hi");
}

#[test]
fn step_through_seed_001_in_chromium() {
    let (Some(chromium), Some(chromedriver)) = (
        on_path(&["chromium", "chromium-browser", "google-chrome"]),
        on_path(&["chromedriver"]),
    ) else {
        eprintln!("skipped: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)");
        return;
    };
    let server = Running::start();
    let browser = Browser::start(&chromium, &chromedriver);
    browser.session(
        "POST",
        "/url",
        json!({"url": format!("http://127.0.0.1:{}/?f=f", server.port)}),
    );
    browser.settle();
    assert_eq!(browser.property("#param-x1", "value"), "1");
    assert_eq!(browser.property("#param-x2", "value"), "2");

    let f = find("f").unwrap();
    let trace = (f.trace)(&[1.0, 2.0]);
    let computed = trace.nodes.iter().filter(|n| !n.is_input).count();

    // Forward until the button says there is nothing left.
    let mut clicks = 0;
    while browser.property("#forward", "disabled") == Value::Bool(false) {
        browser.click("#forward");
        clicks += 1;
        assert!(clicks <= computed, "more forward steps than nodes");
    }
    assert_eq!(clicks, computed);
    for node in &trace.nodes {
        let row = browser.text(&format!("#fwd-{}", node.id.0));
        assert!(row.starts_with(&node.label), "{row}");
        assert!(
            row.contains(&format_number(node.value, 5)),
            "{row} lacks {}",
            node.value
        );
    }
    assert_eq!(browser.text("#fwd-5 td.num"), "-0.98999");

    // Backward: the seed, then one click per accumulation.
    let mut clicks = 0;
    while browser.property("#backward", "disabled") == Value::Bool(false) {
        browser.click("#backward");
        clicks += 1;
        assert!(
            clicks <= trace.steps.len() + 1,
            "more backward steps than accumulations"
        );
    }
    assert_eq!(clicks, trace.steps.len() + 1);
    for (k, step) in trace.steps.iter().enumerate() {
        let line = browser.text(&format!("#step-{k}"));
        assert!(line.starts_with(&step.to_string()), "{line} is not {step}");
    }
    // The seed's third line, g_t1 += g_t2 · ∂t2/∂t1 = 1 · (2t1) = -2, under
    // the macro's names.
    assert!(browser.text("#step-2").ends_with("= 1 · -2 = -2"));
    assert_eq!(browser.text("#grad-x1"), "-2.14112");
    assert_eq!(browser.text("#grad-x2"), "1.85888");
    assert_eq!(browser.text("#value"), "0.01001");
    // The graph shows the final adjoints.
    assert_eq!(browser.text("#node-0 .adjoint"), "adjoint -2.14112");
    if let Ok(path) = std::env::var("WALKTHROUGH_SCREENSHOT") {
        browser.screenshot(&path);
    }

    // One descent step, computed by the server from the trace's gradient.
    browser.click("#descend");
    browser.settle();
    let g = trace.gradient();
    let x1: f64 = browser
        .property("#param-x1", "value")
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let x2: f64 = browser
        .property("#param-x2", "value")
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(x1, 1.0 - f.rate * g[0].1);
    assert_eq!(x2, 2.0 - f.rate * g[1].1);
    let next = (f.trace)(&[x1, x2]);
    let row = browser.text("#history-last");
    assert!(row.contains(&format_number(next.value(), 5)), "{row}");
    assert!(row.contains("x1 = 1.21411"), "{row}");
    // The new point starts over: nothing computed yet.
    assert_eq!(browser.property("#backward", "disabled"), Value::Bool(true));
    assert_eq!(browser.property("#forward", "disabled"), Value::Bool(false));

    // A branch: the neuron starts at z < 0, in the else arm, and one
    // descent step takes it to z > 0, the then arm.
    browser.session(
        "POST",
        "/url",
        json!({"url": format!("http://127.0.0.1:{}/?f=neuron", server.port)}),
    );
    browser.settle();
    let forward_all = || {
        for _ in 0..100 {
            if browser.property("#forward", "disabled") == Value::Bool(true) {
                return browser.text("#forward-table");
            }
            browser.click("#forward");
        }
        panic!("the forward sweep did not end");
    };
    let table = forward_all();
    assert!(
        table.contains("if z > 0.0: else") && !table.contains(": then"),
        "{table}"
    );
    browser.click("#descend");
    browser.settle();
    let table = forward_all();
    assert!(
        table.contains("if z > 0.0: then") && !table.contains(": else"),
        "{table}"
    );
    // A bad input is refused by the server, and the page says why.
    browser.script("const w = document.getElementById('param-w'); w.value = 'abc'; w.dispatchEvent(new Event('change'));");
    browser.settle();
    assert_eq!(browser.text("#error"), "w must be a number, not \"abc\"");
}
