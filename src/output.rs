//! Writing an output directory: the resolved spec and its reports.
//!
//! Everything is written to a temporary directory beside the target and
//! renamed into place at the end, so a failure leaves no half-written
//! directory behind.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::algo::{check, tables, Network, Relation};
use crate::emit;
use crate::error::{Error, Result};
use crate::limits;
use crate::model::{self, CostReport, ModelInput, Technology};
use crate::router::{self, tables::TableKind};
use crate::spec::RouterSpec;

/// The file that marks a directory as routergen's own (and regenerates it).
pub const SPEC_FILE: &str = "routergen.toml";

/// Files of an output directory, by path relative to it.
pub type Files = Vec<(PathBuf, String)>;

#[derive(Serialize)]
struct JsonReport<'a> {
    name: String,
    spec: &'a RouterSpec,
    header_bits: u32,
    nodes: u64,
    model: &'a CostReport,
    deadlock: JsonCheck,
    tables: Option<&'a tables::Sizes>,
    /// The router's Verilog, relative to the output directory; `None` with
    /// the reason in `rtl_missing` where routergen cannot build it yet.
    rtl: Option<String>,
    rtl_missing: Option<String>,
    /// With `table = economical`: the table's reset contents
    /// (docs/interface.md), the values the `cfg_*` port writes.
    routing_table: Option<JsonTable>,
}

/// The router's routing table (docs/interface.md): `kind` (economical,
/// full, meta); `entries[e]` (economical: entry e = sum_d s_d 3^d, s_d: 0
/// equal, 1 greater, 2 smaller; full: destination node e; meta: the own
/// cluster's nodes, then the clusters), each what it is the index of, the
/// ports (`mask`, bit p = port p, as `cfg_mask`) and VC class
/// (`cfg_class`); full and meta: the contents at node 0 (`by_node` holds
/// every node's, keyed by node_id); `classes[c][p]`: the VCs (bit v) class
/// c permits on port p.
#[derive(Serialize)]
struct JsonTable {
    kind: String,
    entries: Vec<JsonEntry>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    by_node: Vec<JsonNode>,
    classes: Vec<Vec<u32>>,
}

#[derive(Serialize)]
struct JsonNode {
    node_id: u64,
    masks: Vec<u32>,
    classes: Vec<u8>,
}

#[derive(Serialize)]
struct JsonEntry {
    index_of: String,
    mask: u32,
    class: u8,
}

/// The deadlock checker's verdict on the spec's own network.
#[derive(Serialize)]
struct JsonCheck {
    /// `None` where the report did not run the proof.
    proved: Option<bool>,
    verdict: &'static str,
    /// One dependency cycle, when the proof fails on one.
    cycle: Option<String>,
}

