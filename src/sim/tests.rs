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

fn run_on(c: &SimConfig, kind: EngineKind) -> Run {
    let mut e = build_engine(c, kind).unwrap();
    run(c, e.as_mut(), &Control::default()).unwrap()
}

#[test]
fn engines_agree_flit_by_flit_on_a_mesh() {
    let s = spec_on(Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 1);
    let c = SimConfig {
        trace: true,
        ..cfg(s, 0.5)
    };
    let t0 = Instant::now();
    let v = run_on(&c, EngineKind::Verilator);
    eprintln!("verilator: {:.2} s", t0.elapsed().as_secs_f64());
    let r = run_on(&c, EngineKind::Rust);
    assert!(v.trace.len() > 1000, "{} flits", v.trace.len());
    assert_eq!(v.trace.len(), r.trace.len());
    if let Some(i) = (0..v.trace.len()).find(|&i| v.trace[i] != r.trace[i]) {
        panic!(
            "traces differ from delivered flit {i}: verilator {:?}, rust {:?}",
            &v.trace[i..(i + 4).min(v.trace.len())],
            &r.trace[i..(i + 4).min(r.trace.len())]
        );
    }
}
