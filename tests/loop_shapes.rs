//! Loop shapes as people write them: a `loop` that yields its value with
//! `break v`, chains over integer ranges, `sin_cos`, `break`, `continue`
//! and `return` at the end of `match` arms. Exact values where they exist,
//! central differences elsewhere (h = 1e-6, relative 1e-6).

// Users write index loops; so do these tests.
#![allow(clippy::needless_range_loop)]

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

/// The derivative of `f` at `x` by central differences.
fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// `break` and `continue` at the end of `match` arms: an arm without
/// braces, an `if` that breaks inside an arm.
#[grad]
fn thirds(x: f64, k: u32) -> f64 {
    let mut s = 0.0;
    for i in 0..10 {
        match i % 3 {
            0 => s += x,
            1 => {
                if s > 5.0 {
                    break;
                }
                s *= x;
            }
            _ => continue,
        }
    }
    s + k as f64
}

#[test]
fn jumps_at_the_end_of_match_arms() {
    for x in [0.5, 1.3, 2.0, 3.1] {
        let (v, dx) = thirds_grad(x, 4);
        assert_eq!(v.to_bits(), thirds(x, 4).to_bits());
        // The same loop on (value, derivative) pairs.
        let (mut s, mut ds) = (0.0, 0.0);
        for i in 0..10 {
            match i % 3 {
                0 => (s, ds) = (s + x, ds + 1.0),
                1 if s > 5.0 => break,
                1 => (s, ds) = (s * x, ds * x + s),
                _ => {}
            }
        }
        assert_eq!(v, s + 4.0);
        assert_relative_eq!(dx, ds, max_relative = 1e-14);
        assert_relative_eq!(dx, central(|x| thirds(x, 4), x), max_relative = 1e-6);
    }
}

/// A state machine's state, not `Copy`.
#[derive(Debug)]
enum Step {
    Go(f64, String),
    Wait,
    Done,
}

fn plan(i: usize, n: usize) -> Step {
    match i {
        _ if i >= n => Step::Done,
        _ if i % 4 == 2 => Step::Wait,
        _ => Step::Go(1.0 + 0.5 * i as f64, format!("step {i}")),
    }
}

/// `match` on a value that is not `Copy`, read again after the `match`
/// (so not moved by it), then more statements after the `match`.
#[grad]
fn walk(x: f64, n: usize) -> f64 {
    let mut s = 0.5;
    let mut names = 0;
    for i in 0..20 {
        let state = plan(i, n);
        match state {
            Step::Done => break,
            Step::Wait => continue,
            Step::Go(v, _) => s += v * x,
        }
        if let Step::Go(_, name) = &state {
            names += name.len();
        }
        s *= 1.0 + 0.25 * x;
    }
    s + names as f64
}

/// The state moved by the `match` (its `String` taken by the arm) and
/// replaced after it.
#[grad]
fn machine(x: f64, n: usize) -> f64 {
    let mut s = 0.5;
    let mut names = 0;
    let mut state = plan(0, n);
    for i in 0..20 {
        match state {
            Step::Done => break,
            Step::Wait => {}
            Step::Go(v, name) => {
                s += v * x;
                names += name.len();
            }
        }
        state = plan(i + 1, n);
        s *= 1.0 + 0.25 * x;
    }
    s + names as f64
}

#[test]
fn match_on_a_state_that_is_not_copy() {
    for (x, n) in [(0.7, 0), (0.7, 6), (-1.2, 9), (2.5, 30)] {
        let (v, dx) = walk_grad(x, n);
        assert_eq!(v.to_bits(), walk(x, n).to_bits());
        let (mut s, mut ds) = (0.5, 0.0);
        for i in 0..20.min(n) {
            if i % 4 != 2 {
                let w = 1.0 + 0.5 * i as f64;
                (s, ds) = (s + w * x, ds + w);
                (s, ds) = (s * (1.0 + 0.25 * x), ds * (1.0 + 0.25 * x) + 0.25 * s);
            }
        }
        assert_relative_eq!(dx, ds, max_relative = 1e-13);
        assert_relative_eq!(dx, central(|x| walk(x, n), x), max_relative = 1e-6);

        let (v, dx) = machine_grad(x, n);
        assert_eq!(v.to_bits(), machine(x, n).to_bits());
        let (mut s, mut ds) = (0.5, 0.0);
        for i in 0..20.min(n) {
            if i % 4 != 2 {
                let w = 1.0 + 0.5 * i as f64;
                (s, ds) = (s + w * x, ds + w);
            }
            (s, ds) = (s * (1.0 + 0.25 * x), ds * (1.0 + 0.25 * x) + 0.25 * s);
        }
        assert_relative_eq!(dx, ds, max_relative = 1e-13);
        assert_relative_eq!(dx, central(|x| machine(x, n), x), max_relative = 1e-6);
    }
}

