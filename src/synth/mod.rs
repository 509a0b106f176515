//! `routergen synth`: the router of a spec, wrapped in scan chains
//! ([`wrapper`]), synthesized by Yosys for a generic gate library or an
//! FPGA, placed and routed by nextpnr, and measured: gates, LUTs,
//! flip-flops, carries, RAMs, logic depth, the achieved clock frequency, and
//! the same per block of the router ([`hierarchy`]).
//!
//! The totals come from a flattened synthesis (what nextpnr places); the
//! per-block rows from a second, hierarchical synthesis of the same design
//! (`-noflatten`), in which Yosys cannot optimize across block boundaries,
//! so their sum is close to but not equal to the flattened total (both are
//! printed).

pub mod compare;
pub mod hierarchy;
pub mod scope;
pub mod wrapper;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::flows::nextpnr::{self, Device, Family};
use crate::flows::yosys::{self, CellCounts, GATE_LIBRARY};
use crate::flows::{require, TempDir, ToolError};
use crate::router;
use crate::spec::names::{named_enum, Named};
use crate::spec::RouterSpec;
use hierarchy::{block_info, Hierarchy};
use wrapper::{Wrapper, WRAPPER_TOP};

named_enum!(
    /// Where `routergen synth` maps the router.
    Target, "synthesis target", {
        /// Yosys `synth` and ABC to two-input gates (Chien's gate count, §4).
        Generic => "generic" [],
        /// Lattice iCE40UP5K in the SG48 package (iCEBreaker).
        Ice40Up5k => "ice40-up5k" [],
        /// Lattice iCE40HX8K in the CT256 package (iCE40-HX8K breakout board).
        Ice40Hx8k => "ice40-hx8k" [],
        /// Lattice LFE5U-25F in the CSFBGA285 package (OrangeCrab).
        Ecp5_25k => "ecp5-25k" [],
        /// Lattice LFE5U-85F in the CABGA381 package (ULX3S).
        Ecp5_85k => "ecp5-85k" [],
    }
);

impl Target {
    /// The FPGA, or `None` for the generic gate library.
    pub fn device(self) -> Option<Device> {
        let (family, flag, package) = match self {
            Target::Generic => return None,
            Target::Ice40Up5k => (Family::Ice40, "--up5k", "sg48"),
            Target::Ice40Hx8k => (Family::Ice40, "--hx8k", "ct256"),
            Target::Ecp5_25k => (Family::Ecp5, "--25k", "CSFBGA285"),
            Target::Ecp5_85k => (Family::Ecp5, "--85k", "CABGA381"),
        };
        Some(Device {
            family,
            flag,
            package,
        })
    }

    /// Block RAMs of the part: SB_RAM40_4K (4 kbit) on the iCE40, DP16KD
    /// (18 kbit) on the ECP5 (Lattice data sheets).
    pub fn block_rams(self) -> Option<u32> {
        match self {
            Target::Generic => None,
            Target::Ice40Up5k => Some(30),
            Target::Ice40Hx8k => Some(32),
            Target::Ecp5_25k => Some(56),
            Target::Ecp5_85k => Some(208),
        }
    }

    /// Fails, naming the option and the targets that take it, when `spec`
    /// keeps its buffers in a kind of memory this target does not have
    /// (`buffers = lutram` on an iCE40: it has no distributed RAM).
    pub fn check_buffers(self, spec: &RouterSpec) -> Result<()> {
        let ice40 = self.device().map(|d| d.family) == Some(Family::Ice40);
        if spec.buffers == crate::spec::BufferStorage::Lutram && ice40 {
            return Err(Error::InvalidSpec(format!(
                "buffers = lutram: the {} has no distributed RAM; lutram is for the ECP5 \
                 targets (ecp5-25k, ecp5-85k) and generic; on the iCE40 use buffers = flops \
                 or bram",
                self.name()
            )));
        }
        Ok(())
    }

