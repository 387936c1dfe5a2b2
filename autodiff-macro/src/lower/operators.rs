//! Operators of the user's structs read as their methods (`a + b * t`
//! is `a.add(b.mul(t))`, `lower/expr.rs`), what tells a struct as far as
//! the source shows (`struct_operand`), and `first()`/`last()` of a float
//! array unwrapped, read as the elements they pick.

use super::*;

/// `recv.method(arg)` (or `recv.method()`), the method an operator of a
/// struct stands for, its name spanned at the operator.
pub(super) fn operator_call(
    recv: &syn::Expr,
    method: &str,
    span: proc_macro2::Span,
    arg: Option<&syn::Expr>,
) -> syn::Expr {
    let recv = match recv {
        // `-v.x` parses as `-(v.x)`, and `a + b` as it is: a receiver that
        // is itself an operation keeps its parentheses.
        syn::Expr::Binary(_) | syn::Expr::Unary(_) | syn::Expr::Cast(_) => {
            syn::parse_quote!((#recv))
        }
        other => other.clone(),
    };
    syn::Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(recv),
        dot_token: Default::default(),
        method: syn::Ident::new(method, span),
        turbofish: None,
        paren_token: Default::default(),
        args: arg.into_iter().cloned().collect(),
    })
}

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
            syn::Expr::Index(ix) => {
                let syn::Expr::Path(p) = &*ix.expr else {
                    return false;
                };
                match p.path.get_ident().map(|i| self.lookup(&i.to_string())) {
                    Some(Some(Binding::Value(v))) => match &self.values[v.0].ty {
                        Ty::Composite(c) if c.holder == Holder::Slice => {
                            self.struct_element(&c.grad_ty)
                        }
                        _ => false,
                    },
                    _ => false,
                }
            }
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
    /// the `unwrap` does).
    pub(super) fn first_or_last(&self, e: &syn::Expr) -> Option<syn::Expr> {
        let mut inner = e;
        if let syn::Expr::Unary(u) = inner {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                inner = &u.expr;
            }
        }
        let syn::Expr::MethodCall(unwrap) = inner else {
            return None;
        };
        if !(unwrap.method == "unwrap" && unwrap.args.is_empty()
            || unwrap.method == "expect" && unwrap.args.len() == 1)
        {
            return None;
        }
        let mut pick = &*unwrap.receiver;
        if let syn::Expr::MethodCall(c) = pick {
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() {
                pick = &c.receiver;
            }
        }
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
        match pick.method.to_string().as_str() {
            "first" => Some(syn::parse_quote_spanned!(span=> #array[0])),
            "last" => Some(syn::parse_quote_spanned!(span=> #array[#array.len() - 1])),
            _ => None,
        }
    }
}
