//! `#[grad(hessian)]` on a function written for `f64` (or `f32`): its
//! second derivatives run the gradient at dual numbers, which needs the
//! function generic over its float type. This pass writes that generic
//! twin, `__autodiff_hessian_<name><T: autodiff::Float>`, from the
//! function as written: the float type replaced by `T` in the signature,
//! in every type of the body and in its paths (`f64::sin(x)` is
//! `T::sin(x)`, `f64::consts::PI` is `T::from_f64(f64::consts::PI)`), an
//! integer's cast to the float (`i as f64`) converted, suffixed literals
//! unsuffixed; `desugar/generic.rs` then reads its literals as `T`.
//!
//! rustc must accept the twin, or the user would see an error inside the
//! expansion; so the twin is written only for code whose every part is
//! known to stay well typed at `T`, and anything else is refused at its
//! tokens, saying what to write: a read of an item outside the function
//! (a `const`, a `static`: its type does not change with `T`), a call of a
//! function of the user's (it takes an `f64`), a method not of the float
//! or of slices and iterators, a cast of a value that may be a float, a
//! macro other than `vec!`, a struct, a parameter of another type.

use std::collections::HashSet;

use proc_macro2::Span;
use quote::format_ident;
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::Expr as E;

use bound::Bound;
use known::*;

mod bound;
mod known;
#[cfg(test)]
mod tests;

/// The generic twin of `item`, or why it cannot be written.
pub fn twin(item: &syn::ItemFn) -> syn::Result<syn::ItemFn> {
    let float = float_type(&item.sig)?;
    let mut errors: Option<syn::Error> = None;
    let mut refuse = |at: proc_macro2::TokenStream, what: &str| {
        crate::diag::combine(
            &mut errors,
            syn::Error::new_spanned(
                at,
                format!("#[grad(hessian)] runs the gradient at dual numbers, so it writes this function generic over its float type, and cannot here: {what}; or write the function generic yourself, `fn f<T: autodiff::Float>(x: T, ..) -> T`"),
            ),
        );
    };
    for g in &item.sig.generics.params {
        if let syn::GenericParam::Type(t) = g {
            refuse(t.to_token_stream(), "it has a type parameter of its own");
        }
    }
    for arg in &item.sig.inputs {
        match arg {
            syn::FnArg::Receiver(r) => refuse(r.to_token_stream(), "it is a method"),
            syn::FnArg::Typed(p) if !parameter_type(&p.ty, &float) => refuse(
                p.ty.to_token_stream(),
                &format!("a parameter's type is not `{float}`, an integer or a `bool`, or an array, slice or `Vec` of one of them"),
            ),
            syn::FnArg::Typed(_) => {}
        }
    }
    let mut bound = Bound::default();
    bound.visit_item_fn(item);
    bound.settle();
    for arg in &item.sig.inputs {
        if let syn::FnArg::Typed(p) = arg {
            if let (syn::Pat::Ident(i), syn::Type::Array(_) | syn::Type::Path(_)) =
                (&*p.pat, &*p.ty)
            {
                bound.owned.insert(i.ident.to_string());
            }
        }
    }
    let t = type_param(&bound.all);
    let mut rewrite = Rewrite {
        float: &float,
        t: &t,
        bound: &bound,
        refused: Vec::new(),
        seen: item
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(p) => match &*p.pat {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect(),
        iter_allowed: false,
    };
    let mut twin = item.clone();
    rewrite.visit_block_mut(&mut twin.block);
    rewrite.visit_signature_mut(&mut twin.sig);
    for (at, what) in std::mem::take(&mut rewrite.refused) {
        refuse(at, &what);
    }
    if let Some(e) = errors {
        return Err(e);
    }
    twin.sig.ident = twin_name(&item.sig.ident);
    twin.sig
        .generics
        .params
        .push(syn::parse_quote!(#t: ::autodiff::Float));
    twin.attrs.retain(|a| !a.path().is_ident("doc"));
    Ok(crate::desugar::generic::with_float_literals(twin))
}

/// The twin as rustc is given it: an element's compound assignment that
/// reads its own array, `state[0] += dt * state[1]`, computes the value
/// first. At `f64` the `+=` is built in; at `T` it is `AddAssign`, whose
/// `&mut state[0]` would be taken before `state[1]` is read (E0502). The
/// pipeline reads the twin as written.
pub fn kept(mut twin: syn::ItemFn) -> syn::ItemFn {
    struct Split;
    impl VisitMut for Split {
        fn visit_expr_mut(&mut self, e: &mut E) {
            syn::visit_mut::visit_expr_mut(self, e);
            let E::Binary(b) = e else { return };
            let compound = matches!(
                b.op,
                syn::BinOp::AddAssign(_)
                    | syn::BinOp::SubAssign(_)
                    | syn::BinOp::MulAssign(_)
                    | syn::BinOp::DivAssign(_)
                    | syn::BinOp::RemAssign(_)
            );
            let place = matches!(&*b.left, E::Index(_))
                || matches!(&*b.left, E::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)));
            if !compound || !place {
                return;
            }
            let (left, op, right) = (&b.left, &b.op, &b.right);
            *e = syn::parse_quote!({
                let __autodiff_value = #right;
                #left #op __autodiff_value;
            });
        }
    }
    Split.visit_block_mut(&mut twin.block);
    twin
}

/// The twin's name.
pub fn twin_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_hessian_{}", name)
}

