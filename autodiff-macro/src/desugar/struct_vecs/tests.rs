//! The split of `Vec`s of rows, syntax to syntax.

use quote::ToTokens;

fn split_body(f: syn::ItemFn) -> String {
    super::split(f).block.to_token_stream().to_string()
}

#[test]
fn rows_pushed_are_split_by_part_and_read_at_literal_parts() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64) -> f64 {
            let mut traj: Vec<[f64; 2]> = Vec::new();
            traj.push([a, b]);
            let mut s = 0.0;
            for p in &traj {
                s += p[0] * p[1];
            }
            s + traj[0][1]
        }
    };
    let expected: syn::Block = syn::parse_quote!({
        #[allow(unused_mut)]
        let mut traj_0: ::std::vec::Vec<f64> = Vec::new();
        #[allow(unused_mut)]
        let mut traj_1: ::std::vec::Vec<f64> = Vec::new();
        let _ = |traj_row: usize| [traj_0[traj_row], traj_1[traj_row]];
        traj_0.push(a);
        traj_1.push(b);
        let mut s = 0.0;
        for traj_k in 0..traj_0.len() {
            s += traj_0[traj_k] * traj_1[traj_k];
        }
        s + traj_1[0]
    });
    assert_eq!(split_body(f), expected.to_token_stream().to_string());
}

#[test]
fn a_row_part_at_a_position_that_is_no_literal_is_each_position_in_turn() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64, d: usize) -> f64 {
            let mut traj = Vec::new();
            let s = [a, b];
            traj.push(s);
            traj[0][d] += 1.0;
            traj[0][d + 1]
        }
    };
    let expected: syn::Block = syn::parse_quote!({
        #[allow(unused_mut)]
        let mut traj_0 = Vec::new();
        #[allow(unused_mut)]
        let mut traj_1 = Vec::new();
        let _ = |traj_row: usize| [traj_0[traj_row], traj_1[traj_row]];
        let s = [a, b];
        let traj_pushed = s;
        traj_0.push(traj_pushed[0]);
        traj_1.push(traj_pushed[1]);
        {
            let __autodiff_value = 1.0;
            if d == 0usize {
                traj_0[0] += __autodiff_value;
            } else if d == 1usize {
                traj_1[0] += __autodiff_value;
            } else {
                let _: usize = [0usize; 2usize][d];
            }
        }
        ({
            let __autodiff_at: usize = d + 1;
            if __autodiff_at == 0usize {
                traj_0[0]
            } else if __autodiff_at == 1usize {
                traj_1[0]
            } else {
                let _: usize = [0usize; 2usize][__autodiff_at];
                traj_0[0]
            }
        })
    });
    assert_eq!(split_body(f), expected.to_token_stream().to_string());
}

#[test]
fn a_row_lent_at_a_position_that_is_no_literal_leaves_the_vec_whole() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64, d: usize) -> f64 {
            let mut traj: Vec<[f64; 2]> = Vec::new();
            traj.push([a, b]);
            bump(&mut traj[0][d]);
            traj[0][0]
        }
    };
    let before = f.block.to_token_stream().to_string();
    assert_eq!(split_body(f), before);
}

#[test]
fn a_row_handed_out_by_iter_mut_leaves_the_vec_whole() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64) -> f64 {
            let mut traj: Vec<[f64; 2]> = Vec::new();
            traj.push([a, b]);
            for x in traj[0].iter_mut() {
                *x *= 2.0;
            }
            traj[0].iter().sum()
        }
    };
    let before = f.block.to_token_stream().to_string();
    assert_eq!(split_body(f), before);
}

#[test]
fn tuples_pushed_are_split_by_position() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64) -> f64 {
            let mut h = Vec::new();
            h.push((a, b));
            h[0].0 * h[0].1
        }
    };
    let expected: syn::Block = syn::parse_quote!({
        #[allow(unused_mut)]
        let mut h_0 = Vec::new();
        #[allow(unused_mut)]
        let mut h_1 = Vec::new();
        h_0.push(a);
        h_1.push(b);
        h_0[0] * h_1[0]
    });
    assert_eq!(split_body(f), expected.to_token_stream().to_string());
}

#[test]
fn a_vec_handed_whole_to_another_is_split_with_it_part_by_part() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64) -> f64 {
            let mut pos: Vec<[f64; 2]> = Vec::new();
            pos.push([a, b]);
            for _ in 0..3 {
                let mut next = Vec::new();
                next.push([pos[0][1], pos[0][0]]);
                pos = next;
            }
            pos[0][0]
        }
    };
    let expected: syn::Block = syn::parse_quote!({
        #[allow(unused_mut)]
        let mut pos_0: ::std::vec::Vec<f64> = Vec::new();
        #[allow(unused_mut)]
        let mut pos_1: ::std::vec::Vec<f64> = Vec::new();
        let _ = |pos_row: usize| [pos_0[pos_row], pos_1[pos_row]];
        pos_0.push(a);
        pos_1.push(b);
        for _ in 0..3 {
            // (`next_0` and `next_1` taken by the split of `next` alone,
            // tried first and given up: `pos = next;` uses it whole.)
            #[allow(unused_mut)]
            let mut next_0_1 = Vec::new();
            #[allow(unused_mut)]
            let mut next_1_1 = Vec::new();
            next_0_1.push(pos_1[0]);
            next_1_1.push(pos_0[0]);
            pos_0 = next_0_1;
            pos_1 = next_1_1;
        }
        pos_0[0]
    });
    assert_eq!(split_body(f), expected.to_token_stream().to_string());
}

#[test]
fn a_vec_handed_to_one_that_is_used_whole_stays_whole() {
    // `next` is passed whole to a function: neither is split, and `pos =
    // next;` stays as written.
    let f: syn::ItemFn = syn::parse_quote! {
        fn f(a: f64, b: f64) -> f64 {
            let mut pos: Vec<[f64; 2]> = Vec::new();
            pos.push([a, b]);
            let mut next = Vec::new();
            next.push([b, a]);
            show(&next);
            pos = next;
            pos[0][0]
        }
    };
    assert!(split_body(f).contains("pos = next"));
}
