//! A row of a nested array parameter copied into a variable that is then
//! replaced whole, the state of a walk along a polyline:
//!
//! ```text
//! fn polyline_len(pts: &[[f64; 2]]) -> f64 {
//!     let mut prev = pts[0];            // let mut prev: [f64; 2] = [pts[0][0], pts[0][1]];
//!     for p in &pts[1..] { ..; prev = *p; }
//! ```
//!
//! A row read by `let` without `mut` is a view of the parameter, which
//! the lowering reads in place; one that changes must be an array of its
//! own, whose length the lowering cannot see in `pts[0]`. The parameter's
//! type gives it: the copy is written out element by element, with its
//! type, so that it is a local array the macro models (and `prev = *p`
//! the whole-array store `desugar/whole_arrays.rs` knows). Rows of up to
//! 64 elements, of a parameter typed `[[T; N]; M]`, `&[[T; N]]`,
//! `&[[T; N]; M]`, `Vec<[T; N]>` or `&Vec<[T; N]>` with `N` a literal, at
//! an index without calls (read once per element). So is a copy of a
//! part of a struct, `let mut p: [f64; 2] = self.base;` (or `s.rows[i]`),
//! whose type the `let` states, or, untyped, that a function returning
//! `[T; N]` ends with (`let mut p = self.base; p[0] += dx; p`): the output
//! type is the variable's. Only in the body the macro lowers: the function
//! is kept as written.

use std::collections::HashMap;

use syn::visit_mut::VisitMut;

use crate::desugar::internal::plain_let;

/// The longest row written out element by element.
const MAX_ROW: usize = 64;

/// `item` with each `let mut row = param[i];` of a nested array
/// parameter as the array it copies, written out.
pub fn written_out(mut item: syn::ItemFn) -> syn::ItemFn {
    type_returned_copy(&mut item);
    FieldCopies.visit_block_mut(&mut item.block);
    let rows: HashMap<String, (syn::Type, usize)> = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| {
            let syn::FnArg::Typed(t) = arg else {
                return None;
            };
            let syn::Pat::Ident(p) = &*t.pat else {
                return None;
            };
            Some((p.ident.to_string(), row_of(&t.ty)?))
        })
        .collect();
    if rows.is_empty() {
        return item;
    }
    // A parameter bound again in the body may name something else there.
    let mut rows = rows;
    rows.retain(|name, _| {
        let ident = syn::Ident::new(name, proc_macro2::Span::call_site());
        !binds_anywhere(&item.block, &ident)
    });
    RowCopies { rows }.visit_block_mut(&mut item.block);
    item
}

/// `let mut p = self.base;` of a function returning `[T; N]` that ends
/// with `p`: the `let` given the output type, `let mut p: [T; N] = ..`,
/// which `FieldCopies` writes out. The last top-level `let` of the name,
/// a `let mut` of a struct's part or a list (`[self.base[0], x]`, whose
/// elements the type says are floats), only.
fn type_returned_copy(item: &mut syn::ItemFn) {
    let syn::ReturnType::Type(_, out) = &item.sig.output else {
        return;
    };
    let syn::Type::Array(out) = &**out else {
        return;
    };
    if array_len(out).is_none() {
        return;
    }
    let Some(syn::Stmt::Expr(syn::Expr::Path(tail), None)) = item.block.stmts.last() else {
        return;
    };
    let Some(name) = tail.path.get_ident().cloned() else {
        return;
    };
    let out: syn::Type = syn::Type::Array(out.clone());
    for st in item.block.stmts.iter_mut().rev().skip(1) {
        let syn::Stmt::Local(local) = st else {
            continue;
        };
        let syn::Pat::Ident(p) = &local.pat else {
            // Another pattern may bind the name: left as it is.
            return;
        };
        if p.ident != name {
            continue;
        }
        let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) else {
            return;
        };
        let list = matches!(&*init.expr, syn::Expr::Array(_) | syn::Expr::Repeat(_));
        if list || struct_part(&init.expr) && p.mutability.is_some() {
            let pat = local.pat.clone();
            local.pat = syn::Pat::Type(syn::PatType {
                attrs: Vec::new(),
                pat: Box::new(pat),
                colon_token: Default::default(),
                ty: Box::new(out),
            });
        }
        return;
    }
}

