// A struct's own method named like a float method (`abs`) on a part of a
// differentiated struct whose type the source does not state
// (`r.dir.abs()`): #[grad] takes it for the float's by its name, and the
// first error, at the part, says to state its type (`let d: V2 =
// r.dir;`, `tests/regressions.rs`) or call it by its path. (The errors
// after it are rustc's on the code that reads it as a float.)
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Copy)]
struct V2 {
    x: f64,
    y: f64,
}

impl V2 {
    #[grad(wrt(self))]
    fn abs(&self) -> f64 {
        self.x.hypot(self.y)
    }
}

#[derive(Differentiable, Clone, Copy)]
struct Ray {
    origin: V2,
    dir: V2,
}

#[grad(wrt(r, t))]
fn reach(r: &Ray, t: f64) -> f64 {
    r.dir.abs() * t + r.origin.x
}

fn main() {}
