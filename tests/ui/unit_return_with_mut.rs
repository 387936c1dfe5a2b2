// A function that returns nothing and writes its result through `&mut`
// has no value to differentiate yet: return the new value instead.
#[autodiff::grad]
fn update(x: &mut f64, y: f64) {
    *x = *x * y + 1.0;
}

fn main() {}
