//! The Slurm executor on a real one-node Slurm cluster (testbench/slurm.sh,
//! started and stopped by the test): a quick study through `--executor
//! slurm` with one task cancelled while it runs is resubmitted, and its
//! page, CSV and plots are the bytes the local executor writes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::stderr;

/// A cluster started in a scratch directory, stopped (daemons by PID)
/// when dropped, whatever the test did.
struct Cluster {
    dir: tempfile::TempDir,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testbench/slurm.sh")
}

impl Cluster {
    /// Started, or `None` (skipped) where Slurm is missing or this is not
    /// root; under CI=true either is a failure.
    fn start() -> Option<Cluster> {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        for tool in ["slurmctld", "sbatch", "munged"] {
            if !routergen::flows::require_tool(tool) {
                return None;
            }
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            assert!(!ci, "CI=true: the Slurm test needs root (slurmd)");
            eprintln!("SKIPPED: the one-node Slurm cluster needs root");
            return None;
        }
        let c = Cluster {
            dir: tempfile::tempdir().unwrap(),
        };
        let out = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(c.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the cluster did not start: {}{}",
            stderr(&out),
            String::from_utf8_lossy(&out.stdout)
        );
        Some(c)
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(self.dir.path())
            .status();
    }
}

/// The files of a study's output directory, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The study the test runs: 2 jobs (two rates on a 4x4 torus, one seed).
const STUDY: [&str; 7] = [
    "study", "quaglia", "--quick", "--engine", "rust", "--seeds", "1",
];

#[test]
fn a_slurm_study_with_a_task_cancelled_is_resubmitted_and_equals_the_local_one() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let local = work.path().join("local");
    let out = Command::new(env!("CARGO_BIN_EXE_routergen"))
        .args(STUDY)
        .arg("-o")
        .arg(&local)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let slurm = work.path().join("slurm");
    // One task at a time, so the first is cancelled while the other waits.
    let run = Command::new(env!("CARGO_BIN_EXE_routergen"))
        .args(STUDY)
        .arg("-o")
        .arg(&slurm)
        .args(["--executor", "slurm", "--slurm-parallel", "1"])
        .env("SLURM_CONF", cluster.conf())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let cancelled = loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no task ever ran"
        );
        let q = Command::new("squeue")
            .args(["--noheader", "--states=RUNNING", "--format=%i"])
            .env("SLURM_CONF", cluster.conf())
            .output()
            .unwrap();
        let running = String::from_utf8_lossy(&q.stdout).trim().to_string();
        // The running task, once it has claimed its job (the study plans
        // into OUT/jobs; tasks claim in its slurm/claims/<array>/).
        let claims = slurm.join("jobs/slurm/claims");
        let claimed = std::fs::read_dir(&claims).is_ok_and(|arrays| {
            arrays
                .flatten()
                .any(|a| std::fs::read_dir(a.path()).is_ok_and(|mut c| c.next().is_some()))
        });
        if let (Some(task), true) = (running.lines().next(), claimed) {
            // Let the task's routergen start its simulation first.
            std::thread::sleep(Duration::from_millis(300));
            let s = Command::new("scancel")
                .arg(task)
                .env("SLURM_CONF", cluster.conf())
                .status()
                .unwrap();
            assert!(s.success());
            break task.to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = run.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("submitting them again") && err.contains("resubmission 1"),
        "task {cancelled} was cancelled, yet nothing was resubmitted: {err}"
    );
    assert_eq!(
        files(&slurm),
        files(&local),
        "slurm and local outputs differ"
    );
    assert!(
        files(&local).iter().any(|f| f.0 == "points.csv"),
        "no CSV written"
    );
}
