//! Property tests over random specifications: validation never panics, and
//! every accepted spec survives a trip through TOML unchanged.

use proptest::prelude::*;
use routergen::spec::options::ValueKind;
use routergen::spec::{SpecInput, OPTIONS};
use std::path::Path;

/// Whole numbers around and beyond the limits, the flit widths, negatives,
/// zero and huge values; small ones most often, which every size accepts.
fn integer() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => 1i64..=4,
        4 => -2i64..=20,
        2 => 0i64..=300,
        2 => proptest::sample::select(vec![16i64, 32, 64]),
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => any::<i64>(),
    ]
    .prop_map(|n| n.to_string())
}

/// A word for each option of the one declaration, or none: a new option
/// is covered without a change here.
fn spec_input() -> impl Strategy<Value = SpecInput> {
    let words: Vec<BoxedStrategy<Option<String>>> = OPTIONS
        .iter()
        .map(|o| {
            let word = match o.kind {
                ValueKind::Integer => integer().boxed(),
                ValueKind::Switch => any::<bool>().prop_map(|b| b.to_string()).boxed(),
                ValueKind::Words(words) => {
                    let names: Vec<String> =
                        words().into_iter().map(|(w, _)| w.to_string()).collect();
                    proptest::sample::select(names).boxed()
                }
            };
            proptest::option::of(word).boxed()
        })
        .collect();
    words.prop_map(|words| {
        let mut input = SpecInput::default();
        for (o, word) in OPTIONS.iter().zip(words) {
            if let Some(word) = word {
                input
                    .set(o.key, &word)
                    .expect("a word of the option's kind");
            }
        }
        input
    })
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