/// The length of `[T; N]` with `N` a literal, up to [`MAX_ROW`], of a row
/// of floats (not of rows).
fn array_len(a: &syn::TypeArray) -> Option<usize> {
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(n),
        ..
    }) = &a.len
    else {
        return None;
    };
    let n = n.base10_parse::<usize>().ok()?;
    (!matches!(&*a.elem, syn::Type::Array(_)) && n > 0 && n <= MAX_ROW).then_some(n)
}

/// A part of a struct read in place, `self.base`, `s.rows[i]`, `b.p.q`:
/// a field at its top, indices without calls.
fn struct_part(e: &syn::Expr) -> bool {
    fn place(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) => p.path.get_ident().is_some(),
            syn::Expr::Field(f) => place(&f.base),
            syn::Expr::Index(i) => {
                !matches!(&*i.index, syn::Expr::Range(_)) && pure_index(&i.index) && place(&i.expr)
            }
            syn::Expr::Paren(p) => place(&p.expr),
            _ => false,
        }
    }
    match e {
        syn::Expr::Paren(p) => struct_part(&p.expr),
        syn::Expr::Field(f) => place(&f.base),
        syn::Expr::Index(i) => matches!(&*i.expr, syn::Expr::Field(_)) && place(e),
        _ => false,
    }
}

/// `let mut p: [T; N] = self.base;`: the copy written out, `[self.base[0],
/// self.base[1]]`, a local array the macro models.
struct FieldCopies;

impl VisitMut for FieldCopies {
    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        let Some(l) = plain_let(s, true) else { return };
        let Some(syn::Type::Array(ty)) = l.ty else {
            return;
        };
        let Some(n) = array_len(ty) else { return };
        let part = l.init_bare();
        if !l.mutable() || !struct_part(part) {
            return;
        }
        let (name, ty, part) = (l.name(), ty.clone(), part.clone());
        let items = (0..n).map(|k| {
            let k = proc_macro2::Literal::usize_unsuffixed(k);
            quote::quote!(#part[#k])
        });
        *s = syn::parse_quote!(let mut #name: #ty = [#(#items),*];);
    }
}

/// The element type and length of a row of a parameter of type `ty`.
fn row_of(ty: &syn::Type) -> Option<(syn::Type, usize)> {
    let outer = match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        syn::Type::Reference(_) => return None,
        other => other,
    };
    let row = match outer {
        syn::Type::Array(a) => &*a.elem,
        syn::Type::Slice(s) => &*s.elem,
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                return None;
            };
            match a.args.first()? {
                syn::GenericArgument::Type(t) => t,
                _ => return None,
            }
        }
        _ => return None,
    };
    let syn::Type::Array(row) = row else {
        return None;
    };
    Some(((*row.elem).clone(), array_len(row)?))
}

/// Whether a `let`, a closure's or a loop's pattern in `block` binds
/// `name`.
fn binds_anywhere(block: &syn::Block, name: &syn::Ident) -> bool {
    struct Find<'n>(&'n syn::Ident, bool);
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == *self.0 {
                self.1 = true;
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = Find(name, false);
    syn::visit::Visit::visit_block(&mut f, block);
    f.1
}

