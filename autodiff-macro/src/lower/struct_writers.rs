//! Calls of a struct writer (`desugar/struct_writers.rs`) on a struct the
//! function holds: `kick(&mut b, f);` and the method `b.step(dt);`, as
//! statements. The call's value is the struct's new value, computed by
//! the writer itself on a copy and differentiated through its `_vjp`
//! (`Op::VjpCall` lending the struct, `mutated`); `b` takes it, as
//! `b = b.stepped(dt);` would. A function or method that is no such
//! writer has no writer's slots: a compile error at the call.

use super::*;
use syn::spanned::Spanned;

impl Lowerer {
    /// Whether `let mut <ident> = <lowered>;` may be a struct that
    /// writers change, held by value: a call's result of a type the
    /// source does not state, changed only by methods that may be the
    /// user's (`s = s.stepped(dt); s.energy()`, `let mut s = make(x0);
    /// s.step(dt);`, or `kick(&mut s, f);` with its type stated), or a
    /// struct's field of a type the source does not state, copied to be
    /// changed by a writer (`let mut inner = this.inner;
    /// inner.step(dt);`: a struct writer's `self.inner.step(dt);`,
    /// `desugar/struct_writers.rs`).
    pub(super) fn writable_struct(
        &self,
        ident: &syn::Ident,
        annot: Option<&syn::Type>,
        lowered: &Lowered,
        stated_unknown: bool,
    ) -> bool {
        let name = ident.to_string();
        let untyped = lowered.ty == Ty::Unknown;
        let unchanged_otherwise = !self.facts.changed_otherwise.contains(&name)
            && !self.facts.vec_changing.contains(&name);
        let of = |set: &std::collections::HashSet<ValueId>| matches!(&lowered.operand, Operand::Value(v) if set.contains(v));
        let unknown_call = untyped && (annot.is_none() || stated_unknown) && of(&self.call_results);
        let part = untyped && annot.is_none() && of(&self.projected);
        (unknown_call || part) && unchanged_otherwise
    }

