//! `<name>_trace`, for `#[grad(trace)]`: the function's forward sweep, each
//! active Wengert entry recorded on a `runtime::trace::Tape` with its value
//! and its local partial derivatives. The partials come from the runtime's
//! own rules, the ones `_grad` uses: each rule's pullback at dy = 1, and a
//! callee's partials from its `_grad`. The tape then runs the reverse
//! accumulation and returns the `Trace`.
//!
//! Loops are unrolled (each iteration entered as a frame, so its nodes are
//! numbered by iteration), branches record the arm that ran, array
//! parameters are an input node per element, a struct's fields are input
//! nodes named by their path (`p.w`, read anew at each read). A constant
//! that starts a variable or an array element is a node of its own, so
//! that every value in the graph has one. A call to another `#[grad]`
//! function nests the callee's trace: the body is generated once, as the
//! hidden `<name>_trace_into(tape, nested, inputs, args..)`, which records
//! on the caller's tape inside a call frame, its parameters' nodes the
//! caller's argument nodes; `<name>_trace` makes the input nodes and calls
//! it. A callee must therefore have `trace` too, or a custom pullback
//! (whose `_trace_into` records the call as one node with its `_grad`'s
//! partials); a call with a struct argument stays one node. Kernels,
//! nested arrays, vector outputs and blocks that keep bindings of their
//! own are refused with an error that says so.

use std::collections::HashMap;

use super::*;
use crate::rules::Callee;

mod calls;
mod regions;

pub(super) use calls::custom_trace_into;

/// The `<name>_trace` function, or the errors that say what it cannot
/// trace.
pub fn trace_fn(item: &syn::ItemFn, f: &Function, a: &Activity) -> syn::Result<TokenStream> {
    let mut names = Names::new(f, item.to_token_stream());
    // The trace shows temporaries numbered as it records them, t1, t2, ..
    // without gaps (an entry computed with another, `sin` beside `cos`,
    // takes no number), and an unnamed output as `y`, as the reference
    // text writes them: a first pass finds which values it records.
    let (recorded, output) = {
        let mut probe = names.clone();
        let mut t = Tracer::new(item, f, a, &mut probe);
        t.body();
        let _ = t.output(item);
        let output = t
            .node_of(&f.ret)
            .and_then(|node| t.recorded.iter().find(|(_, n)| *n == node).map(|(v, _)| *v));
        (t.numbers, output)
    };
    names.number_temporaries(f, &recorded, output, "y");
    let mut t = Tracer::new(item, f, a, &mut names);
    let body = t.body();
    let (value, node) = t.output(item);
    if let Some(e) = t.errors {
        return Err(e);
    }
    let (tape, nested, given) = (t.tape.clone(), t.nested.clone(), t.given.clone());
    let sig = &item.sig;
    let fname = sig.ident.to_string();
    let name = format_ident!("{}_trace", sig.ident);
    let into = format_ident!("{}_trace_into", sig.ident);
    let into_path = sibling_path(item, &into);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = inputs(item, f);
    let ret_ty = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let vis = &item.vis;
    let attrs: Vec<&syn::Attribute> = kept_attrs(item).collect();
    let iterator = iterator_in_scope(f);
    let rt = quote!(::autodiff::runtime::trace);
    // `_trace`: the input nodes, one slice per parameter (empty for one
    // that is not differentiated).
    let mut made = TokenStream::new();
    let slices: Vec<TokenStream> = f
        .params
        .iter()
        .map(|p| {
            let x = t.e.names.forward(p.value);
            let label = x.to_string();
            let input = t.e.names.fresh(&format!("input_{label}"));
            match &f.value(p.value).ty {
                Ty::Float(_) if p.active => {
                    made.extend(quote!(let #input = [#tape.input(#label, #x)];));
                    quote!(&#input[..])
                }
                Ty::Array(a) if p.active && a.shape != Shape::Nested => {
                    made.extend(quote!(let #input = #tape.input_array(#label, &#x[..]);));
                    quote!(&#input[..])
                }
                _ => quote!(&[]),
            }
        })
        .collect();
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let out = t.e.names.fresh("output");
    // A method's receiver stays first: `_trace_into(&self, tape, ..)`,
    // called `Self::name_trace_into(self, &mut tape, ..)`.
    let (receiver, inputs, args) = match sig.receiver() {
        Some(_) => (
            Some(inputs[0].clone()),
            inputs[1..].to_vec(),
            args[1..].to_vec(),
        ),
        None => (None, inputs, args),
    };
    let (receiver, self_arg) = match receiver {
        Some(r) => (quote!(#r,), quote!(self,)),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let doc = format!(
        "The trace of [`{fname}`]: every Wengert entry with its value, local derivatives and adjoint, and every step of the reverse accumulation (`#[grad(trace)]`). Print it, or (feature `render`) render it with `to_dot`, `to_svg` or `to_json`."
    );
    let into_fn = quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, clippy::too_many_arguments)]
        #(#attrs)*
        #vis fn #into #generics (
            #receiver
            #tape: &mut #rt::Tape,
            #nested: bool,
            #given: &[&[#rt::NodeId]],
            #(#inputs),*
        ) -> (#ret_ty, #rt::NodeId) #where_clause {
            #iterator
            if #nested {
                #tape.enter(#rt::Frame::call(#fname));
            }
            #body
            let #out = (#value, #node);
            if #nested {
                #tape.leave();
            }
            #out
        }
    };
    let own = own_copy(item, &into_fn, &into);
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_snake_case)]
        #(#attrs)*
        #vis fn #name #generics (#receiver #(#inputs),*) -> #rt::Trace #where_clause {
            #own
            let mut #tape = #rt::Tape::new(#fname);
            #made
            let (_, #out) = #into_path(#self_arg &mut #tape, false, &[#(#slices),*], #(#args),*);
            #tape.finish(#out)
        }
        #into_fn
    })
}

