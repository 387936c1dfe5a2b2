//! An adjoint's life in the reverse sweep: its zero in its value's shape
//! (`zero_in_shape`), a contribution added (`add_into` for a float,
//! `add_adjoint` for a value of any shape), its reset at the start of a
//! reverse iteration, and its declaration where the first contribution
//! is assigned.

use super::*;

impl Emitter<'_> {
    /// The zero adjoint of `v` in its value's shape, where the source does
    /// not state its type (rustc decides it from the value) or `v` is a
    /// composite parameter; `None` for a float of a stated type. `seed`:
    /// the output's adjoint, which starts at one (of the return type).
    pub(super) fn zero_in_shape(&self, v: ValueId, seed: bool) -> Option<TokenStream> {
        let value = self.names.forward(v);
        let rt = quote!(::autodiff::runtime::differentiable);
        match &self.f.value(v).ty {
            Ty::Composite(c) => Some(match c.holder {
                Holder::Ref => quote!(#rt::zero_like(#value)),
                // Where the value itself may not be at hand (a loop's
                // header, a struct of a branch arm): its shaping value's.
                // A struct built whole: an error about its type (not
                // `Differentiable`) points at the struct.
                Holder::Value => {
                    let shape = self.names.forward(self.f.shaping_value(v));
                    let span = self.f.value(v).span;
                    match self.f.value(v).kind == ValueKind::Def {
                        true => {
                            quote::quote_spanned!(span=> ::autodiff::runtime::differentiable::zero_like(&#shape))
                        }
                        false => quote!(#rt::zero_like(&#shape)),
                    }
                }
                Holder::Slice => quote!(#rt::zero_like_slice(#value)),
            }),
            _ if seed => None,
            _ if crate::reverse::is_shaped(self.f, v) => {
                let shape = self.names.forward(self.f.shaping_value(v));
                Some(quote!(#rt::zero_like(&#shape)))
            }
            _ => None,
        }
    }

    /// `d_v += e`, or `d_v = e` for its first contribution where
    /// `Gradient::assigned` says so.
    pub(super) fn add_into(&mut self, v: ValueId, e: TokenStream) -> TokenStream {
        let d = self.names.adjoint(v);
        match self.pending.remove(&v) {
            true => quote!(#d = #e;),
            false => quote!(#d += #e;),
        }
    }

    /// `d_v += e` for `v` of any type: [`Self::add_into`] for a float, and
    /// for a value of a type the source does not state (a field read back
    /// from a call's struct: a `Vec`, a `usize`) as its type adds, through
    /// `Differentiable`.
    pub(super) fn add_adjoint(&mut self, v: ValueId, e: TokenStream) -> TokenStream {
        // An array too: a struct output's array field merged from a
        // branch's arms (`hist: h` in each, trial 11 B12).
        let ty = &self.f.value(v).ty;
        let composite = ty.composite().is_some() || ty.array().is_some();
        if self.pending.contains(&v) || !crate::reverse::is_shaped(self.f, v) && !composite {
            return self.add_into(v, e);
        }
        let d = self.names.adjoint(v);
        quote!(::autodiff::runtime::differentiable::accumulate(&mut #d, &#e);)
    }

    /// The zero `d_v` is reset to: a float zero, or one in `d_v`'s shape.
    pub(super) fn reset_adjoint(&mut self, v: ValueId) -> TokenStream {
        let d = self.names.adjoint(v);
        match crate::reverse::is_shaped(self.f, v) {
            true => quote!(#d = ::autodiff::runtime::differentiable::zero_like(&#d);),
            false => {
                let z = zero(self.f);
                quote!(#d = #z;)
            }
        }
    }

    /// A carried value's adjoint reset at the start of its reverse
    /// iteration: in the shape of the value the iteration started from
    /// where the iteration recorded it, since a `Vec` replaced whole may
    /// change its length from one iteration to the next (`h =
    /// layer.forward(&h)` over layers of different widths); else as
    /// [`Self::reset_adjoint`].
    pub(super) fn reset_carried(&mut self, header: ValueId, pushes: &[ValueId]) -> TokenStream {
        let composite = self.f.value(header).ty.composite().is_some();
        if crate::reverse::is_shaped(self.f, header) && !composite && pushes.contains(&header) {
            let d = self.names.adjoint(header);
            let h = self.names.forward(header);
            return quote!(#d = ::autodiff::runtime::differentiable::zero_like(&#h););
        }
        self.reset_adjoint(header)
    }

    /// The declaration of an adjoint whose first contribution is assigned:
    /// no value, and `mut` only if more contributions follow.
    pub(super) fn declare_assigned(&mut self, v: ValueId) -> TokenStream {
        let d = self.names.adjoint(v);
        let m = (self.contributions.get(&v).copied().unwrap_or(0) > 1).then(|| quote!(mut));
        let ty = annotation(&self.adjoint_ty(v));
        quote!(let #m #d #ty;)
    }

    /// The type of `v`'s adjoint where it is written: `v`'s float type, or
    /// `_` (rustc infers it) where the source does not state it.
    pub(super) fn adjoint_ty(&self, v: ValueId) -> syn::Ident {
        let t = self.f.value(v).ty.float().unwrap_or(FloatTy::Inferred);
        self.f.float_ident(t)
    }
}
