//! `routergen fpga`: a bring-up design for an FPGA board (templates/fpga/,
//! pins in fpga/): the 2x2 mesh `routergen network` writes, with its
//! AXI4-Stream endpoints, a traffic generator and checker per node, packet
//! and error counts on the LEDs and a UART line; with `--build`, Yosys,
//! nextpnr and icepack or ecppack make the bitstream.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::algo::Network;
use crate::error::{Error, Result};
use crate::flows::nextpnr::{self, Family};
use crate::flows::yosys;
use crate::flows::TempDir;
use crate::network::{self, NetworkParams};
use crate::router;
use crate::spec::{RouterSpec, Topology};
use crate::synth::{tool_error, Resources, Target};

/// A board routergen writes bring-up designs for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Board {
    /// The name `routergen fpga` takes (`icebreaker`).
    pub name: &'static str,
    /// The board's product name.
    pub title: &'static str,
    /// Its FPGA.
    pub target: Target,
    /// The pin constraints file in fpga/.
    pub constraints: &'static str,
    #[serde(skip)]
    /// The constraints file's text.
    pub constraints_text: &'static str,
    /// The board's oscillator.
    pub clock_mhz: f64,
    /// The design runs at clock_mhz / divide.
    pub divide: u32,
    /// User LEDs the design drives.
    pub leds: u32,
    /// LEDs lit by a low level, as a bit string, led[n-1] first.
    pub active_low: &'static str,
}

/// The boards, with their oscillators and LEDs (from the constraint files'
/// sources).
pub const BOARDS: [Board; 4] = [
    Board {
        name: "icebreaker",
        title: "iCEBreaker",
        target: Target::Ice40Up5k,
        constraints: "icebreaker.pcf",
        constraints_text: include_str!("../fpga/icebreaker.pcf"),
        clock_mhz: 12.0,
        divide: 1,
        leds: 7,
        active_low: "0000011",
    },
    Board {
        name: "hx8k-breakout",
        title: "iCE40-HX8K Breakout Board",
        target: Target::Ice40Hx8k,
        constraints: "hx8k-breakout.pcf",
        constraints_text: include_str!("../fpga/hx8k-breakout.pcf"),
        clock_mhz: 12.0,
        divide: 1,
        leds: 8,
        active_low: "00000000",
    },
    Board {
        name: "ulx3s",
        title: "ULX3S",
        target: Target::Ecp5_85k,
        constraints: "ulx3s.lpf",
        constraints_text: include_str!("../fpga/ulx3s.lpf"),
        clock_mhz: 25.0,
        divide: 1,
        leds: 8,
        active_low: "00000000",
    },
    Board {
        name: "orangecrab",
        title: "OrangeCrab r0.2",
        target: Target::Ecp5_25k,
        constraints: "orangecrab.lpf",
        constraints_text: include_str!("../fpga/orangecrab.lpf"),
        // 48 MHz halved: the default design reaches 100 MHz on the -25F,
        // but the reference router with its interface reaches 55 MHz on
        // the ECP5 (docs/network.md), too close to 48 for larger routers.
        clock_mhz: 48.0,
        divide: 2,
        leds: 3,
        active_low: "111",
    },
];

impl Board {
    /// The board called `name` (case ignored), or an error listing them.
    pub fn by_name(name: &str) -> Result<Board> {
        BOARDS
            .iter()
            .find(|b| b.name == name.trim().to_ascii_lowercase())
            .copied()
            .ok_or_else(|| {
                Error::InvalidSpec(format!(
                    "board = {name:?} is not a board routergen knows; allowed: {}",
                    BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
                ))
            })
    }

    /// Its FPGA family (iCE40 or ECP5).
    pub fn family(&self) -> Family {
        self.target.device().expect("boards carry FPGAs").family
    }

    /// The clock of the design in MHz.
    pub fn sys_mhz(&self) -> f64 {
        self.clock_mhz / self.divide as f64
    }

    /// The bring-up design's top module name.
    pub fn top(&self) -> String {
        format!("routergen_{}_top", self.name.replace('-', "_"))
    }
}

/// The mesh the bring-up design builds: 2 by 2.
pub const MESH_RADIX: u32 = 2;

