//! Chien's canonical router blocks (Chien §3, Figure 1) as rust-hdl
//! `LogicBlock`s whose port and VC counts are chosen at run time and whose
//! flit width is one of [`BLOCK_FLIT_WIDTHS`].
//!
//! Each block has a synchronous active-high reset `rst` and a clock
//! `clock`. [`BlockKind`] names the blocks, checks their parameters and
//! emits Verilog whose modules are named after the block and its
//! parameters (`crossbar_p5_w16`, children after the field holding them,
//! `vc_controller_v2_w16_d4_vc`), so several blocks can share one design
//! without name clashes.

pub mod address_decoder;
pub mod arbiter;
pub mod cosim;
pub mod crossbar;
pub mod es_table;
pub mod flow_control;
pub mod header_selector;
pub mod lookahead_mux;
pub mod measure;
pub mod vc_controller;

pub use address_decoder::AddressDecoder;
pub use arbiter::RoutingArbiter;
pub use cosim::{cosimulate_all, ports, prepare, run_model, HwBlock, Variant};
pub use crossbar::Crossbar;
pub use es_table::EconomicalStorageTable;
pub use flow_control::FlowControlUnit;
pub use header_selector::HeaderSelector;
pub use lookahead_mux::LookaheadMux;
pub use vc_controller::VcController;

use rust_hdl::prelude::*;

use crate::error::{Error, Result};
use crate::limits::{BLOCK_FLIT_WIDTHS, MAX_BUFFER_DEPTH, MAX_ECONOMICAL_DIMS, MAX_PORTS, MAX_VCS};
use crate::model::Module;
use crate::spec::{Addressing, BufferStorage, PathSelection};

/// Refuses a block constructor's size parameter outside `lo..=hi`
/// (`hi == usize::MAX`: no upper bound). The message names the block, the
/// parameter, its value and what is allowed, and `why` (may be empty)
/// says where the bound comes from.
pub(crate) fn check_size(
    block: &str,
    param: &str,
    value: usize,
    (lo, hi): (usize, usize),
    why: &str,
) -> Result<()> {
    if (lo..=hi).contains(&value) {
        return Ok(());
    }
    let allowed = if hi == usize::MAX {
        format!("at least {lo}")
    } else {
        format!("{lo} to {hi}")
    };
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(": {why}")
    };
    Err(Error::invalid(format!(
        "the {param} of a {block} must be {allowed}, not {value}{why}"
    )))
}

/// Refuses a flit width `W` (the blocks' type parameter) the models
/// cannot compute with: they hold a flit in a 64-bit word.
pub(crate) fn check_width<const W: usize>(block: &str) -> Result<()> {
    check_size(
        block,
        "flit width W (type parameter, bits)",
        W,
        (1, 64),
        "the models hold a flit in a 64-bit word",
    )
}

/// `n` fresh signals, for the run-time-sized Vec fields of the blocks.
pub fn signals<D: Direction, T: Synth>(n: usize) -> Vec<Signal<D, T>> {
    (0..n).map(|_| Signal::default()).collect()
}

/// The blocks routergen can emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// [`Crossbar`]: P x P switch (Chien §3).
    Crossbar,
    /// [`FlowControlUnit`]: one channel's buffer and link protocol (Chien §3).
    FlowControlUnit,
    /// [`RoutingArbiter`]: matches inputs to outputs (Chien §3, LAPSES §4.1).
    RoutingArbiter,
    /// [`HeaderSelector`]: passes on the chosen updated header (Chien §3).
    HeaderSelector,
    /// [`VcController`]: V virtual channels on one physical channel (Chien §3).
    VcController,
    /// [`AddressDecoder`]: the outputs the routing relation permits (Chien §3-4).
    AddressDecoder,
    /// [`EconomicalStorageTable`]: the 3^n-entry routing table (LAPSES §5.2).
    EconomicalStorageTable,
    /// [`LookaheadMux`]: the next router's routing field (LAPSES §3.2).
    LookaheadMux,
}

