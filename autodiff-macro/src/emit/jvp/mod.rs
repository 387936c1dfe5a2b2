//! `<name>_jvp`, for `#[grad(jvp)]`: forward mode. The function's own
//! code runs once, and beside each active Wengert entry its tangent, the
//! derivative of its value along the tangents given for the active
//! parameters: `f_jvp(args.., tangents..) -> (value, tangent of the
//! value)`. One tangent per active parameter, of the parameter's own type
//! (a float, `&[T]`, `[T; N]`, a struct deriving `Differentiable`); the
//! output's tangent has the output's type (a float, a tuple of floats, an
//! array).
//!
//! The tangents come from the rules the reverse sweep uses, once each:
//! an entry's partial derivatives are its rule's pullback at dy = 1
//! (as `_trace` reads them), and its tangent their sum weighted by its
//! operands' tangents. A call to another `#[grad]` function with a float
//! value is taken through the callee's gradient slots, `Σ ⟨gradient,
//! tangent⟩` (`runtime::tangent`). Arrays carry an array of tangents,
//! written where the array is, branches pass out their merges' tangents,
//! and loops carry their variables' tangents beside them (nothing is
//! recorded: a checkpointed loop simply runs).
//!
//! Kernels take their tangents from the runtime's `<kernel>_tangent`; a
//! struct built whole has the struct of its fields' tangents, and a
//! struct given to a call is taken along its gradient by its inner
//! product (`runtime::tangent::Inner`, which the derive implements).
//! A call returning a vector goes through the callee's own `_jvp`
//! (`calls.rs`). Refused at the construct, with what to do: such a call
//! of a method, writers, fallible calls and functions.

use std::collections::HashMap;

use syn::spanned::Spanned;

use super::*;

mod calls;
mod regions;
mod rules;

pub use calls::no_jvp_fns;

/// The `<name>_jvp` function, or the errors that say what it cannot
/// differentiate in forward mode.
pub fn jvp_fn(item: &syn::ItemFn, f: &Function, a: &Activity) -> syn::Result<TokenStream> {
    let mut names = Names::new(f, item.to_token_stream());
    let mut t = Tangents {
        e: Emitter::forward_only(f, a, &mut names),
        tangents: HashMap::new(),
        errors: None,
        refused: Default::default(),
        refusals: 0,
        lent: Default::default(),
        span: item.sig.ident.span(),
    };
    let mut params = Vec::new();
    for (p, arg) in f.params.iter().zip(&item.sig.inputs) {
        if let Some(param) = t.param(p, arg) {
            params.push(param);
        }
    }
    if f.fallible.is_some() {
        t.refuse(
            item.sig.output.span(),
            "a function returning `Result` or `Option`",
        );
    }
    if !f.written.is_empty() {
        t.refuse(
            item.sig.ident.span(),
            "a function that writes a float through `&mut`",
        );
    }
    let mut body = TokenStream::new();
    t.block(&f.body, &mut body);
    let (value, tangent) = t.output();
    if let Some(e) = t.errors {
        return Err(e);
    }
    let sig = &item.sig;
    let name = format_ident!("{}_jvp", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = grad_fn::inputs(item, f);
    let ret_ty = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let vis = &item.vis;
    let attrs: Vec<&syn::Attribute> = kept_attrs(item).collect();
    let iterator = iterator_in_scope(f);
    let fname = sig.ident.to_string();
    let tangent_names: Vec<String> = params
        .iter()
        .map(|p| {
            let s = p.to_string();
            format!("`{}`", s.split(':').next().unwrap_or_default().trim())
        })
        .collect();
    let doc = format!(
        "Forward mode of [`{fname}`]: its value and the derivative of its value along the tangents {} of its differentiated parameters, each of its parameter's type (`#[grad(jvp)]`).",
        tangent_names.join(", ")
    );
    let slots = calls::jvp_slots_fn(item, f, &ret_ty);
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_snake_case, clippy::too_many_arguments, clippy::type_complexity, unused_mut, unused_variables)]
        #(#attrs)*
        #vis fn #name #generics (#(#inputs,)* #(#params),*) -> (#ret_ty, #ret_ty) #where_clause {
            #iterator
            #body
            (#value, #tangent)
        }
        #slots
    })
}

