//! The walkthrough's HTTP side: [`handle`] answers one request as a plain
//! function (the tests call it without sockets), and `http.rs` (`bind`,
//! `run`) puts it on 127.0.0.1, a thread and a read timeout per connection.
//!
//! Routes:
//! - `GET /`: the page (HTML with inline CSS and JavaScript, nothing
//!   loaded from elsewhere);
//! - `GET /api/functions`: the built-in functions, their parameters,
//!   starting points, step sizes and sources;
//! - `GET /api/trace?f=NAME&P1=..&P2=..` (or `POST` with the same form):
//!   the function's trace at that point (`trace`, as `Trace::to_json`
//!   writes it, each entry with its working), its graph (`svg`, laid out
//!   in Rust), the gradient checked (`check`: the analytic gradient of a
//!   built-in, and central differences of any function) and the Hessian
//!   (`hessian`);
//! - the same with `expr=SOURCE` instead of `f=NAME`: a function the
//!   learner typed (`typed.rs`), its inputs named in it (a value not given
//!   starts at 1, a name it does not use is ignored); a source that does
//!   not parse is a 400 whose `at` and `len` say where;
//! - `POST /api/descend` with the form body `f=NAME&P1=..&P2=..&rate=..`
//!   (or `expr=..`; or `GET` with the same query): one gradient-descent
//!   step, computed here from the trace's gradient, `p ← p − rate·∂f/∂p`,
//!   and the trace at the new point.
//!
//! Errors are JSON `{"error": ".."}` with a 4xx status: 404 for an
//! unknown path or function, 405 for a wrong method, 400 for a missing,
//! repeated, unknown, non-numeric or non-finite parameter, more than
//! [`MAX_PAIRS`] parameters, or a typed function that does not parse,
//! 413 for a body over [`MAX_BODY`] bytes,
//! 422 for a point where the function cannot be evaluated or a step that
//! leaves the finite numbers.

use autodiff::runtime::trace::{JsonNumber, Trace};
use serde_json::{json, Map, Value};

use super::functions::{find, Builtin, BUILTINS};
use super::typed::{self, Typed};

/// The largest request body accepted, in bytes: a typed function of
/// [`typed::MAX_SOURCE`] characters, percent-encoded, fits.
pub const MAX_BODY: usize = 8192;

/// The page, with its CSS and JavaScript inline.
const PAGE: &str = include_str!("page.html");

/// An answer: status, content type, body.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

const JSON: &str = "application/json; charset=utf-8";

fn ok_json(body: String) -> Response {
    Response {
        status: 200,
        content_type: JSON,
        body,
    }
}

/// A 4xx answer with a JSON message.
fn error(status: u16, message: &str) -> Response {
    Response {
        status,
        content_type: JSON,
        body: json!({ "error": message }).to_string(),
    }
}

/// Answers one request: `method` (`GET`, `POST`), `url` (path and query,
/// as in the request line) and the body.
pub fn handle(method: &str, url: &str, body: &[u8]) -> Response {
    if body.len() > MAX_BODY {
        return error(
            413,
            &format!(
                "the request body has {} bytes; the limit is {MAX_BODY}",
                body.len()
            ),
        );
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let allowed: &[&str] = match path {
        "/" | "/index.html" | "/api/functions" => &["GET", "HEAD"],
        "/api/trace" => &["GET", "HEAD", "POST"],
        "/api/descend" => &["GET", "POST"],
        _ => {
            return error(
                404,
                &format!(
                    "no such page: {path}; the API is /api/functions, /api/trace and /api/descend"
                ),
            )
        }
    };
    if !allowed.contains(&method) {
        return error(
            405,
            &format!("{path} answers {}, not {method}", allowed.join(" and ")),
        );
    }
    let form = if method == "POST" {
        match std::str::from_utf8(body) {
            Ok(text) => text.trim().to_owned(),
            Err(_) => return error(400, "the request body is not UTF-8 text"),
        }
    } else {
        query.to_owned()
    };
    match path {
        "/" | "/index.html" => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: PAGE.to_owned(),
        },
        "/api/functions" => ok_json(functions_json()),
        "/api/trace" => match parse_point(&form, false) {
            Ok((subject, point, _)) => match trace_json(&subject, &point) {
                Ok(body) => ok_json(body.to_string()),
                Err(e) => error(422, &e),
            },
            Err(e) => e,
        },
        _ => match parse_point(&form, true) {
            Ok((subject, point, rate)) => {
                let rate = rate.unwrap_or_else(|| subject.rate());
                descend(&subject, &point, rate)
            }
            Err(e) => e,
        },
    }
}

/// What a request is about: a built-in function, or one the learner
/// typed.
enum Subject {
    Builtin(&'static Builtin),
    Typed(Typed),
}

/// The name a typed function's trace goes by.
const TYPED_NAME: &str = "typed";

impl Subject {
    fn name(&self) -> &str {
        match self {
            Subject::Builtin(b) => b.name,
            Subject::Typed(_) => TYPED_NAME,
        }
    }

    fn params(&self) -> Vec<&str> {
        match self {
            Subject::Builtin(b) => b.params.to_vec(),
            Subject::Typed(t) => t.params.iter().map(String::as_str).collect(),
        }
    }

