//! Writers' calls, `update(&mut s, y);`, `axpy(&mut v, a, &x);`, `let r =
//! accumulate(&mut s, y);`: the arguments lent by `&mut` (a float, an
//! element, an array, several floats, a tuple of them), and the call
//! lowered so that each lent variable takes the value the writer gives it.

use super::tuples::tuple_element;
use super::*;

impl Lowerer {
    /// In `update(&mut s, y);`, a call of a function (not a kernel or a
    /// closure), the one argument lent by `&mut` and the float it names.
    pub(super) fn writer_arg(&self, c: &syn::ExprCall) -> Option<(usize, syn::Ident)> {
        let (k, name) = self.lent_argument(c)?;
        self.is_modelled_float(name).then(|| (k, name.clone()))
    }

    /// In `step(&mut x, &mut v, dt);`, a call of a function (not a kernel
    /// or a closure), two or more arguments lent by `&mut`, each naming a
    /// float: their indices and names.
    pub(super) fn float_writer_args(&self, c: &syn::ExprCall) -> Option<Vec<(usize, syn::Ident)>> {
        self.lent_floats(c).filter(|lent| lent.len() >= 2)
    }

    /// In a call of a function (not a kernel or a closure), the arguments
    /// lent by `&mut`, where each names a float the macro models: their
    /// indices and names.
    fn lent_floats(&self, c: &syn::ExprCall) -> Option<Vec<(usize, syn::Ident)>> {
        let lent = self.lent_arguments(c)?;
        lent.iter()
            .all(|(_, name)| self.is_modelled_float(name))
            .then(|| lent.into_iter().map(|(k, n)| (k, n.clone())).collect())
    }

    /// In `decay(&mut v[i], r);`, a call of a function (not a kernel or a
    /// closure) lending one argument by `&mut`, an element of a float array
    /// the macro models at an index that reads variables, literals and
    /// arithmetic only: its index and the element's place.
    pub(super) fn element_writer_arg(&self, c: &syn::ExprCall) -> Option<(usize, syn::Expr)> {
        self.grad_function_path(c)?;
        let mut lent = c.args.iter().enumerate().filter_map(|(k, a)| match a {
            syn::Expr::Reference(r) if r.mutability.is_some() => Some((k, &*r.expr)),
            _ => None,
        });
        let (k, place) = lent.next()?;
        if lent.next().is_some() {
            return None;
        }
        let syn::Expr::Index(ix) = place else {
            return None;
        };
        (self.is_array_name(&ix.expr) && pure_index(&ix.index)).then(|| (k, place.clone()))
    }

    /// Whether `name` holds a float the macro models (not one kept as
    /// written).
    pub(super) fn is_modelled_float(&self, name: &syn::Ident) -> bool {
        matches!(self.lookup(&name.to_string()), Some(Binding::Value(v))
            if self.values[v.0].kind != ValueKind::Opaque && self.values[v.0].ty.is_float())
    }

    /// Whether `std::mem::replace(&mut name, ..)` can be read as `let old =
    /// name; name = ..;`: a variable the macro models that is no array (a
    /// float, or a value of a type the source does not state, `let mut s =
    /// C;`).
    pub(super) fn is_replaceable(&self, name: &syn::Ident) -> bool {
        matches!(self.lookup(&name.to_string()), Some(Binding::Value(v))
            if self.values[v.0].kind != ValueKind::Opaque && self.values[v.0].ty.array().is_none())
    }

