//! ADBench's LSTM objective, ported from the reference definition in
//! microsoft/ADBench, `src/cpp/shared/lstm.h` (`lstm_model`,
//! `lstm_predict`, `lstm_objective`, and its `logsumexp`, which adds 2 to
//! the sum before the log).
//!
//! `l` layers of b = 14 units (ADBench's character width), a sequence of
//! `c` one-hot characters; `main_params` holds per layer the weights then
//! the biases of the forget, input, output and change gates (8·b),
//! `extra_params` the input weights, output weights and output biases
//! (3·b). The initial state is an input, not differentiated. Two sizes of
//! ADBench's: l = 2 and l = 4, with c = 1024.

// The port keeps the reference's index loops and element copies; the
// tape's variables have no `+=`.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::assign_op_pattern
)]

mod common;

use std::hint::black_box;

use autodiff::grad;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::DVector;
use num_dual::{gradient, DualDVec64, DualNum};
use reverse::Gradient;

const B: usize = 14;
const C: usize = 1024;

/// The objective as a user writes it from the reference: index loops over
/// flat parameter vectors, the state in a local vector.
#[grad(wrt(main_params, extra_params))]
fn lstm_objective(
    l: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
) -> f64 {
    let c = sequence.len() / b;
    let mut st = vec![0.0; 2 * l * b];
    for i in 0..2 * l * b {
        st[i] = state[i];
    }
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..c - 1 {
        // lstm_predict: the input through the layers.
        let mut layer_output = vec![0.0; b];
        for i in 0..b {
            layer_output[i] = sequence[t * b + i] * extra_params[i];
        }
        for layer in 0..l {
            let p = 8 * b * layer;
            let s = 2 * b * layer;
            // lstm_model: hidden at st[s..s + b], cell at st[s + b..s + 2b].
            for i in 0..b {
                let forget = autodiff::sigmoid(
                    layer_output[i] * main_params[p + i] + main_params[p + 4 * b + i],
                );
                let ingate = autodiff::sigmoid(
                    st[s + i] * main_params[p + b + i] + main_params[p + 5 * b + i],
                );
                let outgate = autodiff::sigmoid(
                    layer_output[i] * main_params[p + 2 * b + i] + main_params[p + 6 * b + i],
                );
                let change =
                    (st[s + i] * main_params[p + 3 * b + i] + main_params[p + 7 * b + i]).tanh();
                st[s + b + i] = st[s + b + i] * forget + ingate * change;
                st[s + i] = outgate * st[s + b + i].tanh();
            }
            for i in 0..b {
                layer_output[i] = st[s + i];
            }
        }
        let mut ypred = vec![0.0; b];
        for i in 0..b {
            ypred[i] = layer_output[i] * extra_params[b + i] + extra_params[2 * b + i];
        }
        // The reference's logsumexp: ln(Σ exp + 2).
        let mut sum = 0.0;
        for i in 0..b {
            sum += ypred[i].exp();
        }
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (ypred[i] - lse);
        }
        count += b;
    }
    -total / count as f64
}