    fn rate(&self) -> f64 {
        match self {
            Subject::Builtin(b) => b.rate,
            Subject::Typed(_) => 0.1,
        }
    }

    fn trace(&self, point: &[f64]) -> Result<Trace, String> {
        match self {
            Subject::Builtin(b) => Ok((b.trace)(point)),
            Subject::Typed(t) => t.trace(TYPED_NAME, point),
        }
    }

    fn value(&self, point: &[f64]) -> Result<f64, String> {
        match self {
            Subject::Builtin(b) => Ok((b.value)(point)),
            Subject::Typed(t) => t.value(point),
        }
    }

    /// The Hessian, and how it was computed.
    fn hessian(&self, point: &[f64]) -> Result<(Vec<Vec<f64>>, String), String> {
        match self {
            Subject::Builtin(b) => Ok((
                (b.hessian)(point),
                format!("{}_hessian, generated by #[grad(hessian)]: the reverse sweep run at dual numbers (forward over reverse)", b.name),
            )),
            Subject::Typed(t) => Ok((
                t.hessian(point)?,
                "the typed function evaluated at second-order dual numbers, the runtime's Dual<Dual<f64>>".to_owned(),
            )),
        }
    }
}

fn functions_json() -> String {
    let items: Vec<Value> = BUILTINS
        .iter()
        .map(|b| {
            let start: Vec<JsonNumber> = b.start.iter().map(|v| JsonNumber(*v)).collect();
            json!({
                "name": b.name,
                "title": b.title,
                "about": b.about,
                "params": b.params,
                "start": start,
                "rate": JsonNumber(b.rate),
                "source": b.source(),
                "typeable": b.typeable,
            })
        })
        .collect();
    json!({
        "functions": items,
        "typed": {
            "rate": JsonNumber(0.1),
            "max_source": typed::MAX_SOURCE,
            "max_inputs": typed::MAX_INPUTS,
        },
    })
    .to_string()
}

/// An object of `name: number` pairs.
fn json_members<'a>(pairs: impl IntoIterator<Item = (&'a str, f64)>) -> Value {
    let members = pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), json!(JsonNumber(v))));
    Value::Object(members.collect::<Map<String, Value>>())
}

/// A list of numbers as JSON.
fn numbers(values: &[f64]) -> Vec<JsonNumber> {
    values.iter().map(|v| JsonNumber(*v)).collect()
}

/// The trace of `subject` at `point`, its graph, the point by name, the
/// gradient checked and the Hessian.
fn trace_json(subject: &Subject, point: &[f64]) -> Result<Value, String> {
    let trace = subject.trace(point)?;
    let params = subject.params();
    let gradient: Vec<f64> = trace.gradient().iter().map(|(_, g)| *g).collect();
    let (hessian, how) = subject.hessian(point)?;
    let mut body = json!({
        "function": subject.name(),
        "params": params,
        "inputs": json_members(params.iter().copied().zip(point.iter().copied())),
        "trace": trace,
        "svg": trace.to_svg(),
        "check": check(subject, point, &gradient)?,
        "hessian": {
            "rows": hessian.iter().map(|r| numbers(r)).collect::<Vec<_>>(),
            "how": how,
        },
    });
    if let Subject::Typed(t) = subject {
        body["source"] = json!(t.source);
    }
    Ok(body)
}

/// The trace's gradient beside the analytic one (a built-in's, from its
/// formula) and central differences of the function, with the largest
/// difference from each.
fn check(subject: &Subject, point: &[f64], gradient: &[f64]) -> Result<Value, String> {
    let mut central = Vec::with_capacity(point.len());
    let mut steps = Vec::with_capacity(point.len());
    for i in 0..point.len() {
        // About the cube root of the float's precision, relative to the
        // input: the truncation error h² and the rounding error ε/h
        // balance there.
        let h = 1e-5 * point[i].abs().max(1.0);
        let (mut up, mut down) = (point.to_vec(), point.to_vec());
        up[i] += h;
        down[i] -= h;
        central.push((subject.value(&up)? - subject.value(&down)?) / (2.0 * h));
        steps.push(h);
    }
    let largest = |other: &[f64]| {
        gradient
            .iter()
            .zip(other)
            .map(|(g, o)| (g - o).abs())
            .fold(0.0_f64, f64::max)
    };
    let analytic = match subject {
        Subject::Builtin(b) => Some((b.analytic)(point)),
        Subject::Typed(_) => None,
    };
    Ok(json!({
        "central": numbers(&central),
        "steps": numbers(&steps),
        "central_difference": JsonNumber(largest(&central)),
        "analytic": analytic.as_deref().map(numbers),
        "analytic_difference": analytic.as_deref().map(|a| JsonNumber(largest(a))),
    }))
}

