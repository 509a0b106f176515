//! Plane slices (Chien §5.2, Figure 6): the planar-adaptive router built
//! from n-1 routers of 2-D meshes (or tori), one per adaptive plane, instead
//! of one (2n+1) x (2n+1) crossbar, with the same external interface
//! (docs/interface.md).
//!
//! Slice i is a whole unified [`Router`] of a 2-D mesh or torus (ports: 0 local,
//! 1 +d_i, 2 -d_i, 3 +d_{i+1}, 4 -d_{i+1}) running plane A_i's relation
//! ([`crate::algo::Relation::plane`]), so its crossbar is 5x5 with 4x4
//! among its links, Chien's plane slice. Slices are chained through their
//! local ports as the dimension slices are ([`super::sliced`]): injection
//! into slice 0, slice i's local output into slice i+1's local input (a
//! channel of V VCs with an input buffer per VC and credits back), slice
//! n-2's local output is ejection. Slice i reads the address fields i and
//! i+1 at bits `[0, 2F)`: the wiring rotates the fields by i on the way
//! in (field j of the slice is the router's field (j + i) mod n), by one
//! more on each inter-slice channel, and back on the way out; node_id
//! gives it coordinates i and i+1.
//!
//! Shared physical channels. A middle dimension d (0 < d < n-1) belongs
//! to two planes: A_{d-1} uses it as second dimension (increasing and
//! decreasing classes) and A_d as first dimension (the plane class); the
//! classes are different VCs (Chien §5.2: three VCs per channel, footnote
//! 4). Such a link's incoming flits go to the slice whose plane owns their
//! VC (demultiplexed by `in_vc`), credits come back from that slice's
//! buffer; its outgoing side is Chien's VC controller ([`VcController`],
//! Figure 1): a D-flit buffer per VC that the owning slice fills, credit
//! counters for the downstream buffers, one flit per cycle onto the link.
//! Two slices may send on one link in the same cycle, on different VCs;
//! the controller's buffers hold the one that waits, and the slice's
//! credit counters count those buffers (D each, as a downstream buffer).
//! Dimensions 0 and n-1 belong to one plane each and are wired straight.
//!
//! Why the slices permit exactly the planar-adaptive relation (Chien and
//! Kim; Chien §5.2): a packet for y at node x enters slice 0 and passes
//! every slice j below its current plane i (the lowest dimension in which
//! x and y differ, at most n-2) by the local ports, since A_j's offset is
//! zero; slice i permits every minimal hop in d_i and d_{i+1} on the
//! classes of the n-D relation; when its d_i offset reaches zero at a later
//! router it leaves slice i there for slice i+1. `Relation::plane`'s test
//! checks, node by node, that this is the n-D relation's set of hops, and
//! the scoreboard tests check every flit the router sends against the n-D
//! relation.
//!
//! Deadlock freedom: the composite's channels are the n-D relation's
//! (each VC of a link used by one plane, as in the n-D relation) plus the
//! inter-slice channels and the VC controllers' buffers, which extend a
//! VC's channel without adding a dependency between VCs (a VC waits for its
//! own downstream credits only; the link's round robin serves every VC
//! that has a flit and a credit). Ordering the channels plane by plane
//! (A_0's, the channel into slice 1, A_1's, ...), a packet in slice i waits
//! only for A_i's channels or the channel into slice i+1, never for a lower
//! plane: planes are visited in increasing order. Inside a plane the
//! increasing and decreasing sub-networks each move one way along d_i
//! (Chien and Kim), so A_i's dependencies are acyclic, and the composite
//! graph is acyclic.
//!
//! Latency: a head flit takes two cycles per slice it passes (the unified
//! router's two) and one more when it leaves by a shared link (the VC
//! controller's buffer); a body flit one cycle per slice and one per
//! shared link.
//!
//! Tori. A torus plane's classes are dateline classes, and its second
//! dimension's also record the first dimension's dateline phase
//! ([`crate::algo::planar_adaptive`]): facts of the plane's two
//! coordinates, which the slice holds, so `Relation::plane` reads them as
//! the n-D relation does (10 VCs from n = 3, 8 on a 2-D torus; its test
//! compares the two at every node for every destination). The argument
//! above carries over: the classes of a plane belong to it alone.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::block::Io;
use super::organization::{
    chain, chain_verilog, connect_slices, port_from_slice, port_from_slice_verilog, slice_setup,
    slice_setup_verilog, transparent_block, wire, StandIns,
};
use super::tables::CompiledTable;
use super::{unsupported, Router};
use crate::algo::{Network, Relation};
use crate::blocks::vc_controller::VcController;
use crate::error::{Error, Result};
use crate::spec::{Algorithm, FlowControl, RouterDatapath, RouterSpec, Topology};

