//! Network simulation tests. Oracles: the packets the test created (every
//! one must arrive once, at its destination, unchanged: checked in
//! [`run`]), docs/interface.md's head-flit rule, the routing relation (the
//! deadlock report), and a second engine on the same stimulus.

use std::time::Instant;

use super::*;
use crate::router::tests::spec_on;
use crate::spec::{Algorithm, Topology};

fn cfg(spec: RouterSpec, load: f64) -> SimConfig {
    SimConfig {
        load,
        warmup: 200,
        measure: 800,
        ..SimConfig::new(RouterSpec {
            flit_width: 32,
            ..spec
        })
    }
}

fn run_rust(c: &SimConfig) -> Result<Run> {
    let mut e = build_engine(c, EngineKind::Rust)?;
    run(c, e.as_mut(), &Control::default())
}

#[test]
fn mesh_dimension_order_delivers_everything() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = cfg(s, 0.3);
    let t0 = Instant::now();
    let r = run_rust(&c).unwrap();
    let el = t0.elapsed().as_secs_f64();
    eprintln!(
        "{} cycles in {el:.2} s: {:.0} router-cycles/s",
        r.stats.cycles,
        r.stats.cycles as f64 * 16.0 / el
    );
    eprintln!("{}", stats::table(&[r.stats.clone()]));
    assert!(r.stats.latencies.len() == r.stats.measured_packets);
    assert!(r.stats.measured_packets > 50);
}
