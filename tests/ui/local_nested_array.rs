// A local nested array filled in a loop from active values: not modelled
// yet; the error says so and says to flatten it.
use autodiff::grad;

#[grad]
fn frob(a: [f64; 4]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = a[2 * i + j] * a[2 * j + i];
        }
    }
    m[0][0] + m[0][1] * m[1][0] + m[1][1]
}

#[grad]
fn grid(a: &[f64], n: usize) -> f64 {
    let mut g = vec![vec![0.0; n]; n];
    for i in 0..n {
        g[i][i] = a[i] * a[i];
    }
    g[0][0]
}

fn main() {}
