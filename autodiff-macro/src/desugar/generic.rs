//! Generic float functions: `fn f<T: autodiff::Float>(x: T) -> T`.
//!
//! Float literals in the body of a generic function would not have the type
//! `T`: the function as written and its gradient both read them as
//! `<T as autodiff::Float>::from_f64(literal)`, so users write `2.0`, not
//! `T::from(2.0).unwrap()`. A literal stays as written where the source
//! requires an `f64` (or `f32`), so that a `T` would not compile: inside
//! `T::from_f64(..)`, in a `let` typed `f64` or `[f64; 3]`, next to an
//! `f64` (`n as f64`, `f64::EPSILON`, an `f64` local) in arithmetic or a
//! comparison, and from there through arithmetic, float methods, arrays
//! and branches. An `f64` local is bound by plain `let`s and read only
//! where an `f64` is required (`let w = 0.5; .. T::from_f64(w)`) or, bound
//! once, given an `f64` (`let h = 1.0 / n as f64;`, `t += h;`): found in
//! turns, each shown by those found before, never by its own reads (in
//! `let c = 0.5; x * (c * c)`, `0.5` is a `T`).

use std::collections::{HashMap, HashSet};

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::Expr as E;

/// `item` with its unsuffixed float literals converted to its float type
/// parameter, if it has one, except those the source shows to be `f64`s;
/// unchanged otherwise.
pub fn with_float_literals(mut item: syn::ItemFn) -> syn::ItemFn {
    let Some(t) =
        generic_param(&item.sig).map(|n| syn::Ident::new(&n, proc_macro2::Span::call_site()))
    else {
        return item;
    };
    PathForm(&t).visit_block_mut(&mut item.block);
    let bindings = Bindings::of(&item);
    let mut w = Walker {
        f64s: f64_locals(&item, &bindings),
        ints: bindings.integers(),
        ty: Some(t),
        ..Walker::default()
    };
    w.block(&mut item.block, false);
    item
}

/// Rewrites a float method of the type parameter in path form,
/// `T::sin(x)`, `<T as Float>::atan2(y, x)`, as the method call it is,
/// `x.sin()`, `y.atan2(x)`: the function as kept is unchanged, and the
/// passes after this one read it as the method (`f64::sin(x)` they read
/// as a path; a `T::sin` would be a call of a function of the user's).
struct PathForm<'a>(&'a syn::Ident);

impl PathForm<'_> {
    /// `T::sin`, `<T as Float>::sin`: the float method it names.
    fn method_of_t(&self, p: &syn::ExprPath) -> Option<syn::Ident> {
        let segs = &p.path.segments;
        let of_t = match &p.qself {
            None => segs.len() == 2 && segs[0].ident == *self.0,
            // `<T>::sin`, `<T as Float>::sin`, `<T as autodiff::Float>::sin`.
            Some(q) => {
                matches!(&*q.ty, syn::Type::Path(t) if t.qself.is_none() && t.path.is_ident(self.0))
                    && segs.len() == q.position + 1
                    && (q.position == 0 || segs[q.position - 1].ident == "Float")
            }
        };
        let method = segs.last().map(|s| s.ident.clone())?;
        (of_t && float_method(&method)).then_some(method)
    }
}