/// The gradient by hand: the forward pass keeping every gate, cell and
/// hidden value, then back-propagation through time.
fn lstm_hand(l: usize, main: &[f64], extra: &[f64], state: &[f64], seq: &[f64]) -> (f64, Vec<f64>) {
    let b = B;
    let c = seq.len() / b;
    let steps = c - 1;
    // Per step and layer: the layer's input, the previous hidden and cell,
    // the four gates, the new cell and tanh of it.
    let at = |t: usize, layer: usize| (t * l + layer) * b;
    let size = steps * l * b;
    let (mut inp, mut hprev, mut cprev) = (vec![0.0; size], vec![0.0; size], vec![0.0; size]);
    let (mut fg, mut ig, mut og, mut ch) = (
        vec![0.0; size],
        vec![0.0; size],
        vec![0.0; size],
        vec![0.0; size],
    );
    let mut tc = vec![0.0; size];
    let mut probs = vec![0.0; steps * b];
    let mut top = vec![0.0; steps * b];
    let mut st = state.to_vec();
    let mut total = 0.0;
    let mut x = vec![0.0; b];
    for t in 0..steps {
        for i in 0..b {
            x[i] = seq[t * b + i] * extra[i];
        }
        for layer in 0..l {
            let (p, s, k) = (8 * b * layer, 2 * b * layer, at(t, layer));
            for i in 0..b {
                let (h, cell) = (st[s + i], st[s + b + i]);
                let f = autodiff::sigmoid(x[i] * main[p + i] + main[p + 4 * b + i]);
                let g = autodiff::sigmoid(h * main[p + b + i] + main[p + 5 * b + i]);
                let o = autodiff::sigmoid(x[i] * main[p + 2 * b + i] + main[p + 6 * b + i]);
                let z = (h * main[p + 3 * b + i] + main[p + 7 * b + i]).tanh();
                let cn = cell * f + g * z;
                let t_c = cn.tanh();
                inp[k + i] = x[i];
                hprev[k + i] = h;
                cprev[k + i] = cell;
                (fg[k + i], ig[k + i], og[k + i], ch[k + i], tc[k + i]) = (f, g, o, z, t_c);
                st[s + b + i] = cn;
                st[s + i] = o * t_c;
                x[i] = o * t_c;
            }
        }
        let mut sum = 0.0;
        for i in 0..b {
            top[t * b + i] = x[i];
            let y = x[i] * extra[b + i] + extra[2 * b + i];
            probs[t * b + i] = y.exp();
            sum += probs[t * b + i];
        }
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            let y = x[i] * extra[b + i] + extra[2 * b + i];
            total += seq[(t + 1) * b + i] * (y - lse);
            probs[t * b + i] /= sum + 2.0;
        }
    }
    let count = (steps * b) as f64;
    let loss = -total / count;
    // Back-propagation through time.
    let mut d_main = vec![0.0; main.len()];
    let mut d_extra = vec![0.0; extra.len()];
    let mut dh_next = vec![0.0; l * b];
    let mut dc_next = vec![0.0; l * b];
    let mut dx = vec![0.0; b];
    let dtotal = -1.0 / count;
    for t in (0..steps).rev() {
        let gold = &seq[(t + 1) * b..(t + 2) * b];
        let gold_sum: f64 = gold.iter().sum();
        for i in 0..b {
            // ∂/∂y_i of Σ gold·(y − lse) = gold_i − (Σ gold)·softmax_i.
            let dy = dtotal * (gold[i] - gold_sum * probs[t * b + i]);
            d_extra[b + i] += dy * top[t * b + i];
            d_extra[2 * b + i] += dy;
            dx[i] = dy * extra[b + i];
        }
        for layer in (0..l).rev() {
            let (p, k) = (8 * b * layer, at(t, layer));
            for i in 0..b {
                let j = layer * b + i;
                let dh = dx[i] + dh_next[j];
                let (f, g, o, z, t_c) = (fg[k + i], ig[k + i], og[k + i], ch[k + i], tc[k + i]);
                let dout = dh * t_c;
                let dc = dc_next[j] + dh * o * (1.0 - t_c * t_c);
                let dzf = dc * cprev[k + i] * f * (1.0 - f);
                let dzg = dc * z * g * (1.0 - g);
                let dzo = dout * o * (1.0 - o);
                let dzz = dc * g * (1.0 - z * z);
                let (xi, h) = (inp[k + i], hprev[k + i]);
                d_main[p + i] += dzf * xi;
                d_main[p + 4 * b + i] += dzf;
                d_main[p + b + i] += dzg * h;
                d_main[p + 5 * b + i] += dzg;
                d_main[p + 2 * b + i] += dzo * xi;
                d_main[p + 6 * b + i] += dzo;
                d_main[p + 3 * b + i] += dzz * h;
                d_main[p + 7 * b + i] += dzz;
                dh_next[j] = dzg * main[p + b + i] + dzz * main[p + 3 * b + i];
                dc_next[j] = dc * f;
                dx[i] = dzf * main[p + i] + dzo * main[p + 2 * b + i];
            }
        }
        for i in 0..b {
            d_extra[i] += dx[i] * seq[t * b + i];
        }
    }
    (loss, [d_main, d_extra].concat())
}

/// The objective for the peers, over any number type with the operations
/// below: one body for dual numbers and the tape's variables.
macro_rules! lstm_body {
    ($t:ty, $l:expr, $main:expr, $extra:expr, $state:expr, $seq:expr, $zero:expr) => {{
        let (l, main, extra, seq) = ($l, $main, $extra, $seq);
        let b = B;
        let c = seq.len() / b;
        let sigmoid = |v: &$t| -> $t { ((v.clone() * -1.0).exp() + 1.0).recip() };
        let mut st: Vec<_> = $state.iter().map(|s| $zero.clone() + *s).collect();
        let mut total = $zero.clone();
        for t in 0..c - 1 {
            let mut x: Vec<_> = (0..b).map(|i| extra[i].clone() * seq[t * b + i]).collect();
            for layer in 0..l {
                let (p, s) = (8 * b * layer, 2 * b * layer);
                for i in 0..b {
                    let f = sigmoid(
                        &(x[i].clone() * main[p + i].clone() + main[p + 4 * b + i].clone()),
                    );
                    let g = sigmoid(
                        &(st[s + i].clone() * main[p + b + i].clone()
                            + main[p + 5 * b + i].clone()),
                    );
                    let o = sigmoid(
                        &(x[i].clone() * main[p + 2 * b + i].clone() + main[p + 6 * b + i].clone()),
                    );
                    let z = (st[s + i].clone() * main[p + 3 * b + i].clone()
                        + main[p + 7 * b + i].clone())
                    .tanh();
                    st[s + b + i] = st[s + b + i].clone() * f + g * z;
                    st[s + i] = o * st[s + b + i].clone().tanh();
                }
                for i in 0..b {
                    x[i] = st[s + i].clone();
                }
            }
            let y: Vec<_> = (0..b)
                .map(|i| x[i].clone() * extra[b + i].clone() + extra[2 * b + i].clone())
                .collect();
            let sum = y.iter().fold($zero.clone(), |a, v| a + v.clone().exp());
            let lse = (sum + 2.0).ln();
            for i in 0..b {
                total = total + (y[i].clone() - lse.clone()) * seq[(t + 1) * b + i];
            }
        }
        total * (-1.0 / ((c - 1) * b) as f64)
    }};
}

