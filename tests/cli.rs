//! The `routergen` command as a user meets it: the design-card command,
//! presets, flags over files, and every kind of bad input.

mod common;

use std::fs;
use std::path::Path;

use common::{routergen, stderr, stdout};

fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    let out = dir.to_str().unwrap();
    all.extend(["-o", out]);
    routergen(&all)
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn the_design_card_command_works_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_routergen"))
        .current_dir(tmp.path())
        .args([
            "--algo", "planar", "--ports", "4", "--vcs", "3", "-o", "out/",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // The defaults it chose are printed and marked.
    for line in [
        "topology       = mesh  (default)",
        "dims           = 2  (default)",
        "vcs            = 3\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let mut files: Vec<String> = fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "Makefile",
            "prove",
            "report.json",
            "report.md",
            "router.svg",
            "router_planar_mesh2d_k4_v3_w16_d4.core",
            "routergen.toml",
            "rtl",
            "synth",
            "tb"
        ]
    );
    // The router itself: one top module named after the configuration,
    // lint-clean in Verilator.
    let name = "router_planar_mesh2d_k4_v3_w16_d4";
    let rtl = read(&out_dir, &format!("rtl/{name}.v"));
    assert!(
        rtl.contains(&format!("module {name} (")),
        "top module missing"
    );
    if routergen::flows::require_tool("verilator") {
        let warnings = routergen::flows::verilator::lint(&rtl, name).unwrap();
        assert!(warnings.is_empty(), "{warnings:#?}");
    }
    let spec = read(&out_dir, "routergen.toml");
    assert!(
        spec.contains("algorithm = \"planar\"") && spec.contains("vcs = 3"),
        "{spec}"
    );
    // A 2-D planar-adaptive router: Figure 10 gives 6,344 gates at n = 2 with V = 3.
    let json: serde_json::Value = serde_json::from_str(&read(&out_dir, "report.json")).unwrap();
    assert_eq!(json["model"]["gates"]["total"].as_f64(), Some(6344.0));
    // No stray temporary directories beside the output.
    let leftovers: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

#[test]
fn output_is_byte_identical_and_regenerates_from_its_own_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    let args = [
        "--algo",
        "duato",
        "--radix",
        "5",
        "--lookahead",
        "--vcs",
        "3",
    ];
    assert!(run_in(&a, &args).status.success());
    let first: Vec<String> = ["routergen.toml", "report.md", "report.json"]
        .iter()
        .map(|f| read(&a, f))
        .collect();
    // Again into the same directory: replaced, identical.
    assert!(run_in(&a, &args).status.success());
    // From the written spec alone, into another directory: identical.
    let spec = a.join("routergen.toml");
    assert!(run_in(&b, &["--config", spec.to_str().unwrap()])
        .status
        .success());
    for (i, f) in ["routergen.toml", "report.md", "report.json"]
        .iter()
        .enumerate()
    {
        assert_eq!(read(&a, f), first[i], "{f} changed on the second run");
        assert_eq!(
            read(&b, f),
            first[i],
            "{f} differs when regenerated from routergen.toml"
        );
    }
}

#[test]
fn flags_override_the_config_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("r.toml");
    fs::write(
        &cfg,
        "algorithm = \"dor\"\ndims = 3\nradix = 5\nflit_width = 32\n",
    )
    .unwrap();
    let out_dir = tmp.path().join("o");
    let out = run_in(
        &out_dir,
        &["--config", cfg.to_str().unwrap(), "--dims", "2"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let spec = read(&out_dir, "routergen.toml");
    assert!(spec.contains("dims = 2"), "flag lost: {spec}");
    assert!(
        spec.contains("radix = 5") && spec.contains("flit_width = 32"),
        "file lost: {spec}"
    );
}

#[test]
fn every_preset_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("generators");
    let tmp = tempfile::tempdir().unwrap();
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let out_dir = tmp.path().join(path.file_stem().unwrap());
            let out = run_in(&out_dir, &["--config", path.to_str().unwrap()]);
            assert!(out.status.success(), "{}: {}", path.display(), stderr(&out));
            // The spec layer's VC minimums and the routing relation agree:
            // the checker proves every preset on its own network.
            let json: serde_json::Value =
                serde_json::from_str(&read(&out_dir, "report.json")).unwrap();
            match json["deadlock"]["proved"].as_bool() {
                Some(proved) => assert!(proved, "{}: {}", path.display(), json["deadlock"]),
                // Above the report's proof limit (docs/limits.md): the
                // check command proves the same network.
                None => {
                    let spec = &json["spec"];
                    let field = |k: &str| spec[k].to_string().trim_matches('"').to_string();
                    let args = [
                        "check".to_string(),
                        "--algo".into(),
                        field("algorithm"),
                        "--topology".into(),
                        field("topology"),
                        "--dims".into(),
                        field("dims"),
                        "--radix".into(),
                        field("radix"),
                        "--vcs".into(),
                        field("vcs"),
                    ];
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let o = routergen(&args);
                    assert!(o.status.success(), "{}: {}", path.display(), stdout(&o));
                }
            }
            count += 1;
        }
    }
    assert!(count >= 6, "expected the six presets, found {count}");
}

