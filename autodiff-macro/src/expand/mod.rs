//! The driver: options, lowering, analysis, differentiation, emission.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::diag::combine;

mod trait_impl;

/// Whether `tokens` hold an invisible group, a `macro_rules!` fragment.
fn has_fragment(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Group(g) => {
            g.delimiter() == proc_macro2::Delimiter::None || has_fragment(&g.stream())
        }
        _ => false,
    })
}

/// `tokens` with each invisible group that holds only a `{ .. }` block
/// (a `macro_rules!` fragment `$b:block`) replaced by the block.
fn blocks_ungrouped(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, TokenTree};
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                match &inner[..] {
                    [TokenTree::Group(b)]
                        if g.delimiter() == Delimiter::None
                            && b.delimiter() == Delimiter::Brace =>
                    {
                        let mut block = Group::new(Delimiter::Brace, blocks_ungrouped(b.stream()));
                        block.set_span(b.span());
                        TokenTree::Group(block)
                    }
                    _ => {
                        let mut same = Group::new(g.delimiter(), blocks_ungrouped(g.stream()));
                        same.set_span(g.span());
                        TokenTree::Group(same)
                    }
                }
            }
            other => other,
        })
        .collect()
}

/// Expands `#[grad(attr)] item`: the item as written, followed by its
/// `<name>_grad`, or by the errors found. A bug that panics inside the
/// macro becomes a compile error asking for a report, with the item kept.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let kept = item.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand_item(attr, item))) {
        Ok(tokens) => tokens,
        Err(_) => {
            let err = syn::Error::new(
                proc_macro2::Span::call_site(),
                "internal error in #[grad]: the macro failed on this function; please report it with the function's code",
            )
            .to_compile_error();
            quote!(#kept #err)
        }
    }
}

