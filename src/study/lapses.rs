//! LAPSES (Vaidya, Sivasubramaniam, Das, HPCA 1999) §3-§5 on routergen's
//! routers: the 16x16 mesh, Duato's fully adaptive algorithm, 20-flit
//! messages with exponential inter-arrival times, uniform, transpose,
//! bit-reversal and perfect-shuffle traffic (§2.2, Table 2).
//!
//! - Figure 5: look-ahead against none, Duato against dimension order;
//! - Figure 6: the path-selection heuristics (§4.1);
//! - Table 3: look-ahead's gain against message length (uniform, 0.2);
//! - Table 4: routing-table storage (§5.2.2): economical, full, meta.
//!
//! The paper's PROUD router takes 5 cycles per hop and LA-PROUD 4 (Table
//! 2: look-ahead removes the table-lookup stage). routergen's 2-cycle
//! router decodes and allocates in one cycle whether or not it looks ahead
//! (docs/router.md, "Look-ahead routing"), so there its look-ahead saves no
//! cycle; Table 3 adds the router that allocates from the look-ahead field
//! in the cycle the head arrives (`pipeline = 1`), one cycle per hop.
//! Table 4 adds Figure 8(b)'s square clusters beside the rows of Figure
//! 8(a), as far as the deadlock checker proves them. The page reports our
//! figures, never the paper's.

use std::fmt::Write as _;

use super::{
    cell, saturation_load, spec_of, sweep, sweep_points, Measured, Point, Report, Scale, Sim, Sweep,
};
use crate::algo::Network;
use crate::analysis::svg::{Plot, Series};
use crate::error::{Error, Result};
use crate::sim::stats::Replicated;
use crate::sim::traffic::Pattern;
use crate::spec::{Algorithm, PathSelection, RouterSpec, SpecInput, TableStorage, Topology};

/// Normalized loads of Figures 5 and 6 and Table 4.
pub const LOADS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// The four traffic patterns of §2.2 in the paper's order.
pub const PATTERNS: [Pattern; 4] = [
    Pattern::Uniform,
    Pattern::Transpose,
    Pattern::BitReversal,
    Pattern::Shuffle,
];

/// Figure 5's table: the LA ADAPT router's latency (cycles) by pattern at
/// the loads 0.1, 0.2, ... until saturation.
pub const FIGURE_5_LA_ADAPT: [(Pattern, &[f64]); 4] = [
    (
        Pattern::Uniform,
        &[69.2, 74.0, 80.5, 87.2, 97.5, 111.0, 130.4, 168.6, 432.8],
    ),
    (Pattern::Transpose, &[74.5, 87.6, 294.6, 715.6]),
    (Pattern::BitReversal, &[76.1, 93.6, 411.2, 1155.3]),
    (Pattern::Shuffle, &[60.1, 66.3, 76.6, 98.3, 608.1]),
];

/// Table 3: message length, look-ahead, no look-ahead, % improvement
/// (uniform traffic, normalized load 0.2, LA-PROUD against PROUD).
pub const TABLE_3: [(u32, f64, f64, f64); 4] = [
    (5, 51.9, 63.4, 18.0),
    (10, 58.9, 69.6, 15.4),
    (20, 74.0, 83.6, 11.5),
    (50, 120.2, 128.6, 6.5),
];

