//! `routergen network`: writes a whole network of the spec's routers and
//! the files that check it (docs/network.md, "Output directory").

use std::path::PathBuf;

use super::{resolve_spec, Outcome};
use crate::cli::NetworkArgs;
use crate::error::Result;
use crate::network::{self, NetworkParams};
use crate::output::{self, SPEC_FILE};
use crate::spec::SpecInput;

/// Writes the network's output directory `args.out`.
pub fn run(args: &NetworkArgs) -> Result<Outcome> {
    let resolved = resolve_spec(&args.spec, SpecInput::default())?;
    let spec = &resolved.spec;
    let params = NetworkParams {
        link_stages: args.link_stages,
        endpoints: args.endpoints,
    };
    let mut files = network::files::render(spec, &params)?;
    files.insert(
        0,
        (
            PathBuf::from(SPEC_FILE),
            format!(
                "# Resolved routergen specification of a network's routers. Regenerate with:\n\
                 #   routergen network --config {SPEC_FILE} --link-stages {} --endpoints {} -o <dir>\n{}",
                params.link_stages,
                params.endpoints,
                spec.to_toml()
            ),
        ),
    );
    output::write_dir(&args.out, &files)?;
    println!("routergen network: {}", network::top_name(spec));
    println!("wrote {}:", args.out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    Ok(Outcome::Success)
}
