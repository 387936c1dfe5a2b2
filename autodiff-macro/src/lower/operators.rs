//! Operators of the user's structs read as their methods (`a + b * t`
//! is `a.add(b.mul(t))`, `lower/expr.rs`), what tells a struct as far as
//! the source shows (`struct_operand`), and `first()`/`last()` of a float
//! array unwrapped, read as the elements they pick.

use super::*;
pub(super) use crate::desugar::internal::operator_call;

/// The trait of an operator's method (`add` is `Add`'s).
pub(super) fn operator_trait(method: &str) -> &'static str {
    match method {
        "add" => "Add",
        "sub" => "Sub",
        "mul" => "Mul",
        "div" => "Div",
        "rem" => "Rem",
        _ => "Neg",
    }
}

impl Lowerer {
    /// Whether `e` is a struct, as far as the source shows: a
    /// differentiated struct parameter, an element of a slice of structs
    /// (`vs[1]` of `vs: &[V3]`), a struct built whole, a call's result a
    /// `let` types as a struct, what an operator or its method gives from
    /// one (`a + b`, `-a`, `v * k` of a float `k`, `v.sub(b)`), or a name
    /// bound to such a value.
    pub(super) fn struct_operand(&self, e: &syn::Expr) -> bool {
        const SAME: &[&str] = &["add", "sub"];
        const SCALED: &[&str] = &["mul", "div", "rem"];
        match e {
            syn::Expr::Paren(p) => self.struct_operand(&p.expr),
            syn::Expr::Binary(b) => match bin_op(&b.op) {
                BinOp::Add | BinOp::Sub => {
                    self.struct_operand(&b.left) || self.struct_operand(&b.right)
                }
                // `v * k`: a struct; `a * b` of two may be their product
                // (a dot product's float).
                BinOp::Mul | BinOp::Div | BinOp::Rem => {
                    self.struct_operand(&b.left) != self.struct_operand(&b.right)
                }
                BinOp::Other(_) => false,
            },
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                self.struct_operand(&u.expr)
            }
            // `*a` of a struct parameter taken by `&` (`*a - *c`).
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                matches!(&*u.expr, syn::Expr::Path(_)) && self.struct_operand(&u.expr)
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let recv = self.struct_operand(&m.receiver);
                match m.args.first() {
                    None => name == "neg" && recv,
                    Some(a) if m.args.len() == 1 && SAME.contains(&name.as_str()) => {
                        recv || self.struct_operand(a)
                    }
                    Some(a) if m.args.len() == 1 && SCALED.contains(&name.as_str()) => {
                        recv != self.struct_operand(a)
                    }
                    _ => false,
                }
            }
            syn::Expr::Index(_) => self.struct_slice_element(e),
            // A struct literal: a local struct the split wrote out whole,
            // an operand (`(q - p) * t` of two copies of a `Vec`'s
            // elements, trial 13 B4).
            syn::Expr::Struct(s) => s.qself.is_none(),
            syn::Expr::Path(p) => match p.path.get_ident().map(|i| self.lookup(&i.to_string())) {
                Some(Some(Binding::Value(v))) => {
                    // A call's result of a type the source does not state
                    // may be a float: only one typed as a struct.
                    self.values[v.0].ty.composite().is_some()
                        || self.struct_results.contains(v)
                        || self.struct_values.contains(v)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `e` is an element of a slice parameter of structs (`vs[i]`
    /// of `vs: &[V]`, `(vs[i])` too), as its type states.
    pub(super) fn struct_slice_element(&self, e: &syn::Expr) -> bool {
        if let syn::Expr::Paren(p) = e {
            return self.struct_slice_element(&p.expr);
        }
        let syn::Expr::Index(ix) = e else {
            return false;
        };
        let syn::Expr::Path(p) = &*ix.expr else {
            return false;
        };
        let Some(Some(Binding::Value(v))) = p.path.get_ident().map(|i| self.lookup(&i.to_string()))
        else {
            return false;
        };
        let Ty::Composite(c) = &self.values[v.0].ty else {
            return false;
        };
        match &c.grad_ty {
            // `&[V]`, `Vec<V>`, `&Vec<V>`.
            syn::Type::Path(t)
                if c.holder == Holder::Slice
                    || t.path.segments.last().is_some_and(|s| s.ident == "Vec") =>
            {
                self.struct_element(&c.grad_ty)
            }
            // `[V; N]`.
            syn::Type::Array(a) => {
                let elem = &a.elem;
                self.struct_element(&syn::parse_quote!(::std::vec::Vec<#elem>))
            }
            _ => false,
        }
    }

    /// Whether `Vec<T>`, a slice parameter's gradient type, holds structs:
    /// `T` a named type other than a float (an array `[f64; 3]` has no
    /// operators).
    fn struct_element(&self, grad_ty: &syn::Type) -> bool {
        let syn::Type::Path(p) = grad_ty else {
            return false;
        };
        let Some(last) = p.path.segments.last() else {
            return false;
        };
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return false;
        };
        match a.args.first() {
            Some(syn::GenericArgument::Type(syn::Type::Path(t))) => {
                t.path.get_ident().is_some_and(|i| {
                    let i = i.to_string();
                    i != "f64" && i != "f32" && self.types.generic.as_deref() != Some(i.as_str())
                })
            }
            _ => false,
        }
    }
}

impl Lowerer {
    /// `*xs.first().unwrap()`, `xs.last().copied().unwrap()`,
    /// `*xs.first().expect(..)` of a modelled array: the element they read,
    /// `xs[0]` or `xs[xs.len() - 1]` (each panics on an empty array, as
    /// the `unwrap` does); with `unwrap_or(d)` or `unwrap_or_default()`,
    /// `if xs.is_empty() { d } else { .. }`.
    pub(super) fn first_or_last(&self, e: &syn::Expr) -> Option<syn::Expr> {
        let mut inner = e;
        let mut deref = false;
        if let syn::Expr::Unary(u) = inner {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                inner = &u.expr;
                deref = true;
            }
        }
        let syn::Expr::MethodCall(unwrap) = inner else {
            return None;
        };
        // `xs.last().copied().unwrap_or(0.0)`, `*xs.first().unwrap_or(&c)`,
        // `.unwrap_or_default()`: the element, or the default where the
        // array is empty (trial 10 r687).
        let default: Option<syn::Expr> = match (
            unwrap.method.to_string().as_str(),
            unwrap.args.first(),
        ) {
            ("unwrap", None) => None,
            ("expect", Some(_)) if unwrap.args.len() == 1 => None,
            ("unwrap_or", Some(d)) if unwrap.args.len() == 1 => Some(d.clone()),
            ("unwrap_or_default", None) => Some(
                syn::parse_quote_spanned!(unwrap.method.span()=> ::core::default::Default::default()),
            ),
            _ => return None,
        };
        let mut pick = &*unwrap.receiver;
        let mut copied = false;
        if let syn::Expr::MethodCall(c) = pick {
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() {
                pick = &c.receiver;
                copied = true;
            }
        }
        // A default of a reference to the element (`unwrap_or(&0.0)`) read
        // through the `*` before it; without `copied` or `*`, the value is
        // a reference, left to the code as written.
        let default = match default {
            None => None,
            Some(d) if copied => Some(d),
            Some(syn::Expr::Reference(r)) if deref && r.mutability.is_none() => Some(*r.expr),
            Some(d) if deref => Some(syn::parse_quote_spanned!(unwrap.method.span()=> (*#d))),
            Some(_) => return None,
        };
        let syn::Expr::MethodCall(pick) = pick else {
            return None;
        };
        if !pick.args.is_empty() {
            return None;
        }
        let array = &*pick.receiver;
        let flat = self.modelled_array(array).is_some_and(|v| {
            !matches!(
                self.values[v.0].ty.array().map(|a| &a.shape),
                Some(Shape::Nested)
            )
        });
        if !flat {
            return None;
        }
        let span = pick.method.span();
        let element: syn::Expr = match pick.method.to_string().as_str() {
            "first" => syn::parse_quote_spanned!(span=> #array[0]),
            "last" => syn::parse_quote_spanned!(span=> #array[#array.len() - 1]),
            _ => return None,
        };
        Some(match default {
            None => element,
            Some(d) => {
                syn::parse_quote_spanned!(span=> if #array.is_empty() { #d } else { #element })
            }
        })
    }
}

impl Lowerer {
    /// `e`, known to give a struct, with each of its operators written as
    /// the struct's method (`r.o + r.d * t` is `r.o.add(r.d.mul(t))`):
    /// where the source says so ([`Self::struct_let`], a method of the
    /// user's called on an operator's result) though no operand shows a
    /// struct to [`Self::struct_operand`] (a field's type cannot be seen
    /// from here). `None` where it cannot tell which operand is the
    /// struct (`a * b` of two unknowns) or every operand is a float.
    pub(super) fn operators_as_methods(&self, e: &syn::Expr) -> Option<syn::Expr> {
        use syn::Expr as E;
        // An operand of an operation on structs: a float as it is, an
        // operation on structs rewritten, anything else (a field, a call,
        // a name) taken for the struct.
        let operand = |e: &syn::Expr| -> Option<syn::Expr> {
            match e {
                _ if self.floatish(e) => Some(e.clone()),
                E::Binary(_) | E::Unary(_) | E::Paren(_) => self.operators_as_methods(e),
                _ => Some(e.clone()),
            }
        };
        match e {
            E::Paren(p) => {
                let inner = self.operators_as_methods(&p.expr)?;
                Some(syn::parse_quote!((#inner)))
            }
            E::Binary(b) => {
                let span = syn::spanned::Spanned::span(&b.op);
                match bin_op(&b.op) {
                    BinOp::Add | BinOp::Sub
                        if !(self.floatish(&b.left) && self.floatish(&b.right)) =>
                    {
                        let method = if matches!(bin_op(&b.op), BinOp::Add) {
                            "add"
                        } else {
                            "sub"
                        };
                        Some(operator_call(
                            &operand(&b.left)?,
                            method,
                            span,
                            Some(&operand(&b.right)?),
                        ))
                    }
                    // `v * k`: the struct on the left, a float on the right,
                    // the only order a struct's method reads (`k * v` would be
                    // `f64`'s). A right operand of a type the source does not
                    // state, not shown a struct (`r.d * t` of `let t = tt(r);`),
                    // is that float: the method's signature checks it.
                    op @ (BinOp::Mul | BinOp::Div | BinOp::Rem)
                        if !self.floatish(&b.left)
                            && (self.floatish(&b.right) || !self.struct_operand(&b.right)) =>
                    {
                        let method = match op {
                            BinOp::Mul => "mul",
                            BinOp::Div => "div",
                            _ => "rem",
                        };
                        Some(operator_call(
                            &operand(&b.left)?,
                            method,
                            span,
                            Some(&b.right),
                        ))
                    }
                    _ => None,
                }
            }
            E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) && !self.floatish(&u.expr) => {
                let span = syn::spanned::Spanned::span(&u.op);
                Some(operator_call(&operand(&u.expr)?, "neg", span, None))
            }
            _ => None,
        }
    }

    /// Whether `e` is a number as far as the source shows: a literal, a
    /// float or integer name or constant, an element of a float array, a
    /// cast, a float method of one, what a method of `std`'s gives,
    /// arithmetic of them.
    fn floatish(&self, e: &syn::Expr) -> bool {
        use syn::Expr as E;
        let float = |t: &Ty| matches!(t, Ty::Float(_) | Ty::FloatLit | Ty::Int);
        match e {
            E::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
            E::Paren(p) => self.floatish(&p.expr),
            E::Cast(_) => true,
            E::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && self.floatish(&u.expr),
            E::Binary(b) => self.floatish(&b.left) && self.floatish(&b.right),
            // `x.sqrt()` of a float, `v.clone()` of one; a method of
            // `std`'s other than a float's gives a number (`xs.len()`).
            E::MethodCall(m) => {
                let name = m.method.to_string();
                match crate::rules::method(&name).is_some() || name == "clone" {
                    true => self.floatish(&m.receiver),
                    false => !crate::rules::maybe_users_method(&name),
                }
            }
            E::Index(ix) => self.modelled_array(&ix.expr).is_some_and(|v| {
                !matches!(
                    self.values[v.0].ty.array().map(|a| &a.shape),
                    Some(Shape::Nested)
                )
            }),
            E::Path(p) => {
                if let Some(c) = self.types.const_expr(e) {
                    return float(&c);
                }
                match p.path.get_ident().map(|i| self.lookup(&i.to_string())) {
                    Some(Some(Binding::Value(v))) => float(&self.values[v.0].ty),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// `let p = r.o + r.d * t;` (or `let p: V3 = ..;`) whose operands show
    /// no struct, where the `let` states a struct type of the user's or the
    /// statements after it read a named field of `p` (`p.x`, which no
    /// float has) or call a method of the user's on it: the `let` with its
    /// operators as their methods.
    pub(super) fn struct_let(&self, stmt: &syn::Stmt, rest: &[syn::Stmt]) -> Option<syn::Stmt> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let (ident, annot) = super::lets::simple_binding(&local.pat)?;
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let mut inner = &*init.expr;
        while let syn::Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        if !matches!(inner, syn::Expr::Binary(_) | syn::Expr::Unary(_))
            || self.struct_operand(inner)
        {
            return None;
        }
        let stated = annot.is_some_and(|t| {
            self.types.ty_of(t) == Ty::Unknown
                && self.types.array_ty(t).is_none()
                && !matches!(t, syn::Type::Tuple(_) | syn::Type::Infer(_))
        });
        if !stated && !reads_as_struct(&ident, rest) {
            return None;
        }
        let rewritten = self.operators_as_methods(&init.expr)?;
        let mut local = local.clone();
        if let Some(i) = local.init.as_mut() {
            *i.expr = rewritten;
        }
        Some(syn::Stmt::Local(local))
    }
}

impl Lowerer {
    /// The receiver of `(a.cross(b) * 0.5).length()`, a method of the
    /// user's on an operator's result its operands do not show to be a
    /// struct, with its operators as their methods.
    pub(super) fn operator_receiver(&self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let mut inner = &*m.receiver;
        while let syn::Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        let operator = matches!(inner, syn::Expr::Binary(_))
            || matches!(inner, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)));
        if !operator
            || m.turbofish.is_some()
            || !crate::rules::maybe_users_method(&m.method.to_string())
            || self.struct_operand(inner)
        {
            return None;
        }
        self.operators_as_methods(inner)
    }
}

/// Whether `stmts` read `name.field` (a named field, which no float or
/// array has) or call a method of the user's on `name` (`name.dot(d)`)
/// before they bind `name` again.
fn reads_as_struct(name: &syn::Ident, stmts: &[syn::Stmt]) -> bool {
    struct Find<'n>(&'n syn::Ident, bool);
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            if matches!(f.member, syn::Member::Named(_))
                && matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(self.0))
            {
                self.1 = true;
            }
            syn::visit::visit_expr_field(self, f);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if crate::rules::maybe_users_method(&m.method.to_string())
                && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(self.0))
            {
                self.1 = true;
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find(name, false);
    for s in stmts {
        if crate::desugar::internal::binds(s, name) {
            break;
        }
        syn::visit::Visit::visit_stmt(&mut find, s);
    }
    find.1
}