/// Table 4: pattern, load, Meta-Tbl Adp. (Figure 8b), Meta-Tbl Det.
/// (Figure 8a), Full-Tbl Adp. / Econ. Storage; `None` is "Sat.".
#[allow(clippy::type_complexity)]
pub const TABLE_4: [(Pattern, f64, Option<f64>, Option<f64>, Option<f64>); 18] = [
    (Pattern::Uniform, 0.1, Some(71.5), Some(69.2), Some(69.2)),
    (Pattern::Uniform, 0.2, Some(82.3), Some(74.0), Some(74.0)),
    (Pattern::Uniform, 0.3, Some(294.1), Some(80.6), Some(80.5)),
    (Pattern::Uniform, 0.4, None, Some(87.4), Some(87.2)),
    (Pattern::Uniform, 0.5, None, Some(97.8), Some(97.5)),
    (Pattern::Uniform, 0.6, None, Some(111.5), Some(111.0)),
    (Pattern::Uniform, 0.7, None, Some(132.2), Some(130.4)),
    (Pattern::Uniform, 0.8, None, Some(169.3), Some(168.6)),
    (Pattern::Uniform, 0.9, None, Some(289.1), Some(432.8)),
    (
        Pattern::Transpose,
        0.1,
        Some(1024.1),
        Some(74.6),
        Some(74.5),
    ),
    (
        Pattern::Transpose,
        0.2,
        Some(1632.7),
        Some(88.5),
        Some(87.6),
    ),
    (Pattern::Transpose, 0.3, None, Some(746.6), Some(294.6)),
    (Pattern::Transpose, 0.4, None, Some(1485.0), Some(715.6)),
    (Pattern::Transpose, 0.5, None, None, Some(853.5)),
    (
        Pattern::BitReversal,
        0.1,
        Some(77.5),
        Some(76.3),
        Some(76.1),
    ),
    (
        Pattern::BitReversal,
        0.2,
        Some(103.3),
        Some(95.0),
        Some(93.6),
    ),
    (
        Pattern::BitReversal,
        0.3,
        Some(1164.8),
        Some(1033.2),
        Some(411.2),
    ),
    (Pattern::BitReversal, 0.4, None, None, Some(1155.3)),
];

/// The router variants of Figure 5, in the paper's names.
pub const FIGURE_5_ROUTERS: [(&str, Algorithm, bool); 4] = [
    ("NO LA DET", Algorithm::DimensionOrder, false),
    ("LA DET", Algorithm::DimensionOrder, true),
    ("NO LA ADAPT", Algorithm::Duato, false),
    ("LA ADAPT", Algorithm::Duato, true),
];

/// The path-selection heuristics of Figure 6 (§4.1).
pub const HEURISTICS: [PathSelection; 5] = [
    PathSelection::StaticXy,
    PathSelection::MinMux,
    PathSelection::Lfu,
    PathSelection::Lru,
    PathSelection::MaxCredit,
];

/// Measured cycles of a point at quick scale (after 50 of warm-up).
pub const QUICK_MEASURE: u64 = 300;

/// The scale's mesh side, loads, message-length list of Table 3, warm-up
/// and measured cycles, the side of the mesh for full tables, and the
/// patterns of Figure 5, Figure 6 and Table 4.
struct Setup {
    side: u32,
    loads: Vec<f64>,
    lengths: Vec<u32>,
    cycles: (u64, u64),
    full_side: u32,
    patterns: Vec<Pattern>,
    fig6_patterns: Vec<Pattern>,
    table4_patterns: Vec<Pattern>,
}

fn setup(scale: Scale) -> Setup {
    match scale {
        // A few seconds on the rust engine: one load, the patterns cut.
        Scale::Quick => Setup {
            side: 4,
            loads: vec![0.2],
            lengths: vec![5, 20],
            cycles: (50, QUICK_MEASURE),
            full_side: 4,
            patterns: vec![Pattern::Uniform, Pattern::Transpose],
            fig6_patterns: vec![Pattern::Uniform],
            table4_patterns: vec![Pattern::Uniform],
        },
        // 4,000 measured cycles (about 40 messages of 20 flits per node
        // at load 0.5): the paper collects 400,000 messages in all.
        Scale::Full => Setup {
            side: 16,
            loads: LOADS.to_vec(),
            lengths: TABLE_3.iter().map(|r| r.0).collect(),
            cycles: (1_000, 4_000),
            full_side: 8,
            patterns: PATTERNS.to_vec(),
            fig6_patterns: PATTERNS.to_vec(),
            table4_patterns: vec![Pattern::Uniform, Pattern::Transpose, Pattern::BitReversal],
        },
    }
}

