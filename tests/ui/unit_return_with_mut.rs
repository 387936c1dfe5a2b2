// A function that returns nothing and writes floats of one type through
// `&mut` is differentiated as a writer, and so is one that changes one
// float array. Floats of two types, or a float and an array, are not:
// return the new values instead. A writer of several floats returns them
// at the end of its body, so its `return;` stands only as a guard clause.
#[autodiff::grad]
fn update(x: &mut f64, v: &mut f32, dt: f64) {
    *x += *v as f64 * dt;
    *v -= (*x * dt) as f32;
}

#[autodiff::grad]
fn settle(x: &mut f64, v: &mut f64, dt: f64) {
    for _ in 0..3 {
        if *x > 1.0 {
            return;
        }
        *x += *v * dt;
    }
}

fn main() {}