/// The spec of a plane slice: the same router on a 2-D mesh of the same
/// radix, unified (its one crossbar is the slice's).
fn plane_spec(spec: &RouterSpec) -> RouterSpec {
    RouterSpec {
        dims: 2,
        datapath: RouterDatapath::Unified,
        ..spec.clone()
    }
}

/// The planar-adaptive relation of `spec` and its planes' relations.
fn relations(spec: &RouterSpec) -> Result<(Relation, Vec<Relation>)> {
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let full = Relation::new(Algorithm::PlanarAdaptive, net, spec.vcs)?;
    let planes = (0..net.n() - 1)
        .map(|i| Relation::plane(&full, i))
        .collect::<Result<Vec<_>>>()?;
    Ok((full, planes))
}

/// Each plane's relation compiled for its slice's decoders.
pub(super) fn compile_planes(spec: &RouterSpec) -> Result<Vec<super::tables::CompiledTable>> {
    let (_, planes) = relations(spec)?;
    planes
        .iter()
        .map(|r| super::tables::compile(r, spec.addressing))
        .collect()
}

/// Where a port of the router is wired to the slices.
#[derive(Debug, Clone, Default)]
pub(super) struct Wiring {
    /// Per router link port o and VC c (index o V + c; o = 0 unused): the
    /// slice and its port whose plane carries VC c on that link.
    owner: Vec<(usize, usize)>,
    /// Per router port o: the VC controller putting it on the link when
    /// two slices share it.
    vcc_at: Vec<Option<usize>>,
}

/// The slices (and their ports, 1 to 4) wired to router link port `o`
/// of an n-D mesh or torus: plane d as first dimension, plane d-1 as second.
fn attached(n: usize, o: usize) -> Vec<(usize, usize)> {
    let d = (o - 1) / 2;
    let mut at = Vec::new();
    if d >= 1 {
        at.push((d - 1, o - 2 * (d - 1)));
    }
    if d + 2 <= n {
        at.push((d, o - 2 * d));
    }
    at
}

/// Plane slices: n-1 unified routers of 2-D networks and the VC
/// controllers of the shared links behind the router's ports (module
/// documentation).
pub struct PlaneSlices<const W: usize> {
    /// The unified router's allocators and crossbar, tied low.
    standins: StandIns<W>,
    /// Slice i: the router of plane A_i.
    pub(super) slices: Vec<Router<W>>,
    /// Per link two planes share, Chien's VC controller putting their VCs
    /// on it.
    vcc: Vec<VcController<W>>,
    /// Where each port is wired.
    wiring: Wiring,
    /// Physical ports, VCs per channel, dimensions, bits of an address
    /// field, bits of a node_id coordinate.
    p: usize,
    v: usize,
    n: usize,
    f: usize,
    cb: usize,
}

transparent_block!(PlaneSlices<W>; standins, slices, vcc);

