//! Shared objects built for a simulation and loaded into this process
//! (the Verilator network, the netlist's compiled gates): the build
//! cache, one directory per key under [`cache_root`], and `dlopen`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where built models are kept: `ROUTERGEN_SIM_CACHE`, else
/// `routergen-sim` under the system temp dir.
pub fn cache_root() -> PathBuf {
    std::env::var_os("ROUTERGEN_SIM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("routergen-sim"))
}

/// What identifies this build of routergen and the file at `tool` (a
/// path, size and modification time each): part of the keys of caches
/// that skip regenerating the Verilog, so a rebuilt routergen or a
/// reinstalled tool misses them.
pub fn build_identity(tool: Option<&Path>) -> String {
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| format!("{} {} {:?}", p.display(), m.len(), m.modified().ok()))
            .unwrap_or_default()
    };
    let exe = std::env::current_exe()
        .map(|e| stamp(&e))
        .unwrap_or_default();
    format!("{exe}; {}", tool.map(stamp).unwrap_or_default())
}

/// The shared object `lib` of the build `key` (`<cache>/<key>/<lib>`):
/// found in the cache, or built by `build` in a fresh directory (it
/// returns the path of the object it built) and moved into the cache with
/// the files `keep` (name, contents) beside it. Builds of one key may run
/// at once: the first to finish is kept, and a reader never sees half a
/// build. `what` names the build in errors.
pub fn cached(
    key: &str,
    lib: &str,
    keep: &[(&str, &str)],
    what: &str,
    build: impl FnOnce(&Path) -> std::result::Result<PathBuf, String>,
) -> Result<PathBuf> {
    let root = cache_root();
    let path = root.join(key).join(lib);
    if path.exists() {
        return Ok(path);
    }
    let fail = |m: String| Error::Simulation(format!("building {what}: {m}"));
    std::fs::create_dir_all(&root).map_err(|e| fail(format!("{}: {e}", root.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{key}-build-"))
        .tempdir_in(&root)
        .map_err(|e| fail(e.to_string()))?;
    let _interrupt = crate::interrupt::remove_on_interrupt(tmp.path());
    let built = build(tmp.path()).map_err(fail)?;
    let staged = tmp.path().join("lib");
    std::fs::create_dir_all(&staged).map_err(|e| fail(e.to_string()))?;
    std::fs::rename(&built, staged.join(lib)).map_err(|e| fail(e.to_string()))?;
    for (name, text) in keep {
        std::fs::write(staged.join(name), text).map_err(|e| fail(e.to_string()))?;
    }
    // Another build of the same key may have finished first: either is good.
    if std::fs::rename(&staged, root.join(key)).is_err() && !path.exists() {
        return Err(fail(format!(
            "cannot move the build to {}",
            root.join(key).display()
        )));
    }
    Ok(path)
}

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}
const RTLD_NOW: c_int = 2;

/// A loaded shared object. It is never closed: the functions taken from
/// it stay valid for the life of the process.
pub struct Library {
    handle: *mut c_void,
    path: PathBuf,
}

impl Library {
    /// Loads the shared object at `path`.
    pub fn open(path: &Path) -> Result<Library> {
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| Error::Simulation("cache path holds a NUL".into()))?;
        // SAFETY: dlopen with a valid NUL-terminated path.
        let handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
        if handle.is_null() {
            // SAFETY: dlerror returns a C string or null.
            let why = unsafe {
                let e = dlerror();
                if e.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(e).to_string_lossy().into_owned()
                }
            };
            return Err(Error::Simulation(format!(
                "cannot load {}: {why}",
                path.display()
            )));
        }
        Ok(Library {
            handle,
            path: path.to_path_buf(),
        })
    }

    /// The function `name` as the function pointer type `F`.
    ///
    /// # Safety
    /// `F` must be an `extern "C" fn` type with the symbol's exact signature.
    pub unsafe fn function<F: Copy>(&self, name: &str) -> Result<F> {
        assert_eq!(
            std::mem::size_of::<F>(),
            std::mem::size_of::<*mut c_void>(),
            "a function pointer type"
        );
        let c = CString::new(name).expect("no NUL");
        // SAFETY: `handle` came from dlopen; `c` is a NUL-terminated name.
        let f = unsafe { dlsym(self.handle, c.as_ptr()) };
        if f.is_null() {
            return Err(Error::Simulation(format!(
                "{}: no symbol {name}",
                self.path.display()
            )));
        }
        // SAFETY: the caller vouches for the signature; sizes checked above.
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&f) })
    }
}
