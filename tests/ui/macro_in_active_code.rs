// A user macro that computes an active value is refused: the macro cannot see inside it.
use autodiff::grad;

macro_rules! square {
    ($e:expr) => {
        $e * $e
    };
}

#[grad]
fn f(x: f64) -> f64 {
    square!(x) + 1.0
}

fn main() {}