impl<const W: usize> PlaneSlices<W> {
    /// The plane-sliced router of `spec`, whose n-D relation is compiled
    /// as `table`.
    pub(super) fn new(spec: &RouterSpec, table: &CompiledTable) -> Result<Self> {
        let n = spec.dims as usize;
        let p = table.ports();
        let v = table.vcs();
        if !matches!(spec.topology, Topology::Mesh | Topology::Torus) || n < 2 || p != 2 * n + 1 {
            return Err(unsupported(format!(
                "plane slices on a {n}-dimensional {}",
                spec.topology
            )));
        }
        let (_, planes) = relations(spec)?;
        let one = plane_spec(spec);
        let slices = compile_planes(spec)?
            .into_iter()
            .map(|t| Router::<W>::with_table(&one, t))
            .collect::<Result<Vec<_>>>()?;
        let s = &slices[0].table().shape;
        if s.field_bits != table.shape.field_bits || s.coord_bits != table.shape.coord_bits {
            return Err(Error::InvalidSpec(format!(
                "internal: a plane slice of {} reads other address fields than the router",
                spec.name()
            )));
        }
        let mut owner = vec![(0, 0); p * v];
        let mut vcc_at = vec![None; p];
        let mut vccs = 0;
        for o in 1..p {
            let at = attached(n, o);
            for c in 0..v {
                // The slice whose plane relation sends on (its port, c).
                let users: Vec<(usize, usize)> = at
                    .iter()
                    .copied()
                    .filter(|&(i, j)| {
                        let dim = (j - 1) / 2;
                        let map = &planes[i].vc_map.map[dim];
                        map.iter().any(|class| class.contains(&(c as u8)))
                    })
                    .collect();
                owner[o * v + c] = match users[..] {
                    [one] => one,
                    [] => at[0],
                    _ => {
                        return Err(Error::invalid(format!(
                            "datapath = sliced with algorithm = planar needs {} VCs or more \
                             on a {n}-dimensional mesh: with vcs = {v} the plane classes of \
                             dimension {} share VC {c} between two plane slices (Chien §5.2: \
                             three VCs)",
                            spec.algorithm.min_vcs(spec.topology, spec.dims),
                            (o - 1) / 2
                        )))
                    }
                };
            }
            if at.len() == 2 {
                vcc_at[o] = Some(vccs);
                vccs += 1;
            }
        }
        let d = spec.buffer_depth as usize;
        Ok(PlaneSlices {
            standins: StandIns::new(),
            slices,
            vcc: (0..vccs)
                .map(|_| {
                    VcController::with_flow_control_unchecked(
                        v,
                        d,
                        spec.flow_control == FlowControl::OnOff,
                    )
                })
                .collect(),
            wiring: Wiring { owner, vcc_at },
            p,
            v,
            n,
            f: table.shape.field_bits,
            cb: table.shape.coord_bits,
        })
    }

    /// The wiring of the slices and VC controllers (the simulation model).
    pub(super) fn glue(&mut self, io: &mut Io<'_, W>) {
        let w = &self.wiring;
        let (p, v, n, f) = (self.p, self.v, self.n, self.f);
        let m = self.slices.len();
        let clk = io.clock.val();
        let rst = io.rst.val();
        self.standins.glue(clk);
        for i in 0..m {
            // A slice reads two coordinates of node_id.
            slice_setup(io, &mut self.slices[i], i, 2, self.cb);
        }
        for k in 0..self.vcc.len() {
            self.vcc[k].clock.next = clk;
            self.vcc[k].rst.next = rst;
        }
        for o in 1..p {
            let vc = io.in_vc[o].val().index();
            let data = io.in_data[o].val().to_u64();
            for (i, j) in attached(n, o) {
                let s = &mut self.slices[i];
                s.in_data[j].next = Bits::<W>::from(rotate(data, f, n, i));
                // The VCs this slice's plane carries on the link (all of
                // them on a link of one plane, as the Verilog).
                let all = (0..v).all(|c| w.owner[o * v + c] == (i, j));
                let mine = all || (vc < v && w.owner[o * v + vc] == (i, j));
                s.in_valid[j].next = io.in_valid[o].val() && mine;
                s.in_head[j].next = io.in_head[o].val();
                s.in_tail[j].next = io.in_tail[o].val();
                s.in_vc[j].next = io.in_vc[o].val();
                for c in 0..v {
                    s.out_credit[j * v + c].next = false;
                }
            }
            for c in 0..v {
                let (i, j) = w.owner[o * v + c];
                io.in_credit[o * v + c].next = self.slices[i].in_credit[j * v + c].val();
            }
            if let Some(k) = w.vcc_at[o] {
                for c in 0..v {
                    let (i, j) = w.owner[o * v + c];
                    let s = &mut self.slices[i];
                    let x = &mut self.vcc[k];
                    x.in_data[c].next =
                        Bits::<W>::from(rotate(s.out_data[j].val().to_u64(), f, n, n - i));
                    x.in_valid[c].next = s.out_valid[j].val() && s.out_vc[j].val().index() == c;
                    x.in_head[c].next = s.out_head[j].val();
                    x.in_tail[c].next = s.out_tail[j].val();
                    x.credit_in[c].next = io.out_credit[o * v + c].val();
                    s.out_credit[j * v + c].next = x.credit_out[c].val();
                }
                let x = &self.vcc[k];
                io.out_data[o].next = x.phys_data.val();
                io.out_valid[o].next = x.phys_valid.val();
                io.out_head[o].next = x.phys_head.val();
                io.out_tail[o].next = x.phys_tail.val();
                io.out_vc[o].next = (x.phys_vc.val().index() as u64).into();
            } else {
                let (i, j) = attached(n, o)[0];
                port_from_slice(io, &mut self.slices[i], j, o, v, |data| {
                    rotate(data, f, n, n - i)
                });
            }
        }
        // Slice i's fields are the router's rotated by i.
        chain(
            io,
            &mut self.slices,
            v,
            |data| rotate(data, f, n, n - (m - 1)),
            |_, data| rotate(data, f, n, 1),
        );
    }

