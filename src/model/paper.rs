//! Chien's Figures 9 and 10 as the paper prints them, beside the model.
//!
//! The printed values are kept here only to show them next to what the
//! model computes (`routergen model --paper-tables`); the tests read the
//! paper's text for their oracle.

use std::fmt::Write;

use super::{evaluate, fmt_gates, ModelInput, Technology};
use crate::spec::{Algorithm, Topology};

/// The four routers of Chien §5, with the topology the model evaluates them on.
pub const ROUTERS: [(Algorithm, Topology, &str); 4] = [
    (Algorithm::DimensionOrder, Topology::Mesh, "Dimension order"),
    (Algorithm::PlanarAdaptive, Topology::Mesh, "Planar adaptive"),
    (Algorithm::NegativeFirst, Topology::Mesh, "Turn Model"),
    (Algorithm::StarChannels, Topology::Torus, "*-Channels"),
];

/// The dimensions of Figures 9 and 10.
pub const DIMS: [u32; 5] = [2, 3, 4, 5, 10];

/// Figure 10 as printed: gates per router for n = 2, 3, 4, 5, 10.
pub const FIGURE_10: [[u32; 5]; 4] = [
    [3_348, 5_022, 6_696, 8_370, 16_740],
    [6_344, 9_516, 12_688, 15_860, 31_720],
    [3_250, 5_194, 7_506, 10_186, 29_106],
    [8_766, 14_998, 22_702, 31_878, 99_838],
];

/// Figure 9 as printed: (setup ns, flow-control cycle ns) for n = 2, 3, 4, 5,
/// 10. Dimension order and planar-adaptive are printed once, for "any" n.
pub const FIGURE_9: [[(f64, f64); 5]; 4] = [
    [(5.6, 3.55); 5],
    [(10.9, 6.15); 5],
    [
        (9.1, 4.0),
        (10.0, 4.3),
        (10.6, 4.5),
        (11.2, 4.7),
        (12.8, 5.1),
    ],
    [
        (12.7, 6.5),
        (13.6, 6.8),
        (14.3, 7.1),
        (14.8, 7.2),
        (16.6, 7.4),
    ],
];

fn model(tech: &Technology, router: usize, n: u32) -> super::CostReport {
    let (algorithm, topology, _) = ROUTERS[router];
    let input = ModelInput {
        algorithm,
        topology,
        dims: n,
        vcs: ModelInput::chien_vcs(algorithm, topology, n),
    };
    evaluate(&input, tech)
}

/// Figures 9 and 10, model beside paper, as text.
pub fn tables(tech: &Technology) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Figure 10: gate counts (model / paper), technology {}",
        tech.name
    );
    let _ = write!(s, "{:<17}", "router");
    for n in DIMS {
        let _ = write!(s, " {:>17}", format!("n = {n}"));
    }
    let _ = writeln!(s);
    for (r, (_, _, title)) in ROUTERS.iter().enumerate() {
        let _ = write!(s, "{title:<17}");
        for (j, n) in DIMS.iter().enumerate() {
            let m = model(tech, r, *n);
            let cell = format!("{} / {}", fmt_gates(m.gates.total), FIGURE_10[r][j]);
            let _ = write!(s, " {cell:>17}");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Figure 9: setup delay and flow-control cycle in ns (model / paper, difference)"
    );
    let _ = writeln!(
        s,
        "{:<17} {:>3} {:>26} {:>26}",
        "router", "n", "setup", "flow-control cycle"
    );
    for (r, (_, _, title)) in ROUTERS.iter().enumerate() {
        let models: Vec<_> = DIMS.iter().map(|n| model(tech, r, *n)).collect();
        // Like the paper, one row for "any" n where n changes nothing.
        let same = models.iter().all(|m| m.delay_ns == models[0].delay_ns);
        for (j, m) in models
            .iter()
            .enumerate()
            .take(if same { 1 } else { DIMS.len() })
        {
            let n = if same {
                "any".to_string()
            } else {
                DIMS[j].to_string()
            };
            let (ps, pf) = FIGURE_9[r][j];
            let cell =
                |model: f64, paper: f64| format!("{model:.3} / {paper:.2} ({:+.3})", model - paper);
            let _ = writeln!(
                s,
                "{title:<17} {n:>3} {:>26} {:>26}",
                cell(m.delay_ns.setup, ps),
                cell(m.delay_ns.flow_control, pf)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nWhere the printed Figure 9 and the formulas of Figures 2-3 disagree, the model \
         follows the formulas."
    );
    s
}
