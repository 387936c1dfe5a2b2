//! The signature: which parameters are active and in what shape, the
//! output's kind, and the parameter types refused.

use super::*;

/// `async`, `const`, `unsafe`, `extern`, variadics, generics and receivers.
pub(super) fn check_signature(cx: &mut Lowerer, sig: &syn::Signature) {
    if let Some(t) = &sig.constness {
        error(cx, t, "#[grad] does not support `const fn`: remove `const` (the generated gradient is an ordinary function)");
    }
    if let Some(t) = &sig.asyncness {
        error(cx, t, "#[grad] does not support `async fn`: differentiate a synchronous function and call it from async code");
    }
    if let Some(t) = &sig.unsafety {
        error(
            cx,
            t,
            "#[grad] does not support `unsafe fn`: differentiate a safe function",
        );
    }
    if let Some(abi) = &sig.abi {
        error(cx, abi, "#[grad] does not support `extern` functions: differentiate a plain Rust function and wrap it");
    }
    if let Some(v) = &sig.variadic {
        error(
            cx,
            v,
            "#[grad] does not support variadic functions: take the values as separate parameters",
        );
    }
    // One type parameter, the float type (`T: autodiff::Float`); lifetimes
    // and const parameters (`const N: usize`, array lengths) are fine.
    let types: Vec<&syn::TypeParam> = sig.generics.type_params().collect();
    if types.len() > 1 {
        error(cx, &sig.generics, "#[grad] supports one type parameter, the float type (as in `fn f<T: autodiff::Float>(x: T) -> T`), and const parameters: make the others concrete");
    }
}

/// What the source says of types: `f64`, `f32`, and the function's
/// generic float type parameter (by name), in parameters, annotations and
/// casts.
#[derive(Clone, Default)]
pub(super) struct Types {
    /// The float type parameter of a generic function.
    pub(super) generic: Option<String>,
}