/// One router variant of the study: Duato or dimension order on a k x k
/// mesh with V = 2 (Duato's minimum on a 2-D mesh, §2.3), look-ahead,
/// path selection and table as given.
fn router(
    side: u32,
    algorithm: Algorithm,
    lookahead: bool,
    psh: Option<PathSelection>,
    table: TableStorage,
) -> Result<RouterSpec> {
    spec_of(input(side, algorithm, lookahead, psh, table))
}

/// [`router`]'s specification before validation.
fn input(
    side: u32,
    algorithm: Algorithm,
    lookahead: bool,
    psh: Option<PathSelection>,
    table: TableStorage,
) -> SpecInput {
    SpecInput {
        topology: Some(Topology::Mesh),
        dims: Some(2),
        radix: Some(i64::from(side)),
        algorithm: Some(algorithm),
        vcs: Some(2),
        lookahead: Some(lookahead),
        path_selection: psh,
        table: Some(table),
        ..SpecInput::default()
    }
}

/// Table 3's router with look-ahead crossing a router in one cycle
/// (`pipeline = 1`, docs/router.md): the head is allocated from its
/// look-ahead field in the cycle it arrives.
fn one_cycle_router(side: u32) -> Result<RouterSpec> {
    spec_of(SpecInput {
        pipeline: Some(1),
        ..input(
            side,
            Algorithm::Duato,
            true,
            Some(PathSelection::StaticXy),
            TableStorage::None,
        )
    })
}

const FLITS: u32 = 20;

/// A sweep's points, named `pattern: label`.
fn points(net: &Network, label: &str, pattern: Pattern, flits: u32, runs: &Sweep) -> Vec<Point> {
    sweep_points(net, &format!("{pattern}: {label}"), pattern, flits, runs)
}

/// Latency points of `runs` and the saturation marker, for a plot.
fn series(name: String, runs: &[(f64, Measured)], colour: usize) -> Series {
    let (points, errors) = runs
        .iter()
        .filter_map(|(load, s)| {
            let l = s.stats.as_ref()?.latency?;
            Some(((*load, l.mean), l.half.unwrap_or(0.0)))
        })
        .unzip();
    Series {
        name,
        points,
        line: false,
        colour,
        marker: saturation_load(runs),
        errors,
    }
}

fn plot(title: String, series: Vec<Series>) -> String {
    Plot {
        title,
        x_label: "normalized load".into(),
        y_label: "mean latency (cycles)".into(),
        y_max: None,
        series,
    }
    .to_svg()
}

/// The file name of a pattern's figure, e.g. `fig5-bit-reversal.svg`.
fn fig_name(fig: &str, pattern: Pattern) -> String {
    format!("{fig}-{pattern}.svg")
}

