//! References to local variables: `let r = &x;` read through `*r`, `r[i]`
//! and `r.len()`, and `let p = &mut s;` changed through `*p += ..`, are
//! the variables they borrow, and so are references to elements, `let e =
//! &mut v[i];`. Exact values.

// Users index sub-slices in range loops; so do these tests.
#![allow(clippy::needless_range_loop)]

use approx::assert_relative_eq;
use autodiff::grad;

#[grad]
fn shared(x: f64, ys: &[f64]) -> f64 {
    let r = &x;
    let v = &ys;
    let mut s = 0.0;
    for i in 0..v.len() {
        s += *r * v[i];
    }
    s + x * *r
}

#[test]
fn a_shared_reference_is_its_variable() {
    let (v, dx, dys) = shared_grad(3.0, &[1.0, 2.0]);
    assert_eq!(v, 9.0 + 9.0);
    assert_eq!(dx, 3.0 + 6.0);
    assert_eq!(dys, vec![3.0, 3.0]);
}

#[grad]
fn through_mut(x: f64) -> f64 {
    let mut s = 1.0;
    {
        let p = &mut s;
        *p += x * x;
        *p *= 2.0;
    }
    let q = &mut s;
    *q -= x;
    s * x
}

#[test]
fn a_mutable_reference_changes_its_variable() {
    // s = 2(1 + x²) − x, f = s·x
    let x = 1.5;
    let (v, d) = through_mut_grad(x);
    assert_eq!(v, (2.0 * (1.0 + x * x) - x) * x);
    assert_eq!(d, 2.0 + 6.0 * x * x - 2.0 * x);
}

/// References to elements, `let e = &mut v[i];` and `let r = &x[i];`, as
/// the elements, in a loop whose index names the element.
#[grad]
fn through_element_references(x: &[f64], k: f64) -> f64 {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        let e = &mut v[i];
        *e += x[i] * k;
        *e += e.sin();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        let r = &x[i];
        s += *r * *r + v[i];
    }
    s
}

#[test]
fn element_references_are_the_elements() {
    // v_i = sin(k x_i) + k x_i; s = Σ x_i² + v_i.
    let (x, k) = ([1.0, 2.0, -0.5], 0.5);
    let (s, dx, dk) = through_element_references_grad(&x, k);
    assert_eq!(s, through_element_references(&x, k));
    for i in 0..3 {
        let want = 2.0 * x[i] + k * ((k * x[i]).cos() + 1.0);
        assert_relative_eq!(dx[i], want, max_relative = 1e-15);
    }
    let want: f64 = x.iter().map(|xi| xi * ((k * xi).cos() + 1.0)).sum();
    assert_relative_eq!(dk, want, max_relative = 1e-15);
}

/// A reference to an element at a literal index (the macro failed on it:
/// "internal error").
#[grad]
fn first_by_reference(x: &[f64], k: f64) -> f64 {
    let r = &x[0];
    *r * k
}

#[test]
fn a_reference_to_an_element_at_a_literal_index() {
    assert_eq!(
        first_by_reference_grad(&[2.0, 3.0], 0.5),
        (1.0, vec![0.5, 0.0], 2.0)
    );
}

/// A shared reference to a float used as the float (`&f64`'s operators
/// and methods): `r * y`, `r.sin()`, `y / r`.
#[grad]
fn reference_read_as_the_float(x: f64, y: f64) -> f64 {
    let r = &x;
    r * y + r.sin() + y / r
}

#[test]
fn a_reference_is_read_as_its_float() {
    for (x, y) in [(1.0, 2.0), (-0.7, 0.3), (2.5, -1.5)] {
        let (v, dx, dy) = reference_read_as_the_float_grad(x, y);
        assert_eq!(v, x * y + x.sin() + y / x);
        assert_relative_eq!(dx, y + x.cos() - y / (x * x), max_relative = 1e-14);
        assert_relative_eq!(dy, x + 1.0 / x, max_relative = 1e-14);
    }
}

#[grad]
fn cube(h: f64) -> f64 {
    h * h * h
}

/// A reference to a float a call returned, its type not stated (`let a =
/// cube(x);`): refused before as code the macro does not follow (difftest
/// `ref_opaque`, seed 2024).
#[grad]
fn reference_to_a_call_result(x: f64, y: f64) -> f64 {
    let a = cube(x);
    let r = &a;
    r * y + 2.0 * r - y / r
}

