//! `routergen block`: one router block as Verilog, and optionally its Yosys
//! gate count beside Chien's Figure 4 formula.

use super::{load_tech, Outcome};
use crate::blocks::{measure, BlockKind, BlockParams, Param};
use crate::cli::BlockArgs;
use crate::error::{Error, Result};
use crate::spec::{Addressing, BufferStorage, FlowControl, PathSelection};

/// A block parameter from the command line: positive and small, or a
/// message naming the parameter (to which the binary adds its flag).
fn block_param(p: Param, value: Option<i64>, default: usize) -> Result<usize> {
    match value {
        None => Ok(default),
        Some(v) if (1..=1024).contains(&v) => Ok(v as usize),
        Some(v) => Err(Error::InvalidSpec(format!(
            "{} = {v} is not a valid block parameter: it must be a positive count \
             (each block narrows the range further)",
            p.name()
        ))),
    }
}

/// Writes, measures or sweeps the block `args` name.
pub fn run(args: &BlockArgs) -> Result<Outcome> {
    let kind = BlockKind::from_name(&args.name)?;
    let d = BlockParams::default();
    let params = BlockParams {
        ports: block_param(Param::Ports, args.ports, d.ports)?,
        vcs: block_param(Param::Vcs, args.vcs, d.vcs)?,
        freedom: block_param(Param::Freedom, args.freedom, d.freedom)?,
        flit_width: block_param(Param::FlitWidth, args.flit_width, d.flit_width)?,
        dims: block_param(Param::Dims, args.dims, d.dims)?,
        depth: block_param(Param::Depth, args.depth, d.depth)?,
        on_off: args.flow_control == Some(FlowControl::OnOff),
        buffers: args.buffers.unwrap_or(BufferStorage::Flops),
        selection: args.path_selection.unwrap_or(PathSelection::StaticXy),
        addressing: args.addressing.unwrap_or(Addressing::Relative),
    };
    kind.check(&params)?;
    if args.out.is_none() && !args.measure && !args.sweep && !args.prove {
        return Err(Error::InvalidSpec(format!(
            "routergen block {} needs something to do: -o DIR to write DIR/{}.v, \
             --measure for its gate count, --sweep for the growth of that count, \
             or --prove for its formal proof",
            kind.name(),
            kind.module_name(&params)
        )));
    }
    if let Some(dir) = &args.out {
        let verilog = kind.verilog(&params)?;
        let out_err = |e: std::io::Error| Error::Output {
            path: dir.clone(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(dir).map_err(out_err)?;
        let file = dir.join(format!("{}.v", kind.name()));
        std::fs::write(&file, verilog).map_err(|e| Error::Output {
            path: file.clone(),
            message: e.to_string(),
        })?;
        println!("wrote {}", file.display());
    }
    if args.measure || args.sweep {
        let purpose = if args.sweep {
            "block --sweep"
        } else {
            "block --measure"
        };
        crate::flows::require("yosys", Some(purpose))?;
        let tech = load_tech(args.tech.as_deref())?;
        let rows = if args.sweep {
            measure::sweep(kind, &params, &kind.sweep_values(), &tech)?
        } else {
            vec![measure::measure(kind, &params, &tech)?]
        };
        print!("{}", measure::table(&rows));
    }
    if args.prove {
        return super::prove::prove_blocks(&[(kind, params)], args.out.as_deref());
    }
    Ok(Outcome::Success)
}
