//! What a function returns (`Output`, `Fallible`), and how a caller takes
//! the value of a fallible callee (`Exit`).

use super::*;

/// How a caller takes the value of a fallible callee: `g(x)?`,
/// `g(x).unwrap()`, `g(x).expect(msg)`.
#[derive(Clone, Debug)]
pub enum Exit {
    Try,
    Unwrap,
    Expect(Box<syn::Expr>),
    /// `g(x).ok_or(e)?`, `.ok_or_else(|| e)?`, `.map_err(f)?`, `.ok()?`: a
    /// method of `Option` or `Result` turning the callee's failure into
    /// the caller's, then the exit. Its argument names nothing of the
    /// function's (`lower/calls.rs`), so it reads the same in every
    /// function generated.
    Adapted(Box<(syn::Ident, Option<syn::Expr>, Exit)>),
}

impl quote::ToTokens for Exit {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        tokens.extend(match self {
            Exit::Try => quote::quote!(?),
            Exit::Unwrap => quote::quote!(.unwrap()),
            Exit::Expect(m) => quote::quote!(.expect(#m)),
            Exit::Adapted(a) => {
                let (method, arg, then) = &**a;
                quote::quote!(.#method(#arg) #then)
            }
        });
    }
}

/// The wrapper of a fallible function's output.
#[derive(Clone, Debug)]
pub enum Fallible {
    /// `Result<T, E>`, with `E`.
    Result(Box<syn::Type>),
    /// `Option<T>`.
    Option,
}

/// The shape of a function's output.
#[derive(Clone, Debug)]
pub enum Output {
    /// One float: `<name>_grad`.
    Scalar,
    /// A tuple of floats, `(f64, f64)`: the elements' values. A vector
    /// output gets `<name>_vjp` and `<name>_jacobian`.
    Tuple(Vec<Operand>),
    /// `[T; M]` or `Vec<T>`: a modelled array, in [`Function::ret`].
    Array(ArrayTy),
    /// A struct (`-> State`, `-> Self`), built whole at the end
    /// (`Op::Construct`) or passed through: `<name>_vjp` takes its seed as
    /// a value of the same type.
    Struct(Box<syn::Type>),
}
