// A function that returns nothing and writes one float through `&mut` is
// differentiated as a writer; one that writes two (or returns a value
// and writes) is not yet: return the new values instead.
#[autodiff::grad]
fn update(x: &mut f64, v: &mut f64, dt: f64) {
    *x += *v * dt;
    *v -= *x * dt;
}

fn main() {}
