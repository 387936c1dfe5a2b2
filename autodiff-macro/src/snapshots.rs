//! Expansion snapshots: a set of functions whose expansions are checked in
//! (`src/snapshots/*.snap`), so that every change to generated code shows
//! in review. After an intended change, `INSTA_UPDATE=always cargo test -p
//! autodiff-macro snapshots` rewrites them (or `cargo insta review`).

use proc_macro2::TokenStream;

fn expanded(attr: TokenStream, item: TokenStream) -> String {
    let tokens = crate::expand::expand(attr, item);
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as items");
    prettyplease::unparse(&file)
}

macro_rules! snapshot {
    ($name:ident, #[grad$(($($attr:tt)*))?] $($item:tt)*) => {
        #[test]
        fn $name() {
            let text = expanded(quote::quote!($($($attr)*)?), quote::quote!($($item)*));
            insta::assert_snapshot!(stringify!($name), text);
        }
    };
}

snapshot!(
    straight_line,
    #[grad]
    fn f(x1: f64, x2: f64) -> f64 {
        (x1 - x2).powi(2) + (x1 + x2).cos()
    }
);

snapshot!(
    branch,
    #[grad]
    fn f(x: f64, y: f64) -> f64 {
        let z = if x > y { x * y } else { x.sin() };
        z * 2.0
    }
);

snapshot!(
    loop_that_records,
    #[grad]
    fn f(x: f64, a: f64, n: usize) -> f64 {
        let mut s = x;
        for _ in 0..n {
            s = s * a;
        }
        s
    }
);

snapshot!(
    array,
    #[grad]
    fn f(w: &[f64], xs: &[f64]) -> f64 {
        let mut z = vec![0.0; w.len()];
        for i in 0..w.len() {
            z[i] = w[i] * xs[i];
        }
        let mut s = 0.0;
        for i in 0..z.len() {
            s += z[i].tanh();
        }
        s
    }
);

snapshot!(
    call,
    #[grad]
    fn f(x: f64, y: f64) -> f64 {
        helper(x, 2.0) * y
    }
);

snapshot!(
    call_returning_an_array,
    #[grad]
    fn f(a: [f64; 3], b: [f64; 3], k: usize) -> f64 {
        let d = sub(&a, &b, k);
        d[0] * d[1] + d[2]
    }
);

snapshot!(
    vector_output,
    #[grad]
    fn f(x: f64, y: f64) -> (f64, f64) {
        (x * y, x + y.exp())
    }
);

snapshot!(
    constant_struct_field_in_loop,
    #[grad]
    fn f(p: &Settings, xs: &[f64]) -> f64 {
        let mut s = 0.0;
        for &x in xs {
            s += p.w * x;
        }
        s
    }
);

snapshot!(
    differentiable_struct,
    #[grad(wrt(m, x))]
    fn f(m: &Model, x: f64) -> f64 {
        let mut s = m.scale * x;
        for i in 0..m.w.len() {
            s += m.w[i] * x;
        }
        s
    }
);

snapshot!(
    derivative_recorded_with_its_value,
    #[grad]
    fn ring(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += (x[i] * x[i + 1]).sin();
        }
        s
    }
);

snapshot!(
    adjoint_element_in_a_register,
    #[grad]
    fn f(w: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            for j in 0..x.len() {
                s += w[i] * x[j];
            }
        }
        s
    }
);

snapshot!(
    increment_in_place,
    #[grad(wrt(x, l))]
    fn f(x: &[f64], l: &[f64]) -> f64 {
        let d = x.len();
        let mut q = vec![0.0; d];
        let mut k = 0;
        for i in 0..d {
            for j in i + 1..d {
                q[j] += l[k] * x[i];
                k += 1;
            }
        }
        let mut s = 0.0;
        for j in 0..d {
            s += q[j] * q[j];
        }
        s
    }
);

snapshot!(
    trace,
    #[grad(trace)]
    fn f(xs: &[f64], a: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            if xs[i] > 0.0 {
                s += xs[i] * a;
            } else {
                s += a.sin();
            }
        }
        s
    }
);

// A scratch vector recorded whole: made in a buffer each iteration gives
// back (`refilled`), its elements copied onto a slab and its length into
// the loop's entry; the first attempt reads it as a slice of the slab
// (`read_slice`), the guarded sweep pops the same slice (`pop_slice`).
snapshot!(
    first_try_replays_a_scratch_vector,
    #[grad]
    fn f(x: &[f64], k: usize) -> f64 {
        let mut total = 0.0;
        for j in 0..k {
            let mut v = vec![0.0; x.len()];
            for i in 0..x.len() {
                v[i] = x[i] * (j as f64 + 1.0);
            }
            let mut acc = 0.0;
            for vi in &v {
                acc += vi * vi;
            }
            total += acc;
        }
        total
    }
);
