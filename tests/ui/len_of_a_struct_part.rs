// A struct's own `len` on a part of a differentiated struct whose type the
// source does not state (`r.dir.len()`): read as a collection's length,
// which the bound checks, never the struct's `len` called without its
// derivative (which gave a gradient of zero); `let d: V2 = r.dir;` states
// it (`tests/regressions.rs`).
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Copy)]
struct V2 {
    x: f64,
    y: f64,
}

impl V2 {
    #[grad(wrt(self))]
    fn len(&self) -> f64 {
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
    r.dir.len() * t + r.origin.x
}

fn main() {}
