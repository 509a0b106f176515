//! `routergen analyze`: the papers' analytic models, their tables beside
//! the printed values, one network's curve, and the figures as SVG.

use std::fmt::Write as _;

use super::{write_file, Outcome};
use crate::analysis::{self, dally, quaglia};
use crate::cli::{AnalyzeArgs, AnalyzePaper};
use crate::error::{Error, Result};

/// Prints the report `args` asks for and writes the figures.
pub fn run(args: &AnalyzeArgs) -> Result<Outcome> {
    let bad = |m: String| Err(Error::InvalidSpec(m));
    if args.radix.is_none() {
        for (flag, set) in [
            ("--dims", args.dims.is_some()),
            ("--length", args.length.is_some()),
            ("--loads", !args.loads.is_empty()),
        ] {
            if set {
                return bad(format!(
                    "{flag} describes the network of --radix: give --radix too, or neither \
                     for the paper's tables"
                ));
            }
        }
    }
    if let Some(l) = args.length {
        if !(l.is_finite() && l > 0.0 && l <= 1e6) {
            return bad(format!(
                "--length {l} is out of range: a message length is above 0 and at most 1e6"
            ));
        }
    }
    for &x in &args.loads {
        if !(x.is_finite() && (0.0..=100.0).contains(&x)) {
            return bad(format!(
                "--loads {x} is out of range: a load is a number from 0 to 100"
            ));
        }
    }
    let text = match (args.paper, args.radix) {
        (AnalyzePaper::Dally, None) => analysis::dally_report(),
        (AnalyzePaper::Quaglia, None) => analysis::quaglia_report(),
        (AnalyzePaper::Dally, Some(k)) => one_cube(args, k)?,
        (AnalyzePaper::Quaglia, Some(k)) => one_torus(args, k)?,
    };
    let figures = match args.paper {
        AnalyzePaper::Dally => analysis::dally_figures(),
        AnalyzePaper::Quaglia => analysis::quaglia_figures(),
    };
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| Error::Output {
            path: dir.clone(),
            message: e.to_string(),
        })?;
        for (name, svg) in &figures {
            write_file(&dir.join(name), svg)?;
        }
    }
    print!("{text}");
    if let Some(dir) = &args.out {
        let names: Vec<&str> = figures.iter().map(|f| f.0.as_str()).collect();
        println!("wrote {} in {}", names.join(", "), dir.display());
    }
    Ok(Outcome::Success)
}

/// Dally's numbers for the k-ary n-cube of `--radix` and `--dims`.
fn one_cube(args: &AnalyzeArgs, k: i64) -> Result<String> {
    if !(2..=4096).contains(&k) {
        return Err(Error::InvalidSpec(format!(
            "--radix {k} is out of range: Dally's model takes 2 to 4096 nodes per dimension"
        )));
    }
    let n = args.dims.unwrap_or(2);
    if !(1..=64).contains(&n) {
        return Err(Error::InvalidSpec(format!(
            "--dims {n} is out of range: Dally's model takes 1 to 64 dimensions"
        )));
    }
    let cube = dally::Cube {
        radix: k as f64,
        dims: n as u32,
    };
    let l = args.length.unwrap_or(dally::TABLE_I_LENGTH);
    let loads = if args.loads.is_empty() {
        dally::TABLE_I_LOADS.to_vec()
    } else {
        args.loads.clone()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({} nodes), L = {l} bits, constant bisection: W = {} (eq. 7), D = {} (eq. 11), \
         zero-load latency {:.2} cycles (eq. 12), max throughput {:.3} bits/cycle/node \
         (eqs. 22-24), hot spot {} bits/cycle (eq. 27)",
        cube.name(),
        cube.nodes(),
        dally::channel_width(cube.radix),
        dally::average_distance(cube),
        dally::zero_load_latency(cube, l),
        dally::max_throughput(cube, l),
        dally::hot_spot_throughput(cube)
    );
    let _ = writeln!(
        s,
        "{:>8} {:>16} {:>20}",
        "lambda", "latency (22-24)", "with queuing (25-26)"
    );
    let show = |v: Option<f64>| v.map_or("saturated".to_string(), |t| format!("{t:.2}"));
    for lam in loads {
        let _ = writeln!(
            s,
            "{lam:>8} {:>16} {:>20}",
            show(dally::latency(cube, l, lam, dally::Queueing::None)),
            show(dally::latency(cube, l, lam, dally::Queueing::Sufficient))
        );
    }
    Ok(s)
}

/// Quaglia et al.'s latency for the k x k torus of `--radix`.
fn one_torus(args: &AnalyzeArgs, k: i64) -> Result<String> {
    if args.dims.is_some_and(|d| d != 2) {
        return Err(Error::InvalidSpec(
            "--dims: Quaglia et al.'s model is of two-dimensional tori only".into(),
        ));
    }
    let k = u32::try_from(k)
        .map_err(|_| Error::InvalidSpec(format!("--radix {k} is out of range")))
        .and_then(|k| {
            quaglia::check_side(k)
                .map(|_| k)
                .map_err(|m| Error::InvalidSpec(format!("--radix: {m}")))
        })?;
    let l = args.length.unwrap_or(quaglia::TABLE_LENGTH);
    let loads = if args.loads.is_empty() {
        quaglia::RATES.to_vec()
    } else {
        args.loads.clone()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{k}x{k} torus, minimal fully adaptive wormhole, L = {l} flits: zero-load latency {:.2} \
         cycles",
        quaglia::zero_load_latency(k, l)
    );
    let _ = writeln!(
        s,
        "{:>8} {:>10} {:>7} {:>7}",
        "rate", "latency", "p_X", "p_Y"
    );
    for rate in loads {
        match quaglia::solve(k, l, rate) {
            Ok(sol) => {
                let _ = writeln!(
                    s,
                    "{rate:>8} {:>10.2} {:>7.3} {:>7.3}",
                    sol.latency, sol.p_x, sol.p_y
                );
            }
            Err(e) => {
                let _ = writeln!(s, "{rate:>8} {:>10}", format!("{e:?}").to_lowercase());
            }
        }
    }
    Ok(s)
}
