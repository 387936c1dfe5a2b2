//! Code that does not carry a derivative is copied as written: branches,
//! loops, closures, vectors, strings and parameters of other types, next to
//! the active computation. Each test checks the value against the plain
//! function and the gradient against its closed form.

#![deny(warnings)]

use approx::assert_relative_eq;
use autodiff::grad;

/// Settings passed by reference: an inactive parameter whose fields are
/// read as constants.
pub struct Settings {
    pub scale: f64,
    pub power: i32,
}

#[grad]
fn with_settings(x: f64, settings: &Settings, label: &str, extra: Option<f64>) -> f64 {
    let bonus = extra.unwrap_or(0.0);
    assert!(!label.is_empty(), "a label is required");
    settings.scale * x.powi(settings.power) + bonus
}

#[test]
fn other_parameter_types_are_constants() {
    let s = Settings {
        scale: 1.5,
        power: 3,
    };
    let (v, dx) = with_settings_grad(2.0, &s, "cubic", Some(0.25));
    assert_eq!(v, with_settings(2.0, &s, "cubic", Some(0.25)));
    assert_eq!(v, 1.5 * 8.0 + 0.25);
    assert_eq!(dx, 1.5 * 3.0 * 4.0);
}

#[grad]
fn inactive_control_flow(x: f64, n: usize) -> f64 {
    // A branch, a loop, a closure and a vector, none of them on the active
    // path: they compute constants.
    let weight = if n > 2 { 0.5 } else { 2.0 };
    let mut table = Vec::with_capacity(n);
    for i in 0..n {
        table.push((i as f64).sqrt());
    }
    let total: f64 = table.iter().map(|t| t * 2.0).sum();
    let kind = match n % 3 {
        0 => "zero",
        1 => "one",
        _ => "two",
    };
    let tag = format!("{kind}-{n}");
    debug_assert!(!tag.is_empty());
    (x * weight).sin() * total + table.len() as f64 * x
}

#[test]
fn inactive_branches_loops_and_closures_run_as_written() {
    for (x, n) in [(0.3, 1usize), (1.7, 4), (-2.0, 6)] {
        let (v, dx) = inactive_control_flow_grad(x, n);
        assert_eq!(v, inactive_control_flow(x, n));
        let weight = if n > 2 { 0.5 } else { 2.0 };
        let total: f64 = (0..n).map(|i| (i as f64).sqrt() * 2.0).sum();
        assert_relative_eq!(
            dx,
            weight * (x * weight).cos() * total + n as f64,
            max_relative = 1e-15
        );
    }
}

// Late initialisation is what this function tests; the lint attribute is
// copied onto the generated function too.
#[grad]
#[allow(clippy::needless_late_init)]
fn assigned_later(x: f64, y: f32) -> f64 {
    let a: f64;
    let b;
    a = x * 3.0;
    b = f64::from(y) * a;
    // Shadowed and reassigned values printed by a macro: the macro sees the
    // values the names hold at that point.
    let mut s = a + b;
    s *= 2.0;
    let line = format!("{s} {a} {b}");
    s -= line.len() as f64 * 0.0;
    s
}

#[test]
fn deferred_initialisation_and_f32_to_f64() {
    let (v, dx, dy) = assigned_later_grad(1.5, 2.0);
    assert_eq!(v, assigned_later(1.5, 2.0));
    // s = 2 (3x + y·3x) = 6x (1 + y).
    assert_eq!(dx, 6.0 * (1.0 + 2.0));
    assert_eq!(dy, 6.0 * 1.5_f32);
}

#[grad]
fn block_with_local_items(x: f64) -> f64 {
    let y = {
        const HALF: f64 = 0.5;
        let names = ["a", "b"];
        let t = x * HALF;
        t * names.len() as f64
    };
    // `names` and `t` are local to the block above; these are new.
    let names = 3.0;
    let t = y + names;
    t * x
}

#[test]
fn blocks_keep_their_own_bindings() {
    // y = x, t = x + 3, f = (x + 3) x, f' = 2x + 3.
    let (v, dx) = block_with_local_items_grad(2.0);
    assert_eq!(v, block_with_local_items(2.0));
    assert_eq!((v, dx), (10.0, 7.0));
}

