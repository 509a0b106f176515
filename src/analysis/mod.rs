//! Analytic performance models of the papers routergen implements, beside
//! the values the papers print: Dally's k-ary n-cube model ([`dally`]) and
//! Quaglia, Ciciani and Colajanni's adaptive torus model ([`quaglia`]).
//! `routergen analyze` prints these reports and writes the figures
//! ([`svg`]).

pub mod dally;
pub mod quaglia;
pub mod svg;

use std::fmt::Write as _;

use dally::{Cube, Queueing, WireDelay};
use svg::{Plot, Series};

/// "+0.12" style signed difference with `digits` decimals.
fn signed(d: f64, digits: usize) -> String {
    format!("{d:+.digits$}")
}

/// Dally's Table I (model beside paper), the wire-delay minima of
/// Figs. 8-10, the contention figures of §III-B and the hot-spot
/// throughput of §III-C, as text.
pub fn dally_report() -> String {
    let mut s = String::new();
    let l = dally::TABLE_I_LENGTH;
    let _ = writeln!(
        s,
        "Dally (1990), Table I: L = {l} bits, no queuing (eqs. 22-24); model / paper (model - paper)"
    );
    let _ = writeln!(
        s,
        "{:<16} {:>5} {:>6} {:>22} {:>22} {:>22} {:>22}",
        "network", "N", "W", "max throughput", "latency l=0.1", "latency l=0.2", "latency l=0.3"
    );
    for col in dally::TABLE_I {
        let c = col.cube();
        let thr = dally::max_throughput(c, l);
        let _ = write!(
            s,
            "{:<16} {:>5} {:>6} {:>22}",
            c.name(),
            col.nodes,
            dally::channel_width(c.radix),
            format!(
                "{thr:.3} / {:.2} ({})",
                col.max_throughput,
                signed(thr - col.max_throughput, 3)
            )
        );
        for (lambda, paper) in dally::TABLE_I_LOADS.iter().zip(col.latency) {
            let cell = match dally::latency(c, l, *lambda, Queueing::None) {
                Some(m) => format!("{m:.2} / {paper} ({})", signed(m - paper, 2)),
                None => format!("saturated / {paper}"),
            };
            let _ = write!(s, " {cell:>22}");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "\nZero-load latency D + 2L/k (eqs. 11, 12), pins nk (eq. 9), hot-spot throughput \
         (eq. 27: W = k/2 by eq. 7; printed k - 1)"
    );
    let _ = writeln!(
        s,
        "{:<16} {:>6} {:>8} {:>10} {:>6} {:>14}",
        "network", "D", "L/W", "T_net", "pins", "hot spot"
    );
    for col in dally::TABLE_I {
        let c = col.cube();
        let _ = writeln!(
            s,
            "{:<16} {:>6} {:>8.2} {:>10.2} {:>6} {:>14}",
            c.name(),
            dally::average_distance(c),
            dally::aspect_ratio(c, l),
            dally::zero_load_latency(c, l),
            dally::pins(c),
            format!(
                "{} (printed {})",
                dally::hot_spot_throughput(c),
                dally::hot_spot_as_printed(c)
            )
        );
    }
    let zero = |k: f64, n: u32| dally::zero_load_latency(Cube { radix: k, dims: n }, l);
    let at = |k: f64, n: u32| {
        dally::latency(Cube { radix: k, dims: n }, l, 0.2, Queueing::None).unwrap_or(f64::NAN)
    };
    let _ = writeln!(
        s,
        "\nContention latency at l = 0.2 (§III-B: paper 7 T_c and 64 T_c): 32-ary 2-cube \
         {:.1} T_c, binary 10-cube {:.1} T_c; latency ratio {:.2} (paper ~1/5)",
        at(32.0, 2) - zero(32.0, 2),
        at(2.0, 10) - zero(2.0, 10),
        at(32.0, 2) / at(2.0, 10)
    );
    let _ = writeln!(
        s,
        "4K nodes: the 64-ary 2-cube overtakes the 16-ary 3-cube at l = {:.3} (§III-B: \"when \
         l > 0.2\")",
        crossover(
            Cube {
                radix: 64.0,
                dims: 2
            },
            Cube {
                radix: 16.0,
                dims: 3
            },
            l
        )
    );
    let _ = writeln!(
        s,
        "\nDimension of least latency, L = {} bits, non-integer radix (Figs. 8-10): model / paper",
        dally::FIGURE_8_LENGTH
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10} {:>10} {:>10}",
        "wire delay", "N = 256", "N = 16K", "N = 1M"
    );
    for (delay, paper) in dally::BEST_DIMENSIONS {
        let _ = write!(s, "{:<12}", delay.name());
        for (nodes, p) in dally::FIGURE_8_NODES.iter().zip(paper) {
            let m = dally::best_dimension(*nodes, dally::FIGURE_8_LENGTH, delay);
            let _ = write!(s, " {:>10}", format!("{m} / {p}"));
        }
        let _ = writeln!(s);
    }
    s
}