impl VisitMut for PathForm<'_> {
    fn visit_expr_mut(&mut self, e: &mut E) {
        match e {
            // A call's function is read below, as the call it makes.
            E::Call(c) if matches!(&*c.func, E::Path(_)) => {
                for a in c.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
        if let E::Macro(m) = e {
            crate::desugar::vec_items(&mut m.mac, |listed| self.visit_expr_mut(listed));
            return;
        }
        // `T::max` passed as a function (`fold(T::neg_infinity(),
        // T::max)`): the closure calling the method, `|a: T, b: T|
        // a.max(b)`, of the method's arity.
        if let E::Path(p) = e {
            let Some(method) = self.method_of_t(p) else {
                return;
            };
            let Some(rule) = crate::rules::method(&method.to_string()) else {
                return;
            };
            let t = self.0;
            let span = syn::spanned::Spanned::span(&*p);
            let names: Vec<syn::Ident> = (0..rule.args.len())
                .map(|i| quote::format_ident!("__autodiff_arg{}", i, span = span))
                .collect();
            let Some((first, rest)) = names.split_first() else {
                return;
            };
            *e = syn::parse_quote_spanned!(span=> |#(#names: #t),*| #first.#method(#(#rest),*));
            return;
        }
        let E::Call(c) = e else { return };
        let E::Path(p) = &*c.func else { return };
        let Some(method) = self.method_of_t(p) else {
            return;
        };
        let mut args = c.args.clone().into_iter();
        let Some(receiver) = args.next() else { return };
        let receiver = match receiver {
            r @ (E::Path(_) | E::Lit(_) | E::Call(_) | E::MethodCall(_) | E::Paren(_)) => r,
            r => syn::parse_quote!((#r)),
        };
        let args = args.collect::<Vec<_>>();
        let span = syn::spanned::Spanned::span(&c.func);
        *e = syn::parse_quote_spanned!(span=> #receiver.#method(#(#args),*));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The names of `item` that hold `f64`s or arrays of them: typed so
/// wherever bound, or bound by plain `let`s only and shown to be `f64`s by
/// the names found before, until no more is found.
fn f64_locals(item: &syn::ItemFn, b: &Bindings) -> HashSet<String> {
    let mut f64s = HashSet::new();
    loop {
        let mut w = Walker {
            f64s: f64s.clone(),
            ..Walker::default()
        };
        w.block(&mut item.block.clone(), false);
        // Typed `f64` wherever bound; or bound by plain `let`s only, read
        // only where an `f64` is required or, bound once, given one.
        let shown = |(c, kinds): &(&String, &Vec<Binding>)| {
            let float = kinds.iter().all(|k| *k == Binding::Float);
            let read = w.reads.get(*c) == Some(&true);
            let once = kinds.len() == 1 && w.given.contains(*c);
            let other = kinds
                .iter()
                .any(|k| matches!(k, Binding::Other | Binding::Int));
            !f64s.contains(*c) && !other && (float || read || once)
        };
        let found: Vec<String> = b.0.iter().filter(shown).map(|(c, _)| c.clone()).collect();
        if found.is_empty() {
            return f64s;
        }
        f64s.extend(found);
    }
}

/// How a name is bound, once: as a parameter or by a `let` typed as a
/// concrete float (`Float`), typed as an integer or as the index of a
/// `for` over a range (`Int`), by a `let` without a type (`Plain`), or
/// otherwise (a pattern, a closure's parameter, a type parameter).
#[derive(Clone, Copy, PartialEq)]
enum Binding {
    Float,
    Int,
    Plain,
    Other,
}

/// Every name the body binds, each time it is bound. Items inside the
/// body are scopes of their own, left out.
#[derive(Default)]
struct Bindings(HashMap<String, Vec<Binding>>);

impl Bindings {
    /// The names `item`'s parameters and body bind.
    fn of(item: &syn::ItemFn) -> Bindings {
        let mut b = Bindings::default();
        for arg in &item.sig.inputs {
            if let syn::FnArg::Typed(p) = arg {
                b.bind(&syn::Pat::Type(p.clone()));
            }
        }
        b.visit_block(&item.block);
        b
    }

    /// Whether `e` walks the elements of a name typed as holding `f64`s
    /// wherever bound (`xs`, `&xs`, `xs.iter()`, `xs.iter().copied()`).
    fn float_elements(&self, e: &E) -> bool {
        match e {
            E::Reference(r) => self.float_elements(&r.expr),
            E::Paren(p) => self.float_elements(&p.expr),
            E::MethodCall(m)
                if m.args.is_empty()
                    && ["iter", "copied", "cloned", "into_iter"]
                        .iter()
                        .any(|n| m.method == n) =>
            {
                self.float_elements(&m.receiver)
            }
            E::Path(p) => p.path.get_ident().is_some_and(|i| {
                self.0
                    .get(&i.to_string())
                    .is_some_and(|k| k.iter().all(|k| *k == Binding::Float))
            }),
            _ => false,
        }
    }

    /// The loop `f`, whose variable `i` is bound as `kind`.
    fn loop_variable(&mut self, i: &syn::PatIdent, kind: Binding, f: &syn::ExprForLoop) {
        self.0.entry(i.ident.to_string()).or_default().push(kind);
        self.visit_expr(&f.expr);
        self.visit_block(&f.body);
    }

    /// The names that hold integers wherever bound.
    fn integers(&self) -> HashSet<String> {
        let ints = self
            .0
            .iter()
            .filter(|(_, k)| k.iter().all(|k| *k == Binding::Int));
        ints.map(|(name, _)| name.clone()).collect()
    }

    /// The pattern of a `let` or a parameter.
    fn bind(&mut self, pat: &syn::Pat) {
        let (name, ty) = match pat {
            syn::Pat::Type(p) => (&*p.pat, Some(&*p.ty)),
            _ => (pat, None),
        };
        match name {
            syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                let kind = match ty {
                    None => Binding::Plain,
                    Some(ty) if float_type(ty) => Binding::Float,
                    Some(ty) if crate::ir::is_int_type(ty) => Binding::Int,
                    Some(_) => Binding::Other,
                };
                self.0.entry(i.ident.to_string()).or_default().push(kind);
            }
            _ => self.visit_pat(pat),
        }
    }
}

impl<'a> Visit<'a> for Bindings {
    fn visit_local(&mut self, l: &'a syn::Local) {
        self.bind(&l.pat);
        if let Some(init) = &l.init {
            self.visit_local_init(init);
        }
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        match (&*f.pat, &*f.expr) {
            (syn::Pat::Ident(i), E::Range(_)) if i.by_ref.is_none() && i.subpat.is_none() => {
                self.loop_variable(i, Binding::Int, f)
            }
            // `for &k in counts`, `for k in xs.iter().copied()` of a name
            // that holds `f64`s (`counts: &[f64]`): an `f64` each.
            (pat, expr) if self.float_elements(expr) => {
                let name = match pat {
                    syn::Pat::Reference(r) => &*r.pat,
                    other => other,
                };
                match name {
                    syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                        self.loop_variable(i, Binding::Float, f)
                    }
                    _ => syn::visit::visit_expr_for_loop(self, f),
                }
            }
            _ => syn::visit::visit_expr_for_loop(self, f),
        }
    }
    fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
        let name = i.ident.to_string();
        self.0.entry(name).or_default().push(Binding::Other);
        syn::visit::visit_pat_ident(self, i);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// One pass over a body that knows where an `f64` is required: with `ty`,
/// it converts every other unsuffixed float literal to `ty`; it records
/// whether each name is read only where an `f64` is required (`reads`),
/// and the names given an `f64` by a `let` or an assignment (`given`).
#[derive(Default)]
struct Walker {
    /// The names known to hold `f64`s.
    f64s: HashSet<String>,
    /// The names known to hold integers.
    ints: HashSet<String>,
    /// The float type parameter to convert to; `None` only records.
    ty: Option<syn::Ident>,
    /// Inside `T::from_f64(..)`, where no literal is converted.
    keep: bool,
    reads: HashMap<String, bool>,
    given: HashSet<String>,
}

impl Walker {
    /// `e`, where an `f64` is required if `f64`.
    fn expr(&mut self, e: &mut E, f64: bool) {
        match e {
            E::Lit(l) if matches!(&l.lit, syn::Lit::Float(f) if f.suffix().is_empty()) => {
                if let (false, false, Some(t)) = (f64, self.keep, &self.ty) {
                    let lit = l.lit.clone();
                    *e = syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(#lit));
                }
            }
            E::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let name = p.path.segments[0].ident.to_string();
                *self.reads.entry(name).or_insert(true) &= f64;
            }
            E::Binary(b) => match op(&b.op) {
                Op::Assign => self.assign(&mut b.left, &mut b.right),
                Op::Other => syn::visit_mut::visit_expr_binary_mut(self, b),
                o => {
                    let f = f64 && o == Op::Arith || self.is_f64(&b.left) || self.is_f64(&b.right);
                    self.expr(&mut b.left, f);
                    self.expr(&mut b.right, f);
                }
            },
            E::Assign(a) => self.assign(&mut a.left, &mut a.right),
            E::Paren(syn::ExprParen { expr, .. })
            | E::Reference(syn::ExprReference { expr, .. }) => self.expr(expr, f64),
            E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.expr(&mut u.expr, f64),
            // Only a primitive is cast with `as`, never a `T`.
            E::Cast(c) => self.expr(&mut c.expr, true),
            E::MethodCall(m) => {
                let f = float_method(&m.method) && (f64 || self.is_f64(&m.receiver));
                // `xs.len()`, `xs.iter()`: a read that requires no type.
                if float_method(&m.method) || !matches!(*m.receiver, E::Path(_)) {
                    self.expr(&mut m.receiver, f);
                }
                m.args.iter_mut().for_each(|a| self.expr(a, f));
            }
            E::Call(c) => {
                let (from_f64, f) = match &*c.func {
                    E::Path(p) => (last_is(&p.path, "from_f64"), f64_path(&p.path)),
                    _ => (false, false),
                };
                self.expr(&mut c.func, false);
                let (outer, f) = (self.keep, f || from_f64);
                self.keep |= from_f64;
                // A literal given to a function of the user's, which takes
                // a `T` or an `f64` there as far as this function sees
                // (`softabs(x, 1e-3)`): `<_ as autodiff::Float>::from_f64`,
                // typed by the callee's parameter (an `f64`, an `f32` and
                // `T` all implement `Float`). Where every argument is a
                // literal, or an integer, nothing else would type them:
                // they are `T`s (`helper(0.5, k)` of a generic `helper`).
                let users = matches!(&*c.func, E::Path(p) if p.qself.is_none()
                    && matches!(crate::rules::resolve(&p.path), crate::rules::Callee::Function))
                    && !f
                    && !self.keep;
                let untyped = |a: &E| bare_literal(a).is_some() || self.no_float(a);
                let typed_by_callee = users && !c.args.iter().all(untyped);
                for a in c.args.iter_mut() {
                    match (typed_by_callee, bare_literal(a)) {
                        (true, Some(lit)) => {
                            *a = syn::parse_quote!(<_ as ::autodiff::Float>::from_f64(#lit));
                        }
                        _ => self.expr(a, f),
                    }
                }
                self.keep = outer;
            }
            E::Index(syn::ExprIndex { expr, index: n, .. })
            | E::Repeat(syn::ExprRepeat { expr, len: n, .. }) => {
                self.expr(expr, f64);
                self.expr(n, false);
            }
            E::Array(a) => a.elems.iter_mut().for_each(|x| self.expr(x, f64)),
            // `vec![0.0; n]`, `vec![x, 2.0]`: walked as the array they list.
            // `vec![0.0; n]`, `vec![x, 2.0]`: walked as the array they list.
            E::Macro(m) => {
                if !crate::desugar::vec_items(&mut m.mac, |listed| self.expr(listed, f64)) {
                    self.visit_macro_mut(&mut m.mac);
                }
            }
            E::Block(b) => self.block(&mut b.block, f64),
            E::If(i) => {
                self.expr(&mut i.cond, false);
                self.block(&mut i.then_branch, f64);
                if let Some((_, e)) = &mut i.else_branch {
                    self.expr(e, f64);
                }
            }
            E::Match(m) => {
                self.expr(&mut m.expr, false);
                for arm in &mut m.arms {
                    arm.guard.iter_mut().for_each(|(_, g)| self.expr(g, false));
                    self.expr(&mut arm.body, f64);
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    /// `left = right` or `left += right`: `right` is an `f64` where `left`
    /// is one, and gives `left`'s variable an `f64` where it is one. The
    /// variable (`s`, `v` of `v[i]`) is not read there.
    fn assign(&mut self, left: &mut E, right: &mut E) {
        let root = root(left);
        if root.is_none() {
            self.expr(left, false);
        } else if self.is_f64(right) {
            self.given.extend(root);
        }
        let f = self.is_f64(left);
        self.expr(right, f);
    }

    /// A block whose value, its tail, is an `f64` if `f64`.
    fn block(&mut self, b: &mut syn::Block, f64: bool) {
        let n = b.stmts.len();
        for (k, s) in b.stmts.iter_mut().enumerate() {
            match s {
                syn::Stmt::Expr(e, None) if k + 1 == n => self.expr(e, f64),
                _ => self.visit_stmt_mut(s),
            }
        }
    }

    /// Whether the source shows `e` not to be a float: an integer or a
    /// `bool` literal, a cast to an integer type, a `len()`, a name known
    /// to hold an integer, and arithmetic of them.
    fn no_float(&self, e: &E) -> bool {
        match e {
            E::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => !matches!(i.suffix(), "f64" | "f32"),
                syn::Lit::Bool(_) => true,
                _ => false,
            },
            E::Cast(c) => crate::ir::is_int_type(&c.ty),
            E::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.ints.contains(&i.to_string())),
            E::MethodCall(m) => m.method == "len" && m.args.is_empty(),
            E::Binary(b) => {
                op(&b.op) == Op::Arith && self.no_float(&b.left) && self.no_float(&b.right)
            }
            E::Paren(syn::ExprParen { expr, .. }) | E::Unary(syn::ExprUnary { expr, .. }) => {
                self.no_float(expr)
            }
            _ => false,
        }
    }

    /// Whether the source shows `e` to be an `f64` (or an `f32`).
    fn is_f64(&self, e: &E) -> bool {
        let suffixed = |s: &str| s == "f64" || s == "f32";
        match e {
            E::Lit(l) => match &l.lit {
                syn::Lit::Float(f) => suffixed(f.suffix()),
                syn::Lit::Int(i) => suffixed(i.suffix()),
                _ => false,
            },
            E::Cast(c) => float_type(&c.ty),
            E::Path(p) if p.qself.is_none() => {
                let local = p.path.get_ident().map(|i| i.to_string());
                local.is_some_and(|i| self.f64s.contains(&i)) || f64_path(&p.path)
            }
            // `f64::from(n)`, `f64::max(a, b)`, `T::to_f64(x)`.
            E::Call(c) => {
                matches!(&*c.func, E::Path(p) if f64_path(&p.path) || last_is(&p.path, "to_f64"))
            }
            E::MethodCall(m) => {
                m.method == "to_f64" || float_method(&m.method) && self.is_f64(&m.receiver)
            }
            E::Binary(b) => {
                op(&b.op) == Op::Arith && (self.is_f64(&b.left) || self.is_f64(&b.right))
            }
            E::Unary(u) => !matches!(u.op, syn::UnOp::Not(_)) && self.is_f64(&u.expr),
            E::Paren(syn::ExprParen { expr, .. }) | E::Index(syn::ExprIndex { expr, .. }) => {
                self.is_f64(expr)
            }
            _ => false,
        }
    }
}

impl VisitMut for Walker {
    fn visit_expr_mut(&mut self, e: &mut E) {
        self.expr(e, false);
    }
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        let Some(init) = &mut l.init else { return };
        let f = match &l.pat {
            syn::Pat::Type(p) => float_type(&p.ty),
            syn::Pat::Ident(i) => {
                let name = i.ident.to_string();
                if self.is_f64(&init.expr) {
                    self.given.insert(name.clone());
                }
                self.f64s.contains(&name)
            }
            _ => false,
        };
        self.expr(&mut init.expr, f);
        if let Some((_, e)) = &mut init.diverge {
            self.expr(e, false);
        }
    }
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // Left as written; a name there is read where nothing says what
        // is required.
        let mut names = HashSet::new();
        crate::desugar::internal::collect_idents(m.tokens.clone(), &mut names);
        self.reads.extend(names.into_iter().map(|n| (n, false)));
    }
    // An item inside the body cannot name `T`: left as written.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// What a binary operator asks of its operands' types: arithmetic (`+`),
/// one type for both and the result; a comparison (`<`), one for both; an
/// assignment (`+=`), the left's for the right.
#[derive(PartialEq)]
enum Op {
    Arith,
    Compare,
    Assign,
    Other,
}

fn op(op: &syn::BinOp) -> Op {
    use syn::BinOp as B;
    match op {
        B::Add(_) | B::Sub(_) | B::Mul(_) | B::Div(_) | B::Rem(_) => Op::Arith,
        B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => Op::Compare,
        B::AddAssign(_) | B::SubAssign(_) | B::MulAssign(_) | B::DivAssign(_) => Op::Assign,
        B::RemAssign(_) => Op::Assign,
        _ => Op::Other,
    }
}

/// A method of `f64` whose receiver and float arguments have the type of
/// its result.
fn float_method(m: &syn::Ident) -> bool {
    const METHODS: &str = "abs acos acosh asin asinh atan atan2 atanh cbrt ceil clamp copysign \
        cos cosh div_euclid exp exp2 exp_m1 floor fract hypot ln ln_1p log log10 log2 max min \
        mul_add powf powi recip rem_euclid round signum sin sinh sqrt tan tanh to_degrees \
        to_radians trunc";
    METHODS.split_whitespace().any(|name| m == name)
}

/// A concrete float type, or an array, slice, reference or `Vec` of one.
fn float_type(ty: &syn::Type) -> bool {
    use syn::{GenericArgument as G, PathArguments as A, Type};
    match ty {
        Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(s) if s.ident == "Vec" => {
                matches!(&s.arguments, A::AngleBracketed(a) if a.args.len() == 1
                    && matches!(&a.args[0], G::Type(t) if float_type(t)))
            }
            _ => p.path.is_ident("f64") || p.path.is_ident("f32"),
        },
        Type::Array(syn::TypeArray { elem, .. })
        | Type::Slice(syn::TypeSlice { elem, .. })
        | Type::Reference(syn::TypeReference { elem, .. }) => float_type(elem),
        _ => false,
    }
}

/// `0.5`, `-0.5`, `(1.0 - 0.25) / 2.0`: unsuffixed float literals and
/// arithmetic of them, as an expression.
fn bare_literal(e: &E) -> Option<E> {
    fn literal(e: &E) -> bool {
        match e {
            E::Lit(l) => matches!(&l.lit, syn::Lit::Float(f) if f.suffix().is_empty()),
            E::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && literal(&u.expr),
            E::Paren(p) => literal(&p.expr),
            E::Binary(b) => {
                matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                ) && literal(&b.left)
                    && literal(&b.right)
            }
            _ => false,
        }
    }
    literal(e).then(|| e.clone())
}

/// A path into `f64` or `f32`: `f64::EPSILON`, `std::f64::consts::PI`,
/// `f64::from`, `f32::max`.
fn f64_path(p: &syn::Path) -> bool {
    let mut modules = p.segments.iter().rev().skip(1);
    modules.any(|s| s.ident == "f64" || s.ident == "f32")
}

fn last_is(p: &syn::Path, name: &str) -> bool {
    p.segments.last().is_some_and(|s| s.ident == name)
}

/// The variable a place is part of: `s` of `s`, `v[i]`, `(v)[i][j]`.
fn root(e: &E) -> Option<String> {
    match e {
        E::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        E::Index(syn::ExprIndex { expr, .. }) | E::Paren(syn::ExprParen { expr, .. }) => root(expr),
        _ => None,
    }
}

/// The float type parameter of a generic function, if any: the type
/// parameter bounded by `Float` (`autodiff::Float`, or `Float` imported),
/// in its list or in the `where` clause; else a type parameter of the
/// `impl`, its bound restated on the method
/// (`fn eval(&self, x: T) -> T where T: autodiff::Float`).
pub fn generic_param(sig: &syn::Signature) -> Option<String> {
    let float = |b: &syn::TypeParamBound| matches!(b, syn::TypeParamBound::Trait(t) if last_is(&t.path, "Float"));
    let predicates = sig.generics.where_clause.iter().flat_map(|w| &w.predicates);
    let in_where: Vec<&syn::Ident> = predicates
        .filter_map(|p| match p {
            syn::WherePredicate::Type(syn::PredicateType {
                bounded_ty: syn::Type::Path(tp),
                bounds,
                ..
            }) if tp.qself.is_none() && bounds.iter().any(float) => tp.path.get_ident(),
            _ => None,
        })
        .collect();
    let mut own = sig.generics.type_params();
    let own = own.find(|t| t.bounds.iter().any(float) || in_where.contains(&&t.ident));
    let own = own.map(|t| &t.ident);
    own.or(in_where.first().copied()).map(|i| i.to_string())
}
