//! The types of expressions the lowering reads without lowering them:
//! constants (`Types::const_expr`), the join of two types, a call's, and
//! the operators.

use super::*;

use crate::rules::Callee;

impl Types {
    /// A literal, a constant path or arithmetic on them: inactive, side-effect
    /// free, emitted inline. Returns its type.
    pub(super) fn const_expr(&self, e: &syn::Expr) -> Option<Ty> {
        use syn::Expr as E;
        match e {
            E::Lit(l) => Some(match &l.lit {
                syn::Lit::Float(f) => match f.suffix() {
                    "f64" => Ty::Float(FloatTy::F64),
                    "f32" => Ty::Float(FloatTy::F32),
                    _ => Ty::FloatLit,
                },
                syn::Lit::Int(i) => match i.suffix() {
                    "f64" => Ty::Float(FloatTy::F64),
                    "f32" => Ty::Float(FloatTy::F32),
                    _ => Ty::Int,
                },
                syn::Lit::Bool(_) => Ty::Bool,
                _ => return None,
            }),
            // Multi-segment paths: `std::f64::consts::PI`, `f64::EPSILON`.
            E::Path(p) if p.qself.is_none() && p.path.segments.len() > 1 => {
                let segs = crate::rules::path_segments(&p.path);
                let last = segs.last().map(String::as_str).unwrap_or("");
                let is_const = last
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if !is_const {
                    return None;
                }
                Some(if segs.iter().any(|s| s == "f64") {
                    Ty::Float(FloatTy::F64)
                } else if segs.iter().any(|s| s == "f32") {
                    Ty::Float(FloatTy::F32)
                } else {
                    Ty::Unknown
                })
            }
            E::Paren(p) => self.const_expr(&p.expr),
            E::Group(g) => self.const_expr(&g.expr),
            E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.const_expr(&u.expr),
            E::Binary(b)
                if matches!(
                    bin_op(&b.op),
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div
                ) =>
            {
                Some(join(
                    &self.const_expr(&b.left)?,
                    &self.const_expr(&b.right)?,
                ))
            }
            E::Cast(c) => {
                self.const_expr(&c.expr)?;
                Some(self.ty_of(&c.ty))
            }
            // `<T as autodiff::Float>::from_f64(2.0)`: a literal of a generic
            // float function; `<_ as autodiff::Float>::from_f64(-2.0)`, one
            // given to a function of the user's, typed by its parameter.
            E::Call(c) if c.args.len() == 1 => match &*c.func {
                E::Path(p)
                    if p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "from_f64") =>
                {
                    self.const_expr(&c.args[0])?;
                    match p.qself.as_ref().map(|q| &*q.ty) {
                        Some(syn::Type::Infer(_)) => Some(Ty::FloatLit),
                        Some(_) => self.generic.as_ref().map(|_| Ty::Float(FloatTy::Generic)),
                        None => None,
                    }
                }
                _ => None,
            },
            // `T::zero()`, `T::one()`, `T::PI()`: a constant of the
            // function's float type parameter.
            E::Call(c) if c.args.is_empty() => match (&*c.func, &self.generic) {
                (E::Path(p), Some(g))
                    if p.qself.is_none()
                        && p.path.segments.len() == 2
                        && p.path.segments[0].ident == *g
                        && matches!(
                            p.path.segments[1].ident.to_string().as_str(),
                            "zero"
                                | "one"
                                | "epsilon"
                                | "infinity"
                                | "neg_infinity"
                                | "nan"
                                | "max_value"
                                | "min_value"
                                | "min_positive_value"
                                | "PI"
                                | "E"
                                | "TAU"
                                | "LN_2"
                                | "SQRT_2"
                        ) =>
                {
                    Some(Ty::Float(FloatTy::Generic))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// The type of a variable after a branch or a loop that may assign it:
/// a struct held by value on every path stays one (a struct writer's
/// `this`, `desugar/struct_writers.rs`), anything else as [`join`].
pub(super) fn merged(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        // (Of the type a path names, where one of them says it.)
        (Ty::Composite(x), Ty::Composite(y))
            if x.holder == Holder::Value && y.holder == Holder::Value =>
        {
            match x.grad_ty {
                syn::Type::Infer(_) => b.clone(),
                _ => a.clone(),
            }
        }
        _ => join(a, b),
    }
}

/// The type of an arithmetic result from its operands' types.
pub(super) fn join(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Float(f), _) | (_, Ty::Float(f)) => Ty::Float(*f),
        // An integer beside a value of a type the source does not state
        // (`p.n % 3`, `i * m.cols`): Rust has no arithmetic between an
        // integer and a float, so both are integers, and carry no
        // derivative.
        (Ty::Int, _) | (_, Ty::Int) => Ty::Int,
        // A literal beside a value of a type the source does not state
        // takes that type: rustc's to decide, not the function's float.
        (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
        (Ty::FloatLit, _) | (_, Ty::FloatLit) => Ty::FloatLit,
        (Ty::Bool, Ty::Bool) => Ty::Bool,
        _ => Ty::Unknown,
    }
}

/// The type of a call's result: a float method's in path form is its
/// type's, a runtime function's its argument's; any other function's is
/// rustc's to decide.
pub(super) fn call_type(path: &syn::Path, callee: Callee, args: &[Lowered]) -> Ty {
    match callee {
        Callee::Method(_) => match path.segments.first().map(|s| s.ident.to_string()) {
            Some(t) if t == "f32" => Ty::Float(FloatTy::F32),
            _ => Ty::Float(FloatTy::F64),
        },
        Callee::Runtime { .. } => args.first().map(|a| a.ty.clone()).unwrap_or(Ty::Unknown),
        Callee::Primitive | Callee::Function => Ty::Unknown,
    }
}

pub(super) fn bin_op(op: &syn::BinOp) -> BinOp {
    use syn::BinOp as B;
    match op {
        B::Add(_) | B::AddAssign(_) => BinOp::Add,
        B::Sub(_) | B::SubAssign(_) => BinOp::Sub,
        B::Mul(_) | B::MulAssign(_) => BinOp::Mul,
        B::Div(_) | B::DivAssign(_) => BinOp::Div,
        B::Rem(_) | B::RemAssign(_) => BinOp::Rem,
        B::And(_) => BinOp::Other("&&"),
        B::Or(_) => BinOp::Other("||"),
        B::BitXor(_) | B::BitXorAssign(_) => BinOp::Other("^"),
        B::BitAnd(_) | B::BitAndAssign(_) => BinOp::Other("&"),
        B::BitOr(_) | B::BitOrAssign(_) => BinOp::Other("|"),
        B::Shl(_) | B::ShlAssign(_) => BinOp::Other("<<"),
        B::Shr(_) | B::ShrAssign(_) => BinOp::Other(">>"),
        B::Eq(_) => BinOp::Other("=="),
        B::Lt(_) => BinOp::Other("<"),
        B::Le(_) => BinOp::Other("<="),
        B::Ne(_) => BinOp::Other("!="),
        B::Ge(_) => BinOp::Other(">="),
        B::Gt(_) => BinOp::Other(">"),
        _ => BinOp::Other("?"),
    }
}

/// The operator of a compound assignment (`+=` gives `+`).
pub(super) fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    crate::desugar::is_compound_assign(op).then(|| bin_op(op))
}
