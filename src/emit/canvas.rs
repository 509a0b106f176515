//! Boxes, lines and text as SVG elements: the drawings of a router
//! (`router.svg`) and of a network (`network.svg`).

use std::fmt::Write as _;

const FONT: &str = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

/// Boxes, lines and text, as SVG elements.
#[derive(Default)]
pub struct Canvas {
    body: String,
}

impl Canvas {
    /// A box at (x, y) of size w x h, filled.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, dashed: bool) {
        let dash = dash(dashed);
        let _ = writeln!(
            self.body,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{fill}\" \
             stroke=\"#333\"{dash}/>"
        );
    }
    /// Text at (x, y), anchored start, middle or end.
    pub fn text(&mut self, x: f64, y: f64, size: u32, anchor: &str, t: &str) {
        let t = t
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let _ = writeln!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" text-anchor=\"{anchor}\" \
             {FONT}>{t}</text>"
        );
    }
    /// A line with an arrowhead at (x2, y2).
    pub fn arrow(&mut self, x1: f64, y1: f64, x2: f64, y2: f64) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#333\" \
             marker-end=\"url(#a)\"/>"
        );
    }
    /// A red dot.
    pub fn dot(&mut self, x: f64, y: f64, r: f64) {
        let _ = writeln!(
            self.body,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" fill=\"#c33\"/>"
        );
    }
    /// A line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, dashed: bool) {
        let dash = dash(dashed);
        let _ = writeln!(
            self.body,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{stroke}\"{dash}/>"
        );
    }
    /// A curve from (x1, y1) to (x2, y2) bowed through the control point
    /// (cx, cy): a link that passes other nodes.
    pub fn curve(&mut self, (x1, y1): (f64, f64), (cx, cy): (f64, f64), (x2, y2): (f64, f64)) {
        let _ = writeln!(
            self.body,
            "<path d=\"M{x1:.1},{y1:.1} Q{cx:.1},{cy:.1} {x2:.1},{y2:.1}\" fill=\"none\" \
             stroke=\"#333\"/>"
        );
    }
    /// The drawing as an SVG document of the given size, on white.
    pub fn svg(&self, width: f64, height: f64) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\">\n<defs><marker id=\"a\" markerWidth=\"8\" \
             markerHeight=\"8\" refX=\"7\" refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" \
             fill=\"#333\"/></marker></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// The stroke attribute of a dashed outline, or none.
fn dash(dashed: bool) -> &'static str {
    if dashed {
        " stroke-dasharray=\"4 3\""
    } else {
        ""
    }
}
