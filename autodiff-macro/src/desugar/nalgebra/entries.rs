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

use super::{constructor, na_type, NaTy};
use crate::desugar::internal::FreshNames;

/// Where a statement's operands are bound before it, if anywhere.
type Sink<'a> = Option<&'a mut Vec<syn::Stmt>>;

/// An expression's entries, column by column, and its shape.
#[derive(Clone)]
struct Entries {
    rows: usize,
    cols: usize,
    items: Vec<E>,
}

impl Entries {
    fn at(&self, i: usize, j: usize) -> &E {
        &self.items[i + j * self.rows]
    }
    fn map(self, f: impl Fn(E) -> E) -> Entries {
        Entries {
            items: self.items.into_iter().map(f).collect(),
            ..self
        }
    }
    fn array(&self) -> E {
        let items = &self.items;
        parse_quote!([#(#items),*])
    }
}

pub struct Rewriter {
    /// The names bound to nalgebra values, arrays after the rewrite.
    env: HashMap<String, NaTy>,
    /// The names bound by a `let` this rewrite cannot see the shape of (a
    /// call's result), which a nalgebra operation must not take.
    opaque: HashMap<String, ()>,
    /// The function's output, if a nalgebra value.
    output: Option<NaTy>,
    /// The float type parameter of a generic function.
    generic: Option<syn::Ident>,
    fresh: FreshNames,
    pub errors: Option<syn::Error>,
    /// How many refusals so far: an expression refused once is not
    /// looked at again (no second error about the same code).
    refused: usize,
}

/// The methods of nalgebra's values this rewrite takes.
pub const METHODS: [&str; 14] = [
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
];

/// The methods of a nalgebra value this rewrite takes, for messages.
const SUPPORTED: &str = "`+`, `-`, `*` (by a scalar or a matrix), `/` by a scalar, unary `-`, `dot`, `norm`, `norm_squared`, `magnitude`, `normalize`, `cross`, `transpose`, `component_mul`, `component_div`, `scale`, `sum`, `abs`, `v[i]`, `v.x`, `m[(i, j)]`, `p.coords`, and the constructors `new`, `zeros`, `identity`, `repeat`, `from_element`, `x`, `y`, `z`, `w`";

impl Rewriter {
    pub fn new(item: &syn::ItemFn, env: Vec<(String, NaTy)>, output: Option<NaTy>) -> Rewriter {
        let generic = crate::desugar::generic::generic_param(&item.sig)
            .map(|g| syn::Ident::new(&g, proc_macro2::Span::call_site()));
        Rewriter {
            env: env.into_iter().collect(),
            opaque: HashMap::new(),
            output,
            generic,
            fresh: FreshNames::of(item),
            errors: None,
            refused: 0,
        }
    }

    fn refuse(&mut self, at: &dyn ToTokens, msg: String) {
        self.refused += 1;
        crate::diag::combine(&mut self.errors, syn::Error::new_spanned(at, msg));
    }

    /// Whether `e` is a nalgebra value whose shape is known: `entries`
    /// without a statement to bind before and with its refusals dropped
    /// (the rewrite proper reports them once).
    fn is_value(&mut self, e: &E) -> bool {
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
    fn block(&mut self, b: &mut syn::Block, valued: bool) {
        let (env, opaque) = (self.env.clone(), self.opaque.clone());
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
    fn tail(&mut self, mut e: E, valued: bool, mut sink: Sink) -> E {
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
                    self.refuse(&other, format!("#[grad] computes a nalgebra output from its entries: end with a value it can follow ({SUPPORTED}), built here (a value from a call is not followed yet)"));
                    other
                }
            },
        }
    }

    fn stmt(&mut self, stmt: syn::Stmt, pre: &mut Vec<syn::Stmt>) -> syn::Stmt {
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
    fn local(&mut self, l: &mut syn::Local, pre: &mut Vec<syn::Stmt>) {
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
                let elem = declared.as_ref().and_then(|d| d.elem.clone());
                self.opaque.remove(&name);
                self.env.insert(
                    name,
                    NaTy {
                        rows: en.rows,
                        cols: en.cols,
                        point: false,
                        elem,
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
                    self.refuse(&init.expr, format!("#[grad] computes `{name}` from its entries, so it must be built here ({SUPPORTED}); a nalgebra value from a call is not followed yet: compute it in this function, or return an array from the helper"));
                    // Known for one from here on, so that its uses are not
                    // refused again.
                    self.env.insert(name, ty);
                    return;
                }
                let opaque = matches!(&*init.expr, E::Call(_));
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
    fn expr_stmt(&mut self, mut e: E, pre: &mut Vec<syn::Stmt>) -> E {
        let mut sink = Some(pre);
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
    fn macro_expr(&mut self, m: &mut syn::Macro, sink: &mut Sink) {
        if m.path.is_ident("vec") {
            let tokens = &m.tokens;
            if let Ok(mut listed) = syn::parse2::<E>(quote::quote!([#tokens])) {
                self.scalar(&mut listed, sink);
                match listed {
                    E::Array(a) => m.tokens = a.elems.into_token_stream(),
                    E::Repeat(r) => {
                        let (v, n) = (r.expr, r.len);
                        m.tokens = quote::quote!(#v; #n);
                    }
                    _ => {}
                }
                return;
            }
        }
        self.check_macro(m);
    }

    fn check_macro(&mut self, m: &syn::Macro) {
        let mut names = std::collections::HashSet::new();
        crate::desugar::internal::collect_idents(m.tokens.clone(), &mut names);
        if let Some(name) = names.iter().find(|n| self.env.contains_key(*n)) {
            let name = name.clone();
            self.refuse(m, format!("#[grad] computes with `{name}`'s entries, an array, so a macro (`println!`, `assert!`) cannot read it as a nalgebra value: read its entries (`{name}[0]`), or move the macro out of the function"));
        }
    }

    /// A new name for an operand bound before a statement.
    fn bind_name(&mut self) -> syn::Ident {
        syn::Ident::new(&self.fresh.fresh("__na"), proc_macro2::Span::call_site())
    }

    /// `e`, bound to a name before the statement where it is not one and
    /// there is a statement to bind it before.
    fn bind(&mut self, e: E, sink: &mut Sink) -> E {
        if simple(&e) {
            return e;
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
    fn bind_entries(&mut self, en: Entries, sink: &mut Sink) -> Entries {
        if en.items.iter().all(simple) {
            return en;
        }
        match sink {
            Some(pre) => {
                let name = self.bind_name();
                let array = en.array();
                pre.push(parse_quote!(let #name = #array;));
                let items = (0..en.items.len())
                    .map(|k| parse_quote!(#name[#k]))
                    .collect();
                Entries { items, ..en }
            }
            None => en,
        }
    }

    /// The literal `v` of the function's float type.
    fn lit(&self, v: f64, elem: Option<&syn::Type>) -> E {
        let lit = syn::LitFloat::new(&format!("{v:?}"), proc_macro2::Span::call_site());
        match (elem, &self.generic) {
            (Some(t), Some(g)) if matches!(t, syn::Type::Path(p) if p.path.is_ident(g)) => {
                parse_quote!(<#t as ::autodiff::Float>::from_f64(#lit))
            }
            (None, Some(g)) => parse_quote!(<#g as ::autodiff::Float>::from_f64(#lit)),
            _ => parse_quote!(#lit),
        }
    }

    /// `e`'s entries, where it is a nalgebra value whose shape is known.
    fn entries(&mut self, e: &E, sink: &mut Sink) -> Option<Entries> {
        match e {
            E::Paren(p) => self.entries(&p.expr, sink),
            E::Group(g) => self.entries(&g.expr, sink),
            E::Reference(r) => self.entries(&r.expr, sink),
            E::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?;
                let t = self.env.get(&name.to_string())?;
                let items = (0..t.len()).map(|k| parse_quote!(#name[#k])).collect();
                Some(Entries {
                    rows: t.rows,
                    cols: t.cols,
                    items,
                })
            }
            E::Call(c) => self.constructed(c, sink),
            E::Binary(b) => self.binary(b, sink),
            E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                let en = self.entries(&u.expr, sink)?;
                Some(en.map(|x| {
                    let x = operand(x, 3);
                    parse_quote!(-#x)
                }))
            }
            E::MethodCall(m) => self.method(m, sink),
            E::Field(f) if matches!(&f.member, syn::Member::Named(n) if n == "coords") => {
                self.entries(&f.base, sink)
            }
            _ => None,
        }
    }

    /// `Vector3::new(x, y, z)`, `Matrix2::identity()`, ...
    fn constructed(&mut self, c: &syn::ExprCall, sink: &mut Sink) -> Option<Entries> {
        let E::Path(p) = &*c.func else { return None };
        let (ty, how) = constructor(&p.path)?;
        let (rows, cols, n) = (ty.rows, ty.cols, ty.len());
        let elem = ty.elem.clone();
        let how = how.to_string();
        let unit = |k: usize, this: &Self| -> Vec<E> {
            (0..n)
                .map(|j| this.lit(if j == k { 1.0 } else { 0.0 }, elem.as_ref()))
                .collect()
        };
        let args: Vec<E> = c.args.iter().cloned().collect();
        let items: Vec<E> = match (how.as_str(), args.len()) {
            ("new", k) if k == n => {
                // nalgebra's `new` lists a matrix's entries row by row.
                let mut args = args;
                for a in &mut args {
                    self.scalar(a, sink);
                }
                (0..n)
                    .map(|k| args[(k % rows) * cols + k / rows].clone())
                    .collect()
            }
            ("zeros", 0) => (0..n).map(|_| self.lit(0.0, elem.as_ref())).collect(),
            ("identity", 0) => (0..n)
                .map(|k| self.lit(if k % rows == k / rows { 1.0 } else { 0.0 }, elem.as_ref()))
                .collect(),
            ("repeat" | "from_element", 1) => {
                let mut a = args[0].clone();
                self.scalar(&mut a, sink);
                let a = self.bind(a, sink);
                vec![a; n]
            }
            ("x" | "y" | "z" | "w", 0) if cols == 1 => {
                let k = "xyzw".find(&how).unwrap_or(0);
                if k >= rows {
                    return None;
                }
                unit(k, self)
            }
            _ => {
                self.refuse(c, format!("#[grad] does not follow this nalgebra constructor: build the value with {SUPPORTED}"));
                return None;
            }
        };
        Some(Entries { rows, cols, items })
    }

    fn binary(&mut self, b: &syn::ExprBinary, sink: &mut Sink) -> Option<Entries> {
        let arith = matches!(
            b.op,
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
        );
        if !arith {
            return None;
        }
        let l = self.entries(&b.left, sink);
        let r = self.entries(&b.right, sink);
        if l.is_none() && r.is_none() {
            return None;
        }
        let op = &b.op;
        match (&b.op, l, r) {
            (syn::BinOp::Add(_) | syn::BinOp::Sub(_), Some(l), Some(r)) => {
                if (l.rows, l.cols) != (r.rows, r.cols) {
                    self.refuse(
                        b,
                        format!(
                            "the shapes differ: {}×{} and {}×{}",
                            l.rows, l.cols, r.rows, r.cols
                        ),
                    );
                    return None;
                }
                let items = l
                    .items
                    .iter()
                    .zip(&r.items)
                    .map(|(x, y)| bin(x.clone(), op, y.clone()))
                    .collect();
                Some(Entries { items, ..l })
            }
            (syn::BinOp::Mul(_), Some(l), Some(r)) => {
                if l.cols != r.rows {
                    self.refuse(
                        b,
                        format!(
                            "a {}×{} matrix times a {}×{} one: the inner sizes differ",
                            l.rows, l.cols, r.rows, r.cols
                        ),
                    );
                    return None;
                }
                let (l, r) = (self.bind_entries(l, sink), self.bind_entries(r, sink));
                let mut items = Vec::with_capacity(l.rows * r.cols);
                for j in 0..r.cols {
                    for i in 0..l.rows {
                        let terms = (0..l.cols)
                            .map(|k| bin(l.at(i, k).clone(), &parse_quote!(*), r.at(k, j).clone()));
                        items.push(sum(terms));
                    }
                }
                Some(Entries {
                    rows: l.rows,
                    cols: r.cols,
                    items,
                })
            }
            (syn::BinOp::Add(_) | syn::BinOp::Sub(_), Some(_), None)
            | (syn::BinOp::Add(_) | syn::BinOp::Sub(_), None, Some(_)) => {
                let other = if self.is_value(&b.left) {
                    &b.right
                } else {
                    &b.left
                };
                let msg = match ident(other).filter(|n| self.opaque.contains_key(n)) {
                    Some(n) => format!("#[grad] adds nalgebra values it builds: `{n}` comes from a call, whose nalgebra result it does not follow yet; compute it in this function, or have the helper return an array and build the value here (`let {n} = Vector3::new(r[0], r[1], r[2]);`)"),
                    None => "#[grad] adds nalgebra values whose shapes it knows: give this one its type where it is bound (`let p: Vector3<f64> = ..;`), or build it here".to_string(),
                };
                self.refuse(other, msg);
                None
            }
            (syn::BinOp::Mul(_), Some(l), None) | (syn::BinOp::Div(_), Some(l), None) => {
                let mut s = (*b.right).clone();
                self.scalar_operand(&mut s, sink)?;
                let s = self.bind(s, sink);
                Some(l.map(|x| bin(x, op, s.clone())))
            }
            (syn::BinOp::Mul(_), None, Some(r)) => {
                let mut s = (*b.left).clone();
                self.scalar_operand(&mut s, sink)?;
                let s = self.bind(s, sink);
                Some(r.map(|x| bin(s.clone(), op, x)))
            }
            _ => {
                self.refuse(b, format!("#[grad] does not follow this operation of nalgebra values: it takes {SUPPORTED}"));
                None
            }
        }
    }

    /// The scalar of `v * s`: refused where it is a name whose shape this
    /// rewrite cannot see (a call's result, which may be a vector).
    fn scalar_operand(&mut self, s: &mut E, sink: &mut Sink) -> Option<()> {
        if let Some(name) = ident(s).filter(|n| self.opaque.contains_key(n)) {
            self.refuse(s, format!("#[grad] cannot tell whether `{name}` is a scalar or a nalgebra value: give it its type where it is bound (`let {name}: f64 = ..;`)"));
            return None;
        }
        self.scalar(s, sink);
        Some(())
    }

    fn method(&mut self, m: &syn::ExprMethodCall, sink: &mut Sink) -> Option<Entries> {
        let name = m.method.to_string();
        let en = self.entries(&m.receiver, sink)?;
        let arg = |this: &mut Self, sink: &mut Sink| -> Option<Entries> {
            let a = m.args.first()?;
            let found = this.entries(a, sink);
            if found.is_none() {
                this.refuse(a, format!("#[grad] needs the argument of `{name}` to be a nalgebra value it can follow ({SUPPORTED})"));
            }
            found
        };
        let scalar_arg = |this: &mut Self, sink: &mut Sink| -> Option<E> {
            let mut a = m.args.first()?.clone();
            this.scalar_operand(&mut a, sink)?;
            Some(this.bind(a, sink))
        };
        match (name.as_str(), m.args.len()) {
            ("clone" | "into_owned", 0) => Some(en),
            ("transpose", 0) => {
                let items = (0..en.items.len())
                    .map(|k| {
                        // Entry (i, j) of the transpose is entry (j, i).
                        let (i, j) = (k % en.cols, k / en.cols);
                        en.at(j, i).clone()
                    })
                    .collect();
                Some(Entries {
                    rows: en.cols,
                    cols: en.rows,
                    items,
                })
            }
            ("normalize", 0) => {
                let en = self.bind_entries(en, sink);
                let norm = self.bind(norm(&en), sink);
                Some(en.map(|x| bin(x, &parse_quote!(/), norm.clone())))
            }
            ("abs", 0) => Some(en.map(|x| {
                let x = operand(x, 4);
                parse_quote!(#x.abs())
            })),
            ("scale", 1) => {
                let s = scalar_arg(self, sink)?;
                Some(en.map(|x| bin(x, &parse_quote!(*), s.clone())))
            }
            ("unscale", 1) => {
                let s = scalar_arg(self, sink)?;
                Some(en.map(|x| bin(x, &parse_quote!(/), s.clone())))
            }
            ("component_mul" | "component_div", 1) => {
                let other = arg(self, sink)?;
                if (other.rows, other.cols) != (en.rows, en.cols) {
                    self.refuse(m, "the shapes differ".to_string());
                    return None;
                }
                let items = en
                    .items
                    .iter()
                    .zip(&other.items)
                    .map(|(x, y)| {
                        let op = match name.as_str() {
                            "component_mul" => parse_quote!(*),
                            _ => parse_quote!(/),
                        };
                        bin(x.clone(), &op, y.clone())
                    })
                    .collect();
                Some(Entries { items, ..en })
            }
            ("cross", 1) => {
                let other = arg(self, sink)?;
                if (en.rows, en.cols, other.rows, other.cols) != (3, 1, 3, 1) {
                    self.refuse(m, "#[grad] takes `cross` of two 3-vectors".to_string());
                    return None;
                }
                let (a, b) = (self.bind_entries(en, sink), self.bind_entries(other, sink));
                let (a, b) = (&a.items, &b.items);
                let c = |i: usize, j: usize| -> E {
                    let (mul, sub) = (parse_quote!(*), parse_quote!(-));
                    let left = bin(a[i].clone(), &mul, b[j].clone());
                    bin(left, &sub, bin(a[j].clone(), &mul, b[i].clone()))
                };
                Some(Entries {
                    rows: 3,
                    cols: 1,
                    items: vec![c(1, 2), c(2, 0), c(0, 1)],
                })
            }
            _ => {
                if !scalar_method(&name) {
                    self.refuse(m, format!("#[grad] does not follow `{name}` of a nalgebra value: it takes {SUPPORTED}"));
                }
                None
            }
        }
    }

    /// A scalar-valued method of a nalgebra value: `v.dot(&w)`, `v.norm()`,
    /// `v.sum()`; `None` where `m` is none.
    fn scalar_method(&mut self, m: &syn::ExprMethodCall, sink: &mut Sink) -> Option<E> {
        let name = m.method.to_string();
        if !scalar_method(&name) {
            return None;
        }
        let en = self.entries(&m.receiver, sink)?;
        match (name.as_str(), m.args.len()) {
            ("dot", 1) => {
                let other = self.entries(&m.args[0], sink);
                let Some(other) = other.filter(|o| o.items.len() == en.items.len()) else {
                    self.refuse(&m.args[0], format!("#[grad] takes `dot` of two nalgebra values of one shape that it can follow ({SUPPORTED})"));
                    return None;
                };
                let terms = en
                    .items
                    .iter()
                    .zip(&other.items)
                    .map(|(x, y)| bin(x.clone(), &parse_quote!(*), y.clone()));
                Some(paren(sum(terms)))
            }
            ("norm_squared" | "magnitude_squared", 0) => {
                let en = self.bind_entries(en, sink);
                Some(paren(squares(&en)))
            }
            ("norm" | "magnitude", 0) => {
                let en = self.bind_entries(en, sink);
                Some(norm(&en))
            }
            ("sum", 0) => Some(paren(sum(en.items.into_iter()))),
            _ => {
                self.refuse(
                    m,
                    format!("#[grad] does not follow `{name}` here: it takes {SUPPORTED}"),
                );
                None
            }
        }
    }

    /// Scalar code: its nalgebra parts (`v.x`, `v.dot(&w)`, `m[(i, j)]`)
    /// read as entries; a nalgebra value where a scalar is expected is
    /// refused.
    fn scalar(&mut self, e: &mut E, sink: &mut Sink) {
        match e {
            E::MethodCall(m) => {
                let mut receiver_sink = sink.as_deref_mut();
                let refused = self.refused;
                if let Some(s) = self.scalar_method(m, &mut receiver_sink) {
                    *e = s;
                    return;
                }
                if self.refused > refused {
                    return;
                }
                if self.is_value(&m.receiver) {
                    // `v.iter()`, `v.len()`: as the array's. Others refused.
                    let name = m.method.to_string();
                    if !matches!(name.as_str(), "iter" | "len" | "is_empty" | "as_slice")
                        && !scalar_method(&name)
                    {
                        let _ = self.method(m, &mut None);
                    }
                    if name == "as_slice" {
                        let r = &m.receiver;
                        *e = parse_quote!(&#r[..]);
                    }
                    return;
                }
                let only_nalgebra = !matches!(m.method.to_string().as_str(), "sum" | "abs");
                if let Some(name) = ident(&m.receiver).filter(|n| self.opaque.contains_key(n)) {
                    if only_nalgebra && scalar_method(&m.method.to_string()) {
                        self.refuse(&m.receiver, format!("#[grad] cannot see `{name}`'s shape: give it its type where it is bound (`let {name}: Vector3<f64> = ..;`, built there)"));
                        return;
                    }
                }
                self.scalar(&mut m.receiver, sink);
                for a in m.args.iter_mut() {
                    self.scalar(a, sink);
                }
            }
            E::Field(f) => {
                let k = match &f.member {
                    syn::Member::Named(n) => "xyzw"
                        .find(n.to_string().as_str())
                        .filter(|_| n.to_string().len() == 1),
                    syn::Member::Unnamed(_) => None,
                };
                match (k, self.entries(&f.base, sink)) {
                    (Some(k), Some(en)) if k < en.items.len() && en.cols == 1 => {
                        *e = operand(en.items[k].clone(), 4);
                    }
                    _ => self.scalar(&mut f.base, sink),
                }
            }
            E::Index(ix) => {
                if let (E::Tuple(t), Some(name)) = (&*ix.index, ident(&ix.expr)) {
                    if let (Some(ty), 2) = (self.env.get(&name).cloned(), t.elems.len()) {
                        let (mut i, mut j) = (t.elems[0].clone(), t.elems[1].clone());
                        self.scalar(&mut i, sink);
                        self.scalar(&mut j, sink);
                        let rows = ty.rows;
                        let base = &ix.expr;
                        *e = parse_quote!(#base[(#i) + (#j) * #rows]);
                        return;
                    }
                }
                if ident(&ix.expr).is_none() {
                    if let (
                        Some(en),
                        E::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(k),
                            ..
                        }),
                    ) = (self.entries(&ix.expr, sink), &*ix.index)
                    {
                        if let Some(x) =
                            k.base10_parse::<usize>().ok().and_then(|k| en.items.get(k))
                        {
                            *e = operand(x.clone(), 4);
                            return;
                        }
                    }
                }
                self.scalar(&mut ix.expr, sink);
                self.scalar(&mut ix.index, sink);
            }
            E::Call(c) => {
                for a in c.args.iter_mut() {
                    if self.is_value(a) {
                        self.refuse(a, "#[grad] computes with a nalgebra value's entries: passing one to a function is not supported yet; pass its entries (`v.x`, `v[0]`), or compute here".to_string());
                    } else {
                        self.scalar(a, sink);
                    }
                }
            }
            E::Binary(b) => {
                for side in [&b.left, &b.right] {
                    if self.is_value(side) {
                        self.refuse(side, "#[grad] reads a nalgebra value here where a number is expected: read its entries, or its `norm()`".to_string());
                    }
                }
                self.scalar(&mut b.left, sink);
                self.scalar(&mut b.right, sink);
            }
            E::Unary(u) => self.scalar(&mut u.expr, sink),
            E::Paren(p) => self.scalar(&mut p.expr, sink),
            E::Cast(c) => self.scalar(&mut c.expr, sink),
            E::Reference(r) => self.scalar(&mut r.expr, sink),
            E::Return(r) => {
                if let Some(v) = r.expr.take() {
                    r.expr = Some(Box::new(self.tail(
                        *v,
                        self.output.is_some(),
                        sink.as_deref_mut(),
                    )));
                }
            }
            E::If(i) => {
                self.scalar(&mut i.cond, sink);
                self.block(&mut i.then_branch, false);
                if let Some((_, els)) = &mut i.else_branch {
                    self.scalar(els, &mut None);
                }
            }
            E::Block(b) => self.block(&mut b.block, false),
            E::Unsafe(b) => self.block(&mut b.block, false),
            E::Loop(l) => self.block(&mut l.body, false),
            E::While(w) => {
                self.scalar(&mut w.cond, &mut None);
                self.block(&mut w.body, false);
            }
            E::ForLoop(f) => {
                self.scalar(&mut f.expr, sink);
                self.block(&mut f.body, false);
            }
            E::Match(m) => {
                self.scalar(&mut m.expr, sink);
                for arm in &mut m.arms {
                    if let Some((_, g)) = &mut arm.guard {
                        self.scalar(g, &mut None);
                    }
                    self.scalar(&mut arm.body, &mut None);
                }
            }
            E::Closure(c) => self.scalar(&mut c.body, &mut None),
            E::Let(l) => self.scalar(&mut l.expr, sink),
            E::Assign(a) => {
                self.scalar(&mut a.left, sink);
                self.scalar(&mut a.right, sink);
            }
            E::Array(a) => a.elems.iter_mut().for_each(|x| self.scalar(x, sink)),
            E::Tuple(t) => t.elems.iter_mut().for_each(|x| self.scalar(x, sink)),
            E::Repeat(r) => self.scalar(&mut r.expr, sink),
            E::Range(r) => {
                r.start.iter_mut().for_each(|x| self.scalar(x, sink));
                r.end.iter_mut().for_each(|x| self.scalar(x, sink));
            }
            E::Try(t) => self.scalar(&mut t.expr, sink),
            E::Break(b) => b.expr.iter_mut().for_each(|x| self.scalar(x, &mut None)),
            E::Macro(m) => self.macro_expr(&mut m.mac, sink),
            E::Struct(s) => s
                .fields
                .iter_mut()
                .for_each(|f| self.scalar(&mut f.expr, sink)),
            _ => {}
        }
    }
}

/// A method of a nalgebra value that gives a number.
fn scalar_method(name: &str) -> bool {
    matches!(
        name,
        "dot" | "norm" | "norm_squared" | "magnitude" | "magnitude_squared" | "sum"
    )
}

/// `a += b`'s operator as the binary one, `+`.
fn compound(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => parse_quote!(+),
        B::SubAssign(_) => parse_quote!(-),
        B::MulAssign(_) => parse_quote!(*),
        B::DivAssign(_) => parse_quote!(/),
        _ => return None,
    })
}

fn ident(e: &E) -> Option<String> {
    match e {
        E::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        E::Paren(p) => ident(&p.expr),
        _ => None,
    }
}

/// A name, a literal, or an entry of a name: read again at no cost.
fn simple(e: &E) -> bool {
    match e {
        E::Path(_) | E::Lit(_) => true,
        E::Index(ix) => {
            matches!(&*ix.expr, E::Path(_)) && matches!(&*ix.index, E::Lit(_) | E::Path(_))
        }
        E::Paren(p) => simple(&p.expr),
        E::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && simple(&u.expr),
        _ => false,
    }
}

fn sum(terms: impl Iterator<Item = E>) -> E {
    terms
        .reduce(|acc, t| bin(acc, &parse_quote!(+), t))
        .unwrap_or_else(|| parse_quote!(0.0))
}

/// How tightly `e` binds: a sum 1, a product 2, a negation 3, a name, a
/// literal, an entry, a call or a parenthesis 4, anything else 0.
fn precedence(e: &E) -> u8 {
    match e {
        E::Binary(b) => match b.op {
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) => 1,
            syn::BinOp::Mul(_) | syn::BinOp::Div(_) | syn::BinOp::Rem(_) => 2,
            _ => 0,
        },
        E::Unary(_) => 3,
        E::Path(_)
        | E::Lit(_)
        | E::Index(_)
        | E::Call(_)
        | E::MethodCall(_)
        | E::Paren(_)
        | E::Field(_)
        | E::Array(_) => 4,
        _ => 0,
    }
}

/// `e` where an operand binding at least as tightly as `at` is needed, in
/// parentheses if it binds less (syn prints an expression's tokens as they
/// are, so `a - b` put into `#x * s` would read `a - b * s`).
fn operand(e: E, at: u8) -> E {
    match precedence(&e) >= at {
        true => e,
        false => parse_quote!((#e)),
    }
}

/// `x op y`, with the parentheses its operands need: the left one where it
/// binds less than `op`, the right one where it binds no more (`a - (b -
/// c)`).
fn bin(x: E, op: &syn::BinOp, y: E) -> E {
    let at = precedence(&parse_quote!(a #op b));
    let (x, y) = (operand(x, at), operand(y, at + 1));
    parse_quote!(#x #op #y)
}

fn paren(e: E) -> E {
    parse_quote!((#e))
}

fn squares(en: &Entries) -> E {
    sum(en
        .items
        .iter()
        .map(|x| bin(x.clone(), &parse_quote!(*), x.clone())))
}

fn norm(en: &Entries) -> E {
    let s = squares(en);
    parse_quote!((#s).sqrt())
}
