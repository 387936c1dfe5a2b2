// A struct writer called on a struct started from `Default::default()`,
// which #[grad] follows by its fields only: refused at the call, saying
// to build the struct with a literal (it claimed `step` had no #[grad]).
#[derive(Clone, Debug, Default, autodiff::Differentiable)]
pub struct St { pub x: f64 }
impl St {
    #[autodiff::grad]
    pub fn step(&mut self, t: f64) { self.x += t; }
}
#[autodiff::grad]
pub fn f(t: f64) -> f64 {
    let mut s = St::default();
    s.step(t);
    s.x
}
fn main() {}
