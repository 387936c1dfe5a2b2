//! The walkthrough page in headless Chromium, driven through chromedriver
//! by the W3C WebDriver protocol: forward steps until every node is shown,
//! backward steps until every accumulation is, one descent step, and the
//! numbers read back from the page equal the generated trace's; the keys
//! (→ next step, ← back one step, Enter finish the sweep, D descent, R
//! reset) and where the focus goes; rejected inputs, which grey the trace
//! and stop the stepping; the graph's text size and what it scrolls to.
//!
//! Skipped, with a message, where `chromium` or `chromedriver` is not
//! installed (Debian packages chromium and chromium-driver; `.ci/run`
//! installs them in CI). `WALKTHROUGH_SCREENSHOT=path` saves a screenshot
//! of the finished reverse sweep there (the README's is made so).

mod support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use autodiff::runtime::trace::format_number;
use serde_json::{json, Value};
use support::functions::find;
use support::{http, Running};

/// The element reference key of the W3C WebDriver protocol.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// WebDriver's codes of the keys the page answers.
const RIGHT: &str = "\u{E014}";
const LEFT: &str = "\u{E012}";
const ENTER: &str = "\u{E007}";

/// One Chromium at a time: the tests take turns rather than share the
/// machine's cores.
static CHROMIUM: Mutex<()> = Mutex::new(());

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

    /// Opens the page at function `f` and waits for its trace.
    fn open(&self, server: &Running, f: &str) {
        self.session(
            "POST",
            "/url",
            json!({"url": format!("http://127.0.0.1:{}/?f={f}", server.port)}),
        );
        self.settle();
    }

    /// Presses and releases each key in turn, sent to the focused element.
    fn keys(&self, keys: &[&str]) {
        let mut actions = Vec::new();
        for key in keys {
            actions.push(json!({"type": "keyDown", "value": key}));
            actions.push(json!({"type": "keyUp", "value": key}));
        }
        self.session(
            "POST",
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        );
    }

    /// The focus back on the page itself, where the keys are shortcuts.
    fn blur(&self) {
        self.script("document.activeElement.blur();");
    }

    fn disabled(&self, css: &str) -> bool {
        self.property(css, "disabled") == Value::Bool(true)
    }

    /// The page's step counter: forward nodes, then the seed, then one
    /// per accumulation.
    fn step(&self) -> usize {
        self.script("return document.body.dataset.step;")
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Rows of the forward sweep's table.
    fn rows(&self) -> usize {
        self.script("return document.querySelectorAll('#forward-table tbody tr').length;")
            .as_u64()
            .unwrap() as usize
    }

    fn focused(&self) -> String {
        self.script("return document.activeElement.id;")
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    /// Waits until the page has answered its last request, when that
    /// answer was a refusal (the graph of the last trace stays).
    fn settle_after_error(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.script("return document.body.dataset.busy === 'no';") != Value::Bool(true) {
            assert!(Instant::now() < deadline, "the page did not answer");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sets a field's text as typing would, then leaves it (`change`).
    fn change(&self, id: &str, text: &str) {
        self.script(&format!(
            "const e = document.getElementById({id:?}); e.value = {text:?}; \
             e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change'));"
        ));
        self.settle();
    }

    /// Whether the trace's views are greyed: the page says so, and the
    /// graph's and tables' cards are drawn faint.
    fn greyed(&self) -> bool {
        let v = self.script(
            "const faint = ['graph-card', 'forward-card', 'reverse-card'] \
               .every((id) => Number(getComputedStyle(document.getElementById(id)).opacity) < 0.6); \
             const note = getComputedStyle(document.getElementById('stale-note')).display !== 'none'; \
             return [document.body.dataset.stale === 'yes', faint, note];",
        );
        let flags: Vec<bool> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_bool().unwrap())
            .collect();
        assert!(
            flags.iter().all(|f| *f) || flags.iter().all(|f| !*f),
            "greyed in part: {flags:?}"
        );
        flags[0]
    }

    /// Whether the graph's node `id` lies wholly in the graph's box.
    fn node_in_view(&self, id: usize) -> bool {
        self.script(&format!(
            "const box = document.getElementById('graph'), b = box.getBoundingClientRect(); \
             const r = document.getElementById('node-{id}').getBoundingClientRect(); \
             return r.left >= b.left - 0.5 && r.top >= b.top - 0.5 && \
                    r.right <= b.left + box.clientWidth + 0.5 && r.bottom <= b.top + box.clientHeight + 0.5;"
        )) == Value::Bool(true)
    }

    /// The smallest text of the graph, in screen pixels: its computed
    /// font size times the drawing's scale.
    fn smallest_graph_text_px(&self) -> f64 {
        self.script(
            "const svg = document.querySelector('#graph svg'); \
             const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
             const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize)); \
             return Math.min(...sizes) * scale;",
        )
        .as_f64()
        .unwrap()
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

/// The server and a browser, one test at a time; `None` (and a message)
/// where Chromium or chromedriver is not installed.
fn chromium(test: &str) -> Option<(MutexGuard<'static, ()>, Running, Browser)> {
    let (Some(chromium), Some(chromedriver)) = (
        on_path(&["chromium", "chromium-browser", "google-chrome"]),
        on_path(&["chromedriver"]),
    ) else {
        eprintln!("{test}: skipped: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)");
        return None;
    };
    let turn = CHROMIUM.lock().unwrap_or_else(|e| e.into_inner());
    eprintln!("{test}: running in {chromium}");
    let server = Running::start();
    let browser = Browser::start(&chromium, &chromedriver);
    Some((turn, server, browser))
}

#[test]
fn step_through_seed_001_in_chromium() {
    let Some((_turn, server, browser)) = chromium("step_through_seed_001_in_chromium") else {
        return;
    };
    browser.open(&server, "f");
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
    // Forward disabled itself: the focus is on the next useful control.
    assert_eq!(browser.focused(), "backward");
    assert!(browser.disabled("#descend"));
    assert!(browser
        .property("#descend", "title")
        .as_str()
        .unwrap()
        .contains("Finish the reverse sweep first"));
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
        // No descent before the reverse sweep is done.
        assert_eq!(
            browser.disabled("#descend"),
            clicks <= trace.steps.len(),
            "after {clicks} backward steps"
        );
    }
    assert_eq!(clicks, trace.steps.len() + 1);
    // The last Backward step disabled its button: the focus went on.
    assert_eq!(browser.focused(), "descend");
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
    browser.open(&server, "neuron");
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
    // Descent waits for the reverse sweep: finish it first.
    assert!(browser.disabled("#descend"));
    browser.click("#finish");
    assert!(!browser.disabled("#descend"));
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

#[test]
fn keys_step_back_and_finish_sweeps_in_chromium() {
    let Some((_turn, server, browser)) = chromium("keys_step_back_and_finish_sweeps_in_chromium")
    else {
        return;
    };
    browser.open(&server, "f");
    let trace = (find("f").unwrap().trace)(&[1.0, 2.0]);
    let inputs = trace.nodes.iter().filter(|n| n.is_input).count();
    let computed = trace.nodes.len() - inputs;
    let last = computed + 1 + trace.steps.len();
    browser.blur();

    // → until the forward sweep is done, the status of each step kept.
    let mut statuses = vec![browser.text("#status")];
    while !browser.disabled("#forward") {
        browser.keys(&[RIGHT]);
        statuses.push(browser.text("#status"));
        assert!(statuses.len() <= computed + 1, "more steps than nodes");
    }
    assert_eq!(browser.step(), computed);
    assert_eq!(browser.rows(), trace.nodes.len());
    assert!(!browser.disabled("#backward"));
    // ← takes one node back: the rows, the status, the marks.
    browser.keys(&[LEFT]);
    assert_eq!(browser.step(), computed - 1);
    assert_eq!(browser.rows(), trace.nodes.len() - 1);
    assert_eq!(browser.text("#status"), statuses[computed - 1]);
    assert!(!browser.disabled("#forward") && browser.disabled("#backward"));
    // The ids of the elements `css` selects, sorted, space-separated.
    let current = |css: &str| {
        browser.script(&format!(
            "return [...document.querySelectorAll({css:?})].map((e) => e.id).sort().join(' ');"
        ))
    };
    let count = |css: &str| {
        browser.script(&format!(
            "return document.querySelectorAll({css:?}).length;"
        ))
    };
    let previous = trace.nodes[trace.nodes.len() - 2].id.0;
    assert_eq!(current("#graph .node.current"), format!("node-{previous}"));
    assert_eq!(
        current("#forward-table tr.current"),
        format!("fwd-{previous}")
    );
    browser.keys(&[RIGHT]);
    assert_eq!(browser.text("#status"), statuses[computed]);

    // Across the boundary: → seeds the output, ← takes the seed back.
    let (output, _) = trace.outputs[0];
    let y = &trace.nodes[output.0].label;
    browser.keys(&[RIGHT]);
    assert_eq!(browser.step(), computed + 1);
    assert_eq!(
        browser.text("#reverse li"),
        format!("g_{y} = 1 (the seed: ∂{y}/∂{y} = 1)")
    );
    assert_eq!(current("#graph .has-adjoint"), format!("node-{}", output.0));
    browser.keys(&[LEFT]);
    assert_eq!(browser.step(), computed);
    assert_eq!(browser.text("#status"), statuses[computed]);
    assert_eq!(count("#reverse li"), 0);
    assert_eq!(
        count("#graph .has-adjoint, #graph .receiving, #graph .giving"),
        0
    );
    assert_eq!(
        current("#graph .node.current"),
        format!("node-{}", output.0)
    );
    assert!(browser.disabled("#forward") && !browser.disabled("#backward"));
    // Two backward steps, and one back: the first accumulation's marks.
    browser.keys(&[RIGHT, RIGHT, RIGHT]);
    let second = browser.text("#status");
    browser.keys(&[LEFT]);
    assert_eq!(browser.step(), computed + 2);
    let first = &trace.steps[0];
    let (parent, child) = (first.parent.0, first.child.0);
    assert_eq!(child, output.0);
    assert_eq!(current("#reverse li.current"), "step-0");
    assert_eq!(count("#reverse li"), 3, "the seed, a heading, step 0");
    assert_eq!(current("#graph .receiving"), format!("node-{parent}"));
    assert_eq!(current("#graph .giving"), format!("node-{child}"));
    assert_eq!(
        current("#graph .edge.active"),
        format!("edge-{parent}-{child}-{}", first.input)
    );
    let mut adjoints = [format!("node-{parent}"), format!("node-{child}")];
    adjoints.sort();
    assert_eq!(current("#graph .has-adjoint"), adjoints.join(" "));
    assert_eq!(count("#graph .node.current, #forward-table tr.current"), 0);
    browser.keys(&[RIGHT]);
    assert_eq!(browser.text("#status"), second);

    // Enter finishes the reverse sweep; then Descent is on.
    assert!(browser.disabled("#descend"));
    browser.keys(&[ENTER]);
    assert_eq!(browser.step(), last);
    assert!(!browser.disabled("#descend"));
    assert!(browser.disabled("#finish") && browser.disabled("#backward"));
    assert_eq!(browser.text("#grad-x1"), "-2.14112");
    // ← from the end: no gradient, no descent.
    browser.keys(&[LEFT]);
    assert_eq!(browser.step(), last - 1);
    assert!(browser.disabled("#descend"));
    assert_eq!(browser.text("#gradient"), "");
    // R starts over; Enter at the start finishes the forward sweep only.
    browser.keys(&["r"]);
    assert_eq!(browser.step(), 0);
    assert_eq!(browser.rows(), inputs);
    assert_eq!(browser.text("#status"), statuses[0]);
    browser.keys(&[ENTER]);
    assert_eq!(browser.step(), computed);
    assert!(browser.disabled("#descend"));
    // D does nothing before the reverse sweep is done.
    browser.keys(&["d"]);
    assert_eq!(browser.step(), computed);
    browser.keys(&[ENTER, "d"]);
    browser.settle();
    assert_eq!(browser.step(), 0);
    assert!(browser.text("#history-last").contains("x1 = 1.21411"));

    // In a field the keys are the field's: no step.
    browser.keys(&[RIGHT, RIGHT]);
    browser.script("document.getElementById('param-x1').focus();");
    browser.keys(&[RIGHT, LEFT, RIGHT]);
    assert_eq!(browser.step(), 2);
    assert_eq!(browser.focused(), "param-x1");
    // Enter in a parameter field applies the value typed: the trace
    // starts over there, and the focus stays in the field.
    browser.script(
        "const e = document.getElementById('param-x1'); e.value = '3'; e.dispatchEvent(new Event('input'));",
    );
    browser.keys(&[ENTER]);
    browser.settle();
    assert_eq!(browser.step(), 0);
    assert_eq!(browser.rows(), inputs);
    assert_eq!(browser.text("#fwd-0 td.num"), "3");
    assert_eq!(browser.focused(), "param-x1");

    // A value typed and not applied is applied by the next step button,
    // pressed without leaving the field: the trace starts over at it
    // rather than step the old one.
    browser.blur();
    browser.keys(&[RIGHT, RIGHT, RIGHT]);
    assert_eq!(browser.step(), 3);
    browser.script(
        "const e = document.getElementById('param-x2'); e.focus(); e.value = '4'; \
         e.dispatchEvent(new Event('input')); document.getElementById('forward').click();",
    );
    browser.settle();
    assert_eq!(browser.step(), 0);
    assert_eq!(browser.text("#fwd-1 td.num"), "4");
    assert!(browser.text("#status").contains("starts over"));

    // Focus: Back disables itself at the start, Forward takes the focus.
    browser.click("#forward");
    browser.click("#back");
    assert_eq!(browser.step(), 0);
    assert_eq!(browser.focused(), "forward");
    // Finish sweep finishes forward (and stays on), then reverse, and
    // hands the focus to Descent step.
    browser.click("#finish");
    assert_eq!(browser.step(), computed);
    assert_eq!(browser.focused(), "finish");
    browser.click("#finish");
    assert_eq!(browser.step(), last);
    assert_eq!(browser.focused(), "descend");
    // The keys and their buttons are on the page.
    let keys = browser.text("#keys");
    for key in ["→", "←", "Enter", "D", "R"] {
        assert!(keys.contains(key), "{keys} lacks {key}");
    }
    assert!(browser
        .property("#back", "title")
        .as_str()
        .unwrap()
        .contains("(←)"));
}

#[test]
fn rejected_inputs_grey_the_trace_in_chromium() {
    let Some((_turn, server, browser)) = chromium("rejected_inputs_grey_the_trace_in_chromium")
    else {
        return;
    };
    browser.open(&server, "neuron");
    browser.blur();
    browser.keys(&[ENTER]);
    let rows = browser.rows();
    let step = browser.step();
    assert!(!browser.greyed());
    let stepping = ["#forward", "#backward", "#back", "#finish", "#descend"];
    let off = |browser: &Browser| stepping.iter().all(|b| browser.disabled(b));

    // The page's own check shows at once, before the server answers ...
    let at_once = browser.script(
        "const e = document.getElementById('param-w'); e.value = 'abc'; \
         e.dispatchEvent(new Event('change')); return document.getElementById('error').textContent;",
    );
    assert_eq!(at_once, "w must be a number, not \"abc\"");
    // ... and the server's answer stands.
    browser.settle();
    assert_eq!(browser.text("#error"), "w must be a number, not \"abc\"");
    assert!(off(&browser), "stepping stays on after a rejected input");
    assert!(browser.greyed());
    assert!(browser
        .text("#stale-note")
        .contains("the last valid input, w = -1, b = 0.5"));
    assert!(browser.text("#status").contains("Stepping is off"));
    assert_eq!(browser.property("#param-w", "value"), "abc");
    // The old trace stays, greyed, and the keys do not step it.
    assert_eq!(browser.rows(), rows);
    browser.blur();
    browser.keys(&[RIGHT, LEFT, ENTER, "d"]);
    assert_eq!(browser.step(), step);
    assert_eq!(browser.rows(), rows);

    browser.change("param-w", "1e400");
    assert_eq!(
        browser.text("#error"),
        "w must be a finite number, not \"1e400\""
    );
    assert!(off(&browser) && browser.greyed());
    browser.change("param-b", "NaN");
    assert!(off(&browser) && browser.greyed());

    // Valid inputs: on again, not greyed, and the trace is theirs.
    browser.change("param-w", "0.5");
    assert!(browser.greyed(), "b is still NaN");
    browser.change("param-b", "0.25");
    assert!(!browser.greyed());
    assert_eq!(browser.text("#error"), "");
    assert!(!browser.disabled("#forward") && !browser.disabled("#finish"));
    assert!(browser.disabled("#back") && browser.disabled("#descend"));
    assert_eq!(browser.step(), 0);
    assert_eq!(browser.text("#fwd-0 td.num"), "0.5");
    assert_eq!(browser.text("#fwd-1 td.num"), "0.25");

    // Reset after a rejected input goes back to the last valid one.
    browser.keys(&[RIGHT, RIGHT]);
    browser.change("param-w", "abc");
    assert!(browser.greyed() && off(&browser));
    assert!(!browser.disabled("#reset"));
    browser.click("#reset");
    assert!(!browser.greyed());
    assert_eq!(browser.property("#param-w", "value"), "0.5");
    assert_eq!(browser.text("#error"), "");
    assert_eq!(browser.step(), 0);
    assert!(!browser.disabled("#forward"));
}

#[test]
fn graph_text_is_readable_and_in_view_in_chromium() {
    let Some((_turn, server, browser)) = chromium("graph_text_is_readable_and_in_view_in_chromium")
    else {
        return;
    };
    for f in ["f", "neuron", "rosenbrock", "line_fit"] {
        browser.open(&server, f);
        let px = browser.smallest_graph_text_px();
        assert!(px >= 11.0 - 1e-9, "{f}: text of {px} px in the graph");
        let builtin = find(f).unwrap();
        let trace = (builtin.trace)(builtin.start);
        let output = trace.outputs[0].0 .0;
        assert!(
            browser.node_in_view(output),
            "{f}: the output is out of view"
        );
    }
    // line_fit's graph (open now) is wider than its box: the current node is
    // scrolled into view at every step, forward and reverse.
    let f = find("line_fit").unwrap();
    let trace = (f.trace)(f.start);
    browser.blur();
    for node in trace.nodes.iter().filter(|n| !n.is_input) {
        browser.keys(&[RIGHT]);
        assert!(
            browser.node_in_view(node.id.0),
            "{} out of view",
            node.label
        );
    }
    browser.keys(&[RIGHT]);
    for step in &trace.steps {
        browser.keys(&[RIGHT]);
        assert!(browser.node_in_view(step.parent.0), "{step} out of view");
    }
    // Every highlight the page uses has a line in the legend.
    let legend = browser.text("#step-legend");
    for entry in [
        "not computed yet",
        "computed",
        "just computed (forward)",
        "receives an adjoint",
        "gives it",
        "edge of this step",
        "greyed",
    ] {
        assert!(legend.contains(entry), "{legend} lacks {entry}");
    }
}

/// Each forward row's working and each local derivative's rule, the
/// reference text's names, the gradient beside the formula's and central
/// differences, and the Hessian: seed 001 at (1, 2).
#[test]
fn the_working_the_check_and_the_hessian_in_chromium() {
    let Some((_turn, server, browser)) =
        chromium("the_working_the_check_and_the_hessian_in_chromium")
    else {
        return;
    };
    browser.open(&server, "f");
    browser.blur();
    browser.keys(&[ENTER]);
    let trace = (find("f").unwrap().trace)(&[1.0, 2.0]);
    let row = |label: &str| browser.text(&format!("#fwd-{}", trace.find(label).unwrap().id.0));
    // t1 = x1 − x2 = 1 − 2 = −1, and t4's rule −sin(t3) at t3 = 3.
    let t1 = row("t1");
    assert!(
        t1.contains("x1 - x2") && t1.contains("= 1 - 2") && t1.contains("= -1"),
        "{t1}"
    );
    let t2 = row("t2");
    assert!(t2.contains("= t1^2") && t2.contains("= (-1)^2"), "{t2}");
    assert!(t2.contains("∂t2/∂t1 = 2 · t1 = 2 · (-1) = -2"), "{t2}");
    let t4 = row("t4");
    assert!(
        t4.contains("∂t4/∂t3 = -sin(t3) = -sin(3) = -0.14112"),
        "{t4}"
    );
    let y = row("y");
    assert!(y.starts_with('y'), "{y}");
    // The reverse sweep starts from g_y.
    browser.keys(&[RIGHT]);
    assert!(browser.text("#reverse li").starts_with("g_y = 1"));
    browser.keys(&[ENTER]);
    // The gradient, the formula's, central differences: the formula's
    // agrees to the last bit here, the differences to their truncation.
    let check = browser.text("#check-table");
    assert!(
        check.contains("-2.14112") && check.contains("1.85888"),
        "{check}"
    );
    assert_eq!(browser.text("#check-analytic-diff"), "0");
    let central: f64 = browser.text("#check-central-diff").parse().unwrap();
    assert!(central < 1e-8, "{central}");
    // The Hessian of (x1 − x2)² + cos(x1 + x2): 2 − cos 3 on the diagonal,
    // −2 − cos 3 off it.
    let hessian = browser.text("#hessian");
    let (diagonal, off) = (2.0 - 3f64.cos(), -2.0 - 3f64.cos());
    assert!(
        hessian.contains(&format_number(diagonal, 5)) && hessian.contains(&format_number(off, 5)),
        "{hessian}"
    );
    assert!(browser.text("#check").contains("f_hessian"));
}

/// A function typed on the page: traced, stepped with the keys and back,
/// checked against central differences; one that does not parse says
/// where, and stops the stepping.
#[test]
fn a_typed_function_in_chromium() {
    let Some((_turn, server, browser)) = chromium("a_typed_function_in_chromium") else {
        return;
    };
    browser.open(&server, "f");
    // Choose "Type your own function…" and type one.
    browser.script(
        "const s = document.getElementById('function'); s.value = 'typed'; \
         s.dispatchEvent(new Event('change'));",
    );
    browser.settle();
    browser.script(
        "const e = document.getElementById('expr'); e.value = 'let s = sin(x1 * x2);\\ns + x1^2'; \
         e.dispatchEvent(new Event('input'));",
    );
    browser.click("#trace-typed");
    browser.settle();
    // Its inputs, named in it, keep the values they had: x1 = 1, x2 = 2.
    assert_eq!(browser.property("#param-x1", "value"), "1");
    assert_eq!(browser.property("#param-x2", "value"), "2");
    browser.blur();
    // → three times: t1 = x1 · x2, s = sin(t1), t2 = x1².
    browser.keys(&[RIGHT, RIGHT, RIGHT]);
    assert_eq!(browser.rows(), 5);
    let table = browser.text("#forward-table");
    assert!(
        table.contains("s = sin(t1)") || table.contains("= sin(t1)"),
        "{table}"
    );
    assert!(table.contains("∂s/∂t1 = cos(t1) = cos(2)"), "{table}");
    // ← one back.
    browser.keys(&[LEFT]);
    assert_eq!(browser.rows(), 4);
    // Enter twice: both sweeps; the gradient against central differences.
    browser.keys(&[ENTER, ENTER]);
    let g1 = browser.text("#grad-x1");
    assert_eq!(g1, format_number(2.0 * 2f64.cos() + 2.0, 5));
    let central: f64 = browser.text("#check-central-diff").parse().unwrap();
    assert!(central < 1e-8, "{central}");
    assert!(browser.text("#check").contains("no formula"));
    assert!(browser
        .text("#hessian")
        .contains(&format_number(-(2f64.sin()), 5)));
    // A function that does not parse: where, and no stepping.
    browser.script(
        "const e = document.getElementById('expr'); e.value = 'sin(x1) + cosh(x2'; \
         e.dispatchEvent(new Event('input'));",
    );
    browser.click("#trace-typed");
    browser.settle_after_error();
    let error = browser.text("#expr-error");
    assert!(
        error.contains("close the call") && error.contains("column 18"),
        "{error}"
    );
    assert!(browser.greyed());
    for button in ["#forward", "#backward", "#back", "#finish", "#descend"] {
        assert!(browser.disabled(button), "{button}");
    }
    // Reset: the last function that parsed, stepping again.
    browser.click("#reset");
    assert_eq!(
        browser.property("#expr", "value"),
        "let s = sin(x1 * x2);\ns + x1^2"
    );
    assert!(!browser.greyed());
    assert!(!browser.disabled("#forward"));
}

/// The reference texts' case 9 in the page: the checkpointed chain's
/// recomputed iterations are marked in the forward table, and the reverse
/// sweep says where it computes them again.
#[test]
fn a_checkpointed_loop_shows_its_recomputation_in_chromium() {
    let Some((_turn, server, browser)) =
        chromium("a_checkpointed_loop_shows_its_recomputation_in_chromium")
    else {
        return;
    };
    browser.open(&server, "chain");
    browser.blur();
    browser.keys(&[ENTER]);
    let trace = (find("chain").unwrap().trace)(&[0.9, 0.3]);
    let recomputed = trace
        .nodes
        .iter()
        .filter(|n| {
            n.frames
                .iter()
                .any(|f| matches!(f, autodiff::runtime::trace::Frame::Recomputed { .. }))
        })
        .count();
    assert_eq!(recomputed, 12, "layers 0 to 3, three entries each");
    let marked =
        browser.script("return document.querySelectorAll('#forward-table tr.recomputed').length;");
    assert_eq!(marked, recomputed);
    // The recomputation shows where the reverse sweep reaches layer 3.
    browser.keys(&[ENTER]);
    let lines = browser.script(
        "return [...document.querySelectorAll('#reverse li.recompute')].map((l) => l.textContent);",
    );
    let lines = lines.as_array().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines[0].as_str().unwrap();
    assert!(
        line.contains("Recompute layer = 0 to 3") && line.contains("before layer = 0"),
        "{line}"
    );
}
