//! Emission: IR and reverse sweep to Rust tokens, with the Wengert list as
//! the generated function's doc comment.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::analysis::activity::Activity;
use crate::diag::show;
use crate::emit::names::Names;
use crate::ir::*;
use crate::reverse::{AdjStmt, CarriedAdjoint, Gradient};
use crate::rules::Rule;
use windows::AdjointAt;

mod adjoints;
mod checkpoint;
mod doc;
mod float_reads;
mod forward;
mod forward_branch;
mod grad_fn;
pub mod hessian;
mod jacobian;
mod jacobian_forward;
mod jvp;
mod lent_checks;
pub mod nalgebra;
pub mod names;
mod ops;
mod pullbacks;
mod reverse;
mod scalar_vjp;
mod siblings;
mod slots;
mod stacks;
mod trace;
mod verbatim;
mod windows;

use doc::*;
pub use doc::{wengert_const, wengert_dot_const};
use forward::*;
use grad_fn::inputs;
pub use grad_fn::{custom_gradient_fn, gradient_fn};
pub use hessian::hessian_fns;
use jacobian::*;
use jacobian_forward::forward_jacobian_fn;
pub use jvp::{jvp_fn, no_jvp_fns};
use reverse::*;
use scalar_vjp::scalar_vjp_fn;
pub use siblings::{in_impl, own_item};
use siblings::{own_copy, sibling_path};
pub use slots::{
    method_slots_call, method_slots_name, mut_slots_path, slots_name, slots_paths,
    value_dropped_slots,
};
use slots::{slots_fn, slots_fns, vector_output_scalar_slots, Form};
use trace::custom_trace_into;
pub use trace::trace_fn;

#[derive(Clone, Copy, PartialEq)]
enum Position {
    /// An argument or a `let` initialiser: no parentheses needed.
    Arg,
    /// A receiver or an operand of an operator.
    Tight,
}

