//! The C compiler (`$CC`, else `cc`): C source compiled into a shared
//! object for `dlopen`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::ToolError;

/// The C compiler's command: `$CC`, else `cc`.
pub fn compiler() -> OsString {
    std::env::var_os("CC")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// The compiler's first line of `--version`, empty when no compiler can
/// be started (asked once per process). Part of a build's cache key:
/// another compiler makes other code from the same source.
pub fn version() -> String {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION
        .get_or_init(|| {
            std::process::Command::new(compiler())
                .arg("--version")
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("cc")
                        .to_string()
                })
                .unwrap_or_default()
        })
        .clone()
}

/// Compiles the C files `sources` (in `dir`) with `flags` into the shared
/// object `dir/name`, each file by its own compiler process, as many at
/// once as the machine has processors, then links them; returns its path.
pub fn shared_object(
    dir: &Path,
    sources: &[&str],
    flags: &[&str],
    name: &str,
) -> Result<PathBuf, ToolError> {
    let objects: Vec<String> = sources.iter().map(|s| format!("{s}.o")).collect();
    let at_once = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<ToolError> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..at_once.min(sources.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(src) = sources.get(i) else { break };
                        let args = ["-fPIC", "-c", "-o", &objects[i], src];
                        if let Err(e) = compile(dir, flags, &args) {
                            failed.push(e);
                        }
                    }
                    failed
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    if let Some(e) = failures.into_iter().next() {
        return Err(e);
    }
    let mut link: Vec<&str> = vec!["-shared", "-o", name];
    link.extend(objects.iter().map(String::as_str));
    compile(dir, flags, &link)?;
    Ok(dir.join(name))
}

/// One run of the compiler in `dir` with `flags` then `args`.
fn compile(dir: &Path, flags: &[&str], args: &[&str]) -> Result<(), ToolError> {
    let cc = compiler();
    let tool = cc.to_string_lossy().into_owned();
    let out = std::process::Command::new(&cc)
        .args(flags)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| ToolError::new(&tool, format!("cannot run: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        return Err(ToolError::new(
            &tool,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two files, one calling the other, compiled apart and linked into one
    // object; a file that does not compile fails the build with the
    // compiler's message, whichever file it is.
    #[test]
    fn files_compile_apart_into_one_object_and_a_bad_one_fails_the_build() {
        if version().is_empty() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        w(
            "a.c",
            "int twice(int x);\nint rg_four(void) { return twice(2); }\n",
        );
        w("b.c", "int twice(int x) { return 2 * x; }\n");
        w("bad.c", "int broken( { return; }\n");
        let so = shared_object(dir.path(), &["a.c", "b.c"], &["-O1"], "lib.so").unwrap();
        assert!(so.is_file(), "{}", so.display());
        let lib = crate::sim::dynlib::Library::open(&so).unwrap();
        // SAFETY: a.c defines rg_four as int(void).
        let four = unsafe { lib.function::<unsafe extern "C" fn() -> i32>("rg_four") }.unwrap();
        assert_eq!(unsafe { four() }, 4);
        let e = shared_object(dir.path(), &["a.c", "bad.c", "b.c"], &[], "lib2.so")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.c") || e.contains("error"), "{e}");
        assert!(!dir.path().join("lib2.so").exists());
    }
}