    /// In a call of a function (not a kernel or a closure), the one
    /// argument lent by `&mut`, and the variable it names.
    pub(super) fn lent_argument<'c>(
        &self,
        c: &'c syn::ExprCall,
    ) -> Option<(usize, &'c syn::Ident)> {
        match self.lent_arguments(c)?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// In a call of a function (not a kernel or a closure), the arguments
    /// lent by `&mut` that name a variable, and the variables.
    pub(super) fn lent_arguments<'c>(
        &self,
        c: &'c syn::ExprCall,
    ) -> Option<Vec<(usize, &'c syn::Ident)>> {
        self.grad_function_path(c)?;
        Some(
            c.args
                .iter()
                .enumerate()
                .filter_map(|(k, a)| Some((k, super::opaque::lent_mut(a)?)))
                .collect(),
        )
    }

    /// `scale(&mut u, k);` lending a local float array (that flat arrays
    /// model, `whole_array`) to a possible `#[grad]` function: the index of
    /// the argument and the array's name.
    pub(super) fn array_writer_arg(&self, c: &syn::ExprCall) -> Option<(usize, syn::Ident)> {
        let (k, name) = self.lent_argument(c)?;
        let array: syn::Expr = syn::parse_quote!(#name);
        self.whole_array(&array).map(|a| (k, a))
    }

    /// A writer call's path and arguments, lowered, those lent by `&mut`
    /// (argument `k`) given as the expression paired with them instead
    /// (`s`, `&u`).
    pub(super) fn lent_call(
        &mut self,
        c: &syn::ExprCall,
        lent: Vec<(usize, syn::Expr)>,
        out: &mut Vec<Inst>,
    ) -> Option<(syn::Path, Vec<Lowered>, Vec<bool>)> {
        let path = self.grad_function_path(c).cloned()?;
        let mut given = c.args.clone();
        for (k, e) in lent {
            given[k] = e;
        }
        let (args, borrowed) = self.call_args(&given, out)?;
        Some((path, args, borrowed))
    }

    /// `let r = accumulate(&mut s, y);`, a function that returns a value
    /// and writes the floats lent to it: the call's value is the tuple of
    /// its value and their new values, computed on copies by the function
    /// itself and differentiated through its lent variant's `_vjp`
    /// (`desugar/mut_params.rs lent_variant`); `r` takes the first, each
    /// variable its own. A function without a lent variant has no
    /// `__autodiff_lent_<name>_vjp`: a compile error at the call.
    pub(super) fn lent_value_call(
        &mut self,
        ident: &syn::Ident,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let syn::Expr::Call(c) = init else {
            return false;
        };
        let Some(lent) = self.lent_floats(c).filter(|lent| !lent.is_empty()) else {
            return false;
        };
        let Some(tuple) = self.lent_tuple_call(c, &lent, true, init.span(), out) else {
            return true;
        };
        let value = self.new_value(
            Some(ident.to_string()),
            Ty::Unknown,
            ValueKind::Def,
            ident.span(),
        );
        out.push(Inst::Def {
            dst: value,
            op: tuple_element(tuple, 0, ident.span()),
            written: None,
            span: init.span(),
        });
        self.bind(ident.to_string(), Binding::Value(value));
        true
    }

    /// `step(&mut x, &mut v, dt);` of a writer of several floats
    /// (`Function::lent`): the call's value is the tuple of their new
    /// values, computed on copies, and differentiated through the writer's
    /// `_vjp`; each variable takes its element. A function that is not
    /// such a writer has no `__autodiff_mut_slots_<name>`: a compile error
    /// at the call.
    pub(super) fn float_writer_call(
        &mut self,
        c: &syn::ExprCall,
        lent: &[(usize, syn::Ident)],
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        self.lent_tuple_call(c, lent, false, whole.span(), out);
    }

    /// A call lending the floats `lent` by `&mut`, as the `Op::VjpCall`
    /// whose tuple holds their new values, after the function's own value
    /// where `returns` (through its lent variant, `Op::VjpCall::original`);
    /// each lent variable takes its element. The tuple, or `None` where
    /// the call's arguments could not be lowered.
    fn lent_tuple_call(
        &mut self,
        c: &syn::ExprCall,
        lent: &[(usize, syn::Ident)],
        returns: bool,
        span: proc_macro2::Span,
        out: &mut Vec<Inst>,
    ) -> Option<ValueId> {
        let given = lent
            .iter()
            .map(|(k, name)| (*k, syn::parse_quote!(#name)))
            .collect();
        let (path, args, borrowed) = self.lent_call(c, given, out)?;
        let types: Vec<Ty> = lent.iter().map(|(k, _)| args[*k].ty.clone()).collect();
        let (path, original) = match returns {
            true => {
                let mut variant = path.clone();
                if let Some(last) = variant.segments.last_mut() {
                    last.ident = crate::desugar::mut_params::lent_name(&last.ident);
                }
                (variant, Some(path))
            }
            false => (path, None),
        };
        let op = Op::VjpCall {
            path,
            args: args.into_iter().map(|a| a.operand).collect(),
            borrowed,
            mutated: lent.iter().map(|(k, _)| *k).collect(),
            original,
            method: false,
            exit: None,
            whole: None,
        };
        let tuple = self.new_value(None, Ty::Unknown, ValueKind::Def, c.span());
        out.push(Inst::Def {
            dst: tuple,
            op,
            written: None,
            span,
        });
        self.projected.insert(tuple);
        let first = usize::from(returns);
        for (j, ((_, name), ty)) in lent.iter().zip(types).enumerate() {
            let v = self.new_value(Some(name.to_string()), ty, ValueKind::Def, name.span());
            out.push(Inst::Def {
                dst: v,
                op: tuple_element(tuple, first + j, name.span()),
                written: None,
                span,
            });
            self.assign(&name.to_string(), v);
        }
        Some(tuple)
    }

    /// `scale(&mut u, k);` of an array writer (`Function::lent`):
    /// the call's value is `u`'s new contents, computed on a copy, and
    /// differentiated through the writer's `_vjp`; `u` takes them element
    /// by element (`desugar/whole_arrays.rs`). A function that is not such
    /// a writer has no `_vjp` to call: a compile error at the call.
    pub(super) fn array_writer_call(
        &mut self,
        c: &syn::ExprCall,
        k: usize,
        name: &syn::Ident,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let Some((path, args, mut borrowed)) =
            self.lent_call(c, vec![(k, syn::parse_quote!(&#name))], out)
        else {
            return;
        };
        if let Some(b) = borrowed.get_mut(k) {
            *b = true;
        }
        let op = Op::VjpCall {
            path,
            args: args.into_iter().map(|a| a.operand).collect(),
            borrowed,
            mutated: vec![k],
            original: None,
            method: false,
            exit: None,
            whole: None,
        };
        let (_, written) = self.internal.fresh_loop();
        let written = syn::Ident::new(&format!("{written}_written"), name.span());
        let new = self.def(op, Ty::Unknown, whole, out);
        if let Operand::Value(v) = new.operand {
            self.values[v.0].name = Some(written.to_string());
            self.bind(written.to_string(), Binding::Value(v));
            // Read by projection, element by element.
            self.call_results.insert(v);
        }
        let mut stmts = crate::desugar::whole_arrays::assign(
            name,
            &syn::parse_quote!(#written),
            &|e| self.whole_array(e),
            &self.internal,
        );
        // A writer that pushes to its array: said in the writer's words,
        // before the assignment's own check.
        let writer = crate::diag::show(&c.func.to_token_stream());
        let array = name.to_string();
        stmts.insert(
            0,
            syn::parse_quote_spanned!(c.span()=> ::autodiff::runtime::array::writer_keeps_length(#name.len(), #written.len(), #array, #writer);),
        );
        for s in &stmts {
            self.stmt(s, out);
        }
    }

    /// `update(&mut s, y);`: the writer's new value of `s`, through its
    /// `__autodiff_mut_slots_<name>` (only a function that returns nothing
    /// and writes one float has them: any other is a compile error at the
    /// call, never its value taken for `s`'s).
    pub(super) fn writer_call(
        &mut self,
        c: &syn::ExprCall,
        k: usize,
        name: &syn::Ident,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let Some((path, args, borrowed)) =
            self.lent_call(c, vec![(k, syn::parse_quote!(#name))], out)
        else {
            return;
        };
        let ty = args[k].ty.clone();
        // Each slot at its argument as lowered: the lent one at its name.
        let partials = args
            .iter()
            .zip(&c.args)
            .enumerate()
            .map(|(i, (a, w))| {
                let at = if i == k { name.span() } else { w.span() };
                Some(self.slot(&a.ty, at))
            })
            .collect();
        let op = Op::Call {
            path,
            callee: crate::rules::Callee::Function,
            args: args.into_iter().map(|a| a.operand).collect(),
            borrowed,
            partials,
            mutated: Some(k),
            exit: None,
        };
        let new = self.def(op, ty, whole, out);
        if let Operand::Value(v) = new.operand {
            self.values[v.0].name = Some(name.to_string());
            self.values[v.0].span = name.span();
            self.assign(&name.to_string(), v);
        }
    }
}

/// An index that reads variables, literals and arithmetic only (`i`, `j +
/// 1`, `2 * k`): evaluated twice, it gives the same place.
pub(super) fn pure_index(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => pure_index(&p.expr),
        syn::Expr::Binary(b) => {
            use syn::BinOp as B;
            matches!(
                b.op,
                B::Add(_) | B::Sub(_) | B::Mul(_) | B::Div(_) | B::Rem(_)
            ) && pure_index(&b.left)
                && pure_index(&b.right)
        }
        syn::Expr::Cast(c) => pure_index(&c.expr),
        _ => false,
    }
}