    /// [`PlaneSlices::glue`] as Verilog.
    pub(super) fn glue_verilog(&self) -> String {
        let w = &self.wiring;
        let (p, v, n, f) = (self.p, self.v, self.n, self.f);
        let m = self.slices.len();
        let vb = super::VC_BITS;
        let mut s = self
            .standins
            .wiring_start("Plane slices (Chien §5.2, Figure 6).");
        let mut line = |t: String| {
            let _ = writeln!(s, "    {t}");
        };
        for i in 0..m {
            for t in slice_setup_verilog(W, i, 2, self.cb) {
                line(t);
            }
        }
        for k in 0..self.vcc.len() {
            line(format!("    vcc${k}$clock = clock; vcc${k}$rst = rst;"));
        }
        for o in 1..p {
            for (i, j) in attached(n, o) {
                let sd = format!("slices${i}");
                line(format!(
                    "    {sd}$in_data${j} = {};",
                    rotate_verilog(&format!("in_data${o}"), W, f, n, i)
                ));
                let mine: Vec<String> = (0..v)
                    .filter(|&c| w.owner[o * v + c] == (i, j))
                    .map(|c| format!("(in_vc${o} == {vb}'d{c})"))
                    .collect();
                let valid = match mine.len() {
                    0 => "1'b0".to_string(),
                    l if l == v => format!("in_valid${o}"),
                    _ => format!("in_valid${o} & ({})", mine.join(" | ")),
                };
                line(format!(
                    "    {sd}$in_valid${j} = {valid}; {sd}$in_head${j} = in_head${o}; \
                     {sd}$in_tail${j} = in_tail${o}; {sd}$in_vc${j} = in_vc${o};"
                ));
                for c in 0..v {
                    line(format!("    {sd}$out_credit${} = 1'b0;", j * v + c));
                }
            }
            for c in 0..v {
                let (i, j) = w.owner[o * v + c];
                line(format!(
                    "    in_credit${} = slices${i}$in_credit${};",
                    o * v + c,
                    j * v + c
                ));
            }
            if let Some(k) = w.vcc_at[o] {
                let x = format!("vcc${k}");
                for c in 0..v {
                    let (i, j) = w.owner[o * v + c];
                    let sd = format!("slices${i}");
                    line(format!(
                        "    {x}$in_data${c} = {};",
                        rotate_verilog(&format!("{sd}$out_data${j}"), W, f, n, n - i)
                    ));
                    line(format!(
                        "    {x}$in_valid${c} = {sd}$out_valid${j} & ({sd}$out_vc${j} == \
                         {vb}'d{c}); {x}$in_head${c} = {sd}$out_head${j}; \
                         {x}$in_tail${c} = {sd}$out_tail${j};"
                    ));
                    line(format!(
                        "    {x}$credit_in${c} = out_credit${}; {sd}$out_credit${} = \
                         {x}$credit_out${c};",
                        o * v + c,
                        j * v + c
                    ));
                }
                line(format!(
                    "    out_data${o} = {x}$phys_data; out_valid${o} = {x}$phys_valid; \
                     out_head${o} = {x}$phys_head; out_tail${o} = {x}$phys_tail; \
                     out_vc${o} = {x}$phys_vc;"
                ));
            } else {
                let (i, j) = attached(n, o)[0];
                let data = rotate_verilog(&format!("slices${i}$out_data${j}"), W, f, n, n - i);
                for t in port_from_slice_verilog(i, j, o, v, &data) {
                    line(t);
                }
            }
        }
        let last = format!("slices${}$out_data$0", m - 1);
        let chain = chain_verilog(m, v, &rotate_verilog(&last, W, f, n, n - (m - 1)), |i| {
            let from = format!("slices${}$out_data$0", i - 1);
            (None, rotate_verilog(&from, W, f, n, 1))
        });
        for t in chain {
            line(t);
        }
        line("end".into());
        s
    }
}

