//! Address decoder: from the head flit's address, the output virtual
//! channels the routing relation permits.
//!
//! Chien §3-4 (Figure 1): one address decoder per input reads the header
//! and determines the outputs the routing relation permits; Figure 2:
//! constant delay; Figure 4: constant cost. The updated header Chien's
//! decoder also computes is [`HeaderUpdate`] here: a router that shares
//! one decoder among an input port's virtual channels routes a head flit
//! before it crosses the switch, so the update is applied where the output
//! port is known (see `crate::router`).
//!
//! # Routing key
//!
//! The decoder first reduces the address to a routing key: per dimension d
//! a 3-bit state code, key = sum_d code_d << 3d. The codes:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | offset zero in d |
//! | 1 | one minimal direction, + (on a hypercube: d differs, and with the node id known, the node's bit d is 0) |
//! | 2 | +, and the torus wraparound link of d lies ahead |
//! | 3 | one minimal direction, - (hypercube: the node's bit d is 1) |
//! | 4 | -, and the wraparound link lies ahead |
//! | 5 | both directions minimal (torus, even k, offset k/2); going + crosses the wraparound link |
//! | 6 | both minimal; going - crosses it |
//!
//! How the codes come from the header (fields of `field_bits` at
//! [d F, d F + F)) and from `node_id` (the router's coordinates, fields of
//! `coord_bits` at [d C, d C + C)):
//! - mesh, relative: the sign of the offset (two's complement);
//! - mesh, absolute: destination coordinate b against node coordinate a
//!   (LAPSES §5.2.1: a comparator pair per dimension);
//! - torus, relative: the source writes a minimal signed offset o
//!   (|o| <= k/2; at a tie, |o| = k/2, either sign). The wraparound link is
//!   ahead going + when a + o >= k, going - when a + o < 0; at a tie,
//!   going + wraps when a >= k/2. Without the node id (`node_key` off)
//!   codes 2, 4 and 6 never appear;
//! - torus, absolute: f = (b - a) mod k; 2f < k is +, 2f > k is -,
//!   2f = k a tie; the wraparound link is ahead going + when b < a, going
//!   - when b > a (survey §8, the dateline rule of `Network::dateline_class`);
//! - hypercube: bit d of the header is 1 while d differs (relative) or is
//!   the destination's bit (absolute, compared with the node id); the
//!   direction is the node's own bit d when the node id is used.
//!
//! A fixed table, compiled from the routing relation by the router
//! (`crate::router::tables`), maps each key that occurs to a mask over the
//! P V output virtual channels (bit o V + v: VC v of port o); keys not in
//! the table permit nothing.
//!
//! Ports: `node_id` (W bits, read only where the key needs it),
//! `in_data` (W bits), `in_valid`, `in_head`: the flit to decode;
//! `cand_k`, k = o V + v: output VC k is permitted (only for a valid head
//! flit).
//!
//! The model ([`Logic::update`]) and the Verilog ([`AddressDecoder::body`])
//! are written from the same arithmetic, bit for bit (including for
//! addresses no packet carries); the co-simulation holds them equal.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::cosim::InputSignal;
use super::{signals, HwBlock};
use crate::spec::{Addressing, Topology};

/// Bits of one dimension's address field of the block-level decoder that
/// `routergen block address-decoder` emits (a mesh of radix 8).
pub const FIELD_BITS: usize = 4;

/// Bits of one dimension's state code in the routing key.
pub const CODE_BITS: usize = 3;

/// The sign of one dimension's remaining offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// The offset is zero: the dimension is done.
    Zero,
    /// The destination lies in the + direction.
    Plus,
    /// The destination lies in the - direction.
    Minus,
}

impl Sign {
    /// The economical-storage digit of the sign (docs/interface.md): Zero
    /// 0, Plus 1, Minus 2.
    pub fn digit(self) -> u8 {
        match self {
            Sign::Zero => 0,
            Sign::Plus => 1,
            Sign::Minus => 2,
        }
    }

    /// The sign of an economical-storage digit (inverse of [`Sign::digit`]).
    pub fn of_digit(digit: u8) -> Sign {
        match digit {
            0 => Sign::Zero,
            1 => Sign::Plus,
            _ => Sign::Minus,
        }
    }
}

/// The table entry of a sign vector ([`crate::interface::es_entry`]).
pub fn sign_index(signs: &[Sign]) -> usize {
    crate::interface::es_entry(signs.iter().map(|s| s.digit()))
}

/// The sign vector of table entry `e` for `n` dimensions
/// ([`crate::interface::es_digits`]).
pub fn signs_of(e: usize, n: usize) -> Vec<Sign> {
    crate::interface::es_digits(e, n)
        .into_iter()
        .map(Sign::of_digit)
        .collect()
}

/// Dimension-order routing as a sign-vector table (3^n port masks): the
/// lowest dimension with a nonzero offset, in its direction; local when
/// every offset is zero.
pub fn dimension_order_table(n: usize) -> Vec<u32> {
    (0..3usize.pow(n as u32))
        .map(|e| {
            let signs = signs_of(e, n);
            match signs.iter().position(|&s| s != Sign::Zero) {
                None => 1,
                Some(d) if signs[d] == Sign::Plus => 1 << (2 * d + 1),
                Some(d) => 1 << (2 * d + 2),
            }
        })
        .collect()
}