#[test]
fn a_reference_to_an_untyped_call_result_is_read_as_its_float() {
    for (x, y) in [(1.0, 2.0), (-0.7, 0.3), (2.5, -1.5)] {
        let (v, dx, dy) = reference_to_a_call_result_grad(x, y);
        let a = x * x * x;
        assert_eq!(v, a * y + 2.0 * a - y / a);
        let da = 3.0 * x * x;
        assert_relative_eq!(dx, (y + 2.0 + y / (a * a)) * da, max_relative = 1e-14);
        assert_relative_eq!(dy, a - 1.0 / a, max_relative = 1e-14);
    }
}

/// A reference read after the float it borrows is shadowed: `r` is the
/// old `x` (refused before as a value of a type #[grad] does not model;
/// difftest `ref_shadowed`, seed 2024).
#[grad]
fn reference_to_a_shadowed_float(x: f64, y: f64) -> f64 {
    let r = &x;
    let x = x + r.atan() * y;
    let s = *r * 2.0;
    r * x + s
}

#[test]
fn a_reference_outlives_the_shadowing_of_its_float() {
    for (x, y) in [(0.7, 1.3), (-1.1, 0.4), (2.0, -0.6)] {
        let (v, dx, dy) = reference_to_a_shadowed_float_grad(x, y);
        let x1 = x + x.atan() * y;
        assert_eq!(v, x * x1 + x * 2.0);
        // v = x (x + atan(x) y) + 2x
        let dx1 = 1.0 + y / (1.0 + x * x);
        assert_relative_eq!(dx, x1 + x * dx1 + 2.0, max_relative = 1e-14);
        assert_relative_eq!(dy, x * x.atan(), max_relative = 1e-14);
    }
}

/// Named sub-slices of a parameter (`let tail = &xs[1..];`, `&xs[..2]`),
/// read by index, by `len`, by loops and chains over them and given to a
/// kernel: each read through the array it views.
#[grad]
fn sub_slices(x: f64, y: f64, xs: &[f64]) -> f64 {
    let tail = &xs[1..];
    let head = &xs[..2];
    let mut s = 0.0;
    for t in tail {
        s += t * x;
    }
    for i in 0..head.len() {
        s += head[i] * y;
    }
    s + tail.iter().product::<f64>() + autodiff::dot(head, &xs[1..3])
}

#[test]
fn named_sub_slices_are_read_through_their_arrays() {
    let xs = [0.5, 2.0, -1.5, 3.0];
    let (v, dx, dy, dxs) = sub_slices_grad(0.7, 1.3, &xs);
    let tail_sum = 2.0 - 1.5 + 3.0;
    let product = 2.0 * -1.5 * 3.0;
    assert_relative_eq!(
        v,
        tail_sum * 0.7 + 2.5 * 1.3 + product + (0.5 * 2.0 + 2.0 * -1.5),
        max_relative = 1e-14
    );
    assert_relative_eq!(dx, tail_sum, max_relative = 1e-15);
    assert_relative_eq!(dy, 2.5, max_relative = 1e-15);
    // d/dxs: [y + xs[1], x + y + (-1.5 · 3) + xs[0] + xs[2], x + 2 · 3 + xs[1], x + 2 · -1.5].
    let expected = [
        1.3 + 2.0,
        0.7 + 1.3 - 4.5 + 0.5 - 1.5,
        0.7 + 6.0 + 2.0,
        0.7 - 3.0,
    ];
    for (d, e) in dxs.iter().zip(expected) {
        assert_relative_eq!(*d, e, max_relative = 1e-14);
    }
}

#[grad]
fn past_the_end(xs: &[f64]) -> f64 {
    let tail = &xs[3..];
    tail.len() as f64 * xs[0]
}

#[test]
#[should_panic(expected = "range start index 3 out of range for slice of length 2")]
fn a_sub_slice_out_of_range_panics_as_rust_does() {
    let _ = past_the_end_grad(&[1.0, 2.0]);
}

// ---- references to parts of a struct ----------------------------------

#[derive(Clone, autodiff::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, autodiff::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

#[grad(wrt(l, x))]
fn neuron(l: &Layer, x: &[f64]) -> f64 {
    l.b + l.w[0] * x[0]
}

/// `let first = &net.layers[0];` of a differentiated struct, passed on to
/// a call: the part itself, lent (`neuron(&net.layers[0], x)`). (It was
/// refused, with a message asking for that spelling.)
#[grad(wrt(net, x))]
fn net_out(net: &Net, x: &[f64]) -> f64 {
    let first = &net.layers[0];
    let second = &net.layers[1];
    neuron(first, x) * neuron(second, x) + second.b
}

