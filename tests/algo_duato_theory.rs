//! The graph builders on the survey's worked example (§4.2, Figure 7): a
//! four-node unidirectional ring with channels CA_0..CA_3 and CH_0..CH_2
//! out of node i. R: CA_i toward every other node, CH_i toward higher
//! nodes. R_1: like R, except CA_0 is never used and CA_1, CA_2 only toward
//! lower nodes. The survey: R_1 is connected and its extended channel
//! dependency graph (Figure 7b) has no cycle, so R is deadlock-free, although
//! R's own channel dependency graph has the CA ring.

use routergen::algo::check::{dependency_graph, extended_dependency_graph, ChannelGraph};

/// Channel ids: CA_i = i (0..4), CH_i = 4 + i (0..3).
struct Ring {
    /// R_1 as the survey defines it; `false`: every CA channel is escape
    /// and no CH channel is (R_1 = the plain ring).
    survey_r1: bool,
}

const CA: usize = 0;
const CH: usize = 4;

impl ChannelGraph for Ring {
    fn nodes(&self) -> u32 {
        4
    }

    fn channel_count(&self) -> usize {
        7
    }

    fn head(&self, c: usize) -> u32 {
        let from = if c >= CH { c - CH } else { c };
        ((from + 1) % 4) as u32
    }

    fn next(&self, node: u32, _from: Option<usize>, dest: u32, out: &mut Vec<(usize, bool)>) {
        let i = node as usize;
        let j = dest as usize;
        let (ca_escape, ch_escape) = if self.survey_r1 {
            (j < i, true)
        } else {
            (true, false)
        };
        out.push((CA + i, ca_escape));
        if j > i {
            out.push((CH + i, ch_escape));
        }
    }
}

#[test]
fn the_survey_ring_is_deadlock_free_by_duatos_theorem() {
    let ring = Ring { survey_r1: true };
    // R's own dependency graph has the CA ring: Dally and Seitz cannot prove it.
    let (_, cycle) = dependency_graph(&ring);
    let mut cycle = cycle.expect("CA_0 -> CA_1 -> CA_2 -> CA_3 -> CA_0");
    cycle.sort();
    assert_eq!(cycle, vec![0, 1, 2, 3]);
    // Duato: the extended graph of R_1 over C_1 = {CA_1, CA_2, CA_3, CH_0..CH_2}.
    let ext = extended_dependency_graph(&ring).unwrap();
    assert_eq!(ext.members, vec![1, 2, 3, 4, 5, 6], "CA_0 is not in C_1");
    assert!(
        ext.cycle.is_none(),
        "Figure 7(b) is acyclic: {:?}",
        ext.cycle
    );
    assert!(ext.arcs > 0);
}

#[test]
fn the_ring_with_the_ca_channels_as_escape_is_rejected() {
    let ext = extended_dependency_graph(&Ring { survey_r1: false }).unwrap();
    let mut cycle = ext.cycle.expect("the CA ring");
    cycle.sort();
    assert_eq!(cycle, vec![0, 1, 2, 3]);
}
