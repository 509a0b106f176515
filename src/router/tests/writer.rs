//! The Verilog writer's code printer ([`crate::hdl::code`]) against
//! rust-hdl's own (`verilog_combinatorial`): the same text for every block
//! of every router of `make matrix` and of each option family it does not
//! vary.

use super::*;

/// The differences in `spec`'s router, and the codes compared.
fn differences(spec: &RouterSpec) -> (Vec<(String, String)>, usize) {
    fn of<const W: usize>(spec: &RouterSpec) -> (Vec<(String, String)>, usize) {
        let mut r = Router::<W>::new(spec).expect("a router");
        crate::blocks::prepare(&mut r);
        crate::hdl::code::differences(&r)
    }
    match spec.flit_width {
        16 => of::<16>(spec),
        32 => of::<32>(spec),
        _ => of::<64>(spec),
    }
}

/// Every fifth router of the matrix and each option family (a minute in a
/// debug build).
#[test]
fn the_code_is_rust_hdls_on_a_sample_of_the_matrix_and_each_option_family() {
    let specs: Vec<RouterSpec> = matrix()
        .into_iter()
        .step_by(5)
        .chain(option_families())
        .collect();
    assert_same_code(&specs);
}

/// Every router of the matrix (`make writer-code`).
#[test]
#[ignore = "minutes: make writer-code"]
fn the_code_is_rust_hdls_on_every_matrix_router() {
    assert_same_code(&matrix());
}

fn assert_same_code(specs: &[RouterSpec]) {
    let mut compared = 0;
    for s in specs {
        let (diffs, n) = differences(s);
        compared += n;
        if let Some((ours, theirs)) = diffs.first() {
            panic!(
                "{}: {} of {n} codes differ; the first:\n--- ours\n{ours}\n--- rust-hdl\n{theirs}",
                s.name(),
                diffs.len()
            );
        }
    }
    // Every router has at least its core's code.
    assert!(compared >= specs.len(), "compared {compared}");
}
