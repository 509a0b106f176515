//! Files written whole or not at all: written to a temporary file beside
//! the target and renamed over it, so a reader (another process, another
//! node on a shared filesystem) sees either no file or the whole of one,
//! and concurrent writers of the same content may race freely.

use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |e: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(fail)?;
    let _interrupt = crate::interrupt::remove_on_interrupt(tmp.path());
    std::io::Write::write_all(&mut tmp, bytes).map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/a.json");
        super::write(&p, b"one").unwrap();
        super::write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.json"]);
    }

    #[test]
    fn an_unwritable_target_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        // A directory where a file is asked for underneath a file.
        let e = super::write(&file.join("x"), b"1").unwrap_err().to_string();
        assert!(e.contains(&*file.to_string_lossy()), "{e}");
    }
}