/// The emitter of the forward sweep, and each active value's node on the
/// tape.
struct Tracer<'a> {
    e: Emitter<'a>,
    tape: syn::Ident,
    /// The parameter of `_trace_into` saying whether it runs inside a
    /// caller's trace.
    nested: syn::Ident,
    /// Each value recorded as a node of its own, in order, with its
    /// node's variable.
    recorded: Vec<(ValueId, syn::Ident)>,
    /// The number each temporary recorded is shown with, counted as the
    /// trace records them; the arms of a branch count from the same
    /// number, as only one of them runs.
    numbers: Vec<(ValueId, usize)>,
    next_number: usize,
    /// The parameter of `_trace_into` holding the caller's nodes for each
    /// parameter.
    given: syn::Ident,
    /// The variable holding each active value's `NodeId`: its own node, or
    /// the node of the value it copies.
    nodes: HashMap<ValueId, syn::Ident>,
    errors: Option<syn::Error>,
    /// Where an error about a region is reported: the IR keeps no span for
    /// regions, so the function's name.
    span: proc_macro2::Span,
    /// Each value's operation, to show a branch's condition as written.
    ops: HashMap<ValueId, Op>,
}

impl<'a> Tracer<'a> {
    fn new(item: &syn::ItemFn, f: &'a Function, a: &'a Activity, names: &'a mut Names) -> Self {
        let tape = names.fresh("tape");
        let nested = names.fresh("nested");
        let given = names.fresh("inputs");
        let mut ops = HashMap::new();
        f.body.walk(&mut |inst| {
            if let Inst::Def { dst, op, .. } = inst {
                ops.insert(*dst, op.clone());
            }
        });
        Tracer {
            e: Emitter::forward_only(f, a, names),
            tape,
            nested,
            recorded: Vec::new(),
            numbers: Vec::new(),
            next_number: 1,
            given,
            nodes: HashMap::new(),
            errors: None,
            span: item.sig.ident.span(),
            ops,
        }
    }

    /// Whether the function computes with both `f32` and `f64`.
    fn mixed_floats(&self) -> bool {
        self.e.f.mixes_floats()
    }

    /// The parameters' nodes and the function's body, recorded.
    fn body(&mut self) -> TokenStream {
        let f = self.e.f;
        let mut body = TokenStream::new();
        for (i, p) in f.params.iter().enumerate() {
            self.param(i, p, &mut body);
        }
        self.block(&f.body, &mut body);
        body
    }

    fn refuse(&mut self, span: proc_macro2::Span, what: &str) {
        crate::diag::combine(&mut self.errors, syn::Error::new(span, refusal(what)));
    }

