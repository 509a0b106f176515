//! What the output directory holds around the router besides its checks:
//! the header comment of `rtl/<name>.v`, the FuseSoC core, the drawing of
//! the router, and the waveforms of `make sim WAVES=1`. Oracles: the
//! directory's own files (routergen.toml read back by the toml crate, the
//! file tree), the spec's port and VC counts, the real `fusesoc`, Icarus
//! and Verilator, and an SVG/VCD read by parsers written here.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{generate, routergen, stderr};

/// Every file under `dir` (but build/), relative.
fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.file_name().unwrap() != "build" {
                    walk(root, &p, out);
                }
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn name_of(dir: &Path) -> String {
    let rtl: Vec<PathBuf> = files(dir)
        .into_iter()
        .filter(|p| p.starts_with("rtl"))
        .collect();
    assert_eq!(rtl.len(), 1, "{rtl:?}");
    rtl[0].file_stem().unwrap().to_string_lossy().into_owned()
}

/// The comment lines that open `rtl/<name>.v`, without their `// `.
fn header(dir: &Path) -> Vec<String> {
    let name = name_of(dir);
    let text = fs::read_to_string(dir.join(format!("rtl/{name}.v"))).unwrap();
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .map(|l| l.trim_start_matches("//").trim_start().to_string())
        .collect()
}

/// The header names every resolved setting with routergen.toml's value,
/// every other file of the directory (and no file that is not there), and
/// the core's instances in the numbers the spec implies: P V input
/// buffers and decoders, one VC allocator, one crossbar.
#[test]
fn rtl_header_lists_spec_files_and_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    generate(&dir, &["--algo", "duato", "--vcs", "3", "--dims", "3"]);
    let h = header(&dir);
    let toml: toml::Table = fs::read_to_string(dir.join("routergen.toml"))
        .unwrap()
        .parse()
        .unwrap();
    for (k, v) in &toml {
        let v = match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        assert!(
            h.iter().any(|l| {
                l.split_once('=')
                    .is_some_and(|(a, b)| a.trim() == k && b.split_whitespace().next() == Some(&v))
            }),
            "header lacks {k} = {v}:\n{}",
            h.join("\n")
        );
    }
    let name = name_of(&dir);
    let rtl = PathBuf::from(format!("rtl/{name}.v"));
    let listed: Vec<PathBuf> = h
        .iter()
        .skip_while(|l| !l.starts_with("The other files"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| PathBuf::from(l.split_whitespace().next().unwrap()))
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    // A listed directory (`prove/`) stands for every file under it.
    let dirs: Vec<&PathBuf> = listed
        .iter()
        .filter(|p| p.to_string_lossy().ends_with('/'))
        .collect();
    let mut present: Vec<PathBuf> = files(&dir)
        .into_iter()
        .filter(|p| *p != rtl)
        .map(|p| {
            dirs.iter()
                .find(|d| p.starts_with(d))
                .map_or(p, |d| (*d).clone())
        })
        .collect();
    present.dedup();
    assert_eq!(sorted, present, "{}", h.join("\n"));
    // 3-D mesh: P = 7 ports, V = 3.
    let count = |stem: &str| -> Option<String> {
        h.iter()
            .find(|l| l.split_whitespace().next() == Some(stem))
            .and_then(|l| l.split_once(stem))
            .and_then(|(_, rest)| rest.split_once(':'))
            .map(|(names, _)| names.trim().to_string())
    };
    assert_eq!(
        count("flow_control_unit").as_deref(),
        Some("in_p[0..6].vc[0..2].buffer")
    );
    assert_eq!(
        count("address_decoder").as_deref(),
        Some("route_p[0..6].vc[0..2].decoder, arrive_p[0..6].decoder")
    );
    assert_eq!(count("vc_allocator").as_deref(), Some("valloc"));
    assert_eq!(count("crossbar").as_deref(), Some("xbar"));
    assert!(h.iter().any(|l| l.contains("p6 -2")), "{}", h.join("\n"));
}

/// The small router the tool tests run: dimension order on a 3x3 mesh
/// (the testbench's node, the middle one, has every link).
const SMALL: [&str; 6] = ["--algo", "dor", "--radix", "3", "--depth", "2"];