/// `Some(v) => .., None => break` over inactive options, an arm's guard
/// that breaks, and a `match` followed by statements that every arm
/// that does not jump runs (`match` with one arm that jumps, as the
/// shape this tests, and an index loop, as people write it).
#[grad]
#[allow(clippy::single_match, clippy::needless_range_loop)]
fn until_none(x: f64, opts: &[Option<f64>]) -> f64 {
    let mut s = 1.0;
    for i in 0..opts.len() {
        match opts[i] {
            Some(v) if v > 10.0 => break,
            Some(v) => s = s * x + v,
            None => break,
        }
        match i % 2 {
            0 => continue,
            _ => {}
        }
        s *= x;
    }
    s
}

#[test]
fn some_or_break_with_a_guard() {
    let cases: [&[Option<f64>]; 4] = [
        &[Some(1.0), Some(2.0), Some(-1.0), None, Some(5.0)],
        &[Some(1.0), Some(2.0), Some(-1.0), Some(0.5), Some(3.0)],
        &[Some(0.5), Some(20.0), Some(1.0)],
        &[None, Some(1.0)],
    ];
    for opts in cases {
        for x in [0.8, -1.3, 1.7] {
            let (v, dx) = until_none_grad(x, opts);
            assert_eq!(v.to_bits(), until_none(x, opts).to_bits());
            let (mut s, mut ds) = (1.0, 0.0);
            for (i, o) in opts.iter().enumerate() {
                let Some(v) = o.filter(|v| *v <= 10.0) else {
                    break;
                };
                (s, ds) = (s * x + v, ds * x + s);
                if i % 2 == 1 {
                    (s, ds) = (s * x, ds * x + s);
                }
            }
            assert_eq!(v, s);
            assert_relative_eq!(dx, ds, max_relative = 1e-14);
            assert_relative_eq!(dx, central(|x| until_none(x, opts), x), max_relative = 1e-6);
        }
    }
}

/// `3 => return s,` in a loop at the top level of the body, with
/// statements after the loop.
#[grad]
fn first_large(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        s = s * x + 1.0;
        match i {
            3 => return s,
            _ if s > 50.0 => return 2.0 * s,
            _ => {}
        }
        s += 0.5;
    }
    s * s
}

#[test]
fn return_from_a_match_arm() {
    for (x, n) in [(1.1, 2), (1.1, 10), (3.0, 10), (-0.6, 3)] {
        let (v, dx) = first_large_grad(x, n);
        assert_eq!(v.to_bits(), first_large(x, n).to_bits());
        let (mut s, mut ds) = (x, 1.0);
        let mut ret = None;
        for i in 0..n {
            (s, ds) = (s * x + 1.0, ds * x + s);
            if i == 3 {
                ret = Some((s, ds));
                break;
            }
            if s > 50.0 {
                ret = Some((2.0 * s, 2.0 * ds));
                break;
            }
            s += 0.5;
        }
        let (want, want_d) = ret.unwrap_or((s * s, 2.0 * s * ds));
        assert_eq!(v, want);
        assert_relative_eq!(dx, want_d, max_relative = 1e-13);
        assert_relative_eq!(dx, central(|x| first_large(x, n), x), max_relative = 1e-6);
    }
}

/// Nested: a `match` in a branch of an `if`, an `if` in an arm, a
/// `match` in an arm; `if let` whose `else` jumps.
#[grad]
fn nested(x: f64, y: f64, opts: &[Option<f64>]) -> f64 {
    let mut s = y;
    let mut t = 0.0;
    for i in 0..12 {
        if i % 2 == 0 {
            match i % 3 {
                0 => {
                    if s > 20.0 {
                        break;
                    }
                    s += x;
                }
                1 => match i {
                    4 => continue,
                    _ => s *= y,
                },
                _ => t += s,
            }
        } else if let Some(v) = opts.get(i).copied().flatten() {
            t += v * s;
        } else {
            continue;
        }
        match opts.get(i) {
            Some(Some(_)) => t += s * y,
            Some(None) => break,
            None => {}
        }
        s = s * x + t * 0.1;
    }
    s + t
}

