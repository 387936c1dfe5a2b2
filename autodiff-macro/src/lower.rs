//! Lowering: `syn::ItemFn` to the IR of [`crate::ir`].
//!
//! Every float, integer and boolean local becomes a chain of SSA values;
//! locals of other types (vectors, strings, user structs) and statements the
//! macro does not model are kept verbatim. Every construct that cannot be
//! lowered is reported as a spanned error, and lowering goes on so that all
//! errors of a function are reported together.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::attr::{combine, Options};
use crate::ir::*;
use crate::rules;

/// The body with a vector output's last expression bound to names: a tuple
/// `(a, b)` to `__out0`, `__out1` (the function then returns them), an
/// array expression to `__out`.
fn vector_tail(block: &syn::Block, kind: &OutputKind) -> syn::Block {
    let mut block = block.clone();
    let Some(syn::Stmt::Expr(last, None)) = block.stmts.last().cloned() else {
        return block;
    };
    match (kind, &last) {
        (OutputKind::Tuple(n), syn::Expr::Tuple(t)) if t.elems.len() == *n => {
            block.stmts.pop();
            let names: Vec<syn::Ident> = (0..*n)
                .map(|k| syn::Ident::new(&format!("__out{k}"), Span::call_site()))
                .collect();
            for (name, e) in names.iter().zip(&t.elems) {
                block.stmts.push(syn::parse_quote!(let #name = #e;));
            }
            // The elements are the outputs; the tail only ends the body.
            let first = &names[0];
            block
                .stmts
                .push(syn::Stmt::Expr(syn::parse_quote!(#first), None));
        }
        (OutputKind::Array(_), e) if !matches!(e, syn::Expr::Path(_)) => {
            block.stmts.pop();
            block.stmts.push(syn::parse_quote!(let __out = #e;));
            block
                .stmts
                .push(syn::Stmt::Expr(syn::parse_quote!(__out), None));
        }
        _ => {}
    }
    block
}

/// The float type parameter of a generic function, if any: the type
/// parameter bounded by `Float` (`autodiff::Float`, or `Float` imported),
/// in its list or in the `where` clause.
pub fn generic_param(sig: &syn::Signature) -> Option<String> {
    let is_float_bound = |b: &syn::TypeParamBound| matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Float"));
    let bounded_in_where = |t: &syn::TypeParam| {
        sig.generics.where_clause.as_ref().is_some_and(|w| {
            w.predicates.iter().any(|p| match p {
                syn::WherePredicate::Type(pt) => {
                    matches!(&pt.bounded_ty, syn::Type::Path(tp) if tp.path.is_ident(&t.ident))
                        && pt.bounds.iter().any(is_float_bound)
                }
                _ => false,
            })
        })
    };
    sig.generics
        .type_params()
        .find(|t| t.bounds.iter().any(is_float_bound) || bounded_in_where(t))
        .map(|t| t.ident.to_string())
}

/// Lowers `item` under `options`: the function, as far as it could be
/// lowered, and every error found. The function is missing only when its
/// returned value could not be lowered; it is partial when there are errors,
/// so that later stages can still report theirs.
pub fn lower(item: &syn::ItemFn, options: &Options) -> (Option<Function>, Option<syn::Error>) {
    let mut cx = Lowerer {
        values: Vec::new(),
        scopes: Vec::new(),
        errors: None,
        loops: 0,
        default_float: FloatTy::F64,
        array_scopes: vec![1],
        changed_in_place: changed_in_place(&item.block),
        break_flags: 0,
    };
    let sig = &item.sig;
    check_signature(&mut cx, sig);
    let ret = return_type(&mut cx, sig);
    let (ret_ty, kind) = match ret {
        Some((t, k)) => (Some(t), k),
        None => (None, OutputKind::Scalar),
    };
    cx.default_float = ret_ty.unwrap_or(FloatTy::F64);
    let params = cx.params(sig, options);
    let mut body = Vec::new();
    // A vector output's last expression is bound to names first, so that
    // its elements are values of the Wengert list.
    let block = vector_tail(&item.block, &kind);
    let ret = cx.lower_body(&block, &mut body, ret_ty.is_some());
    let output = match &kind {
        OutputKind::Scalar => Some(Output::Scalar),
        OutputKind::Tuple(n) => (0..*n)
            .map(|k| match cx.lookup(&format!("__out{k}")) {
                Some(Binding::Value(v)) => Some(Operand::Value(*v)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(Output::Tuple),
        OutputKind::Array(a) => match &ret {
            Some(Operand::Value(v)) if cx.values[v.0].ty.array().is_some() => {
                Some(Output::Array(a.clone()))
            }
            _ => {
                error(&mut cx, &item.block, "#[grad] needs a function returning an array to end with a float array: a local `vec![..]`, `[..; M]` or list, or its name");
                None
            }
        },
    };
    if (ret.is_none() || output.is_none()) && cx.errors.is_none() {
        error(&mut cx, &item.block, "#[grad] needs a function returning a tuple to end with a tuple of floats, as in `(a, b)`");
    }
    let function = match (ret, output) {
        (Some(ret), Some(output)) => Some(Function {
            values: cx.values,
            params,
            body: Block { insts: body },
            ret,
            // A missing return type is an error already recorded.
            ret_ty: ret_ty.unwrap_or(FloatTy::F64),
            output,
        }),
        _ => None,
    };
    (function, cx.errors)
}

/// The signature alone, for a function whose derivative is a custom
/// pullback (its body is not differentiated): the function with an empty
/// body, or the errors.
pub fn signature(item: &syn::ItemFn, options: &Options) -> Result<Function, syn::Error> {
    let mut cx = Lowerer {
        values: Vec::new(),
        scopes: Vec::new(),
        errors: None,
        loops: 0,
        default_float: FloatTy::F64,
        array_scopes: vec![1],
        changed_in_place: changed_in_place(&item.block),
        break_flags: 0,
    };
    let sig = &item.sig;
    check_signature(&mut cx, sig);
    let ret_ty = match return_type(&mut cx, sig) {
        Some((t, OutputKind::Scalar)) => Some(t),
        Some(_) => {
            error(
                &mut cx,
                &sig.output,
                "#[grad(pullback = ..)] supports functions that return one float: drop `pullback` here, or give each output a function of its own",
            );
            None
        }
        None => None,
    };
    let params = cx.params(sig, options);
    match (cx.errors, ret_ty) {
        (Some(e), _) => Err(e),
        (None, Some(ret_ty)) => Ok(Function {
            values: cx.values,
            params,
            body: Block::default(),
            ret: Operand::Const(Box::new(syn::parse_quote!(0.0))),
            ret_ty,
            output: Output::Scalar,
        }),
        (None, None) => Err(syn::Error::new_spanned(
            sig,
            "#[grad] needs a function that returns one float",
        )),
    }
}

/// [`lower`] for tests: the function, or the errors.
#[cfg(test)]
pub fn lower_ok(item: &syn::ItemFn, options: &Options) -> Result<Function, syn::Error> {
    match lower(item, options) {
        (Some(f), None) => Ok(f),
        (_, Some(e)) => Err(e),
        (None, None) => unreachable!("no function and no error"),
    }
}

/// What a name in scope stands for.
#[derive(Clone)]
enum Binding {
    /// `let y;` not assigned yet, with its annotated type.
    Uninit(Ty),
    /// The value the variable holds now.
    Value(ValueId),
}

struct Lowerer {
    values: Vec<Value>,
    scopes: Vec<HashMap<String, Binding>>,
    errors: Option<syn::Error>,
    /// The next [`Loop::id`].
    loops: usize,
    /// The float type of literals whose width nothing else fixes: the
    /// return type.
    default_float: FloatTy,
    /// The scope depths where arrays may be declared: the function body's,
    /// and the body of each loop region being lowered (an array there
    /// lives one iteration, with an adjoint of its own in each).
    array_scopes: Vec<usize>,
    /// The locals some statement may change in place (a method call on
    /// them, `&mut name`, a macro given them): a `let` of one of these is
    /// kept as written rather than modelled, whatever its initialiser.
    changed_in_place: std::collections::HashSet<String>,
    /// How many loops have a break flag so far: each gets a name of its
    /// own, so that an inner loop's `break` never sets an outer loop's.
    break_flags: usize,
}

/// What a sequence of statements is lowered for.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Its value, if any, is discarded.
    Unit,
    /// It ends with the value it stands for.
    Value,
    /// It ends with the function's returned value: `return v` at its end
    /// gives the value, and a guard clause `if c { ...; return v; }` takes
    /// the statements after it as its `else`.
    Tail,
}

/// Where an arm of a branch comes from.
enum ArmSrc<'a> {
    Block(&'a syn::Block),
    Expr(&'a syn::Expr),
    /// `if` without `else`.
    Empty,
}

/// A lowered expression: where its value is and what type it has.
struct Lowered {
    operand: Operand,
    ty: Ty,
}

fn error(cx: &mut Lowerer, tokens: impl ToTokens, msg: impl std::fmt::Display) {
    combine(&mut cx.errors, syn::Error::new_spanned(tokens, msg));
}

/// `async`, `const`, `unsafe`, `extern`, variadics, generics and receivers.
fn check_signature(cx: &mut Lowerer, sig: &syn::Signature) {
    if let Some(t) = &sig.constness {
        error(cx, t, "#[grad] does not support `const fn`: remove `const` (the generated gradient is an ordinary function)");
    }
    if let Some(t) = &sig.asyncness {
        error(cx, t, "#[grad] does not support `async fn`: differentiate a synchronous function and call it from async code");
    }
    if let Some(t) = &sig.unsafety {
        error(
            cx,
            t,
            "#[grad] does not support `unsafe fn`: differentiate a safe function",
        );
    }
    if let Some(abi) = &sig.abi {
        error(cx, abi, "#[grad] does not support `extern` functions: differentiate a plain Rust function and wrap it");
    }
    if let Some(v) = &sig.variadic {
        error(
            cx,
            v,
            "#[grad] does not support variadic functions: take the values as separate parameters",
        );
    }
    // One type parameter, the float type (`T: autodiff::Float`); lifetimes
    // are fine.
    let types: Vec<&syn::TypeParam> = sig.generics.type_params().collect();
    if types.len() > 1 || sig.generics.const_params().next().is_some() {
        error(cx, &sig.generics, "#[grad] supports one type parameter, the float type (as in `fn f<T: autodiff::Float>(x: T) -> T`): make the others concrete");
    }
}

fn float_ty(ty: &syn::Type) -> Option<FloatTy> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if !last.arguments.is_none() {
                return None;
            }
            let prefix_ok =
                p.path.segments.len() == 1
                    || p.path.segments.iter().rev().skip(1).all(|s| {
                        matches!(s.ident.to_string().as_str(), "core" | "std" | "primitive")
                    });
            match (last.ident.to_string().as_str(), generic_float()) {
                ("f64", _) if prefix_ok => Some(FloatTy::F64),
                ("f32", _) if prefix_ok => Some(FloatTy::F32),
                (name, Some(g)) if p.path.segments.len() == 1 && name == g.name() => Some(g),
                _ => None,
            }
        }
        syn::Type::Paren(p) => float_ty(&p.elem),
        syn::Type::Group(g) => float_ty(&g.elem),
        _ => None,
    }
}

const INT_TYPES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// The IR type of a written type.
fn ty_of(ty: &syn::Type) -> Ty {
    if let Some(f) = float_ty(ty) {
        return Ty::Float(f);
    }
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            match p.path.get_ident().map(|i| i.to_string()) {
                Some(name) if INT_TYPES.contains(&name.as_str()) => Ty::Int,
                Some(name) if name == "bool" => Ty::Bool,
                _ => Ty::Unknown,
            }
        }
        syn::Type::Paren(p) => ty_of(&p.elem),
        syn::Type::Group(g) => ty_of(&g.elem),
        _ => Ty::Unknown,
    }
}

/// What a function's output is, from its return type.
#[derive(Clone)]
enum OutputKind {
    Scalar,
    Tuple(usize),
    Array(ArrayTy),
}

fn return_type(cx: &mut Lowerer, sig: &syn::Signature) -> Option<(FloatTy, OutputKind)> {
    let what = "#[grad] needs a function that returns floats: one `f64` or `f32`, a tuple of them, `[f64; M]` or `Vec<f64>`";
    match &sig.output {
        syn::ReturnType::Default => {
            error(
                cx,
                sig,
                format!("{what}: add a return type to `{}`", sig.ident),
            );
            None
        }
        syn::ReturnType::Type(_, ty) => {
            if let Some(f) = float_ty(ty) {
                return Some((f, OutputKind::Scalar));
            }
            if let syn::Type::Tuple(t) = &**ty {
                let elems: Option<Vec<FloatTy>> = t.elems.iter().map(float_ty).collect();
                if let Some(elems) = elems.filter(|e| e.len() > 1 && e.iter().all(|x| *x == e[0])) {
                    return Some((elems[0], OutputKind::Tuple(elems.len())));
                }
            }
            if let (Some(a), false) = (array_ty(ty), matches!(**ty, syn::Type::Reference(_))) {
                if a.shape != Shape::Nested {
                    return Some((a.elem, OutputKind::Array(a)));
                }
            }
            error(cx, ty, format!("{what}, all of one float type"));
            None
        }
    }
}

/// Why a parameter of this type is refused, if it is: every type that is
/// not a float is accepted as an inactive constant, except those that would
/// hide a float the user expects a gradient for, or that cannot be read as a
/// constant.
fn refused_param(ty: &syn::Type) -> Option<String> {
    use syn::Type as T;
    let shown = crate::emit::show(&ty.to_token_stream());
    if let T::Reference(r) = ty {
        if r.mutability.is_some() && array_ty(&r.elem).is_some() {
            return Some(format!(
                "#[grad] does not support `&mut` array parameters (`{shown}`): take `&[f64]` and return what the function computes"
            ));
        }
    }
    let elem = match ty {
        T::Reference(r) => &*r.elem,
        other => other,
    };
    match elem {
        _ if matches!(ty, T::Reference(_)) && float_ty(elem).is_some() => Some(format!(
            "#[grad] does not support float references (`{shown}`): take the float by value"
        )),
        T::Ptr(_) => Some(format!(
            "#[grad] does not support raw pointer parameters (`{shown}`): pass the value it points to"
        )),
        T::TraitObject(_) | T::ImplTrait(_) => Some(format!(
            "#[grad] does not support trait object or `impl Trait` parameters (`{shown}`): pass a concrete type"
        )),
        _ => None,
    }
}

/// Whether a type holds floats through slices, arrays, `Vec`s, tuples and
/// references (`&[[f64; 3]]`, `Vec<(f64, f64)>`): a parameter of such a
/// type that #[grad] does not model would otherwise be a silent constant.
fn holds_floats(ty: &syn::Type) -> bool {
    use syn::Type as T;
    match ty {
        T::Reference(r) => holds_floats(&r.elem),
        T::Slice(s) => holds_floats(&s.elem),
        T::Array(a) => holds_floats(&a.elem),
        T::Tuple(t) => t.elems.iter().any(holds_floats),
        T::Paren(p) => holds_floats(&p.elem),
        T::Group(g) => holds_floats(&g.elem),
        T::Path(p) if p.qself.is_none() => {
            if float_ty(ty).is_some() {
                return true;
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => args
                    .args
                    .iter()
                    .any(|a| matches!(a, syn::GenericArgument::Type(t) if holds_floats(t))),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The float arrays a parameter or local may be: `&[T]`, `&Vec<T>`,
/// `Vec<T>`, `[T; N]`, `&[T; N]`, `&[Vec<T>]`, `&Vec<Vec<T>>`.
fn array_ty(ty: &syn::Type) -> Option<ArrayTy> {
    use syn::Type as T;
    fn vec_elem(ty: &syn::Type) -> Option<&syn::Type> {
        let T::Path(p) = ty else { return None };
        let last = p.path.segments.last()?;
        if last.ident != "Vec" {
            return None;
        }
        match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            },
            _ => None,
        }
    }
    let inner = match ty {
        T::Reference(r) => &*r.elem,
        other => other,
    };
    // `[T]` and `Vec<T>` hold floats or rows of floats.
    let of_elements = |e: &syn::Type| match (float_ty(e), vec_elem(e).and_then(float_ty)) {
        (Some(elem), _) => Some(ArrayTy {
            elem,
            shape: Shape::Vec,
        }),
        (None, Some(elem)) => Some(ArrayTy {
            elem,
            shape: Shape::Nested,
        }),
        _ => None,
    };
    match inner {
        T::Slice(s) => of_elements(&s.elem),
        T::Array(a) => float_ty(&a.elem).map(|elem| ArrayTy {
            elem,
            shape: Shape::Fixed(a.len.to_token_stream().to_string()),
        }),
        other => of_elements(vec_elem(other)?),
    }
}

impl Lowerer {
    fn new_value(&mut self, name: Option<String>, ty: Ty, kind: ValueKind, span: Span) -> ValueId {
        self.values.push(Value {
            name,
            ty,
            kind,
            span,
        });
        ValueId(self.values.len() - 1)
    }

    fn bind(&mut self, name: String, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name, binding);
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Rebinds an existing variable in the scope that declared it.
    fn assign(&mut self, name: &str, v: ValueId) {
        if let Some(scope) = self.scopes.iter_mut().rev().find(|s| s.contains_key(name)) {
            scope.insert(name.to_string(), Binding::Value(v));
        }
    }

    fn params(&mut self, sig: &syn::Signature, options: &Options) -> Vec<Param> {
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        // Parameters that hold floats in a shape #[grad] does not model
        // yet: an error where they would be active, never a silent
        // constant.
        let mut unmodelled: Vec<(syn::Ident, syn::Type)> = Vec::new();
        for (index, input) in sig.inputs.iter().enumerate() {
            let typed = match input {
                syn::FnArg::Receiver(r) => {
                    // `self` is a constant: its fields are read as written.
                    let ident = syn::Ident::new("self", r.self_token.span);
                    let value = self.new_value(
                        Some("self".to_string()),
                        Ty::Unknown,
                        ValueKind::Opaque,
                        r.self_token.span,
                    );
                    self.bind("self".to_string(), Binding::Value(value));
                    params.push(Param {
                        ident,
                        ty: (*r.ty).clone(),
                        value,
                        active: false,
                    });
                    continue;
                }
                syn::FnArg::Typed(t) => t,
            };
            let ident = match &*typed.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                other => {
                    error(self, other, "#[grad] needs each parameter to be a plain name, as in `x: f64`: destructure inside the body instead");
                    continue;
                }
            };
            let ty = match array_ty(&typed.ty) {
                Some(a) => Ty::Array(a),
                None => ty_of(&typed.ty),
            };
            if let Some(msg) = refused_param(&typed.ty) {
                error(self, &typed.ty, msg);
            }
            // Parameters of other types are constants the body may read,
            // change or pass on as written, like its own opaque variables.
            let kind = match ty {
                Ty::Unknown => ValueKind::Opaque,
                _ => ValueKind::Param(index),
            };
            if ty == Ty::Unknown && holds_floats(&typed.ty) {
                unmodelled.push((ident.clone(), (*typed.ty).clone()));
            }
            let value = self.new_value(Some(ident.to_string()), ty.clone(), kind, ident.span());
            self.bind(ident.to_string(), Binding::Value(value));
            params.push(Param {
                ident,
                ty: (*typed.ty).clone(),
                value,
                active: ty.is_float() || ty.array().is_some(),
            });
        }
        for (ident, ty) in &unmodelled {
            let named = options.wrt.as_ref().map_or(true, |w| w.contains(ident));
            if named {
                let shown = crate::emit::show(&ty.to_token_stream());
                error(self, ty, format!(
                    "#[grad] does not differentiate parameters of type `{shown}` yet: pass the floats as `&[f64]` (flattened), `[f64; N]` or `&[Vec<f64>]`, or leave `{ident}` constant by naming the other parameters in `#[grad(wrt(..))]`"
                ));
            }
        }
        if let Some(wrt) = &options.wrt {
            for p in &mut params {
                p.active = p.active && wrt.contains(&p.ident);
            }
            for w in wrt {
                if w == "self" {
                    error(self, w, "#[grad] cannot give the gradient with respect to `self` yet (a value of the struct's shape): take the fields to differentiate as float parameters");
                    continue;
                }
                match params.iter().find(|p| p.ident == *w) {
                    None => error(self, w, format!(
                        "`wrt` names `{w}`, which is not a parameter of `{}`; name float parameters of the function",
                        sig.ident
                    )),
                    Some(p) if unmodelled.iter().any(|(i, _)| *i == p.ident) => {}
                    Some(p) if !self.values[p.value.0].ty.is_float() && self.values[p.value.0].ty.array().is_none() => error(self, w, format!(
                        "`wrt` names `{w}`, which is not a float parameter; only `f64` and `f32` parameters can be differentiated"
                    )),
                    Some(_) => {}
                }
            }
        }
        params
    }

    /// Lowers the function body; returns the returned operand.
    /// `needs_tail`: whether to report a body without a returned value
    /// (not when the return type is already refused).
    fn lower_body(
        &mut self,
        block: &syn::Block,
        out: &mut Vec<Inst>,
        needs_tail: bool,
    ) -> Option<Operand> {
        let errors_before = self.errors.is_some();
        let ret = self.stmts(&block.stmts, out, Mode::Tail);
        // A tail that failed to lower has reported why already.
        let failed_here = !errors_before && self.errors.is_some();
        if ret.is_none() && needs_tail && !failed_here {
            error(self, block, "#[grad] needs the body to end with the returned value (a final expression or `return <value>;`)");
        }
        ret.map(|l| l.operand)
    }

    /// Lowers statements; in [`Mode::Value`] and [`Mode::Tail`], returns
    /// the value they end with.
    fn stmts(&mut self, stmts: &[syn::Stmt], out: &mut Vec<Inst>, mode: Mode) -> Option<Lowered> {
        let n = stmts.len();
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == n;
            if mode == Mode::Tail && !last {
                if let Some(guard) = guard_clause(stmt, &stmts[i + 1..]) {
                    return self.expr_in(&guard, out, Mode::Tail);
                }
                if let Some(rewritten) = self.returning_loop(stmt, &stmts[i + 1..]) {
                    return self.stmts(&rewritten, out, Mode::Tail);
                }
            }
            match stmt {
                syn::Stmt::Expr(syn::Expr::Return(r), _) if last && mode == Mode::Tail => {
                    return match &r.expr {
                        Some(e) => self.expr_in(e, out, Mode::Tail),
                        None => {
                            error(self, r, "#[grad] needs the function to return a float: write `return <value>`");
                            None
                        }
                    };
                }
                syn::Stmt::Expr(e, None) if last && mode != Mode::Unit => {
                    return self.expr_in(e, out, mode)
                }
                _ => self.stmt(stmt, out),
            }
        }
        None
    }

    /// A loop that returns from the function, followed by `rest`, as a loop
    /// that records the value and breaks, then a guard clause:
    /// `let mut __ret = 0.0; let mut __returned = false; <loop>;
    /// if __returned { return __ret; } rest`.
    fn returning_loop(&self, stmt: &syn::Stmt, rest: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Expr(
            e @ (syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)),
            _,
        ) = stmt
        else {
            return None;
        };
        if !has_return(e) {
            return None;
        }
        let ret = syn::Ident::new(RETURN_VALUE, Span::call_site());
        let flag = syn::Ident::new(RETURNED, Span::call_site());
        // Already rewritten: its guard follows it.
        let guard: syn::Stmt = syn::parse_quote!(if #flag { return #ret; });
        if rest.first().map(|s| s.to_token_stream().to_string())
            == Some(guard.to_token_stream().to_string())
        {
            return None;
        }
        let ty = format_ident!("{}", self.default_float.name());
        let mut out: Vec<syn::Stmt> = vec![
            syn::parse_quote!(let mut #ret: #ty = 0.0;),
            syn::parse_quote!(let mut #flag = false;),
            syn::Stmt::Expr(e.clone(), None),
            syn::parse_quote!(if #flag { return #ret; }),
        ];
        out.extend(rest.iter().cloned());
        Some(out)
    }

    /// An expression in a context: branches and blocks pass the context on
    /// to their arms; elsewhere, [`Self::expr`].
    fn expr_in(&mut self, e: &syn::Expr, out: &mut Vec<Inst>, mode: Mode) -> Option<Lowered> {
        match e {
            syn::Expr::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                self.lower_if(x, out, mode)
            }
            syn::Expr::Match(m) => self.lower_match(m, out, mode),
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block, out, mode),
            syn::Expr::Paren(p) => self.expr_in(&p.expr, out, mode),
            syn::Expr::Return(r) if mode == Mode::Tail => match &r.expr {
                Some(v) => self.expr_in(v, out, mode),
                None => {
                    error(
                        self,
                        r,
                        "#[grad] needs the function to return a float: write `return <value>`",
                    );
                    None
                }
            },
            _ if mode == Mode::Unit => {
                self.expr_stmt(e, true, out);
                None
            }
            _ => self.expr(e, out),
        }
    }

    /// `if` / `else if` / `else`.
    fn lower_if(&mut self, e: &syn::ExprIf, out: &mut Vec<Inst>, mode: Mode) -> Option<Lowered> {
        let cond = self.expr(&e.cond, out)?;
        let else_arm = match &e.else_branch {
            Some((_, x)) => ArmSrc::Expr(x),
            None => ArmSrc::Empty,
        };
        let arms = vec![(None, ArmSrc::Block(&e.then_branch)), (None, else_arm)];
        self.branch(Selector::If(cond.operand), None, arms, mode, e, out)
    }

    /// `match` on values the macro models or keeps as written.
    fn lower_match(
        &mut self,
        m: &syn::ExprMatch,
        out: &mut Vec<Inst>,
        mode: Mode,
    ) -> Option<Lowered> {
        let scrutinee = self.expr(&m.expr, out)?;
        let mut reads = Reads::default();
        let mut patterns = Vec::new();
        for arm in &m.arms {
            let guard = arm.guard.as_ref().map(|(_, g)| (**g).clone());
            if let Some(g) = &guard {
                self.check_opaque(g);
                for read in self.reads_of_expr(g).0 {
                    if !reads.0.iter().any(|(n, _)| *n == read.0) {
                        reads.0.push(read);
                    }
                }
            }
            patterns.push((arm.pat.clone(), guard));
        }
        let selector = Selector::Match {
            scrutinee: scrutinee.operand.clone(),
            patterns,
            reads,
        };
        let arms = m
            .arms
            .iter()
            .map(|arm| (Some(&arm.pat), ArmSrc::Expr(&arm.body)))
            .collect();
        self.branch(selector, scrutinee.operand.value(), arms, mode, m, out)
    }

    /// Lowers the arms of a branch, each from the bindings as they were
    /// before it, then merges what the arms left different.
    fn branch(
        &mut self,
        selector: Selector,
        scrutinee: Option<ValueId>,
        srcs: Vec<(Option<&syn::Pat>, ArmSrc)>,
        mode: Mode,
        whole: &impl ToTokens,
        out: &mut Vec<Inst>,
    ) -> Option<Lowered> {
        let before = self.scopes.clone();
        let mut arms = Vec::new();
        let mut results = Vec::new();
        let mut afters = Vec::new();
        let mut diverging = Vec::new();
        let mut empty = Vec::new();
        for (pat, src) in srcs {
            self.scopes.push(HashMap::new());
            let mut insts = Vec::new();
            if let Some(pat) = pat {
                self.pattern_bindings(pat, scrutinee, &mut insts);
            }
            empty.push(matches!(src, ArmSrc::Empty));
            // An arm that panics has no value: its statements run as such.
            let panics = arm_panics(&src);
            let arm_mode = if panics { Mode::Unit } else { mode };
            let result = match src {
                ArmSrc::Block(b) => self.stmts(&b.stmts, &mut insts, arm_mode),
                ArmSrc::Expr(syn::Expr::Block(b)) if b.label.is_none() => {
                    self.stmts(&b.block.stmts, &mut insts, arm_mode)
                }
                ArmSrc::Expr(e) => self.expr_in(e, &mut insts, arm_mode),
                ArmSrc::Empty => None,
            };
            diverging.push(panics);
            self.scopes.pop();
            afters.push(std::mem::replace(&mut self.scopes, before.clone()));
            results.push(result);
            arms.push(Block { insts });
        }
        let live: Vec<usize> = (0..arms.len()).filter(|i| !diverging[*i]).collect();
        let span = syn::spanned::Spanned::span(&whole.to_token_stream());

        // Variables the arms left different.
        let mut merges = Vec::new();
        for (level, scope) in before.iter().enumerate() {
            let mut names: Vec<&String> = scope.keys().collect();
            names.sort();
            for name in names {
                let per_arm: Vec<Binding> = afters.iter().map(|a| a[level][name].clone()).collect();
                let unchanged = per_arm.iter().all(|b| same_binding(b, &scope[name]));
                if unchanged {
                    continue;
                }
                let values: Option<Vec<ValueId>> = live
                    .iter()
                    .map(|i| match per_arm[*i] {
                        Binding::Value(v) => Some(v),
                        Binding::Uninit(_) => None,
                    })
                    .collect();
                let Some(values) = values.filter(|v| !v.is_empty()) else {
                    // Assigned on some paths only: unassigned after the branch.
                    let ty = match &scope[name] {
                        Binding::Uninit(t) => t.clone(),
                        Binding::Value(v) => self.values[v.0].ty.clone(),
                    };
                    self.scopes[level].insert(name.clone(), Binding::Uninit(ty));
                    continue;
                };
                let ty = values
                    .iter()
                    .skip(1)
                    .fold(self.values[values[0].0].ty.clone(), |t, v| {
                        join(&t, &self.values[v.0].ty)
                    });
                let opaque = values
                    .iter()
                    .any(|v| self.values[v.0].kind == ValueKind::Opaque);
                let kind = if opaque {
                    ValueKind::Opaque
                } else {
                    ValueKind::Def
                };
                let operands = per_arm
                    .iter()
                    .map(|b| match b {
                        Binding::Value(v) => Operand::Value(*v),
                        // A diverging arm's operand is never used.
                        Binding::Uninit(_) => Operand::Value(values[0]),
                    })
                    .collect();
                let name_span = self.values[values[0].0].span;
                let dst = self.new_value(Some(name.clone()), ty, kind, name_span);
                merges.push(Merge {
                    dst,
                    arms: operands,
                });
                self.scopes[level].insert(name.clone(), Binding::Value(dst));
            }
        }

        // The branch's own value.
        let mut value = None;
        if mode != Mode::Unit {
            let mut operands = Vec::new();
            let mut ty: Option<Ty> = None;
            for (i, r) in results.iter().enumerate() {
                match r {
                    Some(l) => {
                        ty = Some(ty.map_or(l.ty.clone(), |t| join(&t, &l.ty)));
                        operands.push(l.operand.clone());
                    }
                    None if diverging[i] => {
                        operands.push(Operand::Const(Box::new(syn::parse_quote!(0.0))))
                    }
                    None => {
                        if self.errors.is_none() {
                            let msg = if empty[i] {
                                "this `if` has no `else`, so it has no value: add an `else` with the value it stands for"
                            } else {
                                "this arm has no value: end it with the expression it stands for"
                            };
                            error(self, whole.to_token_stream(), msg);
                        }
                        return None;
                    }
                }
            }
            let ty = ty.unwrap_or(Ty::Unknown);
            let dst = self.new_value(None, ty.clone(), ValueKind::Def, span);
            merges.push(Merge {
                dst,
                arms: operands,
            });
            value = Some(Lowered {
                operand: Operand::Value(dst),
                ty,
            });
        }
        let arm_index = matches!(selector, Selector::Match { .. })
            .then(|| self.new_value(Some("arm".to_string()), Ty::Int, ValueKind::Def, span));
        out.push(Inst::Branch(Box::new(Branch {
            selector,
            arms,
            merges,
            diverging,
            arm_index,
        })));
        value
    }

    /// Whether an expression names a local float value.
    fn is_float_local(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = e else { return false };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        matches!(self.lookup(&name.to_string()), Some(Binding::Value(v)) if self.values[v.0].ty.is_float())
    }

    /// A call to a runtime kernel: `dot(..)`, `autodiff::dot(..)`, ...
    fn kernel_call(&self, c: &syn::ExprCall) -> Option<(&'static crate::rules::Kernel, syn::Path)> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        if self.is_local_path(&p.path) {
            return None;
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let ours = segs.len() == 1 || segs[0] == "autodiff" || segs[0] == "autodiff_runtime";
        let kernel = crate::rules::kernel(segs.last()?).filter(|_| ours)?;
        Some((kernel, p.path.clone()))
    }

    /// The arguments of a kernel call: arrays by reference, sizes as
    /// values; and the float type of the arrays.
    fn kernel_args(
        &mut self,
        kernel: &crate::rules::Kernel,
        c: &syn::ExprCall,
        out: &mut Vec<Inst>,
    ) -> Option<(Vec<KernelOperand>, FloatTy)> {
        if c.args.len() != kernel.args.len() {
            error(
                self,
                c,
                format!("`{}` takes {} arguments", kernel.name, kernel.args.len()),
            );
            return None;
        }
        let mut args = Vec::new();
        let mut elem = None;
        for (a, kind) in c.args.iter().zip(kernel.args) {
            match kind {
                crate::rules::KernelArg::Array => {
                    let inner = match a {
                        syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                        other => other,
                    };
                    let Some(v) = self.modelled_array(inner).filter(|v| {
                        !matches!(
                            self.values[v.0].ty.array().map(|t| &t.shape),
                            Some(Shape::Nested)
                        )
                    }) else {
                        error(self, a, format!("`{}` takes float arrays here: pass a slice, `Vec` or array of `f64` or `f32` by name, as in `&xs`", kernel.name));
                        return None;
                    };
                    elem = elem.or(self.values[v.0].ty.array().map(|t| t.elem));
                    args.push(KernelOperand::Array(v));
                }
                crate::rules::KernelArg::Usize => {
                    args.push(KernelOperand::Value(self.expr(a, out)?.operand))
                }
            }
        }
        Some((args, elem.unwrap_or(self.default_float)))
    }

    /// The modelled array a path names.
    fn modelled_array(&self, e: &syn::Expr) -> Option<ValueId> {
        let syn::Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Binding::Value(v)) if self.values[v.0].ty.array().is_some() => Some(*v),
            _ => None,
        }
    }

    /// `array[i]` (`array[i][j]` for a nested array) on a modelled array:
    /// the array and the index expressions, outermost first.
    fn array_place<'e>(&self, e: &'e syn::Expr) -> Option<(ValueId, Vec<&'e syn::Expr>)> {
        let mut index = Vec::new();
        let mut base = e;
        while let syn::Expr::Index(ix) = base {
            index.push(&*ix.index);
            base = &ix.expr;
        }
        index.reverse();
        let array = self.modelled_array(base)?;
        let depth = match self.values[array.0].ty.array()?.shape {
            Shape::Nested => 2,
            _ => 1,
        };
        (index.len() == depth).then_some((array, index))
    }

    /// `array[i] = rhs` or `array[i] op= rhs`.
    fn store(
        &mut self,
        array: ValueId,
        index: Vec<&syn::Expr>,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        let mut ops = Vec::new();
        for i in index {
            match self.expr(i, out) {
                Some(l) => ops.push(l.operand),
                None => return,
            }
        }
        let Some(r) = self.expr(rhs, out) else { return };
        let elem = match self.values[array.0].ty.array() {
            Some(a) => Ty::Float(a.elem),
            None => return,
        };
        let value = match op {
            None => r.operand,
            Some(op) => {
                let old = self.new_value(None, elem.clone(), ValueKind::Def, whole.span());
                out.push(Inst::Def {
                    dst: old,
                    op: Op::Load {
                        array,
                        index: ops.clone(),
                    },
                    written: None,
                    span: whole.span(),
                });
                let new = self.new_value(None, elem, ValueKind::Def, whole.span());
                out.push(Inst::Def {
                    dst: new,
                    op: Op::Binary(op, Operand::Value(old), r.operand),
                    written: None,
                    span: whole.span(),
                });
                Operand::Value(new)
            }
        };
        out.push(Inst::Store {
            array,
            index: ops,
            value,
        });
    }

    /// `let z = vec![v; n]`, `[v; N]`, `vec![a, b]`, `[a, b]`, or
    /// `Vec::new()` / `Vec::with_capacity(n)` with a float element type
    /// written: a modelled array, at the top level of the body. Returns
    /// whether it was one.
    fn local_array(
        &mut self,
        ident: &syn::Ident,
        annot: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Inst>,
    ) -> bool {
        let annotated = annot.and_then(array_ty);
        let Some(parts) = array_init_parts(init) else {
            return false;
        };
        let in_loop = self.array_scopes.len() > 1;
        if self.array_scopes.last() != Some(&self.scopes.len()) {
            // Arrays in other nested blocks are kept as written.
            return false;
        }
        if in_loop && matches!(parts, ArrayParts::Empty(_)) {
            // A `Vec` filled by `push` in a loop has no length to rebuild its
            // adjoint from in the reverse sweep.
            return false;
        }
        let mut insts = Vec::new();
        let scopes_before = self.scopes.clone();
        let lowered = self.lower_array_init(parts, &mut insts);
        let Some((init, elem_ty)) = lowered else {
            self.scopes = scopes_before;
            return false;
        };
        let elem = match (annotated.as_ref().map(|a| a.elem), elem_ty) {
            (Some(e), _) => e,
            (None, Ty::Float(e)) => e,
            (None, Ty::FloatLit) => self.default_float,
            _ => {
                self.scopes = scopes_before;
                return false;
            }
        };
        let shape = match (&init, annotated.map(|a| a.shape)) {
            (_, Some(Shape::Nested)) => {
                self.scopes = scopes_before;
                return false;
            }
            (ArrayInit::Repeat { len, .. }, _) => Shape::Fixed(len.clone()),
            (
                ArrayInit::List {
                    items,
                    is_vec: false,
                },
                _,
            ) => Shape::Fixed(items.len().to_string()),
            _ => Shape::Vec,
        };
        out.extend(insts);
        let v = self.new_value(
            Some(ident.to_string()),
            Ty::Array(ArrayTy { elem, shape }),
            ValueKind::Def,
            ident.span(),
        );
        out.push(Inst::Def {
            dst: v,
            op: Op::NewArray(init),
            written: None,
            span: ident.span(),
        });
        self.bind(ident.to_string(), Binding::Value(v));
        true
    }

    fn lower_array_init(
        &mut self,
        parts: ArrayParts,
        out: &mut Vec<Inst>,
    ) -> Option<(ArrayInit, Ty)> {
        Some(match parts {
            ArrayParts::Filled(parts) => {
                let (v, n) = *parts;
                let v = self.expr(&v, out)?;
                let n = self.expr(&n, out)?;
                (
                    ArrayInit::Filled {
                        value: v.operand,
                        len: n.operand,
                    },
                    v.ty,
                )
            }
            ArrayParts::Repeat(v, n) => {
                let v = self.expr(v, out)?;
                (
                    ArrayInit::Repeat {
                        value: v.operand,
                        len: n.to_token_stream().to_string(),
                    },
                    v.ty,
                )
            }
            ArrayParts::List(items, is_vec) => {
                let mut ops = Vec::new();
                let mut ty = Ty::FloatLit;
                for i in &items {
                    let l = self.expr(i, out)?;
                    if !l.ty.is_float() {
                        return None;
                    }
                    ty = join(&ty, &l.ty);
                    ops.push(l.operand);
                }
                (ArrayInit::List { items: ops, is_vec }, ty)
            }
            ArrayParts::Empty(capacity) => {
                let capacity = match capacity {
                    Some(c) => Some(self.expr(c, out)?.operand),
                    None => None,
                };
                (ArrayInit::Empty { capacity }, Ty::Unknown)
            }
        })
    }

    /// The modelled variables a loop's code assigns, in the order written.
    /// Also whether the code changes a modelled array (which is memory, not
    /// a carried value, but still makes the loop a region).
    fn assigned_in(&self, tokens: &[&dyn ToTokensVisit]) -> (Vec<String>, bool) {
        struct Assigned(Vec<String>);
        impl<'a> Visit<'a> for Assigned {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                match e {
                    syn::Expr::Assign(a) => self.0.extend(base_local(&a.left)),
                    syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                        self.0.extend(base_local(&b.left))
                    }
                    syn::Expr::MethodCall(m) if m.method == "push" => {
                        self.0.extend(base_local(&m.receiver))
                    }
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut v = Assigned(Vec::new());
        for t in tokens {
            t.visit_with(&mut v);
        }
        let mut names = Vec::new();
        let mut arrays = false;
        for n in v.0 {
            let modelled = match self.lookup(&n) {
                Some(Binding::Value(x)) if self.values[x.0].ty.array().is_some() => {
                    arrays = true;
                    false
                }
                Some(Binding::Value(x)) => self.values[x.0].kind != ValueKind::Opaque,
                Some(Binding::Uninit(_)) => true,
                None => false,
            };
            if modelled && !names.contains(&n) {
                names.push(n);
            }
        }
        (names, arrays)
    }

    /// `for i in a..b` (with `..=`, `.rev()`, `.step_by(k)`) that changes
    /// modelled variables: a loop region. Other `for` loops are kept as
    /// written. Returns whether it was lowered here.
    fn lower_for(&mut self, l: &syn::ExprForLoop, out: &mut Vec<Inst>) -> bool {
        let (carried, arrays) = self.assigned_in(&[&l.body]);
        if carried.is_empty() && !arrays || l.label.is_some() {
            return false;
        }
        let index_ident = match &*l.pat {
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
            {
                Some(p.ident.clone())
            }
            syn::Pat::Wild(_) => None,
            _ => match self.slice_loop(l) {
                Some(indexed) => return self.lower_for(&indexed, out),
                None => return false,
            },
        };
        let Some(range) = range_parts(&l.expr) else {
            if let Some(indexed) = self.slice_loop(l) {
                return self.lower_for(&indexed, out);
            }
            error(self, &l.expr, "#[grad] differentiates `for` loops over integer ranges (`a..b`, `a..=b`, with `.rev()` or `.step_by(k)`) and over float arrays (`xs`, `xs.iter()`, `xs.iter().enumerate()`) so far: loop over indices instead, as in `for i in 0..xs.len()`");
            return true;
        };
        let flag = self.new_break_flag();
        let Some((stmts, breaks)) = self.loop_jumps(&l.body, &flag) else {
            return true;
        };
        let Some(range) = self.lower_range(range, out) else {
            return true;
        };
        let carried = self.break_flag(carried, breaks.then_some(&flag), &l.body, out);
        self.lower_loop(
            carried,
            breaks,
            breaks.then_some(flag.as_str()),
            out,
            |cx, body| {
                let index = index_ident.map(|i| {
                    let v = cx.new_value(Some(i.to_string()), Ty::Int, ValueKind::Def, i.span());
                    cx.bind(i.to_string(), Binding::Value(v));
                    v
                });
                cx.stmts(&stmts, body, Mode::Unit);
                LoopKind::Range { index, range }
            },
        );
        true
    }

    /// A loop over a modelled array (`for x in xs`, `for &x in xs.iter()`,
    /// `for (i, x) in xs.iter().enumerate()`, with `.copied()` or
    /// `.cloned()`), as the index loop it is: `for i in 0..xs.len()`, with
    /// `let x = xs[i];` first in the body.
    fn slice_loop(&self, l: &syn::ExprForLoop) -> Option<syn::ExprForLoop> {
        let (array, enumerate) = slice_iter(&l.expr)?;
        self.modelled_array(array)?;
        let (index, element) = match (&*l.pat, enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => {
                (Some(t.elems[0].clone()), t.elems[1].clone())
            }
            (pat, false) => (None, pat.clone()),
            _ => return None,
        };
        let element = match element {
            syn::Pat::Reference(r) => *r.pat,
            other => other,
        };
        let syn::Pat::Ident(_) = &element else {
            return None;
        };
        let index = match index {
            Some(syn::Pat::Ident(i)) => i.ident,
            Some(syn::Pat::Wild(_)) | None => syn::Ident::new("__i", l.for_token.span),
            Some(_) => return None,
        };
        let body = &l.body.stmts;
        Some(syn::parse_quote! {
            for #index in 0..#array.len() {
                let #element = #array[#index];
                #(#body)*
            }
        })
    }

    /// The reductions Rust users write over float arrays, as the loops they
    /// are (block expressions lowered like the user's own code):
    /// `xs.iter().sum()`, `xs.iter().map(|v| e).sum()`,
    /// `xs.iter().zip(ys).map(|(a, b)| e).sum()`,
    /// `xs.iter().fold(init, |acc, v| e)` and
    /// `xs.iter().cloned().fold(init, f64::max)`.
    fn reduction(&self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let i = syn::Ident::new("__i", m.method.span());
        let acc = syn::Ident::new("__acc", m.method.span());
        let zero: syn::Expr = match generic_float() {
            Some(t) => {
                let t = syn::Ident::new(t.name(), m.method.span());
                syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(0.0))
            }
            None => syn::parse_quote!(0.0),
        };
        // The element bindings and the expression of the iterator chain.
        let (bindings, item, len): (Vec<syn::Stmt>, syn::Expr, syn::Expr) = {
            let (source, map) = match &*m.receiver {
                syn::Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                    (&*map.receiver, Some(&map.args[0]))
                }
                other => (other, None),
            };
            let arrays = self.zipped_arrays(source)?;
            let names: Vec<syn::Pat> = match map {
                Some(syn::Expr::Closure(c)) if c.inputs.len() == 1 => {
                    closure_names(&c.inputs[0], arrays.len())?
                }
                Some(_) => return None,
                None if arrays.len() == 1 => vec![syn::parse_quote!(__x)],
                None => return None,
            };
            let bindings = names
                .iter()
                .zip(&arrays)
                .map(|(n, a)| syn::parse_quote!(let #n = #a[#i];))
                .collect();
            let item: syn::Expr = match map {
                Some(syn::Expr::Closure(c)) => (*c.body).clone(),
                _ => syn::parse_quote!(__x),
            };
            let first = arrays[0];
            let len = arrays[1..].iter().fold(
                syn::parse_quote!(#first.len()),
                |l: syn::Expr, a| syn::parse_quote!(#l.min(#a.len())),
            );
            (bindings, item, len)
        };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("sum", 0) => Some(syn::parse_quote!({
                let mut #acc = #zero;
                for #i in 0..#len {
                    #(#bindings)*
                    #acc += #item;
                }
                #acc
            })),
            ("fold", 2) => {
                let init = &m.args[0];
                let step: syn::Expr = match &m.args[1] {
                    syn::Expr::Closure(c) if c.inputs.len() == 2 => {
                        let a = closure_names(&c.inputs[0], 1)?.remove(0);
                        let v = closure_names(&c.inputs[1], 1)?.remove(0);
                        let body = &c.body;
                        syn::parse_quote!({ let #a = #acc; let #v = #item; #body })
                    }
                    syn::Expr::Path(f) => syn::parse_quote!(#f(#acc, #item)),
                    _ => return None,
                };
                Some(syn::parse_quote!({
                    let mut #acc = #init;
                    for #i in 0..#len {
                        #(#bindings)*
                        #acc = #step;
                    }
                    #acc
                }))
            }
            _ => None,
        }
    }

    /// `xs.iter()` (with `.copied()`/`.cloned()`) or
    /// `xs.iter().zip(ys)` (`ys.iter()`, `&ys`) over modelled arrays.
    fn zipped_arrays<'e>(&self, e: &'e syn::Expr) -> Option<Vec<&'e syn::Expr>> {
        match e {
            syn::Expr::MethodCall(z) if z.method == "zip" && z.args.len() == 1 => {
                let mut left = self.zipped_arrays(&z.receiver)?;
                let (right, false) = slice_iter(&z.args[0])? else {
                    return None;
                };
                self.modelled_array(right)?;
                left.push(right);
                Some(left)
            }
            other => {
                let (array, false) = slice_iter(other)? else {
                    return None;
                };
                if matches!(other, syn::Expr::Path(_)) {
                    return None;
                }
                self.modelled_array(array)?;
                Some(vec![array])
            }
        }
    }

    /// `while cond { body }` that changes modelled variables: a loop region.
    fn lower_while(&mut self, w: &syn::ExprWhile, out: &mut Vec<Inst>) -> bool {
        let (carried, arrays) = self.assigned_in(&[&*w.cond, &w.body]);
        if carried.is_empty() && !arrays
            || w.label.is_some()
            || matches!(*w.cond, syn::Expr::Let(_))
        {
            return false;
        }
        self.lower_conditional_loop(Some(&w.cond), &w.body, carried, out);
        true
    }

    /// `loop { body }` that changes modelled variables: a `while true` loop
    /// left by `break`.
    fn lower_infinite(&mut self, l: &syn::ExprLoop, out: &mut Vec<Inst>) -> bool {
        let (carried, arrays) = self.assigned_in(&[&l.body]);
        if carried.is_empty() && !arrays || l.label.is_some() {
            return false;
        }
        self.lower_conditional_loop(None, &l.body, carried, out);
        true
    }

    /// The loop region of `while cond` (`loop` without `cond`).
    fn lower_conditional_loop(
        &mut self,
        cond: Option<&syn::Expr>,
        body: &syn::Block,
        carried: Vec<String>,
        out: &mut Vec<Inst>,
    ) {
        let flag = self.new_break_flag();
        let Some((stmts, breaks)) = self.loop_jumps(body, &flag) else {
            return;
        };
        let carried = self.break_flag(carried, breaks.then_some(&flag), body, out);
        self.lower_loop(
            carried,
            true,
            breaks.then_some(flag.as_str()),
            out,
            |cx, body| {
                let mut cond_block = Vec::new();
                let cond = match cond {
                    Some(c) => cx
                        .expr(c, &mut cond_block)
                        .map(|l| l.operand)
                        .unwrap_or_else(|| Operand::Const(Box::new(syn::parse_quote!(false)))),
                    None => Operand::Const(Box::new(syn::parse_quote!(true))),
                };
                cx.stmts(&stmts, body, Mode::Unit);
                LoopKind::While {
                    cond_block: Block { insts: cond_block },
                    cond,
                }
            },
        );
    }

    /// A loop body with its `break`s and `continue`s rewritten into
    /// branches (see [`rewrite_jumps`]), and whether it breaks; `None`
    /// after reporting a jump that cannot be rewritten.
    fn loop_jumps(&mut self, body: &syn::Block, flag: &str) -> Option<(Vec<syn::Stmt>, bool)> {
        let mut breaks = false;
        let returns = self.lookup(RETURNED).is_some();
        let flag = syn::Ident::new(flag, Span::call_site());
        match rewrite_jumps(&body.stmts, &mut breaks, returns, &flag) {
            Some(stmts) => Some((stmts, breaks)),
            None => {
                let errors_before = self
                    .errors
                    .as_ref()
                    .map_or(0, |e| e.clone().into_iter().count());
                self.refuse_jumps(body);
                let errors_after = self
                    .errors
                    .as_ref()
                    .map_or(0, |e| e.clone().into_iter().count());
                if errors_after == errors_before {
                    error(self, body, "#[grad] supports `return` inside a loop that changes active variables only at the end of a branch of an `if` (as in `if found { return x; }`), in a loop at the top level of the body: restructure the loop that way");
                }
                None
            }
        }
    }

    /// The name of the next loop's break flag.
    fn new_break_flag(&mut self) -> String {
        self.break_flags += 1;
        format!("{BREAK_FLAG}{}", self.break_flags)
    }

    /// For a loop that breaks: the flag `break` sets, false before the
    /// loop, carried by it.
    fn break_flag(
        &mut self,
        mut carried: Vec<String>,
        breaks: Option<&String>,
        body: &syn::Block,
        out: &mut Vec<Inst>,
    ) -> Vec<String> {
        // A loop that returns from the function (here or in an inner loop)
        // carries the returned value and its flag out.
        let returns = body.stmts.iter().any(stmt_has_return);
        if returns && self.lookup(RETURNED).is_some() {
            for name in [RETURN_VALUE, RETURNED] {
                if !carried.iter().any(|c| c == name) {
                    carried.push(name.to_string());
                }
            }
        }
        if let Some(name) = breaks {
            let flag = syn::Ident::new(name, Span::call_site());
            self.stmt(&syn::parse_quote!(let mut #flag = false;), out);
            carried.push(name.clone());
        }
        carried
    }

    /// Reports the `break`s and `continue`s that cannot be rewritten.
    fn refuse_jumps(&mut self, body: &syn::Block) -> bool {
        struct Jumps(Vec<TokenStream>);
        impl<'a> Visit<'a> for Jumps {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                match e {
                    syn::Expr::Break(b) => self.0.push(b.break_token.to_token_stream()),
                    syn::Expr::Continue(c) => self.0.push(c.continue_token.to_token_stream()),
                    // Jumps inside inner loops and closures stay inside them.
                    syn::Expr::ForLoop(_)
                    | syn::Expr::While(_)
                    | syn::Expr::Loop(_)
                    | syn::Expr::Closure(_) => return,
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut j = Jumps(Vec::new());
        j.visit_block(body);
        for t in &j.0 {
            error(self, t, "#[grad] supports `break` and `continue` in loops that change active variables only at the end of a branch of the body (as in `if done { break; }`), without labels or values: restructure the loop that way");
        }
        j.0.is_empty()
    }

    fn lower_range(&mut self, r: RangeParts, out: &mut Vec<Inst>) -> Option<RangeIter> {
        let start = self.expr(r.start, out)?.operand;
        let end = self.expr(r.end, out)?.operand;
        let mut adaptors = Vec::new();
        for a in r.adaptors {
            adaptors.push(match a {
                None => Adaptor::Rev,
                Some(k) => Adaptor::StepBy(self.expr(k, out)?.operand),
            });
        }
        Some(RangeIter {
            start,
            end,
            inclusive: r.inclusive,
            adaptors,
        })
    }

    /// A loop region: headers for the `carried` variables, the body
    /// lowered by `body` against them, the values after the loop.
    fn lower_loop(
        &mut self,
        carried: Vec<String>,
        counted: bool,
        exit_flag: Option<&str>,
        out: &mut Vec<Inst>,
        body: impl FnOnce(&mut Self, &mut Vec<Inst>) -> LoopKind,
    ) {
        let before = self.scopes.clone();
        let mut headers = Vec::new();
        for name in &carried {
            let (init, ty, span) = match self.lookup(name).cloned() {
                Some(Binding::Value(v)) => (
                    Operand::Value(v),
                    self.values[v.0].ty.clone(),
                    self.values[v.0].span,
                ),
                _ => {
                    combine(&mut self.errors, syn::Error::new(Span::call_site(), format!("`{name}` is assigned in a loop before it has a value: give it one before the loop")));
                    self.scopes = before;
                    return;
                }
            };
            let header = self.new_value(Some(name.clone()), ty, ValueKind::Def, span);
            self.assign(name, header);
            headers.push((name.clone(), header, init));
        }
        self.scopes.push(HashMap::new());
        self.array_scopes.push(self.scopes.len());
        let mut insts = Vec::new();
        let kind = body(self, &mut insts);
        self.array_scopes.pop();
        self.scopes.pop();
        let after = std::mem::replace(&mut self.scopes, before.clone());
        let mut carried_values = Vec::new();
        for (name, header, init) in headers {
            let next = match find_binding(&after, &name) {
                Some(Binding::Value(v)) => Operand::Value(*v),
                _ => Operand::Value(header),
            };
            // The type the variable has once the body ran.
            if let Operand::Value(n) = &next {
                let t = join(&self.values[header.0].ty, &self.values[n.0].ty);
                self.values[header.0].ty = t;
            }
            let ty = self.values[header.0].ty.clone();
            let span = self.values[header.0].span;
            let out_value = self.new_value(Some(name.clone()), ty, ValueKind::Def, span);
            self.assign(&name, out_value);
            carried_values.push(Carried {
                header,
                init,
                next,
                out: out_value,
            });
        }
        // Opaque variables the body changed keep their last version.
        for (level, scope) in before.iter().enumerate() {
            for (name, b) in scope {
                if let (Binding::Value(v), Some(Binding::Value(w))) =
                    (b, after.get(level).and_then(|s| s.get(name)))
                {
                    if v != w && self.values[w.0].kind == ValueKind::Opaque {
                        self.scopes[level].insert(name.clone(), Binding::Value(*w));
                    }
                }
            }
        }
        let id = self.loops;
        self.loops += 1;
        let exit = exit_flag.and_then(|flag| {
            carried_values
                .iter()
                .find(|c| self.values[c.header.0].name.as_deref() == Some(flag))
                .map(|c| c.next.clone())
        });
        let trips = counted.then(|| {
            self.new_value(
                Some("trips".to_string()),
                Ty::Int,
                ValueKind::Def,
                Span::call_site(),
            )
        });
        out.push(Inst::Loop(Box::new(Loop {
            id,
            kind,
            carried: carried_values,
            body: Block { insts },
            trips,
            exit,
        })));
    }

    /// The names a pattern binds, each a new opaque value.
    fn opaque_bindings(&mut self, pat: &syn::Pat) -> (Vec<syn::Ident>, Vec<ValueId>) {
        let mut names = Vec::new();
        collect_pat_idents(pat, &mut names);
        let defs = names
            .iter()
            .map(|n| {
                self.new_value(
                    Some(n.to_string()),
                    Ty::Unknown,
                    ValueKind::Opaque,
                    n.span(),
                )
            })
            .collect();
        (names, defs)
    }

    /// The names a `match` pattern binds: values kept as written, read from
    /// the scrutinee, and refused by activity analysis if the scrutinee is
    /// active and they reach the result.
    fn pattern_bindings(
        &mut self,
        pat: &syn::Pat,
        scrutinee: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) {
        let (names, defs) = self.opaque_bindings(pat);
        if names.is_empty() {
            return;
        }
        let reads = Reads(scrutinee.map(|v| ("".to_string(), v)).into_iter().collect());
        out.push(Inst::Verbatim {
            tokens: pat.to_token_stream(),
            kind: VerbatimKind::Binding,
            defs: defs.clone(),
            reads,
        });
        for (n, v) in names.iter().zip(defs) {
            self.bind(n.to_string(), Binding::Value(v));
        }
    }

    fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Inst>) {
        match stmt {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Item(item) => out.push(Inst::Verbatim {
                tokens: item.to_token_stream(),
                kind: VerbatimKind::Item,
                defs: vec![],
                reads: Reads::default(),
            }),
            syn::Stmt::Macro(m) => self.effect(stmt.to_token_stream(), &m.mac, out),
            syn::Stmt::Expr(e, semi) => self.expr_stmt(e, semi.is_some(), out),
        }
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(attr) = local
            .attrs
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        {
            error(self, attr, "#[grad] cannot tell which `#[cfg]` alternative of a `let` is compiled: put the `#[cfg]` on whole functions instead");
            return;
        }
        if self.tuple_let(local, out) {
            return;
        }
        let (ident, annot) = match simple_binding(&local.pat) {
            Some(b) => b,
            None => return self.verbatim_let(local, out),
        };
        let init = match &local.init {
            None => {
                let ty = annot.map(ty_of).unwrap_or(Ty::Unknown);
                self.bind(ident.to_string(), Binding::Uninit(ty));
                return;
            }
            Some(init) => init,
        };
        if let Some((else_token, _)) = &init.diverge {
            error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
            return;
        }
        if self.local_array(&ident, annot, &init.expr, out) {
            return;
        }
        if let syn::Expr::Call(c) = &*init.expr {
            if let Some((kernel, path)) = self.kernel_call(c).filter(|(k, _)| k.returns_array) {
                if self.scopes.len() > 1 {
                    error(self, &init.expr, format!(
                        "#[grad] models the `Vec` that `{}` returns at the top level of the function body only: compute it before the loop or block",
                        kernel.name
                    ));
                    return;
                }
                if let Some((args, elem)) = self.kernel_args(kernel, c, out) {
                    let ty = Ty::Array(ArrayTy {
                        elem,
                        shape: Shape::Vec,
                    });
                    let v =
                        self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
                    out.push(Inst::Def {
                        dst: v,
                        op: Op::Kernel { kernel, path, args },
                        written: None,
                        span: local.span(),
                    });
                    self.bind(ident.to_string(), Binding::Value(v));
                }
                return;
            }
        }
        let annot_ty = annot.map(ty_of);
        // Lower the initialiser aside: it is committed if it turns out to be
        // a scalar, and the `let` is kept verbatim otherwise.
        let mut insts = Vec::new();
        let errors_before = self.errors.is_some();
        let scopes_before = self.scopes.clone();
        let lowered = match self.expr(&init.expr, &mut insts) {
            Some(l) => l,
            None => return,
        };
        let ty = match annot_ty {
            Some(t) if t != Ty::Unknown => t,
            _ => lowered.ty.clone(),
        };
        // A value of a type the source does not state, computed by an
        // operation the macro looked into (a constant, a call, arithmetic):
        // modelled like any other, its type left to rustc. Only what the
        // macro cannot look into, or a variable changed in place later, is
        // kept as written.
        let looked_into = !self.kept_as_written(&lowered.operand, &insts);
        let modelled = looked_into && !self.changed_in_place.contains(&ident.to_string());
        if matches!(ty, Ty::Unknown) && !modelled {
            if !errors_before && self.errors.is_some() {
                return;
            }
            // Not a scalar: undo what the initialiser's branches bound.
            self.scopes = scopes_before;
            return self.verbatim_let(local, out);
        }
        out.extend(insts);
        let written = (annot.is_some() || !local.attrs.is_empty()).then(|| {
            Box::new(Written {
                ty: annot.cloned(),
                attrs: local.attrs.clone(),
            })
        });
        let value = self.name_result(&ident, ty, written, lowered.operand, local.span(), out);
        self.bind(ident.to_string(), Binding::Value(value));
    }

    /// Whether a lowered initialiser is code the macro did not look into:
    /// an expression kept as written, or a variable that is.
    fn kept_as_written(&self, operand: &Operand, insts: &[Inst]) -> bool {
        let Operand::Value(v) = operand else {
            return false;
        };
        self.values[v.0].kind == ValueKind::Opaque
            || insts
                .iter()
                .any(|i| matches!(i, Inst::Def { dst, op: Op::Opaque { .. }, .. } if dst == v))
    }

    /// `let (a, mut b, _) = (e1, e2, e3);`: each element evaluated in
    /// order, then each name bound to its value, as `let`s of their own
    /// would (`let (a, b) = (b, a);` swaps). Returns whether it was lowered
    /// here; a tuple of other elements, or with other patterns, is left to
    /// the caller.
    fn tuple_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        let (syn::Pat::Tuple(pat), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        let syn::Expr::Tuple(tuple) = &*init.expr else {
            return false;
        };
        if init.diverge.is_some() || pat.elems.len() != tuple.elems.len() || !local.attrs.is_empty()
        {
            return false;
        }
        let mut names = Vec::new();
        for p in &pat.elems {
            match p {
                syn::Pat::Wild(_) => names.push(None),
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    names.push(Some(i.ident.clone()))
                }
                _ => return false,
            }
        }
        let scopes_before = self.scopes.clone();
        let errors_before = self.errors.is_some();
        let mut insts = Vec::new();
        let mut values = Vec::new();
        for e in &tuple.elems {
            let Some(l) = self.expr(e, &mut insts) else {
                return true;
            };
            let opaque = self.kept_as_written(&l.operand, &insts);
            if opaque || l.ty.array().is_some() {
                // Not all scalars: kept as written.
                self.scopes = scopes_before;
                if !errors_before && self.errors.is_some() {
                    return true;
                }
                return false;
            }
            values.push(l);
        }
        if names
            .iter()
            .flatten()
            .any(|n| self.changed_in_place.contains(&n.to_string()))
        {
            self.scopes = scopes_before;
            return false;
        }
        out.extend(insts);
        for (name, l) in names.into_iter().zip(values) {
            let Some(ident) = name else { continue };
            let v = self.new_value(Some(ident.to_string()), l.ty, ValueKind::Def, ident.span());
            out.push(Inst::Def {
                dst: v,
                op: Op::Copy(l.operand),
                written: None,
                span: local.span(),
            });
            self.bind(ident.to_string(), Binding::Value(v));
        }
        true
    }

    /// Gives the user's name to the value of an initialiser: renames the
    /// last Wengert entry when it is the initialiser's own result, and adds
    /// a copy otherwise (`let y = x;`, `let y = 2.0;`).
    fn name_result(
        &mut self,
        ident: &syn::Ident,
        ty: Ty,
        written: Option<Box<Written>>,
        operand: Operand,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> ValueId {
        if let (
            Operand::Value(v),
            Some(Inst::Def {
                dst, written: w, ..
            }),
        ) = (&operand, out.last_mut())
        {
            if dst == v && self.values[v.0].name.is_none() {
                *w = written;
                let value = &mut self.values[v.0];
                value.name = Some(ident.to_string());
                value.span = ident.span();
                if value.ty == Ty::FloatLit || ty.is_float() && value.ty == Ty::Unknown {
                    value.ty = ty;
                }
                return *v;
            }
        }
        let value = self.new_value(Some(ident.to_string()), ty, ValueKind::Def, ident.span());
        out.push(Inst::Def {
            dst: value,
            op: Op::Copy(operand),
            written,
            span,
        });
        value
    }

    /// A `let` the macro does not model: copied as written; the names it
    /// binds become opaque values.
    fn verbatim_let(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                error(self, else_token, "#[grad] does not support `let ... else` yet: compute the value without a diverging branch");
                return;
            }
            self.check_opaque(&init.expr);
        }
        let reads = match &local.init {
            Some(init) => self.reads_of_expr(&init.expr),
            None => Reads::default(),
        };
        let (names, defs) = self.opaque_bindings(&local.pat);
        out.push(Inst::Verbatim {
            tokens: local.to_token_stream(),
            kind: match &local.init {
                Some(init) => VerbatimKind::Let(Box::new(VerbatimLet {
                    pat: local.pat.to_token_stream(),
                    init: (*init.expr).clone(),
                })),
                None => VerbatimKind::Item,
            },
            defs: defs.clone(),
            reads,
        });
        for (n, v) in names.iter().zip(defs) {
            self.bind(n.to_string(), Binding::Value(v));
        }
    }

    fn expr_stmt(&mut self, e: &syn::Expr, semi: bool, out: &mut Vec<Inst>) {
        match e {
            syn::Expr::Assign(a) => self.assignment(&a.left, None, &a.right, e, out),
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                self.assignment(&b.left, compound_op(&b.op), &b.right, e, out)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                // A block statement's value, if any, is discarded.
                self.block(&b.block, out, Mode::Unit);
            }
            syn::Expr::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                self.lower_if(x, out, Mode::Unit);
            }
            syn::Expr::Match(m) => {
                self.lower_match(m, out, Mode::Unit);
            }
            syn::Expr::MethodCall(m)
                if m.method == "push"
                    && m.args.len() == 1
                    && self.modelled_array(&m.receiver).is_some() =>
            {
                let array = self.modelled_array(&m.receiver).expect("checked");
                if let Some(v) = self.expr(&m.args[0], out) {
                    let position = self.new_value(None, Ty::Int, ValueKind::Def, m.method.span());
                    out.push(Inst::Push {
                        array,
                        position,
                        value: v.operand,
                    });
                }
            }
            syn::Expr::ForLoop(l) if self.lower_for(l, out) => {}
            syn::Expr::Loop(l) if self.lower_infinite(l, out) => {}
            syn::Expr::While(w) if self.lower_while(w, out) => {}
            syn::Expr::Macro(m) => {
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                self.effect(tokens, &m.mac, out)
            }
            _ => {
                self.check_opaque(e);
                let reads = self.reads_of_expr(e);
                let defs = self.mutated_opaque_locals(e);
                let tokens = if semi {
                    quote::quote_spanned!(e.span()=> #e;)
                } else {
                    e.to_token_stream()
                };
                out.push(Inst::Verbatim {
                    tokens,
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
            }
        }
    }

    /// A statement macro (`println!`, `assert!`, ...): copied as written.
    fn effect(&mut self, tokens: TokenStream, mac: &syn::Macro, out: &mut Vec<Inst>) {
        let reads = self.reads_of_tokens(mac.tokens.clone());
        // Macros of the standard library that only read their arguments
        // leave every variable as it was; any other macro may change the
        // opaque variables it is given.
        let defs = if is_read_only_macro(mac) {
            vec![]
        } else {
            self.new_versions(reads.0.iter().map(|(n, _)| n.clone()).collect())
        };
        out.push(Inst::Verbatim {
            tokens,
            kind: VerbatimKind::Stmt,
            defs,
            reads,
        });
    }

    /// New versions of the opaque variables among `names`.
    fn new_versions(&mut self, names: Vec<String>) -> Vec<ValueId> {
        let mut defs = Vec::new();
        for n in names {
            if let Some(Binding::Value(v)) = self.lookup(&n).cloned() {
                if self.values[v.0].kind == ValueKind::Opaque
                    && !defs
                        .iter()
                        .any(|d: &ValueId| self.values[d.0].name.as_deref() == Some(n.as_str()))
                {
                    let span = self.values[v.0].span;
                    let new = self.new_value(Some(n.clone()), Ty::Unknown, ValueKind::Opaque, span);
                    self.assign(&n, new);
                    defs.push(new);
                }
            }
        }
        defs
    }

    /// The opaque locals an expression statement may change: receivers of
    /// method calls, `&mut` borrows and assignment targets.
    fn mutated_opaque_locals(&mut self, e: &syn::Expr) -> Vec<ValueId> {
        struct Targets(Vec<String>);
        impl<'a> Visit<'a> for Targets {
            // Assignments at any depth (inside a loop or block kept as
            // written): `x *= k` changes `x` as surely as `x.push(k)`.
            fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
                if let Some(n) = base_local(&a.left) {
                    self.0.push(n);
                }
                syn::visit::visit_expr_assign(self, a);
            }
            fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
                if compound_op(&b.op).is_some() {
                    if let Some(n) = base_local(&b.left) {
                        self.0.push(n);
                    }
                }
                syn::visit::visit_expr_binary(self, b);
            }
            fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
                if let Some(n) = base_local(&m.receiver) {
                    self.0.push(n);
                }
                syn::visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
                if r.mutability.is_some() {
                    if let Some(n) = base_local(&r.expr) {
                        self.0.push(n);
                    }
                }
                syn::visit::visit_expr_reference(self, r);
            }
            fn visit_expr_macro(&mut self, m: &'a syn::ExprMacro) {
                if !is_read_only_macro(&m.mac) {
                    self.0.extend(token_idents(m.mac.tokens.clone()));
                }
            }
        }
        let mut t = Targets(vec![]);
        t.visit_expr(e);
        self.new_versions(t.0)
    }

    /// `target = rhs` or `target op= rhs` as a statement.
    fn assignment(
        &mut self,
        target: &syn::Expr,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        whole: &syn::Expr,
        out: &mut Vec<Inst>,
    ) {
        if let Some((array, index)) = self.array_place(target) {
            return self.store(array, index, op, rhs, whole, out);
        }
        let name = match target {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let binding = name.as_ref().and_then(|n| self.lookup(n).cloned());
        let (name, binding) = match (name, binding) {
            (Some(n), Some(b)) => (n, b),
            _ => {
                // `v[i] = e`, `p.x += e`, `*r = e`: a change to an opaque
                // variable, copied as written.
                if let Some(n) = base_local(target) {
                    if let Some(Binding::Value(v)) = self.lookup(&n) {
                        if self.values[v.0].kind != ValueKind::Opaque {
                            error(self, target, format!(
                                "#[grad] cannot follow this assignment into `{n}`: assign the whole variable, as in `{n} = ...`"
                            ));
                            return;
                        }
                    }
                }
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.mutated_opaque_locals(whole);
                let defs = if defs.is_empty() {
                    base_local(target)
                        .map(|n| self.new_versions(vec![n]))
                        .unwrap_or_default()
                } else {
                    defs
                };
                out.push(Inst::Verbatim {
                    tokens: quote::quote_spanned!(whole.span()=> #whole;),
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
                return;
            }
        };
        let current = match binding {
            Binding::Value(v) if self.values[v.0].kind == ValueKind::Opaque => {
                self.check_opaque(rhs);
                let reads = self.reads_of_expr(whole);
                let defs = self.new_versions(vec![name]);
                out.push(Inst::Verbatim {
                    tokens: quote::quote_spanned!(whole.span()=> #whole;),
                    kind: VerbatimKind::Stmt,
                    defs,
                    reads,
                });
                return;
            }
            Binding::Value(v) if self.values[v.0].ty.array().is_some() => {
                // `arr = &arr[1..]`: the loads that follow would read the
                // array the name held before, a wrong value and gradient.
                error(self, whole, format!(
                    "#[grad] cannot follow `{name}` rebound to another array or slice: keep `{name}` and index it with an offset instead, as in `{name}[start + i]`"
                ));
                return;
            }
            Binding::Value(v) => Some(v),
            Binding::Uninit(_) if op.is_some() => {
                error(
                    self,
                    target,
                    format!("`{name}` is used before it is assigned"),
                );
                return;
            }
            Binding::Uninit(_) => None,
        };
        let rhs_l = match self.expr(rhs, out) {
            Some(l) => l,
            None => return,
        };
        let declared = match (&binding, current) {
            (_, Some(v)) => self.values[v.0].ty.clone(),
            (Binding::Uninit(t), None) => t.clone(),
            _ => Ty::Unknown,
        };
        let span = whole.span();
        let ident = syn::Ident::new(&name, target.span());
        let value = match (op, current) {
            (Some(op), Some(cur)) => {
                let ty = join(&declared, &rhs_l.ty);
                let v = self.new_value(Some(name.clone()), ty, ValueKind::Def, target.span());
                out.push(Inst::Def {
                    dst: v,
                    op: Op::Binary(op, Operand::Value(cur), rhs_l.operand),
                    written: None,
                    span,
                });
                v
            }
            _ => {
                let ty = if declared == Ty::Unknown {
                    rhs_l.ty.clone()
                } else {
                    declared
                };
                self.name_result(&ident, ty, None, rhs_l.operand, span, out)
            }
        };
        self.assign(&name, value);
    }

    /// A block: its statements in a scope of their own; returns its value.
    fn block(&mut self, block: &syn::Block, out: &mut Vec<Inst>, mode: Mode) -> Option<Lowered> {
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let errors_before = self.errors.is_some();
        let result = self.stmts(&block.stmts, &mut insts, mode);
        self.scopes.pop();
        out.push(Inst::Scope(Block { insts }));
        let failed_here = !errors_before && self.errors.is_some();
        if mode != Mode::Unit && result.is_none() && !failed_here {
            error(
                self,
                block,
                "this block has no value: end it with the expression it stands for",
            );
        }
        result
    }

    /// Lowers an expression; `None` when an error was recorded.
    fn expr(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        use syn::Expr as E;
        if let Some(c) = const_expr(e) {
            return Some(Lowered {
                operand: Operand::Const(Box::new(e.clone())),
                ty: c,
            });
        }
        match e {
            E::Paren(p) => self.expr(&p.expr, out),
            E::Group(g) => self.expr(&g.expr, out),
            E::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name).cloned() {
                    Some(Binding::Value(v)) => Some(Lowered {
                        operand: Operand::Value(v),
                        ty: self.values[v.0].ty.clone(),
                    }),
                    Some(Binding::Uninit(_)) => {
                        // After an error, the assignment may be the refused
                        // statement: say nothing more.
                        if self.errors.is_none() {
                            error(self, e, format!("`{name}` is used before it is assigned"));
                        }
                        None
                    }
                    // A constant or static of the user's, named inline, unless
                    // it may be an item local to this block: the reverse
                    // sweep, outside the block, reads a copy.
                    None if self.scopes.len() > 1 => {
                        let op = Op::Copy(Operand::Const(Box::new(e.clone())));
                        Some(self.def(op, Ty::Unknown, e, out))
                    }
                    None => Some(Lowered {
                        operand: Operand::Const(Box::new(e.clone())),
                        ty: Ty::Unknown,
                    }),
                }
            }
            E::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    // `*x` on an element read from an array: the element.
                    syn::UnOp::Deref(_) if self.is_float_local(&u.expr) => {
                        return self.expr(&u.expr, out)
                    }
                    _ => return self.opaque(e, out),
                };
                let a = self.expr(&u.expr, out)?;
                let ty = a.ty.clone();
                Some(self.def(Op::Unary(op, a.operand), ty, e, out))
            }
            E::Binary(b) => {
                if compound_op(&b.op).is_some() {
                    error(self, e, "#[grad] does not support an assignment inside an expression: make it a statement of its own");
                    return None;
                }
                let op = bin_op(&b.op);
                if matches!(op, BinOp::Other("&&") | BinOp::Other("||")) {
                    // Short-circuit: the right side may not run, so it is not
                    // split into Wengert entries.
                    return self.opaque_typed(e, Ty::Bool, out);
                }
                let l = self.expr(&b.left, out)?;
                let r = self.expr(&b.right, out)?;
                let ty = match op {
                    BinOp::Other("==" | "!=" | "<" | "<=" | ">" | ">=") => Ty::Bool,
                    BinOp::Other("<<" | ">>") => l.ty.clone(),
                    _ => join(&l.ty, &r.ty),
                };
                Some(self.def(Op::Binary(op, l.operand, r.operand), ty, e, out))
            }
            E::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "sum" | "fold")
                    && self.reduction(m).is_some() =>
            {
                let loop_form = self.reduction(m)?;
                self.expr(&loop_form, out)
            }
            E::MethodCall(m) if m.turbofish.is_none() => {
                let recv = self.expr(&m.receiver, out)?;
                let mut args = Vec::new();
                for a in &m.args {
                    args.push(self.expr(a, out)?);
                }
                let name = m.method.to_string();
                let ty = if rules::method(&name).is_some() {
                    match &recv.ty {
                        Ty::Int => Ty::Int,
                        t if t.is_float() && *t != Ty::FloatLit => t.clone(),
                        t => args.iter().map(|a| &a.ty).fold(t.clone(), |acc, t| {
                            if t.is_float() {
                                join(&acc, t)
                            } else {
                                acc
                            }
                        }),
                    }
                } else {
                    match rules::inactive_method(&name) {
                        Some(rules::InactiveResult::Bool) => Ty::Bool,
                        Some(rules::InactiveResult::Int) => Ty::Int,
                        None => Ty::Unknown,
                    }
                };
                // A method of the user's (`self.energy(x)`) with float
                // arguments: differentiated through its `_grad`, like a call.
                let user_method = rules::method(&name).is_none()
                    && rules::inactive_method(&name).is_none()
                    && recv.ty == Ty::Unknown
                    && args.iter().any(|a| a.ty.is_float());
                if user_method {
                    let partials = args
                        .iter()
                        .map(|a| {
                            let t = match &a.ty {
                                Ty::Float(f) => Ty::Float(*f),
                                Ty::FloatLit | Ty::Unknown => Ty::Float(self.default_float),
                                _ => return None,
                            };
                            Some(self.new_value(None, t, ValueKind::Def, e.span()))
                        })
                        .collect();
                    let op = Op::GradMethod {
                        name: m.method.clone(),
                        recv: recv.operand,
                        args: args.into_iter().map(|a| a.operand).collect(),
                        partials,
                    };
                    return Some(self.def(op, Ty::Float(self.default_float), e, out));
                }
                let op = Op::Method {
                    name: m.method.clone(),
                    recv: recv.operand,
                    args: args.into_iter().map(|a| a.operand).collect(),
                };
                Some(self.def(op, ty, e, out))
            }
            E::Call(c) if self.kernel_call(c).is_some() => {
                let (kernel, path) = self.kernel_call(c)?;
                if kernel.returns_array {
                    error(self, e, format!(
                        "#[grad] needs the `Vec` that `{}` returns bound to a name: write `let y = {}(..);` at the top level of the function body",
                        kernel.name, kernel.name
                    ));
                    return None;
                }
                let (args, elem) = self.kernel_args(kernel, c, out)?;
                Some(self.def(Op::Kernel { kernel, path, args }, Ty::Float(elem), e, out))
            }
            E::Call(c) => {
                let path = match &*c.func {
                    E::Path(p) if p.qself.is_none() && !self.is_local_path(&p.path) => {
                        p.path.clone()
                    }
                    _ => return self.opaque(e, out),
                };
                let mut args = Vec::new();
                for a in &c.args {
                    args.push(self.expr(a, out)?);
                }
                // `f64::from(x)`: a lossless conversion, the same as a cast.
                let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
                if let ([float, from], [arg]) = (segs.as_slice(), args.as_slice()) {
                    if from == "from" && (float == "f64" || float == "f32") {
                        let target: syn::Type = syn::parse_str(float).expect("a float type");
                        let ty = ty_of(&target);
                        return Some(self.def(
                            Op::Cast(arg.operand.clone(), Box::new(target)),
                            ty,
                            e,
                            out,
                        ));
                    }
                }
                let ty = call_type(&path, &args);
                // A call to another function may be to a `#[grad]` one: its
                // `_grad` gives the partial derivatives of the float
                // arguments, kept in values of their own.
                let partials = if calls_grad_function(&path) {
                    args.iter()
                        .map(|a| {
                            let t = match &a.ty {
                                Ty::Float(f) => Ty::Float(*f),
                                Ty::FloatLit | Ty::Unknown => Ty::Float(self.default_float),
                                _ => return None,
                            };
                            Some(self.new_value(None, t, ValueKind::Def, e.span()))
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                // Only a call with float arguments can be differentiated; its
                // result is a float then.
                let partials = if args.iter().any(|a| a.ty.is_float()) {
                    partials
                } else {
                    Vec::new()
                };
                let ty = if partials.is_empty() {
                    ty
                } else {
                    Ty::Float(self.default_float)
                };
                let op = Op::Call {
                    path,
                    args: args.into_iter().map(|a| a.operand).collect(),
                    partials,
                };
                Some(self.def(op, ty, e, out))
            }
            E::Index(_) if self.array_place(e).is_some() => {
                let (array, index) = self.array_place(e)?;
                let mut ops = Vec::new();
                for i in index {
                    ops.push(self.expr(i, out)?.operand);
                }
                let elem = self.values[array.0].ty.array().map(|a| a.elem)?;
                Some(self.def(Op::Load { array, index: ops }, Ty::Float(elem), e, out))
            }
            E::Cast(c) => {
                let a = self.expr(&c.expr, out)?;
                let ty = ty_of(&c.ty);
                Some(self.def(Op::Cast(a.operand, c.ty.clone()), ty, e, out))
            }
            E::Block(b) if b.label.is_none() => self.block(&b.block, out, Mode::Value),
            E::If(x) if !matches!(*x.cond, syn::Expr::Let(_)) => self.lower_if(x, out, Mode::Value),
            E::Match(m) => self.lower_match(m, out, Mode::Value),
            E::Assign(_) => {
                error(self, e, "#[grad] does not support an assignment inside an expression: make it a statement of its own");
                None
            }
            // Branches, loops, closures, macro calls, fields, indexing, ...:
            // kept as written, and refused by activity analysis where a
            // derivative would have to pass through them.
            _ => self.opaque(e, out),
        }
    }

    fn is_local_path(&self, path: &syn::Path) -> bool {
        path.get_ident()
            .is_some_and(|i| self.lookup(&i.to_string()).is_some())
    }

    fn def(&mut self, op: Op, ty: Ty, e: &syn::Expr, out: &mut Vec<Inst>) -> Lowered {
        let v = self.new_value(None, ty.clone(), ValueKind::Def, e.span());
        out.push(Inst::Def {
            dst: v,
            op,
            written: None,
            span: e.span(),
        });
        Lowered {
            operand: Operand::Value(v),
            ty,
        }
    }

    fn opaque(&mut self, e: &syn::Expr, out: &mut Vec<Inst>) -> Option<Lowered> {
        self.opaque_typed(e, Ty::Unknown, out)
    }

    /// An expression kept as written (a macro call, a field, an index, a
    /// tuple, ...).
    fn opaque_typed(&mut self, e: &syn::Expr, ty: Ty, out: &mut Vec<Inst>) -> Option<Lowered> {
        if !self.check_opaque(e) {
            return None;
        }
        let reads = self.reads_of_expr(e);
        Some(self.def(
            Op::Opaque {
                expr: e.clone(),
                reads,
            },
            ty,
            e,
            out,
        ))
    }

    /// Refuses, inside code kept as written, what would change a modelled
    /// variable behind the macro's back or hide control flow. Returns
    /// whether the expression is acceptable.
    fn check_opaque(&mut self, e: &syn::Expr) -> bool {
        struct Check<'c> {
            cx: &'c mut Lowerer,
            ok: bool,
            /// The constructs around the expression being visited.
            within: Vec<Within>,
        }
        impl Check<'_> {
            /// The modelled local a place expression changes, if any.
            fn modelled(&self, place: &syn::Expr) -> Option<String> {
                let n = base_local(place)?;
                match self.cx.lookup(&n) {
                    Some(Binding::Value(v)) if self.cx.values[v.0].kind == ValueKind::Opaque => {
                        None
                    }
                    Some(_) => Some(n),
                    None => None,
                }
            }

            fn refuse(&mut self, tokens: impl ToTokens, msg: String) {
                error(self.cx, tokens, msg);
                self.ok = false;
            }

            fn changes(&mut self, e: &syn::Expr, place: &syn::Expr) {
                if let Some(n) = self.modelled(place) {
                    let within = self.within.last().copied().unwrap_or(Within::Expression);
                    self.refuse(e, changed_inside_message(&n, within));
                }
            }
        }
        impl<'a> Visit<'a> for Check<'_> {
            fn visit_expr(&mut self, e: &'a syn::Expr) {
                use syn::Expr as E;
                let within = match e {
                    E::If(_) | E::Match(_) => Some(Within::Branch),
                    E::ForLoop(_) | E::While(_) | E::Loop(_) => Some(Within::Loop),
                    E::Closure(_) => Some(Within::Closure),
                    _ => None,
                };
                match e {
                    E::Return(_) | E::Try(_) | E::Await(_) | E::Async(_) | E::Yield(_) => {
                        self.refuse(control_flow_token(e), control_flow_message(e));
                    }
                    E::Reference(r) if r.mutability.is_some() => {
                        if let Some(n) = self.modelled(&r.expr) {
                            self.refuse(e, format!(
                                "#[grad] cannot follow changes made through `&mut {n}`: assign `{n}` directly, as in `{n} = ...` or `{n} += ...`"
                            ));
                        }
                    }
                    E::MethodCall(m) => {
                        let name = m.method.to_string();
                        let read_only = [
                            "len", "is_empty", "iter", "first", "last", "get", "contains",
                            "to_vec", "clone", "as_slice",
                        ];
                        if let Some(n) = base_local(&m.receiver) {
                            let array = matches!(self.cx.lookup(&n), Some(Binding::Value(v)) if self.cx.values[v.0].ty.array().is_some());
                            if array && !read_only.contains(&name.as_str()) {
                                self.refuse(e, format!(
                                    "#[grad] cannot follow `{n}.{name}(..)`: it may change the array `{n}`, which #[grad] follows through `{n}[i] = ...` and `{n}.push(...)` only"
                                ));
                            }
                        }
                    }
                    E::Assign(a) => self.changes(e, &a.left),
                    E::Binary(b) if compound_op(&b.op).is_some() => self.changes(e, &b.left),
                    _ => {}
                }
                if let Some(w) = within {
                    self.within.push(w);
                }
                syn::visit::visit_expr(self, e);
                if within.is_some() {
                    self.within.pop();
                }
            }
        }
        let mut c = Check {
            cx: self,
            ok: true,
            within: vec![],
        };
        c.visit_expr(e);
        c.ok
    }

    /// The locals an expression reads, with the values they hold.
    fn reads_of_expr(&self, e: &syn::Expr) -> Reads {
        struct Paths<'c> {
            cx: &'c Lowerer,
            reads: Vec<(String, ValueId)>,
        }
        impl<'a> Visit<'a> for Paths<'_> {
            fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
                if let Some(i) = p.path.get_ident() {
                    self.cx.push_read(&i.to_string(), &mut self.reads);
                }
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                let inner = self.cx.reads_of_tokens(m.tokens.clone());
                for (n, _) in inner.0 {
                    self.cx.push_read(&n, &mut self.reads);
                }
            }
        }
        let mut p = Paths {
            cx: self,
            reads: vec![],
        };
        p.visit_expr(e);
        Reads(p.reads)
    }

    /// The locals that tokens of a macro call mention: identifiers that are
    /// not field or method names, and `{name}` captures in string literals.
    fn reads_of_tokens(&self, tokens: TokenStream) -> Reads {
        let mut reads = Vec::new();
        for n in token_idents(tokens) {
            self.push_read(&n, &mut reads);
        }
        Reads(reads)
    }

    fn push_read(&self, name: &str, reads: &mut Vec<(String, ValueId)>) {
        if reads.iter().any(|(n, _)| n == name) {
            return;
        }
        if let Some(Binding::Value(v)) = self.lookup(name) {
            reads.push((name.to_string(), *v));
        }
    }
}

