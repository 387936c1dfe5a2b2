// A local struct built from active values is followed through its fields,
// and rebuilt from them where it is passed whole or a method of a struct
// that is not `mut` is called on it. A method called on a `let mut` struct
// may change it, so there it is refused at its `let`.
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
    let mut p = Point { x: a, y: b };
    p.y += a;
    p.norm2()
}

fn main() {}
