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
//! A method's slots call `Self::<name>_grad`. A function without a
//! receiver cannot name its own gradient function: free, it is
//! `<name>_grad`, associated, `Self::<name>_grad`, and a macro on the
//! function cannot tell which. So its slots take that function as their
//! first argument, and the caller, who wrote the call's path, passes it
//! (`__autodiff_grad_slots_helper(helper_grad, x, 2.0)`).

use super::*;

/// The hidden name a caller calls for the slots of `name`'s gradient
/// (`vjp`: of its vector-Jacobian product).
pub fn slots_name(name: &syn::Ident, vjp: bool) -> syn::Ident {
    match vjp {
        false => format_ident!("__autodiff_grad_slots_{}", name, span = name.span()),
        true => format_ident!("__autodiff_vjp_slots_{}", name, span = name.span()),
    }
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
    let mut out = slots_fn_named(item, f, seed, value_ty, slots_name(&item.sig.ident, vjp));
    if !f.lent.is_empty() {
        out.extend(slots_fn_named(
            item,
            f,
            seed,
            value_ty,
            mut_slots_name(&item.sig.ident),
        ));
    }
    out
}

pub(super) fn slots_fn_named(
    item: &syn::ItemFn,
    f: &Function,
    seed: Option<(&syn::Ident, &TokenStream)>,
    value_ty: &TokenStream,
    name: syn::Ident,
) -> TokenStream {
    let sig = &item.sig;
    let vjp = seed.is_some();
    let gradient = match vjp {
        false => format_ident!("{}_grad", sig.ident),
        true => format_ident!("{}_vjp", sig.ident),
    };
    let gradient = sibling_path(sig, &gradient);
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
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    // The seed is a value of the output's type (the caller's adjoint of
    // the result, whatever its shape), lent to `_vjp` as it takes it.
    let seed_arg = seed.map(|(s, ty)| match ty.to_string().starts_with('&') {
        true => quote!(&#s),
        false => quote!(#s),
    });
    let seed_param = seed.map(|(s, _)| quote!(#s: #value_ty));
    // A method calls its gradient function as `Self::<name>_grad`; a
    // function without a receiver may be free or associated, which a
    // macro cannot see, so its caller, who wrote the path, passes it.
    let given = names.fresh("gradient");
    let (gradient, given_param) = match sig.receiver() {
        Some(_) => (gradient, None),
        None => {
            let tys = sig.inputs.iter().filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(&t.ty),
                syn::FnArg::Receiver(_) => None,
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
    let inputs = given_param
        .into_iter()
        .chain(inputs(item, f))
        .chain(seed_param);
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
            Some((a, Ty::Composite(_))) => self.zero_in_shape(a, false),
            _ => Some(quote!(::core::default::Default::default())),
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
        #[allow(dead_code, non_snake_case, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity)]
        #(#cfg)*
        #vis fn #name <#(#params,)* AutodiffGradient: ::autodiff::runtime::call::ValueBound> (gradient: AutodiffGradient, #(#inputs),*) -> (#value, #(#slots),*) #where_clause {
            ::core::unreachable!("no type implements `ValueBound`")
        }
    }
}
