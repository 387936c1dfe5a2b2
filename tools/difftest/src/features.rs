//! The generator's constructs, each behind a named feature, so that a class
//! of programs can be switched off (`--features-off a,b`).

use crate::ast::{map_block, Expr, IExpr, Program, Ret, Stmt};
use std::collections::BTreeSet;

/// Every feature the generator knows, with what it adds to programs.
pub const FEATURES: &[(&str, &str)] = &[
    (
        "let_typed",
        "`let x: f64 = ..` (otherwise a type only where inference needs one)",
    ),
    (
        "untyped_opaque_let",
        "`let x = C;` / `let x = helper(..);` without a type, whose type #[grad] cannot see",
    ),
    ("let_mut", "`let mut` with reassignment `x = ..`"),
    ("compound_assign", "`+= -= *= /=` on float variables"),
    ("shadowing", "`let x = g(x);` shadowing a variable"),
    (
        "let_deferred",
        "`let y;` assigned later, directly or in both arms of an `if`",
    ),
    (
        "block_expr",
        "blocks as expressions `{ let t = ..; t * 2.0 }`",
    ),
    (
        "literal_spellings",
        "float literals spelled `2.`, `2e0`, `2.0_f64`",
    ),
    ("path_form", "methods in path form `f64::sin(x)`"),
    (
        "explicit_return",
        "`return e;` as the last statement of the body",
    ),
    ("if_stmt", "`if`/`else` as statements on float comparisons"),
    ("else_if", "`else if` chains"),
    ("if_expr", "`if`/`else` as expressions"),
    ("bool_logic", "`&&` and `||` in conditions"),
    (
        "guard_return",
        "guard clauses `if c { return e; }` at the top of the body",
    ),
    ("match_int", "`match` on integers with or-patterns and `_`"),
    (
        "int_params",
        "`usize` parameters (loop bounds, match scrutinees, indices)",
    ),
    ("int_cast", "integers cast with `as f64`"),
    ("user_const", "user `const` f64 values in expressions"),
    ("const_init", "a `let mut` initialised from a user `const`"),
    (
        "helper_call",
        "calls to a second `#[grad]` function with scalar parameters",
    ),
    (
        "nested_call",
        "a call of the helper in an argument of another",
    ),
    ("trig", "sin cos tan tanh atan asinh"),
    ("exp_log", "exp ln ln_1p sqrt cbrt recip on safe arguments"),
    ("pow", "powi (small exponents) and powf of positive bases"),
    ("division", "`/` by positive denominators"),
    ("kinks", "abs max min (non-smooth)"),
    ("two_arg", "hypot atan2 mul_add"),
    ("ml", "autodiff::sigmoid, softplus, relu"),
    ("slice_params", "`&[f64]` parameters"),
    ("array_params", "`[f64; N]` and `&[f64; N]` parameters"),
    ("vec_params", "`&Vec<f64>` parameters"),
    (
        "slice_index",
        "reads `xs[i]` of parameters by computed index",
    ),
    (
        "element_receiver",
        "a method called on an element, `xs[i].sin()`",
    ),
    (
        "local_vec",
        "`let mut v = vec![0.0; n];` with reads and writes",
    ),
    (
        "local_array",
        "`let mut a = [0.0; n];` with reads and writes",
    ),
    (
        "array_literal",
        "`vec![a, b]` and `[a, b]` with computed elements",
    ),
    (
        "untyped_array",
        "`let mut v = vec![0.0_f64; n];` without a type annotation",
    ),
    (
        "array_in_loop",
        "an array declared at the top of a loop body",
    ),
    (
        "array_state",
        "a local array carried across loop iterations (`for`, `while`, `loop`, nested), replaced each step: `u = next;` of a `vec![0.0; n]` declared and filled element by element in the body, `std::mem::swap(&mut u, &mut next);` and `u.copy_from_slice(&next);` (`next` declared before the loop or in the body), `u.fill(v);`, `s = [s[1], -s[0]];` of a fixed array; these also anywhere else",
    ),
    (
        "step_call",
        "`u = step(&u, k);` with `step(ss0: &[f64], sk0: f64) -> Vec<f64>` a second `#[grad]` function (no `trace` then: it refuses a vector output)",
    ),
    (
        "vec_push",
        "`let mut r = Vec::new();` (untyped when a pushed value shows float syntax, else `Vec<f64>`) at the top of the body or of a loop body, filled by `r.push(e)` one after the other or in a loop (one maybe in an `if`), pushed to anywhere (loops, branch arms), read as `r[i]` below its least length and `r.iter().sum::<f64>()`",
    ),
    (
        "checkpoint",
        "`#[checkpoint(every = K)]` / `#[checkpoint(snapshots = S)]` (K, S a literal or `n0 + 1`) on a `for` over a range walked forwards at the top level of `f`, without `break` or `return`, changing floats and arrays declared before it; `f_grad` must equal `_grad` of the same function without the attribute (`f_nockpt`) bit for bit",
    ),
    (
        "checkpoint_zero_sign",
        "the bit-for-bit comparison of `checkpoint` tells 0.0 from -0.0 too (otherwise a zero entry equals a zero of the other sign, every other entry compared bit for bit; README excepts the sign of a zero where the function also writes through `&mut`, which the generator does not write)",
    ),
    ("sum", "`xs.iter().sum::<f64>()`"),
    ("map_sum", "`xs.iter().map(|v| ..).sum::<f64>()`"),
    (
        "struct_param",
        "`p0: &P0`, a struct of floats deriving `Differentiable`, named in `wrt`, its fields read",
    ),
    (
        "helper_array",
        "the helper takes a slice `hs0: &[f64]` too, given an array of the caller's",
    ),
    (
        "call_int_args",
        "the helper takes a `usize` `nh0` (loop bound, index, cast), given integer literals and variables (loop indices, `usize` parameters)",
    ),
    (
        "call_bool_args",
        "the helper takes a `bool` `hb0` (read in its conditions), given `true` and `false`",
    ),
    (
        "call_const_param",
        "the helper takes an `f64` `hc0` left out of its `wrt(..)`, given constants (literals, `const`s, integer casts, constant structs' fields)",
    ),
    (
        "methods",
        "`impl P0 { #[grad(wrt(self, x))] fn m0(&self, x: f64) -> f64 }`, called as `p0.m0(..)` from `f`",
    ),
    (
        "method_on_self",
        "`#[grad(wrt(self))] fn m1(&self, ..)` calling `self.m0(..)`, its other parameters (`f64`, `usize`) given constants by `f`",
    ),
    (
        "method_in_branch",
        "method calls on a differentiated receiver (`p0` under `wrt`, `self`) inside branch arms: `if`/`match` arms, after a guard clause, a `return` or a loop's `if c { break; }`",
    ),
    (
        "const_receiver",
        "`p0: &P0` left out of a bare `#[grad]`: a constant struct, its fields read, its methods called",
    ),
    (
        "struct_int_field",
        "`P0` has `n: usize` and `w: Vec<f64>`: `p0.w[i * p0.n + j]`, `for j in 0..p0.n`, `p0.n as f64`",
    ),
    (
        "int_field_arith",
        "a differentiated struct's `n` combined with itself before a cast, `(p0.n * p0.n) as f64`, `(p0.n + p0.n) as f64` (otherwise cast alone, `p0.n as f64`)",
    ),
    (
        "int_field_elsewhere",
        "a differentiated struct's `n` also as the index of another array (`v[p0.n % 3]`, `data0.ys[p0.n]`) and in arguments (`p0.m1(.., p0.n)`, `helper(.., p0.n as f64)`)",
    ),
    (
        "const_struct_vec",
        "`data0: &Data0`, a constant struct (no derive) with `ys: Vec<f64>`: `for k in 0..data0.ys.len() { .. data0.ys[k] .. }`",
    ),
    (
        "const_method_in_loop",
        "methods of constant structs in loops: `for k in 0..data0.ys.len()` with any body anywhere (otherwise at the top level, its body one accumulation), `data0.ys[k].max(..)` (otherwise `(data0.ys[k] + 0.0).max(..)`), `p0.m0(..)` of a constant `p0`",
    ),
    (
        "const_field_untyped_let",
        "`let mut s = p0.f1;` (or `data0.ys[k]`) without a type, from a constant struct, later made active (otherwise `let mut s: f64 = p0.f1;`)",
    ),
    (
        "const_receiver_opaque_arg",
        "a method of a constant receiver given a value whose type #[grad] cannot see, `let a = p0.m0(x); p0.m0(a)` (otherwise `p0.m0({ let t: f64 = a; t })`)",
    ),
    (
        "let_closure",
        "`let c = |v: f64| ..;` reading immutable variables, called on active values",
    ),
    (
        "zip_sum",
        "`xs.iter().zip(ys.iter()).map(|(&a, &b)| ..).sum::<f64>()`",
    ),
    ("fold", "`xs.iter().fold(init, |acc, v| ..)`"),
    (
        "closure_capture",
        "closure bodies of `map`/`fold` reading variables of the function",
    ),
    (
        "closure_ignores_param",
        "a `map` body not reading its element, a `fold` body not reading its accumulator",
    ),
    ("for_range", "`for i in a..b`"),
    (
        "range_forms",
        "`a..=b`, `.rev()`, `.step_by(k)`, ranges starting at an outer index",
    ),
    ("for_slice", "`for &x in xs`"),
    ("for_enumerate", "`for (i, &x) in xs.iter().enumerate()`"),
    (
        "for_local_array",
        "`for` over a local array rather than a parameter",
    ),
    ("while_loop", "`while k < N && c { .. }` with a counter"),
    ("loop_break", "`loop { k += 1; if k > N { break; } .. }`"),
    ("nested_loops", "loops inside loops"),
    ("loop_in_if", "a loop inside an `if` branch"),
    (
        "break",
        "data-dependent `if c { break; }` in an outermost loop",
    ),
    (
        "break_in_inner_loop",
        "`if c { break; }` in a loop nested in another",
    ),
    ("continue", "`if c { continue; }` in an outermost loop"),
    (
        "continue_in_inner_loop",
        "`if c { continue; }` in a loop nested in another",
    ),
    (
        "return_in_loop",
        "`if c { return e; }` in a loop at the top level of the body",
    ),
    (
        "return_in_nested_loop",
        "`if c { return e; }` in a loop nested in a top-level loop",
    ),
    (
        "jump_in_match",
        "a `match` on an integer in a loop body (`for`, `while`, `loop`), followed by more statements, its arms ending with jumps as `if` branches may (`0 => break,`, `1 => continue,`, `3 => return e,` in a top-level loop where `return_in_loop` is on, `{ s += ..; break; }`), with a guarded binding `m if m > 2 => { .. }` and `_ => { .. }`",
    ),
    (
        "tuple_from_branches",
        "`let (a, b) = if c { (e1, e2) } else { (e3, e4) };`, the same from a `match` on an integer (one arm a block with a `let` before its tuple) or a block `{ let t = ..; (t, e) }`, two (or three) new floats read later",
    ),
    (
        "float_writer",
        "a writer `fn w0(wm0: &mut f64, wm1: &mut f64, wk0: f64)` (two or three floats by `&mut`) under `#[grad]`, its body writes over `*wm0`, `*wm1`, `wk0`, maybe with a guard clause `if c { return; }`, called from `f` as `w0(&mut x, &mut y, e);` on its `let mut` floats declared with a type (`: f64`, or a literal's `let`) in either order, in loops and branch arms too (no `trace` then: it refuses a writer's call)",
    ),
    (
        "fallible_call",
        "a fallible `fn g0(gx0: f64, ..) -> Result<f64, String>` (or `Option<f64>`) with a guard clause `if c { return Err(..); }`, called from `f` as `g0(..).unwrap()` / `.expect(..)` (its guard false at every finite value) or as `g0(..)?` where `f` returns `g0`'s type (its guard maybe true at a test point: `f_grad` must fail with `f`'s error); no `trace` then",
    ),
    (
        "struct_values",
        "local structs of `P0` built whole, every field named (`let q = P0 { f0: e, .., n: i, w: xs0.to_vec() };`, `w` also `p0.w.clone()`, `vec![..]`), used whole: `q.m0(e)`, `hp0(&q, e)` of `#[grad(wrt(hp, h0))] fn hp0(hp: &P0, h0: f64)`, copied (`let r = q;`, `q.clone()`, `P0 { f1: e, ..q }`), `let mut` with `q.f1 += e;` and methods called on it, and `q = q.st0(e);` of `#[grad(wrt(self, x))] fn st0(&self, x: f64) -> Self` as a loop's time step; their fields read (`q.f0`, `q.w[k]`), in loops and branch arms; no `trace` then (it refuses a struct built whole; src/gen/structs.rs lists the shapes left out, #[grad] findings)",
    ),
    (
        "array_call",
        "`g1(..) -> [f64; 2]` (or `[f64; 3]`) and maybe `g2(..) -> (f64, f64)`, second `#[grad]` functions of floats, called from `f` with active arguments as `let d = g1(..);` (then `d[k]` read) and `let (a, b) = g2(..);`, in loops and branch arms too (no `trace` then; not `let [a, b] = g1(..);` nor a `return` ending `g2`, #[grad] findings: src/gen/calls.rs)",
    ),
    (
        "passed_whole",
        "results of second `#[grad]` functions bound by `let` without a type and only passed on whole to other calls, or nested in a call's arguments (src/gen/passed.rs): arrays `let d = mk0(x, y); let e = tf0(d, z); rd0(e, x)` (`[f64; N]` by value, `&d` for `&[f64; N]`), `Vec`s `let w = vw0(&d, x); rv0(&w, y)`, `rd0(tf0(mk0(x, y), z), w)`, floats `let t = hf0(x, y); hf0(t, z)` (also given to the helper, methods, `g1`), in loops and branch arms too, every one reaching `f`'s value; arrays and `Vec`s passed on whole keep `trace` off (vector outputs are not traced), and under `jvp` their functions returning them get `jvp` too",
    ),
    (
        "passed_whole_in_fold",
        "an array or a `Vec` passed on whole (`passed_whole`) in a call in the initial value of a `fold` (`xs.iter().fold(rd0(d, x), |acc, v| ..)`, `(a..b).fold(rv0(&vw0(&d, x), y), ..)`); otherwise only floats and the caller's arrays there",
    ),
    (
        "passed_whole_in_tuple",
        "an array passed on whole by value (`passed_whole`, `rd0(d, x)` of `rd0(ra0: [f64; N], ..)`) in an arm of a tuple from branches (`let (a, b) = if c { (x, y) } else { (rd0(d, x), 0.5) };`); otherwise none there (lent by reference, `rd0(&d, x)`, is)",
    ),
    (
        "passed_whole_in_arm",
        "a result to pass on whole (`passed_whole`: a float, an array or a `Vec` a call returned) bound by `let` in a branch arm (an `if` or `match` arm, the body of a `while let`, or after a `return`, `break` or `continue`); otherwise such results are bound outside arms only (calls nested in a call's arguments anywhere)",
    ),
    (
        "passed_whole_into_loop",
        "a result bound to be passed on whole (`passed_whole`) outside a loop passed on inside it (`let d = mk0(x); for .. { s += rd0(d, s); }`); otherwise only those bound in the same loop body are (calls nested in a call's arguments anywhere)",
    ),
    (
        "jvp_array_lent_as_slice",
        "under `jvp`, the programs whose functions of `passed_whole` take `&[f64]` (`vw0`, `rv0`: an array `mk0` returned lent as a slice, `rv0(&vw0(&d, x), y)`); otherwise those are generated without `jvp`",
    ),
    (
        "loop_value",
        "`let mut k: usize = 0; let r = loop { k += 1; ..; if c { break e; } ..; if k > N { break e2; } };` with active break values, `r` read afterwards",
    ),
    (
        "labels",
        "`'outer: for i in .. { .. for j in .. { ..; if c { break 'outer; } (or `continue 'outer;`) ..; s += .. } }` with float accumulators",
    ),
    (
        "range_chain",
        "`(a..b).map(|i| e).sum::<f64>()`, `(a..b).filter(|i| i % 2 == 0).map(..).sum::<f64>()`, `(a..b).fold(init, |acc, i| ..)` over ranges of `usize`s (any `range_forms`), the closure's body active and casting `i as f64`",
    ),
    (
        "enum_match",
        "`mode0: Mode0` of `#[derive(Clone, Copy)] enum Mode0 { A, B, C(f64) }`, a constant parameter left out of `wrt` (each test point picks a variant), matched in `f` (in loops and branch arms too) as a statement whose arms change floats or as `let a = match mode0 { .. };`, the `Mode0::C(c)` arm reading its payload",
    ),
    (
        "while_let",
        "`let mut stack0: Vec<usize> = vec![k, ..]; while let Some(j) = stack0.pop() { .. }`, `let mut it0 = data0.ys.iter(); while let Some(&y) = it0.next() { .. }` of a constant array, bodies as any loop's (jumps too, no array changed) accumulating active floats (not a stack of floats nor a `fold` in a condition there, #[grad] findings: src/gen/while_let.rs)",
    ),
    (
        "method_path",
        "a `#[grad]` method called by its path (src/gen/paths.rs): `P0::m0(p0, x)` of `p0: &P0`, `P0::m0(&q, x)` of a local struct, `Self::m0(self, x)` in another method, `P1::energy(&p)` (`made_struct`), half the calls; otherwise all on their receivers, `p0.m0(x)`",
    ),
    (
        "assoc_fn",
        "the helper written as an associated function without a receiver in an `impl` (`impl P0 { #[grad] pub fn helper(..) }` beside the methods, or of a unit struct `K0`), every call of it by its path, `P0::helper(a, b)` (src/gen/paths.rs)",
    ),
    (
        "made_struct",
        "`P1 { f0: f64, .. }` deriving `Differentiable`, `make(..) -> P1` under `#[grad]` and methods of `P1` without arguments named like no float's or `std`'s method (`energy`, `norm2`) under `#[grad(wrt(self))]`, called from `f` on what `make` returned: `let p: P1 = make(a, b);` (the type stated) then `p.energy()`, and `make(a, b).norm2()` (src/gen/made.rs; no `trace`, no `hessian` then)",
    ),
    (
        "made_in_arm",
        "a method of what `make` returned called in a branch arm (an `if` or `match` arm, the rest of a loop body after a jump, after a `return`, the body of a `while let` or of a filtered `for`) when the `let` binding it is outside that arm (`let p: P1 = make(a); if c { s += p.energy(); }`), or by its path there (`P1::energy(&p)`); otherwise only on its receiver, where it was bound",
    ),
    (
        "mem_replace",
        "`let next = ..; let old = std::mem::replace(&mut cur, next);` of a `let mut` float in a loop body, `old` read right after (or `let _ = ..`) (src/gen/locals.rs)",
    ),
    (
        "replace_opaque",
        "`mem_replace` also of a float whose type #[grad] cannot see, bound without a type from a user `const` or a call (`let mut s = C0;`); otherwise only of floats whose type shows",
    ),
    (
        "filter_names",
        "`for (i, x) in xs.iter().enumerate().filter(|(i, _)| *i % 2 == 0)`, the closure naming its parameters as the loop's pattern does, or `.filter(|(i, x)| **x > c && *i != 1)` reading the element through both references beside an index test, the body reading `*x` (src/gen/filters.rs)",
    ),
    (
        "float_ref",
        "`let r = &x;` of an immutable float, `r` read as the float in arithmetic and as a float method's receiver (`r * y`, `e - r`, `r.sin()`) (src/gen/locals.rs)",
    ),
    (
        "ref_shadowed",
        "`float_ref`'s reference read after the float it borrows is shadowed by a `let` of its name (`let r = &x; let x = x * 2.0; r * x`, or in that `let`'s value); otherwise not read from there on",
    ),
    (
        "ref_opaque",
        "`float_ref` also of a float whose type #[grad] cannot see, bound without a type from a call or a user `const` (`let a = helper(x); let r = &a;`); otherwise only of floats whose type shows",
    ),
    (
        "struct_writer",
        "struct writers of `P0` under a bare `#[grad]` (src/gen/struct_writers.rs): methods `fn drift0(&mut self, dk0: f64[, nk0: usize])` and free functions `fn kick0(sp: &mut P0, kk0: f64, ..)`, returning nothing, their bodies assigning whole fields (`self.f0 += ..`, `-=`, `*=`, `/=`, `=`, bounded however often they run) in loops and branches, reading `self` whole through `P0`'s `&self` methods (`self.m0(x)`), calling the writers before them on it (`self.drift0(e);`, `kick0(self, e);`, `sp.drift0(e);`, `kick0(sp, e);`, by its path with `method_path`: `Self::drift0(self, e);`), replacing it whole (`*self = P0 { .. };`, with a grid its `w` a new `Vec` filled before) and, with a grid, assigning `self.w = v;`; called as statements from `f` (and from `hp0`) on local structs of `P0` held by value, `let mut q = P0 { f0: e, .. };` or a copy of the differentiated parameter `let mut q = p0.clone();` (`hp.clone()` in `hp0`), `q.drift0(e);`, `P0::drift0(&mut q, e);`, `kick0(&mut q, e);`, in loops (a time loop stepping it, a checkpointed one too) and branch arms, then read by fields (`q.f0 * x`); no `trace`, `jvp` nor `hessian` then (each refuses a writer's call)",
    ),
    (
        "struct_writer_arg_reads_receiver",
        "a struct writer called on its receiver given an argument that reads it, `q.drift0(q.f0 * e);` (valid Rust), also of a local struct built whole (`let mut q = P0 { .. };`); otherwise such arguments only on the struct a writer changes (`self.drift0(self.f1)`) and on a copy of a parameter (`let mut q = p0.clone();`)",
    ),
    (
        "struct_writer_param_copy_nested_loop",
        "a copy of a parameter (`let mut q = p0.clone();`) changed (by a struct writer, `q.f1 += e`, `q = q.st0(e)`) in any loop: nested in another loop, in a branch arm, after a `return`; otherwise only outside loops and in loops at the top level of the body (and such copies declared only at the top level)",
    ),
    (
        "struct_writer_param_copy_loop_jumps",
        "a copy of a parameter (`let mut q = p0.clone();`) changed in a loop body after two or more of its jumps or branch arms (`if c { return e; } if d { continue; } kick0(&mut q, x);`); otherwise after at most one",
    ),
    (
        "struct_writer_param_copy_whole_in_loop",
        "a copy of a parameter (`let mut q = p0.clone();`, or a copy of it) used whole in a loop (`struct_values`): a method called on it (`for .. { s += q.m0(x); }`) or copied (`let r = q.clone();`); otherwise only outside loops (its fields are read anywhere, `hp0(&q, e)` anywhere)",
    ),
    (
        "struct_writer_param_copy_fields",
        "a copy of a parameter (`let mut q = p0.clone();`) also changed as `struct_values` changes local structs, through a field (`q.f0 += e`) or stepped (`q = q.st0(e)`); otherwise only by the writers",
    ),
    (
        "struct_vec_locals",
        "a local struct of `struct_values` built by a literal of a type without a grid held as an element of a local `Vec` of structs, `let mut q = vec![P0 { .. }, P0 { .. }];` (the elements before it constant), every use of it a use of the element: `q[1].f0`, `q[1].f1 += e;`, `q[1].m0(e)`, `hp0(&q[1], e)`, `q[1] = q[1].st0(e);`, the struct writers' `q[1].drift0(e);`, `P0::drift0(&mut q[1], e);`, `kick0(&mut q[1], e);`, copies `let r = q[1].clone();` (src/gen/structs.rs)",
    ),
    (
        "struct_vec_loops",
        "loops over the `Vec` of structs of `struct_vec_locals` beyond `for p in &q`: `&q[1..]`, `q[..1].iter()`, `q.iter().enumerate().skip(n)`, `q.iter().rev().enumerate().take(n)`, `q.iter().filter(|p| p.f1 > c)`, `q.windows(2)`, the body `let x = p.f0;` (`w[1].f0 - w[0].f0`) then any loop body not using `q` (src/gen/held_loops.rs)",
    ),
    (
        "struct_writer_read_in_loop",
        "a struct writer reads the struct it changes whole (`self.m0(x)`, `sp.m0(x)`) in a loop of its body too; otherwise only outside its loops",
    ),
    (
        "struct_writer_path_read",
        "a struct writer reads the struct it changes whole through a method called by its path (`method_path`): `Self::m0(self, x)` in a writer method, `P0::m0(sp, x)` in a free writer; otherwise on its receiver, `self.m0(x)`, `sp.m0(x)`",
    ),
    (
        "writer_lends_shadowing",
        "`float_writer` lends a typed `let mut a: f64` that shadows an untyped float of the same name (`let a = h(x); .. { let mut a: f64 = ..; w0(&mut a, ..); }`); otherwise only floats each of whose declarations in scope has its type written",
    ),
    (
        "made_const_field",
        "`make`'s `P1 { f0: C0 }` with its only field a bare user `const`; otherwise `C0 * 1.0` there (`made_struct`)",
    ),
    (
        "trace",
        "`#[grad(trace)]` on every program whose constructs it supports (src/trace.rs: all but method calls), f_trace checked against f and f_grad",
    ),
    (
        "jvp",
        "`#[grad(jvp)]` on `f` of every program whose constructs forward mode supports (src/jvp.rs: all but calls returning a tuple, array, `Vec` or struct (not those of `passed_whole`, whose results are passed on whole: checked), writers, fallible functions, and, for a finding, an `f` casting a differentiated struct's integer field `p0.n as f64`), f_jvp checked against f (value, bit for bit) and f_grad (the gradient dotted with three tangents per point)",
    ),
    (
        "trace_assoc_fn",
        "`#[grad(trace)]` also on programs whose helper is an associated function (`assoc_fn`, `#[grad(trace)]` on it in its `impl`)",
    ),
    (
        "trace_filter",
        "`#[grad(trace)]` also on programs with a `for` loop over `xs.iter().enumerate().filter(..)` (`filter_names`)",
    ),
    (
        "jvp_filter",
        "`#[grad(jvp)]` also on programs with a `for` loop over `xs.iter().enumerate().filter(..)` (`filter_names`)",
    ),
    (
        "jvp_path_method_arg",
        "`#[grad(jvp)]` also on programs that give a method called by its path directly to another call as an argument (`free(P0::m0(p0, x))`, `method_path`)",
    ),
    (
        "trace_int_field_cast",
        "`#[grad(trace)]` also on programs whose `f` casts an integer field of a differentiated struct (`p0.n as f64`)",
    ),
    (
        "hessian",
        "a generic twin `f_gen<T: autodiff::Float>` of every function of each program with at most 8 float inputs whose constructs `#[grad(hessian)]` takes (src/hessian.rs: all but a fallible `f` and local structs; a differentiated struct's floats as parameters of their own), `f_gen` under `#[grad(hessian)]`, in a crate beside the programs'; f_gen_hessian (value, gradient, a symmetric matrix) and f_gen_hvp (along an axis and a random direction) checked against f, f_grad and a hyper-dual twin of the body (num-dual's HyperDual64)",
    ),
    (
        "hessian_vec_literal",
        "the generic twin writes float literals inside `vec![..]` as written (`vec![0.0; n]`, `vec![x, 2.0]`); otherwise `vec![T::zero(); n]` and `T::from_f64(2.0)` there",
    ),
    (
        "hessian_path_form",
        "the generic twin writes float methods in path form as `T::sin(x)`; otherwise as methods, `x.sin()`",
    ),
    (
        "hessian_vec_param",
        "`f_gen` takes a `&Vec<f64>` parameter of `f` as `&Vec<T>`; otherwise as `&[T]`",
    ),
    (
        "hessian_constant_output",
        "the hessian check also takes programs whose function returning a tuple (`g2`) or writer (`w0`) has an output that does not depend on its inputs (`(a4, 0.3)`, `*wm0 = C0.atan();`); otherwise those have no generic twin",
    ),
    (
        "hessian_literal_args",
        "the generic twin gives a call whose floats are all literals and whose other arguments are integers or `bool`s its literals as written (`h_gen(0.5, 1)`); otherwise `T::from_f64(0.5)`",
    ),
];