struct Emitter<'a> {
    f: &'a Function,
    a: &'a Activity,
    names: &'a mut Names,
    /// Inside a block kept as a block: the declarations moved before it,
    /// so that the reverse sweep sees the values defined inside.
    hoisted: Option<Vec<TokenStream>>,
    /// The primal values the reverse sweep reads: a branch passes out those
    /// its arms define.
    reverse_reads: std::collections::HashSet<ValueId>,
    /// The values read anywhere, forward or reverse: a value the branch or
    /// loop defining it outputs but nothing reads is not bound.
    used: std::collections::HashSet<ValueId>,
    /// Names for the contributions of a multi-argument pullback.
    partials: Vec<syn::Ident>,
    /// Per loop, the values its forward iterations push.
    pushes: std::collections::HashMap<usize, Vec<ValueId>>,
    /// The value stacks used, one per loop that records, by loop id. Each
    /// holds the tuple of what one iteration records, its type inferred by
    /// rustc from the push: the macro never names a recorded value's type.
    stacks: std::collections::BTreeMap<usize, syn::Ident>,
    /// Per scratch vector a loop records whole (`Emitter::slabbed`): the
    /// slab its elements are copied onto, and the buffer the vector is
    /// taken from and given back to in every iteration.
    slabs: std::collections::BTreeMap<ValueId, (syn::Ident, syn::Ident)>,
    /// The copy a loop records of a sub-slice of a local array it lends
    /// (`Emitter::kept`).
    kept: std::collections::BTreeMap<ValueId, syn::Ident>,
    /// Per array declared in a loop's body with `vec![0.0; n]`, the buffer
    /// its adjoint is taken from and given back to in every reverse
    /// iteration, with the adjoint's type: declared once for the whole
    /// function, so that a reverse loop nested in another allocates once
    /// per call, not once per outer iteration.
    adjoint_buffers: std::collections::BTreeMap<ValueId, (syn::Ident, TokenStream)>,
    /// Inside a reverse loop: the iteration's values that were not recorded
    /// (no pullback reads them), passed as placeholders.
    unavailable: std::collections::HashSet<ValueId>,
    /// The arrays that stores or pushes change: bound with `mut`.
    mutated: std::collections::HashSet<ValueId>,
    /// The results of calls read in parts (`Function::parts_results`):
    /// structs, arrays, `Vec`s, lent to code kept as written.
    parts_results: std::collections::HashSet<ValueId>,
    /// The values the function makes itself (`Function::owned_values`):
    /// given to a call by value, a copy (`Emitter::call_args`).
    owned: std::collections::HashSet<ValueId>,
    /// What branch arms pass out wrapped (`Function::arm_exports`).
    arm_exports: ArmExports,
    /// Inside a reverse arm: the wrapped values an enclosing arm took out
    /// already (`let v = exported(&v);`), which an arm nested in it reads
    /// as they are (a struct an outer arm made, the shape of a nested
    /// arm's, `emit/pullbacks.rs`).
    taken_out: std::collections::HashSet<ValueId>,
    /// For a vector output: the code that seeds the outputs' adjoints from
    /// the caller's seed, placed before the reverse sweep.
    seeding: TokenStream,
    /// For a scalar output's `_vjp`: the seed its adjoint starts from,
    /// instead of one.
    scalar_seed: Option<syn::Ident>,
    /// The loads that read through a window in the loop being emitted
    /// (`windows.rs`), with the right-hand side that does.
    windowed: std::collections::HashMap<ValueId, TokenStream>,
    /// Inside a reverse loop: the adjoint elements it keeps in registers
    /// (`AdjStmt::Loop::registers`), by array and index, with the
    /// register's name.
    registers: Vec<((ValueId, Operand), syn::Ident)>,
    /// Inside a reverse loop: the adjoint elements added through a window
    /// of `Cell`s (`windows.rs`), by the load they are the reverse of.
    adjoint_windowed: std::collections::HashMap<ValueId, windows::AdjointAt>,
    /// The reverse sweep being emitted is the first attempt, with the
    /// unguarded product and quotient rules (`grad_fn::first_try`).
    unguarded: bool,
    /// The adjoints declared without a value whose first contribution is
    /// still to be written, as `=` (`Gradient::assigned`).
    pending: std::collections::HashSet<ValueId>,
    /// The carried headers whose adjoints the reverse iteration does not
    /// zero (`Gradient::restarted`).
    restarted: std::collections::HashSet<ValueId>,
    /// Per adjoint, how many contributions it receives: one assigned
    /// needs no `mut`.
    contributions: std::collections::HashMap<ValueId, usize>,
    /// Emitting iterations that record nothing: a checkpointed loop's
    /// plain run, with the loops inside it (`Run::Plain`).
    plain: bool,
    /// Per checkpointed loop, the names its forward and reverse code
    /// share (`checkpoint.rs`).
    checkpoints: std::collections::BTreeMap<usize, checkpoint::Names>,
    /// The values an active entry's rule reads as floats, through copies
    /// and loop variables (`float_reads::float_operands`): a pattern's binding
    /// among them is read as the float it is or refers to.
    float_operands: std::collections::HashSet<ValueId>,
    /// The values of a type the source does not state that an active
    /// float method is called on, with the method's name's span
    /// (`float_reads::float_receivers`).
    float_receivers: std::collections::HashMap<ValueId, proc_macro2::Span>,
    /// The call arguments whose derivative comes only through casts of
    /// values of unstated type, with those values
    /// (`analysis/casts.rs`).
    through_casts: std::collections::HashMap<ValueId, Vec<ValueId>>,
}

impl<'a> Emitter<'a> {
    /// An emitter of forward code only (`_trace`, `_jvp`): every value
    /// bound (a call's slots included), nothing recorded for a reverse
    /// sweep; `_grad`'s starts from it and says what its reverse sweep
    /// reads.
    fn forward_only(f: &'a Function, a: &'a Activity, names: &'a mut Names) -> Self {
        Emitter {
            f,
            a,
            names,
            hoisted: None,
            reverse_reads: std::collections::HashSet::new(),
            used: (0..f.values.len()).map(ValueId).collect(),
            partials: Vec::new(),
            pushes: std::collections::HashMap::new(),
            stacks: std::collections::BTreeMap::new(),
            slabs: std::collections::BTreeMap::new(),
            kept: std::collections::BTreeMap::new(),
            adjoint_buffers: std::collections::BTreeMap::new(),
            unavailable: std::collections::HashSet::new(),
            mutated: f.changed_in_place(),
            parts_results: f.parts_results(),
            owned: f.owned_values(),
            taken_out: Default::default(),
            arm_exports: f.arm_exports(),
            seeding: TokenStream::new(),
            scalar_seed: None,
            windowed: std::collections::HashMap::new(),
            registers: Vec::new(),
            adjoint_windowed: std::collections::HashMap::new(),
            unguarded: false,
            pending: Default::default(),
            restarted: Default::default(),
            contributions: Default::default(),
            plain: false,
            checkpoints: std::collections::BTreeMap::new(),
            float_operands: float_reads::float_operands(f, a),
            float_receivers: float_reads::float_receivers(f, a),
            through_casts: crate::analysis::casts::through_casts(f, a),
        }
    }
}

