//! The in-process engine: one rust-hdl [`Router`] model per node, the links
//! copied between them each cycle. Every router of a cycle reads its link
//! inputs from the outputs sampled before the cycle, so the routers are
//! split among threads (`--threads`) with the same result.

use rust_hdl::prelude::*;

use super::network::{node_id, split, threads, Engine, Flit, Outputs, Wiring, Workers};
use crate::error::{Error, Result};
use crate::router::tables::CompiledTable;
use crate::router::Router;
use crate::spec::RouterSpec;

/// Settle-loop bound for one `simulate` call (a router settles in a few
/// passes; more means a combinational loop).
const SETTLE: usize = 1000;

/// The rust-hdl engine at flit width W.
pub struct RustEngine<const W: usize> {
    wiring: Wiring,
    routers: Vec<Router<W>>,
    threads: usize,
    workers: Workers,
    out: Outputs,
}

/// A rust-hdl engine for `spec` at its flit width, its relation compiled
/// as `table`, evaluated on `threads_asked` threads.
pub fn new(
    spec: &RouterSpec,
    table: CompiledTable,
    threads_asked: usize,
) -> Result<Box<dyn Engine>> {
    Ok(match spec.flit_width {
        16 => Box::new(RustEngine::<16>::new(spec, table, threads_asked)?),
        32 => Box::new(RustEngine::<32>::new(spec, table, threads_asked)?),
        64 => Box::new(RustEngine::<64>::new(spec, table, threads_asked)?),
        w => {
            return Err(Error::InvalidSpec(format!(
                "flit width {w} is not simulated (allowed: 16, 32, 64)"
            )))
        }
    })
}

impl<const W: usize> RustEngine<W> {
    /// The engine for `spec`, every router's relation compiled as `table`,
    /// evaluated on [`threads`] of `threads_asked` threads.
    pub fn new(spec: &RouterSpec, table: CompiledTable, threads_asked: usize) -> Result<Self> {
        let wiring = Wiring::new(spec)?;
        let n = wiring.nodes();
        let mut routers = Vec::with_capacity(n);
        for node in 0..n {
            let mut r = Router::<W>::with_table(spec, table.clone())?;
            crate::blocks::prepare(&mut r);
            r.node_id.next = node_id(spec, &wiring.net, node as u32).into();
            r.clock.next = Clock::from(false);
            simulate(&mut r, SETTLE);
            routers.push(r);
        }
        let p = wiring.ports;
        let threads = threads(threads_asked, n);
        let mut e = RustEngine {
            out: Outputs::new(n, p),
            threads,
            workers: Workers::new(threads)?,
            wiring,
            routers,
        };
        e.sample();
        Ok(e)
    }

    fn sample(&mut self) {
        let (p, v) = (self.wiring.ports, self.wiring.vcs);
        for (node, r) in self.routers.iter().enumerate() {
            for q in 0..p {
                let f = &mut self.out.flits[node * p + q];
                f.valid = r.out_valid[q].val();
                f.head = r.out_head[q].val();
                f.tail = r.out_tail[q].val();
                f.vc = r.out_vc[q].val().index() as u8;
                f.data = r.out_data[q].val().to_u64();
                let mut c = 0u32;
                for vc in 0..v {
                    c |= u32::from(r.in_credit[q * v + vc].val()) << vc;
                }
                self.out.credits[node * p + q] = c;
            }
        }
        self.out.index_valid();
    }
}

impl<const W: usize> Engine for RustEngine<W> {
    fn outputs(&self) -> &Outputs {
        &self.out
    }

    fn step(&mut self, rst: bool, inject: &[Flit], eject_credit: &[u32]) {
        let (wiring, out) = (&self.wiring, &self.out);
        let mut rest: &mut [Router<W>] = &mut self.routers;
        let mut parts = Vec::with_capacity(self.threads);
        for (lo, hi) in split(rest.len(), self.threads) {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(hi - lo);
            parts.push((lo, part));
            rest = tail;
        }
        self.workers.run(parts, |(lo, part)| {
            cycle(wiring, out, lo, part, rst, inject, eject_credit)
        });
        self.sample();
    }
}

/// One cycle of the routers `part`, nodes `lo..`: inputs from the local
/// ports and from `out`, the outputs sampled before the cycle; then the
/// rising edge.
fn cycle<const W: usize>(
    wiring: &Wiring,
    out: &Outputs,
    lo: usize,
    part: &mut [Router<W>],
    rst: bool,
    inject: &[Flit],
    eject_credit: &[u32],
) {
    let (p, v) = (wiring.ports, wiring.vcs);
    for (node, r) in (lo..).zip(part.iter_mut()) {
        r.rst.next = rst;
        for q in 0..p {
            // What arrives on port q, and the credits for output port q.
            // Flits come from the port feeding q; credits from the port q
            // sends into (the same one unless the rings run one way).
            let (f, credit) = if q == 0 {
                (inject[node], eject_credit[node])
            } else {
                let at = |end: Option<(crate::algo::NodeId, usize)>| {
                    end.map(|(m, mq)| m as usize * p + mq)
                };
                (
                    at(wiring.feed[node * p + q]).map_or_else(Flit::default, |k| out.flits[k]),
                    at(wiring.link[node * p + q]).map_or(0, |k| out.credits[k]),
                )
            };
            r.in_valid[q].next = f.valid;
            r.in_head[q].next = f.head;
            r.in_tail[q].next = f.tail;
            r.in_vc[q].next = u64::from(f.vc).into();
            r.in_data[q].next = f.data.into();
            for vc in 0..v {
                r.out_credit[q * v + vc].next = credit >> vc & 1 == 1;
            }
        }
        r.clock.next = Clock::from(false);
        simulate(r, SETTLE);
        r.clock.next = Clock::from(true);
        simulate(r, SETTLE);
        r.clock.next = Clock::from(false);
    }
}
