//! Feature `struct_vec_loops`: `for` loops over a local `Vec` of structs
//! (a local struct held in one, `struct_vec_locals`) in the shapes the
//! macro's `desugar/struct_vecs/loops.rs` follows beyond `for p in &q`:
//!
//! - over a part, `for p in &q[1..]`, `for p in q[..1].iter()`;
//! - counted before narrowing, `q.iter().enumerate().skip(n)`, and from
//!   the end, `q.iter().rev().enumerate().take(n)` (the count an integer
//!   the body may use);
//! - through a `filter` on a field, `q.iter().filter(|p| p.f1 > 0.25)`;
//! - over neighbours, `for w in q.windows(2)` (no iteration where `q`
//!   holds one struct).
//!
//! The body starts `let x = p.f0;` (`w[1].f0 - w[0].f0` of a window), then
//! is any loop body that does not use `q` (lent to the loop).

use super::*;

impl G<'_> {
    /// The local structs held in a `Vec` of structs here, whole (not moved
    /// out), with the `Vec`'s length.
    pub(super) fn held_vecs(&self) -> Vec<(String, u64)> {
        self.local_structs()
            .into_iter()
            .filter(|l| l.whole)
            .filter_map(|l| l.held.map(|k| (l.name, k + 1)))
            .collect()
    }

    /// A loop over one of [`Self::held_vecs`], its body generated in
    /// `inner` with the struct out of scope.
    pub(super) fn held_loop(&mut self, inner: Ctx) -> Stmt {
        let vecs = self.held_vecs();
        let (q, len) = self.more.pick(&vecs).clone();
        let (fields, _) = self.layout.expect("local structs have a type");
        let field = |g: &mut Self| g.more.below(fields as usize) as u64;
        let how = match self.more.below(6) {
            0 => Held::From(self.more.range(0, len as usize) as u64),
            1 => Held::To(self.more.range(1, len as usize) as u64),
            2 => Held::EnumSkip(self.more.below(3) as u64),
            3 => Held::RevEnumTake(self.more.range(1, 3) as u64),
            4 => {
                let f = field(self);
                let op = *self.more.pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]);
                let v = (self.more.uniform(-1.0, 1.0) * 100.0).round() / 100.0;
                Held::Filter(f, op, v)
            }
            _ => Held::Windows,
        };
        let k = field(self);
        let var = self.fresh("y");
        self.declare_float(&var, false);
        let idx = matches!(how, Held::EnumSkip(_) | Held::RevEnumTake(_)).then(|| {
            let i = self.fresh("j");
            self.frame().ints.push((i.clone(), len - 1));
            i
        });
        // `q` is lent to the loop: out of scope in its body.
        let hidden: Vec<(usize, usize, Local)> = self
            .frames
            .iter()
            .enumerate()
            .flat_map(|(f, fr)| {
                fr.structs
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.name == q)
                    .map(move |(i, l)| (f, i, l.clone()))
            })
            .collect();
        for (f, i, _) in hidden.iter().rev() {
            self.frames[*f].structs.remove(*i);
        }
        let body = self.loop_body(inner);
        for (f, i, l) in hidden {
            self.frames[f].structs.insert(i, l);
        }
        Stmt::ForEach {
            idx,
            var,
            arr: q,
            body,
            filter: None,
            held: Some((how, k)),
        }
    }
}