    /// Block RAMs one input buffer of `w`-bit flits takes with `buffers =
    /// bram` (at most 16 entries): a 256 x 16 SB_RAM40_4K per 16 bits, a
    /// 512 x 36 DP16KD per 36 bits.
    pub fn rams_per_buffer(self, w: u32) -> u32 {
        match self.device().map(|d| d.family) {
            Some(Family::Ice40) => w.div_ceil(16),
            Some(Family::Ecp5) => w.div_ceil(36),
            None => 0,
        }
    }

    /// The part, as Lattice names it.
    pub fn part(self) -> &'static str {
        match self {
            Target::Generic => "two-input gates",
            Target::Ice40Up5k => "iCE40UP5K-SG48",
            Target::Ice40Hx8k => "iCE40HX8K-CT256",
            Target::Ecp5_25k => "LFE5U-25F-CSFBGA285",
            Target::Ecp5_85k => "LFE5U-85F-CABGA381",
        }
    }

    /// The clock nextpnr aims at when none is given: the iCEBreaker's
    /// 12 MHz oscillator doubled for the slow UltraPlus, the 60 MHz this
    /// project aims at on the HX8K, 100 MHz on ECP5.
    pub fn default_clock_mhz(self) -> Option<f64> {
        match self {
            Target::Generic => None,
            Target::Ice40Up5k => Some(24.0),
            Target::Ice40Hx8k => Some(60.0),
            Target::Ecp5_25k | Target::Ecp5_85k => Some(100.0),
        }
    }

    /// The external tools this target runs.
    pub fn tools(self) -> Vec<&'static str> {
        match self.device() {
            None => vec!["yosys"],
            Some(d) => vec![d.family.yosys(), d.family.nextpnr()],
        }
    }
}

/// Resource counts of a design or of a part of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Resources {
    /// Two-input gate equivalents (generic target; a MUX counts 3).
    pub gates: u64,
    /// Inverters (generic target; not in `gates`).
    pub inverters: u64,
    /// Four-input LUTs (FPGA targets).
    pub luts: u64,
    /// Flip-flops.
    pub flip_flops: u64,
    /// Carry cells (FPGA targets).
    pub carries: u64,
    /// Block RAMs (FPGA targets).
    pub rams: u64,
}

impl From<&CellCounts> for Resources {
    fn from(c: &CellCounts) -> Self {
        Resources {
            gates: c.two_input_gates(),
            inverters: c.inverters(),
            luts: c.luts(),
            flip_flops: c.flip_flops(),
            carries: c.carries(),
            rams: c.rams(),
        }
    }
}

/// One kind of router block in the per-block breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockRow {
    /// Instance name in the router (`fcu`, `xbar`, ...).
    pub block: String,
    /// What it is.
    pub title: String,
    /// Instances of the block in the router.
    pub instances: u64,
    /// Their resources together.
    pub resources: Resources,
}

/// What `routergen synth` measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SynthReport {
    /// The design's top module (the router's: the configuration's name).
    pub name: String,
    /// What the design is: `router`, `network interface`, `router +
    /// interface` or `network` ([`scope::Design::what`]).
    pub design: String,
    /// The synthesis target.
    pub target: Target,
    /// The FPGA part, or `generic`.
    pub part: String,
    /// The clock nextpnr aimed at (FPGA targets).
    pub clock_mhz: Option<f64>,
    /// The scan-chain wrapper that keeps the router's ports.
    pub wrapper: Wrapper,
    /// The whole wrapped design, flattened synthesis.
    pub total: Resources,
    /// Flip-flops of the router alone: the total less the wrapper's chains.
    pub router_flip_flops: u64,
    /// The router (the design) alone, flattened, without the scan wrapper
    /// (its ports left to the tool): the figure other flows report beside
    /// `total`.
    pub router: Resources,
    /// Longest path in the flattened netlist in cells between flip-flops
    /// and pins (`ltp -noff`; generic target: two-input gate levels).
    pub logic_depth: Option<u64>,
    /// Achieved frequency after routing (nextpnr), MHz.
    pub fmax_mhz: Option<f64>,
    /// nextpnr's device utilisation: bel type to (used, available).
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// Whether the design fits the device (FPGA targets).
    pub fits: Option<bool>,
    /// The module whose instances are the blocks.
    pub block_module: String,
    /// Per block, from the hierarchical synthesis.
    pub blocks: Vec<BlockRow>,
    /// Logic of the block module itself (between the blocks).
    pub glue: Resources,
    /// The scan wrapper's own cells.
    pub wrapper_cells: Resources,
    /// The whole design in the hierarchical synthesis.
    pub hierarchical_total: Resources,
}

