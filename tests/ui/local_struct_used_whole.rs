// A local struct built from active values is followed through its fields;
// used whole (here, a method called on it), it is refused at its `let`.
struct Point {
    x: f64,
    y: f64,
}

impl Point {
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

#[autodiff::grad]
fn f(a: f64, b: f64) -> f64 {
    let p = Point { x: a, y: b };
    p.norm2()
}

fn main() {}