fn expand_item(attr: TokenStream, item: TokenStream) -> TokenStream {
    // A block a `macro_rules!` gave as a statement (`$b:block` then more
    // code) reaches the macro wrapped in an invisible group, which `syn`
    // reads as an expression wanting a `;`: read it as the block it is.
    let item = blocks_ungrouped(item);
    let parsed: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            // A syntax error is rustc's to report, on the tokens as given.
            // But where a `macro_rules!` fragment is among them, `syn`
            // failing may be a limit of the macro's where rustc sees no
            // error, and a function that silently got no `_grad` would
            // fail far from here: said at the tokens.
            let err = match syn::parse2::<syn::Item>(item.clone()) {
                Ok(syn::Item::Impl(block)) => return trait_impl::expand(attr, block),
                Ok(other) => not_a_function(&other).to_compile_error(),
                Err(_) if has_fragment(&item) => syn::Error::new(
                    e.span(),
                    format!("#[grad] could not read this function, built by a macro: {e}; write this part as plain code rather than through a macro's fragment, or report it"),
                )
                .to_compile_error(),
                Err(_) => TokenStream::new(),
            };
            return quote!(#item #err);
        }
    };
    // `$e * 2.0` of a `macro_rules!` fragment, `(3.0 + 1.0) * 2.0` in
    // every function returned (`desugar/groups.rs`).
    let parsed = crate::desugar::groups::visible(parsed);
    let parsed = crate::desugar::generic::with_float_literals(parsed);
    // Raw identifiers the function binds, under plain names of their own
    // for the stages (`desugar/raw_idents.rs`), said as written in errors.
    let (unraw, raw_names) = crate::desugar::raw_idents::unraw(&parsed);
    // Parameters written as patterns, as names destructured first
    // (`desugar/param_patterns.rs`).
    let (attr, named) = crate::desugar::param_patterns::named(attr, &unraw);
    let result = gradient(attr, &named);
    // `#[checkpoint]` is #[grad]'s to read, never rustc's.
    let strip = crate::attr::strip_checkpoints;
    match result {
        Ok(grad) => {
            // A function used only through its gradient is not dead code.
            let mut kept = parsed;
            kept.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            crate::attr::read_checkpoint_counts(&mut kept);
            let kept = strip(kept.to_token_stream());
            let grad = strip(grad);
            quote!(#kept #grad)
        }
        Err(err) => {
            let mut err = err.to_compile_error();
            // A struct writer's `self`, as the user wrote it.
            if let Some(this) = crate::desugar::struct_writers::receiver_name(&parsed) {
                err = crate::diag::renamed_in_code(err, &this, "self");
            }
            for (plain, raw) in &raw_names {
                err = crate::diag::renamed_in_code(err, plain, raw);
            }
            // A `move` closure's copy of what it captures, as its name.
            for (copy, name) in crate::desugar::move_captures::copy_names(&unraw) {
                err = crate::diag::renamed_in_code(err, &copy, &name);
            }
            let parsed = strip(parsed.to_token_stream());
            quote!(#parsed #err)
        }
    }
}

/// Every stage in turn; errors of the options and of the function are
/// reported together.
fn gradient(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let mut errors = None;
    let options = crate::attr::parse(attr.clone()).unwrap_or_else(|e| {
        combine(&mut errors, e);
        Default::default()
    });
    // nalgebra values as the arrays of their entries (`desugar/nalgebra`):
    // in the body, under the function's own name; in the signature, in a
    // twin whose generated functions are wrapped (`emit/nalgebra.rs`).
    // What the rewrite refuses is reported alone: the rest of the
    // pipeline would only say again, less clearly, that it cannot take
    // the nalgebra code as written.
    let planned = match crate::desugar::nalgebra::plan(item) {
        Ok(p) => p,
        Err(e) => {
            combine(&mut errors, e);
            return Err(errors.expect("just combined"));
        }
    };
    let item = match &planned {
        Some(plan) if plan.in_signature() => {
            if let Some(e) = errors {
                return Err(e);
            }
            return nalgebra_signature(attr, item, plan, &options);
        }
        Some(plan) => &plan.twin,
        None => item,
    };
    if let Some(rule) = &options.pullback {
        if options.jvp {
            combine(
                &mut errors,
                syn::Error::new_spanned(rule, "#[grad(jvp)] takes tangents through the function's own Wengert list: a function with a custom `pullback` has none; drop `jvp`, or drop `pullback` and let #[grad] differentiate the body"),
            );
        }
        if options.hessian {
            combine(
                &mut errors,
                syn::Error::new_spanned(rule, "#[grad(hessian)] differentiates the function's own gradient: a function with a custom `pullback` has none it can differentiate again; drop `hessian`, or drop `pullback` and let #[grad] differentiate the body"),
            );
        }
        if options.trace {
            combine(
                &mut errors,
                syn::Error::new_spanned(rule, "#[grad(trace)] traces the function's own Wengert list: a function with a custom `pullback` has none; drop `trace` or `pullback`"),
            );
        }
        if let Some(e) = errors {
            return Err(e);
        }
        let f = crate::lower::signature(item, &options)?;
        return Ok(crate::emit::custom_gradient_fn(item, &f, rule));
    }
    // Second derivatives of a function written for `f64`: through its
    // generic twin (`desugar/float_twin/`), or the reasons it has none,
    // reported with the function's own errors.
    let twin = match options.hessian && crate::desugar::generic::generic_param(&item.sig).is_none()
    {
        // An iterator drained by `while let` as the `for` loop it stands
        // for (`desugar/iterator_loops.rs`), which the twin can write.
        true => match crate::desugar::float_twin::twin(
            &crate::desugar::iterator_loops::as_for_loops(item.clone()),
        ) {
            Ok(twin) => Some(twin),
            Err(e) => {
                combine(&mut errors, e);
                None
            }
        },
        false => None,
    };
    let own = crate::attr::Options {
        hessian: options.hessian && twin.is_none(),
        ..options.clone()
    };
    let mut out = differentiate(&own, item, errors)?;
    if let Some(twin) = twin {
        let second = crate::attr::Options {
            trace: false,
            jvp: false,
            ..options.clone()
        };
        let generated = differentiate(&second, &twin, None)?;
        out.extend(crate::emit::hessian::through_twin(item, twin, generated)?);
    }
    // A function that returns a value and writes through `&mut`: its lent
    // variant too, for callers that lend it a variable (`let r =
    // accumulate(&mut s, y);`). Where the variant is beyond the macro, such
    // callers find no `_vjp` to call.
    if let Some(variant) = crate::desugar::mut_params::lent_variant(item) {
        out.extend(crate::emit::value_dropped_slots(item));
        let options = crate::attr::Options {
            trace: false,
            jvp: false,
            hessian: false,
            ..options
        };
        if let Ok(generated) = differentiate(&options, &variant, None) {
            let mut kept = variant;
            kept.attrs.retain(|a| !a.path().is_ident("doc"));
            kept.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            kept.attrs
                .push(syn::parse_quote!(#[allow(dead_code, unused_mut, clippy::all)]));
            crate::attr::read_checkpoint_counts(&mut kept);
            out.extend(kept.to_token_stream());
            out.extend(generated);
        }
    }
    Ok(out)
}

/// A function with nalgebra values in its signature: its twin with arrays
/// in their place, differentiated, and wrappers that convert.
fn nalgebra_signature(
    attr: TokenStream,
    item: &syn::ItemFn,
    plan: &crate::desugar::nalgebra::Plan,
    options: &crate::attr::Options,
) -> syn::Result<TokenStream> {
    if let Some(rule) = &options.pullback {
        return Err(syn::Error::new_spanned(rule, "#[grad(pullback = ..)] on a function with nalgebra values in its signature is not supported yet: take and return arrays (`[f64; 3]`), or drop `pullback`"));
    }
    if let syn::ReturnType::Type(_, t) = &item.sig.output {
        if crate::desugar::fallible::wrapper(t).is_some() {
            return Err(syn::Error::new_spanned(t, "#[grad] on a function with nalgebra values in its signature that returns a `Result` or an `Option` is not supported yet: check the inputs before the call, and return the value"));
        }
    }
    let generated = gradient(attr, &plan.twin)?;
    let active = crate::lower::activity(&plan.twin, options);
    crate::emit::nalgebra::wrapped(item, plan, &active, generated)
}

/// The pipeline on one function: lowering, analysis, differentiation and
/// emission, with the errors found before it (`errors`) reported together
/// with its own.
fn differentiate(
    options: &crate::attr::Options,
    item: &syn::ItemFn,
    mut errors: Option<syn::Error>,
) -> syn::Result<TokenStream> {
    // References to local variables are the variables (`desugar/refs.rs`),
    // in the body the macro lowers; the function is kept as written. Before
    // the local structs are split (`let r = &p; r.x` reads `p`), and again
    // after (`let r = &p.x;` is then a reference to the field's variable).
    // A struct chosen by a branch of literals is its fields chosen
    // (`desugar/chosen_structs.rs`), before the split too. An
    // array chosen by a branch is the choice made at each read
    // (`desugar/chosen_refs.rs`). A
    // named sub-slice is read through its array (`desugar/sub_slices.rs`).
    // So are local structs read through their fields only
    // (`desugar/local_structs.rs`), one variable per field.
    // And labelled jumps are flags and plain jumps (`desugar/labels.rs`).
    // A call's array result changed in place is copied into a local array
    // first (`desugar/call_copies.rs`).
    // A local `Vec` of structs is a `Vec` per field
    // (`desugar/struct_vecs.rs`), before the structs are split.
    // A scratch array hoisted out of a loop that overwrites it whole in
    // each iteration is declared in that loop (`desugar/hoisted.rs`).
    // First, type annotations that say no more than their values go
    // (`desugar/annotations.rs`), and a tail `loop` that leaves only by
    // `return` breaks with the value instead (`desugar/tail_loops.rs`);
    // then what a `move` closure reads and the code after it names is
    // copied where the closure is made (`desugar/move_captures.rs`); then a
    // value nothing reads that a call gives is that call as a statement
    // (`desugar/dropped_values.rs`), and `let s = s;` goes
    // (`desugar/rebinds.rs`).
    // And an iterator drained by `while let` is the `for` loop it stands
    // for (`desugar/iterator_loops.rs`).
    // A row of a nested array parameter copied into a variable that is
    // replaced whole is written out as the array it copies
    // (`desugar/row_copies.rs`); `v.extend_from_slice(s);` is the loop of
    // pushes it stands for (`desugar/extends.rs`).
    let statements = crate::desugar::row_copies::written_out(
        crate::desugar::iterator_loops::as_for_loops(crate::desugar::rebinds::dropped(
            crate::desugar::dropped_values::as_statements(crate::desugar::extends::as_pushes(
                crate::desugar::move_captures::copied(crate::desugar::tail_loops::as_breaks(
                    crate::desugar::annotations::evident(item.clone()),
                )),
            )),
        )),
    );
    let soa = crate::desugar::struct_vecs::split(crate::desugar::hoisted::into_loops(statements));
    let (split, receivers) = crate::desugar::local_structs::split(
        crate::desugar::refs::aliases(crate::desugar::chosen_structs::as_fields(soa)),
        options.wrt.as_deref(),
    );
    let lowered = crate::desugar::call_copies::copied(crate::desugar::labels::unlabel(split));
    let (f, lowering_errors) = crate::lower::lower(
        &crate::desugar::sub_slices::named(crate::desugar::refs::aliases(
            crate::desugar::chosen_refs::at_reads(lowered),
        )),
        options,
        &receivers,
    );
    if let Some(e) = lowering_errors {
        combine(&mut errors, e);
    }
    // A partly lowered function is still analysed, so that every error is
    // reported at once.
    let Some(f) = f else {
        return Err(errors.expect("lowering records an error when it yields no function"));
    };
    let mut f = f;
    // A float taken by `&mut` is written back by `_grad`; a vector output's
    // functions and the trace do not write yet.
    if !f.written.is_empty() && (!matches!(f.output, crate::ir::Output::Scalar) || options.trace) {
        let (k, _) = &f.written[0];
        if let Some(arg) = item.sig.inputs.iter().nth(*k) {
            combine(&mut errors, syn::Error::new_spanned(arg, "#[grad] differentiates a function that changes a float through `&mut` where it returns one float, without `trace`: return the value, or take the float by value and return its new value"));
        }
    }
    if errors.is_none() {
        checked(&f, "lowering", &item.sig.ident)?;
    }
    crate::analysis::loads::merge_repeated_loads(&mut f);
    if errors.is_none() {
        checked(&f, "merging repeated loads", &item.sig.ident)?;
    }
    let grad = crate::analysis::analyse(&f)
        .and_then(|activity| crate::reverse::differentiate(&f, &activity).map(|g| (activity, g)));
    // The generated functions' signatures are the function's returning its
    // success type, wrapped again where they return (`desugar/fallible.rs`).
    let emitted = crate::desugar::fallible::unwrap(item.clone()).0;
    // An array writer's generated functions take the array by shared
    // reference and return its new contents, a writer of several floats's
    // take them by value and return their new values
    // (`desugar/mut_params.rs`).
    let emitted = crate::desugar::mut_params::generated_signature(&emitted);
    match (grad, errors) {
        (Ok((activity, grad)), None) => {
            let jvp = match options.jvp {
                true => Some(crate::emit::jvp_fn(&emitted, &f, &activity)?),
                false => None,
            };
            let mut out = crate::emit::gradient_fn(&emitted, &f, &activity, &grad, jvp.as_ref());
            if options.trace {
                if f.fallible.is_some() {
                    return Err(syn::Error::new_spanned(
                        &item.sig.output,
                        "#[grad(trace)] traces functions that return their value, not a `Result` or an `Option`: drop `trace`, or trace the computation as a function of its own",
                    ));
                }
                out.extend(crate::emit::trace_fn(&emitted, &f, &activity)?);
            }
            match jvp {
                Some(jvp) => out.extend(jvp),
                None => out.extend(crate::emit::no_jvp_fns(&emitted, &f)),
            }
            if options.hessian {
                let second = crate::emit::hessian_fns(&emitted, &f, &grad, &out)?;
                out.extend(second);
            }
            Ok(out)
        }
        (Ok(_), Some(e)) => Err(e),
        (Err(later), Some(mut e)) => {
            e.combine(later);
            Err(e)
        }
        (Err(later), None) => Err(later),
    }
}

/// With the `verify` feature (this workspace's tests) or in the macro's
/// own unit tests, the IR verifier after a pass: a broken invariant is a
/// bug of the macro, reported as one.
fn checked(f: &crate::ir::Function, pass: &str, name: &syn::Ident) -> syn::Result<()> {
    if !cfg!(any(test, feature = "verify")) {
        return Ok(());
    }
    crate::ir::verify::verify(f).map_err(|broken| {
        syn::Error::new(
            name.span(),
            format!("internal error in #[grad]: the IR is broken after {pass}: {broken}; please report it with the function's code"),
        )
    })
}

/// The error for `#[grad]` on an item that is not a function, on its
/// keyword.
fn not_a_function(item: &syn::Item) -> syn::Error {
    use syn::Item as I;
    let (what, keyword) = match item {
        I::Struct(i) => ("a struct", i.struct_token.to_token_stream()),
        I::Enum(i) => ("an enum", i.enum_token.to_token_stream()),
        I::Union(i) => ("a union", i.union_token.to_token_stream()),
        I::Impl(i) => ("an impl block", i.impl_token.to_token_stream()),
        I::Trait(i) => ("a trait", i.trait_token.to_token_stream()),
        I::Mod(i) => ("a module", i.mod_token.to_token_stream()),
        I::Const(i) => ("a constant", i.const_token.to_token_stream()),
        I::Static(i) => ("a static", i.static_token.to_token_stream()),
        I::Type(i) => ("a type alias", i.type_token.to_token_stream()),
        I::Use(i) => ("a `use` declaration", i.use_token.to_token_stream()),
        I::ForeignMod(i) => ("an `extern` block", i.abi.to_token_stream()),
        other => ("this item", other.to_token_stream()),
    };
    syn::Error::new_spanned(
        keyword,
        format!("#[grad] applies to functions, not to {what}: put it on a `fn` that takes floats and returns one"),
    )
}