#[test]
fn jumps_in_nested_matches_and_ifs() {
    let opts = [
        Some(1.0),
        Some(2.0),
        Some(-1.0),
        Some(0.5),
        Some(3.0),
        Some(1.5),
        Some(-2.0),
        None,
        Some(1.0),
    ];
    for (x, y) in [(0.9, 1.2), (1.4, 0.7), (-0.5, 2.0), (2.0, 3.0)] {
        for len in [0, 3, 7, 9] {
            let opts = &opts[..len];
            let (v, dx, dy) = nested_grad(x, y, opts);
            assert_eq!(v.to_bits(), nested(x, y, opts).to_bits());
            let fx = central(|x| nested(x, y, opts), x);
            let fy = central(|y| nested(x, y, opts), y);
            assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
            assert_relative_eq!(dy, fy, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// Jumps in `match` arms through the other rewrites: a `loop` that yields
/// its value from an arm, `continue 'rows` in an arm's block, and a
/// `while let` whose body jumps from its arms.
#[grad]
fn through_rewrites(x: f64, w: &[f64]) -> f64 {
    let mut s = x;
    let mut k = 0;
    let r = loop {
        k += 1;
        match k {
            1..=3 => s = s * x + 1.0,
            _ if s > 8.0 => break s,
            12 => break s,
            _ => s += x,
        }
    };
    let mut t = 0.0;
    'rows: for i in 0..w.len() {
        for j in 0..w.len() {
            match (i + j) % 4 {
                3 => {
                    continue 'rows;
                }
                _ => t += w[i] * w[j] * x,
            }
        }
    }
    let mut todo: Vec<usize> = (0..w.len()).collect();
    let mut acc = x;
    while let Some(i) = todo.pop() {
        match i % 3 {
            0 => continue,
            1 if acc > 10.0 => break,
            _ => {}
        }
        acc = acc * w[i] + x;
    }
    r + t + acc
}

#[test]
fn match_arms_through_the_other_rewrites() {
    let w = [1.5, -0.5, 2.0, 1.0, 0.75, 3.0, -1.0];
    for x in [0.3, 0.9, 1.6, 2.4] {
        for n in [0, 2, 5, 7] {
            let w = &w[..n];
            let (v, dx, dw) = through_rewrites_grad(x, w);
            assert_eq!(v.to_bits(), through_rewrites(x, w).to_bits());
            let fx = central(|x| through_rewrites(x, w), x);
            assert_relative_eq!(dx, fx, max_relative = 1e-6, epsilon = 1e-8);
            for i in 0..n {
                let at = |d: f64| {
                    let mut v = w.to_vec();
                    v[i] += d;
                    through_rewrites(x, &v)
                };
                let fd = (at(1e-6) - at(-1e-6)) / 2e-6;
                assert_relative_eq!(dw[i], fd, max_relative = 1e-6, epsilon = 1e-8);
            }
        }
    }
}

/// A labelled jump at the end of a `match` arm, `0 => continue 'outer,`.
#[grad]
fn skip_rows(x: f64, grid: &[u8]) -> f64 {
    let mut s = x;
    'outer: for i in 0..3 {
        for j in 0..3 {
            match grid[i * 3 + j] {
                0 => continue 'outer,
                2 => break 'outer,
                _ => {}
            }
            s = s * x + 0.5;
        }
    }
    s
}

#[test]
fn labelled_jumps_in_match_arms() {
    let h = 1e-6;
    for grid in [[1, 1, 0, 1, 1, 1, 1, 1, 1], [1, 0, 1, 1, 2, 1, 1, 1, 1]] {
        for x in [0.5, -1.2, 0.9] {
            let (v, d) = skip_rows_grad(x, &grid);
            assert_eq!(v.to_bits(), skip_rows(x, &grid).to_bits());
            let fd = (skip_rows(x + h, &grid) - skip_rows(x - h, &grid)) / (2.0 * h);
            assert_relative_eq!(d, fd, max_relative = 1e-6, epsilon = 1e-8);
        }
    }
}

/// A `while let` that changes nothing outside but returns from the
/// function: from its body, or from a loop nested in it (a search over a
/// constant list; refused before as "`return` before the last
/// statement"; difftest `while_let`, seed 2024).
#[allow(clippy::while_let_on_iterator)] // written as users write it
#[grad(wrt(x, y))]
fn first_above(ys: &[f64], x: f64, y: f64) -> f64 {
    let mut it = ys.iter();
    while let Some(&v) = it.next() {
        if v > 1.5 {
            return x * v + y;
        }
    }
    x * y
}

#[allow(clippy::while_let_on_iterator)]
#[grad(wrt(x, y))]
fn first_above_nested(ys: &[f64], x: f64, y: f64) -> f64 {
    let s = 0.5;
    let mut it = ys.iter();
    while let Some(&v) = it.next() {
        let mut k: usize = 0;
        while k < 5 && x <= y {
            k += 1;
            let a: f64 = x * s * v * k as f64;
            if v > 1.0 && k > 1 {
                return a + y;
            }
        }
    }
    s * x
}

#[test]
fn a_while_let_that_returns() {
    let ys = [0.5, 2.0, 3.0];
    // v = 2 returns: 2x + y.
    assert_eq!(first_above_grad(&ys, 0.3, 0.7), (0.3 * 2.0 + 0.7, 2.0, 1.0));
    assert_eq!(first_above_grad(&[0.5], 0.3, 0.7), (0.3 * 0.7, 0.7, 0.3));
    // x <= y, v = 2, k = 2: 2 x s v + y = 2x + y.
    let (v, dx, dy) = first_above_nested_grad(&ys, 0.3, 0.7);
    assert_eq!((v, dx, dy), (0.3 * 0.5 * 2.0 * 2.0 + 0.7, 2.0, 1.0));
    // x > y: the inner loop never runs, s x.
    let (v, dx, dy) = first_above_nested_grad(&ys, 0.9, 0.7);
    assert_eq!((v, dx, dy), (0.45, 0.5, 0.0));
}

/// A work list drained by `pop`, the last pushed first, with a `break`.
#[grad]
fn drained_by_pop(xs: &[f64], k: f64) -> f64 {
    let mut todo: Vec<f64> = xs.to_vec();
    let mut pending = vec![k, 2.0 * k, xs[0]];
    let mut t = 0.0;
    while let Some(v) = todo.pop() {
        t = t * 0.5 + v * v;
    }
    while let Some(mut v) = pending.pop() {
        v *= 2.0;
        if v > 100.0 {
            break;
        }
        t = t * v + 1.0;
    }
    t
}

#[test]
fn a_vec_drained_by_pop() {
    for (xs, k) in [
        ([0.5, 1.5, 2.0], 0.7),
        ([-1.0, 0.25, 3.0], -0.4),
        ([2.0, 2.0, 9.0], 30.0),
    ] {
        let (v, dxs, dk) = drained_by_pop_grad(&xs, k);
        assert_eq!(v.to_bits(), drained_by_pop(&xs, k).to_bits());
        let f = |z: &[f64]| drained_by_pop(&z[..3], z[3]);
        let at = [xs[0], xs[1], xs[2], k];
        let got = [dxs[0], dxs[1], dxs[2], dk];
        for i in 0..4 {
            let h = 1e-6;
            let (mut p, mut m) = (at, at);
            p[i] += h;
            m[i] -= h;
            let want = (f(&p) - f(&m)) / (2.0 * h);
            assert_relative_eq!(got[i], want, max_relative = 1e-6, epsilon = 1e-7);
        }
    }
}

// ---- destructuring assignments from any value, into any places ----------

/// A semi-implicit step of a pendulum, returning the new state as a tuple.
#[grad]
fn pendulum_step(theta: f64, omega: f64, dt: f64) -> (f64, f64) {
    let omega = omega - dt * theta.sin();
    (theta + dt * omega, omega)
}

#[grad]
fn polar(r: f64, t: f64) -> [f64; 2] {
    [r * t.cos(), r * t.sin()]
}

/// `(theta, omega) = step(..)` in a loop, `[x, y] = polar(..)` of an
/// array, into elements and `_`, and a deferred `let (u, v);`: each
/// value bound first by a `let` of the left's shape (calls trial r07,
/// which was refused with "bind this value first").
#[grad]
fn swing(theta0: f64, dt: f64) -> f64 {
    let (mut theta, mut omega) = (theta0, 0.0);
    let mut peak = [0.0; 2];
    for k in 0..20 {
        (theta, omega) = pendulum_step(theta, omega, dt);
        if k % 5 == 0 {
            (peak[0], _) = pendulum_step(peak[1], theta, dt);
            (peak[1], peak[0]) = (peak[0] * 0.5, peak[1] + omega);
        }
    }
    let (mut x, mut y) = (0.0, 0.0);
    [x, y] = polar(1.0 + x * y, theta);
    let (u, v);
    (u, v) = (x * y, peak[0] - peak[1]);
    u + v + omega
}

/// `grad` against `f` at each point: the value exactly, each partial
/// against central differences (h = 1e-6, relative 1e-6, absolute 1e-8).
fn against_differences(
    f: impl Fn(f64, f64) -> f64,
    grad: impl Fn(f64, f64) -> (f64, f64, f64),
    points: &[(f64, f64)],
) {
    let h = 1e-6;
    for &(a, b) in points {
        let (v, d_a, d_b) = grad(a, b);
        assert_relative_eq!(v, f(a, b), max_relative = 1e-15);
        let fd_a = (f(a + h, b) - f(a - h, b)) / (2.0 * h);
        let fd_b = (f(a, b + h) - f(a, b - h)) / (2.0 * h);
        assert_relative_eq!(d_a, fd_a, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(d_b, fd_b, max_relative = 1e-6, epsilon = 1e-8);
    }
}

#[test]
fn destructuring_assignments_from_calls_and_into_places() {
    against_differences(swing, swing_grad, &[(0.3, 0.05), (-1.1, 0.1), (2.0, 0.02)]);
}

/// `for` over arrays written out (calls trial r05b, refused before with
/// "bind the array first"): by value, by reference, through `iter()`,
/// `enumerate` and as a `zip`'s argument.
#[grad]
fn over_written_arrays(q1: f64, q2: f64) -> f64 {
    let mut loss = 0.0;
    for q in [q1, q2] {
        loss += q * q * q;
    }
    for (i, &q) in [q1 * q2, 2.0, q2].iter().enumerate() {
        loss += q.sin() * i as f64;
    }
    for (w, x) in [0.5, 0.25].iter().zip([q1, q2]) {
        loss += w * x.exp();
    }
    for &c in &[1.0, q1] {
        loss *= 1.0 + 0.1 * c;
    }
    loss
}

#[test]
fn loops_over_arrays_written_out() {
    against_differences(
        over_written_arrays,
        over_written_arrays_grad,
        &[(0.7, -1.3), (-0.4, 0.9), (1.6, 0.2)],
    );
}

/// A value bound by a `match` or an `if` one of whose branches jumps
/// (calls trial r10: `None => continue 'rows,` in a `match` whose value
/// is bound, refused before): the name bound first and assigned in each
/// branch that does not jump.
#[grad]
fn masked_loss(a: f64, depth: &[Option<f64>], cut: f64) -> f64 {
    let mut l = 0.0;
    'rows: for i in 0..depth.len() {
        let want = match depth[i] {
            Some(w) => w,
            None => continue 'rows,
        };
        let mut scale: f64 = if want > cut {
            break;
        } else if want < -cut {
            continue;
        } else {
            a * want
        };
        scale += 1.0;
        l += (a - want).powi(2) * scale;
    }
    l
}

#[test]
fn a_value_bound_by_branches_that_jump() {
    let depth = [
        Some(0.5),
        None,
        Some(-0.25),
        Some(-5.0),
        Some(1.5),
        Some(9.0),
        Some(0.1),
    ];
    let f = |a: f64, cut: f64| masked_loss(a, &depth, cut);
    for (a, cut) in [(0.3, 2.0), (-1.1, 1.0), (2.0, 0.2)] {
        // `&[Option<f64>]` is a constant: no gradient.
        let (v, d_a, d_cut) = masked_loss_grad(a, &depth, cut);
        assert_relative_eq!(v, f(a, cut), max_relative = 1e-15);
        let h = 1e-6;
        let fd = (f(a + h, cut) - f(a - h, cut)) / (2.0 * h);
        assert_relative_eq!(d_a, fd, max_relative = 1e-6, epsilon = 1e-8);
        assert_eq!(d_cut, 0.0);
    }
}

/// `let .. else` whose `else` jumps, as the `match` it stands for.
#[grad]
fn masked_loss_let_else(a: f64, depth: &[Option<f64>]) -> f64 {
    let mut l = 0.0;
    for d in depth {
        let Some(want) = *d else { continue };
        let Some(&first) = depth.first() else {
            break;
        };
        l += (a - want).powi(2) + a * first.unwrap_or(0.0);
    }
    l
}

#[test]
fn let_else_that_jumps() {
    let depth = [Some(0.5), None, Some(-0.25), Some(1.5)];
    for a in [0.3, -1.1, 2.0] {
        let (v, d_a) = masked_loss_let_else_grad(a, &depth);
        assert_relative_eq!(v, masked_loss_let_else(a, &depth), max_relative = 1e-15);
        // Σ 2 (a − w) + 0.5, over the three present entries.
        let want: f64 = [0.5, -0.25, 1.5].iter().map(|w| 2.0 * (a - w) + 0.5).sum();
        assert_relative_eq!(d_a, want, max_relative = 1e-14);
    }
}

/// A `match` whose value is assigned, an arm breaking (refused before:
/// tests/ui/break_in_match.rs).
#[grad]
fn assigned_match(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        s = match i % 4 {
            3 => break,
            k => s * (k as f64 + 1.0),
        };
        s += match i {
            0 => x,
            _ => continue,
        };
    }
    s
}

/// A labelled `break 'outer` in an `if` whose value is bound, and a
/// `loop` yielding a value from such an `if` (refused before:
/// tests/ui/labelled_break.rs, tests/ui/loop_break_value_in_expression.rs).
#[grad]
fn labelled_in_value(x: f64) -> f64 {
    let mut s = x;
    'outer: for _ in 0..10 {
        for _ in 0..10 {
            s *= 1.1;
            let done = if s > 100.0 { break 'outer } else { false };
            if done {
                s += 1.0;
            }
        }
    }
    s
}

#[grad]
fn loop_value_in_if(x: f64) -> f64 {
    let mut y = x;
    loop {
        y *= 1.5;
        let done = if y > 10.0 { break y * 2.0 } else { y < -10.0 };
        if done {
            break -y;
        }
    }
}

#[test]
fn jumps_in_assigned_and_bound_branches() {
    // ((x·1 + x)·2·3), then the break at i = 3.
    for n in [0, 1, 2, 5] {
        let (v, d) = assigned_match_grad(1.5, n);
        assert_eq!(v, assigned_match(1.5, n));
        let want = [1.0, 2.0, 4.0, 12.0, 12.0, 12.0][n];
        assert_relative_eq!(d, want, max_relative = 1e-15);
    }
    // s = x·1.1^k at the first k where it passes 100.
    for x in [0.5, 3.0, 20.0] {
        let (v, d) = labelled_in_value_grad(x);
        assert_eq!(v, labelled_in_value(x));
        assert_relative_eq!(d, v / x, max_relative = 1e-12);
    }
    // y = x·1.5^k, then 2y past 10 or −y past −10.
    for x in [0.7, -2.0, 4.0] {
        let (v, d) = loop_value_in_if_grad(x);
        assert_eq!(v, loop_value_in_if(x));
        assert_relative_eq!(d, v / x, max_relative = 1e-12);
    }
}

/// A labelled block that yields a value, left early by `break 'blk v` at
/// its own level, after a loop too (trial 5 r109c: refused, with a message
/// about `if`).
#[grad]
fn labelled_block(x: f64, y: f64) -> f64 {
    let v = 'blk: {
        if x > y {
            break 'blk x * x;
        }
        y * x + 1.0
    };
    let w = 'scan: {
        let mut s = v;
        for _ in 0..4 {
            s *= y;
        }
        if s.abs() > 50.0 {
            break 'scan s * 0.5;
        }
        s
    };
    v * y + w
}

