//! The IR verifier: the invariants every pass may rely on, checked after
//! each pass of the pipeline when the macro is built with its `verify`
//! feature (as this workspace's tests build it) and in its unit tests.
//!
//! - every value is defined once, by one instruction, a parameter or a
//!   region (a loop's header, exit value and trip count, a branch's
//!   merges and arm index);
//! - every operand is defined before it is read, in a region that is still
//!   open: what a loop body defines is read after the loop only through
//!   the loop's carried values, what an arm defines only through the
//!   branch's merges (a variable kept as written is one Rust variable
//!   changed in place, so its last version is read wherever it was made);
//! - a loop's carried `next` is defined by its body or before the loop;
//! - a branch has one merge operand per arm, and an `if` two arms;
//! - loads, stores and pushes name modelled arrays;
//! - loop ids are unique.

use std::collections::HashSet;

use super::*;

/// The first broken invariant, described.
pub fn verify(f: &Function) -> Result<(), String> {
    let mut v = Verifier {
        f,
        defined: HashSet::new(),
        visible: vec![HashSet::new()],
        loop_ids: HashSet::new(),
    };
    for p in &f.params {
        v.define(p.value)?;
    }
    v.block(&f.body)?;
    match &f.output {
        Output::Tuple(elems) => {
            for e in elems {
                v.read(e, "the returned tuple")?;
            }
        }
        Output::Scalar | Output::Array(_) | Output::Struct(_) => {
            v.read(&f.ret, "the returned value")?
        }
    }
    Ok(())
}

struct Verifier<'f> {
    f: &'f Function,
    /// Every value defined so far, anywhere.
    defined: HashSet<ValueId>,
    /// The values readable here, one set per open region.
    visible: Vec<HashSet<ValueId>>,
    loop_ids: HashSet<usize>,
}

