//! SIGINT, SIGTERM and SIGHUP (Ctrl-C, `scancel`, a time limit): the
//! tools routergen started are stopped, the temporary files and
//! directories it was writing are removed, and the process exits with
//! status 130. A command that can end early with what it has (`sim`)
//! takes the first signal as a request ([`stop_flag`]); a second one
//! ends the process as above.
//!
//! Tools start tools of their own (SymbiYosys its solvers, Yosys ABC):
//! routergen makes itself the reaper of its orphaned descendants (Linux
//! `PR_SET_CHILD_SUBREAPER`), so a grandchild whose parent is killed
//! first is still found among its descendants and killed too.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The exit status after an interrupt: 128 + SIGINT, the shell's
/// convention for a run stopped by a signal.
pub const EXIT_STATUS: i32 = 130;

type Action = Box<dyn FnOnce() + Send>;

struct State {
    next: u64,
    actions: Vec<(u64, Action)>,
    paths: Vec<(u64, PathBuf)>,
    stop: Option<Arc<AtomicBool>>,
}

static STATE: Mutex<State> = Mutex::new(State {
    next: 0,
    actions: Vec::new(),
    paths: Vec::new(),
    stop: None,
});
static INSTALLED: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU64 = AtomicU64::new(0);
static TERMINATING: AtomicBool = AtomicBool::new(false);

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Installs the handler (once per process; the binary calls it first).
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer argument
    // and changes only which process adopts our orphaned descendants.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let _ = ctrlc::set_handler(|| {
        let n = SIGNALS.fetch_add(1, Ordering::SeqCst);
        if n == 0 {
            if let Some(stop) = state().stop.clone() {
                stop.store(true, Ordering::SeqCst);
                return;
            }
        }
        terminate();
    });
}

/// Whether the process is being stopped by a signal: the tools it killed
/// make the command fail, and that failure is not to be reported (the
/// binary waits for the exit instead, [`wait_if_terminating`]).
pub fn terminating() -> bool {
    TERMINATING.load(Ordering::SeqCst)
}

/// Blocks for ever if the process is being stopped by a signal (the
/// handler exits it), else returns at once.
pub fn wait_if_terminating() {
    while terminating() {
        std::thread::park();
    }
}

/// Stops everything routergen started and exits ([`EXIT_STATUS`]).
fn terminate() -> ! {
    TERMINATING.store(true, Ordering::SeqCst);
    let (actions, paths) = {
        let mut s = state();
        (std::mem::take(&mut s.actions), std::mem::take(&mut s.paths))
    };
    kill_descendants();
    for (_, a) in actions {
        a();
    }
    for (_, p) in paths {
        if p.is_dir() {
            let _ = std::fs::remove_dir_all(&p);
        } else {
            let _ = std::fs::remove_file(&p);
        }
    }
    eprintln!("routergen: interrupted: stopped the tools it started, removed unfinished files");
    std::process::exit(EXIT_STATUS);
}

/// Kills every descendant process, again until none is left (a tool
/// killed first leaves its children to us, the subreaper).
fn kill_descendants() {
    for _ in 0..100 {
        let pids = descendants(std::process::id());
        if pids.is_empty() {
            return;
        }
        for p in pids {
            // SAFETY: kill with a pid read from /proc and a valid signal.
            unsafe {
                libc::kill(p as libc::pid_t, libc::SIGKILL);
            }
        }
        // Reap what died so it leaves the process table.
        // SAFETY: waitpid on any child without blocking.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The live (not zombie) descendants of `root`, from /proc.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // After the command's closing parenthesis: state, ppid.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let mut f = rest.split_whitespace();
            let state = f.next().unwrap_or("");
            let Some(ppid) = f.next().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            parent.push((pid, ppid, state == "Z"));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parent.iter().filter(|c| c.1 == p).map(|c| c.0));
        i += 1;
    }
    found
        .into_iter()
        .skip(1)
        .filter(|p| !parent.iter().any(|c| c.0 == *p && c.2))
        .collect()
}

/// Undoes a registration when dropped.
pub struct Guard(u64);

impl Drop for Guard {
    fn drop(&mut self) {
        let mut s = state();
        s.actions.retain(|a| a.0 != self.0);
        s.paths.retain(|p| p.0 != self.0);
    }
}

fn next_id(s: &mut State) -> u64 {
    s.next += 1;
    s.next
}

/// Runs `action` if the process is interrupted while the guard lives
/// (e.g. cancel a submitted Slurm array).
pub fn on_interrupt(action: impl FnOnce() + Send + 'static) -> Guard {
    let mut s = state();
    let id = next_id(&mut s);
    s.actions.push((id, Box::new(action)));
    Guard(id)
}

/// Removes `path` (a file or a directory) if the process is interrupted
/// while the guard lives: an unfinished output or cache entry.
pub fn remove_on_interrupt(path: impl Into<PathBuf>) -> Guard {
    let mut s = state();
    let id = next_id(&mut s);
    s.paths.push((id, path.into()));
    Guard(id)
}

/// A scratch directory in the system's temp directory, removed when
/// dropped, and if the process is interrupted while it lives.
pub struct Scratch {
    dir: tempfile::TempDir,
    _guard: Guard,
}

impl Scratch {
    /// A new scratch directory whose name starts with `prefix`.
    pub fn new(prefix: &str) -> crate::error::Result<Scratch> {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(|e| crate::error::Error::Output {
                path: std::env::temp_dir(),
                message: e.to_string(),
            })?;
        let _guard = remove_on_interrupt(dir.path());
        Ok(Scratch { dir, _guard })
    }

    /// Its path.
    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

/// A flag the first interrupt sets instead of ending the process, for a
/// command that stops early with what it has; the second ends it.
pub fn stop_flag() -> Arc<AtomicBool> {
    let mut s = state();
    s.stop
        .get_or_insert_with(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn descendants_are_found_through_grandchildren() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let me = std::process::id();
        let mut found = Vec::new();
        for _ in 0..200 {
            found = super::descendants(me);
            if found.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        for p in &found {
            // SAFETY: kill with pids of our own children.
            unsafe {
                libc::kill(*p as libc::pid_t, libc::SIGKILL);
            }
        }
        let _ = child.wait();
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(found.len() >= 2, "the sleep under sh: {found:?}");
    }

    #[test]
    fn a_guard_unregisters_on_drop() {
        let g = super::remove_on_interrupt("/nonexistent/x");
        assert!(super::state().paths.iter().any(|p| p.0 == g.0));
        let id = g.0;
        drop(g);
        assert!(!super::state().paths.iter().any(|p| p.0 == id));
    }
}
