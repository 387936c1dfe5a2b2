//! Declares a unary rule: the value (the std method of the same name) and
//! its pullback `dy · f'(x)`, with `f'` written in terms of `x` and the
//! output `y`.

macro_rules! unary_rule {
    ($(#[doc = $doc:literal])* $name:ident, $pullback:ident, |$x:ident, $y:ident| $derivative:expr) => {
        #[doc = concat!("`x.", stringify!($name), "()`.")]
        #[inline]
        pub fn $name<T: $crate::Float>(x: T) -> T {
            x.$name()
        }

        $(#[doc = $doc])*
        #[inline]
        #[allow(unused_variables)]
        pub fn $pullback<T: $crate::Float>($x: T, $y: T, dy: T) -> T {
            dy * ($derivative)
        }
    };
}

pub(crate) use unary_rule;