impl Verifier<'_> {
    fn name(&self, v: ValueId) -> String {
        match self.f.values.get(v.0).and_then(|x| x.name.as_deref()) {
            Some(n) => format!("v{} (`{n}`)", v.0),
            None => format!("v{}", v.0),
        }
    }

    fn define(&mut self, v: ValueId) -> Result<(), String> {
        if v.0 >= self.f.values.len() {
            return Err(format!(
                "v{} is defined but has no entry in the value table",
                v.0
            ));
        }
        if !self.defined.insert(v) {
            return Err(format!("{} is defined twice", self.name(v)));
        }
        self.visible.last_mut().expect("a region is open").insert(v);
        Ok(())
    }

    /// Whether `v` can be read here. A variable kept as written (an
    /// opaque value) is one Rust variable whatever its version, changed in
    /// place by the statements kept as written: after a loop or a branch
    /// that changed it, its last version is read, defined before, but in a
    /// region now closed.
    fn visible(&self, v: ValueId) -> bool {
        self.visible.iter().any(|s| s.contains(&v))
            || self.f.values[v.0].kind == ValueKind::Opaque && self.defined.contains(&v)
    }

    fn read_value(&self, v: ValueId, what: &str) -> Result<(), String> {
        if v.0 >= self.f.values.len() {
            return Err(format!("{what} reads v{}, which has no entry", v.0));
        }
        if !self.visible(v) {
            return Err(format!(
                "{what} reads {}, which is not defined before it in an open region",
                self.name(v)
            ));
        }
        Ok(())
    }

    fn read(&self, o: &Operand, what: &str) -> Result<(), String> {
        match o {
            Operand::Value(v) => self.read_value(*v, what),
            Operand::Const(_) => Ok(()),
        }
    }

    fn array(&self, v: ValueId, what: &str) -> Result<(), String> {
        self.read_value(v, what)?;
        match self.f.values[v.0].ty.array() {
            Some(_) => Ok(()),
            None => Err(format!(
                "{what} names {}, which is not an array",
                self.name(v)
            )),
        }
    }

    /// Runs `f` in a region of its own, whose definitions are forgotten
    /// after it.
    fn region(&mut self, f: impl FnOnce(&mut Self) -> Result<(), String>) -> Result<(), String> {
        self.visible.push(HashSet::new());
        let r = f(self);
        self.visible.pop();
        r
    }

    fn block(&mut self, b: &Block) -> Result<(), String> {
        for inst in &b.insts {
            self.inst(inst)?;
        }
        Ok(())
    }

    fn inst(&mut self, inst: &Inst) -> Result<(), String> {
        match inst {
            Inst::Def { dst, op, .. } => {
                let what = format!("the entry of {}", self.name(*dst));
                for v in op.operands() {
                    self.read_value(v, &what)?;
                }
                match op {
                    Op::Load { array, .. } => self.array(*array, &what)?,
                    Op::Kernel { args, .. } => {
                        for a in args {
                            if let KernelOperand::Array(v) = a {
                                self.array(*v, &what)?;
                            }
                        }
                    }
                    // Only a call through `_grad` has partials.
                    Op::Call {
                        callee, partials, ..
                    } if !partials.is_empty()
                        && !matches!(callee, crate::rules::Callee::Function) =>
                    {
                        return Err(format!(
                            "{what} calls a primitive ({callee:?}) with partials"
                        ));
                    }
                    _ => {}
                }
                self.define(*dst)?;
                for p in op.partials() {
                    self.define(p)?;
                }
            }
            Inst::Verbatim { defs, reads, .. } => {
                for v in reads.values() {
                    self.read_value(v, "a statement kept as written")?;
                }
                for d in defs {
                    self.define(*d)?;
                }
            }
            // A block's values stay visible after it (the reverse sweep
            // reads them; the forward sweep hoists their declarations).
            Inst::Scope(b) => self.block(b)?,
            Inst::Store {
                array,
                index,
                value,
            } => {
                self.array(*array, "a store")?;
                for i in index {
                    self.read(i, "a store's index")?;
                }
                self.read(value, "a store")?;
            }
            Inst::Push {
                array,
                position,
                value,
            } => {
                self.array(*array, "a push")?;
                self.read(value, "a push")?;
                self.define(*position)?;
            }
            Inst::Branch(br) => self.branch(br)?,
            Inst::Loop(l) => self.lp(l)?,
        }
        Ok(())
    }

    fn branch(&mut self, br: &Branch) -> Result<(), String> {
        match &br.selector {
            Selector::If(c) => {
                self.read(c, "an `if` condition")?;
                if br.arms.len() != 2 {
                    return Err(format!("an `if` has {} arms", br.arms.len()));
                }
            }
            Selector::Match {
                scrutinee,
                patterns,
                reads,
                ..
            } => {
                self.read(scrutinee, "a `match` scrutinee")?;
                for v in reads.values() {
                    self.read_value(v, "a `match` guard")?;
                }
                if patterns.len() != br.arms.len() {
                    return Err(format!(
                        "a `match` has {} patterns and {} arms",
                        patterns.len(),
                        br.arms.len()
                    ));
                }
            }
        }
        if br.diverging.len() != br.arms.len() {
            return Err("a branch says whether each arm diverges, not for every arm".into());
        }
        for (i, arm) in br.arms.iter().enumerate() {
            self.region(|v| {
                v.block(arm)?;
                for m in &br.merges {
                    let Some(o) = m.arms.get(i) else {
                        return Err(format!(
                            "the merge {} has no operand for arm {i}",
                            v.name(m.dst)
                        ));
                    };
                    if !br.diverging[i] {
                        v.read(o, &format!("the merge {}", v.name(m.dst)))?;
                    }
                }
                Ok(())
            })?;
        }
        for m in &br.merges {
            if m.arms.len() != br.arms.len() {
                return Err(format!(
                    "the merge {} has {} operands for {} arms",
                    self.name(m.dst),
                    m.arms.len(),
                    br.arms.len()
                ));
            }
        }
        for d in br.defines() {
            self.define(d)?;
        }
        Ok(())
    }

    fn lp(&mut self, l: &Loop) -> Result<(), String> {
        if !self.loop_ids.insert(l.id) {
            return Err(format!("two loops have the id {}", l.id));
        }
        for c in &l.carried {
            self.read(
                &c.init,
                &format!("the initial value of {}", self.name(c.header)),
            )?;
        }
        if let LoopKind::Range { range, .. } = &l.kind {
            for v in range.operands() {
                self.read_value(v, "a loop's range")?;
            }
        }
        if let Some(c) = &l.checkpoint {
            self.read(&c.count, "a loop's checkpoint count")?;
        }
        self.region(|v| {
            for c in &l.carried {
                v.define(c.header)?;
            }
            match &l.kind {
                LoopKind::Range { index, .. } => {
                    if let Some(i) = index {
                        v.define(*i)?;
                    }
                }
                LoopKind::While { cond_block, cond } => {
                    v.block(cond_block)?;
                    v.read(cond, "a `while` condition")?;
                }
            }
            v.block(&l.body)?;
            for c in &l.carried {
                v.read(&c.next, &format!("the next value of {}", v.name(c.header)))?;
            }
            if let Some(e) = &l.exit {
                v.read(e, "a loop's exit flag")?;
            }
            Ok(())
        })?;
        for d in l.defines() {
            self.define(d)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(src: &str) -> Function {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        crate::lower::lower_ok(&item, &crate::attr::Options::default()).unwrap()
    }

    #[test]
    fn lowered_functions_verify() {
        for src in [
            "fn f(x: f64) -> f64 { let mut s = x; s *= s; s.sin() }",
            "fn f(x: f64, n: usize) -> f64 { let mut s = 0.0; for i in 0..n { if i % 2 == 0 { s += x; } else { s -= x * x; } } s }",
            "fn f(x: &[f64]) -> f64 { let mut z = vec![0.0; x.len()]; for i in 0..x.len() { z[i] = x[i] * 2.0; } let mut t = 0.0; let mut k = 0; while k < z.len() { t += z[k]; k += 1; if t > 9.0 { break; } } t }",
            "fn f(x: f64, n: i32) -> f64 { match n { 0 => x, 1 | 2 => x * x, _ => 1.0 } }",
        ] {
            let f = lowered(src);
            assert_eq!(verify(&f), Ok(()), "{src}");
        }
    }

    #[test]
    fn a_value_read_after_the_loop_that_defined_it_is_caught() {
        let mut f = lowered(
            "fn f(x: f64, n: usize) -> f64 { let mut s = x; for _ in 0..n { let t = s * 2.0; s = t; } s }",
        );
        // Point the returned value at the body's `t` instead of the loop's
        // exit value.
        let mut inner = None;
        f.body.walk(&mut |i| {
            if let Inst::Def { dst, .. } = i {
                if f.values[dst.0].name.as_deref() == Some("t") {
                    inner = Some(*dst);
                }
            }
        });
        f.ret = Operand::Value(inner.unwrap());
        let err = verify(&f).unwrap_err();
        assert!(err.contains("`t`"), "{err}");
    }

    #[test]
    fn a_variable_kept_as_written_is_read_after_the_loop_that_changed_it() {
        let f = lowered(
            "fn f(x: f64, n: usize) -> f64 {
                let mut v = vec![0.0_f64; 5];
                let mut a: f64 = 1.0;
                for _ in 0..n { a *= 0.5; v[n] *= 1.0; }
                v.iter().sum::<f64>() + a * x
            }",
        );
        assert_eq!(verify(&f), Ok(()));
    }

    #[test]
    fn a_value_defined_twice_is_caught() {
        let mut f = lowered("fn f(x: f64) -> f64 { let a = x * 2.0; let b = a + 1.0; b }");
        if let Inst::Def { dst, .. } = &mut f.body.insts[1] {
            *dst = ValueId(1);
        }
        let err = verify(&f).unwrap_err();
        assert!(err.contains("defined twice"), "{err}");
    }
}
