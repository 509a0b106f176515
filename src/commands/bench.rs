//! `routergen bench`: simulation speed of each engine on a mesh.

use super::Outcome;
use crate::cli::BenchArgs;
use crate::error::Result;
use crate::spec::SpecInput;

/// Measures and prints the speed of each engine of `args`.
pub fn run(args: &BenchArgs) -> Result<Outcome> {
    use crate::sim::{self, Control, EngineKind, SimConfig};
    let spec = SpecInput {
        radix: Some(i64::from(args.radix)),
        flit_width: Some(32),
        ..SpecInput::default()
    }
    .resolve()?
    .spec;
    println!(
        "{}x{} mesh, {}, uniform traffic, 4-flit packets, load {} of the bisection-limited rate, \
         {} thread(s)",
        args.radix, args.radix, spec.algorithm, args.load, args.threads
    );
    let nodes = f64::from(args.radix * args.radix);
    for &kind in &args.engine {
        let cycles = match kind {
            EngineKind::Rust => (args.cycles / 10).max(1),
            EngineKind::Verilator | EngineKind::Netlist => args.cycles,
        };
        let cfg = SimConfig {
            load: args.load,
            warmup: 0,
            measure: cycles,
            threads: args.threads as usize,
            ..SimConfig::new(spec.clone())
        };
        println!("{kind:?} engine: {}", kind.describe());
        let t0 = std::time::Instant::now();
        let mut e = sim::build_engine(&cfg, kind)?;
        let built = t0.elapsed().as_secs_f64();
        let mut timed = sim::network::Timed {
            engine: e.as_mut(),
            spent: std::time::Duration::ZERO,
        };
        let t1 = std::time::Instant::now();
        let run = sim::run(&cfg, &mut timed, &Control::default())?;
        let secs = t1.elapsed().as_secs_f64();
        let alone = timed.spent.as_secs_f64();
        let rc = run.stats.cycles as f64 * nodes;
        println!(
            "{kind:?}: {} cycles in {secs:.2} s: {:.3} M router-cycles/s; routers alone {:.3} M \
             ({:.2} us per router-cycle, {:.0}% of the time) (build or load {built:.1} s)",
            run.stats.cycles,
            rc / secs / 1e6,
            rc / alone / 1e6,
            alone / rc * 1e6,
            100.0 * alone / secs
        );
    }
    Ok(Outcome::Success)
}
