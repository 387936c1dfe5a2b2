//! A function returning `Result<T, E>` or `Option<T>` (`T` a float, a
//! tuple or an array) as the function returning `T` that the macro
//! differentiates: its successful tails, `Ok(v)` and `Some(v)` (as the
//! body's last expression, at the end of its branches, or after
//! `return`), become `v`; an error at the end of a branch, `Err(e)` or
//! `None`, is `return Err(e)` or `return None`. What leaves with an error
//! stays as written, `return Err(e);`, `return None;` and `?`: the generated functions
//! return `Result<(value, gradients..), E>` (or `Option<..>`), so the
//! same statements leave them with the same error, before any gradient is
//! computed.

use crate::ir::Fallible;
use syn::visit_mut::VisitMut;

/// The success type and the wrapper of a return type `Result<T, E>` or
/// `Option<T>`; `None` for any other.
pub fn wrapper(ty: &syn::Type) -> Option<(syn::Type, Fallible)> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    let types: Vec<&syn::Type> = a
        .args
        .iter()
        .filter_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    match (last.ident.to_string().as_str(), types.as_slice()) {
        ("Result", [ok, err]) => Some(((*ok).clone(), Fallible::Result(Box::new((*err).clone())))),
        ("Option", [some]) => Some(((*some).clone(), Fallible::Option)),
        _ => None,
    }
}

/// `item` returning the success type, its successful tails unwrapped; the
/// wrapper, where it has one.
pub fn unwrap(mut item: syn::ItemFn) -> (syn::ItemFn, Option<Fallible>) {
    let syn::ReturnType::Type(arrow, ty) = &item.sig.output else {
        return (item, None);
    };
    let Some((ok, fallible)) = wrapper(ty) else {
        return (item, None);
    };
    item.sig.output = syn::ReturnType::Type(*arrow, Box::new(ok));
    let constructor = match fallible {
        Fallible::Result(_) => "Ok",
        Fallible::Option => "Some",
    };
    let mut tails = Tails { constructor };
    tails.tail_of_block(&mut item.block);
    tails.visit_block_mut(&mut item.block);
    (item, Some(fallible))
}

struct Tails {
    constructor: &'static str,
}

impl Tails {
    /// `Ok(v)` as `v`; `None` for any other expression.
    fn success(&self, e: &syn::Expr) -> Option<syn::Expr> {
        let syn::Expr::Call(c) = e else { return None };
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        (p.path.is_ident(self.constructor) && c.args.len() == 1).then(|| c.args[0].clone())
    }

    fn tail_of_block(&mut self, b: &mut syn::Block) {
        if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last_mut() {
            self.tail(e);
        }
    }

    /// Whether `e` is the error: `Err(e)` or `None`.
    fn failure(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Call(c) if self.constructor == "Ok" => {
                matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Err"))
                    && c.args.len() == 1
            }
            syn::Expr::Path(p) => self.constructor == "Some" && p.path.is_ident("None"),
            _ => false,
        }
    }

    /// A tail position: `Ok(v)` there is `v`, and so are the tails of a
    /// branch or a block there; the error there (`None`, `Err(e)`) leaves
    /// as `return None` (`return Err(e)`) does.
    fn tail(&mut self, e: &mut syn::Expr) {
        if let Some(v) = self.success(e) {
            *e = v;
            return;
        }
        if self.failure(e) {
            *e = syn::parse_quote!(return #e);
            return;
        }
        match e {
            syn::Expr::If(x) => {
                self.tail_of_block(&mut x.then_branch);
                if let Some((_, other)) = &mut x.else_branch {
                    self.tail(other);
                }
            }
            syn::Expr::Match(m) => {
                for arm in &mut m.arms {
                    self.tail(&mut arm.body);
                }
            }
            syn::Expr::Block(b) => self.tail_of_block(&mut b.block),
            syn::Expr::Paren(p) => self.tail(&mut p.expr),
            _ => {}
        }
    }
}

impl VisitMut for Tails {
    // `return Ok(v)` anywhere (not inside a closure) is `return v`.
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Return(r) => {
                if let Some(v) = r.expr.as_deref().and_then(|x| self.success(x)) {
                    r.expr = Some(Box::new(v));
                }
            }
            syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// Whether `e` leaves a fallible function with its error: `return
/// Err(..)`, `return None`.
pub fn is_exit(e: &syn::Expr) -> bool {
    let syn::Expr::Return(r) = e else {
        return false;
    };
    match r.expr.as_deref() {
        Some(syn::Expr::Call(c)) => {
            matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Err")) && c.args.len() == 1
        }
        Some(syn::Expr::Path(p)) => p.path.is_ident("None"),
        _ => false,
    }
}
