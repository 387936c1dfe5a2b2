//! The rewrite of a body's nalgebra values into their entries.
//!
//! Each expression whose shape is known (a name bound to a nalgebra
//! value, a constructor, an operation of them) becomes its list of
//! entries, column by column; a statement that binds or assigns one
//! binds or assigns the array of them. An operand read more than once per
//! entry (`m * v`, `v.norm()`, `a.cross(&b)`) that is not a name is first
//! bound to an array of its own before the statement (`let __na0 = [..];`),
//! where there is a statement to put it before; elsewhere (a `while`'s
//! condition, a closure) it is written out again.

use std::collections::HashMap;

use quote::ToTokens;
use syn::parse_quote;
use syn::Expr as E;

use super::syntax::{compound, ident, simple, Entries, Sink};
use super::{na_type, NaTy};
use crate::desugar::internal::FreshNames;

pub struct Rewriter {
    /// The names bound to nalgebra values, arrays after the rewrite.
    pub(super) env: HashMap<String, NaTy>,
    /// The names bound by a `let` this rewrite cannot see the shape of (a
    /// call's result), which a nalgebra operation must not take.
    pub(super) opaque: HashMap<String, ()>,
    /// The names a `for` binds to a list's values, references to arrays
    /// in the twin (`for p in pts`).
    pub(super) lent: std::collections::HashSet<String>,
    /// The names bound to closures (`let len = |v| ..;`).
    pub(super) closures: std::collections::HashSet<String>,
    /// The function's output, if a nalgebra value.
    pub(super) output: Option<NaTy>,
    /// The float type parameter of a generic function.
    pub(super) generic: Option<syn::Ident>,
    pub(super) fresh: FreshNames,
    pub errors: Option<syn::Error>,
    /// How many refusals so far: an expression refused once is not
    /// looked at again (no second error about the same code).
    pub(super) refused: usize,
}

/// The methods of nalgebra's values this rewrite takes.
pub const METHODS: [&str; 29] = [
    "dot",
    "norm",
    "norm_squared",
    "magnitude",
    "magnitude_squared",
    "normalize",
    "cross",
    "transpose",
    "component_mul",
    "component_div",
    "scale",
    "unscale",
    "sum",
    "abs",
    "mean",
    "trace",
    "determinant",
    "add_scalar",
    "lerp",
    "max",
    "min",
    "amax",
    "amin",
    "angle",
    "column",
    "row",
    "xy",
    "xyz",
    "map",
];

/// The methods of a nalgebra value this rewrite takes, for messages.
pub(super) const SUPPORTED: &str = "`+`, `-`, `*` (by a scalar or a matrix), `/` by a scalar, unary `-`, `dot`, `norm`, `norm_squared`, `magnitude`, `normalize`, `cross`, `transpose`, `component_mul`, `component_div`, `scale`, `unscale`, `add_scalar`, `lerp`, `map(|z| ..)`, `sum`, `mean`, `max`, `min`, `amax`, `amin`, `angle`, `trace`, `determinant` (up to 3 × 3), `abs`, swizzles (`v.xy()`), `m.column(j)`, `m.row(i)`, `v[i]`, `v.x`, `m[(i, j)]`, `p.coords`, `if c { a } else { b }`, `vector![..]`, and the constructors `new`, `zeros`, `identity`, `repeat`, `from_element`, `from([..])`, `from_column_slice`, `from_diagonal`, `origin`, `x`, `y`, `z`, `w`";

impl Rewriter {
    pub fn new(item: &syn::ItemFn, env: Vec<(String, NaTy)>, output: Option<NaTy>) -> Rewriter {
        let generic = crate::desugar::generic::generic_param(&item.sig)
            .map(|g| syn::Ident::new(&g, proc_macro2::Span::call_site()));
        Rewriter {
            env: env.into_iter().collect(),
            opaque: HashMap::new(),
            closures: Default::default(),
            lent: Default::default(),
            output,
            generic,
            fresh: FreshNames::of(item),
            errors: None,
            refused: 0,
        }
    }

    pub(super) fn refuse(&mut self, at: &dyn ToTokens, msg: String) {
        self.refused += 1;
        crate::diag::combine(&mut self.errors, syn::Error::new_spanned(at, msg));
    }

    /// Whether `e` is a nalgebra value whose shape is known: `entries`
    /// without a statement to bind before and with its refusals dropped
    /// (the rewrite proper reports them once).
    pub(super) fn is_value(&mut self, e: &E) -> bool {
        let (saved, refused) = (self.errors.take(), self.refused);
        let found = self.entries(e, &mut None).is_some();
        (self.errors, self.refused) = (saved, refused);
        found
    }

    /// The function's body: its tail, and its `return`s, are the output.
    pub fn body(&mut self, b: &mut syn::Block) {
        self.block(b, self.output.is_some());
    }

