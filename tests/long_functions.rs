//! A straight-line function of 1,500 statements (6,000 Wengert entries):
//! rustc lowers the `let`s of one block recursively, and the generated code
//! used to overflow its stack past about 1,000 statements. The code now
//! declares the values of long functions in chunks. The file is written by
//! a script (the loop in `long_loop` is the same computation).

use approx::assert_relative_eq;
use autodiff::grad;

#[grad]
#[allow(clippy::assign_op_pattern)]
fn long_line(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a = a + 0.01 * b.sin();
    b = b - 0.01 * a.cos();
    a = a * (1.0 + 0.001 * b.tanh());
    b = b / (1.0 + 0.001 * a * a);
    a + b
}

/// The same computation as a loop.
#[grad]
#[allow(clippy::assign_op_pattern)]
fn long_loop(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..375 {
        a = a + 0.01 * b.sin();
        b = b - 0.01 * a.cos();
        a = a * (1.0 + 0.001 * b.tanh());
        b = b / (1.0 + 0.001 * a * a);
    }
    a + b
}

/// A piecewise-linear function as a generator writes it: one `else if`
/// chain of 60 branches. Each arm of the chain is nested in the one
/// before, and the macro used to take time far beyond the square of the
/// chain's length to expand it (40 branches: a minute; 100: more than
/// nine); each branch now costs about the same.
#[grad]
fn piecewise(x: f64) -> f64 {
    if x < 0.0 {
        x * x
    } else if x < 0.1 {
        x * 2.0 + 0.01
    } else if x < 0.2 {
        x * 3.0 + 0.02
    } else if x < 0.3 {
        x * 4.0 + 0.03
    } else if x < 0.4 {
        x * 5.0 + 0.04
    } else if x < 0.5 {
        x * 6.0 + 0.05
    } else if x < 0.6 {
        x * 7.0 + 0.06
    } else if x < 0.7 {
        x * 1.0 + 0.07
    } else if x < 0.8 {
        x * 2.0 + 0.08
    } else if x < 0.9 {
        x * 3.0 + 0.09
    } else if x < 1.0 {
        x * 4.0 + 0.1
    } else if x < 1.1 {
        x * 5.0 + 0.11
    } else if x < 1.2 {
        x * 6.0 + 0.12
    } else if x < 1.3 {
        x * 7.0 + 0.13
    } else if x < 1.4 {
        x * 1.0 + 0.14
    } else if x < 1.5 {
        x * 2.0 + 0.15
    } else if x < 1.6 {
        x * 3.0 + 0.16
    } else if x < 1.7 {
        x * 4.0 + 0.17
    } else if x < 1.8 {
        x * 5.0 + 0.18
    } else if x < 1.9 {
        x * 6.0 + 0.19
    } else if x < 2.0 {
        x * 7.0 + 0.2
    } else if x < 2.1 {
        x * 1.0 + 0.21
    } else if x < 2.2 {
        x * 2.0 + 0.22
    } else if x < 2.3 {
        x * 3.0 + 0.23
    } else if x < 2.4 {
        x * 4.0 + 0.24
    } else if x < 2.5 {
        x * 5.0 + 0.25
    } else if x < 2.6 {
        x * 6.0 + 0.26
    } else if x < 2.7 {
        x * 7.0 + 0.27
    } else if x < 2.8 {
        x * 1.0 + 0.28
    } else if x < 2.9 {
        x * 2.0 + 0.29
    } else if x < 3.0 {
        x * 3.0 + 0.3
    } else if x < 3.1 {
        x * 4.0 + 0.31
    } else if x < 3.2 {
        x * 5.0 + 0.32
    } else if x < 3.3 {
        x * 6.0 + 0.33
    } else if x < 3.4 {
        x * 7.0 + 0.34
    } else if x < 3.5 {
        x * 1.0 + 0.35
    } else if x < 3.6 {
        x * 2.0 + 0.36
    } else if x < 3.7 {
        x * 3.0 + 0.37
    } else if x < 3.8 {
        x * 4.0 + 0.38
    } else if x < 3.9 {
        x * 5.0 + 0.39
    } else if x < 4.0 {
        x * 6.0 + 0.4
    } else if x < 4.1 {
        x * 7.0 + 0.41
    } else if x < 4.2 {
        x * 1.0 + 0.42
    } else if x < 4.3 {
        x * 2.0 + 0.43
    } else if x < 4.4 {
        x * 3.0 + 0.44
    } else if x < 4.5 {
        x * 4.0 + 0.45
    } else if x < 4.6 {
        x * 5.0 + 0.46
    } else if x < 4.7 {
        x * 6.0 + 0.47
    } else if x < 4.8 {
        x * 7.0 + 0.48
    } else if x < 4.9 {
        x * 1.0 + 0.49
    } else if x < 5.0 {
        x * 2.0 + 0.5
    } else if x < 5.1 {
        x * 3.0 + 0.51
    } else if x < 5.2 {
        x * 4.0 + 0.52
    } else if x < 5.3 {
        x * 5.0 + 0.53
    } else if x < 5.4 {
        x * 6.0 + 0.54
    } else if x < 5.5 {
        x * 7.0 + 0.55
    } else if x < 5.6 {
        x * 1.0 + 0.56
    } else if x < 5.7 {
        x * 2.0 + 0.57
    } else if x < 5.8 {
        x * 3.0 + 0.58
    } else if x < 5.9 {
        x * 4.0 + 0.59
    } else {
        -x
    }
}