/// `value` masked to `bits` bits.
fn low(value: u64, bits: usize) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// The shape of a decoder: how it reads the address and node id, and how
/// many output VCs its table covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecoderShape {
    /// The network's topology.
    pub topology: Topology,
    /// Dimensions n.
    pub dims: usize,
    /// Radix k (2 on a hypercube).
    pub radix: u32,
    /// Relative offsets or absolute coordinates in the head flit.
    pub addressing: Addressing,
    /// Bits of one dimension's address field in the head flit.
    pub field_bits: usize,
    /// Bits of one dimension's coordinate in `node_id`.
    pub coord_bits: usize,
    /// Whether the key uses the node id (always with absolute addressing).
    pub node_key: bool,
    /// Physical ports P and VCs V: the table covers P V output VCs.
    pub ports: usize,
    /// VCs per port (see `ports`).
    pub vcs: usize,
    /// What the outputs are (for the comments of the Verilog table).
    pub outputs_are: Outputs,
}

/// What a decoder's outputs select: the router's output VCs, the word
/// lines of a routing table's entries, or the bits of the look-ahead field
/// of the next router (the decoder is the same circuit; only the comments
/// in its Verilog differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outputs {
    /// Output VC k = o V + v.
    OutputVcs,
    /// Word line e of a routing table (LAPSES §5.2.1).
    WordLines,
    /// Bit b of the look-ahead field (LAPSES §3.2).
    FieldBits,
}

/// Width of the intermediate sum a + o of the torus wraparound test.
const SUM_BITS: usize = 12;

impl DecoderShape {
    /// The shape for a k-ary n-dimensional `topology` with the address
    /// fields of docs/interface.md: relative offsets of 1 + log2(k)
    /// bits on a mesh, 1 + log2(k/2 + 1) on a torus, absolute coordinates
    /// of log2(k) bits, one bit on a hypercube. Any sizes give a shape;
    /// [`AddressDecoder::new`] refuses one it cannot build (a radix below
    /// 2, fields wider than the flit, ...).
    pub fn new(
        topology: Topology,
        dims: usize,
        radix: u32,
        addressing: Addressing,
        vcs: usize,
        node_key: bool,
    ) -> Self {
        // The widths of docs/interface.md, stated once in crate::interface.
        let coord_bits = crate::interface::coord_bits(topology, radix) as usize;
        let field_bits = crate::interface::HeadFormat::new(topology, dims as u32, radix, addressing)
            .field_bits() as usize;
        let ports = crate::interface::physical_ports(topology, dims as u32) as usize;
        DecoderShape {
            topology,
            dims,
            radix,
            addressing,
            field_bits,
            coord_bits,
            node_key: node_key || addressing == Addressing::Absolute,
            ports,
            vcs,
            outputs_are: Outputs::OutputVcs,
        }
    }

    /// Output virtual channels P V.
    pub fn outputs(&self) -> usize {
        self.ports * self.vcs
    }

    /// Bits of the routing key.
    pub fn key_bits(&self) -> usize {
        CODE_BITS * self.dims
    }

    /// Dimension `d`'s address field of `data`.
    pub fn field(&self, data: u64, d: usize) -> u64 {
        low(data >> (self.field_bits * d), self.field_bits)
    }

    /// Dimension `d`'s coordinate in `node`.
    pub fn coord(&self, node: u64, d: usize) -> u64 {
        low(node >> (self.coord_bits * d), self.coord_bits)
    }

    /// The state code of dimension `d` (module documentation), as the
    /// Verilog of `code_verilog` computes it.
    pub fn code(&self, data: u64, node: u64, d: usize) -> u64 {
        let f = self.field_bits;
        let h = self.field(data, d);
        let a = self.coord(node, d);
        let k = u64::from(self.radix);
        let neg = (h >> (f - 1)) & 1 == 1;
        match (self.topology, self.addressing) {
            (Topology::Mesh, Addressing::Relative) => match (h == 0, neg) {
                (true, _) => 0,
                (false, true) => 3,
                (false, false) => 1,
            },
            (Topology::Mesh, Addressing::Absolute) => {
                if h == a {
                    0
                } else if h > a {
                    1
                } else {
                    3
                }
            }
            (Topology::Hypercube, _) => {
                let differs = if self.addressing == Addressing::Absolute {
                    (h ^ a) & 1 == 1
                } else {
                    h & 1 == 1
                };
                match (differs, self.node_key && a & 1 == 1) {
                    (false, _) => 0,
                    (true, false) => 1,
                    (true, true) => 3,
                }
            }
            (Topology::Torus, Addressing::Relative) => {
                let half = k / 2;
                let tie = k % 2 == 0 && (h == half || h == low(half.wrapping_neg(), f));
                // a + o, sign-extended to SUM_BITS bits.
                let ext = if neg {
                    h | (low(u64::MAX, SUM_BITS) & !low(u64::MAX, f))
                } else {
                    h
                };
                let sum = low(ext + a, SUM_BITS);
                let sum_neg = (sum >> (SUM_BITS - 1)) & 1 == 1;
                let wrap_plus = self.node_key && !sum_neg && sum >= k;
                let wrap_minus = self.node_key && sum_neg;
                if h == 0 {
                    0
                } else if tie {
                    if self.node_key && a < half {
                        6
                    } else {
                        5
                    }
                } else if neg {
                    if wrap_minus {
                        4
                    } else {
                        3
                    }
                } else if wrap_plus {
                    2
                } else {
                    1
                }
            }
            (Topology::UniTorus, _) => {
                // The wraparound link lies ahead when the hops left reach
                // past k - 1 (relative), or the destination is behind
                // (absolute).
                let (done, wraps) = match self.addressing {
                    Addressing::Relative => (h == 0, self.node_key && h + a >= k),
                    Addressing::Absolute => (h == a, h < a),
                };
                match (done, wraps) {
                    (true, _) => 0,
                    (false, false) => 1,
                    (false, true) => 2,
                }
            }
            (Topology::Torus, Addressing::Absolute) => {
                let c1 = self.coord_bits + 1;
                let fwd = if h >= a {
                    low(h.wrapping_sub(a), c1)
                } else {
                    low(h.wrapping_add(k).wrapping_sub(a), c1)
                };
                let twice = fwd << 1;
                let wrap_plus = h < a;
                let wrap_minus = h > a;
                if h == a {
                    0
                } else if twice == k {
                    if wrap_plus {
                        5
                    } else {
                        6
                    }
                } else if twice < k {
                    if wrap_plus {
                        2
                    } else {
                        1
                    }
                } else if wrap_minus {
                    4
                } else {
                    3
                }
            }
        }
    }

