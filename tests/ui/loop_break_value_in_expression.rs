// A `loop` that yields a value is the loop followed by its value, each
// `break v;` a statement at the end of a branch (as for `break;`).
#[autodiff::grad]
fn nested(x: f64) -> f64 {
    let mut y = x;
    loop {
        y *= 1.5;
        let done = if y > 10.0 { break y * 2.0 } else { y < -10.0 };
        if done {
            break -y;
        }
    }
}

fn main() {}
