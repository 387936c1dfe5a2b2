//! A local struct read and written through its fields, `let mut p =
//! Point { x: a, y: b }; p.y = p.x * b; p.x * p.y`, as one variable per
//! field: `let mut p_x = a; let mut p_y = b; p_y = p_x * b; p_x * p_y`
//! (scalar replacement of aggregates). The macro then follows each field
//! as the float it is, whether the struct derives `Differentiable` or
//! not. Where the struct is used whole in a way that cannot change it, it
//! is built again from its fields' variables at that point, `Point { x:
//! p_x, y: p_y }` (`Op::Construct` in the lowering): passed to a call or a
//! method (`norm(&p)`, `q.dist(p)`), copied (`let q = p;`, `p.clone()`,
//! `Point { y: 0.0, ..p }`), and, if the struct is not `mut`, as a method's
//! receiver (`p.norm()`: a `let` without `mut` cannot be changed by it).
//! Any other use whole (a method on a `let mut` struct, which may change
//! it, `&mut p`, returned, compared, inside a macro) leaves the struct as
//! written: its fields' derivatives would have to pass through the value.

use std::collections::HashSet;

use crate::desugar::internal::{binds, mentions, plain_let, FreshNames};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

mod copies;
mod defaulted;
mod operators;
mod receiver_calls;
mod rename;
mod shadows;
mod tuples;
mod uses;
use rename::Rename;
use uses::fields_only;

/// `item` with its local structs split into one variable per field, and
/// the names of the structs it builds for a method of a `mut` one to be
/// called on ([`Rebuild::receiver`]), which the lowering builds whole
/// (`Op::Construct`) instead of keeping as written.
pub fn split(mut item: syn::ItemFn, wrt: Option<&[syn::Ident]>) -> (syn::ItemFn, HashSet<String>) {
    let mut s = Split {
        names: FreshNames::of(&item),
        receivers: HashSet::new(),
        changed: false,
        params: copies::struct_params(&item.sig, wrt),
    };
    // Again while a pass splits something: a struct's copy in a loop
    // (`let prev = s;`) is a struct written out only once the outer
    // struct is split.
    for _ in 0..8 {
        s.changed = false;
        s.visit_block_mut(&mut item.block);
        if !s.changed {
            break;
        }
    }
    (item, s.receivers)
}

struct Split {
    /// Names apart from the function's and from each other.
    names: FreshNames,
    /// See [`split`].
    receivers: HashSet<String>,
    /// Whether this pass split a struct.
    changed: bool,
    /// The parameters that hold a struct, by name: the struct's path
    /// (`copies.rs`).
    params: std::collections::HashMap<String, copies::StructParam>,
}

