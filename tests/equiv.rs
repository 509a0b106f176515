//! The router core [`routergen::hdl`] writes (one module per distinct body,
//! flip-flops inline, no `$`) against the one rust-hdl's `generate_verilog`
//! writes: Yosys and ABC prove the two equivalent. The default suite proves
//! a small router; `make equiv` proves the reference router, one router
//! per option family and every configuration of `make matrix`.
//!
//! A change meant to keep the hardware (a stage moved into a block of its
//! own, a writer change) is proved by `make equiv-before BEFORE=BINARY`:
//! every configuration of `make matrix` as this routergen writes it
//! against the Verilog an earlier routergen binary writes.

use std::path::Path;
use std::time::Instant;

use routergen::flows::yosys::prove_equivalent;
use routergen::router::{matrix, prove_core_equivalent};
use routergen::spec::{RouterSpec, SpecInput};

/// The spec of the TOML lines `toml`.
fn spec(toml: &str) -> RouterSpec {
    SpecInput::from_toml(toml, Path::new("sample.toml"))
        .and_then(|s| s.resolve())
        .expect("a valid spec")
        .spec
}

/// Proves each spec's core equivalent, printing the time each took; the
/// names of those not proved.
fn unproved(specs: &[RouterSpec]) -> Vec<String> {
    prove_each(specs, jobs(), |s| {
        prove_core_equivalent(s)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

/// The routers an earlier run proved: the `equivalent: NAME` lines of the
/// log `EQUIV_DONE` names, if any.
fn done() -> Vec<String> {
    match std::env::var("EQUIV_DONE") {
        Ok(log) if !log.is_empty() => std::fs::read_to_string(&log)
            .unwrap_or_else(|e| panic!("EQUIV_DONE={log}: {e}"))
            .lines()
            .filter_map(|l| l.strip_prefix("equivalent: "))
            .filter_map(|l| l.split(' ').next())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Proofs at once: `EQUIV_JOBS`, by default one per core.
fn jobs() -> usize {
    std::env::var("EQUIV_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `prove` on each spec, `jobs` at once, printing `equivalent: NAME
/// (T s)` or `NOT PROVED: NAME: why` as each ends; the names not proved.
fn prove_each(
    specs: &[RouterSpec],
    jobs: usize,
    prove: impl Fn(&RouterSpec) -> Result<(), String> + Sync,
) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(s) = specs.get(i) else { break };
                let name = s.name();
                let t = Instant::now();
                match prove(s) {
                    Ok(()) => println!("equivalent: {name} ({:.0} s)", t.elapsed().as_secs_f64()),
                    Err(e) => {
                        println!("NOT PROVED: {name}: {e}");
                        failed.lock().unwrap().push(name);
                    }
                }
            });
        }
    });
    failed.into_inner().unwrap()
}

/// Dimension order on a 3x3 mesh (the router of the formal proofs).
#[test]
fn a_small_router_is_rust_hdls() {
    let specs =
        ["algorithm = \"dor\"\nradix = 3\nvcs = 2\nflit_width = 16\nbuffer_depth = 2"].map(spec);
    let failed = unproved(&specs);
    assert!(failed.is_empty(), "not proved: {failed:?}");
}

/// The reference router, and one router per option family the matrix does
/// not vary: look-ahead with one cycle per router, a programmable table,
/// on/off flow control, block RAM and distributed RAM buffers, a
/// path-selection heuristic with registers of its own (`make equiv`).
#[test]
#[ignore = "minutes: make equiv"]
fn the_reference_router_and_each_option_family_are_rust_hdls() {
    let specs = [
        "algorithm = \"dor\"\nvcs = 2\nflit_width = 32\nbuffer_depth = 4",
        "algorithm = \"duato\"\nradix = 3\nvcs = 2\nflit_width = 16\nbuffer_depth = 2\n\
         lookahead = true\npipeline = 1",
        "algorithm = \"west-first\"\nvcs = 1\nflit_width = 16\nbuffer_depth = 2\n\
         table = \"economical\"",
        "algorithm = \"negative-first\"\ntopology = \"hypercube\"\ndims = 3\nradix = 2\n\
         flit_width = 16\nflow_control = \"on-off\"",
        "algorithm = \"dor\"\ntopology = \"torus\"\nvcs = 2\nflit_width = 16\nbuffer_depth = 2\n\
         buffers = \"bram\"",
        "algorithm = \"dor\"\ntopology = \"torus\"\nvcs = 2\nflit_width = 16\nbuffer_depth = 2\n\
         buffers = \"lutram\"",
        "algorithm = \"duato\"\nvcs = 2\nflit_width = 16\nbuffer_depth = 2\n\
         path_selection = \"lru\"",
    ]
    .map(spec);
    let failed = unproved(&specs);
    assert!(failed.is_empty(), "not proved: {failed:?}");
}

/// Every configuration of `make matrix` (`make equiv`; `ONLY=` a part of
/// the names; `EQUIV_JOBS` proofs at once, by default one per core; the
/// routers `EQUIV_DONE`'s log proved skipped).
#[test]
#[ignore = "hours: make equiv"]
fn every_matrix_router_is_rust_hdls() {
    let only = std::env::var("MATRIX_ONLY").unwrap_or_default();
    let done = done();
    let specs: Vec<RouterSpec> = matrix()
        .into_iter()
        .filter(|s| s.name().contains(&only) && !done.contains(&s.name()))
        .collect();
    let failed = unproved(&specs);
    assert!(failed.is_empty(), "not proved: {failed:?}");
}

/// Every configuration of `make matrix` (`ONLY=` a part of the names):
/// the whole router this routergen writes is equivalent to the one the
/// routergen binary `ROUTERGEN_BEFORE` writes for the same spec (`make
/// equiv-before BEFORE=BINARY`), `EQUIV_JOBS` at once, those `EQUIV_DONE`'s
/// log proved skipped.
#[test]
#[ignore = "hours: make equiv-before BEFORE=BINARY"]
fn every_matrix_router_is_the_earlier_routergens() {
    let before = std::env::var("ROUTERGEN_BEFORE").expect(
        "ROUTERGEN_BEFORE names an earlier routergen binary (make equiv-before BEFORE=...)",
    );
    let only = std::env::var("MATRIX_ONLY").unwrap_or_default();
    let done = done();
    let specs: Vec<RouterSpec> = matrix()
        .into_iter()
        .filter(|s| s.name().contains(&only) && !done.contains(&s.name()))
        .collect();
    let jobs = jobs();
    println!(
        "{} routers to prove ({} proved before), {jobs} at once",
        specs.len(),
        done.len()
    );
    let failed = prove_each(&specs, jobs, |s| prove_against_binary(&before, s));
    assert!(failed.is_empty(), "not proved: {failed:?}");
}

/// Proves the router `spec` as this routergen writes it equivalent to the
/// one the routergen binary `before` writes.
fn prove_against_binary(before: &str, spec: &RouterSpec) -> Result<(), String> {
    let name = spec.name();
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("spec.toml");
    std::fs::write(&config, spec.to_toml()).map_err(|e| e.to_string())?;
    let out = dir.path().join("out");
    let run = std::process::Command::new(before)
        .arg("--config")
        .arg(&config)
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("{before} does not run: {e}"))?;
    if !run.status.success() {
        return Err(format!(
            "the earlier routergen failed: {}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let gold =
        std::fs::read_to_string(out.join(format!("rtl/{name}.v"))).map_err(|e| e.to_string())?;
    let gate = routergen::router::verilog(spec).map_err(|e| e.to_string())?;
    prove_equivalent(&gold, &gate, &name)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
