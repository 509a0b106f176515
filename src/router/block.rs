//! The router as one rust-hdl block: its external ports (docs/interface.md)
//! and one of the organizations of [`Organization`] behind them.

use rust_hdl::prelude::*;

use super::organization::Organization;
use super::sliced::DimensionSlices;
use super::tables::{self, CompiledTable};
use super::unified::Unified;
use super::{planes::PlaneSlices, vcports::VcPorts};
use super::{ClassId, EsAddr, VcId};
use crate::blocks::cosim::{each, InputSignal};
use crate::blocks::{signals, HwBlock};
use crate::error::{Error, Result};
use crate::spec::{Algorithm, FlowControl, RouterDatapath, RouterSpec};

/// A whole router (see the module documentation of [`crate::router`]).
///
/// Ports (P physical ports, V VCs, k = p * V + v): `node_id` (W),
/// `in_data$p` (W), `in_valid$p`, `in_head$p`, `in_tail$p`, `in_vc$p` (4),
/// `out_credit$k` in; `in_credit$k`, `out_data$p` (W), `out_valid$p`,
/// `out_head$p`, `out_tail$p`, `out_vc$p` (4) out.
#[derive(LogicBlock)]
pub struct Router<const W: usize> {
    /// The clock; every flip-flop changes on its rising edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empty buffers, D credits, tables reloaded.
    pub rst: Signal<In, Bit>,
    /// The router's coordinates (docs/interface.md), read where the
    /// decoders' key needs them.
    pub node_id: Signal<In, Bits<W>>,
    /// Per input port: the flit arriving.
    pub in_data: Vec<Signal<In, Bits<W>>>,
    /// Per input port: a flit arrives this cycle.
    pub in_valid: Vec<Signal<In, Bit>>,
    /// Per input port: the arriving flit is a head flit.
    pub in_head: Vec<Signal<In, Bit>>,
    /// Per input port: the arriving flit is a tail flit.
    pub in_tail: Vec<Signal<In, Bit>>,
    /// Per input port: the VC of the arriving flit.
    pub in_vc: Vec<Signal<In, VcId>>,
    /// Per output VC k = o V + v: a credit pulse (or the on/off level)
    /// from the downstream buffer.
    pub out_credit: Vec<Signal<In, Bit>>,
    /// Per input VC i = q V + c: a credit pulse (or the on/off level)
    /// for the upstream sender.
    pub in_credit: Vec<Signal<Out, Bit>>,
    /// Per output port: the flit leaving.
    pub out_data: Vec<Signal<Out, Bits<W>>>,
    /// Per output port: a flit leaves this cycle.
    pub out_valid: Vec<Signal<Out, Bit>>,
    /// Per output port: the leaving flit is a head flit.
    pub out_head: Vec<Signal<Out, Bit>>,
    /// Per output port: the leaving flit is a tail flit.
    pub out_tail: Vec<Signal<Out, Bit>>,
    /// Per output port: the VC of the leaving flit.
    pub out_vc: Vec<Signal<Out, VcId>>,
    /// Economical-storage table programming (docs/interface.md): write
    /// entry `cfg_addr` with ports `cfg_mask` (P bits with a table, none
    /// without) and VC class `cfg_class`. Unused without a table.
    pub cfg_we: Signal<In, Bit>,
    /// The table entry `cfg_we` writes.
    pub cfg_addr: Signal<In, EsAddr>,
    /// The ports the written entry permits, one bit per port.
    pub cfg_mask: Vec<Signal<In, Bit>>,
    /// The VC class the written entry permits.
    pub cfg_class: Signal<In, ClassId>,
    /// The blocks behind the ports and their glue.
    org: Organization<W>,
    _p: usize,
    _v: usize,
    _onoff: bool,
    _table: CompiledTable,
}

