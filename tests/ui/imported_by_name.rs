// A #[grad] function imported by its name alone leaves its generated
// siblings behind: rustc says it cannot find them, at the call, and
// suggests the imports that fix it. Calling it by its path, importing its
// module, a glob import, or importing the siblings too all work (README,
// "Composing").
mod physics {
    use autodiff::grad;

    #[grad]
    pub fn potential(m: f64, h: f64) -> f64 {
        m * 9.81 * h
    }
}

mod sim {
    use crate::physics::potential;
    use autodiff::grad;

    #[grad]
    pub fn total(m: f64, h: f64) -> f64 {
        potential(m, h) * h
    }
}

fn main() {}
