//! `routergen fpga`: writes the bring-up design of a board (the 2x2 network
//! of `routergen network`, a traffic generator and checker per endpoint)
//! and, with `--build`, makes its bitstream.

use super::{resolve_spec, Outcome};
use crate::cli::FpgaArgs;
use crate::error::Result;
use crate::output;
use crate::spec::SpecInput;

/// Writes the board's design to `args.out` (and builds it with `--build`).
pub fn run(args: &FpgaArgs) -> Result<Outcome> {
    use crate::fpga::{self, Board};
    let board = Board::by_name(&args.board)?;
    // The bring-up mesh is 2x2: radix 2 unless the spec says otherwise
    // (and then check_spec names the conflict).
    let base = SpecInput {
        radix: Some(fpga::MESH_RADIX as i64),
        ..SpecInput::default()
    };
    let resolved = resolve_spec(&args.spec, base)?;
    let spec = &resolved.spec;
    if args.build {
        crate::synth::check_tools(board.target)?;
    }
    let files = fpga::design_files(spec, &board)?;
    output::write_dir(&args.out, &files)?;
    println!(
        "routergen fpga: {} on the {} ({}), a 2x2 mesh",
        spec.name(),
        board.title,
        board.target.part()
    );
    println!("wrote {}:", args.out.display());
    for (rel, _) in &files {
        println!("  {}", rel.display());
    }
    if args.build {
        let report = fpga::build(spec, &board, &args.out)?;
        print!("{}", report.to_text());
    }
    Ok(Outcome::Success)
}