    /// What a table row encodes, for the comment beside it in the
    /// Verilog: each dimension not yet done and its state code (module
    /// documentation), then the permitted output VCs by port.
    pub fn row_comment(&self, row: &Row) -> String {
        let state: Vec<String> = (0..self.dims)
            .filter_map(|d| {
                let code = (row.key >> (CODE_BITS * d)) & ((1 << CODE_BITS) - 1);
                let says = match code {
                    0 => return None,
                    1 => "+",
                    2 => "+ across the wraparound",
                    3 => "-",
                    4 => "- across the wraparound",
                    5 => "either way, + across the wraparound",
                    _ => "either way, - across the wraparound",
                };
                Some(format!("d{d} {says}"))
            })
            .collect();
        let state = if state.is_empty() {
            "arrived".to_string()
        } else {
            state.join(", ")
        };
        let set = |k: &usize| row.permits(*k);
        let list = |ks: Vec<usize>| {
            ks.iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let outputs: Vec<String> = match self.outputs_are {
            Outputs::OutputVcs => (0..self.ports)
                .filter_map(|o| {
                    let vcs: Vec<usize> =
                        (0..self.vcs).filter(|v| set(&(o * self.vcs + v))).collect();
                    (!vcs.is_empty()).then(|| format!("port {o} VC {}", list(vcs)))
                })
                .collect(),
            Outputs::WordLines => (0..self.outputs())
                .filter(set)
                .map(|e| format!("entry {e}"))
                .collect(),
            Outputs::FieldBits => {
                let bits: Vec<usize> = (0..self.outputs()).filter(set).collect();
                if bits.is_empty() {
                    Vec::new()
                } else {
                    vec![format!("next field bits {}", list(bits))]
                }
            }
        };
        let outputs = if outputs.is_empty() {
            "nothing".to_string()
        } else {
            outputs.join("; ")
        };
        format!("{state}: {outputs}")
    }

    /// The routing key of a head flit `data` at node `node`.
    pub fn key(&self, data: u64, node: u64) -> u32 {
        (0..self.dims).fold(0, |key, d| {
            key | (self.code(data, node, d) as u32) << (CODE_BITS * d)
        })
    }

    /// Verilog (inside a module with `in_data` and `node_id` of `w` bits)
    /// declaring `code$d`, dimension `d`'s state code.
    fn code_verilog(&self, w: usize, d: usize) -> String {
        let f = self.field_bits;
        let c = self.coord_bits;
        let k = self.radix as u64;
        let mut s = String::new();
        let lo = f * d;
        let _ = writeln!(
            s,
            "    wire [{}:0] h${d} = in_data[{}:{lo}];",
            f - 1,
            lo + f - 1
        );
        let uses_node = self.node_key;
        if uses_node {
            let clo = c * d;
            let _ = writeln!(
                s,
                "    wire [{}:0] a${d} = node_id[{}:{clo}];",
                c - 1,
                clo + c - 1
            );
        }
        let _ = w;
        let code = match (self.topology, self.addressing) {
            (Topology::Mesh, Addressing::Relative) => format!(
                "(h${d} == {f}'d0) ? 3'd0 : (h${d}[{}] ? 3'd3 : 3'd1)",
                f - 1
            ),
            (Topology::Mesh, Addressing::Absolute) => {
                format!("(h${d} == a${d}) ? 3'd0 : ((h${d} > a${d}) ? 3'd1 : 3'd3)")
            }
            (Topology::Hypercube, addressing) => {
                let differs = if addressing == Addressing::Absolute {
                    format!("(h${d} ^ a${d})")
                } else {
                    format!("h${d}")
                };
                if uses_node {
                    format!("{differs} == 1'b0 ? 3'd0 : (a${d} ? 3'd3 : 3'd1)")
                } else {
                    format!("{differs} == 1'b0 ? 3'd0 : 3'd1")
                }
            }
            (Topology::Torus, Addressing::Relative) => {
                let half = k / 2;
                let tie = if k % 2 == 0 {
                    let neg_half = low(half.wrapping_neg(), f);
                    format!("((h${d} == {f}'d{half}) | (h${d} == {f}'d{neg_half}))")
                } else {
                    "1'b0".to_string()
                };
                let (tie_code, minus, plus) = if uses_node {
                    let ext = SUM_BITS - f;
                    let _ = writeln!(
                        s,
                        "    wire [{}:0] s${d} = {{{{{ext}{{h${d}[{}]}}}}, h${d}}} + {{{}'d0, a${d}}};",
                        SUM_BITS - 1,
                        f - 1,
                        SUM_BITS - c
                    );
                    (
                        format!("((a${d} < {c}'d{half}) ? 3'd6 : 3'd5)"),
                        format!("(s${d}[{}] ? 3'd4 : 3'd3)", SUM_BITS - 1),
                        format!(
                            "((~s${d}[{}] & (s${d} >= {SUM_BITS}'d{k})) ? 3'd2 : 3'd1)",
                            SUM_BITS - 1
                        ),
                    )
                } else {
                    ("3'd5".into(), "3'd3".into(), "3'd1".into())
                };
                format!(
                    "(h${d} == {f}'d0) ? 3'd0 : ({tie} ? {tie_code} : (h${d}[{}] ? {minus} : {plus}))",
                    f - 1
                )
            }
            (Topology::UniTorus, Addressing::Relative) if uses_node => {
                let _ = writeln!(
                    s,
                    "    wire [{f}:0] s${d} = {{1'b0, h${d}}} + {{{}'d0, a${d}}};",
                    f + 1 - c
                );
                format!(
                    "(h${d} == {f}'d0) ? 3'd0 : ((s${d} >= {}'d{k}) ? 3'd2 : 3'd1)",
                    f + 1
                )
            }
            (Topology::UniTorus, Addressing::Relative) => {
                format!("(h${d} == {f}'d0) ? 3'd0 : 3'd1")
            }
            (Topology::UniTorus, Addressing::Absolute) => {
                format!("(h${d} == a${d}) ? 3'd0 : ((h${d} < a${d}) ? 3'd2 : 3'd1)")
            }
            (Topology::Torus, Addressing::Absolute) => {
                let c1 = c + 1;
                let _ = writeln!(
                    s,
                    "    wire [{c}:0] f${d} = (h${d} >= a${d}) ? ({{1'b0, h${d}}} - {{1'b0, a${d}}}) \
                     : ({{1'b0, h${d}}} + {c1}'d{k} - {{1'b0, a${d}}});"
                );
                let t = c + 2;
                let _ = writeln!(s, "    wire [{}:0] t${d} = {{f${d}, 1'b0}};", t - 1);
                format!(
                    "(h${d} == a${d}) ? 3'd0 : ((t${d} == {t}'d{k}) ? ((h${d} < a${d}) ? 3'd5 : 3'd6) \
                     : ((t${d} < {t}'d{k}) ? ((h${d} < a${d}) ? 3'd2 : 3'd1) \
                     : ((h${d} > a${d}) ? 3'd4 : 3'd3)))"
                )
            }
        };
        let _ = writeln!(s, "    wire [2:0] code${d} = {code};");
        s
    }
}

/// One table row: a routing key and the output VCs it permits (bit k of
/// the words, k = o V + v).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The routing key (module documentation).
    pub key: u32,
    /// The permitted output VCs, bit k of the words (k = o V + v).
    pub mask: Vec<u64>,
}

