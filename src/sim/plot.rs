//! An SVG plot of average latency against offered load, one curve per
//! algorithm (plain SVG text).

use std::fmt::Write as _;

use super::stats::Stats;
use crate::analysis::svg::{escape, nice};

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The plot of `rows` (grouped by algorithm, in order of first
/// appearance); points without a latency are left out.
pub fn latency_svg(rows: &[Stats], title: &str) -> String {
    let (w, h) = (640.0, 420.0);
    let (l, r, t, b) = (70.0, 170.0, 40.0, 60.0);
    let pts: Vec<(&str, f64, f64)> = rows
        .iter()
        .filter_map(|s| s.mean_latency().map(|y| (s.algorithm.as_str(), s.load, y)))
        .collect();
    let xmax = nice(pts.iter().map(|p| p.1).fold(0.1, f64::max));
    let ymax = nice(pts.iter().map(|p| p.2).fold(1.0, f64::max));
    let x = |v: f64| l + v / xmax * (w - l - r);
    let y = |v: f64| h - b - v / ymax * (h - t - b);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
        (l + w - r) / 2.0,
        escape(title)
    );
    for i in 0..=5 {
        let fx = xmax * f64::from(i) / 5.0;
        let fy = ymax * f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\">{4:.2}</text>",
            x(fx),
            y(0.0),
            y(ymax),
            h - b + 18.0,
            fx
        );
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{2:.1}\" y2=\"{1:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\">{5:.0}</text>",
            x(0.0),
            y(fy),
            x(xmax),
            l - 6.0,
            y(fy) + 4.0,
            fy
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">offered load (fraction of the \
         bisection-limited rate)</text>",
        (l + w - r) / 2.0,
        h - 20.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(20,{}) rotate(-90)\" text-anchor=\"middle\">average \
         latency (cycles)</text>",
        (t + h - b) / 2.0
    );
    let mut names: Vec<&str> = Vec::new();
    for p in &pts {
        if !names.contains(&p.0) {
            names.push(p.0);
        }
    }
    for (i, name) in names.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let mut line: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.0 == *name)
            .map(|p| (p.1, p.2))
            .collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = line
            .iter()
            .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            path.join(" ")
        );
        for &(a, b) in &line {
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"/>",
                x(a),
                y(b)
            );
        }
        let ly = t + 20.0 + 20.0 * i as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{c}\" stroke-width=\"2\"/>\
             <text x=\"{3}\" y=\"{4}\">{5}</text>",
            w - r + 15.0,
            ly,
            w - r + 40.0,
            w - r + 46.0,
            ly + 4.0,
            escape(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_curve_per_algorithm() {
        let row = |a: &str, load: f64, lat: u64| Stats {
            algorithm: a.into(),
            load,
            latencies: vec![lat],
            ..Stats::default()
        };
        let svg = latency_svg(
            &[
                row("dor", 0.1, 10),
                row("dor", 0.5, 30),
                row("duato", 0.1, 12),
            ],
            "t",
        );
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(nice(0.34), 0.5);
        assert_eq!(nice(47.0), 50.0);
    }
}
