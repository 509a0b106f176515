//! Chien's Figures 9 and 10 as the paper prints them, beside the model.
//!
//! The printed values are kept here only to show them next to what the
//! model computes (`routergen model --paper-tables`); the tests read the
//! paper's text for their oracle.

use std::fmt::Write;

use super::{evaluate, fmt_gates, ModelInput, Technology};
use crate::algo::ChienModel;
use crate::spec::names::Named;
use crate::spec::{Algorithm, Topology};

/// One router of Chien §5: the algorithm, the topology the model evaluates
/// it on, and its row label in Figures 9 and 10.
pub type Router = (Algorithm, Topology, &'static str);

/// The routers of Chien §5: the algorithms he studies
/// ([`ChienModel::Studied`]), in registration order (his order).
pub fn routers() -> Vec<Router> {
    Algorithm::all()
        .into_iter()
        .filter_map(|a| match a.routing().chien() {
            ChienModel::Studied {
                figure_row,
                topology,
                ..
            } => Some((a, topology, figure_row)),
            ChienModel::CostedAs { .. } => None,
        })
        .collect()
}

/// The dimensions of Figures 9 and 10.
pub const DIMS: [u32; 5] = [2, 3, 4, 5, 10];

/// Figure 10 as printed: gates per router for n = 2, 3, 4, 5, 10, by row.
pub const FIGURE_10: [(&str, [u32; 5]); 4] = [
    ("Dimension order", [3_348, 5_022, 6_696, 8_370, 16_740]),
    ("Planar adaptive", [6_344, 9_516, 12_688, 15_860, 31_720]),
    ("Turn Model", [3_250, 5_194, 7_506, 10_186, 29_106]),
    ("*-Channels", [8_766, 14_998, 22_702, 31_878, 99_838]),
];

/// Figure 9 as printed: (setup ns, flow-control cycle ns) for n = 2, 3, 4, 5,
/// 10, by row. Dimension order and planar-adaptive are printed once, for
/// "any" n.
pub const FIGURE_9: [(&str, [(f64, f64); 5]); 4] = [
    ("Dimension order", [(5.6, 3.55); 5]),
    ("Planar adaptive", [(10.9, 6.15); 5]),
    (
        "Turn Model",
        [
            (9.1, 4.0),
            (10.0, 4.3),
            (10.6, 4.5),
            (11.2, 4.7),
            (12.8, 5.1),
        ],
    ),
    (
        "*-Channels",
        [
            (12.7, 6.5),
            (13.6, 6.8),
            (14.3, 7.1),
            (14.8, 7.2),
            (16.6, 7.4),
        ],
    ),
];

/// The printed row labelled `label` of a figure.
fn row<T: Copy>(figure: &[(&str, T)], label: &str) -> T {
    figure
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, r)| *r)
        .unwrap_or_else(|| panic!("Chien's figures have no row {label:?}"))
}

fn model(tech: &Technology, router: Router, n: u32) -> super::CostReport {
    let (algorithm, topology, _) = router;
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
    let routers = routers();
    for &r in &routers {
        let title = r.2;
        let _ = write!(s, "{title:<17}");
        for (j, n) in DIMS.iter().enumerate() {
            let m = model(tech, r, *n);
            let cell = format!(
                "{} / {}",
                fmt_gates(m.gates.total),
                row(&FIGURE_10, title)[j]
            );
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
    for &r in &routers {
        let title = r.2;
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
            let (ps, pf) = row(&FIGURE_9, title)[j];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The algorithms marked as studied by Chien are the rows of his
    /// figures, in his order.
    #[test]
    fn the_studied_algorithms_are_the_rows_of_figures_9_and_10() {
        let labels: Vec<&str> = routers().iter().map(|r| r.2).collect();
        let rows_10: Vec<&str> = FIGURE_10.iter().map(|r| r.0).collect();
        let rows_9: Vec<&str> = FIGURE_9.iter().map(|r| r.0).collect();
        assert_eq!(labels, rows_10);
        assert_eq!(labels, rows_9);
    }
}
