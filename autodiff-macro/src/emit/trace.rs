//! `<name>_trace`, for `#[grad(trace)]`: the function's forward sweep, each
//! active Wengert entry recorded on a `runtime::trace::Tape` with its value
//! and its local partial derivatives. The partials come from the runtime's
//! own rules, the ones `_grad` uses: each rule's pullback at dy = 1, and a
//! callee's partials from its `_grad`. The tape then runs the reverse
//! accumulation and returns the `Trace`.
//!
//! Straight-line functions are traced: scalar parameters, operators, float
//! methods, runtime functions, casts, calls to other `#[grad]` functions,
//! code kept as written. Loops, branches, arrays and struct parameters are
//! refused with an error at the construct: `_grad` differentiates them,
//! the trace does not show them yet.

use std::collections::{HashMap, HashSet};

use super::*;
use crate::rules::{Arg, Callee};

/// The `<name>_trace` function, or the errors that say what it cannot
/// trace.
pub fn trace_fn(item: &syn::ItemFn, f: &Function, a: &Activity) -> syn::Result<TokenStream> {
    let mut names = Names::new(f, item.to_token_stream());
    let tape = names.fresh("tape");
    let mut t = Tracer {
        e: Emitter {
            f,
            a,
            names: &mut names,
            hoisted: None,
            reverse_reads: HashSet::new(),
            // Every value is bound: the partials of a call included.
            used: (0..f.values.len()).map(ValueId).collect(),
            partials: Vec::new(),
            pushes: HashMap::new(),
            stacks: std::collections::BTreeMap::new(),
            unavailable: HashSet::new(),
            mutated: f.mutated_arrays(),
            seeding: TokenStream::new(),
            windowed: HashMap::new(),
            registers: Vec::new(),
            adjoint_windowed: HashMap::new(),
        },
        tape,
        nodes: HashMap::new(),
        errors: None,
        span: item.sig.ident.span(),
    };
    let mut body = TokenStream::new();
    for p in &f.params {
        t.param(p, &mut body);
    }
    t.block(&f.body, &mut body);
    let finish = t.output(item);
    if let Some(e) = t.errors {
        return Err(e);
    }
    let tape = &t.tape;
    let sig = &item.sig;
    let fname = sig.ident.to_string();
    let name = format_ident!("{}_trace", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = inputs(item, f);
    let vis = &item.vis;
    let attrs = kept_attrs(item);
    let iterator = iterator_in_scope();
    let doc = format!(
        "The trace of [`{fname}`]: every Wengert entry with its value, local derivatives and adjoint, and every step of the reverse accumulation (`#[grad(trace)]`). Print it, or render it with `to_dot`, `to_svg` or `to_json`."
    );
    Ok(quote! {
        #[doc = #doc]
        #(#attrs)*
        #vis fn #name #generics (#(#inputs),*) -> ::autodiff::runtime::trace::Trace #where_clause {
            #iterator
            let mut #tape = ::autodiff::runtime::trace::Tape::new(#fname);
            #body
            #finish
        }
    })
}

/// The emitter of the forward sweep, and each active value's node on the
/// tape.
struct Tracer<'a> {
    e: Emitter<'a>,
    tape: syn::Ident,
    /// The variable holding each active value's `NodeId`: its own node, or
    /// the node of the value it copies.
    nodes: HashMap<ValueId, syn::Ident>,
    errors: Option<syn::Error>,
    /// Where an error about a region is reported: the IR keeps no span for
    /// regions, so the function's name.
    span: proc_macro2::Span,
}

