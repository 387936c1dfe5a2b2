// A struct writer changes its struct by assigning whole fields (and an
// element of an array field, `self.w[0] = ..`); a deeper part of a field
// changed in place, or a field lent by `&mut`, is not followed: refused at
// the part, with what to write instead.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Grid {
    pub w: Vec<[f64; 2]>,
    pub s: f64,
}

impl Grid {
    #[autodiff::grad]
    pub fn smooth(&mut self, k: f64) {
        self.w[0][1] = self.w[1][0] * k;
    }
}

fn bump(x: &mut f64) {
    *x += 1.0;
}

#[autodiff::grad]
pub fn shift(g: &mut Grid, k: f64) {
    g.s *= k;
    bump(&mut g.s);
}

fn main() {}
