//! The Wengert list, shown in the generated function's doc comment and
//! returned by `autodiff::wengert!`.

use super::*;

/// The Wengert list as text: one line per entry, `*` on the active ones.
pub(super) fn wengert_list(f: &Function, a: &Activity, names: &Names) -> String {
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

/// The Wengert list as a Graphviz DOT graph, without values: a node per
/// parameter and entry (φ nodes for the values branches and loops merge),
/// an edge per operand read, active nodes solid and the rest dashed.
/// Returned by `autodiff::wengert_dot!`; a `_trace`'s `to_dot` draws the
/// same graph with values and adjoints.
pub(super) fn wengert_dot(name: &str, f: &Function, a: &Activity, names: &Names) -> String {
    let quoted = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut lines = vec![
        format!("digraph {} {{", quoted(name)),
        "  rankdir=LR;".to_string(),
        "  node [shape=box, fontname=\"monospace\"];".to_string(),
    ];
    let style = |v: ValueId| if a.is_active(v) { "solid" } else { "dashed" };
    for p in &f.params {
        let n = names.forward_str(p.value);
        lines.push(format!(
            "  {} [label={}, style=\"{},filled\", fillcolor=\"#dbeafe\"];",
            quoted(n),
            quoted(&format!("{n} (input)")),
            style(p.value)
        ));
    }
    let node = |lines: &mut Vec<String>, v: ValueId, label: String, reads: Vec<ValueId>| {
        let n = names.forward_str(v);
        lines.push(format!(
            "  {} [label={}, style={}];",
            quoted(n),
            quoted(&label),
            style(v)
        ));
        for r in reads {
            lines.push(format!(
                "  {} -> {};",
                quoted(names.forward_str(r)),
                quoted(n)
            ));
        }
    };
    f.body.walk(&mut |inst| match inst {
        Inst::Def { dst, op, .. } => {
            let label = format!("{} = {}", names.forward_str(*dst), show_op(op, names));
            node(&mut lines, *dst, label, op.operands());
        }
        Inst::Branch(br) => {
            for m in &br.merges {
                let arms: Vec<String> = m.arms.iter().map(|o| show_operand(o, names)).collect();
                let label = format!("{} = φ({})", names.forward_str(m.dst), arms.join(", "));
                node(
                    &mut lines,
                    m.dst,
                    label,
                    m.arms.iter().filter_map(Operand::value).collect(),
                );
            }
        }
        Inst::Loop(l) => {
            for c in &l.carried {
                let label = format!(
                    "{} = φ({}, {})",
                    names.forward_str(c.header),
                    show_operand(&c.init, names),
                    show_operand(&c.next, names)
                );
                let reads = [c.init.value(), c.next.value()]
                    .into_iter()
                    .flatten()
                    .collect();
                node(&mut lines, c.header, label, reads);
                let out = format!("{} (after the loop)", names.forward_str(c.out));
                node(&mut lines, c.out, out, vec![c.header]);
            }
        }
        _ => {}
    });
    lines.push("}".to_string());
    lines.join("\n")
}

/// The name of the constant holding a function's Wengert list as DOT,
/// read by `autodiff::wengert_dot!`.
pub fn wengert_dot_const(fname: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_wengert_dot_{}", fname)
}

/// The doc comment of `<name>_grad`: what it returns and the Wengert list.
pub(super) fn doc_comment(item: &syn::ItemFn, f: &Function, list: &str) -> Vec<TokenStream> {
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

/// The hidden constants holding the function's Wengert list (`list`) and
/// its DOT (`dot`), read by `autodiff::wengert!` and `wengert_dot!`; their
/// lifetime written out, as an associated constant in an `impl<'a>` needs
/// (trial 11 r999: an elided one is a deny-by-default lint there).
pub(super) fn wengert_consts(item: &syn::ItemFn, list: &str, dot: &str) -> TokenStream {
    let (list_const, dot_const) = (
        wengert_const(&item.sig.ident),
        wengert_dot_const(&item.sig.ident),
    );
    let vis = &item.vis;
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code, clippy::redundant_static_lifetimes)]
        #vis const #list_const: &'static str = #list;
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code, clippy::redundant_static_lifetimes)]
        #vis const #dot_const: &'static str = #dot;
    }
}

