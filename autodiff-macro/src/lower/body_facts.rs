//! What the lowering asks of the whole body before it lowers any
//! statement: which names some statement changes in place, lends by
//! `&mut`, changes through a method of `Vec`'s, binds as mutable or reads,
//! which `Vec`s hold floats or structs by what is pushed and read, and
//! which names are only called. Computed once per function
//! (`BodyFacts::of`), read by the lowering's passes.

use super::*;

pub(super) struct BodyFacts {
    /// The locals some statement may change in place (a method call on
    /// them, `&mut name`, a macro given them): a `let` of one of these is
    /// kept as written rather than modelled, whatever its initialiser.
    pub(super) changed_in_place: std::collections::HashSet<String>,
    /// Of `changed_in_place`, the locals changed otherwise than by a
    /// method that may be the user's (`opaque::changed_in_place`).
    pub(super) changed_otherwise: std::collections::HashSet<String>,
    /// The locals a field of which is assigned (`b.v -= ..`,
    /// `struct_writers::fields_assigned`).
    pub(super) fields_assigned: std::collections::HashSet<String>,
    /// The locals a method of `Vec`'s changes unfollowed (`opaque.rs`,
    /// `changed_by_vec_methods`): never modelled arrays.
    pub(super) vec_changed: std::collections::HashSet<String>,
    /// The locals a method of `Vec`'s changes anywhere (`opaque.rs`,
    /// `changed_by_vec_methods`): never a struct a writer changes.
    pub(super) vec_changing: std::collections::HashSet<String>,
    /// The `Vec`s declared empty without a type that #[grad] models as
    /// float arrays, as their pushes show (`float_vecs::float_vecs`).
    pub(super) float_vecs: std::collections::HashSet<String>,
    /// The locals whose elements the body reads as structs (`bs[i].x`,
    /// `bs[i].kick(..)`): a copy of a part into one (`let mut bs =
    /// self.bodies.clone();`) is no float array (`float_vecs::struct_elements`).
    pub(super) struct_elements: std::collections::HashSet<String>,
    /// The `Vec`s of rows whose type a `let` writes (`float_vecs::typed_rows`).
    pub(super) typed_rows: std::collections::HashSet<String>,
    /// The names bound as mutable (`opaque::mutable_names`): what a macro
    /// kept as written could change.
    pub(super) mutable: std::collections::HashSet<String>,
    /// The names read as variables (`opaque::read_names`): what a macro
    /// kept as written could bind.
    pub(super) read_names: std::collections::HashSet<String>,
    /// The locals lent by `&mut` to a function call (`update(&mut s, y)`):
    /// a float among them is written by the call as a new value
    /// (`writer_call`), any other kept as written like `changed_in_place`.
    pub(super) lent: std::collections::HashSet<String>,
    /// The names the body uses only as the callee of a call (`sq(x)`).
    pub(super) only_called: std::collections::HashSet<String>,
}

impl BodyFacts {
    pub(super) fn of(item: &syn::ItemFn) -> BodyFacts {
        let changed = changed_in_place(&item.block);
        let vec_changed = opaque::changed_by_vec_methods(&item.block);
        BodyFacts {
            changed_in_place: changed.0,
            changed_otherwise: changed.1,
            fields_assigned: struct_writers::fields_assigned(&item.block),
            vec_changed: vec_changed.0,
            vec_changing: vec_changed.1,
            float_vecs: float_vecs::float_vecs(&item.block, &float_vecs::float_params(&item.sig)),
            struct_elements: float_vecs::struct_elements(&item.block),
            mutable: opaque::mutable_names(item),
            typed_rows: float_vecs::typed_rows(&item.block),
            read_names: opaque::read_names(&item.block),
            lent: opaque::lent_to_calls(&item.block),
            only_called: closures::only_called(&item.block),
        }
    }
}
