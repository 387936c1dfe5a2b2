// Macros of the user's that change a float, an array or a struct
// #[grad] follows by its values, or bind a value it would need (trial 5
// r90, r90b, r90c, r90d, r95): an array's change was lost (a wrong
// gradient), a float's failed inside the expansion (E0384), a bound value
// read as a constant (a wrong gradient). Each is refused at the macro.
use autodiff::grad;

macro_rules! scale_all {
    ($v:ident, $k:expr) => {
        for e in $v.iter_mut() {
            *e *= $k;
        }
    };
}

macro_rules! accum {
    ($acc:ident, $e:expr) => {
        $acc += $e
    };
}

macro_rules! let_sq {
    ($n:ident, $e:expr) => {
        let $n = $e * $e;
    };
}

macro_rules! drift {
    ($s:ident, $dt:expr) => {
        $s.x += $s.v * $dt
    };
}

#[grad]
fn scaled(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    v[0] += 1.0;
    scale_all!(v, 2.0);
    v[0] * v[1]
}

#[grad]
fn accumulated(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    accum!(s, x * y);
    s
}

#[grad]
fn bound(x: f64, y: f64) -> f64 {
    let_sq!(t, x);
    t * y
}

#[derive(Clone, autodiff::Differentiable)]
struct Body {
    x: f64,
    v: f64,
}

impl Body {
    #[grad]
    fn step(&mut self, dt: f64) {
        self.v -= self.x * dt;
        drift!(self, dt);
    }
}

fn main() {}
