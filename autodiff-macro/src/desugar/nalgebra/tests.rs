//! The rewrite of nalgebra values into their entries, read as the Rust it
//! produces.

use quote::ToTokens;
use syn::parse_quote;

use super::*;

fn rewritten(item: syn::ItemFn) -> Plan {
    match plan(&item) {
        Ok(Some(p)) => p,
        Ok(None) => panic!("not taken for nalgebra"),
        Err(e) => panic!("refused: {e}"),
    }
}

/// The tokens of `item`, spaces removed, for comparing.
fn text(item: &impl ToTokens) -> String {
    item.to_token_stream().to_string().replace(' ', "")
}

#[test]
fn shapes_from_type_names() {
    let t = |ty: syn::Type| na_type(&ty).map(|t| (t.rows, t.cols, t.point));
    assert_eq!(t(parse_quote!(Vector3<f64>)), Some((3, 1, false)));
    assert_eq!(
        t(parse_quote!(&nalgebra::RowVector2<T>)),
        Some((1, 2, false))
    );
    assert_eq!(t(parse_quote!(Matrix2x3<f32>)), Some((2, 3, false)));
    assert_eq!(t(parse_quote!(na::Matrix4<f64>)), Some((4, 4, false)));
    assert_eq!(t(parse_quote!(SVector<f64, 7>)), Some((7, 1, false)));
    assert_eq!(t(parse_quote!(SMatrix<T, 2, 5>)), Some((2, 5, false)));
    assert_eq!(t(parse_quote!(Point3<f64>)), Some((3, 1, true)));
    // A type of the user's own without a float argument, or with others.
    assert_eq!(t(parse_quote!(Vector3)), None);
    assert_eq!(t(parse_quote!(Vector3<f64, Extra>)), None);
    assert_eq!(t(parse_quote!(Vector9<f64>)), None);
    assert_eq!(t(parse_quote!(&mut Vector3<f64>)), None);
}

#[test]
fn a_constructor_alone_is_not_taken_for_nalgebra() {
    // Refused, saying how to say which, where an argument may carry a
    // derivative; left alone where all are literals.
    let own: syn::ItemFn = parse_quote! {
        fn f(x: f64) -> f64 { let v = Vector3::new(x, 1.0, 2.0); v.len2() }
    };
    let e = plan(&own).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        e.contains("cannot tell whether `Vector3` here is nalgebra's"),
        "{e}"
    );
    let constant: syn::ItemFn = parse_quote! {
        fn f(x: f64) -> f64 { let v = Vector3::new(3.0, 1.0, -2.0); v.len2() * x }
    };
    assert!(plan(&constant).unwrap().is_none());
    let typed: syn::ItemFn = parse_quote! {
        fn f(x: f64) -> f64 { let v = Vector3::<f64>::new(x, 1.0, 2.0); v.norm() }
    };
    assert!(plan(&typed).unwrap().is_some());
    let by_crate: syn::ItemFn = parse_quote! {
        fn f(x: f64) -> f64 { nalgebra::Vector2::new(x, 1.0).norm() }
    };
    assert!(plan(&by_crate).unwrap().is_some());
}

#[test]
fn the_body_only_keeps_name_and_signature() {
    let p = rewritten(parse_quote! {
        fn f(q: f64) -> f64 {
            let v: Vector2<f64> = Vector2::new(q.cos(), q.sin());
            let w = v * 2.0 - Vector2::new(1.0, 0.0);
            w.dot(&v) + w.x
        }
    });
    assert!(!p.in_signature());
    assert_eq!(
        text(&p.twin),
        text(&quote::quote! {
            fn f(q: f64) -> f64 {
                let v: [f64; 2usize] = [q.cos(), q.sin()];
                let w: [f64; 2usize] = [v[0usize] * 2.0 - 1.0, v[1usize] * 2.0 - 0.0];
                (w[0usize] * v[0usize] + w[1usize] * v[1usize]) + w[0usize]
            }
        })
    );
}

