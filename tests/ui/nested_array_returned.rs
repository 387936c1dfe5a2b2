// A function returning a nested array (a matrix) is refused at its return
// type, with the flat layout to return instead.
use autodiff::grad;

#[grad]
fn rot(th: f64) -> [[f64; 2]; 2] {
    let c = th.cos();
    let s = th.sin();
    [[c, -s], [s, c]]
}

fn main() {}