/// The name of the constant holding a function's Wengert list, read by
/// `autodiff::wengert!`.
pub fn wengert_const(fname: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_wengert_{}", fname)
}

pub(super) fn show_operand(o: &Operand, names: &Names) -> String {
    match o {
        Operand::Value(v) => names.forward_str(*v).to_string(),
        Operand::Const(e) => show(&as_written(e).to_token_stream()),
    }
}

/// A constant as the user wrote it: a literal the generic desugaring
/// converted (`<T as ::autodiff::Float>::from_f64(1.5)`) is shown as the
/// literal `1.5`.
fn as_written(e: &syn::Expr) -> &syn::Expr {
    if let syn::Expr::Call(call) = e {
        if let (syn::Expr::Path(p), [arg]) =
            (&*call.func, &call.args.iter().collect::<Vec<_>>()[..])
        {
            let converted = p.qself.is_some()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "from_f64");
            if converted && matches!(arg, syn::Expr::Lit(_)) {
                return arg;
            }
        }
    }
    e
}

pub(super) fn show_op(op: &Op, names: &Names) -> String {
    show_op_with(op, names, &|x: &Operand| show_operand(x, names))
}

/// An entry as text, each operand written by `o`.
pub(super) fn show_op_with(op: &Op, names: &Names, o: &dyn Fn(&Operand) -> String) -> String {
    let steps = |path: &[Step]| -> String {
        path.iter()
            .map(|s| match s {
                Step::Field(m) => format!(".{}", show(&m.to_token_stream())),
                Step::Index(i) => format!("[{}]", o(i)),
                Step::Range {
                    start,
                    end,
                    inclusive,
                } => format!(
                    "[{}{}{}]",
                    start.as_ref().map(o).unwrap_or_default(),
                    if *inclusive { "..=" } else { ".." },
                    end.as_ref().map(o).unwrap_or_default()
                ),
            })
            .collect()
    };
    match op {
        Op::Copy(a) => o(a),
        Op::Unary(UnOp::Neg, a) => format!("-{}", o(a)),
        Op::Unary(UnOp::Not, a) => format!("!{}", o(a)),
        Op::Binary(op, a, b) => format!("{} {} {}", o(a), op.symbol(), o(b)),
        Op::Method {
            name, recv, args, ..
        } => format!(
            "{}.{name}({})",
            o(recv),
            args.iter().map(o).collect::<Vec<_>>().join(", ")
        ),
        Op::Call { path, args, .. } | Op::VjpCall { path, args, .. } => format!(
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
        // A copy, `o.clone()` (`lower/methods.rs struct_copy`).
        Op::Construct {
            fields,
            base: Some(b),
            ..
        } if fields.is_empty() => format!("{}.clone()", names.forward_str(*b)),
        Op::Construct { path, fields, base } => format!(
            "{} {{ {} }}",
            show(&path.to_token_stream()),
            fields
                .iter()
                .map(|(m, x)| format!("{}: {}", show(&m.to_token_stream()), o(x)))
                .chain(base.map(|b| format!("..{}", names.forward_str(b))))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Op::Field { base, member, .. } => format!(
            "{}.{}",
            names.forward_str(*base),
            show(&member.to_token_stream())
        ),
        Op::Project { base, path, by_ref } => format!(
            "{}{}{}",
            if *by_ref { "&" } else { "" },
            names.forward_str(*base),
            steps(path)
        ),
        Op::Kernel { kernel, args, .. } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    KernelOperand::Array(v) => format!("&{}", names.forward_str(*v)),
                    KernelOperand::Place { base, path } => {
                        format!("&{}{}", names.forward_str(*base), steps(path))
                    }
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
