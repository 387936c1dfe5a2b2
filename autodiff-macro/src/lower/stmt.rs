//! Statements: a `let` goes to `lets.rs`; an expression statement
//! (assignments, writers, statements kept as written) is here.

use super::*;

/// The `#[cfg(..)]` or `#[cfg_attr(..)]` a statement starts with.
fn outer_cfg(stmt: &syn::Stmt) -> Option<TokenStream> {
    let mut trees = stmt.to_token_stream().into_iter();
    while let Some(proc_macro2::TokenTree::Punct(p)) = trees.next() {
        if p.as_char() != '#' {
            return None;
        }
        let Some(proc_macro2::TokenTree::Group(g)) = trees.next() else {
            return None;
        };
        let first = g.stream().into_iter().next();
        if matches!(&first, Some(proc_macro2::TokenTree::Ident(i)) if i == "cfg" || i == "cfg_attr")
        {
            let (hash, group) = (p, g);
            return Some(quote::quote!(#hash #group));
        }
    }
    None
}

impl Lowerer {
    /// The statements, lowered in turn.
    fn stmts_in_turn(&mut self, stmts: &[syn::Stmt], out: &mut Vec<Inst>) {
        for st in stmts {
            self.stmt(st, out);
        }
    }

    /// The values of the places `a` and `b` exchanged: `let t = a; a = b; b
    /// = t;`.
    fn exchange(&mut self, a: &impl ToTokens, b: &impl ToTokens, span: Span, out: &mut Vec<Inst>) {
        let (_, acc) = self.internal.fresh_loop();
        let t = syn::Ident::new(&format!("{acc}_swapped"), span);
        self.stmts_in_turn(
            &[
                syn::parse_quote!(let #t = #a;),
                syn::parse_quote!(#a = #b;),
                syn::parse_quote!(#b = #t;),
            ],
            out,
        );
    }

    /// `v.swap(i, j)` of a float array the macro models, at indices that
    /// read variables, literals and arithmetic only: the two places.
    fn swapped_elements(&self, m: &syn::ExprMethodCall) -> Option<(syn::Expr, syn::Expr)> {
        if m.method != "swap" || m.args.len() != 2 {
            return None;
        }
        let (v, i, j) = (&m.receiver, &m.args[0], &m.args[1]);
        let pure = super::writer_calls::pure_index(i) && super::writer_calls::pure_index(j);
        (self.is_array_name(v) && pure)
            .then(|| (syn::parse_quote!(#v[#i]), syn::parse_quote!(#v[#j])))
    }

    pub(super) fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Inst>) {
        // `#[cfg(..)] { s += x * x; }`: lowered, the block would run
        // whether or not it is compiled (a `let`'s is refused in `local`).
        if !matches!(stmt, syn::Stmt::Local(_) | syn::Stmt::Item(_)) {
            if let Some(attr) = outer_cfg(stmt) {
                error(self, attr, "#[grad] cannot tell whether a statement under `#[cfg]` is compiled: put the `#[cfg]` on whole functions instead, or branch on `cfg!(..)` (`if cfg!(debug_assertions) { .. }`)");
                return;
            }
        }
        match stmt {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Item(item) => out.push(Inst::Verbatim {
                tokens: item.to_token_stream(),
                kind: VerbatimKind::Item,
                defs: vec![],
                reads: Reads::default(),
            }),
            syn::Stmt::Macro(m) => self.effect(stmt.to_token_stream(), &m.mac, out),
            syn::Stmt::Expr(e, semi) => self.expr_stmt(e, semi.is_some(), out),
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &syn::Expr, semi: bool, out: &mut Vec<Inst>) {
        if let Some(stmts) = self.whole_change(e) {
            for s in &stmts {
                self.stmt(s, out);
            }
            return;
        }
        // `step(&mut p, &mut 0.0, dt);`: a temporary lent to a writer is a
        // variable of its own, declared before the call.
        if let syn::Expr::Call(c) = e {
            let temporary = |a: &syn::Expr| {
                matches!(a, syn::Expr::Reference(r) if r.mutability.is_some()
                    && !matches!(&*r.expr, syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_)))
            };
            if semi && self.grad_function_path(c).is_some() && c.args.iter().any(temporary) {
                let mut call = c.clone();
                for a in call.args.iter_mut().filter(|a| temporary(a)) {
                    let syn::Expr::Reference(r) = a else { continue };
                    let (_, t) = self.internal.fresh_loop();
                    let t = syn::Ident::new(&t, r.expr.span());
                    let value = &r.expr;
                    self.stmt(&syn::parse_quote!(let mut #t = #value;), out);
                    *a = syn::parse_quote!(&mut #t);
                }
                return self.expr_stmt(&syn::Expr::Call(call), semi, out);
            }
        }
        match e {
            syn::Expr::Assign(a) if super::tuples::destructures(&a.left) => {
                self.destructuring(&a.left, &a.right, e, out)
            }
            // `prev = std::mem::replace(&mut x, next);` of a float (a
            // Verlet loop's shift): the new value first, then the old one
            // kept, `x` given the new one and `prev` the old one, as Rust
            // evaluates it (`x = replace(&mut x, v)` leaves `x` as it was).
            syn::Expr::Assign(a)
                if semi
                    && matches!(&*a.left, syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
                    && whole_changes::replaced(&a.right)
                        .is_some_and(|(n, _)| self.is_replaceable(n)) =>
            {
                if let Some((name, value)) = whole_changes::replaced(&a.right) {
                    let target = &a.left;
                    let (_, acc) = self.internal.fresh_loop();
                    let new = syn::Ident::new(&format!("{acc}_replacing"), name.span());
                    let old = syn::Ident::new(&format!("{acc}_replaced"), name.span());
                    let stmts: [syn::Stmt; 4] = [
                        syn::parse_quote!(let #new = #value;),
                        syn::parse_quote!(let #old = #name;),
                        syn::parse_quote!(#name = #new;),
                        syn::parse_quote!(#target = #old;),
                    ];
                    for st in &stmts {
                        self.stmt(st, out);
                    }
                }
            }
            syn::Expr::Assign(a) => self.assignment(&a.left, None, &a.right, e, out),
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                self.assignment(&b.left, compound_op(&b.op), &b.right, e, out)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                // A block statement's value, if any, is discarded.
                self.block(&b.block, out, Mode::Unit);
            }
            syn::Expr::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                self.lower_if(x, out, Mode::Unit);
            }
            syn::Expr::If(x) if crate::desugar::if_let::as_match(x).is_some() => {
                if let Some(m) = crate::desugar::if_let::as_match(x) {
                    self.lower_match(&m, out, Mode::Unit);
                }
            }
            syn::Expr::Match(m) => {
                self.lower_match(m, out, Mode::Unit);
            }
            syn::Expr::MethodCall(m)
                if m.method == "push"
                    && m.args.len() == 1
                    && self.modelled_array(&m.receiver).is_some() =>
            {
                let array = self.modelled_array(&m.receiver).expect("checked");
                // A parameter's gradient has the length the caller gave it.
                if matches!(self.values[array.0].kind, ValueKind::Param(_)) {
                    let n = crate::diag::show(&m.receiver.to_token_stream());
                    error(self, e, format!(
                        "#[grad] differentiates `{n}` as the caller gave it, and a `push` would change its length and its gradient's: copy it first, as in `let mut {n} = {n}.clone();`"
                    ));
                    return;
                }
                if let Some(v) = self.expr(&m.args[0], out) {
                    let position = self.new_value(None, Ty::Int, ValueKind::Def, m.method.span());
                    out.push(Inst::Push {
                        array,
                        position,
                        value: v.operand,
                    });
                }
            }
            // `v.push(x);` or `v.reverse();` on a `#[grad]` call's result,
            // which the lowering reads in place (`vector_calls.rs`).
            syn::Expr::MethodCall(m) if semi && self.vec_call_result(m).is_some() => {
                let n = crate::diag::show(&m.receiver.to_token_stream());
                let method = &m.method;
                error(self, e, format!(
                    "#[grad] reads `{n}`, a `#[grad]` call's result, as the call gave it, and cannot follow `{method}` changing it: change a copy, as in `let mut w = {n}.clone(); w.{method}(..);`"
                ));
            }
            // `std::mem::replace(&mut x, next);` of a float, its old
            // value dropped: `x = next;`.
            syn::Expr::Call(_)
                if semi
                    && whole_changes::replaced(e).is_some_and(|(n, _)| self.is_replaceable(n)) =>
            {
                if let Some((name, value)) = whole_changes::replaced(e) {
                    self.stmt(&syn::parse_quote!(#name = #value;), out);
                }
            }
            // A bare `swap(&mut a, &mut b)`, `replace(&mut a, v)`,
            // `take(&mut a)`: `std::mem`'s after `use std::mem::swap;`, or
            // a function of the user's that does something else, which
            // the macro cannot tell apart; said, with the path to write.
            syn::Expr::Call(c) if semi && bare_mem_call(c).is_some() => {
                if let Some(name) = bare_mem_call(c) {
                    error(self, &c.func, format!(
                        "#[grad] cannot tell this `{name}(..)` from `std::mem::{name}`, and differentiates the two differently: write the path, `std::mem::{name}(..)` (or `mem::{name}`), or, for a function of yours named `{name}` (with `#[grad]` on it), call it by its path, `self::{name}(..)`"
                    ));
                }
            }
            // `std::mem::swap(&mut a, &mut b);` of two floats: the values
            // exchanged (`desugar/whole_arrays.rs` exchanges arrays).
            syn::Expr::Call(c) if semi && whole_changes::float_swap(c).is_some() => {
                if let Some((a, b)) = whole_changes::float_swap(c) {
                    self.exchange(&a, &b, a.span(), out);
                }
            }
            // `decay(&mut v[i], r);` of an element of a float array: the
            // element lent as a variable of its own, `let mut e = v[i];
            // decay(&mut e, r); v[i] = e;`, which `writer_call` follows.
            syn::Expr::Call(c) if semi && self.element_writer_arg(c).is_some() => {
                if let Some((k, place)) = self.element_writer_arg(c) {
                    let (_, acc) = self.internal.fresh_loop();
                    let t = syn::Ident::new(&format!("{acc}_element"), place.span());
                    let mut call = c.clone();
                    call.args[k] = syn::parse_quote_spanned!(place.span()=> &mut #t);
                    self.stmts_in_turn(
                        &[
                            syn::parse_quote!(let mut #t = #place;),
                            syn::parse_quote!(#call;),
                            syn::parse_quote!(#place = #t;),
                        ],
                        out,
                    );
                }
            }
            // `v.swap(i, j);` of a float array: the elements exchanged.
            syn::Expr::MethodCall(m) if semi && self.swapped_elements(m).is_some() => {
                if let Some((a, b)) = self.swapped_elements(m) {
                    self.exchange(&a, &b, m.method.span(), out);
                }
            }
            syn::Expr::Call(c) if semi && self.array_writer_arg(c).is_some() => {
                if let Some((k, name)) = self.array_writer_arg(c) {
                    self.array_writer_call(c, k, &name, e, out);
                }
            }
            syn::Expr::Call(c) if semi && self.float_writer_args(c).is_some() => {
                if let Some(lent) = self.float_writer_args(c) {
                    self.float_writer_call(c, &lent, e, out);
                }
            }
            syn::Expr::Call(c) if semi && self.writer_arg(c).is_some() => {
                if let Some((k, name)) = self.writer_arg(c) {
                    self.writer_call(c, k, &name, e, out);
                }
            }
            // `kick(&mut b, f);`, `b.step(dt);` of a struct writer.
            syn::Expr::Call(c) if semi && self.struct_writer_arg(c).is_some() => {
                if let Some((k, name)) = self.struct_writer_arg(c) {
                    self.struct_writer_call(c, k, &name, e, out);
                }
            }
            syn::Expr::MethodCall(m) if semi && self.struct_writer_receiver(m).is_some() => {
                if let Some(name) = self.struct_writer_receiver(m) {
                    self.struct_writer_method(m, &name, e, out);
                }
            }
            syn::Expr::ForLoop(l) if self.lower_for(l, out) => {}
            syn::Expr::Loop(l) if self.lower_infinite(l, out) => {}
            syn::Expr::While(w) if self.lower_while(w, out) => {}
            // `while let Some(i) = todo.pop() { .. }` that changes modelled
            // variables, or returns from the function: the `loop` it stands
            // for.
            syn::Expr::While(w)
                if matches!(*w.cond, syn::Expr::Let(_))
                    && (!self.assigned_in(&[&w.body]).0.is_empty()
                        || self.returns_from(&w.body)) =>
            {
                let (_, next) = self.internal.fresh_loop();
                let next = syn::Ident::new(&format!("{next}_next"), w.while_token.span);
                match crate::desugar::if_let::while_let_as_loop(w, &next) {
                    Some(l) => self.expr_stmt(&syn::Expr::Loop(l), semi, out),
                    None => {
                        self.check_opaque(e);
                        let reads = self.reads_of_expr(e);
                        let defs = self.mutated_opaque_locals(e);
                        out.push(Inst::Verbatim {
                            tokens: e.to_token_stream(),
                            kind: VerbatimKind::Stmt,
                            defs,
                            reads,
                        });
                    }
                }
            }
            syn::Expr::Macro(m) => {
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                self.effect(tokens, &m.mac, out)
            }
            _ => {
                self.check_opaque(e);
                let reads = self.reads_of_expr(e);
                let defs = self.mutated_opaque_locals(e);
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                out.push(Inst::Verbatim {
                    tokens,
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
            }
        }
    }
}

/// `swap(&mut a, &mut b)`, `replace(&mut a, v)`, `take(&mut a)` named
/// bare, with a variable lent first: the name.
fn bare_mem_call(c: &syn::ExprCall) -> Option<&'static str> {
    let name = ["swap", "replace", "take"]
        .into_iter()
        .find(|n| crate::desugar::whole_arrays::mem_fn(c, n) == Some(false))?;
    let lent = c.args.first().and_then(super::opaque::lent_mut).is_some();
    let arity = match name {
        "take" => 1,
        _ => 2,
    };
    (lent && c.args.len() == arity).then_some(name)
}
