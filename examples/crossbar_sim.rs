//! A 3 x 3 crossbar (Chien §3) in rust-hdl's event-driven `Simulation`:
//! a packet of three flits crosses from input 0 to output 2, the
//! connection made by one grant on the head flit and held until the tail
//! has passed (wormhole switching). Every expectation comes from the
//! crossbar's port description (`routergen::blocks::crossbar`); the run
//! fails (non-zero exit, or a failed test under `cargo test --examples`)
//! if one does not hold.
//!
//! Run it with `cargo run --example crossbar_sim`.

use routergen::blocks::{prepare, Crossbar};
use rust_hdl::prelude::*;

/// Ports P.
const P: usize = 3;

/// One cycle's inputs: the grants `(output, input)` and the flit on
/// input 0, if any, as (data, head, tail).
struct Step {
    grants: &'static [(usize, usize)],
    flit: Option<(u64, bool, bool)>,
    /// What output 2 shows in the cycle: data (None: no flit), and
    /// whether it holds a connection from an earlier cycle.
    out2: Option<u64>,
    busy2: bool,
}

const STEPS: [Step; 5] = [
    // The head flit and its grant: it passes in the same cycle, and the
    // connection is held from the next one.
    Step {
        grants: &[(2, 0)],
        flit: Some((0xa1, true, false)),
        out2: Some(0xa1),
        busy2: false,
    },
    // No grant: the held connection carries the body flit.
    Step {
        grants: &[],
        flit: Some((0xb2, false, false)),
        out2: Some(0xb2),
        busy2: true,
    },
    // Input 1 asks for output 2 while it is held: ignored.
    Step {
        grants: &[(2, 1)],
        flit: Some((0xc3, false, true)),
        out2: Some(0xc3),
        busy2: true,
    },
    // The tail released the connection: output 2 is free and idle.
    Step {
        grants: &[],
        flit: None,
        out2: None,
        busy2: false,
    },
    Step {
        grants: &[],
        flit: Some((0xd4, false, false)),
        out2: None,
        busy2: false,
    },
];

fn main() {
    let mut uut = Crossbar::<16>::new(P).expect("3 ports is a valid crossbar");
    prepare(&mut uut);
    let mut sim = Simulation::new();
    // 10 ps period: the clock toggles every 5 ps.
    sim.add_clock(5, |x: &mut Box<Crossbar<16>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Crossbar<16>>| {
        let mut x = sim.init()?;
        // One cycle of reset drops every connection.
        x.rst.next = true;
        wait_clock_cycle!(sim, clock, x);
        wait_clock_false!(sim, clock, x);
        x.rst.next = false;
        for (cycle, step) in STEPS.iter().enumerate() {
            // Inputs change after a falling edge and are read at the next
            // rising edge; outputs are checked in between.
            for k in 0..P * P {
                x.grant[k].next = step.grants.iter().any(|&(o, i)| k == o * P + i);
            }
            let (data, head, tail) = step.flit.unwrap_or((0, false, false));
            x.in_data[0].next = data.into();
            x.in_valid[0].next = step.flit.is_some();
            x.in_head[0].next = head;
            x.in_tail[0].next = tail;
            x = sim.wait(1, x)?;
            println!(
                "cycle {cycle}: output 2 valid {} data {:#x} busy {}",
                x.out_valid[2].val(),
                x.out_data[2].val().index(),
                x.out_busy[2].val()
            );
            sim_assert_eq!(sim, x.out_valid[2].val(), step.out2.is_some(), x);
            if let Some(d) = step.out2 {
                sim_assert_eq!(sim, x.out_data[2].val().index() as u64, d, x);
            }
            sim_assert_eq!(sim, x.out_busy[2].val(), step.busy2, x);
            // Outputs 0 and 1 never carry a flit.
            sim_assert!(sim, !x.out_valid[0].val() && !x.out_valid[1].val(), x);
            // A full cycle: the rising edge takes the inputs, and the
            // next inputs follow the falling edge.
            wait_clock_cycle!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 1_000)
        .expect("the crossbar behaves as its port description says");
    println!("crossbar_sim: every check passed");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_example_runs_and_its_checks_pass() {
        super::main();
    }
}
