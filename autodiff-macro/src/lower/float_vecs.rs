//! Which `Vec`s declared without an element type hold floats: a
//! `Vec::new()` whose pushes show floats (`float_vecs`), the names bound
//! to floats that show it (`float_locals`, `loop_elements`,
//! `float_params`), a returned `Vec` declared empty without a type, and
//! the locals whose elements are read as structs (`struct_elements`),
//! and the `Vec`s of rows whose type is written (`typed_rows`).

use super::*;

/// The `let` of the `Vec` a body returns by name when it is declared empty
/// without a type (`let mut out = Vec::new();`): #[grad] models arrays of
/// a float type it can read.
pub(super) fn untyped_empty_vec(block: &syn::Block) -> Option<&syn::Local> {
    let Some(syn::Stmt::Expr(syn::Expr::Path(p), None)) = block.stmts.last() else {
        return None;
    };
    let name = p.path.get_ident()?;
    // The last `let` of that name in the body is the one returned.
    let local = block.stmts.iter().rev().find_map(|s| match s {
        syn::Stmt::Local(l) => match &l.pat {
            syn::Pat::Ident(i) if i.ident == *name => Some(l),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(i) if i.ident == *name => Some(l),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })?;
    let init = &local.init.as_ref()?.expr;
    let empty = matches!(array_init_parts(init), Some(ArrayParts::Empty(_)));
    (empty && matches!(local.pat, syn::Pat::Ident(_))).then_some(local)
}

/// The names of the `Vec`s declared empty without an element type
/// (`let mut r = Vec::new();`, `Vec::with_capacity(n)`) whose pushes
/// show float elements: at least one pushed value is float syntax (a
/// float literal, a cast to a float type, a float method, a float
/// parameter `floats` names) and none is plainly something else (a
/// string, an integer or `bool` literal, a tuple, a reference, a struct).
/// #[grad] models them as float arrays, whose element type rustc infers.
pub(super) fn float_vecs(
    block: &syn::Block,
    floats: &std::collections::HashSet<String>,
) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Scan<'f> {
        floats: Option<&'f std::collections::HashSet<String>>,
        declared: Vec<String>,
        /// Per name: (a push shows a float, a push shows something else).
        pushes: std::collections::HashMap<String, (bool, bool)>,
    }
    impl<'a> Visit<'a> for Scan<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let (syn::Pat::Ident(i), Some(init)) = (&l.pat, &l.init) {
                if matches!(array_init_parts(&init.expr), Some(ArrayParts::Empty(_))) {
                    self.declared.push(i.ident.to_string());
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if m.method == "push" && m.args.len() == 1 {
                if let syn::Expr::Path(p) = &*m.receiver {
                    if let Some(name) = p.path.get_ident() {
                        let floats = self.floats.cloned().unwrap_or_default();
                        let (float, other) = pushed_kind(&m.args[0], &floats);
                        let e = self.pushes.entry(name.to_string()).or_default();
                        e.0 |= float;
                        e.1 |= other;
                    }
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let floats = float_locals(block, floats);
    let mut scan = Scan {
        floats: Some(&floats),
        ..Default::default()
    };
    scan.visit_block(block);
    scan.declared
        .into_iter()
        .filter(|n| matches!(scan.pushes.get(n), Some((true, false))))
        .collect()
}

/// `floats` and the locals whose `let` shows a float: a float type
/// written, or an initialiser of float syntax (`let mut x = 0.0;`, `let v
/// = k * x;` with `k` a float), to a fixed point.
fn float_locals(
    block: &syn::Block,
    floats: &std::collections::HashSet<String>,
) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    struct Lets<'a>(Vec<(String, Option<&'a syn::Type>, Option<&'a syn::Expr>)>);
    impl<'a> Visit<'a> for Lets<'a> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            let init = l.init.as_ref().map(|i| &*i.expr);
            match &l.pat {
                syn::Pat::Ident(i) => self.0.push((i.ident.to_string(), None, init)),
                syn::Pat::Type(t) => match (&*t.pat, &*t.ty) {
                    (syn::Pat::Ident(i), _) => {
                        self.0.push((i.ident.to_string(), Some(&t.ty), init))
                    }
                    // `let (x, y): (f64, f64) = ..;`
                    (syn::Pat::Tuple(p), syn::Type::Tuple(ty))
                        if p.elems.len() == ty.elems.len() =>
                    {
                        for (p, ty) in p.elems.iter().zip(&ty.elems) {
                            if let syn::Pat::Ident(i) = p {
                                self.0.push((i.ident.to_string(), Some(ty), None));
                            }
                        }
                    }
                    _ => {}
                },
                // `let (mut x, y) = (a, b);`: each name with its element.
                syn::Pat::Tuple(p) => {
                    if let Some(syn::Expr::Tuple(t)) = init {
                        if p.elems.len() == t.elems.len() {
                            for (p, e) in p.elems.iter().zip(&t.elems) {
                                if let syn::Pat::Ident(i) = p {
                                    self.0.push((i.ident.to_string(), None, Some(e)));
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut lets = Lets(Vec::new());
    lets.visit_block(block);
    let mut out = floats.clone();
    loop {
        let before = out.len();
        // `for &x in xs`, `for (i, x) in xs.iter().enumerate()`, `for (a,
        // b) in xs.iter().zip(ys)` over float arrays: the elements' names.
        loop_elements(block, &mut out);
        for (name, ty, init) in &lets.0 {
            if out.contains(name) {
                continue;
            }
            let typed = ty.is_some_and(|t| {
                let t = quote::ToTokens::to_token_stream(t).to_string();
                t == "f64" || t == "f32"
            });
            // An array of floats (`let mut state = [x0, v0];`) holds
            // floats too: its reads are float syntax.
            let shows_float = |e: &syn::Expr| match array_init_parts(e) {
                // `[x0, v0]`, `[0.0; 3]`, `vec![T::zero(); n]`, `vec![a, b]`.
                Some(ArrayParts::List(items, _)) => items.iter().any(|x| pushed_kind(x, &out).0),
                Some(ArrayParts::Repeat(v, _)) => pushed_kind(v, &out).0,
                Some(ArrayParts::Filled(vn)) => pushed_kind(&vn.0, &out).0,
                _ => pushed_kind(e, &out).0,
            };
            if typed || init.is_some_and(shows_float) {
                out.insert(name.clone());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// Adds to `floats` the names `for` loops bind to the elements of float
/// arrays in `floats`: `for &x in xs`, `xs.iter()` (`.rev()`, `.copied()`),
/// the element of `.enumerate()`, both of a `.zip(..)` of two.
fn loop_elements(block: &syn::Block, floats: &mut std::collections::HashSet<String>) {
    use syn::visit::Visit;
    /// The names `pat` binds to elements of `source`, where they are floats.
    fn bind(
        pat: &syn::Pat,
        source: &syn::Expr,
        floats: &std::collections::HashSet<String>,
        out: &mut Vec<String>,
    ) {
        let pat = match pat {
            syn::Pat::Reference(r) => &*r.pat,
            p => p,
        };
        match source {
            syn::Expr::Reference(r) => bind(pat, &r.expr, floats, out),
            syn::Expr::Paren(p) => bind(pat, &p.expr, floats, out),
            syn::Expr::Path(p)
                if p.path
                    .get_ident()
                    .is_some_and(|i| floats.contains(&i.to_string())) =>
            {
                if let syn::Pat::Ident(i) = pat {
                    out.push(i.ident.to_string());
                }
            }
            syn::Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "iter" | "rev" | "copied" | "cloned" | "into_iter" => {
                    bind(pat, &m.receiver, floats, out)
                }
                "enumerate" => {
                    if let syn::Pat::Tuple(t) = pat {
                        if t.elems.len() == 2 {
                            bind(&t.elems[1], &m.receiver, floats, out);
                        }
                    }
                }
                "zip" if m.args.len() == 1 => {
                    if let syn::Pat::Tuple(t) = pat {
                        if t.elems.len() == 2 {
                            bind(&t.elems[0], &m.receiver, floats, out);
                            bind(&t.elems[1], &m.args[0], floats, out);
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    struct Loops<'f> {
        floats: &'f std::collections::HashSet<String>,
        found: Vec<String>,
    }
    impl<'a> Visit<'a> for Loops<'_> {
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            bind(&f.pat, &f.expr, self.floats, &mut self.found);
            syn::visit::visit_expr_for_loop(self, f);
        }
    }
    let mut loops = Loops {
        floats,
        found: Vec::new(),
    };
    loops.visit_block(block);
    let found = loops.found;
    floats.extend(found);
}

/// The names the body reads as structs, or whose elements it reads so: a
/// named field (`p.x`, `bs[i].x`) or a method no float has (`bs[i].kick(g)`).
/// A copy of a struct's part into one (`let p = self.pos.clone();`, `let
/// mut bs = self.bodies.clone();`) holds a struct or structs, not the
/// floats an element-wise copy would give it.
pub(super) fn struct_elements(block: &syn::Block) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    /// `name` of `name[..]`.
    fn indexed(e: &syn::Expr) -> Option<String> {
        match e {
            // Not a sub-slice, `u[1..].reverse()`.
            syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => None,
            syn::Expr::Index(i) => match &*i.expr {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            syn::Expr::Paren(p) => indexed(&p.expr),
            _ => None,
        }
    }
    #[derive(Default)]
    struct Scan(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Scan {
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            // `bs[i].x`, and `p.x` of a copy of a struct (`let p =
            // self.pos.clone();`).
            let whole = match &*f.base {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            if let (syn::Member::Named(_), Some(n)) = (&f.member, indexed(&f.base).or(whole)) {
                self.0.insert(n);
            }
            syn::visit::visit_expr_field(self, f);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let name = m.method.to_string();
            let of_floats = crate::rules::method(&name).is_some()
                || crate::rules::float_method_without_rule(&name)
                || matches!(
                    name.as_str(),
                    "clone"
                        | "to_string"
                        | "is_nan"
                        | "is_finite"
                        | "is_infinite"
                        | "is_sign_negative"
                        | "is_sign_positive"
                        | "partial_cmp"
                        | "clamp"
                        | "into"
                        | "to_owned"
                );
            if let (false, Some(n)) = (of_floats, indexed(&m.receiver)) {
                self.0.insert(n);
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut scan = Scan::default();
    scan.visit_block(block);
    scan.0
}

/// Whether a pushed value is float syntax, and whether it is plainly not a
/// float.
fn pushed_kind(e: &syn::Expr, floats: &std::collections::HashSet<String>) -> (bool, bool) {
    use syn::visit::Visit;
    let other = match e {
        syn::Expr::Lit(l) => !matches!(l.lit, syn::Lit::Float(_)),
        syn::Expr::Tuple(_)
        | syn::Expr::Reference(_)
        | syn::Expr::Struct(_)
        | syn::Expr::Array(_)
        | syn::Expr::Macro(_) => true,
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "to_string" | "to_owned" | "into" | "len" | "clone" | "to_vec"
        ),
        _ => false,
    };
    struct Float<'f> {
        floats: &'f std::collections::HashSet<String>,
        found: bool,
    }
    impl<'a> Visit<'a> for Float<'_> {
        fn visit_lit(&mut self, l: &'a syn::Lit) {
            self.found |= matches!(l, syn::Lit::Float(_));
        }
        fn visit_expr_cast(&mut self, c: &'a syn::ExprCast) {
            let t = quote::ToTokens::to_token_stream(&c.ty).to_string();
            self.found |= t == "f64" || t == "f32";
            syn::visit::visit_expr_cast(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.found |= crate::rules::method(&m.method.to_string()).is_some();
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.found |= self.floats.contains(&i.to_string());
            }
        }
        // `T::zero()`, `T::from_f64(0.5)`: a float of a type parameter;
        // `f64::ln_1p(x)`: a float method in path form.
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let segs = &p.path.segments;
                let last = segs.last().map(|s| s.ident.to_string()).unwrap_or_default();
                let float_type = segs.len() == 2
                    && p.qself.is_none()
                    && (segs[0].ident == "f64" || segs[0].ident == "f32");
                self.found |= (segs.len() >= 2 || p.qself.is_some())
                    && matches!(last.as_str(), "zero" | "one" | "from_f64");
                self.found |= float_type && crate::rules::method(&last).is_some();
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut f = Float {
        floats,
        found: false,
    };
    f.visit_expr(e);
    (f.found && !other, other)
}

/// The parameters of a float type or an array of one, as written (`f64`,
/// `&[f32]`, `T` of `T: Float`): names whose uses show floats.
pub(super) fn float_params(sig: &syn::Signature) -> std::collections::HashSet<String> {
    let generic = crate::desugar::generic::generic_param(sig).map(|g| g.to_string());
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => {
                    let ty = t.ty.to_token_stream().to_string();
                    let float = ty
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|w| w == "f64" || w == "f32" || Some(w) == generic.as_deref());
                    float.then(|| i.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The names a `let` binds with a written type of a `Vec` of rows or
/// tuples (`let mut pos: Vec<[f64; 2]> = ..`), for a refusal that speaks
/// of rows where the split left the `Vec` whole.
pub(super) fn typed_rows(block: &syn::Block) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Scan(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Scan {
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let syn::Pat::Type(t) = &l.pat {
                let rows = crate::ir::vec_elem(&t.ty)
                    .is_some_and(|e| matches!(e, syn::Type::Array(_) | syn::Type::Tuple(_)));
                if let (true, syn::Pat::Ident(i)) = (rows, &*t.pat) {
                    self.0.insert(i.ident.to_string());
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut scan = Scan::default();
    scan.visit_block(block);
    scan.0
}
