//! A change meant to keep the hardware (a stage moved into a block of its
//! own, a writer change) is proved by `make equiv-before BEFORE=BINARY`:
//! every configuration of `make matrix` as this routergen writes it
//! against the Verilog an earlier routergen binary writes, Yosys and ABC
//! proving each pair equivalent.

use std::time::Instant;

use routergen::flows::yosys::prove_equivalent;
use routergen::router::{matrix, option_families};
use routergen::spec::RouterSpec;

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

/// Every configuration of `make matrix` and each option family it does not
/// vary (`ONLY=` parts of the names, comma-separated):
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
        .chain(option_families())
        .filter(|s| {
            let name = s.name();
            only.split(',').any(|part| name.contains(part)) && !done.contains(&name)
        })
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
