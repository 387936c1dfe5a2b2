//! A checkpointed loop (`#[checkpoint(every = K)]`, `#[checkpoint(snapshots
//! = S)]`): the checks that a schedule can replay it, and its scheme on the
//! IR loop (`emit/checkpoint.rs` emits it).

use super::loops::range_parts;
use super::*;

impl Lowerer {
    /// `#[checkpoint(..)] for i in a..b { .. }` at the top level of the
    /// body: the loop region, with its scheme, after the checks that it is
    /// one a schedule can replay (an integer range walked forwards, no
    /// early exit, no state #[grad] cannot store).
    pub(super) fn lower_checkpointed(
        &mut self,
        l: &syn::ExprForLoop,
        attr: &syn::Attribute,
        out: &mut Vec<Inst>,
    ) -> bool {
        let (scheme, count) = match crate::attr::checkpoint(attr) {
            Ok(c) => c,
            Err(e) => {
                combine(&mut self.errors, e);
                return true;
            }
        };
        let refuse = |cx: &mut Self, why: &str| {
            error(cx, attr, format!("#[checkpoint] applies to a `for` loop over an integer range (`a..b` or `a..=b`) at the top level of the function's body, which runs every iteration; {why}"));
            true
        };
        if !(self.scopes.len() == 1 && self.array_scopes.len() == 1) {
            return refuse(self, "this loop is inside another loop, a branch or a block (a `return` before it in a guard clause puts it in a branch): checkpoint the outermost loop");
        }
        match range_parts(&l.expr) {
            Some(r) if r.adaptors.is_empty() => {}
            _ => return refuse(self, "this loop's iterator is not such a range (`.rev()` and `.step_by(k)` included): loop over `0..n` and compute the index"),
        }
        if self.returns_from(&l.body) || self.breaks_out(&l.body) {
            return refuse(self, "this loop can stop early (`break` or `return`): its trip count must be known when it starts");
        }
        let Some(count) = self.expr(&count, out) else {
            return true;
        };
        let before = out.len();
        let mut plain = l.clone();
        plain.attrs.retain(|a| !crate::attr::is_checkpoint(a));
        if !self.lower_for(&plain, out) {
            return refuse(self, "this loop changes no variable #[grad] differentiates");
        }
        let Some(Inst::Loop(lp)) = out[before..]
            .iter_mut()
            .rev()
            .find(|i| matches!(i, Inst::Loop(_)))
        else {
            return true;
        };
        lp.checkpoint = Some(Checkpoint {
            scheme,
            count: count.operand,
            attr: attr.to_token_stream(),
        });
        // The state a schedule stores and restores: the carried variables
        // and the arrays the loop changes; a variable kept as written that
        // the loop changes is neither.
        let changed = changed_opaque(&lp.body, &self.values);
        if let Some(name) = changed {
            error(self, attr, format!("#[checkpoint] stores a loop's float variables and float arrays, and this loop also changes `{name}`, which #[grad] keeps as written: compute `{name}` outside the loop, or make it a float variable or array"));
        }
        true
    }

    /// `#[checkpoint]` on a `while` or `loop`: refused.
    pub(super) fn refuse_checkpoint(&mut self, attrs: &[syn::Attribute]) {
        if let Some(attr) = attrs.iter().find(|a| crate::attr::is_checkpoint(a)) {
            error(self, attr, "#[checkpoint] applies to a `for` loop over an integer range, whose trip count is known when it starts; a `while` or `loop` stops when its condition says: write it as `for` over `0..n` with the steps counted beforehand");
        }
    }

    /// Whether a loop body has a `break` outside inner loops and closures.
    fn breaks_out(&self, body: &syn::Block) -> bool {
        struct Jumps(bool);
        impl<'a> Visit<'a> for Jumps {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                match e {
                    syn::Expr::Break(_) => self.0 = true,
                    syn::Expr::ForLoop(_)
                    | syn::Expr::While(_)
                    | syn::Expr::Loop(_)
                    | syn::Expr::Closure(_) => return,
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut j = Jumps(false);
        j.visit_block(body);
        j.0
    }
}

/// A variable kept as written that `body` changes but does not declare.
fn changed_opaque(body: &Block, values: &[Value]) -> Option<String> {
    let mut declared = std::collections::HashSet::new();
    let mut changed = None;
    body.walk(&mut |inst| {
        if let Inst::Verbatim { kind, defs, .. } = inst {
            for d in defs {
                let Some(name) = values[d.0].name.clone() else {
                    continue;
                };
                match kind {
                    VerbatimKind::Let(_) | VerbatimKind::Binding | VerbatimKind::Item => {
                        declared.insert(name);
                    }
                    VerbatimKind::Stmt => {
                        if !declared.contains(&name) && changed.is_none() {
                            changed = Some(name);
                        }
                    }
                }
            }
        }
    });
    changed
}

/// A checkpointed loop's reverse sweep runs its iterations again after
/// the function's end: what they read must be as it was. Arrays the
/// function changes after the loop are put back by the schedule
/// (`emit/checkpoint.rs`); a variable kept as written (`idx: Vec<usize>`)
/// that the loop reads and the code after it changes cannot be, and is
/// refused at the attribute.
pub(super) fn refuse_changed_after_checkpoint(
    body: &Block,
    values: &[Value],
    errors: &mut Option<syn::Error>,
) {
    for (at, inst) in body.insts.iter().enumerate() {
        let Inst::Loop(l) = inst else { continue };
        let Some(cp) = &l.checkpoint else { continue };
        // The names of variables kept as written that the loop reads.
        let mut read: Vec<String> = Vec::new();
        l.body.walk(&mut |i| {
            let reads = match i {
                Inst::Verbatim { reads, .. } => reads.0.clone(),
                Inst::Def {
                    op: Op::Opaque { reads, .. },
                    ..
                } => reads.0.clone(),
                _ => Vec::new(),
            };
            for (name, v) in reads {
                if values[v.0].kind == ValueKind::Opaque && !read.contains(&name) {
                    read.push(name);
                }
            }
        });
        // Those that a statement after the loop changes.
        let mut changed = None;
        for later in &body.insts[at + 1..] {
            later.walk(&mut |i| {
                if let Inst::Verbatim { defs, kind, .. } = i {
                    if matches!(kind, VerbatimKind::Stmt) {
                        for d in defs {
                            if let Some(n) = &values[d.0].name {
                                if read.contains(n) && changed.is_none() {
                                    changed = Some(n.clone());
                                }
                            }
                        }
                    }
                }
            });
        }
        if let Some(name) = changed {
            combine(errors, syn::Error::new_spanned(&cp.attr, format!(
                "#[checkpoint] runs the loop's iterations again during the reverse sweep, after the function's end, and this loop reads `{name}`, which the code after it changes and #[grad] keeps as written: copy it before the loop (`let {name}_at_loop = {name}.clone();`) and read the copy in the loop"
            )));
        }
    }
}
