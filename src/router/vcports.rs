//! A crossbar port per virtual channel (Chien §5.4, Figure 8: "a separate
//! crossbar port and flow control unit for each virtual channel", and VC
//! controllers putting the channels of each link on it), with the same
//! external interface as the unified router (docs/interface.md).
//!
//! The router is one unified [`Router`] of P V ports with one VC each (the
//! "VC-port core"): input VC c of link q is the core's input port q V + c,
//! output VC v of link o its output port o V + v. Every decision of the
//! core is then per VC: VC allocation matches input VCs to output VCs, a
//! packet holds its output VC's crossbar port until its tail leaves, and
//! packets on different VCs of one link cross the switch in the same cycle.
//! Behind the crossbar, Chien's VC controller of each link
//! ([`VcController`], Figure 1) takes the flits of its V ports into a
//! D-flit buffer per VC and puts one flit per cycle on the link, round
//! robin among the VCs with a flit and a credit. The local port is built
//! the same way (V crossbar ports; Chien draws one, his injection port
//! having no VCs).
//!
//! The core's relation is the router's, read with the ports renumbered: the
//! permitted output VC k = o V + v of a key is the core's port k with VC 0,
//! so the compiled rows are used unchanged (`core_table`); the header
//! update of core port o V + v is link o's.
//!
//! Credits. The core counts, per output VC, the flits in the VC
//! controller's buffer and in the downstream buffer together: both get the
//! downstream credit (`p<o>_out_credit[v]`), and the core starts with D.
//! So an output VC is free again for a new packet (under *-channels and
//! Duato, atomic allocation: [`super::tables::CompiledTable::atomic`]) only
//! when the controller's buffer and the downstream queue are both empty, as
//! Duato's theorem assumes of the queue of a channel; and neither buffer
//! overflows, since together they never hold more than D flits.
//!
//! Deadlock freedom: the channels are the relation's; the controller's
//! buffer extends a VC's channel without adding a dependency between VCs
//! (a VC waits only for its own downstream credits, and the link's round
//! robin serves every VC that has a flit and a credit), so the relation's
//! proof (`routergen check`) carries over.
//!
//! Latency: a head flit takes the core's two cycles and one more in the VC
//! controller's buffer (three from head in to head out); body flits two.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::block::Io;
use super::organization::{connect_slices, transparent_block, wire, StandIns};
use super::{tables::CompiledTable, unsupported, Router, PORT_BITS};
use crate::blocks::vc_controller::{VcController, VC_BITS as VCC_BITS};
use crate::error::Result;
use crate::spec::{RouterDatapath, RouterSpec};

/// The relation compiled for the router, read by the VC-port core: P V
/// ports of one VC each, the same rows (output VC o V + v is core port
/// o V + v), every pair of core ports wired where their links are.
pub(super) fn core_table(table: &CompiledTable) -> CompiledTable {
    let (p, v) = (table.ports(), table.vcs());
    let mut core = table.clone();
    core.shape.ports = p * v;
    core.shape.vcs = 1;
    core.per_link = v;
    core.la = None;
    core.reach = (0..p * v)
        .map(|i| {
            let links = table.reach[i / v];
            (0..p * v)
                .filter(|k| (links >> (k / v)) & 1 == 1)
                .fold(0u64, |m, k| m | 1 << k)
        })
        .collect();
    // Core port o V + c carries link o's VC c as its one VC.
    core.arrive = (0..p * v)
        .map(|i| (table.arrive[i / v] >> (i % v)) & 1)
        .collect();
    core
}