/// `<name>.core` runs under the real FuseSoC (PyPI, in .venv): its Icarus
/// simulation target passes the testbench, and its Verilator lint target
/// passes `verilator --lint-only -Wall`.
#[test]
fn fusesoc_core_runs_the_testbench() {
    use routergen::flows::require_tool;
    if !["fusesoc", "iverilog", "vvp", "verilator"]
        .iter()
        .all(|t| require_tool(t))
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    generate(&dir, &SMALL);
    let name = name_of(&dir);
    let work = tmp.path().join("work");
    for target in ["sim", "lint"] {
        let (ok, said) = common::fusesoc(&dir, &format!("{name}.core"), target, &work);
        assert!(ok, "fusesoc {target}: {said}");
        if target == "sim" {
            assert!(
                said.lines()
                    .any(|l| l.starts_with(&format!("PASS: {name}"))),
                "{said}"
            );
        }
    }
}

/// The attributes `attrs` of the SVG elements `tag` whose line holds
/// `having`, as numbers.
fn svg_numbers(svg: &str, tag: &str, attrs: &[&str], having: &str) -> Vec<Vec<f64>> {
    svg.lines()
        .filter(|l| {
            l.starts_with(&format!("<{tag} "))
                && l.contains(having)
                && attrs.iter().all(|a| l.contains(&format!(" {a}=\"")))
        })
        .map(|l| {
            attrs
                .iter()
                .map(|a| {
                    let k = format!(" {a}=\"");
                    let at = l.find(&k).unwrap() + k.len();
                    l[at..at + l[at..].find('"').unwrap()].parse().unwrap()
                })
                .collect()
        })
        .collect()
}

/// router.svg is linked from report.md and draws the crossbar pairs the
/// router wires. Oracle (Chien §5.1): dimension order on a 2-D mesh never
/// turns back and never turns from dimension 1 to dimension 0; every link
/// input reaches the local port and goes straight on; the local input
/// reaches every link. So the pairs are input 0 -> 1..4, inputs 1, 2 (dim 0)
/// -> 0, straight, 3, 4; inputs 3, 4 -> 0, straight: 12 (and 0 -> 0 where a
/// packet may be sent to its own node).
#[test]
fn router_svg_draws_the_wired_crossbar_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    generate(&dir, &["--algo", "dor", "--vcs", "2"]);
    let md = fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("(router.svg)"), "report.md links the drawing");
    let svg = fs::read_to_string(dir.join("router.svg")).unwrap();
    assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
    let xbar = svg_numbers(
        &svg,
        "rect",
        &["x", "y", "width", "height"],
        "fill=\"#ffffff\"",
    );
    assert_eq!(xbar.len(), 1, "one crossbar");
    let xbar = &xbar[0];
    let p = 5.0;
    let cell = xbar[2] / p;
    let mut pairs: Vec<(usize, usize)> = svg_numbers(&svg, "circle", &["cx", "cy"], "")
        .iter()
        .map(|c| {
            let o = ((c[0] - xbar[0]) / cell) as usize;
            let i = ((c[1] - xbar[1]) / cell) as usize;
            (i, o)
        })
        .collect();
    pairs.sort();
    pairs.retain(|&(i, o)| !(i == 0 && o == 0));
    let want = vec![
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 0),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 0),
        (2, 1),
        (2, 3),
        (2, 4),
        (3, 0),
        (3, 4),
        (4, 0),
        (4, 3),
    ];
    assert_eq!(pairs, want, "input, output pairs drawn");
    // Two VCs per port, each with its buffer of D = 4 flits of 16 bits.
    assert_eq!(svg.matches("FC, 4 x 16b").count(), 10);
}

/// A VCD as a waveform viewer reads it: the declared variables by scope
/// path, and the times of its value changes.
struct Vcd {
    vars: Vec<String>,
    times: Vec<u64>,
    changes: usize,
}

