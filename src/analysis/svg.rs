//! Line plots as plain SVG text: each series a line (a model) or points
//! (a simulation), one colour per series, optional vertical markers
//! (saturation).

use std::fmt::Write as _;

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// One series of a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, in any order.
    pub points: Vec<(f64, f64)>,
    /// Drawn as a line (a model) rather than as dots (a measurement).
    pub line: bool,
    /// Colour index: series sharing an index share a colour.
    pub colour: usize,
    /// An x at which to draw a dashed vertical marker (saturation).
    pub marker: Option<f64>,
    /// Per point (in the order of `points`), half the height of its error
    /// bar (a confidence interval); empty: no bars.
    pub errors: Vec<f64>,
}

/// A plot: title, axis labels and series.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Title above the plot.
    pub title: String,
    /// Label of the horizontal axis.
    pub x_label: String,
    /// Label of the vertical axis.
    pub y_label: String,
    /// Upper end of the y axis (None: from the data).
    pub y_max: Option<f64>,
    /// The series.
    pub series: Vec<Series>,
}

impl Plot {
    /// The plot as an SVG document.
    pub fn to_svg(&self) -> String {
        let (w, h) = (680.0, 440.0);
        let (l, r, t, b) = (70.0, 200.0, 40.0, 60.0);
        let all = self.series.iter().flat_map(|s| s.points.iter());
        let xmax = nice(all.clone().map(|p| p.0).fold(1e-9, f64::max));
        let ymax = self
            .y_max
            .unwrap_or_else(|| nice(all.map(|p| p.1).fold(1e-9, f64::max)));
        let x = |v: f64| l + v / xmax * (w - l - r);
        let y = |v: f64| h - b - v.min(ymax) / ymax * (h - t - b);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
             <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
            (l + w - r) / 2.0,
            escape(&self.title)
        );
        for i in 0..=5 {
            let fx = xmax * f64::from(i) / 5.0;
            let fy = ymax * f64::from(i) / 5.0;
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\">{4}</text>",
                x(fx),
                y(0.0),
                y(ymax),
                h - b + 18.0,
                tick(fx)
            );
            let _ = writeln!(
                s,
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{2:.1}\" y2=\"{1:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\">{5}</text>",
                x(0.0),
                y(fy),
                x(xmax),
                l - 6.0,
                y(fy) + 4.0,
                tick(fy)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
             <text transform=\"translate(20,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            (l + w - r) / 2.0,
            h - 20.0,
            escape(&self.x_label),
            (t + h - b) / 2.0,
            escape(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            let c = COLOURS[series.colour % COLOURS.len()];
            let mut pts = series.points.clone();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (&(a, b), &e) in series.points.iter().zip(&series.errors) {
                if e > 0.0 && b <= ymax {
                    let (x0, lo, hi) = (x(a), y((b - e).max(0.0)), y(b + e));
                    let _ = writeln!(
                        s,
                        "<path d=\"M{0:.1},{1:.1}V{2:.1}M{3:.1},{1:.1}H{4:.1}M{3:.1},{2:.1}H{4:.1}\" \
                         stroke=\"{c}\" stroke-width=\"1\"/>",
                        x0,
                        lo,
                        hi,
                        x0 - 3.0,
                        x0 + 3.0
                    );
                }
            }
            if series.line {
                let path: Vec<String> = pts
                    .iter()
                    .filter(|p| p.1 <= ymax)
                    .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
                    .collect();
                let _ = writeln!(
                    s,
                    "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
                    path.join(" ")
                );
            } else {
                for &(a, b) in pts.iter().filter(|p| p.1 <= ymax) {
                    let _ = writeln!(
                        s,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"none\" \
                         stroke=\"{c}\" stroke-width=\"1.5\"/>",
                        x(a),
                        y(b)
                    );
                }
            }
            if let Some(m) = series.marker.filter(|m| *m <= xmax) {
                let _ = writeln!(
                    s,
                    "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" \
                     stroke=\"{c}\" stroke-dasharray=\"4 3\"/>",
                    x(m),
                    y(0.0),
                    y(ymax)
                );
            }
            let ly = t + 20.0 + 20.0 * i as f64;
            let glyph = if series.line {
                format!(
                    "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{c}\" \
                     stroke-width=\"2\"/>",
                    w - r + 15.0,
                    ly,
                    w - r + 40.0
                )
            } else {
                format!(
                    "<circle cx=\"{}\" cy=\"{ly}\" r=\"3.5\" fill=\"none\" stroke=\"{c}\" \
                     stroke-width=\"1.5\"/>",
                    w - r + 27.0
                )
            };
            let _ = writeln!(
                s,
                "{glyph}<text x=\"{}\" y=\"{}\">{}</text>",
                w - r + 46.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// A tick label without trailing zeros.
fn tick(v: f64) -> String {
    let t = format!("{v:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The next of 1, 2, 5 times a power of ten at or above `v`.
pub fn nice(v: f64) -> f64 {
    let e = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * e)
        .find(|&c| c >= v * (1.0 - 1e-12))
        .unwrap_or(10.0 * e)
}

/// `t` with the characters SVG text may not hold escaped.
pub fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_points_and_markers() {
        let p = Plot {
            title: "a < b".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            y_max: None,
            series: vec![
                Series {
                    name: "model".into(),
                    points: vec![(0.0, 1.0), (0.5, 3.0)],
                    line: true,
                    colour: 0,
                    marker: Some(0.4),
                    errors: Vec::new(),
                },
                Series {
                    name: "sim".into(),
                    points: vec![(0.1, 1.0), (0.2, 2.0), (0.3, 2.5)],
                    line: false,
                    colour: 0,
                    marker: None,
                    errors: vec![0.5, 0.0, 0.25],
                },
            ],
        };
        let svg = p.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<circle").count(), 4); // 3 points + legend
        assert_eq!(svg.matches("stroke-dasharray").count(), 1);
        // Two error bars (the middle point has none).
        assert_eq!(svg.matches("<path d=\"M").count(), 2);
        assert!(svg.contains("a &lt; b"));
        assert_eq!(nice(0.34), 0.5);
        assert_eq!(nice(50.0), 50.0);
    }
}