/// The float type the signature is written in: `f64` or `f32`, one of
/// them.
fn float_type(sig: &syn::Signature) -> syn::Result<String> {
    #[derive(Default)]
    struct Floats(HashSet<String>);
    impl Visit<'_> for Floats {
        fn visit_type_path(&mut self, p: &syn::TypePath) {
            if let Some(i) = p.path.get_ident() {
                if i == "f64" || i == "f32" {
                    self.0.insert(i.to_string());
                }
            }
            syn::visit::visit_type_path(self, p);
        }
    }
    let mut found = Floats::default();
    found.visit_signature(sig);
    match found.0.len() {
        1 => Ok(found.0.into_iter().next().unwrap_or_default()),
        0 => Err(syn::Error::new_spanned(
            &sig.ident,
            "#[grad(hessian)] needs the float type in the signature (`x: f64`), or the function generic over it",
        )),
        _ => Err(syn::Error::new_spanned(
            &sig.ident,
            "#[grad(hessian)] cannot write a generic twin of a function of both `f32` and `f64`: write the function generic, `fn f<T: autodiff::Float>(x: T, ..) -> T`",
        )),
    }
}

/// Whether a parameter of this type stays well typed with the float type
/// replaced: the float, an array, slice or `Vec` of it (by value or by
/// shared reference), an integer, a `bool`.
fn parameter_type(ty: &syn::Type, float: &str) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none() && parameter_type(&r.elem, float),
        syn::Type::Slice(s) => is_named(&s.elem, float) || is_integer(&s.elem),
        syn::Type::Array(a) => {
            is_named(&a.elem, float) || is_integer(&a.elem) || parameter_type(&a.elem, float)
        }
        syn::Type::Paren(p) => parameter_type(&p.elem, float),
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            if last.ident == "Vec" {
                return match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => {
                        matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if is_named(t, float) || is_integer(t))
                    }
                    _ => false,
                };
            }
            p.qself.is_none()
                && p.path.segments.len() == 1
                && (last.ident == float || integer_or_bool(&last.ident))
        }
        _ => false,
    }
}

/// An integer type's name or `bool`'s.
fn integer_or_bool(name: &syn::Ident) -> bool {
    name == "bool" || crate::ir::INT_TYPES.iter().any(|t| name == t)
}

/// An integer or `bool`: a type that does not change with the float type
/// (`&[usize]` labels, `[i32; 3]` indices pass to the twin as they are).
fn is_integer(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(integer_or_bool))
}

fn is_named(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// The type parameter's name: `T` unless the function uses it.
fn type_param(used: &HashSet<String>) -> syn::Ident {
    let name = ["T", "F", "Real"]
        .into_iter()
        .find(|n| !used.contains(*n))
        .unwrap_or("AutodiffFloat");
    syn::Ident::new(name, Span::call_site())
}

/// The rewrite to `T`, and what it refuses.
struct Rewrite<'a> {
    float: &'a str,
    t: &'a syn::Ident,
    bound: &'a Bound,
    refused: Vec<(proc_macro2::TokenStream, String)>,
    /// The names bound so far, in the order of the source (the
    /// parameters first): a call of a name bound later (`g(x); let g =
    /// |t| ..`) is of the function outside.
    /// A stack: a scope's bindings are dropped where it ends.
    seen: Vec<String>,
    /// The next `.iter()` met gives its elements to `.copied()` (or is
    /// measured, `.len()`), or to a `for` whose pattern takes them apart
    /// by `&`: its elements are never `&T`s in arithmetic.
    iter_allowed: bool,
}

