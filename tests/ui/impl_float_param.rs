// A method of `impl<T: Float>` returning `T`: #[grad] sees the method's
// own generics only, and says how to show it the impl's.
struct S<T> {
    k: T,
}

impl<T: autodiff::Float> S<T> {
    #[autodiff::grad]
    fn eval(&self, x: T) -> T {
        self.k * x * x
    }
}

fn main() {}
