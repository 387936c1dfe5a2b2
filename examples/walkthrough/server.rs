//! The walkthrough's HTTP side: [`handle`] answers one request as a plain
//! function (the tests call it without sockets), and [`bind`] / [`run`]
//! put it behind `tiny_http` on 127.0.0.1.
//!
//! Routes:
//! - `GET /`: the page (HTML with inline CSS and JavaScript, nothing
//!   loaded from elsewhere);
//! - `GET /api/functions`: the built-in functions, their parameters,
//!   starting points, step sizes and sources;
//! - `GET /api/trace?f=NAME&P1=..&P2=..`: the function's trace at that
//!   point (`trace`, as `Trace::to_json` writes it) and its graph (`svg`,
//!   laid out in Rust);
//! - `POST /api/descend` with the form body `f=NAME&P1=..&P2=..&rate=..`
//!   (or `GET` with the same query): one gradient-descent step, computed
//!   here from the trace's gradient, `p ← p − rate·∂f/∂p`, and the trace
//!   at the new point.
//!
//! Errors are JSON `{"error": ".."}` with a 4xx status: 404 for an
//! unknown path or function, 405 for a wrong method, 400 for a missing,
//! repeated, unknown, non-numeric or non-finite parameter, 413 for a body
//! over [`MAX_BODY`] bytes, 422 for a step that leaves the finite numbers.

use std::io::Read;

use autodiff::runtime::trace::JsonNumber;
use serde_json::{json, Map, Value};

use super::functions::{find, Builtin, BUILTINS};

/// The largest request body accepted, in bytes.
pub const MAX_BODY: usize = 4096;

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
        "/" | "/index.html" | "/api/functions" | "/api/trace" => &["GET", "HEAD"],
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
    match path {
        "/" | "/index.html" => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: PAGE.to_owned(),
        },
        "/api/functions" => ok_json(functions_json()),
        "/api/trace" => match parse_point(query, false) {
            Ok((builtin, point, _)) => ok_json(trace_json(builtin, &point).to_string()),
            Err(e) => e,
        },
        _ => {
            let form = if method == "POST" {
                match std::str::from_utf8(body) {
                    Ok(text) => text.trim().to_owned(),
                    Err(_) => return error(400, "the request body is not UTF-8 text"),
                }
            } else {
                query.to_owned()
            };
            match parse_point(&form, true) {
                Ok((builtin, point, rate)) => {
                    descend(builtin, &point, rate.unwrap_or(builtin.rate))
                }
                Err(e) => e,
            }
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
            })
        })
        .collect();
    json!({ "functions": items }).to_string()
}

/// An object of `name: number` pairs.
fn json_members<'a>(pairs: impl IntoIterator<Item = (&'a str, f64)>) -> Value {
    let members = pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), json!(JsonNumber(v))));
    Value::Object(members.collect::<Map<String, Value>>())
}

/// The trace of `builtin` at `point`, its graph, and the point by name.
fn trace_json(builtin: &Builtin, point: &[f64]) -> Value {
    let trace = (builtin.trace)(point);
    json!({
        "function": builtin.name,
        "inputs": json_members(builtin.params.iter().copied().zip(point.iter().copied())),
        "trace": trace,
        "svg": trace.to_svg(),
    })
}

fn descend(builtin: &Builtin, point: &[f64], rate: f64) -> Response {
    let trace = (builtin.trace)(point);
    let gradient = trace.gradient();
    let mut next = Vec::with_capacity(point.len());
    for (param, value) in builtin.params.iter().zip(point) {
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
    let mut body = trace_json(builtin, &next);
    body["from"] = json!({
        "inputs": json_members(builtin.params.iter().copied().zip(point.iter().copied())),
        "value": JsonNumber(trace.value()),
        "gradient": json_members(gradient.iter().map(|(p, g)| (p.as_str(), *g))),
    });
    body["rate"] = json!(JsonNumber(rate));
    ok_json(body.to_string())
}

/// Reads `f`, one number per parameter of `f`, and (when `rate_allowed`)
/// an optional `rate` from an `a=1&b=2` query or form.
fn parse_point(
    query: &str,
    rate_allowed: bool,
) -> Result<(&'static Builtin, Vec<f64>, Option<f64>), Response> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
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
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let Some(name) = get("f") else {
        return Err(error(
            400,
            "say which function: f=NAME (see /api/functions)",
        ));
    };
    let Some(builtin) = find(name) else {
        let known: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        return Err(error(
            404,
            &format!(
                "no built-in function named {name:?}; there are {}",
                known.join(", ")
            ),
        ));
    };
    for (k, _) in &pairs {
        if k != "f" && !(rate_allowed && k == "rate") && !builtin.params.contains(&k.as_str()) {
            return Err(error(
                400,
                &format!(
                    "{} has no parameter {k}; its parameters are {}",
                    builtin.name,
                    builtin.params.join(", ")
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
    let mut point = Vec::with_capacity(builtin.params.len());
    for p in builtin.params {
        let text = get(p).ok_or_else(|| {
            error(
                400,
                &format!(
                    "missing parameter {p}: {} takes {}",
                    builtin.name,
                    builtin.params.join(", ")
                ),
            )
        })?;
        point.push(number(p, text)?);
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
    Ok((builtin, point, rate))
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

/// A server on 127.0.0.1 at `port` (0: any free port), and the port it got.
pub fn bind(port: u16) -> Result<(tiny_http::Server, u16), String> {
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = server.server_addr().to_ip().map_or(port, |a| a.port());
    Ok((server, port))
}

/// Answers requests until the server is unblocked
/// (`tiny_http::Server::unblock`).
pub fn run(server: &tiny_http::Server) {
    for mut request in server.incoming_requests() {
        let method = request.method().as_str().to_owned();
        let url = request.url().to_owned();
        let response = if request.body_length().is_some_and(|n| n > MAX_BODY) {
            error(
                413,
                &format!("the request body is over the limit of {MAX_BODY} bytes"),
            )
        } else {
            let mut body = Vec::new();
            match request
                .as_reader()
                .take(MAX_BODY as u64 + 1)
                .read_to_end(&mut body)
            {
                Ok(_) => handle(&method, &url, &body),
                Err(e) => error(400, &format!("cannot read the request body: {e}")),
            }
        };
        let head = method == "HEAD";
        let mut answer =
            tiny_http::Response::from_string(if head { String::new() } else { response.body })
                .with_status_code(response.status);
        for (name, value) in [
            ("Content-Type", response.content_type),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'",
            ),
        ] {
            if let Ok(header) = tiny_http::Header::from_bytes(name, value) {
                answer.add_header(header);
            }
        }
        // A client that went away is not the server's problem.
        let _ = request.respond(answer);
    }
}