/// Why `spec` cannot be the router of the bring-up mesh, if it cannot.
pub fn check_spec(spec: &RouterSpec) -> Result<()> {
    if spec.topology != Topology::Mesh || spec.dims != 2 || spec.radix != MESH_RADIX {
        return Err(Error::InvalidSpec(format!(
            "the bring-up design is a 2x2 mesh: it needs topology = mesh, dims = 2, \
             radix = 2; got a {}-ary {}-dimensional {}",
            spec.radix, spec.dims, spec.topology
        )));
    }
    network::check(spec, &NetworkParams::default())?;
    router::supported(spec)
}

/// Why the bring-up mesh of `spec` cannot fit `board`'s block RAMs, if
/// it cannot (or `buffers = lutram` on an iCE40 board, which has no
/// distributed RAM): with `buffers = bram` each input VC of the four routers takes
/// its own RAMs, on the ports the mesh wires (the local port and one link
/// per dimension: synthesis removes the buffers of the unwired ones).
pub fn check_rams(spec: &RouterSpec, board: &Board) -> Result<()> {
    board.target.check_buffers(spec)?;
    if spec.buffers != crate::spec::BufferStorage::Bram {
        return Ok(());
    }
    let routers = MESH_RADIX * MESH_RADIX;
    let wired = spec.dims + 1;
    let buffers = routers * wired * spec.vcs;
    let need = buffers * board.target.rams_per_buffer(spec.flit_width);
    let have = board.target.block_rams().unwrap_or(0);
    if need > have {
        return Err(Error::InvalidSpec(format!(
            "buffers = bram: the bring-up mesh's {buffers} input buffers ({routers} routers \
             of {} wired ports and vcs = {}) take {need} block RAMs of {}-bit flits, and \
             the {} of the {} has {have}; use buffers = flops, fewer vcs or a narrower \
             flit_width",
            wired,
            spec.vcs,
            spec.flit_width,
            board.target.part(),
            board.title
        )));
    }
    Ok(())
}

#[derive(Serialize)]
struct TrafficNode {
    node: u32,
    /// Its node id, hexadecimal.
    id: String,
    /// Its generator's LFSR seed, hexadecimal.
    seed: String,
}

const TRAFFIC_TEMPLATE: &str = include_str!("../templates/fpga/traffic.v.tera");
const TOP_TEMPLATE: &str = include_str!("../templates/fpga/board_top.v.tera");
/// The traffic generator and checker of a node, plain Verilog.
pub const NODE_VERILOG: &str = include_str!("../templates/fpga/routergen_traffic_node.v");
/// The UART line reporter of the packet and error counts, plain Verilog.
pub const UART_VERILOG: &str = include_str!("../templates/fpga/routergen_uart_report.v");

fn render(template: &str, ctx: &tera::Context, what: &str) -> Result<String> {
    tera::Tera::one_off(template, ctx, false).map_err(|e| Error::template(what, &e))
}

/// `routergen_traffic` for `spec`: its network with a traffic generator and
/// checker on every endpoint.
pub fn traffic_verilog(spec: &RouterSpec) -> Result<String> {
    check_spec(spec)?;
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let coord_bits = crate::interface::coord_bits(spec.topology, spec.radix);
    let nodes: Vec<TrafficNode> = (0..net.nodes())
        .map(|n| TrafficNode {
            node: n,
            id: format!("{:x}", crate::interface::node_id(&net, coord_bits, n)),
            // Distinct and non-zero for the four nodes.
            seed: format!("{:04x}", 0xACE1u32 ^ ((0x1F35 * (n + 1)) & 0xFFFF)),
        })
        .collect();
    let mut ctx = tera::Context::new();
    ctx.insert("network", &network::top_name(spec));
    ctx.insert("shape", &format!("{0}x{0} mesh", spec.radix));
    ctx.insert("w", &spec.flit_width);
    ctx.insert("nb", &(spec.dims * coord_bits));
    ctx.insert("nodes", &net.nodes());
    ctx.insert("ib", &net.nodes().trailing_zeros());
    ctx.insert("node_list", &nodes);
    render(TRAFFIC_TEMPLATE, &ctx, "traffic")
}

/// The board's top module.
pub fn top_verilog(spec: &RouterSpec, board: &Board) -> Result<String> {
    let mut ctx = tera::Context::new();
    let hz = board.sys_mhz() * 1e6;
    ctx.insert("top", &board.top());
    ctx.insert("title", board.title);
    ctx.insert("part", board.target.part());
    ctx.insert("router", &spec.name());
    ctx.insert("clock_mhz", &board.clock_mhz);
    ctx.insert("sys_mhz", &board.sys_mhz());
    ctx.insert("divide", &board.divide);
    ctx.insert("leds", &board.leds);
    ctx.insert("active_low", board.active_low);
    ctx.insert("constraints", board.constraints);
    ctx.insert("uart_div", &((hz / 115_200.0).round() as u64));
    ctx.insert("uart_period", &((hz / 2.0) as u64));
    render(TOP_TEMPLATE, &ctx, "board top")
}

