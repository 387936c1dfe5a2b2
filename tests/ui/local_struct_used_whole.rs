// A local struct built from active values is followed through its fields,
// and rebuilt from them where it is passed whole, has a method called on
// it, is copied, replaced or returned. Lent by `&mut` to a function, it is
// refused at its `let`.
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
