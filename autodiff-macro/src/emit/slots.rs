//! What a `#[grad]` function gives its callers: a hidden sibling with the
//! function's own parameters that returns the value and one slot per
//! parameter, in parameter order (the receiver of a method first): the
//! gradient where the function differentiates the parameter,
//! `runtime::call::Constant` where it does not. A caller counts its
//! arguments, binds as many slots, and adds each into its argument's
//! adjoint through `runtime::call::Slot`, so it never guesses which of its
//! arguments the callee differentiates (`runtime/src/call.rs`).
//!
//! - a float output: `__autodiff_grad_slots_<name>(args..)`, from `_grad`;
//! - a vector output: `__autodiff_vjp_slots_<name>(args.., seed)`, from
//!   `_vjp`.
//!
//! A function without a receiver cannot name its own gradient function:
//! free, it is `<name>_grad`, associated, `Self::<name>_grad`, and a macro
//! on the function cannot tell which. So its slots take that function as
//! their first argument, and the caller, who wrote the call's path, passes
//! it (`__autodiff_grad_slots_helper(helper_grad, x, 2.0)`).
//!
//! A caller cannot tell a method from an associated function either when
//! it is called by its path (`Model::eval(m, x)`, `Model::new(a, b)`). So
//! every function has the slots of that path form, a method's taking its
//! receiver as an ordinary first parameter
//! (`Model::__autodiff_grad_slots_eval(Model::eval_grad, m, x)`); a
//! method also has slots of its own for a call on a receiver
//! (`m.eval(x)`: `m.__autodiff_grad_method_slots_eval(x)`), which call
//! `Self::<name>_grad`.

use super::*;

/// The hidden name a caller calls for the slots of `name`'s gradient
/// (`vjp`: of its vector-Jacobian product).
pub fn slots_name(name: &syn::Ident, vjp: bool) -> syn::Ident {
    match vjp {
        false => format_ident!("__autodiff_grad_slots_{}", name, span = name.span()),
        true => format_ident!("__autodiff_vjp_slots_{}", name, span = name.span()),
    }
}

/// The hidden name of a method's slots for a call on a receiver
/// (`m.eval(x)`), `writer` for a method that writes through `&mut`.
pub fn method_slots_name(name: &syn::Ident, vjp: bool, writer: bool) -> syn::Ident {
    let kind = match (writer, vjp) {
        (true, _) => "mut",
        (false, false) => "grad",
        (false, true) => "vjp",
    };
    format_ident!(
        "__autodiff_{}_method_slots_{}",
        kind,
        name,
        span = name.span()
    )
}

/// `recv.<slots>(args..)`, the slots of the method `name` called on a
/// receiver. Where the receiver's type has no such slots (a method
/// without `#[grad]`), a fallback trait declared at the call answers
/// instead: its bound, which nothing satisfies, makes the call a compile
/// error that names the method and says to put `#[grad]` on it. An
/// inherent method is found before a trait's method taking `&mut self`,
/// whatever its own receiver, where the receiver's type is no reference
/// (`owned`); on a reference the fallback would be found first (a step of
/// autoderef before an inherent method taking `self`), so there the call
/// is plain and a method without slots is rustc's "no method named".
pub fn method_slots_call(
    recv: (TokenStream, bool),
    name: &syn::Ident,
    slots: &syn::Ident,
    args: &[TokenStream],
) -> TokenStream {
    let texts = [
        format!("#[grad] differentiates the call of `{name}` through its #[grad], and `{name}` has none (or its #[grad] refused it: see the error there)"),
        format!("put #[grad] on `{name}` in the `impl` of `{{Self}}`"),
        format!("`{name}` is called with values that depend on the active inputs; with #[grad(wrt(self))] its receiver is differentiated too"),
    ];
    slots_call_or_error(recv, name, slots, args, texts)
}

