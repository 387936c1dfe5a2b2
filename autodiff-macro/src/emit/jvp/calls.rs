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
//! The caller passes the callee's `_jvp` and `_vjp` both (a function
//! without a receiver cannot name its own siblings; every `#[grad]`
//! function has a `_vjp`, `emit/scalar_vjp.rs`): a callee without
//! `#[grad(jvp)]` that returns a float takes its tangent from its
//! gradient, `Σ ⟨gradient, tangent⟩` (so a call passed on whole, which
//! may be a float's, goes this way too); one returning a vector has no
//! `_jvp`, and its slots' bound (`runtime::tangent::JvpOf`, which nothing
//! implements) makes the call a worded error where it is.

use super::*;

/// The hidden name a caller's `_jvp` calls for a callee's tangent.
fn jvp_slots_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_jvp_slots_{}", name, span = name.span())
}

/// The hidden name of a method's jvp slots for a call on its receiver.
fn jvp_method_slots_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_jvp_method_slots_{}", name, span = name.span())
}

/// For a method: its jvp slots for a call on a receiver,
/// `recv.__autodiff_jvp_method_slots_<name>(args.., marker, given..)`,
/// which name the method's own `_jvp` and `_vjp` (a caller on a receiver
/// cannot: it does not know the receiver's type) and call the path-form
/// slots. The caller passes `runtime::tangent::NoJvp` as the marker,
/// which a method without `jvp` returning a vector bounds by `JvpOf`
/// (`has_tangent` false): the call fails to compile where it is, with
/// what to write.
fn method_form(
    item: &syn::ItemFn,
    f: &Function,
    ret_ty: &TokenStream,
    made: &Made,
    (has_tangent, jvp_fn): (bool, bool),
) -> TokenStream {
    let sig = &item.sig;
    if sig.receiver().is_none() {
        return TokenStream::new();
    }
    let name = jvp_method_slots_name(&sig.ident);
    let path_form = jvp_slots_name(&sig.ident);
    let jvp = format_ident!("{}_jvp", sig.ident);
    let vjp = format_ident!("{}_vjp", sig.ident);
    let (given, given_params) = (&made.given_names, &made.given);
    let inputs = grad_fn::inputs(item, f);
    let args = f.params.iter().map(|p| &p.ident);
    let (generics, where_clause, vis) = (&sig.generics, &sig.generics.where_clause, &item.vis);
    let cfg = cfg_attrs(item);
    let rt = quote!(::autodiff::runtime::tangent);
    let (marker, body) = match has_tangent {
        true => (quote!(impl ::core::marker::Sized), {
            // With the method's own type parameters (`value::<T>`),
            // which nothing else here would infer.
            // Without `jvp`, `<name>_jvp` is a constant (`NoJvp`).
            let sibling = |n: &syn::Ident| crate::emit::siblings::sibling_path(item, n);
            let jvp = match jvp_fn {
                true => sibling(&jvp),
                false => quote!(Self::#jvp),
            };
            let (path_form, vjp) = (sibling(&path_form), sibling(&vjp));
            quote!(#path_form(#jvp, #vjp, #(#args,)* #(#given),*))
        }),
        false => (
            quote!(impl #rt::JvpOf),
            quote!(::core::unreachable!("no type implements `JvpOf`")),
        ),
    };
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity, clippy::used_underscore_binding)]
        #(#cfg)*
        #vis fn #name #generics (#(#inputs,)* marker: #marker, #(#given_params),*) -> (#ret_ty, #ret_ty) #where_clause {
            #body
        }
    }
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
            method,
            ..
        } = op
        else {
            return;
        };
        let mut slots = path.clone();
        let mut jvp = path.clone();
        let mut vjp = path.clone();
        if let (Some(s), Some(j), Some(v)) = (
            slots.segments.last_mut(),
            jvp.segments.last_mut(),
            vjp.segments.last_mut(),
        ) {
            s.ident = jvp_slots_name(&s.ident);
            j.ident = format_ident!("{}_jvp", j.ident, span = j.ident.span());
            v.ident = format_ident!("{}_vjp", v.ident, span = v.ident.span());
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
        let call = match (*method, path.segments.last(), args.first()) {
            // On a receiver: its method-form slots, the receiver first.
            (true, Some(name), Some(recv)) => {
                let (recv, _) = self.e.slots_receiver(recv);
                let slots = jvp_method_slots_name(&name.ident);
                let rest = &given[1..];
                quote!(#recv.#slots(#(#rest,)* ::autodiff::runtime::tangent::NoJvp, #(#tangents),*))
            }
            _ => quote!(#slots(#jvp, #vjp, #(#given,)* #(#tangents),*)),
        };
        out.extend(quote! {
            let (#value, #d) = #call;
        });
        out.extend(self.e.let_def(dst, op, written, value.to_token_stream()));
        self.tangents.insert(dst, d.into_token_stream());
    }
}

/// The tangents a callee's jvp slots make from what the caller gives,
/// one per differentiated parameter: their `let`s, and each tangent as
/// the `_jvp` takes it (lent where the parameter is a reference) and as
/// its gradient is taken along it (`runtime::tangent::along`, or
/// `along_inner` for a struct).
struct Made {
    given: Vec<TokenStream>,
    given_names: Vec<syn::Ident>,
    lets: TokenStream,
    passed: Vec<TokenStream>,
    along: Vec<(TokenStream, bool)>,
}

/// The parameters as the slots name and type them: a method's receiver is
/// an ordinary first parameter, `this`, of the receiver's type (the slots
/// are called by the method's path).
fn slot_params<'a>(
    f: &'a Function,
    sig: &'a syn::Signature,
    this: &'a syn::Ident,
) -> Vec<(&'a syn::Ident, &'a syn::Type)> {
    f.params
        .iter()
        .zip(&sig.inputs)
        .map(|(p, arg)| match arg {
            syn::FnArg::Typed(t) => (&p.ident, &*t.ty),
            syn::FnArg::Receiver(r) => (this, &*r.ty),
        })
        .collect()
}

fn made_tangents(f: &Function, params: &[(&syn::Ident, &syn::Type)], names: &mut Names) -> Made {
    let rt = quote!(::autodiff::runtime);
    let mut made = Made {
        given: Vec::new(),
        given_names: Vec::new(),
        lets: TokenStream::new(),
        passed: Vec::new(),
        along: Vec::new(),
    };
    for (p, (x, ty)) in f.params.iter().zip(params) {
        let g = names.fresh(&format!("given_{}", p.ident));
        made.given_names.push(g.clone());
        if !p.active {
            made.given.push(quote!(#g: impl ::core::marker::Sized));
            continue;
        }
        // The tangent owned, and how `_jvp` takes it.
        let (owned, zero, lend) = match ty {
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
        made.given
            .push(quote!(#g: impl #rt::tangent::Given<#owned>));
        let t = names.fresh(&format!("tangent_{}", p.ident));
        made.lets
            .extend(quote!(let #t: #owned = #rt::tangent::given(#g, || #zero);));
        made.passed.push(match lend {
            true => quote!(&#t),
            false => quote!(#t),
        });
        let ty = &f.value(p.value).ty;
        made.along.push(match ty {
            Ty::Array(a) if a.shape != Shape::Nested => (quote!(&#t[..]), false),
            Ty::Array(_) | Ty::Composite(_) => (quote!(&#t), true),
            _ => (quote!(&#t), false),
        });
    }
    made
}

/// The callee's side, for a function with `#[grad(jvp)]`:
/// `__autodiff_jvp_slots_<name>(jvp, vjp, args.., given..)`, one tangent
/// given per parameter, its `_jvp` (passed by the caller, who wrote the
/// path) called with those of the differentiated parameters. A method's
/// take its receiver as their first parameter (its callers in forward
/// mode call it by its path, `Type::name(receiver, ..)`).
pub(super) fn jvp_slots_fn(item: &syn::ItemFn, f: &Function, ret_ty: &TokenStream) -> TokenStream {
    let sig = &item.sig;
    let mut names = Names::new(f, item.to_token_stream());
    let [jvp, vjp, this] = ["jvp", "vjp", "this"].map(|n| names.fresh(n));
    let params = slot_params(f, sig, &this);
    let made = made_tangents(f, &params, &mut names);
    let Made {
        given,
        lets,
        passed,
        ..
    } = &made;
    let param_tys = params.iter().map(|(_, ty)| ty);
    let tangent_tys = f
        .params
        .iter()
        .zip(&params)
        .filter(|(p, _)| p.active)
        .map(|(_, (_, ty))| super::tangent_ty(ty));
    let args = params.iter().map(|(x, _)| x);
    // The `_vjp` a caller passes beside, unused, typed as it is where its
    // signature is plain, so that a generic one's float type is inferred
    // (`step_vjp` of `step<T: Float>`).
    let plain = f.lent.is_empty() && f.fallible.is_none() && f.written.is_empty();
    let vjp_ty = match plain {
        true => {
            let param_tys = params.iter().map(|(_, ty)| ty);
            let grad_tys =
                gradient_types(f, &f.params.iter().filter(|p| p.active).collect::<Vec<_>>());
            let seed_ty = crate::emit::grad_fn::seed_ty(f, ret_ty);
            quote!(impl ::core::ops::FnOnce(#(#param_tys,)* #seed_ty) -> (#ret_ty, #(#grad_tys),*))
        }
        false => quote!(impl ::core::marker::Sized),
    };
    let mut out = slots_item(
        item,
        f,
        &params,
        quote!(#jvp: impl ::core::ops::FnOnce(#(#param_tys,)* #(#tangent_tys),*) -> (#ret_ty, #ret_ty), #vjp: #vjp_ty),
        given,
        ret_ty,
        quote!(#lets #jvp(#(#args,)* #(#passed),*)),
    );
    out.extend(method_form(item, f, ret_ty, &made, (true, true)));
    out
}

/// `__autodiff_jvp_slots_<name>` with the given first parameters, the
/// function's own, `given`, and `body`.
fn slots_item(
    item: &syn::ItemFn,
    f: &Function,
    params: &[(&syn::Ident, &syn::Type)],
    first: TokenStream,
    given: &[TokenStream],
    ret_ty: &TokenStream,
    body: TokenStream,
) -> TokenStream {
    let sig = &item.sig;
    let name = jvp_slots_name(&sig.ident);
    let inputs = grad_fn::inputs(item, f)
        .into_iter()
        .zip(&sig.inputs)
        .zip(params)
        .map(|((t, a), (x, ty))| match a {
            syn::FnArg::Receiver(_) => quote!(#x: #ty),
            syn::FnArg::Typed(_) => t,
        });
    let (generics, where_clause, vis) = (&sig.generics, &sig.generics.where_clause, &item.vis);
    let cfg = cfg_attrs(item);
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unused_variables, clippy::ptr_arg, clippy::too_many_arguments, clippy::type_complexity, clippy::used_underscore_binding)]
        #(#cfg)*
        #vis fn #name #generics (#first, #(#inputs,)* #(#given),*) -> (#ret_ty, #ret_ty) #where_clause {
            #body
        }
    }
}

/// For a function without `#[grad(jvp)]`: the `<name>_jvp` a forward-mode
/// caller names (a constant, `runtime::tangent::NoJvp`), and its jvp
/// slots: for a float output, the tangent from the gradient its `_vjp`
/// gives at a unit seed, `Σ ⟨gradient, tangent⟩`; for any other, bound
/// by `runtime::tangent::JvpOf`, which nothing implements, so that the
/// call fails to compile at the call with what to write. A method's
/// constant is associated, and its slots take the receiver first.
pub fn no_jvp_fns(item: &syn::ItemFn, f: &Function) -> TokenStream {
    let sig = &item.sig;
    let jvp_name = format_ident!("{}_jvp", sig.ident);
    let mut names = Names::new(f, item.to_token_stream());
    let [jvp, vjp, value, this] = ["jvp", "vjp", "value", "this"].map(|n| names.fresh(n));
    let params = slot_params(f, sig, &this);
    let made = made_tangents(f, &params, &mut names);
    let ret_ty = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let rt = quote!(::autodiff::runtime);
    let no_jvp = quote!(#rt::tangent::NoJvp);
    let cfg: Vec<&syn::Attribute> = cfg_attrs(item).collect();
    let vis = &item.vis;
    let constant = quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_upper_case_globals)]
        #(#cfg)*
        #vis const #jvp_name: #no_jvp = #no_jvp;
    };
    // A float output whose differentiated floats are all of its type
    // (`_vjp` at a unit seed gives a gradient the tangents are of).
    let same_type = f
        .params
        .iter()
        .filter(|p| p.active)
        .all(|p| match &f.value(p.value).ty {
            Ty::Float(t) => *t == f.ret_ty,
            Ty::Array(a) => a.elem == f.ret_ty,
            _ => true,
        });
    let scalar = matches!(f.output, Output::Scalar)
        && f.fallible.is_none()
        && f.written.is_empty()
        && same_type;
    let slots = match scalar {
        true => {
            let gs: Vec<syn::Ident> = made.along.iter().map(|_| names.fresh("g")).collect();
            let terms = gs
                .iter()
                .zip(&made.along)
                .map(|(g, (t, inner))| match inner {
                    true => quote!(#rt::tangent::like(&#value, #rt::tangent::along_inner(&#g, #t))),
                    false => quote!(#rt::tangent::like(&#value, #rt::tangent::along(&#g, #t))),
                });
            let one = one(f);
            let args = params.iter().map(|(x, _)| x);
            let param_tys = params.iter().map(|(_, ty)| ty);
            let grad_tys =
                gradient_types(f, &f.params.iter().filter(|p| p.active).collect::<Vec<_>>());
            let lets = &made.lets;
            let zero = zero(f);
            slots_item(
                item,
                f,
                &params,
                quote!(#jvp: impl ::core::marker::Sized, #vjp: impl ::core::ops::FnOnce(#(#param_tys,)* #ret_ty) -> (#ret_ty, #(#grad_tys),*)),
                &made.given,
                &ret_ty,
                quote! {
                    #lets
                    let (#value, #(#gs),*) = #vjp(#(#args,)* #one);
                    let tangent: #ret_ty = #(#terms +)* #zero;
                    (#value, tangent)
                },
            )
        }
        false => slots_item(
            item,
            f,
            &params,
            quote!(#jvp: impl #rt::tangent::JvpOf, #vjp: impl ::core::marker::Sized),
            &made.given,
            &ret_ty,
            quote!(::core::unreachable!("no type implements `JvpOf`")),
        ),
    };
    let method = method_form(item, f, &ret_ty, &made, (scalar, false));
    quote!(#constant #slots #method)
}
