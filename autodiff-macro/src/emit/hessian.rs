//! `#[grad(hessian)]`: `<name>_hvp` and `<name>_hessian`, second
//! derivatives by forward over reverse. The function is generic over its
//! float type `T`, so its `_grad` runs at dual numbers
//! (`runtime::dual::Dual<T>`), its inputs `x + ε·v`: the real parts of the
//! gradient are `_grad`'s, and the ε parts are `H·v`, every rule's
//! pullback differentiated by the dual arithmetic (`runtime/src/hessian.rs`
//! lifts the arguments and takes the result apart). `_hessian` runs the
//! gradient at `Dual<T, Lanes<T, LANES>>`, one sweep per `LANES` active
//! scalars, each seeded with its unit vector in the lane of its column.
//!
//! What the dual numbers would not carry is refused here, at the
//! construct: a function that is not generic over its float type, a
//! method, a struct among the active parameters, `&mut` parameters, a
//! fallible function, and a call that passes an array or a struct to
//! another `#[grad]` function through its `_grad` (its gradient is scaled
//! by an `f64`, `runtime::call::chain`, which would drop the ε part).

use super::*;

/// `<name>_hvp` and `<name>_hessian`, or the errors that say why not.
/// `generated`: what the pipeline generated for the function, its `_grad`
/// among it, which both call by its own name (`siblings.rs`).
pub fn hessian_fns(
    item: &syn::ItemFn,
    f: &Function,
    g: &Gradient,
    generated: &TokenStream,
) -> syn::Result<TokenStream> {
    let sig = &item.sig;
    let Some(t) = f.generic.clone() else {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            "#[grad(hessian)] runs the gradient at dual numbers, so the function must be generic over its float type: write it as `fn f<T: autodiff::Float>(x: T, ..) -> T` (float literals stay as written)",
        ));
    };
    let mut errors: Option<syn::Error> = None;
    let mut refuse = |at: &dyn ToTokens, what: &str, instead: &str| {
        crate::diag::combine(
            &mut errors,
            syn::Error::new_spanned(
                at,
                format!("#[grad(hessian)] cannot take {what} yet: {instead}"),
            ),
        );
    };
    if let Some(r) = sig.receiver() {
        refuse(
            r,
            "a method",
            "make it a function generic over `T` that takes what it reads of `self` as parameters",
        );
    }
    if !matches!(f.output, Output::Scalar) {
        refuse(&sig.output, "a function returning more than one float", "a Hessian is of a function returning one float; give each output a function of its own");
    }
    if f.fallible.is_some() {
        refuse(
            &sig.output,
            "a fallible function (`Result`, `Option`)",
            "return the float, and check the inputs before the call",
        );
    }
    for (k, p) in f.params.iter().enumerate() {
        let arg = sig.inputs.iter().nth(k);
        let of_t = match &f.value(p.value).ty {
            Ty::Array(a) => a.shape != Shape::Nested && a.elem == FloatTy::Generic,
            Ty::Float(t) => *t == FloatTy::Generic,
            _ => false,
        };
        if f.written.iter().any(|(w, _)| *w == k) {
            refuse(
                &arg,
                "a float taken by `&mut`",
                "take it by value and return the function's value",
            );
        } else if p.active && !of_t {
            refuse(&arg, "a differentiated parameter of a type other than `T`, `&[T]` and `[T; N]`", "its second derivatives need dual numbers in it: make it a `T` (a struct's floats as parameters of their own, a nested array flattened into `&[T]`), or name the others in `wrt(..)` to keep it constant (every float parameter is differentiated by default)");
        } else if !p.active && mentions(&p.ty, &t) && !of_t {
            refuse(&arg, "a constant parameter of a type built from the float type other than `T`, `&[T]` and `[T; N]`", "pass what the function reads of it as such parameters");
        }
    }
    let flat = |v: &ValueId| match &f.value(*v).ty {
        Ty::Array(a) => a.shape != Shape::Nested,
        Ty::Unknown => f.stated_flat_array(*v),
        other => other.is_float(),
    };
    // `sumsq(&xs[..2])`: a sub-slice lent (trial 12 r1069), whose adjoint
    // would come back through `f64`s; a copy of it is a local array.
    let sub_slice = |v: &ValueId| {
        let mut found = false;
        f.body.walk(&mut |inst| {
            if let Inst::Def {
                dst,
                op: Op::Project { path, .. },
                ..
            } = inst
            {
                found |= dst == v && matches!(path[..], [Step::Range { .. }]);
            }
        });
        found
    };
    for (call, targets) in g.chains() {
        if targets.iter().any(sub_slice) {
            crate::diag::combine(
                &mut errors,
                syn::Error::new(f.value(call).span, "#[grad(hessian)] cannot take this call yet: it lends a #[grad] function a sub-slice (`&xs[a..b]`), whose gradient is chained through an `f64`, which would drop the second derivative; copy the sub-slice first and lend the copy, `let part: Vec<T> = xs[a..b].to_vec();`, then `f(&part)`"),
            );
        } else if !targets.iter().all(flat) {
            crate::diag::combine(
                &mut errors,
                syn::Error::new(f.value(call).span, "#[grad(hessian)] cannot take this call yet: it passes a #[grad] function returning a float an argument of a type #[grad] does not see (a part of another call's result, a struct, a nested array), whose gradient is chained through an `f64`, which would drop the second derivative; give such a float its type first, `let s: T = r[0] * r[1];`, or an array its type, `let r: [T; 2] = sub2(a, b);`"),
            );
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    Ok(emit(item, f, &t, generated))
}

/// Whether `ty` names the float type parameter `t`.
fn mentions(ty: &syn::Type, t: &syn::Ident) -> bool {
    fn walk(tokens: TokenStream, t: &syn::Ident) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == *t,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), t),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), t)
}

