//! Calls in forward mode whose value is a vector (an array, a `Vec`, a
//! tuple, a struct): through the callee's own `_jvp`, by way of what its
//! expansion gives its callers, `__autodiff_jvp_slots_<name>`. That hidden
//! sibling takes one tangent per parameter, whatever the callee
//! differentiates: the caller passes each argument's tangent, or
//! `runtime::tangent::NoTangent` for one without, and the callee makes
//! the tangents its `_jvp` takes (`runtime::tangent::Given`: a zero in the
//! parameter's shape for `NoTangent`, an owned copy of one lent), so the
//! caller never guesses which parameters the callee differentiates.
//!
//! A callee without `#[grad(jvp)]` has no `_jvp`: the call fails to
//! compile where it is, rustc naming `<name>_jvp`.

use super::*;

/// The hidden name a caller's `_jvp` calls for a callee's tangent.
fn jvp_slots_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_jvp_slots_{}", name, span = name.span())
}

impl Tangents<'_> {
    /// `dst = path(args)` of a callee returning a vector: its value and
    /// tangent from the callee's jvp slots.
    pub(super) fn vector_call(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        out: &mut TokenStream,
    ) {
        let Op::VjpCall {
            path,
            args,
            borrowed,
            ..
        } = op
        else {
            return;
        };
        let mut slots = path.clone();
        let mut gradient = path.clone();
        if let (Some(s), Some(g)) = (slots.segments.last_mut(), gradient.segments.last_mut()) {
            s.ident = jvp_slots_name(&s.ident);
            g.ident = format_ident!("{}_jvp", g.ident, span = g.ident.span());
        }
        let given = self.e.call_args(args, borrowed);
        let tangents: Vec<TokenStream> = args
            .iter()
            .map(|a| {
                let lent = a.value().is_some_and(|v| self.lent.contains(&v));
                let array = a
                    .value()
                    .is_some_and(|v| self.e.f.value(v).ty.array().is_some());
                match self.tangent_of(a) {
                    Some(t) if array => quote!(&#t[..]),
                    Some(t) if lent => t,
                    Some(t) => quote!(&#t),
                    None => quote!(::autodiff::runtime::tangent::NoTangent),
                }
            })
            .collect();
        let value = self.e.names.fresh("value");
        let d = self.e.names.adjoint(dst);
        out.extend(quote! {
            let (#value, #d) = #slots(#gradient, #(#given,)* #(#tangents),*);
        });
        out.extend(self.e.let_def(dst, op, written, value.to_token_stream()));
        self.tangents.insert(dst, d.into_token_stream());
    }
}

/// The callee's side: `__autodiff_jvp_slots_<name>(gradient, args..,
/// given..)`, one tangent given per parameter, the `_jvp` (`gradient`,
/// passed by the caller, who wrote the path) called with those of the
/// differentiated parameters. Nothing for a method, whose callers'
/// forward mode refuses the call.
pub(super) fn jvp_slots_fn(item: &syn::ItemFn, f: &Function, ret_ty: &TokenStream) -> TokenStream {
    let sig = &item.sig;
    if sig.receiver().is_some() {
        return TokenStream::new();
    }
    let name = jvp_slots_name(&sig.ident);
    let mut names = Names::new(f, item.to_token_stream());
    let gradient = names.fresh("gradient");
    let rt = quote!(::autodiff::runtime);
    let mut param_tys = Vec::new();
    let mut tangent_tys = Vec::new();
    let mut given = Vec::new();
    let mut made = TokenStream::new();
    let mut passed = Vec::new();
    for (p, arg) in f.params.iter().zip(&sig.inputs) {
        let syn::FnArg::Typed(t) = arg else {
            return TokenStream::new();
        };
        let ty = &t.ty;
        param_tys.push(ty.to_token_stream());
        let g = names.fresh(&format!("given_{}", p.ident));
        if !p.active {
            given.push(quote!(#g: impl ::core::marker::Sized));
            continue;
        }
        tangent_tys.push(ty.to_token_stream());
        let x = &p.ident;
        // The tangent owned, and how `_jvp` takes it.
        let (owned, zero, lend) = match &**ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => {
                    let e = &s.elem;
                    (
                        quote!(::std::vec::Vec<#e>),
                        quote!(#rt::differentiable::zero_like_slice(#x)),
                        true,
                    )
                }
                inner => (
                    inner.to_token_stream(),
                    quote!(#rt::differentiable::zero_like(#x)),
                    true,
                ),
            },
            other => (
                other.to_token_stream(),
                quote!(#rt::differentiable::zero_like(&#x)),
                false,
            ),
        };
        given.push(quote!(#g: impl #rt::tangent::Given<#owned>));
        let t = names.fresh(&format!("tangent_{}", p.ident));
        made.extend(quote!(let #t: #owned = #rt::tangent::given(#g, || #zero);));
        passed.push(match lend {
            true => quote!(&#t),
            false => quote!(#t),
        });
    }
    let args = f.params.iter().map(|p| &p.ident);
    let inputs = grad_fn::inputs(item, f);
    let generics = &sig.generics;
    let where_clause = &generics.where_clause;
    let vis = &item.vis;
    let cfg = cfg_attrs(item);
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity, clippy::used_underscore_binding)]
        #(#cfg)*
        #vis fn #name #generics (
            #gradient: impl ::core::ops::FnOnce(#(#param_tys,)* #(#tangent_tys),*) -> (#ret_ty, #ret_ty),
            #(#inputs,)*
            #(#given),*
        ) -> (#ret_ty, #ret_ty) #where_clause {
            #made
            #gradient(#(#args,)* #(#passed),*)
        }
    }
}

/// For a function without `#[grad(jvp)]`: what a forward-mode caller
/// names instead of its `_jvp` and jvp slots (`runtime::tangent::NoJvp`,
/// a constant `<name>_jvp`, and slots bound by `JvpOf`, which nothing
/// implements), so that such a call fails to compile at the call with
/// what to write, not with a missing name. Nothing for a method.
pub fn no_jvp_fns(item: &syn::ItemFn, f: &Function) -> TokenStream {
    let sig = &item.sig;
    if sig.receiver().is_some() {
        return TokenStream::new();
    }
    let name = jvp_slots_name(&sig.ident);
    let jvp = format_ident!("{}_jvp", sig.ident);
    let mut names = Names::new(f, item.to_token_stream());
    let gradient = names.fresh("gradient");
    let given: Vec<TokenStream> = f
        .params
        .iter()
        .map(|p| {
            let g = names.fresh(&format!("given_{}", p.ident));
            quote!(#g: impl ::core::marker::Sized)
        })
        .collect();
    let ret_ty = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let inputs = grad_fn::inputs(item, f);
    let params = sig.generics.params.iter();
    let where_clause = &sig.generics.where_clause;
    let vis = &item.vis;
    let no_jvp = quote!(::autodiff::runtime::tangent::NoJvp);
    let cfg: Vec<&syn::Attribute> = cfg_attrs(item).collect();
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_upper_case_globals)]
        #(#cfg)*
        #vis const #jvp: #no_jvp = #no_jvp;
        #[doc(hidden)]
        #(#cfg)*
        #[allow(dead_code, non_snake_case, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #name <#(#params,)* AutodiffGradient: ::autodiff::runtime::tangent::JvpOf> (
            #gradient: AutodiffGradient,
            #(#inputs,)*
            #(#given),*
        ) -> (#ret_ty, #ret_ty) #where_clause {
            ::core::unreachable!("no type implements `JvpOf`")
        }
    }
}