impl Tracer<'_> {
    fn refuse(&mut self, span: proc_macro2::Span, what: &str) {
        crate::diag::combine(
            &mut self.errors,
            syn::Error::new(
                span,
                format!("#[grad(trace)] cannot trace {what} yet: `_grad` differentiates it, but `_trace` shows straight-line code only (float parameters, operators, float methods, runtime functions, calls to other #[grad] functions); drop `trace` from this function, or trace a straight-line part of it as a function of its own"),
            ),
        );
    }

    /// A parameter: an active float is an input node, under its name.
    fn param(&mut self, p: &Param, out: &mut TokenStream) {
        if !p.active {
            return;
        }
        let v = p.value;
        match &self.e.f.value(v).ty {
            Ty::Float(_) => {
                let x = self.e.names.forward(v);
                let label = x.to_string();
                let node = self.node_name(v);
                let tape = &self.tape;
                out.extend(quote!(let #node = #tape.input(#label, #x);));
            }
            _ => {
                let span = self.e.f.value(v).span;
                self.refuse(span, "an array or struct parameter");
            }
        }
    }

    fn node_name(&mut self, v: ValueId) -> syn::Ident {
        let base = format!(
            "node_{}",
            self.e.names.forward_str(v).trim_start_matches('_')
        );
        let n = self.e.names.fresh(&base);
        self.nodes.insert(v, n.clone());
        n
    }

    fn block(&mut self, b: &Block, out: &mut TokenStream) {
        for inst in &b.insts {
            self.inst(inst, out);
        }
    }

    fn inst(&mut self, inst: &Inst, out: &mut TokenStream) {
        let span = self.span;
        match inst {
            Inst::Def {
                dst,
                op,
                written,
                span,
            } => self.def(*dst, op, written.as_deref(), *span, out),
            Inst::Verbatim { .. } => out.extend(self.e.inst(inst)),
            Inst::Scope(b) if !forward::keeps_bindings(b) => self.block(b, out),
            Inst::Scope(_) => self.refuse(
                span,
                "a block that declares variables the macro does not model",
            ),
            Inst::Branch(_) => self.refuse(span, "a branch (`if`, `match`)"),
            Inst::Loop(_) => self.refuse(span, "a loop"),
            Inst::Store { .. } | Inst::Push { .. } => self.refuse(span, "an array"),
        }
    }

    /// One entry: the statement as the forward sweep writes it, then, for
    /// an active value, its node.
    fn def(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        span: proc_macro2::Span,
        out: &mut TokenStream,
    ) {
        if !self.e.a.is_active(dst) {
            out.extend(self.statement(dst, op, written));
            return;
        }
        match op {
            // A copy or a cast between float types: the same node.
            Op::Copy(Operand::Value(v)) | Op::Cast(Operand::Value(v), _) => {
                out.extend(self.statement(dst, op, written));
                if let Some(n) = self.nodes.get(v).cloned() {
                    self.nodes.insert(dst, n);
                }
            }
            Op::Call {
                callee: Callee::Function,
                args,
                partials,
                ..
            } if !partials.is_empty() => {
                let Some(call) = self.e.grad_call(dst, op) else {
                    return;
                };
                out.extend(call);
                // A float argument's node, with the partial `_grad` gave.
                let inputs = args
                    .iter()
                    .zip(partials)
                    .filter_map(|(arg, p)| {
                        Some((self.node_of(arg)?, self.e.names.forward((*p)?).into_token_stream()))
                    })
                    .collect();
                let rule = match op {
                    Op::Call { path, .. } => format!("call {}", show(&path.to_token_stream())),
                    _ => String::new(),
                };
                self.record(dst, op, &rule, inputs, TokenStream::new(), out);
            }
            _ => match rule_of(op) {
                Some((rule, args)) => {
                    out.extend(self.statement(dst, op, written));
                    self.partials(dst, op, rule, &args, out);
                }
                None => self.refuse(span, "this operation (an array element, a struct field, a kernel, a method with #[grad])"),
            },
        }
    }

    /// `let name = rhs;`, as the forward sweep of `_grad` writes it.
    fn statement(&mut self, dst: ValueId, op: &Op, written: Option<&Written>) -> TokenStream {
        let name = self.e.names.forward(dst);
        let rhs = self.e.op(op);
        let check = self.e.same_function_check(dst, op);
        let (annot, attrs) = match written {
            Some(Written { ty, attrs }) => {
                (ty.clone().map(|t| t.into_token_stream()), attrs.as_slice())
            }
            None => (None, &[][..]),
        };
        // A constant assigned to a float variable (`let a: f64; a = 0.5;`).
        let annot = annot.or_else(|| match (op, self.e.f.value(dst).ty.float()) {
            (Op::Copy(Operand::Const(_)), Some(t)) => {
                Some(self.e.f.float_ident(t).into_token_stream())
            }
            _ => None,
        });
        let annot = annot.map(|t| quote!(: #t));
        quote!(#check #(#attrs)* let #name #annot = #rhs;)
    }

    /// The partials of a rule's entry, from its pullback at dy = 1, and its
    /// node.
    fn partials(
        &mut self,
        dst: ValueId,
        op: &Op,
        rule: &'static Rule,
        args: &[Operand],
        out: &mut TokenStream,
    ) {
        let path = runtime_path(rule, &format!("{}_pullback", rule.name));
        let y = self.e.names.forward(dst);
        let one = one(self.e.f);
        let call_args: Vec<TokenStream> = args
            .iter()
            .map(|a| self.e.operand(a, Position::Arg))
            .collect();
        let mut pats = Vec::new();
        let mut inputs = Vec::new();
        for (arg, kind) in args.iter().zip(rule.args) {
            if *kind != Arg::Float {
                continue;
            }
            match self.node_of(arg) {
                Some(node) => {
                    let p = self.e.names.fresh("partial");
                    pats.push(p.to_token_stream());
                    inputs.push((node, p.into_token_stream()));
                }
                None => pats.push(quote!(_)),
            }
        }
        let bind = match pats.as_slice() {
            [one_pat] => quote!(let #one_pat = #path(#(#call_args,)* #y, #one);),
            many => quote!(let (#(#many),*) = #path(#(#call_args,)* #y, #one);),
        };
        self.record(dst, op, rule.name, inputs, bind, out);
    }

    /// `let node = tape.node(name, rule, expr, inputs, partials, value);`
    fn record(
        &mut self,
        dst: ValueId,
        op: &Op,
        rule: &str,
        inputs: Vec<(syn::Ident, TokenStream)>,
        bind: TokenStream,
        out: &mut TokenStream,
    ) {
        let label = self.e.names.forward_str(dst).to_string();
        let expr = show_op(op, self.e.names);
        let value = self.e.names.forward(dst);
        let node = self.node_name(dst);
        let (ids, ps): (Vec<_>, Vec<_>) = inputs.into_iter().unzip();
        let tape = &self.tape;
        out.extend(quote!(
            #bind
            let #node = #tape.node(#label, #rule, #expr, &[#(#ids),*], &[#(#ps),*], #value);
        ));
    }

    /// The node of an operand: an active value's, `None` for a constant.
    fn node_of(&self, o: &Operand) -> Option<syn::Ident> {
        o.value().and_then(|v| self.nodes.get(&v).cloned())
    }

    /// `tape.finish(node)` for the returned value.
    fn output(&mut self, item: &syn::ItemFn) -> TokenStream {
        let tape = self.tape.clone();
        if !matches!(self.e.f.output, Output::Scalar) {
            let span = syn::spanned::Spanned::span(&item.sig.output);
            self.refuse(span, "a function that returns a tuple or a vector");
            return TokenStream::new();
        }
        if let Some(node) = self.node_of(&self.e.f.ret) {
            return quote!(#tape.finish(#node));
        }
        // A result that depends on no parameter: a node of its own.
        let value = self.e.operand(&self.e.f.ret, Position::Arg);
        let expr = show_operand(&self.e.f.ret, self.e.names);
        quote!({
            let value = #value;
            let node = #tape.node(#expr, "const", #expr, &[], &[value; 0], value);
            #tape.finish(node)
        })
    }
}

/// The runtime rule of an operation, and its arguments in the rule's
/// order; `None` for what has no rule of its own.
fn rule_of(op: &Op) -> Option<(&'static Rule, Vec<Operand>)> {
    match op {
        Op::Unary(o, a) => Some((crate::rules::unary(*o)?, vec![a.clone()])),
        Op::Binary(o, a, b) => Some((crate::rules::binary(*o)?, vec![a.clone(), b.clone()])),
        Op::Method {
            name, recv, args, ..
        } => {
            let rule = crate::rules::method(&name.to_string())?;
            Some((
                rule,
                std::iter::once(recv.clone())
                    .chain(args.iter().cloned())
                    .collect(),
            ))
        }
        Op::Call {
            callee: Callee::Runtime { rule, .. } | Callee::Method(rule),
            args,
            ..
        } => Some((*rule, args.clone())),
        _ => None,
    }
}
