//! `nalgebra`'s fixed-size matrices, vectors and points (`Vector3<f64>`,
//! `Matrix2x3<T>`, `SVector<f64, 4>`, `Point3<f32>`) as the arrays of
//! their entries, column by column (nalgebra's own order: `m[k]` is the
//! same entry in both), before lowering. The macro models arrays; so a
//! function that computes with such values is rewritten into one that
//! computes with their entries (`entries.rs`): `a - b` into `[a[0] -
//! b[0], ..]`, `a.dot(&b)` into `a[0] * b[0] + ..`, `m * v` into its sums,
//! `v.x` into `v[0]`, `m[(i, j)]` into `m[i + j * rows]`.
//!
//! A function whose signature has none (`fn fk(q1: f64, q2: f64) -> f64 {
//! let p = Vector2::new(..); .. }`) is differentiated as rewritten, under
//! its own name. One whose parameters or output are nalgebra values
//! becomes a twin with arrays in their place (`__autodiff_na_<name>`),
//! differentiated as usual; its generated functions are then wrapped
//! under the function's own names, converting at the boundary
//! (`emit/nalgebra.rs`), so that `f_grad` takes a `Vector3<f64>` and
//! returns its gradient as one.
//!
//! The types are recognised by name, with their type arguments: a type of
//! the user's own called `Vector3` without a float type argument is not
//! taken for nalgebra's.

mod entries;
mod scalar;
mod syntax;
mod values;

use quote::format_ident;
use syn::visit::Visit;

pub use entries::Rewriter;

/// A nalgebra type as written: its shape, and its entry type where the
/// type names it (`Vector3<f64>`; not `Vector3::new`'s path).
#[derive(Clone, Debug, PartialEq)]
pub struct NaTy {
    pub rows: usize,
    pub cols: usize,
    /// A point (`Point3`): built back `From` an array, not from a column
    /// slice.
    pub point: bool,
    pub elem: Option<syn::Type>,
    /// One value, or a parameter's list of them.
    pub held: Held,
}

/// How a parameter holds nalgebra values: one, or a list of them (a
/// point cloud), lent (`&[Vector3<f64>]`, `&Vec<..>`) or owned (`Vec<..>`).
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    One,
    Slice,
    Vec,
    /// `[Point3<f64>; 4]`, or lent, `&[..; 4]`: the length as written.
    Array {
        len: syn::Expr,
        lent: bool,
    },
}

