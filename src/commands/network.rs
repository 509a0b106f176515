//! `routergen network`: writes a whole network of the spec's routers.

use std::path::PathBuf;

use super::{resolve_spec, Outcome};
use crate::cli::NetworkArgs;
use crate::error::Result;
use crate::network::{self, NetworkParams};
use crate::output;
use crate::spec::SpecInput;

/// Writes `args.out/rtl/network_<name>.v`.
pub fn run(args: &NetworkArgs) -> Result<Outcome> {
    let resolved = resolve_spec(&args.spec, SpecInput::default())?;
    let spec = &resolved.spec;
    let params = NetworkParams {
        link_stages: args.link_stages,
        endpoints: args.endpoints,
    };
    let top = network::top_name(spec);
    let text = network::verilog(spec, &params)?;
    let files = vec![(PathBuf::from(format!("rtl/{top}.v")), text)];
    output::write_dir(&args.out, &files)?;
    println!("routergen network: {top}");
    println!("wrote {}:", args.out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    Ok(Outcome::Success)
}
