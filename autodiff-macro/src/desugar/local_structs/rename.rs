//! A split struct's field read or written, `name.f`, as the variable of
//! field `f` (in macros' tokens too).

use syn::visit_mut::VisitMut;

/// `name.f` as the variable of field `f`.
pub(super) struct Rename {
    pub(super) name: String,
    pub(super) vars: Vec<(String, syn::Ident)>,
}

impl Rename {
    fn var(&self, field: &syn::Member) -> Option<&syn::Ident> {
        let syn::Member::Named(m) = field else {
            return None;
        };
        self.vars.iter().find(|(f, _)| m == f).map(|(_, v)| v)
    }
}

impl VisitMut for Rename {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Field(f) = e {
            if matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(&self.name)) {
                if let Some(v) = self.var(&f.member) {
                    let v = syn::Ident::new(&v.to_string(), syn::spanned::Spanned::span(&f.member));
                    *e = syn::parse_quote!(#v);
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = rename_tokens(m.tokens.clone(), &self.name, &self.vars);
    }
}

fn rename_tokens(
    tokens: proc_macro2::TokenStream,
    name: &str,
    vars: &[(String, syn::Ident)],
) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree as T;
    let tokens: Vec<T> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            T::Ident(i) if i == name => {
                if let Some(T::Ident(f)) = tokens.get(k + 2) {
                    if let Some((_, v)) = vars.iter().find(|(n, _)| f == n) {
                        out.push(T::Ident(v.clone()));
                        k += 3;
                        continue;
                    }
                }
                out.push(tokens[k].clone());
            }
            T::Group(g) => {
                let mut ng =
                    proc_macro2::Group::new(g.delimiter(), rename_tokens(g.stream(), name, vars));
                ng.set_span(g.span());
                out.push(T::Group(ng));
            }
            other => out.push(other.clone()),
        }
        k += 1;
    }
    out.into_iter().collect()
}
