//! Labelled jumps out of nested loops, `'outer: for .. { for .. { if c {
//! break 'outer; } } }`, as flags and plain jumps: the jump sets a flag of
//! its label and leaves the inner loop, `{ __break_outer = true; break; }`,
//! and after each loop it leaves on the way out, `if __break_outer {
//! break; }` (`continue 'outer` likewise, ending with `continue;` in the
//! labelled loop's own body). The flags are declared, `false`, before the
//! loop they leave, in the labelled loop's body, so each of its iterations
//! starts with them down. The plain jumps are then the ones
//! `desugar/jumps.rs` already handles. A labelled block, `'blk: { .. }`,
//! is first the loop that runs once.

use crate::desugar::internal::FreshNames;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// `item` without labelled jumps, where each can be rewritten.
pub fn unlabel(mut item: syn::ItemFn) -> syn::ItemFn {
    let names = FreshNames::of(&item);
    Unlabel { names }.visit_block_mut(&mut item.block);
    item
}

struct Unlabel {
    /// Names apart from the function's and from each other.
    names: FreshNames,
}

impl Unlabel {
    fn fresh(&mut self, base: &str) -> syn::Ident {
        syn::Ident::new(&self.names.fresh(base), proc_macro2::Span::call_site())
    }
}

/// Drops the label of `break 'label` outside inner loops and closures;
/// `nested`: whether one inside an inner loop is left.
struct OwnBreaks {
    label: String,
    nested: bool,
}

impl VisitMut for OwnBreaks {
    fn visit_expr_break_mut(&mut self, b: &mut syn::ExprBreak) {
        if b.label.as_ref().is_some_and(|l| l.ident == self.label) {
            b.label = None;
        }
        syn::visit_mut::visit_expr_break_mut(self, b);
    }
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                let label = self.label.clone();
                let mut find = Find(false, &label);
                find.visit_expr(e);
                self.nested |= find.0;
            }
            syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// Whether a `break 'label` is inside.
struct Find<'l>(bool, &'l str);

impl<'a> Visit<'a> for Find<'_> {
    fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
        self.0 |= b.label.as_ref().is_some_and(|l| l.ident == self.1);
        syn::visit::visit_expr_break(self, b);
    }
}