/// Why the relation compiled as `table` cannot have a crossbar port per
/// VC, if it cannot: more than 16 crossbar ports P V (the core's port
/// numbers), or a routing table or look-ahead field, which name ports and
/// not VCs.
pub(super) fn check(table: &CompiledTable) -> Result<()> {
    let (p, v) = (table.ports(), table.vcs());
    if p * v > 1 << PORT_BITS {
        return Err(unsupported(format!(
            "a crossbar port per VC with {p} ports and {v} VCs ({} crossbar ports; at most \
             {})",
            p * v,
            1 << PORT_BITS
        )));
    }
    if table.es.is_some() || table.la.is_some() {
        return Err(unsupported(
            "a crossbar port per VC with a routing table or look-ahead".into(),
        ));
    }
    Ok(())
}

/// The VC-port configurations of [`super::matrix`]: *-channels on a 4-ary
/// 2-cube (15 crossbar ports), Duato on a 3-D mesh and a 3-cube.
pub fn samples() -> Vec<RouterSpec> {
    use crate::spec::{Algorithm, SpecInput, Topology};
    [
        (Algorithm::StarChannels, Topology::Torus, 2, 4, 3, 32),
        (Algorithm::Duato, Topology::Mesh, 3, 4, 2, 16),
        (Algorithm::Duato, Topology::Hypercube, 3, 2, 3, 64),
    ]
    .into_iter()
    .map(|(algorithm, topology, dims, radix, vcs, w)| {
        SpecInput {
            topology: Some(topology),
            dims: Some(dims),
            radix: Some(radix),
            algorithm: Some(algorithm),
            vcs: Some(vcs),
            flit_width: Some(w),
            datapath: Some(RouterDatapath::VcPorts),
            ..SpecInput::default()
        }
        .resolve()
        .expect("VC-port samples are valid")
        .spec
    })
    .collect()
}

/// A crossbar port per VC: the VC-port core (a unified router of P V
/// ports of one VC each) and a VC controller per link behind the router's
/// ports (module documentation).
pub struct VcPorts<const W: usize> {
    /// The unified router's allocators and crossbar, tied low.
    standins: StandIns<W>,
    /// The one slice: the VC-port core.
    pub(super) slices: Vec<Router<W>>,
    /// Per link, Chien's VC controller putting its VCs on it.
    vcc: Vec<VcController<W>>,
    /// Physical ports and VCs per channel of the router.
    p: usize,
    v: usize,
}

transparent_block!(VcPorts<W>; standins, slices, vcc);

impl<const W: usize> VcPorts<W> {
    /// The router of `spec` with a crossbar port per VC, its relation
    /// compiled as `table`.
    pub(super) fn new(spec: &RouterSpec, table: &CompiledTable) -> Result<Self> {
        check(table)?;
        let (p, v) = (table.ports(), table.vcs());
        debug_assert!(v <= 1 << VCC_BITS);
        let core_spec = RouterSpec {
            datapath: RouterDatapath::Unified,
            ..spec.clone()
        };
        let core = Router::<W>::with_table(&core_spec, core_table(table))?;
        let d = spec.buffer_depth as usize;
        Ok(VcPorts {
            standins: StandIns::new(),
            slices: vec![core],
            vcc: (0..p).map(|_| VcController::new_unchecked(v, d)).collect(),
            p,
            v,
        })
    }