/// The files routergen writes for `spec`.
pub fn render(spec: &RouterSpec, tech: &Technology) -> Result<Files> {
    let cost = model::evaluate(&ModelInput::from_spec(spec), tech);
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let relation = Relation::new(spec.algorithm, net, spec.vcs)?;
    // The whole-network proof grows with N^2: reports run it up to a
    // limit (docs/limits.md), `routergen check` the whole way.
    let proof =
        (spec.nodes() <= limits::MAX_REPORT_PROOF_NODES).then(|| check::check(&relation, true));
    let rtl_path = format!("rtl/{}.v", spec.name());
    // The relation is compiled (and the compilation proved) once.
    let (rtl, rtl_missing, es, svg) = match router::compile(spec) {
        Ok(t) => {
            let es = t.es.clone();
            let svg = emit::picture::render(spec, &t);
            let top = router::top_verilog_of(spec, &t)?;
            let core = router::core_verilog_of(spec, t)?;
            (Some(format!("{top}\n{core}")), None, es, Some(svg))
        }
        Err(why) => (None, Some(why.to_string()), None, None),
    };
    let json = JsonReport {
        name: spec.name(),
        spec,
        header_bits: spec.header_bits(),
        nodes: spec.nodes(),
        model: &cost,
        deadlock: match &proof {
            Some(proof) => JsonCheck {
                proved: Some(proof.proved()),
                verdict: proof.verdict_text(),
                cycle: proof.cycle().map(|c| check::cycle_text(&net, c)),
            },
            None => JsonCheck {
                proved: None,
                verdict:
                    "not run in the report (network above the report's proof limit, docs/limits.md)",
                cycle: None,
            },
        },
        tables: proof.as_ref().and_then(|p| p.tables.as_ref()),
        rtl: rtl.as_ref().map(|_| rtl_path.clone()),
        rtl_missing: rtl_missing.clone(),
        routing_table: es.as_ref().map(|t| JsonTable {
            kind: spec.table.to_string(),
            by_node: t
                .by_node
                .iter()
                .map(|(id, en)| JsonNode {
                    node_id: *id,
                    masks: en.iter().map(|x| x.mask).collect(),
                    classes: en.iter().map(|x| x.class).collect(),
                })
                .collect(),
            entries: t
                .entries
                .iter()
                .enumerate()
                .map(|(e, x)| JsonEntry {
                    index_of: t.entry_name(e),
                    mask: x.mask,
                    class: x.class,
                })
                .collect(),
            classes: t.classes.clone(),
        }),
    };
    let mut report_json = serde_json::to_string_pretty(&json).expect("reports serialize");
    report_json.push('\n');
    let mut md = report_md(spec, &cost);
    md.push_str(&format!(
        "\n## Deadlock freedom and routing tables\n\nThe routing relation checked on this \
         network by `routergen check --algo {} --topology {} --dims {} --radix {} --vcs {}`:\n\n\
         ```\n{}```\n",
        spec.algorithm,
        spec.topology,
        spec.dims,
        spec.radix,
        spec.vcs,
        match &proof {
            Some(proof) => proof.to_text(),
            None => format!(
                "not run in this report: the network has {} nodes, more than the {} a \
                 report proves (docs/limits.md); the command above proves networks of \
                 up to {} nodes\n",
                spec.nodes(),
                limits::MAX_REPORT_PROOF_NODES,
                limits::MAX_CHECK_NODES
            ),
        }
    ));
    md.push_str(&match &rtl_missing {
        None => format!(
            "\n## RTL\n\n`{rtl_path}`: the router, with the interface of docs/interface.md. \
             `tb/` holds its self-checking testbench (Icarus) and harness (Verilator), \
             `synth/` its Yosys scripts; `make lint sim sim-verilator synth` (or `make all`) \
             in this directory runs them, writing only under `build/`. `{}.core` is the \
             same as a FuseSoC core. The router as built: [router.svg](router.svg).\n\n\
             ![the router](router.svg)\n",
            spec.name()
        ),
        Some(why) => format!("\n## RTL\n\nNot generated: {why}\n"),
    });
    if let Some(t) = &es {
        let (what, loads) = match t.kind {
            TableKind::Economical => (
                "The economical-storage table (LAPSES §5.2.1)".to_string(),
                "the same at every node",
            ),
            TableKind::Full => (
                format!(
                    "The full table (LAPSES §5, Table 5: {} entries, one per destination)",
                    t.entries.len()
                ),
                "those of its `node_id`; below, node 0's (report.json `by_node` holds \
                 every node's)",
            ),
            TableKind::Meta { .. } => (
                format!(
                    "The two-level meta table (LAPSES §5.1.1: {} entries; cluster id = \
                     the coordinates of dimensions {}..{}, a cluster entry keeps the \
                     outputs permitted toward every node of its cluster; the relation so \
                     restricted passed the deadlock checker: a hop toward every \
                     destination, an escape hop wherever the relation has escape \
                     channels, no dependency cycle)",
                    t.entries.len(),
                    t.cluster_dims().start,
                    t.cluster_dims().end
                ),
                "those of its `node_id`; below, node 0's (report.json `by_node` holds \
                 every node's)",
            ),
        };
        md.push_str(&format!(
            "\n## Routing table\n\n{what} the router loads at reset, computed from the \
             routing relation: {loads}. Size: {} entries of {} port bits and a {}-bit VC \
             class, {} flip-flops. The `cfg_*` port (docs/interface.md) rewrites an entry: \
             `cfg_addr` = entry ({} bits), `cfg_mask` = ports (bit p = port p), \
             `cfg_class` = VC class. A VC class names, per port, the VCs an entry of that \
             class permits there (fixed when the router is generated; a class number past \
             the list permits nothing).\n\n{}",
            t.entries.len(),
            t.ports,
            crate::router::CLASS_BITS,
            t.entries.len() * (t.ports + crate::router::CLASS_BITS),
            t.addr_bits(),
            t.to_markdown()
        ));
    }
    let mut files = vec![
        (PathBuf::from(SPEC_FILE), spec_toml(spec)),
        (PathBuf::from("report.md"), md),
        (PathBuf::from("report.json"), report_json),
    ];
    if let Some(text) = rtl {
        files.extend(emit::files(spec, &text)?);
        if let Some(svg) = svg {
            files.push((PathBuf::from("router.svg"), svg));
        }
        // The Verilog opens with a map of the directory (docs/generate.md).
        let others: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
        let header = emit::header::render(spec, &text, &others);
        files.push((PathBuf::from(rtl_path), format!("{header}{text}")));
    }
    Ok(files)
}

fn spec_toml(spec: &RouterSpec) -> String {
    format!(
        "# Resolved routergen specification. Regenerate with:\n#   routergen --config {SPEC_FILE} -o <dir>\n{}",
        spec.to_toml()
    )
}

