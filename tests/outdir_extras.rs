//! What the output directory holds around the router besides its checks:
//! the header comment of `rtl/<name>.v`, the FuseSoC core, the drawing of
//! the router, and the waveforms of `make sim WAVES=1`. Oracles: the
//! directory's own files (routergen.toml read back by the toml crate, the
//! file tree), the spec's port and VC counts, the real `fusesoc`, Icarus
//! and Verilator, and an SVG/VCD read by parsers written here.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{routergen, stderr};

/// `routergen ARGS -o DIR`; panics with routergen's message on failure.
fn generate(dir: &Path, args: &[&str]) {
    let mut all: Vec<&str> = args.to_vec();
    let d = dir.to_str().unwrap();
    all.extend(["-o", d]);
    let out = routergen(&all);
    assert!(out.status.success(), "routergen {all:?}: {}", stderr(&out));
}

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
    let mut present = files(&dir);
    present.retain(|p| *p != rtl);
    assert_eq!(sorted, present, "{}", h.join("\n"));
    // 3-D mesh: P = 7 ports, V = 3.
    let count = |stem: &str| -> Option<String> {
        h.iter()
            .find(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.starts_with(stem))
            })
            .map(|l| l.split_whitespace().next().unwrap().to_string())
    };
    assert_eq!(count("fcu$").as_deref(), Some("fcu$0..20"));
    assert_eq!(count("dec$").as_deref(), Some("dec$0..20"));
    assert_eq!(count("valloc").as_deref(), Some("valloc"));
    assert_eq!(count("xbar").as_deref(), Some("xbar"));
    assert!(h.iter().any(|l| l.contains("p6 -2")), "{}", h.join("\n"));
}
