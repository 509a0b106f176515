//! A study's data: points.csv, one row per point and replication (the
//! run's configuration and what it measured), and config.json, the
//! study's whole configuration. The page is made from the runs these rows
//! hold, whether they come from the simulations or from the file
//! ([`recorded`]: a study redrawn without simulating). docs/studies/README.md
//! describes every column.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{Point, Scale};
use crate::error::{Error, Result};
use crate::sim::stats::Run;
use crate::sim::{EngineKind, SimConfig};
use crate::work::{self, Output, Task};

/// The configuration of one run: what decides its result, as the rows
/// write it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    /// The network's topology.
    pub topology: String,
    /// Its dimensions.
    pub dims: u32,
    /// Its radix.
    pub radix: u32,
    /// The routing algorithm.
    pub algorithm: String,
    /// The router's name: every option that changes it changes the name.
    pub router: String,
    /// Every option of the router and its value (config.json).
    pub options: Vec<(&'static str, String)>,
    /// Virtual channels per physical channel.
    pub vcs: u32,
    /// Flit buffer depth per VC.
    pub depth: u32,
    /// Message length in flits.
    pub flits: String,
    /// The traffic pattern.
    pub traffic: String,
    /// The injection process.
    pub injection: String,
    /// Offered load, a fraction of the uniform bisection rate.
    pub load: f64,
    /// The traffic seed.
    pub seed: u64,
    /// Warm-up cycles.
    pub warmup: u64,
    /// Measured cycles.
    pub measure: u64,
    /// The simulation engine.
    pub engine: String,
}

impl RunConfig {
    /// The configuration of the run `cfg` on `engine`.
    pub fn of(cfg: &SimConfig, engine: EngineKind) -> RunConfig {
        let s = &cfg.spec;
        RunConfig {
            topology: s.topology.to_string(),
            dims: s.dims,
            radix: s.radix,
            algorithm: s.algorithm.to_string(),
            router: s.name(),
            options: s.values(),
            vcs: s.vcs,
            depth: s.buffer_depth,
            flits: cfg.length.to_string(),
            traffic: cfg.pattern.to_string(),
            injection: cfg.injection.to_string(),
            load: cfg.load,
            seed: cfg.seed,
            warmup: cfg.warmup,
            measure: cfg.measure,
            engine: engine.to_string(),
        }
    }

    /// What tells this run from every other run of a study: the router
    /// (its name holds every option that changes it), the traffic, the
    /// load, the seed, the cycles and the engine.
    fn key(&self) -> String {
        format!(
            "{}, {} traffic, {} flits, {} injection, load {}, seed {}, warm-up {}, {} \
             measured cycles, engine {}",
            self.router,
            self.traffic,
            self.flits,
            self.injection,
            self.load,
            self.seed,
            self.warmup,
            self.measure,
            self.engine
        )
    }
}

/// The columns of points.csv, in order (docs/studies/README.md).
pub const COLUMNS: [&str; 31] = [
    "point",
    "paper_load",
    "topology",
    "dims",
    "radix",
    "algorithm",
    "router",
    "vcs",
    "buffer_depth",
    "flits",
    "traffic",
    "injection",
    "load",
    "seed",
    "warmup",
    "measure",
    "engine",
    "drained",
    "complete",
    "packets",
    "delivered",
    "latency_mean",
    "latency_p50",
    "latency_p99",
    "network_latency_mean",
    "offered",
    "accepted",
    "backlog_start",
    "backlog_end",
    "fastest",
    "saturated",
];