impl Row {
    /// Whether the row permits output VC `k` (k = o V + v).
    pub fn permits(&self, k: usize) -> bool {
        self.mask
            .get(k / 64)
            .is_some_and(|w| (w >> (k % 64)) & 1 == 1)
    }
}

/// `mask` (bit k of the words) as a Verilog literal of `bits` bits.
pub(crate) fn hex_literal(bits: usize, mask: &[u64]) -> String {
    let mut digits = String::new();
    for (i, w) in mask.iter().enumerate().rev() {
        if digits.is_empty() {
            if *w != 0 || i == 0 {
                let _ = write!(digits, "{w:x}");
            }
        } else {
            let _ = write!(digits, "{w:016x}");
        }
    }
    format!("{bits}'h{digits}")
}

/// The address decoder of a [`DecoderShape`] and a routing table of
/// [`Row`]s (module documentation; Chien §3-4).
#[derive(LogicBlock)]
pub struct AddressDecoder<const W: usize> {
    /// The router's coordinates (W bits), read where the key needs them.
    pub node_id: Signal<In, Bits<W>>,
    /// The flit to decode (W bits).
    pub in_data: Signal<In, Bits<W>>,
    /// A flit is present.
    pub in_valid: Signal<In, Bit>,
    /// It is a head flit.
    pub in_head: Signal<In, Bit>,
    /// `cand[o * V + v]`: the relation permits output VC v of port o
    /// (only for a valid head flit).
    pub cand: Vec<Signal<Out, Bit>>,
    _shape: DecoderShape,
    /// Rows sorted by key.
    _rows: Vec<Row>,
}

impl<const W: usize> AddressDecoder<W> {
    /// A decoder of `shape` holding `rows` (each key once; masks over
    /// `shape.outputs()` bits). The address fields must fit W:
    /// `shape.dims * shape.field_bits <= W`, and so must the node id's
    /// coordinates when the key reads them; the routing key (3 bits per
    /// dimension) must fit 32 bits.
    pub fn new(shape: DecoderShape, rows: &[Row]) -> crate::Result<Self> {
        Self::check(&shape, rows)?;
        Ok(Self::new_unchecked(shape, rows))
    }

    fn check(shape: &DecoderShape, rows: &[Row]) -> crate::Result<()> {
        use super::check_size;
        let name = "address decoder";
        super::check_width::<W>(name)?;
        check_size(
            name,
            "dimension count n",
            shape.dims,
            (1, 32 / CODE_BITS),
            "the routing key holds 3 bits per dimension in 32 bits",
        )?;
        check_size(name, "radix k", shape.radix as usize, (2, usize::MAX), "")?;
        check_size(name, "port count P", shape.ports, (1, usize::MAX), "")?;
        check_size(name, "VC count V", shape.vcs, (1, usize::MAX), "")?;
        check_size(
            name,
            "address field width (bits)",
            shape.field_bits,
            (1, W / shape.dims),
            &format!("{} fields must fit the {W}-bit head flit", shape.dims),
        )?;
        if shape.node_key {
            check_size(
                name,
                "node-id coordinate width (bits)",
                shape.coord_bits,
                (1, W / shape.dims),
                &format!("{} coordinates must fit the {W}-bit node_id", shape.dims),
            )?;
        }
        let pv = shape.outputs();
        for row in rows {
            if u64::from(row.key) >> shape.key_bits() != 0 {
                return Err(crate::Error::invalid(format!(
                    "an address decoder row has key {:#x}, wider than the {} bits \
                     of a {}-dimensional routing key",
                    row.key,
                    shape.key_bits(),
                    shape.dims
                )));
            }
            if let Some(k) = (pv..64 * row.mask.len()).find(|&k| row.permits(k)) {
                return Err(crate::Error::invalid(format!(
                    "the address decoder row of key {:#x} permits output VC {k}, \
                     but the decoder has only P V = {pv} output VCs",
                    row.key
                )));
            }
        }
        Ok(())
    }