impl<const W: usize> Logic for PlaneSlices<W> {
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

/// `data` with its `n` address fields of `f` bits rotated down by `r`:
/// field j of the result is field (j + r) mod n of `data`; the bits above
/// the fields are kept.
fn rotate(data: u64, f: usize, n: usize, r: usize) -> u64 {
    let m = (1u64 << f) - 1;
    let fields = n * f;
    let mut out = if fields >= 64 {
        0
    } else {
        data & !((1u64 << fields) - 1)
    };
    for j in 0..n {
        out |= ((data >> (((j + r) % n) * f)) & m) << (j * f);
    }
    out
}

/// [`rotate`] as a Verilog expression on the `w`-bit signal `x`.
fn rotate_verilog(x: &str, w: usize, f: usize, n: usize, r: usize) -> String {
    if r % n == 0 {
        return x.to_string();
    }
    let mut parts = Vec::new();
    if n * f < w {
        parts.push(format!("{x}[{}:{}]", w - 1, n * f));
    }
    for j in (0..n).rev() {
        let s = (j + r) % n;
        parts.push(format!("{x}[{}:{}]", (s + 1) * f - 1, s * f));
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::tests::{
        cosimulate_with, engines_agree, head_latency, lint_and_synth, node_at, on_off, run,
        sim_run, spec_on,
    };

    /// Planar-adaptive on a k-ary n-dimensional mesh with V VCs, sliced.
    pub(crate) fn planes(dims: u32, radix: u32, vcs: u32) -> RouterSpec {
        RouterSpec {
            datapath: RouterDatapath::Sliced,
            ..spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, dims, radix, vcs)
        }
    }

    /// Plane slices on a torus, 32-bit flits.
    pub(crate) fn torus_planes(dims: u32, radix: u32, vcs: u32) -> RouterSpec {
        RouterSpec {
            datapath: RouterDatapath::Sliced,
            flit_width: 32,
            ..spec_on(Algorithm::PlanarAdaptive, Topology::Torus, dims, radix, vcs)
        }
    }

    #[test]
    fn rotate_moves_fields_down_and_back() {
        // Fields of 3 bits: 0 = 0b101, 1 = 0b011, 2 = 0b110, payload above.
        let x = 0xa_u64 << 9 | 0b110 << 6 | 0b011 << 3 | 0b101;
        assert_eq!(
            rotate(x, 3, 3, 1),
            0xa << 9 | 0b101 << 6 | 0b110 << 3 | 0b011
        );
        assert_eq!(
            rotate(x, 3, 3, 2),
            0xa << 9 | 0b011 << 6 | 0b101 << 3 | 0b110
        );
        assert_eq!(rotate(rotate(x, 3, 3, 1), 3, 3, 2), x);
        assert_eq!(rotate(x, 3, 3, 0), x);
        assert_eq!(
            rotate_verilog("d", 16, 3, 3, 1),
            "{d[15:9], d[2:0], d[8:6], d[5:3]}"
        );
    }

    /// Each slice buffers only the VCs its plane receives on a link
    /// (`tables::CompiledTable::arrive`): on a 3-D mesh with V = 3 the two
    /// slices hold the unified router's 21 link and local input buffers
    /// (each link VC is one plane's, Chien §5.2) plus the 3 of the channel
    /// between them, not 2 x 5 x 3 = 30.
    #[test]
    fn slices_buffer_only_their_planes_vcs() {
        let present = |r: &Router<16>| match r.organization() {
            crate::router::Organization::Unified(u) => u.buffers_present(),
            _ => panic!("a slice is a unified router"),
        };
        let sliced = Router::<16>::new(&planes(3, 4, 3)).unwrap();
        let unified =
            Router::<16>::new(&spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 4, 3))
                .unwrap();
        assert_eq!(present(&unified), 7 * 3);
        let per_slice: Vec<usize> = sliced.organization().slices().iter().map(present).collect();
        assert_eq!(per_slice.iter().sum::<usize>(), 21 + 3, "{per_slice:?}");
        assert_eq!(per_slice.len(), 2);
    }

