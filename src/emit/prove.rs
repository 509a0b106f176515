//! The output directory's `prove/`: the proof jobs of `routergen prove`
//! (docs/prove.md) as files the directory's `make prove` runs with
//! SymbiYosys, with no path outside the directory, so the directory may
//! be moved. Block proofs carry their block's RTL at the router's sizes;
//! the router proof reads the router from `../rtl/`.

use std::path::PathBuf;

use crate::error::Result;
use crate::spec::RouterSpec;

/// ABC as sby calls it: Debian's `yosys-abc` predates the `-l` option sby
/// gives `pdr` (progress lines only), so the job calls it through this
/// wrapper, which drops it (as [`crate::flows::sby`] does). `abc` is the
/// command it runs.
pub fn abc_wrapper(abc: &str) -> String {
    format!(
        "#!/bin/sh\n# Drops pdr's -l (progress lines), which this yosys-abc lacks.\n\
         [ \"$1\" = -c ] && {{ c=$(printf '%s' \"$2\" | sed 's/pdr -v -l/pdr -v/'); shift 2; exec {abc} -c \"$c\" \"$@\"; }}\n\
         exec {abc} \"$@\"\n"
    )
}

/// Files of an output directory: (path, text).
pub type Files = Vec<(PathBuf, String)>;

/// The files under `prove/` and the jobs' names, in the order `make
/// prove` runs them, for the router `spec` whose Verilog is
/// `rtl/NAME.v`.
pub fn files(spec: &RouterSpec) -> Result<(Files, Vec<String>)> {
    let name = spec.name();
    let rtl_file = format!("{name}.v");
    let rtl_path = format!("../rtl/{name}.v");
    let mut out = Vec::new();
    let mut jobs = Vec::new();
    for p in crate::prove::spec_proofs(spec)? {
        let mut from: Vec<(&str, &str)> = Vec::new();
        for (file, text) in &p.sources {
            if *file == rtl_file {
                from.push((rtl_file.as_str(), rtl_path.as_str()));
            } else {
                out.push((PathBuf::from(format!("prove/{file}")), text.clone()));
            }
        }
        out.push((
            PathBuf::from(format!("prove/{}.sby", p.name)),
            p.sby_from(&from),
        ));
        jobs.push(p.name);
    }
    out.push((
        PathBuf::from("prove/abc-pdr.sh"),
        abc_wrapper("\"${ABC:-yosys-abc}\""),
    ));
    Ok((out, jobs))
}
