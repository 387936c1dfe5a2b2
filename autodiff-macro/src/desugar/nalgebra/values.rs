//! The entries of an expression that is a nalgebra value: a name, a
//! constructor, an operation of values and scalars, a method giving a
//! value.

use syn::parse_quote;
use syn::Expr as E;

use super::constructor;
use super::entries::{Rewriter, SUPPORTED};
use super::syntax::{bin, from_call, ident, norm, operand, scalar_method, sum, Entries, Sink};

impl Rewriter {
    /// Whether `a` and `b` have one shape, as an operation of them needs;
    /// refused at `at` otherwise.
    fn same_shape(&mut self, at: &dyn quote::ToTokens, a: &Entries, b: &Entries) -> bool {
        let same = (a.rows, a.cols) == (b.rows, b.cols);
        if !same {
            self.refuse(at, format!("these nalgebra values have different shapes, {}×{} and {}×{}: nalgebra does not take this either", a.rows, a.cols, b.rows, b.cols));
        }
        same
    }

    /// `e`'s entries, where it is a nalgebra value whose shape is known.
    pub(super) fn entries(&mut self, e: &E, sink: &mut Sink) -> Option<Entries> {
        match e {
            E::Paren(p) => self.entries(&p.expr, sink),
            E::Group(g) => self.entries(&g.expr, sink),
            E::Reference(r) => self.entries(&r.expr, sink),
            E::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?;
                let t = self.env.get(&name.to_string())?;
                if t.held != super::Held::One {
                    return None;
                }
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
            // `*m` of `m: &Matrix3<f64>`: the same entries.
            E::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.entries(&u.expr, sink),
            E::Macro(m) => self.listed(&m.mac),
            // `pts[i]` of a list of values: `pts[i][k]`.
            E::Index(ix) => {
                let list = ident(&ix.expr)?;
                let t = self
                    .env
                    .get(&list)
                    .filter(|t| t.held != super::Held::One)?
                    .clone();
                let mut index = (*ix.index).clone();
                self.scalar(&mut index, sink);
                let index = self.bind(index, sink);
                let base = &ix.expr;
                let items = (0..t.len())
                    .map(|k| parse_quote!(#base[#index][#k]))
                    .collect();
                Some(Entries {
                    rows: t.rows,
                    cols: t.cols,
                    items,
                })
            }
            E::If(i) => self.chosen(i, sink),
            E::MethodCall(m) => self.method(m, sink),
            E::Field(f) if matches!(&f.member, syn::Member::Named(n) if n == "coords") => {
                self.entries(&f.base, sink)
            }
            _ => None,
        }
    }

    /// `vector![x, y, z]`, `point![x, y]`: a column of the items listed.
    fn listed(&mut self, m: &syn::Macro) -> Option<Entries> {
        let name = m.path.segments.last()?.ident.to_string();
        if name != "vector" && name != "point" {
            return None;
        }
        let tokens = &m.tokens;
        let E::Array(a) = syn::parse2::<E>(quote::quote!([#tokens])).ok()? else {
            return None;
        };
        let mut items: Vec<E> = a.elems.into_iter().collect();
        for x in &mut items {
            self.scalar(x, &mut None);
        }
        Some(Entries {
            rows: items.len(),
            cols: 1,
            items,
        })
    }

    /// `if c { v } else { -v }` whose arms are values of one shape (an
    /// `else if` too): entry by entry, `if c { v[k] } else { -v[k] }`,
    /// the condition bound once before the statement.
    fn chosen(&mut self, i: &syn::ExprIf, sink: &mut Sink) -> Option<Entries> {
        let only = |b: &syn::Block| match b.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => Some(e.clone()),
            _ => None,
        };
        let then = only(&i.then_branch)?;
        let els = match &i.else_branch {
            Some((_, e)) => match &**e {
                E::Block(b) => only(&b.block)?,
                other => other.clone(),
            },
            None => return None,
        };
        let (a, b) = (self.entries(&then, sink)?, self.entries(&els, sink)?);
        if !self.same_shape(i, &a, &b) {
            return None;
        }
        let mut cond = (*i.cond).clone();
        self.scalar(&mut cond, sink);
        let cond = self.bind(cond, sink);
        let items = a
            .items
            .iter()
            .zip(&b.items)
            .map(|(x, y)| parse_quote!(if #cond { #x } else { #y }))
            .collect();
        Some(Entries { items, ..a })
    }

    /// `Vector3::new(x, y, z)`, `Matrix2::identity()`, ...
    pub(super) fn constructed(&mut self, c: &syn::ExprCall, sink: &mut Sink) -> Option<Entries> {
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
            ("zeros" | "origin", 0) => (0..n).map(|_| self.lit(0.0, elem.as_ref())).collect(),
            // `Vector3::from([x, y, z])`, `from_column_slice(&[..])`: a
            // list of the entries, column by column; `Point3::from(v)`.
            // `Matrix3::from_diagonal(&v)`.
            ("from_diagonal", 1) if rows == cols => {
                let d = self
                    .entries(&args[0], sink)
                    .filter(|d| d.items.len() == rows);
                let Some(d) = d else {
                    self.refuse(c, format!("#[grad] builds a diagonal matrix from a nalgebra vector of its {rows} entries"));
                    return None;
                };
                (0..n)
                    .map(|k| match k % rows == k / rows {
                        true => d.items[k % rows].clone(),
                        false => self.lit(0.0, elem.as_ref()),
                    })
                    .collect()
            }
            ("from" | "from_column_slice", 1) => {
                let a = match &args[0] {
                    E::Reference(r) => (*r.expr).clone(),
                    other => other.clone(),
                };
                match (&a, self.entries(&a, sink)) {
                    (_, Some(en)) if en.items.len() == n => en.items,
                    (E::Array(list), None) if list.elems.len() == n => {
                        let mut items: Vec<E> = list.elems.iter().cloned().collect();
                        for x in &mut items {
                            self.scalar(x, sink);
                        }
                        items
                    }
                    _ => {
                        self.refuse(c, format!("#[grad] builds a nalgebra value `from` a list of its {n} entries (`[x, y, z]`) or a value of its shape"));
                        return None;
                    }
                }
            }
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

    pub(super) fn binary(&mut self, b: &syn::ExprBinary, sink: &mut Sink) -> Option<Entries> {
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
                if !self.same_shape(b, &l, &r) {
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
            (syn::BinOp::Add(_) | syn::BinOp::Sub(_), l, r) => {
                let (known, other, left) = match (l, r) {
                    (Some(l), None) => (l, &b.right, false),
                    (None, Some(r)) => (r, &b.left, true),
                    _ => return None,
                };
                // `fk(q) - target`: the call's result has the other
                // operand's shape; its twin's array, bound once.
                if let E::Call(c) = strip(other) {
                    let mut c = c.clone();
                    if self.call_twin(&mut c, sink) {
                        let called = self.bind(E::Call(c), sink);
                        let n = known.items.len();
                        let items: Vec<E> = (0..n).map(|k| parse_quote!(#called[#k])).collect();
                        let items = known
                            .items
                            .iter()
                            .zip(items)
                            .map(|(x, y)| match left {
                                true => bin(y, op, x.clone()),
                                false => bin(x.clone(), op, y),
                            })
                            .collect();
                        return Some(Entries { items, ..known });
                    }
                }
                let msg = match ident(other).filter(|n| self.opaque.contains_key(n)) {
                    Some(n) => format!("#[grad] adds nalgebra values whose shapes it knows: `{n}` comes from a call; give it its type, `let {n}: Vector3<f64> = ..;` (a `#[grad]` function's result is followed)"),
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
    pub(super) fn scalar_operand(&mut self, s: &mut E, sink: &mut Sink) -> Option<()> {
        if let Some(name) = ident(s).filter(|n| self.opaque.contains_key(n)) {
            self.refuse(s, format!("#[grad] cannot tell whether `{name}` is a number or a nalgebra value: give it its type where it is bound (`let {name}: f64 = ..;`, `let {name}: Matrix3<f64> = ..;`)"));
            return None;
        }
        if from_call(s) {
            self.refuse(s, "#[grad] cannot tell whether this call gives a number or a nalgebra value: keep its result in a `let` with its type (`let s: f64 = ..;`, `let r: Matrix3<f64> = ..;`)".to_string());
            return None;
        }
        self.scalar(s, sink);
        Some(())
    }

    pub(super) fn method(&mut self, m: &syn::ExprMethodCall, sink: &mut Sink) -> Option<Entries> {
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
                if !self.same_shape(m, &en, &other) {
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
            // `v.map(|z| z.tanh())`: the closure's body once per entry,
            // the entry in place of its parameter.
            ("map", 1) => {
                let E::Closure(f) = &m.args[0] else {
                    self.refuse(&m.args[0], "#[grad] takes `map` of a nalgebra value with a closure written there (`v.map(|z| z.tanh())`)".to_string());
                    return None;
                };
                let param = match f.inputs.first() {
                    Some(syn::Pat::Ident(i)) if f.inputs.len() == 1 => i.ident.clone(),
                    Some(syn::Pat::Type(t)) if f.inputs.len() == 1 => match &*t.pat {
                        syn::Pat::Ident(i) => i.ident.clone(),
                        _ => return None,
                    },
                    _ => return None,
                };
                let body = match &*f.body {
                    E::Block(b) => match b.block.stmts.as_slice() {
                        [syn::Stmt::Expr(e, None)] => e.clone(),
                        _ => {
                            self.refuse(&f.body, "#[grad] takes `map` with a closure whose body is one expression (`|z| z.tanh() * 2.0`)".to_string());
                            return None;
                        }
                    },
                    other => other.clone(),
                };
                let en = self.bind_entries(en, sink);
                let items = en
                    .items
                    .iter()
                    .map(|x| {
                        let mut b = body.clone();
                        super::syntax::substitute(&mut b, &param, &operand(x.clone(), 4));
                        let mut b = operand(b, 1);
                        self.scalar(&mut b, sink);
                        b
                    })
                    .collect();
                Some(Entries { items, ..en })
            }
            ("add_scalar", 1) => {
                let s = scalar_arg(self, sink)?;
                Some(en.map(|x| bin(x, &parse_quote!(+), s.clone())))
            }
            // `v.xy()`, `v.zyx()`: the entries named, a column.
            (swizzle, 0)
                if en.cols == 1
                    && (2..=4).contains(&swizzle.len())
                    && swizzle
                        .chars()
                        .all(|c| "xyzw"[..en.rows.min(4)].contains(c)) =>
            {
                let items = swizzle
                    .chars()
                    .map(|c| en.items["xyzw".find(c).unwrap_or(0)].clone())
                    .collect::<Vec<E>>();
                Some(Entries {
                    rows: items.len(),
                    cols: 1,
                    items,
                })
            }
            // `m.column(j)`, `m.row(i)` with `i`, `j` literals.
            ("column" | "row", 1) => {
                let k = match &m.args[0] {
                    E::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(k),
                        ..
                    }) => k.base10_parse::<usize>().ok(),
                    _ => None,
                };
                let column = name == "column";
                match k.filter(|k| *k < if column { en.cols } else { en.rows }) {
                    Some(k) => {
                        let (rows, cols) = if column { (en.rows, 1) } else { (1, en.cols) };
                        let items = (0..rows * cols)
                            .map(|t| match column {
                                true => en.at(t, k).clone(),
                                false => en.at(k, t).clone(),
                            })
                            .collect();
                        Some(Entries { rows, cols, items })
                    }
                    None => {
                        self.refuse(m, format!("#[grad] takes `{name}` of a nalgebra value at an index written as a number"));
                        None
                    }
                }
            }
            ("lerp", 2) => {
                // `a.lerp(&b, t)`: a·(1 − t) + b·t, as nalgebra computes it.
                let other = arg(self, sink)?;
                let mut t = m.args[1].clone();
                self.scalar_operand(&mut t, sink)?;
                let t = self.bind(t, sink);
                let one = self.lit(1.0, None);
                let one_minus: E = parse_quote!((#one - #t));
                let items = en
                    .items
                    .iter()
                    .zip(&other.items)
                    .map(|(a, b)| {
                        let a = bin(a.clone(), &parse_quote!(*), one_minus.clone());
                        bin(
                            a,
                            &parse_quote!(+),
                            bin(b.clone(), &parse_quote!(*), t.clone()),
                        )
                    })
                    .collect();
                Some(Entries { items, ..en })
            }
            _ => {
                // `v.iter()`, `v.len()`, `v.norm()`: not a nalgebra value,
                // and no error here (scalar code reads them).
                if !scalar_method(&name) && !super::syntax::array_method(&name) {
                    self.refuse(m, format!("#[grad] does not follow `{name}` of a nalgebra value: it takes {SUPPORTED}"));
                }
                None
            }
        }
    }
}

/// `e` without parentheses and references around it.
fn strip(e: &E) -> &E {
    match e {
        E::Paren(p) => strip(&p.expr),
        E::Reference(r) => strip(&r.expr),
        other => other,
    }
}
