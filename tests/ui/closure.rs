// A closure inside the differentiated function is refused.
use autodiff::grad;

#[grad]
fn f(x: f64) -> f64 {
    let square = |t: f64| t * t;
    square(x)
}

fn main() {}