#[test]
fn a_labelled_block_with_a_value() {
    for (x, y) in [(2.0, 3.0), (3.0, 2.0), (-1.5, 0.5), (0.7, -4.0)] {
        let (v, dx, dy) = labelled_block_grad(x, y);
        assert_eq!(v, labelled_block(x, y));
        let cx = central(|x| labelled_block(x, y), x);
        let cy = central(|y| labelled_block(x, y), y);
        assert_relative_eq!(dx, cx, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(dy, cy, max_relative = 1e-6, epsilon = 1e-8);
    }
}

/// A `loop`'s value assigned to a variable carried by an outer loop (trial
/// 7 r208): refused before as a loop it could not follow.
#[grad]
fn loop_value_assigned(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..3 {
        let mut k = 0;
        s = loop {
            k += 1;
            if k >= 2 {
                break s * x;
            }
        };
    }
    s
}

/// A labelled block's value assigned likewise (r205), with two exits.
#[grad]
fn block_value_assigned(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..3 {
        s = 'v: {
            if s > 10.0 {
                break 'v 10.0 + s.ln();
            }
            s * x
        };
    }
    s
}

#[test]
fn loop_and_block_values_assigned_in_a_loop() {
    for x in [-1.5, 0.5, 1.2, 2.0] {
        let (v, d) = loop_value_assigned_grad(x);
        assert_eq!(v, loop_value_assigned(x));
        assert_relative_eq!(v, x.powi(4), max_relative = 1e-15);
        assert_relative_eq!(d, 4.0 * x.powi(3), max_relative = 1e-15);
    }
    // s = x^4 below 10 (x = 1.5: 5.06); at 2, s = 8 after two steps,
    // then 8 * 2 = 16; at 3, 9 then 27 > 10, so the last step gives
    // 10 + ln(27).
    let (v, d) = block_value_assigned_grad(1.5);
    assert_relative_eq!(v, 1.5f64.powi(4), max_relative = 1e-15);
    assert_relative_eq!(d, 4.0 * 1.5f64.powi(3), max_relative = 1e-15);
    let (v, d) = block_value_assigned_grad(2.0);
    assert_eq!((v, d), (16.0, 32.0));
    let (v, d) = block_value_assigned_grad(3.0);
    assert_eq!(v, block_value_assigned(3.0));
    assert_relative_eq!(v, 10.0 + 27.0f64.ln(), max_relative = 1e-15);
    // d/dx of 10 + ln(x^3) = 3 / x.
    assert_relative_eq!(d, 1.0, max_relative = 1e-15);
}

