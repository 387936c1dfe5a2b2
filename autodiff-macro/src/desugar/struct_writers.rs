//! A *struct writer*: a function that returns nothing and changes one
//! struct through `&mut` (`fn kick(b: &mut Body, f: f64)`, a method
//! `fn step(&mut self, dt: f64)`), through its fields
//! (`self.v -= self.x / self.m * dt;`). It is differentiated as the
//! function taking the struct by shared reference and returning its new
//! value, whose `_vjp` is the writer's (`b: &Body`, `-> Body`; `&self`,
//! `-> Self`):
//!
//! ```text
//! fn step(&mut self, dt: f64) {         fn step(&self, dt: f64) -> Self {
//!     self.v -= self.x * dt;                let mut this = Self { ..self };
//!     self.x += self.v * dt;       as       this = Self { v: this.v - this.x * dt, ..this };
//! }                                         this = Self { x: this.x + this.v * dt, ..this };
//!                                           this
//!                                       }
//! ```
//!
//! Each field assignment is the struct built again with that field new
//! and the others its own (`Op::Construct` with a base), so that the
//! macro follows the fields it cannot name. Callers write `b.step(dt);`
//! or `kick(&mut b, f);`, which the lowering turns into `b`'s new value
//! (`Lowerer::struct_writer_call`).
//!
//! The struct is a variable the body reads whole or by its fields, and
//! passes on (`self.energy()`, `other.kick(f)`, `self.kick(f);` of
//! another writer), always as it is by then. Its fields change by being
//! assigned whole (`self.x = ..`, `self.x += ..`); a part of a field
//! changed in place (`self.w[i] = ..`) or lent (`&mut self.x`) is not
//! followed, and leaves the function no writer ([`refusal`] says why).

use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use crate::desugar::internal::FreshNames;

/// The name a struct writer method's lowering gives `self` (`this`,
/// unless the function names something so), which its error messages
/// say as `self` (`diag::renamed_in_code`); `None` for any other function.
pub fn receiver_name(item: &syn::ItemFn) -> Option<String> {
    match lent_struct(item)? {
        (_, Lent::Receiver) if refusal(item, &Lent::Receiver).is_none() => {
            Some(FreshNames::of(item).fresh("this"))
        }
        _ => None,
    }
}