    /// The scoreboard of `router::tests` (every flit delivered once, in
    /// order per input VC and output port, unchanged but for the header
    /// update, on a port and VC the n-D planar-adaptive relation permits,
    /// within credits) on plane-sliced routers: a 3-D mesh (two planes, the
    /// y links shared) inside and at a corner, with absolute addressing,
    /// with a virtual lane, and a 2-D mesh (one plane).
    #[test]
    fn scoreboard_plane_slices() {
        let t0 = std::time::Instant::now();
        // 32-bit flits: the packet ids fit in the head flit.
        let mesh3 = RouterSpec {
            flit_width: 32,
            ..planes(3, 3, 3)
        };
        run(&mesh3, node_at(&mesh3, &[1, 1, 1]), 6, 51);
        run(&mesh3, node_at(&mesh3, &[0, 2, 0]), 8, 52);
        let abs = RouterSpec {
            addressing: crate::spec::Addressing::Absolute,
            flit_width: 32,
            ..planes(3, 4, 4)
        };
        run(&abs, node_at(&abs, &[2, 1, 3]), 4, 53);
        let mesh2 = planes(2, 4, 2);
        run(&mesh2, node_at(&mesh2, &[1, 2]), 20, 54);
        eprintln!("plane-slice scoreboards: {:?}", t0.elapsed());
    }

    /// The same scoreboard on tori, whose plane classes carry dateline
    /// classes and the first dimension's dateline phase
    /// ([`crate::algo::planar_adaptive`]): a 3-D torus (10 VCs, the y links
    /// shared through 10-VC controllers) beside the wraparound and inside,
    /// and a 2-D torus (one plane, 8 VCs).
    #[test]
    fn scoreboard_plane_slices_on_tori() {
        let t0 = std::time::Instant::now();
        let t3 = torus_planes(3, 4, 10);
        run(&t3, node_at(&t3, &[3, 0, 1]), 2, 55);
        run(&t3, node_at(&t3, &[1, 2, 2]), 2, 56);
        let t2 = torus_planes(2, 5, 8);
        run(&t2, node_at(&t2, &[4, 1]), 4, 57);
        eprintln!("plane-slice torus scoreboards: {:?}", t0.elapsed());
    }