// A tuple parameter destructured into loop-carried floats (trial 8
// r315a), active or constant.
#[grad]
fn rotated(pt: (f64, f64), k: f64) -> f64 {
    let (mut x, mut y) = pt;
    for _ in 0..3 {
        let nx = k * x - y;
        y = k * y + x;
        x = nx;
    }
    x + y
}

#[grad(wrt(k))]
fn rotated_from(pt: (f64, f64), k: f64) -> f64 {
    let (px, py) = pt;
    let (mut x, mut y) = (px, py);
    for _ in 0..3 {
        let nx = k * x - y;
        y = k * y + x;
        x = nx;
    }
    x + y
}

#[test]
fn a_tuple_parameter_destructured_before_a_loop() {
    let h = 1e-6;
    for (p, k) in [((1.0, 0.5), 0.7), ((-2.0, 0.25), 1.3), ((0.5, -1.5), -0.4)] {
        let (v, (dx, dy), dk) = rotated_grad(p, k);
        assert_eq!(v, rotated(p, k));
        // Linear in the point: the gradient is rotated's value at (1, 0)
        // and at (0, 1).
        assert_relative_eq!(dx, rotated((1.0, 0.0), k), max_relative = 1e-12);
        assert_relative_eq!(dy, rotated((0.0, 1.0), k), max_relative = 1e-12);
        let fd = (rotated(p, k + h) - rotated(p, k - h)) / (2.0 * h);
        assert_relative_eq!(dk, fd, max_relative = 1e-6, epsilon = 1e-8);
        let (v2, dk2) = rotated_from_grad(p, k);
        assert_eq!((v2, dk2), (v, dk));
    }
}