/// `item` as the function returning the struct it changes, and the index
/// of the parameter its callers lend (the receiver's is 0); `None` where
/// it is no struct writer.
pub fn struct_writer(item: &syn::ItemFn) -> Option<(syn::ItemFn, usize)> {
    let (k, lent) = lent_struct(item)?;
    if refusal(item, &lent).is_some() {
        return None;
    }
    let mut item = item.clone();
    let (name, path, ty) = match &lent {
        Lent::Receiver => {
            let this = FreshNames::of(&item).fresh("this");
            (
                syn::Ident::new(&this, proc_macro2::Span::call_site()),
                syn::parse_quote!(Self),
                syn::parse_quote!(Self),
            )
        }
        Lent::Param { name, ty } => (name.clone(), struct_path(ty)?, (**ty).clone()),
    };
    match (&lent, item.sig.inputs.iter_mut().nth(k)?) {
        (Lent::Receiver, syn::FnArg::Receiver(r)) => {
            r.mutability = None;
            *r = syn::parse_quote!(&self);
        }
        (Lent::Param { .. }, syn::FnArg::Typed(t)) => {
            *t.ty = syn::parse_quote!(&#ty);
            if let syn::Pat::Ident(p) = &mut *t.pat {
                p.mutability = None;
            }
        }
        _ => return None,
    }
    item.sig.output = syn::parse_quote!(-> #ty);
    if matches!(lent, Lent::Receiver) {
        SelfAs(&name).visit_block_mut(&mut item.block);
    }
    let names = FreshNames::of(&item);
    FieldWriters(&name, names).visit_block_mut(&mut item.block);
    LentOn(&name).visit_block_mut(&mut item.block);
    Assignments {
        name: &name,
        path: &path,
    }
    .visit_block_mut(&mut item.block);
    // The struct is returned once, at the end: guard clauses (`if c {
    // ..; return; }`) as branches.
    item.block.stmts = super::unit_guards(std::mem::take(&mut item.block.stmts));
    super::returning(&mut item.block, std::slice::from_ref(&name));
    let from: syn::Expr = match lent {
        Lent::Receiver => syn::parse_quote!(self),
        Lent::Param { .. } => syn::parse_quote!(#name),
    };
    item.block
        .stmts
        .insert(0, syn::parse_quote!(let mut #name = #path { ..#from };));
    Some((item, k))
}

/// Why a function that returns nothing and changes one struct through
/// `&mut` is no struct writer: the use of the struct it does not follow.
pub fn refused(item: &syn::ItemFn) -> Option<syn::Error> {
    let (_, lent) = lent_struct(item)?;
    refusal(item, &lent)
}

/// What a struct writer changes.
enum Lent {
    Receiver,
    Param {
        name: syn::Ident,
        ty: Box<syn::Type>,
    },
}

/// The one `&mut` parameter of a function returning nothing, where it is
/// a struct (a path that is no float, no `Vec`) or the receiver, and its
/// index.
fn lent_struct(item: &syn::ItemFn) -> Option<(usize, Lent)> {
    if !matches!(item.sig.output, syn::ReturnType::Default) {
        return None;
    }
    let generic: Vec<String> = item
        .sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let is_struct = |ty: &syn::Type| is_struct(ty, &generic);
    let mut found = None;
    for (k, arg) in item.sig.inputs.iter().enumerate() {
        let lent = match arg {
            syn::FnArg::Receiver(r) if r.reference.is_some() && r.mutability.is_some() => {
                Lent::Receiver
            }
            syn::FnArg::Typed(t) => match (&*t.ty, &*t.pat) {
                (syn::Type::Reference(r), syn::Pat::Ident(p)) if r.mutability.is_some() => {
                    if p.by_ref.is_some() || p.subpat.is_some() || !is_struct(&r.elem) {
                        return None;
                    }
                    Lent::Param {
                        name: p.ident.clone(),
                        ty: r.elem.clone(),
                    }
                }
                (syn::Type::Reference(r), _) if r.mutability.is_some() => return None,
                _ => continue,
            },
            _ => continue,
        };
        if found.is_some() {
            return None;
        }
        found = Some((k, lent));
    }
    found
}

/// Whether `ty` names a struct: a path, no float or `Vec` (a writer of
/// those is `mut_params.rs`'s), no type parameter of the function's.
fn is_struct(ty: &syn::Type, generic: &[String]) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    p.qself.is_none()
        && ![
            "f64", "f32", "Vec", "VecDeque", "String", "usize", "isize", "bool",
        ]
        .contains(&name.as_str())
        && !(p.path.segments.len() == 1 && generic.contains(&name))
}

/// The path a struct literal of `ty` is written with: its own, without
/// generic arguments (rustc infers them).
fn struct_path(ty: &syn::Type) -> Option<syn::Path> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let mut path = p.path.clone();
    for s in &mut path.segments {
        s.arguments = syn::PathArguments::None;
    }
    Some(path)
}

/// Why a function that changes a struct through `&mut` is no struct
/// writer the macro follows: the use of the struct it does not follow,
/// with what to write instead; `None` where it is one.
fn refusal(item: &syn::ItemFn, lent: &Lent) -> Option<syn::Error> {
    let mut u = Uses {
        name: match lent {
            Lent::Receiver => "self".to_string(),
            Lent::Param { name, .. } => name.to_string(),
        },
        bad: None,
    };
    u.visit_block(&item.block);
    u.bad
}

/// Whether `method` is one of `std`'s that change their receiver in
/// place (a `Vec`'s, a slice's, an `Option`'s).
fn changes_in_place(method: &syn::Ident) -> bool {
    crate::rules::changes_a_vec(method)
        || matches!(
            method.to_string().as_str(),
            "push"
                | "iter_mut"
                | "as_mut"
                | "as_mut_slice"
                | "get_mut"
                | "first_mut"
                | "last_mut"
                | "split_at_mut"
                | "chunks_mut"
                | "swap"
                | "fill"
                | "copy_from_slice"
                | "clone_from_slice"
                | "take"
                | "replace"
                | "insert"
        )
}

/// The uses of the struct a writer changes that it does not follow.
struct Uses {
    name: String,
    bad: Option<syn::Error>,
}

impl Uses {
    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }

    fn refuse(&mut self, at: &dyn quote::ToTokens, what: &str) {
        let n = &self.name;
        let advice = format!("compute the new field and assign it whole, as in `let mut w = {n}.w.clone(); w[i] = ..; {n}.w = w;`");
        self.refuse_with(at, what, &advice);
    }

    fn refuse_with(&mut self, at: &dyn quote::ToTokens, what: &str, advice: &str) {
        if self.bad.is_none() {
            let n = &self.name;
            self.bad = Some(syn::Error::new_spanned(at, format!(
                "#[grad] differentiates a function that changes `{n}` through `&mut` where it assigns whole fields (`{n}.x = ..`, `{n}.x += ..`), an element of an array field (`{n}.w[i] -= ..`) or the whole struct; here {what}: {advice}"
            )));
        }
    }
}

impl<'a> Visit<'a> for Uses {
    /// `w.f.step(dt);`: a writer's call on a field, followed
    /// (`FieldWriters`); its arguments are read.
    fn visit_stmt(&mut self, s: &'a syn::Stmt) {
        if let Some(call) = field_writer_call(s, &self.name) {
            for a in &call.args {
                self.visit_expr(a);
            }
            return;
        }
        // `w.f[i] -= ..;`: on a copy of the field (`FieldWriters`).
        if let Some((_, index, value)) = field_element_store(s, &self.name) {
            self.visit_expr(index);
            self.visit_expr(value);
            return;
        }
        syn::visit::visit_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'a syn::Expr) {
        match e {
            syn::Expr::Assign(a) => {
                self.assigned(&a.left);
                self.visit_expr(&a.right);
            }
            syn::Expr::Binary(b) if is_compound(&b.op) => {
                self.assigned(&b.left);
                self.visit_expr(&b.right);
            }
            // `&mut w.f`, `&mut w.f[i]`: a part lent to be changed.
            syn::Expr::Reference(r) if r.mutability.is_some() && self.part(&r.expr) => {
                self.refuse(r, "a part of it is lent by `&mut`")
            }
            // `w.f.iter_mut()`, `w.f.push(x)`, `w.f.sort_by(..)`: a part
            // changed by a method of `std`'s.
            syn::Expr::MethodCall(m) if self.part(&m.receiver) && changes_in_place(&m.method) => {
                let what = format!("a part of it is changed by `{}`", m.method);
                self.refuse(m, &what)
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

impl Uses {
    /// The target of an assignment: a whole field, or anything not of the
    /// struct.
    fn assigned(&mut self, target: &syn::Expr) {
        match target {
            syn::Expr::Field(f) if self.is_name(&f.base) => {}
            other if self.is_name(other) => {}
            // `self.osc.v *= g` (trial 12 r1030): the field of a field.
            syn::Expr::Field(f) if matches!(&*f.base, syn::Expr::Field(b) if self.is_name(&b.base)) =>
            {
                let inner = crate::diag::show(&quote::ToTokens::to_token_stream(&f.base));
                let member = crate::diag::show(&quote::ToTokens::to_token_stream(&f.member));
                let advice = format!("assign `{inner}` a struct built whole, every field named, as in `{inner} = Inner {{ {member}: .., other: {inner}.other }};` (a copy changed and assigned back, `let mut o = {inner}; o.{member} = ..; {inner} = o;`, is not followed yet)");
                self.refuse_with(target, "a field of a field is changed in place", &advice)
            }
            other if self.part(other) => {
                self.refuse(other, "a part of a field is changed in place")
            }
            other => self.visit_expr(other),
        }
    }

    /// Whether `e` is a part of the struct below a field (`w.f[i]`,
    /// `w.f.g`), or a field of it (`w.f`).
    fn part(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Field(f) => self.is_name(&f.base) || self.part(&f.base),
            syn::Expr::Index(i) => self.part(&i.expr),
            syn::Expr::Paren(p) => self.part(&p.expr),
            _ => false,
        }
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    compound_op(op).is_some()
}

/// The operator of a compound assignment, `+` for `+=`.
fn compound_op(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(t) => B::Add(syn::Token![+](t.spans[0])),
        B::SubAssign(t) => B::Sub(syn::Token![-](t.spans[0])),
        B::MulAssign(t) => B::Mul(syn::Token![*](t.spans[0])),
        B::DivAssign(t) => B::Div(syn::Token![/](t.spans[0])),
        B::RemAssign(t) => B::Rem(syn::Token![%](t.spans[0])),
        _ => return None,
    })
}

/// The call of a statement `w.f.m(args);` (a method that is no `std`
/// one) on a field `f` of the struct `name` a writer changes: a writer's
/// call on the field, which `FieldWriters` makes on a copy of it, assigned
/// back. (A field lent by `&mut` to a function, `kick(&mut w.f, x);`, is
/// refused: the field may be a float, which a float writer takes, and the
/// copy's type is not seen.)
fn field_writer_call<'s>(s: &'s syn::Stmt, name: &str) -> Option<&'s syn::ExprMethodCall> {
    let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = s else {
        return None;
    };
    let on_field = matches!(&*m.receiver, syn::Expr::Field(f)
        if matches!(&*f.base, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name)));
    (on_field
        && !changes_in_place(&m.method)
        && !crate::rules::is_std_method(&m.method.to_string()))
    .then_some(m)
}

/// A statement storing into an element of a whole field of the struct
/// `name` a writer changes, `w.f[i] = ..;` or `w.f[i] -= ..;`: the field
/// `w.f`, the index and the value.
fn field_element_store<'s>(
    s: &'s syn::Stmt,
    name: &str,
) -> Option<(&'s syn::Expr, &'s syn::Expr, &'s syn::Expr)> {
    let syn::Stmt::Expr(e, Some(_)) = s else {
        return None;
    };
    let (left, value) = match e {
        syn::Expr::Assign(a) => (&*a.left, &*a.right),
        syn::Expr::Binary(b) if is_compound(&b.op) => (&*b.left, &*b.right),
        _ => return None,
    };
    let syn::Expr::Index(ix) = left else {
        return None;
    };
    let syn::Expr::Field(f) = &*ix.expr else {
        return None;
    };
    let of_name =
        matches!(&*f.base, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name));
    of_name.then_some((&*ix.expr, &*ix.index, value))
}