/// The pieces of an array constructor.
enum ArrayParts<'e> {
    Filled(Box<(syn::Expr, syn::Expr)>),
    Repeat(&'e syn::Expr, &'e syn::Expr),
    List(Vec<syn::Expr>, bool),
    Empty(Option<&'e syn::Expr>),
}

/// `vec![v; n]`, `vec![a, b]`, `[v; N]`, `[a, b]`, `Vec::new()`,
/// `Vec::with_capacity(n)`.
fn array_init_parts(e: &syn::Expr) -> Option<ArrayParts<'_>> {
    use syn::parse::Parser;
    match e {
        syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = m.mac.tokens.clone();
            let filled = |input: syn::parse::ParseStream| -> syn::Result<(syn::Expr, syn::Expr)> {
                let v: syn::Expr = input.parse()?;
                let _: syn::Token![;] = input.parse()?;
                let n: syn::Expr = input.parse()?;
                Ok((v, n))
            };
            if let Ok((v, n)) = filled.parse2(tokens.clone()) {
                return Some(ArrayParts::Filled(Box::new((v, n))));
            }
            let list = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            let items = list.parse2(tokens).ok()?;
            Some(ArrayParts::List(items.into_iter().collect(), true))
        }
        syn::Expr::Repeat(r) => Some(ArrayParts::Repeat(&r.expr, &r.len)),
        syn::Expr::Array(a) => Some(ArrayParts::List(a.elems.iter().cloned().collect(), false)),
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return None;
            };
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match (
                segs.iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .as_slice(),
                c.args.len(),
            ) {
                ([.., "Vec", "new"], 0) => Some(ArrayParts::Empty(None)),
                ([.., "Vec", "with_capacity"], 1) => Some(ArrayParts::Empty(Some(&c.args[0]))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The names a reduction's closure gives the elements: `|v|`, `|&v|`,
/// `|(a, b)|`, `|(&a, &b)|`.
fn closure_names(input: &syn::Pat, count: usize) -> Option<Vec<syn::Pat>> {
    let strip = |p: &syn::Pat| -> syn::Pat {
        match p {
            syn::Pat::Reference(r) => (*r.pat).clone(),
            syn::Pat::Type(t) => (*t.pat).clone(),
            other => other.clone(),
        }
    };
    match (strip(input), count) {
        (syn::Pat::Tuple(t), n) if t.elems.len() == n && n > 1 => {
            Some(t.elems.iter().map(strip).collect())
        }
        (p @ syn::Pat::Ident(_), 1) => Some(vec![p]),
        _ => None,
    }
}

/// `xs`, `xs.iter()`, `xs.iter().copied()`, `xs.iter().cloned()`,
/// `xs.iter().enumerate()`: the array expression, and whether enumerated.
fn slice_iter(e: &syn::Expr) -> Option<(&syn::Expr, bool)> {
    match e {
        syn::Expr::Path(_) => Some((e, false)),
        syn::Expr::Reference(r) => slice_iter(&r.expr),
        syn::Expr::Paren(p) => slice_iter(&p.expr),
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
            let (inner, enumerated) = slice_iter(&m.receiver)?;
            match m.method.to_string().as_str() {
                "iter" | "into_iter" | "copied" | "cloned" if !enumerated => Some((inner, false)),
                "enumerate" if !enumerated => Some((inner, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The flag a `break` sets in a loop region.
const BREAK_FLAG: &str = "__broke";
/// The value a loop returns from the function with, and the flag that says
/// it did.
const RETURN_VALUE: &str = "__ret";
const RETURNED: &str = "__returned";

/// Whether an expression holds a `return` (not inside a closure).
fn has_return(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Return(_) => self.0 = true,
                syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}

fn stmt_has_return(stmt: &syn::Stmt) -> bool {
    match stmt {
        syn::Stmt::Expr(e, _) => has_return(e),
        syn::Stmt::Local(l) => l.init.as_ref().is_some_and(|i| has_return(&i.expr)),
        _ => false,
    }
}

/// Whether a statement holds a `break` or `continue` of the loop it is in
/// (not of an inner loop or closure).
fn has_jump(stmt: &syn::Stmt) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            match e {
                syn::Expr::Break(_) | syn::Expr::Continue(_) => self.0 = true,
                syn::Expr::ForLoop(_)
                | syn::Expr::While(_)
                | syn::Expr::Loop(_)
                | syn::Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Find(false);
    f.visit_stmt(stmt);
    f.0
}

/// A loop body's `break`s and `continue`s as structured code: where one
/// ends a branch of an `if`, the statements after the `if` go into the
/// other arms, `continue` ends its arm, and `break` sets [`BREAK_FLAG`],
/// which the loop tests at the end of the iteration. `None` if a jump
/// stands anywhere else, or has a label or a value.
fn rewrite_jumps(
    stmts: &[syn::Stmt],
    breaks: &mut bool,
    returns: bool,
    flag: &syn::Ident,
) -> Option<Vec<syn::Stmt>> {
    let ret = syn::Ident::new(RETURN_VALUE, Span::call_site());
    let returned = syn::Ident::new(RETURNED, Span::call_site());
    let mut out = Vec::new();
    for (i, stmt) in stmts.iter().enumerate() {
        let inner_return = returns
            && matches!(stmt, syn::Stmt::Expr(e @ (syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)), _) if has_return(e));
        if inner_return {
            // An inner loop that returns leaves this one too.
            out.push(stmt.clone());
            let leave: Vec<syn::Stmt> = std::iter::once(syn::parse_quote!(if #returned { break; }))
                .chain(stmts[i + 1..].iter().cloned())
                .collect();
            out.extend(rewrite_jumps(&leave, breaks, returns, flag)?);
            return Some(out);
        }
        if !(has_jump(stmt) || returns && stmt_has_return(stmt)) {
            out.push(stmt.clone());
            continue;
        }
        match stmt {
            syn::Stmt::Expr(syn::Expr::Return(r), _) if returns => {
                let value = r.expr.as_ref()?;
                *breaks = true;
                out.push(syn::parse_quote!(#ret = #value;));
                out.push(syn::parse_quote!(#returned = true;));
                out.push(syn::parse_quote!(#flag = true;));
                return Some(terminated(out));
            }
            syn::Stmt::Expr(syn::Expr::Break(b), _) if b.label.is_none() && b.expr.is_none() => {
                *breaks = true;
                out.push(syn::parse_quote!(#flag = true;));
                return Some(terminated(out));
            }
            syn::Stmt::Expr(syn::Expr::Continue(c), _) if c.label.is_none() => {
                return Some(terminated(out))
            }
            syn::Stmt::Expr(syn::Expr::If(x), _) if !matches!(*x.cond, syn::Expr::Let(_)) => {
                let rest = &stmts[i + 1..];
                let arm = |own: Vec<syn::Stmt>, breaks: &mut bool| -> Option<syn::Block> {
                    let all: Vec<syn::Stmt> = own.into_iter().chain(rest.iter().cloned()).collect();
                    Some(syn::Block {
                        brace_token: Default::default(),
                        stmts: rewrite_jumps(&terminated(all), breaks, returns, flag)?,
                    })
                };
                let mut new = x.clone();
                new.then_branch = arm(x.then_branch.stmts.clone(), breaks)?;
                let else_own = match &x.else_branch {
                    None => Vec::new(),
                    Some((_, e)) => match &**e {
                        syn::Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
                        syn::Expr::If(_) => vec![syn::Stmt::Expr((**e).clone(), None)],
                        _ => return None,
                    },
                };
                let else_block = arm(else_own, breaks)?;
                new.else_branch = Some((
                    Default::default(),
                    Box::new(syn::Expr::Block(syn::ExprBlock {
                        attrs: vec![],
                        label: None,
                        block: else_block,
                    })),
                ));
                out.push(syn::Stmt::Expr(syn::Expr::If(new), None));
                return Some(out);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Statements joined from several places: every expression statement but
/// a block-like one gets its semicolon.
fn terminated(stmts: Vec<syn::Stmt>) -> Vec<syn::Stmt> {
    stmts
        .into_iter()
        .map(|s| match s {
            syn::Stmt::Expr(e, None)
                if !matches!(
                    e,
                    syn::Expr::If(_)
                        | syn::Expr::Match(_)
                        | syn::Expr::Block(_)
                        | syn::Expr::ForLoop(_)
                        | syn::Expr::While(_)
                        | syn::Expr::Loop(_)
                ) =>
            {
                syn::Stmt::Expr(e, Some(Default::default()))
            }
            other => other,
        })
        .collect()
}

/// Syntax that [`Lowerer::assigned_in`] can visit.
trait ToTokensVisit {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>);
}

impl ToTokensVisit for syn::Expr {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>) {
        v.visit_expr(self);
    }
}

impl ToTokensVisit for syn::Block {
    fn visit_with<'a>(&'a self, v: &mut dyn Visit<'a>) {
        v.visit_block(self);
    }
}

/// The innermost binding of `name` in `scopes`.
fn find_binding<'s>(scopes: &'s [HashMap<String, Binding>], name: &str) -> Option<&'s Binding> {
    scopes.iter().rev().find_map(|s| s.get(name))
}

/// The pieces of a range loop's iterator, as written.
struct RangeParts<'e> {
    start: &'e syn::Expr,
    end: &'e syn::Expr,
    inclusive: bool,
    /// `None` for `.rev()`, `Some(k)` for `.step_by(k)`, innermost first.
    adaptors: Vec<Option<&'e syn::Expr>>,
}

/// `a..b`, `a..=b`, `(a..b).rev()`, `(a..b).step_by(k)` and chains of them.
fn range_parts(e: &syn::Expr) -> Option<RangeParts<'_>> {
    match e {
        syn::Expr::Paren(p) => range_parts(&p.expr),
        syn::Expr::Group(g) => range_parts(&g.expr),
        syn::Expr::Range(r) => Some(RangeParts {
            start: r.start.as_deref()?,
            end: r.end.as_deref()?,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            adaptors: Vec::new(),
        }),
        syn::Expr::MethodCall(m) if m.turbofish.is_none() => {
            let mut inner = range_parts(&m.receiver)?;
            match (m.method.to_string().as_str(), m.args.len()) {
                ("rev", 0) => inner.adaptors.push(None),
                ("step_by", 1) => inner.adaptors.push(Some(&m.args[0])),
                _ => return None,
            }
            Some(inner)
        }
        _ => None,
    }
}

/// Whether two bindings are the same.
fn same_binding(a: &Binding, b: &Binding) -> bool {
    match (a, b) {
        (Binding::Value(x), Binding::Value(y)) => x == y,
        (Binding::Uninit(_), Binding::Uninit(_)) => true,
        _ => false,
    }
}

/// Whether an arm ends by panicking (`panic!`, `unreachable!`, `todo!`,
/// `unimplemented!`).
fn arm_panics(src: &ArmSrc) -> bool {
    fn is_panic(mac: &syn::Macro) -> bool {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        matches!(
            name.as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    }
    fn stmt_panics(stmt: Option<&syn::Stmt>) -> bool {
        match stmt {
            Some(syn::Stmt::Macro(m)) => is_panic(&m.mac),
            Some(syn::Stmt::Expr(e, _)) => expr_panics(e),
            _ => false,
        }
    }
    fn expr_panics(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Macro(m) => is_panic(&m.mac),
            syn::Expr::Block(b) if b.label.is_none() => stmt_panics(b.block.stmts.last()),
            _ => false,
        }
    }
    match src {
        ArmSrc::Block(b) => stmt_panics(b.stmts.last()),
        ArmSrc::Expr(e) => expr_panics(e),
        ArmSrc::Empty => false,
    }
}

/// A guard clause, `if c { ...; return v; }` followed by `rest`, as
/// `if c { ...; v } else { rest }`.
fn guard_clause(stmt: &syn::Stmt, rest: &[syn::Stmt]) -> Option<syn::Expr> {
    let syn::Stmt::Expr(syn::Expr::If(x), _) = stmt else {
        return None;
    };
    if x.else_branch.is_some()
        || !matches!(
            x.then_branch.stmts.last(),
            Some(syn::Stmt::Expr(syn::Expr::Return(_), _))
        )
    {
        return None;
    }
    let mut guarded = x.clone();
    let rest_block = syn::Block {
        brace_token: Default::default(),
        stmts: rest.to_vec(),
    };
    let else_expr: syn::Expr = syn::Expr::Block(syn::ExprBlock {
        attrs: vec![],
        label: None,
        block: rest_block,
    });
    guarded.else_branch = Some((Default::default(), Box::new(else_expr)));
    Some(syn::Expr::If(guarded))
}

/// Identifiers that may name locals in a macro's tokens.
fn token_idents(tokens: TokenStream) -> Vec<String> {
    let mut names = Vec::new();
    let mut prev_dot = false;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) => {
                let next_is_path = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!' || p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Joint);
                if !prev_dot && !next_is_path {
                    names.push(id.to_string());
                }
            }
            TokenTree::Group(g) => names.extend(token_idents(g.stream())),
            TokenTree::Literal(lit) => names.extend(format_captures(&lit.to_string())),
            TokenTree::Punct(_) => {}
        }
        prev_dot = matches!(tt, TokenTree::Punct(p) if p.as_char() == '.');
    }
    names
}

/// `{name}` and `{name:...}` in a string literal's text.
fn format_captures(lit: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !lit.starts_with('"') && !lit.starts_with('r') {
        return out;
    }
    let mut rest = lit;
    while let Some(pos) = rest.find('{') {
        rest = &rest[pos + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && matches!(rest[end..].chars().next(), Some('}' | ':'))
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Where code kept as written changes a modelled variable.
#[derive(Clone, Copy)]
enum Within {
    Branch,
    Loop,
    Closure,
    Expression,
}

fn changed_inside_message(name: &str, within: Within) -> String {
    let (place, instead) = match within {
        Within::Branch => (
            "a branch",
            format!("assign the value of the whole branch instead, as in `{name} = if c {{ a }} else {{ b }};`"),
        ),
        Within::Loop => (
            "this loop",
            "write it as a `for`, `while` or `loop` without a label, with `break` and `continue` only at the end of a branch of an `if`".to_string(),
        ),
        Within::Closure => ("a closure", "write the computation inline".to_string()),
        Within::Expression => (
            "an expression",
            format!("make the assignment a statement of its own, as in `{name} = ...;`"),
        ),
    };
    format!("#[grad] does not support changing `{name}` inside {place} yet: {instead}")
}

/// The local a place expression is rooted in: `v` for `v[i].x`.
fn base_local(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => base_local(&f.base),
        syn::Expr::Index(i) => base_local(&i.expr),
        syn::Expr::Paren(p) => base_local(&p.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => base_local(&u.expr),
        _ => None,
    }
}

/// The locals of `block` that some statement may change in place: the
/// receivers of method calls other than the float methods the rules table
/// knows, `&mut name`, and the names given to a macro that may write them.
fn changed_in_place(block: &syn::Block) -> std::collections::HashSet<String> {
    struct Find(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let name = m.method.to_string();
            if rules::method(&name).is_none() && rules::inactive_method(&name).is_none() {
                self.0.extend(base_local(&m.receiver));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some() {
                self.0.extend(base_local(&r.expr));
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if !is_read_only_macro(m) {
                self.0.extend(token_idents(m.tokens.clone()));
            }
        }
    }
    let mut find = Find(Default::default());
    find.visit_block(block);
    find.0
}

/// `name` or `name: Type`, by value.
fn simple_binding(pat: &syn::Pat) -> Option<(syn::Ident, Option<&syn::Type>)> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Some((p.ident.clone(), None))
        }
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                Some((p.ident.clone(), Some(&*t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

fn collect_pat_idents(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Idents<'o>(&'o mut Vec<syn::Ident>);
    impl<'a> Visit<'a> for Idents<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Idents(out).visit_pat(pat);
}

/// The standard macros that only read what they are given.
fn is_read_only_macro(mac: &syn::Macro) -> bool {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    matches!(
        name.as_str(),
        "println"
            | "print"
            | "eprintln"
            | "eprint"
            | "format"
            | "format_args"
            | "write"
            | "writeln"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "debug_assert_ne"
            | "panic"
            | "unreachable"
            | "todo"
            | "unimplemented"
            | "trace"
            | "debug"
            | "info"
            | "warn"
            | "error"
    )
}

/// A literal, a constant path or arithmetic on them: inactive, side-effect
/// free, emitted inline. Returns its type.
fn const_expr(e: &syn::Expr) -> Option<Ty> {
    use syn::Expr as E;
    match e {
        E::Lit(l) => Some(match &l.lit {
            syn::Lit::Float(f) => match f.suffix() {
                "f64" => Ty::Float(FloatTy::F64),
                "f32" => Ty::Float(FloatTy::F32),
                _ => Ty::FloatLit,
            },
            syn::Lit::Int(i) => match i.suffix() {
                "f64" => Ty::Float(FloatTy::F64),
                "f32" => Ty::Float(FloatTy::F32),
                _ => Ty::Int,
            },
            syn::Lit::Bool(_) => Ty::Bool,
            _ => return None,
        }),
        // Multi-segment paths: `std::f64::consts::PI`, `f64::EPSILON`.
        E::Path(p) if p.qself.is_none() && p.path.segments.len() > 1 => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let last = segs.last().map(String::as_str).unwrap_or("");
            let is_const = last
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if !is_const {
                return None;
            }
            Some(if segs.iter().any(|s| s == "f64") {
                Ty::Float(FloatTy::F64)
            } else if segs.iter().any(|s| s == "f32") {
                Ty::Float(FloatTy::F32)
            } else {
                Ty::Unknown
            })
        }
        E::Paren(p) => const_expr(&p.expr),
        E::Group(g) => const_expr(&g.expr),
        E::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => const_expr(&u.expr),
        E::Binary(b)
            if matches!(
                bin_op(&b.op),
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div
            ) =>
        {
            Some(join(&const_expr(&b.left)?, &const_expr(&b.right)?))
        }
        E::Cast(c) => {
            const_expr(&c.expr)?;
            Some(ty_of(&c.ty))
        }
        // `<T as autodiff::Float>::from_f64(2.0)`: a literal of a generic
        // float function.
        E::Call(c) if c.args.len() == 1 && matches!(&c.args[0], E::Lit(_)) => match &*c.func {
            E::Path(p)
                if p.qself.is_some()
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "from_f64") =>
            {
                generic_float().map(Ty::Float)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The type of an arithmetic result from its operands' types.
fn join(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Float(f), _) | (_, Ty::Float(f)) => Ty::Float(*f),
        (Ty::FloatLit, _) | (_, Ty::FloatLit) => Ty::FloatLit,
        (Ty::Int, Ty::Int) => Ty::Int,
        (Ty::Bool, Ty::Bool) => Ty::Bool,
        _ => Ty::Unknown,
    }
}

/// The type of a call's result.
fn call_type(path: &syn::Path, args: &[Lowered]) -> Ty {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = segs.last().map(String::as_str).unwrap_or("");
    if segs.len() == 2 && (segs[0] == "f64" || segs[0] == "f32") {
        if rules::method(last).is_some() {
            return if segs[0] == "f64" {
                Ty::Float(FloatTy::F64)
            } else {
                Ty::Float(FloatTy::F32)
            };
        }
        return Ty::Unknown;
    }
    if is_runtime_function(path) {
        return args.first().map(|a| a.ty.clone()).unwrap_or(Ty::Unknown);
    }
    Ty::Unknown
}

/// A call that is not to a runtime primitive or a float method in path
/// form (`f64::sin`): differentiated, where active, through the callee's
/// `_grad`.
pub fn calls_grad_function(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let float_method = segs.len() == 2 && (segs[0] == "f64" || segs[0] == "f32");
    !is_runtime_function(path) && !float_method
}

/// `sigmoid`, `autodiff::sigmoid`, `::autodiff::runtime::ml::sigmoid`, ...
pub fn is_runtime_function(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = segs.last().map(String::as_str).unwrap_or("");
    rules::function(last).is_some()
        && (segs.len() == 1 || segs[0] == "autodiff" || segs[0] == "autodiff_runtime")
}

fn bin_op(op: &syn::BinOp) -> BinOp {
    use syn::BinOp as B;
    match op {
        B::Add(_) | B::AddAssign(_) => BinOp::Add,
        B::Sub(_) | B::SubAssign(_) => BinOp::Sub,
        B::Mul(_) | B::MulAssign(_) => BinOp::Mul,
        B::Div(_) | B::DivAssign(_) => BinOp::Div,
        B::Rem(_) | B::RemAssign(_) => BinOp::Rem,
        B::And(_) => BinOp::Other("&&"),
        B::Or(_) => BinOp::Other("||"),
        B::BitXor(_) | B::BitXorAssign(_) => BinOp::Other("^"),
        B::BitAnd(_) | B::BitAndAssign(_) => BinOp::Other("&"),
        B::BitOr(_) | B::BitOrAssign(_) => BinOp::Other("|"),
        B::Shl(_) | B::ShlAssign(_) => BinOp::Other("<<"),
        B::Shr(_) | B::ShrAssign(_) => BinOp::Other(">>"),
        B::Eq(_) => BinOp::Other("=="),
        B::Lt(_) => BinOp::Other("<"),
        B::Le(_) => BinOp::Other("<="),
        B::Ne(_) => BinOp::Other("!="),
        B::Ge(_) => BinOp::Other(">="),
        B::Gt(_) => BinOp::Other(">"),
        _ => BinOp::Other("?"),
    }
}

/// The operator of a compound assignment (`+=` gives `+`).
fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    match op {
        B::AddAssign(_)
        | B::SubAssign(_)
        | B::MulAssign(_)
        | B::DivAssign(_)
        | B::RemAssign(_)
        | B::BitXorAssign(_)
        | B::BitAndAssign(_)
        | B::BitOrAssign(_)
        | B::ShlAssign(_)
        | B::ShrAssign(_) => Some(bin_op(op)),
        _ => None,
    }
}

/// The keyword of an expression that leaves the function.
fn control_flow_token(e: &syn::Expr) -> TokenStream {
    use syn::Expr as E;
    match e {
        E::Return(x) => x.return_token.to_token_stream(),
        E::Try(x) => x.question_token.to_token_stream(),
        E::Await(x) => x.await_token.to_token_stream(),
        E::Async(x) => x.async_token.to_token_stream(),
        _ => e.to_token_stream(),
    }
}

/// Why an expression that leaves the function, or could, is refused.
fn control_flow_message(e: &syn::Expr) -> String {
    use syn::Expr as E;
    let (what, instead) = match e {
        E::Return(_) => (
            "`return` before the last statement",
            "end the function with the returned value",
        ),
        E::Try(_) => (
            "the `?` operator",
            "handle the error before the differentiated computation",
        ),
        E::Await(_) | E::Async(_) => ("`async` code", "differentiate a synchronous function"),
        _ => ("`yield`", "differentiate a plain function"),
    };
    format!("#[grad] does not support {what} yet: {instead}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Options;

    fn lower_src(src: &str) -> Result<Function, syn::Error> {
        lower_ok(&syn::parse_str(src).unwrap(), &Options::default())
    }

    fn defs(f: &Function) -> Vec<String> {
        let mut out = Vec::new();
        f.body.walk(&mut |inst| {
            if let Inst::Def { dst, op, .. } = inst {
                let name = f
                    .value(*dst)
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("%{}", dst.0));
                let kind = match op {
                    Op::Copy(_) => "copy".to_string(),
                    Op::Unary(o, _) => format!("{o:?}"),
                    Op::Binary(o, ..) => o.symbol().to_string(),
                    Op::Method { name, .. } => format!(".{name}"),
                    Op::Call { path, .. } => path.to_token_stream().to_string(),
                    Op::Cast(..) => "as".to_string(),
                    Op::Opaque { .. } => "opaque".to_string(),
                    Op::Load { .. } => "load".to_string(),
                    Op::NewArray(_) => "array".to_string(),
                    Op::Kernel { kernel, .. } => kernel.name.to_string(),
                    Op::GradMethod { name, .. } => format!(".{name}_grad"),
                };
                out.push(format!("{name}={kind}"));
            }
        });
        out
    }

    #[test]
    fn straight_line_becomes_one_entry_per_operation() {
        let f = lower_src("fn f(x1: f64, x2: f64) -> f64 { (x1 - x2).powi(2) + (x1 + x2).cos() }")
            .unwrap();
        let unnamed = |d: &str| d.split_once('=').unwrap().1.to_string();
        assert_eq!(
            defs(&f).iter().map(|d| unnamed(d)).collect::<Vec<_>>(),
            ["-", ".powi", "+", ".cos", "+"]
        );
        assert_eq!(f.params.len(), 2);
        assert!(f.params.iter().all(|p| p.active));
    }

    #[test]
    fn shadowing_and_reassignment_make_new_values() {
        let f = lower_src("fn f(x: f64) -> f64 { let mut s = x * 2.0; s += x; let s = s * s; s }")
            .unwrap();
        assert_eq!(defs(&f), ["s=*", "s=+", "s=*"]);
        let named: Vec<ValueId> = f
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.name.as_deref() == Some("s"))
            .map(|(i, _)| ValueId(i))
            .collect();
        assert_eq!(named.len(), 3, "three distinct values named s");
        assert!(matches!(f.ret, Operand::Value(v) if v == named[2]));
    }

    #[test]
    fn literals_and_constants_stay_inline() {
        let f = lower_src("fn f(x: f64) -> f64 { let c = 2.0_f64; x * c + std::f64::consts::PI }")
            .unwrap();
        assert_eq!(
            defs(&f),
            ["c=copy", "%3=*", "%4=+"].map(|s| s
                .replace("%3", &format!("%{}", 2))
                .replace("%4", &format!("%{}", 3)))
        );
    }

    #[test]
    fn casts_and_integers_are_typed() {
        let f = lower_src("fn f(x: f64, n: i32) -> f64 { let k = n * 2; x * k as f64 }").unwrap();
        let k = f
            .values
            .iter()
            .find(|v| v.name.as_deref() == Some("k"))
            .unwrap();
        assert_eq!(k.ty, Ty::Int);
        assert!(!f.params[1].active);
    }

    #[test]
    fn unmodelled_lets_are_verbatim() {
        let f = lower_src("fn f(x: f64) -> f64 { let v = vec![\"a\", \"b\"]; x * v.len() as f64 }")
            .unwrap();
        assert!(matches!(f.body.insts[0], Inst::Verbatim { ref defs, .. } if defs.len() == 1));
    }

    #[test]
    fn float_arrays_are_modelled() {
        let f = lower_src(
            "fn f(x: &[f64]) -> f64 { let mut z = vec![0.0; 2]; z[1] = x[0]; z[1] * 2.0 }",
        )
        .unwrap();
        assert!(matches!(
            f.value(f.params[0].value).ty,
            Ty::Array(ArrayTy {
                shape: Shape::Vec,
                ..
            })
        ));
        let kinds: Vec<&str> = f
            .body
            .insts
            .iter()
            .map(|i| match i {
                Inst::Def {
                    op: Op::NewArray(_),
                    ..
                } => "new",
                Inst::Def {
                    op: Op::Load { .. },
                    ..
                } => "load",
                Inst::Store { .. } => "store",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["new", "load", "store", "load", "other"]);
    }

    #[test]
    fn every_error_is_reported() {
        let err = lower_src("fn f(x: f64) -> f64 { let s = 0.0; let a = { return 1.0; }; let b = (|| s += 1.0)(); let c = &mut s; x }").unwrap_err();
        assert_eq!(err.into_iter().count(), 3);
    }

    #[test]
    fn loops_and_closures_off_the_active_path_are_kept_as_written() {
        let f = lower_src("fn f(x: f64, n: usize) -> f64 { let k = if n > 2 { 1.0 } else { 2.0 }; let w: Vec<f64> = (0..n).map(|i| i as f64).collect(); for i in 0..n { println!(\"{i}\"); } x * k }").unwrap();
        let verbatim = f
            .body
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Verbatim { .. }))
            .count();
        // The vector is a value whose type rustc decides (a method chain
        // the macro names but does not differentiate); the loop is kept as
        // written.
        assert_eq!(verbatim, 1, "the loop");
        assert!(
            matches!(f.body.insts[1], Inst::Branch(_)),
            "the `if` is a branch"
        );
    }

    #[test]
    fn branches_merge_what_their_arms_assign() {
        let f = lower_src("fn f(x: f64) -> f64 { let mut s = x; let t; if x > 0.0 { s = s * 2.0; t = 1.0; } else { t = 2.0; } s + t }").unwrap();
        let Inst::Branch(br) = &f.body.insts[2] else {
            panic!("a branch")
        };
        let merged: Vec<&str> = br
            .merges
            .iter()
            .map(|m| f.value(m.dst).name.as_deref().unwrap())
            .collect();
        assert_eq!(merged, ["s", "t"]);
        let Inst::Def { dst: s_before, .. } = &f.body.insts[0] else {
            panic!("s = x")
        };
        assert!(
            matches!(br.merges[0].arms[1], Operand::Value(v) if v == *s_before),
            "s is unchanged on the else arm"
        );
    }

    #[test]
    fn guard_clauses_take_the_rest_as_else() {
        let f = lower_src("fn f(x: f64) -> f64 { if x < 0.0 { return -x; } let y = x * 2.0; y }")
            .unwrap();
        let Inst::Branch(br) = &f.body.insts[1] else {
            panic!("a branch")
        };
        assert_eq!(br.arms.len(), 2);
        assert!(matches!(f.ret, Operand::Value(v) if v == br.merges[0].dst));
    }

    #[test]
    fn wrt_must_name_float_parameters() {
        let item = syn::parse_str("fn f(x: f64, n: i32) -> f64 { x }").unwrap();
        let options = Options {
            wrt: Some(vec![
                syn::parse_str("n").unwrap(),
                syn::parse_str("z").unwrap(),
            ]),
            ..Options::default()
        };
        assert_eq!(
            lower_ok(&item, &options).unwrap_err().into_iter().count(),
            2
        );
    }

    #[test]
    fn format_captures_are_reads() {
        assert_eq!(format_captures("\"x = {x} {{y}} {z:.3} {0}\""), ["x", "z"]);
    }
}