    /// A block; its tail is a nalgebra value where `valued`.
    pub(super) fn block(&mut self, b: &mut syn::Block, valued: bool) {
        let (env, opaque) = (self.env.clone(), self.opaque.clone());
        let stmts = std::mem::take(&mut b.stmts);
        b.stmts = stmts
            .into_iter()
            .flat_map(|s| self.split_tuple(s))
            .collect();
        let n = b.stmts.len();
        let mut out = Vec::with_capacity(n);
        for (k, stmt) in std::mem::take(&mut b.stmts).into_iter().enumerate() {
            let mut pre = Vec::new();
            let stmt = match stmt {
                syn::Stmt::Expr(mut e, None) if k + 1 == n => {
                    e = self.tail(e, valued, Some(&mut pre));
                    syn::Stmt::Expr(e, None)
                }
                s => self.stmt(s, &mut pre),
            };
            out.extend(pre);
            out.push(stmt);
        }
        b.stmts = out;
        self.env = env;
        self.opaque = opaque;
    }

    /// An expression whose value is the block's, a nalgebra value's
    /// entries where `valued`.
    pub(super) fn tail(&mut self, mut e: E, valued: bool, mut sink: Sink) -> E {
        if !valued {
            self.scalar(&mut e, &mut sink);
            return e;
        }
        match e {
            E::If(mut i) => {
                self.scalar(&mut i.cond, &mut sink);
                self.block(&mut i.then_branch, true);
                if let Some((_, els)) = &mut i.else_branch {
                    let taken = std::mem::replace(&mut **els, parse_quote!(()));
                    **els = self.tail(taken, true, None);
                }
                E::If(i)
            }
            E::Block(mut b) => {
                self.block(&mut b.block, true);
                E::Block(b)
            }
            E::Paren(p) => self.tail(*p.expr, true, sink),
            E::Return(mut r) => {
                if let Some(v) = r.expr.take() {
                    r.expr = Some(Box::new(self.tail(*v, true, sink)));
                }
                E::Return(r)
            }
            other => match self.entries(&other, &mut sink) {
                Some(en) => en.array(),
                None => {
                    // The output of a call: its twin's array.
                    let mut other = other;
                    let called = match &mut other {
                        E::Call(c) => self.call_twin(c, &mut sink),
                        _ => false,
                    };
                    if !called {
                        self.refuse(&other, format!("#[grad] computes a nalgebra output from its entries: end with a value it can follow ({SUPPORTED}), built here or returned by a `#[grad]` function"));
                        return other;
                    }
                    // An array output ends with a list of floats: the
                    // call's entries, the call bound first.
                    let n = self.output.as_ref().map_or(0, NaTy::len);
                    match &mut sink {
                        Some(pre) => {
                            let name = self.bind_name();
                            pre.push(parse_quote!(let #name = #other;));
                            let items = (0..n).map(|k| -> E { parse_quote!(#name[#k]) });
                            parse_quote!([#(#items),*])
                        }
                        None => other,
                    }
                }
            },
        }
    }

    /// `let (mut x, mut v) = (x0, v0);` with a nalgebra value among the
    /// items, as one `let` per name (the items read none of the names, so
    /// binding them in turn binds the same values).
    fn split_tuple(&mut self, stmt: syn::Stmt) -> Vec<syn::Stmt> {
        let syn::Stmt::Local(l) = &stmt else {
            return vec![stmt];
        };
        let (syn::Pat::Tuple(pats), Some(init)) = (&l.pat, &l.init) else {
            return vec![stmt];
        };
        let E::Tuple(items) = &*init.expr else {
            return vec![stmt];
        };
        let names: Option<Vec<String>> = pats
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => {
                    Some(i.ident.to_string())
                }
                _ => None,
            })
            .collect();
        let Some(names) = names else {
            return vec![stmt];
        };
        let mut read = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(items.to_token_stream(), &mut read);
        let values = items.elems.iter().any(|x| self.is_value(x));
        if !values
            || names.len() != items.elems.len()
            || init.diverge.is_some()
            || names.iter().any(|n| read.contains(n))
        {
            return vec![stmt];
        }
        pats.elems
            .iter()
            .zip(&items.elems)
            .map(|(p, x)| parse_quote!(let #p = #x;))
            .collect()
    }

    pub(super) fn stmt(&mut self, stmt: syn::Stmt, pre: &mut Vec<syn::Stmt>) -> syn::Stmt {
        match stmt {
            syn::Stmt::Local(mut l) => {
                self.local(&mut l, pre);
                syn::Stmt::Local(l)
            }
            syn::Stmt::Expr(e, semi) => syn::Stmt::Expr(self.expr_stmt(e, pre), semi),
            syn::Stmt::Macro(m) => {
                self.check_macro(&m.mac);
                syn::Stmt::Macro(m)
            }
            other => other,
        }
    }

    /// `let v = a - b;`, `let v: Vector3<f64> = ..;`, or a scalar `let`.
    pub(super) fn local(&mut self, l: &mut syn::Local, pre: &mut Vec<syn::Stmt>) {
        // A type written that is not nalgebra's (`let s: f64 = sq(x);`).
        let typed = matches!(&l.pat, syn::Pat::Type(_));
        let (name, declared) = match &mut l.pat {
            syn::Pat::Ident(i) => (Some(i.ident.to_string()), None),
            syn::Pat::Type(t) => match (&*t.pat, na_type(&t.ty)) {
                (syn::Pat::Ident(i), Some(ty)) => {
                    if let Some(array) = ty.array() {
                        *t.ty = array;
                    }
                    (Some(i.ident.to_string()), Some(ty))
                }
                (syn::Pat::Ident(i), None) => (Some(i.ident.to_string()), None),
                _ => (None, None),
            },
            _ => (None, None),
        };
        let Some(init) = &mut l.init else {
            if let (Some(name), Some(ty)) = (name, declared) {
                self.env.insert(name, ty);
            }
            return;
        };
        let mut sink = Some(pre);
        let found = self.entries(&init.expr, &mut sink);
        match (name, found) {
            (Some(name), Some(en)) => {
                *init.expr = en.array();
                // `let d = [..];` typed, as `bind_entries` types its arrays.
                if let syn::Pat::Ident(_) = &l.pat {
                    let pat = l.pat.clone();
                    let ty = match declared.as_ref().and_then(NaTy::array) {
                        Some(t) => t,
                        None => self.array_ty(en.items.len()),
                    };
                    l.pat = syn::Pat::Type(syn::PatType {
                        attrs: Vec::new(),
                        pat: Box::new(pat),
                        colon_token: Default::default(),
                        ty: Box::new(ty),
                    });
                }
                let elem = declared.as_ref().and_then(|d| d.elem.clone());
                self.opaque.remove(&name);
                self.env.insert(
                    name,
                    NaTy {
                        rows: en.rows,
                        cols: en.cols,
                        point: false,
                        elem,
                        held: super::Held::One,
                    },
                );
            }
            (_, Some(_)) => {
                self.refuse(
                    &l.pat,
                    "#[grad] binds a nalgebra value to a name (`let v = ..;`), not to a pattern"
                        .to_string(),
                );
            }
            (Some(name), None) => {
                if let Some(ty) = declared {
                    // A call returning one: its twin's, an array.
                    let called = match &mut *init.expr {
                        E::Call(c) => self.call_twin(c, &mut sink),
                        _ => false,
                    };
                    if !called {
                        self.refuse(&init.expr, format!("#[grad] computes `{name}` from its entries, so it must be built here ({SUPPORTED}) or returned by a `#[grad]` function"));
                    }
                    // Known for one from here on, so that its uses are not
                    // refused again.
                    self.env.insert(name, ty);
                    return;
                }
                let opaque = !typed && super::syntax::from_call(&init.expr);
                match matches!(&*init.expr, E::Closure(_)) {
                    true => self.closures.insert(name.clone()),
                    false => self.closures.remove(&name),
                };
                self.scalar(&mut init.expr, &mut sink);
                self.env.remove(&name);
                match opaque {
                    true => self.opaque.insert(name, ()),
                    false => self.opaque.remove(&name),
                };
            }
            (None, None) => self.scalar(&mut init.expr, &mut sink),
        }
        if let Some((_, e)) = &mut init.diverge {
            self.scalar(e, &mut None);
        }
    }

    /// An expression statement: an assignment to a nalgebra name assigns
    /// its entries (`v = [..]`, which evaluates them all first; `v += w`
    /// likewise), anything else is scalar code.
    pub(super) fn expr_stmt(&mut self, mut e: E, pre: &mut Vec<syn::Stmt>) -> E {
        let mut sink = Some(pre);
        // `v.normalize_mut();`: `v = v.normalize();`.
        if let E::MethodCall(m) = &e {
            let name = ident(&m.receiver).filter(|n| self.env.contains_key(n));
            if let (Some(_), "normalize_mut", true) =
                (name, m.method.to_string().as_str(), m.args.is_empty())
            {
                let v = &m.receiver;
                e = parse_quote!(#v = #v.normalize());
            }
        }
        let (left, op, right) = match &e {
            E::Assign(a) => (&*a.left, None, &*a.right),
            E::Binary(b) => match compound(&b.op) {
                Some(op) => (&*b.left, Some(op), &*b.right),
                None => {
                    self.scalar(&mut e, &mut sink);
                    return e;
                }
            },
            _ => {
                self.scalar(&mut e, &mut sink);
                return e;
            }
        };
        let Some(name) = ident(left).filter(|n| self.env.contains_key(n)) else {
            self.scalar(&mut e, &mut sink);
            return e;
        };
        let left = left.clone();
        let whole = match op {
            None => right.clone(),
            Some(op) => {
                let right = right.clone();
                parse_quote!(#left #op (#right))
            }
        };
        match self.entries(&whole, &mut sink) {
            Some(en) => {
                self.env.entry(name).and_modify(|t| {
                    t.rows = en.rows;
                    t.cols = en.cols;
                });
                let items = en.array();
                parse_quote!(#left = #items)
            }
            None => {
                self.refuse(&e, format!("#[grad] assigns `{name}`, a nalgebra value, from one it can follow ({SUPPORTED})"));
                e
            }
        }
    }

    /// `vec![..]`: its items as scalar code; any other macro must not
    /// read a nalgebra value.
    pub(super) fn macro_expr(&mut self, m: &mut syn::Macro, sink: &mut Sink) {
        if !crate::desugar::vec_items(m, |listed| self.scalar(listed, sink)) {
            self.check_macro(m);
        }
    }

    pub(super) fn check_macro(&mut self, m: &syn::Macro) {
        let mut names = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(m.tokens.clone(), &mut names);
        if let Some(name) = names.iter().find(|n| self.env.contains_key(*n)) {
            let name = name.clone();
            self.refuse(m, format!("#[grad] computes with `{name}`'s entries, an array, so a macro (`println!`, `assert!`) cannot read it as a nalgebra value: read its entries (`{name}[0]`), or move the macro out of the function"));
        }
    }

    /// A new name for an operand bound before a statement.
    pub(super) fn bind_name(&mut self) -> syn::Ident {
        syn::Ident::new(&self.fresh.fresh("__na"), proc_macro2::Span::call_site())
    }

    /// `e`, bound to a name before the statement where it is not one and
    /// there is a statement to bind it before.
    pub(super) fn bind(&mut self, e: E, sink: &mut Sink) -> E {
        if simple(&e) {
            return e;
        }
        // `let __na = k * 0.1;`, not `(k * 0.1)`: rustc would warn.
        let mut e = e;
        while let E::Paren(p) = e {
            e = *p.expr;
        }
        match sink {
            Some(pre) => {
                let name = self.bind_name();
                pre.push(parse_quote!(let #name = #e;));
                parse_quote!(#name)
            }
            None => e,
        }
    }

    /// `en`, its entries bound to an array before the statement where one
    /// is not a name.
    pub(super) fn bind_entries(&mut self, en: Entries, sink: &mut Sink) -> Entries {
        if en.items.iter().all(simple) {
            return en;
        }
        match sink {
            Some(pre) => {
                let name = self.bind_name();
                let array = en.array();
                let ty = self.array_ty(en.items.len());
                pre.push(parse_quote!(let #name: #ty = #array;));
                let items = (0..en.items.len())
                    .map(|k| parse_quote!(#name[#k]))
                    .collect();
                Entries { items, ..en }
            }
            None => en,
        }
    }

    /// `en` as the name of a typed array holding its entries, bound before
    /// the statement (its array literal where there is none).
    pub(super) fn bind_entries_always(&mut self, en: Entries, sink: &mut Sink) -> E {
        let array = en.array();
        match sink {
            Some(pre) => {
                let name = self.bind_name();
                let ty = self.array_ty(en.items.len());
                pre.push(parse_quote!(let #name: #ty = #array;));
                parse_quote!(#name)
            }
            None => array,
        }
    }

    /// The function's float type: its type parameter, else the entry type
    /// of a nalgebra value it names, else `f64`.
    pub(super) fn float_ty(&self) -> syn::Type {
        if let Some(g) = &self.generic {
            return parse_quote!(#g);
        }
        let named = self.env.values().find_map(|t| t.elem.clone());
        named.unwrap_or_else(|| parse_quote!(f64))
    }

    /// `[float; n]`: the type written on the arrays the rewrite binds, so
    /// that the macro knows their entries' type (it cannot read it from
    /// entries of a list parameter's values).
    pub(super) fn array_ty(&self, n: usize) -> syn::Type {
        let t = self.float_ty();
        parse_quote!([#t; #n])
    }

    /// The literal `v` of the function's float type.
    pub(super) fn lit(&self, v: f64, elem: Option<&syn::Type>) -> E {
        let lit = syn::LitFloat::new(&format!("{v:?}"), proc_macro2::Span::call_site());
        match (elem, &self.generic) {
            (Some(t), Some(g)) if matches!(t, syn::Type::Path(p) if p.path.is_ident(g)) => {
                parse_quote!(<#t as ::autodiff::Float>::from_f64(#lit))
            }
            (None, Some(g)) => parse_quote!(<#g as ::autodiff::Float>::from_f64(#lit)),
            _ => parse_quote!(#lit),
        }
    }
}
