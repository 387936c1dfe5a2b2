//! The walkthrough's typed functions: their parser's errors, and their
//! traces against the `_trace` of the same function compiled with
//! `#[grad(trace)]`, bit for bit.

//! Then the server's answers about them: the trace with each entry's
//! working, the gradient checked, the Hessian, descent, and errors that
//! say where.

mod support;

use autodiff::grad;
use serde_json::Value;
use support::functions::BUILTINS;
use support::server::handle;
use support::typed::parse;

/// A built-in's body, as the page shows its source: the lines between the
/// signature and the closing brace.
fn body(source: &str) -> String {
    let open = source.find("{\n").expect("a body") + 2;
    let close = source.rfind("\n}").expect("a closing brace");
    source[open..close].to_owned()
}

/// Points spread over each built-in's domain, both arms of the neuron's
/// branch among them.
const POINTS: &[[f64; 2]] = &[
    [1.0, 2.0],
    [-1.0, 0.5],
    [0.3, -0.7],
    [2.5, 1.25],
    [-1.2, 1.0],
    [0.0, 0.0],
    [1e-3, -4.0],
];

#[test]
fn a_typed_built_in_traces_as_its_compiled_trace_bit_for_bit() {
    let mut checked = 0;
    for b in BUILTINS.iter().filter(|b| b.typeable) {
        let typed = parse(&body(b.source())).unwrap_or_else(|e| panic!("{}: {e:?}", b.name));
        assert_eq!(typed.params, b.params, "{}", b.name);
        for p in POINTS {
            let compiled = (b.trace)(p);
            let traced = typed.trace(b.name, p).unwrap();
            // The whole trace: names, labels, rules, entry texts, operands,
            // frames, values, partials, adjoints and every reverse step.
            assert_eq!(traced, compiled, "{} at {p:?}", b.name);
            assert_eq!(traced.to_string(), compiled.to_string());
            // The value at f64, and the exact Hessian from dual numbers
            // against the compiled `_hessian`.
            assert_eq!(typed.value(p).unwrap(), (b.value)(p));
            let h = typed.hessian(p).unwrap();
            let want = (b.hessian)(p);
            for (row, want_row) in h.iter().zip(&want) {
                for (x, w) in row.iter().zip(want_row) {
                    assert!(
                        (x - w).abs() <= 1e-12 * (1.0 + w.abs()),
                        "{} at {p:?}: {h:?} against {want:?}",
                        b.name
                    );
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * POINTS.len(), "f, neuron and rosenbrock");
}

/// Written as a learner types it, and as Rust: the same function.
#[grad(trace)]
fn typed_like(x1: f64, x2: f64) -> f64 {
    let s = (x1 * x2).sin();
    let r = x1.powi(2) / x2 - s.max(0.25);
    if r > 0.0 {
        r.sqrt() + x1.atan2(x2)
    } else {
        let q = -r;
        q.ln_1p() * x2.tanh()
    }
}

#[test]
fn a_function_with_lets_a_branch_and_two_argument_rules() {
    let source = "let s = (x1 * x2).sin();
    let r = x1.powi(2) / x2 - s.max(0.25);
    if r > 0.0 {
        r.sqrt() + x1.atan2(x2)
    } else {
        let q = -r;
        q.ln_1p() * x2.tanh()
    }";
    let typed = parse(source).unwrap();
    for p in [[1.0, 2.0], [0.2, 3.0], [2.0, 0.5], [-0.7, 1.5]] {
        assert_eq!(
            typed.trace("typed_like", &p).unwrap(),
            typed_like_trace(p[0], p[1]),
            "{p:?}"
        );
    }
}

#[test]
fn the_learners_notation_is_the_same_function() {
    // `^` and calls in function form: the same values and gradient as the
    // method form (the entry texts are written in method form).
    let a = parse("sin(x1 * x2) + x1^2").unwrap();
    let b = parse("(x1 * x2).sin() + x1.powi(2)").unwrap();
    assert_eq!(a.params, ["x1", "x2"]);
    for p in [[1.0, 2.0], [-0.5, 0.25]] {
        assert_eq!(a.trace("g", &p).unwrap(), b.trace("g", &p).unwrap());
    }
    let t = a.trace("g", &[1.0, 2.0]).unwrap();
    assert_eq!(t.output().label, "y");
    assert_eq!(t.node(t.find("t1").unwrap().id).expr, "x1 * x2");
    assert_eq!(t.find("t2").unwrap().expr, "t1.sin()");
    let g = t.gradient();
    assert_eq!(g[0].1, 2f64.cos() * 2.0 + 2.0);
    assert_eq!(g[1].1, 2f64.cos());
    // x^1.5 is powf; -x^2 is -(x^2).
    let t = parse("-x^2 + x^1.5").unwrap().trace("g", &[4.0]).unwrap();
    assert_eq!(t.value(), -16.0 + 8.0);
    assert!(t.nodes.iter().any(|n| n.op == "powf"));
    // The Hessian of sin(x1 x2) + x1² at (1, 2), exactly.
    let h = a.hessian(&[1.0, 2.0]).unwrap();
    let (s, c) = 2f64.sin_cos();
    let want = [[-4.0 * s + 2.0, c - 2.0 * s], [c - 2.0 * s, -s]];
    for j in 0..2 {
        for k in 0..2 {
            assert!((h[j][k] - want[j][k]).abs() < 1e-14, "{h:?}");
        }
    }
}

#[test]
fn errors_point_at_the_offending_characters() {
    let cases: &[(&str, usize, &str)] = &[
        ("sin(x1 * x2) + x1^", 18, "ends too soon"),
        ("sinn(x)", 0, "unknown function `sinn`"),
        ("x1 + $", 5, "unexpected character"),
        ("x.powi(1.5)", 2, "integer literal"),
        ("atan2(x)", 0, "takes 2 arguments"),
        ("let t1 = x; t1", 4, "temporaries"),
        ("if x > 0.0 { x }", 16, "needs an `else`"),
        ("for i in 0..3 { x }", 0, "not in this language"),
        ("x + 1e400", 4, "not a finite number"),
        ("2.0 * 3.0", 0, "no input"),
        ("let a = x * 2.0 a", 16, "expected `;`"),
        ("(x + 1", 6, "close the parenthesis"),
        ("sin", 0, "is a function"),
    ];
    for (source, at, says) in cases {
        let e = parse(source)
            .err()
            .unwrap_or_else(|| panic!("{source} parsed"));
        assert_eq!(e.at, *at, "{source}: {e:?}");
        assert!(e.message.contains(says), "{source}: {}", e.message);
    }
    let many = (0..9)
        .map(|i| format!("a{i}"))
        .collect::<Vec<_>>()
        .join(" + ");
    assert!(parse(&many)
        .unwrap_err()
        .message
        .contains("at most 8 inputs"));
    assert!(parse(&"x + ".repeat(600))
        .unwrap_err()
        .message
        .contains("characters"));
}

#[test]
fn a_runaway_function_and_a_bad_clamp_are_refused_not_run() {
    // 2 entries a line, 160 lines: more than the 300 a trace may record,
    // in fewer than the 2,000 characters a source may have.
    let long = format!("let a=x;{}a", "let a=a*a+x;".repeat(160));
    let typed = parse(&long).unwrap();
    let e = typed.trace("g", &[0.5]).unwrap_err();
    assert!(e.contains("more than"), "{e}");
    let typed = parse("x.clamp(1.0, 0.0)").unwrap();
    assert!(typed.trace("g", &[0.5]).unwrap_err().contains("clamp"));
    assert!(typed.value(&[0.5]).unwrap_err().contains("clamp"));
}

fn answer(method: &str, url: &str, body: &str) -> (u16, Value) {
    let r = handle(method, url, body.as_bytes());
    let v = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{url}: {e}: {}", r.body));
    (r.status, v)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn the_server_traces_a_typed_function_and_checks_its_gradient() {
    // `sin(x1 * x2) + x1^2`, percent-encoded as a form encodes it.
    let form = "expr=sin(x1+*+x2)+%2B+x1%5E2&x1=1&x2=2";
    for (method, url, body) in [
        ("GET", format!("/api/trace?{form}"), ""),
        ("POST", "/api/trace".to_owned(), form),
    ] {
        let (status, v) = answer(method, &url, body);
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["function"], "typed");
        assert_eq!(v["source"], "sin(x1 * x2) + x1^2");
        assert_eq!(v["params"], serde_json::json!(["x1", "x2"]));
        let nodes = v["trace"]["nodes"].as_array().unwrap();
        let y = nodes
            .iter()
            .find(|n| n["label"] == "y")
            .expect("an output y");
        assert_eq!(y["working"]["formula"], "t2 + t3");
        let t2 = nodes.iter().find(|n| n["label"] == "t2").unwrap();
        assert_eq!(t2["working"]["partials"][0]["formula"], "cos(t1)");
        assert_eq!(t2["working"]["partials"][0]["arithmetic"], "cos(2)");
        // The gradient (2 cos 2 + 2, cos 2) beside central differences.
        let g: Vec<f64> = v["trace"]["gradient"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| num(&g["value"]))
            .collect();
        assert_eq!(g, [2.0 * 2f64.cos() + 2.0, 2f64.cos()]);
        let central = &v["check"]["central"];
        for (k, gk) in g.iter().enumerate() {
            assert!((num(&central[k]) - gk).abs() < 1e-8, "{central}");
        }
        assert!(num(&v["check"]["central_difference"]) < 1e-8);
        assert!(v["check"]["analytic"].is_null());
        // The Hessian, exactly, from dual numbers.
        let h = &v["hessian"]["rows"];
        assert_eq!(num(&h[1][1]), -(2f64.sin()));
        assert!(v["hessian"]["how"].as_str().unwrap().contains("dual"));
    }
    // Inputs not given start at 1; names the function does not use are
    // ignored.
    let (status, v) = answer("GET", "/api/trace?expr=x*y&zz=3", "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["inputs"], serde_json::json!({"x": 1.0, "y": 1.0}));
}

#[test]
fn a_built_in_comes_with_its_analytic_gradient_and_its_hessian() {
    for b in BUILTINS {
        let (status, v) = answer(
            "GET",
            &format!("/api/trace?{}", support::start_query(b)),
            "",
        );
        assert_eq!(status, 200, "{}: {v}", b.name);
        // The analytic gradient agrees with the trace's to rounding, the
        // central differences to their truncation.
        assert!(
            num(&v["check"]["analytic_difference"]) < 1e-12,
            "{}: {v}",
            b.name
        );
        assert!(
            num(&v["check"]["central_difference"]) < 1e-6,
            "{}: {}",
            b.name,
            v["check"]
        );
        let h = (b.hessian)(b.start);
        let rows = v["hessian"]["rows"].as_array().unwrap();
        assert_eq!(rows.len(), b.params.len());
        for (row, want) in rows.iter().zip(&h) {
            let row: Vec<f64> = row.as_array().unwrap().iter().map(num).collect();
            assert_eq!(&row, want);
        }
        assert!(v["hessian"]["how"].as_str().unwrap().contains("_hessian"));
    }
}

#[test]
fn a_typed_function_that_does_not_parse_says_where() {
    let (status, v) = answer("GET", "/api/trace?expr=sin(x)+%2B+cosh(x&x=1", "");
    assert_eq!(status, 400);
    assert_eq!(num(&v["at"]), 15.0, "{v}");
    assert!(v["error"].as_str().unwrap().contains("parenthesis"), "{v}");
    let (status, v) = answer("GET", "/api/trace?expr=x&f=f&x=1", "");
    assert_eq!(
        (status, v["error"].as_str().unwrap()),
        (400, "give f=NAME or expr=SOURCE, not both")
    );
    // A point where the function cannot be evaluated is a 422.
    let (status, v) = answer("GET", "/api/trace?expr=x.clamp(2.0,+1.0)&x=1", "");
    assert_eq!(status, 422, "{v}");
}

#[test]
fn descent_on_a_typed_function() {
    let (status, v) = answer("POST", "/api/descend", "expr=(x+-+3.0)%5E2&x=1&rate=0.25");
    assert_eq!(status, 200, "{v}");
    // x ← 1 − 0.25 · 2(1 − 3) = 2.
    assert_eq!(v["inputs"]["x"], 2.0);
    assert_eq!(v["from"]["gradient"]["x"], -4.0);
    assert_eq!(num(&v["trace"]["value"]), 1.0);
}