/// The LAPSES study at `scale` on `engine`, simulated through `book`.
pub fn lapses(scale: Scale, sim: Sim) -> Result<Report> {
    let set = setup(scale);
    let k = set.side;
    let net = Network::new(Topology::Mesh, 2, k)?;
    let mut md = String::new();
    let mut figures = Vec::new();
    let mut all = Vec::new();

    // Figure 5.
    let _ = writeln!(
        md,
        "## Figure 5: look-ahead and adaptivity\n\n{k}x{k} mesh, {FLITS}-flit messages, V = 2, \
         static path selection (STATIC-XY) for Duato as in the paper. Mean latency in \
         cycles from creation to the tail's ejection; \"(sat.)\" marks the first load past \
         saturation (accepted below 95% of offered, latency over 3x the lowest load's, or \
         no drain), after which the sweep stops. The paper's column is its LA ADAPT \
         router (Figure 5's table).\n"
    );
    // Figure 5's NO LA ADAPT sweep per pattern: Figure 6's static-xy.
    let mut no_la_adapt = Vec::new();
    for &pattern in &set.patterns {
        let _ = writeln!(
            md,
            "### {pattern}\n\n| load | NO LA DET | LA DET | NO LA ADAPT | LA ADAPT | paper LA ADAPT |\n\
             |---|---|---|---|---|---|"
        );
        let mut sweeps = Vec::new();
        for (label, algo, la) in FIGURE_5_ROUTERS {
            let psh = (algo == Algorithm::Duato).then_some(PathSelection::StaticXy);
            let spec = router(k, algo, la, psh, TableStorage::None)?;
            let runs = sweep(
                sim,
                &format!("lapses: figure 5, {pattern}, {label}"),
                &spec,
                pattern,
                FLITS,
                &set.loads,
                set.cycles,
            )?;
            all.extend(points(&net, label, pattern, FLITS, &runs));
            sweeps.push((label, runs));
        }
        let paper = FIGURE_5_LA_ADAPT
            .iter()
            .find(|p| p.0 == pattern)
            .map_or(&[][..], |p| p.1);
        for (i, &load) in set.loads.iter().enumerate() {
            if sweeps
                .iter()
                .all(|(_, r)| !r.iter().any(|x| (x.0 - load).abs() < 1e-9))
            {
                break;
            }
            let cells: Vec<String> = sweeps.iter().map(|(_, r)| cell(r, load)).collect();
            let p = if k == 16 {
                paper.get(i).map_or("".into(), |v| format!("{v}"))
            } else {
                "".into()
            };
            let _ = writeln!(md, "| {load} | {} | {p} |", cells.join(" | "));
        }
        md.push('\n');
        let mut ser: Vec<Series> = sweeps
            .iter()
            .enumerate()
            .map(|(i, (label, r))| series(label.to_string(), r, i))
            .collect();
        if k == 16 {
            ser.push(Series {
                name: "paper LA ADAPT".into(),
                points: paper
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (set.loads[i], *v))
                    .collect(),
                line: true,
                colour: 3,
                marker: None,
                errors: Vec::new(),
            });
        }
        let name = fig_name("fig5", pattern);
        let _ = writeln!(md, "![figure 5, {pattern}]({name})\n");
        figures.push((
            name,
            plot(
                format!("{k}x{k} mesh, {pattern}: look-ahead and adaptivity (points: simulation)"),
                ser,
            ),
        ));
        no_la_adapt.push((pattern, sweeps[2].1.clone()));
    }
    md.push_str(
        "LAPSES finds look-ahead 12-15% faster at low load (one pipeline stage of five \
         saved per hop) and Duato ahead of dimension order on the non-uniform patterns at \
         high load. In routergen's 2-cycle router look-ahead saves no cycle (Table 3 \
         below adds the one-cycle router, where it does), so the LA and NO LA columns \
         are equal: what the simulation can show here is the \
         adaptivity.\n\n",
    );

    // Figure 6.
    let _ = writeln!(
        md,
        "## Figure 6: path-selection heuristics\n\nDuato, no look-ahead (it changes no \
         cycle), {k}x{k} mesh, {FLITS} flits; mean latency in cycles.\n"
    );
    for &pattern in &set.fig6_patterns {
        let names: Vec<String> = HEURISTICS.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(
            md,
            "### {pattern}\n\n| load | {} |\n|---{}|",
            names.join(" | "),
            "|---".repeat(HEURISTICS.len())
        );
        let mut sweeps = Vec::new();
        for h in HEURISTICS {
            let ran = no_la_adapt.iter().find(|r| r.0 == pattern);
            let runs = match (h, ran) {
                // Figure 5 ran this router already.
                (PathSelection::StaticXy, Some((_, runs))) => runs.clone(),
                _ => {
                    let spec = router(k, Algorithm::Duato, false, Some(h), TableStorage::None)?;
                    sweep(
                        sim,
                        &format!("lapses: figure 6, {pattern}, {h}"),
                        &spec,
                        pattern,
                        FLITS,
                        &set.loads,
                        set.cycles,
                    )?
                }
            };
            all.extend(points(&net, &h.to_string(), pattern, FLITS, &runs));
            sweeps.push((h, runs));
        }
        for &load in &set.loads {
            if sweeps
                .iter()
                .all(|(_, r)| !r.iter().any(|x| (x.0 - load).abs() < 1e-9))
            {
                break;
            }
            let cells: Vec<String> = sweeps.iter().map(|(_, r)| cell(r, load)).collect();
            let _ = writeln!(md, "| {load} | {} |", cells.join(" | "));
        }
        let name = fig_name("fig6", pattern);
        let _ = writeln!(md, "\n![figure 6, {pattern}]({name})\n");
        figures.push((
            name,
            plot(
                format!("{k}x{k} mesh, {pattern}: path-selection heuristics"),
                sweeps
                    .iter()
                    .enumerate()
                    .map(|(i, (h, r))| series(h.to_string(), r, i))
                    .collect(),
            ),
        ));
    }

    // Table 3.
    let _ = writeln!(
        md,
        "## Table 3: look-ahead against message length\n\nDuato (static path selection), \
         uniform traffic, normalized load 0.2, {k}x{k} mesh; cycles. The first three \
         columns are the 2-cycle router (`--pipeline 2`, the default), with and without \
         look-ahead; the next two the router with look-ahead crossing a router in one \
         cycle (`--pipeline 1 --lookahead`) and its gain over the 2-cycle router without \
         look-ahead, in cycles and percent.\n\n\
         | flits | look-ahead | no look-ahead | improvement | look-ahead, 1 cycle | \
         improvement, 1 cycle | paper look-ahead | paper no look-ahead | paper \
         improvement |\n|---|---|---|---|---|---|---|---|---|"
    );
    for &flits in &set.lengths {
        let mut lat = Vec::new();
        for (la, pipeline) in [(true, 2), (false, 2), (true, 1)] {
            let spec = if pipeline == 1 {
                one_cycle_router(k)?
            } else {
                router(
                    k,
                    Algorithm::Duato,
                    la,
                    Some(PathSelection::StaticXy),
                    TableStorage::None,
                )?
            };
            let runs = sweep(
                sim,
                &format!("lapses: table 3, {flits} flits, look-ahead {la}, pipeline {pipeline}"),
                &spec,
                Pattern::Uniform,
                flits,
                &[0.2],
                set.cycles,
            )?;
            let label = format!(
                "table 3 {flits} flits {}",
                match (la, pipeline) {
                    (true, 1) => "LA P1",
                    (true, _) => "LA",
                    _ => "NO LA",
                }
            );
            all.extend(points(&net, &label, Pattern::Uniform, flits, &runs));
            lat.push(runs[0].1.stats.as_ref().and_then(Replicated::mean_latency));
        }
        let paper = TABLE_3.iter().find(|r| r.0 == flits);
        let gain = |with: Option<f64>, cycles: bool| match (with, lat[1]) {
            (Some(a), Some(b)) if cycles => {
                format!("{:.1} cycles, {:.1}%", b - a, 100.0 * (b - a) / b)
            }
            (Some(a), Some(b)) => format!("{:.1}%", 100.0 * (b - a) / b),
            _ => "-".into(),
        };
        let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.1}"));
        let _ = writeln!(
            md,
            "| {flits} | {} | {} | {} | {} | {} | {} | {} | {} |",
            f(lat[0]),
            f(lat[1]),
            gain(lat[0], false),
            f(lat[2]),
            gain(lat[2], true),
            f(paper.map(|r| r.1)),
            f(paper.map(|r| r.2)),
            paper.map_or("-".into(), |r| format!("{}%", r.3))
        );
    }
    md.push_str(
        "\nThe paper's gain is one pipeline stage per hop: PROUD takes 5 cycles per router \
         (table lookup, then path selection and arbitration, ...), LA-PROUD 4, because the \
         next router's lookup is done beside this router's arbitration (Table 2). A 5-flit \
         message crossing about 11 hops saves about 11 cycles of some 60, a 50-flit one the \
         same 11 of some 130: hence 18% down to 6.5%. routergen's router has no lookup \
         stage to remove: it decodes the route and allocates in the same cycle, two cycles \
         per router with or without look-ahead, and its look-ahead takes the decoder off \
         the allocation path (a shorter clock period, not a cycle fewer; \
         docs/router.md), so the 2-cycle router's improvement in cycles is 0%. The cycle \
         look-ahead can save is the one `--pipeline 1` removes: with the next hop's \
         outputs in the head, a router allocates the head in the cycle it arrives, so a \
         hop takes 1 cycle instead of 2, where LA-PROUD takes 4 instead of PROUD's 5. \
         Per hop that is half of our router's time against a fifth of PROUD's: the gain \
         in cycles is, like the paper's, close to one per router crossed (the source's \
         and the destination's included), and in percent larger, because our hops are \
         shorter; it shrinks a little with message length, as the paper's does, because \
         longer messages wait more behind one another. In ns the one-cycle router's clock is hardly slower \
         (docs/performance.md, One cycle per router against two).\n\n",
    );

    // Table 4.
    md.push_str(&table_storage(&set, sim, &mut all)?);

    Ok(Report {
        markdown: super::page(
            "LAPSES (HPCA 1999) on routergen's routers",
            "lapses",
            scale,
            sim,
            &md,
        ),
        figures,
        points: all,
    })
}

