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

use std::collections::BTreeSet;

use super::{links, Endpoints, NetworkParams};
use crate::algo::numbering::port_at;
use crate::algo::{Network, NodeId, Port};
use crate::emit::canvas::Canvas;
use crate::spec::RouterSpec;

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
    // Node n's centre, the drawing moved by `shift`.
    let at = |node: NodeId, shift: (f64, f64)| {
        let (mut x, mut y) = (MARGIN + shift.0, MARGIN + LEGEND + shift.1);
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
            "links: one line per linked pair of nodes (a link each way), {} register stage(s) each way; endpoints: {}",
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
            if spec.topology.wraps() {
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
    // Each pair of nodes linked once: straight side by side, else a curve
    // bowed by `bow` (its peak half as far out), drawn under the boxes.
    let ports = spec.physical_ports() as usize;
    let mut pairs: BTreeSet<(NodeId, NodeId, usize)> = BTreeSet::new();
    for l in links(net, ports) {
        if let Port::Link { dim, .. } = port_at(net, l.to_node, l.to_port) {
            pairs.insert((
                l.to_node.min(l.from_node),
                l.to_node.max(l.from_node),
                dim as usize,
            ));
        }
    }
    let bow = |(a, b, dim): (NodeId, NodeId, usize)| -> Option<f64> {
        let apart = net.coord(a, dim).abs_diff(net.coord(b, dim));
        if dim < 2 && apart == 1 {
            None
        } else if dim < 2 {
            // A wrap-around peaks half way to the next row or column.
            Some(UNIT)
        } else {
            // Across planes: further out the longer it is.
            let (pa, pb) = (at(a, (0.0, 0.0)), at(b, (0.0, 0.0)));
            Some(0.18 * ((pb.0 - pa.0).abs() + (pb.1 - pa.1).abs()) + 18.0 + BOX.1 / 2.0)
        }
    };
    // Room for the peaks: above the first row, right of the last column.
    let peak = |axis: usize| {
        pairs
            .iter()
            .filter(|k| k.2 % 2 == axis)
            .filter_map(|&k| bow(k))
            .fold(0.0, f64::max)
            / 2.0
    };
    let shift = (0.0, peak(0));
    let width = (2.0 * MARGIN + extent(0) + BOX.0 + peak(1) + 20.0).max(text_width + 20.0);
    let height = 2.0 * MARGIN + LEGEND + shift.1 + extent(1) + BOX.1 + 40.0;
    let mut c = Canvas::default();
    for (i, l) in legend.iter().enumerate() {
        let size = if i == 0 { 15 } else { 12 };
        c.text(10.0, 22.0 + 19.0 * i as f64, size, "start", l);
    }
    for &key in &pairs {
        let (a, b) = (at(key.0, shift), at(key.1, shift));
        match bow(key) {
            None => c.line(a.0, a.1, b.0, b.1, "#333", false),
            Some(bow) => {
                let (mx, my) = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
                let control = if key.2 % 2 == 0 {
                    (mx, my - bow)
                } else {
                    (mx + bow, my)
                };
                c.curve(a, control, b);
            }
        }
    }
    for node in 0..net.nodes() {
        let (x, y) = at(node, shift);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{SpecInput, Topology};

    fn drawing(topology: Topology, dims: u32, radix: u32) -> (String, u32) {
        let spec = SpecInput {
            topology: Some(topology),
            dims: Some(i64::from(dims)),
            radix: Some(i64::from(radix)),
            vcs: Some(3),
            ..SpecInput::default()
        }
        .resolve()
        .unwrap()
        .spec;
        let net = Network::new(topology, dims, radix).unwrap();
        (render(&spec, &NetworkParams::default(), &net), net.nodes())
    }

    /// The numbers after each `key="` of an element's line.
    fn attr(line: &str, key: &str) -> f64 {
        let at = line.find(&format!(" {key}=\"")).unwrap() + key.len() + 3;
        line[at..at + line[at..].find('"').unwrap()]
            .parse()
            .unwrap()
    }

    /// One line or curve per pair of neighbours, as many as the topology
    /// has (mesh n k^(n-1) (k-1), torus, either way, n k^n for k > 2, hypercube
    /// n 2^(n-1)); a box per node; every curve's peak inside the drawing
    /// and below its legend.
    #[test]
    fn every_link_once_and_every_curve_inside_the_drawing() {
        for (t, n, k) in [
            (Topology::Mesh, 2, 3),
            (Topology::Mesh, 3, 8),
            (Topology::Torus, 2, 3),
            (Topology::Torus, 3, 4),
            (Topology::Hypercube, 4, 2),
            (Topology::UniTorus, 2, 4),
        ] {
            let (svg, nodes) = drawing(t, n, k);
            let links = match t {
                Topology::Mesh => n * k.pow(n - 1) * (k - 1),
                Topology::Torus | Topology::UniTorus => n * k.pow(n),
                Topology::Hypercube => n * 2u32.pow(n - 1),
            };
            let lines = svg.lines().filter(|l| l.starts_with("<line ")).count();
            let curves: Vec<&str> = svg.lines().filter(|l| l.starts_with("<path ")).collect();
            assert_eq!(lines + curves.len(), links as usize, "{t} n={n} k={k}");
            assert_eq!(svg.matches("fill=\"#e8f0ff\"").count(), nodes as usize);
            let head = svg.lines().next().unwrap();
            let (w, h) = (attr(head, "width"), attr(head, "height"));
            for c in curves {
                let d = &c[c.find("d=\"M").unwrap() + 4..];
                let nums: Vec<f64> = d[..d.find('"').unwrap()]
                    .split([',', ' ', 'Q'])
                    .filter(|x| !x.is_empty())
                    .map(|x| x.parse().unwrap())
                    .collect();
                // A quadratic curve's middle point: (p0 + 2 c + p2) / 4.
                let px = (nums[0] + 2.0 * nums[2] + nums[4]) / 4.0;
                let py = (nums[1] + 2.0 * nums[3] + nums[5]) / 4.0;
                assert!(
                    px > 0.0 && px < w && py > LEGEND && py < h,
                    "{t} n={n} k={k}: a curve peaks at ({px}, {py}) in {w} x {h}"
                );
            }
        }
    }
}