    /// The wiring of the core and the VC controllers (the simulation
    /// model).
    pub(super) fn glue(&mut self, io: &mut Io<'_, W>) {
        let (p, v) = (self.p, self.v);
        let clk = io.clock.val();
        let rst = io.rst.val();
        self.standins.glue(clk);
        // Not `slice_setup`: the core reads the whole node_id, not a
        // slice's coordinates.
        let core = &mut self.slices[0];
        core.clock.next = clk;
        core.rst.next = rst;
        core.node_id.next = io.node_id.val();
        core.cfg_we.next = false;
        core.cfg_addr.next = 0u64.into();
        core.cfg_class.next = 0u64.into();
        for q in 0..p {
            let vc = io.in_vc[q].val().index();
            for c in 0..v {
                let j = q * v + c;
                core.in_data[j].next = io.in_data[q].val();
                core.in_valid[j].next = io.in_valid[q].val() && vc == c;
                core.in_head[j].next = io.in_head[q].val();
                core.in_tail[j].next = io.in_tail[q].val();
                core.in_vc[j].next = 0u64.into();
                io.in_credit[j].next = core.in_credit[j].val();
            }
        }
        for o in 0..p {
            let x = &mut self.vcc[o];
            x.clock.next = clk;
            x.rst.next = rst;
            for c in 0..v {
                let j = o * v + c;
                x.in_data[c].next = core.out_data[j].val();
                x.in_valid[c].next = core.out_valid[j].val();
                x.in_head[c].next = core.out_head[j].val();
                x.in_tail[c].next = core.out_tail[j].val();
                // The downstream credit, to the controller and the core
                // alike (module documentation).
                x.credit_in[c].next = io.out_credit[j].val();
                core.out_credit[j].next = io.out_credit[j].val();
            }
            io.out_data[o].next = x.phys_data.val();
            io.out_valid[o].next = x.phys_valid.val();
            io.out_head[o].next = x.phys_head.val();
            io.out_tail[o].next = x.phys_tail.val();
            io.out_vc[o].next = (x.phys_vc.val().index() as u64).into();
        }
    }

    /// [`VcPorts::glue`] as Verilog.
    pub(super) fn glue_verilog(&self) -> String {
        let (p, v) = (self.p, self.v);
        let vb = super::VC_BITS;
        // The core is the router's one slice.
        let core = "slices$0";
        let mut s = self
            .standins
            .wiring_start("A crossbar port per VC (Chien §5.4, Figure 8).");
        let mut line = |t: String| {
            let _ = writeln!(s, "    {t}");
        };
        line(format!(
            "    {core}$clock = clock; {core}$rst = rst; {core}$node_id = node_id;"
        ));
        line(format!(
            "    {core}$cfg_we = 1'b0; {core}$cfg_addr = {}'d0; {core}$cfg_class = {}'d0;",
            crate::blocks::es_table::ADDR_BITS,
            super::CLASS_BITS
        ));
        for q in 0..p {
            for c in 0..v {
                let j = q * v + c;
                line(format!(
                    "    {core}$in_data${j} = in_data${q}; {core}$in_valid${j} = in_valid${q} & \
                     (in_vc${q} == {vb}'d{c}); {core}$in_head${j} = in_head${q}; \
                     {core}$in_tail${j} = in_tail${q}; {core}$in_vc${j} = {vb}'d0; \
                     in_credit${j} = {core}$in_credit${j};"
                ));
            }
        }
        for o in 0..p {
            let x = format!("vcc${o}");
            line(format!("    {x}$clock = clock; {x}$rst = rst;"));
            for c in 0..v {
                let j = o * v + c;
                line(format!(
                    "    {x}$in_data${c} = {core}$out_data${j}; {x}$in_valid${c} = \
                     {core}$out_valid${j}; {x}$in_head${c} = {core}$out_head${j}; \
                     {x}$in_tail${c} = {core}$out_tail${j};"
                ));
                line(format!(
                    "    {x}$credit_in${c} = out_credit${j}; {core}$out_credit${j} = out_credit${j};"
                ));
            }
            line(format!(
                "    out_data${o} = {x}$phys_data; out_valid${o} = {x}$phys_valid; \
                 out_head${o} = {x}$phys_head; out_tail${o} = {x}$phys_tail; \
                 out_vc${o} = {x}$phys_vc;"
            ));
        }
        line("end".into());
        s
    }
}

