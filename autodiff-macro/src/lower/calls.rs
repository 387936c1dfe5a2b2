//! Calls lowered at the statement that holds them: a writer's call,
//! `update(&mut s, y);`, which gives `s` a new value (`writer_calls.rs`),
//! and a call whose result the source types as an array, `let u: [f64;
//! 3] = sub3(..);`.
//! Both are calls of a function that may have `#[grad]`
//! (`grad_function_path`), as the calls of `lower/tuples.rs` are. And a
//! call as an expression, `g(..)` (`call_expr`, from `lower/expr.rs`): a
//! kernel, a closure inlined, a conversion, a constructor, a function.

use super::*;

use crate::rules::Callee;

impl Lowerer {
    /// The path of a call of a function that may have `#[grad]`: not a
    /// runtime function, a float method in path form, a kernel or a
    /// closure of the body's; `None` for any other call.
    pub(super) fn grad_function_path<'c>(&self, c: &'c syn::ExprCall) -> Option<&'c syn::Path> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let function = p.qself.is_none()
            && !self.is_local_path(&p.path)
            && !crate::rules::is_std_path(&p.path)
            && matches!(
                crate::rules::resolve(&p.path),
                crate::rules::Callee::Function
            )
            && self.kernel_call(c).is_none();
        function.then_some(&p.path)
    }

    /// `e`, where it is a call of a function that may have `#[grad]`,
    /// without closures among its arguments: the call of `g(x)?` or
    /// `g(x).unwrap()`.
    pub(super) fn fallible_call<'c>(&self, e: &'c syn::Expr) -> Option<&'c syn::ExprCall> {
        match e {
            syn::Expr::Call(c)
                if self.grad_function_path(c).is_some()
                    && !c.args.iter().any(|a| matches!(a, syn::Expr::Closure(_))) =>
            {
                Some(c)
            }
            _ => None,
        }
    }

    /// `g(x)?` (in a fallible function), `g(x).unwrap()`, `g(x).expect(m)`
    /// of a possible `#[grad]` function: the call and how its value is
    /// taken.
    pub(super) fn exiting<'c>(&self, e: &'c syn::Expr) -> Option<(&'c syn::ExprCall, Exit)> {
        let (call, exit) = self.exiting_any(e)?;
        match call {
            syn::Expr::Call(c) => Some((c, exit)),
            _ => None,
        }
    }

    /// [`Self::exiting`] of a call or of a method that may have `#[grad]`
    /// (`self.root(x)?`, `m.root(x).unwrap()`).
    pub(super) fn exiting_any<'c>(&self, e: &'c syn::Expr) -> Option<(&'c syn::Expr, Exit)> {
        let fallible = |e: &'c syn::Expr| -> Option<&'c syn::Expr> {
            match e {
                syn::Expr::Call(_) => self.fallible_call(e).map(|_| e),
                syn::Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    let users = crate::rules::maybe_users_method(&name)
                        && m.turbofish.is_none()
                        && !m.args.iter().any(|a| matches!(a, syn::Expr::Closure(_)));
                    users.then_some(e)
                }
                _ => None,
            }
        };
        match e {
            syn::Expr::Try(t) if self.fallible => match self.adapter(&t.expr) {
                Some((m, arg)) => {
                    let adapted = (m.method.clone(), arg.cloned(), Exit::Try);
                    Some((fallible(&m.receiver)?, Exit::Adapted(Box::new(adapted))))
                }
                None => Some((fallible(&t.expr)?, Exit::Try)),
            },
            syn::Expr::MethodCall(m) => {
                let call = fallible(&m.receiver)?;
                match (m.method.to_string().as_str(), m.args.first()) {
                    ("unwrap", None) => Some((call, Exit::Unwrap)),
                    ("expect", Some(msg)) if m.args.len() == 1 => {
                        Some((call, Exit::Expect(Box::new(msg.clone()))))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `g(x).ok_or(e)`, `.ok_or_else(|| e)`, `.map_err(f)`, `.ok()` before
    /// a `?`: the adapter and its argument, where that names nothing of the
    /// function's (a literal, `MyError::Negative`, `String::from("..")`, a
    /// closure of its own parameters), which the generated functions would
    /// not have under the same names.
    fn adapter<'c>(
        &self,
        e: &'c syn::Expr,
    ) -> Option<(&'c syn::ExprMethodCall, Option<&'c syn::Expr>)> {
        let syn::Expr::MethodCall(m) = e else {
            return None;
        };
        if m.turbofish.is_some() {
            return None;
        }
        let arg = match (
            m.method.to_string().as_str(),
            &m.args.iter().collect::<Vec<_>>()[..],
        ) {
            ("ok", []) => return Some((m, None)),
            ("ok_or" | "ok_or_else" | "map_err", [arg]) => *arg,
            _ => return None,
        };
        // The names an expression may read: its identifiers, and in a
        // macro's tokens its identifiers and the names its format strings
        // capture (`format!("{x} left")` reads `x`, not `left`).
        #[derive(Default)]
        struct Names(std::collections::HashSet<String>);
        impl Names {
            fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
                for t in tokens {
                    match t {
                        proc_macro2::TokenTree::Ident(i) => {
                            self.0.insert(i.to_string());
                        }
                        proc_macro2::TokenTree::Group(g) => self.tokens(g.stream()),
                        proc_macro2::TokenTree::Literal(l) => {
                            let text = l.to_string();
                            for capture in text.split('{').skip(1) {
                                let name = capture.split(['}', ':']).next().unwrap_or("");
                                self.0.insert(name.trim().to_string());
                            }
                        }
                        proc_macro2::TokenTree::Punct(_) => {}
                    }
                }
            }
        }
        impl<'a> syn::visit::Visit<'a> for Names {
            fn visit_ident(&mut self, i: &'a syn::Ident) {
                self.0.insert(i.to_string());
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                self.tokens(m.tokens.clone());
            }
        }
        let (mut names, mut own) = (Names::default(), Names::default());
        let body = match arg {
            syn::Expr::Closure(c) => {
                for p in &c.inputs {
                    syn::visit::Visit::visit_pat(&mut own, p);
                }
                &*c.body
            }
            body => body,
        };
        syn::visit::Visit::visit_expr(&mut names, body);
        let (names, own) = (names.0, own.0);
        let closed = names
            .difference(&own)
            .all(|n| n != "self" && self.lookup(n).is_none());
        closed.then_some((m, Some(arg)))
    }

    /// Whether the call `e` passes a float, a float array or a
    /// differentiated struct (a value that may carry a derivative), tried
    /// on a copy of the state.
    pub(super) fn differentiated_call(&mut self, e: &syn::Expr) -> bool {
        let scopes = self.scopes.clone();
        let errors = self.errors.clone();
        let mut scratch = Vec::new();
        let _ = self.expr(e, &mut scratch);
        self.scopes = scopes;
        self.errors = errors;
        let operands: Vec<&Operand> = match scratch.last() {
            Some(Inst::Def {
                op: Op::Call { args, .. },
                ..
            }) => args.iter().collect(),
            Some(Inst::Def {
                op: Op::GradMethod { recv, args, .. },
                ..
            }) => std::iter::once(recv).chain(args).collect(),
            _ => return false,
        };
        operands.into_iter().filter_map(Operand::value).any(|v| {
            let ty = &self.values[v.0].ty;
            ty.is_float() || ty.array().is_some() || ty.composite().is_some()
        })
    }

    /// The call `call` whose value is taken through `exit` (`?`,
    /// `unwrap`, `expect`): lowered as any call, its `exit` kept.
    /// `whole` is the expression with its exit (`s.parse()?`): kept as
    /// written where the call turns out to be no `#[grad]` call that can
    /// carry the exit (a method of a constant, `scale.parse()?`), never
    /// without its `?`.
    pub(super) fn exiting_call(
        &mut self,
        call: &syn::Expr,
        exit: Exit,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        let mut insts = Vec::new();
        let result = self.expr(call, &mut insts)?;
        if let Some(Inst::Def {
            dst,
            op: Op::Call { exit: slot, .. } | Op::GradMethod { exit: slot, .. },
            ..
        }) = insts.last_mut()
        {
            if result.operand.value() == Some(*dst) {
                *slot = Some(exit);
                out.extend(insts);
                return Some(result);
            }
        }
        self.opaque(whole, out)
    }

    /// The call's result a statement `v.push(x);` or `v.reverse();` (a
    /// method of `Vec`'s that changes it) is given, where `v` is one.
    pub(super) fn vec_call_result(&self, m: &syn::ExprMethodCall) -> Option<ValueId> {
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        let changes = m.method == "push" || rules::changes_a_vec(&m.method);
        match self.lookup(&p.path.get_ident()?.to_string()) {
            Some(Binding::Value(v))
                if changes
                    && self.values[v.0].ty == Ty::Unknown
                    && self.call_results.contains(v) =>
            {
                Some(*v)
            }
            _ => None,
        }
    }

    /// `let u: [f64; 3] = sub3(&a, &b);`: a call whose result the source
    /// says is an array or a `Vec`, differentiated through the callee's
    /// `_vjp` however it is read (`vector_calls.rs`).
    pub(super) fn typed_vector_call(
        &mut self,
        ident: &syn::Ident,
        annot: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let (Some(annot), syn::Expr::Call(c)) = (annot, init) else {
            return false;
        };
        if self.types.array_ty(annot).is_none()
            || self.grad_function_path(c).is_none()
            || self.called_closure(c).is_some()
        {
            return false;
        }
        // `Vec::with_capacity(n)` and other constructors of `std`'s are
        // not `#[grad]` functions; a call that passes nothing that may
        // carry a derivative is not differentiated at all.
        let std_path = matches!(&*c.func, syn::Expr::Path(p) if rules::is_std_path(&p.path));
        if std_path {
            return false;
        }
        let errors_before = self.errors.is_some();
        let scopes_before = self.scopes.clone();
        let mut insts = Vec::new();
        let Some(lowered) = self.expr(init, &mut insts) else {
            return true;
        };
        let differentiated =
            matches!(&lowered.operand, Operand::Value(v) if self.call_results.contains(v));
        if !differentiated {
            if !errors_before && self.errors.is_some() {
                return true;
            }
            self.scopes = scopes_before;
            return false;
        }
        out.extend(insts);
        let written = Some(Box::new(Written {
            ty: Some(annot.clone()),
            attrs: Vec::new(),
        }));
        let value = self.name_result(
            ident,
            Ty::Unknown,
            written,
            lowered.operand,
            init.span(),
            out,
        );
        if let Some(Inst::Def { dst, .. }) = out.last() {
            if self.call_results.contains(dst) {
                self.vector_results.insert(*dst);
            }
        }
        self.bind(ident.to_string(), Binding::Value(value));
        true
    }
}

impl Lowerer {
    /// `T::from_f64` or `<T as autodiff::Float>::from_f64`, `T` the
    /// function's float type parameter.
    fn is_generic_from_f64(&self, func: &syn::Expr) -> bool {
        let (Some(t), syn::Expr::Path(p)) = (&self.types.generic, func) else {
            return false;
        };
        let segs = crate::rules::path_segments(&p.path);
        let named_t = match &p.qself {
            Some(q) => matches!(&*q.ty, syn::Type::Path(tp) if tp.path.is_ident(t)),
            None => segs.len() == 2 && segs[0] == *t,
        };
        named_t && segs.last().is_some_and(|s| s == "from_f64")
    }

    /// `g(..)`: a kernel, a closure, a conversion, a constructor, a function.
    pub(super) fn call_expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        match e {
            E::Call(c) if self.kernel_call(c).is_some() => {
                let (kernel, path) = self.kernel_call(c)?;
                if kernel.returns_array {
                    error(self, e, format!(
                        "#[grad] needs the `Vec` that `{}` returns bound to a name: write `let y = {}(..);` at the top level of the function body",
                        kernel.name, kernel.name
                    ));
                    return None;
                }
                let (args, elem) = self.kernel_args(kernel, c, out)?;
                let ty = match elem {
                    None => Ty::Unknown,
                    Some(FloatTy::Inferred) => Ty::FloatLit,
                    Some(t) => Ty::Float(t),
                };
                Some(self.def(Op::Kernel { kernel, path, args }, ty, e, out))
            }
            E::Call(c) if self.called_closure(c).is_some() => {
                let def = self.called_closure(c)?;
                self.inline_closure(&def, c, out)
            }
            E::Call(c) if c.args.iter().any(|a| matches!(a, E::Closure(_))) => self.opaque(e, out),
            // `T::from_f64(p.a)` of a value: a cast to the float type
            // parameter, differentiated as one.
            E::Call(c) if c.args.len() == 1 && self.is_generic_from_f64(&c.func) => {
                let a = self.expr(&c.args[0], out)?;
                let t = syn::Ident::new(self.types.generic.as_ref()?, c.func.span());
                let target: syn::Type = syn::parse_quote!(#t);
                Some(self.def(
                    Op::Cast(a.operand, Box::new(target)),
                    Ty::Float(FloatTy::Generic),
                    e,
                    out,
                ))
            }
            // `Pt(a, b)`, `Shape::Circle(r)`, `Some(x)`: a tuple struct's or
            // an enum variant's constructor (a capitalised name), no
            // function: kept as written, refused where a derivative
            // passes through it (`analysis/refusals/`).
            E::Call(c) if crate::rules::is_constructor(&c.func) => self.opaque(e, out),
            // `Cell::new(a)`, `RefCell::new(v)`: a value kept behind a
            // shared reference, no function with #[grad]; kept as written.
            E::Call(c) if crate::rules::interior_mutable(&c.func, false) => self.opaque(e, out),
            E::Call(c) => {
                let path = match &*c.func {
                    E::Path(p) if p.qself.is_none() && !self.is_local_path(&p.path) => {
                        p.path.clone()
                    }
                    _ => return self.opaque(e, out),
                };
                let (args, borrowed) = self.call_args(&c.args, out)?;
                // A call's result lent to another call (`norm(&u)`) is not a
                // float: an array or a `Vec`, whose callee differentiates
                // it through `_vjp` (`vector_calls.rs`).
                for (a, by_ref) in args.iter().zip(&borrowed) {
                    if let (true, Operand::Value(v)) = (by_ref, &a.operand) {
                        if self.call_results.contains(v) {
                            self.vector_results.insert(*v);
                        }
                    }
                }
                // `f64::from(x)`: a lossless conversion, the same as a cast.
                let segs = crate::rules::path_segments(&path);
                if let ([float, from], [arg]) = (segs.as_slice(), args.as_slice()) {
                    if from == "from" && (float == "f64" || float == "f32") {
                        let target: syn::Type = syn::parse_str(float).expect("a float type");
                        let ty = self.types.ty_of(&target);
                        return Some(self.def(
                            Op::Cast(arg.operand.clone(), Box::new(target)),
                            ty,
                            e,
                            out,
                        ));
                    }
                }
                let callee = crate::rules::resolve(&path);
                let ty = call_type(&path, callee, &args);
                // A call to another function may be to a `#[grad]` one: its
                // `_grad` gives the partial derivatives of the float
                // arguments, kept in values of their own.
                // A float argument's partial has its type; one of a type the
                // source does not state, or an array's (a `Vec` or an array
                // of the argument's shape), has the type rustc gives it.
                // Every argument has a slot, whatever its type: the callee's
                // expansion says which parameters it differentiates
                // (`emit/slots.rs`), and a slot no active argument reads is
                // never bound.
                let partials: Vec<Option<ValueId>> = if matches!(callee, Callee::Function) {
                    args.iter()
                        .zip(&c.args)
                        .map(|(a, written)| Some(self.slot(&a.ty, written.span())))
                        .collect()
                } else {
                    Vec::new()
                };
                // Only a call with float arguments can be differentiated; an
                // argument whose type the source does not state (another
                // call's result, `helper(helper(x))`) may be one: the
                // `_grad` call is emitted only where the result is active.
                // A string, `char` or `bool` literal is none (`String::from("ab")`).
                let differentiable = args.iter().zip(&c.args).any(|(a, written)| {
                    a.ty.is_float()
                        || a.ty.array().is_some()
                        || a.ty.composite().is_some()
                        || a.ty == Ty::Unknown
                            && matches!(a.operand, Operand::Value(_))
                            && !crate::rules::literal_of_no_float(written)
                });
                let partials = if differentiable { partials } else { Vec::new() };
                // The result of a `#[grad]` function is a float, of a type
                // its signature states, not this one.
                let ty = if partials.is_empty() { ty } else { Ty::Unknown };
                let differentiated = !partials.is_empty();
                let op = Op::Call {
                    path,
                    callee,
                    args: args.into_iter().map(|a| a.operand).collect(),
                    borrowed,
                    partials,
                    mutated: None,
                    exit: None,
                };
                let result = self.def(op, ty, e, out);
                if let (true, Operand::Value(v)) = (differentiated, &result.operand) {
                    self.call_results.insert(*v);
                }
                Some(result)
            }
            _ => self.opaque(e, out),
        }
    }
}
