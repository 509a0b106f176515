//! `network.svg`: a drawing of the network routergen built, its nodes (a
//! router each, and its endpoint), and its links, from the same
//! [`super::links`] the Verilog is wired from.
//!
//! Node n sits at its coordinates: dimension 0 to the right, 1 downward,
//! 2 and 3 the same between copies of the plane of 0 and 1, and so on, so
//! every network routergen builds (up to the 4-D hypercube and beyond)
//! draws as a grid of grids. Links between nodes side by side are
//! straight; the others (a torus's wrap-around, the higher dimensions)
//! bow out of the row or column.

use super::{links, Endpoints, NetworkParams};
use crate::algo::{Network, NodeId};
use crate::emit::canvas::Canvas;
use crate::spec::{RouterSpec, Topology};

/// Spacing of neighbouring nodes, the gap between planes, a node's box.
const UNIT: f64 = 110.0;
const GAP: f64 = 50.0;
const BOX: (f64, f64) = (64.0, 40.0);
const MARGIN: f64 = 40.0;
const LEGEND: f64 = 84.0;

/// The drawing of the network of `spec` with `params` on `net`.
pub fn render(spec: &RouterSpec, params: &NetworkParams, net: &Network) -> String {
    let n = spec.dims as usize;
    let k = spec.radix as f64;
    // The stride of dimension d along its axis: s(0) = UNIT, s(i+1) = k s(i) + GAP.
    let stride = |d: usize| (0..d / 2).fold(UNIT, |s, _| k * s + GAP);
    let at = |node: NodeId| {
        let (mut x, mut y) = (MARGIN, MARGIN + LEGEND);
        for d in 0..n {
            let c = f64::from(net.coord(node, d)) * stride(d);
            if d % 2 == 0 {
                x += c;
            } else {
                y += c;
            }
        }
        (x + BOX.0 / 2.0, y + BOX.1 / 2.0)
    };
    let extent = |axis: usize| {
        (0..n)
            .filter(|d| d % 2 == axis)
            .map(|d| (k - 1.0) * stride(d))
            .sum::<f64>()
    };
    let axi = params.endpoints == Endpoints::AxiStream;
    let legend = [
        format!(
            "{}: the {} of {} {} routers",
            super::top_name(spec),
            super::shape(spec),
            net.nodes(),
            spec.name()
        ),
        format!(
            "links: a line each way per pair of ports, {} register stage(s) each way; endpoints: {}",
            params.link_stages,
            if axi {
                "a network interface (NI) per node, its AXI4-Stream ports n<n>_s_axis_* in and n<n>_m_axis_* out"
            } else {
                "each router's local port (local_in_* and local_out_* element n)"
            }
        ),
        format!(
            "node n at its coordinates (dimension 0 to the right, 1 downward{}); straight: side by side, curved: {}",
            if n > 2 {
                ", 2 and up the same between planes"
            } else {
                ""
            },
            if spec.topology == Topology::Torus {
                "wrap-around or across planes"
            } else {
                "across planes"
            }
        ),
    ];
    // Wide enough for the legend (about 0.6 em a character).
    let text_width = legend
        .iter()
        .enumerate()
        .map(|(i, l)| l.len() as f64 * if i == 0 { 8.4 } else { 6.4 })
        .fold(0.0, f64::max);
    let width = (2.0 * MARGIN + extent(0) + BOX.0 + 60.0).max(text_width + 20.0);
    let height = 2.0 * MARGIN + LEGEND + extent(1) + BOX.1 + 40.0;
    let mut c = Canvas::default();
    for (i, l) in legend.iter().enumerate() {
        let size = if i == 0 { 15 } else { 12 };
        c.text(10.0, 22.0 + 19.0 * i as f64, size, "start", l);
    }
    // Each pair of nodes linked once, drawn under the boxes.
    let ports = spec.physical_ports() as usize;
    let mut drawn: Vec<(NodeId, NodeId, usize)> = Vec::new();
    for l in links(net, ports) {
        let dim = match spec.topology {
            Topology::Hypercube => l.to_port - 1,
            _ => (l.to_port - 1) / 2,
        };
        let key = (l.to_node.min(l.from_node), l.to_node.max(l.from_node), dim);
        if drawn.contains(&key) {
            continue;
        }
        drawn.push(key);
        let (a, b) = (at(key.0), at(key.1));
        let apart = net.coord(key.0, dim).abs_diff(net.coord(key.1, dim));
        if dim < 2 && apart == 1 {
            c.line(a.0, a.1, b.0, b.1, "#333", false);
        } else {
            let (mx, my) = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
            // A wrap-around peaks half way to the next row or column; a
            // link across planes further out the longer it is.
            let bow = if dim < 2 {
                UNIT
            } else {
                0.18 * ((b.0 - a.0).abs() + (b.1 - a.1).abs()) + 18.0 + BOX.1 / 2.0
            };
            let control = if dim % 2 == 0 {
                (mx, my - bow)
            } else {
                (mx + bow, my)
            };
            c.curve(a, control, b);
        }
    }
    for node in 0..net.nodes() {
        let (x, y) = at(node);
        let (x0, y0) = (x - BOX.0 / 2.0, y - BOX.1 / 2.0);
        if axi {
            c.rect(x0 - 12.0, y0 + BOX.1 - 8.0, 26.0, 16.0, "#fff8d8", false);
            c.text(x0 + 1.0, y0 + BOX.1 + 4.0, 9, "middle", "NI");
        }
        c.rect(x0, y0, BOX.0, BOX.1 - 8.0, "#e8f0ff", false);
        c.text(x, y0 + 14.0, 12, "middle", &format!("n{node}"));
        c.text(x, y0 + 27.0, 10, "middle", &net.node_name(node));
    }
    c.svg(width, height)
}