/// `recv.<slots>(args..)`, with the fallback trait's texts (message,
/// label, note) where the receiver is known to be no reference.
pub(super) fn slots_call_or_error(
    (recv, owned): (TokenStream, bool),
    name: &syn::Ident,
    slots: &syn::Ident,
    args: &[TokenStream],
    [message, label, note]: [String; 3],
) -> TokenStream {
    if !owned {
        return quote!(#recv.#slots(#(#args),*));
    }
    let arg_tys: Vec<syn::Ident> = (0..args.len())
        .map(|i| format_ident!("AutodiffArg{}", i))
        .collect();
    // The error points at the receiver, as the user wrote the call.
    let recv = respan(recv, name.span());
    let no_grad = quote!(AutodiffNoGrad);
    let fallback = quote!(AutodiffFallback);
    quote! {{
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        trait #no_grad {}
        trait #fallback {
            #[allow(clippy::too_many_arguments)]
            fn #slots<#(#arg_tys,)* AutodiffReturned>(&mut self, #(_: #arg_tys),*) -> AutodiffReturned where Self: #no_grad;
        }
        impl<AutodiffT: ?Sized> #fallback for AutodiffT {
            #[allow(clippy::too_many_arguments)]
            fn #slots<#(#arg_tys,)* AutodiffReturned>(&mut self, #(_: #arg_tys),*) -> AutodiffReturned where Self: #no_grad {
                ::core::unreachable!()
            }
        }
        #recv.#slots(#(#args),*)
    }}
}

/// How a caller calls a function's slots: by the function's path, the
/// gradient function given first, or on a receiver.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Form {
    Path,
    Receiver,
}

/// The hidden name a caller calls for a writer's slots, `update(&mut s,
/// ..)` (`Function::lent`): only such a function has it, so a
/// caller that takes another function for one is a compile error, never
/// a value taken for the written one.
pub fn mut_slots_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_mut_slots_{}", name, span = name.span())
}

/// For a writer's call (`update(&mut s, y);`), the path of its
/// `__autodiff_mut_slots_<name>`.
pub fn mut_slots_path(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = mut_slots_name(&last.ident);
    }
    p.into_token_stream()
}

/// For a call of the function at `path` (without a receiver): the path
/// of its slots function, and of its gradient function (`_grad`, or
/// `_vjp` where `vjp`), which the slots take first.
pub fn slots_paths(path: &syn::Path, vjp: bool) -> (TokenStream, TokenStream) {
    let mut slots = path.clone();
    let mut gradient = path.clone();
    if let (Some(s), Some(g)) = (slots.segments.last_mut(), gradient.segments.last_mut()) {
        s.ident = slots_name(&s.ident, vjp);
        let suffix = if vjp { "vjp" } else { "grad" };
        g.ident = format_ident!("{}_{}", g.ident, suffix, span = g.ident.span());
    }
    (slots.into_token_stream(), gradient.into_token_stream())
}

/// The hidden slots function of `item`, whose gradient function is
/// `<name>_grad` (or `<name>_vjp`, `seed` its extra parameter, for a
/// vector output) returning `(value, gradients of the active parameters)`.
pub(super) fn slots_fn(
    item: &syn::ItemFn,
    f: &Function,
    seed: Option<(&syn::Ident, &TokenStream)>,
    value_ty: &TokenStream,
) -> TokenStream {
    let vjp = seed.is_some();
    let name = &item.sig.ident;
    let mut out = slots_fns(item, f, seed, value_ty, |form| match form {
        Form::Path => slots_name(name, vjp),
        Form::Receiver => method_slots_name(name, vjp, false),
    });
    if !f.lent.is_empty() {
        out.extend(slots_fns(item, f, seed, value_ty, |form| match form {
            Form::Path => mut_slots_name(name),
            Form::Receiver => method_slots_name(name, vjp, true),
        }));
    }
    out
}

/// The slots of `item` in the path form, and for a method in the
/// receiver form too, each named by `name`.
pub(super) fn slots_fns(
    item: &syn::ItemFn,
    f: &Function,
    seed: Option<(&syn::Ident, &TokenStream)>,
    value_ty: &TokenStream,
    name: impl Fn(Form) -> syn::Ident,
) -> TokenStream {
    let mut out = slots_fn_named(item, f, seed, value_ty, name(Form::Path), Form::Path);
    if item.sig.receiver().is_some() {
        out.extend(slots_fn_named(
            item,
            f,
            seed,
            value_ty,
            name(Form::Receiver),
            Form::Receiver,
        ));
    }
    out
}

