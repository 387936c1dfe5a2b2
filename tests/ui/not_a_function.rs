// #[grad] on a struct is refused.
use autodiff::grad;

#[grad]
pub struct Point {
    pub x: f64,
}

fn main() {}