    /// [`AddressDecoder::new`] for callers whose shape and rows are
    /// validated.
    pub(crate) fn new_unchecked(shape: DecoderShape, rows: &[Row]) -> Self {
        let mut rows = rows.to_vec();
        rows.sort_by_key(|r| r.key);
        rows.dedup_by_key(|r| r.key);
        AddressDecoder {
            node_id: Signal::default(),
            in_data: Signal::default(),
            in_valid: Signal::default(),
            in_head: Signal::default(),
            cand: signals(shape.outputs()),
            _shape: shape,
            _rows: rows,
        }
    }

    /// The block-level decoder `routergen block address-decoder` emits:
    /// dimension-order routing on an 8-ary n-dimensional mesh, one VC
    /// (table from [`dimension_order_table`]); `dims` is 1 to
    /// [`MAX_ECONOMICAL_DIMS`](crate::limits::MAX_ECONOMICAL_DIMS) (the
    /// table of 3^n rows the economical-storage block holds), and its
    /// address fields must fit W.
    pub fn dimension_order(dims: usize, addressing: Addressing) -> crate::Result<Self> {
        super::check_size(
            "dimension-order address decoder",
            "dimension count n",
            dims,
            (1, crate::limits::MAX_ECONOMICAL_DIMS as usize),
            "its table holds 3^n rows",
        )?;
        let n = dims;
        let shape = DecoderShape::new(Topology::Mesh, n, 8, addressing, 1, false);
        let rows = dimension_order_table(n)
            .into_iter()
            .enumerate()
            .map(|(e, mask)| {
                let key = signs_of(e, n).iter().enumerate().fold(0u32, |key, (d, s)| {
                    let code = match s {
                        Sign::Zero => 0,
                        Sign::Plus => 1,
                        Sign::Minus => 3,
                    };
                    key | code << (CODE_BITS * d)
                });
                Row {
                    key,
                    mask: vec![u64::from(mask)],
                }
            })
            .collect::<Vec<_>>();
        Self::new(shape, &rows)
    }

    /// How this decoder reads the address and node id.
    pub fn shape(&self) -> &DecoderShape {
        &self._shape
    }

    /// The table, sorted by key, each key once.
    pub fn rows(&self) -> &[Row] {
        &self._rows
    }

    /// The row of `key`, if the table has one.
    pub fn row(&self, key: u32) -> Option<&Row> {
        self._rows
            .binary_search_by_key(&key, |r| r.key)
            .ok()
            .map(|i| &self._rows[i])
    }

    /// The module body: state codes, the table as a case statement, the
    /// candidates.
    pub fn body(&self) -> String {
        let shape = &self._shape;
        let n = shape.dims;
        let pv = shape.outputs();
        let kb = shape.key_bits();
        let mut s = String::new();
        for d in 0..n {
            s.push_str(&shape.code_verilog(W, d));
        }
        let codes: Vec<String> = (0..n).rev().map(|d| format!("code${d}")).collect();
        let _ = writeln!(s, "    wire [{}:0] key = {{{}}};", kb - 1, codes.join(", "));
        let _ = writeln!(s, "    reg [{}:0] mask;", pv - 1);
        let _ = writeln!(s, "    always @(*) begin");
        let _ = writeln!(s, "        case (key)");
        for r in &self._rows {
            let _ = writeln!(
                s,
                "            {kb}'h{:x}: mask = {};  // {}",
                r.key,
                hex_literal(pv, &r.mask),
                shape.row_comment(r)
            );
        }
        let _ = writeln!(s, "            default: mask = {pv}'h0;");
        let _ = writeln!(s, "        endcase");
        for k in 0..pv {
            let _ = writeln!(s, "        cand${k} = in_valid & in_head & mask[{k}];");
        }
        let _ = writeln!(s, "    end");
        s
    }
}

impl<const W: usize> Logic for AddressDecoder<W> {
    fn update(&mut self) {
        let data = self.in_data.val().to_u64();
        let node = self.node_id.val().to_u64();
        let go = self.in_valid.val() && self.in_head.val();
        let key = self._shape.key(data, node);
        let row = self.row(key).map(|r| r.mask.clone());
        for (k, c) in self.cand.iter_mut().enumerate() {
            c.next = go
                && row
                    .as_ref()
                    .is_some_and(|m| m.get(k / 64).is_some_and(|w| (w >> (k % 64)) & 1 == 1));
        }
    }

    fn connect(&mut self) {
        for c in self.cand.iter_mut() {
            c.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.body())
    }
}

impl<const W: usize> HwBlock for AddressDecoder<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        None
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.node_id);
        f(&mut self.in_data);
        f(&mut self.in_valid);
        f(&mut self.in_head);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        match name {
            "in_valid" | "in_head" => Some(0.8),
            _ => None,
        }
    }
}

/// A [`HeaderUpdate`] as constants ([`HeaderUpdate::rewrite`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rewrite {
    /// The bits the update keeps.
    pub keep: u64,
    /// The field's bits where it takes `x + step` (0 on a hypercube,
    /// whose field is cleared).
    pub moved: u64,
    /// Added to the header: one step of the field toward zero.
    pub step: u64,
    /// The field value, in place, that takes another value, in place.
    pub tie: Option<(u64, u64)>,
}

