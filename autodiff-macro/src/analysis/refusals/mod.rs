//! Refusals: code kept as written (an opaque expression, a verbatim
//! statement) has no derivative rule. Where it is active
//! (`analysis/activity.rs`), the derivative would be lost, so it is refused,
//! once, at the place where active data enters it.

use quote::ToTokens;
use syn::visit::Visit;

use crate::analysis::activity::Activity;
use crate::diag::combine;
use crate::ir::*;

mod verbatim;

/// Errors where active data flows through code the macro cannot
/// differentiate.
pub fn check_function(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    check(&f.body, f, a, errors, &mut Vec::new(), false);
    changed_built_structs(f, a, errors);
    bits_of_active_floats(f, a, errors);
}

/// `x.to_bits()` of a float that depends on the active inputs, whatever
/// becomes of the integer: it holds the float whole, and `f64::from_bits`
/// gives it back (a fast inverse square root's first guess, trial 11
/// r999), so an integer operation on it (`>>`, `-`) is no constant, as
/// one on a cast's or a length's is. Refused where it is taken, in the
/// lowered code or in code kept as written that reads such a float.
fn bits_of_active_floats(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    const MESSAGE: &str = "#[grad] cannot follow a float through its bits: `to_bits` gives an integer that holds the whole value (and `from_bits` gives it back), whose derivative no integer operation carries; compute with float operations here, or take the bits of a value that does not depend on the differentiated inputs";
    struct Find(Vec<proc_macro2::Span>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if m.method == "to_bits" && m.args.is_empty() {
                self.0.push(m.method.span());
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut spans = Vec::new();
    f.body.walk(&mut |inst| match inst {
        Inst::Def {
            op: Op::Method {
                name, recv, args, ..
            },
            ..
        } if name == "to_bits"
            && args.is_empty()
            && recv.value().is_some_and(|v| a.is_varied(v)) =>
        {
            spans.push(name.span());
        }
        Inst::Def {
            op: Op::Opaque { reads, expr },
            ..
        } if reads.values().iter().any(|v| a.is_varied(*v)) => {
            let mut find = Find(Vec::new());
            find.visit_expr(expr);
            spans.extend(find.0);
        }
        Inst::Verbatim { tokens, reads, .. } if reads.values().iter().any(|v| a.is_varied(*v)) => {
            if let Ok(stmt) = syn::parse2::<syn::Stmt>(tokens.clone()) {
                let mut find = Find(Vec::new());
                find.visit_stmt(&stmt);
                spans.extend(find.0);
            }
        }
        _ => {}
    });
    for span in spans {
        combine(errors, syn::Error::new(span, MESSAGE));
    }
}

/// A struct built for a method (`desugar/local_structs.rs`), whose fields
/// are read back from what it was built from where a derivative passes
/// (`Op::Field`): code kept as written that may change it (a method
/// without `#[grad]`, `s.damp(k);`) is refused where its fields carry a
/// derivative that reaches the result.
fn changed_built_structs(f: &Function, a: &Activity, errors: &mut Option<syn::Error>) {
    let mut read_back = std::collections::HashSet::new();
    f.body.walk(&mut |inst| {
        if let Inst::Def {
            dst,
            op: Op::Field { base, .. },
            ..
        } = inst
        {
            if a.is_active(*dst) {
                read_back.insert(*base);
            }
        }
    });
    f.body.walk(&mut |inst| {
        let (reads, at) = match inst {
            Inst::Verbatim { reads, tokens, .. } => (reads, tokens.clone()),
            Inst::Def {
                op: Op::Opaque { reads, expr },
                ..
            } => (reads, quote::ToTokens::to_token_stream(expr)),
            _ => return,
        };
        // The method called on the struct itself (what else reads it,
        // `t.w.len()`, only reads).
        let call = syn::parse2::<syn::Stmt>(at.clone())
            .ok()
            .and_then(|s| match s {
                syn::Stmt::Expr(syn::Expr::MethodCall(m), _) => Some(m),
                _ => None,
            })
            .or_else(|| match syn::parse2::<syn::Expr>(at.clone()) {
                Ok(syn::Expr::MethodCall(m)) => Some(m),
                _ => None,
            });
        let Some(call) = call else { return };
        let receiver = match &*call.receiver {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let changed = reads.0.iter().any(|(name, v)| {
            Some(name) == receiver.as_ref() && read_back.contains(v) && a.is_varied(*v)
        });
        if changed {
            let method = call.method.to_string();
            combine(
                errors,
                syn::Error::new_spanned(at, active_struct_method(&method)),
            );
        }
    });
}

/// Whether active data enters here from a modelled value (rather than
/// through an opaque variable, which is refused where it was made).
fn enters_from_model(reads: &Reads, f: &Function, a: &Activity) -> Option<String> {
    reads
        .0
        .iter()
        .find(|(_, v)| a.is_varied(*v) && f.value(*v).kind != ValueKind::Opaque)
        .map(|(n, _)| n.clone())
}

/// `arrays`: the float arrays refused where they are declared; what they
/// then hold is not reported again. `in_block`: whether `block` is a bare
/// block, where arrays are not modelled (elsewhere, an array is refused
/// for its element type).
fn check(
    block: &Block,
    f: &Function,
    a: &Activity,
    errors: &mut Option<syn::Error>,
    arrays: &mut Vec<String>,
    in_block: bool,
) {
    for inst in &block.insts {
        match inst {
            Inst::Def {
                dst,
                op: Op::Opaque { expr, reads },
                ..
            } if a.is_active(*dst) => {
                if let Some(name) = enters_from_model(reads, f, a) {
                    let (at, msg) = opaque_message(expr, &name, f);
                    let msg = construct(expr)
                        .and_then(|(_, what)| parameter_call(&what, f, &name))
                        .unwrap_or(msg);
                    combine(errors, syn::Error::new_spanned(at, msg));
                }
            }
            Inst::Verbatim {
                defs,
                reads,
                tokens,
                kind,
            } if defs.iter().any(|d| a.is_active(*d)) => {
                if let Some(name) = enters_from_model(reads, f, a) {
                    verbatim::check(inst, f, &name, arrays, in_block, errors);
                }
            }
            Inst::Scope(b) => check(b, f, a, errors, arrays, true),
            // A branch's arms, a loop's condition and body.
            region => region
                .blocks()
                .into_iter()
                .for_each(|b| check(b, f, a, errors, arrays, false)),
        }
    }
}

/// What an expression kept as written is, and where to point, for the
/// error when active data flows through it.
fn opaque_message(
    expr: &syn::Expr,
    name: &str,
    f: &Function,
) -> (proc_macro2::TokenStream, String) {
    // `r = &y;` of `let mut r = &x;`: a reference made to point
    // elsewhere (`desugar/refs.rs` reads a reference as its variable only
    // where it always points at the same one).
    if let syn::Expr::Reference(r) = expr {
        if let syn::Expr::Path(p) = &*r.expr {
            if let Some(target) = p.path.get_ident() {
                // `f(&a)` of an `a` the function keeps as written (trial 12
                // r1097): no reference made to point anywhere.
                let mut named = f
                    .values
                    .iter()
                    .filter(|v| v.name.as_deref() == Some(&target.to_string()));
                if named.clone().next().is_some()
                    && named.all(|v| v.kind == ValueKind::Opaque || v.ty == Ty::Unknown)
                {
                    return (
                        expr.to_token_stream(),
                        format!("#[grad] cannot differentiate through `&{target}`: `{target}` is not an array or a float #[grad] follows, as its initialiser is code #[grad] keeps as written (an iterator chain or a method it does not read as a loop, for example), and what it holds depends on the active inputs; bind it from float arithmetic, an array literal, `vec![..]`, a copy of an array, a loop of `push`es or a call of a `#[grad]` function"),
                    );
                }
                return (
                    expr.to_token_stream(),
                    format!("#[grad] follows a reference to a variable (`&{target}`) as that variable, where it points at the same one while it is used; this one is made to point elsewhere, and its value depends on `{name}`: keep the value instead of a reference, as in `let mut r = x; .. r = {target};`, reading `r` where you read `*r`"),
                );
            }
        }
    }
    // `&net.layers[0]`, `&points[i]`: a part of a struct or nested array by
    // reference (a call's argument, mostly).
    if let syn::Expr::Reference(r) = expr {
        if matches!(&*r.expr, syn::Expr::Field(_) | syn::Expr::Index(_)) {
            let shown = crate::diag::show(&r.expr.to_token_stream());
            return (
                expr.to_token_stream(),
                format!("#[grad] follows `&{shown}` only as a call's argument (`f(&{shown}, x)`); elsewhere, read the part's fields where you need them (`{shown}.field`), or pass a `Copy` part by value (`{shown}`)"),
            );
        }
    }
    // `o.inner.energy()`: a method without arguments that carry a
    // derivative, on a part of a differentiated struct, kept as written
    // (`lower/methods.rs`: the part may be a `String`).
    if let syn::Expr::MethodCall(m) = expr {
        if matches!(&*m.receiver, syn::Expr::Field(_) | syn::Expr::Index(_)) {
            let part = crate::diag::show(&m.receiver.to_token_stream());
            let method = &m.method;
            return (
                expr.to_token_stream(),
                format!("#[grad] cannot differentiate `{part}.{method}(..)` called on a part of a struct that depends on `{name}`: if `{method}` is a method with #[grad], call it by its path, as in `Type::{method}(&{part}, ..)`; otherwise compute the value with float operations"),
            );
        }
    }
    // `p.x` of a `p` #[grad] does not follow: an element of a `Vec` it
    // keeps as written (`for p in &ps` where `ps.push(P::new(..))`), or
    // what a call it does not see into returned.
    if let syn::Expr::Field(f) = expr {
        if let (syn::Expr::Path(p), syn::Member::Named(field)) = (&*f.base, &f.member) {
            if let Some(base) = p.path.get_ident() {
                return (
                    expr.to_token_stream(),
                    format!("#[grad] cannot read `{base}.{field}` here: `{base}` holds a struct that #[grad] does not follow, and the result depends on it. It follows a struct built by a literal (`P {{ x: .., y: .. }}`) or returned by a #[grad] function, bound by `let`, a part of a parameter borrowed (`let p = &self.pos;`, not a copy `self.pos.clone()`), and a `Vec` of structs whose every element is a struct literal written out (`vec![P {{ .. }}, ..]`, `ps.push(P {{ x: .., y: .. }})`, not `ps.push(P::new(..))`)"),
                );
            }
        }
    }
    // `n2([p.x, p.y])` of a call's struct `p`: an array literal whose
    // elements' type the source does not state.
    let len = match expr {
        syn::Expr::Array(a) => Some(a.elems.len().to_string()),
        syn::Expr::Repeat(r) => Some(crate::diag::show(&r.len.to_token_stream())),
        _ => None,
    };
    match (construct(expr), len) {
        (Some((at, what)), _) => (at, construct_message(what, name, &[])),
        (None, Some(len)) => (
            expr.to_token_stream(),
            format!(
                "#[grad] cannot tell the float type of this array's elements from what it is built of (a struct's field, a `const`: types #[grad] does not read); they depend on `{name}` and reach the result: bind the array with its type first, as in `let a: [f64; {len}] = ..;`, and use `a`"
            ),
        ),
        (None, None) => (
            expr.to_token_stream(),
            format!(
                "#[grad] cannot differentiate through this expression: its result depends on `{name}`, and #[grad] follows derivatives only through float arithmetic, float methods and its runtime functions; rewrite it with those"
            ),
        ),
    }
}

/// The constructs whose derivative #[grad] cannot take yet.
#[derive(Clone)]
enum Construct {
    Branch(&'static str),
    Loop,
    Closure,
    /// A method chain given a closure (`xs.windows(4).step_by(2).map(..)`),
    /// shown as its methods.
    Chain(String),
    Macro(String),
    /// A call, with the callee's name when it is a plain name (a local
    /// closure or function value, or a function).
    Call(Option<String>),
}

/// The first construct in `expr` that hides a derivative, with the tokens
/// to point at.
fn construct(expr: &syn::Expr) -> Option<(proc_macro2::TokenStream, Construct)> {
    struct Find(Option<(proc_macro2::TokenStream, Construct)>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            if self.0.is_some() {
                return;
            }
            use syn::Expr as E;
            self.0 = match e {
                E::If(x) if matches!(*x.cond, E::Let(_)) => {
                    Some((x.if_token.to_token_stream(), Construct::Branch("if let")))
                }
                E::If(x) => Some((x.if_token.to_token_stream(), Construct::Branch("if"))),
                E::Match(x) => Some((x.match_token.to_token_stream(), Construct::Branch("match"))),
                E::ForLoop(x) => Some((x.for_token.to_token_stream(), Construct::Loop)),
                E::While(x) => Some((x.while_token.to_token_stream(), Construct::Loop)),
                E::Loop(x) => Some((x.loop_token.to_token_stream(), Construct::Loop)),
                E::MethodCall(m) if m.args.iter().any(|a| matches!(a, E::Closure(_))) => {
                    let mut methods = Vec::new();
                    let mut at: &E = e;
                    while let E::MethodCall(c) = at {
                        methods.push(format!(".{}(..)", c.method));
                        at = &c.receiver;
                    }
                    methods.reverse();
                    Some((
                        m.method.to_token_stream(),
                        Construct::Chain(methods.concat()),
                    ))
                }
                E::Closure(x) => Some((x.or1_token.to_token_stream(), Construct::Closure)),
                E::Macro(x) => Some((
                    x.to_token_stream(),
                    Construct::Macro(
                        x.mac
                            .path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default(),
                    ),
                )),
                E::Call(x) => Some((
                    x.func.to_token_stream(),
                    Construct::Call(match &*x.func {
                        E::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                        _ => None,
                    }),
                )),
                _ => None,
            };
            if self.0.is_none() {
                syn::visit::visit_expr(self, e);
            }
        }
    }
    let mut find = Find(None);
    find.visit_expr(expr);
    find.0
}

/// The message for a call of a function the function is given as a
/// parameter (`f: &F` with `F: Fn(..)`, `f: fn(f64) -> f64`), whose body
/// #[grad] cannot see; `None` for another construct.
fn parameter_call(what: &Construct, f: &Function, name: &str) -> Option<String> {
    let Construct::Call(Some(callee)) = what else {
        return None;
    };
    f.params.iter().any(|p| p.ident == callee).then(|| format!(
        "#[grad] cannot differentiate through `{callee}(..)`: `{callee}` is a function given as a parameter, whose body #[grad] does not see, and what it is given depends on `{name}`; call a function with #[grad] by its name here (`rhs(y)`), or write one function per right-hand side"
    ))
}

fn construct_message(what: Construct, name: &str, held: &[String]) -> String {
    match what {
        Construct::Loop if !held.is_empty() => format!(
            "#[grad] cannot follow {} through this loop: the loop is kept as written because {} not a variable #[grad] models (it was bound by a pattern or an initializer #[grad] does not look into), yet it comes to depend on `{name}` and reaches the result; bind it with `let mut name = <float expression>;` before the loop, or, for a `Vec` filled by `push`, write its type (`let mut name: Vec<f64> = Vec::new();`, or `Vec<T>` in a function generic over `T`)",
            held.join(", "),
            if held.len() == 1 { "it is" } else { "they are" },
        ),
        Construct::Branch(keyword) => format!(
            "#[grad] does not support `{keyword}` here yet: this value depends on `{name}` through it; branch with `if` on a condition, or `match` on a value that does not depend on `{name}`"
        ),
        Construct::Loop => format!(
            "#[grad] does not support loops that compute active values yet: this value depends on `{name}` through the loop; unroll it by hand"
        ),
        Construct::Closure => format!(
            "#[grad] differentiates a closure where the body calls it by name (`let f = |v| ..; f(x)`); this one depends on `{name}` and is used otherwise (passed on, returned or stored): call it, or write the computation inline"
        ),
        Construct::Chain(chain) => format!(
            "#[grad] cannot differentiate this iterator chain, `{chain}`: its result depends on `{name}`, and #[grad] reads a chain as the loop it stands for only from the sources and adapters README lists under \"iterator chains\" (`step_by` after `windows` and a chain over a collected `Vec` of `Vec`s are not among them); write it as a `for` loop over indices"
        ),
        Construct::Macro(mac) => format!(
            "#[grad] cannot differentiate through the macro call `{mac}!`: this value depends on `{name}` through it; compute the value with supported operations instead of a macro"
        ),
        // `last = Some(x);`: an `Option` held as a loop's state.
        Construct::Call(Some(callee)) if matches!(callee.as_str(), "Some" | "Ok" | "Err") => format!(
            "#[grad] does not follow a value that depends on `{name}` through `{callee}(..)`: it follows an `Option` or a `Result` only as what a function returns (with `?`); keep the value in a float variable and whether there is one in a `bool`, as in `let mut last = 0.0; let mut seen = false; .. if seen {{ .. last .. }} last = x; seen = true;`"
        ),
        Construct::Call(Some(callee)) if callee.starts_with(|c: char| c.is_ascii_uppercase()) => format!(
            "#[grad] cannot differentiate through `{callee}(..)`: it builds a tuple struct or an enum's variant, whose fields #[grad] does not follow, and what it is given depends on `{name}`; give the struct named fields (`struct {callee} {{ x: f64, y: f64 }}`, built as `{callee} {{ x: a, y: b }}` and read as `p.x`), or keep the values in variables"
        ),
        Construct::Call(Some(callee)) => format!(
            "#[grad] cannot differentiate the call to `{callee}` here: its result depends on `{name}` inside code kept as written (a value changed in place in a way #[grad] does not follow, or bound by a pattern it does not model); a function `{callee}` with `#[grad]` on it, call it in a `let` of its own that states the result's type (`let v: Vec<f64> = {callee}(..);`, `[f64; 3]` or a struct's) and change a copy of it (`let mut w = v.clone();`); a closure `{callee}` returning an array, a tuple or a struct, write it as a function with `#[grad]` (`fn {callee}(..) -> [f64; 2]`; a closure's value is differentiated when it is a float, or a list it ends with after plain `let`s, `[a, b]`, bound by a `let` of its own); or compute the value inline"
        ),
        Construct::Call(None) => format!(
            "#[grad] cannot differentiate this call: its result depends on `{name}`; call a float method or a runtime function, or compute the value inline"
        ),
    }
}

/// The refusal of a statement `recv.method(args);` kept as written that
/// may store a value carrying a derivative in a struct the macro models:
/// what to write instead. `None` for any other statement.
fn method_kept_as_written(tokens: &proc_macro2::TokenStream, name: &str) -> Option<String> {
    let syn::Stmt::Expr(syn::Expr::MethodCall(m), _) =
        syn::parse2::<syn::Stmt>(tokens.clone()).ok()?
    else {
        return None;
    };
    // `c.set(a * b)` of a `Cell` (a `RefCell`'s value through
    // `borrow_mut`): a value kept behind a shared reference; also a
    // struct's field, `m.v.set(..)`.
    let interior = |method: &syn::Ident, recv: &str| {
        ["set", "replace", "swap", "take", "update", "get_or_init"]
            .iter()
            .any(|i| method == i)
            .then(|| format!(
                "#[grad] cannot follow `{recv}.{method}(..)` here: what it is given depends on `{name}`, and it may keep it in `{recv}` (as a `Cell` does), where #[grad] cannot follow a value: keep the value in a variable instead (`let mut v = 0.0; .. v = ..;`), or in a struct's field (`s.v = ..`)"
            ))
    };
    if let syn::Expr::Field(_) = &*m.receiver {
        return interior(&m.method, &crate::diag::show(&m.receiver.to_token_stream()));
    }
    let syn::Expr::Path(p) = &*m.receiver else {
        return None;
    };
    let recv = p.path.get_ident()?.to_string();
    // The receiver as the user named it (`local_structs` calls the struct
    // it builds again for the call `<name>_recv`).
    let user_name = |n: &str| match n.rfind("_recv") {
        Some(at) if n[at + 5..].chars().all(|c| c == '_' || c.is_ascii_digit()) => {
            n[..at].to_string()
        }
        _ => n.to_string(),
    };
    let (recv, name) = (user_name(&recv), user_name(name));
    let method = &m.method;
    if recv == name {
        return Some(active_struct_method(&method.to_string()));
    }
    // A push into a `Vec` whose element type #[grad] does not see: also
    // one field's `Vec` of a `Vec` of structs (`desugar/struct_vecs.rs`
    // pushes each element field by field), given a call's result.
    // A row pushed into a `Vec` that `desugar/struct_vecs.rs` left whole.
    let row = matches!(
        m.args.first(),
        Some(syn::Expr::Array(_) | syn::Expr::Tuple(_) | syn::Expr::Repeat(_))
    );
    if method == "push" && row {
        return Some(rows_used_whole(&recv, "what is pushed depends", &name));
    }
    if let Some(msg) = interior(method, &recv) {
        return Some(msg);
    }
    if method == "push" {
        return Some(format!(
            "#[grad] cannot tell that what is pushed into `{recv}` is a float (a call's result, whose type it does not see), and it depends on `{name}`: bind the value with its type first (`let e: f64 = ..;`) and push that, or write the `Vec`'s type (`Vec<f64>`); in a `Vec` of structs, which #[grad] keeps as one `Vec` per field (`{recv}`), bind a field's value that way before the struct (`let e: f64 = b.energy();`, then `x: e` in it)"
        ));
    }
    Some(format!(
        "#[grad] cannot follow `{recv}.{method}(..)` here: what it is given depends on `{name}`, which it may keep in `{recv}`, and #[grad] follows `{recv}` by its fields only (it started from `Default::default()`, or its type is not seen); build `{recv}` with a struct literal (`let mut {recv} = S {{ .. }};`) or as a copy of a differentiated parameter, so that the call of a `#[grad]` method changing it (a struct writer, `fn {method}(&mut self, ..)`) is followed, or change its fields here (`{recv}.field += ..`)"
    ))
}

/// The refusal of a `Vec` of rows that `desugar/struct_vecs.rs` left
/// whole, `what` (its rows, what is pushed) depending on `name`, with
/// its verb.
fn rows_used_whole(recv: &str, what: &str, name: &str) -> String {
    format!(
        "#[grad] follows a `Vec` of rows (`[f64; N]` with `N` a literal, tuples of floats) as one float `Vec` per position where it is used only by position (`{recv}[i][0]`, `{recv}[i][d]`, `{recv}[i].0`, `p[0]` in `for p in &{recv}`), by `{recv}.len()`, by loops and chains over its rows, by a row read whole (`let r = {recv}[i];`) and handed whole to or from another such `Vec` (`{recv} = next;`, `std::mem::swap(&mut {recv}, &mut next)`); here `{recv}` is used otherwise (passed whole to a function, a method of `Vec`'s other than `push` and `len`, a row's method that may change it such as `{recv}[i].iter_mut()`, a part lent by `&mut`), and {what} on `{name}`: use it only in those ways (pass a function its rows one at a time, `f(&{recv}[i])`), or keep one `Vec<f64>` per position"
    )
}

/// The refusal of a method without #[grad] called on a struct whose fields
/// carry a derivative.
fn active_struct_method(method: &str) -> String {
    format!(
        "#[grad] cannot see what this does to the struct it is called on, whose fields depend on the differentiated inputs and reach the result: a method without `#[grad]` may change it (`&mut self`). Put `#[grad(wrt(self, ..))]` on the method and return the new value, `fn {method}(&self, ..) -> Self`, called as `s = s.{method}(..);`"
    )
}

/// The refusal of a local nested array `h` (as "`name`") whose elements
/// depend on `name`.
fn nested_message(h: &str, name: &str) -> String {
    // A nested array given whole to a struct's field (`self.p = [[..],
    // [..]];`), bound first to a name of the macro's (`lower/places.rs
    // field_copy`).
    if h.starts_with("`__") && h.ends_with("_field`") {
        return format!(
            "#[grad] models float arrays of one dimension, not nested ones yet, and this nested array is given whole to a struct's field; its elements come to depend on `{name}` and reach the result: keep the field flat (`p: [f64; 4]`, read and written as `p[i * 2 + j]`)"
        );
    }
    format!(
        "#[grad] models local float arrays of one dimension, not nested ones yet, and {h} is nested; its elements come to depend on `{name}` and reach the result: flatten it, as in `let mut m = vec![0.0; rows * cols];` read and written as `m[i * cols + j]`, or keep its rows in a `Vec` whose type is written, `let mut m: Vec<[f64; 2]> = vec![[a, b], [c, d]];` (a nested parameter, `&[Vec<f64>]` or `[[f64; 3]; 3]`, is differentiated)"
    )
}