impl Types {
    pub(super) fn float_ty(&self, ty: &syn::Type) -> Option<FloatTy> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last()?;
                if !last.arguments.is_none() {
                    return None;
                }
                let prefix_ok = p.path.segments.len() == 1
                    || p.path.segments.iter().rev().skip(1).all(|s| {
                        matches!(s.ident.to_string().as_str(), "core" | "std" | "primitive")
                    });
                match (last.ident.to_string().as_str(), self.generic.as_deref()) {
                    ("f64", _) if prefix_ok => Some(FloatTy::F64),
                    ("f32", _) if prefix_ok => Some(FloatTy::F32),
                    (name, Some(g)) if p.path.segments.len() == 1 && name == g => {
                        Some(FloatTy::Generic)
                    }
                    _ => None,
                }
            }
            syn::Type::Paren(p) => self.float_ty(&p.elem),
            syn::Type::Group(g) => self.float_ty(&g.elem),
            _ => None,
        }
    }

    /// The IR type of a written type.
    pub(super) fn ty_of(&self, ty: &syn::Type) -> Ty {
        if let Some(f) = self.float_ty(ty) {
            return Ty::Float(f);
        }
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                match p.path.get_ident().map(|i| i.to_string()) {
                    Some(name) if INT_TYPES.contains(&name.as_str()) => Ty::Int,
                    Some(name) if name == "bool" => Ty::Bool,
                    _ => Ty::Unknown,
                }
            }
            syn::Type::Paren(p) => self.ty_of(&p.elem),
            syn::Type::Group(g) => self.ty_of(&g.elem),
            _ => Ty::Unknown,
        }
    }

    /// Why a parameter of this type is refused, if it is: every type that is
    /// not a float is accepted as an inactive constant, except those that would
    /// hide a float the user expects a gradient for, or that cannot be read as a
    /// constant.
    /// `left_out`: the parameter is not in the function's `wrt(..)`.
    pub(super) fn refused_param(&self, ty: &syn::Type, left_out: bool) -> Option<String> {
        use syn::Type as T;
        let shown = crate::diag::show(&ty.to_token_stream());
        if let T::Reference(r) = ty {
            if r.mutability.is_some() && self.array_ty(&r.elem).is_some() && left_out {
                return Some(format!(
                    "#[grad] does not take a `&mut` float array (`{shown}`) that `wrt` leaves out, such as a scratch buffer: what the function writes into it and reads back carries derivatives, through memory the caller owns; allocate the buffer inside the function (`let mut scratch = vec![0.0; n];`), which #[grad] follows as a local array"
                ));
            }
            if r.mutability.is_some() && self.array_ty(&r.elem).is_some() {
                return Some(format!(
                    "#[grad] differentiates a `&mut` float array parameter (`{shown}`) only in a function that returns nothing, changes that one array and runs to its end (no `return`), whose `_vjp` gives the array's new contents; here take `&[f64]` and return what the function computes"
                ));
            }
        }
        let elem = match ty {
            T::Reference(r) => &*r.elem,
            other => other,
        };
        match elem {
            _ if matches!(ty, T::Reference(_)) && self.float_ty(elem).is_some() => Some(format!(
                "#[grad] does not support float references (`{shown}`): take the float by value"
            )),
            T::Ptr(_) => Some(format!(
                "#[grad] does not support raw pointer parameters (`{shown}`): pass the value it points to"
            )),
            T::TraitObject(_) | T::ImplTrait(_) => Some(format!(
                "#[grad] does not support trait object or `impl Trait` parameters (`{shown}`): pass a concrete type"
            )),
            _ => None,
        }
    }

    /// Whether a type holds floats through slices, arrays, `Vec`s, tuples and
    /// references (`&[[f64; 3]]`, `Vec<(f64, f64)>`): a parameter of such a
    /// type that #[grad] does not model would otherwise be a silent constant.
    pub(super) fn holds_floats(&self, ty: &syn::Type) -> bool {
        use syn::Type as T;
        match ty {
            T::Reference(r) => self.holds_floats(&r.elem),
            T::Slice(s) => self.holds_floats(&s.elem),
            T::Array(a) => self.holds_floats(&a.elem),
            T::Tuple(t) => t.elems.iter().any(|t| self.holds_floats(t)),
            T::Paren(p) => self.holds_floats(&p.elem),
            T::Group(g) => self.holds_floats(&g.elem),
            T::Path(p) if p.qself.is_none() => {
                if self.float_ty(ty).is_some() {
                    return true;
                }
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                        args.args.iter().any(
                            |a| matches!(a, syn::GenericArgument::Type(t) if self.holds_floats(t)),
                        )
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The float arrays a parameter or local may be: `&[T]`, `&Vec<T>`,
    /// `Vec<T>`, `[T; N]`, `&[T; N]`, `&[Vec<T>]`, `&Vec<Vec<T>>`.
    pub(super) fn array_ty(&self, ty: &syn::Type) -> Option<ArrayTy> {
        use syn::Type as T;
        let inner = match ty {
            T::Reference(r) => &*r.elem,
            other => other,
        };
        // `[T]` and `Vec<T>` hold floats or rows of floats.
        let of_elements =
            |e: &syn::Type| match (self.float_ty(e), vec_elem(e).and_then(|t| self.float_ty(t))) {
                (Some(elem), _) => Some(ArrayTy {
                    elem,
                    shape: Shape::Vec,
                }),
                (None, Some(elem)) => Some(ArrayTy {
                    elem,
                    shape: Shape::Nested,
                }),
                _ => None,
            };
        match inner {
            T::Slice(s) => of_elements(&s.elem),
            T::Array(a) => self.float_ty(&a.elem).map(|elem| ArrayTy {
                elem,
                shape: Shape::Fixed(a.len.to_token_stream().to_string()),
            }),
            other => of_elements(vec_elem(other)?),
        }
    }
}

/// Whether a type named `name` is one the macro knows to hold no float:
/// an integer, `bool`, `char`, `str`, `String`, `Self`.
pub fn is_known_constant_type(name: &str) -> bool {
    INT_TYPES.contains(&name) || matches!(name, "bool" | "char" | "str" | "String" | "Self")
}

/// What a function's output is, from its return type.
#[derive(Clone)]
pub(super) enum OutputKind {
    Scalar,
    Tuple(usize),
    Array(ArrayTy),
    /// A struct, `-> State` or `-> Self`; with what to say if the body does
    /// not end with one (a name like `T` may be a float type parameter of
    /// the `impl`).
    Struct(Box<syn::Type>, String),
}

pub(super) fn return_type(cx: &mut Lowerer, sig: &syn::Signature) -> Option<(FloatTy, OutputKind)> {
    let what = "#[grad] needs a function that returns floats: one `f64` or `f32`, a tuple of them, `[f64; M]` or `Vec<f64>`";
    match &sig.output {
        syn::ReturnType::Default => {
            let writes = cx.writes_through_mut
                || sig.inputs.iter().any(|a| {
                    matches!(a, syn::FnArg::Typed(t)
                    if matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()))
                });
            // A `&mut` array parameter has its own error (`refused_param`).
            let mut_array = sig.inputs.iter().any(|a| {
                matches!(a, syn::FnArg::Typed(t)
                    if matches!(&*t.ty, syn::Type::Reference(r)
                        if r.mutability.is_some() && cx.types.array_ty(&r.elem).is_some()))
            });
            if mut_array {
                return None;
            }
            let instead = match writes {
                // `fn update(x: &mut f64, y: f64)`.
                true => format!("{what}: `{}` returns nothing and writes through `&mut` floats of different types, or a float and an array, which #[grad] does not differentiate: give the floats one type (a writer of floats of one type, or of one float array, is differentiated), or take the values by value and return the new ones, as in `fn {}(x: f64, v: f64, ..) -> (f64, f64)`", sig.ident, sig.ident),
                false => format!("{what}: add a return type to `{}`", sig.ident),
            };
            error(cx, sig, instead);
            None
        }
        syn::ReturnType::Type(_, ty) => {
            if let Some(f) = cx.types.float_ty(ty) {
                return Some((f, OutputKind::Scalar));
            }
            if let syn::Type::Tuple(t) = &**ty {
                let elems: Option<Vec<FloatTy>> =
                    t.elems.iter().map(|t| cx.types.float_ty(t)).collect();
                if let Some(elems) = elems.filter(|e| e.len() > 1 && e.iter().all(|x| *x == e[0])) {
                    return Some((elems[0], OutputKind::Tuple(elems.len())));
                }
            }
            if let (Some(a), false) = (
                cx.types.array_ty(ty),
                matches!(**ty, syn::Type::Reference(_)),
            ) {
                if a.shape != Shape::Nested {
                    return Some((a.elem, OutputKind::Array(a)));
                }
            }
            // `-> T` in an `impl<T: Float>`: the macro sees only the
            // method's own generics.
            let hint = match &**ty {
                syn::Type::Path(p)
                    if p.qself.is_none()
                        && sig.receiver().is_some()
                        && p.path.get_ident().is_some_and(|i| {
                            !is_known_constant_type(&i.to_string())
                                && i.to_string().chars().all(|c| c.is_ascii_uppercase())
                        })
                        && cx.types.generic.is_none() =>
                {
                    let t = crate::diag::show(&p.to_token_stream());
                    format!("; if `{t}` is a float type parameter of the `impl`, restate its bound on the function, `where {t}: autodiff::Float`")
                }
                _ => String::new(),
            };
            // `-> State`, `-> Self`: a struct, which the body must build.
            if let syn::Type::Path(p) = &**ty {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                // `-> Vec<[f64; 2]>`: a `Vec` of something else than
                // floats, no struct (said below).
                let constant = last
                    .as_deref()
                    .is_some_and(|l| l != "Self" && is_known_constant_type(l) || l == "Vec");
                if p.qself.is_none() && !constant {
                    return Some((FloatTy::F64, OutputKind::Struct(ty.clone(), hint)));
                }
            }
            // `-> [[f64; 2]; 2]`, `-> Vec<Vec<f64>>`: a matrix.
            let nested = cx
                .types
                .array_ty(ty)
                .is_some_and(|a| a.shape == Shape::Nested)
                || matches!(&**ty, syn::Type::Array(a) if matches!(&*a.elem, syn::Type::Array(_)))
                // `-> Vec<[f64; 2]>`, `-> Vec<Vec<f64>>`.
                || matches!(&**ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| {
                    s.ident == "Vec" && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                        if matches!(a.args.first(), Some(syn::GenericArgument::Type(t))
                            if matches!(t, syn::Type::Array(_))
                                || matches!(t, syn::Type::Path(q) if q.path.segments.last().is_some_and(|q| q.ident == "Vec"))))
                }));
            if nested {
                error(cx, ty, format!("{what}; not nested arrays yet (a matrix): return its entries flat, row after row, as in `-> [f64; 4]` for a 2 × 2 matrix, read `m[i * 2 + j]`"));
                return None;
            }
            error(cx, ty, format!("{what}, all of one float type{hint}"));
            None
        }
    }
}