impl NaTy {
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// `[elem; len]`, where the entry type is known.
    pub fn array(&self) -> Option<syn::Type> {
        let (elem, n) = (self.elem.as_ref()?, self.len());
        Some(syn::parse_quote!([#elem; #n]))
    }

    /// The twin's parameter type: the array, or a list of arrays.
    fn param_ty(&self) -> Option<syn::Type> {
        let array = self.array()?;
        Some(match &self.held {
            Held::One => array,
            Held::Slice => syn::parse_quote!(&[#array]),
            Held::Vec => syn::parse_quote!(::std::vec::Vec<#array>),
            Held::Array { len, lent: false } => syn::parse_quote!([#array; #len]),
            Held::Array { len, lent: true } => syn::parse_quote!(&[#array; #len]),
        })
    }
}

/// The shape of a nalgebra type name: `Vector3` (3 × 1), `RowVector2`,
/// `Point3`, `Matrix3` (3 × 3), `Matrix2x3`; `None` for `SVector` and
/// `SMatrix`, whose shape is in their arguments.
fn by_name(name: &str) -> Option<(usize, usize, bool)> {
    let n = |s: &str| s.parse::<usize>().ok().filter(|n| (1..=6).contains(n));
    if let Some(c) = name.strip_prefix("RowVector") {
        return n(c).map(|c| (1, c, false));
    }
    if let Some(r) = name.strip_prefix("Vector") {
        return n(r).map(|r| (r, 1, false));
    }
    if let Some(r) = name.strip_prefix("Point") {
        return n(r).map(|r| (r, 1, true));
    }
    let r = name.strip_prefix("Matrix")?;
    match r.split_once('x') {
        Some((a, b)) => Some((n(a)?, n(b)?, false)),
        None => n(r).map(|r| (r, r, false)),
    }
}

/// The nalgebra type `seg` names with its arguments: `Vector3<f64>`,
/// `SVector<T, 4>`, `SMatrix<f64, 2, 3>`; with `args_needed` false also
/// `Vector3` (a constructor's path, `Vector3::new`).
fn from_segment(seg: &syn::PathSegment, args_needed: bool) -> Option<NaTy> {
    let name = seg.ident.to_string();
    let args: Vec<&syn::GenericArgument> = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::Parenthesized(_) => return None,
    };
    let elem = match args.first() {
        Some(syn::GenericArgument::Type(t)) if float_like(t) => Some(t.clone()),
        Some(_) => return None,
        None if args_needed => return None,
        None => None,
    };
    let int = |k: usize| match args.get(k) {
        Some(syn::GenericArgument::Const(syn::Expr::Lit(l))) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<usize>().ok().filter(|n| *n > 0),
            _ => None,
        },
        // `SVector<f64, 3>`: syn reads the `3` as a type path only when it
        // is an identifier; a literal is a const argument.
        _ => None,
    };
    let (rows, cols, point) = match name.as_str() {
        "SVector" => (int(1)?, 1, false),
        "SMatrix" => (int(1)?, int(2)?, false),
        _ => {
            let shape = by_name(&name)?;
            if args.len() > 1 {
                return None;
            }
            shape
        }
    };
    Some(NaTy {
        rows,
        cols,
        point,
        elem,
        held: Held::One,
    })
}

/// A float type or a type parameter (`f64`, `f32`, `T`).
fn float_like(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
}

/// The nalgebra type `ty` is, or refers to (`&Vector3<f64>`).
pub fn na_type(ty: &syn::Type) -> Option<NaTy> {
    match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => na_type(&r.elem),
        syn::Type::Paren(p) => na_type(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => from_segment(p.path.segments.last()?, true),
        _ => None,
    }
}

/// The nalgebra type of a parameter: one value (`Vector3<f64>`,
/// `&Vector3<f64>`) or a list of them (`&[Vector3<f64>]`,
/// `&Vec<Vector3<f64>>`, `Vec<Vector3<f64>>`).
pub fn na_param(ty: &syn::Type) -> Option<NaTy> {
    let listed = |t: &syn::Type| -> Option<syn::Type> {
        let syn::Type::Path(p) = t else { return None };
        let last = p.path.segments.last()?;
        match (&last.arguments, last.ident == "Vec") {
            (syn::PathArguments::AngleBracketed(a), true) if a.args.len() == 1 => {
                match &a.args[0] {
                    syn::GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    };
    let (elem, held) = match ty {
        syn::Type::Array(a) => {
            let held = Held::Array {
                len: a.len.clone(),
                lent: false,
            };
            ((*a.elem).clone(), held)
        }
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(s) => ((*s.elem).clone(), Held::Slice),
            syn::Type::Array(a) => {
                let held = Held::Array {
                    len: a.len.clone(),
                    lent: true,
                };
                ((*a.elem).clone(), held)
            }
            other => match listed(other) {
                Some(t) => (t, Held::Slice),
                None => return na_type(ty),
            },
        },
        other => match listed(other) {
            Some(t) => (t, Held::Vec),
            None => return na_type(ty),
        },
    };
    let one = na_type(&elem)?;
    Some(NaTy { held, ..one })
}

/// The nalgebra type a constructor's path names: `Vector3` of
/// `Vector3::new`, `na::Matrix2::<f64>` of `na::Matrix2::<f64>::identity`.
pub fn constructor(path: &syn::Path) -> Option<(NaTy, &syn::Ident)> {
    let n = path.segments.len();
    if n < 2 {
        return None;
    }
    let ty = from_segment(&path.segments[n - 2], false)?;
    Some((ty, &path.segments[n - 1].ident))
}

/// Whether `name` is a method of nalgebra's values that the rewrite
/// takes (for the hint where a value was not known for one).
pub fn method_name(name: &str) -> bool {
    entries::METHODS.contains(&name)
}

/// What the rewrite made of a function.
pub struct Plan {
    /// The function with its nalgebra values as arrays: under its own
    /// name where its signature has none, else `__autodiff_na_<name>`.
    pub twin: syn::ItemFn,
    /// Per parameter, its nalgebra type (`None`: as written).
    pub params: Vec<Option<NaTy>>,
    /// The output's nalgebra type.
    pub output: Option<NaTy>,
}

impl Plan {
    /// Whether the signature has nalgebra values, so that the generated
    /// functions are wrapped.
    pub fn in_signature(&self) -> bool {
        self.output.is_some() || self.params.iter().any(Option::is_some)
    }
}

/// `item` with its nalgebra values as arrays, if it has any; the errors
/// at each construct the rewrite does not take.
pub fn plan(item: &syn::ItemFn) -> syn::Result<Option<Plan>> {
    if !mentions_nalgebra(item) {
        return match bare_constructor(item) {
            Some(c) => {
                let ty = c.path.segments[c.path.segments.len() - 2].ident.to_string();
                Err(syn::Error::new_spanned(c, format!("#[grad] cannot tell whether `{ty}` here is nalgebra's or a type of your own: if nalgebra's, name its float type once, `{ty}::<f64>::new(..)` or `let p: {ty}<f64> = ..`, or its crate, `nalgebra::{ty}::new(..)`, and #[grad] computes with its entries; if your own, build it with a struct literal")))
            }
            None => Ok(None),
        };
    }
    let mut errors: Option<syn::Error> = None;
    let mut refuse = |at: &dyn quote::ToTokens, msg: &str| {
        crate::diag::combine(&mut errors, syn::Error::new_spanned(at, msg));
    };
    let mut twin = item.clone();
    let mut params = Vec::new();
    let mut env = Vec::new();
    let mut rebound: Vec<syn::Stmt> = Vec::new();
    for arg in twin.sig.inputs.iter_mut() {
        let syn::FnArg::Typed(p) = arg else {
            params.push(None);
            continue;
        };
        if let syn::Type::Reference(r) = &*p.ty {
            if r.mutability.is_some() && na_type(&r.elem).is_some() {
                refuse(&p.ty, "#[grad] takes nalgebra values by value or by `&`, not by `&mut`: return the new value instead");
            }
        }
        let ty = na_param(&p.ty);
        if let Some(t) = &ty {
            match (&mut *p.pat, t.param_ty()) {
                (syn::Pat::Ident(i), Some(array)) => {
                    env.push((i.ident.to_string(), t.clone()));
                    *p.ty = array;
                    // `mut v: Vector3<f64>`: a local copy the body changes
                    // (an array parameter is not reassigned whole).
                    if t.held == Held::One && i.mutability.take().is_some() {
                        let name = &i.ident;
                        rebound.push(syn::parse_quote!(let mut #name = #name;));
                    }
                }
                _ => refuse(
                    &p.pat,
                    "#[grad] takes a nalgebra parameter bound to a name (`v: Vector3<f64>`)",
                ),
            }
        }
        params.push(ty);
    }
    let output = match &item.sig.output {
        syn::ReturnType::Type(_, t) => na_type(t),
        syn::ReturnType::Default => None,
    };
    if let (Some(t), syn::ReturnType::Type(_, ty)) = (&output, &mut twin.sig.output) {
        if let Some(array) = t.array() {
            **ty = array;
        }
    }
    let in_signature = output.is_some() || params.iter().any(Option::is_some);
    if in_signature {
        if let Some(r) = item.sig.receiver() {
            refuse(r, "#[grad] on a method with nalgebra values in its signature is not supported yet: make it a free function that takes what it reads of `self`");
        }
        twin.sig.ident = format_ident!("__autodiff_na_{}", item.sig.ident);
    }
    without_nalgebra_bounds(&mut twin.sig.generics);
    let mut rewriter = Rewriter::new(item, env, output.clone());
    rewriter.body(&mut twin.block);
    syntax::without_outer_parens(&mut twin.block);
    twin.block.stmts.splice(0..0, rebound);
    if let Some(e) = rewriter.errors.take() {
        crate::diag::combine(&mut errors, e);
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(Some(Plan {
            twin,
            params,
            output,
        })),
    }
}

/// nalgebra's numeric traits, which the twin's arrays need none of.
const BOUNDS: [&str; 8] = [
    "RealField",
    "ComplexField",
    "Scalar",
    "SimdRealField",
    "SimdComplexField",
    "ClosedAddAssign",
    "ClosedMulAssign",
    "ClosedSubAssign",
];

/// `generics` without bounds on nalgebra's numeric traits (`T: Float +
/// RealField`, which nalgebra's `norm` needs in the function as written):
/// the twin computes with arrays, and its gradient runs at dual numbers,
/// which are no `RealField`.
fn without_nalgebra_bounds(generics: &mut syn::Generics) {
    let keep = |b: &syn::TypeParamBound| {
        !matches!(b, syn::TypeParamBound::Trait(t)
            if t.path.segments.last().is_some_and(|s| BOUNDS.iter().any(|n| s.ident == n)))
    };
    for p in generics.type_params_mut() {
        p.bounds = p.bounds.iter().filter(|b| keep(b)).cloned().collect();
    }
    if let Some(w) = &mut generics.where_clause {
        for pred in w.predicates.iter_mut() {
            if let syn::WherePredicate::Type(t) = pred {
                t.bounds = t.bounds.iter().filter(|b| keep(b)).cloned().collect();
            }
        }
        let preds = std::mem::take(&mut w.predicates);
        w.predicates = preds
            .into_iter()
            .filter(|p| !matches!(p, syn::WherePredicate::Type(t) if t.bounds.is_empty()))
            .collect();
    }
}

/// A call like nalgebra's constructors, `Vector2::new(q.cos(), q.sin())`,
/// in a function that does not show it uses nalgebra, with an argument
/// that is not a literal (one that may carry a derivative): the rewrite
/// must not take it for nalgebra's, and the rest of the macro would take
/// it for a call of a function of the user's, failing in rustc with
/// nalgebra's types in the message.
fn bare_constructor(item: &syn::ItemFn) -> Option<syn::ExprPath> {
    struct Finder(Option<syn::ExprPath>);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let n = p.path.segments.len();
                let named = n == 2
                    && p.qself.is_none()
                    && p.path.segments[0].arguments.is_none()
                    && constructor(&p.path).is_some();
                let literal = |a: &syn::Expr| match a {
                    syn::Expr::Lit(_) => true,
                    syn::Expr::Unary(u) => matches!(&*u.expr, syn::Expr::Lit(_)),
                    _ => false,
                };
                if named && !c.args.iter().all(literal) && self.0.is_none() {
                    self.0 = Some(p.clone());
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Finder(None);
    f.visit_block(&item.block);
    f.0
}

/// Whether `item` shows that it uses nalgebra: a nalgebra type with its
/// float type argument (`Vector3<f64>`, in its signature or its body), a
/// constructor with one (`Vector3::<f64>::new`), or a constructor by its
/// crate's path (`nalgebra::Vector3::new`, `na::Vector3::new`). A
/// constructor alone (`Vector3::new`) might be of a type of the user's
/// own, which this rewrite must not take for nalgebra's.
fn mentions_nalgebra(item: &syn::ItemFn) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_type(&mut self, t: &'a syn::Type) {
            self.0 |= na_type(t).is_some();
            syn::visit::visit_type(self, t);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            let segs = &p.path.segments;
            let by_crate =
                segs.len() >= 3 && (segs[0].ident == "nalgebra" || segs[0].ident == "na");
            let typed = segs.len() >= 2 && from_segment(&segs[segs.len() - 2], true).is_some();
            self.0 |= p.qself.is_none() && constructor(&p.path).is_some() && (by_crate || typed);
            syn::visit::visit_expr_path(self, p);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Finder(false);
    f.visit_item_fn(item);
    f.0
}

#[cfg(test)]
mod tests;
