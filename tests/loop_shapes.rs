//! Loop shapes as people write them: a `loop` that yields its value with
//! `break v`, chains over integer ranges, `sin_cos`. Exact values where
//! they exist, central differences elsewhere (h = 1e-6, relative 1e-6).

use approx::assert_relative_eq;
use autodiff::grad;

/// Newton's method for √a, a `loop` yielding its result.
#[grad]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut steps = 0;
    let root = loop {
        let next = 0.5 * (x + a / x);
        steps += 1;
        if (next - x).abs() < 1e-12 || steps == 60 {
            break next;
        }
        x = next;
    };
    root * 2.0
}

#[test]
fn a_loop_that_yields_its_value() {
    let (v, d) = newton_sqrt_grad(2.0);
    assert_relative_eq!(v, 2.0 * 2f64.sqrt(), max_relative = 1e-15);
    // d(2√a)/da = 1/√a, through the iterations.
    assert_relative_eq!(d, 1.0 / 2f64.sqrt(), max_relative = 1e-12);
}

/// The loop as the function's tail, its value read from a variable of the
/// function.
#[grad]
fn grow(x: f64) -> f64 {
    let mut y = x;
    loop {
        y = y * 1.5 + x;
        if y > 10.0 {
            break y;
        }
    }
}

#[test]
fn a_loop_as_the_tail() {
    let x = 0.7;
    let (v, d) = grow_grad(x);
    assert_eq!(v, grow(x));
    let h = 1e-6;
    assert_relative_eq!(
        d,
        (grow(x + h) - grow(x - h)) / (2.0 * h),
        max_relative = 1e-6
    );
}

/// Chains over ranges: `(0..n).map(..).sum()`, `(1..n).map(..).fold(..)`,
/// an inclusive range, a range zipped with a slice.
#[grad]
fn range_chains(xs: &[f64]) -> f64 {
    let n = xs.len();
    let squares = (0..n).map(|i| xs[i] * xs[i]).sum::<f64>();
    let steps = (1..n)
        .map(|i| (xs[i] - xs[i - 1]).powi(2))
        .fold(0.0, |a, b| a + b);
    let weighted: f64 = (1..=n).map(|k| k as f64 * xs[k - 1]).sum();
    let mut zipped = 0.0;
    for (i, x) in (0..n).zip(xs) {
        zipped += (i as f64) * x;
    }
    squares + steps + weighted + zipped
}

#[test]
fn chains_over_integer_ranges() {
    let xs = [1.0, -2.0, 3.0];
    let (v, d) = range_chains_grad(&xs);
    assert_eq!(v, range_chains(&xs));
    // 2x + the differences' terms + k + i
    let want = [
        2.0 * 1.0 - 2.0 * (-2.0 - 1.0) + 1.0,
        2.0 * -2.0 + 2.0 * (-2.0 - 1.0) - 2.0 * (3.0 + 2.0) + 2.0 + 1.0,
        2.0 * 3.0 + 2.0 * (3.0 + 2.0) + 3.0 + 2.0,
    ];
    assert_eq!(d, want.to_vec());
}

#[grad]
fn rotation(theta: f64, r: f64) -> f64 {
    let (s, c) = theta.sin_cos();
    let (s2, c2) = (2.0 * theta).sin_cos();
    r * (s * c) + s2 - c2
}

#[test]
fn sin_cos_destructured() {
    let (t, r) = (0.4, 1.5);
    let (v, dt, dr) = rotation_grad(t, r);
    assert_eq!(v, rotation(t, r));
    let want_dt = r * (2.0 * t).cos() + 2.0 * (2.0 * t).cos() + 2.0 * (2.0 * t).sin();
    assert_relative_eq!(dt, want_dt, max_relative = 1e-14);
    assert_relative_eq!(dr, t.sin() * t.cos(), max_relative = 1e-15);
}

