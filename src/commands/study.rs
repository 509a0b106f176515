//! `routergen study`: a paper's model beside routergen's simulated routers,
//! written into a directory. The study is planned as jobs (one per
//! simulated point and per synthesis), run by the executor the flags
//! choose, and written from their results (docs/cluster.md); or, with
//! `--from`, redrawn from the runs a points.csv records. Either way the
//! page is made from the runs as points.csv holds them.

use std::path::Path;

use super::{job, Outcome};
use crate::cli::{StudyArgs, StudyName};
use crate::error::{Error, Result};
use crate::sim::EngineKind;
use crate::study::data::{self, Runs, Setting};
use crate::study::{self, chien, Report, Scale};
use crate::work::{self, Book, Output, Task};

/// The study's name as the command line and config.json write it.
fn name(study: StudyName) -> &'static str {
    match study {
        StudyName::Dally => "dally",
        StudyName::Quaglia => "quaglia",
        StudyName::Lapses => "lapses",
        StudyName::Chien => "chien",
    }
}

/// The study's page from `runs` (read from `source`), the other jobs'
/// `results` and the Fmax reports in `cache`.
fn draw(
    args: &StudyArgs,
    setting: &Setting,
    (cache, synth): (&Path, chien::Synth),
    (runs, source): (&Runs, &str),
    results: Vec<(Task, Output)>,
) -> Result<Report> {
    let answer = |p: &work::Point| data::recorded(runs, source, p);
    let book = Book::recorded(&answer, results)?;
    report(args, setting, (cache, synth), &book)
}

/// The study's page, its work asked of `book`.
fn report(
    args: &StudyArgs,
    setting: &Setting,
    (cache, synth): (&Path, chien::Synth),
    book: &Book,
) -> Result<Report> {
    let sim = study::Sim {
        book,
        engine: setting.engine,
        seeds: setting.seeds,
    };
    let scale = setting.scale;
    match args.study {
        StudyName::Dally => study::dally(scale, sim),
        StudyName::Quaglia => study::quaglia(scale, sim),
        StudyName::Lapses => study::lapses::lapses(scale, sim),
        StudyName::Chien => chien::chien(scale, Some((cache, synth)), sim),
    }
}

/// A file of `--from`'s, read whole.
fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The study redrawn from the points.csv `file` and the config.json
/// beside it; Fmax reports from the fmax/ beside them, never synthesized.
fn redraw(args: &StudyArgs, file: &Path) -> Result<(Setting, Report)> {
    let text = read(file)?;
    let config = file.with_file_name("config.json");
    let setting = data::read_setting(&config, &read(&config)?, name(args.study))?;
    let runs = data::parse(file, &text)?;
    let cache = file.with_file_name("fmax");
    let source = file.display().to_string();
    let report = draw(
        args,
        &setting,
        (&cache, chien::Synth::CacheOnly),
        (&runs, &source),
        Vec::new(),
    )?;
    Ok((setting, report))
}

/// The study simulated: planned, its jobs run, drawn from their results.
fn simulate(args: &StudyArgs) -> Result<(Setting, Report, usize)> {
    let scale = if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    // Bad executor flags are refused before any work.
    job::executor(&args.exec)?;
    let engine = args.engine.unwrap_or_else(EngineKind::default_installed);
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
    let setting = Setting {
        study: name(args.study),
        scale,
        seeds: args.seeds.unwrap_or_else(|| study::seeds(scale)),
        engine,
    };
    let planning = Book::plan();
    report(args, &setting, (&cache, synth), &planning)?;
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
    let results: Vec<(Task, Output)> = tasks.into_iter().map(|(_, t)| t).zip(outputs).collect();
    let runs = data::runs_of(&results)?;
    let report = draw(
        args,
        &setting,
        (&cache, synth),
        (&runs, "the jobs' results"),
        results,
    )?;
    Ok((setting, report, jobs))
}

/// Runs the study (or redraws it with `--from`), prints its table and
/// writes DIR.
pub fn run(args: &StudyArgs) -> Result<Outcome> {
    if args.out.exists() && !args.out.is_dir() {
        return Err(Error::InvalidSpec(format!(
            "-o {} is not a directory: give a directory for README.md and the plots",
            args.out.display()
        )));
    }
    let started = std::time::Instant::now();
    let (setting, report, jobs) = match &args.from {
        Some(file) => {
            let (setting, report) = redraw(args, file)?;
            (setting, report, 0)
        }
        None => simulate(args)?,
    };
    study::write(&report, &setting, &args.out)?;
    if args.exec.plan.is_none() && args.from.is_none() {
        // The default plan lives in the output directory until the study
        // is written: an interrupted study resumes from it.
        let _ = std::fs::remove_dir_all(args.out.join("jobs"));
    }
    print!("{}", report.markdown);
    println!("wrote {}", args.out.join("README.md").display());
    let took = started.elapsed().as_secs_f64();
    match &args.from {
        Some(file) => eprintln!(
            "routergen study: redrawn from {} in {took:.1} s",
            file.display()
        ),
        None => eprintln!(
            "routergen study: ran {took:.1} s on engine {}, {jobs} job(s)",
            setting.engine
        ),
    }
    Ok(Outcome::Success)
}
