// A closure bound by `let` that returns an array it fills in a loop, its
// result read: not differentiated, and the message says to write it as a
// `#[grad]` function (a closure returning a float, or a list built from
// `let`s, is differentiated).
use autodiff::grad;

#[grad]
fn tip_x(q: [f64; 3]) -> f64 {
    let link = |angle: f64, l: f64| {
        let mut out = [0.0; 2];
        for k in 0..2 {
            out[k] = l * (angle + k as f64).cos();
        }
        out
    };
    let angle = q[0] + q[1];
    let d = link(angle, 1.0);
    d[0] + d[1]
}

fn main() {}
