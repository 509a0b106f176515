//! Per-block resource counts from a hierarchical synthesis (`synth` or
//! `synth_<family> -noflatten`, then `stat -json`): every module's own
//! cells, rolled up through its instances, grouped by the router's blocks.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::flows::yosys::CellCounts;
use crate::model::Module;

/// Cell counts of every module of a synthesized design.
#[derive(Debug, Clone, Default)]
pub struct Hierarchy {
    /// Each module's own cells, by module name.
    pub modules: BTreeMap<String, CellCounts>,
}

impl Hierarchy {
    /// The hierarchy of `modules` (each module's own cells).
    pub fn new(modules: BTreeMap<String, CellCounts>) -> Self {
        Hierarchy { modules }
    }

    /// Instances of other modules inside `module`, with their counts.
    pub fn children(&self, module: &str) -> Vec<(String, u64)> {
        self.modules
            .get(module)
            .map(|c| {
                c.cells
                    .iter()
                    .filter(|(ty, _)| self.modules.contains_key(ty.as_str()))
                    .map(|(ty, n)| (ty.clone(), *n))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The cells of `module` itself, its instances of other modules left out.
    pub fn own(&self, module: &str) -> CellCounts {
        let mut out = CellCounts::default();
        if let Some(c) = self.modules.get(module) {
            for (ty, n) in &c.cells {
                if !self.modules.contains_key(ty.as_str()) {
                    out.cells.insert(ty.clone(), *n);
                }
            }
        }
        out
    }

    /// Every cell under `module`, through all levels of instances.
    pub fn total(&self, module: &str) -> CellCounts {
        let mut out = self.own(module);
        for (child, n) in self.children(module) {
            out.add(&self.total(&child), n);
        }
        out
    }

    /// The module holding the blocks: from `router`, down through modules
    /// that hold nothing but one instance (the clean top module around the
    /// rust-hdl core).
    pub fn block_parent(&self, router: &str) -> String {
        let mut m = router.to_string();
        loop {
            let kids = self.children(&m);
            if self.own(&m).total() == 0 && kids.len() == 1 && kids[0].1 == 1 {
                m = kids[0].0.clone();
            } else {
                return m;
            }
        }
    }

    /// The blocks of the router: the instances inside [`Self::block_parent`]
    /// grouped by name (`core$fcu$3` is one `fcu`), and the glue logic of
    /// that module itself.
    pub fn blocks(&self, router: &str) -> (String, Vec<BlockUse>, CellCounts) {
        let parent = self.block_parent(router);
        let mut groups: BTreeMap<String, BlockUse> = BTreeMap::new();
        for (child, n) in self.children(&parent) {
            let stem = block_stem(&parent, &child);
            let e = groups.entry(stem.clone()).or_insert_with(|| BlockUse {
                block: stem,
                instances: 0,
                cells: CellCounts::default(),
            });
            e.instances += n;
            e.cells.add(&self.total(&child), n);
        }
        let mut blocks: Vec<BlockUse> = groups.into_values().collect();
        blocks.sort_by_key(|b| (block_rank(&b.block), b.block.clone()));
        (parent.clone(), blocks, self.own(&parent))
    }
}

/// One kind of block: how many instances and their cells together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockUse {
    /// The instance name without the parent's prefix and index (`fcu`).
    pub block: String,
    /// Instances of the block.
    pub instances: u64,
    /// Their cells together, children included.
    pub cells: CellCounts,
}

/// `parent_flow_control_unit` -> `flow_control_unit`; a numbered module of
/// another body of the same block (`parent_address_decoder_2`) and
/// rust-hdl's spelling (`parent$fcu$3`) to the same stem; a module Yosys
/// derived for a parameter value (`$paramod$<hash>\parent_link`) by its
/// name.
pub fn block_stem(parent: &str, child: &str) -> String {
    let child = match child.strip_prefix("$paramod") {
        Some(derived) => derived.rsplit('\\').next().unwrap_or(child),
        None => child,
    };
    let mut s = child
        .strip_prefix(parent)
        .and_then(|r| r.strip_prefix('$').or_else(|| r.strip_prefix('_')))
        .unwrap_or(child);
    while let Some((head, tail)) = s.rsplit_once(['$', '_']) {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            s = head;
        } else {
            break;
        }
    }
    s.to_string()
}

/// What the router's instance names stand for, and Chien's module
/// (Figure 1) where the block is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockInfo {
    /// What the block is, in words.
    pub title: &'static str,
    /// Chien's module (Figure 1), if the block is one.
    pub chien: Option<Module>,
}