/// The load at which `a` (lower dimension) starts to have lower latency
/// than `b`, found by scanning in steps of 0.001 (NaN if never).
pub fn crossover(a: Cube, b: Cube, length: f64) -> f64 {
    (1..1000)
        .map(|i| f64::from(i) / 1000.0)
        .find(|&lam| {
            match (
                dally::latency(a, length, lam, Queueing::None),
                dally::latency(b, length, lam, Queueing::None),
            ) {
                (Some(x), Some(y)) => x < y,
                (Some(_), None) => true,
                _ => false,
            }
        })
        .unwrap_or(f64::NAN)
}

/// Latency against load for one network, eqs. (22)-(24), up to saturation.
pub fn dally_curve(cube: Cube, length: f64, step: f64) -> Vec<(f64, f64)> {
    let mut pts = vec![(0.0, dally::zero_load_latency(cube, length))];
    let mut lam = step;
    while let Some(t) = dally::latency(cube, length, lam, Queueing::None) {
        if lam > dally::max_throughput(cube, length) {
            break;
        }
        pts.push((lam, t));
        lam += step;
    }
    pts
}

/// Figures 8-10 (latency against dimension for three wire-delay models)
/// and 14-17 (latency and accepted traffic against load) as SVG, by file
/// name.
pub fn dally_figures() -> Vec<(String, String)> {
    let l = dally::TABLE_I_LENGTH;
    let mut out = Vec::new();
    for (fig, delay) in [(8, WireDelay::Constant), (9, WireDelay::Logarithmic)]
        .into_iter()
        .chain([(10, WireDelay::Linear)])
    {
        let series = dally::FIGURE_8_NODES
            .iter()
            .enumerate()
            .map(|(i, &nodes)| Series {
                name: format!("N = {nodes}"),
                points: (2..=nodes.log2().round() as u32)
                    .map(|n| {
                        let c = Cube::with_nodes(nodes, n);
                        (
                            f64::from(n),
                            dally::wire_latency(c, dally::FIGURE_8_LENGTH, delay),
                        )
                    })
                    .collect(),
                line: true,
                colour: i,
                marker: None,
                errors: Vec::new(),
            })
            .collect();
        let plot = Plot {
            title: format!(
                "Dally Fig. {fig}: latency vs dimension, {} wire delay, L = 150",
                delay.name()
            ),
            x_label: "dimension n".into(),
            y_label: "latency (relative T_c x cycles), eq. 18".into(),
            y_max: Some(if fig == 8 { 400.0 } else { 2000.0 }),
            series,
        };
        out.push((format!("dally-fig{fig}.svg"), plot.to_svg()));
    }
    for (fig, nodes) in [(14, 1024), (15, 4096)] {
        let series = dally::figure_networks(nodes)
            .into_iter()
            .enumerate()
            .map(|(i, c)| Series {
                name: c.name(),
                points: dally_curve(c, l, 0.005),
                line: true,
                colour: i,
                marker: Some(dally::max_throughput(c, l)),
                errors: Vec::new(),
            })
            .collect();
        let plot = Plot {
            title: format!("Dally Fig. {fig}: latency vs traffic, {nodes} nodes, L = 200"),
            x_label: "traffic lambda (bits/cycle/node)".into(),
            y_label: "latency (cycles), eqs. 22-24".into(),
            y_max: Some(400.0),
            series,
        };
        out.push((format!("dally-fig{fig}.svg"), plot.to_svg()));
    }
    for (fig, nodes) in [(16, 1024), (17, 4096)] {
        let series = dally::figure_networks(nodes)
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let sat = dally::max_throughput(c, l);
                Series {
                    name: c.name(),
                    points: (0..=50)
                        .map(|j| {
                            let a = f64::from(j) * 0.01;
                            (a, a.min(sat))
                        })
                        .collect(),
                    line: true,
                    colour: i,
                    marker: Some(sat),
                    errors: Vec::new(),
                }
            })
            .collect();
        let plot = Plot {
            title: format!("Dally Fig. {fig}: accepted vs attempted traffic, {nodes} nodes"),
            x_label: "attempted traffic (bits/cycle/node)".into(),
            y_label: "accepted traffic (bits/cycle/node)".into(),
            y_max: Some(0.5),
            series,
        };
        out.push((format!("dally-fig{fig}.svg"), plot.to_svg()));
    }
    out
}

