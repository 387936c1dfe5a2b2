// A `&mut self` method that changes a field and returns a value: one
// error, at `&mut self`, saying what to write (the field's assignment is
// not refused again with advice that does not apply).
use autodiff::{grad, Differentiable};

#[derive(Differentiable, Clone, Debug)]
struct Account {
    balance: f64,
    rate: f64,
}

impl Account {
    #[grad(wrt(self))]
    fn accrue(&mut self, days: f64) -> f64 {
        let interest = self.balance * self.rate * days / 365.0;
        self.balance += interest;
        interest
    }
}

fn main() {
    let mut a = Account { balance: 1.0, rate: 0.1 };
    println!("{}", a.accrue(1.0));
}
