//! Names in the generated code.
//!
//! A value keeps its user's name when that name is bound once in the
//! function; a name bound several times (shadowing, `let mut` with
//! reassignment) numbers its later values `s_1`, `s_2`, ...; temporaries are
//! `t0`, `t1`, ...; the adjoint of `v` is `d_v`. Every generated name is
//! checked against every identifier of the user's function, so a user
//! variable called `t0` or `d_x` keeps working.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};

use crate::ir::{Function, ValueId, ValueKind};

#[derive(Clone)]
pub struct Names {
    taken: HashSet<String>,
    forward: Vec<String>,
    /// The span to name each value with: the user's identifier where the
    /// forward name is the user's name, the macro's call site otherwise.
    spans: Vec<Span>,
    adjoint: HashMap<ValueId, String>,
    next_temp: usize,
    /// The next number to try for each numbered base name: without it,
    /// numbering the k-th value of a name tried k names, and a long
    /// function took quadratic time.
    next_number: HashMap<String, usize>,
    /// Pattern bindings named apart ([`Names::rename_patterns`]).
    renamed: HashSet<ValueId>,
}

impl Names {
    /// Assigns forward names to every value of `f`, avoiding the identifiers
    /// in `item` (the user's whole function).
    pub fn new(f: &Function, item: TokenStream) -> Names {
        let mut taken = HashSet::new();
        crate::desugar::internal::collect_idents(item, &mut taken);
        // And the names the desugarings gave (a struct built for a method,
        // `q25_recv_1`): a numbered name is never one of them, so that two
        // values of two arms never share a name by chance.
        taken.extend(f.values.iter().filter_map(|v| v.name.clone()));
        let mut names = Names {
            taken,
            forward: Vec::new(),
            spans: Vec::new(),
            adjoint: HashMap::new(),
            next_temp: 0,
            next_number: HashMap::new(),
            renamed: HashSet::new(),
        };
        // Parameters and opaque variables are bound by the user's own code,
        // under the user's name; the first SSA value of a name takes the
        // bare name when neither of those does, later ones are numbered.
        let mut bare_claimed: HashSet<&str> = f
            .values
            .iter()
            .filter(|v| v.kind != ValueKind::Def)
            .filter_map(|v| v.name.as_deref())
            .collect();
        let mut defined = f.defined();
        // The slots of a call passed on whole, as lowered: forward mode and
        // traces bind them (`Op::forward_form`), the reverse sweep's
        // forward does not.
        f.body.walk(&mut |inst| {
            if let crate::ir::Inst::Def { op, .. } = inst {
                if !std::ptr::eq(op.forward_form(), op) {
                    defined.extend(op.forward_form().partials());
                }
            }
        });
        for (i, v) in f.values.iter().enumerate() {
            let name = match &v.name {
                _ if !defined.contains(&ValueId(i)) => String::new(),
                Some(n) if v.kind != ValueKind::Def => n.clone(),
                Some(n) if bare_claimed.insert(n) => n.clone(),
                Some(n) => names.fresh_numbered(n),
                None => names.temp(),
            };
            let span = if v.name.as_deref() == Some(name.as_str()) {
                v.span
            } else {
                Span::call_site()
            };
            names.forward.push(name);
            names.spans.push(span);
        }
        names
    }

    /// Numbers the temporaries again, for a trace: those in `shown`
    /// `t1`, `t2`, ... by the number given (two values may share one
    /// where they are in two arms of a branch, each its own block),
    /// `output` (when it is a temporary) `output_name` where that name is
    /// free, the other temporaries after them. User names stay as they
    /// are; where a user's name is one of the numbered names, the
    /// temporaries are numbered in order instead, each name new.
    pub fn number_temporaries(
        &mut self,
        f: &Function,
        shown: &[(ValueId, usize)],
        output: Option<ValueId>,
        output_name: &str,
    ) {
        let temporaries: Vec<ValueId> = (0..f.values.len())
            .map(ValueId)
            .filter(|v| f.values[v.0].name.is_none() && !self.forward[v.0].is_empty())
            .collect();
        let set: HashSet<ValueId> = temporaries.iter().copied().collect();
        for v in &temporaries {
            self.taken.remove(&self.forward[v.0]);
        }
        let mut done = HashSet::new();
        if let Some(out) = output.filter(|v| set.contains(v)) {
            if self.taken.insert(output_name.to_string()) {
                self.forward[out.0] = output_name.to_string();
                done.insert(out);
            }
        }
        let shown: Vec<(ValueId, usize)> = shown
            .iter()
            .copied()
            .filter(|(v, _)| set.contains(v) && !done.contains(v))
            .collect();
        let free = shown
            .iter()
            .all(|(_, k)| !self.taken.contains(&format!("t{k}")));
        if free {
            let mut names = Vec::new();
            for (v, k) in &shown {
                self.forward[v.0] = format!("t{k}");
                names.push(format!("t{k}"));
                done.insert(*v);
            }
            self.taken.extend(names);
            self.next_temp = shown.iter().map(|(_, k)| k + 1).max().unwrap_or(1);
        } else {
            self.next_temp = 1;
        }
        let rest = shown.iter().map(|(v, _)| *v).chain(temporaries);
        for v in rest.collect::<Vec<_>>() {
            if done.insert(v) {
                self.forward[v.0] = self.temp();
            }
        }
    }

