//! A whole router in rust-hdl's event-driven `Simulation`: the
//! dimension-order router of a 4-ary 2-D mesh (2 virtual channels, 16-bit
//! flits, relative addressing). Two packets enter at the local port; each
//! must leave by the port dimension-order routing names, its head flit's
//! address updated by one hop, its body flit unchanged, all flits on one
//! output VC, and every flit that leaves the input buffer must return a
//! credit. The expectations come from docs/interface.md (port numbering,
//! head-flit fields, credits) and from dimension-order routing itself
//! (the lowest dimension with a nonzero offset, in its direction); the
//! run fails (non-zero exit, or a failed test under `cargo test
//! --examples`) if one does not hold.
//!
//! Run it with `cargo run --example router_sim`.

use routergen::blocks::prepare;
use routergen::router::Router;
use routergen::spec::{Algorithm, RouterSpec, SpecInput, Topology};
use rust_hdl::prelude::*;

/// Bits of one dimension's address field of a 4-ary mesh with relative
/// addressing (docs/interface.md: a two's-complement offset of
/// 1 + ceil(log2 4) bits, dimension d at bits [3d, 3d + 3)).
const F: u32 = 3;

/// A head flit with offsets `dx`, `dy` and `tag` in the payload bits.
fn head(dx: i64, dy: i64, tag: u64) -> u64 {
    let field = |o: i64| (o as u64) & ((1 << F) - 1);
    field(dx) | field(dy) << F | tag << 8
}

/// The port dimension-order routing takes from offsets (dx, dy): the
/// lowest dimension with a nonzero offset, port 2d + 1 toward +d and
/// 2d + 2 toward -d; port 0 (local) when both are zero.
fn dor_port(dx: i64, dy: i64) -> usize {
    match (dx, dy) {
        (0, 0) => 0,
        (0, y) => {
            if y > 0 {
                3
            } else {
                4
            }
        }
        (x, _) => {
            if x > 0 {
                1
            } else {
                2
            }
        }
    }
}

/// One packet: input VC, offsets, and its two flits (head, tail).
#[derive(Clone, Copy)]
struct Packet {
    vc: u64,
    dx: i64,
    dy: i64,
    body: u64,
}

const PACKETS: [Packet; 2] = [
    Packet {
        vc: 0,
        dx: 2,
        dy: -1,
        body: 0xbeef,
    },
    Packet {
        vc: 1,
        dx: 0,
        dy: -3,
        body: 0x1234,
    },
];

fn spec() -> RouterSpec {
    SpecInput {
        topology: Some(Topology::Mesh),
        dims: Some(2),
        radix: Some(4),
        algorithm: Some(Algorithm::DimensionOrder),
        vcs: Some(2),
        flit_width: Some(16),
        ..SpecInput::default()
    }
    .resolve()
    .expect("a valid spec")
    .spec
}

/// Flits seen at the outputs: (cycle, port, VC, data, head, tail).
type Seen = (usize, usize, u64, u64, bool, bool);

fn main() {
    let spec = spec();
    assert_eq!(
        spec.address_field_bits(),
        F,
        "docs/interface.md field width"
    );
    let mut uut = Router::<16>::new(&spec).expect("the router builds");
    prepare(&mut uut);
    let (p, v) = (uut.ports(), uut.vcs());
    assert_eq!((p, v), (5, 2));
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Router<16>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Router<16>>| {
        let mut x = sim.init()?;
        x.rst.next = true;
        wait_clock_cycle!(sim, clock, x, 2);
        wait_clock_false!(sim, clock, x);
        x.rst.next = false;
        // The flits to send from the local port, one per cycle.
        let flits: Vec<(u64, u64, bool, bool)> = PACKETS
            .iter()
            .flat_map(|pk| {
                let tag = pk.body & 0xff;
                [
                    (pk.vc, head(pk.dx, pk.dy, tag), true, false),
                    (pk.vc, pk.body, false, true),
                ]
            })
            .collect();
        let mut seen: Vec<Seen> = Vec::new();
        let mut credits = vec![0usize; v];
        for cycle in 0..40 {
            // Inputs change after a falling edge; the rising edge takes them.
            let flit = flits.get(cycle);
            x.in_valid[0].next = flit.is_some();
            if let Some(&(vc, data, h, t)) = flit {
                x.in_vc[0].next = vc.into();
                x.in_data[0].next = data.into();
                x.in_head[0].next = h;
                x.in_tail[0].next = t;
            }
            x = sim.wait(1, x)?;
            for o in 0..p {
                if x.out_valid[o].val() {
                    seen.push((
                        cycle,
                        o,
                        x.out_vc[o].val().index() as u64,
                        x.out_data[o].val().index() as u64,
                        x.out_head[o].val(),
                        x.out_tail[o].val(),
                    ));
                }
            }
            for (c, n) in credits.iter_mut().enumerate() {
                *n += usize::from(x.in_credit[c].val());
            }
            // A full cycle: the rising edge takes the inputs, and the
            // next inputs follow the falling edge.
            wait_clock_cycle!(sim, clock, x);
        }
        for s in &seen {
            println!(
                "cycle {:2}: port {} VC {} data {:#06x} head {} tail {}",
                s.0, s.1, s.2, s.3, s.4, s.5
            );
        }
        for pk in PACKETS {
            let want = dor_port(pk.dx, pk.dy);
            let tag = pk.body & 0xff;
            // The head flit one hop on: the offset of the dimension
            // travelled moves one step toward zero.
            let (hx, hy) = match want {
                1 => (pk.dx - 1, pk.dy),
                2 => (pk.dx + 1, pk.dy),
                3 => (pk.dx, pk.dy - 1),
                _ => (pk.dx, pk.dy + 1),
            };
            let out_head = head(hx, hy, tag);
            let h = seen.iter().find(|s| s.4 && s.3 == out_head);
            sim_assert!(sim, h.is_some(), x);
            let &(hc, hp, hv, _, _, _) = h.unwrap();
            sim_assert_eq!(sim, hp, want, x);
            let t = seen.iter().find(|s| s.5 && s.3 == pk.body);
            sim_assert!(sim, t.is_some(), x);
            let &(tc, tp, tv, _, _, _) = t.unwrap();
            sim_assert!(sim, tc > hc && tp == want && tv == hv, x);
        }
        sim_assert_eq!(sim, seen.len(), 4, x);
        // One credit per flit leaving the local port's buffer of each VC.
        sim_assert_eq!(sim, credits, vec![2, 2], x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000)
        .expect("the router forwards both packets as dimension-order routing says");
    println!("router_sim: every check passed");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_example_runs_and_its_checks_pass() {
        super::main();
    }
}
