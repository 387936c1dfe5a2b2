//! Repeated loads merged: within a block, a load of the element an earlier
//! load read (same array, same index values, no write in between) becomes
//! a copy of it, so that `x[i] * x[i]` reads, and a loop records, it once.

use crate::ir::*;

/// Within each block, a load of the element an earlier load of the
/// same block read (same array, same index values, no write to the
/// array in between) becomes a copy of it: `x[i] * x[i]` reads `x[i]`
/// once, and a loop records it once.
pub fn merge_repeated_loads(f: &mut Function) {
    fn block(b: &mut Block) {
        let mut seen: Vec<(ValueId, String, ValueId)> = Vec::new();
        for inst in &mut b.insts {
            match inst {
                Inst::Def {
                    dst,
                    op: op @ Op::Load { .. },
                    ..
                } => {
                    let Op::Load { array, index } = &*op else {
                        continue;
                    };
                    let key: Vec<String> = index
                        .iter()
                        .map(|o| match o {
                            Operand::Value(v) => format!("v{}", v.0),
                            Operand::Const(e) => quote::quote!(#e).to_string(),
                        })
                        .collect();
                    let key = key.join(",");
                    let array = *array;
                    match seen.iter().find(|(a, k, _)| *a == array && *k == key) {
                        Some((_, _, first)) => *op = Op::Copy(Operand::Value(*first)),
                        None => seen.push((array, key, *dst)),
                    }
                }
                Inst::Def { .. } => {}
                Inst::Store { .. } | Inst::Push { .. } => {
                    let written = inst.changed_arrays();
                    seen.retain(|(x, _, _)| !written.contains(x));
                }
                Inst::Verbatim { .. } => seen.clear(),
                Inst::Scope(_) | Inst::Branch(_) | Inst::Loop(_) => {
                    let mut written = Vec::new();
                    inst.walk(&mut |i| {
                        written.extend(i.changed_arrays());
                        if let Inst::Verbatim { .. } = i {
                            written.push(ValueId(usize::MAX));
                        }
                    });
                    if written.contains(&ValueId(usize::MAX)) {
                        seen.clear();
                    }
                    seen.retain(|(x, _, _)| !written.contains(x));
                    inst.blocks_mut().into_iter().for_each(block);
                }
            }
        }
    }
    block(&mut f.body);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loads_and_copies(src: &str) -> (usize, usize) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let mut f = crate::lower::lower_ok(&item, &crate::attr::Options::default()).unwrap();
        merge_repeated_loads(&mut f);
        let (mut loads, mut copies) = (0, 0);
        f.body.walk(&mut |inst| match inst {
            Inst::Def {
                op: Op::Load { .. },
                ..
            } => loads += 1,
            Inst::Def {
                op: Op::Copy(Operand::Value(_)),
                ..
            } => copies += 1,
            _ => {}
        });
        (loads, copies)
    }

    #[test]
    fn an_element_read_twice_is_read_once() {
        // x[i] * x[i]: one load and a copy; x[i + 1] is another element.
        let src = "fn f(x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() - 1 { s += x[i] * x[i] + x[i + 1]; }
            s
        }";
        assert_eq!(loads_and_copies(src), (2, 1));
    }

    #[test]
    fn a_write_in_between_keeps_both_reads() {
        let src = "fn f(x: f64) -> f64 {
            let mut v = vec![x; 3];
            let a = v[0];
            v[0] = a * a;
            let b = v[0];
            let c = v[1];
            let d = v[1];
            a + b + c * d
        }";
        // v[0] twice around the store: two loads; v[1] twice: one load, one
        // copy.
        assert_eq!(loads_and_copies(src), (3, 1));
    }
}
