//! A float parameter taken by `&mut` (`x: &mut f64`) as the float it
//! holds on entry, changed in the body like a `let mut`: `*x` is `x`, and
//! `x` passed on is `&mut x`. The gradient is with respect to the entry
//! value; the generated function writes the last value back through the
//! reference, as the function does (`emit/grad_fn.rs`).

use quote::ToTokens;
use syn::visit_mut::VisitMut;

/// `item` with each float `&mut` parameter (`&mut f64`, `&mut f32`, or
/// the generic float type's) taken by value and changed in place; the
/// indices of those parameters.
pub fn by_value(mut item: syn::ItemFn) -> (syn::ItemFn, Vec<usize>) {
    let generic = crate::desugar::generic::generic_param(&item.sig);
    let is_float = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
            i == "f64" || i == "f32" || generic.as_deref().is_some_and(|g| i == g)
        }),
        _ => false,
    };
    let mut written = Vec::new();
    let mut names = Vec::new();
    for (k, arg) in item.sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(t) = arg else { continue };
        let syn::Type::Reference(r) = &*t.ty else {
            continue;
        };
        let syn::Pat::Ident(p) = &mut *t.pat else {
            continue;
        };
        if r.mutability.is_none() || !is_float(&r.elem) || p.by_ref.is_some() || p.subpat.is_some()
        {
            continue;
        }
        p.mutability = Some(Default::default());
        names.push(p.ident.clone());
        t.ty = r.elem.clone();
        written.push(k);
    }
    for name in names {
        Deref { name }.visit_block_mut(&mut item.block);
    }
    (item, written)
}