impl VisitMut for Split {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let mut i = 0;
        while i < b.stmts.len() {
            if let Some(split) = self
                .defaulted(&b.stmts[i..])
                .or_else(|| self.tuple_elements(&b.stmts[i..]))
            {
                self.changed = true;
                b.stmts.truncate(i);
                b.stmts.extend(split);
                i += 1;
                continue;
            }
            let found = struct_let(&b.stmts[i])
                .or_else(|| copies::parameter_copy(&self.params, &b.stmts[i], &b.stmts[i + 1..]));
            if let Some((name, mutable, path, fields)) = found {
                let end = b.stmts[i + 1..]
                    .iter()
                    .position(|s| binds(s, &name))
                    .unwrap_or(b.stmts.len() - i - 1);
                // The name bound again inside (`let s = s.stepped();` in
                // an arm): that variable renamed apart (`shadows.rs`).
                if b.stmts[i + 1..i + 1 + end]
                    .iter()
                    .any(|s| crate::desugar::internal::binds_inside(s, &name))
                {
                    let fresh = syn::Ident::new(&self.names.fresh(&name.to_string()), name.span());
                    shadows::renamed_apart(&mut b.stmts[i + 1..i + 1 + end], &name, &fresh);
                }
                // `p + q`, `p * k`: the struct's operators, as its methods.
                if operators::as_methods(&name, &mut b.stmts[i + 1..]) {
                    self.changed = true;
                }
                let rest = &b.stmts[i + 1..];
                let field_names: Vec<String> = fields.iter().map(|(f, _)| f.to_string()).collect();
                let mut r = Rebuild {
                    name: name.to_string(),
                    path: &path,
                    fields: &field_names,
                    mutable,
                    names: &mut self.names,
                    receivers: &mut self.receivers,
                    skippable: false,
                };
                let mut rebuilt = r.stmts(rest[..end].to_vec());
                // `let g = g.posterior(x);`: the initialiser of the `let`
                // that binds the name again reads the struct, whole or by
                // its fields (the pattern binds a new one).
                let mut rebinding_ok = true;
                let mut rebound = false;
                if let Some(syn::Stmt::Local(l)) = rest.get(end) {
                    if let Some(init) = l.init.as_ref().filter(|_| mentions(&rest[end], &name)) {
                        let mut value = (*init.expr).clone();
                        r.visit_expr_mut(&mut value);
                        let s = syn::Stmt::Expr(value.clone(), None);
                        rebinding_ok =
                            init.diverge.is_none() && fields_only(&s, &name, &field_names);
                        let mut l = l.clone();
                        if let Some(i) = &mut l.init {
                            *i.expr = value;
                        }
                        rebuilt.push(syn::Stmt::Local(l));
                        rebound = true;
                    }
                }
                let rebuilt = Some(rebuilt).filter(|r| {
                    r.iter().all(|s| match s {
                        // The rebinding `let`: its initialiser, checked above.
                        syn::Stmt::Local(l) if binds(s, &name) => l.init.is_some(),
                        _ => fields_only(s, &name, &field_names),
                    })
                });
                // After the `let` that binds the name again, it names the
                // new value.
                if let Some(rebuilt) = rebuilt.filter(|_| rebinding_ok) {
                    self.changed = true;
                    let vars: Vec<(String, syn::Ident)> = fields
                        .iter()
                        .map(|(f, _)| {
                            let v = self.names.fresh(&format!("{name}_{f}"));
                            (f.to_string(), syn::Ident::new(&v, f.span()))
                        })
                        .collect();
                    let mut lets: Vec<syn::Stmt> = Vec::new();
                    for ((_, e), (_, v)) in fields.iter().zip(&vars) {
                        let m = mutable.then(|| quote::quote!(mut));
                        // A field built by a literal of its own (`Rig {
                        // body: Body { .. }, .. }`) is a local struct in
                        // turn, which the next pass splits: a plain `let`.
                        match struct_literal(e) {
                            true => lets.push(syn::parse_quote!(let #m #v = #e;)),
                            false => {
                                let allow = field_variable_allow();
                                lets.push(syn::parse_quote!(#allow let #m #v = #e;))
                            }
                        }
                    }
                    let whole = syn::Ident::new(&self.names.fresh(&name.to_string()), name.span());
                    lets.extend(typed_by_struct(&path, &fields, &vars, &whole));
                    let mut rename = Rename {
                        name: name.to_string(),
                        vars,
                    };
                    let mut tail: Vec<syn::Stmt> = rebuilt;
                    for s in &mut tail {
                        rename.visit_stmt_mut(s);
                    }
                    // The rebinding `let` is already among them.
                    let after = end + usize::from(rebound);
                    tail.extend(rest[after.min(rest.len())..].iter().cloned());
                    b.stmts.truncate(i);
                    let added = lets.len();
                    b.stmts.extend(lets);
                    b.stmts.extend(tail);
                    i += added;
                    continue;
                }
            }
            i += 1;
        }
    }
}

/// A local struct to split: its name, whether `mut`, the struct's path
/// and its fields with their values, in order.
type StructLet = (syn::Ident, bool, syn::Path, Vec<(syn::Ident, syn::Expr)>);

/// `let [mut] p = Path { f: e, .. };` as a [`StructLet`].
fn struct_let(stmt: &syn::Stmt) -> Option<StructLet> {
    // A field's variable of a struct split before, `#[allow(unused_mut,
    // unused_variables)] let saved_body = r_body;`, that became a literal
    // once `r_body` was split in turn (`Rig { body: Body { .. }, .. }`
    // copied, trial 11 B6): its `allow` goes with the `let` it is split
    // into. (A receiver built for a method, `#[allow(unused_mut)] let mut
    // b_recv = ..`, stays whole: `Rebuild::receiver`.)
    let bare;
    let stmt = match stmt {
        syn::Stmt::Local(l) if is_field_variable(l) => {
            let mut l = l.clone();
            l.attrs.clear();
            bare = syn::Stmt::Local(l);
            &bare
        }
        other => other,
    };
    let l = plain_let(stmt, false)?;
    let syn::Expr::Struct(s) = l.init_bare() else {
        return None;
    };
    if s.rest.is_some() || s.qself.is_some() || s.fields.is_empty() {
        return None;
    }
    let mut fields = Vec::new();
    for f in &s.fields {
        let syn::Member::Named(n) = &f.member else {
            return None;
        };
        // `Memo { last: Cell::new(0.0) }`: a call given `&m` may change
        // the field through it, which a struct built again from the
        // fields' variables would take instead (and move the field out).
        if crate::rules::interior_mutable(&f.expr, true) {
            return None;
        }
        fields.push((n.clone(), f.expr.clone()));
    }
    Some((l.name(), l.mutable(), s.path.clone(), fields))
}

/// The attribute on the `let` of a field's variable that [`Split`]
/// writes (`#[allow(unused_mut, unused_variables)] let p_x = ..;`): a field
/// the rest never reads or changes warns nothing in the user's crate.
fn field_variable_allow() -> syn::Attribute {
    syn::parse_quote!(#[allow(unused_mut, unused_variables)])
}

/// Whether `l` is the `let` of a field's variable, as [`Split`] writes it.
fn is_field_variable(l: &syn::Local) -> bool {
    matches!(&l.attrs[..], [attr] if *attr == field_variable_allow())
}

/// Whether `e` is a struct literal [`struct_let`] splits.
fn struct_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Struct(s) => {
            s.rest.is_none()
                && s.qself.is_none()
                && !s.fields.is_empty()
                && s.fields
                    .iter()
                    .all(|f| matches!(f.member, syn::Member::Named(_)))
        }
        syn::Expr::Paren(p) => struct_literal(&p.expr),
        _ => false,
    }
}

/// `let q_f1 = 1.0;` of a field given a literal without a suffix has a
/// type Rust would take from the struct's field, and a float method on
/// it (`q.f1.min(x)`) is E0689, an ambiguous numeric type: a closure,
/// never called, ties each variable to its field's type, `let _ = |q_1:
/// &_| { let P { f0, f1, .. } = q_1; let _ = [(f0, f1), (&q_f0,
/// &q_f1)]; };` (all fields but those built by a literal, for a generic
/// struct's parameters; `whole` a fresh name). `None` where no
/// field's value is such a literal.
fn typed_by_struct(
    path: &syn::Path,
    fields: &[(syn::Ident, syn::Expr)],
    vars: &[(String, syn::Ident)],
    whole: &syn::Ident,
) -> Option<syn::Stmt> {
    if !fields.iter().any(|(_, e)| untyped_literal(e)) {
        return None;
    }
    // Not a field built by a literal of its own, which its path types
    // (and whose variable, read here, the next pass could not split).
    let (names, vars): (Vec<&syn::Ident>, Vec<&syn::Ident>) = fields
        .iter()
        .zip(vars)
        .filter(|((_, e), _)| !struct_literal(e))
        .map(|((f, _), (_, v))| (f, v))
        .unzip();
    Some(syn::parse_quote!(
        let _ = |#whole: &_| {
            let #path { #(#names,)* .. } = #whole;
            let _ = [(#(#names,)*), (#(&#vars,)*)];
        };
    ))
}

/// A numeric literal without a suffix, or arithmetic of such (`1.0`,
/// `-2`, `(0.5 * 3.0)`): of no type of its own.
pub(super) fn untyped_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => f.suffix().is_empty(),
            syn::Lit::Int(i) => i.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && untyped_literal(&u.expr),
        syn::Expr::Paren(p) => untyped_literal(&p.expr),
        syn::Expr::Binary(b) => untyped_literal(&b.left) && untyped_literal(&b.right),
        _ => false,
    }
}

/// The struct's uses whole that cannot change it, each replaced by the
/// struct built again from its fields (`Path { x: p.x, y: p.y }`, which
/// `Rename` then reads from the fields' variables); the struct replaced
/// whole (`p = step(&p);`, `p = Path { .. };`, `p = p.advanced(dt);`) as
/// each field assigned from the new value, and returned whole (a block's
/// last expression, `return p`) as built again. Other uses whole are left
/// for `fields_only` to find.
struct Rebuild<'a> {
    name: String,
    path: &'a syn::Path,
    fields: &'a [String],
    mutable: bool,
    names: &'a mut FreshNames,
    /// See [`split`].
    receivers: &'a mut HashSet<String>,
    /// Inside the right operand of `&&` or `||`, which may not run: a
    /// method on a `mut` struct there, which may change it, is left whole
    /// (and refused), its changes could not be written back.
    skippable: bool,
}