/// A cell: quoted where it holds a comma or a quote.
fn cell(text: &str) -> String {
    if text.contains([',', '"']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// points.csv of `points`: a row per point and replication, in the
/// study's order. Numbers are written in the shortest form that reads
/// back to the same value, so a page redrawn from the file is the same.
pub fn csv(points: &[Point]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for p in points {
        for (c, run) in &p.runs {
            let mut cells = vec![
                cell(&p.network),
                p.paper_load.to_string(),
                c.topology.clone(),
                c.dims.to_string(),
                c.radix.to_string(),
                c.algorithm.clone(),
                c.router.clone(),
                c.vcs.to_string(),
                c.depth.to_string(),
                c.flits.clone(),
                c.traffic.clone(),
                c.injection.clone(),
                c.load.to_string(),
                c.seed.to_string(),
                c.warmup.to_string(),
                c.measure.to_string(),
                c.engine.clone(),
                run.is_some().to_string(),
            ];
            match run {
                Some(r) => cells.extend([
                    r.complete.to_string(),
                    r.packets.to_string(),
                    r.delivered.to_string(),
                    opt(r.latency),
                    opt(r.p50),
                    opt(r.p99),
                    opt(r.network_latency),
                    r.offered.to_string(),
                    r.accepted.to_string(),
                    r.backlog[0].to_string(),
                    r.backlog[1].to_string(),
                    r.fastest
                        .iter()
                        .map(|t| t.map_or("-".into(), |t| t.to_string()))
                        .collect::<Vec<_>>()
                        .join(" "),
                ]),
                None => cells.extend(std::iter::repeat(String::new()).take(12)),
            }
            cells.push(opt(p.saturated));
            let _ = writeln!(out, "{}", cells.join(","));
        }
    }
    out
}

/// The cells of one CSV line: comma-separated, a cell in double quotes
/// may hold commas and doubled quotes. `Err` says what is wrong.
fn split(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut cells = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut cell = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        cell.push('"');
                    }
                    Some('"') => break,
                    Some(c) => cell.push(c),
                    None => {
                        return Err(format!(
                            "cell {} opens a quote it never closes",
                            cells.len() + 1
                        ))
                    }
                }
            }
            if !matches!(chars.peek(), None | Some(',')) {
                return Err(format!(
                    "cell {} has text after its closing quote",
                    cells.len() + 1
                ));
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                cell.push(c);
                chars.next();
            }
        }
        cells.push(cell);
        if chars.next().is_none() {
            return Ok(cells);
        }
    }
}

/// One row of points.csv as read: the run's key and what it measured.
struct Read {
    key: String,
    run: Option<Run>,
}

/// The cells of one line of `file`, read by column name.
struct Line<'a> {
    file: &'a Path,
    number: usize,
    cells: Vec<String>,
}

