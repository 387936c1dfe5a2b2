//! An interactive page that steps through reverse mode: the graph of a
//! function, its forward sweep one node at a time, its reverse sweep one
//! accumulation at a time, and gradient-descent steps, every number from
//! the function's `#[grad(trace)]`-generated `_trace`.
//!
//! Run with `cargo run --example walkthrough` and open the printed URL.
//! The server listens on 127.0.0.1 only, at port 7878 (or any free port
//! if that one is taken), or at the port given by `--port N` or the
//! environment variable `AUTODIFF_WALKTHROUGH_PORT` (0 for any).

mod functions;
mod http;
mod server;
mod typed;

const DEFAULT_PORT: u16 = 7878;

fn usage() -> ! {
    eprintln!("usage: cargo run --example walkthrough [-- --port N]\n(also AUTODIFF_WALKTHROUGH_PORT=N; 0 picks any free port)");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut port: Option<String> = std::env::var("AUTODIFF_WALKTHROUGH_PORT").ok();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" | "-p" => port = Some(args.next().unwrap_or_else(|| usage())),
            s if s.starts_with("--port=") => port = Some(s["--port=".len()..].to_owned()),
            _ => usage(),
        }
    }
    let bound = match port {
        Some(text) => {
            let Ok(port) = text.trim().parse::<u16>() else {
                eprintln!("walkthrough: the port must be a number from 0 to 65535, not {text:?}");
                std::process::exit(2);
            };
            http::bind(port)
        }
        None => http::bind(DEFAULT_PORT).or_else(|_| http::bind(0)),
    };
    let server = bound.unwrap_or_else(|e| {
        eprintln!("walkthrough: {e}");
        std::process::exit(1)
    });
    let port = server.local_addr().port();
    println!(
        "walkthrough: open http://127.0.0.1:{port}/ (listening on 127.0.0.1 only; Ctrl-C stops)"
    );
    http::run(server);
}