struct Rows {
    xs: Vec<Vec<f64>>,
}

/// `let row = &data.xs[i];` of a constant struct, walked by a chain, by a
/// `for` loop and indexed. (The chain was refused as "used otherwise", the
/// loop as an iterator not bound.)
#[grad(wrt(w))]
fn row_products(w: &[f64], data: &Rows) -> f64 {
    let mut total = 0.0;
    for i in 0..data.xs.len() {
        let row = &data.xs[i];
        total += row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
        for (a, b) in row.iter().zip(w) {
            total += a * b * b;
        }
        total += row[1] * w[0];
    }
    total
}

#[test]
fn references_to_parts_of_structs_are_the_parts() {
    let net = Net {
        layers: vec![
            Layer {
                w: vec![2.0],
                b: 0.5,
            },
            Layer {
                w: vec![-1.0],
                b: 0.25,
            },
        ],
    };
    // (0.5 + 2x)(0.25 − x) + 0.25 at x = 3: 6.5 · −2.75 + 0.25.
    let (v, g, gx) = net_out_grad(&net, &[3.0]);
    assert_eq!(v, net_out(&net, &[3.0]));
    assert_eq!(v, 6.5 * -2.75 + 0.25);
    assert_eq!((g.layers[0].w[0], g.layers[0].b), (3.0 * -2.75, -2.75));
    assert_eq!((g.layers[1].w[0], g.layers[1].b), (3.0 * 6.5, 6.5 + 1.0));
    assert_eq!(gx[0], 2.0 * -2.75 - 6.5);

    let data = Rows {
        xs: vec![vec![3.0, 4.0], vec![-1.0, 0.5]],
    };
    let w = [1.0, 2.0];
    let (v, g) = row_products_grad(&w, &data);
    assert_eq!(v, row_products(&w, &data));
    // Σ_rows: r·w + Σ r_k w_k² + r_1 w_0.
    let mut want = [0.0, 0.0];
    for r in &data.xs {
        want[0] += r[0] + 2.0 * r[0] * w[0] + r[1];
        want[1] += r[1] + 2.0 * r[1] * w[1];
    }
    assert_relative_eq!(g[0], want[0], max_relative = 1e-15);
    assert_relative_eq!(g[1], want[1], max_relative = 1e-15);
}

/// A reference read as its float after `*` that multiplies, inside a
/// macro (`vec![1.0, 2.0 * r]`): the `*` was taken for a dereference and
/// dropped, `2.0 (x)`, which rustc read as a call (E0618 inside the
/// expansion).
#[grad]
#[allow(clippy::useless_vec)] // a `vec!`, the macro under test
fn product_in_a_macro(x: f64, k: f64) -> f64 {
    let r = &x;
    let v = vec![1.0, 2.0 * r, k * r, *r + 1.0];
    assert!(v.len() == 4, "{}", k * r);
    v[1] * v[2] + v[3]
}

#[test]
fn a_reference_multiplied_inside_a_macro() {
    let (x, k) = (0.5, 3.0);
    let (v, dx, dk) = product_in_a_macro_grad(x, k);
    assert_eq!(v, 2.0 * k * x * x + x + 1.0);
    assert_eq!((dx, dk), (4.0 * k * x + 1.0, 2.0 * x * x));
}

#[grad]
fn halved(x: f64) -> f64 {
    x * 0.5
}

/// A reference to a call's result (a type #[grad] does not see) beside
/// another such result: read as the float, as the two without the
/// reference are. (It was refused as an expression #[grad] cannot
/// differentiate through, at the attribute; difftest seed 11 program 275.)
#[grad]
fn reference_beside_a_result(x: f64) -> f64 {
    let a = halved(x);
    let b = halved(x * x);
    let r = &a;
    r - b + r * b
}

#[test]
fn a_reference_to_a_result_beside_another() {
    let x = 1.5;
    let (v, d) = reference_beside_a_result_grad(x);
    // x/2 - x²/2 + x³/4.
    assert_eq!(v, reference_beside_a_result(x));
    assert_relative_eq!(
        v,
        0.5 * x - 0.5 * x * x + 0.25 * x * x * x,
        max_relative = 1e-15
    );
    assert_relative_eq!(d, 0.5 - x + 0.75 * x * x, max_relative = 1e-15);
}