/// `w.f.step(dt);` (`field_writer_call`): the call on a copy of the
/// field, which is assigned back whole, `{ let mut f = w.f; f.step(dt);
/// w.f = f; }`; the lowering takes the copy
/// as a local struct a writer changes, and the assignment as any whole
/// field's (`Assignments`). And `w.f[i] -= ..;` (`field_element_store`),
/// the store into a copy of the array field, `{ let mut f =
/// w.f.clone(); f[i] -= ..; w.f = f; }` (the value and the index read the
/// field as it was, as they would before the store).
struct FieldWriters<'a>(&'a syn::Ident, FreshNames);

impl FieldWriters<'_> {
    /// `w.f[i] -= ..;` as the three statements of the block it is in (a
    /// local array declared in a nested block would be kept as written).
    fn element_store(&mut self, s: &syn::Stmt) -> Option<[syn::Stmt; 3]> {
        let (field, _, _) = field_element_store(s, &self.0.to_string())?;
        let field = field.clone();
        let span = syn::spanned::Spanned::span(&field);
        let syn::Expr::Field(f) = &field else {
            return None;
        };
        let copy = syn::Ident::new(&self.1.fresh(&member_name(&f.member)), span);
        let mut store = s.clone();
        if let syn::Stmt::Expr(syn::Expr::Assign(syn::ExprAssign { left, .. }), _)
        | syn::Stmt::Expr(syn::Expr::Binary(syn::ExprBinary { left, .. }), _) = &mut store
        {
            if let syn::Expr::Index(ix) = &mut **left {
                *ix.expr = syn::parse_quote_spanned!(span=> #copy);
            }
        }
        Some([
            syn::parse_quote_spanned!(span=> let mut #copy = #field.clone();),
            store,
            syn::parse_quote_spanned!(span=> #field = #copy;),
        ])
    }
}

impl VisitMut for FieldWriters<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            match self.element_store(&s) {
                Some(three) => stmts.extend(three),
                None => {
                    self.visit_stmt_mut(&mut s);
                    stmts.push(s);
                }
            }
        }
        b.stmts = stmts;
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        let Some(call) = field_writer_call(s, &self.0.to_string()) else {
            return;
        };
        let mut call = call.clone();
        let span = syn::spanned::Spanned::span(&call);
        let syn::Expr::Field(f) = &*call.receiver else {
            return;
        };
        let field = syn::Expr::Field(f.clone());
        let copy = syn::Ident::new(&self.1.fresh(&member_name(&f.member)), span);
        *call.receiver = syn::parse_quote_spanned!(span=> #copy);
        *s = syn::parse_quote_spanned!(span=> {
            let mut #copy = #field;
            #call;
            #field = #copy;
        });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// What a field's copy is named from: the field's own name (`inner`), or
/// `field_0` for a tuple struct's.
fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(n) => n.to_string(),
        syn::Member::Unnamed(i) => format!("field_{}", i.index),
    }
}