macro_rules! quadratic {
    ($name:ident, $a:expr) => {
        #[grad]
        fn $name(x: f64, y: f64) -> f64 {
            let g0 = x * y;
            let d_g0 = g0 * $a;
            d_g0 + x
        }
    };
}

quadratic!(made_by_macro, 3.0);

#[test]
fn functions_written_by_macro_rules() {
    // User names that look generated (`g0`, `d_g0`) keep working.
    let (v, dx, dy) = made_by_macro_grad(2.0, 5.0);
    assert_eq!(v, made_by_macro(2.0, 5.0));
    assert_eq!((v, dx, dy), (32.0, 16.0, 6.0));
}

// A method of a non-`Copy` `static` called in a loop: on the static in
// place (a copy bound in the loop would move out of it).
struct Table {
    ws: [f64; 3],
}

impl Table {
    fn get(&self, i: usize) -> f64 {
        self.ws[i]
    }
}

static TABLE: Table = Table {
    ws: [1.0, 2.0, 3.0],
};

#[grad]
fn weighted_by_table(x: f64) -> f64 {
    let mut t = 0.0;
    for i in 0..3 {
        t += x * TABLE.get(i);
    }
    t
}

#[test]
fn a_static_method_in_a_loop() {
    let (v, dx) = weighted_by_table_grad(2.0);
    assert_eq!(v, 12.0);
    assert_eq!(dx, 6.0);
}

/// Integer reductions of chains, an untyped `Vec` of `String`s, cells of
/// constants and a `let` a macro of the user's binds to a constant (trial
/// 5 r79, r80, r78d, r78h: each failed inside the expansion, the
/// integers summed into a float accumulator, the strings moved out of
/// their `Vec`, the struct holding the cell split into its fields).
macro_rules! let_const {
    ($n:ident, $v:expr) => {
        let $n = $v;
    };
}

pub struct Memo {
    pub last: std::cell::Cell<f64>,
}

fn remember(m: &Memo, v: f64) {
    m.last.set(v);
}

#[grad]
#[allow(clippy::useless_vec)]
fn integer_reductions(a: f64, sizes: &[usize]) -> f64 {
    let squares = (0..4usize).map(|i| i * i).sum::<usize>();
    let total: usize = sizes.iter().sum();
    let product = sizes.iter().product::<usize>();
    let names = vec![String::from("ab"), String::from("abc")];
    let mut letters = 0.0;
    for n in &names {
        letters += n.len() as f64;
    }
    let lengths = names.iter().map(|n| n.len()).sum::<usize>() as f64;
    let cells = vec![std::cell::Cell::new(4.0), std::cell::Cell::new(1.0)];
    let in_cells: f64 = cells.iter().map(|c| c.get()).sum();
    let m = Memo {
        last: std::cell::Cell::new(0.0),
    };
    remember(&m, 5.0);
    let_const!(k, 0.5);
    (squares + total + product) as f64 * a
        + (letters + lengths) * a * a
        + in_cells * m.last.get() * k * a
}

#[test]
fn integer_reductions_strings_and_cells_of_constants() {
    let sizes = [2usize, 3, 4];
    // (14 + 9 + 24) a + 10 a² + 12.5 a
    let (v, d) = integer_reductions_grad(1.5, &sizes);
    assert_eq!(v, integer_reductions(1.5, &sizes));
    assert_relative_eq!(
        v,
        47.0 * 1.5 + 10.0 * 2.25 + 12.5 * 1.5,
        max_relative = 1e-15
    );
    assert_relative_eq!(d, 47.0 + 20.0 * 1.5 + 12.5, max_relative = 1e-15);
}

/// A macro of the user's given a `#[grad]` function's name, the function
/// called after it: the name stays the function's (a name a statement
/// macro binds is a value only where the body reads it as a variable).
macro_rules! shown {
    ($f:ident, $v:expr) => {
        let _ = format!("{}", $f($v));
    };
}

#[grad]
fn squared(x: f64) -> f64 {
    x * x
}

#[grad]
fn after_a_macro_naming_it(x: f64) -> f64 {
    shown!(squared, 2.0);
    squared(x) * 3.0
}

#[test]
fn a_function_named_in_a_macro_is_still_called() {
    assert_eq!(after_a_macro_naming_it_grad(1.5), (6.75, 9.0));
}
