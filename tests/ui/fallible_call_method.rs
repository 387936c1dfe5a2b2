// A call of a `#[grad]` function that may fail is differentiated through
// `?`, `.unwrap()` or `.expect(..)`; other methods of its `Option` or
// `Result` are refused at the method, with what to write.
use autodiff::grad;

#[grad]
fn checked_root(x: f64) -> Option<f64> {
    if x < 0.0 {
        return None;
    }
    Some(x.sqrt())
}

#[grad]
fn f(x: f64) -> f64 {
    checked_root(x).unwrap_or(0.0) + x
}



#[derive(Clone, Copy, autodiff::Differentiable)]
struct Gauss {
    s: f64,
}

impl Gauss {
    #[grad(wrt(self))]
    fn log_pdf(&self, x: f64) -> Result<f64, String> {
        if self.s <= 0.0 {
            return Err("s".into());
        }
        Ok(-(x - self.s).powi(2) / self.s)
    }
}

// The same for a fallible method (trial 12 r1008: rustc's E0599 inside
// the expansion before).
#[grad]
fn g(s: f64) -> f64 {
    let g = Gauss { s };
    g.log_pdf(1.0).unwrap_or(0.5) * s
}
fn main() {}