/// Fails with a message naming the package when a tool of `target` is
/// missing.
pub fn check_tools(target: Target) -> Result<()> {
    for tool in target.tools() {
        let purpose = format!("synthesis for target {}", target.name());
        require(tool, Some(&purpose))?;
    }
    Ok(())
}

/// A tool failure as a routergen error (exit status 1).
pub(crate) fn tool_error(e: ToolError) -> Error {
    Error::from(e)
}

/// The Yosys script: a hierarchical synthesis whose `stat -json` goes to
/// hier.json, then the flattened one (flat.json, and netlist.json for
/// nextpnr or ltp.txt for the generic target), then the router `name`
/// alone, flattened, without the scan wrapper (alone.json): the figure
/// other flows report.
fn script(target: Target, name: &str, file: &str) -> String {
    let top = WRAPPER_TOP;
    let mut s =
        format!("read_verilog {file} wrapper.v\nhierarchy -check -top {top}\ndesign -save rtl\n");
    match target.device() {
        None => {
            let _ = write!(
                s,
                "synth -top {top}\nabc -g {GATE_LIBRARY}\nopt_clean\n\
                 tee -q -o hier.json stat -json\n\
                 design -load rtl\n\
                 synth -flatten -top {top}\nabc -g {GATE_LIBRARY}\nopt_clean\n\
                 tee -q -o flat.json stat -json\ntee -q -o ltp.txt ltp -noff\n\
                 write_verilog -noattr netlist.v\n\
                 design -load rtl\n\
                 synth -flatten -top {name}\nabc -g {GATE_LIBRARY}\nopt_clean\n\
                 tee -q -o alone.json stat -json\n"
            );
        }
        Some(d) => {
            let cmd = d.family.synth_command();
            let _ = write!(
                s,
                "{cmd} -noflatten -top {top}\ntee -q -o hier.json stat -json\n\
                 design -load rtl\n\
                 {cmd} -top {top} -json netlist.json\ntee -q -o flat.json stat -json\n\
                 design -load rtl\n\
                 {cmd} -top {name}\ntee -q -o alone.json stat -json\n"
            );
        }
    }
    s
}

fn read(dir: &Path, file: &str) -> Result<String> {
    std::fs::read_to_string(dir.join(file)).map_err(|e| Error::Output {
        path: PathBuf::from(file),
        message: format!("the tool did not write it: {e}"),
    })
}

/// Synthesizes (and for FPGAs places and routes) the router of `spec` on
/// `target`, working in `work` (kept by the caller or dropped).
pub fn run_in(
    spec: &RouterSpec,
    target: Target,
    clock_mhz: Option<f64>,
    work: &Path,
) -> Result<SynthReport> {
    check_spec(spec, target)?;
    run_design_in(&scope::Design::router(spec)?, target, clock_mhz, work)
}

/// Why the router of `spec` cannot be synthesized for `target`, if it
/// cannot.
fn check_spec(spec: &RouterSpec, target: Target) -> Result<()> {
    router::supported(spec)?;
    target.check_buffers(spec)
}