// `break 'scan v` with a value out of an inner loop (trial 8 r313a/b),
// also as a `match` arm's value and beside `continue 'scan`.
// Clippy sees the outer `loop` run once (it does: the loop stands for a
// search, as users write one).
#[allow(clippy::never_loop)]
#[grad]
fn first_crossing(a: f64) -> f64 {
    let r = 'scan: loop {
        for i in 1..10 {
            let v = a * i as f64;
            if v > 1.0 {
                break 'scan v;
            }
        }
        break a;
    };
    r * r
}

#[grad]
fn before_crossing(a: f64, b: f64) -> f64 {
    let mut prev = b;
    let mut tries = 0;
    let r = 'scan: loop {
        tries += 1;
        for i in 1..10 {
            let v = a * i as f64 + prev * 0.125;
            match (v > 1.0, tries) {
                (true, 1) => continue 'scan,
                (true, _) => break 'scan prev * b,
                _ => {}
            }
            prev = v;
        }
        break prev;
    };
    r * r + b
}

#[test]
fn a_valued_labelled_break_out_of_an_inner_loop() {
    let h = 1e-6;
    for a in [0.3, 0.05, 0.45, 2.0] {
        let (v, d) = first_crossing_grad(a);
        assert_eq!(v, first_crossing(a));
        let fd = (first_crossing(a + h) - first_crossing(a - h)) / (2.0 * h);
        assert_relative_eq!(d, fd, max_relative = 1e-6, epsilon = 1e-8);
    }
    // a = 0.3: i = 4 crosses first, r = 1.2.
    assert_eq!(first_crossing_grad(0.3), (1.44, 2.0 * 1.2 * 4.0));
    for (a, b) in [(0.3, 0.5), (0.05, 0.25), (0.45, -0.5)] {
        let (v, da, db) = before_crossing_grad(a, b);
        assert_eq!(v, before_crossing(a, b));
        let fa = (before_crossing(a + h, b) - before_crossing(a - h, b)) / (2.0 * h);
        let fb = (before_crossing(a, b + h) - before_crossing(a, b - h)) / (2.0 * h);
        assert_relative_eq!(da, fa, max_relative = 1e-6, epsilon = 1e-8);
        assert_relative_eq!(db, fb, max_relative = 1e-6, epsilon = 1e-8);
    }
}