fn descend(subject: &Subject, point: &[f64], rate: f64) -> Response {
    let trace = match subject.trace(point) {
        Ok(t) => t,
        Err(e) => return error(422, &e),
    };
    let gradient = trace.gradient();
    let params = subject.params();
    let mut next = Vec::with_capacity(point.len());
    for (param, value) in params.iter().zip(point) {
        let g = gradient
            .iter()
            .find(|(name, _)| name == param)
            .map_or(0.0, |(_, g)| *g);
        let v = value - rate * g;
        if !v.is_finite() {
            return error(
                422,
                &format!(
                    "the step leaves the finite numbers ({param} would be {v}); try a smaller rate"
                ),
            );
        }
        next.push(v);
    }
    let mut body = match trace_json(subject, &next) {
        Ok(body) => body,
        Err(e) => return error(422, &e),
    };
    body["from"] = json!({
        "inputs": json_members(params.iter().copied().zip(point.iter().copied())),
        "value": JsonNumber(trace.value()),
        "gradient": json_members(gradient.iter().map(|(p, g)| (p.as_str(), *g))),
    });
    body["rate"] = json!(JsonNumber(rate));
    ok_json(body.to_string())
}

/// A typed function that does not parse: a 400 that says where.
fn parse_error(e: &typed::ParseError) -> Response {
    Response {
        status: 400,
        content_type: JSON,
        body: json!({ "error": e.message, "at": e.at, "len": e.len }).to_string(),
    }
}

/// Reads `f` (or `expr`), one number per parameter, and (when
/// `rate_allowed`) an optional `rate` from an `a=1&b=2` query or form.
fn parse_point(
    query: &str,
    rate_allowed: bool,
) -> Result<(Subject, Vec<f64>, Option<f64>), Response> {
    let pairs = pairs(query)?;
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let subject = match (get("f"), get("expr")) {
        (Some(_), Some(_)) => {
            return Err(error(400, "give f=NAME or expr=SOURCE, not both"));
        }
        (None, None) => {
            return Err(error(
                400,
                "say which function: f=NAME (see /api/functions), or expr=SOURCE for one of your own",
            ));
        }
        (None, Some(source)) => Subject::Typed(typed::parse(source).map_err(|e| parse_error(&e))?),
        (Some(name), None) => match find(name) {
            Some(b) => Subject::Builtin(b),
            None => {
                let known: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
                return Err(error(
                    404,
                    &format!(
                        "no built-in function named {name:?}; there are {}",
                        known.join(", ")
                    ),
                ));
            }
        },
    };
    let params = subject.params();
    let typed = matches!(subject, Subject::Typed(_));
    for (k, _) in &pairs {
        let known = k == "f" || k == "expr" || (rate_allowed && k == "rate");
        if !known && !typed && !params.contains(&k.as_str()) {
            return Err(error(
                400,
                &format!(
                    "{} has no parameter {k}; its parameters are {}",
                    subject.name(),
                    params.join(", ")
                ),
            ));
        }
    }
    let number = |k: &str, text: &str| -> Result<f64, Response> {
        let v: f64 = text
            .trim()
            .parse()
            .map_err(|_| error(400, &format!("{k} must be a number, not {text:?}")))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(error(
                400,
                &format!("{k} must be a finite number, not {text:?}"),
            ))
        }
    };
    let mut point = Vec::with_capacity(params.len());
    for p in &params {
        match get(p) {
            Some(text) => point.push(number(p, text)?),
            // A typed function's inputs start at 1.
            None if typed => point.push(1.0),
            None => {
                return Err(error(
                    400,
                    &format!(
                        "missing parameter {p}: {} takes {}",
                        subject.name(),
                        params.join(", ")
                    ),
                ))
            }
        }
    }
    let rate = match get("rate") {
        Some(text) => {
            let r = number("rate", text)?;
            if r <= 0.0 {
                return Err(error(400, &format!("rate must be positive, not {text:?}")));
            }
            Some(r)
        }
        None => None,
    };
    Ok((subject, point, rate))
}

/// The most parameters a query or form may have.
pub const MAX_PAIRS: usize = 32;

/// The decoded `(name, value)` pairs of an `a=1&b=2` query or form, in
/// order: a 400 for more than [`MAX_PAIRS`] of them (counted before any
/// is decoded), a bad percent escape, or a name given twice. Linear in
/// the query's length (the check for twice compares at most
/// `MAX_PAIRS` names with each other).
fn pairs(query: &str) -> Result<Vec<(String, String)>, Response> {
    let parts: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .take(MAX_PAIRS + 1)
        .collect();
    if parts.len() > MAX_PAIRS {
        return Err(error(
            400,
            &format!("too many parameters: the limit is {MAX_PAIRS}"),
        ));
    }
    let mut pairs: Vec<(String, String)> = Vec::with_capacity(parts.len());
    for part in parts {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let (k, v) = (
            decode(k).map_err(|e| error(400, &e))?,
            decode(v).map_err(|e| error(400, &e))?,
        );
        if pairs.iter().any(|(seen, _)| *seen == k) {
            return Err(error(400, &format!("the parameter {k} is given twice")));
        }
        pairs.push((k, v));
    }
    Ok(pairs)
}

/// Percent-decoding of a query or form component (`+` is a space).
fn decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                out.push(byte.ok_or_else(|| format!("bad percent escape in {s:?}"))?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} does not decode to UTF-8"))
}