/// Every block, in the order the CLI lists them.
pub const BLOCKS: [BlockKind; 8] = [
    BlockKind::Crossbar,
    BlockKind::FlowControlUnit,
    BlockKind::RoutingArbiter,
    BlockKind::HeaderSelector,
    BlockKind::VcController,
    BlockKind::AddressDecoder,
    BlockKind::EconomicalStorageTable,
    BlockKind::LookaheadMux,
];

/// Block parameters; each block reads the ones it uses (see
/// [`BlockKind::uses`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockParams {
    /// Ports P (crossbar inputs and outputs, arbiter inputs and outputs).
    pub ports: usize,
    /// Virtual channels V per physical channel.
    pub vcs: usize,
    /// Routing freedom F (candidate outputs per input).
    pub freedom: usize,
    /// Flit width W in bits.
    pub flit_width: usize,
    /// Network dimensions n.
    pub dims: usize,
    /// Buffer depth D in flits.
    pub depth: usize,
    /// On/off flow control instead of credits.
    pub on_off: bool,
    /// Where the flow-control unit keeps its flits.
    pub buffers: BufferStorage,
    /// Path-selection heuristic of the routing arbiter (LAPSES §4.1).
    pub selection: PathSelection,
    /// Header addressing of the address decoder.
    pub addressing: Addressing,
}

impl Default for BlockParams {
    fn default() -> Self {
        BlockParams {
            ports: 5,
            vcs: 2,
            freedom: 2,
            flit_width: 16,
            dims: 2,
            depth: 4,
            on_off: false,
            buffers: BufferStorage::Flops,
            selection: PathSelection::StaticXy,
            addressing: Addressing::Relative,
        }
    }
}

/// The size parameters a block reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// Ports P.
    Ports,
    /// Virtual channels V.
    Vcs,
    /// Routing freedom F.
    Freedom,
    /// Flit width W in bits.
    FlitWidth,
    /// Network dimensions n.
    Dims,
    /// Buffer depth D in flits.
    Depth,
}

impl Param {
    /// The parameter's name in library messages, as in [`BlockParams`].
    pub fn name(self) -> &'static str {
        match self {
            Param::Ports => "ports",
            Param::Vcs => "vcs",
            Param::Freedom => "freedom",
            Param::FlitWidth => "flit_width",
            Param::Dims => "dims",
            Param::Depth => "depth",
        }
    }

    fn letter(self) -> char {
        match self {
            Param::Ports => 'p',
            Param::Vcs => 'v',
            Param::Freedom => 'f',
            Param::FlitWidth => 'w',
            Param::Dims => 'n',
            Param::Depth => 'd',
        }
    }

    /// The letter Chien uses (P, F, V), else the usual symbol (W, n, D).
    pub fn symbol(self) -> &'static str {
        match self {
            Param::Ports => "P",
            Param::Vcs => "V",
            Param::Freedom => "F",
            Param::FlitWidth => "W",
            Param::Dims => "n",
            Param::Depth => "D",
        }
    }

    /// Sets this parameter of `p` to `v`.
    pub fn set(self, p: &mut BlockParams, v: usize) {
        match self {
            Param::Ports => p.ports = v,
            Param::Vcs => p.vcs = v,
            Param::Freedom => p.freedom = v,
            Param::FlitWidth => p.flit_width = v,
            Param::Dims => p.dims = v,
            Param::Depth => p.depth = v,
        }
    }

    /// This parameter's value in `p`.
    pub fn get(self, p: &BlockParams) -> usize {
        match self {
            Param::Ports => p.ports,
            Param::Vcs => p.vcs,
            Param::Freedom => p.freedom,
            Param::FlitWidth => p.flit_width,
            Param::Dims => p.dims,
            Param::Depth => p.depth,
        }
    }

    /// Allowed range (inclusive).
    fn range(self) -> (usize, usize) {
        match self {
            Param::Ports => (2, MAX_PORTS as usize),
            Param::Vcs => (1, MAX_VCS as usize),
            Param::Freedom => (1, 8),
            Param::FlitWidth => (8, 64),
            Param::Dims => (1, MAX_ECONOMICAL_DIMS as usize),
            Param::Depth => (1, MAX_BUFFER_DEPTH as usize),
        }
    }
}

