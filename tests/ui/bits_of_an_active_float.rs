// A float taken through its bits, `to_bits` then `from_bits`, carried its
// value but not its derivative: the gradient was silently wrong (trial 11
// r999: zero for `f64::from_bits(x.to_bits())`, off by 6 % for a fast
// inverse square root's first guess). `to_bits` of a value that depends
// on the differentiated inputs is refused, however the integer is used;
// of a constant it is fine (`tests/regressions.rs`).
use autodiff::grad;

#[grad]
fn round_trip(x: f64, a: f64) -> f64 {
    let y = f64::from_bits(x.to_bits());
    y * a
}

#[grad]
fn inv_norm(x: f64, y: f64) -> f64 {
    let r2 = x * x + y * y;
    let mut g = f64::from_bits(0x5FE6_EB50_C7B5_37A9 - (r2.to_bits() >> 1));
    g = g * (1.5 - 0.5 * r2 * g * g);
    g
}

fn main() {}