/// References whose names a later loop, closure or block binds again: the
/// reference is the element up to there, and the other variable is
/// itself. (The loop's `*e` was read as `v[0]` on every iteration, a WRONG
/// VALUE AND GRADIENT: 7 and (7, 0) where 10 and (4, 3) are right.)
#[grad]
#[allow(clippy::useless_vec)] // a `Vec`, as users write it
fn names_bound_again(x: f64, y: f64) -> f64 {
    let v = vec![x, y];
    let e = &v[0];
    let mut s = *e;
    for e in v.iter() {
        s += *e * 3.0;
    }
    let r = &v[1];
    let t = *r * 2.0;
    let z = {
        let r = v[0] * 3.0;
        r + 1.0
    };
    let c = |r: f64| r * 5.0;
    let w: f64 = v.iter().map(|r| r * 7.0).sum();
    let q = &x;
    let b = {
        let q = 4.0;
        q * x
    };
    s + t + z + c(x) + w + b + q * 1.0
}

#[test]
fn references_whose_names_are_bound_again() {
    let (x, y) = (1.0, 2.0);
    let (v, dx, dy) = names_bound_again_grad(x, y);
    // s = x + 3(x + y), t = 2y, z = 3x + 1, 5x, w = 7(x + y), b = 4x, x.
    assert_eq!(v, names_bound_again(x, y));
    assert_eq!(
        v,
        4.0 * x + 3.0 * y + 2.0 * y + 3.0 * x + 1.0 + 5.0 * x + 7.0 * (x + y) + 4.0 * x + x
    );
    assert_eq!(
        (dx, dy),
        (4.0 + 3.0 + 5.0 + 7.0 + 4.0 + 1.0, 3.0 + 2.0 + 7.0)
    );
}

/// A reference's name as text in a format string (`"r = {}"`), which
/// names nothing: the reference is still the float in every macro. (The
/// text was taken for a use of `r` in the string, the reference left as
/// written, and `*r` in `assert!` failed to compile: E0614.)
#[grad]
fn named_in_text(x: f64) -> f64 {
    let r = &x;
    assert!(*r > -100.0, "r = {}", 2.0 * r);
    r.exp()
}

#[test]
fn a_reference_named_in_a_format_strings_text() {
    let (v, d) = named_in_text_grad(1.5);
    assert_eq!((v, d), (1.5_f64.exp(), 1.5_f64.exp()));
}

/// An array chosen by a branch and then read, as slices and as
/// references to arrays, in a loop, with `len` and a nested index.
#[grad]
fn chosen_slices(a: &[f64], b: &[f64], c: bool) -> f64 {
    let fin = if c { a } else { b };
    let mut s = 0.0;
    for i in 0..fin.len() {
        s += fin[i] * fin[i];
    }
    s + fin[0] * fin[fin.len() - 1]
}

#[grad]
fn chosen_arrays(p: [f64; 2], q: [f64; 2], m: [[f64; 2]; 2], n: [[f64; 2]; 2], flip: bool) -> f64 {
    let v = if flip { &q } else { &p };
    let rows = if flip { &m } else { &n };
    let mut flip = flip;
    flip = !flip;
    // The choice was made before `flip` changed.
    v[0] * v[1] + rows[1][0] * if flip { 1.0 } else { 2.0 }
}

#[test]
fn an_array_chosen_by_a_branch_is_read_through_the_choice() {
    let (a, b) = ([1.5, -2.0, 0.5], [3.0, 0.25]);
    let (v, da, db) = chosen_slices_grad(&a, &b, true);
    assert_eq!(v, chosen_slices(&a, &b, true));
    assert_eq!(da, vec![2.0 * 1.5 + 0.5, -4.0, 1.0 + 1.5]);
    assert_eq!(db, vec![0.0, 0.0]);
    let (v, da, db) = chosen_slices_grad(&a, &b, false);
    assert_eq!(v, 9.0 + 0.0625 + 0.75);
    assert_eq!(da, vec![0.0, 0.0, 0.0]);
    assert_eq!(db, vec![6.0 + 0.25, 0.5 + 3.0]);

    let (p, q) = ([2.0, 3.0], [5.0, 7.0]);
    let (m, n) = ([[1.0, 2.0], [4.0, 8.0]], [[9.0, 9.0], [3.0, 9.0]]);
    let zero = [[0.0; 2]; 2];
    // flip: q and m chosen, then flip is false: the row read is weighted 2.
    let (v, dp, dq, dm, dn) = chosen_arrays_grad(p, q, m, n, true);
    assert_eq!(v, 35.0 + 8.0);
    assert_eq!((dp, dq), ([0.0, 0.0], [7.0, 5.0]));
    assert_eq!((dm, dn), ([[0.0, 0.0], [2.0, 0.0]], zero));
    let (v, dp, dq, dm, dn) = chosen_arrays_grad(p, q, m, n, false);
    assert_eq!(v, 6.0 + 3.0);
    assert_eq!((dp, dq), ([3.0, 2.0], [0.0, 0.0]));
    assert_eq!((dm, dn), (zero, [[0.0, 0.0], [1.0, 0.0]]));
}