impl BlockKind {
    /// The block's name, as `routergen block` takes it and as its module
    /// names start.
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Crossbar => "crossbar",
            BlockKind::FlowControlUnit => "flow_control_unit",
            BlockKind::RoutingArbiter => "routing_arbiter",
            BlockKind::HeaderSelector => "header_selector",
            BlockKind::VcController => "vc_controller",
            BlockKind::AddressDecoder => "address_decoder",
            BlockKind::EconomicalStorageTable => "economical_storage_table",
            BlockKind::LookaheadMux => "lookahead_mux",
        }
    }

    /// The block called `name` (case, `-` and `_` ignored), or an error
    /// listing the blocks.
    pub fn from_name(name: &str) -> Result<BlockKind> {
        let key = name.to_ascii_lowercase().replace(['-', '_'], "");
        BLOCKS
            .iter()
            .copied()
            .find(|b| b.name().replace('_', "") == key)
            .ok_or_else(|| {
                let names: Vec<&str> = BLOCKS.iter().map(|b| b.name()).collect();
                Error::InvalidSpec(format!(
                    "block '{name}' is not one routergen can emit; the blocks are: {}",
                    names.join(", ")
                ))
            })
    }

    /// The parameters this block reads, in the order they appear in its name.
    pub fn uses(self) -> &'static [Param] {
        match self {
            BlockKind::Crossbar => &[Param::Ports, Param::FlitWidth],
            BlockKind::FlowControlUnit => &[Param::FlitWidth, Param::Depth],
            BlockKind::RoutingArbiter => &[Param::Ports, Param::Freedom],
            BlockKind::HeaderSelector => &[Param::Freedom, Param::FlitWidth],
            BlockKind::VcController => &[Param::Vcs, Param::FlitWidth, Param::Depth],
            BlockKind::AddressDecoder => &[Param::Dims, Param::FlitWidth],
            BlockKind::EconomicalStorageTable => &[Param::Dims, Param::FlitWidth],
            BlockKind::LookaheadMux => &[Param::Ports, Param::Freedom, Param::FlitWidth],
        }
    }

    /// The module of Chien's model this block implements, if any, and the
    /// parameter Figure 4 scales it by.
    pub fn chien_module(self) -> Option<(Module, Option<Param>)> {
        match self {
            BlockKind::Crossbar => Some((Module::Crossbar, Some(Param::Ports))),
            BlockKind::FlowControlUnit => Some((Module::FlowControlUnit, None)),
            BlockKind::RoutingArbiter => Some((Module::RoutingArbiter, Some(Param::Freedom))),
            BlockKind::HeaderSelector => Some((Module::HeaderSelector, Some(Param::Freedom))),
            BlockKind::VcController => Some((Module::VcController, Some(Param::Vcs))),
            BlockKind::AddressDecoder => Some((Module::AddressDecoder, None)),
            BlockKind::EconomicalStorageTable | BlockKind::LookaheadMux => None,
        }
    }

    /// The parameter `--sweep` varies: the one Chien's Figure 4 scales the
    /// module by, else the block's main size parameter.
    pub fn sweep_param(self) -> Option<Param> {
        match self.chien_module() {
            Some((_, Some(p))) => Some(p),
            _ => None,
        }
    }

    /// The values `--sweep` measures.
    pub fn sweep_values(self) -> Vec<usize> {
        match self.sweep_param() {
            Some(Param::Ports) => vec![2, 3, 4, 5, 6, 8, 12, 16],
            Some(Param::Freedom) => vec![1, 2, 3, 4, 6, 8],
            Some(Param::Vcs) => vec![1, 2, 3, 4, 6, 8, 12, 16],
            _ => Vec::new(),
        }
    }

    /// Checks `params` for this block: a one-paragraph message naming the
    /// bad parameter ([`Param::name`]), its value and what is allowed.
    pub fn check(self, params: &BlockParams) -> Result<()> {
        for &p in self.uses() {
            let v = p.get(params);
            if p == Param::FlitWidth {
                if !BLOCK_FLIT_WIDTHS.iter().any(|&w| w as usize == v) {
                    let allowed: Vec<String> =
                        BLOCK_FLIT_WIDTHS.iter().map(u32::to_string).collect();
                    return Err(Error::InvalidSpec(format!(
                        "{} = {v} is not supported by the {} block; allowed: {} bits",
                        p.name(),
                        self.name(),
                        allowed.join(", ")
                    )));
                }
                continue;
            }
            let (lo, hi) = p.range();
            if v < lo || v > hi {
                return Err(Error::InvalidSpec(format!(
                    "{} = {v} is out of range for the {} block: allowed {lo} to {hi}",
                    p.name(),
                    self.name()
                )));
            }
        }
        if matches!(
            self,
            BlockKind::AddressDecoder | BlockKind::EconomicalStorageTable
        ) && params.dims * address_decoder::FIELD_BITS > params.flit_width
        {
            return Err(Error::InvalidSpec(format!(
                "dims = {} does not fit flit_width = {}: the {} reads a \
                 {}-bit field per dimension of the head flit, so at most {} dimensions",
                params.dims,
                params.flit_width,
                self.name().replace('_', " "),
                address_decoder::FIELD_BITS,
                params.flit_width / address_decoder::FIELD_BITS
            )));
        }
        if self == BlockKind::VcController
            && params.on_off
            && params.depth < crate::spec::ON_OFF_ROUND_TRIP as usize
        {
            return Err(Error::InvalidSpec(format!(
                "on/off flow control needs a depth of {} or more for the vc controller block \
                 (got depth = {}): its levels are high while {} slots are free, for senders \
                 that obey a level a cycle late",
                crate::spec::ON_OFF_ROUND_TRIP,
                params.depth,
                crate::spec::ON_OFF_ROUND_TRIP
            )));
        }
        if self == BlockKind::LookaheadMux && params.ports > params.flit_width {
            return Err(Error::InvalidSpec(format!(
                "ports = {} does not fit flit_width = {}: the look-ahead field of the head \
                 flit holds one bit per output, so at most {} ports",
                params.ports, params.flit_width, params.flit_width
            )));
        }
        if self == BlockKind::RoutingArbiter && params.freedom > params.ports {
            return Err(Error::InvalidSpec(format!(
                "freedom = {} is larger than ports = {}: an input cannot have more \
                 candidate outputs than there are outputs",
                params.freedom, params.ports
            )));
        }
        Ok(())
    }

    /// The top module name: the block and its parameters, e.g. `crossbar_p5_w16`.
    pub fn module_name(self, params: &BlockParams) -> String {
        let mut s = self.name().to_string();
        for &p in self.uses() {
            s.push('_');
            s.push(p.letter());
            s.push_str(&p.get(params).to_string());
        }
        if matches!(self, BlockKind::FlowControlUnit | BlockKind::VcController) && params.on_off {
            s.push_str("_onoff");
        }
        if self == BlockKind::FlowControlUnit {
            s.push_str(params.buffers.suffix());
        }
        if self == BlockKind::AddressDecoder {
            s.push_str(match params.addressing {
                Addressing::Relative => "_rel",
                Addressing::Absolute => "_abs",
            });
        }
        if self == BlockKind::RoutingArbiter {
            s.push('_');
            s.push_str(&params.selection.to_string().replace('-', ""));
        }
        s
    }

    /// The Verilog of this block with `params`, top module
    /// [`module_name`](Self::module_name).
    pub fn verilog(self, params: &BlockParams) -> Result<String> {
        self.check(params)?;
        let name = self.module_name(params);
        let raw = with_block!(self, params, |b| emit(b, &name))?;
        let mut text = String::new();
        for (rule, reason) in self.lint_waivers() {
            text.push_str(&format!(
                "// Waiver {rule}: {reason}\n/* verilator lint_off {rule} */\n"
            ));
        }
        text.push_str(DECLFILENAME_WAIVER);
        text.push_str(&raw);
        Ok(text)
    }

    /// Verilator warnings waived for this block, each with its reason.
    pub fn lint_waivers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            BlockKind::VcController => &[
                (
                    "UNOPTFLAT",
                    "the controller's always block reads each VC unit's send_ok and \
                 out_valid and drives its send_req and out_ready; those outputs come \
                 from the units' registers, so no bit depends on itself: Verilator \
                 sees a loop only at the granularity of whole always blocks",
                ),
                (
                    "UNUSEDSIGNAL",
                    "each VC unit shows the flit after its oldest one (after_head, \
                     after_data), the one after that (third_data) and where the next \
                     ones come from (front_takes_*, after_takes_*) for a router that \
                     routes them; the controller only sends its VCs' flits in order \
                     and reads none of them",
                ),
            ],
            BlockKind::FlowControlUnit => &[(
                "UNUSEDSIGNAL",
                "the unit's queue shows the slot of the oldest flit now and after the \
                 clock edge and the slots of the two flits after it; each kind of store \
                 reads those it needs (flip-flops the slots now, block RAM the slot after \
                 the edge, distributed RAM the oldest flit's slot now, the routing fields \
                 beside a RAM the slots after the edge and after the oldest) and leaves \
                 the others unread",
            )],
            BlockKind::RoutingArbiter => &[(
                "UNUSEDSIGNAL",
                "out_credits is read only under MAX-CREDIT and out_mux only under \
                 MIN-MUX; the arbiter keeps both ports whatever its heuristic",
            )],
            BlockKind::AddressDecoder => &[(
                "UNUSEDSIGNAL",
                "the decoder reads only the address fields of the head flit and of \
                 node_id; the payload bits pass it by",
            )],
            _ => &[],
        }
    }

    /// The rust-hdl model of this block run on `cycles` cycles of random
    /// stimulus from `seed`, with the emitted Verilog to compare it with
    /// (see [`cosim::cosimulate_all`]).
    pub fn cosim_variant(
        self,
        params: &BlockParams,
        cycles: usize,
        seed: u64,
    ) -> Result<cosim::Variant> {
        let verilog = self.verilog(params)?;
        let top = self.module_name(params);
        Ok(with_block!(self, params, |b| {
            let mut b = b;
            prepare(&mut b);
            cosim::Variant::new(&mut b, &verilog, &top, cycles, seed)
        }))
    }
}