impl Rewrite<'_> {
    fn refuse(&mut self, at: &dyn ToTokens, what: String) {
        self.refused.push((at.to_token_stream(), what));
    }

    /// Whether the expression is an integer for sure.
    fn integer(&self, e: &E) -> bool {
        match e {
            E::Lit(l) => matches!(&l.lit, syn::Lit::Int(_)),
            E::Paren(p) => self.integer(&p.expr),
            E::Group(g) => self.integer(&g.expr),
            E::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.bound.integers.contains(&i.to_string())),
            E::MethodCall(m) => m.method == "len" || m.method == "count",
            E::Binary(b) => self.integer(&b.left) && self.integer(&b.right),
            E::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && self.integer(&u.expr),
            // `k[i]`, `idx[i][j]` of `k: &[u32]`, `idx: &[[usize; 2]]`.
            E::Index(ix) => {
                let mut base = &*ix.expr;
                while let E::Index(inner) = base {
                    base = &inner.expr;
                }
                matches!(base, E::Path(p) if p.path.get_ident().is_some_and(|i| self.bound.integer_arrays.contains(&i.to_string())))
            }
            E::Cast(c) => {
                matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(integer_or_bool))
            }
            _ => false,
        }
    }

    /// Whether a path names the float type: `f64`, `f64::consts::PI`,
    /// `std::f64::consts::PI`.
    fn of_float(&self, p: &syn::Path) -> bool {
        p.segments.iter().any(|s| s.ident == self.float)
    }

    /// `<T as Float>::from_f64(e)`.
    fn converted(&self, e: E) -> E {
        let t = self.t;
        syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(#e))
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if is_named(ty, self.float) {
            let t = self.t;
            *ty = syn::parse_quote!(#t);
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        self.seen.push(p.ident.to_string());
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }

    // Scopes: what a block, a closure, an arm, a loop or an `if` binds is
    // out of scope after it.
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let depth = self.seen.len();
        syn::visit_mut::visit_block_mut(self, b);
        self.seen.truncate(depth);
    }

    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        let depth = self.seen.len();
        syn::visit_mut::visit_arm_mut(self, a);
        self.seen.truncate(depth);
    }

    fn visit_stmt_macro_mut(&mut self, m: &mut syn::StmtMacro) {
        self.refuse(m, "it calls a macro other than `vec!`".into());
    }

    fn visit_item_mut(&mut self, i: &mut syn::Item) {
        self.refuse(i, "it declares an item inside its body".into());
    }

    fn visit_expr_mut(&mut self, e: &mut E) {
        match e {
            E::Lit(l) => {
                // `1.5f64`: unsuffixed, so that it is read as a `T`.
                if let syn::Lit::Float(f) = &l.lit {
                    if f.suffix() == self.float {
                        let digits = f.base10_digits();
                        let digits = if digits.contains(['.', 'e', 'E']) {
                            digits.to_string()
                        } else {
                            format!("{digits}.0")
                        };
                        l.lit = syn::Lit::Float(syn::LitFloat::new(&digits, f.span()));
                    }
                }
                if let syn::Lit::Int(i) = &l.lit {
                    if i.suffix() == self.float {
                        let digits = format!("{}.0", i.base10_digits());
                        l.lit = syn::Lit::Float(syn::LitFloat::new(&digits, i.span()));
                    }
                }
            }
            E::Path(p) if p.qself.is_none() => {
                if let Some(i) = p.path.get_ident() {
                    // `PI` after `use std::f64::consts::PI;` (or a `const
                    // PI: f64` of the user's): converted by its own name,
                    // so that a constant of another type fails to compile.
                    let named_const = CONSTS.contains(&i.to_string().as_str());
                    if named_const && !self.bound.names.contains(&i.to_string()) {
                        let whole = E::Path(p.clone());
                        *e = self.converted(whole);
                    } else if !self.bound.names.contains(&i.to_string()) {
                        self.refuse(
                            i,
                            format!("it reads `{i}`, an item outside the function, whose type does not change with the float type: pass it as a parameter, or write the function generic (`T::from_f64({i})`)"),
                        );
                    }
                } else if self.of_float(&p.path) && p.path.segments.len() == 2 && {
                    let name = p.path.segments[1].ident.to_string();
                    crate::rules::method(&name).is_some() || METHODS.contains(&name.as_str())
                } {
                    // `fold(.., f64::max)`, `reduce(f64::max)`: the float's
                    // method as a function, `T::max`.
                    let t = self.t;
                    let last = &p.path.segments[1].ident;
                    *e = syn::parse_quote!(#t::#last);
                } else if self.of_float(&p.path) {
                    // `f64::consts::PI`, `f64::EPSILON`: converted.
                    let whole = E::Path(p.clone());
                    *e = self.converted(whole);
                } else {
                    let shown = crate::diag::show(&quote::ToTokens::to_token_stream(&p.path));
                    self.refuse(
                        p,
                        format!("it reads `{shown}`, an item outside the function"),
                    );
                }
            }
            E::Call(c) => {
                let callee = match &*c.func {
                    E::Path(p) if p.qself.is_none() => Some(p.path.clone()),
                    _ => None,
                };
                let Some(path) = callee else {
                    self.refuse(
                        &c.func,
                        "it calls something other than a function by its path".into(),
                    );
                    return;
                };
                let name = path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                for a in &mut c.args {
                    self.visit_expr_mut(a);
                }
                let method =
                    crate::rules::method(&name).is_some() || METHODS.contains(&name.as_str());
                let local = path
                    .get_ident()
                    .is_some_and(|i| self.seen.iter().any(|n| i == n));
                if local {
                    // A closure of the function's own: its types change
                    // with the rest.
                } else if self.of_float(&path) && method && path.segments.len() == 2 {
                    // `f64::sin(x)`: `T::sin(x)`, a method of the float.
                    let t = self.t;
                    let last = &path.segments[1].ident;
                    *c.func = syn::parse_quote!(#t::#last);
                } else if self.of_float(&path)
                    && name == "from"
                    && c.args.len() == 1
                    && self.integer(&c.args[0])
                {
                    let whole = E::Call(c.clone());
                    *e = self.converted(whole);
                } else if matches!(
                    crate::rules::path_segments(&path)
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .as_slice(),
                    ["Vec", "new" | "with_capacity"]
                ) {
                    // `Vec::new()`: of the element type the uses give it,
                    // `T` in the twin.
                } else if ["swap", "replace", "take"]
                    .iter()
                    .any(|f| crate::desugar::whole_arrays::mem_fn(c, f) == Some(true))
                {
                    // `std::mem::swap(&mut u, &mut next)`: generic over
                    // what it exchanges, dual numbers too.
                } else if self.of_float(&path) {
                    // `f64::from(y)` of a value that may be a float.
                    let shown = crate::diag::show(&quote::ToTokens::to_token_stream(&path));
                    self.refuse(
                        &c.func,
                        format!("it calls `{shown}` of a value that may be a float, which has no counterpart at dual numbers: convert an integer (`{shown}(n as u32)`), compute in `{}` from the start, or write the function generic over its float type", self.float),
                    );
                } else if crate::rules::function(&name).is_none()
                    && crate::rules::kernel(&name).is_none()
                {
                    // A kernel is generic over the float type in the
                    // runtime (`softmax<T: Float>`), its pullback too.
                    let shown = crate::diag::show(&quote::ToTokens::to_token_stream(&path));
                    self.refuse(
                        &c.func,
                        format!("it calls `{shown}`, a function of yours, and #[grad] cannot see from here whether `{shown}` is generic over the float type, as the twin at dual numbers needs (`fn {shown}<T: autodiff::Float>`, with `#[grad]` on it, `hessian` not needed there); where it is, write this function generic over its float type too (`fn f<T: autodiff::Float>`, `T::from_f64(c)` of its `{}` constants), and its second derivatives go through `{shown}`", self.float),
                    );
                }
            }
            E::MethodCall(m) => {
                let name = m.method.to_string();
                // Whether this `.iter()` may be: a `&f64` is `Copy` and
                // has arithmetic, a `&T` has none (`x * x` of two is
                // E0369), so an element by reference must be copied.
                let allowed = std::mem::take(&mut self.iter_allowed);
                self.iter_allowed = matches!(
                    name.as_str(),
                    "copied" | "cloned" | "len" | "count" | "is_empty"
                ) || (allowed && FOR_ADAPTERS.contains(&name.as_str()))
                    || closure_dereferences(m);
                self.visit_expr_mut(&mut m.receiver);
                // `zip`'s other side, before a `for` too.
                for a in &mut m.args {
                    self.iter_allowed = allowed && name == "zip";
                    self.visit_expr_mut(a);
                }
                self.iter_allowed = false;
                if let Some(t) = &mut m.turbofish {
                    self.visit_angle_bracketed_generic_arguments_mut(t);
                }
                if BY_REFERENCE.contains(&name.as_str()) && !allowed {
                    self.refuse(&m.method, format!("`.{name}()` gives its elements by reference, and a reference to a generic float has no arithmetic: write `.{name}().copied()`, or `for &x in ..`, or index the array"));
                } else if name == "sum" || name == "product" {
                    self.refuse(&m.method, format!("`.{name}()` of floats needs `std::iter::{}` of the float type, which a generic float does not promise: write the loop, or `.fold(0.0, |a, b| a + b)`", if name == "sum" { "Sum" } else { "Product" }));
                } else if crate::rules::method(&name).is_none() && !METHODS.contains(&name.as_str())
                {
                    self.refuse(&m.method, format!("it calls `.{name}()`, which #[grad] cannot tell is a method of the float type or of a slice: write what it computes with float methods, arithmetic or autodiff's functions"));
                }
            }
            E::Cast(c) => {
                self.visit_expr_mut(&mut c.expr);
                let to_float = is_named(&c.ty, self.float);
                if !self.integer(&c.expr) {
                    self.refuse(&*c, format!("it casts a value that may be a float (`as`): write `{}` arithmetic without the cast, or cast an integer", self.float));
                } else if to_float {
                    let whole = E::Cast(c.clone());
                    *e = self.converted(whole);
                }
            }
            E::Macro(m) => {
                if m.mac.path.is_ident("vec") {
                    crate::desugar::vec_items(&mut m.mac, |item| self.visit_expr_mut(item));
                } else {
                    self.refuse(m, "it calls a macro other than `vec!`".into());
                }
            }
            E::Struct(s) => self.refuse(s, "it builds a struct".into()),
            E::ForLoop(f) => {
                // A range gives integers; anything else elements, by
                // reference unless copied or owned.
                let owned = match &*f.expr {
                    _ if of_range(&f.expr) => true,
                    E::Path(p) => p
                        .path
                        .get_ident()
                        .is_some_and(|i| self.bound.owned.contains(&i.to_string())),
                    // Slices, indexed to floats.
                    E::MethodCall(m)
                        if ["windows", "chunks", "chunks_exact"]
                            .contains(&m.method.to_string().as_str()) =>
                    {
                        true
                    }
                    _ => chain_copies(&f.expr),
                };
                if !owned && !dereferences(&f.pat, &f.expr) {
                    self.refuse(&f.pat, "its `for` may bind a float by reference, and a reference to a generic float has no arithmetic: write `for &x in ..` (`for (i, &x) in ...enumerate()`), `.iter().copied()`, or index the array".into());
                }
                self.iter_allowed = true;
                self.visit_expr_mut(&mut f.expr);
                self.iter_allowed = false;
                let depth = self.seen.len();
                self.visit_pat_mut(&mut f.pat);
                self.visit_block_mut(&mut f.body);
                self.seen.truncate(depth);
            }
            E::Async(_)
            | E::Await(_)
            | E::Unsafe(_)
            | E::TryBlock(_)
            | E::Yield(_)
            | E::Verbatim(_)
            | E::Infer(_) => {
                let shown = e.to_token_stream();
                self.refuse(
                    &shown,
                    "it has code #[grad] cannot follow at a generic float".into(),
                )
            }
            E::Closure(_) | E::If(_) | E::While(_) => {
                let depth = self.seen.len();
                syn::visit_mut::visit_expr_mut(self, e);
                self.seen.truncate(depth);
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}
