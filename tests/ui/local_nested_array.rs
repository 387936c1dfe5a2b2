// A local nested array filled in a loop from active values, or written
// out (trial 4 r44: a rotation matrix, refused with "something changes
// it" or "write the type"): not modelled yet; the error says so and says
// to flatten it or keep its rows in a `Vec` of a written type.
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

#[grad]
fn rotation(a: f64, b: f64) -> f64 {
    let m: [[f64; 2]; 2] = [[a, b], [b, a]];
    m[1][0] * m[0][1]
}

#[grad]
fn rotated(th: f64, x: f64) -> f64 {
    let (s, c) = th.sin_cos();
    let r = [[c, -s], [s, c]];
    r[0][0] * x + r[0][1]
}

fn main() {}