/// Table 4: the table-storage schemes routergen builds, each on the
/// largest mesh it is built for, Duato with V = 2, uniform, transpose and
/// bit-reversal traffic.
fn table_storage(set: &Setup, sim: Sim, all: &mut Vec<Point>) -> Result<String> {
    let mut md = String::from(
        "## Table 4: routing-table storage\n\nDuato (max-credit path selection), \
         20 flits; cycles. routergen builds the economical table (LAPSES §5.2.1) on meshes \
         of any size, the full table up to 64 nodes and the meta table up to 256 \
         (docs/limits.md), so the full table runs on the smaller mesh, beside the others on \
         the same mesh. `meta` is routergen's default labelling, whole dimensions as the \
         cluster id (`--meta-clusters rows`): on a 2-D mesh each cluster is a row or a \
         column, Figure 8(a), the paper's Meta-Tbl Det. Figure 8(b)'s square clusters \
         (`--meta-clusters squares`, the paper's Meta-Tbl Adp.) are built only where the \
         deadlock checker proves the table's relation; the line under each mesh says what \
         it found.\n\n",
    );
    let patterns = &set.table4_patterns;
    let mut sides = vec![set.side];
    if set.full_side != set.side {
        sides.push(set.full_side);
    }
    for side in sides {
        let net = Network::new(Topology::Mesh, 2, side)?;
        let schemes = [
            TableStorage::None,
            TableStorage::Economical,
            TableStorage::Full,
            TableStorage::Meta,
        ];
        let mut built = Vec::new();
        for t in schemes {
            match router(side, Algorithm::Duato, false, None, t) {
                Ok(s) => built.push((t, s)),
                Err(Error::InvalidSpec(why)) => {
                    let _ = writeln!(md, "- {side}x{side} mesh, `--table {t}`: refused: {why}");
                }
                Err(e) => return Err(e),
            }
        }
        let squares = square_clusters(side);
        let _ = writeln!(
            md,
            "- {side}x{side} mesh, `--table meta --meta-clusters squares` (Figure 8(b)): {}",
            match &squares {
                Ok(()) => "proved deadlock-free".to_string(),
                Err(why) => format!("refused: {why}"),
            }
        );
        let _ = writeln!(
            md,
            "\n### {side}x{side} mesh\n\n| traffic | load | {} | `meta` squares | paper \
             Meta-Tbl Adp. | paper Meta-Tbl Det. | paper Full-Tbl / Econ. |\n|---|---{}|---|\
             ---|---|---|",
            built
                .iter()
                .map(|(t, _)| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(" | "),
            "|---".repeat(built.len())
        );
        for &pattern in patterns {
            let mut sweeps = Vec::new();
            for (t, spec) in &built {
                let runs = sweep(
                    sim,
                    &format!("lapses: table 4, {side}x{side}, {pattern}, {t}"),
                    spec,
                    pattern,
                    FLITS,
                    &set.loads,
                    set.cycles,
                )?;
                let label = format!("{side}x{side} table {t}");
                all.extend(points(&net, &label, pattern, FLITS, &runs));
                sweeps.push(runs);
            }
            for &load in &set.loads {
                if sweeps
                    .iter()
                    .all(|r| !r.iter().any(|x| (x.0 - load).abs() < 1e-9))
                {
                    break;
                }
                let paper = TABLE_4
                    .iter()
                    .find(|r| r.0 == pattern && (r.1 - load).abs() < 1e-9 && side == 16);
                let f = |x: Option<Option<f64>>| match x {
                    None => String::new(),
                    Some(None) => "Sat.".into(),
                    Some(Some(v)) => format!("{v}"),
                };
                let cells: Vec<String> = sweeps.iter().map(|r| cell(r, load)).collect();
                let _ = writeln!(
                    md,
                    "| {pattern} | {load} | {} | {} | {} | {} | {} |",
                    cells.join(" | "),
                    if squares.is_ok() { "" } else { "refused" },
                    f(paper.map(|r| r.2)),
                    f(paper.map(|r| r.3)),
                    f(paper.map(|r| r.4))
                );
            }
        }
        md.push('\n');
    }
    md.push_str(
        "The economical and full tables hold exactly the relation the logic decoder \
         computes (every minimal output Duato permits), so they route as `none` does; the \
         meta table of Figure 8(a) keeps, for another cluster, only the outputs \
         permitted toward every node of that cluster. With rows Duato's escape channel \
         (X first) is lost, so the checker takes columns: toward another column only the \
         X hop remains, then Y within the column, deterministic XY routing, the paper's \
         Meta-Tbl Det.\n\n\
         Figure 8(b)'s square clusters keep more: toward a cluster diagonal to the \
         router's, every node of it lies in the same quadrant, so the entry keeps both \
         productive directions and Duato's escape channel, and routing stays adaptive. \
         Toward a cluster in line with the router's (the same cluster row or column), \
         the destinations straddle the router's column or row, so the entry keeps only \
         the adaptive channel along the line: the escape channel (dimension order, X \
         first) differs across the cluster and is lost. That is the loss of adaptivity \
         at the cluster boundaries the paper blames for Meta-Tbl Adp.'s early \
         saturation (§5.2.2), and it is worse than congestion: with the escape gone \
         from those entries, Duato's theorem no longer applies, and taking the kept \
         adaptive channels as the escape instead leaves a cycle in the extended \
         dependency graph (above), a deadlock that messages around a corner where four \
         clusters meet can reach. routergen refuses to build such a router; the paper's \
         simulated Meta-Tbl Adp. latencies, 1,024 cycles at load 0.1 on transpose \
         traffic, are consistent with a network that seizes up.\n",
    );
    Ok(md)
}

/// Whether Figure 8(b)'s square clusters of the `side` x `side` mesh hold
/// a relation the deadlock checker proves for Duato with V = 2: `Err` says
/// why not (no square clusters when the side is not the square of a power
/// of two, or the checker's failure).
fn square_clusters(side: u32) -> std::result::Result<(), String> {
    let b = (1..=side).find(|b| b * b == side && b.is_power_of_two());
    let Some(b) = b else {
        return Err(format!(
            "no square clusters: the side {side} is not the square of a power of two"
        ));
    };
    let net = Network::new(Topology::Mesh, 2, side).map_err(|e| e.to_string())?;
    let rel = crate::algo::Relation::new(Algorithm::Duato, net, 2).map_err(|e| e.to_string())?;
    crate::algo::tables::meta_split_among(&rel, &[crate::algo::tables::MetaSplit::squares(2, b)])
        .map(|_| ())
        .map_err(|why| {
            format!(
                "a cluster entry keeps only the outputs permitted toward every node of its \
                 cluster, and the relation so restricted fails the deadlock checker {why}"
            )
        })
}