/// Runs a bad command; checks exit code 2, no output directory, no panic,
/// and that the message contains every `expected` fragment.
fn rejects(args: &[&str], expected: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let out = run_in(&out_dir, args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} gave {:?}: {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert!(!out_dir.exists(), "{args:?} left an output directory");
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "{args:?} left files"
    );
    for e in expected {
        assert!(err.contains(e), "{args:?}: message lacks {e:?}:\n{err}");
    }
}

#[test]
fn unknown_names_are_rejected_with_the_allowed_list() {
    rejects(
        &["--algo", "zigzag"],
        &["zigzag", "dor", "planar", "negative-first", "duato"],
    );
    rejects(
        &["--topology", "ring"],
        &["ring", "mesh", "torus", "hypercube"],
    );
    rejects(&["--path-selection", "random"], &["random", "max-credit"]);
    rejects(&["--table", "huge"], &["huge", "economical"]);
    rejects(&["--lookahead=maybe"], &["maybe", "on or off"]);
}

#[test]
fn bad_sizes_are_rejected_with_the_range() {
    rejects(&["--dims", "0"], &["dims = 0", "1 to 7", "(flag: --dims)"]);
    rejects(&["--dims", "-3"], &["dims = -3", "1 to 7"]);
    rejects(
        &["--radix", "1"],
        &["radix = 1", "2 to 256", "(flag: --radix)"],
    );
    rejects(&["--radix", "100000"], &["radix = 100000"]);
    rejects(
        &["--radix", "99999999999999999999999"],
        &["99999999999999999999999"],
    );
    rejects(&["--vcs", "0"], &["vcs = 0", "1 to 16"]);
    rejects(&["--vcs", "17"], &["vcs = 17"]);
    rejects(
        &["--depth", "0"],
        &[
            "buffer_depth = 0",
            "1 to 16",
            "(flag: --depth for buffer_depth)",
        ],
    );
    // On/off: the receiver's level needs two free slots (docs/interface.md).
    rejects(
        &["--flow-control", "on-off", "--depth", "1"],
        &[
            "buffer_depth = 1",
            "on-off",
            "buffer_depth of 2 or more",
            "(flags: --flow-control, --depth for buffer_depth)",
        ],
    );
    rejects(
        &["--flit-width", "12"],
        &["flit_width = 12", "16, 32 or 64", "(flag: --flit-width)"],
    );
    rejects(&["--dims", "3", "--radix", "17"], &["4913 nodes", "4096"]);
    rejects(&["--dims", "8", "--radix", "2"], &["dims = 8", "1 to 7"]);
    rejects(
        &["--topology", "hypercube", "--radix", "4"],
        &["radix = 4", "radix 2", "topology = mesh or torus"],
    );
    rejects(
        &["--topology", "torus", "--radix", "2"],
        &["radix = 2", "3 to 256", "(flags: --radix, --topology)"],
    );
}

