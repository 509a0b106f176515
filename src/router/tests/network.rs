//! Networks of routers under `routergen sim`.

use super::*;

/// `routergen sim` on a network of routers of `s` with `engine`, the
/// per-flit trace kept: the run's own checks (every packet once, at
/// its destination, in order, unchanged; the watchdog) must pass.
pub(crate) fn sim_run(s: RouterSpec, engine: crate::sim::EngineKind) -> crate::sim::Run {
    use crate::sim::{build_engine, run, Control, SimConfig};
    let c = SimConfig {
        load: 0.5,
        warmup: 100,
        measure: 400,
        trace: true,
        ..SimConfig::new(RouterSpec {
            flit_width: 32,
            ..s
        })
    };
    let mut e = build_engine(&c, engine).unwrap();
    let r = run(&c, e.as_mut(), &Control::default()).unwrap();
    assert!(r.trace.len() > 300, "{} flits", r.trace.len());
    assert_eq!(r.stats.latencies.len(), r.stats.measured_packets);
    r
}

/// [`sim_run`] of routers of `s` on both `routergen sim` engines: the
/// same flit-by-flit trace (when Verilator is installed).
pub(crate) fn engines_agree(s: RouterSpec) {
    use crate::sim::EngineKind;
    if !crate::flows::require_tool("verilator") {
        return;
    }
    let r = sim_run(s.clone(), EngineKind::Rust);
    let v = sim_run(s, EngineKind::Verilator);
    let first = (0..r.trace.len().max(v.trace.len())).find(|&i| r.trace.get(i) != v.trace.get(i));
    assert!(
        first.is_none(),
        "traces differ from delivered flit {first:?}"
    );
}
