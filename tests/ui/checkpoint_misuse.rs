// `#[checkpoint]` where a schedule cannot replay the loop: each refused at
// the attribute, with what to write instead.
use autodiff::grad;

#[grad]
fn on_a_while_loop(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    #[checkpoint(every = 2)]
    while k < 4 {
        y = y * 0.5 + x;
        k += 1;
    }
    y
}

#[grad]
fn nested(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        #[checkpoint(every = 2)]
        for _ in 0..4 {
            y = y.sin() + x;
        }
    }
    y
}

#[grad]
fn breaks_out(x: f64) -> f64 {
    let mut y = x;
    #[checkpoint(snapshots = 2)]
    for _ in 0..10 {
        y = y * y;
        if y > 100.0 {
            break;
        }
    }
    y
}

#[grad]
fn reversed_range(x: f64) -> f64 {
    let mut y = x;
    #[checkpoint(every = 2)]
    for i in (0..4).rev() {
        y = y * (i as f64 + 1.0);
    }
    y
}

#[grad]
fn unknown_option(x: f64) -> f64 {
    let mut y = x;
    #[checkpoint(period = 2)]
    for _ in 0..4 {
        y = y.cos();
    }
    y
}

#[grad]
fn changes_a_vector_of_indices(x: f64) -> f64 {
    let mut y = x;
    let mut picked: Vec<usize> = Vec::new();
    #[checkpoint(every = 2)]
    for i in 0..4 {
        y = y.sin() * x;
        picked.push(i);
    }
    y + picked.len() as f64
}

#[grad]
fn nothing_to_do(x: f64) -> f64 {
    let mut count = 0;
    #[checkpoint(every = 2)]
    for _ in 0..4 {
        println!("step");
    }
    count += 1;
    x * count as f64
}

#[autodiff::checkpoint(every = 2)]
fn outside_grad() {}

fn main() {}
