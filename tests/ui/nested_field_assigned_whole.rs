// A struct writer giving a nested array to a field whole: nested local
// arrays are not modelled yet, and the message names the field's value,
// not a name of the macro's.
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct M {
    p: [[f64; 2]; 2],
}

impl M {
    #[grad]
    fn scale(&mut self, k: f64) {
        let p = self.p;
        self.p = [[k * p[0][0], p[0][1]], [p[1][0], k * p[1][1]]];
    }
}

fn main() {}