/// The router's block instances by name (src/router: `fcu`, `dec`,
/// `indec`, `fcand`, `acand`, `ladec`, `valloc`, `lamux`, `salloc`, `xbar`, `credits`, `on`, `busy`,
/// `routed`, `rport`, `rvc`, `cok`, `rla`; `slices` in a sliced router, `vcc`
/// with plane slices); other names are shown as they are. Chien's VC controller
/// (Figure 1: it multiplexes the VCs onto the physical channel) is here the
/// switch allocator with the output VCs' credit counters and held flags.
pub fn block_info(stem: &str) -> BlockInfo {
    let (title, chien) = match stem {
        "fcu" | "flow_control_unit" => (
            "flow-control unit + input buffers",
            Some(Module::FlowControlUnit),
        ),
        "dec" | "address_decoder" => ("address decoder", Some(Module::AddressDecoder)),
        "indec" | "arrival_decoder" => (
            "address decoder of the arriving flit",
            Some(Module::AddressDecoder),
        ),
        "fcand" => ("input VC: its front head's decoded route", None),
        "acand" => (
            "input VC: the decoded route of the flit after the front",
            None,
        ),
        "valloc" | "vc_allocator" => (
            "routing arbiter (VC allocation)",
            Some(Module::RoutingArbiter),
        ),
        "sel" => ("header selector", Some(Module::HeaderSelector)),
        "xbar" | "crossbar" => ("crossbar", Some(Module::Crossbar)),
        "salloc" | "switch_allocator" => (
            "VC controller: switch allocation (first and second choices, their arbiters)",
            Some(Module::VcController),
        ),
        "output_unit" => (
            "VC controller: output VCs held, their credits or on/off levels",
            Some(Module::VcController),
        ),
        "ladec" | "lookahead_decoder" => (
            "look-ahead decoders (next routers' ports)",
            Some(Module::AddressDecoder),
        ),
        "lamux" | "lookahead_mux" => ("look-ahead mux", None),
        "slices" => (
            "slices: a 1-D or 2-D router each (Chien §5.1, §5.2), or the VC-port core",
            None,
        ),
        "vcc" => (
            "VC controllers: per link two plane slices share, or per link of a VC-port router",
            Some(Module::VcController),
        ),
        "rla" => ("input VC: look-ahead field to send", None),
        "routed" => ("input VC: output VC allocated", None),
        "rport" => ("input VC: allocated output port", None),
        "rvc" => ("input VC: allocated output VC", None),
        "cok" => ("input VC: its output VC may send", None),
        _ => ("", None),
    };
    BlockInfo { title, chien }
}

fn block_rank(stem: &str) -> usize {
    [
        "fcu",
        "flow_control_unit",
        "dec",
        "address_decoder",
        "indec",
        "arrival_decoder",
        "fcand",
        "acand",
        "ladec",
        "lookahead_decoder",
        "valloc",
        "vc_allocator",
        "lamux",
        "lookahead_mux",
        "sel",
        "xbar",
        "crossbar",
        "salloc",
        "switch_allocator",
        "output_unit",
        "routed",
        "rport",
        "rvc",
        "cok",
        "rla",
    ]
    .iter()
    .position(|s| *s == stem)
    .unwrap_or(99)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> CellCounts {
        CellCounts {
            cells: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn instance_names_lose_parent_and_index() {
        assert_eq!(block_stem("r_core", "r_core$fcu$3"), "fcu");
        assert_eq!(block_stem("r_core", "r_core$arb"), "arb");
        assert_eq!(block_stem("r_core", "r_core$dec$0$node"), "dec$0$node");
        assert_eq!(block_stem("x", "other$7"), "other");
        assert_eq!(block_stem("net", "$paramod$7e05c0\\net_link"), "link");
        assert_eq!(
            block_stem("r_core", "r_core_flow_control_unit"),
            "flow_control_unit"
        );
        assert_eq!(
            block_stem("r_core", "r_core_address_decoder_2"),
            "address_decoder"
        );
    }

    #[test]
    fn totals_roll_up_through_instances() {
        let h = Hierarchy::new(
            [
                ("top".to_string(), counts(&[("r", 1), ("SB_DFF", 10)])),
                ("r".to_string(), counts(&[("r_core", 1)])),
                (
                    "r_core".to_string(),
                    counts(&[("r_core$fcu$0", 1), ("r_core$fcu$1", 1), ("SB_LUT4", 3)]),
                ),
                (
                    "r_core$fcu$0".to_string(),
                    counts(&[("SB_LUT4", 5), ("x", 1)]),
                ),
                (
                    "r_core$fcu$1".to_string(),
                    counts(&[("SB_LUT4", 5), ("x", 1)]),
                ),
                ("x".to_string(), counts(&[("SB_DFF", 2)])),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(h.total("top").luts(), 13);
        assert_eq!(h.total("top").flip_flops(), 14);
        assert_eq!(h.block_parent("r"), "r_core");
        let (parent, blocks, glue) = h.blocks("r");
        assert_eq!(parent, "r_core");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].block, "fcu");
        assert_eq!(blocks[0].instances, 2);
        assert_eq!(blocks[0].cells.luts(), 10);
        assert_eq!(blocks[0].cells.flip_flops(), 4);
        assert_eq!(glue.luts(), 3);
    }
}
