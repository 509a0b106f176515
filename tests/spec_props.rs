//! Property tests over random specifications: validation never panics, and
//! every accepted spec survives a trip through TOML unchanged.

use proptest::prelude::*;
use routergen::spec::names::Named;
use routergen::spec::{
    Addressing, Algorithm, BufferStorage, FlowControl, MetaClusters, PathSelection, RouterDatapath,
    SpecInput, TableStorage, Topology,
};
use std::path::Path;

fn pick<T: Named + std::fmt::Debug>() -> impl Strategy<Value = Option<T>> {
    proptest::option::of(proptest::sample::select(T::all()))
}

/// Sizes around and beyond the limits, negatives, zero and huge values.
fn size() -> impl Strategy<Value = Option<i64>> {
    proptest::option::of(prop_oneof![
        4 => -2i64..=20,
        2 => 0i64..=300,
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => any::<i64>(),
    ])
}

fn width() -> impl Strategy<Value = Option<i64>> {
    proptest::option::of(prop_oneof![
        proptest::sample::select(vec![8i64, 16, 32, 64]),
        any::<i64>()
    ])
}

prop_compose! {
    fn spec_input()(
        topology in pick::<Topology>(),
        dims in size(),
        radix in size(),
        algorithm in pick::<Algorithm>(),
        ports in size(),
        vcs in size(),
        flit_width in width(),
        buffer_depth in size(),
        addressing in pick::<Addressing>(),
        lookahead in proptest::option::of(any::<bool>()),
        path_selection in pick::<PathSelection>(),
        table in pick::<TableStorage>(),
        meta_clusters in pick::<MetaClusters>(),
        flow_control in pick::<FlowControl>(),
        datapath in pick::<RouterDatapath>(),
        buffers in pick::<BufferStorage>(),
        pipeline in proptest::option::of(prop_oneof![3 => 1i64..=2, 1 => any::<i64>()]),
    ) -> SpecInput {
        SpecInput { topology, dims, radix, algorithm, ports, vcs, flit_width, buffer_depth,
                    addressing, lookahead, path_selection, table, meta_clusters, flow_control, datapath,
                    buffers, pipeline }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn validation_never_panics_and_accepted_specs_round_trip(input in spec_input()) {
        let resolved = input.resolve();
        if let Err(e) = &resolved {
            // The library speaks of parameters; the command line adds flags.
            let e = e.to_string();
            prop_assert!(
                !e.match_indices("--")
                    .any(|(i, _)| e[i + 2..].starts_with(|c: char| c.is_ascii_lowercase())),
                "a flag in {}", e
            );
        }
        if let Ok(resolved) = resolved {
            let spec = resolved.spec;
            let text = spec.to_toml();
            let back = SpecInput::from_toml(&text, Path::new("round-trip.toml"))
                .expect("a written spec parses");
            let again = back.resolve().expect("a written spec validates").spec;
            prop_assert_eq!(&again, &spec);
            // Invariants the rest of routergen relies on.
            prop_assert!(spec.vcs >= spec.min_vcs());
            prop_assert!(spec.header_bits() <= spec.flit_width);
            prop_assert_eq!(spec.ports, spec.organization().ports);
        }
    }

    #[test]
    fn arbitrary_toml_text_never_panics(text in "[a-z_=\\[\\]\" 0-9\\n.-]{0,80}") {
        if let Ok(input) = SpecInput::from_toml(&text, Path::new("fuzz.toml")) {
            let _ = input.resolve();
        }
    }
}

// Enough random specs are accepted for the round-trip property to mean
// something (it is vacuous if validation rejects everything).
#[test]
fn a_good_share_of_random_specs_is_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = spec_input();
    let accepted = (0..2000)
        .filter(|_| {
            strategy
                .new_tree(&mut runner)
                .unwrap()
                .current()
                .resolve()
                .is_ok()
        })
        .count();
    assert!(
        accepted >= 20,
        "only {accepted} of 2000 random specs accepted"
    );
}
