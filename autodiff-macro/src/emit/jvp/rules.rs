//! The tangent of an entry with a rule of the runtime's: a float
//! method's or an operator's, from the rule's partials (its pullback at
//! dy = 1, the one place the rule is written), and a kernel's, from the
//! runtime's `<kernel>_tangent`.

use super::*;

impl Tangents<'_> {
    /// The tangent of a rule's entry: its partials (the rule's pullback
    /// at dy = 1) weighted by its operands' tangents.
    pub(super) fn partials(
        &mut self,
        dst: ValueId,
        rule: &'static Rule,
        args: &[Operand],
        out: &mut TokenStream,
    ) {
        let tangents = self.tangents.clone();
        let (bind, named) = self.e.rule_partials(dst, rule, args, |a| {
            a.value().is_some_and(|v| tangents.contains_key(&v))
        });
        out.extend(bind);
        let terms: Vec<TokenStream> = named
            .into_iter()
            .filter_map(|(i, p)| {
                let t = self.tangent_of(&args[i])?;
                Some(quote!(#p * #t))
            })
            .collect();
        let sum = sum(terms, self.e.f);
        self.bind(dst, sum, out);
    }

    /// A kernel's tangent, from the runtime's `<kernel>_tangent`: its
    /// arguments, its value, and the tangent of each array argument
    /// (`None` for one without).
    pub(super) fn kernel(
        &mut self,
        dst: ValueId,
        kernel: &crate::rules::Kernel,
        args: &[KernelOperand],
        out: &mut TokenStream,
    ) {
        let path = kernel_path(&format!("{}_tangent", kernel.name));
        let forward: Vec<TokenStream> = args.iter().map(|a| self.e.kernel_arg(a)).collect();
        let y = self.e.names.forward(dst);
        let y = match kernel.returns_array {
            true => quote!(&#y),
            false => quote!(#y),
        };
        let tangents: Vec<TokenStream> = args
            .iter()
            .filter_map(|a| {
                let t = match a {
                    KernelOperand::Array(v) => self.tangents.get(v).cloned(),
                    KernelOperand::Place { base, path } => self.tangents.get(base).map(|d| {
                        let steps = path_tokens(&self.e, path);
                        quote!(#d #steps)
                    }),
                    KernelOperand::Value(_) => return None,
                };
                Some(match t {
                    Some(t) => quote!(::core::option::Option::Some(&(#t)[..])),
                    None => quote!(::core::option::Option::None),
                })
            })
            .collect();
        let d = self.e.names.adjoint(dst);
        out.extend(quote!(let mut #d = #path(#(#forward,)* #y, #(#tangents),*);));
        self.tangents.insert(dst, d.into_token_stream());
    }
}
