//! What the function binds: names, integers, parameters that own their
//! elements.

use std::collections::HashSet;

use syn::visit::Visit;
use syn::Expr as E;

use super::integer_or_bool;

/// Every identifier a pattern binds in the function (its parameters, its
/// `let`s, loop variables, closure parameters, arms), those bound to an
/// integer for sure (a `for` over a range, a parameter of an integer
/// type), and every identifier at all.
#[derive(Default)]
pub(super) struct Bound {
    pub(super) names: HashSet<String>,
    /// The names every binding of which is an integer's (a name bound to
    /// an integer once and to a float elsewhere is neither, for sure).
    pub(super) integers: HashSet<String>,
    /// The names every binding of which is an array, slice or `Vec` of
    /// integers (`k: &[u32]`, `idx: [usize; 3]`), whose elements are
    /// integers however indexed.
    pub(super) integer_arrays: HashSet<String>,
    /// How often each name is bound, and how often to an integer.
    bindings: std::collections::HashMap<String, (usize, usize)>,
    /// How often each name is bound to an array of integers.
    array_bindings: std::collections::HashMap<String, usize>,
    pub(super) all: HashSet<String>,
    /// Parameters that own their elements (`v: Vec<f64>`, `a: [f64; 3]`):
    /// a `for` over one binds values.
    pub(super) owned: HashSet<String>,
}

impl Bound {
    /// A binding of `name` to an integer.
    fn integer(&mut self, name: &syn::Ident) {
        self.bindings.entry(name.to_string()).or_default().1 += 1;
    }

    /// The names every binding of which is an integer's.
    pub(super) fn settle(&mut self) {
        self.integers = self
            .bindings
            .iter()
            .filter(|(_, (all, integer))| all == integer)
            .map(|(n, _)| n.clone())
            .collect();
        self.integer_arrays = self
            .array_bindings
            .iter()
            .filter(|(n, arrays)| self.bindings.get(*n).is_some_and(|(all, _)| all == *arrays))
            .map(|(n, _)| n.clone())
            .collect();
    }
}

/// Whether `ty` holds integers only, indexed however deep: `&[u32]`,
/// `&mut [i64]`, `[usize; 3]`, `Vec<u8>`, `&Vec<usize>`, `&[[i32; 2]]`.
fn integer_array(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => integer_array(&r.elem),
        syn::Type::Slice(s) => integer_elements(&s.elem),
        syn::Type::Array(a) => integer_elements(&a.elem),
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].ident == "Vec"
                && matches!(&p.path.segments[0].arguments, syn::PathArguments::AngleBracketed(a)
                if matches!(&a.args.iter().collect::<Vec<_>>()[..], [syn::GenericArgument::Type(t)] if integer_elements(t)))
        }
        _ => false,
    }
}

/// An integer type, or an array of them.
fn integer_elements(ty: &syn::Type) -> bool {
    super::is_integer(ty) || integer_array(ty)
}

impl Visit<'_> for Bound {
    fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        self.bindings.entry(p.ident.to_string()).or_default().0 += 1;
        syn::visit::visit_pat_ident(self, p);
    }

    // `const N: usize`: an integer the function binds, read as such.
    fn visit_const_param(&mut self, c: &syn::ConstParam) {
        if let syn::Type::Path(t) = &c.ty {
            if t.path.get_ident().is_some_and(integer_or_bool) {
                self.names.insert(c.ident.to_string());
                self.bindings.entry(c.ident.to_string()).or_default().0 += 1;
                self.integer(&c.ident);
            }
        }
        syn::visit::visit_const_param(self, c);
    }

    fn visit_ident(&mut self, i: &proc_macro2::Ident) {
        self.all.insert(i.to_string());
    }

    fn visit_pat_type(&mut self, p: &syn::PatType) {
        if let syn::Pat::Ident(i) = &*p.pat {
            if integer_array(&p.ty) {
                *self.array_bindings.entry(i.ident.to_string()).or_default() += 1;
            }
        }
        if let (syn::Pat::Ident(i), syn::Type::Path(t)) = (&*p.pat, &*p.ty) {
            if t.path.get_ident().is_some_and(integer_or_bool) {
                self.integer(&i.ident);
            }
        }
        syn::visit::visit_pat_type(self, p);
    }

    // `let n = xs.len();`, `let m = n - 1;` of an integer: the name is
    // one (where every binding of it is).
    fn visit_local(&mut self, l: &syn::Local) {
        fn integer(e: &E, known: &HashSet<String>) -> bool {
            match e {
                E::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
                E::Paren(p) => integer(&p.expr, known),
                E::MethodCall(m) => m.method == "len" || m.method == "count",
                E::Cast(c) => matches!(&*c.ty, syn::Type::Path(p)
                    if p.path.get_ident().is_some_and(integer_or_bool)),
                E::Binary(b) => integer(&b.left, known) && integer(&b.right, known),
                E::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|i| known.contains(&i.to_string())),
                _ => false,
            }
        }
        if let (syn::Pat::Ident(i), Some(init)) = (&l.pat, &l.init) {
            // The names already bound only to integers, in source order.
            let known: HashSet<String> = self
                .bindings
                .iter()
                .filter(|(_, (all, int))| all == int && *all > 0)
                .map(|(n, _)| n.clone())
                .collect();
            if init.diverge.is_none() && integer(&init.expr, &known) {
                self.integer(&i.ident);
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_expr_for_loop(&mut self, f: &syn::ExprForLoop) {
        if let (syn::Pat::Ident(i), E::Range(_)) = (&*f.pat, &*f.expr) {
            self.integer(&i.ident);
        }
        // `for (i, ..) in ...enumerate()`: `i` counts.
        if let (syn::Pat::Tuple(t), E::MethodCall(m)) = (&*f.pat, &*f.expr) {
            if let (Some(syn::Pat::Ident(i)), true) = (t.elems.first(), m.method == "enumerate") {
                self.integer(&i.ident);
            }
        }
        syn::visit::visit_expr_for_loop(self, f);
    }

    fn visit_macro(&mut self, m: &syn::Macro) {
        // `vec![..]`'s items, where a closure may bind names.
        let mut m = m.clone();
        crate::desugar::vec_items(&mut m, |e| self.visit_expr(e));
        for t in m.tokens.clone() {
            if let proc_macro2::TokenTree::Ident(i) = t {
                self.all.insert(i.to_string());
            }
        }
    }
}