    /// A name that a `match` pattern binds (`Some(x) => ..`) and another
    /// value of the function also has (a parameter `x`), for the values
    /// in `escaping` (read by the reverse sweep, so passed out of the arm
    /// or recorded): numbered apart, `x_1`, so that passing it out does
    /// not shadow the other. The arm binds the pattern's `x` and then
    /// `let x_1 = x;` ([`Names::renamed`]); code kept as written in the arm
    /// reads `x` as the pattern binds it.
    pub fn rename_patterns(&mut self, f: &Function, escaping: &HashSet<ValueId>) {
        let mut bound = Vec::new();
        f.body.walk(&mut |inst| {
            if let crate::ir::Inst::Verbatim {
                kind: crate::ir::VerbatimKind::Binding,
                defs,
                ..
            } = inst
            {
                bound.extend(defs.iter().copied());
            }
        });
        for v in bound {
            let Some(name) = f.values[v.0].name.clone() else {
                continue;
            };
            let shared = f
                .values
                .iter()
                .enumerate()
                .any(|(i, o)| i != v.0 && o.name.as_deref() == Some(name.as_str()));
            if shared && escaping.contains(&v) {
                self.forward[v.0] = self.fresh_numbered(&name);
                self.spans[v.0] = Span::call_site();
                self.renamed.insert(v);
            }
        }
    }

    /// Whether `v` is a pattern's binding named apart from the name the
    /// pattern binds ([`Names::rename_patterns`]).
    pub fn renamed(&self, v: ValueId) -> bool {
        self.renamed.contains(&v)
    }

    /// The name of a value in the forward sweep.
    pub fn forward(&self, v: ValueId) -> syn::Ident {
        syn::Ident::new(&self.forward[v.0], self.spans[v.0])
    }

    /// The user's own name of a value, as user code spells it.
    pub fn user(&self, name: &str, v: ValueId, values: &[crate::ir::Value]) -> syn::Ident {
        syn::Ident::new(name, values[v.0].span)
    }

    pub fn forward_str(&self, v: ValueId) -> &str {
        &self.forward[v.0]
    }

    /// The name of a value's adjoint.
    pub fn adjoint(&mut self, v: ValueId) -> syn::Ident {
        if let Some(n) = self.adjoint.get(&v) {
            return ident(n);
        }
        let base = format!("d_{}", self.forward[v.0].trim_start_matches('_'));
        let name = if self.taken.contains(&base) {
            self.fresh_numbered(&base)
        } else {
            base
        };
        self.taken.insert(name.clone());
        self.adjoint.insert(v, name.clone());
        ident(&name)
    }

    /// A helper name not used anywhere else.
    pub fn fresh(&mut self, base: &str) -> syn::Ident {
        let name = if self.taken.contains(base) {
            self.fresh_numbered(base)
        } else {
            base.to_string()
        };
        self.taken.insert(name.clone());
        ident(&name)
    }

    fn fresh_numbered(&mut self, base: &str) -> String {
        let k = self.next_number.entry(base.to_string()).or_insert(1);
        loop {
            let name = format!("{base}_{k}");
            *k += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }

    fn temp(&mut self) -> String {
        loop {
            let name = format!("t{}", self.next_temp);
            self.next_temp += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}

fn ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::call_site())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Options;

    fn names(src: &str) -> (Function, Names) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = crate::lower::lower_ok(&item, &Options::default()).unwrap();
        let n = Names::new(&f, quote::quote!(#item));
        (f, n)
    }

    #[test]
    fn user_names_are_kept_and_shadowed_names_numbered() {
        let (f, n) = names("fn f(x: f64) -> f64 { let y = x * 2.0; let x = y + x; x.sin() }");
        let all: Vec<&str> = (0..f.values.len())
            .map(|i| n.forward_str(ValueId(i)))
            .collect();
        assert_eq!(all, ["x", "y", "x_1", "t0", "t1"]);
        let (f, n) = names("fn f(x: f64) -> f64 { let mut s = x; s += 1.0; s *= s; s }");
        let all: Vec<&str> = (0..f.values.len())
            .map(|i| n.forward_str(ValueId(i)))
            .collect();
        assert_eq!(all, ["x", "s", "s_1", "s_2"]);
    }

    #[test]
    fn generated_names_avoid_user_names() {
        let (f, mut n) =
            names("fn f(t0: f64, d_t1: f64) -> f64 { let d_t0 = 1.0; t0 * d_t1 * d_t0 }");
        let all: Vec<&str> = (0..f.values.len())
            .map(|i| n.forward_str(ValueId(i)))
            .collect();
        assert_eq!(all, ["t0", "d_t1", "d_t0", "t1", "t2"]);
        assert_eq!(n.adjoint(ValueId(0)), "d_t0_1");
        assert_eq!(n.adjoint(ValueId(3)), "d_t1_1");
    }
}