/// Quaglia et al.'s Tables 1 and 2: the model beside the printed model and
/// simulation columns, as text.
pub fn quaglia_report() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Quaglia et al. (2002), Tables 1 and 2: L = {} flits, uniform traffic; latency in cycles",
        quaglia::TABLE_LENGTH
    );
    let _ = writeln!(
        s,
        "{:<7} {:>6} {:>9} {:>13} {:>9} {:>9}",
        "torus", "rate", "model", "paper model", "diff %", "paper sim"
    );
    for (k, rows) in quaglia::TABLES {
        for &(rate, sim, printed) in rows {
            let (m, d) = match quaglia::solve(k, quaglia::TABLE_LENGTH, rate) {
                Ok(sol) => (
                    format!("{:.2}", sol.latency),
                    format!("{:+.1}", (sol.latency - printed) / printed * 100.0),
                ),
                Err(_) => ("saturated".into(), "-".into()),
            };
            let _ = writeln!(
                s,
                "{:<7} {rate:>6.3} {m:>9} {printed:>13.2} {d:>9} {sim:>9.2}",
                format!("{k}x{k}")
            );
        }
    }
    let _ = writeln!(
        s,
        "\nZero-load latency (limit of eq. 45): {}",
        [4, 8, 12, 16]
            .map(|k| format!(
                "{k}x{k} {:.2}",
                quaglia::zero_load_latency(k, quaglia::TABLE_LENGTH)
            ))
            .join(", ")
    );
    s
}

/// Figure 4's adaptive curves (latency against message length, 12x12,
/// tau_E = 300, 500, 1000) and Figure 3's (blocking time per hop against
/// torus side, 12 flits) as SVG. The deterministic curves need the model
/// of the paper's reference [7], which it does not give.
pub fn quaglia_figures() -> Vec<(String, String)> {
    let taus = [300.0, 500.0, 1000.0];
    let fig4 = Plot {
        title: "Quaglia Fig. 4 (adaptive): latency vs message length, 12x12 torus".into(),
        x_label: "message length (flits)".into(),
        y_label: "mean latency (cycles), eq. 45".into(),
        y_max: None,
        series: taus
            .iter()
            .enumerate()
            .map(|(i, tau)| Series {
                name: format!("mgt = {tau}"),
                points: (1..=16)
                    .filter_map(|j| {
                        let len = f64::from(j) * 4.0;
                        quaglia::solve(12, len, 1.0 / tau)
                            .ok()
                            .map(|s| (len, s.latency))
                    })
                    .collect(),
                line: true,
                colour: i,
                marker: None,
                errors: Vec::new(),
            })
            .collect(),
    };
    let fig3 = Plot {
        title: "Quaglia Fig. 3 (adaptive): mean blocking time per hop, 12 flits".into(),
        x_label: "torus side k (k x k)".into(),
        y_label: "blocking time per hop (cycles)".into(),
        y_max: None,
        series: taus
            .iter()
            .enumerate()
            .map(|(i, tau)| Series {
                name: format!("mgt = {tau}"),
                points: (1..=8)
                    .filter_map(|j| {
                        let k = 4 * j;
                        quaglia::solve(k, 12.0, 1.0 / tau).ok().map(|s| {
                            let zero = quaglia::zero_load_latency(k, 12.0);
                            let hops = f64::from(k) / 2.0;
                            (f64::from(k), (s.latency - zero) / hops)
                        })
                    })
                    .collect(),
                line: true,
                colour: i,
                marker: None,
                errors: Vec::new(),
            })
            .collect(),
    };
    vec![
        ("quaglia-fig3.svg".into(), fig3.to_svg()),
        ("quaglia-fig4.svg".into(), fig4.to_svg()),
    ]
}