#[test]
fn inconsistent_specs_are_rejected_with_the_reason() {
    // The issue's own example.
    rejects(
        &["--algo", "planar", "--dims", "3", "--vcs", "1"],
        &[
            "planar-adaptive",
            "3-D mesh",
            "at least 3 virtual channels",
            "got vcs = 1",
            "(flag: --vcs)",
        ],
    );
    rejects(
        &["--algo", "dor", "--topology", "torus", "--vcs", "1"],
        &["at least 2", "dateline"],
    );
    rejects(
        &["--algo", "planar", "--ports", "5"],
        &["ports = 5", "4x4", "allowed: ports = 4"],
    );
    rejects(
        &["--algo", "west-first", "--dims", "3"],
        &[
            "algorithm = west-first",
            "dims = 2",
            "(flags: --algo for algorithm, --dims)",
        ],
    );
    rejects(
        &["--algo", "turn", "--topology", "torus", "--vcs", "2"],
        &["negative-first", "torus"],
    );
    rejects(
        &["--algo", "star-channels"],
        &["star-channels", "mesh", "tori"],
    );
    rejects(
        &["--algo", "planar", "--topology", "hypercube"],
        &["hypercube", "topology = mesh, radix = 2"],
    );
    rejects(
        &["--flit-width", "16", "--radix", "64", "--lookahead"],
        &["flit_width = 16", "too narrow", "19 bits"],
    );
    rejects(
        &["--table", "economical", "--addressing", "relative"],
        &["table = economical", "addressing = absolute"],
    );
    rejects(
        &["--algo", "dor", "--path-selection", "lru"],
        &[
            "path_selection = lru",
            "path_selection = static-xy",
            "(flag: --path-selection)",
        ],
    );
}

/// The library names a parameter as the TOML file does and the command
/// line adds the flag that sets it, whether the value came from a flag or
/// from the file.
#[test]
fn a_bad_value_names_its_parameter_its_flag_and_what_is_allowed() {
    rejects(
        &["--datapath", "sliced", "--algo", "duato"],
        &[
            "datapath = sliced is not built for algorithm = duato",
            "allowed: datapath = sliced with algorithm = dor or planar",
            "(flags: --datapath, --algo for algorithm)",
        ],
    );
    let files = tempfile::tempdir().unwrap();
    let spec = files.path().join("spec.toml");
    fs::write(&spec, "buffer_depth = 0\n").unwrap();
    rejects(
        &["--config", spec.to_str().unwrap()],
        &[
            "buffer_depth = 0",
            "1 to 16",
            "(flag: --depth for buffer_depth)",
        ],
    );
}

#[test]
fn bad_files_are_rejected_with_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let malformed = tmp.path().join("malformed.toml");
    fs::write(&malformed, "algorithm = \"dor\"\ndims = 2\nradix = = 4\n").unwrap();
    rejects(
        &["--config", malformed.to_str().unwrap()],
        &["malformed.toml:3:"],
    );
    let unknown = tmp.path().join("unknown.toml");
    fs::write(&unknown, "algorithm = \"dor\"\nfrobnicate = 1\n").unwrap();
    rejects(
        &["--config", unknown.to_str().unwrap()],
        &["unknown.toml:2:1", "frobnicate", "topology"],
    );
    let bad_name = tmp.path().join("bad_name.toml");
    fs::write(&bad_name, "algorithm = \"spiral\"\n").unwrap();
    rejects(
        &["--config", bad_name.to_str().unwrap()],
        &["bad_name.toml:1:", "spiral", "allowed"],
    );
    let missing = tmp.path().join("missing.toml");
    rejects(
        &["--config", missing.to_str().unwrap()],
        &["cannot read", "missing.toml"],
    );
}

#[test]
fn a_directory_routergen_did_not_write_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mine");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("notes.txt"), "keep me").unwrap();
    let out = run_in(&dir, &["--algo", "dor"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("did not write"), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "keep me"
    );
    assert!(!dir.join("routergen.toml").exists());
}

