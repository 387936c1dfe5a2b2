//! One Wengert entry as code: its right-hand side (`Emitter::op`), its
//! `let` (`Emitter::let_def`), and a call's arguments as written
//! (`Emitter::call_args`).

use super::*;

impl Emitter<'_> {
    pub(super) fn op(&self, op: &Op) -> TokenStream {
        use Position::*;
        match op {
            // A copy of a modelled array (a snapshot for a `_vjp`): a
            // clone, as a `Vec` would move.
            Op::Copy(Operand::Value(a)) if self.f.value(*a).ty.array().is_some() => {
                let a = self.names.forward(*a);
                quote!(::core::clone::Clone::clone(&#a))
            }
            // A struct held by value, cloned: it may be read again (an
            // adjoint's shape).
            Op::Copy(Operand::Value(a)) if matches!(&self.f.value(*a).ty, Ty::Composite(c) if c.holder == Holder::Value) => {
                self.owned_copy(*a)
            }
            // A value of a type the source does not state (a struct a
            // branch's arms made, `let q = if c { make(a) } else { .. };`)
            // that the reverse sweep reads too: cloned, as it may not be
            // `Copy`.
            Op::Copy(Operand::Value(a))
                if self.f.value(*a).ty == Ty::Unknown && self.reverse_reads.contains(a) =>
            {
                let a = self.names.forward(*a);
                quote!(::core::clone::Clone::clone(&#a))
            }
            Op::Copy(a) => self.operand(a, Arg),
            Op::Unary(UnOp::Neg, a) => {
                let a = self.operand(a, Tight);
                quote!(-#a)
            }
            Op::Unary(UnOp::Not, a) => {
                let a = self.operand(a, Tight);
                quote!(!#a)
            }
            Op::Binary(op, a, b) => {
                let a = self.operand(a, Tight);
                let b = self.operand(b, Tight);
                let op: TokenStream = op.symbol().parse().expect("an operator");
                quote!(#a #op #b)
            }
            // `make(a, b).len()` of a value that depends on the active
            // inputs, of a type the source does not state: a vector's
            // length, checked (`runtime::call::Length`), never a `len` of
            // a struct of the user's called without its derivative.
            Op::Method {
                name, recv, args, ..
            } if name == "len"
                && args.is_empty()
                && recv
                    .value()
                    .is_some_and(|v| self.a.is_varied(v) && self.f.value(v).ty == Ty::Unknown) =>
            {
                let recv = self.operand(recv, Arg);
                quote::quote_spanned!(name.span()=> ::autodiff::runtime::call::length(&#recv))
            }
            Op::Method {
                name, recv, args, ..
            } => {
                let recv = self.operand(recv, Tight);
                let args = args.iter().map(|a| self.operand(a, Arg));
                quote!(#recv.#name(#(#args),*))
            }
            // `update(&mut s, y)` not differentiated: the new value of `s`,
            // written into a copy.
            Op::Call {
                path,
                args,
                borrowed,
                mutated: Some(k),
                ..
            } => {
                let mut args = self.call_args(args, borrowed);
                let copy = syn::Ident::new("written", proc_macro2::Span::mixed_site());
                let Some(old) = args.get_mut(*k) else {
                    return quote!(#path(#(#args),*));
                };
                let value = std::mem::replace(old, quote!(&mut #copy));
                quote!({ let mut #copy = #value; #path(#(#args),*); #copy })
            }
            Op::Call {
                path,
                args,
                borrowed,
                exit,
                ..
            } => {
                let args = self.call_args(args, borrowed);
                quote!(#path(#(#args),*) #exit)
            }
            // A writer of an array, of several floats or of a struct: what
            // it writes, on copies it changes.
            Op::VjpCall {
                path,
                args,
                mutated,
                original,
                method,
                borrowed,
                ..
            } if !mutated.is_empty() => {
                // The arguments as written (`m.step(&g)` lends `g`); the
                // lent ones as their values, copied below.
                let mut given: Vec<TokenStream> = self.call_args(args, borrowed);
                for k in mutated {
                    if let (Some(g), Some(a)) = (given.get_mut(*k), args.get(*k)) {
                        *g = self.operand(a, Arg);
                    }
                }
                let mut copies = Vec::new();
                let mut written = Vec::new();
                for (n, k) in mutated.iter().enumerate() {
                    // Hygienic: no user name can refer to them.
                    let copy =
                        syn::Ident::new(&format!("written{n}"), proc_macro2::Span::mixed_site());
                    let Some(lent) = given.get_mut(*k) else {
                        continue;
                    };
                    // An array as a `Vec` whatever it is (the writer's
                    // `_vjp` takes and returns `Vec`s): `[f64; 3]` lent too,
                    // lent as the writer's parameter type, which rustc
                    // reads from its signature (`runtime::array::lend`).
                    let array = args
                        .get(*k)
                        .and_then(Operand::value)
                        .is_some_and(|v| self.f.value(v).ty.array().is_some());
                    let lent_copy = match array {
                        true => quote!(::autodiff::runtime::array::lend(&mut #copy)),
                        false => quote!(&mut #copy),
                    };
                    let value = std::mem::replace(lent, lent_copy);
                    // A struct the reverse sweep reads again, cloned (also
                    // a call's result of a type the source does not state,
                    // which only a struct writer is given by `&mut`).
                    let held = args.get(*k).and_then(Operand::value).filter(|v| {
                        matches!(self.f.value(*v).ty, Ty::Composite(_) | Ty::Unknown)
                            && self.reverse_reads.contains(v)
                    });
                    copies.push(match (array, held) {
                        (true, _) => {
                            quote!(let mut #copy = ::std::borrow::ToOwned::to_owned(&#value[..]);)
                        }
                        (false, Some(v)) => {
                            let owned = self.owned_copy(v);
                            quote!(let mut #copy = #owned;)
                        }
                        (false, None) => quote!(let mut #copy = #value;),
                    });
                    written.push(copy);
                }
                // A writer method, on the copy of its receiver.
                if *method {
                    let copy = &written[0];
                    let rest = &given[1..];
                    return quote!({
                        #(#copies)*
                        #copy.#path(#(#rest),*);
                        #copy
                    });
                }
                if let Some(original) = original {
                    // The value, then the lent variables' new values.
                    let value = syn::Ident::new("value", proc_macro2::Span::mixed_site());
                    return quote!({
                        #(#copies)*
                        let #value = #original(#(#given),*);
                        (#value, #(#written),*)
                    });
                }
                let value = match written.as_slice() {
                    [one] => quote!(#one),
                    all => quote!((#(#all),*)),
                };
                quote!({
                    #(#copies)*
                    #path(#(#given),*);
                    #value
                })
            }
            Op::VjpCall {
                path,
                args,
                borrowed,
                method,
                exit,
                ..
            } => {
                let mut given = self.call_args(args, borrowed);
                if let (true, Some(recv)) = (*method, args.first()) {
                    let recv = self.operand(recv, Tight);
                    given.remove(0);
                    return quote!(#recv.#path(#(#given),*) #exit);
                }
                quote!(#path(#(#given),*) #exit)
            }
            // `T::from_f64(p.a)`: to the float type parameter, which `as`
            // cannot name.
            Op::Cast(a, ty) if matches!(&**ty, syn::Type::Path(p) if p.path.get_ident() == self.f.generic.as_ref()) =>
            {
                let a = self.operand(a, Arg);
                quote!(<#ty as ::autodiff::Float>::from_f64(#a))
            }
            Op::Cast(a, ty) => {
                let a = self.operand(a, Tight);
                quote!(#a as #ty)
            }
            Op::GradMethod {
                name,
                recv,
                args,
                borrowed,
                exit,
                ..
            } => {
                let args_varied = args
                    .iter()
                    .any(|a| a.value().is_some_and(|v| self.a.is_varied(v)));
                let recv = match self.struct_held(recv) {
                    // A struct the function holds (a copy, one built for
                    // the call) given a value that carries a derivative:
                    // lent by `&`, so that a method taking `&mut self`,
                    // which could store the value in it unseen, fails to
                    // compile instead of losing that derivative.
                    // Spanned at the method, where the error is said.
                    Some(r) if args_varied => {
                        quote::quote_spanned!(name.span()=> ::autodiff::runtime::call::read_only(&#r))
                    }
                    _ => self.receiver(recv),
                };
                let args = self.call_args(args, borrowed);
                quote!(#recv.#name(#(#args),*) #exit)
            }
            Op::Load { array, index } => {
                let a = self.names.forward(*array);
                let idx = index_tokens(self, index);
                quote!(#a #idx)
            }
            // Read back after a `&mut self` method: a constant field, as
            // rustc checks (`Op::Field`).
            Op::Field {
                base,
                member,
                constant: true,
                ..
            } => {
                let b = self.names.forward(*base);
                let kind = crate::derive::kind_method(member);
                quote!(::autodiff::runtime::differentiable::constant_field(#b.#kind(), &#b.#member))
            }
            // Read as a copy where it may not be `Copy` (what it was built
            // from is not a float, an integer or a `bool`).
            Op::Field {
                base, member, from, ..
            } => {
                let b = self.names.forward(*base);
                let copied = match from {
                    Operand::Value(v) => {
                        let t = &self.f.value(*v).ty;
                        t.is_float() || matches!(t, Ty::Int | Ty::Bool)
                    }
                    Operand::Const(_) => false,
                };
                match copied {
                    true => quote!(#b.#member),
                    false => quote!(::core::clone::Clone::clone(&#b.#member)),
                }
            }
            Op::Project { base, path, by_ref } => {
                let b = self.names.forward(*base);
                let steps = path_tokens(self, path);
                // A field of a struct the function holds (a call's result,
                // whose field may be a `Vec`) is read as a copy: the
                // struct may be read again.
                let owned = self.f.value(*base).kind == ValueKind::Def
                    && matches!(path.last(), Some(Step::Field(_)));
                match (by_ref, owned) {
                    (true, _) => quote!(&#b #steps),
                    (false, true) => quote!(::core::clone::Clone::clone(&#b #steps)),
                    (false, false) => quote!(#b #steps),
                }
            }
            // A field whose type is not known to be `Copy` is cloned: the
            // variable it comes from may be read again.
            Op::Construct { path, fields, base } => {
                let fields = fields.iter().map(|(m, o)| {
                    let v = self.operand(o, Arg);
                    let copied = match o {
                        Operand::Value(x) => {
                            let t = &self.f.value(*x).ty;
                            t.is_float() || matches!(t, Ty::Int | Ty::Bool)
                        }
                        Operand::Const(_) => true,
                    };
                    // A `Vec` the function holds (a field's copy): the
                    // field, whichever of a `Vec` and an array it is.
                    let vec = matches!(o, Operand::Value(x)
                        if matches!(&self.f.value(*x).ty, Ty::Array(a) if a.shape == Shape::Vec));
                    let v = match (copied, vec) {
                        (true, _) => v,
                        (false, true) => quote!(::autodiff::runtime::call::as_field(::core::clone::Clone::clone(&#v))),
                        (false, false) => quote!(::core::clone::Clone::clone(&#v)),
                    };
                    (m, v)
                });
                match base {
                    Some(b) => built_on(self.owned_copy(*b), fields),
                    None => {
                        let fields = fields.map(|(m, v)| quote!(#m: #v));
                        quote!(#path { #(#fields),* })
                    }
                }
            }
            Op::NewArray(init) => match init {
                ArrayInit::Filled { value, len } => {
                    let v = self.operand(value, Arg);
                    let n = self.operand(len, Arg);
                    quote!(::std::vec![#v; #n])
                }
                ArrayInit::Repeat { value, len } => {
                    let v = self.operand(value, Arg);
                    let n: TokenStream = len.parse().unwrap_or_default();
                    quote!([#v; #n])
                }
                ArrayInit::List { items, is_vec } => {
                    let items = items.iter().map(|i| self.operand(i, Arg));
                    if *is_vec {
                        quote!(::std::vec![#(#items),*])
                    } else {
                        quote!([#(#items),*])
                    }
                }
                ArrayInit::Empty { capacity: Some(n) } => {
                    let n = self.operand(n, Arg);
                    quote!(::std::vec::Vec::with_capacity(#n))
                }
                ArrayInit::Empty { capacity: None } => quote!(::std::vec::Vec::new()),
            },
            Op::Kernel { kernel, args, .. } => {
                let path = kernel_path(kernel.name);
                let args = args.iter().map(|a| self.kernel_arg(a));
                quote!(#path(#(#args),*))
            }
            // `p.b.len()` of a part of a struct that carries a derivative:
            // a collection's length, checked (`runtime::call::Length`), so
            // that a struct of the user's with a `len` of its own
            // (`r.dir.len()`) is a compile error that says to state its
            // type, never its `len` called without its derivative.
            Op::Opaque {
                expr: syn::Expr::MethodCall(m),
                reads,
            } if m.method == "len"
                && m.args.is_empty()
                && matches!(&*m.receiver, syn::Expr::Field(_) | syn::Expr::Index(_))
                && reads
                    .values()
                    .iter()
                    .any(|v| self.a.is_varied(*v) && self.f.value(*v).ty.composite().is_some()) =>
            {
                let rebind = self.rebind(reads);
                let recv = self.lent_vec_fields(&m.receiver.to_token_stream(), reads, false);
                let len = quote::quote_spanned!(m.method.span()=> ::autodiff::runtime::call::length(&#recv));
                match rebind.is_empty() {
                    true => len,
                    false => quote!({ #rebind #len }),
                }
            }
            Op::Opaque { expr, reads } => {
                let rebind = self.rebind(reads);
                let expr = self.lent_vec_fields(&expr.to_token_stream(), reads, false);
                if rebind.is_empty() {
                    expr
                } else {
                    quote!({ #rebind #expr })
                }
            }
        }
    }

    /// A call's arguments as written: `&xs` where the source borrows.
    /// An owned copy of the struct `v`: a clone of what a reference lends,
    /// or of the value held (the forward sweep may read it again).
    /// The name of a struct the function holds as a value, `recv` of a
    /// method: one built for the call or a copy held by value (not
    /// `self`).
    fn struct_held(&self, recv: &Operand) -> Option<syn::Ident> {
        let v = recv.value()?;
        let value = self.f.value(v);
        let held = self.f.built_fields(v).is_some()
            || matches!(&value.ty, Ty::Composite(c) if c.holder == Holder::Value)
                && value.name.as_deref() != Some("self");
        held.then(|| self.names.forward(v))
    }

    pub(super) fn owned_copy(&self, v: ValueId) -> TokenStream {
        let x = self.names.forward(v);
        let kept = quote!(::autodiff::runtime::call::kept);
        match &self.f.value(v).ty {
            Ty::Composite(c) if c.holder == Holder::Ref => quote!(#kept(#x)),
            _ => quote!(#kept(&#x)),
        }
    }

    /// A method's receiver. A struct built whole for the call whose fields
    /// carry a derivative is lent by `&`: its fields are read back from
    /// what it was built from (`Op::Field`), so a method that changes it
    /// (`&mut self`) is a compile error at the call, never a derivative
    /// lost.
    pub(super) fn receiver(&self, recv: &Operand) -> TokenStream {
        self.slots_receiver(recv).0
    }

    /// The receiver of [`lent_method_check`]: `(*p)` of a parameter `p:
    /// &P` (or `&self`) or of a part lent by `&` (`&p.cache`), whose type
    /// is then known to be no reference, so that a method without #[grad]
    /// gets the fallback trait's message; otherwise as
    /// [`Self::slots_receiver`].
    pub(super) fn lent_receiver(&self, recv: &Operand) -> (TokenStream, bool) {
        let Some(v) = recv.value() else {
            return self.slots_receiver(recv);
        };
        let by_ref = |ty: &syn::Type| matches!(ty, syn::Type::Reference(r) if !matches!(&*r.elem, syn::Type::Reference(_)));
        let param = self.f.params.iter().any(|p| p.value == v && by_ref(&p.ty));
        let mut lent_part = false;
        self.f.body.walk(&mut |inst| {
            lent_part |= matches!(inst, Inst::Def { dst, op: Op::Opaque { expr: syn::Expr::Reference(_), .. }, .. } if *dst == v);
        });
        if param || lent_part {
            // Spanned at the receiver, where the error is said (rustc
            // reports the expression inside the parentheses).
            let span = self.f.value(v).span;
            let mut r = self.names.forward(v);
            r.set_span(span);
            return (quote::quote_spanned!(span=> (*#r)), true);
        }
        self.slots_receiver(recv)
    }

    /// The receiver of a method's slots, and whether its type is known to
    /// be no reference (a struct built for the call, read in place as
    /// `(*identity(&r))`, or a struct held by value): only then may a fallback
    /// trait answer for a method without slots (`slots::method_slots_call`),
    /// as nothing earlier in the receiver's autoderef could take it for
    /// the fallback before an inherent method taking `self`.
    pub(super) fn slots_receiver(&self, recv: &Operand) -> (TokenStream, bool) {
        // A parameter taken by `&` (`net: &Mlp`): the struct behind it,
        // which a method takes by reference as the call did, so that the
        // fallback trait answers for a method without slots.
        let lent_param = recv.value().filter(|v| {
            self.f.params.iter().any(|p| {
                p.value == *v
                    && p.ident != "self"
                    && matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_none())
            })
        });
        if let Some(v) = lent_param {
            let span = self.f.value(v).span;
            let mut r = self.names.forward(v);
            r.set_span(span);
            return (quote::quote_spanned!(span=> (*#r)), true);
        }
        let built = recv
            .value()
            .and_then(|v| self.f.built_fields(v).map(|f| (v, f)));
        match built {
            Some((v, fields))
                if fields
                    .iter()
                    .any(|(_, o)| o.value().is_some_and(|x| self.a.is_varied(x))) =>
            {
                let r = self.names.forward(v);
                let span = self.f.value(v).span;
                (
                    quote::quote_spanned!(span=> (*::core::convert::identity(&#r))),
                    true,
                )
            }
            // A value the function computed, of a type the source does not
            // state (a call's result): lent by `&`, so that a method taking
            // `&mut self`, which would change it unseen, fails to compile
            // (`lower/lets.rs` models a `let mut` of one on that word).
            _ if recv.value().is_some_and(|v| {
                let value = self.f.value(v);
                value.ty == Ty::Unknown && value.kind == ValueKind::Def
            }) =>
            {
                let r = self.operand(recv, Position::Tight);
                (quote!((&#r)), false)
            }
            _ => {
                let owned = recv.value().is_some_and(|v| {
                    matches!(&self.f.value(v).ty, Ty::Composite(c) if c.holder == Holder::Value)
                        && self.f.value(v).name.as_deref() != Some("self")
                });
                (self.operand(recv, Position::Tight), owned)
            }
        }
    }

    pub(super) fn call_args(&self, args: &[Operand], borrowed: &[bool]) -> Vec<TokenStream> {
        args.iter()
            .enumerate()
            .map(|(i, operand)| {
                let a = self.operand(operand, Position::Arg);
                match borrowed.get(i) {
                    Some(true) => quote!(&#a),
                    // An array, a struct or a vector call's result given by
                    // value (`sumsq(v)` of a `Vec` the callee takes whole,
                    // `norm(cross(u, w))`): a copy, since the reverse sweep
                    // still reads it (its length, its parts), where the
                    // function moved it (trial 11 r999).
                    _ if operand.value().is_some_and(|v| {
                        let ty = &self.f.value(v).ty;
                        self.owned.contains(&v)
                            && self.a.is_active(v)
                            && (ty.array().is_some()
                                || ty.composite().is_some()
                                || *ty == Ty::Unknown)
                    }) =>
                    {
                        quote!(::autodiff::runtime::call::given(&#a))
                    }
                    _ => a,
                }
            })
            .collect()
    }

    /// The arguments of a check's call that is never made: each as
    /// `like(&arg)`, of its type (a generic callee's type parameters
    /// inferred from it), nothing moved.
    pub(super) fn like_args(
        &self,
        args: &[Operand],
        borrowed: &[bool],
    ) -> Vec<Option<TokenStream>> {
        self.call_args(args, borrowed)
            .into_iter()
            .map(|g| Some(quote!(::autodiff::runtime::call::like(&#g))))
            .collect()
    }

    /// `let name = rhs;` for the entry `dst = op`, outside a block kept as a
    /// block: the user's attributes and annotation kept, `mut` on an array
    /// that stores change, and the check that a bare runtime name is the
    /// runtime's.
    pub(super) fn let_def(
        &self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        rhs: TokenStream,
    ) -> TokenStream {
        let name = self.names.forward(dst);
        let check = self.same_function_check(dst, op);
        let (annot, attrs) = match written {
            Some(Written { ty, attrs }) => (ty.clone(), attrs.as_slice()),
            None => (None, &[][..]),
        };
        // A constant assigned to a variable declared with a float type
        // (`let a: f64; a = 0.5;`): the type, which the literal alone does
        // not give.
        let annot = annot.map(|t| t.into_token_stream()).or_else(|| {
            match (op, self.f.value(dst).ty.float()) {
                (Op::Copy(Operand::Const(_)), Some(t)) => {
                    Some(self.f.float_ident(t).into_token_stream())
                }
                _ => None,
            }
        });
        let annot = annot.map(|t| quote!(: #t));
        let m = self.mutated.contains(&dst).then(|| quote!(mut));
        // A struct built for a method, which may or may not change it.
        let lint =
            matches!(op, Op::Construct { .. } if m.is_some()).then(|| quote!(#[allow(unused_mut)]));
        quote!(#check #(#attrs)* #lint let #m #name #annot = #rhs;)
    }
}

impl Emitter<'_> {
    /// The partial derivatives of a rule's entry `dst`, from its pullback
    /// at dy = 1 (as `_trace` and `_jvp` read them): the `let` binding
    /// them, and, for each float operand `wanted` accepts, its index among
    /// `args` with the name of its partial.
    pub(super) fn rule_partials(
        &mut self,
        dst: ValueId,
        rule: &'static Rule,
        args: &[Operand],
        wanted: impl Fn(&Operand) -> bool,
    ) -> (TokenStream, Vec<(usize, syn::Ident)>) {
        let path = runtime_path(rule, &format!("{}_pullback", rule.name));
        let y = self.names.forward(dst);
        // A value whose type the source does not state may be an integer
        // (`l.rows * l.cols` of a struct's fields): one of its own type.
        let one = match self.f.value(dst).ty {
            Ty::Unknown => quote!(::autodiff::runtime::arith::one_like(&#y)),
            _ => one(self.f),
        };
        let call_args: Vec<TokenStream> = args
            .iter()
            .map(|a| self.operand(a, Position::Arg))
            .collect();
        let mut pats = Vec::new();
        let mut named = Vec::new();
        for (i, (arg, kind)) in args.iter().zip(rule.args).enumerate() {
            if *kind != crate::rules::Arg::Float {
                continue;
            }
            match wanted(arg) {
                true => {
                    let p = self.names.fresh("partial");
                    pats.push(p.to_token_stream());
                    named.push((i, p));
                }
                false => pats.push(quote!(_)),
            }
        }
        let bind = match pats.as_slice() {
            [one_pat] => quote!(let #one_pat = #path(#(#call_args,)* #y, #one);),
            many => quote!(let (#(#many),*) = #path(#(#call_args,)* #y, #one);),
        };
        (bind, named)
    }
}

/// The runtime rule of an operation, and its arguments in the rule's
/// order; `None` for what has no rule of its own.
pub(super) fn rule_of(op: &Op) -> Option<(&'static Rule, Vec<Operand>)> {
    match op {
        Op::Unary(o, a) => Some((crate::rules::unary(*o)?, vec![a.clone()])),
        Op::Binary(o, a, b) => Some((crate::rules::binary(*o)?, vec![a.clone(), b.clone()])),
        Op::Method {
            name, recv, args, ..
        } => {
            let rule = crate::rules::method(&name.to_string())?;
            Some((
                rule,
                std::iter::once(recv.clone())
                    .chain(args.iter().cloned())
                    .collect(),
            ))
        }
        Op::Call {
            callee: crate::rules::Callee::Runtime { rule, .. } | crate::rules::Callee::Method(rule),
            args,
            ..
        } => Some((*rule, args.clone())),
        _ => None,
    }
}

/// A struct built on a copy of another (`Path { f: a, ..base }`), as the
/// copy with those fields assigned, `{ let mut built = base; built.f = a;
/// built }`: the same value, where every field may be named (clippy's
/// `needless_update` would flag the literal in the user's crate).
pub(super) fn built_on<'m>(
    base: TokenStream,
    fields: impl Iterator<Item = (&'m syn::Member, TokenStream)>,
) -> TokenStream {
    let built = syn::Ident::new("built", proc_macro2::Span::mixed_site());
    let sets = fields.map(|(m, v)| quote!(#built.#m = #v;));
    quote!({
        #[allow(unused_mut)]
        let mut #built = #base;
        #(#sets)*
        #built
    })
}