impl Line<'_> {
    fn bad(&self, column: &str, why: impl std::fmt::Display) -> Error {
        Error::InvalidSpec(format!(
            "{} line {}, column {column}: {why}",
            self.file.display(),
            self.number
        ))
    }

    fn text(&self, column: &str) -> &str {
        let i = COLUMNS
            .iter()
            .position(|c| *c == column)
            .expect("a column of points.csv");
        &self.cells[i]
    }

    /// The cell of `column` read as `what` (named in the error).
    fn parse<T: std::str::FromStr>(&self, column: &str, what: &str) -> Result<T> {
        let text = self.text(column);
        text.parse()
            .map_err(|_| self.bad(column, format!("`{text}` is not {what}")))
    }

    /// The cell of `column`, or `None` where it is empty.
    fn optional<T: std::str::FromStr>(&self, column: &str, what: &str) -> Result<Option<T>> {
        if self.text(column).is_empty() {
            Ok(None)
        } else {
            self.parse(column, what).map(Some)
        }
    }

    fn number(&self, column: &str) -> Result<f64> {
        let x: f64 = self.parse(column, "a number")?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.bad(column, format!("`{x}` is not a finite number")))
        }
    }

    fn read(&self) -> Result<Read> {
        const COUNT: &str = "a whole number (0 or more)";
        let flag = "true or false";
        let config = RunConfig {
            topology: self.text("topology").into(),
            dims: self.parse("dims", COUNT)?,
            radix: self.parse("radix", COUNT)?,
            algorithm: self.text("algorithm").into(),
            router: self.text("router").into(),
            options: Vec::new(),
            vcs: self.parse("vcs", COUNT)?,
            depth: self.parse("buffer_depth", COUNT)?,
            flits: self.text("flits").into(),
            traffic: self.text("traffic").into(),
            injection: self.text("injection").into(),
            load: self.number("load")?,
            seed: self.parse("seed", COUNT)?,
            warmup: self.parse("warmup", COUNT)?,
            measure: self.parse("measure", COUNT)?,
            engine: self.text("engine").into(),
        };
        self.number("paper_load")?;
        self.optional::<bool>("saturated", flag)?;
        let run = if self.parse("drained", flag)? {
            let fastest = self.text("fastest");
            Some(Run {
                algorithm: config.algorithm.clone(),
                load: config.load,
                seed: config.seed,
                offered: self.number("offered")?,
                accepted: self.number("accepted")?,
                backlog: [self.number("backlog_start")?, self.number("backlog_end")?],
                packets: self.parse("packets", COUNT)?,
                delivered: self.parse("delivered", COUNT)?,
                latency: self.optional("latency_mean", "a number")?,
                p50: self.optional("latency_p50", COUNT)?,
                p99: self.optional("latency_p99", COUNT)?,
                network_latency: self.optional("network_latency_mean", "a number")?,
                fastest: fastest
                    .split_whitespace()
                    .map(|t| match t {
                        "-" => Ok(None),
                        t => t.parse().map(Some).map_err(|_| {
                            self.bad(
                                "fastest",
                                format!(
                                    "`{t}` in `{fastest}` is neither a whole number of cycles \
                                     nor `-`"
                                ),
                            )
                        }),
                    })
                    .collect::<Result<_>>()?,
                complete: self.parse("complete", flag)?,
            })
        } else {
            None
        };
        Ok(Read {
            key: config.key(),
            run,
        })
    }
}

/// Runs by their configuration's key: what a study's page is made from.
pub type Runs = HashMap<String, Option<Run>>;

/// The runs the simulation jobs of `results` measured (the other jobs
/// left out).
pub fn runs_of(results: &[(Task, Output)]) -> Result<Runs> {
    let mut runs = Runs::new();
    for (task, output) in results {
        if let (Task::Simulate(p), Output::Simulated { stats }) = (task, output) {
            let key = RunConfig::of(&p.config()?, p.engine).key();
            runs.insert(key, stats.as_ref().map(Run::of));
        }
    }
    Ok(runs)
}

/// The runs of the points.csv `text` (read from `file`), by their key;
/// `Err` names the line and column of the first bad cell and what it
/// should hold. A run on several rows (a point two tables share) must
/// have the same values on each.
pub fn parse(file: &Path, text: &str) -> Result<Runs> {
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|l| l.1).unwrap_or("");
    let want = COLUMNS.join(",");
    if header != want {
        let got: Vec<&str> = header.split(',').collect();
        let i = COLUMNS
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .unwrap_or(COLUMNS.len().min(got.len()));
        return Err(Error::InvalidSpec(format!(
            "{} line 1: not the header of a study's points.csv: column {} is `{}` where \
             `{}` is expected (the header is {want})",
            file.display(),
            i + 1,
            got.get(i).unwrap_or(&""),
            COLUMNS.get(i).unwrap_or(&"the end of the line")
        )));
    }
    let mut runs: HashMap<String, (usize, Option<Run>)> = HashMap::new();
    for (i, l) in lines {
        let number = i + 1;
        let bad =
            |why: String| Error::InvalidSpec(format!("{} line {number}: {why}", file.display()));
        let cells = split(l).map_err(bad)?;
        if cells.len() != COLUMNS.len() {
            return Err(bad(format!(
                "{} cells where the header has {} columns",
                cells.len(),
                COLUMNS.len()
            )));
        }
        let read = Line {
            file,
            number,
            cells,
        }
        .read()?;
        match runs.get(&read.key) {
            Some((first, run)) if *run != read.run => {
                return Err(bad(format!(
                    "the run {} measured other values on line {first}",
                    read.key
                )))
            }
            Some(_) => {}
            None => {
                runs.insert(read.key, (number, read.run));
            }
        }
    }
    Ok(runs.into_iter().map(|(k, (_, r))| (k, r)).collect())
}