fn parse_vcd(text: &str) -> Vcd {
    let mut scope: Vec<String> = Vec::new();
    let mut vars = Vec::new();
    let mut times = Vec::new();
    let mut changes = 0;
    let mut defs = true;
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        if defs {
            match w {
                "$scope" => {
                    let _kind = words.next().unwrap();
                    scope.push(words.next().unwrap().to_string());
                }
                "$upscope" => {
                    scope.pop().expect("balanced scopes");
                }
                "$var" => {
                    let _kind = words.next().unwrap();
                    let _width: u32 = words.next().unwrap().parse().expect("a width");
                    let _id = words.next().unwrap();
                    let name = words.next().unwrap();
                    vars.push(format!("{}.{name}", scope.join(".")));
                }
                "$enddefinitions" => defs = false,
                _ => {}
            }
        } else if w.starts_with(['b', 'B', 'r', 'R']) {
            // A vector or real value, then the variable's id.
            changes += 1;
            words.next().expect("an id after a vector value");
        } else if w.starts_with(['0', '1', 'x', 'X', 'z', 'Z']) {
            changes += 1;
        } else if let Some(t) = w.strip_prefix('#') {
            times.push(t.parse().expect("a time"));
        }
    }
    assert!(!defs, "no $enddefinitions");
    assert!(times.windows(2).all(|t| t[0] < t[1]), "times must increase");
    Vcd {
        vars,
        times,
        changes,
    }
}

/// Breaks the router of `dir`: bit 15 of every flit entering on port 1
/// flipped (the 16-bit flits of [`SMALL`]).
fn flip_port1_bit(dir: &Path, name: &str) {
    let rtl = dir.join(format!("rtl/{name}.v"));
    let text = fs::read_to_string(&rtl).unwrap();
    let broken = text.replacen(
        ".in_data_1(p1_in_data)",
        ".in_data_1(p1_in_data ^ 16'h8000)",
        1,
    );
    assert_ne!(broken, text);
    fs::write(&rtl, broken).unwrap();
}

/// Whether make printed the failing run's waveform `path` on a line of
/// its own (not only in the echoed recipe).
fn printed_path(said: &str, path: &str) -> bool {
    let want = format!("waves of the failing run: {path}");
    said.lines().any(|l| l == want)
}

/// The cycle of a testbench's `FAIL: cycle C: ...` line.
fn fail_cycle(said: &str) -> u64 {
    said.lines()
        .find_map(|l| l.strip_prefix("FAIL: cycle "))
        .and_then(|l| l.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("a FAIL: cycle line: {said}"))
}

/// `make sim WAVES=1` writes build/<name>.vcd with the router's ports and
/// its internal stage signals, over the whole run; a failing `make sim`
/// (a flipped data bit on port 1) writes build/<name>_fail.vcd by itself,
/// covering the cycles up to the failure, and prints its path.
#[test]
fn make_sim_writes_waves_and_dumps_a_failing_run() {
    use routergen::flows::require_tool;
    if !["make", "iverilog", "vvp"].iter().all(|t| require_tool(t)) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    generate(&dir, &SMALL);
    let name = name_of(&dir);
    let run = |vars: &[&str]| {
        let out = std::process::Command::new("make")
            .arg("-C")
            .arg(&dir)
            .arg("sim")
            .args(vars)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), said)
    };
    let (ok, said) = run(&["WAVES=1"]);
    assert!(ok, "{said}");
    let cycles: u64 = said
        .lines()
        .find(|l| l.starts_with("PASS"))
        .and_then(|l| l.split("; ").last())
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the PASS line counts cycles");
    assert!(said.contains(&format!("waves: build/{name}.vcd")), "{said}");
    let vcd = parse_vcd(&fs::read_to_string(dir.join(format!("build/{name}.vcd"))).unwrap());
    for port in ["clk", "rst", "p0_in_data", "p1_out_valid", "p2_in_credit"] {
        assert!(
            vcd.vars.iter().any(|v| v.ends_with(&format!("dut.{port}"))),
            "{port} not in the VCD"
        );
    }
    // Inside the router: the core's input buffers and allocators.
    assert!(
        vcd.vars.iter().any(|v| v.contains(".core.")),
        "no core signals"
    );
    assert!(vcd.changes > 1000, "{} value changes", vcd.changes);
    let span = *vcd.times.last().unwrap();
    // The testbench's clock period in its time units covers every cycle.
    assert!(
        span >= cycles,
        "the VCD ends at {span}, the run took {cycles} cycles"
    );

    flip_port1_bit(&dir, &name);
    let (ok, said) = run(&[]);
    assert!(!ok && said.contains("FAIL"), "{said}");
    let fail_cycle = fail_cycle(&said);
    let path = format!("build/{name}_fail.vcd");
    assert!(printed_path(&said, &path), "{said}");
    let vcd = parse_vcd(&fs::read_to_string(dir.join(&path)).unwrap());
    assert!(vcd.vars.iter().any(|v| v.ends_with("dut.p1_in_data")));
    let span = *vcd.times.last().unwrap();
    assert!(
        span >= fail_cycle,
        "the failing run's VCD ends at {span}, before the failure at cycle {fail_cycle}"
    );
}