/// The design files for `board`, by path in the output directory: the
/// network (its routers and network interfaces), the traffic nodes and
/// their wrapper, the UART reporter, the board top, the pin constraints,
/// the spec and a short guide.
pub fn design_files(spec: &RouterSpec, board: &Board) -> Result<Vec<(PathBuf, String)>> {
    check_spec(spec)?;
    check_rams(spec, board)?;
    let mut files = vec![(PathBuf::from(crate::output::SPEC_FILE), spec.to_toml())];
    let texts = [
        network::verilog(spec, &NetworkParams::default())?,
        NODE_VERILOG.to_string(),
        UART_VERILOG.to_string(),
        traffic_verilog(spec)?,
        top_verilog(spec, board)?,
    ];
    files.extend(
        sources(spec, board)
            .into_iter()
            .map(PathBuf::from)
            .zip(texts),
    );
    files.push((
        PathBuf::from(board.constraints),
        board.constraints_text.to_string(),
    ));
    files.push((PathBuf::from("BRINGUP.md"), guide(spec, board)));
    Ok(files)
}

/// The source files of the design, in the order Yosys reads them.
pub fn sources(spec: &RouterSpec, board: &Board) -> Vec<String> {
    vec![
        format!("rtl/{}.v", network::top_name(spec)),
        "rtl/routergen_traffic_node.v".into(),
        "rtl/routergen_uart_report.v".into(),
        "rtl/routergen_traffic.v".into(),
        format!("rtl/{}.v", board.top()),
    ]
}

fn bitstream_name(board: &Board) -> String {
    match board.family() {
        Family::Ice40 => format!("{}.bin", board.name),
        Family::Ecp5 => format!("{}.bit", board.name),
    }
}

fn guide(spec: &RouterSpec, board: &Board) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# routergen bring-up: {} on the {}\n\n\
         Four `{}` routers in a 2x2 mesh (`routergen network`), each node's AXI4-Stream \
         endpoint driven by a traffic generator and checker (`rtl/routergen_traffic_node.v` \
         says what is checked), clocked at {} MHz.\n\n\
         - LED 0 blinks while packets arrive (bit 20 of the count of packets received).\n\
         - LED 1 lights when any checker has counted an error.\n\
         - UART, 115200 baud 8N1, twice a second: `P=<packets> E=<errors>` in hexadecimal.\n\
         - Pins: `{}`.\n\n\
         Build the bitstream `build/{}` with `routergen fpga --board {} --config \
         routergen.toml -o DIR --build` (Yosys, nextpnr, {}).",
        spec.name(),
        board.title,
        spec.name(),
        board.sys_mhz(),
        board.constraints,
        bitstream_name(board),
        board.name,
        board.family().packer()
    );
    s
}

/// What `--build` produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildReport {
    /// The board's name.
    pub board: String,
    /// The FPGA part.
    pub part: String,
    /// Resources the design uses.
    pub resources: Resources,
    /// nextpnr's utilization: per cell type, (used, available).
    pub utilization: std::collections::BTreeMap<String, (u64, u64)>,
    /// nextpnr's maximum frequency of the design clock, if it reported one.
    pub fmax_mhz: Option<f64>,
    /// The design's clock (oscillator / divide), MHz.
    pub clock_mhz: f64,
    /// The bitstream, relative to the output directory.
    pub bitstream: String,
}

impl BuildReport {
    /// The report as `routergen fpga --build` prints it.
    pub fn to_text(&self) -> String {
        let r = &self.resources;
        let mut s = format!(
            "{} ({}): LUT4 {}, flip-flops {}, carries {}, RAMs {}\n",
            self.board, self.part, r.luts, r.flip_flops, r.carries, r.rams
        );
        for (bel, (u, a)) in &self.utilization {
            if *u > 0 {
                let _ = writeln!(s, "  {bel}: {u}/{a}");
            }
        }
        match self.fmax_mhz {
            Some(f) => {
                let _ = writeln!(
                    s,
                    "Fmax {f:.2} MHz for a {} MHz clock: timing {}",
                    self.clock_mhz,
                    if f >= self.clock_mhz {
                        "met"
                    } else {
                        "NOT met (the board may misbehave)"
                    }
                );
            }
            None => s.push_str("Fmax: not reported by nextpnr\n"),
        }
        let _ = writeln!(s, "bitstream: {}", self.bitstream);
        s
    }
}