#[cfg(test)]
impl Rewrite {
    /// The rewrite applied to the W-bit header `x` (the form the router's
    /// logic takes, for testing against [`HeaderUpdate::apply`]).
    pub fn apply(&self, x: u64, w: usize) -> u64 {
        match self.tie {
            Some((tie, to)) if x & !self.keep == tie => (x & self.keep) | to,
            _ => (x & self.keep) | (low(x.wrapping_add(self.step), w) & self.moved),
        }
    }
}

/// The header update of one output port (Chien §3: the decoder computes
/// the updated header; docs/interface.md gives the rule): relative
/// addressing moves dimension d's offset one step toward zero when the
/// flit leaves on a link of d (a hypercube clears bit d); on a torus an
/// offset of exactly k/2 that leaves the other way round becomes the
/// remaining minimal offset, k/2 - 1 of the opposite sign. Absolute
/// addressing and the local port leave the header unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderUpdate {
    /// Dimension and direction (+1 or -1) of the port; `None` for the
    /// local port or absolute addressing.
    step: Option<(usize, i8)>,
    field_bits: usize,
    topology: Topology,
    radix: u32,
}

impl HeaderUpdate {
    /// The update of interface port `port` of a decoder of `shape`.
    pub fn new(shape: &DecoderShape, port: usize) -> Self {
        let step = if port == 0 || shape.addressing == Addressing::Absolute {
            None
        } else if shape.topology.links_per_dim() == 1 {
            // One link per dimension: a hypercube's (the bit is cleared
            // whichever way) or a unidirectional torus's, toward +.
            Some((port - 1, 1))
        } else {
            Some(((port - 1) / 2, if port % 2 == 1 { 1 } else { -1 }))
        };
        HeaderUpdate {
            step,
            field_bits: shape.field_bits,
            topology: shape.topology,
            radix: shape.radix,
        }
    }

    /// The field a flit leaving by this port carries, from the field `h`
    /// it arrived with (both `field_bits` wide).
    fn new_field(&self, h: u64, dir: i8) -> u64 {
        let f = self.field_bits;
        let k = u64::from(self.radix);
        match self.topology {
            Topology::Hypercube => 0,
            Topology::Torus if k % 2 == 0 && dir > 0 && h == low((k / 2).wrapping_neg(), f) => {
                k / 2 - 1
            }
            Topology::Torus if k % 2 == 0 && dir < 0 && h == k / 2 => {
                low(1u64.wrapping_sub(k / 2), f)
            }
            _ if dir > 0 => low(h.wrapping_sub(1), f),
            _ => low(h + 1, f),
        }
    }

    /// The head flit `data` (W bits) as it leaves by this port.
    pub fn apply(&self, data: u64, w: usize) -> u64 {
        let Some((d, dir)) = self.step else {
            return data;
        };
        let f = self.field_bits;
        let at = f * d;
        let h = low(data >> at, f);
        let mask = low(u64::MAX, f) << at;
        low((data & !mask) | (self.new_field(h, dir) << at), w)
    }

