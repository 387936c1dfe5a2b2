//! Calls in a trace: a call to another `#[grad]` function nests the
//! callee's trace (its `<callee>_trace_into`, on the caller's tape, inside
//! a call frame); a call passing a struct stays one node, with the partials
//! of the callee's `_grad`; and the one-node `_trace_into` a function with
//! a custom pullback gets, so that a traced caller can call it.

use super::*;

impl Tracer<'_> {
    /// An active call `dst = callee(args..)` of a `#[grad]` function.
    pub(super) fn call(
        &mut self,
        dst: ValueId,
        op: &Op,
        written: Option<&Written>,
        out: &mut TokenStream,
    ) {
        let Op::Call {
            path,
            args,
            borrowed,
            partials,
            ..
        } = op
        else {
            return out.extend(self.statement(dst, op, written));
        };
        let rule = format!("call {}", show(&path.to_token_stream()));
        if self.has_struct_argument(args) {
            // The call is one node, with the partials of the callee's
            // `_grad` (an active call always has one).
            let call = self.e.grad_call(dst, op);
            out.extend(call.unwrap_or_else(|| self.statement(dst, op, written)));
            // A float argument's node, with the partial `_grad` gave.
            let inputs = args
                .iter()
                .zip(partials)
                .filter_map(|(arg, p)| {
                    Some((
                        self.node_of(arg)?,
                        self.e.names.forward((*p)?).into_token_stream(),
                    ))
                })
                .collect();
            self.record(dst, op, &rule, inputs, TokenStream::new(), out);
            return;
        }
        // The callee's own trace, nested in a call frame.
        let mut into = path.clone();
        if let Some(last) = into.segments.last_mut() {
            last.ident = format_ident!("{}_trace_into", last.ident, span = last.ident.span());
        }
        let call_args = self.e.call_args(args, borrowed);
        let slices: Vec<TokenStream> = args
            .iter()
            .map(|a| match (self.node_of(a), a.value()) {
                (Some(n), Some(v)) if self.e.f.value(v).ty.array().is_some() => quote!(&#n[..]),
                (Some(n), _) => quote!(&[#n]),
                (None, _) => quote!(&[]),
            })
            .collect();
        // The call's own node, in the caller: the callee's result under the
        // caller's name, with partial 1.
        let value = self.e.names.forward(dst);
        let returned = self.e.names.fresh("returned");
        let tape = &self.tape;
        out.extend(quote! {
            let (#value, #returned) = #into(&mut *#tape, true, &[#(#slices),*], #(#call_args),*);
        });
        let one = one(self.e.f);
        self.record(
            dst,
            op,
            &rule,
            vec![(returned, one)],
            TokenStream::new(),
            out,
        );
    }

    /// Whether a call passes a struct (or a part of one): its trace stays
    /// one node, since the callee would read the struct's fields as inputs
    /// of its own.
    fn has_struct_argument(&self, args: &[Operand]) -> bool {
        args.iter()
            .filter_map(Operand::value)
            .any(|v| matches!(self.e.f.value(v).ty, Ty::Composite(_)))
    }
}

/// `<name>_trace_into` for a function with a custom pullback, so that a
/// traced caller can call it: the call is one node, the
/// function's value, with the partials its `_grad` gives for each float
/// and float array parameter. Nothing for a vector output, which a trace
/// refuses anyway.
pub(in crate::emit) fn custom_trace_into(
    item: &syn::ItemFn,
    f: &Function,
    shown_rule: &str,
    gradient: &TokenStream,
    names: &mut Names,
) -> TokenStream {
    if !matches!(f.output, Output::Scalar) {
        return TokenStream::new();
    }
    let sig = &item.sig;
    let fname = sig.ident.to_string();
    let into = format_ident!("{}_trace_into", sig.ident);
    let [tape, nested, given, value, nodes, partials] =
        ["tape", "nested", "inputs", "value", "nodes", "partials"].map(|n| names.fresh(n));
    let rt = quote!(::autodiff::runtime::trace);
    let mut take_nodes = TokenStream::new();
    let mut take_partials = TokenStream::new();
    let mut slots = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        if !p.active {
            continue;
        }
        let x = &p.ident;
        let label = x.to_string();
        let d = names.fresh(&format!("d_{label}"));
        match &f.value(p.value).ty {
            Ty::Float(_) => {
                take_nodes.extend(quote!(#nodes.push(#tape.argument(#given[#i], #label, #x));));
                take_partials.extend(quote!(#partials.push(::autodiff::Float::to_f64(#d));));
                slots.push(d.into_token_stream());
            }
            Ty::Array(a) if a.shape != Shape::Nested => {
                take_nodes.extend(
                    quote!(#nodes.extend(#tape.argument_array(#given[#i], #label, &#x[..]));),
                );
                take_partials.extend(
                    quote!(#partials.extend(#d.iter().map(|p| ::autodiff::Float::to_f64(*p)));),
                );
                slots.push(d.into_token_stream());
            }
            _ => slots.push(quote!(_)),
        }
    }
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let shown_args = args
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let expr = format!("{fname}({shown_args})");
    let op = format!("custom pullback {shown_rule}");
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = &sig.inputs;
    let ret_ty = f.float_ident(f.ret_ty);
    let vis = &item.vis;
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, clippy::too_many_arguments, unused_variables, unused_mut)]
        #vis fn #into #generics (
            #tape: &mut #rt::Tape,
            #nested: bool,
            #given: &[&[#rt::NodeId]],
            #inputs
        ) -> (#ret_ty, #rt::NodeId) #where_clause {
            let mut #nodes = ::std::vec::Vec::new();
            #take_nodes
            let (#value, #(#slots),*) = #gradient;
            // In `f64`: the parameters may be of two float types.
            let mut #partials: ::std::vec::Vec<f64> = ::std::vec::Vec::new();
            #take_partials
            (#value, #tape.node(#fname, #op, #expr, &#nodes, &#partials, ::autodiff::Float::to_f64(#value)))
        }
    }
}