/// How a parameter reaches the functions the Hessian calls.
struct Arg {
    ident: syn::Ident,
    /// Taken by reference (`&[T]`, `&[T; N]`): lent, and its direction too.
    by_ref: bool,
    /// Its type is the float type or an array of it (lifted to duals).
    float: bool,
    active: bool,
    /// The direction's parameter in `_hvp` (an active one's).
    direction: Option<(syn::Ident, TokenStream)>,
    /// Of a length known at run time (`&[T]`, `&Vec<T>`, `Vec<T>`): its
    /// direction is a `&[T]`, and it is lifted as a slice beside it.
    slice: bool,
}

fn emit(item: &syn::ItemFn, f: &Function, t: &syn::Ident, generated: &TokenStream) -> TokenStream {
    let sig = &item.sig;
    let fname = &sig.ident;
    let mut names = Names::new(f, item.to_token_stream());
    let rt = quote!(::autodiff::runtime::hessian);
    let dual = quote!(::autodiff::runtime::dual::Dual<#t>);
    let args: Vec<Arg> = f
        .params
        .iter()
        .map(|p| {
            let by_ref = matches!(p.ty, syn::Type::Reference(_));
            let float = mentions(&p.ty, t);
            let slice = matches!(
                &f.value(p.value).ty,
                Ty::Array(ArrayTy {
                    shape: Shape::Vec,
                    ..
                })
            );
            let direction = p.active.then(|| {
                let ty = match slice {
                    true => quote!(&[#t]),
                    false => p.ty.to_token_stream(),
                };
                (names.fresh(&format!("v_{}", p.ident)), ty)
            });
            Arg {
                ident: p.ident.clone(),
                by_ref,
                float,
                active: p.active,
                direction,
                slice,
            }
        })
        .collect();
    let active: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_tys = gradient_types(f, &active);
    let inputs = inputs(item, f);
    let generics = &sig.generics;
    let where_clause = &generics.where_clause;
    let vis = &item.vis;
    let attrs: Vec<&syn::Attribute> = kept_attrs(item).collect();
    // `<name>_grad` at `T` and at `Dual<T>`, its other generic parameters
    // (consts) as they are.
    let turbofish = |at: &TokenStream| {
        let params = generics.params.iter().filter_map(|p| match p {
            syn::GenericParam::Type(ty) if ty.ident == *t => Some(at.clone()),
            syn::GenericParam::Type(ty) => Some(ty.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        });
        quote!(::<#(#params),*>)
    };
    let grad_name = format_ident!("{}_grad", fname);
    let own = own_copy(item, generated, &grad_name);
    let grad = match in_impl(item) {
        true => quote!(Self::#grad_name),
        false => grad_name.to_token_stream(),
    };
    let at_t = turbofish(&t.to_token_stream());
    let at_dual = turbofish(&dual);

    // `_hvp`: the arguments lifted to duals, `_grad` at `Dual<T>`, its
    // gradient taken apart.
    let mut lifts = TokenStream::new();
    let mut call = Vec::new();
    for a in &args {
        let x = &a.ident;
        let given = match (a.slice, a.by_ref) {
            (true, _) => quote!(&#x[..]),
            (false, true) => quote!(#x),
            (false, false) => quote!(&#x),
        };
        if !a.float {
            call.push(quote!(#x));
            continue;
        }
        let lifted = names.fresh(&format!("{x}_dual"));
        lifts.extend(match &a.direction {
            Some((v, _)) => {
                let v = match a.by_ref {
                    true => quote!(#v),
                    false => quote!(&#v),
                };
                quote!(let #lifted = #rt::lift::<#t, _>(#given, #v);)
            }
            None => quote!(let #lifted = #rt::Lift::<#t>::constant(#given);),
        });
        call.push(match a.by_ref {
            true => quote!(&#lifted),
            false => quote!(#lifted),
        });
    }
    let value = names.fresh("value");
    let gs: Vec<syn::Ident> = active.iter().map(|_| names.fresh("g")).collect();
    let directions: Vec<TokenStream> = args
        .iter()
        .filter_map(|a| a.direction.as_ref())
        .map(|(v, ty)| quote!(#v: #ty))
        .collect();
    let hvp = format_ident!("{}_hvp", fname);
    let hvp_doc = format!(
        " Hessian-vector product of [`{fname}`] (`#[grad(hessian)]`): its value, its gradient (the entries `{fname}_grad` gives) and `H·v`, one entry per differentiated parameter in its shape, for the direction `v` given as {}, by one reverse sweep at dual numbers.",
        args.iter()
            .filter_map(|a| a.direction.as_ref())
            .map(|(v, _)| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let hvp_fn = quote! {
        #[doc = #hvp_doc]
        #(#attrs)*
        #[allow(non_snake_case, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #hvp #generics (#(#inputs,)* #(#directions),*) -> (#t, #(#grad_tys,)* #(#grad_tys),*) #where_clause {
            #own
            #lifts
            let (#value, #(#gs),*) = #grad #at_dual (#(#call),*);
            (#value.re, #(#rt::Split::<#t>::re(&#gs),)* #(#rt::Split::<#t>::eps(&#gs)),*)
        }
    };

    // `_hessian`: `_grad` once, then one sweep at `Lanes` per `LANES`
    // columns, each active scalar seeded in the lane of its column.
    let [value, sizes, n, h, first, row] =
        ["value", "sizes", "n", "h", "first", "row"].map(|s| names.fresh(s));
    let lanes = quote!(::autodiff::runtime::dual::Lanes<#t, { ::autodiff::runtime::dual::LANES }>);
    let at_lanes = turbofish(&quote!(::autodiff::runtime::dual::Dual<#t, #lanes>));
    let plain: Vec<TokenStream> = args
        .iter()
        .map(|a| {
            let x = &a.ident;
            // A float, an array: `Copy`; anything else by value (an owned
            // `Vec<T>`) is read again by the sweeps.
            match a.by_ref || a.float && !a.slice {
                true => quote!(#x),
                false => quote!(::core::clone::Clone::clone(&#x)),
            }
        })
        .collect();
    let of = |a: &Arg| {
        let x = &a.ident;
        match a.by_ref {
            true => quote!(#x),
            false => quote!(&#x),
        }
    };
    let size_of = args.iter().filter(|a| a.active).map(|a| {
        let x = of(a);
        quote!(#rt::Flat::<#t>::size(#x))
    });
    let mut sweep_lifts = TokenStream::new();
    let mut sweep_call = Vec::new();
    let mut k = 0usize;
    for (a, as_written) in args.iter().zip(&plain) {
        let x = &a.ident;
        if !a.float {
            sweep_call.push(as_written.clone());
            continue;
        }
        let given = of(a);
        let lifted = names.fresh(&format!("{x}_lanes"));
        sweep_lifts.extend(match a.active {
            true => {
                let at = quote!(#rt::start(&#sizes, #k));
                k += 1;
                quote!(let #lifted = #rt::lift_lanes::<#t, _>(#given, #at, #first);)
            }
            false => quote!(let #lifted = #rt::Lift::<#t, #lanes>::constant(#given);),
        });
        sweep_call.push(match a.by_ref {
            true => quote!(&#lifted),
            false => quote!(#lifted),
        });
    }
    let swept: Vec<syn::Ident> = active.iter().map(|_| names.fresh("g")).collect();
    let ds: Vec<syn::Ident> = active.iter().map(|_| names.fresh("d")).collect();
    let hessian = format_ident!("{}_hessian", fname);
    let hessian_doc = format!(
        " Hessian of [`{fname}`] (`#[grad(hessian)]`): its value, its gradient (the entries `{fname}_grad` gives) and `H`, n × n with n the differentiated scalars in parameter order (an array of length k takes k rows), by reverse sweeps at dual numbers, each carrying the directions of `autodiff::runtime::dual::LANES` columns."
    );
    let count = active.len();
    let hessian_fn = quote! {
        #[doc = #hessian_doc]
        #(#attrs)*
        #[allow(non_snake_case, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #hessian #generics (#(#inputs),*) -> (#t, #(#grad_tys,)* ::std::vec::Vec<::std::vec::Vec<#t>>) #where_clause {
            #own
            let (#value, #(#ds),*) = #grad #at_t (#(#plain),*);
            let #sizes: [usize; #count] = [#(#size_of),*];
            let #n: usize = #sizes.iter().sum();
            let mut #h = #rt::zeros::<#t>(#n);
            let mut #first = 0;
            while #first < #n {
                #sweep_lifts
                let (_, #(#swept),*) = #grad #at_lanes (#(#sweep_call),*);
                let mut #row = 0;
                #(#rt::set_lanes(&mut #h, &mut #row, #first, &#swept);)*
                #first += ::autodiff::runtime::dual::LANES;
            }
            (#value, #(#ds,)* #h)
        }
    };
    quote!(#hvp_fn #hessian_fn)
}

/// The second derivatives of a function written for `f64`, from its
/// generic twin (`desugar/float_twin/`) and what the pipeline generated
/// for it: the twin and its generated functions private and hidden, its
/// `_hvp` and `_hessian` under the function's own names and visibility
/// (generic over the float, so a call with `f64`s is one at `f64`), the
/// twin's name in their documentation the function's.
pub fn through_twin(
    item: &syn::ItemFn,
    mut twin: syn::ItemFn,
    generated: TokenStream,
) -> syn::Result<TokenStream> {
    let name = &item.sig.ident;
    let twin_name = twin.sig.ident.clone();
    let mut file: syn::File = syn::parse2(generated)?;
    twin = crate::desugar::float_twin::kept(twin);
    crate::attr::read_checkpoint_counts(&mut twin);
    twin.vis = syn::Visibility::Inherited;
    twin.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    twin.attrs
        .push(syn::parse_quote!(#[allow(dead_code, non_snake_case, unused, clippy::all)]));
    file.items.push(syn::Item::Fn(twin));
    let renamed = [
        (
            format_ident!("{}_hvp", twin_name),
            format_ident!("{}_hvp", name),
        ),
        (
            format_ident!("{}_hessian", twin_name),
            format_ident!("{}_hessian", name),
        ),
    ];
    let mut rename = Rename {
        idents: &renamed,
        from: twin_name.to_string(),
        to: name.to_string(),
    };
    syn::visit_mut::VisitMut::visit_file_mut(&mut rename, &mut file);
    for it in &mut file.items {
        let (vis, attrs, ident) = match it {
            syn::Item::Fn(f) => (&mut f.vis, &mut f.attrs, Some(&f.sig.ident)),
            syn::Item::Const(c) => (&mut c.vis, &mut c.attrs, Some(&c.ident)),
            syn::Item::Static(s) => (&mut s.vis, &mut s.attrs, Some(&s.ident)),
            _ => continue,
        };
        if ident.is_some_and(|i| renamed.iter().any(|(_, to)| i == to)) {
            *vis = item.vis.clone();
            continue;
        }
        *vis = syn::Visibility::Inherited;
        if !attrs
            .iter()
            .any(|a| a.path().is_ident("doc") && a.to_token_stream().to_string().contains("hidden"))
        {
            attrs.push(syn::parse_quote!(#[doc(hidden)]));
        }
        attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    }
    Ok(file.to_token_stream())
}

/// Renames the twin's `_hvp` and `_hessian`, and its name in doc
/// strings.
struct Rename<'a> {
    idents: &'a [(syn::Ident, syn::Ident)],
    from: String,
    to: String,
}

impl syn::visit_mut::VisitMut for Rename<'_> {
    fn visit_ident_mut(&mut self, i: &mut proc_macro2::Ident) {
        if let Some((_, to)) = self.idents.iter().find(|(from, _)| i == from) {
            *i = syn::Ident::new(&to.to_string(), i.span());
        }
    }

    fn visit_attribute_mut(&mut self, a: &mut syn::Attribute) {
        if let syn::Meta::NameValue(nv) = &mut a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &mut nv.value
            {
                let text = s.value().replace(&self.from, &self.to);
                *s = syn::LitStr::new(&text, s.span());
            }
        }
        syn::visit_mut::visit_attribute_mut(self, a);
    }
}