#[test]
fn a_long_else_if_chain_is_differentiated_branch_by_branch() {
    let (v, d) = piecewise_grad(-0.5);
    assert_eq!((v, d), (0.25, -1.0));
    for i in 1..60 {
        let x = 0.1 * i as f64 - 0.05;
        let slope = (i % 7 + 1) as f64;
        let (v, d) = piecewise_grad(x);
        assert_eq!(v, piecewise(x));
        assert_relative_eq!(v, x * slope + i as f64 / 100.0, max_relative = 1e-12);
        assert_eq!(d, slope, "branch {i}");
    }
    assert_eq!(piecewise_grad(7.0), (-7.0, -1.0));
}

/// A polynomial of degree 201 in Horner form as one nested expression,
/// as a computer algebra system prints it: lowering recursed through a
/// stack frame of 18 KB per level and overflowed rustc's stack past
/// about 135 levels (the plain function compiles at 600).
#[grad]
#[rustfmt::skip]
fn horner_nested(x: f64) -> f64 {
    ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((0.5 * x + -0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0) * x + 0.1) * x + 0.2) * x + 0.3) * x + 0.4) * x + 0.5) * x + 0.6) * x + 0.7) * x + 0.8) * x + 0.9) * x + -0.9) * x + -0.8) * x + -0.7) * x + -0.6) * x + -0.5) * x + -0.4) * x + -0.3) * x + -0.2) * x + -0.1) * x + 0.0
}

#[test]
fn a_deeply_nested_expression_is_differentiated() {
    for x in [-0.9, -0.4, 0.0, 0.3, 0.95] {
        // Horner's rule for the value and its derivative together.
        let (mut p, mut d) = (0.5, 0.0);
        for c in std::iter::once(-0.9).chain((0..200).map(|i| ((i % 19) - 9) as f64 / 10.0)) {
            d = d * x + p;
            p = p * x + c;
        }
        let (v, g) = horner_nested_grad(x);
        assert_eq!(v, horner_nested(x));
        assert_relative_eq!(v, p, epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(g, d, epsilon = 1e-12, max_relative = 1e-10);
    }
}

#[test]
fn a_long_function_compiles_and_agrees_with_its_loop() {
    for (x, y) in [(0.3, -0.7), (-1.2, 0.4), (2.0, 1.5)] {
        let (v, gx, gy) = long_line_grad(x, y);
        let (lv, lx, ly) = long_loop_grad(x, y);
        assert_eq!(v, long_line(x, y));
        assert_relative_eq!(v, lv, max_relative = 1e-12);
        assert_relative_eq!(gx, lx, max_relative = 1e-9, epsilon = 1e-12);
        assert_relative_eq!(gy, ly, max_relative = 1e-9, epsilon = 1e-12);
        // And against central differences (h = 1e-6: tolerance 1e-5).
        let h = 1e-6;
        let fx = (long_line(x + h, y) - long_line(x - h, y)) / (2.0 * h);
        let fy = (long_line(x, y + h) - long_line(x, y - h)) / (2.0 * h);
        assert_relative_eq!(gx, fx, max_relative = 1e-5, epsilon = 1e-7);
        assert_relative_eq!(gy, fy, max_relative = 1e-5, epsilon = 1e-7);
    }
}