/// The run `point` from `runs` (read from `source`); `Err` names the run
/// they do not hold.
pub fn recorded(runs: &Runs, source: &str, point: &work::Point) -> Result<Option<Run>> {
    let key = RunConfig::of(&point.config()?, point.engine).key();
    runs.get(&key).cloned().ok_or_else(|| {
        Error::InvalidSpec(format!(
            "{source}: no row for the run {key}, which the study draws: the rows are of \
             another configuration (another scale, seed count or engine than config.json \
             says, or another version of routergen)"
        ))
    })
}

/// What decides a study beside its points: `routergen study`'s
/// parameters (config.json).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// The study's name.
    pub study: &'static str,
    /// Its scale.
    pub scale: Scale,
    /// Replications of each point.
    pub seeds: u32,
    /// The simulation engine.
    pub engine: EngineKind,
}

fn scale_name(scale: Scale) -> &'static str {
    match scale {
        Scale::Quick => "quick",
        Scale::Full => "full",
    }
}

/// Each distinct value of `f` over the runs of `points`, in the order first met.
fn distinct<T: PartialEq>(points: &[Point], f: impl Fn(&RunConfig) -> T) -> Vec<T> {
    let mut out = Vec::new();
    for (c, _) in points.iter().flat_map(|p| &p.runs) {
        let v = f(c);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// config.json: the study's setting and every network, router (with all
/// its options), traffic, load and cycle count its runs take, and the
/// routergen that ran it.
pub fn config_json(setting: &Setting, points: &[Point]) -> String {
    use serde_json::{json, Map, Value};
    let routers: Vec<Value> = distinct(points, |c| (c.router.clone(), c.options.clone()))
        .into_iter()
        .map(|(name, options)| {
            let options: Map<String, Value> = options
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v)))
                .collect();
            json!({ "name": name, "options": options })
        })
        .collect();
    let networks: Vec<Value> = distinct(points, |c| (c.topology.clone(), c.dims, c.radix))
        .into_iter()
        .map(|(t, n, k)| json!({ "topology": t, "dims": n, "radix": k }))
        .collect();
    let value = json!({
        "study": setting.study,
        "scale": scale_name(setting.scale),
        "seeds": setting.seeds,
        "engine": setting.engine.to_string(),
        "routergen": env!("CARGO_PKG_VERSION"),
        "warmup": distinct(points, |c| c.warmup),
        "measure": distinct(points, |c| c.measure),
        "networks": networks,
        "algorithms": distinct(points, |c| c.algorithm.clone()),
        "routers": routers,
        "flits": distinct(points, |c| c.flits.clone()),
        "traffic": distinct(points, |c| c.traffic.clone()),
        "injection": distinct(points, |c| c.injection.clone()),
        "loads": distinct(points, |c| c.load),
        "rows": points.iter().map(|p| p.runs.len()).sum::<usize>(),
    });
    let mut text = serde_json::to_string_pretty(&value).expect("JSON of strings and numbers");
    text.push('\n');
    text
}