/// [`run_in`] for any design ([`scope::Design`]).
pub fn run_design_in(
    design: &scope::Design,
    target: Target,
    clock_mhz: Option<f64>,
    work: &Path,
) -> Result<SynthReport> {
    check_tools(target)?;
    let name = design.top.clone();
    let verilog = &design.verilog;
    let file = design.file;
    let wrapper = wrapper::wrap(verilog, &name)?;
    let write = |file: &str, text: &str| {
        std::fs::write(work.join(file), text).map_err(|e| Error::Output {
            path: work.join(file),
            message: e.to_string(),
        })
    };
    write(file, verilog)?;
    write("wrapper.v", &wrapper.verilog)?;
    let exe = target.device().map_or("yosys", |d| d.family.yosys());
    yosys::run_script(exe, work, &script(target, &name, file)).map_err(tool_error)?;
    let hier =
        Hierarchy::new(yosys::parse_stat_json(&read(work, "hier.json")?).map_err(tool_error)?);
    let flat_modules = yosys::parse_stat_json(&read(work, "flat.json")?).map_err(tool_error)?;
    let flat = flat_modules.get(WRAPPER_TOP).cloned().unwrap_or_default();
    let alone = yosys::parse_stat_json(&read(work, "alone.json")?)
        .map_err(tool_error)?
        .get(&name)
        .cloned()
        .unwrap_or_default();
    let logic_depth = match target {
        Target::Generic => yosys::parse_ltp(&read(work, "ltp.txt")?)
            .get(WRAPPER_TOP)
            .copied(),
        _ => None,
    };
    let clock = clock_mhz.or(target.default_clock_mhz());
    let (fmax_mhz, utilization, fits) = match (target.device(), clock) {
        (Some(device), Some(mhz)) => {
            let pnr = nextpnr::place_and_route(work, device, "netlist.json", mhz, None, None)
                .map_err(tool_error)?;
            (pnr.fmax(), pnr.utilization, Some(pnr.fits))
        }
        _ => (None, BTreeMap::new(), None),
    };
    let (block_module, uses, glue) = hier.blocks(&name);
    let blocks = uses
        .iter()
        .map(|b| BlockRow {
            title: block_info(&b.block).title.to_string(),
            block: b.block.clone(),
            instances: b.instances,
            resources: Resources::from(&b.cells),
        })
        .collect();
    let total = Resources::from(&flat);
    Ok(SynthReport {
        name,
        design: design.what.to_string(),
        target,
        part: target.part().to_string(),
        clock_mhz: target.device().and(clock),
        router_flip_flops: total
            .flip_flops
            .saturating_sub(u64::from(wrapper.flip_flops())),
        wrapper,
        total,
        router: Resources::from(&alone),
        logic_depth,
        fmax_mhz,
        utilization,
        fits,
        block_module,
        blocks,
        glue: Resources::from(&glue),
        wrapper_cells: Resources::from(&hier.own(WRAPPER_TOP)),
        hierarchical_total: Resources::from(&hier.total(WRAPPER_TOP)),
    })
}

/// [`run_in`] in a temporary directory; with `keep`, the build products
/// (sources, Yosys script and log, netlists, nextpnr log and report, the
/// report itself) are written to that directory afterwards, atomically.
pub fn run(
    spec: &RouterSpec,
    target: Target,
    clock_mhz: Option<f64>,
    keep: Option<&Path>,
) -> Result<SynthReport> {
    let work = TempDir::new("synth").map_err(tool_error)?;
    let report = run_in(spec, target, clock_mhz, work.path())?;
    if let Some(dir) = keep {
        let mut files = vec![(PathBuf::from(crate::output::SPEC_FILE), spec.to_toml())];
        files.extend(products(&report, work.path(), Path::new(""))?);
        crate::output::write_dir(dir, &files)?;
    }
    Ok(report)
}

/// [`run`] for every design of `scope` ([`scope::designs`]), one after
/// the other; with `keep`, each design's build products go to a
/// directory of its own there, named after its top module.
pub fn run_scope(
    spec: &RouterSpec,
    scope: scope::Scope,
    target: Target,
    clock_mhz: Option<f64>,
    keep: Option<&Path>,
) -> Result<Vec<SynthReport>> {
    if scope == scope::Scope::Router {
        return Ok(vec![run(spec, target, clock_mhz, keep)?]);
    }
    check_spec(spec, target)?;
    let mut reports = Vec::new();
    let mut files = vec![(PathBuf::from(crate::output::SPEC_FILE), spec.to_toml())];
    for design in scope::designs(spec, scope)? {
        let work = TempDir::new("synth").map_err(tool_error)?;
        let report = run_design_in(&design, target, clock_mhz, work.path())?;
        files.extend(products(&report, work.path(), Path::new(&design.top))?);
        reports.push(report);
    }
    if let Some(dir) = keep {
        crate::output::write_dir(dir, &files)?;
    }
    Ok(reports)
}