fn report_md(spec: &RouterSpec, cost: &CostReport) -> String {
    let org = spec.organization();
    let mut s = format!("# {}\n\n## Specification\n\n", spec.name());
    s.push_str("| setting | value |\n|---|---|\n");
    for line in spec.describe(&[]).lines() {
        if let Some((k, v)) = line.split_once('=') {
            s.push_str(&format!("| {} | {} |\n", k.trim(), v.trim()));
        }
    }
    s.push_str(&format!(
        "\nNetwork: {} nodes. Head-flit routing field: {} of {} bits. Datapath: {} \
         crossbar(s) of {}x{} ports, routing freedom F = {}; at least {} VC(s) per \
         physical channel for deadlock freedom.\n",
        spec.nodes(),
        spec.header_bits(),
        spec.flit_width,
        org.crossbars,
        org.ports,
        org.ports,
        org.freedom,
        spec.min_vcs()
    ));
    s.push_str(&format!(
        "\n## Chien's cost and speed model ({})\n\nGate counts from Chien Figure 4 (16-bit \
         datapaths), delays from Figures 2 and 3; see `routergen model --help`.\n\n",
        cost.technology
    ));
    s.push_str("| module | count | parameter | gates each | gates | delay (ns) |\n");
    s.push_str("|---|---:|---|---:|---:|---:|\n");
    for m in &cost.modules {
        let param = match (m.module.parameter_name(), m.param) {
            (Some(n), Some(v)) => format!("{n} = {v}"),
            _ => "-".into(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} |\n",
            m.module.title(),
            m.count,
            param,
            model::fmt_gates(m.gates_each),
            model::fmt_gates(m.gates),
            m.delay_ns
        ));
    }
    let path = |p: &model::CriticalPath| {
        p.steps
            .iter()
            .map(|st| format!("T_{} {:.3}", st.module.abbrev(), st.delay_ns))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    s.push_str(&format!(
        "\n- Total gates: **{}**\n- Setup delay: **{:.3} ns** = {}\n- Flow-control cycle: \
         **{:.3} ns** = {}\n- Flit rate: **{:.1} Mflit/s** per channel\n",
        model::fmt_gates(cost.gates.total),
        cost.delay_ns.setup,
        path(&cost.setup_path),
        cost.delay_ns.flow_control,
        path(&cost.flow_control_path),
        cost.flit_rate_mflits
    ));
    for n in &cost.notes {
        s.push_str(&format!("- Note: {n}\n"));
    }
    s
}

/// Writes `files` into `dir`, replacing a previous routergen output there.
///
/// `dir` must be absent, empty, or hold a [`SPEC_FILE`]: routergen never
/// replaces a directory it did not write.
pub fn write_dir(dir: &Path, files: &Files) -> Result<()> {
    check_target(dir)?;
    let out_err = |path: &Path, e: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| out_err(&parent, e))?;
    let base = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = parent.join(format!(".{base}.routergen-new-{}", std::process::id()));
    let old = parent.join(format!(".{base}.routergen-old-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    let _interrupt = crate::interrupt::remove_on_interrupt(&tmp);

    let written = (|| -> Result<()> {
        fs::create_dir(&tmp).map_err(|e| out_err(&tmp, e))?;
        for (rel, text) in files {
            let path = tmp.join(rel);
            if let Some(p) = path.parent() {
                fs::create_dir_all(p).map_err(|e| out_err(p, e))?;
            }
            fs::write(&path, text).map_err(|e| out_err(&dir.join(rel), e))?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }

    let existed = dir.exists();
    if existed {
        fs::rename(dir, &old).map_err(|e| {
            let _ = fs::remove_dir_all(&tmp);
            out_err(dir, e)
        })?;
    }
    if let Err(e) = fs::rename(&tmp, dir) {
        if existed {
            let _ = fs::rename(&old, dir);
        }
        let _ = fs::remove_dir_all(&tmp);
        return Err(out_err(dir, e));
    }
    if existed {
        let _ = fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Why `dir` cannot be an output directory, if it cannot: it must be new,
/// empty, or a previous routergen output directory.
pub fn check_target(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        return Err(Error::invalid(format!(
            "-o {}: exists and is not a directory; give a new or empty directory, or a \
             previous routergen output directory",
            dir.display()
        )));
    }
    let empty = fs::read_dir(dir)
        .map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            source,
        })?
        .next()
        .is_none();
    if !empty && !dir.join(SPEC_FILE).is_file() {
        return Err(Error::invalid(format!(
            "-o {}: the directory holds files routergen did not write (no {SPEC_FILE}); \
             give a new or empty directory, or a previous routergen output directory",
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails half-way (a file where a directory must go)
    /// leaves neither the target nor a temporary directory, and a previous
    /// output in the target untouched.
    #[test]
    fn a_failed_write_leaves_nothing_half_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let bad: Files = vec![
            (PathBuf::from(SPEC_FILE), "a".into()),
            (PathBuf::from("tb"), "a file".into()),
            (PathBuf::from("tb/x_tb.v"), "under a file".into()),
        ];
        assert!(matches!(write_dir(&dir, &bad), Err(Error::Output { .. })));
        let left: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");

        let good: Files = vec![(PathBuf::from(SPEC_FILE), "old".into())];
        write_dir(&dir, &good).unwrap();
        assert!(write_dir(&dir, &bad).is_err());
        assert_eq!(fs::read_to_string(dir.join(SPEC_FILE)).unwrap(), "old");
        let names: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["out".to_string()]);
    }
}