#[test]
fn a_signature_becomes_arrays_and_products_bind_their_operands() {
    let p = rewritten(parse_quote! {
        fn f(m: &Matrix2<f64>, v: Vector2<f64>) -> Vector2<f64> {
            m * (v + v)
        }
    });
    assert!(p.in_signature());
    assert_eq!(p.params[0].as_ref().map(|t| t.len()), Some(4));
    // `v + v` is read twice per entry of the product: bound first. Entry
    // (i, j) of `m` is `m[i + 2 j]`, nalgebra's column-major order.
    assert_eq!(
        text(&p.twin),
        text(&quote::quote! {
            fn __autodiff_na_f(m: [f64; 4usize], v: [f64; 2usize]) -> [f64; 2usize] {
                let __na: [f64; 2usize] = [v[0usize] + v[0usize], v[1usize] + v[1usize]];
                [m[0usize] * __na[0usize] + m[2usize] * __na[1usize],
                 m[1usize] * __na[0usize] + m[3usize] * __na[1usize]]
            }
        })
    );
}

#[test]
fn operands_keep_their_precedence() {
    let p = rewritten(parse_quote! {
        fn f(a: Vector2<f64>, b: Vector2<f64>) -> f64 {
            let d = -(a - b) * 3.0;
            2.0 * (a - b).x + d.y
        }
    });
    let body = text(&p.twin.block);
    assert!(body.contains("-(a[0usize]-b[0usize])*3.0"), "{body}");
    assert!(body.contains("2.0*(a[0usize]-b[0usize])"), "{body}");
}

#[test]
fn matrix_new_lists_rows_and_entries_are_columns() {
    let p = rewritten(parse_quote! {
        fn f(x: f64) -> f64 {
            let m: Matrix2x3<f64> = Matrix2x3::new(x, 2.0, 3.0, 4.0, 5.0, 6.0);
            m[(1, 2)] + m[(0, 1)]
        }
    });
    let body = text(&p.twin.block);
    assert!(body.contains("[x,4.0,2.0,5.0,3.0,6.0]"), "{body}");
    assert!(
        body.contains("m[(1)+(2)*2usize]+m[(0)+(1)*2usize]"),
        "{body}"
    );
}

#[test]
fn refusals_say_what_to_write() {
    let refused = |item: syn::ItemFn| match plan(&item) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("taken: {}", text(&item)),
    };
    let unknown = refused(parse_quote! {
        fn f(v: Vector3<f64>) -> f64 { v.try_inverse_mut() }
    });
    assert!(
        unknown.contains("does not follow `try_inverse_mut`"),
        "{unknown}"
    );
    let opaque = refused(parse_quote! {
        fn f(v: Vector3<f64>, q: f64) -> f64 { let p = fk(q); (v - p).norm() }
    });
    assert!(opaque.contains("comes from a call"), "{opaque}");
    let printed = refused(parse_quote! {
        fn f(v: Vector3<f64>) -> f64 { println!("{}", v); v.x }
    });
    assert!(printed.contains("a macro"), "{printed}");
    let lent = refused(parse_quote! {
        fn f(v: &mut Vector3<f64>) -> f64 { v.x }
    });
    assert!(lent.contains("not by `&mut`"), "{lent}");
}

#[test]
fn calls_given_or_returning_values_call_the_twin() {
    let p = rewritten(parse_quote! {
        fn f(q: Vector2<f64>) -> f64 {
            let p: Vector2<f64> = hand(&q);
            distance(p * 2.0, &q) + (hand(&q) - p).x
        }
    });
    let body = text(&p.twin.block);
    assert!(
        body.contains("letp:[f64;2usize]=__autodiff_na_hand(q);"),
        "{body}"
    );
    // An argument computed here is bound to a typed array first.
    assert!(
        body.contains("let__na:[f64;2usize]=[p[0usize]*2.0,p[1usize]*2.0];"),
        "{body}"
    );
    assert!(body.contains("__autodiff_na_distance(__na,q)"), "{body}");
    assert!(body.contains("let__na_1=__autodiff_na_hand(q);"), "{body}");
}
