//! The checks that a call kept as written, lent a struct the function
//! takes by `&` and given values that carry a derivative
//! (`analysis/escapes.rs`), calls a function or method with #[grad]:
//! `if false { let _ = <its slots>(like(&x), never(), ..); }`, a call
//! that is never made and compiles only where the callee has #[grad],
//! which never keeps such values in a struct it is lent by `&`.

use super::slots::{method_slots_name, slots_call_or_error, slots_paths};
use super::*;
use crate::analysis::activity::LentCheck;

/// A method kept as written (its value carries no derivative) that is
/// lent a struct the function takes by `&` and given values that carry a
/// derivative (`analysis/escapes.rs`): a call of its #[grad] slots that is
/// never made, `if false { let _ = p.<slots>(like(&x), never(), ..); }`,
/// which compiles only where the method has #[grad], and #[grad] refuses
/// to change a struct lent by `&` with such values. Each argument is
/// `like(&arg)` where it can be read there without moving anything, so
/// that a generic method's type parameters are inferred from it (`fn
/// energy<T: Float>(&self, x: T)`), `never()` (`None`) elsewhere.
fn lent_method_check(
    recv: (TokenStream, bool),
    name: &syn::Ident,
    slots: &syn::Ident,
    args: Vec<Option<TokenStream>>,
) -> TokenStream {
    let texts = [
        format!("`{name}` is called on a struct this function takes by `&`, given values that depend on the active inputs, in code #[grad] keeps as written: #[grad] lets this through only for a method with #[grad], which never keeps such values in a struct it is lent by `&`, and `{name}` has none"),
        format!("`{name}` may keep what it is given in `{{Self}}` (a `Cell` or `RefCell` inside)"),
        format!("if `{name}` stores what it is given, return the value instead, so that the caller differentiates it; if it only computes a value, put #[grad] on it (or remove the call, if nothing reads its value)"),
    ];
    let args: Vec<TokenStream> = args
        .into_iter()
        .map(|a| {
            a.unwrap_or_else(
                || quote::quote_spanned!(name.span()=> ::autodiff::runtime::call::never()),
            )
        })
        .collect();
    let call = slots_call_or_error(recv, name, slots, &args, texts);
    quote!(if false { let _ = #call; })
}

/// The receiver of [`lent_method_check`] for a place written in the
/// source that a struct taken by `&` lends (`p`, `p.inner`, `self`): `(*p)`
/// of the reference, the part in place, either of a type known to be no
/// reference. Spanned at the method, where the error is said.
fn lent_place(recv: &syn::Expr, method: &syn::Ident) -> (TokenStream, bool) {
    let span = method.span();
    let recv = respan(recv.to_token_stream(), span);
    let place = match syn::parse2::<syn::Expr>(recv.clone()) {
        Ok(syn::Expr::Path(_)) => quote::quote_spanned!(span=> (*#recv)),
        _ => quote::quote_spanned!(span=> (#recv)),
    };
    (place, true)
}

/// An argument of a check's call never made, written in the source:
/// `like(&(arg))` where that moves nothing and calls nothing (`None`,
/// `never()`, elsewhere).
fn like_arg(a: &syn::Expr) -> Option<TokenStream> {
    place_like(a).then(|| quote!(::autodiff::runtime::call::like(&(#a))))
}

/// Whether evaluating `&(e)` moves nothing and calls nothing of the
/// user's: a name, a field, an element, a literal, a reference, a cast,
/// arithmetic and float methods (`x.sin()`, `T::from_f64(c)`) of those.
fn place_like(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Cast(c) => place_like(&c.expr),
        syn::Expr::MethodCall(m) => {
            crate::rules::method(&m.method.to_string()).is_some()
                && place_like(&m.receiver)
                && m.args.iter().all(place_like)
        }
        syn::Expr::Call(c) => {
            let syn::Expr::Path(f) = &*c.func else {
                return false;
            };
            // `T::sin(x)`, `<T as ::autodiff::Float>::from_f64(c)`.
            (f.qself.is_some() || f.path.segments.len() == 2)
                && f.path.segments.last().is_some_and(|s| {
                    let name = s.ident.to_string();
                    name == "from_f64" || crate::rules::method(&name).is_some()
                })
                && c.args.iter().all(place_like)
        }
        syn::Expr::Field(f) => place_like(&f.base),
        syn::Expr::Index(i) => place_like(&i.expr) && place_like(&i.index),
        syn::Expr::Paren(p) => place_like(&p.expr),
        syn::Expr::Reference(r) => place_like(&r.expr),
        syn::Expr::Unary(u) => place_like(&u.expr),
        syn::Expr::Binary(b) => place_like(&b.left) && place_like(&b.right),
        _ => false,
    }
}

/// As [`lent_method_check`] for a function called by its path, lent such
/// a struct (`store(p, x)`, `P::energy(p, x)`): `if false { let _ =
/// <slots>(<name>_grad, ..); }`, each argument as given or, where `None`
/// (a value the call may move), `never()`. A function without #[grad] has
/// no slots: rustc's "cannot find function".
fn lent_call_check(path: &syn::Path, args: Vec<Option<TokenStream>>) -> TokenStream {
    let (slots, gradient) = slots_paths(path, false);
    let span = path
        .segments
        .last()
        .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
    let args = args.into_iter().map(|a| {
        a.unwrap_or_else(|| quote::quote_spanned!(span=> ::autodiff::runtime::call::never()))
    });
    quote!(if false { let _ = #slots(#gradient, #(#args),*); })
}

impl Emitter<'_> {
    /// The checks that the methods of `Function::lent_calls` given values
    /// that carry a derivative have #[grad], at the top of the function,
    /// where the parameter they are called on is as it came.
    pub(super) fn lent_call_checks(&self) -> TokenStream {
        self.a
            .checked_lent_calls()
            .iter()
            .filter_map(|k| self.f.lent_calls.get(*k))
            .map(|c| {
                // At the top only the parameters are there to be read.
                let args = c.args.iter().map(|(a, r)| self.param_arg(a, r)).collect();
                lent_place_check(&c.recv, &c.method, args)
            })
            .collect()
    }

    /// [`like_arg`] of an argument that reads only parameters as they
    /// came, for a check at the top of the function, each bound to its
    /// name there.
    fn param_arg(&self, a: &syn::Expr, reads: &Reads) -> Option<TokenStream> {
        let params = reads
            .0
            .iter()
            .all(|(n, v)| self.f.params.iter().any(|p| p.value == *v && p.ident == n));
        let like = like_arg(a).filter(|_| params)?;
        let rebind = self.rebind(reads);
        Some(quote!({ #rebind #like }))
    }

    /// Before the entry `dst = op`, a call kept as written lent a struct
    /// the function shares with its caller and given values that carry a
    /// derivative (`analysis/escapes.rs`): the check that its callee has
    /// #[grad]. Nothing elsewhere.
    pub(super) fn lent_check(&self, dst: ValueId, op: &Op) -> TokenStream {
        match op {
            Op::GradMethod {
                name,
                recv,
                args,
                borrowed,
                ..
            } if self.a.lent_to_grad_callee(dst) => {
                let slots = method_slots_name(name, false, false);
                let given = self.like_args(args, borrowed);
                lent_method_check(self.lent_receiver(recv), name, &slots, given)
            }
            Op::Call {
                path,
                args,
                borrowed,
                ..
            } if self.a.lent_to_grad_callee(dst) => {
                lent_call_check(path, self.like_args(args, borrowed))
            }
            // Calls inside an expression kept as written.
            Op::Opaque { reads, .. } if !self.a.opaque_checks(dst).is_empty() => {
                let rebind = self.rebind(reads);
                let checks = self.a.opaque_checks(dst).iter().map(|c| match c {
                    LentCheck::Call { path, args } => {
                        lent_call_check(path, args.iter().map(like_arg).collect())
                    }
                    LentCheck::Method { recv, method, args } => {
                        lent_place_check(recv, method, args.iter().map(like_arg).collect())
                    }
                });
                quote!({ #rebind #(#checks)* })
            }
            _ => TokenStream::new(),
        }
    }
}

/// [`lent_method_check`] of `recv.method(..)` written in the source on a
/// place a shared struct lends ([`lent_place`]).
fn lent_place_check(
    recv: &syn::Expr,
    method: &syn::Ident,
    args: Vec<Option<TokenStream>>,
) -> TokenStream {
    let slots = method_slots_name(method, false, false);
    lent_method_check(lent_place(recv, method), method, &slots, args)
}