/// A *writer*, a function that returns nothing and writes its results
/// through `&mut` (after [`by_value`], `written` its float parameters taken
/// by `&mut`), as the function returning them; the indices of the
/// parameters its callers lend (`update(&mut x, &mut v, dt);`):
/// - one float (`fn update(x: &mut f64, y: f64)`): the function returning
///   its last value (`-> f64`, ending with `x`, every `return;` as
///   `return x;`), whose gradient is the writer's, and whose `_grad` takes
///   it by `&mut` and writes it back (`Function::written`);
/// - several floats (`fn step(x: &mut f64, v: &mut f64, dt: f64)`): the
///   function taking them by value and returning their last values as a
///   tuple (`-> (f64, f64)`), a vector output whose `_vjp` and `_jacobian`
///   take and return values;
/// - one float array ([`array_writer`]);
/// - one struct (`desugar/struct_writers.rs`).
///
/// `None` for any other function.
pub fn writer(item: &syn::ItemFn, written: &[usize]) -> Option<(syn::ItemFn, Vec<usize>)> {
    if !matches!(item.sig.output, syn::ReturnType::Default) {
        return None;
    }
    if written.is_empty() {
        return array_writer(item)
            .or_else(|| super::struct_writers::struct_writer(item))
            .map(|(item, k)| (item, vec![k]));
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for k in written {
        let syn::FnArg::Typed(t) = item.sig.inputs.iter().nth(*k)? else {
            return None;
        };
        let syn::Pat::Ident(p) = &*t.pat else {
            return None;
        };
        names.push(p.ident.clone());
        types.push(t.ty.clone());
    }
    // A tuple's elements have one float type.
    let first = types.first().map(|t| t.to_token_stream().to_string());
    if types
        .iter()
        .any(|t| Some(t.to_token_stream().to_string()) != first)
    {
        return None;
    }
    let mut item = item.clone();
    // A tuple is returned once, at the end: guard clauses as branches.
    if written.len() > 1 {
        item.block.stmts = super::unit_guards(std::mem::take(&mut item.block.stmts));
    }
    item.sig.output = match types.as_slice() {
        [ty] => syn::parse_quote!(-> #ty),
        _ => syn::parse_quote!(-> (#(#types),*)),
    };
    super::returning(&mut item.block, &names);
    Some((item, written.to_vec()))
}

/// The hidden name of a function's *lent variant* ([`lent_variant`]):
/// `__autodiff_lent_<name>`.
pub fn lent_name(name: &syn::Ident) -> syn::Ident {
    quote::format_ident!("__autodiff_lent_{}", name, span = name.span())
}

/// A function that returns a value and writes floats through `&mut`
/// (`fn accumulate(acc: &mut f64, y: f64) -> f64`): its *lent variant*,
/// the function taking them by value and returning the value and their
/// last values as a tuple (`fn __autodiff_lent_accumulate(acc: f64, y:
/// f64) -> (f64, f64)`, every `return v` as `return (v, acc)`), a vector
/// output whose `_vjp` a caller's `let r = accumulate(&mut s, y);` calls
/// (`Op::VjpCall::original`). `None` for any other function.
pub fn lent_variant(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    let syn::ReturnType::Type(_, ret) = &item.sig.output else {
        return None;
    };
    let (mut variant, written) = by_value(item.clone());
    if written.is_empty() {
        return None;
    }
    let mut names = Vec::new();
    let mut types = vec![(**ret).clone()];
    for k in &written {
        let syn::FnArg::Typed(t) = variant.sig.inputs.iter().nth(*k)? else {
            return None;
        };
        let syn::Pat::Ident(p) = &*t.pat else {
            return None;
        };
        names.push(p.ident.clone());
        types.push((*t.ty).clone());
    }
    variant.sig.ident = lent_name(&item.sig.ident);
    variant.sig.output = syn::parse_quote!(-> (#(#types),*));
    // `return v` as `return (v, acc)`, spanned at the user's `return`.
    struct Returns<'a>(&'a [syn::Ident]);
    impl VisitMut for Returns<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            match e {
                syn::Expr::Return(r) => {
                    let names = self.0;
                    if let Some(v) = r.expr.take() {
                        let span = r.return_token.span;
                        r.expr = Some(Box::new(
                            syn::parse_quote_spanned!(span=> (#v, #(#names),*)),
                        ));
                    }
                }
                syn::Expr::Closure(_) => {}
                _ => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Returns(&names).visit_block_mut(&mut variant.block);
    let tail = match variant.block.stmts.pop()? {
        syn::Stmt::Expr(e, None) => e,
        other => {
            // Ends with `return v;`, now `return (v, acc);`.
            variant.block.stmts.push(other);
            return Some(variant);
        }
    };
    variant.block.stmts.push(syn::Stmt::Expr(
        syn::parse_quote!((#tail, #(#names),*)),
        None,
    ));
    Some(variant)
}

/// The function whose signature a `#[grad]` function's generated
/// functions have: a writer of several floats or of an array as
/// [`writer`] makes it (taking values, returning what it writes), any
/// other as written (a writer of one float takes it by `&mut`).
pub fn generated_signature(item: &syn::ItemFn) -> syn::ItemFn {
    let (by_value, written) = by_value(item.clone());
    match writer(&by_value, &written) {
        Some((writer, lent)) if written.len() != 1 || lent.len() != 1 => writer,
        _ => item.clone(),
    }
}

/// A function that returns nothing and changes one float array through
/// `&mut` (`fn scale(v: &mut [f64], k: f64)`, `v: &mut Vec<f64>`): the
/// function taking the array by shared reference and returning its new
/// contents (`v: &[f64]`, `-> Vec<f64>`, the body opening with `let mut v
/// = v.to_vec();`, every `return;` as `return v;`), a vector output whose
/// `_vjp` is the writer's. Callers write `scale(&mut u, k);`, which the
/// lowering turns into `u`'s new contents (`Lowerer::array_writer_call`).
/// `None` for any other function.
fn array_writer(item: &syn::ItemFn) -> Option<(syn::ItemFn, usize)> {
    if !matches!(item.sig.output, syn::ReturnType::Default) {
        return None;
    }
    let generic = crate::desugar::generic::generic_param(&item.sig);
    let is_float = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
            i == "f64" || i == "f32" || generic.as_deref().is_some_and(|g| i == g)
        }),
        _ => false,
    };
    // The element type of `&mut [T]`, `&mut Vec<T>` or `&mut [T; N]`.
    let element = |t: &syn::Type| -> Option<syn::Type> {
        let syn::Type::Reference(r) = t else {
            return None;
        };
        r.mutability?;
        let elem: syn::Type = match &*r.elem {
            syn::Type::Slice(s) => (*s.elem).clone(),
            syn::Type::Array(a) => (*a.elem).clone(),
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last()?;
                if last.ident != "Vec" {
                    return None;
                }
                let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                    return None;
                };
                match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => t.clone(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        is_float(&elem).then_some(elem)
    };
    let mut found: Option<(usize, syn::Ident, syn::Type)> = None;
    for (k, arg) in item.sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(t) = arg else { continue };
        let syn::Type::Reference(r) = &*t.ty else {
            continue;
        };
        if r.mutability.is_none() {
            continue;
        }
        let (Some(elem), syn::Pat::Ident(p)) = (element(&t.ty), &*t.pat) else {
            // Another `&mut`: not a writer of one array.
            return None;
        };
        if found.is_some() || p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        found = Some((k, p.ident.clone(), elem));
    }
    let (k, name, elem) = found?;
    // Its new contents are the array at the end of the body.
    if item.block.stmts.iter().any(super::jumps::stmt_has_return) {
        return None;
    }
    let mut item = item.clone();
    // The array passed on (`scale(v, k);` of `v: &mut [f64]`): the local
    // array it is in the body, lent by `&mut` where the call is a
    // statement, by `&` where its value is used.
    super::struct_writers::LentOn(&name).visit_block_mut(&mut item.block);
    // Taken by `&[T]` and returned as a `Vec`, a fixed array too (`&mut
    // [f64; 2]`: its callers lend it a `Vec` copy as the writer's own
    // type, `runtime::array::lend`).
    if let Some(syn::FnArg::Typed(t)) = item.sig.inputs.iter_mut().nth(k) {
        *t.ty = syn::parse_quote!(&[#elem]);
        if let syn::Pat::Ident(p) = &mut *t.pat {
            p.mutability = None;
        }
    }
    item.sig.output = syn::parse_quote!(-> ::std::vec::Vec<#elem>);
    super::returning(&mut item.block, std::slice::from_ref(&name));
    item.block
        .stmts
        .insert(0, syn::parse_quote!(let mut #name = #name.to_vec();));
    Some((item, k))
}

/// `*name` as `name`, and `name` alone as `&mut name`.
struct Deref {
    name: syn::Ident,
}

impl Deref {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }
}

impl VisitMut for Deref {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {
                *e = (*u.expr).clone();
            }
            // `x.sin()`: a float's methods take it by value, through the
            // reference as on the float.
            syn::Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                for a in &mut m.args {
                    self.visit_expr_mut(a);
                }
            }
            // `relax(state, t)`: handed on as `&mut state`, the loan a
            // writer's call is (spanned at the name).
            syn::Expr::Call(c) => {
                self.visit_expr_mut(&mut c.func);
                for a in &mut c.args {
                    if self.is_name(a) {
                        let name = &self.name;
                        let span = syn::spanned::Spanned::span(a);
                        *a = syn::parse_quote_spanned!(span=> &mut #name);
                    } else {
                        self.visit_expr_mut(a);
                    }
                }
            }
            _ if self.is_name(e) => {
                let name = &self.name;
                *e = syn::parse_quote!((&mut #name));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // `println!("{}", *x)`: the deref dropped; `{x}` in a format
        // string reads the value through the reference's `Display` either
        // way.
        let tokens: Vec<proc_macro2::TokenTree> = m.tokens.clone().into_iter().collect();
        let mut out = Vec::new();
        for (k, t) in tokens.iter().enumerate() {
            let star_before_name = matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '*')
                && matches!(tokens.get(k + 1), Some(proc_macro2::TokenTree::Ident(i)) if *i == self.name);
            if !star_before_name {
                out.push(t.clone());
            }
        }
        m.tokens = out.into_iter().collect();
    }
}
