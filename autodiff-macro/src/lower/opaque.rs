//! Code kept as written: what it reads, what it may change, and what is
//! refused inside it.

use super::*;

/// Identifiers that may name locals in a macro's tokens.
/// Whether `m`, in code kept as written, may be a method of the user's
/// that leaves its receiver as it was (`Function::lent_calls`): a name
/// that may be the user's and hands out no way into the receiver, called
/// on a place named from the function's scope (`p0.m0(x)`,
/// `p0.inner.m(x)`), not on what another method returned (`chained`).
pub(crate) fn may_leave_receiver(m: &syn::ExprMethodCall, chained: bool) -> bool {
    let name = m.method.to_string();
    rules::maybe_users_method(&name)
        && !rules::hands_out_interior(&name)
        && field_chain_root(&m.receiver).is_some()
        && !chained
}

/// The plain name at the root of `p`, `p.inner`, `(p.a.b)`: a place
/// named from the function's scope, not through an index or a call.
pub(crate) fn field_chain_root(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => field_chain_root(&f.base),
        syn::Expr::Paren(p) => field_chain_root(&p.expr),
        _ => None,
    }
}

pub(crate) fn token_idents(tokens: TokenStream) -> Vec<String> {
    let mut names = Vec::new();
    let mut prev_dot = false;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) => {
                let next_is_path = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!' || p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Joint);
                if !prev_dot && !next_is_path {
                    names.push(id.to_string());
                }
            }
            TokenTree::Group(g) => names.extend(token_idents(g.stream())),
            TokenTree::Literal(lit) => names.extend(format_captures(&lit.to_string())),
            TokenTree::Punct(_) => {}
        }
        prev_dot = matches!(tt, TokenTree::Punct(p) if p.as_char() == '.');
    }
    names
}