/// The features switched on.
#[derive(Clone, Debug)]
pub struct Features {
    off: BTreeSet<&'static str>,
}

impl Default for Features {
    fn default() -> Self {
        Features::all()
    }
}

impl Features {
    pub fn all() -> Features {
        Features {
            off: BTreeSet::new(),
        }
    }

    /// All features but `names`; an unknown name is an error.
    pub fn without<S: AsRef<str>>(names: &[S]) -> Result<Features, String> {
        let mut f = Features::all();
        for n in names {
            let n = n.as_ref().trim();
            if n.is_empty() {
                continue;
            }
            match FEATURES.iter().find(|(name, _)| *name == n) {
                Some((name, _)) => {
                    f.off.insert(name);
                }
                None => {
                    return Err(format!(
                        "unknown feature `{n}`; known: {}",
                        FEATURES
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        }
        Ok(f)
    }

    /// Whether `name` is on. Panics on a name not in [`FEATURES`] (a typo
    /// in the generator).
    pub fn has(&self, name: &str) -> bool {
        assert!(
            FEATURES.iter().any(|(n, _)| *n == name),
            "generator asks for unknown feature `{name}`"
        );
        !self.off.contains(name)
    }

    pub fn off(&self) -> Vec<&'static str> {
        self.off.iter().copied().collect()
    }
}

/// The features whose use [`counted`] tells from a program.
pub const COUNTED: &[&str] = &[
    "float_writer",
    "tuple_from_branches",
    "jump_in_match",
    "fallible_call",
    "struct_values",
    "array_call",
    "passed_whole",
    "loop_value",
    "labels",
    "range_chain",
    "enum_match",
    "while_let",
    "method_path",
    "assoc_fn",
    "made_struct",
    "mem_replace",
    "filter_names",
    "float_ref",
    "struct_writer",
    "struct_vec_loops",
];

/// Which of [`COUNTED`] the program `p` uses (for a batch's summary).
pub fn counted(p: &Program) -> Vec<&'static str> {
    let in_program = |f: &dyn Fn(&Stmt) -> bool| crate::ast::any_stmt(p, f);
    let mut out = Vec::new();
    if p.writer.is_some() {
        out.push(COUNTED[0]);
    }
    if in_program(&|s| matches!(s, Stmt::LetTuple { .. })) {
        out.push(COUNTED[1]);
    }
    if in_program(&|s| matches!(s, Stmt::Match { .. })) {
        out.push(COUNTED[2]);
    }
    if p.fallible.is_some() {
        out.push(COUNTED[3]);
    }
    if in_program(&|s| matches!(s, Stmt::LetStruct { .. })) {
        out.push(COUNTED[4]);
    }
    if !p.multis.is_empty() {
        out.push(COUNTED[5]);
    }
    if !p.wholes.is_empty() {
        out.push(COUNTED[6]);
    }
    if in_program(&|s| matches!(s, Stmt::LetLoop { .. })) {
        out.push(COUNTED[7]);
    }
    if in_program(&|s| matches!(s, Stmt::Labeled { .. })) {
        out.push(COUNTED[8]);
    }
    let (mut chain, mut path) = (false, false);
    for f in p.functions() {
        let mut b = f.body.clone();
        map_block(
            &mut b,
            &mut |e: &mut Expr| {
                chain |= matches!(e, Expr::RangeSum { .. } | Expr::RangeFold { .. });
                path |= matches!(e, Expr::Method(_, _, _, true));
            },
            &mut |_: &mut IExpr| {},
        );
    }
    if chain {
        out.push(COUNTED[9]);
    }
    if in_program(&|s| matches!(s, Stmt::EnumMatch { .. })) {
        out.push(COUNTED[10]);
    }
    if in_program(&|s| matches!(s, Stmt::WhileLet { .. })) {
        out.push(COUNTED[11]);
    }
    if path {
        out.push(COUNTED[12]);
    }
    if p.helper_owner.is_some() {
        out.push(COUNTED[13]);
    }
    if p.made.is_some() {
        out.push(COUNTED[14]);
    }
    if in_program(&|s| matches!(s, Stmt::Replace { .. })) {
        out.push(COUNTED[15]);
    }
    if in_program(&|s| {
        matches!(
            s,
            Stmt::ForEach {
                filter: Some(_),
                ..
            }
        )
    }) {
        out.push(COUNTED[16]);
    }
    if in_program(&|s| matches!(s, Stmt::LetRef { .. })) {
        out.push(COUNTED[17]);
    }
    if !p.struct_writers.is_empty() {
        out.push(COUNTED[18]);
    }
    if in_program(&|s| matches!(s, Stmt::ForEach { held: Some(_), .. })) {
        out.push(COUNTED[19]);
    }
    out
}

/// Whether `p` passes an array or a `Vec` a call returned on whole to
/// another call (`passed_whole`): it has a function of that feature
/// returning one (`f` calls each it has, and only ever passes their
/// results on whole). Shared by src/trace.rs and src/jvp.rs.
pub fn passes_vectors_whole(p: &Program) -> bool {
    p.wholes
        .iter()
        .any(|g| g.ret_arr.is_some() || matches!(g.ret, Ret::Array(_) | Ret::Tuple(_)))
}
