//! Lowering: `syn::ItemFn` to the IR of [`crate::ir`].
//!
//! Every float, integer and boolean local becomes a chain of SSA values;
//! locals of other types (vectors, strings, user structs) and statements the
//! macro does not model are kept verbatim. Every construct that cannot be
//! lowered is reported as a spanned error, and lowering goes on so that all
//! errors of a function are reported together.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::attr::Options;
use crate::desugar::jumps::*;
use crate::desugar::outputs::vector_tail;
use crate::diag::combine;
use crate::ir::*;
use crate::rules;

mod arrays;
mod assign;
mod blocks;
pub(crate) use arrays::{array_init_parts, ArrayParts};
pub(crate) use opaque::{field_chain_root, may_leave_receiver, token_idents};
mod body_facts;
mod branch;
mod calls;
mod chains;
mod checkpoint;
mod closures;
mod expr;
mod expr_types;
mod float_vecs;
mod lets;
mod locals;
mod loops;
mod macros;
mod methods;
mod opaque;
mod operators;
mod places;
mod signature;
mod stmt;
mod struct_writers;
mod tuples;
mod vector_calls;
mod whole_changes;
mod writer_calls;

use expr_types::*;
use locals::*;
use opaque::*;
use places::*;
pub use signature::is_known_constant_type;
use signature::*;

