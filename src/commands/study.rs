//! `routergen study`: a paper's model beside routergen's simulated routers,
//! written into a directory.

use super::Outcome;
use crate::cli::{StudyArgs, StudyName};
use crate::error::Result;
use crate::study::{self, Scale};

/// Runs the study, prints its table and writes DIR.
pub fn run(args: &StudyArgs) -> Result<Outcome> {
    let scale = if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    if args.out.exists() && !args.out.is_dir() {
        return Err(crate::error::Error::InvalidSpec(format!(
            "-o {} is not a directory: give a directory for README.md and the plots",
            args.out.display()
        )));
    }
    let engine = args
        .engine
        .unwrap_or_else(crate::sim::EngineKind::default_installed);
    let started = std::time::Instant::now();
    let progress = |msg: &str| eprintln!("[{:>6.0} s] {msg}", started.elapsed().as_secs_f64());
    eprintln!("routergen study: engine {engine} ({})", engine.describe());
    let cache = args.out.join("fmax");
    let report = match args.study {
        StudyName::Dally => study::dally(scale, engine, &progress)?,
        StudyName::Quaglia => study::quaglia(scale, engine, &progress)?,
        StudyName::Lapses => study::lapses::lapses(scale, engine, &progress)?,
        StudyName::Chien => {
            study::chien::check_cache(&cache)?;
            let synth = if args.no_synth {
                study::chien::Synth::CacheOnly
            } else {
                study::chien::Synth::Missing
            };
            study::chien::chien(scale, engine, Some((&cache, synth)), &progress)?
        }
    };
    study::write(&report, &args.out)?;
    print!("{}", report.markdown);
    println!("wrote {}", args.out.join("README.md").display());
    eprintln!(
        "routergen study: ran {:.1} s on engine {engine}",
        started.elapsed().as_secs_f64()
    );
    Ok(Outcome::Success)
}