    /// Latency of a head flit, unified against plane slices, on a 4x4x4
    /// mesh (fields of 3 bits: dx at bits 0-2, dy at 3-5, dz at 6-8;
    /// ports 1/2 +x/-x, 3/4 +y/-y, 5/6 +z/-z). The unified router takes
    /// two cycles whatever the turn (`router::tests`); a slice is such a
    /// router, so a head takes two cycles per slice it passes through, and
    /// one more leaving by a y link, which planes A_0 and A_1 share through
    /// a VC controller. (A packet on A_0's y classes still has an x offset:
    /// it took the y hop in plane A_0.) On a 2-D mesh (one plane) every
    /// case is the unified router's two.
    #[test]
    fn a_head_takes_two_cycles_per_plane_and_one_per_shared_link() {
        let unified = spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 4, 3);
        let sliced = planes(3, 4, 3);
        let (x1, y1, z1) = (1, 1 << 3, 1 << 6);
        // (input port, VC, head, output port, sliced cycles)
        let cases = [
            (0, 0, x1, 1, 2), // injected, +x: plane A_0
            (0, 0, z1, 5, 4), // injected, +z: through A_0 to A_1
            (0, 0, y1, 3, 5), // injected, +y: A_1's class, a shared link
            (2, 0, x1, 1, 2), // on along +x
            (2, 0, 0, 0, 4),  // from -x, ejected: slices 0 and 1
            (4, 0, x1, 1, 2), // from -y on A_0's class (x left), turns to +x
            (4, 2, 0, 0, 2),  // from -y on A_1's class, ejected by slice 1
            (4, 2, y1, 3, 3), // on along +y in A_1
            (4, 2, z1, 5, 2), // from -y in A_1, turns to +z
            (6, 0, z1, 5, 2), // on along +z
            (0, 0, 0, 0, 4),  // injected for this node
        ];
        for (q, vc, head, o, want) in cases {
            let u = head_latency(&unified, q, vc, head, o);
            let s = head_latency(&sliced, q, vc, head, o);
            eprintln!("port {q} vc {vc} -> port {o}: unified {u} cycles, plane slices {s}");
            assert_eq!(u, 2, "unified, port {q} -> {o}");
            assert_eq!(s, want, "plane slices, port {q} vc {vc} -> {o}");
        }
        let mesh2 = planes(2, 4, 2);
        for (q, head, o) in [(0, x1, 1), (0, y1, 3), (2, y1, 3), (4, 0, 0)] {
            assert_eq!(head_latency(&mesh2, q, 0, head, o), 2, "2-D, {q} -> {o}");
        }
    }

    /// Plane slices with on/off flow control, D-flit buffers and 32-bit
    /// flits (the scoreboard's on/off model keeps packet ids in the head).
    fn planes_on_off(spec: RouterSpec, depth: u32) -> RouterSpec {
        RouterSpec {
            flit_width: 32,
            ..on_off(spec, depth)
        }
    }

    /// The scoreboard with on/off flow control on plane slices: the shared
    /// y links' VC controllers obey the downstream levels a cycle late and
    /// give the slices levels of their own buffers; each input level is
    /// high at least while the model of its buffer has 2 free slots (flits
    /// move on to the next slice or a VC controller); every flit delivered
    /// once, in order, unchanged, never into a full or low-level buffer.
    #[test]
    fn scoreboard_plane_slices_on_off() {
        let t0 = std::time::Instant::now();
        for depth in [2, 3] {
            let mesh3 = planes_on_off(planes(3, 3, 3), depth);
            run(&mesh3, node_at(&mesh3, &[1, 1, 1]), 6, 70 + depth as u64);
        }
        let t3 = planes_on_off(torus_planes(3, 4, 10), 3);
        run(&t3, node_at(&t3, &[3, 0, 1]), 2, 73);
        eprintln!("plane-slice on/off scoreboards: {:?}", t0.elapsed());
    }

    /// Verilator -Wall and Icarus -Wall on a plane-sliced 3-D mesh, with
    /// credits and with on/off flow control (the output directory's
    /// testbench lints and simulates one too, Yosys synthesizes one under
    /// `routergen synth`, README).
    #[test]
    fn plane_slices_lint() {
        lint_and_synth(&[
            (planes(3, 4, 3), false),
            (planes_on_off(planes(3, 3, 3), 2), false),
        ]);
    }

    /// Yosys on plane-sliced routers. Ignored: about 20 s for the 2-D
    /// mesh, a minute for the 3-D one (`cargo test --lib
    /// plane_slices_synthesize -- --ignored`).
    #[test]
    #[ignore]
    fn plane_slices_synthesize() {
        lint_and_synth(&[(planes(2, 4, 2), true), (planes(3, 4, 3), true)]);
    }

    /// Co-simulation of a plane-sliced 4x4 mesh (one plane) against
    /// Verilator, through its core module; the faulty copy never lets a
    /// flit out on +y.
    #[test]
    fn plane_slices_verilog_matches_the_model() {
        cosimulate_with(
            &[planes(2, 4, 2)],
            (
                "out_valid_3 = slices_0_out_valid[3];",
                "out_valid_3 = 1'b0;",
            ),
        );
    }

    /// Co-simulation of plane-sliced 3-D meshes (two planes, the y links
    /// shared through VC controllers, the field rotations; the third with
    /// on/off flow control), the others through the clean top module; the
    /// faulty copy hands the +y link's
    /// VC controller nothing from plane A_1. Ignored: the Verilator builds
    /// take about two and a half minutes each (`cargo test --lib
    /// plane_slices_verilog_matches_the_model_shared -- --ignored`).
    #[test]
    #[ignore]
    fn plane_slices_verilog_matches_the_model_shared_links() {
        // A 3-ary mesh: module names carry no flow control, and the
        // variants of one co-simulation need names of their own.
        let on_off = RouterSpec {
            flit_width: 16,
            ..planes_on_off(planes(3, 3, 3), 2)
        };
        cosimulate_with(&[planes(3, 2, 3), planes(3, 4, 4), on_off], DROPPED_PLANE);
    }

    /// Co-simulation of a plane-sliced 3-D torus (10 VCs: the dateline
    /// classes, 10-VC controllers on the y links) against Verilator; the
    /// faulty copy hands the +y link's VC controller nothing from plane
    /// A_1. Ignored: the Verilator build takes minutes
    /// (`cargo test --release --lib plane_slices_on_a_torus_match -- --ignored`).
    #[test]
    #[ignore]
    fn plane_slices_on_a_torus_match_the_model() {
        let t3 = RouterSpec {
            flit_width: 16,
            ..torus_planes(3, 4, 10)
        };
        // On a torus plane A_1's classes on the y links are VCs 8 and 9.
        cosimulate_with(
            &[t3],
            (
                "vcc_0_in_valid_8 = slices_1_out_valid_1",
                "vcc_0_in_valid_8 = 1'b0 & slices_1_out_valid_1",
            ),
        );
    }

    const DROPPED_PLANE: (&str, &str) = (
        "vcc_0_in_valid_2 = slices_1_out_valid_1",
        "vcc_0_in_valid_2 = 1'b0 & slices_1_out_valid_1",
    );

    /// Too few VCs are refused, naming the VC two planes would share.
    #[test]
    fn plane_slices_refuse_shared_vcs() {
        let two = RouterSpec {
            vcs: 2,
            ..planes(3, 4, 3)
        };
        let e = Router::<16>::new(&two).err().expect("refused").to_string();
        assert!(e.contains("3 VCs or more") && e.contains("VC 0"), "{e}");
    }

    /// Networks of plane-sliced routers deliver under `routergen sim`
    /// (rust-hdl engine; the run checks every packet once, at its
    /// destination, in order, unchanged, and the watchdog): a 3x3x3 mesh
    /// (two planes each) at a load past saturation, and a 4x4 mesh.
    #[test]
    fn plane_networks_deliver() {
        use crate::sim::EngineKind;
        sim_run(planes(3, 3, 3), EngineKind::Rust);
        sim_run(planes(2, 4, 2), EngineKind::Rust);
    }

    /// A 2x2x2 mesh of plane-sliced routers on both `routergen sim`
    /// engines: the same flit-by-flit trace. Ignored: the Verilator
    /// engine's build of the router takes nearly two minutes (`cargo test
    /// --lib plane_networks_engines_agree -- --ignored`).
    #[test]
    #[ignore]
    fn plane_networks_engines_agree() {
        engines_agree(planes(3, 2, 3));
    }
}