    /// `p_mode = p_recv.mode;`, a field of a local struct written back
    /// after a method that may change it (`desugar/local_structs.rs`'s
    /// receiver), where the variable holds a value of a type the macro
    /// does not model (`mode: Mode::Damped`, kept as written): the field
    /// read back as a constant (`Op::Field` with `constant`, which rustc
    /// checks is marked `#[differentiable(constant)]`), so that the struct
    /// built again for the next call carries no derivative through it
    /// (trial 11 B7). `None` for any other assignment.
    pub(super) fn constant_field_back(
        &mut self,
        current: ValueId,
        rhs: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<ValueId> {
        let syn::Expr::Field(fe) = rhs else {
            return None;
        };
        let syn::Expr::Path(p) = &*fe.base else {
            return None;
        };
        let recv = p.path.get_ident()?.to_string();
        if !matches!(fe.member, syn::Member::Named(_)) || !self.receivers.contains(&recv) {
            return None;
        }
        let Some(Binding::Value(base)) = self.lookup(&recv).cloned() else {
            return None;
        };
        let held = &self.values[current.0];
        if !matches!(self.values[base.0].ty, Ty::Composite(_))
            || held.ty != Ty::Unknown
            || self.call_results.contains(&current)
        {
            return None;
        }
        let op = Op::Field {
            base,
            member: fe.member.clone(),
            from: Operand::Value(current),
            constant: true,
        };
        match self.def(op, Ty::Unknown, rhs, out).operand {
            Operand::Value(v) => Some(v),
            Operand::Const(_) => None,
        }
    }

    /// Whether `let mut <ident> = p.clone();` copies a struct parameter
    /// the function leaves constant (`start: &Robot` out of `wrt`), to
    /// be changed by writers: held by value like a differentiated one's
    /// copy, its adjoint going nowhere at the copy.
    pub(super) fn constant_struct_copy(&self, ident: &syn::Ident, init: &syn::Expr) -> bool {
        let syn::Expr::MethodCall(m) = init else {
            return false;
        };
        let syn::Expr::Path(p) = &*m.receiver else {
            return false;
        };
        let name = ident.to_string();
        // The parameter itself, not a local shadowing it.
        let param = p
            .path
            .get_ident()
            .and_then(|i| match self.lookup(&i.to_string()) {
                Some(Binding::Value(v)) if self.param_values.contains(v) => Some(&self.values[v.0]),
                _ => None,
            });
        m.method == "clone"
            && m.args.is_empty()
            && param.is_some_and(|v| v.kind == ValueKind::Opaque && v.ty == Ty::Unknown)
            && !self.facts.changed_otherwise.contains(&name)
            && !self.facts.vec_changing.contains(&name)
    }

    /// The struct a statement `f(.., &mut b, ..);` lends, where `b` is a
    /// struct the function holds as a value: the argument's index and the
    /// name.
    pub(super) fn struct_writer_arg(&self, c: &syn::ExprCall) -> Option<(usize, syn::Ident)> {
        let (k, name) = self.lent_argument(c)?;
        self.held_struct(name).then(|| (k, name.clone()))
    }

    /// The struct `b` of a statement `b.m(args);` where the function
    /// holds `b` as a `mut` struct value: its name.
    pub(super) fn struct_writer_receiver(&self, m: &syn::ExprMethodCall) -> Option<syn::Ident> {
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let name = p.path.get_ident()?;
        (p.qself.is_none() && m.turbofish.is_none() && self.held_struct(name)).then(|| name.clone())
    }

    /// Whether `name` is a struct the lowering follows, held by value (a
    /// reference, `&self`, cannot be changed).
    pub(super) fn held_struct(&self, name: &syn::Ident) -> bool {
        matches!(
            self.lookup(&name.to_string()),
            Some(Binding::Value(v)) if matches!(&self.values[v.0].ty, Ty::Composite(c) if c.holder == Holder::Value)
                && self.values[v.0].kind != ValueKind::Opaque
        )
    }

    /// `kick(&mut b, f);`: `b` takes the writer's new value of it.
    pub(super) fn struct_writer_call(
        &mut self,
        c: &syn::ExprCall,
        k: usize,
        name: &syn::Ident,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let Some((path, args, mut borrowed)) =
            self.lent_call(c, vec![(k, syn::parse_quote!(&#name))], out)
        else {
            return;
        };
        if let Some(b) = borrowed.get_mut(k) {
            *b = true;
        }
        let args = args.into_iter().map(|a| a.operand).collect();
        self.lent_struct(name, (path, args, borrowed), (k, false), whole, out);
    }

    /// `b.step(dt);`: `b` takes the writer method's new value of it.
    pub(super) fn struct_writer_method(
        &mut self,
        m: &syn::ExprMethodCall,
        name: &syn::Ident,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let recv: syn::Expr = syn::parse_quote!(#name);
        let Some(recv) = self.expr(&recv, out) else {
            return;
        };
        let Some((rest, given)) = self.call_args(&m.args, out) else {
            return;
        };
        let args = std::iter::once(recv.operand)
            .chain(rest.into_iter().map(|a| a.operand))
            .collect();
        let borrowed = std::iter::once(true).chain(given).collect();
        let path: syn::Path = m.method.clone().into();
        self.lent_struct(name, (path, args, borrowed), (0, true), whole, out);
    }

    /// The call lending the struct `name` (argument 0 of a method), as
    /// the struct's new value, which `name` takes.
    fn lent_struct(
        &mut self,
        name: &syn::Ident,
        (path, args, borrowed): (syn::Path, Vec<Operand>, Vec<bool>),
        (k, method): (usize, bool),
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let Some(&Binding::Value(old)) = self.lookup(&name.to_string()) else {
            return;
        };
        let ty = match &self.values[old.0].ty {
            Ty::Composite(c) => Ty::Composite(Box::new(Composite {
                grad_ty: c.grad_ty.clone(),
                holder: Holder::Value,
            })),
            other => other.clone(),
        };
        let op = Op::VjpCall {
            path,
            args,
            borrowed,
            mutated: vec![k],
            original: None,
            method,
            exit: None,
            whole: None,
        };
        let new = self.new_value(Some(name.to_string()), ty, ValueKind::Def, name.span());
        out.push(Inst::Def {
            dst: new,
            op,
            written: None,
            span: whole.span(),
        });
        self.assign(&name.to_string(), new);
    }

    /// `q.f = e;` or `q.f += e;` of a struct held by value whose fields the
    /// lowering cannot name (a copy of a parameter, `let mut q =
    /// p0.clone();`): `q = Path { f: e, ..q }` (`Op::Construct` with a
    /// base, as a struct writer's field, `desugar/struct_writers.rs`).
    /// `false` for any other assignment.
    pub(super) fn field_assignment(
        &mut self,
        target: &syn::Expr,
        op: Option<&BinOp>,
        rhs: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let syn::Expr::Field(f) = target else {
            return false;
        };
        let syn::Expr::Path(p) = &*f.base else {
            return false;
        };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        if !self.held_struct(name) || self.built_field(f).is_some() {
            return false;
        }
        let Some(Binding::Value(v)) = self.lookup(&name.to_string()) else {
            return false;
        };
        let Ty::Composite(c) = &self.values[v.0].ty else {
            return false;
        };
        let syn::Type::Path(t) = &c.grad_ty else {
            return false;
        };
        let mut path = t.path.clone();
        for s in &mut path.segments {
            s.arguments = syn::PathArguments::None;
        }
        let member = &f.member;
        let value: syn::Expr = match op {
            Some(op) => {
                let sym: proc_macro2::TokenStream = op.symbol().parse().unwrap_or_default();
                syn::parse_quote_spanned!(rhs.span()=> #target #sym (#rhs))
            }
            None => rhs.clone(),
        };
        let stmt: syn::Stmt =
            syn::parse_quote_spanned!(target.span()=> #name = #path { #member: #value, ..#name };);
        self.stmt(&stmt, out);
        true
    }
}

/// The type of a struct held by value that writers change: the stated
/// one, or `_` for rustc to infer.
pub(super) fn held_struct_ty(annot: Option<&syn::Type>) -> Ty {
    Ty::Composite(Box::new(Composite {
        grad_ty: annot.cloned().unwrap_or(syn::Type::Infer(syn::TypeInfer {
            underscore_token: Default::default(),
        })),
        holder: Holder::Value,
    }))
}

/// The locals of `block` a field of which is assigned (`b.v -= 0.1;`,
/// `b.x = e;`), at any depth.
pub(super) fn fields_assigned(block: &syn::Block) -> std::collections::HashSet<String> {
    crate::desugar::internal::written_places(&block.stmts, false)
        .iter()
        .filter_map(|p| match p {
            syn::Expr::Field(f) => match &*f.base {
                syn::Expr::Path(b) => b.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}
