//! Scalar code around nalgebra values: a method giving a number
//! (`v.dot(&w)`, `v.norm()`), an entry (`v.x`, `m[(i, j)]`), and the
//! refusal of a value where a number is expected.

use syn::parse_quote;
use syn::Expr as E;

use super::entries::{Rewriter, SUPPORTED};
use super::syntax::{
    array_method, bin, ident, norm, operand, paren, scalar_method, squares, sum, Entries, Sink,
};

impl Rewriter {
    /// A call of a function with nalgebra values in its signature, given
    /// or returning one (`fk(&q)`, `let e: Vector2<f64> = fk(q1, q2);`),
    /// as the call of its twin, which takes and returns the arrays of
    /// their entries (`__autodiff_na_fk([q[0], q[1]])`): the twin is
    /// differentiated like any `#[grad]` function, so the call is too. A
    /// function without `#[grad]` has no twin: rustc says so at the call.
    /// `false` (and the call unchanged) where the callee is not a path.
    /// A function of nalgebra's own given values, `nalgebra::distance(&p,
    /// &q)` and `distance_squared`: the norm of the difference (any other
    /// refused, its refusal the value); `None` where `c` calls none.
    fn nalgebra_function(&mut self, c: &syn::ExprCall, sink: &mut Sink) -> Option<E> {
        let E::Path(p) = &*c.func else { return None };
        let segs = &p.path.segments;
        let first = segs.first()?.ident.to_string();
        if segs.len() < 2 || !matches!(first.as_str(), "nalgebra" | "na") || p.qself.is_some() {
            return None;
        }
        let name = segs.last()?.ident.to_string();
        let parts: Vec<Option<Entries>> = c.args.iter().map(|a| self.entries(a, sink)).collect();
        match (name.as_str(), parts.as_slice()) {
            ("distance" | "distance_squared", [Some(a), Some(b)])
                if a.items.len() == b.items.len() =>
            {
                let items = a.items.iter().zip(&b.items);
                let diff = Entries {
                    items: items
                        .map(|(x, y)| bin(x.clone(), &parse_quote!(-), y.clone()))
                        .collect(),
                    ..a.clone()
                };
                let diff = self.bind_entries(diff, sink);
                Some(match name.as_str() {
                    "distance" => norm(&diff),
                    _ => paren(squares(&diff)),
                })
            }
            _ => {
                self.refuse(c, format!("#[grad] does not follow nalgebra's function `{name}`: it takes `nalgebra::distance` and `distance_squared` of two points; compute with {SUPPORTED}"));
                Some(E::Call(c.clone()))
            }
        }
    }