/// The setting of the config.json `text` (read from `file`) of study
/// `study`; `Err` names the field that is missing or wrong and what it
/// should hold.
pub fn read_setting(file: &Path, text: &str, study: &'static str) -> Result<Setting> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::InvalidSpec(format!(
            "{} line {}, column {}: not JSON: {e}",
            file.display(),
            e.line(),
            e.column()
        ))
    })?;
    let bad = |field: &str, want: &str| {
        Error::InvalidSpec(format!(
            "{}: field `{field}` is {} where {want} is expected",
            file.display(),
            v.get(field).map_or("missing".into(), |x| format!("`{x}`"))
        ))
    };
    let text_of = |field: &str, want: &str| {
        v.get(field)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| bad(field, want))
    };
    if text_of("study", "a study's name")? != study {
        return Err(bad("study", &format!("`\"{study}\"` (the study named)")));
    }
    let scale = match text_of("scale", "`\"quick\"` or `\"full\"`")? {
        "quick" => Scale::Quick,
        "full" => Scale::Full,
        _ => return Err(bad("scale", "`\"quick\"` or `\"full\"`")),
    };
    let seeds_want = format!("a whole number from 1 to {}", crate::limits::MAX_SEEDS);
    let seeds = v
        .get("seeds")
        .and_then(serde_json::Value::as_u64)
        .filter(|s| (1..=u64::from(crate::limits::MAX_SEEDS)).contains(s))
        .ok_or_else(|| bad("seeds", &seeds_want))?;
    let engines = format!(
        "an engine ({})",
        <EngineKind as crate::spec::names::Named>::allowed()
    );
    let engine = text_of("engine", &engines)?
        .parse()
        .map_err(|_| bad("engine", &engines))?;
    Ok(Setting {
        study,
        scale,
        seeds: seeds as u32,
        engine,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seed: u64) -> RunConfig {
        RunConfig {
            topology: "mesh".into(),
            dims: 2,
            radix: 4,
            algorithm: "duato".into(),
            router: "router_duato_mesh2d_k4_v2_w32_d4".into(),
            options: Vec::new(),
            vcs: 2,
            depth: 4,
            flits: "20".into(),
            traffic: "transpose".into(),
            injection: "exponential".into(),
            load: 0.1 + 0.2,
            seed,
            warmup: 50,
            measure: 300,
            engine: "rust".into(),
        }
    }

    /// Every value of a run, a run that did not drain and a label with a
    /// comma and a quote come back from the file as they went in.
    #[test]
    fn rows_read_back_as_written() {
        let run = Run {
            algorithm: "duato".into(),
            load: 0.1 + 0.2,
            seed: 1,
            offered: 1.0 / 3.0,
            accepted: 0.1,
            backlog: [0.0, 1e-7],
            packets: 40,
            delivered: 39,
            latency: Some(2.0 / 3.0 + 60.0),
            p50: Some(55),
            p99: None,
            network_latency: None,
            fastest: vec![None, Some(12), None, Some(16), None],
            complete: false,
        };
        let point = Point {
            network: "transpose: a, \"b\"".into(),
            paper_load: 0.3,
            offered: f64::NAN,
            accepted: f64::NAN,
            backlog: [f64::NAN; 2],
            latency: None,
            latency_half: None,
            network_latency: None,
            packets: 0,
            seeds: 0,
            bound: 0.0,
            model: None,
            sim_zero: None,
            fastest: Vec::new(),
            runs: vec![(config(1), Some(run.clone())), (config(2), None)],
            saturated: Some(true),
        };
        let text = csv(&[point]);
        let runs = parse(Path::new("points.csv"), &text).unwrap();
        assert_eq!(runs.len(), 2, "{text}");
        assert_eq!(runs[&config(1).key()], Some(run));
        assert_eq!(runs[&config(2).key()], None);
    }

    #[test]
    fn cells_split_on_commas_outside_quotes() {
        assert_eq!(
            split("a,\"b, \"\"c\"\"\",,d").unwrap(),
            ["a", "b, \"c\"", "", "d"]
        );
        assert_eq!(split("").unwrap(), [""]);
        assert!(split("\"a").unwrap_err().contains("never closes"));
        assert!(split("\"a\"b,c")
            .unwrap_err()
            .contains("after its closing quote"));
        assert_eq!(cell("x, y"), "\"x, y\"");
        assert_eq!(cell("x"), "x");
    }
}