impl Lowerer {
    pub(super) fn params(&mut self, sig: &syn::Signature, options: &Options) -> Vec<Param> {
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        let lent_struct = self.lent_struct.filter(|_| options.wrt.is_none());
        // A struct writer whose `wrt` leaves out the struct it changes:
        // the struct's new value depends on its old one, which its callers
        // differentiate.
        if let (Some(k), Some(wrt)) = (self.lent_struct, &options.wrt) {
            let lent = match sig.inputs.iter().nth(k) {
                Some(syn::FnArg::Receiver(r)) => Some(syn::Ident::new("self", r.self_token.span)),
                Some(syn::FnArg::Typed(t)) => match &*t.pat {
                    syn::Pat::Ident(p) => Some(p.ident.clone()),
                    _ => None,
                },
                None => None,
            };
            if let (Some(lent), Some(first)) = (lent, wrt.first()) {
                if !wrt.contains(&lent) {
                    let names: Vec<String> = std::iter::once(lent.to_string())
                        .chain(wrt.iter().map(|w| w.to_string()))
                        .collect();
                    error(self, first, format!(
                        "#[grad] differentiates a struct writer with respect to the struct it changes, `{lent}`, whose new value depends on its old one: name it in `wrt` too, as in `wrt({})`",
                        names.join(", ")
                    ));
                }
            }
        }
        let named = |ident: &syn::Ident| options.wrt.as_ref().is_some_and(|w| w.contains(ident));
        for (index, input) in sig.inputs.iter().enumerate() {
            let named = |ident: &syn::Ident| named(ident) || lent_struct == Some(index);
            let typed = match input {
                syn::FnArg::Receiver(r) => {
                    let ident = syn::Ident::new("self", r.self_token.span);
                    // `self` is a constant, its fields read as written,
                    // unless `wrt(self)` asks for its gradient.
                    let (ty, kind) = if named(&ident) {
                        if r.mutability.is_some() && r.reference.is_some() {
                            error(self, r, "#[grad] cannot take the gradient with respect to `&mut self` yet: take `&self` and return the new value, as in `fn step(&self, dt: f64) -> Self`, which a caller's `s = s.step(dt);` differentiates");
                        }
                        let holder = match r.reference {
                            Some(_) => Holder::Ref,
                            None => Holder::Value,
                        };
                        let composite = Composite {
                            grad_ty: syn::parse_quote!(Self),
                            holder,
                        };
                        (Ty::Composite(Box::new(composite)), ValueKind::Param(index))
                    } else {
                        (Ty::Unknown, ValueKind::Opaque)
                    };
                    let active = kind != ValueKind::Opaque;
                    let value =
                        self.new_value(Some("self".to_string()), ty, kind, r.self_token.span);
                    self.bind("self".to_string(), Binding::Value(value));
                    params.push(Param {
                        ident,
                        ty: (*r.ty).clone(),
                        value,
                        active,
                    });
                    continue;
                }
                syn::FnArg::Typed(t) => t,
            };
            let ident = match &*typed.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                other => {
                    error(self, other, "#[grad] takes each parameter as a plain name, as in `p: P`, or a tuple pattern, `(a, b): (f64, f64)`: name this one and read its parts in the body (`p.x`)");
                    continue;
                }
            };
            let mut ty = match self.types.array_ty(&typed.ty) {
                Some(a) => Ty::Array(a),
                None => self.types.ty_of(&typed.ty),
            };
            let left_out = options.wrt.is_some() && !named(&ident);
            if let Some(msg) = self.types.refused_param(&typed.ty, left_out) {
                error(self, &typed.ty, msg);
            }
            // A struct named in `wrt`, or floats in a shape read by
            // projection (`&[[f64; 3]]`): a composite, its gradient of its
            // own type.
            let by_default = options.wrt.is_none() && self.types.holds_floats(&typed.ty);
            if ty == Ty::Unknown && (named(&ident) || by_default) {
                match composite(&typed.ty) {
                    Ok(c) => ty = Ty::Composite(Box::new(c)),
                    Err(msg) => error(self, &typed.ty, msg),
                }
            }
            // Parameters of other types are constants the body may read,
            // change or pass on as written, like its own opaque variables.
            let kind = match ty {
                Ty::Unknown => ValueKind::Opaque,
                _ => ValueKind::Param(index),
            };
            let value = self.new_value(Some(ident.to_string()), ty.clone(), kind, ident.span());
            if ty == Ty::Unknown && is_sequence(&typed.ty) {
                self.slices.insert(value);
                if of_float_arrays(&typed.ty) {
                    self.float_rows.insert(value);
                }
            }
            if self.through_trait(sig, &typed.ty) {
                self.through_traits.insert(value);
            }
            self.bind(ident.to_string(), Binding::Value(value));
            params.push(Param {
                ident,
                ty: (*typed.ty).clone(),
                value,
                active: ty.is_float() || ty.array().is_some() || ty.composite().is_some(),
            });
        }
        if let Some(wrt) = &options.wrt {
            for p in &mut params {
                p.active = p.active && wrt.contains(&p.ident);
            }
            for w in wrt {
                match params.iter().find(|p| p.ident == *w) {
                    None => error(self, w, format!(
                        "`wrt` names `{w}`, which is not a parameter of `{}`; name float parameters of the function",
                        sig.ident
                    )),
                    Some(p) if !p.active => error(self, w, format!(
                        "`wrt` names `{w}`, which is not a float parameter: an integer, a `bool` or a string has no gradient; name float, array and `Differentiable` struct parameters"
                    )),
                    Some(_) => {}
                }
            }
        }
        params
    }
}