/// Whether `e` may be evaluated once per element: no call, method, macro,
/// assignment or block in it.
fn pure_index(e: &syn::Expr) -> bool {
    struct Impure(bool);
    impl<'a> syn::visit::Visit<'a> for Impure {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Call(_)
                | syn::Expr::MethodCall(_)
                | syn::Expr::Macro(_)
                | syn::Expr::Assign(_)
                | syn::Expr::Block(_)
                | syn::Expr::Closure(_)
                | syn::Expr::Unsafe(_) => self.0 = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut i = Impure(false);
    syn::visit::Visit::visit_expr(&mut i, e);
    !i.0
}

struct RowCopies {
    /// The parameters whose rows are arrays: each row's element type and
    /// length.
    rows: HashMap<String, (syn::Type, usize)>,
}

impl VisitMut for RowCopies {
    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        syn::visit_mut::visit_stmt_mut(self, s);
        let Some(l) = plain_let(s, true) else { return };
        if !l.mutable() {
            return;
        }
        let syn::Expr::Index(ix) = l.init_bare() else {
            return;
        };
        let syn::Expr::Path(base) = &*ix.expr else {
            return;
        };
        let Some((elem, n)) = base
            .path
            .get_ident()
            .and_then(|i| self.rows.get(&i.to_string()))
        else {
            return;
        };
        if matches!(&*ix.index, syn::Expr::Range(_)) || !pure_index(&ix.index) {
            return;
        }
        // A type written other than the row's is the user's to keep.
        let n = *n;
        let len = proc_macro2::Literal::usize_unsuffixed(n);
        let row_ty: syn::Type = syn::parse_quote!([#elem; #len]);
        if l.ty.is_some_and(|t| {
            quote::ToTokens::to_token_stream(t).to_string()
                != quote::ToTokens::to_token_stream(&row_ty).to_string()
        }) {
            return;
        }
        let (name, index, base) = (l.name(), ix.index.clone(), base.clone());
        let items = (0..n).map(|k| {
            let k = proc_macro2::Literal::usize_unsuffixed(k);
            quote::quote!(#base[#index][#k])
        });
        *s = syn::parse_quote!(let mut #name: #row_ty = [#(#items),*];);
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn a_changed_row_is_written_out_and_a_read_one_is_left() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn walk(pts: &[[f64; 2]], grid: [[f64; 3]; 4], big: &[[f64; 100]], k: usize) -> f64 {
                let mut prev = pts[0];
                let row = pts[1];
                let mut g: [f64; 3] = grid[k - 1];
                let mut b = big[0];
                let mut c = pts[k.min(1)];
                prev[0] + row[0] + g[0] + b[0] + c[0]
            }
        };
        let out = super::written_out(f);
        let expected: syn::Block = syn::parse_quote!({
            let mut prev: [f64; 2] = [pts[0][0], pts[0][1]];
            let row = pts[1];
            let mut g: [f64; 3] = [grid[k - 1][0], grid[k - 1][1], grid[k - 1][2]];
            let mut b = big[0];
            let mut c = pts[k.min(1)];
            prev[0] + row[0] + g[0] + b[0] + c[0]
        });
        assert_eq!(
            out.block.to_token_stream().to_string(),
            expected.to_token_stream().to_string()
        );
    }

    #[test]
    fn a_struct_part_copied_typed_or_returned_is_written_out() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn tip(&self, k: usize, x: f64) -> [f64; 2] {
                let mut q: [f64; 3] = a.r[k];
                let r: [f64; 2] = self.base;
                let mut s = self.base;
                let mut p = self.base;
                p[0] += q[0] * x + r[0] + s[0];
                p
            }
        };
        let out = super::written_out(f);
        let expected: syn::Block = syn::parse_quote!({
            let mut q: [f64; 3] = [a.r[k][0], a.r[k][1], a.r[k][2]];
            let r: [f64; 2] = self.base;
            let mut s = self.base;
            let mut p: [f64; 2] = [self.base[0], self.base[1]];
            p[0] += q[0] * x + r[0] + s[0];
            p
        });
        assert_eq!(
            out.block.to_token_stream().to_string(),
            expected.to_token_stream().to_string()
        );
    }
}
