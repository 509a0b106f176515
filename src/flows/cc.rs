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

/// Compiles `source` (a file in `dir`) with `flags` into the shared object
/// `dir/name` and returns its path.
pub fn shared_object(
    dir: &Path,
    source: &str,
    flags: &[&str],
    name: &str,
) -> Result<PathBuf, ToolError> {
    let cc = compiler();
    let tool = cc.to_string_lossy().into_owned();
    let out = std::process::Command::new(&cc)
        .args(flags)
        .args(["-fPIC", "-shared", "-o", name, source])
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
    Ok(dir.join(name))
}
