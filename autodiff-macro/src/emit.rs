//! Emission: IR and reverse sweep to Rust tokens, with the Wengert list as
//! the generated function's doc comment.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::activity::Activity;
use crate::ir::*;
use crate::names::Names;
use crate::reverse::{AdjStmt, CarriedAdjoint, Gradient};
use crate::rules::Rule;

/// The `<name>_grad` function.
pub fn gradient_fn(item: &syn::ItemFn, f: &Function, a: &Activity, g: &Gradient) -> TokenStream {
    let mut names = Names::new(f, item.to_token_stream());
    let mut e = Emitter {
        f,
        a,
        names: &mut names,
        hoisted: None,
        reverse_reads: g.reads(),
        used: f.forward_uses().union(&g.reads()).copied().collect(),
        partials: Vec::new(),
        pushes: g.pushes(),
        stacks: std::collections::BTreeMap::new(),
        unavailable: std::collections::HashSet::new(),
        mutated: f.mutated_arrays(),
        seeding: TokenStream::new(),
        windowed: std::collections::HashMap::new(),
    };
    let seed = e.names.fresh("seed");
    e.seeding = match &f.output {
        Output::Scalar => TokenStream::new(),
        Output::Tuple(elems) => elems
            .iter()
            .enumerate()
            .filter_map(|(k, o)| {
                let v = o.value().filter(|v| a.is_active(*v))?;
                let d = e.names.adjoint(v);
                let k = syn::Index::from(k);
                Some(quote!(#d += #seed.#k;))
            })
            .collect(),
        Output::Array(_) => match f.ret.value().filter(|v| a.is_active(*v)) {
            Some(v) => {
                let d = e.names.adjoint(v);
                quote!(for (d, s) in #d.iter_mut().zip(#seed.iter()) { *d += *s; })
            }
            None => TokenStream::new(),
        },
    };
    let forward = e.body(&f.body);
    let reverse = e.reverse(g);
    let stacks = e.stack_declarations();
    let value = match &f.output {
        Output::Tuple(elems) => {
            let elems = elems.iter().map(|o| e.operand(o, Position::Arg));
            quote!((#(#elems),*))
        }
        _ => e.operand(&f.ret, Position::Arg),
    };

    let grads: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_idents: Vec<syn::Ident> = grads.iter().map(|p| e.names.adjoint(p.value)).collect();
    let grad_tys = gradient_types(f, &grads);
    let ret_ty = f.float_ident(f.ret_ty);

    let sig = &item.sig;
    let fname = &sig.ident;
    let name = format_ident!("{}_grad", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let type_params: Vec<&syn::Ident> = sig.generics.type_params().map(|t| &t.ident).collect();
    let turbofish = (!type_params.is_empty()).then(|| quote!(::<#(#type_params),*>));
    let self_path = match sig.receiver() {
        Some(_) => quote!(Self::#fname #turbofish),
        None => quote!(#fname #turbofish),
    };
    let inputs = sig
        .inputs
        .iter()
        .zip(&f.params)
        .map(|(arg, param)| match arg {
            syn::FnArg::Typed(t) if f.value(param.value).kind != ValueKind::Opaque => {
                let mut t = t.clone();
                if let syn::Pat::Ident(p) = &mut *t.pat {
                    // Reassigned scalars are new SSA values: no `mut` needed.
                    p.mutability = None;
                }
                t.into_token_stream()
            }
            other => other.into_token_stream(),
        })
        .collect::<Vec<TokenStream>>();
    let vis = &item.vis;
    let attrs = kept_attrs(item);
    let list = wengert_list(f, a, e.names);
    let doc = doc_comment(item, f, &list);
    let list_const = wengert_const(&sig.ident);
    // A vector output: `<name>_vjp(args.., seed)`, and `<name>_jacobian`.
    let (name, ret_ty, seed_param, jacobian) = match &f.output {
        Output::Scalar => (name, ret_ty.into_token_stream(), None, TokenStream::new()),
        _ => {
            let out_ty = match &sig.output {
                syn::ReturnType::Type(_, t) => t.to_token_stream(),
                syn::ReturnType::Default => quote!(()),
            };
            let seed_ty = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Vec,
                    elem,
                }) => {
                    let elem = f.float_ident(*elem);
                    quote!(&[#elem])
                }
                _ => out_ty.clone(),
            };
            let vjp = format_ident!("{}_vjp", fname);
            let jacobian = if e.stacks.is_empty() {
                // Nothing recorded: one forward sweep, then the reverse
                // sweep once per output.
                let locals = ["value", "rows", "row", "k"].map(|n| e.names.fresh(n));
                fused_jacobian_fn(
                    item,
                    f,
                    (&inputs, &seed, &locals),
                    (&forward, &reverse, &value),
                    &grads,
                    &grad_idents,
                )
            } else {
                // Its locals are named apart from every user name.
                let locals = ["value", "rows", "row", "k", "seed"].map(|n| e.names.fresh(n));
                let g: Vec<syn::Ident> = grads.iter().map(|_| e.names.fresh("g")).collect();
                jacobian_fn(item, f, (&vjp, &self_path), &grads, &locals, &g)
            };
            (vjp, out_ty, Some(quote!(#seed: #seed_ty)), jacobian)
        }
    };
    // `_vjp` takes one argument more than the function: a function of
    // seven parameters must not give its user clippy's warning for eight.
    let allow_seed = seed_param
        .is_some()
        .then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let inputs = inputs.into_iter().chain(seed_param);
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #list_const: &str = #list;

        #(#doc)*
        #(#attrs)*
        #allow_seed
        #vis fn #name #generics (#(#inputs),*) -> (#ret_ty, #(#grad_tys),*) #where_clause {
            #stacks
            #forward
            #reverse
            (#value, #(#grad_idents),*)
        }

        #jacobian
    }
}

/// The row of the Jacobian that the adjoints `g` of the active parameters
/// hold: their entries flattened in order.
fn flatten_row(f: &Function, grads: &[&Param], g: &[syn::Ident], row: &syn::Ident) -> TokenStream {
    grads
        .iter()
        .zip(g)
        .map(
            |(p, g)| match f.value(p.value).ty.array().map(|a| &a.shape) {
                None => quote!(#row.push(#g);),
                Some(Shape::Nested) => quote!(for r in #g.iter() { #row.extend_from_slice(r); }),
                Some(_) => quote!(#row.extend_from_slice(&#g);),
            },
        )
        .collect()
}

/// `<name>_jacobian` for a function whose reverse sweep reads no stack
/// (no loop records a value): the forward sweep once, then, for each
/// output, the reverse sweep seeded with that output's unit vector. The
/// adjoints are declared inside each pass, so every pass starts from zero.
fn fused_jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (inputs, seed, locals): (&[TokenStream], &syn::Ident, &[syn::Ident; 4]),
    (forward, reverse, value): (&TokenStream, &TokenStream, &TokenStream),
    grads: &[&Param],
    g: &[syn::Ident],
) -> TokenStream {
    let [out, rows, row, k] = locals;
    let sig = &item.sig;
    let vis = &item.vis;
    let name = format_ident!("{}_jacobian", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let out_ty = match &sig.output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let elem = f.float_ident(f.ret_ty);
    let flatten = flatten_row(f, grads, g, row);
    // The row's length: one per scalar, the length of each flat array.
    let width = grads
        .iter()
        .zip(g)
        .map(
            |(p, g)| match f.value(p.value).ty.array().map(|a| &a.shape) {
                None => quote!(1),
                Some(Shape::Nested) => quote!(#g.iter().map(|r| r.len()).sum::<usize>()),
                Some(_) => quote!(#g.len()),
            },
        )
        .reduce(|acc, w| quote!(#acc + #w))
        .unwrap_or_else(|| quote!(0));
    let (z, o) = (zero(f), one(f));
    let passes = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            (0..n)
                .map(|k| {
                    let unit = (0..n).map(|j| if j == k { o.clone() } else { z.clone() });
                    quote! {{
                        let #seed = (#(#unit),*);
                        #reverse
                        let mut #row = ::std::vec::Vec::with_capacity(#width);
                        #flatten
                        #rows.push(#row);
                    }}
                })
                .collect::<TokenStream>()
        }
        _ => {
            let zeros = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Fixed(m),
                    ..
                }) => {
                    let m: TokenStream = m.parse().unwrap_or_default();
                    quote!([#z; #m])
                }
                _ => quote!(::std::vec![#z; #out.len()]),
            };
            quote! {
                for #k in 0..#out.len() {
                    let mut #seed = #zeros;
                    #seed[#k] = #o;
                    #reverse
                    let mut #row = ::std::vec::Vec::with_capacity(#width);
                    #flatten
                    #rows.push(#row);
                }
            }
        }
    };
    let count = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            quote!(#n)
        }
        _ => quote!(#out.len()),
    };
    let doc = format!(" Value and Jacobian of [`{}`]: a row per output, a column per active input (flattened in order).", sig.ident);
    quote! {
        #[doc = #doc]
        #vis fn #name #generics (#(#inputs),*) -> (#out_ty, ::std::vec::Vec<::std::vec::Vec<#elem>>) #where_clause {
            #forward
            let #out = #value;
            let mut #rows = ::std::vec::Vec::with_capacity(#count);
            #passes
            (#out, #rows)
        }
    }
}

/// `<name>_jacobian(args..) -> (value, J)` for a vector output: one row per
/// output, from the vector-Jacobian product with each unit seed, and one
/// column per active input, flattened in order.
fn jacobian_fn(
    item: &syn::ItemFn,
    f: &Function,
    (vjp, call): (&syn::Ident, &TokenStream),
    grads: &[&Param],
    [value, rows_, row, k, seed_]: &[syn::Ident; 5],
    g: &[syn::Ident],
) -> TokenStream {
    let sig = &item.sig;
    let vis = &item.vis;
    let name = format_ident!("{}_jacobian", sig.ident);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let inputs = &sig.inputs;
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let out_ty = match &sig.output {
        syn::ReturnType::Type(_, t) => t.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let elem = f.float_ident(f.ret_ty);
    let flatten = flatten_row(f, grads, g, row);
    let (z, o) = (zero(f), one(f));
    let rows = match &f.output {
        Output::Tuple(elems) => {
            let n = elems.len();
            (0..n)
                .map(|k| {
                    let seed = (0..n).map(|j| if j == k { o.clone() } else { z.clone() });
                    quote! {{
                        let (_, #(#g),*) = #vjp(#(#args,)* (#(#seed),*));
                        let mut #row = ::std::vec::Vec::new();
                        #flatten
                        #rows_.push(#row);
                    }}
                })
                .collect::<TokenStream>()
        }
        _ => {
            let seed = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Fixed(m),
                    ..
                }) => {
                    let m: TokenStream = m.parse().unwrap_or_default();
                    quote!([#z; #m])
                }
                _ => quote!(::std::vec![#z; #value.len()]),
            };
            let pass = match &f.output {
                Output::Array(ArrayTy {
                    shape: Shape::Vec, ..
                }) => quote!(&#seed_),
                _ => quote!(#seed_),
            };
            quote! {
                for #k in 0..#value.len() {
                    let mut #seed_ = #seed;
                    #seed_[#k] = #o;
                    let (_, #(#g),*) = #vjp(#(#args,)* #pass);
                    let mut #row = ::std::vec::Vec::new();
                    #flatten
                    #rows_.push(#row);
                }
            }
        }
    };
    let doc = format!(" Value and Jacobian of [`{}`]: a row per output, a column per active input (flattened in order).", sig.ident);
    quote! {
        #[doc = #doc]
        #vis fn #name #generics (#inputs) -> (#out_ty, ::std::vec::Vec<::std::vec::Vec<#elem>>) #where_clause {
            let #value = #call(#(#args),*);
            let mut #rows_ = ::std::vec::Vec::new();
            #rows
            (#value, #rows_)
        }
    }
}

/// The `<name>_grad` of a function whose derivative is the user's rule:
/// the function's value, then `rule(params.., value, 1)`.
pub fn custom_gradient_fn(item: &syn::ItemFn, f: &Function, rule: &syn::Path) -> TokenStream {
    let sig = &item.sig;
    let fname = &sig.ident;
    let name = format_ident!("{}_grad", fname);
    let generics = &sig.generics;
    let where_clause = &sig.generics.where_clause;
    let vis = &item.vis;
    let args: Vec<&syn::Ident> = f.params.iter().map(|p| &p.ident).collect();
    let mut names = Names::new(f, item.to_token_stream());
    let value = names.fresh("value");
    let grads: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let grad_names: Vec<syn::Ident> = grads
        .iter()
        .map(|p| names.fresh(&format!("d_{}", p.ident)))
        .collect();
    let grad_tys = gradient_types(f, &grads);
    let ret_ty = f.float_ident(f.ret_ty);
    let inputs = &sig.inputs;
    let seed = one(f);
    let callee = match sig.receiver() {
        Some(_) => quote!(Self::#fname),
        None => quote!(#fname),
    };
    let bind = match grad_names.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many),*)),
    };
    let shown = show(&rule.to_token_stream());
    let doc = [
        format!(" Value and gradient of [`{fname}`], whose derivative is the custom pullback `{shown}`."),
        String::new(),
        " The body is not differentiated: the gradient is the rule's, seeded with one.".to_string(),
    ];
    let attrs = kept_attrs(item);
    let list_const = wengert_const(fname);
    let list = format!("custom pullback: {shown}");
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #list_const: &str = #list;

        #(#[doc = #doc])*
        #(#attrs)*
        #vis fn #name #generics (#inputs) -> (#ret_ty, #(#grad_tys),*) #where_clause {
            let #value = #callee(#(#args),*);
            let #bind = #rule(#(#args,)* #value, #seed);
            (#value, #(#grad_names),*)
        }
    }
}

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
    /// Inside a reverse loop: the iteration's values that were not recorded
    /// (no pullback reads them), passed as placeholders.
    unavailable: std::collections::HashSet<ValueId>,
    /// The arrays that stores or pushes change: bound with `mut`.
    mutated: std::collections::HashSet<ValueId>,
    /// For a vector output: the code that seeds the outputs' adjoints from
    /// the caller's seed, placed before the reverse sweep.
    seeding: TokenStream,
    /// The loads that read through a window in the loop being emitted
    /// (`windows.rs`), with the right-hand side that does.
    windowed: std::collections::HashMap<ValueId, TokenStream>,
}

/// The types of the gradients of `grads`: each parameter's own, or its
/// array's gradient type.
fn gradient_types(f: &Function, grads: &[&Param]) -> Vec<TokenStream> {
    grads
        .iter()
        .map(|p| match f.value(p.value).ty.array() {
            Some(a) => gradient_ty(f, a),
            None => p.ty.to_token_stream(),
        })
        .collect()
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
    fn operand(&self, o: &Operand, pos: Position) -> TokenStream {
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

    fn block(&mut self, block: &Block) -> TokenStream {
        block.insts.iter().map(|inst| self.inst(inst)).collect()
    }

    /// The function's body. In a long function, runs of plain definitions
    /// are emitted in chunks, `let (t0, a_1, ..) = { let t0 = ..; ..;
    /// (t0, a_1, ..) };`, one `let` in the body for each: rustc lowers the
    /// `let`s of one block recursively and overflows its stack past a few
    /// thousand. A chunk passes out every value it defines.
    fn body(&mut self, block: &Block) -> TokenStream {
        let mutated = self.mutated.clone();
        let plain = |inst: &Inst| {
            matches!(inst, Inst::Def { op, dst, .. } if !mutated.contains(dst) && matches!(
                op,
                Op::Copy(_) | Op::Unary(..) | Op::Binary(..) | Op::Method { .. } | Op::Cast(..) | Op::Load { .. }
            ))
        };
        let defs = block.insts.iter().filter(|i| plain(i)).count();
        if defs <= LONG_BLOCK {
            return self.block(block);
        }
        let mut out = TokenStream::new();
        let mut i = 0;
        while i < block.insts.len() {
            let run = block.insts[i..]
                .iter()
                .take_while(|inst| plain(inst))
                .count()
                .min(CHUNK);
            if run < 2 {
                out.extend(self.inst(&block.insts[i]));
                i += 1;
                continue;
            }
            let chunk = &block.insts[i..i + run];
            let exported: Vec<syn::Ident> = chunk
                .iter()
                .filter_map(|inst| match inst {
                    Inst::Def { dst, .. } => Some(self.names.forward(*dst)),
                    _ => None,
                })
                .collect();
            let inner: TokenStream = chunk.iter().map(|inst| self.inst(inst)).collect();
            out.extend(quote!(#[allow(unused_variables)] let (#(#exported,)*) = { #inner (#(#exported,)*) };));
            i += run;
        }
        out
    }

    fn inst(&mut self, inst: &Inst) -> TokenStream {
        match inst {
            Inst::Def {
                dst, op, written, ..
            } => {
                if let Some(call) = self.grad_call(*dst, op) {
                    return call;
                }
                let name = self.names.forward(*dst);
                let rhs = match self.windowed.get(dst) {
                    Some(rhs) => rhs.clone(),
                    None => self.op(op),
                };
                let check = self.same_function_check(*dst, op);
                let (annot, attrs) = match written.as_deref() {
                    Some(Written { ty, attrs }) => (ty.clone(), attrs.as_slice()),
                    None => (None, &[][..]),
                };
                match &mut self.hoisted {
                    Some(decls) => {
                        let ty = annot.or_else(|| {
                            self.f.value(*dst).ty.float().map(|t| {
                                syn::Type::Verbatim(self.f.float_ident(t).into_token_stream())
                            })
                        });
                        let ty = ty.map(|t| quote!(: #t));
                        decls.push(quote!(#(#attrs)* let #name #ty;));
                        quote!(#check #name = #rhs;)
                    }
                    None => {
                        let annot = annot.map(|t| quote!(: #t));
                        let m = self.mutated.contains(dst).then(|| quote!(mut));
                        quote!(#check #(#attrs)* let #m #name #annot = #rhs;)
                    }
                }
            }
            Inst::Verbatim {
                tokens,
                kind,
                reads,
                ..
            } => {
                if let VerbatimKind::Binding = kind {
                    // Bound by the `match` pattern itself.
                    return TokenStream::new();
                }
                let rebind = self.rebind(reads);
                match (kind, rebind.is_empty()) {
                    (_, true) => tokens.clone(),
                    (VerbatimKind::Let(l), false) => {
                        let VerbatimLet { pat, init } = &**l;
                        quote!(let #pat = { #rebind #init };)
                    }
                    (_, false) => quote!({ #rebind #tokens }),
                }
            }
            Inst::Branch(br) => self.branch(br),
            Inst::Loop(l) => self.forward_loop(l),
            Inst::Store {
                array,
                index,
                value,
            } => {
                let a = self.names.forward(*array);
                let idx = index_tokens(self, index);
                let v = self.operand(value, Position::Arg);
                quote!(#a #idx = #v;)
            }
            Inst::Push {
                array,
                position,
                value,
            } => {
                let a = self.names.forward(*array);
                let v = self.operand(value, Position::Arg);
                let at = self.used.contains(position).then(|| {
                    let p = self.names.forward(*position);
                    quote!(let #p = #a.len();)
                });
                quote!(#at #a.push(#v);)
            }
            Inst::Scope(b) if !keeps_bindings(b) || self.hoisted.is_some() => {
                let inner = self.block(b);
                if self.hoisted.is_some() && keeps_bindings(b) {
                    quote!({ #inner })
                } else {
                    inner
                }
            }
            Inst::Scope(b) => {
                self.hoisted = Some(Vec::new());
                let inner = self.block(b);
                let decls = self.hoisted.take().unwrap_or_default();
                quote!(#(#decls)* { #inner })
            }
        }
    }

    /// The IR loop numbered `id`.
    fn find_loop(&self, id: usize) -> Option<Loop> {
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

    /// The bounds-check windows of a range loop (`windows.rs`): their
    /// declarations, to go before the loop, and the loads that now read
    /// through them (recorded in `self.windowed` until the loop is
    /// emitted). In the reverse sweep, a window whose start reads a value
    /// the sweep does not have is left out.
    fn windows(
        &mut self,
        l: &Loop,
        only: Option<&std::collections::HashSet<ValueId>>,
    ) -> (TokenStream, Vec<ValueId>) {
        let mut decls = TokenStream::new();
        let mut loads = Vec::new();
        let LoopKind::Range {
            index: Some(j),
            range,
        } = &l.kind
        else {
            return (decls, loads);
        };
        let end = self.operand(&range.end, Position::Tight);
        let j = self.names.forward(*j);
        for mut w in crate::windows::plan(self.f, l, &self.mutated) {
            if let Some(only) = only {
                w.loads.retain(|(dst, _)| only.contains(dst));
                if w.loads.is_empty() {
                    continue;
                }
            }
            let leaves = w.base.as_ref().map(|b| b.leaves()).unwrap_or_default();
            if leaves.iter().any(|v| self.unavailable.contains(v)) {
                continue;
            }
            let array = self.names.forward(w.array);
            let win = self
                .names
                .fresh(&format!("{}_win", self.names.forward_str(w.array)));
            decls.extend(match &w.base {
                None => quote!(let #win = &#array[..#end];),
                Some(b) => {
                    let b = self.base(b, false);
                    quote!(let #win = &#array[::core::cmp::min(#b, #array.len())..][..#end];)
                }
            });
            for (dst, offset) in w.loads {
                let rhs = match offset {
                    None => quote!(#win[#j]),
                    Some((iv, x)) => {
                        let iv = self.names.forward(iv);
                        let x = self.operand(&x, Position::Tight);
                        quote!(#win[#iv - #x])
                    }
                };
                self.windowed.insert(dst, rhs);
                loads.push(dst);
            }
        }
        (decls, loads)
    }

    /// A window's start as an expression, parenthesised inside another.
    fn base(&self, b: &crate::windows::Base, nested: bool) -> TokenStream {
        match b {
            crate::windows::Base::Operand(o) => self.operand(o, Position::Tight),
            crate::windows::Base::Binary(op, a, b) => {
                let (a, b) = (self.base(a, true), self.base(b, true));
                let op: TokenStream = op.symbol().parse().expect("an operator");
                match nested {
                    true => quote!((#a #op #b)),
                    false => quote!(#a #op #b),
                }
            }
        }
    }

    /// The name of the stack of loop `id`.
    fn stack(&mut self, id: usize) -> syn::Ident {
        if let Some(s) = self.stacks.get(&id) {
            return s.clone();
        }
        let name = self.names.fresh("stack");
        self.stacks.insert(id, name.clone());
        name
    }

    fn stack_declarations(&self) -> TokenStream {
        self.stacks
            .values()
            .map(|name| quote!(let mut #name = ::autodiff::runtime::stack::Stack::new();))
            .collect()
    }

    /// The tuple of the values one iteration of a loop records, in the
    /// order given (a lone value is pushed as itself).
    fn record_tuple(&self, values: &[ValueId]) -> TokenStream {
        let names = values.iter().map(|v| self.names.forward(*v));
        match values {
            [_] => quote!(#(#names)*),
            _ => quote!((#(#names),*)),
        }
    }

    /// The iterator of a range loop; `reversed` appends `.rev()`.
    fn range(&self, r: &RangeIter, reversed: bool) -> TokenStream {
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

    /// A loop: the headers as mutable variables, the body, the pushes of
    /// what the reverse sweep reads, the update of the headers, and the
    /// values after the loop.
    fn forward_loop(&mut self, l: &Loop) -> TokenStream {
        let pushes = self.pushes.get(&l.id).cloned().unwrap_or_default();
        let updated: Vec<&Carried> = l
            .carried
            .iter()
            .filter(|c| c.next.value() != Some(c.header))
            .collect();
        let mut pre = TokenStream::new();
        for c in &l.carried {
            let h = self.names.forward(c.header);
            let init = self.operand(&c.init, Position::Arg);
            let ty = self.f.value(c.header).ty.float().map(|t| {
                let t = self.f.float_ident(t);
                quote!(: #t)
            });
            let m = updated
                .iter()
                .any(|u| u.header == c.header)
                .then(|| quote!(mut));
            pre.extend(quote!(let #m #h #ty = #init;));
        }
        let trips = l
            .trips
            .filter(|t| self.reverse_reads.contains(t))
            .map(|t| self.names.forward(t));
        if let Some(t) = &trips {
            // The count outlives a block kept as a block: declared before it.
            match &mut self.hoisted {
                Some(decls) => decls.push(quote!(let mut #t: usize = 0;)),
                None => pre.extend(quote!(let mut #t: usize = 0;)),
            }
        }
        let mut push_stmts = TokenStream::new();
        if !pushes.is_empty() {
            let stack = self.stack(l.id);
            let entry = self.record_tuple(&pushes);
            push_stmts.extend(quote!(#stack.push(#entry);));
            if let LoopKind::Range { range, .. } = &l.kind {
                let it = self.range(range, false);
                pre.extend(quote!(#stack.reserve(::core::iter::Iterator::size_hint(&(#it)).0);));
            }
        }
        let (windows, windowed) = self.windows(l, None);
        pre.extend(windows);
        let outer_hoisted = self.hoisted.take();
        let body = self.block(&l.body);
        for v in windowed {
            self.windowed.remove(&v);
        }
        let update = match updated.as_slice() {
            [] => TokenStream::new(),
            [c] => {
                let h = self.names.forward(c.header);
                let n = self.operand(&c.next, Position::Arg);
                quote!(#h = #n;)
            }
            many => {
                let hs = many.iter().map(|c| self.names.forward(c.header));
                let ns: Vec<TokenStream> = many
                    .iter()
                    .map(|c| self.operand(&c.next, Position::Arg))
                    .collect();
                quote!((#(#hs),*) = (#(#ns),*);)
            }
        };
        let count = trips.as_ref().map(|t| quote!(#t += 1;));
        let exit = l.exit.as_ref().map(|e| {
            let e = self.operand(e, Position::Tight);
            quote!(if #e { break; })
        });
        let inner = quote!(#body #push_stmts #update #count #exit);
        let looped = match &l.kind {
            LoopKind::Range { index, range } => {
                let pat = match index {
                    Some(i) => self.names.forward(*i).into_token_stream(),
                    None => quote!(_),
                };
                let it = self.range(range, false);
                quote!(for #pat in #it { #inner })
            }
            LoopKind::While { cond_block, cond } => {
                let cb = self.block(cond_block);
                let always = matches!(cond, Operand::Const(e) if matches!(&**e, syn::Expr::Lit(l) if matches!(&l.lit, syn::Lit::Bool(b) if b.value)));
                let test = (!always).then(|| {
                    let c = self.operand(cond, Position::Tight);
                    quote!(if !#c { break; })
                });
                quote!(loop { #cb #test #inner })
            }
        };
        self.hoisted = outer_hoisted;
        let mut post = TokenStream::new();
        for c in l.carried.iter().filter(|c| self.used.contains(&c.out)) {
            let out = self.names.forward(c.out);
            let h = self.names.forward(c.header);
            match &mut self.hoisted {
                Some(decls) => {
                    decls.push(quote!(let #out;));
                    post.extend(quote!(#out = #h;));
                }
                None => post.extend(quote!(let #out = #h;)),
            }
        }
        quote!(#pre #looped #post)
    }

    /// A branch: each arm ends with the tuple of the branch's outputs (its
    /// merges, the values the reverse sweep reads from inside the arms, and
    /// for a `match` the index of the arm that ran).
    fn branch(&mut self, br: &Branch) -> TokenStream {
        let modelled: Vec<&Merge> = br
            .merges
            .iter()
            .filter(|m| self.f.value(m.dst).kind != ValueKind::Opaque)
            .collect();
        let mut exports: Vec<ValueId> = Vec::new();
        let mut defined_by_arm = Vec::new();
        for arm in &br.arms {
            let mut here = arm.defines();
            // What stays inside the arm is out of the reverse sweep's reach:
            // no pullback reads it, and it gets a placeholder there.
            self.unavailable
                .extend(here.iter().filter(|v| !self.reverse_reads.contains(v)));
            here.retain(|v| self.reverse_reads.contains(v));
            exports.extend(&here);
            defined_by_arm.push(here);
        }
        let arm_index = br.arm_index.filter(|v| self.reverse_reads.contains(v));
        let outer_hoisted = self.hoisted.take();
        let mut arms = Vec::new();
        for (i, arm) in br.arms.iter().enumerate() {
            let body = self.block(arm);
            let mut outs: Vec<TokenStream> = modelled
                .iter()
                .map(|m| self.operand(&m.arms[i], Position::Arg))
                .collect();
            for v in &exports {
                outs.push(if defined_by_arm[i].contains(v) {
                    self.names.forward(*v).into_token_stream()
                } else if self.f.value(*v).ty.is_float() {
                    zero(self.f)
                } else {
                    quote!(::core::default::Default::default())
                });
            }
            if arm_index.is_some() {
                outs.push(quote!(#i));
            }
            if br.diverging[i] {
                // It panics: it has no outputs to give.
                outs.clear();
            }
            arms.push(match outs.as_slice() {
                [] => quote!({ #body }),
                [one] => quote!({ #body #one }),
                many => quote!({ #body (#(#many),*) }),
            });
        }
        self.hoisted = outer_hoisted;
        let branch = match &br.selector {
            Selector::If(cond) => {
                let cond = self.operand(cond, Position::Arg);
                let (then_arm, else_arm) = (&arms[0], &arms[1]);
                quote!(if #cond #then_arm else #else_arm)
            }
            Selector::Match {
                scrutinee,
                patterns,
                reads,
            } => {
                let scrutinee = self.operand(scrutinee, Position::Arg);
                let rebind = self.rebind(reads);
                let cases = patterns
                    .iter()
                    .zip(&arms)
                    .map(|((pat, guard), arm)| match guard {
                        Some(g) if rebind.is_empty() => quote!(#pat if #g => #arm),
                        Some(g) => quote!(#pat if { #rebind #g } => #arm),
                        None => quote!(#pat => #arm),
                    });
                quote!(match #scrutinee { #(#cases)* })
            }
        };
        let mut names: Vec<syn::Ident> =
            modelled.iter().map(|m| self.names.forward(m.dst)).collect();
        names.extend(exports.iter().map(|v| self.names.forward(*v)));
        names.extend(arm_index.map(|v| self.names.forward(v)));
        let target = match names.as_slice() {
            [] => return quote!(#branch),
            [one] => quote!(#one),
            many => quote!((#(#many),*)),
        };
        match &mut self.hoisted {
            Some(decls) => {
                decls.extend(names.iter().map(|n| quote!(let #n;)));
                quote!(#target = #branch;)
            }
            None => quote!(let #target = #branch;),
        }
    }

    /// An active call to another `#[grad]` function: its `_grad`, once,
    /// giving the value and the partials the reverse sweep scales.
    fn grad_call(&mut self, dst: ValueId, op: &Op) -> Option<TokenStream> {
        let (callee, args, partials) = match op {
            Op::Call {
                path,
                args,
                partials,
            } if crate::lower::calls_grad_function(path) && !partials.is_empty() => {
                let mut parts_path = path.clone();
                if let Some(last) = parts_path.segments.last_mut() {
                    last.ident = format_ident!("{}_grad", last.ident, span = last.ident.span());
                }
                (parts_path.into_token_stream(), args, partials)
            }
            Op::GradMethod {
                name,
                recv,
                args,
                partials,
            } => {
                let recv = self.operand(recv, Position::Tight);
                let name = format_ident!("{}_grad", name, span = name.span());
                (quote!(#recv.#name), args, partials)
            }
            _ => return None,
        };
        if !self.a.is_active(dst) {
            return None;
        }
        let args: Vec<TokenStream> = args
            .iter()
            .map(|a| self.operand(a, Position::Arg))
            .collect();
        // The callee's `_grad` gives the value, then a partial per float
        // parameter: the arguments that may be floats.
        let slots: Vec<TokenStream> = partials
            .iter()
            .flatten()
            .map(|p| match self.used.contains(p) {
                true => self.names.forward(*p).into_token_stream(),
                false => quote!(_),
            })
            .collect();
        let value = self.names.forward(dst);
        let rhs = quote!(#callee(#(#args),*));
        Some(match &mut self.hoisted {
            Some(decls) => {
                decls.push(quote!(let #value;));
                for p in partials.iter().flatten().filter(|p| self.used.contains(p)) {
                    let n = self.names.forward(*p);
                    decls.push(quote!(let #n;));
                }
                quote!((#value, #(#slots),*) = #rhs;)
            }
            None => quote!(let (#value, #(#slots),*) = #rhs;),
        })
    }

    fn kernel_arg(&self, a: &KernelOperand) -> TokenStream {
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
            KernelOperand::Value(o) => self.operand(o, Position::Arg),
        }
    }

    /// For an active call to a runtime function by a name that may be the
    /// user's own (`sigmoid(x)`): a statement that compiles only if the name
    /// is the runtime's function, whose pullback the reverse sweep uses.
    fn same_function_check(&self, dst: ValueId, op: &Op) -> TokenStream {
        let (path, ours, ty) = match op {
            Op::Call { path, .. } if self.a.is_active(dst) => match runtime_function(path) {
                Some(rule) => (path, runtime_path(rule, rule.name), self.adjoint_ty(dst)),
                None => return TokenStream::new(),
            },
            Op::Kernel { kernel, path, .. } if self.a.is_active(dst) => {
                let elem = match &self.f.value(dst).ty {
                    Ty::Array(a) => a.elem,
                    t => t.float().unwrap_or(self.f.ret_ty),
                };
                (path, kernel_path(kernel.name), self.f.float_ident(elem))
            }
            _ => return TokenStream::new(),
        };
        let span = syn::spanned::Spanned::span(path);
        quote::quote_spanned!(span=> ::autodiff::runtime::same_function(#path, #ours::<#ty>);)
    }

    /// `let name = forward_name;` for each name that code kept as written
    /// reads while it holds a renamed value.
    fn rebind(&self, reads: &Reads) -> TokenStream {
        reads
            .0
            .iter()
            .filter(|(n, v)| !n.is_empty() && self.names.forward_str(*v) != n)
            .map(|(n, v)| {
                let user = self.names.user(n, *v, &self.f.values);
                let fwd = self.names.forward(*v);
                quote!(#[allow(unused_variables)] let #user = #fwd;)
            })
            .collect()
    }

    fn op(&self, op: &Op) -> TokenStream {
        use Position::*;
        match op {
            Op::Copy(a) => self.operand(a, Arg),
            Op::Unary(UnOp::Neg, a) => {
                let a = self.operand(a, Tight);
                quote!(-#a)
            }
            Op::Unary(UnOp::Not, a) => {
                let a = self.operand(a, Tight);
                quote!(!#a)
            }
            Op::Binary(op, a, b) => {
                let a = self.operand(a, Tight);
                let b = self.operand(b, Tight);
                let op: TokenStream = op.symbol().parse().expect("an operator");
                quote!(#a #op #b)
            }
            Op::Method { name, recv, args } => {
                let recv = self.operand(recv, Tight);
                let args = args.iter().map(|a| self.operand(a, Arg));
                quote!(#recv.#name(#(#args),*))
            }
            Op::Call { path, args, .. } => {
                let args = args.iter().map(|a| self.operand(a, Arg));
                quote!(#path(#(#args),*))
            }
            Op::Cast(a, ty) => {
                let a = self.operand(a, Tight);
                quote!(#a as #ty)
            }
            Op::GradMethod {
                name, recv, args, ..
            } => {
                let recv = self.operand(recv, Tight);
                let args = args.iter().map(|a| self.operand(a, Arg));
                quote!(#recv.#name(#(#args),*))
            }
            Op::Load { array, index } => {
                let a = self.names.forward(*array);
                let idx = index_tokens(self, index);
                quote!(#a #idx)
            }
            Op::NewArray(init) => match init {
                ArrayInit::Filled { value, len } => {
                    let v = self.operand(value, Arg);
                    let n = self.operand(len, Arg);
                    quote!(::std::vec![#v; #n])
                }
                ArrayInit::Repeat { value, len } => {
                    let v = self.operand(value, Arg);
                    let n: TokenStream = len.parse().unwrap_or_default();
                    quote!([#v; #n])
                }
                ArrayInit::List { items, is_vec } => {
                    let items = items.iter().map(|i| self.operand(i, Arg));
                    if *is_vec {
                        quote!(::std::vec![#(#items),*])
                    } else {
                        quote!([#(#items),*])
                    }
                }
                ArrayInit::Empty { capacity: Some(n) } => {
                    let n = self.operand(n, Arg);
                    quote!(::std::vec::Vec::with_capacity(#n))
                }
                ArrayInit::Empty { capacity: None } => quote!(::std::vec::Vec::new()),
            },
            Op::Kernel { kernel, args, .. } => {
                let path = kernel_path(kernel.name);
                let args = args.iter().map(|a| self.kernel_arg(a));
                quote!(#path(#(#args),*))
            }
            Op::Opaque { expr, reads } => {
                let rebind = self.rebind(reads);
                if rebind.is_empty() {
                    expr.to_token_stream()
                } else {
                    quote!({ #rebind #expr })
                }
            }
        }
    }

    fn adjoint_ty(&self, v: ValueId) -> syn::Ident {
        let t = self.f.value(v).ty.float().unwrap_or(self.f.ret_ty);
        self.f.float_ident(t)
    }

    fn reverse(&mut self, g: &Gradient) -> TokenStream {
        let accumulated = g.accumulated();
        let mut out = TokenStream::new();
        let mut zeroed: Vec<(syn::Ident, TokenStream)> = Vec::new();
        for v in g.adjoints.iter().rev() {
            let d = self.names.adjoint(*v);
            if let Some(a) = self.f.value(*v).ty.array() {
                let array = self.names.forward(*v);
                let ty = gradient_ty(self.f, a);
                let zeros = zeros_like(self.f, &array, a);
                out.extend(quote!(let mut #d: #ty = #zeros;));
                continue;
            }
            let ty = self.adjoint_ty(*v);
            let seeded = !matches!(self.f.output, Output::Scalar) && self.f.outputs().contains(v);
            let mutability = (accumulated.contains(v) || seeded).then(|| quote!(mut));
            if g.seed == Some(*v) {
                let one = one(self.f);
                out.extend(quote!(let #mutability #d: #ty = #one;));
            } else {
                zeroed.push((ty, quote!(#mutability #d)));
            }
        }
        out.extend(declare_zeroed(self.f, zeroed));
        out.extend(std::mem::take(&mut self.seeding));
        self.partials = vec![
            self.names.fresh("g0"),
            self.names.fresh("g1"),
            self.names.fresh("g2"),
        ];
        out.extend(self.reverse_stmts(&g.reverse));
        out
    }

    /// The reverse of a loop: iterations backwards, each popping what its
    /// forward iteration pushed, with fresh adjoints for the body's values.
    #[allow(clippy::too_many_arguments)]
    fn reverse_loop(
        &mut self,
        id: usize,
        kind: &LoopKind,
        trips: Option<ValueId>,
        carried: &[CarriedAdjoint],
        locals: &[ValueId],
        pushes: &[ValueId],
        iteration: &[ValueId],
        body: &[AdjStmt],
        (recomputed, again): (&[ValueId], TokenStream),
        index_read: Option<ValueId>,
        counters: &[crate::reverse::Counter],
    ) -> TokenStream {
        let mut pre = TokenStream::new();
        // Counters step back from their value after the loop.
        let mut stepped = TokenStream::new();
        for c in counters {
            let h = self.names.forward(c.header);
            let out = self.names.forward(c.out);
            let at = self
                .names
                .fresh(&format!("{}_at", self.names.forward_str(c.header)));
            let step = self.operand(&c.step, Position::Tight);
            pre.extend(quote!(let mut #at = #out;));
            stepped
                .extend(quote!(let #h = ::autodiff::runtime::stack::step_back(&mut #at, #step);));
        }
        for c in carried {
            if let Some(out) = c.out {
                let d_h = self.names.adjoint(c.header);
                let d_out = self.names.adjoint(out);
                pre.extend(quote!(#d_h += #d_out;));
            }
        }
        let mut pops = TokenStream::new();
        if !pushes.is_empty() {
            let stack = self.stack(id);
            let entry = self.record_tuple(pushes);
            pops.extend(quote!(let #entry = #stack.pop();));
        }
        let mut accumulated = Vec::new();
        crate::reverse::accumulated_in(body, &mut accumulated);
        accumulated.extend(carried.iter().filter_map(|c| c.next));
        let accumulated: std::collections::HashSet<ValueId> = accumulated.into_iter().collect();
        let mut decls = TokenStream::new();
        let mut recycle = TokenStream::new();
        for v in locals.iter().rev() {
            let d = self.names.adjoint(*v);
            if let Some(a) = self.f.value(*v).ty.array() {
                let ty = gradient_ty(self.f, a);
                let zeros = match self.f.body.array_init(*v) {
                    Some(ArrayInit::Filled { len, .. }) => {
                        // One buffer for every iteration: taken, cleared
                        // and filled with zeros at the start of each, given
                        // back at its end, instead of a new vector each.
                        let n = self.operand(len, Position::Arg);
                        let z = zero(self.f);
                        let buf = self.names.fresh(&format!(
                            "{}_buffer",
                            d.to_string().trim_start_matches("r#")
                        ));
                        pre.extend(quote!(let mut #buf: #ty = ::std::vec::Vec::new();));
                        decls.extend(quote! {
                            let mut #d: #ty = ::core::mem::take(&mut #buf);
                            #d.clear();
                            #d.resize(#n, #z);
                        });
                        recycle.extend(quote!(#buf = #d;));
                        continue;
                    }
                    Some(ArrayInit::List {
                        items,
                        is_vec: true,
                    }) => {
                        let n = items.len();
                        {
                            let z = zero(self.f);
                            quote!(::std::vec![#z; #n])
                        }
                    }
                    _ => zeros_like(self.f, &self.names.forward(*v), a),
                };
                decls.extend(quote!(let mut #d: #ty = #zeros;));
                continue;
            }
            let ty = self.adjoint_ty(*v);
            let m = accumulated.contains(v).then(|| quote!(mut));
            let z = zero(self.f);
            decls.extend(quote!(let #m #d: #ty = #z;));
        }
        // Move the carried adjoints from the headers to the values the
        // iteration left in them; all at once, as a header may be another
        // variable's next value.
        let mut transfer = TokenStream::new();
        let crossed = carried.iter().any(|c| {
            carried
                .iter()
                .any(|d| c.next == Some(d.header) && c.header != d.header)
        });
        match carried {
            [] => {}
            many if !crossed => {
                for c in many {
                    let d_h = self.names.adjoint(c.header);
                    if let Some(n) = c.next {
                        let d_n = self.names.adjoint(n);
                        transfer.extend(quote!(#d_n += #d_h;));
                    }
                    {
                        let z = zero(self.f);
                        transfer.extend(quote!(#d_h = #z;));
                    }
                }
            }
            [c] => {
                let d_h = self.names.adjoint(c.header);
                if let Some(n) = c.next {
                    let d_n = self.names.adjoint(n);
                    transfer.extend(quote!(#d_n += #d_h;));
                }
                {
                    let z = zero(self.f);
                    transfer.extend(quote!(#d_h = #z;));
                }
            }
            many => {
                let temps: Vec<syn::Ident> = (0..many.len())
                    .map(|i| self.names.fresh(&format!("c{i}")))
                    .collect();
                let d_hs: Vec<syn::Ident> =
                    many.iter().map(|c| self.names.adjoint(c.header)).collect();
                {
                    let z = zero(self.f);
                    transfer.extend(quote!(let (#(#temps),*) = (#(#d_hs),*); #(#d_hs = #z;)*));
                }
                for (c, t) in many.iter().zip(&temps) {
                    if let Some(n) = c.next {
                        let d_n = self.names.adjoint(n);
                        transfer.extend(quote!(#d_n += #t;));
                    }
                }
            }
        }
        // The iteration's values that were not pushed: the pullbacks that
        // take them do not read them.
        let saved = self.unavailable.clone();
        self.unavailable.extend(iteration.iter().filter(|v| {
            !pushes.contains(v)
                && !recomputed.contains(v)
                && !counters.iter().any(|c| c.header == **v)
        }));
        if let (None, LoopKind::Range { index: Some(i), .. }) = (trips, kind) {
            self.unavailable.remove(i);
        }
        let body = self.reverse_stmts(body);
        self.unavailable = saved;
        let header = match (trips, kind) {
            (Some(t), _) => {
                let t = self.names.forward(t);
                quote!(for _ in 0..#t)
            }
            (None, LoopKind::Range { index, range }) => {
                let pat = match index {
                    Some(i) if self.reverse_reads.contains(i) || index_read == Some(*i) => {
                        self.names.forward(*i).into_token_stream()
                    }
                    _ => quote!(_),
                };
                let it = self.range(range, true);
                quote!(for #pat in #it)
            }
            (None, LoopKind::While { .. }) => quote!(for _ in 0..0),
        };
        let mut post = TokenStream::new();
        for c in carried {
            if let Some(init) = c.init {
                let d_h = self.names.adjoint(c.header);
                let d_i = self.names.adjoint(init);
                post.extend(quote!(#d_i += #d_h;));
            }
        }
        quote!(#pre #header { #pops #stepped #again #decls #transfer #body #recycle } #post)
    }

    /// The entries of a loop's body computed again in its reverse
    /// iteration, as in the forward sweep.
    fn recompute(&mut self, values: &[ValueId]) -> TokenStream {
        let mut out = TokenStream::new();
        for v in values {
            let mut op = None;
            self.f.body.walk(&mut |inst| {
                if let Inst::Def { dst, op: o, .. } = inst {
                    if dst == v {
                        op = Some(o.clone());
                    }
                }
            });
            if let Some(op) = op {
                let name = self.names.forward(*v);
                let rhs = match self.windowed.get(v) {
                    Some(rhs) => rhs.clone(),
                    None => self.op(&op),
                };
                out.extend(quote!(let #name = #rhs;));
            }
        }
        out
    }

    fn reverse_stmts(&mut self, stmts: &[AdjStmt]) -> TokenStream {
        stmts.iter().map(|stmt| self.reverse_stmt(stmt)).collect()
    }

    fn reverse_stmt(&mut self, stmt: &AdjStmt) -> TokenStream {
        match stmt {
            AdjStmt::Copy { dst, src, cast } => {
                let d_dst = self.names.adjoint(*dst);
                let d_src = self.names.adjoint(*src);
                match cast {
                    Some(t) => {
                        let t = self.f.float_ident(*t);
                        quote!(#d_src += #d_dst as #t;)
                    }
                    None => quote!(#d_src += #d_dst;),
                }
            }
            AdjStmt::Pullback {
                rule,
                dst,
                args,
                targets,
            } => {
                let path = runtime_path(rule, &format!("{}_pullback", rule.name));
                let args: Vec<TokenStream> = args
                    .iter()
                    .map(|a| match a.value() {
                        Some(v) if self.unavailable.contains(&v) => zero(self.f),
                        _ => self.operand(a, Position::Arg),
                    })
                    .collect();
                let y = if self.unavailable.contains(dst) {
                    zero(self.f)
                } else {
                    self.names.forward(*dst).into_token_stream()
                };
                let dy = self.names.adjoint(*dst);
                let call = quote!(#path(#(#args,)* #y, #dy));
                if let [Some(t)] = targets.as_slice() {
                    let d = self.names.adjoint(*t);
                    return quote!(#d += #call;);
                }
                let partial = self.partials.clone();
                let pats = targets.iter().zip(&partial).map(|(t, p)| match t {
                    Some(_) => p.to_token_stream(),
                    None => quote!(_),
                });
                let adds: Vec<TokenStream> = targets
                    .iter()
                    .zip(&partial)
                    .filter_map(|(t, p)| {
                        let d = self.names.adjoint((*t)?);
                        Some(quote!(#d += #p;))
                    })
                    .collect();
                // In a block of its own: the partials' `let` does not nest the
                // rest of the sweep in its scope (rustc recurses once per
                // `let` of a block, and overflows its stack past a few
                // thousand).
                quote!({ let (#(#pats),*) = #call; #(#adds)* })
            }
            AdjStmt::Element { array, index, dst } => {
                let d_a = self.names.adjoint(*array);
                let idx = index_tokens(self, index);
                let d = self.names.adjoint(*dst);
                quote!(#d_a #idx += #d;)
            }
            AdjStmt::Store {
                array,
                index,
                value,
            } => {
                let d_a = self.names.adjoint(*array);
                let idx = index_tokens(self, index);
                let take = value.map(|v| {
                    let d_v = self.names.adjoint(v);
                    quote!(#d_v += #d_a #idx;)
                });
                {
                    let z = zero(self.f);
                    quote!(#take #d_a #idx = #z;)
                }
            }
            AdjStmt::Pushed {
                array,
                position,
                value,
            } => match value {
                Some(v) => {
                    let d_a = self.names.adjoint(*array);
                    let d_v = self.names.adjoint(*v);
                    let p = self.names.forward(*position);
                    quote!(#d_v += #d_a[#p];)
                }
                None => TokenStream::new(),
            },
            AdjStmt::Spread {
                array,
                items,
                filled,
            } => {
                let d_a = self.names.adjoint(*array);
                let mut out = TokenStream::new();
                for (k, item) in items.iter().enumerate() {
                    if let Some(v) = item {
                        let d_v = self.names.adjoint(*v);
                        out.extend(if *filled {
                            let t = self.adjoint_ty(*v);
                            quote!(#d_v += #d_a.iter().sum::<#t>();)
                        } else {
                            quote!(#d_v += #d_a[#k];)
                        });
                    }
                }
                out
            }
            AdjStmt::Chain { dst, parts } => {
                let d = self.names.adjoint(*dst);
                parts
                    .iter()
                    .map(|(t, p)| {
                        let d_t = self.names.adjoint(*t);
                        let p = if self.unavailable.contains(p) {
                            zero(self.f)
                        } else {
                            self.names.forward(*p).into_token_stream()
                        };
                        quote!(#d_t += ::autodiff::runtime::float::scale(#d, #p);)
                    })
                    .collect()
            }
            AdjStmt::Kernel {
                kernel,
                args,
                dst,
                targets,
            } => {
                let path = kernel_path(&format!("{}_pullback", kernel.name));
                let args: Vec<TokenStream> = args.iter().map(|a| self.kernel_arg(a)).collect();
                let y = self.names.forward(*dst);
                let dy = self.names.adjoint(*dst);
                let (y, dy) = if kernel.returns_array {
                    (quote!(&#y), quote!(&#dy))
                } else {
                    (quote!(#y), quote!(#dy))
                };
                // An array passed twice (`dot(&x, &x)`) gets its second
                // contribution in a buffer of its own, added afterwards.
                let mut seen = Vec::new();
                let mut decls = TokenStream::new();
                let mut extra = TokenStream::new();
                let mut outs = Vec::new();
                for (k, t) in targets.iter().enumerate() {
                    outs.push(match t {
                        Some(v) if seen.contains(v) => {
                            let d = self.names.adjoint(*v);
                            let buf = self.names.fresh(&format!("{d}_{k}"));
                            let z = zero(self.f);
                            decls.extend(quote!(let mut #buf = ::std::vec![#z; #d.len()];));
                            extra.extend(
                                quote!(for (d, e) in #d.iter_mut().zip(&#buf) { *d += *e; }),
                            );
                            quote!(::core::option::Option::Some(&mut #buf))
                        }
                        Some(v) => {
                            seen.push(*v);
                            let d = self.names.adjoint(*v);
                            quote!(::core::option::Option::Some(&mut #d))
                        }
                        None => quote!(::core::option::Option::None),
                    });
                }
                let call = quote!(#path(#(#args,)* #y, #dy, #(#outs),*););
                if decls.is_empty() {
                    call
                } else {
                    quote!({ #decls #call #extra })
                }
            }
            AdjStmt::Loop {
                kind,
                trips,
                carried,
                locals,
                pushes,
                recompute,
                index_read,
                counters,
                iteration,
                body,
                id,
                ..
            } => {
                // Only the loads this reverse loop reads again take a
                // window: the others' indices may not be at hand here.
                let mut reread = recompute.iter().copied().collect();
                recomputed_in(body, &mut reread);
                let (windows, windowed) = match self.find_loop(*id) {
                    Some(l) => self.windows(&l, Some(&reread)),
                    None => Default::default(),
                };
                let again = self.recompute(recompute);
                let recomputed = (recompute.as_slice(), again);
                let reversed = self.reverse_loop(
                    *id,
                    kind,
                    *trips,
                    carried,
                    locals,
                    pushes,
                    iteration,
                    body,
                    recomputed,
                    *index_read,
                    counters,
                );
                for v in windowed {
                    self.windowed.remove(&v);
                }
                quote!(#windows #reversed)
            }
            AdjStmt::Branch {
                selector,
                arms,
                arm_index,
                ..
            } => {
                let arms: Vec<TokenStream> =
                    arms.iter().map(|arm| self.reverse_stmts(arm)).collect();
                match selector {
                    Selector::If(cond) => {
                        let cond = self.operand(cond, Position::Arg);
                        let (then_arm, else_arm) = (&arms[0], &arms[1]);
                        if else_arm.is_empty() {
                            quote!(if #cond { #then_arm })
                        } else if then_arm.is_empty() {
                            quote!(if !#cond { #else_arm })
                        } else {
                            quote!(if #cond { #then_arm } else { #else_arm })
                        }
                    }
                    Selector::Match { .. } => {
                        let arm = match arm_index {
                            Some(v) => self.names.forward(*v),
                            None => return TokenStream::new(),
                        };
                        let last = arms.len() - 1;
                        let cases = arms.iter().enumerate().map(|(i, body)| {
                            if i == last {
                                quote!(_ => { #body })
                            } else {
                                quote!(#i => { #body })
                            }
                        });
                        quote!(match #arm { #(#cases)* })
                    }
                }
            }
        }
    }
}

/// Whether a block binds names of its own in code kept as written, so that
/// it must stay a block for those bindings to stay local.
/// The values the reverse loops among `stmts` compute again, at any depth.
fn recomputed_in(stmts: &[AdjStmt], out: &mut std::collections::HashSet<ValueId>) {
    for s in stmts {
        match s {
            AdjStmt::Loop {
                recompute, body, ..
            } => {
                out.extend(recompute.iter().copied());
                recomputed_in(body, out);
            }
            AdjStmt::Branch { arms, .. } => arms.iter().for_each(|a| recomputed_in(a, out)),
            _ => {}
        }
    }
}

/// Scalar adjoints that start at zero, declared one `let` each or, in a
/// long function, 32 of a type to a `let [mut d_a, d_b, ..]: [f64; 32] =
/// [0.0; 32];`, so that rustc, which recurses once per `let` of a block,
/// keeps within its stack.
fn declare_zeroed(f: &Function, zeroed: Vec<(syn::Ident, TokenStream)>) -> TokenStream {
    let zero = zero(f);
    if zeroed.len() <= LONG_BLOCK / 4 {
        return zeroed
            .into_iter()
            .map(|(ty, binding)| quote!(let #binding: #ty = #zero;))
            .collect();
    }
    let mut by_type: Vec<(syn::Ident, Vec<TokenStream>)> = Vec::new();
    for (ty, binding) in zeroed {
        match by_type.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, bs)) => bs.push(binding),
            None => by_type.push((ty, vec![binding])),
        }
    }
    let mut out = TokenStream::new();
    for (ty, bindings) in by_type {
        for group in bindings.chunks(32) {
            let n = proc_macro2::Literal::usize_unsuffixed(group.len());
            out.extend(quote!(let [#(#group),*]: [#ty; #n] = [#zero; #n];));
        }
    }
    out
}

/// Past this many `let`s in one block, the generated code declares its
/// values in groups: rustc lowers each `let` of a block as a scope nested
/// in the previous one, recursively, and overflows its 8 MiB stack at a
/// few thousand.
const LONG_BLOCK: usize = 512;

/// The definitions of one chunk of a long function's body.
const CHUNK: usize = 128;

fn keeps_bindings(b: &Block) -> bool {
    b.insts.iter().any(|i| {
        matches!(
            i,
            Inst::Verbatim {
                kind: VerbatimKind::Let(_) | VerbatimKind::Item,
                ..
            }
        )
    })
}

fn runtime_function(path: &syn::Path) -> Option<&'static Rule> {
    if !crate::lower::is_runtime_function(path) {
        return None;
    }
    crate::rules::function(&path.segments.last()?.ident.to_string())
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

/// The Wengert list as text: one line per entry, `*` on the active ones.
fn wengert_list(f: &Function, a: &Activity, names: &Names) -> String {
    let mut lines = Vec::new();
    f.body.walk(&mut |inst| match inst {
        Inst::Def { dst, op, .. } => {
            let mark = if a.is_active(*dst) { "*" } else { " " };
            lines.push(format!(
                "{mark} {} = {}",
                names.forward_str(*dst),
                show_op(op, names)
            ));
        }
        Inst::Verbatim {
            kind: VerbatimKind::Binding,
            ..
        } => {}
        Inst::Verbatim { tokens, .. } => lines.push(format!("  {}", show(tokens))),
        Inst::Branch(br) => {
            for m in &br.merges {
                let mark = if a.is_active(m.dst) { "*" } else { " " };
                let arms: Vec<String> = m.arms.iter().map(|o| show_operand(o, names)).collect();
                lines.push(format!(
                    "{mark} {} = φ({})",
                    names.forward_str(m.dst),
                    arms.join(", ")
                ));
            }
        }
        Inst::Loop(l) => {
            for c in &l.carried {
                let mark = if a.is_active(c.header) { "*" } else { " " };
                lines.push(format!(
                    "{mark} {} = φ({}, {}) at each iteration of a loop; {} after it",
                    names.forward_str(c.header),
                    show_operand(&c.init, names),
                    show_operand(&c.next, names),
                    names.forward_str(c.out)
                ));
            }
        }
        Inst::Store {
            array,
            index,
            value,
        } => {
            let idx: String = index
                .iter()
                .map(|i| format!("[{}]", show_operand(i, names)))
                .collect();
            lines.push(format!(
                "  {}{idx} = {}",
                names.forward_str(*array),
                show_operand(value, names)
            ));
        }
        Inst::Push { array, value, .. } => {
            lines.push(format!(
                "  {}.push({})",
                names.forward_str(*array),
                show_operand(value, names)
            ));
        }
        Inst::Scope(_) => {}
    });
    lines.push(format!("  return {}", show_operand(&f.ret, names)));
    lines.join("\n")
}

/// The doc comment of `<name>_grad`: what it returns and the Wengert list.
fn doc_comment(item: &syn::ItemFn, f: &Function, list: &str) -> Vec<TokenStream> {
    let fname = &item.sig.ident;
    let returned: Vec<String> = std::iter::once("value".to_string())
        .chain(
            f.params
                .iter()
                .filter(|p| p.active)
                .map(|p| format!("∂/∂{}", p.ident)),
        )
        .collect();
    let head = [
        format!("Value and gradient of [`{fname}`], generated by `#[autodiff::grad]`."),
        String::new(),
        format!("Returns `({})`.", returned.join(", ")),
        String::new(),
        "Wengert list of the forward sweep (`*` marks the active entries, whose adjoints the reverse sweep propagates; the others run as written):".to_string(),
        String::new(),
        "```text".to_string(),
    ];
    head.iter()
        .map(String::as_str)
        .chain(list.lines())
        .chain(["```"])
        .map(|l| {
            let l = format!(" {l}");
            quote!(#[doc = #l])
        })
        .collect()
}

/// The name of the constant holding a function's Wengert list, read by
/// `autodiff::wengert!`.
pub fn wengert_const(fname: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_wengert_{}", fname)
}

fn show_operand(o: &Operand, names: &Names) -> String {
    match o {
        Operand::Value(v) => names.forward_str(*v).to_string(),
        Operand::Const(e) => show(&e.to_token_stream()),
    }
}

fn show_op(op: &Op, names: &Names) -> String {
    let o = |x: &Operand| show_operand(x, names);
    match op {
        Op::Copy(a) => o(a),
        Op::Unary(UnOp::Neg, a) => format!("-{}", o(a)),
        Op::Unary(UnOp::Not, a) => format!("!{}", o(a)),
        Op::Binary(op, a, b) => format!("{} {} {}", o(a), op.symbol(), o(b)),
        Op::Method { name, recv, args } => format!(
            "{}.{name}({})",
            o(recv),
            args.iter().map(o).collect::<Vec<_>>().join(", ")
        ),
        Op::Call { path, args, .. } => format!(
            "{}({})",
            show(&path.to_token_stream()),
            args.iter().map(o).collect::<Vec<_>>().join(", ")
        ),
        Op::Cast(a, ty) => format!("{} as {}", o(a), show(&ty.to_token_stream())),
        Op::GradMethod {
            name, recv, args, ..
        } => format!(
            "{}.{name}({})",
            o(recv),
            args.iter().map(o).collect::<Vec<_>>().join(", ")
        ),
        Op::Load { array, index } => {
            let idx: String = index.iter().map(|i| format!("[{}]", o(i))).collect();
            format!("{}{idx}", names.forward_str(*array))
        }
        Op::Kernel { kernel, args, .. } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    KernelOperand::Array(v) => format!("&{}", names.forward_str(*v)),
                    KernelOperand::Value(x) => o(x),
                })
                .collect();
            format!("{}({})", kernel.name, args.join(", "))
        }
        Op::NewArray(init) => match init {
            ArrayInit::Filled { value, len } => format!("vec![{}; {}]", o(value), o(len)),
            ArrayInit::Repeat { value, len } => format!("[{}; {len}]", o(value)),
            ArrayInit::List { items, is_vec } => {
                let items: Vec<String> = items.iter().map(o).collect();
                format!(
                    "{}[{}]",
                    if *is_vec { "vec!" } else { "" },
                    items.join(", ")
                )
            }
            ArrayInit::Empty { .. } => "Vec::new()".to_string(),
        },
        Op::Opaque { expr, .. } => show(&expr.to_token_stream()),
    }
}

/// Tokens as text, with the spacing of `TokenStream::to_string` tidied.
pub fn show(tokens: &TokenStream) -> String {
    let mut s = tokens.to_string();
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" :: ", "::"),
        (":: ", "::"),
        (" !", "!"),
        (" ;", ";"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("* const ", "*const "),
        ("* mut ", "*mut "),
        ("& [", "&["),
        ("& dyn ", "&dyn "),
        ("& mut ", "&mut "),
        ("& mut[", "&mut ["),
        ("& str", "&str"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("& (", "&("),
    ] {
        s = s.replace(from, to);
    }
    s
}