/// `self` as `name` (a method's receiver, which no `let` can bind again).
struct SelfAs<'a>(&'a syn::Ident);

impl VisitMut for SelfAs<'_> {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident("self") {
            let span = p.path.segments[0].ident.span();
            p.path = syn::Ident::new(&self.0.to_string(), span).into();
        }
    }

    /// `vec![self.x]`, `assert!(self.x > 0.0)`: the variable too (the
    /// struct as changed so far), not the receiver left as it was on
    /// entry; `self::f` stays a path.
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = self_renamed(m.tokens.clone(), self.0);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `tokens` with each `self` that is no path's first segment renamed `to`.
fn self_renamed(tokens: proc_macro2::TokenStream, to: &syn::Ident) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree as T;
    let tokens: Vec<T> = tokens.into_iter().collect();
    let path_after = |k: usize| {
        matches!((tokens.get(k + 1), tokens.get(k + 2)), (Some(T::Punct(a)), Some(T::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':')
    };
    tokens
        .iter()
        .enumerate()
        .map(|(k, t)| match t {
            T::Ident(i) if i == "self" && !path_after(k) => {
                T::Ident(syn::Ident::new(&to.to_string(), i.span()))
            }
            T::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), self_renamed(g.stream(), to));
                inner.set_span(g.span());
                T::Group(inner)
            }
            other => other.clone(),
        })
        .collect()
}