/// The composite a parameter of type `ty` holds: its gradient's type and
/// how it is held; or why it cannot be one.
fn composite(ty: &syn::Type) -> Result<Composite, String> {
    match ty {
        syn::Type::Reference(r) if r.mutability.is_some() => Err(format!(
            "#[grad] cannot take the gradient with respect to a `&mut` parameter (`{}`): take it by reference, `&T`, and return what the function computes",
            crate::diag::show(&ty.to_token_stream())
        )),
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) => {
                let elem = &s.elem;
                Ok(Composite {
                    grad_ty: syn::parse_quote!(::std::vec::Vec<#elem>),
                    holder: Holder::Slice,
                })
            }
            other => Ok(Composite {
                grad_ty: other.clone(),
                holder: Holder::Ref,
            }),
        },
        syn::Type::Paren(p) => composite(&p.elem),
        syn::Type::Group(g) => composite(&g.elem),
        other => Ok(Composite {
            grad_ty: other.clone(),
            holder: Holder::Value,
        }),
    }
}

/// Whether a type is, by its spelling, a slice, a `Vec` or an array
/// (by reference or not).
pub(super) fn is_sequence(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_sequence(&r.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => true,
        syn::Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Vec")
        }
        syn::Type::Paren(p) => is_sequence(&p.elem),
        _ => false,
    }
}

