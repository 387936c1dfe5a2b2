//! Assignments as statements: `x = rhs`, `x op= rhs`, to a float the
//! lowering follows (a new value for the name), to an array's element,
//! a field, a tuple's parts, or code kept as written.

use super::*;

impl Lowerer {
    /// `target = rhs` or `target op= rhs` as a statement.
    pub(super) fn assignment(
        &mut self,
        target: &syn::Expr,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        // `s += { s = s * y; s };`, `v[i] += { i += 1; v[i] }`: of
        // primitives, Rust evaluates the right side first, then the
        // place; where the right side changes what the place reads, its
        // value is bound first (`let t = ..; s += t;`).
        let (written, calls) = super::opaque::targets(rhs);
        let mut read = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(target.to_token_stream(), &mut read);
        if written
            .iter()
            .chain(calls.iter().map(|(n, _)| n))
            .any(|n| read.contains(n))
        {
            let (_, base) = self.internal.fresh_loop();
            let value = syn::Ident::new(&format!("{base}_value"), rhs.span());
            self.stmt(
                &syn::parse_quote_spanned!(rhs.span()=> let #value = #rhs;),
                out,
            );
            let rhs: syn::Expr = syn::parse_quote!(#value);
            // What is kept as written assigns the value bound, too.
            let mut whole = whole.clone();
            match &mut whole {
                syn::Expr::Assign(a) => *a.right = rhs.clone(),
                syn::Expr::Binary(b) => *b.right = rhs.clone(),
                _ => {}
            }
            return self.assignment(target, op, &rhs, &whole, out);
        }
        if let Some((array, index)) = self.array_place(target) {
            return self.store(array, index, op, rhs, whole, out);
        }
        if self.field_assignment(target, op.as_ref(), rhs, out) {
            return;
        }
        let name = match target {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let binding = name.as_ref().and_then(|n| self.lookup(n).cloned());
        let (name, binding) = match (name, binding) {
            (Some(n), Some(b)) => (n, b),
            _ => {
                // `v[i] = e`, `p.x += e`, `*r = e`: a change to an opaque
                // variable, copied as written.
                if let Some(n) = base_local(target) {
                    if let Some(Binding::Value(v)) = self.lookup(&n) {
                        // `self.x += ..` in a method taking `&mut self` that
                        // returns a value: refused at `&mut self` already
                        // (`signature.rs`), which says what to write.
                        if n == "self" && self.errors.is_some() {
                            return;
                        }
                        if self.values[v.0].kind != ValueKind::Opaque {
                            let msg = match (self.call_results.contains(v), target) {
                                // `let mut d = sub(a, b); d[0] += k;`.
                                (true, syn::Expr::Index(_)) => format!(
                                    "#[grad] cannot follow this assignment into `{n}`, a call's result whose type the `let` does not state: write it, as in `let mut {n}: [f64; 3] = ..;` or `let mut {n}: Vec<f64> = ..;`: then `{n}` is a local array, filled from the result"
                                ),
                                // `let mut b = Body::new(x0, v0); b.v -= ..;`.
                                (true, syn::Expr::Field(_)) => format!(
                                    "#[grad] cannot follow this assignment into `{n}`, a call's result whose type the `let` does not state: write the struct's type, as in `let mut {n}: State = ..;`: then `{n}` is a struct the function holds, its fields assigned"
                                ),
                                // `let mut pos: Vec<[f64; 2]> = ..; pos[i][d] *= k;
                                // norm_all(&pos)`: rows the split left whole.
                                (false, syn::Expr::Index(_)) if self.facts.typed_rows.contains(&n) => format!(
                                    "#[grad] follows `{n}`, a `Vec` of rows, as one float `Vec` per position where it is used only by its rows and their parts (`{n}[i][d]`, `{n}.len()`, loops over its rows, a row read whole), and `{n}` is used otherwise (passed whole to a function, a method of `Vec`'s other than `push` and `len`, a part lent by `&mut`): pass a function its rows one at a time (`f(&{n}[i])`), or keep one `Vec<f64>` per position"
                                ),
                                // `let mut p = self.base; p[0] += dx;`.
                                (false, syn::Expr::Index(_)) => format!(
                                    "#[grad] cannot follow this assignment into `{n}`, whose type the `let` does not state: write it, as in `let mut {n}: [f64; 3] = ..;`: then `{n}` is a local array, a copy of what it is given"
                                ),
                                _ => format!(
                                    "#[grad] cannot follow this assignment into `{n}`: assign the whole variable, as in `{n} = ...`"
                                ),
                            };
                            error(self, target, msg);
                            return;
                        }
                    }
                }
                // The place too: `*a.last_mut().unwrap() += ..` changes
                // the modelled array `a` through a method.
                if !self.check_opaque(target) {
                    return;
                }
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.mutated_opaque_locals(whole);
                // Every variable the place names: `(a, b) = (x, y)` of
                // variables kept as written defines both.
                let defs = if defs.is_empty() {
                    self.new_versions(super::tuples::assigned_names(target))
                } else {
                    defs
                };
                return kept_assignment(whole, defs, reads, out);
            }
        };
        let current = match binding {
            Binding::Value(v) if self.values[v.0].kind == ValueKind::Opaque => {
                // `p_mode = p_recv.mode;`: the variable, kept as written,
                // takes the field read back as a constant, named first.
                if let Some(back) = self.constant_field_back(v, rhs, out) {
                    let (_, base) = self.internal.fresh_loop();
                    let read = syn::Ident::new(&format!("{base}_back"), rhs.span());
                    self.bind(read.to_string(), Binding::Value(back));
                    // Not read after the last call (`b.step(dt); b.x`):
                    // no warning in the user's crate.
                    let assign = syn::Expr::Assign(syn::ExprAssign {
                        attrs: vec![syn::parse_quote!(#[allow(unused_assignments)])],
                        left: Box::new(target.clone()),
                        eq_token: Default::default(),
                        right: Box::new(syn::parse_quote_spanned!(whole.span()=> #read)),
                    });
                    let reads = self.reads_of_expr(&assign);
                    let defs = self.new_versions(vec![name]);
                    return kept_assignment(&assign, defs, reads, out);
                }
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.new_versions(vec![name]);
                return kept_assignment(whole, defs, reads, out);
            }
            Binding::Value(v) if self.values[v.0].ty.array().is_some() => {
                // `u = next;`, `state = step(&state)`: element stores.
                if op.is_none() && self.whole_array(target).is_some() {
                    let ident = syn::Ident::new(&name, target.span());
                    let stmts = crate::desugar::whole_arrays::assign(
                        &ident,
                        rhs,
                        &|e| self.whole_array(e),
                        &self.internal,
                    );
                    for s in &stmts {
                        self.stmt(s, out);
                    }
                } else {
                    refuse_rebinding(self, whole, &name);
                }
                return;
            }
            Binding::Value(v) => Some(v),
            Binding::Uninit(_) if op.is_some() => {
                error(
                    self,
                    target,
                    format!("`{name}` is used before it is assigned"),
                );
                return;
            }
            Binding::Uninit(_) => None,
        };
        let rhs_l = match self.expr(rhs, out) {
            Some(l) => l,
            None => return,
        };
        let span = whole.span();
        self.assign_lowered(&name, target, &binding, current, op, rhs_l, span, out);
    }

    /// `name = rhs` (or `name op= rhs`, `current` the value it held) once
    /// `rhs` is lowered: a new value for `name`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_lowered(
        &mut self,
        name: &str,
        target: &syn::Expr,
        binding: &Binding,
        current: Option<ValueId>,
        op: Option<BinOp>,
        rhs_l: Lowered,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        let declared = match (binding, current) {
            (_, Some(v)) => self.values[v.0].ty.clone(),
            (Binding::Uninit(t), None) => t.clone(),
            _ => Ty::Unknown,
        };
        // A struct the function holds replaced by a `#[grad]` call's result
        // (`s = s.moved(dt);` of `let mut s = launch(x, v); s.step(dt);`,
        // trial 13 B2): the struct, through the callee's `_vjp`
        // (`vector_calls.rs`).
        if let (Ty::Composite(_), Operand::Value(r)) = (&declared, &rhs_l.operand) {
            if op.is_none() && self.call_results.contains(r) {
                self.vector_results.insert(*r);
            }
        }
        let ident = syn::Ident::new(name, target.span());
        let value = match (op, current) {
            (Some(op), Some(cur)) => {
                let ty = join(&declared, &rhs_l.ty);
                let v = self.new_value(Some(name.to_string()), ty, ValueKind::Def, target.span());
                out.push(Inst::Def {
                    dst: v,
                    op: Op::Binary(op, Operand::Value(cur), rhs_l.operand),
                    written: None,
                    span,
                });
                v
            }
            _ => {
                let ty = if declared == Ty::Unknown {
                    rhs_l.ty.clone()
                } else {
                    declared
                };
                self.name_result(&ident, ty, None, rhs_l.operand, span, out)
            }
        };
        self.assign(name, value);
    }
}

/// An assignment kept as written, which gives `defs` their new values
/// from what it `reads`.
fn kept_assignment(whole: &syn::Expr, defs: Vec<ValueId>, reads: Reads, out: &mut Vec<Inst>) {
    out.push(Inst::Verbatim {
        tokens: quote::quote_spanned!(whole.span()=> #whole;),
        kind: VerbatimKind::Stmt,
        defs,
        reads,
    });
}
