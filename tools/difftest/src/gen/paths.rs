//! Features `method_path` and `assoc_fn`: `#[grad]` functions of a type
//! called by their path, as users write them beside the receiver form.
//!
//! - `method_path`: half the calls of a method are written by its path,
//!   the receiver an ordinary first argument: `P0::m0(p0, x)` of a
//!   parameter `p0: &P0`, `P0::m0(&q, x)` of a local struct (`q` a `P0`),
//!   `Self::m0(self, x)` in another method, `P1::energy(&p)` of what
//!   `make` returned (`made_struct`).
//! - `assoc_fn`: the helper is written as an associated function without
//!   a receiver, in the `impl` of `P0` beside the methods where the
//!   program has the type, else in that of a unit struct `pub struct K0;`,
//!   and every call of it is by its path, `P0::helper(a, b)`.
//!
//! The dual-number twin calls them as it calls the others (on their
//! receiver, or a free `helper_dual`): its form is not what is checked. The
//! generic twin of `hessian` calls a method of a constant receiver by its
//! path too (`P0::m0_gen(p0, x)`), and the helper as a free `helper_gen`.

use super::*;

impl G<'_> {
    /// Whether the method call being generated is written by its path
    /// (`method_path`): half of them, drawn from the stream of the
    /// features added with it.
    pub(super) fn method_path(&mut self) -> bool {
        self.has("method_path") && self.more.chance(0.5)
    }
}

/// Every call of the helper of `p`, if `p` writes it in an `impl`
/// ([`Program::helper_owner`]), by its path: `helper(a, b)` becomes
/// `P0::helper(a, b)`.
pub(super) fn call_owned_helper(p: &mut Program) {
    let (Some(owner), Some(h)) = (p.helper_owner.clone(), p.helper.as_ref()) else {
        return;
    };
    let name = h.name.clone();
    let mut by_path = |e: &mut Expr| {
        if let Expr::Call(f, args) = e {
            if *f == name {
                *e = Expr::Assoc(owner.clone(), name.clone(), std::mem::take(args));
            }
        }
    };
    let mut noop = |_: &mut IExpr| {};
    for f in p.functions_mut() {
        map_block(&mut f.body, &mut by_path, &mut noop);
        for e in &mut f.ret_items {
            map_expr(e, &mut by_path, &mut noop);
        }
        if let Some(l) = &mut f.ret_struct {
            map_struct_lit(l, &mut by_path, &mut noop);
        }
    }
}
