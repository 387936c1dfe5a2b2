//! References to local variables: `let r = &x;` read through `*r`, `r[i]`
//! and `r.len()`, and `let p = &mut s;` changed through `*p += ..`, are
//! the variables they borrow, and so are references to elements, `let e =
//! &mut v[i];`. Exact values.

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