impl Rebuild<'_> {
    /// A statement list with each statement rebuilt, a replacement of the
    /// struct whole spliced in as several.
    fn stmts(&mut self, stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let last = stmts.len().saturating_sub(1);
        for (i, mut s) in stmts.into_iter().enumerate() {
            // A `match` whose value is dropped: an arm that is a method
            // call on the struct (`0 => p.kick(x),`) is the statement it
            // stands for, `0 => { p.kick(x); }`, which is hoisted.
            if let syn::Stmt::Expr(syn::Expr::Match(m), semi) = &mut s {
                if semi.is_some() || i < last {
                    for arm in &mut m.arms {
                        let on_struct = matches!(&*arm.body,
                            syn::Expr::MethodCall(c) if self.is_name(&c.receiver));
                        if on_struct {
                            let body = &arm.body;
                            *arm.body = syn::parse_quote!({ #body; });
                            arm.comma = Some(Default::default());
                        }
                    }
                }
            }
            if let syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) = &s {
                if self.is_name(&a.left) {
                    out.extend(self.replaced(&a.right));
                    continue;
                }
            }
            if let syn::Stmt::Expr(e, None) = &mut s {
                if self.is_name(e) {
                    *e = self.built(e);
                    out.push(s);
                    continue;
                }
            }
            if let Some(hoisted) = self.hoisted(&s) {
                out.extend(hoisted);
                continue;
            }
            self.visit_stmt_mut(&mut s);
            out.push(s);
        }
        out
    }

    /// `p = value;` as `let t = value; p.x = t.x; p.y = t.y;` (`p.x =
    /// t_x; ..` for a struct written out): the new value computed whole
    /// first, as Rust does. `p = p.advanced(dt)` replaces every field, so a
    /// method called on `p` there changes nothing that is kept: it is
    /// called on `p` built again, even if `p` is `mut`.
    fn replaced(&mut self, value: &syn::Expr) -> Vec<syn::Stmt> {
        let span = syn::spanned::Spanned::span(value);
        let name = syn::Ident::new(&self.name, span);
        let mut value = value.clone();
        // Its arguments may read `p` too (`p = p.advanced(p.x * dt)`): Rust
        // lends the receiver first, so they cannot change it.
        if let syn::Expr::MethodCall(m) = &mut value {
            if self.is_name(&m.receiver) {
                *m.receiver = self.built(&m.receiver);
            }
        }
        self.visit_expr_mut(&mut value);
        let mut out: Vec<syn::Stmt> = Vec::new();
        let written_out = match &value {
            syn::Expr::Struct(st) if st.rest.is_none() && st.path == *self.path => {
                let given: Vec<(String, &syn::Expr)> = st
                    .fields
                    .iter()
                    .filter_map(|f| match &f.member {
                        syn::Member::Named(n) => Some((n.to_string(), &f.expr)),
                        syn::Member::Unnamed(_) => None,
                    })
                    .collect();
                (given.len() == self.fields.len()
                    && self
                        .fields
                        .iter()
                        .all(|f| given.iter().any(|(g, _)| g == f)))
                .then_some(given)
            }
            _ => None,
        };
        match written_out {
            Some(given) => {
                let mut assigns = Vec::new();
                for (f, e) in given {
                    let t = syn::Ident::new(&self.names.fresh(&format!("{}_{f}", self.name)), span);
                    let f = syn::Ident::new(&f, span);
                    out.push(syn::parse_quote_spanned!(span=> let #t = #e;));
                    assigns.push(syn::parse_quote_spanned!(span=> #name.#f = #t;));
                }
                out.extend(assigns);
            }
            None => {
                let t = syn::Ident::new(&self.names.fresh(&format!("{}_new", self.name)), span);
                out.push(syn::parse_quote_spanned!(span=> let #t = #value;));
                for f in self.fields {
                    let f = syn::Ident::new(f, span);
                    out.push(syn::parse_quote_spanned!(span=> #name.#f = #t.#f;));
                }
            }
        }
        out
    }

    fn is_name(&self, e: &syn::Expr) -> bool {
        matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }

    /// `(Path { x: p.x, y: p.y })`, spanned at `p`.
    fn built(&self, at: &syn::Expr) -> syn::Expr {
        let span = syn::spanned::Spanned::span(at);
        let name = syn::Ident::new(&self.name, span);
        let path = self.path;
        let fields = self.fields.iter().map(|f| syn::Ident::new(f, span));
        let fields2 = fields.clone();
        syn::parse_quote_spanned!(span=> (#path { #(#fields: #name.#fields2),* }))
    }

    /// An argument `p` or `&p`, built again in place.
    fn argument(&mut self, a: &mut syn::Expr) -> bool {
        match a {
            syn::Expr::Reference(r) if r.mutability.is_none() && self.is_name(&r.expr) => {
                *r.expr = self.built(&r.expr);
                true
            }
            _ if self.is_name(a) => {
                *a = self.built(a);
                true
            }
            _ => false,
        }
    }
}

impl VisitMut for Rebuild<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts = self.stmts(std::mem::take(&mut b.stmts));
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            // What runs only if `&&` or `||` says so (`x > 1.0 || hp(&q,
            // y) > 0.2`): the struct built again there too, but a method
            // on a `mut` one left whole (`skippable`).
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                self.visit_expr_mut(&mut b.left);
                let outer = std::mem::replace(&mut self.skippable, true);
                self.visit_expr_mut(&mut b.right);
                self.skippable = outer;
            }
            // `return p`: a copy.
            syn::Expr::Return(r) if r.expr.as_deref().is_some_and(|x| self.is_name(x)) => {
                if let Some(x) = &mut r.expr {
                    **x = self.built(x);
                }
            }
            syn::Expr::Call(c) => {
                self.visit_expr_mut(&mut c.func);
                for a in c.args.iter_mut() {
                    if !self.argument(a) {
                        self.visit_expr_mut(a);
                    }
                }
            }
            // `p.clone()`: a copy.
            syn::Expr::MethodCall(m)
                if self.is_name(&m.receiver) && m.method == "clone" && m.args.is_empty() =>
            {
                *e = self.built(&m.receiver);
            }
            syn::Expr::MethodCall(m) if self.is_name(&m.receiver) && self.mutable => {
                if !self.skippable {
                    *e = self.receiver(m);
                }
            }
            syn::Expr::MethodCall(m) => {
                if self.is_name(&m.receiver) {
                    *m.receiver = self.built(&m.receiver);
                } else {
                    self.visit_expr_mut(&mut m.receiver);
                }
                for a in m.args.iter_mut() {
                    if !self.argument(a) {
                        self.visit_expr_mut(a);
                    }
                }
            }
            // `Path { y: 0.0, ..p }`: the fields not given, from `p`.
            syn::Expr::Struct(st)
                if st.rest.as_deref().is_some_and(|r| self.is_name(r)) && st.path == *self.path =>
            {
                let span = syn::spanned::Spanned::span(&st.rest);
                let name = syn::Ident::new(&self.name, span);
                for f in self.fields {
                    let given = st
                        .fields
                        .iter()
                        .any(|g| matches!(&g.member, syn::Member::Named(n) if n == f));
                    if !given {
                        let f = syn::Ident::new(f, span);
                        st.fields
                            .push(syn::parse_quote_spanned!(span=> #f: #name.#f));
                    }
                }
                st.rest = None;
                st.dot2_token = None;
                syn::visit_mut::visit_expr_struct_mut(self, st);
            }
            // `Rig { body: p, .. }` (or `Rig { p, .. }`): a copy, as the
            // field's value.
            syn::Expr::Struct(st) => {
                for f in st.fields.iter_mut() {
                    if self.is_name(&f.expr) {
                        f.expr = self.built(&f.expr);
                        f.colon_token.get_or_insert_with(Default::default);
                    } else {
                        self.visit_expr_mut(&mut f.expr);
                    }
                }
                if let Some(r) = &mut st.rest {
                    self.visit_expr_mut(r);
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    // `let q = p;`: a copy.
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            if self.is_name(&init.expr) && init.diverge.is_none() {
                *init.expr = self.built(&init.expr);
            }
        }
        syn::visit_mut::visit_local_mut(self, l);
    }
}
