// A closure bound by `let` that returns an array, its result read: not
// differentiated, and the message says to write it as a `#[grad]`
// function (a closure returning a float is differentiated).
use autodiff::grad;

#[grad]
fn tip_x(q: [f64; 3]) -> f64 {
    let link = |angle: f64, l: f64| [l * angle.cos(), l * angle.sin()];
    let angle = q[0] + q[1];
    let d = link(angle, 1.0);
    d[0] + d[1]
}

fn main() {}