/// Lowers `item` under `options`: the function, as far as it could be
/// lowered, and every error found. The function is missing only when its
/// returned value could not be lowered; it is partial when there are errors,
/// so that later stages can still report theirs. `receivers`: the structs
/// `desugar/local_structs.rs` builds for a method to be called on, built
/// whole here (`Op::Construct`) rather than kept as written.
pub fn lower(
    item: &syn::ItemFn,
    options: &Options,
    receivers: &std::collections::HashSet<String>,
) -> (Option<Function>, Option<syn::Error>) {
    // `Result<T, E>` and `Option<T>`: the function returning `T`, whose
    // errors leave as written (`desugar/fallible.rs`).
    let (unwrapped, fallible) = crate::desugar::fallible::unwrap(item.clone());
    // `x: &mut f64`: the float it holds on entry, changed in place
    // (`desugar/mut_params.rs`).
    let (unwrapped, written) = crate::desugar::mut_params::by_value(unwrapped);
    // `fn update(x: &mut f64, ..)`, `fn step(x: &mut f64, v: &mut f64, ..)`
    // or `fn scale(v: &mut [f64], k: f64)` returning nothing: the function
    // returning what it writes.
    let struct_writer =
        written.is_empty() && crate::desugar::struct_writers::struct_writer(&unwrapped).is_some();
    // A writer changing its struct in a way it does not follow: said
    // alone, as the rest of the body, lowered as no writer, would only
    // say it again less clearly.
    if let Some(e) = crate::desugar::struct_writers::refused(&unwrapped) {
        return (None, Some(e));
    }
    let (unwrapped, lent) = match crate::desugar::mut_params::writer(&unwrapped, &written) {
        Some((writer, lent)) => (writer, lent),
        None => (unwrapped, Vec::new()),
    };
    // Only a writer of one float takes it by `&mut` in its generated
    // functions, and writes it back; the others return what they write.
    let written = match lent.len() {
        0 | 1 => written,
        _ => Vec::new(),
    };
    // What a macro could change: also the `&mut` taken by value above
    // (`&mut self` of a struct writer, a float `&mut` parameter).
    let mutable = opaque::mutable_names(item);
    let item = &unwrapped;
    let mut cx = Lowerer::new(item);
    cx.facts.mutable.extend(mutable);
    cx.receivers = receivers.clone();
    cx.fallible = fallible.is_some();
    cx.writes_through_mut = !written.is_empty();
    // A struct writer's struct (`desugar/struct_writers.rs`): what it
    // changes is what it differentiates, unless `wrt` says otherwise.
    cx.lent_struct = match lent.as_slice() {
        [k] if struct_writer => Some(*k),
        _ => None,
    };
    let sig = &item.sig;
    check_signature(&mut cx, sig);
    let ret = return_type(&mut cx, sig);
    let (ret_ty, kind) = match ret {
        Some((t, k)) => (Some(t), k),
        None => (None, OutputKind::Scalar),
    };
    cx.ret_float = ret_ty.unwrap_or(FloatTy::Inferred);
    if let OutputKind::Struct(t, _) = &kind {
        cx.ret_struct = Some((**t).clone());
    }
    let params = cx.params(sig, options);
    cx.param_values = params.iter().map(|p| p.value).collect();
    cx.shared_params = params
        .iter()
        .filter(|p| matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_none()))
        .filter(|p| {
            let ty = &cx.values[p.value.0].ty;
            !ty.is_float() && ty.array().is_none()
        })
        .map(|p| p.value)
        .collect();
    let mut body = Vec::new();
    // A vector output's last expression is bound to names first, so that
    // its elements are values of the Wengert list.
    let block = vector_tail(
        &crate::desugar::outputs::return_as_tail(&item.block),
        match &kind {
            OutputKind::Scalar => crate::desugar::outputs::Output::Scalar,
            OutputKind::Struct(..) => crate::desugar::outputs::Output::Struct,
            OutputKind::Tuple(n) => crate::desugar::outputs::Output::Tuple(*n),
            OutputKind::Array(_) => match &item.sig.output {
                syn::ReturnType::Type(_, t) => crate::desugar::outputs::Output::Array(t.clone()),
                syn::ReturnType::Default => crate::desugar::outputs::Output::Scalar,
            },
        },
        &cx.internal.out,
    );
    // A vector output is bound at the end of the body (`vector_tail`).
    let early_return = match kind {
        OutputKind::Scalar => None,
        _ => crate::desugar::outputs::first_return(&block),
    };
    if let Some(r) = &early_return {
        let instead = match lent.len() {
            0 => "compute the outputs into variables (`let (a, b) = if c { .. } else { .. };`) and end with them",
            _ => "a writer of several floats may `return;` only as a guard clause at the top level of its body or of a branch (`if c { ..; return; }`); in a loop that ends the body, `break` instead",
        };
        error(&mut cx, r, format!("#[grad] differentiates a function returning a tuple or an array only where its body ends, not at a `return`: {instead}"));
    }
    let ret = cx.lower_body(&block, &mut body, ret_ty.is_some());
    let output = match &kind {
        // A return type refused (`-> [[f64; 2]; 2]`) is said once: the
        // body's tail is not read as a float output, whose refusals
        // would only repeat it.
        OutputKind::Scalar if ret_ty.is_none() => None,
        OutputKind::Scalar => Some(Output::Scalar),
        OutputKind::Tuple(n) => (0..*n)
            .map(|k| match cx.lookup(&format!("{}{k}", cx.internal.out)) {
                Some(Binding::Value(v)) => Some(Operand::Value(*v)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(Output::Tuple),
        OutputKind::Struct(t, hint) => match &ret {
            // A struct; or what a `#[grad]` call returned (`stepped(s)`,
            // `*self = self.stepped(dt)` in a struct writer), the struct,
            // through the callee's `_vjp` (`vector_calls.rs`).
            Some(Operand::Value(v))
                if cx.values[v.0].ty.composite().is_some()
                    || cx.values[v.0].ty == Ty::Unknown && cx.call_results.contains(v) =>
            {
                if cx.values[v.0].ty == Ty::Unknown {
                    cx.values[v.0].ty = Ty::Composite(Box::new(Composite {
                        grad_ty: (**t).clone(),
                        holder: Holder::Value,
                    }));
                }
                if cx.call_results.contains(v) {
                    cx.vector_results.insert(*v);
                }
                Some(Output::Struct(t.clone()))
            }
            _ if early_return.is_some() => None,
            // A struct writer refused already (its `wrt`): said once.
            _ if cx.lent_struct.is_some() && cx.errors.is_some() => None,
            _ if !hint.is_empty() => {
                let what = "#[grad] needs a function that returns floats: one `f64` or `f32`, a tuple of them, `[f64; M]` or `Vec<f64>`, or a struct";
                error(&mut cx, t, format!("{what}{hint}"));
                None
            }
            _ => {
                let tail = item.block.stmts.last().map(|s| s.to_token_stream());
                let at = tail.unwrap_or_else(|| item.block.to_token_stream());
                let t = crate::diag::show(&t.to_token_stream());
                // `type V3 = [f64; 3];` returned: an alias the macro
                // cannot see through, which it took for a struct.
                let array = match item.block.stmts.last() {
                    Some(syn::Stmt::Expr(syn::Expr::Array(a), None)) => Some(a.elems.len()),
                    Some(syn::Stmt::Expr(syn::Expr::Repeat(_), None)) => Some(0),
                    _ => None,
                };
                let msg = match array {
                    Some(n) => {
                        let n = if n == 0 { "M".to_string() } else { n.to_string() };
                        format!("#[grad] reads the return type `{t}` as a struct's name (it cannot see through a type alias), and this function ends with an array: write the array type in the signature, as in `-> [f64; {n}]`")
                    }
                    None => format!("#[grad] needs a function returning a struct to end with it built whole, `{t} {{ .. }}` with every field named, or a local struct so built, or a differentiated struct parameter"),
                };
                error(&mut cx, at, msg);
                None
            }
        },
        OutputKind::Array(a) => match &ret {
            Some(Operand::Value(v)) if cx.values[v.0].ty.array().is_some() => {
                Some(Output::Array(a.clone()))
            }
            _ if early_return.is_some() => None,
            _ => {
                match float_vecs::untyped_empty_vec(&item.block) {
                    Some(local) => error(&mut cx, local, "#[grad] needs the element type of the `Vec` this function returns where it is declared empty: write it, as in `let mut out: Vec<f64> = Vec::new();`"),
                    None => {
                        let tail = item.block.stmts.last().map(|s| s.to_token_stream());
                        let at = tail.unwrap_or_else(|| item.block.to_token_stream());
                        error(&mut cx, at, "#[grad] needs a function returning an array to end with a float array: a local `vec![..]`, `[..; M]` or list, or its name, or a `#[grad]` call's result (`layer(&h)`, `let out = layer(&h); out`)");
                    }
                }
                None
            }
        },
    };
    if (ret.is_none() || output.is_none()) && cx.errors.is_none() {
        error(&mut cx, &item.block, "#[grad] needs a function returning a tuple to end with a tuple of floats, as in `(a, b)`");
    }
    let mut body = Block { insts: body };
    // The value each `&mut` float parameter holds at the end.
    let written: Vec<(usize, Operand)> = written
        .into_iter()
        .filter_map(|k| {
            let name = params.get(k)?.ident.to_string();
            match cx.lookup(&name) {
                Some(Binding::Value(v)) => Some((k, Operand::Value(*v))),
                _ => None,
            }
        })
        .collect();
    // What the function gives back: read whole, whatever it is.
    let outputs: Vec<ValueId> = ret
        .iter()
        .chain(written.iter().map(|(_, v)| v))
        .chain(match &output {
            Some(Output::Tuple(elems)) => elems.iter().collect(),
            _ => Vec::new(),
        })
        .filter_map(Operand::value)
        .collect();
    if let Some(e) = vector_calls::read_in_parts(
        &mut body,
        &cx.call_results,
        &cx.vector_results,
        (&cx.values, &outputs),
    ) {
        combine(&mut cx.errors, e);
    }
    vector_calls::snapshot_arguments(&mut body, &mut cx.values);
    checkpoint::refuse_changed_after_checkpoint(&body, &cx.values, &mut cx.errors);
    let function = match (ret, output) {
        (Some(ret), Some(output)) => Some(Function {
            values: cx.values,
            params,
            body,
            ret,
            // A missing return type is an error already recorded.
            ret_ty: ret_ty.unwrap_or(FloatTy::F64),
            output,
            generic: cx
                .types
                .generic
                .as_ref()
                .map(|g| syn::Ident::new(g, item.sig.ident.span())),
            wrt_given: options.wrt.is_some(),
            fallible,
            written,
            lent,
            lent_calls: cx.lent_calls,
        }),
        _ => None,
    };
    (function, cx.errors)
}

/// The signature alone, for a function whose derivative is a custom
/// pullback (its body is not differentiated): the function with an empty
/// body, or the errors.
pub fn signature(item: &syn::ItemFn, options: &Options) -> Result<Function, syn::Error> {
    let mut cx = Lowerer::new(item);
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
            generic: cx
                .types
                .generic
                .as_ref()
                .map(|g| syn::Ident::new(g, sig.ident.span())),
            wrt_given: options.wrt.is_some(),
            fallible: None,
            written: Vec::new(),
            lent: Vec::new(),
            lent_calls: Vec::new(),
        }),
        (None, None) => Err(syn::Error::new_spanned(
            sig,
            "#[grad] needs a function that returns one float",
        )),
    }
}