/// The router's ports, borrowed apart from its organization so that the
/// organization's glue can read the inputs and drive the outputs.
pub(super) struct Io<'a, const W: usize> {
    pub clock: &'a Signal<In, Clock>,
    pub rst: &'a Signal<In, Bit>,
    pub node_id: &'a Signal<In, Bits<W>>,
    pub in_data: &'a [Signal<In, Bits<W>>],
    pub in_valid: &'a [Signal<In, Bit>],
    pub in_head: &'a [Signal<In, Bit>],
    pub in_tail: &'a [Signal<In, Bit>],
    pub in_vc: &'a [Signal<In, VcId>],
    pub out_credit: &'a [Signal<In, Bit>],
    pub in_credit: &'a mut [Signal<Out, Bit>],
    pub out_data: &'a mut [Signal<Out, Bits<W>>],
    pub out_valid: &'a mut [Signal<Out, Bit>],
    pub out_head: &'a mut [Signal<Out, Bit>],
    pub out_tail: &'a mut [Signal<Out, Bit>],
    pub out_vc: &'a mut [Signal<Out, VcId>],
    pub cfg_we: &'a Signal<In, Bit>,
    pub cfg_addr: &'a Signal<In, EsAddr>,
    pub cfg_mask: &'a [Signal<In, Bit>],
    pub cfg_class: &'a Signal<In, ClassId>,
}

impl<const W: usize> Router<W> {
    /// The router of `spec`, or why it cannot be built yet (a spec the
    /// router does not support is named as such before its width is
    /// compared with `W`).
    pub fn new(spec: &RouterSpec) -> Result<Self> {
        Self::with_table(spec, super::compile(spec)?)
    }

    /// The router of `spec` with its relation already compiled.
    pub fn with_table(spec: &RouterSpec, table: CompiledTable) -> Result<Self> {
        Self::check_width(spec)?;
        let (p, v) = (table.ports(), table.vcs());
        let org = match spec.datapath {
            RouterDatapath::Unified => Organization::Unified(Box::new(Unified::new(spec, &table)?)),
            RouterDatapath::Sliced if spec.algorithm == Algorithm::PlanarAdaptive => {
                Organization::PlaneSlices(PlaneSlices::new(spec, &table)?)
            }
            RouterDatapath::Sliced => {
                Organization::DimensionSlices(DimensionSlices::new(spec, &table)?)
            }
            RouterDatapath::VcPorts => Organization::VcPorts(VcPorts::new(spec, &table)?),
        };
        let has_table = matches!(&org, Organization::Unified(_)) && table.es.is_some();
        Ok(Router {
            clock: Signal::default(),
            rst: Signal::default(),
            node_id: Signal::default(),
            in_data: signals(p),
            in_valid: signals(p),
            in_head: signals(p),
            in_tail: signals(p),
            in_vc: signals(p),
            out_credit: signals(p * v),
            in_credit: signals(p * v),
            out_data: signals(p),
            out_valid: signals(p),
            out_head: signals(p),
            out_tail: signals(p),
            out_vc: signals(p),
            cfg_we: Signal::default(),
            cfg_addr: Signal::default(),
            cfg_mask: signals(if has_table { p } else { 0 }),
            cfg_class: Signal::default(),
            org,
            _p: p,
            _v: v,
            _onoff: spec.flow_control == FlowControl::OnOff,
            _table: table,
        })
    }