/// Labelled jumps out of nested loops: `break 'outer` two levels down,
/// `continue 'rows` one level down.
#[grad]
fn labelled(x: f64, xs: &[f64]) -> f64 {
    let mut s = x;
    'outer: for _ in 0..10 {
        for _ in 0..10 {
            for _ in 0..2 {
                s *= 1.1;
                if s > 100.0 {
                    break 'outer;
                }
            }
        }
    }
    let mut t = 0.0;
    'rows: for i in 0..xs.len() {
        for j in 0..xs.len() {
            if j > i {
                continue 'rows;
            }
            t += xs[i] * xs[j];
        }
    }
    s + t
}

#[test]
fn labelled_break_and_continue() {
    let xs = [1.0, -2.0, 3.0];
    let (v, dx, dxs) = labelled_grad(2.0, &xs);
    assert_eq!(v, labelled(2.0, &xs));
    // s = x · 1.1^k for the k that first passes 100.
    let k = (1..).find(|k| 2.0 * 1.1f64.powi(*k) > 100.0).unwrap();
    assert_relative_eq!(dx, 1.1f64.powi(k), max_relative = 1e-14);
    // t = Σ_{j ≤ i} x_i x_j
    assert_eq!(
        dxs,
        vec![2.0 * 1.0 - 2.0 + 3.0, 1.0 - 4.0 + 3.0, 1.0 - 2.0 + 6.0]
    );
}

/// A convolution as people write it: each window zipped with the kernel,
/// in a chain and in a `for` loop.
#[grad]
fn convolve(signal: &[f64], kernel: &[f64]) -> f64 {
    let smooth = signal
        .windows(3)
        .map(|w| w.iter().zip(kernel).map(|(a, b)| a * b).sum::<f64>())
        .sum::<f64>();
    let mut energy = 0.0;
    for w in signal.windows(3) {
        let c: f64 = w.iter().zip(kernel).map(|(a, b)| a * b).sum();
        energy += c * c;
    }
    smooth + energy
}

#[test]
fn windows_zipped_with_a_kernel() {
    let signal = [1.0, -2.0, 3.0, 0.5, 2.0];
    let kernel = [0.25, 0.5, 0.25];
    let (v, ds, dk) = convolve_grad(&signal, &kernel);
    assert_eq!(v, convolve(&signal, &kernel));
    let h = 1e-6;
    for i in 0..signal.len() {
        let (mut a, mut b) = (signal, signal);
        a[i] += h;
        b[i] -= h;
        let fd = (convolve(&a, &kernel) - convolve(&b, &kernel)) / (2.0 * h);
        assert_relative_eq!(ds[i], fd, max_relative = 1e-6, epsilon = 1e-9);
    }
    for j in 0..kernel.len() {
        let (mut a, mut b) = (kernel, kernel);
        a[j] += h;
        b[j] -= h;
        let fd = (convolve(&signal, &a) - convolve(&signal, &b)) / (2.0 * h);
        assert_relative_eq!(dk[j], fd, max_relative = 1e-6, epsilon = 1e-9);
    }
}

/// `while let` over a work list of indices, updating an accumulator.
#[grad]
fn drain(x: f64, w: &[f64]) -> f64 {
    let mut todo: Vec<usize> = (0..w.len()).collect();
    let mut acc = x;
    while let Some(i) = todo.pop() {
        acc = acc * w[i] + x.sin();
    }
    acc
}

#[test]
fn while_let_over_a_work_list() {
    let w = [0.5, 2.0, 3.0];
    for x in [0.3, -1.2, 2.5] {
        let (y, dx, dw) = drain_grad(x, &w);
        assert_eq!(y.to_bits(), drain(x, &w).to_bits());
        // acc = ((x w2 + s) w1 + s) w0 + s, s = sin x.
        let s = x.sin();
        let c = x.cos();
        let want_dx = w[2] * w[1] * w[0] + c * (w[1] * w[0] + w[0] + 1.0);
        assert_relative_eq!(dx, want_dx, max_relative = 1e-14);
        let a1 = x * w[2] + s;
        let a2 = a1 * w[1] + s;
        assert_relative_eq!(dw[0], a2, max_relative = 1e-14);
        assert_relative_eq!(dw[1], a1 * w[0], max_relative = 1e-14);
        assert_relative_eq!(dw[2], x * w[1] * w[0], max_relative = 1e-14);
    }
}
