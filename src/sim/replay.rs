//! A run's local ports, cycle by cycle, as a replay for the network's
//! Verilog (`routergen network --endpoints flits`, docs/network.md,
//! "Replaying a simulation"): what the network interfaces drive into every
//! router's local port (the stimulus) and what the routers drive out of it
//! (the expected response), one line of hexadecimal per cycle, which a
//! testbench drives into the network top and compares with what it drives
//! out.
//!
//! An expected line packs one chunk per node, node 0 in the lowest bits,
//! each chunk (highest bits first) the credit bits (V), valid, head, tail,
//! the VC (VB bits) and the data (W), as the testbench's `%h` prints it. A
//! stimulus line is `rst` and then the same chunks, node 0 last, as words
//! of their own: `$readmemh` reads each word into one element of the
//! testbench's memory, and Verilator's takes time growing with the square
//! of a word's width (one word per line made an 8x8 network's replay spend
//! a sixth of its run reading). In a stimulus chunk the credits are those
//! returned to the router's local output (`local_out_credit`) and the flit
//! is the one injected; in a response chunk the credits are the router's
//! for its local input (`local_in_credit`) and the flit the one ejected,
//! its head, tail, VC and data 0 when it is not valid (they mean nothing
//! then).

use super::network::{Flit, Outputs};

/// The replay of one run (module documentation).
#[derive(Debug, Clone)]
pub struct Replay {
    nodes: usize,
    ports: usize,
    width: u32,
    vcs: u32,
    vc_bits: u32,
    /// One stimulus line per cycle, reset included.
    pub stimulus: String,
    /// One expected line per cycle after reset.
    pub expected: String,
    /// Cycles recorded, reset included.
    pub cycles: u64,
}

impl Replay {
    /// An empty replay of `nodes` routers of `ports` ports, `vcs` VCs
    /// numbered in `vc_bits` bits and flits of `width` bits.
    pub fn new(nodes: usize, ports: usize, vcs: u32, vc_bits: u32, width: u32) -> Replay {
        Replay {
            nodes,
            ports,
            width,
            vcs,
            vc_bits,
            stimulus: String::new(),
            expected: String::new(),
            cycles: 0,
        }
    }

    /// Bits of one node's chunk.
    pub fn chunk_bits(&self) -> u32 {
        self.vcs + 3 + self.vc_bits + self.width
    }

    /// Records one cycle's local ports (`rst`: a reset cycle): `out`, what
    /// the routers drive at the cycle's start (before its inputs), and the
    /// inputs `inject` and `eject_credit` (per node) the network
    /// interfaces drive in it.
    pub fn cycle(&mut self, rst: bool, out: &Outputs, inject: &[Flit], eject_credit: &[u32]) {
        self.stimulus.push(if rst { '1' } else { '0' });
        for n in (0..self.nodes).rev() {
            let mut chunk = Bits::default();
            self.chunk(&mut chunk, eject_credit[n], &inject[n]);
            self.stimulus.push(' ');
            self.stimulus.push_str(&chunk.hex());
        }
        self.stimulus.push('\n');
        if !rst {
            let mut line = Bits::default();
            for n in (0..self.nodes).rev() {
                let k = n * self.ports;
                let f = &out.flits[k];
                let shown = if f.valid { *f } else { Flit::default() };
                self.chunk(&mut line, out.credits[k], &shown);
            }
            self.expected.push_str(&line.hex());
            self.expected.push('\n');
        }
        self.cycles += 1;
    }

    fn chunk(&self, line: &mut Bits, credits: u32, f: &Flit) {
        line.push(u64::from(credits), self.vcs);
        line.push(u64::from(f.valid), 1);
        line.push(u64::from(f.head), 1);
        line.push(u64::from(f.tail), 1);
        line.push(u64::from(f.vc), self.vc_bits);
        line.push(f.data, self.width);
    }
}

/// A bit string built from its highest bits down.
#[derive(Default)]
struct Bits(Vec<bool>);

impl Bits {
    /// Appends the low `width` bits of `value`, highest first.
    fn push(&mut self, value: u64, width: u32) {
        for b in (0..width).rev() {
            self.0.push(b < 64 && (value >> b) & 1 == 1);
        }
    }

    /// The bits in lowercase hexadecimal, as Verilog's `%h` prints a
    /// vector of their width (leading zeros kept).
    fn hex(&self) -> String {
        let pad = (4 - self.0.len() % 4) % 4;
        let bits: Vec<bool> = std::iter::repeat(false)
            .take(pad)
            .chain(self.0.iter().copied())
            .collect();
        bits.chunks(4)
            .map(|d| {
                let v = d.iter().fold(0u32, |a, &b| (a << 1) | u32::from(b));
                char::from_digit(v, 16).expect("a hex digit")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_pack_each_node_in_its_chunk_node_0_lowest() {
        // Two nodes of one port, 2 VCs (1 bit), 16-bit flits: chunks of
        // 2 + 3 + 1 + 16 = 22 bits.
        let mut r = Replay::new(2, 1, 2, 1, 16);
        assert_eq!(r.chunk_bits(), 22);
        let head = Flit {
            valid: true,
            head: true,
            tail: false,
            vc: 1,
            data: 0xbeef,
        };
        let mut out = Outputs::new(2, 1);
        out.flits[1] = head;
        out.flits[0] = Flit {
            valid: false,
            data: 0x1234,
            ..Flit::default()
        };
        out.credits[0] = 0b10;
        r.cycle(true, &out, &[Flit::default(), head], &[0b01, 0]);
        r.cycle(false, &out, &[Flit::default(); 2], &[0, 0]);
        // rst, node 1 (credits 00, valid, head, not tail, vc 1, beef),
        // node 0 (credits 01, nothing): chunks of 22 bits, 6 digits.
        let node1 = (0b0_1101u64 << 16) | 0xbeef;
        assert_eq!(
            r.stimulus.lines().next(),
            Some(format!("1 {node1:06x} {:06x}", 0b01 << 20).as_str())
        );
        // No expected line in reset; then node 1's head, node 0's
        // credits with its invalid flit's data hidden: 44 bits, 11 digits.
        assert_eq!(r.expected.lines().count(), 1);
        let resp = (node1 << 22) | (0b10 << 20);
        assert_eq!(r.expected.trim(), format!("{resp:011x}"));
        assert_eq!(r.cycles, 2);
    }
}