/// The emitter of the function's code, and each active value's tangent.
struct Tangents<'a> {
    e: Emitter<'a>,
    /// The expression holding each active value's tangent: a variable, or
    /// a part of a parameter's tangent.
    tangents: HashMap<ValueId, TokenStream>,
    errors: Option<syn::Error>,
    /// The active entries refused, and those computed from them (refused
    /// once, at the first).
    refused: std::collections::HashSet<ValueId>,
    /// How many refusals were made.
    refusals: usize,
    /// The values whose tangent is held by reference (a parameter taken
    /// as `&P`, its tangent `d_p: &P`).
    lent: std::collections::HashSet<ValueId>,
    /// Where an error about a region is reported: the IR keeps no span for
    /// regions, so the function's name.
    span: proc_macro2::Span,
}

impl Tangents<'_> {
    fn refuse(&mut self, span: proc_macro2::Span, what: &str) {
        self.refusals += 1;
        crate::diag::combine(&mut self.errors, syn::Error::new(span, refusal(what)));
    }

    /// The tangent parameter of an active parameter (`d_x: f64`, of the
    /// parameter's type), recorded as its tangent.
    fn param(&mut self, p: &Param, arg: &syn::FnArg) -> Option<TokenStream> {
        if !p.active {
            return None;
        }
        // A method's receiver: its tangent of its type, `d_self: &Self`.
        let ty = match arg {
            syn::FnArg::Typed(t) => &t.ty,
            syn::FnArg::Receiver(r) => &r.ty,
        };
        let d = self.e.names.adjoint(p.value);
        if let syn::Type::Reference(r) = &**ty {
            if r.mutability.is_some() {
                self.refuse(p.ident.span(), "a parameter taken by `&mut`");
                return None;
            }
        }
        self.tangents.insert(p.value, d.to_token_stream());
        if matches!(&**ty, syn::Type::Reference(_)) {
            self.lent.insert(p.value);
        }
        let ty = tangent_ty(ty);
        Some(quote!(#d: #ty))
    }

    /// Whether a writer's call lends one struct (its `_jvp` takes it by
    /// `&` and returns its new value and tangent).
    fn lends_struct(&self, mutated: &[usize], args: &[Operand]) -> bool {
        match mutated {
            [k] => args
                .get(*k)
                .and_then(Operand::value)
                .is_some_and(|v| self.e.f.value(v).ty.composite().is_some()),
            _ => false,
        }
    }

    fn block(&mut self, b: &Block, out: &mut TokenStream) {
        for inst in &b.insts {
            self.inst(inst, out);
        }
    }

    fn inst(&mut self, inst: &Inst, out: &mut TokenStream) {
        match inst {
            Inst::Def {
                dst,
                op,
                written,
                span,
            } => self.def(*dst, op, written.as_deref(), *span, out),
            Inst::Verbatim { .. } => out.extend(self.e.inst(inst)),
            Inst::Scope(b) if !forward::keeps_bindings(b) => self.block(b, out),
            // A filter's bindings and test: a block as written.
            Inst::Scope(b) if self.e.f.scope_escapes(b).is_some() => {
                let escapes = self.e.f.scope_escapes(b).unwrap_or_default();
                let mut inner = TokenStream::new();
                self.block(b, &mut inner);
                out.extend(forward::scope_block(&mut self.e, &escapes, inner));
            }
            // A block whose verbatim `let`s stay inside it (`let p =
            // &book[k];` of a chain's element): run once, it passes out
            // what is read after it, each value with its tangent.
            Inst::Scope(b) => {
                let outputs = self.e.f.scope_outputs(b);
                let mut inner = TokenStream::new();
                self.block(b, &mut inner);
                let mut names: Vec<TokenStream> = Vec::new();
                for v in outputs {
                    names.push(self.e.names.forward(v).to_token_stream());
                    if let Some(t) = self.tangents.get(&v) {
                        if syn::parse2::<syn::Ident>(t.clone()).is_err() {
                            let span = self.span;
                            self.refuse(
                                span,
                                "a block that declares variables the macro does not model",
                            );
                            return;
                        }
                        names.push(t.clone());
                    }
                }
                out.extend(match names.as_slice() {
                    [] => quote!({ #inner }),
                    [one] => quote!(let #one = { #inner #one };),
                    many => quote!(let (#(#many),*) = { #inner (#(#many),*) };),
                });
            }
            Inst::Branch(br) => self.branch(br, out),
            Inst::Loop(l) => self.tangent_loop(l, out),
            Inst::Store {
                array,
                index,
                value,
            } => {
                out.extend(self.e.inst(inst));
                if let Some(d) = self.tangents.get(array).cloned() {
                    let idx = index_tokens(&self.e, index);
                    let t = self.tangent_or_zero(value);
                    out.extend(quote!(#d #idx = #t;));
                }
            }
            Inst::Push { array, value, .. } => {
                out.extend(self.e.inst(inst));
                if let Some(d) = self.tangents.get(array).cloned() {
                    let t = self.tangent_or_zero(value);
                    out.extend(quote!(#d.push(#t);));
                }
            }
        }
    }

    /// The tangent of an operand: an active value's, `None` for a constant
    /// or a value that does not depend on the active parameters.
    fn tangent_of(&self, o: &Operand) -> Option<TokenStream> {
        o.value().and_then(|v| self.tangents.get(&v).cloned())
    }

    /// The tangent of a float operand, or zero.
    fn tangent_or_zero(&self, o: &Operand) -> TokenStream {
        self.tangent_of(o).unwrap_or_else(|| zero(self.e.f))
    }

    /// A new tangent variable for `dst`, bound to `e`.
    fn bind(&mut self, dst: ValueId, e: TokenStream, out: &mut TokenStream) {
        let d = self.e.names.adjoint(dst);
        out.extend(quote!(let #d = #e;));
        self.tangents.insert(dst, d.into_token_stream());
    }

    /// `let name = rhs;`, as the forward sweep of `_grad` writes it.
    fn statement(&self, dst: ValueId, op: &Op, written: Option<&Written>) -> TokenStream {
        self.e.let_def(dst, op, written, self.e.op(op))
    }

    /// One entry, then, for an active value, its tangent.
    fn def(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        span: proc_macro2::Span,
        out: &mut TokenStream,
    ) {
        if !self.e.a.is_active(dst) {
            out.extend(self.statement(dst, op, written));
            return;
        }
        if op.operands().iter().any(|o| self.refused.contains(o)) {
            self.refused.insert(dst);
            return;
        }
        let before = self.refusals;
        self.entry(dst, op, written, span, out);
        if self.refusals > before {
            self.refused.insert(dst);
        }
    }

    /// [`Self::def`] of an active entry none of whose operands was refused.
    fn entry(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        span: proc_macro2::Span,
        out: &mut TokenStream,
    ) {
        match op {
            Op::Copy(o) => {
                out.extend(self.statement(dst, op, written));
                let is_array = self.e.f.value(dst).ty.array().is_some();
                match (self.tangent_of(o), is_array) {
                    // A copy of an array changes apart from it.
                    (Some(t), true) => {
                        let d = self.e.names.adjoint(dst);
                        out.extend(quote!(let mut #d = ::core::clone::Clone::clone(&#t);));
                        self.tangents.insert(dst, d.into_token_stream());
                    }
                    (Some(t), false) => self.bind(dst, t, out),
                    (None, _) => {}
                }
            }
            Op::Cast(o, ty) => {
                out.extend(self.statement(dst, op, written));
                // Zero from an integer (a struct's `n`, whose tangent is a
                // copy of it).
                if let Some(t) = self.tangent_of(o) {
                    self.bind(
                        dst,
                        quote!(::autodiff::runtime::float::cast_tangent::<_, #ty>(&(#t))),
                        out,
                    );
                }
            }
            Op::Load { array, index } => {
                out.extend(self.statement(dst, op, written));
                if let Some(d) = self.tangents.get(array).cloned() {
                    let idx = index_tokens(&self.e, index);
                    self.bind(dst, quote!(#d #idx), out);
                }
            }
            // A part of a parameter or of a struct built whole: the same
            // part of its tangent, lent or copied as the part is.
            Op::Project { base, path, by_ref } if self.tangents.contains_key(base) => {
                out.extend(self.statement(dst, op, written));
                let d = self.tangents[base].clone();
                let steps = path_tokens(&self.e, path);
                let owned = self.e.f.value(*base).kind == ValueKind::Def
                    && matches!(path.last(), Some(Step::Field(_)));
                let t = match (by_ref, owned) {
                    (true, _) => quote!(&#d #steps),
                    (false, true) => quote!(::core::clone::Clone::clone(&#d #steps)),
                    (false, false) => quote!(#d #steps),
                };
                // A part in a field marked `#[differentiable(constant)]`
                // has no tangent (the tangent's part is a copy).
                let t = match path.iter().any(|s| matches!(s, Step::Field(_))) {
                    true => {
                        let constant = in_constant_field(&self.e, &quote!(#d), path);
                        let part = quote!(::autodiff::runtime::differentiable::part_tangent(#constant, &#d #steps));
                        match by_ref {
                            true => quote!(&#part),
                            false => part,
                        }
                    }
                    false => t,
                };
                self.bind(dst, t, out);
                if *by_ref {
                    self.lent.insert(dst);
                }
            }
            Op::NewArray(init) => {
                out.extend(self.statement(dst, op, written));
                let tangents = match init {
                    ArrayInit::Filled { value, len } => {
                        let t = self.tangent_or_zero(value);
                        let len = self.e.operand(len, Position::Arg);
                        quote!(::std::vec![#t; #len])
                    }
                    ArrayInit::Repeat { value, len } => {
                        let t = self.tangent_or_zero(value);
                        let len: TokenStream = len.parse().unwrap_or_default();
                        quote!([#t; #len])
                    }
                    ArrayInit::List { items, is_vec } => {
                        let ts: Vec<TokenStream> =
                            items.iter().map(|i| self.tangent_or_zero(i)).collect();
                        match is_vec {
                            true => quote!(::std::vec![#(#ts),*]),
                            false => quote!([#(#ts),*]),
                        }
                    }
                    ArrayInit::Empty { .. } => quote!(::std::vec::Vec::new()),
                };
                let d = self.e.names.adjoint(dst);
                out.extend(quote!(let mut #d = #tangents;));
                self.tangents.insert(dst, d.into_token_stream());
            }
            Op::Call {
                path,
                mutated: Some(_),
                ..
            } => self.refuse(path.span(), "a call that writes through `&mut`"),
            Op::Call {
                path,
                exit: Some(_),
                ..
            } => self.refuse(
                path.span(),
                "a call of a function that may fail (`?`, `unwrap`, `expect`)",
            ),
            Op::Call {
                callee: crate::rules::Callee::Function,
                partials,
                ..
            }
            | Op::GradMethod { partials, .. }
                if !partials.is_empty() =>
            {
                self.call(dst, op, written, span, out)
            }
            // A callee returning a vector, through its own `_jvp`; so is a
            // struct writer's call, whose value is the struct's new one
            // (`lower/struct_writers.rs`).
            Op::VjpCall {
                mutated,
                args,
                original: None,
                exit: None,
                ..
            } if mutated.is_empty() || self.lends_struct(mutated, args) => {
                self.vector_call(dst, op, written, out)
            }
            Op::Kernel { kernel, args, .. } => {
                out.extend(self.statement(dst, op, written));
                self.kernel(dst, kernel, args, out);
            }
            // A struct built whole: the struct of its fields' tangents (a
            // field without one: a zero in its shape).
            Op::Construct { path, fields, base } => {
                out.extend(self.statement(dst, op, written));
                // The fields not named: the base's tangent, or a zero in
                // its shape.
                let base = base.map(|b| match self.tangents.get(&b).cloned() {
                    Some(t) if self.lent.contains(&b) => quote!(::core::clone::Clone::clone(#t)),
                    Some(t) => quote!(::core::clone::Clone::clone(&#t)),
                    None => {
                        let v = self.e.owned_copy(b);
                        quote!(::autodiff::runtime::differentiable::zero_like(&#v))
                    }
                });
                let on_base = base.is_some();
                let fields: Vec<(&syn::Member, TokenStream)> = fields
                    .iter()
                    .map(|(m, o)| {
                        let t = match self.tangent_of(o) {
                            Some(t) => quote!(::core::clone::Clone::clone(&#t)),
                            // On a base's tangent, a field marked
                            // `#[differentiable(constant)]` keeps the
                            // base's (its type need not be
                            // `Differentiable`), `built_on`'s `built`.
                            None if on_base => {
                                let kind = crate::derive::kind_method(m);
                                let built = syn::Ident::new("built", proc_macro2::Span::mixed_site());
                                quote!(::autodiff::runtime::differentiable::zero_field(#built.#kind(), &#built.#m))
                            }
                            // Without one, the field's kind read on the
                            // struct just built: a constant field keeps its
                            // value (an enum's variant, `mode: Mode::Up`).
                            None => {
                                let v = self.e.operand(o, Position::Arg);
                                let kind = crate::derive::kind_method(m);
                                let built = self.e.names.forward(dst);
                                quote!(::autodiff::runtime::differentiable::zero_field(#built.#kind(), &#v))
                            }
                        };
                        // A `Vec` the function holds (a field's copy,
                        // `let mut q = self.q.clone();`): the field's
                        // tangent, whichever of a `Vec` and an array it
                        // is, as the value's (`emit/ops.rs`).
                        let vec = matches!(o, Operand::Value(x)
                            if matches!(&self.e.f.value(*x).ty, Ty::Array(a) if a.shape == Shape::Vec));
                        match vec {
                            true => (m, quote!(::autodiff::runtime::call::as_field(#t))),
                            false => (m, t),
                        }
                    })
                    .collect();
                let tangent = match base {
                    Some(b) => ops::built_on(b, fields.into_iter()),
                    None => {
                        let fields = fields.iter().map(|(m, v)| quote!(#m: #v));
                        quote!(#path { #(#fields),* })
                    }
                };
                self.bind(dst, tangent, out);
            }
            // A field of a struct built whole: the tangent of what it was
            // built from.
            Op::Field { from, .. } => {
                out.extend(self.statement(dst, op, written));
                if let Some(t) = self.tangent_of(from) {
                    self.bind(dst, t, out);
                }
            }
            _ => match ops::rule_of(op) {
                Some((rule, args)) => {
                    out.extend(self.statement(dst, op, written));
                    self.partials(dst, rule, &args, out);
                }
                None => self.refuse(span, what_it_is(op)),
            },
        }
    }

    /// A call of a `#[grad]` function or method with a float value: its
    /// value and gradient slots, as `_grad` takes them, and the derivative
    /// along the arguments' tangents, `Σ ⟨slot, tangent⟩`.
    fn call(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        span: proc_macro2::Span,
        out: &mut TokenStream,
    ) {
        let pairs = op.call_slots();
        let mut terms = Vec::new();
        for (arg, slot) in &pairs {
            let Some(t) = self.tangent_of(arg) else {
                continue;
            };
            let Some(slot) = slot else { continue };
            let ty = arg.value().map(|v| self.e.f.value(v).ty.clone());
            let lent = arg.value().is_some_and(|v| self.lent.contains(&v));
            let tangent = match ty {
                Some(Ty::Array(a)) if a.shape != Shape::Nested => quote!(&#t[..]),
                Some(Ty::Composite(_)) if lent => t,
                Some(t_ty)
                    if t_ty.is_float() || t_ty == Ty::Unknown || t_ty.composite().is_some() =>
                {
                    quote!(&#t)
                }
                _ => {
                    return self.refuse(
                        span,
                        "a call given a nested array that carries a derivative",
                    )
                }
            };
            // Checked by `grad_call` (`analysis/casts.rs`): the slot may be
            // a constant one.
            let along = match arg
                .value()
                .is_some_and(|v| self.e.through_casts.contains_key(&v))
            {
                true => quote!(along_through_cast),
                false => quote!(along),
            };
            let slot = self.e.names.forward(*slot);
            // Of the value's type: a struct's term may be of any float's.
            let value = self.e.names.forward(dst);
            terms.push(quote!(::autodiff::runtime::tangent::like(&#value, ::autodiff::runtime::tangent::#along(&#slot, #tangent))));
        }
        match self.e.grad_call(dst, op) {
            Some(call) => out.extend(call),
            None => out.extend(self.statement(dst, op, written)),
        }
        let sum = sum(terms, self.e.f);
        self.bind(dst, sum, out);
    }

    /// The returned value and its tangent.
    fn output(&mut self) -> (TokenStream, TokenStream) {
        let f = self.e.f;
        match &f.output {
            Output::Scalar => (
                self.e.operand(&f.ret, Position::Arg),
                self.tangent_or_zero(&f.ret),
            ),
            Output::Tuple(items) => {
                let vs: Vec<TokenStream> = items
                    .iter()
                    .map(|o| self.e.operand(o, Position::Arg))
                    .collect();
                let ts: Vec<TokenStream> = items.iter().map(|o| self.tangent_or_zero(o)).collect();
                (quote!((#(#vs),*)), quote!((#(#ts),*)))
            }
            Output::Array(a) => {
                let value = self.e.operand(&f.ret, Position::Arg);
                let tangent = match self.tangent_of(&f.ret) {
                    Some(t) => t,
                    None => match f.ret.value() {
                        Some(v) => zeros_like(f, &self.e.names.forward(v), a),
                        None => zero(f),
                    },
                };
                (value, tangent)
            }
            // The struct's tangent, owned; a zero like it where nothing
            // active reaches it.
            Output::Struct(_) => {
                let value = self.e.operand(&f.ret, Position::Arg);
                let tangent = match self.tangent_of(&f.ret) {
                    Some(t) => quote!(::core::clone::Clone::clone(&#t)),
                    None => quote!(::autodiff::runtime::differentiable::zero_like(&#value)),
                };
                (value, tangent)
            }
        }
    }
}

/// `a + b + ..`, or zero.
/// A tangent parameter's type: the parameter's, a reference's named
/// lifetime elided (`xs: &'a [f64]`, `d_xs: &[f64]`), so that a caller's
/// tangent, made where it calls (`__autodiff_jvp_slots_f`), need not live
/// as long as the parameter.
pub(super) fn tangent_ty(ty: &syn::Type) -> syn::Type {
    match ty {
        syn::Type::Reference(r) if r.lifetime.is_some() => {
            syn::Type::Reference(syn::TypeReference {
                lifetime: None,
                ..r.clone()
            })
        }
        other => other.clone(),
    }
}

fn sum(terms: Vec<TokenStream>, f: &Function) -> TokenStream {
    match terms.len() {
        0 => zero(f),
        _ => quote!(#(#terms)+*),
    }
}

/// What an operation without a tangent is, for its refusal.
fn what_it_is(op: &Op) -> &'static str {
    match op {
        Op::VjpCall { mutated, .. } if !mutated.is_empty() => {
            "a call of a writer (a function or method that changes what it is lent by `&mut`)"
        }
        Op::VjpCall { .. } => {
            "a call whose result is a tuple, an array or a struct, of a function that may fail or that also writes through `&mut`"
        }
        Op::Project { .. } => "a part of a value returned by a call, or a reference to a part",
        Op::Call { .. } | Op::GradMethod { .. } => "this call",
        _ => "this operation",
    }
}

/// What `_jvp` cannot differentiate, and what to do.
fn refusal(what: &str) -> String {
    format!("#[grad(jvp)] cannot take {what} in forward mode yet: `_grad` differentiates it, but `_jvp` follows float arithmetic, float methods, runtime functions and kernels, float arrays, structs, loops, branches and calls to #[grad] functions and methods with a float value; drop `jvp` from this function, or compute the directional derivative from `_grad`")
}
