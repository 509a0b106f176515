//! `routergen study`: a paper's model beside routergen's simulated routers,
//! written into a directory. The study is planned as jobs (one per
//! simulated point and per synthesis), run by the executor the flags
//! choose, and written from their results (docs/cluster.md).

use super::{job, Outcome};
use crate::cli::{StudyArgs, StudyName};
use crate::error::{Error, Result};
use crate::sim::EngineKind;
use crate::study::{self, chien, Report, Scale};
use crate::work::{self, Book};

/// Runs the study, prints its table and writes DIR.
pub fn run(args: &StudyArgs) -> Result<Outcome> {
    let scale = if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    if args.out.exists() && !args.out.is_dir() {
        return Err(Error::InvalidSpec(format!(
            "-o {} is not a directory: give a directory for README.md and the plots",
            args.out.display()
        )));
    }
    // Bad executor flags are refused before any work.
    job::executor(&args.exec)?;
    let engine = args.engine.unwrap_or_else(EngineKind::default_installed);
    let started = std::time::Instant::now();
    eprintln!("routergen study: engine {engine} ({})", engine.describe());
    let cache = args.out.join("fmax");
    if args.study == StudyName::Chien {
        chien::check_cache(&cache)?;
    }
    let synth = if args.no_synth {
        chien::Synth::CacheOnly
    } else {
        chien::Synth::Missing
    };
    let seeds = args.seeds.unwrap_or_else(|| study::seeds(scale));
    let report = |book: &Book| -> Result<Report> {
        let sim = study::Sim {
            book,
            engine,
            seeds,
        };
        match args.study {
            StudyName::Dally => study::dally(scale, sim),
            StudyName::Quaglia => study::quaglia(scale, sim),
            StudyName::Lapses => study::lapses::lapses(scale, sim),
            StudyName::Chien => chien::chien(scale, Some((&cache, synth)), sim),
        }
    };
    let planning = Book::plan();
    report(&planning)?;
    let plan_dir = args.out.join("jobs");
    let title = format!(
        "routergen study {:?} ({scale:?}, engine {engine})",
        args.study
    );
    let tasks = planning.tasks();
    let outputs = work::run_all(&tasks, |w| {
        job::run_plan(&args.exec, Some(&plan_dir), &title, w)
    })?;
    let jobs = tasks.len();
    let results = tasks.into_iter().map(|(_, t)| t).zip(outputs).collect();
    let report = report(&Book::replay(results)?)?;
    study::write(&report, &args.out)?;
    if args.exec.plan.is_none() {
        // The default plan lives in the output directory until the study
        // is written: an interrupted study resumes from it.
        let _ = std::fs::remove_dir_all(&plan_dir);
    }
    print!("{}", report.markdown);
    println!("wrote {}", args.out.join("README.md").display());
    eprintln!(
        "routergen study: ran {:.1} s on engine {engine}, {} job(s)",
        started.elapsed().as_secs_f64(),
        jobs
    );
    Ok(Outcome::Success)
}