impl<const W: usize> Logic for VcPorts<W> {
    fn update(&mut self) {}
    fn connect(&mut self) {
        connect_slices(&mut self.slices);
        for x in self.vcc.iter_mut() {
            x.clock.connect();
            x.rst.connect();
            wire(&mut x.in_data);
            wire(&mut x.in_valid);
            wire(&mut x.in_head);
            wire(&mut x.in_tail);
            wire(&mut x.credit_in);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::tests::{
        cosimulate_with, engines_agree, head_latency, lint_and_synth, node_at, run, sim_run,
        spec_on,
    };
    use crate::spec::{Algorithm, SpecInput, Topology};

    /// `algorithm` on a k-ary n-dimensional `topology` with V VCs and a
    /// crossbar port per VC.
    fn vc_ports(
        algorithm: Algorithm,
        topology: Topology,
        dims: u32,
        radix: u32,
        vcs: u32,
    ) -> RouterSpec {
        RouterSpec {
            datapath: RouterDatapath::VcPorts,
            ..spec_on(algorithm, topology, dims, radix, vcs)
        }
    }

    /// The core's rows are the router's; its ports are the router's VCs,
    /// each wired where its link is.
    #[test]
    fn the_core_reads_the_relation_with_a_port_per_vc() {
        let s = vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2);
        let table = crate::router::compile(&s).unwrap();
        let core = core_table(&table);
        assert_eq!((core.ports(), core.vcs()), (10, 1));
        assert_eq!(core.rows, table.rows);
        for i in 0..10 {
            for k in 0..10 {
                let link = (table.reach[i / 2] >> (k / 2)) & 1;
                assert_eq!((core.reach[i] >> k) & 1, link, "core port {i} -> {k}");
            }
        }
    }

    /// The scoreboard (every flit once, in order, unchanged but for the
    /// header update, to a port and VC the relation permits, within
    /// credits, no two packets interleaved on a VC): Duato on a mesh (a
    /// middle node and a corner) and a hypercube, *-channels on a torus at
    /// the wraparound, Duato on a 3-D mesh with a lane (7 x 3 = 21 crossbar
    /// ports would be too many: V = 2). 32-bit flits: the scoreboard
    /// numbers packets in their head flits' payload.
    #[test]
    fn scoreboard_vc_ports() {
        let wide = |s: RouterSpec| RouterSpec {
            flit_width: 32,
            ..s
        };
        let duato = wide(vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2));
        let star = wide(vc_ports(Algorithm::StarChannels, Topology::Torus, 2, 4, 3));
        let cube = wide(vc_ports(Algorithm::Duato, Topology::Hypercube, 3, 2, 2));
        let mesh3 = wide(vc_ports(Algorithm::Duato, Topology::Mesh, 3, 3, 2));
        for (s, node, seed) in [
            (&duato, node_at(&duato, &[1, 2]), 51),
            (&duato, 0, 52),
            (&star, 0, 53),
            (&cube, 5, 54),
            (&mesh3, node_at(&mesh3, &[1, 1, 1]), 55),
        ] {
            let cycles = run(s, node, 16, seed);
            eprintln!("{} at {node}: {cycles} cycles", s.name());
        }
    }

