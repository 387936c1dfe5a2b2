// A local struct built from active values is followed through its fields,
// and rebuilt from them where it is passed whole, has a method called on
// it, is copied, replaced or returned. Lent by `&mut` to a function, it is
// that function's to change, a struct writer's (`desugar/struct_writers.rs`):
// a plain function has no writer's `_vjp`, and the struct needs `Clone`
// and `Differentiable`, compile errors at the call and the attribute.
struct Point {
    x: f64,
    y: f64,
}

fn nudge(p: &mut Point) {
    p.x += 1.0;
}

#[autodiff::grad]
fn f(a: f64, b: f64) -> f64 {
    let mut p = Point { x: a, y: b };
    nudge(&mut p);
    p.x * p.y
}

fn main() {}
