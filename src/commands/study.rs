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
    let progress = |msg: &str| eprintln!("{msg}");
    let report = match args.study {
        StudyName::Dally => study::dally(scale, args.engine, &progress)?,
        StudyName::Quaglia => study::quaglia(scale, args.engine, &progress)?,
    };
    study::write(&report, &args.out)?;
    print!("{}", report.markdown);
    println!("wrote {}", args.out.join("README.md").display());
    Ok(Outcome::Success)
}