    /// A parameter: an active float's node is the one the caller gave for
    /// it (the input node `_trace` made, or the argument's node in a
    /// calling trace), or a constant node where the caller passed a
    /// constant.
    fn param(&mut self, i: usize, p: &Param, out: &mut TokenStream) {
        if !p.active {
            return;
        }
        let v = p.value;
        let given = &self.given;
        let given = quote!(#given[#i]);
        match &self.e.f.value(v).ty {
            Ty::Float(_) => {
                let x = self.e.names.forward(v);
                let label = x.to_string();
                let node = self.node_name(v);
                let tape = &self.tape;
                out.extend(quote!(let #node = #tape.argument(#given, #label, #x);));
            }
            Ty::Array(a) if a.shape != Shape::Nested => {
                let x = self.e.names.forward(v);
                let label = x.to_string();
                let node = self.node_name(v);
                let tape = &self.tape;
                out.extend(quote!(#[allow(unused_mut)] let mut #node = #tape.argument_array(#given, #label, &#x[..]);));
            }
            // Read by projection: each read is an input named by its path.
            Ty::Composite(_) => {}
            _ => {
                let span = self.e.f.value(v).span;
                self.refuse(span, "a nested array parameter");
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
            // A filter's bindings and test: a block as written.
            Inst::Scope(b) if self.e.f.scope_escapes(b).is_some() => {
                let escapes = self.e.f.scope_escapes(b).unwrap_or_default();
                let mut inner = TokenStream::new();
                self.block(b, &mut inner);
                out.extend(forward::scope_block(&mut self.e, &escapes, inner));
            }
            Inst::Scope(_) => self.refuse(
                span,
                "a block that declares variables the macro does not model",
            ),
            Inst::Branch(br) => self.branch(br, out),
            Inst::Loop(l) => self.traced_loop(l, out),
            Inst::Store {
                array,
                index,
                value,
            } => {
                out.extend(self.e.inst(inst));
                if let Some(nodes) = self.nodes.get(array).cloned() {
                    let idx = index_tokens(&self.e, index);
                    let n = self.node_or_const(value, out);
                    out.extend(quote!(#nodes #idx = #n;));
                }
            }
            Inst::Push { array, value, .. } => {
                out.extend(self.e.inst(inst));
                if let Some(nodes) = self.nodes.get(array).cloned() {
                    let n = self.node_or_const(value, out);
                    out.extend(quote!(#nodes.push(#n);));
                }
            }
        }
    }

    /// The node of an operand, or, for a constant or an inactive value, a
    /// node made for it here: `let c = tape.node(..)`.
    fn node_or_const(&mut self, o: &Operand, out: &mut TokenStream) -> TokenStream {
        if let Some(n) = self.node_of(o) {
            return n.into_token_stream();
        }
        let value = self.e.operand(o, Position::Arg);
        let label = self.named(o);
        let expr = self.shown(o);
        let c = self.e.names.fresh("constant");
        let tape = &self.tape;
        out.extend(quote!(let #c = #value; let #c = #tape.node(#label, "const", #expr, &[], &[#c; 0], #c);));
        c.into_token_stream()
    }

    /// An operand as the user reads it: the operation that defined it
    /// (`xs[i] > 0.0` for a condition), or its name.
    fn shown(&self, o: &Operand) -> String {
        match o.value().and_then(|v| self.ops.get(&v)) {
            Some(op) => self.shown_op(op),
            None => self.named(o),
        }
    }

    /// The name the trace shows for a value: the user's own where it has
    /// one (`x`, where the generated code numbers a variable assigned in a
    /// loop `x_1`, `x_2`: the tape primes a second node of one name and
    /// suffixes a loop's iterations, `x[i=2]`), else the temporary's.
    fn display(&self, v: ValueId) -> String {
        match &self.e.f.value(v).name {
            Some(name) if !self.e.names.forward_str(v).is_empty() => name.clone(),
            _ => self.e.names.forward_str(v).to_string(),
        }
    }

    /// An operand by its [`display`](Self::display) name, or a constant
    /// as written.
    fn named(&self, o: &Operand) -> String {
        match o {
            Operand::Value(v) => self.display(*v),
            Operand::Const(_) => show_operand(o, self.e.names),
        }
    }

    /// An entry as the user reads it, with the operands that are no node
    /// of their own (an element read, a copy, a constant) written out:
    /// `xs[i] * a` rather than `t4 * a`.
    fn shown_op(&self, op: &Op) -> String {
        match op {
            Op::Binary(..) | Op::Unary(UnOp::Neg, _) | Op::Method { .. } => {
                show_op_with(op, self.e.names, &|o| self.inline(o))
            }
            other => show_op(other, self.e.names),
        }
    }

    /// An operand of an entry as the entry's text writes it: an element
    /// read or a constant copied into a temporary written out (`xs[i]`),
    /// anything else by name.
    fn inline(&self, o: &Operand) -> String {
        self.inline_at(o, 3)
    }

    /// [`inline`](Self::inline), and a constant temporary that is no node
    /// (`0.5 * self.k`, `self.rest`) written out too, `depth` levels deep.
    fn inline_at(&self, o: &Operand, depth: usize) -> String {
        match o.value().and_then(|v| self.ops.get(&v).map(|op| (v, op))) {
            Some((v, op @ (Op::Load { .. } | Op::Copy(Operand::Const(_)))))
                if self.e.f.value(v).name.is_none() || matches!(op, Op::Load { .. }) =>
            {
                show_op(op, self.e.names)
            }
            Some((v, op))
                if depth > 0
                    && self.e.f.value(v).name.is_none()
                    && !self.nodes.contains_key(&v)
                    && matches!(
                        op,
                        Op::Project { .. }
                            | Op::Field { .. }
                            | Op::Opaque { .. }
                            | Op::Binary(..)
                            | Op::Unary(..)
                            | Op::Method { .. }
                    ) =>
            {
                let shown = show_op_with(op, self.e.names, &|o| self.inline_at(o, depth - 1));
                match op {
                    Op::Binary(..) => format!("({shown})"),
                    _ => shown,
                }
            }
            _ => self.named(o),
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
        let op = op.forward_form();
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
                path,
                mutated: Some(_),
                ..
            } => {
                let span = syn::spanned::Spanned::span(path);
                self.refuse(span, "a call that writes a float through `&mut`");
            }
            Op::Call {
                path,
                exit: Some(_),
                partials,
                ..
            } if !partials.is_empty() => {
                let span = syn::spanned::Spanned::span(path);
                self.refuse(
                    span,
                    "a call of a function that may fail (`?`, `unwrap`, `expect`)",
                );
            }
            Op::Call {
                callee: Callee::Function,
                partials,
                ..
            } if !partials.is_empty() => self.call(dst, op, written, out),
            // An element: the node its array holds at that index.
            Op::Load { array, index } if self.nodes.contains_key(array) => {
                out.extend(self.statement(dst, op, written));
                let nodes = self.nodes[array].clone();
                let idx = index_tokens(&self.e, index);
                let node = self.node_name(dst);
                out.extend(quote!(let #node = #nodes #idx;));
            }
            // A field of a struct parameter: an input named by its path.
            Op::Project { by_ref: false, .. } => {
                out.extend(self.statement(dst, op, written));
                let label = show_op(op, self.e.names);
                let value = self.e.names.forward(dst);
                let node = self.node_name(dst);
                let tape = &self.tape;
                out.extend(quote!(let #node = #tape.input(#label, #value);));
            }
            // A local array: a node per element, constants made nodes.
            Op::NewArray(init) => {
                out.extend(self.statement(dst, op, written));
                let nodes = match init {
                    ArrayInit::Filled { value, len } => {
                        let n = self.node_or_const(value, out);
                        let len = self.e.operand(len, Position::Arg);
                        quote!(::std::vec![#n; #len])
                    }
                    ArrayInit::Repeat { value, len } => {
                        let n = self.node_or_const(value, out);
                        let len: TokenStream = len.parse().unwrap_or_default();
                        quote!(::std::vec![#n; #len])
                    }
                    ArrayInit::List { items, .. } => {
                        let ns: Vec<TokenStream> =
                            items.iter().map(|i| self.node_or_const(i, out)).collect();
                        quote!(::std::vec![#(#ns),*])
                    }
                    ArrayInit::Empty { .. } => quote!(::std::vec::Vec::new()),
                };
                let node = self.node_name(dst);
                out.extend(quote!(#[allow(unused_mut)] let mut #node: ::std::vec::Vec<::autodiff::runtime::trace::NodeId> = #nodes;));
            }
            _ => match ops::rule_of(op) {
                Some((rule, args)) => {
                    out.extend(self.statement(dst, op, written));
                    self.partials(dst, op, rule, &args, out);
                }
                None => self.refuse(span, "this operation (a kernel, a reference to a part of a struct, a method with #[grad], a call returning a tuple)"),
            },
        }
    }

    /// `let name = rhs;`, as the forward sweep of `_grad` writes it.
    fn statement(&self, dst: ValueId, op: &Op, written: Option<&Written>) -> TokenStream {
        self.e.let_def(dst, op, written, self.e.op(op))
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
        let nodes = self.nodes.clone();
        let (bind, named) = self.e.rule_partials(dst, rule, args, |a| {
            a.value().is_some_and(|v| nodes.contains_key(&v))
        });
        // Every operand of the rule, constants too, for the trace's
        // working (`Trace::working`): its text, its value, and whether it
        // is one of the node's inputs.
        let operands: Vec<TokenStream> = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let text = self.inline(a);
                let value = self.e.operand(a, Position::Arg);
                let is_input = named.iter().any(|(j, _)| *j == i);
                quote!((#text, ::autodiff::runtime::trace::Traced::traced(#value), #is_input))
            })
            .collect();
        let inputs = named
            .into_iter()
            .filter_map(|(i, p)| Some((self.node_of(&args[i])?, p.into_token_stream())))
            .collect();
        let node = self.record(dst, op, rule.name, inputs, bind, out);
        let tape = &self.tape;
        out.extend(quote!(#tape.operands(#node, &[#(#operands),*]);));
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
    ) -> syn::Ident {
        let label = self.display(dst);
        let expr = self.shown_op(op);
        let value = self.e.names.forward(dst);
        let node = self.node_name(dst);
        self.recorded.push((dst, node.clone()));
        if self.e.f.value(dst).name.is_none() {
            self.numbers.push((dst, self.next_number));
            self.next_number += 1;
        }
        let (ids, mut ps): (Vec<_>, Vec<_>) = inputs.into_iter().unzip();
        let mut value = value.into_token_stream();
        // A function of `f32`s and `f64`s: an entry's partials may be of
        // both (`x * f64::from(y)` called through `_grad`), and the tape
        // keeps `f64`s.
        if self.mixed_floats() {
            let f64_of = |t: &TokenStream| quote!(::autodiff::Float::to_f64(#t));
            ps = ps.iter().map(f64_of).collect();
            value = f64_of(&value);
        }
        let tape = &self.tape;
        out.extend(quote!(
            #bind
            let #node = #tape.node(#label, #rule, #expr, &[#(#ids),*], &[#(#ps),*], #value);
        ));
        node
    }

    /// The node of an operand: an active value's, `None` for a constant.
    fn node_of(&self, o: &Operand) -> Option<syn::Ident> {
        o.value().and_then(|v| self.nodes.get(&v).cloned())
    }

    /// The returned value and its node.
    fn output(&mut self, item: &syn::ItemFn) -> (TokenStream, TokenStream) {
        let tape = self.tape.clone();
        if !matches!(self.e.f.output, Output::Scalar) {
            crate::diag::combine(
                &mut self.errors,
                syn::Error::new_spanned(
                    &item.sig.output,
                    refusal("a function that returns a tuple or a vector"),
                ),
            );
            return (TokenStream::new(), TokenStream::new());
        }
        let value = self.e.operand(&self.e.f.ret, Position::Arg);
        if let Some(node) = self.node_of(&self.e.f.ret) {
            return (value, node.into_token_stream());
        }
        // A result that depends on no parameter: a node of its own.
        let expr = self.named(&self.e.f.ret);
        let node = quote!({
            let value = #value;
            #tape.node(#expr, "const", #expr, &[], &[value; 0], value)
        });
        (value, node)
    }
}

/// What `_trace` cannot show, and what to do.
fn refusal(what: &str) -> String {
    format!("#[grad(trace)] cannot trace {what} yet: `_grad` differentiates it, but `_trace` records float operations, calls to #[grad] functions, loops, branches, float arrays and struct fields only; drop `trace` from this function, or trace the part without it as a function of its own")
}