    /// [`Self::apply`] as W-bit constants, for logic written once over
    /// ports: `(x & keep) | ((x + step) & moved)`, but where the field
    /// (`x & !keep`) equals `tie`, `(x & keep) | tie_to` (a torus of even
    /// radix). `None`: the header leaves unchanged.
    pub fn rewrite(&self, w: usize) -> Option<Rewrite> {
        let (d, dir) = self.step?;
        let f = self.field_bits;
        let at = f * d;
        let mask = low(u64::MAX, f) << at;
        let k = u64::from(self.radix);
        // Toward zero: a + offset steps down, a - offset up (mod 2^f
        // inside the field: the carry out of it is masked off).
        let step = if dir > 0 {
            low((1u64 << at).wrapping_neg(), w)
        } else {
            1u64 << at
        };
        let (moved, tie) = match self.topology {
            Topology::Hypercube => (0, None),
            Topology::Torus if k % 2 == 0 => {
                let (h, to) = if dir > 0 {
                    (low((k / 2).wrapping_neg(), f), k / 2 - 1)
                } else {
                    (k / 2, low(1u64.wrapping_sub(k / 2), f))
                };
                (mask, Some((h << at, to << at)))
            }
            _ => (mask, None),
        };
        Some(Rewrite {
            keep: low(!mask, w),
            moved,
            step,
            tie,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    /// Each row of the Verilog table says what it encodes: dimension-order
    /// routing on a 2-D mesh (x first, Dally and Seitz) sends a packet
    /// with both offsets + to port 1 (x+, docs/interface.md numbering),
    /// one with only y - to port 4, and ejects at offset zero.
    #[test]
    fn the_table_rows_say_what_they_encode() {
        let dec = AddressDecoder::<16>::dimension_order(2, Addressing::Relative).unwrap();
        let body = dec.body();
        let comment = |key: u32| {
            let line = body
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("6'h{key:x}:")))
                .unwrap_or_else(|| panic!("no row for key {key:#x} in\n{body}"));
            line.split("// ").nth(1).unwrap().to_string()
        };
        assert_eq!(comment(0), "arrived: port 0 VC 0");
        assert_eq!(comment(1 | 1 << 3), "d0 +, d1 +: port 1 VC 0");
        assert_eq!(comment(3 << 3), "d1 -: port 4 VC 0");
        let torus = DecoderShape::new(Topology::Torus, 1, 4, Addressing::Relative, 2, true);
        let row = Row {
            key: 5,
            mask: vec![0b1100],
        };
        assert_eq!(
            torus.row_comment(&row),
            "d0 either way, + across the wraparound: port 1 VC 0,1"
        );
    }

    /// Per dimension, written from the module documentation with plain
    /// integers: (plus minimal, minus minimal, plus wraps, minus wraps).
    fn reference_code(topology: Topology, k: i64, a: i64, b: i64) -> u64 {
        match topology {
            Topology::Mesh => match b.cmp(&a) {
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => 3,
            },
            Topology::Hypercube => match (a == b, a) {
                (true, _) => 0,
                (false, 0) => 1,
                _ => 3,
            },
            // + only: the wraparound link lies ahead when b is behind a.
            Topology::UniTorus => match b.cmp(&a) {
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => 2,
            },
            Topology::Torus => {
                if a == b {
                    return 0;
                }
                let fwd = (b - a).rem_euclid(k);
                let back = k - fwd;
                let (wp, wm) = (b < a, b > a);
                if fwd == back {
                    if wp {
                        5
                    } else {
                        6
                    }
                } else if fwd < back {
                    if wp {
                        2
                    } else {
                        1
                    }
                } else if wm {
                    4
                } else {
                    3
                }
            }
        }
    }

    /// Every coordinate pair of one dimension, through the model's key,
    /// against the reference: relative headers hold the minimal offset
    /// (both signs at a tie), absolute ones the coordinate.
    #[test]
    fn codes_follow_the_documented_rules_for_every_coordinate_pair() {
        for (topology, k) in [
            (Topology::Mesh, 4),
            (Topology::Mesh, 5),
            (Topology::Torus, 3),
            (Topology::Torus, 4),
            (Topology::Torus, 5),
            (Topology::Torus, 8),
            (Topology::Hypercube, 2),
            (Topology::UniTorus, 2),
            (Topology::UniTorus, 4),
            (Topology::UniTorus, 5),
        ] {
            for addressing in [Addressing::Relative, Addressing::Absolute] {
                let shape = DecoderShape::new(topology, 2, k, addressing, 1, true);
                let f = shape.field_bits;
                let c = shape.coord_bits;
                for a in 0..k as i64 {
                    for b in 0..k as i64 {
                        let offsets: Vec<i64> = match (topology, addressing) {
                            (_, Addressing::Absolute) => vec![b],
                            (Topology::Hypercube, _) => vec![i64::from(a != b)],
                            (Topology::Mesh, _) => vec![b - a],
                            (Topology::UniTorus, _) => vec![(b - a).rem_euclid(k as i64)],
                            (Topology::Torus, _) => {
                                let fwd = (b - a).rem_euclid(k as i64);
                                let back = k as i64 - fwd;
                                if fwd == back {
                                    vec![fwd, -back]
                                } else if fwd < back {
                                    vec![fwd]
                                } else {
                                    vec![-back]
                                }
                            }
                        };
                        for o in offsets {
                            // Dimension 1 carries the pair, dimension 0 zero.
                            let data = low(o as u64, f) << f
                                | if addressing == Addressing::Absolute {
                                    3 % k as u64
                                } else {
                                    0
                                };
                            let node = ((a as u64) << c) | (3 % k as u64);
                            let want = reference_code(topology, k as i64, a, b);
                            assert_eq!(
                                shape.code(data, node, 1),
                                want,
                                "{topology} {addressing} k={k} a={a} b={b} o={o}"
                            );
                            assert_eq!(shape.code(data, node, 0), 0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn without_the_node_id_a_hypercube_reports_difference_only() {
        let shape = DecoderShape::new(Topology::Hypercube, 3, 2, Addressing::Relative, 1, false);
        assert_eq!(shape.key(0b101, 0b111), 1 | 1 << 6);
        let with = DecoderShape::new(Topology::Hypercube, 3, 2, Addressing::Relative, 1, true);
        assert_eq!(with.key(0b101, 0b100), 1 | 3 << 6);
    }

    /// The header rule of docs/interface.md, written with integers.
    /// The constants the router's crossbar path applies
    /// ([`HeaderUpdate::rewrite`]) against [`HeaderUpdate::apply`], for
    /// every port, every field value and the bits around it.
    #[test]
    fn rewrites_are_the_header_updates() {
        let mut checked = 0;
        for (topology, k) in [
            (Topology::Mesh, 4),
            (Topology::Mesh, 5),
            (Topology::Torus, 3),
            (Topology::Torus, 4),
            (Topology::Torus, 8),
            (Topology::Hypercube, 2),
            (Topology::UniTorus, 4),
        ] {
            for addressing in [Addressing::Relative, Addressing::Absolute] {
                let shape = DecoderShape::new(topology, 3, k, addressing, 1, true);
                let ports = 1 + 3 * topology.links_per_dim() as usize;
                let f = shape.field_bits;
                for w in [16, 64] {
                    for port in 0..ports {
                        let u = HeaderUpdate::new(&shape, port);
                        let Some(r) = u.rewrite(w) else {
                            assert_eq!(u.apply(0xa5a5, w), 0xa5a5, "{topology} port {port}");
                            continue;
                        };
                        for field in 0..1u64 << f {
                            for around in [0u64, u64::MAX, 0x5a5a_5a5a_5a5a_5a5a] {
                                let d = (port.max(1) - 1) / topology.links_per_dim() as usize;
                                let mask = low(u64::MAX, f) << (f * d);
                                let x = low((around & !mask) | (field << (f * d)), w);
                                assert_eq!(
                                    r.apply(x, w),
                                    u.apply(x, w),
                                    "{topology} k={k} port {port} w={w} x={x:x}"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn header_updates_move_one_step_toward_the_destination() {
        let w = 16;
        // Torus k = 4, relative: fields of 3 bits.
        let t = DecoderShape::new(Topology::Torus, 2, 4, Addressing::Relative, 1, true);
        let field = |x: i64| low(x as u64, 3);
        let head = |dx: i64, dy: i64| field(dx) | field(dy) << 3 | 0xa5 << 6;
        let plus_y = HeaderUpdate::new(&t, 3);
        let minus_y = HeaderUpdate::new(&t, 4);
        assert_eq!(plus_y.apply(head(1, 2), w), head(1, 1));
        assert_eq!(minus_y.apply(head(1, -1), w), head(1, 0));
        // Tie: +2 leaving by -y has 1 hop left the minus way.
        assert_eq!(minus_y.apply(head(1, 2), w), head(1, -1));
        assert_eq!(plus_y.apply(head(1, -2), w), head(1, 1));
        // Local port and absolute addressing: unchanged.
        assert_eq!(HeaderUpdate::new(&t, 0).apply(head(1, 2), w), head(1, 2));
        let abs = DecoderShape::new(Topology::Torus, 2, 4, Addressing::Absolute, 1, true);
        assert_eq!(HeaderUpdate::new(&abs, 1).apply(0x1234, w), 0x1234);
        // Hypercube: bit d cleared by port d + 1.
        let h = DecoderShape::new(Topology::Hypercube, 3, 2, Addressing::Relative, 1, false);
        assert_eq!(HeaderUpdate::new(&h, 2).apply(0xff07, w), 0xff05);
        // Mesh k = 5, relative: fields of 4 bits.
        let m = DecoderShape::new(Topology::Mesh, 2, 5, Addressing::Relative, 1, false);
        assert_eq!(HeaderUpdate::new(&m, 2).apply(0xfc, w), 0xfd);
    }

    /// A decoder whose table permits, for every key, output VC
    /// (key * 7) mod PV: a table with no structure for the mutation to hide in.
    fn scrambled(shape: DecoderShape) -> AddressDecoder<16> {
        let pv = shape.outputs();
        let rows: Vec<Row> = (0..1u32 << shape.key_bits())
            .filter(|key| (0..shape.dims).all(|d| (key >> (3 * d)) & 7 < 7))
            .map(|key| {
                let k = (key as usize * 7) % pv;
                let mut mask = vec![0u64; pv.div_ceil(64)];
                mask[k / 64] |= 1 << (k % 64);
                Row { key, mask }
            })
            .collect();
        AddressDecoder::new(shape, &rows).unwrap()
    }

    #[test]
    fn candidates_are_the_row_of_the_key_for_valid_head_flits_only() {
        let shape = DecoderShape::new(Topology::Torus, 2, 4, Addressing::Relative, 3, true);
        let mut x = scrambled(shape.clone());
        prepare(&mut x);
        let stim = random_stimulus(&x, "clock", 1500, 9);
        let got = run_model(&mut x, &stim);
        for (c, r) in stim.iter().enumerate() {
            // node_id, in_data, in_valid, in_head
            let key = shape.key(r[1], r[0]);
            let go = r[2] == 1 && r[3] == 1;
            let want: Vec<u64> = (0..shape.outputs())
                .map(|k| {
                    let on = (0..shape.dims).all(|d| (key >> (3 * d)) & 7 < 7)
                        && k == (key as usize * 7) % shape.outputs();
                    u64::from(go && on)
                })
                .collect();
            assert_eq!(got[c], want, "cycle {c}");
        }
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [
            (2, 16, Addressing::Relative),
            (1, 8, Addressing::Absolute),
            (3, 32, Addressing::Absolute),
        ]
        .iter()
        .map(|&(n, w, addressing)| BlockParams {
            dims: n,
            flit_width: w,
            addressing,
            ..BlockParams::default()
        })
        .collect();
        // The mutant breaks the table lookup of one key.
        all_checks(
            BlockKind::AddressDecoder,
            &sets,
            2000,
            ("6'h1: mask", "6'h2: mask"),
        );
    }

    /// Torus and hypercube shapes (which `routergen block` does not emit)
    /// through the same co-simulation, with a faulty copy of the first.
    #[test]
    fn torus_and_hypercube_decoders_cosimulate() {
        use crate::blocks::tool_checks::cosimulate_with_mutant;
        use crate::blocks::{emit, Variant, DECLFILENAME_WAIVER};
        if !crate::flows::require_tool("verilator") {
            return;
        }
        let shapes = [
            DecoderShape::new(Topology::Torus, 2, 4, Addressing::Relative, 3, true),
            DecoderShape::new(Topology::Torus, 2, 5, Addressing::Absolute, 2, true),
            DecoderShape::new(Topology::Torus, 3, 3, Addressing::Relative, 2, false),
            DecoderShape::new(Topology::Hypercube, 3, 2, Addressing::Relative, 2, true),
            DecoderShape::new(Topology::Hypercube, 4, 2, Addressing::Absolute, 2, true),
        ];
        let mut variants = Vec::new();
        for (n, shape) in shapes.into_iter().enumerate() {
            let top = format!("decoder_shape{n}");
            // The waivers `routergen block` writes (payload bits unused).
            let waivers: String = BlockKind::AddressDecoder
                .lint_waivers()
                .iter()
                .map(|(rule, _)| format!("/* verilator lint_off {rule} */\n"))
                .collect();
            let text = waivers
                + DECLFILENAME_WAIVER
                + &emit(scrambled(shape.clone()), &top).expect("written");
            let lint = crate::flows::lint_warnings(&text, &top).expect("the linters run");
            assert!(lint.is_empty(), "{top}: {lint:?}");
            let mut x = scrambled(shape);
            prepare(&mut x);
            variants.push(Variant::new(&mut x, &text, &top, 2000, 0xdec0 + n as u64));
        }
        // The faulty copy confuses "wraps ahead" with "no wrap" going +.
        cosimulate_with_mutant(variants, ("? 3'd2 : 3'd1", "? 3'd1 : 3'd1"));
    }
}