// The rewrite the refusal of an `Option` as a loop's state asks for (ui
// `option_state`): the value in a float, whether there is one in a flag.
#[grad]
fn total_variation(xs: &[f64]) -> f64 {
    let mut last = 0.0;
    let mut seen = false;
    let mut s = 0.0;
    for &x in xs {
        if seen {
            s += (x - last).abs();
        }
        last = x;
        seen = true;
    }
    s
}

#[test]
fn an_optional_previous_value_as_a_float_and_a_flag() {
    let (v, d) = total_variation_grad(&[1.0, 2.0, 0.5, 0.75]);
    assert_eq!(v, 1.0 + 1.5 + 0.25);
    assert_eq!(d, vec![-1.0, 2.0, -2.0, 1.0]);
}

// The rewrite the refusal of a popped stack asks for (ui `vec_popped`).
#[grad]
fn unwound(x: &[f64], w: f64) -> f64 {
    let mut st: Vec<f64> = Vec::new();
    for &t in x {
        st.push(t * w);
    }
    let mut s = 0.0;
    for k in (0..st.len()).rev() {
        let v = st[k];
        s = s * 0.5 + v;
    }
    s
}

#[test]
fn a_stack_read_by_index_from_the_top() {
    // 3w, then 1.5w + 2w, then 1.75w + w.
    assert_eq!(
        unwound_grad(&[1.0, 2.0, 3.0], 0.5),
        (1.375, vec![0.5, 0.25, 0.125], 2.75)
    );
}

/// A `loop` that ends the function and leaves it only by `return` (trial
/// 12 r1056, r1057: refused as a `return` before the last statement).
#[grad(jvp)]
fn returns_from_its_tail_loop(x: f64, n: usize) -> f64 {
    let mut x = x;
    let mut i = 0;
    loop {
        if i >= n {
            return x;
        }
        x = x * 0.9 + 0.1 * x.sin();
        i += 1;
    }
}

#[test]
fn a_tail_loop_left_by_return() {
    for x0 in [0.3, 2.0, -1.1] {
        let (v, d) = returns_from_its_tail_loop_grad(x0, 5);
        assert_eq!(v, returns_from_its_tail_loop(x0, 5));
        // The chain rule over the five steps, by hand.
        let (mut x, mut dx) = (x0, 1.0);
        for _ in 0..5 {
            dx *= 0.9 + 0.1 * x.cos();
            x = x * 0.9 + 0.1 * x.sin();
        }
        assert!((d - dx).abs() < 1e-14, "{d} {dx}");
        let (vj, t) = returns_from_its_tail_loop_jvp(x0, 5, 2.0);
        assert_eq!(vj, v);
        assert!((t - 2.0 * d).abs() < 1e-14);
    }
}
