//! Router tests. The oracles are the routing relation (`Relation::permits`),
//! the interface document's port numbering, header rule and flow-control
//! rules (written here from docs/interface.md), and the Verilog tools; none
//! is computed by the router code.
//!
//! By topic: [`oracle`] (node_id and head flits encoded from the document,
//! once for all), [`scoreboard`] (the harness) and [`routing`] (it on every
//! algorithm and topology), [`timing`], [`tables`] (routing tables),
//! [`interface`] (ports, refusals, the matrix), [`lint`], [`cosim`],
//! [`network`] (`routergen sim`), [`writer`] (the Verilog writer's code printer).

use std::collections::{HashMap, VecDeque};

use super::*;
use crate::algo::{Dir, Input, NodeId, Port};
use crate::blocks::cosim::SplitMix64;
use crate::sim::network::port_of;
use crate::spec::{Addressing, Algorithm, PathSelection, SpecInput};

/// A resolved spec: `algorithm` on a k-ary n-dimensional `topology`, V
/// VCs, 16-bit flits, relative addressing, the default path selection.
pub(crate) fn spec_on(
    algorithm: Algorithm,
    topology: Topology,
    dims: u32,
    radix: u32,
    vcs: u32,
) -> RouterSpec {
    SpecInput {
        topology: Some(topology),
        dims: Some(dims as i64),
        algorithm: Some(algorithm),
        radix: Some(radix as i64),
        vcs: Some(vcs as i64),
        flit_width: Some(16),
        ..SpecInput::default()
    }
    .resolve()
    .expect("valid spec")
    .spec
}

/// `algorithm` on a k x k mesh.
pub(crate) fn spec(algorithm: Algorithm, radix: u32, vcs: u32) -> RouterSpec {
    spec_on(algorithm, Topology::Mesh, 2, radix, vcs)
}

pub(crate) fn spec_with(
    algorithm: Algorithm,
    radix: u32,
    vcs: u32,
    sel: PathSelection,
) -> RouterSpec {
    RouterSpec {
        path_selection: sel,
        ..spec(algorithm, radix, vcs)
    }
}

pub(crate) fn absolute(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        addressing: Addressing::Absolute,
        ..s
    }
}

/// `s` with the economical-storage table (absolute addressing, as the
/// spec requires).
pub(crate) fn economical(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Economical,
        ..absolute(s)
    }
}

/// `s` with the full routing table (absolute addressing).
pub(crate) fn full_table(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Full,
        ..absolute(s)
    }
}

/// `s` with the two-level meta table (absolute addressing).
pub(crate) fn meta_table(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        table: TableStorage::Meta,
        ..absolute(s)
    }
}

/// `s` with look-ahead routing and `w`-bit flits.
pub(crate) fn lookahead(s: RouterSpec, w: u32) -> RouterSpec {
    RouterSpec {
        lookahead: true,
        flit_width: w,
        ..s
    }
}

/// `s` with on/off flow control and `depth`-flit buffers.
pub(crate) fn on_off(s: RouterSpec, depth: u32) -> RouterSpec {
    RouterSpec {
        flow_control: FlowControl::OnOff,
        buffer_depth: depth,
        ..s
    }
}

mod cosim;
mod interface;
mod lint;
mod network;
mod oracle;
mod routing;
mod scoreboard;
mod tables;
mod timing;
mod writer;

pub(crate) use cosim::*;
pub(crate) use interface::*;
pub(crate) use lint::*;
pub(crate) use network::*;
pub(crate) use oracle::*;
pub(crate) use scoreboard::*;
pub(crate) use timing::*;