/// Whether `ty` is a slice, `Vec` or array of arrays of `f64` or `f32`
/// (`&[[f64; 2]]`, `&Vec<[f32; 3]>`).
fn of_float_arrays(ty: &syn::Type) -> bool {
    let float_array = |t: &syn::Type| {
        matches!(t, syn::Type::Array(a)
        if matches!(&*a.elem, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32")))
    };
    match ty {
        syn::Type::Reference(r) => of_float_arrays(&r.elem),
        syn::Type::Paren(p) => of_float_arrays(&p.elem),
        syn::Type::Slice(s) => float_array(&s.elem),
        syn::Type::Array(a) => float_array(&a.elem),
        syn::Type::Path(_) => crate::ir::vec_elem(ty).is_some_and(float_array),
        _ => false,
    }
}

impl Lowerer {
    /// Whether a parameter's type reaches its methods through a trait
    /// only: it names `dyn Trait`, or a type parameter of the function's
    /// other than its float type (`s: &S` with `S: Sdf`).
    fn through_trait(&self, sig: &syn::Signature, ty: &syn::Type) -> bool {
        let params: Vec<String> = sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .filter(|t| self.types.generic.as_deref() != Some(t.as_str()))
            .collect();
        let mut words = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(ty.to_token_stream(), &mut words);
        words.contains("dyn") || params.iter().any(|p| words.contains(p))
    }
}
