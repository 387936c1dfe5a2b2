//! The generated functions: `<name>_grad` (and `_vjp` for a vector
//! output), from the forward and reverse sweeps; `_grad` from a custom
//! pullback.

use super::*;

/// The parameters of a generated function: the function's own, without
/// `mut` on those it reassigns (reassigned scalars are new SSA values).
pub(super) fn inputs(item: &syn::ItemFn, f: &Function) -> Vec<TokenStream> {
    item.sig
        .inputs
        .iter()
        .zip(&f.params)
        .map(|(arg, param)| match arg {
            // An array changed in the body (`mut v: [f64; 2]`) keeps its
            // `mut`: the generated code stores into it as the function does.
            syn::FnArg::Typed(t)
                if f.value(param.value).ty.array().is_some()
                    && matches!(&*t.pat, syn::Pat::Ident(p) if p.mutability.is_some()) =>
            {
                quote!(#[allow(unused_mut)] #t)
            }
            syn::FnArg::Typed(t) if f.value(param.value).kind != ValueKind::Opaque => {
                let mut t = t.clone();
                if let syn::Pat::Ident(p) = &mut *t.pat {
                    p.mutability = None;
                }
                t.into_token_stream()
            }
            // `mut self` by value (`fn advanced(mut self, dt) -> Self`):
            // the generated code may leave it as it is (trial 11 r961).
            syn::FnArg::Receiver(r) if r.reference.is_none() && r.mutability.is_some() => {
                quote!(#[allow(unused_mut)] #r)
            }
            other => other.into_token_stream(),
        })
        .collect()
}

/// The `<name>_grad` function.
/// `jvp`: the function's `_jvp` (as generated), which a Jacobian with
/// fewer columns than rows is computed from (`jacobian_forward.rs`).
pub fn gradient_fn(
    item: &syn::ItemFn,
    f: &Function,
    a: &Activity,
    g: &Gradient,
    jvp: Option<&TokenStream>,
) -> TokenStream {
    let mut names = Names::new(f, item.to_token_stream());
    names.rename_patterns(f, &g.reads());
    let mut e = Emitter::forward_only(f, a, &mut names);
    e.reverse_reads = g.reads();
    e.used = f
        .forward_uses()
        .union(&g.reads())
        .copied()
        // The last values of the floats taken by `&mut`, written back.
        .chain(f.written.iter().filter_map(|(_, v)| v.value()))
        .collect();
    e.pushes = g.pushes();
    let seed = e.names.fresh("seed");
    e.seeding = match &f.output {
        Output::Scalar => TokenStream::new(),
        Output::Tuple(elems) => elems
            .iter()
            .enumerate()
            .filter_map(|(k, o)| {
                let v = o.value().filter(|v| a.is_active(*v))?;
                let d = e.names.adjoint(v);
                let k = syn::Index::from(k);
                Some(quote!(#d += #seed.#k;))
            })
            .collect(),
        Output::Array(_) => match f.ret.value().filter(|v| a.is_active(*v)) {
            Some(v) => {
                let d = e.names.adjoint(v);
                quote!(for (d, s) in #d.iter_mut().zip(#seed.iter()) { *d += *s; })
            }
            None => TokenStream::new(),
        },
        Output::Struct(_) => match f.ret.value().filter(|v| a.is_active(*v)) {
            Some(v) => {
                let d = e.names.adjoint(v);
                quote!(::autodiff::runtime::differentiable::accumulate(&mut #d, &#seed);)
            }
            None => TokenStream::new(),
        },
    };
    let forward = e.body(&f.body);
    // A float taken by `&mut`: its entry value read first, its last value
    // written back after the forward sweep, through the reference under a
    // name of its own.
    let mut entry = TokenStream::new();
    let mut written_back = TokenStream::new();
    let mut refs = Vec::new();
    for (k, last) in &f.written {
        let p = &f.params[*k];
        let r = e.names.fresh(&format!("{}_ref", p.ident));
        let x = e.names.forward(p.value);
        let ty = &p.ty;
        entry.extend(quote!(let #x: #ty = *#r;));
        let last = e.operand(last, Position::Arg);
        written_back.extend(quote!(*#r = #last;));
        refs.push((*k, r));
    }
    let forward = quote!(#entry #forward #written_back);
    let reverse = e.reverse(g);
    let value = match &f.output {
        Output::Tuple(elems) => {
            let elems = elems.iter().map(|o| e.operand(o, Position::Arg));
            quote!((#(#elems),*))
        }
        _ => e.operand(&f.ret, Position::Arg),
    };

    let grads: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_idents: Vec<syn::Ident> = grads.iter().map(|p| e.names.adjoint(p.value)).collect();
    // The sweep can run twice from the same forward values (the stacks
    // replayed the first time): first without the zero-adjoint guard. A
    // checkpointed loop's reverse sweep changes its stored states, so there
    // the guarded sweep runs after the forward sweep again (`rerun`),
    // unless the function writes through `&mut` (its entry value is gone).
    // Either way the choice is the one the function without checkpoints
    // makes (`replayable`), so that both give the same bits.
    let checkpointed = f.has_checkpoint();
    let fast = match nan_check(f, &grads, &grad_idents) {
        Some(check)
            if g.has_unguarded_pullback()
                && e.replayable()
                && (!checkpointed || f.written.is_empty()) =>
        {
            e.unguarded = true;
            let fast = e.reverse(g);
            e.unguarded = false;
            Some((fast, check))
        }
        _ => None,
    };
    // A scalar output's `_vjp`: the guarded sweep, its adjoint starting
    // from the caller's seed instead of one.
    let scaled = matches!(f.output, Output::Scalar).then(|| {
        e.scalar_seed = Some(seed.clone());
        let reverse = e.reverse(g);
        e.scalar_seed = None;
        reverse
    });
    let plain_value = value.clone();
    // After every sweep: what they declare once for the whole function.
    let stacks = e.stack_declarations();
    let drops = e.stack_drops();
    let (forward_once, sweep, value) = match &fast {
        Some((fast, check)) if checkpointed => {
            let value_name = e.names.fresh("value");
            let sweep = rerun(
                &forward,
                fast,
                &reverse,
                (&value_name, &value),
                &grad_idents,
                check,
            );
            (TokenStream::new(), sweep, value_name.to_token_stream())
        }
        Some((fast, check)) => (
            forward.clone(),
            first_try(fast, &reverse, &grad_idents, check),
            value,
        ),
        None => (forward.clone(), reverse.clone(), value),
    };
    let grad_tys = gradient_types(f, &grads);
    let ret_ty = f.float_ident(f.ret_ty);

    let sig = &item.sig;
    let fname = &sig.ident;
    let name = format_ident!("{}_grad", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let mut inputs = inputs(item, f);
    for (k, r) in &refs {
        if let Some(syn::FnArg::Typed(t)) = item.sig.inputs.iter().nth(*k) {
            let ty = &t.ty;
            inputs[*k] = quote!(#r: #ty);
        }
    }
    let vis = &item.vis;
    let attrs = kept_attrs(item);
    let list = wengert_list(f, a, e.names);
    let doc = doc_comment(item, f, &list);
    let dot = wengert_dot(&fname.to_string(), f, a, e.names);
    // A vector output: `<name>_vjp(args.., seed)`, and `<name>_jacobian`.
    let mut through_vjp = None;
    let (name, ret_ty, seed_param, jacobian, slots) = match &f.output {
        Output::Scalar => {
            let ret_ty = ret_ty.into_token_stream();
            let slots = slots_fn(item, f, None, &ret_ty);
            (name, ret_ty, None, TokenStream::new(), slots)
        }
        _ => {
            let out_ty = match &sig.output {
                syn::ReturnType::Type(_, t) => t.to_token_stream(),
                syn::ReturnType::Default => quote!(()),
            };
            let seed_ty = seed_ty(f, &out_ty);
            let vjp = format_ident!("{}_vjp", fname);
            // A struct has no rows, and a struct parameter's gradient no
            // columns the macro could name: `_vjp` is the Jacobian's use.
            let structs = matches!(f.output, Output::Struct(_))
                || grads
                    .iter()
                    .any(|p| f.value(p.value).ty.composite().is_some());
            // Its locals named only where it may be generated.
            let forward_jacobian = jvp.and_then(|jvp| {
                let locals = ["value", "rows", "tangent"].map(|n| e.names.fresh(n));
                forward_jacobian_fn(item, f, (&grads, &inputs), jvp, &locals)
            });
            let jacobian = if structs {
                TokenStream::new()
            } else if let Some(forward) = forward_jacobian {
                forward
            } else if e.stacks.is_empty() && !checkpointed {
                // Nothing recorded: one forward sweep, then the reverse
                // sweep once per output.
                let locals = ["value", "rows", "row", "k"].map(|n| e.names.fresh(n));
                // The adjoints' buffers (no stack: nothing is recorded).
                let forward = quote!(#stacks #forward);
                fused_jacobian_fn(
                    item,
                    f,
                    (&inputs, &seed, &locals),
                    (&forward, &reverse, fast.as_ref().map(|(f, _)| f), &value),
                    &grads,
                    &grad_idents,
                )
            } else {
                // `_vjp` once per output, made below: its locals named
                // apart from every user name.
                let locals = ["value", "rows", "row", "k", "seed"].map(|n| e.names.fresh(n));
                let g: Vec<syn::Ident> = grads.iter().map(|_| e.names.fresh("g")).collect();
                through_vjp = Some((locals, g));
                TokenStream::new()
            };
            let mut slots = slots_fn(item, f, Some((&seed, &seed_ty)), &out_ty);
            slots.extend(vector_output_scalar_slots(item));
            (vjp, out_ty, Some(quote!(#seed: #seed_ty)), jacobian, slots)
        }
    };
    // `_vjp` takes one argument more than the function: a function of
    // seven parameters must not give its user clippy's warning for eight.
    // A name ending in `_` (`sqrt_`) gives `sqrt__grad`, which rustc's
    // snake-case lint would flag though the user wrote none of it. A
    // writer's parameter that it overwrites before reading (`*out = 0.5;`)
    // is passed by value and never read.
    let allow_seed = match seed_param.is_some() {
        true => quote!(#[allow(non_snake_case, unused_variables, clippy::too_many_arguments)]),
        false => quote!(#[allow(non_snake_case, unused_variables)]),
    };
    let all_inputs = inputs.iter().cloned().chain(seed_param);
    let iterator = iterator_in_scope(f);
    let checks = constant_type_checks(item, f);
    let returned_ty = fallible_ty(f, quote!((#ret_ty, #(#grad_tys),*)));
    let returned = fallible_value(f, quote!((#value, #(#grad_idents),*)));
    let scalar_vjp = scaled.map(|reverse| {
        let body = quote!(#iterator #stacks #forward #reverse #drops);
        let returned = fallible_value(f, quote!((#plain_value, #(#grad_idents),*)));
        scalar_vjp_fn(item, f, &inputs, &seed, (body, returned))
    });
    let main_fn = quote! {
        #(#doc)*
        #(#attrs)*
        #allow_seed
        #vis fn #name #generics (#(#all_inputs),*) -> #returned_ty #where_clause {
            #iterator
            #checks
            #stacks
            #forward_once
            #sweep
            #drops
            #returned
        }
    };
    let jacobian = match through_vjp {
        Some((locals, g)) => jacobian_fn(item, f, (&name, &main_fn), &grads, &locals, &g),
        None => jacobian,
    };
    let consts = wengert_consts(item, &list, &dot);
    quote! {
        #consts

        #main_fn
        #jacobian
        #slots
        #scalar_vjp
    }
}

/// For each constant parameter whose type is a name the macro cannot
/// look into (`x: Real`, `v: &V5`, a struct), an assertion at compile time
/// that the type is not a float or a float array (`runtime::call::Probe`):
/// an alias of `f64` would otherwise make `x` a constant without a word,
/// and `_grad`'s tuple one gradient short of what its caller expects.
/// Nothing where `wrt(..)` names the active set: the others are constants
/// by the user's word.
pub(super) fn constant_type_checks(item: &syn::ItemFn, f: &Function) -> TokenStream {
    if f.wrt_given {
        return TokenStream::new();
    }
    let generic: Vec<String> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let in_impl = in_impl(item);
    let mut out = TokenStream::new();
    for (arg, p) in item.sig.inputs.iter().zip(&f.params) {
        let syn::FnArg::Typed(t) = arg else { continue };
        if p.active {
            continue;
        }
        let mut ty = &*t.ty;
        while let syn::Type::Reference(r) = ty {
            ty = &r.elem;
        }
        let syn::Type::Path(path) = ty else { continue };
        let Some(name) = path.path.get_ident().map(|i| i.to_string()) else {
            continue;
        };
        if path.qself.is_some()
            || generic.contains(&name)
            || crate::lower::is_known_constant_type(&name)
        {
            continue;
        }
        // A `const` item cannot name a generic parameter of an enclosing
        // `impl`, which a method's (or a one-letter) type may be: an inline
        // `const` there, checked when the function is built.
        let param = &p.ident;
        let form = match in_impl || name.len() == 1 {
            true => quote!(inline),
            false => quote!(item),
        };
        let span = syn::spanned::Spanned::span(ty);
        out.extend(quote::quote_spanned! {span=>
            ::autodiff::runtime::call::constant_type!(#form #param: #ty);
        });
        // A struct that implements `Differentiable`, left constant by a
        // bare `#[grad]`: rustc's warning at its type.
        if name.len() > 1 {
            out.extend(quote::quote_spanned! {span=>
                ::autodiff::runtime::call::constant_type!(warn #param: #ty);
            });
        }
    }
    out
}

/// Whether any of the gradients `g` of `grads` holds a NaN, as code; `None`
/// where one is a struct or a nested array, whose entries the runtime
/// cannot scan.
fn nan_check(f: &Function, grads: &[&Param], g: &[syn::Ident]) -> Option<TokenStream> {
    let rt = quote!(::autodiff::runtime::float::first_try);
    let tests = grads
        .iter()
        .zip(g)
        .map(|(p, g)| match &f.value(p.value).ty {
            Ty::Float(_) | Ty::FloatLit => Some(quote!(#rt::is_nan(#g))),
            Ty::Array(ArrayTy {
                shape: Shape::Fixed(_) | Shape::Vec,
                ..
            }) => Some(quote!(#rt::any_nan(&#g))),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    (!tests.is_empty()).then(|| quote!(#(#tests)||*))
}

impl Emitter<'_> {
    /// Whether a first attempt can read every stack without taking its
    /// entries (`Stack::replay`): each recorded value is a float, an
    /// integer or a `bool`, copied out of the entry, or a scratch vector
    /// recorded whole, read in place from its slab. A value of a type the
    /// source does not state might not be `Copy`.
    pub(super) fn replayable(&self) -> bool {
        self.pushes.values().flatten().all(|v| {
            matches!(
                self.f.value(*v).ty,
                Ty::Float(_) | Ty::FloatLit | Ty::Int | Ty::Bool
            ) || self.slabbed(*v)
        })
    }
}

/// The reverse sweep run first with the unguarded rules (`fast`), reading
/// the stacks without taking their entries, then, only if a gradient comes
/// out NaN (`check`), again with every rule guarded (`guarded`), popping
/// them: the same result, as the runtime's `float::first_try` argues,
/// without the guard's cost where no gradient is NaN. Both bind the
/// gradients `g`. The entries and slabs are left for the stacks to drop
/// when the first attempt stands.
fn first_try(
    fast: &TokenStream,
    guarded: &TokenStream,
    g: &[syn::Ident],
    check: &TokenStream,
) -> TokenStream {
    let (bind, tuple) = match g {
        [one] => (quote!(#one), quote!(#one)),
        _ => (quote!((#(#g),*)), quote!((#(#g),*))),
    };
    quote! {
        let #bind = {
            #fast
            #tuple
        };
        let #bind = if #check {
            #guarded
            #tuple
        } else {
            #tuple
        };
    }
}

/// [`first_try`] for a function with a checkpointed loop, whose reverse
/// sweep cannot run twice from one forward sweep (it restores and stores
/// the loop's states, and pops what it records): the forward sweep and
/// the unguarded reverse sweep, then, only if a gradient is NaN, the
/// forward sweep again and the guarded one. The value and the gradients
/// are bound to `value` and `g`; each attempt computes them as the
/// function without the checkpoint would, to the bit.
fn rerun(
    forward: &TokenStream,
    fast: &TokenStream,
    guarded: &TokenStream,
    (value, computed): (&syn::Ident, &TokenStream),
    g: &[syn::Ident],
    check: &TokenStream,
) -> TokenStream {
    quote! {
        let (#value, #(#g),*) = {
            #forward
            #fast
            (#computed, #(#g),*)
        };
        let (#value, #(#g),*) = if #check {
            #forward
            #guarded
            (#computed, #(#g),*)
        } else {
            (#value, #(#g),*)
        };
    }
}

/// The `<name>_grad` of a function whose derivative is the user's rule:
/// the function's value, then `rule(params.., value, 1)`.
pub fn custom_gradient_fn(item: &syn::ItemFn, f: &Function, rule: &syn::Path) -> TokenStream {
    let sig = &item.sig;
    let fname = &sig.ident;
    let name = format_ident!("{}_grad", fname);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let vis = &item.vis;
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let mut names = Names::new(f, item.to_token_stream());
    let value = names.fresh("value");
    let grads: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_names: Vec<syn::Ident> = grads
        .iter()
        .map(|p| names.fresh(&format!("d_{}", p.ident)))
        .collect();
    let grad_tys = gradient_types(f, &grads);
    let ret_ty = f.float_ident(f.ret_ty);
    let inputs = &sig.inputs;
    let seed = one(f);
    // The value: a method called through `Self::`, a function's body
    // run in place, as a closure: its bare name would not resolve inside
    // an `impl` (an associated function), which the macro cannot see.
    let value_expr = match sig.receiver() {
        Some(_) => quote!(Self::#fname(#(#args),*)),
        None => {
            let block = &item.block;
            quote!((|#inputs| -> #ret_ty #block)(#(#args),*))
        }
    };
    let bind = match grad_names.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many),*)),
    };
    // The value and the rule's gradient, seeded with one: `_grad`'s body,
    // and what `_vjp` and the trace compute, without calling `_grad` by a
    // name that might not resolve either.
    let gradient = quote!({
        let #value = #value_expr;
        let #bind = #rule(#(#args,)* #value, #seed);
        (#value, #(#grad_names),*)
    });
    let shown = show(&rule.to_token_stream());
    let doc = [
        format!(" Value and gradient of [`{fname}`], whose derivative is the custom pullback `{shown}`."),
        String::new(),
        " The body is not differentiated: the gradient is the rule's, seeded with one.".to_string(),
    ];
    let attrs = kept_attrs(item);
    let list = format!("custom pullback: {shown}");
    let dot = format!(
        "digraph \"{fname}\" {{\n  node [shape=box, fontname=\"monospace\"];\n  \"{fname}\" [label=\"{fname}: custom pullback {}\"];\n}}",
        shown.replace('"', "\\\"")
    );
    let trace = custom_trace_into(item, f, &shown, &gradient, &mut names);
    let slots = slots_fn(item, f, None, &ret_ty.to_token_stream());
    // `_vjp` scales `_grad`'s gradient: the rule is called in one place,
    // so an error in it is reported once.
    let seed_name = names.fresh("seed");
    let scaled = grad_names
        .iter()
        .map(|g| quote!(::autodiff::runtime::call::scaled(#g, #seed_name)));
    let scalar_vjp = scalar_vjp_fn(
        item,
        f,
        &inputs
            .iter()
            .map(ToTokens::to_token_stream)
            .collect::<Vec<_>>(),
        &seed_name,
        (
            quote!(let (#value, #(#grad_names),*) = #gradient;),
            quote!((#value, #(#scaled),*)),
        ),
    );
    let consts = wengert_consts(item, &list, &dot);
    quote! {
        #consts

        #(#[doc = #doc])*
        #(#attrs)*
        #vis fn #name #generics (#inputs) -> (#ret_ty, #(#grad_tys),*) #where_clause {
            #gradient
        }

        #trace
        #slots
        #scalar_vjp
    }
}

/// The type of `_vjp`'s seed for a function returning `out_ty`: a slice
/// for a `Vec`, the output's own type otherwise.
pub(super) fn seed_ty(f: &Function, out_ty: &TokenStream) -> TokenStream {
    match &f.output {
        Output::Array(ArrayTy {
            shape: Shape::Vec,
            elem,
        }) => {
            let elem = f.float_ident(*elem);
            quote!(&[#elem])
        }
        Output::Struct(t) => t.to_token_stream(),
        _ => out_ty.clone(),
    }
}