/// The types of the gradients of `grads`: each parameter's own, or its
/// array's gradient type.
fn gradient_types(f: &Function, grads: &[&Param]) -> Vec<TokenStream> {
    grads
        .iter()
        .map(|p| match &f.value(p.value).ty {
            Ty::Array(a) => gradient_ty(f, a),
            Ty::Composite(c) => c.grad_ty.to_token_stream(),
            _ => p.ty.to_token_stream(),
        })
        .collect()
}

/// The function's `cfg` and `cfg_attr` attributes, which every item the
/// expansion adds for it keeps, so that it exists where the function does.
fn cfg_attrs(item: &syn::ItemFn) -> impl Iterator<Item = &syn::Attribute> {
    item.attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
}

/// The attributes of the function that its gradient keeps: lints, `cfg`,
/// `inline`.
fn kept_attrs(item: &syn::ItemFn) -> impl Iterator<Item = &syn::Attribute> {
    item.attrs.iter().filter(|attr| {
        [
            "allow", "warn", "deny", "forbid", "expect", "cfg", "cfg_attr", "inline",
        ]
        .iter()
        .any(|k| attr.path().is_ident(k))
    })
}

/// The type of an array's gradient.
fn gradient_ty(f: &Function, a: &ArrayTy) -> TokenStream {
    let elem = f.float_ident(a.elem);
    match &a.shape {
        Shape::Vec => quote!(::std::vec::Vec<#elem>),
        Shape::Fixed(n) => {
            let n: TokenStream = n.parse().unwrap_or_default();
            quote!([#elem; #n])
        }
        Shape::Nested => quote!(::std::vec::Vec<::std::vec::Vec<#elem>>),
    }
}

/// The first statements of every generated function: the iterator
/// methods the generated code calls (`.rev()`, `.zip(..)`), in scope also
/// in a `#![no_implicit_prelude]` module, under no name of the user's;
/// and [`field_kinds_in_scope`].
fn iterator_in_scope(f: &Function) -> TokenStream {
    let kinds = field_kinds_in_scope(f);
    let iterator = iterator_import();
    let operators = operators_in_scope(f);
    quote!(#iterator #operators #kinds)
}

/// The operator traits whose methods the generated code calls where the
/// function wrote an operator on a struct (`v * 0.1` is `v.mul(0.1)`,
/// `lower/operators.rs`), in scope under no name, as the operator needs
/// none: a user who implements `std::ops::Mul` by its path imports
/// nothing.
fn operators_in_scope(f: &Function) -> TokenStream {
    const TRAITS: [(&str, &str); 10] = [
        ("add", "Add"),
        ("sub", "Sub"),
        ("mul", "Mul"),
        ("div", "Div"),
        ("rem", "Rem"),
        ("neg", "Neg"),
        ("add_assign", "AddAssign"),
        ("sub_assign", "SubAssign"),
        ("mul_assign", "MulAssign"),
        ("div_assign", "DivAssign"),
    ];
    let mut used = std::collections::BTreeSet::new();
    f.body.walk(&mut |inst| {
        let name = match inst {
            Inst::Def {
                op: Op::GradMethod { name, .. },
                ..
            } => Some(name.to_string()),
            Inst::Def {
                op: Op::VjpCall {
                    path, method: true, ..
                },
                ..
            } => path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        if let Some((_, t)) = TRAITS.iter().find(|(m, _)| Some(*m) == name.as_deref()) {
            used.insert(*t);
        }
    });
    let traits = used.into_iter().map(|t| format_ident!("{t}"));
    quote!(#(
        #[allow(unused_imports)]
        use ::core::ops::#traits as _;
    )*)
}

/// The iterator methods alone, for a function that runs no sweep of its
/// own but calls a copy of a sibling nested in it (`_jacobian`): the
/// copy brings its own field kinds, which a second trait in the
/// enclosing body would make ambiguous (E0034).
fn iterator_import() -> TokenStream {
    quote!(
        #[allow(unused_imports)]
        use ::core::iter::Iterator as _;
    )
}

/// The fields of structs the function reads or builds (`self.m`,
/// `Body { m: .. }`), in the order first met.
fn fields_named(f: &Function) -> Vec<syn::Member> {
    let mut out: Vec<syn::Member> = Vec::new();
    let mut add = |m: &syn::Member| {
        if !out.contains(m) {
            out.push(m.clone());
        }
    };
    f.body.walk(&mut |inst| {
        if let Inst::Def { op, .. } = inst {
            match op {
                Op::Project { path, .. } => path.iter().for_each(|s| {
                    if let Step::Field(m) = s {
                        add(m)
                    }
                }),
                Op::Construct { fields, .. } => fields.iter().for_each(|(m, _)| add(m)),
                Op::Field {
                    member,
                    constant: true,
                    ..
                } => add(member),
                _ => {}
            }
        }
    });
    out
}

/// `__autodiff_kind_m` for each field of [`fields_named`]: the method
/// `#[derive(Differentiable)]` gives each field of a struct
/// (`runtime::differentiable::ActiveField`, or `ConstantField` for one
/// marked `#[differentiable(constant)]`), and for any other type (a
/// tuple, a struct implementing the trait by hand) a trait in scope here
/// that answers `ActiveField` (the struct's own method comes first).
fn field_kinds_in_scope(f: &Function) -> Option<TokenStream> {
    let fields = fields_named(f);
    if fields.is_empty() {
        return None;
    }
    let methods = fields.iter().map(|m| {
        let method = crate::derive::kind_method(m);
        quote!(
            #[inline(always)]
            fn #method(&self) -> ::autodiff::runtime::differentiable::ActiveField {
                ::autodiff::runtime::differentiable::ActiveField
            }
        )
    });
    let t = syn::Ident::new("AutodiffFieldKinds", proc_macro2::Span::mixed_site());
    Some(quote!(
        #[allow(dead_code, non_snake_case)]
        trait #t { #(#methods)* }
        impl<AutodiffT: ?::core::marker::Sized> #t for AutodiffT {}
    ))
}

/// Whether the part `steps` of a value (`self.m`, `self.w[i]`,
/// `net.layer.b`) is in a field marked `#[differentiable(constant)]`, read
/// from `d` (the value's adjoint or tangent, of the value's type): a `bool`
/// rustc folds, `false` for a path without fields.
fn in_constant_field(e: &Emitter, d: &TokenStream, path: &[Step]) -> TokenStream {
    let mut checks = Vec::new();
    for (i, s) in path.iter().enumerate() {
        if let Step::Field(m) = s {
            let parent = path_tokens(e, &path[..i]);
            let method = crate::derive::kind_method(m);
            checks
                .push(quote!(::autodiff::runtime::differentiable::constant(#d #parent.#method())));
        }
    }
    match checks.is_empty() {
        true => quote!(false),
        false => quote!(#(#checks)||*),
    }
}

/// `: ty` for a `let` of a float of type `ty`, or nothing where the source
/// does not state it (`_`): rustc infers it from the uses.
fn annotation(ty: &syn::Ident) -> Option<TokenStream> {
    (ty != "_").then(|| quote!(: #ty))
}

/// Zeros in the shape of `array`.
fn zeros_like(f: &Function, array: &syn::Ident, a: &ArrayTy) -> TokenStream {
    let z = zero(f);
    match &a.shape {
        Shape::Vec => quote!(::std::vec![#z; #array.len()]),
        Shape::Fixed(n) => {
            let n: TokenStream = n.parse().unwrap_or_default();
            quote!([#z; #n])
        }
        Shape::Nested => quote!(#array.iter().map(|row| ::std::vec![#z; row.len()]).collect()),
    }
}

/// The float zero and one of the function: literals, or the runtime's
/// for a generic float type.
fn zero(f: &Function) -> TokenStream {
    match f.generic {
        Some(_) => quote!(::autodiff::runtime::float::zero()),
        None => quote!(0.0),
    }
}

fn one(f: &Function) -> TokenStream {
    match f.generic {
        Some(_) => quote!(::autodiff::runtime::float::one()),
        None => quote!(1.0),
    }
}

/// The type a generated function returns for `inner`, `(value,
/// gradients..)`: as is, or in the fallible function's wrapper,
/// `Result<inner, E>` or `Option<inner>`.
fn fallible_ty(f: &Function, inner: TokenStream) -> TokenStream {
    match &f.fallible {
        None => inner,
        Some(Fallible::Result(e)) => quote!(::core::result::Result<#inner, #e>),
        Some(Fallible::Option) => quote!(::core::option::Option<#inner>),
    }
}

/// What a generated function returns, `inner`, as its type says: in the
/// fallible function's `Ok` or `Some`.
fn fallible_value(f: &Function, inner: TokenStream) -> TokenStream {
    match &f.fallible {
        None => inner,
        Some(Fallible::Result(_)) => quote!(::core::result::Result::Ok(#inner)),
        Some(Fallible::Option) => quote!(::core::option::Option::Some(#inner)),
    }
}

/// `?` after a call of a fallible function or of its generated ones.
fn fallible_try(f: &Function) -> Option<TokenStream> {
    f.fallible.as_ref().map(|_| quote!(?))
}

/// The steps of a projection as code: `.w[i].b`.
fn path_tokens(e: &Emitter, path: &[Step]) -> TokenStream {
    path.iter()
        .map(|s| match s {
            Step::Field(m) => quote!(.#m),
            Step::Index(i) => {
                let i = e.operand(i, Position::Arg);
                quote!([#i])
            }
            Step::Range {
                start,
                end,
                inclusive,
            } => {
                let start = start.as_ref().map(|o| e.operand(o, Position::Arg));
                let end = end.as_ref().map(|o| e.operand(o, Position::Arg));
                match inclusive {
                    true => quote!([#start..=#end]),
                    false => quote!([#start..#end]),
                }
            }
        })
        .collect()
}

fn index_tokens(e: &Emitter, index: &[Operand]) -> TokenStream {
    index
        .iter()
        .map(|i| {
            let i = e.operand(i, Position::Arg);
            quote!([#i])
        })
        .collect()
}

impl Emitter<'_> {
    pub(super) fn operand(&self, o: &Operand, pos: Position) -> TokenStream {
        match o {
            Operand::Value(v) => self.names.forward(*v).into_token_stream(),
            Operand::Const(e) => {
                let atomic = matches!(
                    **e,
                    syn::Expr::Lit(_) | syn::Expr::Path(_) | syn::Expr::Paren(_)
                );
                if pos == Position::Tight && !atomic {
                    quote!((#e))
                } else {
                    e.into_token_stream()
                }
            }
        }
    }

    pub(super) fn block(&mut self, block: &Block) -> TokenStream {
        block.insts.iter().map(|inst| self.inst(inst)).collect()
    }

    /// The IR loop numbered `id`.
    pub(super) fn find_loop(&self, id: usize) -> Option<Loop> {
        let mut found = None;
        self.f.body.walk(&mut |inst| {
            if let Inst::Loop(l) = inst {
                if l.id == id {
                    found = Some((**l).clone());
                }
            }
        });
        found
    }

    /// The iterator of a range loop; `reversed` appends `.rev()`.
    pub(super) fn range(&self, r: &RangeIter, reversed: bool) -> TokenStream {
        let start = self.operand(&r.start, Position::Tight);
        let end = self.operand(&r.end, Position::Tight);
        let mut it = match (r.inclusive, r.adaptors.is_empty() && !reversed) {
            (true, true) => quote!(#start..=#end),
            (false, true) => quote!(#start..#end),
            (true, false) => quote!((#start..=#end)),
            (false, false) => quote!((#start..#end)),
        };
        for a in &r.adaptors {
            it = match a {
                Adaptor::Rev => quote!(#it.rev()),
                Adaptor::StepBy(k) => {
                    let k = self.operand(k, Position::Arg);
                    quote!(#it.step_by(#k))
                }
            };
        }
        if reversed {
            it = quote!(#it.rev());
        }
        it
    }

    pub(super) fn kernel_arg(&self, a: &KernelOperand) -> TokenStream {
        match a {
            KernelOperand::Array(v) => {
                let n = self.names.forward(*v);
                // A parameter taken by reference is a slice already.
                let by_ref = self
                    .f
                    .params
                    .iter()
                    .any(|p| p.value == *v && matches!(p.ty, syn::Type::Reference(_)));
                if by_ref {
                    quote!(#n)
                } else {
                    quote!(&#n)
                }
            }
            KernelOperand::Place { base, path } => {
                let n = self.names.forward(*base);
                let steps = path_tokens(self, path);
                quote!(&#n #steps)
            }
            KernelOperand::Value(o) => self.operand(o, Position::Arg),
        }
    }

    /// For an active call to a runtime function by a name that may be the
    /// user's own (`sigmoid(x)`): a statement that compiles only if the name
    /// is the runtime's function, whose pullback the reverse sweep uses.
    pub(super) fn same_function_check(&self, dst: ValueId, op: &Op) -> TokenStream {
        let (path, ours, ty) = match op {
            Op::Call {
                path,
                callee: crate::rules::Callee::Runtime { rule, bare: true },
                args,
                ..
            } if self.a.is_active(dst) => {
                let ours = runtime_path(rule, rule.name);
                let ty = self.adjoint_ty(dst);
                if ty == "_" {
                    // A float type the source does not state (a callee's
                    // result, `relu(helper(x))`): the arguments pin it, in
                    // a closure never run.
                    let span = syn::spanned::Spanned::span(path);
                    let args = args.iter().map(|a| self.operand(a, Position::Arg));
                    let rule = proc_macro2::Ident::new("rule", proc_macro2::Span::mixed_site());
                    return quote::quote_spanned!(span=> {
                        let #rule = #ours;
                        ::autodiff::runtime::same_function(#path, #rule);
                        let _ = || #rule(#(#args),*);
                    });
                }
                (path, ours, ty)
            }
            Op::Kernel { kernel, path, args } if self.a.is_active(dst) => {
                let elem = match &self.f.value(dst).ty {
                    Ty::Array(a) => Some(a.elem),
                    t => t.float(),
                };
                let ours = kernel_path(kernel.name);
                let Some(elem) = elem.filter(|e| *e != crate::ir::FloatTy::Inferred) else {
                    // Only parts of composites as arrays, or an array whose
                    // element type the source leaves to rustc (`vec![0.0;
                    // 3]`): rustc decides the float type, which a call in a
                    // closure never run pins.
                    let span = syn::spanned::Spanned::span(path);
                    let args = args.iter().map(|a| self.kernel_arg(a));
                    // Mixed-site: the user's own `kernel` stays visible in
                    // the arguments.
                    let kernel = proc_macro2::Ident::new("kernel", proc_macro2::Span::mixed_site());
                    return quote::quote_spanned!(span=> {
                        let #kernel = #ours;
                        ::autodiff::runtime::same_function(#path, #kernel);
                        let _ = || #kernel(#(#args),*);
                    });
                };
                (path, ours, self.f.float_ident(elem))
            }
            _ => return TokenStream::new(),
        };
        let span = syn::spanned::Spanned::span(path);
        quote::quote_spanned!(span=> ::autodiff::runtime::same_function(#path, #ours::<#ty>);)
    }
}

fn kernel_path(name: &str) -> TokenStream {
    let name = format_ident!("{}", name);
    quote!(::autodiff::runtime::kernels::#name)
}

fn runtime_path(rule: &Rule, name: &str) -> TokenStream {
    let module = format_ident!("{}", rule.module);
    let name = format_ident!("{}", name);
    quote!(::autodiff::runtime::#module::#name)
}

/// `tokens` (a generated name) with the span `at`, where an error about it
/// should point: the same name to rustc, which resolves generated names at
/// the call site as it does the user's.
pub(super) fn respan(tokens: TokenStream, at: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            t.set_span(at);
            t
        })
        .collect()
}
