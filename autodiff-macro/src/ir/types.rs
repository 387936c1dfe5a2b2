//! What the macro knows of a value's type (`Ty`): floats, arrays and
//! their shapes, composites and how they are held, and the steps of a
//! projection into them.

use super::*;

/// What the macro knows of a value's type, from annotations, parameters,
/// literals and the operations that produce it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A concrete float type.
    Float(FloatTy),
    /// A float literal or constant whose width comes from the context.
    FloatLit,
    /// Any integer type.
    Int,
    /// `bool`.
    Bool,
    /// Anything else, or not known.
    Unknown,
    /// An array of floats the macro models: element by element, with an
    /// adjoint array of the same shape.
    Array(ArrayTy),
    /// A parameter of a `Differentiable` type that is read by projection
    /// (`p.w`, `p.layers[k].b[i]`, `points[i][0]`): a struct, a nested
    /// array. Its gradient is a value of its own type.
    Composite(Box<Composite>),
}

/// A parameter read by projection, and its gradient's type.
#[derive(Clone, Debug, PartialEq)]
pub struct Composite {
    /// The gradient's type: the parameter's own without the reference
    /// (`Params` for `&Params`, `Self` for `&self`, `Vec<[f64; 3]>` for
    /// `&[[f64; 3]]`).
    pub grad_ty: syn::Type,
    /// How the parameter holds the value.
    pub holder: Holder,
}

/// How a parameter holds a composite value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// By value: `p: Params`, `self`.
    Value,
    /// By reference: `p: &Params`, `&self`.
    Ref,
    /// A slice, `&[T]`: its gradient is a `Vec<T>`.
    Slice,
}

/// One step of a projection: a field, or an index.
#[derive(Clone, Debug)]
pub enum Step {
    Field(syn::Member),
    Index(Operand),
    /// `[a..b]`, `[a..]`, `[..b]`, `[a..=b]`: a sub-slice, given to a
    /// kernel (`dot(w, &xs[i * d..(i + 1) * d])`), its adjoint the same
    /// sub-slice of the base's.
    Range {
        start: Option<Operand>,
        end: Option<Operand>,
        inclusive: bool,
    },
}

impl Step {
    /// The values the step reads: an index, a range's bounds.
    pub fn values(&self) -> Vec<ValueId> {
        match self {
            Step::Field(_) => Vec::new(),
            Step::Index(o) => o.value().into_iter().collect(),
            Step::Range { start, end, .. } => start
                .iter()
                .chain(end.iter())
                .filter_map(Operand::value)
                .collect(),
        }
    }
}

/// The type of a modelled array.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayTy {
    pub elem: FloatTy,
    pub shape: Shape,
}

/// How a modelled array is laid out, and the type of its gradient.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `&[T]`, `&Vec<T>`, or a local `Vec<T>`: gradient `Vec<T>`.
    Vec,
    /// `[T; N]` or `&[T; N]`: gradient `[T; N]`, with `N` as written.
    Fixed(String),
    /// `&[Vec<T>]` or `&Vec<Vec<T>>`: indexed twice, gradient `Vec<Vec<T>>`.
    Nested,
}

/// The float types a value can be differentiated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatTy {
    F32,
    F64,
    /// The function's type parameter bounded by `autodiff::Float`, named
    /// by [`Function::generic`].
    Generic,
    /// An array element type the source does not state (`vec![0.0; n]`,
    /// `[0.0; 3]` with no annotation): rustc infers it, from the fill value
    /// and the array's uses, as it does in the function itself. The
    /// generated code never names it (`_` where a type is written), and
    /// an element read from such an array is a [`Ty::FloatLit`].
    Inferred,
}

impl Ty {
    /// Whether the value is certainly a float.
    pub fn is_float(&self) -> bool {
        matches!(self, Ty::Float(_) | Ty::FloatLit)
    }

    pub fn float(&self) -> Option<FloatTy> {
        match self {
            Ty::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn composite(&self) -> Option<&Composite> {
        match self {
            Ty::Composite(c) => Some(c),
            _ => None,
        }
    }

    /// A composite that is a sequence of values (`&[[f64; 2]]`, `&[P]`,
    /// `Vec<P>`, `[P; 3]`): its methods are `std`'s slice methods, never
    /// the user's.
    pub fn is_sequence(&self) -> bool {
        self.composite().is_some_and(|c| {
            c.holder == Holder::Slice
                || match &c.grad_ty {
                    syn::Type::Array(_) | syn::Type::Slice(_) => true,
                    syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
                    _ => false,
                }
        })
    }

    pub fn array(&self) -> Option<&ArrayTy> {
        match self {
            Ty::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl ArrayTy {
    /// The type of one element: a float of the element type, or, where the
    /// source does not state it, a float whose width rustc decides.
    pub fn elem_ty(&self) -> Ty {
        match self.elem {
            FloatTy::Inferred => Ty::FloatLit,
            e => Ty::Float(e),
        }
    }
}

/// The primitive integer types' names.
pub const INT_TYPES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// A primitive integer type, named as one (`usize`, `i32`; not an alias).
pub fn is_int_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && INT_TYPES.iter().any(|i| p.path.is_ident(i)))
}

/// `X` of a type written `Vec<X>` (by its last segment, `std::vec::Vec<X>`
/// too); `None` for any other type.
pub fn vec_elem(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}