fn lstm_tape(l: usize, params: &[f64], state: &[f64], seq: &[f64]) -> (f64, Vec<f64>) {
    let tape = reverse::Tape::new();
    lstm_tape_on(&tape, l, params, state, seq)
}

fn lstm_tape_on<'t>(
    tape: &'t reverse::Tape,
    l: usize,
    params: &[f64],
    state: &[f64],
    seq: &[f64],
) -> (f64, Vec<f64>) {
    let v = tape.add_vars(params);
    let (main, extra) = v.split_at(8 * l * B);
    let zero = v[0] * 0.0;
    let loss = lstm_body!(reverse::Var<'t>, l, main, extra, state, seq, zero);
    (loss.val(), loss.grad().wrt(&v))
}

fn lstm_dual(l: usize, p: &DVector<DualDVec64>, state: &[f64], seq: &[f64]) -> DualDVec64 {
    let params = p.as_slice();
    let (main, extra) = params.split_at(8 * l * B);
    let zero = DualDVec64::from(0.0);
    lstm_body!(DualDVec64, l, main, extra, state, seq, zero)
}

/// A problem of `l` layers: parameters of order 1 and a one-hot sequence,
/// drawn with a fixed seed.
struct Lstm {
    l: usize,
    main: Vec<f64>,
    extra: Vec<f64>,
    state: Vec<f64>,
    seq: Vec<f64>,
}

impl Lstm {
    fn new(l: usize) -> Lstm {
        let mut rng = common::Rng::new(0x157 + l as u64);
        let main = rng.uniform_vec(8 * l * B, -1.0, 1.0);
        let extra = rng.uniform_vec(3 * B, -1.0, 1.0);
        let state = rng.uniform_vec(2 * l * B, -1.0, 1.0);
        let mut seq = vec![0.0; C * B];
        for t in 0..C {
            seq[t * B + (rng.uniform() * B as f64) as usize] = 1.0;
        }
        Lstm {
            l,
            main,
            extra,
            state,
            seq,
        }
    }

    fn function(&self, main: &[f64], extra: &[f64]) -> f64 {
        lstm_objective(self.l, B, main, extra, &self.state, &self.seq)
    }

    fn generated(&self) -> (f64, Vec<f64>) {
        let (v, dm, de) =
            lstm_objective_grad(self.l, B, &self.main, &self.extra, &self.state, &self.seq);
        (v, [dm, de].concat())
    }

    fn params(&self) -> Vec<f64> {
        [&self.main[..], &self.extra].concat()
    }
}

fn lstm(c: &mut Criterion) {
    for l in [2, 4] {
        let m = Lstm::new(l);
        let p = m.params();
        let split = 8 * l * B;
        // Every method agrees with the generated gradient before the race.
        let (v, grad) = m.generated();
        assert_eq!(v, m.function(&m.main, &m.extra));
        let (hv, hg) = lstm_hand(l, &m.main, &m.extra, &m.state, &m.seq);
        assert!((v - hv).abs() <= 1e-12 * v.abs());
        common::assert_close("hand-written", &hg, &grad, 1e-10);
        let (tv, tg) = lstm_tape(l, &p, &m.state, &m.seq);
        assert!((v - tv).abs() <= 1e-12 * v.abs());
        common::assert_close("reverse (tape)", &tg, &grad, 1e-10);
        let small = l == 2;
        let pd = DVector::from_vec(p.clone());
        let objective = |q: &[f64]| m.function(&q[..split], &q[split..]);
        if small {
            let (dv, dg) = gradient(|q| lstm_dual(l, &q, &m.state, &m.seq), &pd);
            assert!((v - dv).abs() <= 1e-12 * v.abs());
            common::assert_close("num-dual", dg.as_slice(), &grad, 1e-10);
            let fd = common::central_differences(objective, &p);
            common::assert_close("central differences", &fd, &grad, 1e-5);
        }

        let mut g = c.benchmark_group(format!("lstm l={l} c={C}"));
        g.bench_function("function", |bch| {
            bch.iter(|| m.function(black_box(&m.main), &m.extra))
        });
        g.bench_function("generated", |bch| bch.iter(|| black_box(&m).generated()));
        g.bench_function("hand-written", |bch| {
            bch.iter(|| lstm_hand(l, black_box(&m.main), &m.extra, &m.state, &m.seq))
        });
        g.bench_function("reverse (tape)", |bch| {
            bch.iter(|| lstm_tape(l, black_box(&p), &m.state, &m.seq))
        });
        if small {
            g.bench_function("num-dual", |bch| {
                bch.iter(|| gradient(|q| lstm_dual(l, &q, &m.state, &m.seq), black_box(&pd)))
            });
            g.bench_function("central differences", |bch| {
                bch.iter(|| common::central_differences(objective, black_box(&p)))
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = lstm
}
criterion_main!(benches);