/// Chains and loops over an array chosen by a branch (trial 7 r177), by
/// reference and by value (a `Vec` moved into the choice).
#[grad]
fn chosen_walked(x: &[f64], y: &[f64], w: f64) -> f64 {
    let v = if w > 0.0 { x } else { y };
    let mut s = 0.0;
    for (i, t) in v.iter().enumerate() {
        s += t * w * (i as f64 + 1.0) + v[0];
    }
    for &t in v {
        s += t.sin();
    }
    s + v.iter().map(|u| u * u).sum::<f64>()
}

#[grad]
fn chosen_vec(x: &[f64], w: f64) -> f64 {
    let a: Vec<f64> = x.iter().map(|t| t * w).collect();
    let b = vec![w; x.len()];
    let v = if w > 0.0 { a } else { b };
    v.iter().sum::<f64>()
}

#[test]
fn a_chain_and_a_loop_over_an_array_chosen_by_a_branch() {
    let (x, y) = ([1.0, 2.0], [3.0, 4.0, -0.5]);
    for w in [0.5, -0.5, 2.0] {
        let (v, dx, dy, dw) = chosen_walked_grad(&x, &y, w);
        assert_eq!(v, chosen_walked(&x, &y, w));
        let (chosen, other) = if w > 0.0 {
            (&x[..], &y[..])
        } else {
            (&y[..], &x[..])
        };
        // d/dt_i: w (i + 1) + cos t_i + 2 t_i, and n for t_0 (v[0] in
        // each of the n iterations); d/dw: Σ t_i (i + 1).
        let n = chosen.len() as f64;
        let mut want: Vec<f64> = chosen
            .iter()
            .enumerate()
            .map(|(i, t)| w * (i as f64 + 1.0) + t.cos() + 2.0 * t)
            .collect();
        want[0] += n;
        let (d_chosen, d_other) = if w > 0.0 { (&dx, &dy) } else { (&dy, &dx) };
        for (g, e) in d_chosen.iter().zip(&want) {
            assert_relative_eq!(*g, *e, max_relative = 1e-15);
        }
        assert!(d_other.iter().all(|g| *g == 0.0) && d_other.len() == other.len());
        let sw: f64 = chosen
            .iter()
            .enumerate()
            .map(|(i, t)| t * (i as f64 + 1.0))
            .sum();
        assert_relative_eq!(dw, sw, max_relative = 1e-15);
    }
    // w > 0: Σ x_i w; else the copies of w.
    assert_eq!(chosen_vec_grad(&x, 0.5), (1.5, vec![0.5, 0.5], 3.0));
    assert_eq!(chosen_vec_grad(&x, -0.5), (-1.0, vec![0.0, 0.0], 2.0));
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Anchor {
    x: f64,
    y: f64,
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Frame {
    pos: Anchor,
    scale: f64,
    layers: Vec<Anchor>,
}

impl Frame {
    /// A part of `self` borrowed by name and read through its fields
    /// (trial 4 follow-up: `let p = self.pos.clone();` failed inside the
    /// expansion, and `let p = &self.pos;` was refused).
    #[grad(wrt(self))]
    fn spread(&self) -> f64 {
        let p = &self.pos;
        let last = &self.layers[self.layers.len() - 1];
        p.x * p.y * self.scale + last.x * p.x - last.y
    }
}

#[test]
fn a_reference_to_a_part_of_self_is_that_part() {
    let f = Frame {
        pos: Anchor { x: 2.0, y: -3.0 },
        scale: 0.5,
        layers: vec![Anchor { x: 7.0, y: 1.0 }, Anchor { x: -1.5, y: 4.0 }],
    };
    let (v, d) = f.spread_grad();
    assert_eq!(v, 2.0 * -3.0 * 0.5 + -1.5 * 2.0 - 4.0);
    assert_eq!(d.pos.x, -3.0 * 0.5 + -1.5);
    assert_eq!(d.pos.y, 2.0 * 0.5);
    assert_eq!(d.scale, 2.0 * -3.0);
    assert_eq!((d.layers[0].x, d.layers[0].y), (0.0, 0.0));
    assert_eq!((d.layers[1].x, d.layers[1].y), (2.0, -1.0));
}