/// The reference the writer holds, passed on to a call (`kick(self, f)`,
/// `kick(b, f)`): the variable lent, `kick(&mut this, f)`. An array
/// writer's array too (`desugar/mut_params.rs`, `scale(v, k);`).
pub(super) struct LentOn<'a>(pub(super) &'a syn::Ident);

impl VisitMut for LentOn<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let name = self.0;
        let is_name = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name));
        // `*w` (`&mut *self`, `(*b).x`): the variable itself.
        if let syn::Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_)) && is_name(&u.expr) {
                *e = (*u.expr).clone();
                return;
            }
        }
        // `&mut w` passed on stays as it is.
        if let syn::Expr::Reference(r) = e {
            if is_name(&r.expr) {
                return;
            }
        }
        // A call whose value is used reads it (`Self::m0(self, x)`):
        // lent by `&`; a call as a statement may change it (below).
        lend(e, name, quote::quote!(&));
    }

    /// `kick(self, f);`, a call as a statement, may change it (a writer's):
    /// lent by `&mut`.
    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        if let syn::Stmt::Expr(e @ (syn::Expr::Call(_) | syn::Expr::MethodCall(_)), Some(_)) = s {
            lend(e, self.0, quote::quote!(&mut));
        }
        syn::visit_mut::visit_stmt_mut(self, s);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The arguments of the call `e` that are `name` bare, as `#by name`.
fn lend(e: &mut syn::Expr, name: &syn::Ident, by: proc_macro2::TokenStream) {
    let args = match e {
        syn::Expr::Call(c) => &mut c.args,
        syn::Expr::MethodCall(m) => &mut m.args,
        _ => return,
    };
    for a in args.iter_mut() {
        if matches!(a, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name)) {
            let span = syn::spanned::Spanned::span(&*a);
            *a = syn::parse_quote_spanned!(span=> #by #name);
        }
    }
}

/// Each whole field's assignment, `w.f = e` or `w.f op= e`, as the struct
/// built again, `w = Path { f: e, ..w }` (`Path { f: w.f op e, ..w }`).
struct Assignments<'a> {
    name: &'a syn::Ident,
    path: &'a syn::Path,
}

impl Assignments<'_> {
    fn field<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::Member> {
        match e {
            syn::Expr::Field(f) => match &*f.base {
                syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name) => {
                    Some(&f.member)
                }
                _ => None,
            },
            _ => None,
        }
    }
}

impl VisitMut for Assignments<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        // `*w = value`: `w = value`.
        if let syn::Expr::Assign(a) = e {
            if let syn::Expr::Unary(u) = &*a.left {
                let named = matches!(&*u.expr, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name));
                if matches!(u.op, syn::UnOp::Deref(_)) && named {
                    *a.left = (*u.expr).clone();
                    return;
                }
            }
        }
        let (member, value): (syn::Member, syn::Expr) = match e {
            syn::Expr::Assign(a) => match self.field(&a.left) {
                Some(m) => (m.clone(), (*a.right).clone()),
                None => return,
            },
            syn::Expr::Binary(b) => match (self.field(&b.left), compound_op(&b.op)) {
                (Some(m), Some(op)) => {
                    let (left, right) = (&b.left, &b.right);
                    (m.clone(), syn::parse_quote!(#left #op (#right)))
                }
                _ => return,
            },
            _ => return,
        };
        let (name, path) = (self.name, self.path);
        let span = syn::spanned::Spanned::span(&*e);
        *e = syn::parse_quote_spanned!(span=> #name = #path { #member: #value, ..#name });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