#[test]
fn model_command_rejects_bad_input() {
    let out = routergen(&["model", "--algo", "west-first", "--dims", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dims = 2"), "{}", stderr(&out));
    assert!(stderr(&out).contains("(flag: --dims)"), "{}", stderr(&out));
    let out = routergen(&["model", "--algo", "dor", "--dims", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--dims 0"));
    let out = routergen(&["model", "--dims", "2"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A reader that closes the pipe before routergen prints (`| head`) ends
/// the process quietly, not with a panic.
#[test]
fn a_closed_pipe_ends_the_output_without_a_panic() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_routergen"))
        .args(["check", "--algo", "dor", "--radix", "16", "--node", "1,1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("routergen runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("routergen ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// `--pipeline 1`: built with look-ahead (the module name gains `_p1`, the
/// spec file says `pipeline = 1` and regenerates the same router);
/// refused by name, with what is allowed, without look-ahead, with a
/// routing table, with another datapath, and for depths other than 1 and 2.
#[test]
fn pipeline_1_is_built_with_lookahead_and_refused_by_name_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let args = ["--algo", "dor", "--lookahead", "--pipeline", "1"];
    let out = run_in(&a, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let name = "router_dor_mesh2d_k4_v1_w16_d4_la_p1";
    assert!(a.join(format!("rtl/{name}.v")).exists(), "rtl/{name}.v");
    let spec = read(&a, "routergen.toml");
    assert!(spec.contains("pipeline = 1"), "{spec}");
    let again = run_in(
        &b,
        &["--config", a.join("routergen.toml").to_str().unwrap()],
    );
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        read(&b, &format!("rtl/{name}.v")),
        read(&a, &format!("rtl/{name}.v"))
    );
    rejects(
        &["--pipeline", "1"],
        &["pipeline = 1 needs lookahead = true", "pipeline = 2"],
    );
    rejects(
        &["--pipeline", "1", "--lookahead", "--table", "full"],
        &["table = full", "table = none"],
    );
    rejects(
        &["--pipeline", "1", "--lookahead", "--datapath", "sliced"],
        &["datapath = sliced", "lookahead = false"],
    );
    rejects(
        &["--pipeline", "3", "--lookahead"],
        &["pipeline = 3", "pipeline = 1 or 2"],
    );
    rejects(&["--pipeline", "0"], &["pipeline = 0", "pipeline = 1 or 2"]);
}

/// `--meta-clusters`: rows is the default and changes nothing; squares
/// (LAPSES Figure 8(b)) is refused by name without a meta table, in one
/// dimension and for a radix that is not the square of a power of two, and
/// where the deadlock checker does not prove the table's relation (Duato on
/// a 4x4 mesh: its 2x2 clusters lose the escape channel toward the
/// clusters in line, and the extended dependency graph has a cycle).
#[test]
fn meta_clusters_squares_are_refused_by_name_where_not_proved() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let rows = [
        "--algo",
        "duato",
        "--vcs",
        "2",
        "--table",
        "meta",
        "--meta-clusters",
        "rows",
    ];
    let out = run_in(&a, &rows);
    assert!(out.status.success(), "{}", stderr(&out));
    let name = "router_duato_mesh2d_k4_v2_w16_d4_meta";
    assert!(a.join(format!("rtl/{name}.v")).exists(), "rtl/{name}.v");
    assert!(read(&a, "routergen.toml").contains("meta_clusters = \"rows\""));
    rejects(
        &["--meta-clusters", "diagonal"],
        &["diagonal", "rows", "squares"],
    );
    rejects(
        &["--meta-clusters", "squares", "--table", "full"],
        &["meta_clusters = squares", "table = full", "table = meta"],
    );
    rejects(
        &[
            "--meta-clusters",
            "squares",
            "--table",
            "meta",
            "--dims",
            "1",
        ],
        &[
            "meta_clusters = squares needs 2 or more dimensions",
            "not dims = 1",
        ],
    );
    rejects(
        &[
            "--meta-clusters",
            "squares",
            "--table",
            "meta",
            "--radix",
            "8",
        ],
        &["radix = 8", "4", "16", "meta_clusters = rows"],
    );
    // A spec validation accepts but routergen does not build: as for any
    // meta table the checker refuses, the report says why and no RTL is
    // written.
    let b = tmp.path().join("b");
    let mut squares = rows;
    squares[7] = "squares";
    let out = run_in(&b, &squares);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    for want in [
        "router_duato_mesh2d_k4_v2_w16_d4_meta_sq",
        "no RTL written",
        "square clusters of side 2",
        "keeps no escape channel",
        "has a cycle",
    ] {
        assert!(said.contains(want), "{want}: {said}");
    }
    assert!(!b.join("rtl").exists());
    assert!(read(&b, "routergen.toml").contains("meta_clusters = \"squares\""));
}