/// `{name}` and `{name:...}` in a string literal's text.
pub(super) fn format_captures(lit: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !lit.starts_with('"') && !lit.starts_with('r') {
        return out;
    }
    let mut rest = lit;
    while let Some(pos) = rest.find('{') {
        rest = &rest[pos + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && matches!(rest[end..].chars().next(), Some('}' | ':'))
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Where code kept as written changes a modelled variable.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Within {
    Branch,
    Loop,
    Closure,
    Expression,
}

pub(super) fn changed_inside_message(name: &str, within: Within) -> String {
    let (place, instead) = match within {
        Within::Branch => (
            "a branch",
            format!("assign the value of the whole branch instead, as in `{name} = if c {{ a }} else {{ b }};`"),
        ),
        Within::Loop => (
            "this loop",
            "write it as a `for`, `while` or `loop` without a label, with `break` and `continue` only at the end of a branch of an `if` or an arm of a `match`".to_string(),
        ),
        Within::Closure => ("a closure", "write the computation inline".to_string()),
        Within::Expression => (
            "an expression",
            format!("make the assignment a statement of its own, as in `{name} = ...;`"),
        ),
    };
    format!("#[grad] does not support changing `{name}` inside {place} yet: {instead}")
}

/// The local a place expression is rooted in: `v` for `v[i].x`.
pub(super) use crate::desugar::internal::place_root as base_local;

mod changed;
pub(super) use changed::{
    changed_by_vec_methods, changed_in_place, lent_mut, lent_to_calls, mutable_names, read_names,
};

/// The standard macros that only read what they are given.
pub(super) fn is_read_only_macro(mac: &syn::Macro) -> bool {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    matches!(
        name.as_str(),
        "vec"
            | "matches"
            | "println"
            | "print"
            | "eprintln"
            | "eprint"
            | "format"
            | "format_args"
            | "write"
            | "writeln"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "debug_assert_ne"
            | "panic"
            | "unreachable"
            | "todo"
            | "unimplemented"
            | "trace"
            | "debug"
            | "info"
            | "warn"
            | "error"
    )
}

/// The keyword of an expression that leaves the function.
pub(super) fn control_flow_token(e: &syn::Expr) -> TokenStream {
    use syn::Expr as E;
    match e {
        E::Return(x) => x.return_token.to_token_stream(),
        E::Try(x) => x.question_token.to_token_stream(),
        E::Await(x) => x.await_token.to_token_stream(),
        E::Async(x) => x.async_token.to_token_stream(),
        _ => e.to_token_stream(),
    }
}

/// Why an expression that leaves the function, or could, is refused.
pub(super) fn control_flow_message(e: &syn::Expr) -> String {
    use syn::Expr as E;
    let (what, instead) = match e {
        E::Return(_) => (
            "`return` before the last statement",
            "end the function with the returned value",
        ),
        E::Try(_) => (
            "the `?` operator",
            "handle the error before the differentiated computation",
        ),
        E::Await(_) | E::Async(_) => ("`async` code", "differentiate a synchronous function"),
        _ => ("`yield`", "differentiate a plain function"),
    };
    format!("#[grad] does not support {what} yet: {instead}")
}

/// The names an expression may change in place (receivers of methods,
/// `&mut` borrows, assignment targets, names given to a macro that may
/// write them), and the calls of methods that may be the user's on a
/// place with a plain name at its root (`p0.m0(x)`, `p0.inner.m(x)`),
/// which [`Lowerer::shared_method_call`] sorts.
pub(super) fn targets(e: &syn::Expr) -> (Vec<String>, Vec<(String, syn::ExprMethodCall)>) {
    struct Targets(Vec<String>, Vec<(String, syn::ExprMethodCall)>, bool);
    impl<'a> Visit<'a> for Targets {
        // Assignments at any depth (inside a loop or block kept as
        // written): `x *= k` changes `x` as surely as `x.push(k)`.
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            if let Some(n) = base_local(&a.left) {
                self.0.push(n);
            }
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if compound_op(&b.op).is_some() {
                if let Some(n) = base_local(&b.left) {
                    self.0.push(n);
                }
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            // A method that only reads (`data.ys.len()`, `x.sin()`)
            // changes nothing.
            let name = m.method.to_string();
            let reads_only = rules::leaves_receiver(&name);
            // Called on what another method returned (`p.log.
            // borrow_mut().push(r)`): that one's value may be a way
            // into its receiver, so it is no call that leaves it.
            let chained = std::mem::replace(&mut self.2, false);
            let leaves = may_leave_receiver(m, chained);
            match (reads_only, base_local(&m.receiver)) {
                (false, Some(n)) if leaves => self.1.push((n, m.clone())),
                (false, Some(n)) => self.0.push(n),
                _ => {}
            }
            self.2 = matches!(&*m.receiver, syn::Expr::MethodCall(_));
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some() {
                if let Some(n) = base_local(&r.expr) {
                    self.0.push(n);
                }
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_expr_macro(&mut self, m: &'a syn::ExprMacro) {
            if !is_read_only_macro(&m.mac) {
                self.0.extend(token_idents(m.mac.tokens.clone()));
            }
        }
    }
    let mut t = Targets(vec![], vec![], false);
    t.visit_expr(e);
    (t.0, t.1)
}

/// The locals `e` lends whole by `&` to a call (`store(&c, v)`,
/// `log.record(&c)`): what a value with interior mutability lent so may
/// have changed. Not inside a closure, which lends nothing until called.
fn shared_loans(e: &syn::Expr) -> Vec<String> {
    #[derive(Default)]
    struct Loans(Vec<String>);
    impl Loans {
        fn args<'a>(&mut self, args: impl IntoIterator<Item = &'a syn::Expr>) {
            for a in args {
                if let syn::Expr::Reference(r) = a {
                    if let (None, syn::Expr::Path(p)) = (&r.mutability, &*r.expr) {
                        self.0.extend(p.path.get_ident().map(|i| i.to_string()));
                    }
                }
            }
        }
    }
    impl<'a> Visit<'a> for Loans {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            self.args(&c.args);
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.args(&m.args);
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut loans = Loans::default();
    loans.visit_expr(e);
    loans.0
}

impl Lowerer {
    /// New versions of the opaque variables among `names`.
    pub(super) fn new_versions(&mut self, names: Vec<String>) -> Vec<ValueId> {
        let mut defs = Vec::new();
        for n in names {
            if let Some(Binding::Value(v)) = self.lookup(&n).cloned() {
                // A struct the macro models, changed by a method kept as
                // written (`acc.add(a * a);`, which may store `a * a` in
                // it): from there on, what the statement left in it, so
                // that reading it after takes the statement's reads
                // (and is refused where those carry a derivative), not
                // the struct as built.
                // So is a value of a type the source does not state (`let c
                // = Cell::new(0.0); c.set(a * b);`, a call's result): what
                // the statement left in it, not the value as made.
                let changed_struct = self.values[v.0].kind == ValueKind::Def
                    && (self.values[v.0].ty.composite().is_some()
                        || self.values[v.0].ty == Ty::Unknown);
                if (self.values[v.0].kind == ValueKind::Opaque || changed_struct)
                    && !defs
                        .iter()
                        .any(|d: &ValueId| self.values[d.0].name.as_deref() == Some(n.as_str()))
                {
                    // The value as made is the variable the statement
                    // changes in place: bound under the user's name, as the
                    // statement names it (`emit/names.rs`), not numbered.
                    if self.values[v.0].ty == Ty::Unknown {
                        self.values[v.0].kind = ValueKind::Opaque;
                    }
                    let span = self.values[v.0].span;
                    let new = self.new_value(Some(n.clone()), Ty::Unknown, ValueKind::Opaque, span);
                    // `order.reverse();`: still a sequence of integers.
                    if self.owned_slices.contains(&v) {
                        self.owned_slices.insert(new);
                    }
                    self.assign(&n, new);
                    defs.push(new);
                }
            }
        }
        defs
    }

    /// The opaque locals an expression statement may change: receivers of
    /// method calls, `&mut` borrows and assignment targets.
    pub(super) fn mutated_opaque_locals(&mut self, e: &syn::Expr) -> Vec<ValueId> {
        let (mut changed, calls) = targets(e);
        for (n, call) in calls {
            if !self.shared_method_call(&n, &call) {
                changed.push(n);
            }
        }
        // A local closure called here changes what its body changes
        // (`let add = |e| energy.set(energy.get() + e); .. add(x);`).
        struct Called(Vec<String>);
        impl<'a> Visit<'a> for Called {
            fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
                if let syn::Expr::Path(p) = &*c.func {
                    self.0.extend(p.path.get_ident().map(|i| i.to_string()));
                }
                syn::visit::visit_expr_call(self, c);
            }
        }
        let mut called = Called(Vec::new());
        called.visit_expr(e);
        for f in called.0 {
            if let Some(Binding::Value(v)) = self.lookup(&f) {
                changed.extend(self.closure_changes.get(v).cloned().unwrap_or_default());
            }
        }
        // `store(&c, a * b);` of `let c = Cell::new(1.0);`: a value of a
        // type the source does not state, lent by `&` to code kept as
        // written, which may change it through the reference (a `Cell`,
        // a `RefCell` inside).
        changed.extend(shared_loans(e).into_iter().filter(|n| {
            matches!(self.lookup(n), Some(Binding::Value(v)) if self.values[v.0].ty == Ty::Unknown)
        }));
        self.new_versions(changed)
    }

    /// The locals a closure's body may change (`targets`, each method of
    /// the user's counted as changing its receiver), which each call of it
    /// changes.
    pub(super) fn record_closure_changes(&mut self, value: ValueId, closure: &syn::ExprClosure) {
        let (mut names, calls) = targets(&closure.body);
        names.extend(calls.into_iter().map(|(n, _)| n));
        if !names.is_empty() {
            self.closure_changes.insert(value, names);
        }
    }

    /// `p0.m0(x)` in code kept as written, `p0` a struct the function
    /// takes by `&` that nothing has changed so far: recorded as a
    /// [`LentCall`], which leaves `p0` as it was. Returns whether it is.
    fn shared_method_call(&mut self, n: &str, call: &syn::ExprMethodCall) -> bool {
        let param = match self.lookup(n) {
            Some(Binding::Value(v)) if self.shared_params.contains(v) => n.to_string(),
            _ => return false,
        };
        let mut given = self.reads_of_expr(&call.receiver);
        let args: Vec<(syn::Expr, Reads)> = call
            .args
            .iter()
            .map(|a| (a.clone(), self.reads_of_expr(a)))
            .collect();
        for (_, reads) in &args {
            given.0.extend(reads.0.iter().cloned());
        }
        self.lent_calls.push(LentCall {
            param,
            recv: (*call.receiver).clone(),
            method: call.method.clone(),
            args,
            given,
        });
        true
    }

    /// Refuses, inside code kept as written, what would change a modelled
    /// variable behind the macro's back or hide control flow. Returns
    /// whether the expression is acceptable.
    pub(super) fn check_opaque(&mut self, e: &syn::Expr) -> bool {
        struct Check<'c> {
            cx: &'c mut Lowerer,
            ok: bool,
            /// The constructs around the expression being visited.
            within: Vec<Within>,
            /// The names the code kept as written binds itself, per open
            /// block: `let mut h = ..; h = ..;` in a loop changes its own
            /// `h`, not a modelled one of the same name outside.
            locals: super::locals::LocalNames,
        }
        impl Check<'_> {
            fn declared(&self, n: &str) -> bool {
                self.locals.declared(n)
            }

            /// Visits `f` in a block of its own, with `pats` bound.
            fn scoped(&mut self, pats: &[&syn::Pat], f: impl FnOnce(&mut Self)) {
                self.locals.open(pats);
                f(self);
                self.locals.close();
            }

            /// The modelled local a place expression changes, if any.
            fn modelled(&self, place: &syn::Expr) -> Option<String> {
                let n = base_local(place)?;
                if self.declared(&n) {
                    return None;
                }
                match self.cx.lookup(&n) {
                    Some(Binding::Value(v)) if self.cx.values[v.0].kind == ValueKind::Opaque => {
                        None
                    }
                    Some(_) => Some(n),
                    None => None,
                }
            }

            fn refuse(&mut self, tokens: impl ToTokens, msg: String) {
                error(self.cx, tokens, msg);
                self.ok = false;
            }

            fn changes(&mut self, e: &syn::Expr, place: &syn::Expr) {
                if let Some(n) = self.modelled(place) {
                    let within = self.within.last().copied().unwrap_or(Within::Expression);
                    self.refuse(e, changed_inside_message(&n, within));
                }
            }
        }
        impl<'a> Visit<'a> for Check<'_> {
            fn visit_block(&mut self, b: &'a syn::Block) {
                self.scoped(&[], |c| syn::visit::visit_block(c, b));
            }
            fn visit_local(&mut self, l: &'a syn::Local) {
                if let Some(init) = &l.init {
                    self.visit_expr(&init.expr);
                    if let Some((_, d)) = &init.diverge {
                        self.visit_expr(d);
                    }
                }
                self.locals.declare(&l.pat);
            }
            fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
                self.visit_expr(&f.expr);
                self.scoped(&[&f.pat], |c| c.visit_block(&f.body));
            }
            fn visit_expr_closure(&mut self, cl: &'a syn::ExprClosure) {
                let pats: Vec<&syn::Pat> = cl.inputs.iter().collect();
                self.scoped(&pats, |c| c.visit_expr(&cl.body));
            }
            fn visit_arm(&mut self, arm: &'a syn::Arm) {
                self.scoped(&[&arm.pat], |c| {
                    if let Some((_, g)) = &arm.guard {
                        c.visit_expr(g);
                    }
                    c.visit_expr(&arm.body);
                });
            }
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                use syn::Expr as E;
                let within = match e {
                    E::If(_) | E::Match(_) => Some(Within::Branch),
                    E::ForLoop(_) | E::While(_) | E::Loop(_) => Some(Within::Loop),
                    E::Closure(_) => Some(Within::Closure),
                    _ => None,
                };
                match e {
                    // A fallible function's error leaves the generated
                    // functions as it leaves the function.
                    E::Try(_) if self.cx.fallible => syn::visit::visit_expr(self, e),
                    // Inside a closure, `?` and `return` leave the closure.
                    E::Return(_) | E::Try(_) if self.within.contains(&Within::Closure) => {
                        syn::visit::visit_expr(self, e)
                    }
                    E::Return(_) if self.cx.fallible && crate::desugar::fallible::is_exit(e) => {
                        syn::visit::visit_expr(self, e)
                    }
                    E::Return(_) | E::Try(_) | E::Await(_) | E::Async(_) | E::Yield(_) => {
                        self.refuse(control_flow_token(e), control_flow_message(e));
                    }
                    E::Reference(r) if r.mutability.is_some() => {
                        if let Some(n) = self.modelled(&r.expr) {
                            let message = match &*r.expr {
                                // `let e = &mut v[i];` whose index changes
                                // while `e` is used (`desugar/refs.rs`).
                                E::Index(_) => format!(
                                    "#[grad] cannot follow changes made through a `&mut` reference to an element of `{n}` that is passed on, or used after its index changed: assign the element directly, as in `{n}[i] += ...`"
                                ),
                                // `let p = &mut *self;` in a struct writer.
                                _ if matches!(self.cx.lookup(&n), Some(Binding::Value(v)) if self.cx.values[v.0].ty.composite().is_some()) => format!(
                                    "#[grad] cannot follow changes made through `&mut {n}`: change the fields of `{n}` directly, as in `{n}.x += ...`, or assign the whole struct"
                                ),
                                _ => format!(
                                    "#[grad] cannot follow changes made through `&mut {n}`: assign `{n}` directly, as in `{n} = ...` or `{n} += ...`"
                                ),
                            };
                            self.refuse(e, message);
                        }
                    }
                    E::MethodCall(m) => {
                        let name = m.method.to_string();
                        if let Some(n) = base_local(&m.receiver).filter(|n| !self.declared(n)) {
                            let array = match self.cx.lookup(&n) {
                                Some(Binding::Value(v)) => self.cx.values[v.0].ty.array(),
                                _ => None,
                            };
                            // An element (`xs[i].sin()`, `w[i][j].abs()`) is a
                            // float, taken by value: the array stays as it is.
                            let depth = match array.map(|a| &a.shape) {
                                Some(Shape::Nested) => 2,
                                _ => 1,
                            };
                            let element = index_depth(&m.receiver) >= depth;
                            if array.is_some() && !element && !rules::reads_only(&name) {
                                let recv = crate::diag::show(&m.receiver.to_token_stream());
                                let place = match name.as_str() {
                                    "last_mut" => Some(format!("{recv}[{recv}.len() - 1]")),
                                    "first_mut" => Some(format!("{recv}[0]")),
                                    "get_mut" => Some(format!("{recv}[i]")),
                                    _ => None,
                                };
                                if let Some(place) = place {
                                    self.refuse(e, format!(
                                        "#[grad] cannot follow a change through `{recv}.{name}(..)`: it follows the array `{n}` through its elements by index; write the element as `{place}`, as in `{place} += ...`"
                                    ));
                                    return;
                                }
                                let follows = format!("#[grad] follows through `{n}[i] = ...`, `{n}.push(...)` and changes of the whole array (`{n} = ..`, `{n}.copy_from_slice(&..)`, `{n}.fill(..)`, `{n}.swap_with_slice(&mut ..)`, `std::mem::swap`)");
                                let message = if name == "clear" {
                                    // A push buffer emptied first in each step is
                                    // declared there (`desugar/hoisted.rs`), unless
                                    // it is read after the loop or before the clear
                                    // (trial 12 r1094).
                                    format!("#[grad] cannot follow `{recv}.clear()`: it empties the array `{n}`, which {follows}; a buffer emptied first in each step of a loop is declared afresh there, but only where nothing reads `{n}` after that loop or before the `clear` in a step: keep what is read there in an array of its own, declared before the loop and assigned whole in each step (`prev = u.clone();`), and declare the buffer in the loop, `let mut {n} = Vec::new();` where the `clear` is")
                                } else if name.starts_with("sort") {
                                    format!("#[grad] cannot follow `{recv}.{name}(..)`: it reorders the array `{n}`, which {follows}; sort a list of indices instead and read through it, as in `let mut order: Vec<usize> = (0..{n}.len()).collect(); order.sort_by(|&i, &j| {n}[i].total_cmp(&{n}[j]));` then `{n}[order[k]]`")
                                } else if rules::changes_in_place(&name) {
                                    format!("#[grad] cannot follow `{recv}.{name}(..)`: it changes the array `{n}`, which {follows}; write this one as a loop over the indices it changes")
                                } else {
                                    format!("#[grad] cannot follow `{recv}.{name}(..)` of the array `{n}`, which it follows element by element: write what it computes as a loop over the indices, as in `for i in 0..{n}.len() {{ .. {n}[i] .. }}` (a new array: `let mut out = {n}; for i in 0..out.len() {{ out[i] = .. {n}[i] ..; }}`)")
                                };
                                self.refuse(e, message);
                            }
                        }
                    }
                    E::Assign(a) => self.changes(e, &a.left),
                    E::Binary(b) if compound_op(&b.op).is_some() => self.changes(e, &b.left),
                    _ => {}
                }
                if let Some(w) = within {
                    self.within.push(w);
                }
                syn::visit::visit_expr(self, e);
                if within.is_some() {
                    self.within.pop();
                }
            }
        }
        let mut c = Check {
            cx: self,
            ok: true,
            within: vec![],
            locals: super::locals::LocalNames::new(),
        };
        c.visit_expr(e);
        c.ok
    }

    /// The locals an expression reads, with the values they hold.
    pub(super) fn reads_of_expr(&self, e: &syn::Expr) -> Reads {
        struct Paths<'c> {
            cx: &'c Lowerer,
            reads: Vec<(String, ValueId)>,
        }
        impl<'a> Visit<'a> for Paths<'_> {
            fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
                if let Some(i) = p.path.get_ident() {
                    self.cx.push_read(&i.to_string(), &mut self.reads);
                }
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                let inner = self.cx.reads_of_tokens(m.tokens.clone());
                for (n, _) in inner.0 {
                    self.cx.push_read(&n, &mut self.reads);
                }
            }
        }
        let mut p = Paths {
            cx: self,
            reads: vec![],
        };
        p.visit_expr(e);
        Reads(p.reads)
    }

    /// The locals that tokens of a macro call mention: identifiers that are
    /// not field or method names, and `{name}` captures in string literals.
    pub(super) fn reads_of_tokens(&self, tokens: TokenStream) -> Reads {
        let mut reads = Vec::new();
        for n in token_idents(tokens) {
            self.push_read(&n, &mut reads);
        }
        Reads(reads)
    }

    pub(super) fn push_read(&self, name: &str, reads: &mut Vec<(String, ValueId)>) {
        if reads.iter().any(|(n, _)| n == name) {
            return;
        }
        if let Some(Binding::Value(v)) = self.lookup(name) {
            reads.push((name.to_string(), *v));
        }
    }
}

/// How many indexing steps `e` takes from its base: 2 for `w[i][j]`.
/// How many element indices `e` applies (`w[i][j]`: 2); a range index
/// (`u[..]`, `u[1..n]`) takes a slice, not an element, and counts none.
fn index_depth(e: &syn::Expr) -> usize {
    match e {
        syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => index_depth(&i.expr),
        syn::Expr::Index(i) => 1 + index_depth(&i.expr),
        syn::Expr::Paren(p) => index_depth(&p.expr),
        _ => 0,
    }
}