/// Which parameters of `item` its gradient is taken with respect to, in
/// order (errors are the full lowering's to report).
pub fn activity(item: &syn::ItemFn, options: &Options) -> Vec<bool> {
    let mut cx = Lowerer::new(item);
    let params = cx.params(&item.sig, options);
    params.iter().map(|p| p.active).collect()
}

/// [`lower`] for tests: the function, or the errors.
#[cfg(test)]
pub fn lower_ok(item: &syn::ItemFn, options: &Options) -> Result<Function, syn::Error> {
    match lower(item, options, &Default::default()) {
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
    /// See [`lower`].
    receivers: std::collections::HashSet<String>,
    /// The structs built whole (`Op::Construct`), with what each field took.
    built: HashMap<ValueId, Vec<(syn::Member, Operand)>>,
    scopes: Vec<HashMap<String, Binding>>,
    errors: Option<syn::Error>,
    /// The next [`Loop::id`].
    loops: usize,
    /// The float type the function returns, as its signature states it
    /// ([`FloatTy::Inferred`] where it returns no float): the type of the
    /// value a `return` inside a loop carries out.
    ret_float: FloatTy,
    /// The struct the function returns (`-> P1`), whose literals are built
    /// as values even where no field depends on a parameter
    /// (`P1 { f0: C0 }`): a `Differentiable` struct, as the return needs.
    ret_struct: Option<syn::Type>,
    /// The scope depths where arrays may be declared: the function body's,
    /// and the body of each loop region and branch arm being lowered (an
    /// array there lives one iteration, or the arm, with an adjoint of its
    /// own in each).
    array_scopes: Vec<usize>,
    /// What the body says of its names before any statement is lowered.
    facts: body_facts::BodyFacts,
    /// The names a `match` (`if let`, `while let`) pattern binds: a `let`
    /// of one (`let acc = c;`, a fold's accumulator started from it) is a
    /// copy the lowering models, though its type is the pattern's to say.
    pattern_bound: std::collections::HashSet<ValueId>,
    /// How many loops have a break flag so far: each gets a name of its
    /// own, so that an inner loop's `break` never sets an outer loop's.
    break_flags: usize,
    /// The values read out of a composite (`let row = points[i];`): read by
    /// projection in turn (`row[0]`).
    projected: std::collections::HashSet<ValueId>,
    /// The results of calls to `#[grad]` functions: read by projection
    /// where the source reads them in parts (`d[0]`, `s.v`), which makes
    /// the call one through the callee's `_vjp` (`vector_calls.rs`).
    call_results: std::collections::HashSet<ValueId>,
    /// Floats of a type rustc infers: the elements of a `#[grad]` call's
    /// tuple, `let (x, y) = polar(r, t);` (a tuple output is of floats),
    /// and float arithmetic of them and of calls' results (`2.0 * y`).
    inferred_floats: std::collections::HashSet<ValueId>,
    /// The parameters' values, differentiated or not.
    param_values: std::collections::HashSet<ValueId>,
    /// Of those, the structs taken by `&` (`p: &P`, `&self`), whose
    /// methods that may be the user's leave them as they were in code kept
    /// as written (`Function::lent_calls`).
    shared_params: std::collections::HashSet<ValueId>,
    /// See [`Function::lent_calls`].
    lent_calls: Vec<LentCall>,
    /// The call results a `let` states a type of the user's for (`let p:
    /// V2 = make(a, b);`): their `p.len()` is the user's method, not a
    /// vector's length.
    struct_results: std::collections::HashSet<ValueId>,
    /// The values an operator of a struct, or its method, gave a struct
    /// (`let g = x * 2.0;`): an operator on them is their method too
    /// (`expr.rs`'s `struct_operand`).
    struct_values: std::collections::HashSet<ValueId>,
    /// Parameters whose methods are reached through a trait only (`dyn
    /// Sdf`, `S: Sdf`), and what code kept as written binds from them
    /// (`let s = &shapes[k];`): the `#[grad]` slots of a method are its
    /// type's own, which such a call cannot name.
    through_traits: std::collections::HashSet<ValueId>,
    /// Whether the function returns `Result` or `Option`: then `?`,
    /// `return Err(..)` and `return None` are kept as written, leaving the
    /// generated functions with the same error.
    fallible: bool,
    /// Whether a float parameter is taken by `&mut` (`Function::written`).
    writes_through_mut: bool,
    /// The index of the parameter a struct writer changes.
    lent_struct: Option<usize>,
    /// The calls whose results are arrays by the source's word (`let u:
    /// [f64; 3] = sub3(..)`, an argument `&u`): through `_vjp` however
    /// they are read.
    vector_results: std::collections::HashSet<ValueId>,
    /// What the source says of types.
    types: Types,
    /// The names the desugarings introduce, apart from the user's.
    internal: crate::desugar::internal::Internal,
    /// Closures bound by `let` (by the value their name holds) that calls
    /// lower inline.
    closures: HashMap<ValueId, std::rc::Rc<closures::ClosureDef>>,
    /// What each local closure's body may change, which a call of it kept
    /// as written changes (`Lowerer::record_closure_changes`).
    closure_changes: HashMap<ValueId, Vec<String>>,
    /// Parameters declared as slices, `Vec`s or arrays of something other
    /// than floats: iterator chains may index them.
    slices: std::collections::HashSet<ValueId>,
    /// Those of [`Self::slices`] whose elements are arrays of floats
    /// (`pts: &[[f64; 2]]`, constant data): rows, read in place (`for [x,
    /// y] in pts` binds `let x = pts[k][0];`).
    float_rows: std::collections::HashSet<ValueId>,
    /// Locals bound by a `let` to an array, slice or `Vec` of something
    /// other than floats (`let pairs = [(0, 1), (1, 2)];`), kept as
    /// written: iterator chains and loops may index them too.
    owned_slices: std::collections::HashSet<ValueId>,
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

/// `arr = &arr[1..]`, an array variable given another array: the loads
/// that follow would read the array the name held before, a wrong value
/// and gradient.
fn refuse_rebinding(cx: &mut Lowerer, node: impl ToTokens, name: &str) {
    error(cx, node, format!(
        "#[grad] cannot follow `{name}` rebound to another array or slice: keep `{name}` and index it with an offset instead, as in `{name}[start + i]`"
    ));
}

impl Lowerer {
    fn new(item: &syn::ItemFn) -> Lowerer {
        Lowerer {
            values: Vec::new(),
            receivers: Default::default(),
            built: HashMap::new(),
            scopes: Vec::new(),
            errors: None,
            loops: 0,
            ret_float: FloatTy::Inferred,
            ret_struct: None,
            array_scopes: vec![1],
            facts: body_facts::BodyFacts::of(item),
            pattern_bound: Default::default(),
            break_flags: 0,
            projected: Default::default(),
            call_results: Default::default(),
            inferred_floats: Default::default(),
            param_values: Default::default(),
            shared_params: Default::default(),
            lent_calls: Vec::new(),
            struct_results: Default::default(),
            struct_values: Default::default(),
            through_traits: Default::default(),
            fallible: false,
            writes_through_mut: false,
            lent_struct: None,
            vector_results: Default::default(),
            types: Types {
                generic: crate::desugar::generic::generic_param(&item.sig),
            },
            internal: crate::desugar::internal::Internal::new(quote::ToTokens::to_token_stream(
                item,
            )),
            closures: HashMap::new(),
            closure_changes: HashMap::new(),
            slices: Default::default(),
            float_rows: Default::default(),
            owned_slices: Default::default(),
        }
    }

    /// The float one of the function, as an expression.
    pub(super) fn float_one(&self, span: Span) -> syn::Expr {
        match &self.types.generic {
            Some(t) => {
                let t = syn::Ident::new(t, span);
                syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(1.0))
            }
            None => syn::parse_quote!(1.0),
        }
    }

    /// The float zero of the function, as an expression: `0.0`, or
    /// `<T as ::autodiff::Float>::from_f64(0.0)` in a generic function.
    pub(super) fn float_zero(&self, span: Span) -> syn::Expr {
        match &self.types.generic {
            Some(t) => {
                let t = syn::Ident::new(t, span);
                syn::parse_quote!(<#t as ::autodiff::Float>::from_f64(0.0))
            }
            None => syn::parse_quote!(0.0),
        }
    }

    /// The name of a float type here: `f64`, `f32`, the type parameter, or
    /// `_` where the source does not state it.
    pub(super) fn float_ident(&self, t: FloatTy, span: Span) -> syn::Ident {
        match (t, &self.types.generic) {
            (FloatTy::F32, _) => syn::Ident::new("f32", span),
            (FloatTy::Generic, Some(g)) => syn::Ident::new(g, span),
            (FloatTy::Inferred, _) => syn::Ident::new("_", span),
            _ => syn::Ident::new("f64", span),
        }
    }

    /// The value that receives a callee's slot for an argument of type
    /// `ty` written at `span` (where a slot that cannot be added in is
    /// reported): a float's partial has its type, any other the type
    /// rustc gives the callee's gradient.
    pub(super) fn slot(&mut self, ty: &Ty, span: Span) -> ValueId {
        let t = match ty {
            Ty::Float(f) => Ty::Float(*f),
            _ => Ty::Unknown,
        };
        self.new_value(None, t, ValueKind::Def, span)
    }

    pub(super) fn new_value(
        &mut self,
        name: Option<String>,
        ty: Ty,
        kind: ValueKind,
        span: Span,
    ) -> ValueId {
        self.values.push(Value {
            name,
            ty,
            kind,
            span,
        });
        ValueId(self.values.len() - 1)
    }

    pub(super) fn bind(&mut self, name: String, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name, binding);
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Whether `name` is a variable the lowering follows: a value of the
    /// Wengert list (an array included) or one declared without a value,
    /// not one kept as written.
    pub(super) fn follows(&self, name: &str) -> bool {
        match self.lookup(name) {
            Some(Binding::Value(v)) => self.values[v.0].kind != ValueKind::Opaque,
            Some(Binding::Uninit(_)) => true,
            None => false,
        }
    }

    /// Whether `name` is a float, an integer, an array or a struct the
    /// lowering follows by its values (a change it does not see is lost,
    /// or fails to compile where it binds the value without `mut`).
    pub(super) fn followed_by_value(&self, name: &str) -> bool {
        match self.lookup(name) {
            Some(Binding::Value(v)) => {
                let v = &self.values[v.0];
                v.kind != ValueKind::Opaque && v.ty != Ty::Unknown
            }
            _ => false,
        }
    }

    /// Rebinds an existing variable in the scope that declared it.
    pub(super) fn assign(&mut self, name: &str, v: ValueId) {
        if let Some(scope) = self.scopes.iter_mut().rev().find(|s| s.contains_key(name)) {
            scope.insert(name.to_string(), Binding::Value(v));
        }
    }
}

/// The innermost binding of `name` in `scopes`.
fn find_binding<'s>(scopes: &'s [HashMap<String, Binding>], name: &str) -> Option<&'s Binding> {
    scopes.iter().rev().find_map(|s| s.get(name))
}

/// Whether two bindings are the same.
fn same_binding(a: &Binding, b: &Binding) -> bool {
    match (a, b) {
        (Binding::Value(x), Binding::Value(y)) => x == y,
        (Binding::Uninit(_), Binding::Uninit(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