/// The bash completion script parses (`bash -n`) and completes every
/// subcommand and a subcommand's options; the man pages are roff pages
/// named after each command; an unknown shell is refused by name.
#[test]
fn completions_and_man_pages() {
    let out = routergen(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = String::from_utf8(out.stdout).unwrap();
    for word in ["sim", "check", "synth", "--algo", "--engine", "--topology"] {
        assert!(script.contains(word), "the bash script lacks {word}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("routergen.bash");
    fs::write(&file, &script).unwrap();
    let bash = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .unwrap();
    assert!(bash.status.success(), "bash -n: {}", stderr(&bash));
    let dir = tmp.path().join("man");
    let out = routergen(&["man", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for page in [
        "routergen.1",
        "routergen-sim.1",
        "routergen-check.1",
        "routergen-man.1",
    ] {
        let text = fs::read_to_string(dir.join(page)).unwrap();
        let name = page.trim_end_matches(".1");
        assert!(
            text.lines()
                .any(|l| l.starts_with(".TH") && l.to_lowercase().contains(name)),
            "{page} has no .TH {name}"
        );
    }
    let bad = routergen(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    let said = stderr(&bad);
    assert!(said.contains("tcsh") && said.contains("bash"), "{said}");
}

/// `make sim-verilator WAVES=1` writes build/<name>.fst: an FST header block
/// (block type 0) whose end time is the harness's last dump (two per
/// cycle: 2 C - 1 for a run of C cycles) and whose variable count covers
/// the router's ports and more (the signals inside). A failing `make
/// sim-verilator` (a flipped data bit on port 1) writes
/// build/<name>_fail.fst by itself and prints its path: read back by
/// GTKWave's fst2vcd, it holds the router's ports and ends at the
/// failing cycle's first dump (2 (c - 1) for a failure in cycle c: the
/// harness checks the outputs between the cycle's two dumps). Ignored: a
/// traced Verilator build takes a minute or two; `make waves-fst` runs it.
#[test]
#[ignore]
fn make_sim_verilator_writes_an_fst() {
    use routergen::flows::require_tool;
    if !["make", "verilator", "fst2vcd"]
        .iter()
        .all(|t| require_tool(t))
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    generate(&dir, &SMALL);
    let name = name_of(&dir);
    let out = std::process::Command::new("make")
        .arg("-C")
        .arg(&dir)
        .args(["sim-verilator", "WAVES=1"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}{}", stderr(&out));
    let cycles: u64 = said
        .lines()
        .find(|l| l.starts_with("PASS"))
        .and_then(|l| l.split("; ").last())
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the PASS line counts cycles");
    let fst = fs::read(dir.join(format!("build/{name}.fst"))).unwrap();
    let u64_at = |at: usize| u64::from_be_bytes(fst[at..at + 8].try_into().unwrap());
    assert_eq!(fst[0], 0, "an FST header block first");
    assert_eq!(u64_at(9), 0, "start time");
    assert_eq!(u64_at(17), 2 * cycles - 1, "end time");
    // Fields after the times: endianness test, memory, scopes, variables.
    let vars = u64_at(49);
    // 5 ports of 12 signals, clk and rst.
    assert!(vars > 62, "{vars} variables");

    flip_port1_bit(&dir, &name);
    let out = std::process::Command::new("make")
        .arg("-C")
        .arg(&dir)
        .arg("sim-verilator")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "{said}");
    let fail_cycle = fail_cycle(&said);
    let path = format!("build/{name}_fail.fst");
    assert!(printed_path(&said, &path), "{said}");
    let vcd = std::process::Command::new("fst2vcd")
        .arg(dir.join(&path))
        .output()
        .unwrap();
    assert!(vcd.status.success(), "fst2vcd: {}", stderr(&vcd));
    let vcd = parse_vcd(&String::from_utf8_lossy(&vcd.stdout));
    for port in [
        "clk",
        "rst",
        "p0_in_data",
        "p1_in_data",
        "p1_out_valid",
        "p2_in_credit",
    ] {
        assert!(
            vcd.vars.iter().any(|v| v == &format!("TOP.{name}.{port}")),
            "{port} not in the failing run's FST"
        );
    }
    assert_eq!(vcd.times.last(), Some(&(2 * (fail_cycle - 1))));
}