    pub(super) fn call_twin(&mut self, c: &mut syn::ExprCall, sink: &mut Sink) -> bool {
        let E::Path(p) = &mut *c.func else {
            return false;
        };
        if p.qself.is_some() || super::constructor(&p.path).is_some() {
            return false;
        }
        if let Some(name) = p
            .path
            .get_ident()
            .filter(|n| self.closures.contains(&n.to_string()))
        {
            let name = name.to_string();
            self.refuse(c, format!("#[grad] computes with nalgebra values' entries, and does not pass them to a closure (`{name}`) yet: make it a `#[grad]` function, or compute here"));
            return true;
        }
        let Some(last) = p.path.segments.last_mut() else {
            return false;
        };
        last.ident = quote::format_ident!("__autodiff_na_{}", last.ident, span = last.ident.span());
        for a in c.args.iter_mut() {
            let named = match &*a {
                E::Reference(r) => ident(&r.expr),
                other => ident(other),
            };
            // A `for`'s value is a reference in the twin: its entries.
            let named = named.filter(|n| self.env.contains_key(n) && !self.lent.contains(n));
            match (named, self.entries(a, sink)) {
                // The array itself, `Copy`.
                (Some(n), Some(_)) => {
                    let n = syn::Ident::new(&n, proc_macro2::Span::call_site());
                    *a = parse_quote!(#n);
                }
                // Bound to a typed array first: the macro takes an array
                // argument by its name.
                (None, Some(en)) => {
                    let en = self.bind_entries_always(en, sink);
                    *a = en;
                }
                (_, None) => self.scalar(a, sink),
            }
        }
        true
    }

    /// A scalar-valued method of a nalgebra value: `v.dot(&w)`, `v.norm()`,
    /// `v.sum()`; `None` where `m` is none.
    pub(super) fn scalar_method(&mut self, m: &syn::ExprMethodCall, sink: &mut Sink) -> Option<E> {
        let name = m.method.to_string();
        // `sum` is an iterator's too (`v.iter().map(..).sum()`): taken only
        // on a value; the others are nalgebra's, whose refusals (an operand
        // from a call) are reported.
        if !scalar_method(&name) || name == "sum" && !self.is_value(&m.receiver) {
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
            ("mean", 0) => {
                let n = syn::LitFloat::new(
                    &format!("{:?}", en.items.len() as f64),
                    proc_macro2::Span::call_site(),
                );
                let total = paren(sum(en.items.into_iter()));
                Some(parse_quote!((#total / #n)))
            }
            ("trace", 0) if en.rows == en.cols => {
                let n = en.rows;
                Some(paren(sum((0..n).map(|i| en.at(i, i).clone()))))
            }
            ("determinant", 0) if en.rows == en.cols && en.rows <= 3 => {
                let en = self.bind_entries(en, sink);
                Some(paren(determinant(&en)))
            }
            // The largest and smallest entries, and of their magnitudes:
            // `f64::max` in turn, as nalgebra's fold compares them.
            ("max" | "min" | "amax" | "amin", 0) => {
                let pick = syn::Ident::new(
                    if name.ends_with("max") { "max" } else { "min" },
                    proc_macro2::Span::call_site(),
                );
                let abs = name.starts_with('a');
                let items = en.items.into_iter().map(|x| match abs {
                    true => {
                        let x = operand(x, 4);
                        parse_quote!(#x.abs())
                    }
                    false => operand(x, 4),
                });
                items.reduce(|acc: E, x| parse_quote!(#acc.#pick(#x)))
            }
            // The angle between two vectors, as nalgebra computes it.
            ("angle", 1) => {
                let other = self
                    .entries(&m.args[0], sink)
                    .filter(|o| o.items.len() == en.items.len())?;
                let (a, b) = (self.bind_entries(en, sink), self.bind_entries(other, sink));
                let dot = sum(a
                    .items
                    .iter()
                    .zip(&b.items)
                    .map(|(x, y)| bin(x.clone(), &parse_quote!(*), y.clone())));
                let (na, nb) = (norm(&a), norm(&b));
                let (lo, hi) = (self.lit(-1.0, None), self.lit(1.0, None));
                Some(parse_quote!(((#dot) / (#na * #nb)).clamp(#lo, #hi).acos()))
            }
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
    pub(super) fn scalar(&mut self, e: &mut E, sink: &mut Sink) {
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
                    if !array_method(&name) && !scalar_method(&name) {
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
                if let (Some(_), Some(name)) =
                    (k, ident(&f.base).filter(|n| self.opaque.contains_key(n)))
                {
                    self.refuse(&f.base, format!("#[grad] cannot see what `{name}` is (a call's result): give it its type where it is bound (`let {name}: Vector3<f64> = ..;`)"));
                    return;
                }
                let refused = self.refused;
                match (k, self.entries(&f.base, sink)) {
                    // A column's or a row's entry (`RowVector3`'s `.x`).
                    (Some(k), Some(en)) if k < en.items.len() && (en.cols == 1 || en.rows == 1) => {
                        *e = operand(en.items[k].clone(), 4);
                    }
                    _ if self.refused > refused => {}
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
                if let (E::Tuple(t), None) = (&*ix.index, ident(&ix.expr)) {
                    let lit = |e: &E| match e {
                        E::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(k),
                            ..
                        }) => k.base10_parse::<usize>().ok(),
                        _ => None,
                    };
                    if t.elems.len() == 2 {
                        if let (Some(i), Some(j)) = (lit(&t.elems[0]), lit(&t.elems[1])) {
                            let refused = self.refused;
                            match self.entries(&ix.expr, sink) {
                                Some(en) if i < en.rows && j < en.cols => {
                                    *e = operand(en.at(i, j).clone(), 4);
                                    return;
                                }
                                _ if self.refused > refused => return,
                                _ => {}
                            }
                        }
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
                let given = c.args.iter().any(|a| self.is_value(a));
                if given {
                    if let Some(x) = self.nalgebra_function(c, sink) {
                        *e = x;
                        return;
                    }
                }
                if !(given && self.call_twin(c, sink)) {
                    c.args.iter_mut().for_each(|a| self.scalar(a, sink));
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
                // `for p in pts` (`&pts`, `pts.iter()`, `&p`) over a list of
                // values: `p` is one of them in the body.
                let listed = match &*f.expr {
                    E::Reference(r) => ident(&r.expr),
                    E::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                        ident(&m.receiver)
                    }
                    other => ident(other),
                };
                let one = listed.and_then(|l| {
                    self.env
                        .get(&l)
                        .filter(|t| t.held != super::Held::One)
                        .cloned()
                });
                let bound = match &*f.pat {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    syn::Pat::Reference(r) => match &*r.pat {
                        syn::Pat::Ident(i) => Some(i.ident.to_string()),
                        _ => None,
                    },
                    _ => None,
                };
                match (one, bound) {
                    (Some(t), Some(p)) => {
                        let before = self.env.insert(
                            p.clone(),
                            super::NaTy {
                                held: super::Held::One,
                                ..t
                            },
                        );
                        let by_ref = !matches!(&*f.pat, syn::Pat::Reference(_));
                        if by_ref {
                            self.lent.insert(p.clone());
                        }
                        self.block(&mut f.body, false);
                        self.lent.remove(&p);
                        match before {
                            Some(b) => self.env.insert(p, b),
                            None => self.env.remove(&p),
                        };
                    }
                    _ => self.block(&mut f.body, false),
                }
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

/// The determinant of a square matrix of at most 3 rows, by its
/// cofactor expansion along the first row.
fn determinant(m: &Entries) -> E {
    let a = |i: usize, j: usize| m.at(i, j).clone();
    let mul = |x: E, y: E| bin(x, &parse_quote!(*), y);
    let sub = |x: E, y: E| bin(x, &parse_quote!(-), y);
    match m.rows {
        1 => a(0, 0),
        2 => sub(mul(a(0, 0), a(1, 1)), mul(a(0, 1), a(1, 0))),
        _ => {
            let minor = |j: usize, k: usize| sub(mul(a(1, j), a(2, k)), mul(a(1, k), a(2, j)));
            let terms = [
                mul(a(0, 0), minor(1, 2)),
                mul(a(0, 1), minor(0, 2)),
                mul(a(0, 2), minor(0, 1)),
            ];
            let [t0, t1, t2] = terms;
            bin(sub(t0, t1), &parse_quote!(+), t2)
        }
    }
}