    /// A head flit takes the unified router's two cycles and one more in
    /// its link's VC controller; body flits follow one per cycle. 4x4 mesh,
    /// fields of 3 bits (dx at bits 0-2, dy at 3-5); ports 1/2 +x/-x, 3/4
    /// +y/-y.
    #[test]
    fn a_head_takes_one_cycle_more_than_in_the_unified_router() {
        let unified = spec_on(Algorithm::Duato, Topology::Mesh, 2, 4, 2);
        let ported = vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2);
        let (x1, y1) = (1, 1 << 3);
        for (q, vc, head, o) in [
            (0, 0, x1, 1),
            (0, 1, y1, 3),
            (2, 1, x1 | y1, 1),
            (4, 0, 0, 0),
        ] {
            assert_eq!(
                head_latency(&unified, q, vc, head, o),
                2,
                "unified {q} -> {o}"
            );
            assert_eq!(
                head_latency(&ported, q, vc, head, o),
                3,
                "VC ports {q} -> {o}"
            );
        }
    }

    /// Verilator -Wall and Icarus -Wall on a Duato 2-cube, a mesh and a
    /// *-channels torus (Yosys on the 2-cube); co-simulation against
    /// Verilator of the 2-cube (six crossbar ports: the smallest build),
    /// with a faulty copy whose VC controller of link 1 never takes VC 1's
    /// flits (ignored test: a mesh through its core and a torus through
    /// the top module).
    #[test]
    #[ignore = "slow: make test-slow"]
    fn vc_ports_verilog_lints_and_matches_the_model() {
        let cube = vc_ports(Algorithm::Duato, Topology::Hypercube, 2, 2, 2);
        lint_and_synth(&[
            (cube.clone(), true),
            (vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2), false),
            (
                vc_ports(Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
                false,
            ),
        ]);
        cosimulate_with(&[cube], VCC_MUTANT);
    }

    /// The VC controller of link 1 (+x on a mesh) never takes the flits
    /// of VC 1 (core port 3).
    const VCC_MUTANT: (&str, &str) = (
        "vcc_in_valid[3] = slices_0_out_valid[3];",
        "vcc_in_valid[3] = 1'b0;",
    );

    /// [`vc_ports_verilog_lints_and_matches_the_model`] on a Duato mesh
    /// through its core and a *-channels torus through the top module
    /// (several minutes of Verilator build).
    #[test]
    #[ignore]
    fn vc_ports_verilog_matches_the_model_more() {
        cosimulate_with(
            &[
                vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2),
                vc_ports(Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
            ],
            VCC_MUTANT,
        );
    }

    /// Networks of VC-port routers under `routergen sim` deliver every
    /// packet (Duato on a 4x4 mesh, *-channels on a 4-ary 2-cube at half
    /// the saturation load, where a torus without atomic VC allocation
    /// deadlocks: the run's watchdog would stop it).
    #[test]
    fn vc_port_networks_deliver() {
        use crate::sim::EngineKind;
        sim_run(
            vc_ports(Algorithm::Duato, Topology::Mesh, 2, 4, 2),
            EngineKind::Rust,
        );
        sim_run(
            vc_ports(Algorithm::StarChannels, Topology::Torus, 2, 4, 3),
            EngineKind::Rust,
        );
    }

    /// A 3x3 mesh of VC-port routers on both `routergen sim` engines: the
    /// same flit-by-flit trace. Ignored: the Verilator build takes about a
    /// minute (`cargo test --lib vc_port_networks_engines_agree --
    /// --ignored`).
    #[test]
    #[ignore]
    fn vc_port_networks_engines_agree() {
        engines_agree(vc_ports(Algorithm::Duato, Topology::Mesh, 2, 3, 2));
    }

    #[test]
    fn vc_ports_refuses_what_it_does_not_build() {
        let refused = |input: SpecInput, words: &[&str]| {
            let e = input.resolve().map(|r| r.spec).and_then(|s| {
                crate::router::supported(&s)?;
                Ok(s)
            });
            let msg = e.expect_err("refused").to_string();
            for w in words {
                assert!(msg.contains(w), "{msg:?} lacks {w:?}");
            }
        };
        let base = SpecInput {
            datapath: Some(RouterDatapath::VcPorts),
            algorithm: Some(Algorithm::Duato),
            ..SpecInput::default()
        };
        refused(
            SpecInput {
                algorithm: Some(Algorithm::DimensionOrder),
                ..base.clone()
            },
            &["algorithm = dor", "algorithm = star-channels or duato"],
        );
        refused(
            SpecInput {
                lookahead: Some(true),
                ..base.clone()
            },
            &["lookahead = true", "lookahead = false"],
        );
        refused(
            SpecInput {
                table: Some(crate::spec::TableStorage::Economical),
                addressing: Some(crate::spec::Addressing::Absolute),
                ..base.clone()
            },
            &["table = economical", "table = none"],
        );
        refused(
            SpecInput {
                topology: Some(Topology::Torus),
                dims: Some(3),
                ..base
            },
            &["7 ports and 3 VCs", "21 crossbar"],
        );
    }
}