/// Whether `block` holds a `break` or `continue` without a label outside
/// the loops and closures inside it.
fn plain_jumps(block: &syn::Block) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            self.0 |= b.label.is_none();
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_continue(&mut self, c: &'a syn::ExprContinue) {
            self.0 |= c.label.is_none();
        }
        fn visit_expr_for_loop(&mut self, _: &'a syn::ExprForLoop) {}
        fn visit_expr_while(&mut self, _: &'a syn::ExprWhile) {}
        fn visit_expr_loop(&mut self, _: &'a syn::ExprLoop) {}
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut f = Find(false);
    f.visit_block(block);
    f.0
}

/// A loop's label and body, for the three loop forms.
fn label_and_body(e: &mut syn::Expr) -> Option<(&mut Option<syn::Label>, &mut syn::Block)> {
    match e {
        syn::Expr::ForLoop(l) => Some((&mut l.label, &mut l.body)),
        syn::Expr::While(l) => Some((&mut l.label, &mut l.body)),
        syn::Expr::Loop(l) => Some((&mut l.label, &mut l.body)),
        _ => None,
    }
}

impl VisitMut for Unlabel {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // `'blk: { ..; break 'blk v; ..; tail }`: the loop that runs once,
        // `'blk: loop { ..; break 'blk tail; }`, whose value the lowering
        // follows. Not where a plain `break` or `continue` inside leaves
        // an outer loop (inside the new one, it would leave that).
        if let syn::Expr::Block(b) = e {
            if let (Some(label), false) = (&b.label, plain_jumps(&b.block)) {
                let mut stmts = b.block.stmts.clone();
                let tail = match stmts.last() {
                    Some(syn::Stmt::Expr(_, None)) => match stmts.pop() {
                        Some(syn::Stmt::Expr(t, None)) => Some(t),
                        _ => None,
                    },
                    _ => None,
                };
                let name = &label.name;
                let mut body: syn::Block = syn::parse_quote!({ #(#stmts)* break #name #tail; });
                // Its own `break 'blk v` outside inner loops: a plain one.
                let mut own = OwnBreaks {
                    label: name.ident.to_string(),
                    nested: false,
                };
                own.visit_block_mut(&mut body);
                *e = match own.nested {
                    true => syn::parse_quote!(#label loop #body),
                    false => syn::parse_quote!(loop #body),
                };
            }
        }
        // Inner loops first: a label of theirs is theirs to lift.
        syn::visit_mut::visit_expr_mut(self, e);
        let Some((label, body)) = label_and_body(e) else {
            return;
        };
        let Some(l) = label.clone() else { return };
        let name = l.name.ident.to_string();
        let (breaks, continues) = jumps_to(body, &name);
        if !breaks && !continues {
            *label = None;
            return;
        }
        let brk = breaks.then(|| self.fresh(&format!("__break_{name}")));
        let cont = continues.then(|| self.fresh(&format!("__continue_{name}")));
        // `'scan: loop { for .. { break 'scan v; } }`: the value kept in a
        // variable of the loop's body, given by its own `break`.
        let valued = matches!(e, syn::Expr::Loop(_)) && valued_breaks_to(e, &name);
        let value = valued.then(|| self.fresh(&format!("__value_{name}")));
        let Some((label, body)) = label_and_body(e) else {
            return;
        };
        let flags = Flags {
            label: name,
            brk,
            cont,
            value,
        };
        // Rewritten aside: a loop whose jumps cannot all be lifted stays
        // as written, refused where it is lowered.
        let mut lifted = body.clone();
        if flags.lift(&mut lifted) {
            *body = lifted;
            *label = None;
        }
    }
}

/// Whether `block` holds a `break 'label` and a `continue 'label` (not
/// inside a closure).
fn jumps_to(block: &syn::Block, label: &str) -> (bool, bool) {
    struct Find<'l> {
        label: &'l str,
        brk: bool,
        cont: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Break(b) if b.label.as_ref().is_some_and(|l| l.ident == self.label) => {
                    self.brk = true
                }
                syn::Expr::Continue(c)
                    if c.label.as_ref().is_some_and(|l| l.ident == self.label) =>
                {
                    self.cont = true
                }
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find {
        label,
        brk: false,
        cont: false,
    };
    f.visit_block(block);
    (f.brk, f.cont)
}

/// Whether the loop `e` holds a `break 'label v` with a value inside an
/// inner loop (not inside a closure).
fn valued_breaks_to(e: &syn::Expr, label: &str) -> bool {
    struct Find<'l> {
        label: &'l str,
        depth: usize,
        found: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Break(b) => {
                    let targets = b.label.as_ref().is_some_and(|l| l.ident == self.label);
                    self.found |= targets && b.expr.is_some() && self.depth > 1;
                    syn::visit::visit_expr(self, e);
                }
                syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                }
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find {
        label,
        depth: 0,
        found: false,
    };
    f.visit_expr(e);
    f.found
}

struct Flags {
    label: String,
    brk: Option<syn::Ident>,
    cont: Option<syn::Ident>,
    /// The value a `break 'label v` below the labelled `loop` leaves with.
    value: Option<syn::Ident>,
}

impl Flags {
    /// Rewrites the labelled loop's `body`; whether every jump to the
    /// label could be.
    fn lift(&self, body: &mut syn::Block) -> bool {
        // In the labelled loop's own body, a jump to it is a plain jump.
        let mut plain = Plain {
            label: &self.label,
            depth: 0,
            flags: self,
            ok: true,
        };
        plain.visit_block_mut(body);
        if !plain.ok {
            return false;
        }
        // The flags, down at the start of each iteration.
        let mut decls: Vec<syn::Stmt> = Vec::new();
        for f in self.brk.iter().chain(&self.cont) {
            decls.push(syn::parse_quote!(let mut #f = false;));
        }
        if let Some(v) = &self.value {
            decls.push(syn::parse_quote!(let mut #v = ::core::default::Default::default();));
        }
        decls.append(&mut body.stmts);
        body.stmts = decls;
        true
    }

    /// After an inner loop that may set the flags: the jumps they stand
    /// for, `kind` being `break` in a loop between (it is left too) and
    /// the jump itself in the labelled loop's body.
    fn after(&self, in_labelled: bool) -> Vec<syn::Stmt> {
        let mut out = Vec::new();
        match (&self.brk, &self.value) {
            (Some(b), Some(v)) if in_labelled => out.push(syn::parse_quote!(if #b { break #v; })),
            (Some(b), _) => out.push(syn::parse_quote!(if #b { break; })),
            _ => {}
        }
        if let Some(c) = &self.cont {
            out.push(match in_labelled {
                true => syn::parse_quote!(if #c { continue; }),
                false => syn::parse_quote!(if #c { break; }),
            });
        }
        out
    }
}

/// Rewrites the jumps to `label` at loop `depth` below the labelled loop
/// (0: its own body).
struct Plain<'f> {
    label: &'f str,
    depth: usize,
    flags: &'f Flags,
    ok: bool,
}

impl Plain<'_> {
    fn targets(&self, l: &Option<syn::Lifetime>) -> bool {
        l.as_ref().is_some_and(|l| l.ident == self.label)
    }
}

impl VisitMut for Plain<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for mut stmt in std::mem::take(&mut b.stmts) {
            let is_loop = matches!(
                &stmt,
                syn::Stmt::Expr(
                    syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_),
                    _
                )
            );
            let (brk, cont) = match &stmt {
                syn::Stmt::Expr(e, _) if is_loop => {
                    let mut probe = syn::Block {
                        brace_token: Default::default(),
                        stmts: vec![syn::Stmt::Expr(e.clone(), None)],
                    };
                    let found = jumps_to(&probe, self.label);
                    probe.stmts.clear();
                    found
                }
                _ => (false, false),
            };
            if is_loop && (brk || cont) {
                if let syn::Stmt::Expr(e, _) = &mut stmt {
                    if let Some((_, inner)) = label_and_body(e) {
                        self.depth += 1;
                        self.visit_block_mut(inner);
                        self.depth -= 1;
                    }
                }
                stmts.push(stmt);
                stmts.extend(self.flags.after(self.depth == 0));
                continue;
            }
            // `break 'label;` below the labelled loop: the flag, then a
            // plain `break`, two statements at the end of the branch.
            if let syn::Stmt::Expr(e @ (syn::Expr::Break(_) | syn::Expr::Continue(_)), semi) = &stmt
            {
                // The plain `break` keeps the jump's span, so that an error
                // about it points at the jump written.
                let (targets, flag, span) = match e {
                    syn::Expr::Break(b) if b.expr.is_none() || self.flags.value.is_some() => {
                        (self.targets(&b.label), &self.flags.brk, b.break_token.span)
                    }
                    syn::Expr::Continue(c) => (
                        self.targets(&c.label),
                        &self.flags.cont,
                        c.continue_token.span,
                    ),
                    _ => (false, &None, proc_macro2::Span::call_site()),
                };
                if targets && self.depth > 0 {
                    let Some(f) = flag else {
                        self.ok = false;
                        stmts.push(stmt);
                        continue;
                    };
                    // `break 'scan v;`: its value kept first.
                    if let (syn::Expr::Break(b), Some(v)) = (&e, &self.flags.value) {
                        if let Some(value) = &b.expr {
                            stmts.push(syn::parse_quote!(#v = #value;));
                        }
                    }
                    stmts.push(syn::parse_quote!(#f = true;));
                    let brk = syn::Expr::Break(syn::ExprBreak {
                        attrs: Vec::new(),
                        break_token: syn::Token![break](span),
                        label: None,
                        expr: None,
                    });
                    stmts.push(syn::Stmt::Expr(brk, semi.or(Some(Default::default()))));
                    continue;
                }
            }
            self.visit_stmt_mut(&mut stmt);
            stmts.push(stmt);
        }
        b.stmts = stmts;
    }

    // `0 => continue 'outer,`: the arm as the block `{ continue 'outer; }`,
    // whose statement the rewrite above lifts.
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let labelled = match &*arm.body {
            syn::Expr::Break(b) => {
                (b.expr.is_none() || self.flags.value.is_some()) && self.targets(&b.label)
            }
            syn::Expr::Continue(c) => self.targets(&c.label),
            _ => false,
        };
        if labelled {
            let jump = (*arm.body).clone();
            *arm.body = syn::parse_quote!({ #jump; });
            arm.comma = None;
        }
        syn::visit_mut::visit_arm_mut(self, arm);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Break(b) if self.targets(&b.label) => {
                if b.expr.is_some() {
                    self.ok = false;
                    return;
                }
                // In the labelled loop's own body, a plain `break`; below
                // it, only a statement can be rewritten (above).
                match self.depth {
                    0 => *e = syn::parse_quote!(break),
                    _ => self.ok = false,
                }
            }
            syn::Expr::Continue(c) if self.targets(&c.label) => match self.depth {
                0 => *e = syn::parse_quote!(continue),
                _ => self.ok = false,
            },
            // A loop inside an expression (not a statement of a block):
            // its jumps to the label cannot be lifted.
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                let mut probe = syn::Block {
                    brace_token: Default::default(),
                    stmts: vec![syn::Stmt::Expr(e.clone(), None)],
                };
                let (b, c) = jumps_to(&probe, self.label);
                probe.stmts.clear();
                if b || c {
                    self.ok = false;
                }
            }
            syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn body(src: &str) -> String {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        super::unlabel(item).block.to_token_stream().to_string()
    }

    #[test]
    fn a_valued_break_out_of_an_inner_loop_is_kept_then_given() {
        let got = body(
            "fn f(a: f64) -> f64 { let r = 'scan: loop { for i in 0..9 { if c { break 'scan v; } } break a; }; r }",
        );
        assert_eq!(
            got,
            "{ let r = loop { let mut __break_scan = false ; \
             let mut __value_scan = :: core :: default :: Default :: default () ; \
             for i in 0 .. 9 { if c { __value_scan = v ; __break_scan = true ; break ; } } \
             if __break_scan { break __value_scan ; } break a ; } ; r }"
        );
        // A labelled `for` left without a value: the flag alone.
        let src = "fn f() { 'o: for i in 0..2 { for j in 0..2 { break 'o; } } }";
        assert!(!body(src).contains('\''));
    }
}