/// Builds the typed block for `kind` and `params` (flit width chosen from
/// the supported set) and evaluates `body` with it bound to the closure's
/// argument.
macro_rules! with_block {
    ($kind:expr, $params:expr, |$b:ident| $body:expr) => {{
        let params: &BlockParams = $params;
        match ($kind, params.flit_width) {
            (BlockKind::Crossbar, 8) => {
                let $b = Crossbar::<8>::new(params.ports)?;
                $body
            }
            (BlockKind::Crossbar, 16) => {
                let $b = Crossbar::<16>::new(params.ports)?;
                $body
            }
            (BlockKind::Crossbar, 32) => {
                let $b = Crossbar::<32>::new(params.ports)?;
                $body
            }
            (BlockKind::Crossbar, _) => {
                let $b = Crossbar::<64>::new(params.ports)?;
                $body
            }
            (BlockKind::FlowControlUnit, 8) => {
                let $b = FlowControlUnit::<8>::new(params.depth, params.on_off)?
                    .stored_in(params.buffers);
                $body
            }
            (BlockKind::FlowControlUnit, 16) => {
                let $b = FlowControlUnit::<16>::new(params.depth, params.on_off)?
                    .stored_in(params.buffers);
                $body
            }
            (BlockKind::FlowControlUnit, 32) => {
                let $b = FlowControlUnit::<32>::new(params.depth, params.on_off)?
                    .stored_in(params.buffers);
                $body
            }
            (BlockKind::RoutingArbiter, _) => {
                let $b = RoutingArbiter::new(params.ports, params.freedom, params.selection)?;
                $body
            }
            (BlockKind::HeaderSelector, 8) => {
                let $b = HeaderSelector::<8>::new(params.freedom)?;
                $body
            }
            (BlockKind::HeaderSelector, 16) => {
                let $b = HeaderSelector::<16>::new(params.freedom)?;
                $body
            }
            (BlockKind::HeaderSelector, 32) => {
                let $b = HeaderSelector::<32>::new(params.freedom)?;
                $body
            }
            (BlockKind::HeaderSelector, _) => {
                let $b = HeaderSelector::<64>::new(params.freedom)?;
                $body
            }
            (BlockKind::VcController, 8) => {
                let $b =
                    VcController::<8>::with_flow_control(params.vcs, params.depth, params.on_off)?;
                $body
            }
            (BlockKind::VcController, 16) => {
                let $b =
                    VcController::<16>::with_flow_control(params.vcs, params.depth, params.on_off)?;
                $body
            }
            (BlockKind::VcController, 32) => {
                let $b =
                    VcController::<32>::with_flow_control(params.vcs, params.depth, params.on_off)?;
                $body
            }
            (BlockKind::VcController, _) => {
                let $b =
                    VcController::<64>::with_flow_control(params.vcs, params.depth, params.on_off)?;
                $body
            }
            (BlockKind::AddressDecoder, 8) => {
                let $b = AddressDecoder::<8>::dimension_order(params.dims, params.addressing)?;
                $body
            }
            (BlockKind::AddressDecoder, 16) => {
                let $b = AddressDecoder::<16>::dimension_order(params.dims, params.addressing)?;
                $body
            }
            (BlockKind::AddressDecoder, 32) => {
                let $b = AddressDecoder::<32>::dimension_order(params.dims, params.addressing)?;
                $body
            }
            (BlockKind::AddressDecoder, _) => {
                let $b = AddressDecoder::<64>::dimension_order(params.dims, params.addressing)?;
                $body
            }
            (BlockKind::EconomicalStorageTable, 8) => {
                let $b = EconomicalStorageTable::<8>::new(
                    params.dims,
                    &es_table::entries_from_masks(&address_decoder::dimension_order_table(
                        params.dims,
                    )),
                )?;
                $body
            }
            (BlockKind::EconomicalStorageTable, 16) => {
                let $b = EconomicalStorageTable::<16>::new(
                    params.dims,
                    &es_table::entries_from_masks(&address_decoder::dimension_order_table(
                        params.dims,
                    )),
                )?;
                $body
            }
            (BlockKind::EconomicalStorageTable, 32) => {
                let $b = EconomicalStorageTable::<32>::new(
                    params.dims,
                    &es_table::entries_from_masks(&address_decoder::dimension_order_table(
                        params.dims,
                    )),
                )?;
                $body
            }
            (BlockKind::EconomicalStorageTable, _) => {
                let $b = EconomicalStorageTable::<64>::new(
                    params.dims,
                    &es_table::entries_from_masks(&address_decoder::dimension_order_table(
                        params.dims,
                    )),
                )?;
                $body
            }
            (BlockKind::LookaheadMux, 8) => {
                let $b = LookaheadMux::<8>::new(params.ports, params.freedom)?;
                $body
            }
            (BlockKind::LookaheadMux, 16) => {
                let $b = LookaheadMux::<16>::new(params.ports, params.freedom)?;
                $body
            }
            (BlockKind::LookaheadMux, 32) => {
                let $b = LookaheadMux::<32>::new(params.ports, params.freedom)?;
                $body
            }
            (BlockKind::LookaheadMux, _) => {
                let $b = LookaheadMux::<64>::new(params.ports, params.freedom)?;
                $body
            }
            (BlockKind::FlowControlUnit, _) => {
                let $b = FlowControlUnit::<64>::new(params.depth, params.on_off)?
                    .stored_in(params.buffers);
                $body
            }
        }
    }};
}
use with_block;

