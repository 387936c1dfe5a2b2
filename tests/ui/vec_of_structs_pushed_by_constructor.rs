// A `Vec` of structs filled by a constructor (`P::new(..)`) instead of
// struct literals: the message at the field read says what #[grad]
// follows and what to push instead.
use autodiff::grad;

#[derive(Clone)]
pub struct P {
    pub x: f64,
    pub v: f64,
}

impl P {
    fn new(x: f64, v: f64) -> Self {
        P { x, v }
    }
}

#[grad]
fn f(a: f64) -> f64 {
    let mut ps = Vec::new();
    for i in 0..3 {
        ps.push(P::new(a * i as f64, 1.0));
    }
    let mut s = 0.0;
    for p in &ps {
        s += p.x * 2.0;
    }
    s
}

fn main() {}