/// The report and every file of the work directory `work`, under `under`.
fn products(report: &SynthReport, work: &Path, under: &Path) -> Result<crate::output::Files> {
    let mut files = vec![
        (under.join("synth.txt"), report.to_text()),
        (under.join("synth.json"), report.to_json()),
    ];
    let mut names: Vec<_> = std::fs::read_dir(work)
        .map_err(|source| Error::Read {
            path: work.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for n in names {
        files.push((under.join(&n), read(work, &n)?));
    }
    Ok(files)
}

/// The designs of one scope side by side: per design its resources alone
/// (flattened, without the scan wrapper) and its Fmax; with an interface,
/// its LUT4 (FPGA) or gates (generic) as a share of the router's.
pub fn scope_table(reports: &[SynthReport]) -> String {
    let Some(first) = reports.first() else {
        return String::new();
    };
    let fpga = first.fpga();
    let mut s = format!(
        "routergen synth: on {} ({}), each design alone (flattened, no scan wrapper)\n",
        first.target.name(),
        first.part
    );
    let _ = writeln!(
        s,
        "{:<60} {:>8} {:>10} {:>8} {:>5} {:>9}",
        "design",
        if fpga { "LUT4" } else { "gates" },
        "flip-flops",
        "carries",
        "RAMs",
        "Fmax MHz"
    );
    let size = |r: &SynthReport| {
        if fpga {
            r.router.luts
        } else {
            r.router.gates
        }
    };
    for r in reports {
        let a = &r.router;
        let fmax = r.fmax_mhz.map_or("-".to_string(), |f| format!("{f:.1}"));
        let _ = writeln!(
            s,
            "{:<60} {:>8} {:>10} {:>8} {:>5} {:>9}",
            r.name,
            size(r),
            a.flip_flops,
            a.carries,
            a.rams,
            fmax
        );
    }
    if let [router, interface, ..] = reports {
        let _ = writeln!(
            s,
            "the network interface's {} are {:.1}% of the router's",
            if fpga { "LUT4" } else { "gates" },
            100.0 * size(interface) as f64 / size(router).max(1) as f64
        );
    }
    s
}

fn pct(used: u64, avail: u64) -> f64 {
    if avail == 0 {
        0.0
    } else {
        100.0 * used as f64 / avail as f64
    }
}

impl SynthReport {
    /// The report as pretty JSON, with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reports serialize");
        s.push('\n');
        s
    }

    fn fpga(&self) -> bool {
        self.target != Target::Generic
    }

    fn row(&self, label: &str, n: &str, r: &Resources) -> String {
        if self.fpga() {
            format!(
                "{label:<42} {n:>5} {:>7} {:>7} {:>6} {:>5}\n",
                r.luts, r.flip_flops, r.carries, r.rams
            )
        } else {
            format!(
                "{label:<42} {n:>5} {:>9} {:>9} {:>7}\n",
                r.gates, r.inverters, r.flip_flops
            )
        }
    }

    /// The report as a terminal table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "routergen synth: {} on {} ({})",
            self.name,
            self.target.name(),
            self.part
        );
        let t = &self.total;
        if self.fpga() {
            let cmd = self
                .target
                .device()
                .map_or("", |d| d.family.synth_command());
            let _ = writeln!(
                s,
                "whole design ({cmd}, flattened): LUT4 {}, flip-flops {}, carries {}, RAMs {}",
                t.luts, t.flip_flops, t.carries, t.rams
            );
            let cell = self.target.device().map_or("", |d| d.family.logic_cell());
            if let Some((u, a)) = self.utilization.get(cell) {
                let _ = writeln!(s, "placed and routed: {cell} {u}/{a} ({:.1}%)", pct(*u, *a));
            }
            match (self.fmax_mhz, self.clock_mhz) {
                (Some(f), Some(c)) => {
                    let _ = writeln!(
                        s,
                        "Fmax: {f:.2} MHz (nextpnr, after routing; target {c} MHz: {})",
                        if f >= c { "met" } else { "not met" }
                    );
                }
                _ => {
                    let _ = writeln!(s, "Fmax: not reported by nextpnr");
                }
            }
        } else {
            let _ = writeln!(
                s,
                "whole design (synth -flatten; abc -g {GATE_LIBRARY}): {} two-input gates \
                 (MUX = 3), {} inverters, {} flip-flops",
                t.gates, t.inverters, t.flip_flops
            );
            if let Some(d) = self.logic_depth {
                let _ = writeln!(
                    s,
                    "logic depth: {d} gate levels on the longest path between flip-flops \
                     and pins (ltp -noff)"
                );
            }
        }
        let r = &self.router;
        if self.fpga() {
            let _ = writeln!(
                s,
                "{} alone (flattened, no wrapper): LUT4 {}, flip-flops {}, carries {}, \
                 RAMs {}",
                self.design, r.luts, r.flip_flops, r.carries, r.rams
            );
        } else {
            let _ = writeln!(
                s,
                "{} alone (flattened, no wrapper): {} two-input gates, {} inverters, {} \
                 flip-flops",
                self.design, r.gates, r.inverters, r.flip_flops
            );
        }
        let _ = writeln!(
            s,
            "scan wrapper: {} input + {} output chain bits ({} flip-flops); {} alone: \
             {} flip-flops",
            self.wrapper.input_bits,
            self.wrapper.output_bits,
            self.wrapper.flip_flops(),
            self.design,
            self.router_flip_flops
        );
        let _ = writeln!(
            s,
            "\nper block (hierarchical synthesis, no optimization across blocks; instances \
             of {}):",
            self.block_module
        );
        let head = if self.fpga() {
            format!(
                "{:<42} {:>5} {:>7} {:>7} {:>6} {:>5}\n",
                "block", "inst", "LUT4", "FF", "carry", "RAM"
            )
        } else {
            format!(
                "{:<42} {:>5} {:>9} {:>9} {:>7}\n",
                "block", "inst", "gates", "inverters", "FF"
            )
        };
        s.push_str(&head);
        for b in &self.blocks {
            let label = if b.title.is_empty() {
                b.block.clone()
            } else {
                format!("{} ({})", b.title, b.block)
            };
            s.push_str(&self.row(&label, &b.instances.to_string(), &b.resources));
        }
        s.push_str(&self.row("glue between the blocks", "-", &self.glue));
        s.push_str(&self.row("scan wrapper", "1", &self.wrapper_cells));
        s.push_str(&self.row("total (hierarchical)", "-", &self.hierarchical_total));
        s.push_str(&self.row("total (flattened)", "-", &self.total));
        s.push_str(&self.row(
            &format!("{} alone (flattened)", self.design),
            "-",
            &self.router,
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_a_device_but_generic() {
        for t in Target::all() {
            assert_eq!(t.device().is_some(), t != Target::Generic);
            assert_eq!(t.default_clock_mhz().is_some(), t != Target::Generic);
        }
    }

    #[test]
    fn the_script_keeps_hierarchy_first_then_flattens() {
        let s = script(Target::Ice40Hx8k, "r", "router.v");
        let hier = s.find("synth_ice40 -noflatten").unwrap();
        let flat = s.find("synth_ice40 -top").unwrap();
        assert!(hier < s.find("design -load rtl").unwrap());
        assert!(flat > hier);
        assert!(script(Target::Generic, "r", "router.v").contains("ltp -noff"));
        assert!(script(Target::Ecp5_85k, "r", "router.v").contains("synth_ecp5 -top"));
    }
}