/// Verilog of a block with top module `name`, as [`crate::hdl::write`]
/// writes it (each module body once, flip-flops inline, no `$`).
pub fn emit<B: HwBlock>(mut block: B, name: &str) -> Result<String> {
    prepare(&mut block);
    Ok(crate::hdl::write(&block, name, &[])?.text)
}

/// Verilator's DECLFILENAME waived, with the reason written beside it.
pub const DECLFILENAME_WAIVER: &str = "\
// Waiver: `routergen block` writes this file as DIR/<block>.v while the modules are named \
after the block and its parameters, and the child modules share the file so that one block \
is one file.
/* verilator lint_off DECLFILENAME */
";

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Renames the top module `top` of rust-hdl's `generate_verilog` to `name`
/// and its children `top$x` to `name$x` (signal names are left alone), and
/// waives Verilator's DECLFILENAME.
pub fn rename_top(verilog: &str, name: &str) -> String {
    format!("{DECLFILENAME_WAIVER}{}", rename_idents(verilog, name))
}

fn rename_idents(verilog: &str, name: &str) -> String {
    let mut out = String::with_capacity(verilog.len() + 64);
    let chars: Vec<char> = verilog.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let at_word = i == 0 || !is_ident_char(chars[i - 1]);
        if at_word && chars[i..].starts_with(&['t', 'o', 'p']) {
            let next = chars.get(i + 3).copied();
            let line_start = verilog_line_start(&chars, i);
            let is_module_ref = match next {
                Some('$') => true,
                Some('(') | None | Some('\n') | Some(' ') => {
                    line_start.starts_with("module top")
                        || line_start.starts_with("endmodule // top")
                }
                _ => false,
            };
            if is_module_ref {
                out.push_str(name);
                i += 3;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The trimmed text of the line holding position `i`.
fn verilog_line_start(chars: &[char], i: usize) -> String {
    let mut s = i;
    while s > 0 && chars[s - 1] != '\n' {
        s -= 1;
    }
    let mut e = i;
    while e < chars.len() && chars[e] != '\n' {
        e += 1;
    }
    chars[s..e].iter().collect::<String>().trim().to_string()
}

#[cfg(test)]
pub(crate) mod tool_checks {
    use super::*;
    use crate::flows::{lint_warnings, require_tool, yosys};

    /// Every tool check of the issue on `kind` with each parameter set:
    /// Verilator -Wall lint clean, iverilog -Wall clean, Yosys synth and
    /// synth_ice40 succeed with the ports kept, and co-simulation agrees
    /// for `cycles` cycles. `mutation` (text to replace, replacement) makes a
    /// faulty copy of the first set's Verilog, which the same co-simulation
    /// must catch: the comparison is shown able to fail.
    pub fn all_checks(
        kind: BlockKind,
        sets: &[BlockParams],
        cycles: usize,
        mutation: (&str, &str),
    ) {
        if !require_tool("verilator") || !require_tool("iverilog") || !require_tool("yosys") {
            return;
        }
        let mut variants = Vec::new();
        let t0 = std::time::Instant::now();
        for (n, params) in sets.iter().enumerate() {
            let top = kind.module_name(params);
            eprintln!("{top}: start {:?}", t0.elapsed());
            let v = kind.verilog(params).expect("valid parameters");
            let lint = lint_warnings(&v, &top).expect("the linters run");
            assert!(lint.is_empty(), "{top}:\n{}", lint.join("\n"));
            eprintln!("{top}: lint+iverilog {:?}", t0.elapsed());
            // Yosys is the slow part: synthesize the first parameter set.
            if n == 0 {
                let generic = yosys::synth(&v, &top).expect("yosys synth");
                assert!(generic.total() > 0, "{top}: yosys synth left no cells");
                // Distributed RAM has no iCE40 mapping (Yosys refuses it):
                // the ECP5's instead.
                let fpga = if params.buffers == BufferStorage::Lutram {
                    yosys::synth_ecp5(&v, &top)
                } else {
                    yosys::synth_ice40(&v, &top)
                };
                let fpga = fpga.expect("yosys synth_ice40 or synth_ecp5");
                assert!(fpga.total() > 0, "{top}: FPGA synthesis left no cells");
            }
            eprintln!("{top}: yosys {:?}", t0.elapsed());
            let seed = 0x5eed_0000 + n as u64;
            variants.push(
                kind.cosim_variant(params, cycles, seed)
                    .expect("model runs"),
            );
        }
        eprintln!("models {:?}", t0.elapsed());
        let t1 = std::time::Instant::now();
        // One Verilator build for all parameter sets and the mutant.
        cosimulate_with_mutant(variants, mutation);
        eprintln!("verilator co-simulation {:?}", t1.elapsed());
    }

    /// Co-simulates `variants` plus a faulty copy of the first, made by
    /// replacing `mutation.0` with `mutation.1` once, in one Verilator
    /// build: every good variant must agree with its model and the faulty
    /// copy must be caught (the comparison is shown able to fail).
    pub fn cosimulate_with_mutant(mut variants: Vec<cosim::Variant>, mutation: (&str, &str)) {
        let mut mutant = variants[0].clone();
        let faulty = mutant.verilog.replacen(mutation.0, mutation.1, 1);
        assert_ne!(
            faulty, mutant.verilog,
            "the mutation must change the Verilog"
        );
        let name = format!("{}_mutant", mutant.top);
        mutant.verilog = faulty.replace(&mutant.top, &name);
        mutant.top = name.clone();
        variants.push(mutant);
        match cosimulate_all(&variants).expect("co-simulation runs") {
            Some((top, _)) if top == name => {}
            Some((top, m)) => panic!("{top}: co-simulation differs from the rust-hdl model: {m}"),
            None => panic!("co-simulation missed the mutant {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_top_renames_modules_and_instances_only() {
        let v = "module top(a,stop$x);\n    top$held$0 held$0(.q(top_q));\nendmodule // top\n\nmodule top$held$0(q);\nendmodule // top$held$0\n";
        let r = rename_top(v, "blk_p2");
        assert!(r.contains("module blk_p2(a,stop$x);"));
        assert!(r.contains("    blk_p2$held$0 held$0(.q(top_q));"));
        assert!(r.contains("endmodule // blk_p2\n"));
        assert!(r.contains("module blk_p2$held$0(q);"));
        assert!(!r.contains("module top"));
    }

    #[test]
    fn block_names_parse_in_any_spelling_and_list_the_blocks_otherwise() {
        assert_eq!(
            BlockKind::from_name("Vc-Controller").unwrap(),
            BlockKind::VcController
        );
        assert_eq!(
            BlockKind::from_name("lookahead_mux").unwrap(),
            BlockKind::LookaheadMux
        );
        let err = BlockKind::from_name("switch").unwrap_err().to_string();
        assert!(
            err.contains("'switch'") && err.contains("economical_storage_table"),
            "{err}"
        );
    }

    #[test]
    fn module_names_carry_the_parameters() {
        let p = BlockParams::default();
        assert_eq!(BlockKind::Crossbar.module_name(&p), "crossbar_p5_w16");
        let q = BlockParams {
            selection: PathSelection::MaxCredit,
            ..p
        };
        assert_eq!(
            BlockKind::RoutingArbiter.module_name(&q),
            "routing_arbiter_p5_f2_maxcredit"
        );
        let r = BlockParams { on_off: true, ..p };
        assert_eq!(
            BlockKind::FlowControlUnit.module_name(&r),
            "flow_control_unit_w16_d4_onoff"
        );
    }
}

#[cfg(test)]
mod largest {
    use super::*;
    use crate::flows::{lint_warnings, require_tool};

    /// The largest parameters each block accepts lint clean too (constant
    /// comparisons, for one, only show at the edges of the ranges).
    #[test]
    fn every_block_at_its_largest_parameters_lints_clean() {
        if !require_tool("verilator") || !require_tool("iverilog") {
            return;
        }
        let big = BlockParams {
            ports: 16,
            vcs: 16,
            freedom: 8,
            flit_width: 64,
            dims: 4,
            depth: 16,
            on_off: true,
            buffers: BufferStorage::Bram,
            selection: PathSelection::Lfu,
            addressing: Addressing::Absolute,
        };
        for kind in BLOCKS {
            let mut p = big;
            if kind == BlockKind::AddressDecoder || kind == BlockKind::EconomicalStorageTable {
                p.flit_width = 16; // 4 dimensions fill a 16-bit head flit
            }
            if kind == BlockKind::RoutingArbiter {
                p.freedom = 2; // P = 16 is the edge; F = 8 only adds time
            }
            let t = std::time::Instant::now();
            let top = kind.module_name(&p);
            let v = kind.verilog(&p).expect("largest parameters are valid");
            eprintln!("{top}: emitted in {:?}", t.elapsed());
            let lint = lint_warnings(&v, &top).expect("the linters run");
            assert!(lint.is_empty(), "{top}:\n{}", lint.join("\n"));
        }
    }
}