/// Synthesizes, places, routes and packs the design already written in
/// `dir`; the products go to `dir/build/` once all steps have succeeded.
pub fn build(spec: &RouterSpec, board: &Board, dir: &Path) -> Result<BuildReport> {
    let family = board.family();
    crate::synth::check_tools(board.target)?;
    let packer = family.packer();
    crate::flows::require(packer, Some("the bitstream"))?;
    let work = TempDir::new("fpga").map_err(tool_error)?;
    let w = work.path();
    let mut files = sources(spec, board);
    files.push(board.constraints.to_string());
    for f in &files {
        let to = w.join(Path::new(f).file_name().expect("file names"));
        std::fs::copy(dir.join(f), &to).map_err(|e| Error::Output {
            path: to.clone(),
            message: e.to_string(),
        })?;
    }
    let reads: Vec<String> = sources(spec, board)
        .iter()
        .map(|f| f.trim_start_matches("rtl/").to_string())
        .collect();
    let script = format!(
        "read_verilog {}\nhierarchy -check -top {top}\n{} -top {top} -json design.json\n\
         tee -q -o stat.json stat -json\n",
        reads.join(" "),
        family.synth_command(),
        top = board.top()
    );
    yosys::run_script(family.yosys(), w, &script).map_err(tool_error)?;
    let stat =
        yosys::parse_stat_json(&std::fs::read_to_string(w.join("stat.json")).map_err(|e| {
            Error::Output {
                path: "stat.json".into(),
                message: e.to_string(),
            }
        })?)
        .map_err(tool_error)?;
    let cells = stat.get(&board.top()).cloned().unwrap_or_default();
    let device = board.target.device().expect("boards carry FPGAs");
    let routed = match family {
        Family::Ice40 => "design.asc",
        Family::Ecp5 => "design.config",
    };
    let pnr = nextpnr::place_and_route(
        w,
        device,
        "design.json",
        board.sys_mhz(),
        Some(board.constraints),
        Some(routed),
    )
    .map_err(tool_error)?;
    if !pnr.fits {
        let over: Vec<String> = pnr
            .utilization
            .iter()
            .filter(|(_, (u, a))| u > a)
            .map(|(bel, (u, a))| format!("{bel} {u}/{a}"))
            .collect();
        return Err(Error::Output {
            path: dir.join("build"),
            message: format!(
                "the design does not fit the {} ({}): choose a smaller router (now vcs = {}, \
                 buffer_depth = {}, flit_width = {}) or a larger board",
                board.target.part(),
                over.join(", "),
                spec.vcs,
                spec.buffer_depth,
                spec.flit_width
            ),
        });
    }
    let bit = bitstream_name(board);
    nextpnr::pack(w, family, routed, &bit).map_err(tool_error)?;
    let out = dir.join("build");
    std::fs::create_dir_all(&out).map_err(|e| Error::Output {
        path: out.clone(),
        message: e.to_string(),
    })?;
    for f in [
        bit.as_str(),
        "yosys.log",
        "nextpnr.log",
        "nextpnr-report.json",
    ] {
        std::fs::copy(w.join(f), out.join(f)).map_err(|e| Error::Output {
            path: out.join(f),
            message: e.to_string(),
        })?;
    }
    Ok(BuildReport {
        board: board.name.to_string(),
        part: board.target.part().to_string(),
        resources: Resources::from(&cells),
        utilization: pnr.utilization.clone(),
        fmax_mhz: pnr.fmax(),
        clock_mhz: board.sys_mhz(),
        bitstream: format!("build/{bit}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_is_found_by_name_and_has_its_constraints() {
        for b in BOARDS {
            assert_eq!(Board::by_name(b.name).unwrap().name, b.name);
            assert_eq!(b.active_low.len() as u32, b.leds);
            assert!(b.constraints_text.contains("clk"));
            assert!(b.constraints_text.contains("uart_tx"));
            for i in 0..b.leds {
                assert!(
                    b.constraints_text.contains(&format!("led[{i}]")),
                    "{} led[{i}]",
                    b.name
                );
            }
        }
        let e = Board::by_name("arty").unwrap_err().to_string();
        assert!(e.contains("arty") && e.contains("ulx3s"), "{e}");
    }
}
