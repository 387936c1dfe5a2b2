//! Declares a unary rule: the value (the std method of the same name) and
//! its pullback `dy · f'(x)`, with `f'` written in terms of `x` and the
//! output `y`.
//!
//! Every pullback multiplies through [`scale`](crate::float::scale): a
//! zero `dy` gives exactly 0 rather than 0·∞ = NaN, wherever the slope is
//! infinite (asin at ±1) or the input overflowed (exp of a value that
//! went to infinity on a path that does not reach the result). The marker
//! `zero_dy_gives_zero` is kept on the rules whose slope is infinite at a
//! finite input, as documentation.
//!
//! Each rule also gets `<name>_pullback_unguarded`, `dy · f'(x)` without
//! that guard, for the first attempt of a reverse sweep
//! ([`float::first_try`](crate::float::first_try) argues why its answer,
//! when no gradient entry is NaN, is the guarded one).

macro_rules! unary_rule {
    ($(#[doc = $doc:literal])* $name:ident, $pullback:ident, $unguarded:ident, zero_dy_gives_zero |$x:ident, $y:ident| $derivative:expr) => {
        $crate::macros::unary_rule!($(#[doc = $doc])* $name, $pullback, $unguarded, |$x, $y| $derivative);
    };
    ($(#[doc = $doc:literal])* $name:ident, $pullback:ident, $unguarded:ident, |$x:ident, $y:ident| $derivative:expr) => {
        $crate::macros::unary_rule!(@value $name);

        $(#[doc = $doc])*
        #[inline]
        #[allow(unused_variables)]
        pub fn $pullback<T: $crate::Float>($x: T, $y: T, dy: T) -> T {
            $crate::float::scale(dy, $derivative)
        }

        #[doc = concat!("[`", stringify!($pullback), "`] without the zero-adjoint guard, for the first attempt of a reverse sweep (see [`crate::float::first_try`]).")]
        #[doc(hidden)]
        #[inline]
        #[allow(unused_variables)]
        pub fn $unguarded<T: $crate::Float>($x: T, $y: T, dy: T) -> T {
            dy * $derivative
        }
    };
    (@value $name:ident) => {
        #[doc = concat!("`x.", stringify!($name), "()`, exactly as the std method computes it.")]
        #[inline]
        pub fn $name<T: $crate::Float>(x: T) -> T {
            x.$name()
        }
    };
}

pub(crate) use unary_rule;

/// `$m!` for the tuples of one to six elements, each type parameter
/// named with its index (`$m!(A 0, B 1)`): the tuples a trait of the
/// crate is implemented for, part by part.
macro_rules! for_tuples {
    ($m:ident) => {
        $m!(A 0);
        $m!(A 0, B 1);
        $m!(A 0, B 1, C 2);
        $m!(A 0, B 1, C 2, D 3);
        $m!(A 0, B 1, C 2, D 3, E 4);
        $m!(A 0, B 1, C 2, D 3, E 4, F 5);
    };
}

pub(crate) use for_tuples;