    /// The spec's flit width must be the type parameter's: a `Router<32>`
    /// of a 16-bit spec would drive 32-bit ports with 16-bit flits.
    fn check_width(spec: &RouterSpec) -> Result<()> {
        if spec.flit_width as usize == W {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "the router's type parameter and its spec disagree on the flit width: \
             Router::<{W}> (W = {W}) built from a spec of flit_width {} (use \
             Router::<{}>, or a spec of flit_width {W})",
            spec.flit_width, spec.flit_width
        )))
    }

    /// Physical ports P.
    pub fn ports(&self) -> usize {
        self._p
    }

    /// Virtual channels per physical channel V.
    pub fn vcs(&self) -> usize {
        self._v
    }

    /// The relation compiled for this router.
    pub fn table(&self) -> &CompiledTable {
        &self._table
    }

    /// How the router is organized: one crossbar, or slices of routers.
    pub fn organization(&self) -> &Organization<W> {
        &self.org
    }

    /// The routing table's contents (unified routers with a table).
    fn es(&self) -> Option<&tables::EsContents> {
        match &self.org {
            Organization::Unified(u) => u.es(),
            _ => None,
        }
    }

    /// The ports apart from the organization.
    fn split(&mut self) -> (Io<'_, W>, &mut Organization<W>) {
        let Router {
            clock,
            rst,
            node_id,
            in_data,
            in_valid,
            in_head,
            in_tail,
            in_vc,
            out_credit,
            in_credit,
            out_data,
            out_valid,
            out_head,
            out_tail,
            out_vc,
            cfg_we,
            cfg_addr,
            cfg_mask,
            cfg_class,
            org,
            ..
        } = self;
        let io = Io {
            clock,
            rst,
            node_id,
            in_data,
            in_valid,
            in_head,
            in_tail,
            in_vc,
            out_credit,
            in_credit,
            out_data,
            out_valid,
            out_head,
            out_tail,
            out_vc,
            cfg_we,
            cfg_addr,
            cfg_mask,
            cfg_class,
        };
        (io, org)
    }
}

impl<const W: usize> Logic for Router<W> {
    fn update(&mut self) {
        let (mut io, org) = self.split();
        org.glue(&mut io);
    }

    fn connect(&mut self) {
        if let Organization::Unified(u) = &mut self.org {
            u.connect_ports();
        }
        for s in self.in_credit.iter_mut() {
            s.connect();
        }
        for q in 0..self._p {
            self.out_data[q].connect();
            self.out_valid[q].connect();
            self.out_head[q].connect();
            self.out_tail[q].connect();
            self.out_vc[q].connect();
        }
    }

    fn hdl(&self) -> Verilog {
        self.org.glue_verilog()
    }
}

impl<const W: usize> HwBlock for Router<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        f(&mut self.node_id);
        each(&mut self.in_data, f);
        each(&mut self.in_valid, f);
        each(&mut self.in_head, f);
        each(&mut self.in_tail, f);
        each(&mut self.in_vc, f);
        each(&mut self.out_credit, f);
        f(&mut self.cfg_we);
        f(&mut self.cfg_addr);
        each(&mut self.cfg_mask, f);
        f(&mut self.cfg_class);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        if name == "cfg_we" {
            // Rare writes: routes change now and then, packets still flow.
            Some(0.05)
        } else if name.starts_with("in_valid") {
            Some(0.5)
        } else if self._onoff && name.starts_with("out_credit") {
            // Downstream levels: mostly on, so that flits flow.
            Some(0.7)
        } else if ["in_head", "in_tail", "out_credit"]
            .iter()
            .any(|x| name.starts_with(x))
        {
            Some(0.3)
        } else {
            None
        }
    }
    fn value_limit(&self, name: &str) -> Option<u64> {
        if name.starts_with("in_vc") {
            Some(self._v as u64)
        } else if name == "cfg_addr" {
            // Mostly real entries, sometimes one past the table (where the
            // top module's cfg_addr can name one).
            Some(
                self.es()
                    .map_or(1, |t| (t.entries.len() as u64 + 1).min(1 << t.addr_bits())),
            )
        } else if name == "node_id" {
            // Full and meta tables load their node's contents at reset:
            // node ids of real nodes, mostly (radix 2^m: all of them).
            self.es()
                .filter(|t| !t.by_node.is_empty())
                .map(|t| 1 << (t.dims * t.coord_bits))
        } else if name == "cfg_class" {
            // The top module's cfg_class is this wide.
            Some(self.es().map_or(1, |t| 1 << t.class_bits()))
        } else {
            None
        }
    }
}