fn slots_fn_named(
    item: &syn::ItemFn,
    f: &Function,
    seed: Option<(&syn::Ident, &TokenStream)>,
    value_ty: &TokenStream,
    name: syn::Ident,
    form: Form,
) -> TokenStream {
    let sig = &item.sig;
    let vjp = seed.is_some();
    let gradient = match vjp {
        false => format_ident!("{}_grad", sig.ident),
        true => format_ident!("{}_vjp", sig.ident),
    };
    let gradient = sibling_path(item, &gradient);
    let active: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    // Names apart from the parameters' (and the seed's, already apart).
    let mut names = Names::new(f, item.to_token_stream());
    let value = names.fresh("value");
    let constant = quote!(::autodiff::runtime::call::Constant);
    let mut grad_tys = gradient_types(f, &active).into_iter();
    let mut bound = Vec::new();
    let mut slots = Vec::new();
    let mut slot_tys = Vec::new();
    for p in &f.params {
        if p.active {
            let g = names.fresh(&format!("d_{}", p.ident));
            bound.push(g.clone());
            slots.push(g.into_token_stream());
            slot_tys.push(grad_tys.next().unwrap_or_default());
        } else {
            slots.push(constant.clone());
            slot_tys.push(constant.clone());
        }
    }
    // In the path form, a method's receiver is an ordinary parameter.
    let this = names.fresh("this");
    let args: Vec<&syn::Ident> = f
        .params
        .iter()
        .map(|p| match form == Form::Path && p.ident == "self" {
            true => &this,
            false => &p.ident,
        })
        .collect();
    // The seed is a value of the output's type (the caller's adjoint of
    // the result, whatever its shape), lent to `_vjp` as it takes it.
    let seed_arg = seed.map(|(s, ty)| match ty.to_string().starts_with('&') {
        true => quote!(&#s),
        false => quote!(#s),
    });
    let seed_param = seed.map(|(s, _)| quote!(#s: #value_ty));
    // On a receiver, a method calls its gradient function as
    // `Self::<name>_grad`; by its path, a function may be free or
    // associated, which a macro cannot see, so its caller, who wrote the
    // path, passes it.
    let given = names.fresh("gradient");
    let (gradient, given_param) = match form {
        Form::Receiver => (gradient, None),
        Form::Path => {
            let tys = sig.inputs.iter().map(|a| match a {
                syn::FnArg::Typed(t) => &t.ty,
                syn::FnArg::Receiver(r) => &r.ty,
            });
            let seed_ty = seed.map(|(_, ty)| ty);
            let grad_tys = gradient_types(f, &active);
            let returned = fallible_ty(f, quote!((#value_ty, #(#grad_tys),*)));
            (
                given.to_token_stream(),
                Some(quote!(#given: impl ::core::ops::FnOnce(#(#tys,)* #seed_ty) -> #returned)),
            )
        }
    };
    let own = inputs(item, f)
        .into_iter()
        .zip(&sig.inputs)
        .map(|(t, a)| match (form, a) {
            (Form::Path, syn::FnArg::Receiver(r)) => {
                let ty = &r.ty;
                quote!(#this: #ty)
            }
            _ => t,
        });
    let inputs = given_param.into_iter().chain(own).chain(seed_param);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let vis = &item.vis;
    // A fallible function's slots are fallible too: its callers' `g(x)?`.
    let returned_ty = fallible_ty(f, quote!((#value_ty, #(#slot_tys),*)));
    let returned = fallible_value(f, quote!((#value, #(#slots),*)));
    let tried = fallible_try(f);
    let cfg = cfg_attrs(item);
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, clippy::too_many_arguments, clippy::type_complexity, clippy::used_underscore_binding)]
        #(#cfg)*
        #vis fn #name #generics (#(#inputs),*) -> #returned_ty #where_clause {
            let (#value, #(#bound),*) = #gradient(#(#args,)* #seed_arg) #tried;
            #returned
        }
    }
}

impl Emitter<'_> {
    /// A value of the type of a callee's slot `v`, for the arms that do not
    /// make it: the zero of the argument's gradient for a struct (which has
    /// no `Default`), `Default::default()` for any other (a float's slot
    /// may be a `Constant`, which a float zero is not); `None` where `v` is
    /// no slot.
    pub(super) fn slot_placeholder(&self, v: ValueId, arms: &[Block]) -> Option<TokenStream> {
        fn find(block: &Block, v: ValueId) -> Option<Operand> {
            for inst in &block.insts {
                if let Inst::Def { op, .. } = inst {
                    let pairs = op.call_slots();
                    if let Some((a, _)) = pairs.into_iter().find(|(_, p)| *p == Some(v)) {
                        return Some(a);
                    }
                }
                for b in inst.blocks() {
                    if let Some(a) = find(b, v) {
                        return Some(a);
                    }
                }
            }
            None
        }
        let arg = arms.iter().find_map(|b| find(b, v))?;
        match arg.value().map(|a| (a, &self.f.value(a).ty)) {
            // A struct from before the branch (a loop's, `for .. if c {
            // q.step(q.energy()); }`): its own value is at hand, where
            // the one its adjoint is shaped by (what the loop carries
            // out) is not yet.
            Some((a, Ty::Composite(_)))
                if !matches!(self.f.value(a).kind, ValueKind::Param(_))
                    && !arms.iter().any(|b| b.defined_anywhere().contains(&a)) =>
            {
                let a = self.names.forward(a);
                Some(quote!(::autodiff::runtime::differentiable::zero_like(&#a)))
            }
            Some((a, Ty::Composite(_))) => self.zero_in_shape(a, false),
            _ => Some(quote!(::core::default::Default::default())),
        }
    }
}

/// For a function without a receiver that returns a vector or a struct:
/// the `<name>_grad` and `__autodiff_grad_slots_<name>` a caller reading
/// the call's value as a float names (`make(a, b).abs()`), a constant of
/// `runtime::call::VectorOutput` and slots bounded by `ScalarOutput`,
/// which it does not implement: a compile error at the call that says to
/// bind the value with its type, never a missing generated name.
pub(super) fn vector_output_scalar_slots(item: &syn::ItemFn) -> TokenStream {
    let sig = &item.sig;
    if sig.receiver().is_some() {
        return TokenStream::new();
    }
    let grad = format_ident!("{}_grad", sig.ident);
    let name = slots_name(&sig.ident, false);
    let (generics, vis) = (&sig.generics, &item.vis);
    let params = generics.params.iter();
    let where_clause = &generics.where_clause;
    let inputs = sig.inputs.iter();
    let call = quote!(::autodiff::runtime::call);
    let cfg: Vec<&syn::Attribute> = cfg_attrs(item).collect();
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #(#cfg)*
        #vis const #grad: #call::VectorOutput = #call::VectorOutput;
        #[doc(hidden)]
        #[allow(dead_code, non_snake_case, unused_mut, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity)]
        #(#cfg)*
        #vis fn #name <#(#params,)* AutodiffGradient: #call::ScalarOutput> (gradient: AutodiffGradient, #(#inputs),*) -> AutodiffGradient::Slots #where_clause {
            ::core::unreachable!("no type implements `ScalarOutput`")
        }
    }
}

/// For a function that returns a value and writes floats through `&mut`
/// (it has a lent variant, `desugar/mut_params.rs`): the
/// `__autodiff_mut_slots_<name>` a caller of a writer calls, which such a
/// caller dropping the value (`accumulate(&mut s, y);`) finds, bound by
/// `runtime::call::ValueBound`, which nothing implements: a compile error
/// at the call that says to bind the value.
pub fn value_dropped_slots(item: &syn::ItemFn) -> TokenStream {
    let sig = &item.sig;
    let name = mut_slots_name(&sig.ident);
    let (generics, vis) = (&sig.generics, &item.vis);
    let params = generics.params.iter();
    let where_clause = &generics.where_clause;
    let inputs = sig.inputs.iter();
    // The types a caller's slots take, so that the bound is the only
    // error: a float's own type (behind `&mut` or `&` too), `Constant`
    // for anything else; the value, the first lent float's.
    let slot = |ty: &syn::Type| -> Option<syn::Type> {
        let inner = match ty {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        let float = matches!(inner, syn::Type::Path(p) if p.path.get_ident().is_some());
        float.then(|| inner.clone())
    };
    let constant = quote!(::autodiff::runtime::call::Constant);
    let slots: Vec<TokenStream> = sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => slot(&t.ty).map_or(constant.clone(), |t| t.into_token_stream()),
            syn::FnArg::Receiver(_) => constant.clone(),
        })
        .collect();
    let value = sig
        .inputs
        .iter()
        .find_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => slot(&t.ty),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .map_or(quote!(f64), |t| t.into_token_stream());
    let cfg = cfg_attrs(item);
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_snake_case, unused_mut, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity)]
        #(#cfg)*
        #vis fn #name <#(#params,)* AutodiffGradient: ::autodiff::runtime::call::ValueBound> (gradient: AutodiffGradient, #(#inputs),*) -> (#value, #(#slots),*) #where_clause {
            ::core::unreachable!("no type implements `ValueBound`")
        }
    }
}

impl Emitter<'_> {
    /// A call of the `_vjp` slots of `path` (`Op::VjpCall`), given `given`
    /// (the arguments, then the seed): a method's on its receiver
    /// (`args[0]`), a writer's `__autodiff_mut_slots_<name>`, any other's
    /// by path with its `_vjp`.
    pub(super) fn vjp_slots_call(
        &self,
        path: &syn::Path,
        args: &[Operand],
        method: bool,
        writer: bool,
        given: &[TokenStream],
    ) -> TokenStream {
        match (method, args.first(), path.segments.last()) {
            // A method's slots are a method of its receiver's.
            (true, Some(recv), Some(name)) => {
                let recv = self.slots_receiver(recv);
                let slots = method_slots_name(&name.ident, true, writer);
                method_slots_call(recv, &name.ident, &slots, &given[1..])
            }
            _ => {
                let (mut vjp, gradient) = slots_paths(path, true);
                if writer {
                    vjp = mut_slots_path(path);
                }
                quote!(#vjp(#gradient, #(#given),*))
            }
        }
    }

    /// A call through the callee's `_vjp` given an argument whose
    /// derivative comes only through casts (`helper(x, p.n as f64)`, its
    /// result passed on whole): the check [`Emitter::through_casts`] makes
    /// of a scalar call's slots, on the slots of a call of its `_vjp` slots
    /// that is never made (`if false { .. }`, arguments `like(&arg)`, the
    /// seed `never()`), since its slots come only in the reverse sweep.
    pub(super) fn vjp_cast_check(&self, op: &Op) -> TokenStream {
        let Op::VjpCall {
            path,
            args,
            borrowed,
            mutated,
            method,
            exit,
            ..
        } = op
        else {
            return TokenStream::new();
        };
        let cast: Vec<Option<&Vec<ValueId>>> = args
            .iter()
            .map(|a| a.value().and_then(|v| self.through_casts.get(&v)))
            .collect();
        if !mutated.is_empty() || cast.iter().all(Option::is_none) {
            return TokenStream::new();
        }
        // Lent as written (`&d`, which coerces to the parameter's `&[T]`),
        // and so is a parameter taken by `&` (`xs: &[f64; 3]` given to a
        // `&[f64]`, a copy of the reference); by value as `like(&arg)`,
        // nothing moved.
        let shared_param = |a: &Operand| {
            a.value().is_some_and(|v| {
                self.f.params.iter().any(|p| {
                    p.value == v
                        && matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_none())
                })
            })
        };
        let mut given: Vec<TokenStream> = self
            .call_args(args, borrowed)
            .into_iter()
            .zip(args)
            .zip(borrowed.iter().chain(std::iter::repeat(&false)))
            .map(|((g, a), lent)| match *lent || shared_param(a) {
                true => g,
                false => quote!(::autodiff::runtime::call::like(&#g)),
            })
            .collect();
        given.push(quote!(::autodiff::runtime::call::never()));
        let mut call = self.vjp_slots_call(path, args, *method, false, &given);
        if exit.is_some() {
            call = quote!(::autodiff::runtime::call::succeeded(#call));
        }
        let mut pats = Vec::new();
        let mut checks = TokenStream::new();
        for (k, (a, sources)) in args.iter().zip(&cast).enumerate() {
            let Some(sources) = sources else {
                pats.push(quote!(_));
                continue;
            };
            // The slot's name carries the argument's span, where a
            // constant slot given a float's cast is an error.
            let at = a
                .value()
                .map_or_else(proc_macro2::Span::call_site, |v| self.f.value(v).span);
            let g = format_ident!("slot{k}", span = at);
            pats.push(quote!(#g));
            let g = quote!(&#g);
            for s in sources.iter() {
                let s = self.names.forward(*s);
                checks.extend(quote!(::autodiff::runtime::call::through_cast(#g, &#s);));
            }
        }
        quote!(if false { let (_, #(#pats),*) = #call; #checks })
    }
}
