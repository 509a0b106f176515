//! `router.svg`: a drawing of the router routergen built, in the manner of
//! Chien's Figure 1 (input ports with their flow-control units and
//! decoders, the allocators, the crossbar, the VC controllers on the
//! outputs). It is drawn from the spec and the compiled relation the
//! Verilog is built from: which input VCs have a buffer
//! ([`CompiledTable::buffered_inputs`]), which crossbar pairs are wired
//! ([`CompiledTable::crossbar_links`]), the routing table and look-ahead
//! field where there is one; and for Chien's other organizations (§5.1,
//! §5.2, §5.4) the slices or the VC-port core with their VC controllers.

use super::canvas::Canvas;
use crate::router::tables::{CompiledTable, TableKind};
use crate::spec::{RouterDatapath, RouterSpec, Topology};

/// What each port of the router leads to, short: `local`, `+0`, `-1`,
/// `dim 2` (docs/interface.md, "Ports").
fn port_label(spec: &RouterSpec, p: usize) -> String {
    if p == 0 {
        return "local".into();
    }
    let d = (p - 1) / spec.topology.links_per_dim() as usize;
    match spec.topology {
        Topology::Hypercube => format!("dim {}", p - 1),
        Topology::UniTorus => format!("+{d}"),
        _ if (p - 1) % 2 == 0 => format!("+{d}"),
        _ => format!("-{d}"),
    }
}

/// The drawing of the router of `spec` whose relation compiled to `table`.
pub fn render(spec: &RouterSpec, table: &CompiledTable) -> String {
    let p = table.ports();
    let v = table.vcs();
    let row_h = (v as f64 * 18.0 + 12.0).max(40.0);
    let top = 80.0;
    let xbar_x = 560.0;
    let cell = ((p as f64 * row_h) / p as f64).min(40.0);
    let out_x = xbar_x + p as f64 * cell + 40.0;
    // Wide enough for the spec line under the title.
    let width = (out_x + 260.0).max(1140.0);
    let rows_h = p as f64 * row_h;
    let mut c = Canvas::default();
    c.text(
        10.0,
        24.0,
        16,
        "start",
        &format!(
            "{}: {} on a {}-ary {}-D {} ({} nodes)",
            spec.name(),
            spec.algorithm,
            spec.radix,
            spec.dims,
            spec.topology,
            spec.nodes()
        ),
    );
    c.text(
        10.0,
        44.0,
        12,
        "start",
        &format!(
            "P = {p} ports, V = {v} VCs per port, D = {} flits per VC, W = {} bits; {} \
             addressing, {} flow control, path selection {}, table {}{}, datapath {}, buffers in {}",
            spec.buffer_depth,
            spec.flit_width,
            spec.addressing,
            spec.flow_control,
            spec.path_selection,
            spec.table,
            if spec.lookahead { ", look-ahead" } else { "" },
            spec.datapath,
            spec.buffers
        ),
    );
    c.text(
        10.0,
        62.0,
        11,
        "start",
        "inputs (left) -> flow-control units / buffers -> decoders -> allocation -> \
         crossbar (red dot: a wired pair) -> output VCs (right)",
    );
    let buffered = table.buffered_inputs();
    let links = table.crossbar_links();
    let decoder = |q: usize| -> String {
        match (&table.es, &table.la) {
            (Some(es), _) => match es.kind {
                TableKind::Economical => "AD->ES".into(),
                TableKind::Full => "full tbl".into(),
                TableKind::Meta { .. } => "meta tbl".into(),
            },
            (None, Some(_)) if q != 0 => "LA field".into(),
            _ => "AD".into(),
        }
    };
    for q in 0..p {
        let y = top + q as f64 * row_h;
        c.text(
            10.0,
            y + row_h / 2.0 + 4.0,
            12,
            "start",
            &format!("p{q} {}", port_label(spec, q)),
        );
        c.arrow(70.0, y + row_h / 2.0, 108.0, y + row_h / 2.0);
        for k in 0..v {
            let by = y + 6.0 + k as f64 * 18.0;
            let has = buffered[q * v + k];
            c.rect(
                110.0,
                by,
                150.0,
                15.0,
                if has { "#dde8f6" } else { "#f4f4f4" },
                !has,
            );
            let label = if has {
                format!("VC {k}: FC, {} x {}b", spec.buffer_depth, spec.flit_width)
            } else {
                format!("VC {k}: no buffer (unused)")
            };
            c.text(115.0, by + 11.5, 10, "start", &label);
            c.rect(270.0, by, 64.0, 15.0, "#e9f3e1", false);
            c.text(302.0, by + 11.5, 10, "middle", &decoder(q));
            c.arrow(334.0, by + 7.5, 378.0, by + 7.5);
        }
    }
    if spec.datapath == RouterDatapath::Unified {
        // The allocators between the decoders and the crossbar.
        let half = rows_h / 2.0 - 6.0;
        c.rect(380.0, top, 150.0, half, "#fbecd2", false);
        c.text(455.0, top + half / 2.0 - 6.0, 12, "middle", "VC allocation");
        c.text(
            455.0,
            top + half / 2.0 + 10.0,
            10,
            "middle",
            &format!("routing arbiter, {}", spec.path_selection),
        );
        c.rect(380.0, top + half + 12.0, 150.0, half, "#fbecd2", false);
        c.text(
            455.0,
            top + half * 1.5 + 6.0,
            12,
            "middle",
            "switch allocation",
        );
        c.text(
            455.0,
            top + half * 1.5 + 22.0,
            10,
            "middle",
            &format!("one flit per output, {p} x {p}"),
        );
        // The crossbar: input q is row q, output o column o.
        let cy = top + (rows_h - p as f64 * cell) / 2.0;
        c.rect(
            xbar_x,
            cy,
            p as f64 * cell,
            p as f64 * cell,
            "#ffffff",
            false,
        );
        c.text(
            xbar_x + p as f64 * cell / 2.0,
            cy - 6.0,
            11,
            "middle",
            &format!(
                "crossbar {p} x {p}: {} of {} pairs wired (rows: inputs, columns: outputs)",
                links.iter().filter(|l| **l).count(),
                p * p
            ),
        );
        for i in 0..p {
            let at = (i as f64 + 0.5) * cell;
            let (x1, x2) = (xbar_x, xbar_x + p as f64 * cell);
            c.line(x1, cy + at, x2, cy + at, "#bbb", false);
            c.line(
                xbar_x + at,
                cy,
                xbar_x + at,
                cy + p as f64 * cell,
                "#bbb",
                false,
            );
            c.text(
                xbar_x - 4.0,
                cy + (i as f64 + 0.5) * cell + 4.0,
                9,
                "end",
                &format!("in {i}"),
            );
            c.text(
                xbar_x + (i as f64 + 0.5) * cell,
                cy + p as f64 * cell + 12.0,
                9,
                "middle",
                &format!("{i}"),
            );
        }
        for o in 0..p {
            for i in 0..p {
                if links[o * p + i] {
                    c.dot(
                        xbar_x + (o as f64 + 0.5) * cell,
                        cy + (i as f64 + 0.5) * cell,
                        (cell / 6.0).min(5.0),
                    );
                }
            }
        }
    } else {
        slices(&mut c, spec, p, v, (380.0, top), (out_x - 420.0, rows_h));
    }
    // The outputs: per port its VC controller (credits or on/off levels).
    let flow = match spec.flow_control {
        crate::spec::FlowControl::OnOff => "on/off level",
        _ => "credits",
    };
    for o in 0..p {
        let y = top + o as f64 * row_h;
        c.rect(out_x, y + 4.0, 150.0, row_h - 8.0, "#efe3f5", false);
        c.text(
            out_x + 75.0,
            y + row_h / 2.0 - 2.0,
            10,
            "middle",
            &format!("VC ctl: {v} VCs,"),
        );
        c.text(
            out_x + 75.0,
            y + row_h / 2.0 + 11.0,
            10,
            "middle",
            &if spec.datapath == RouterDatapath::VcPorts {
                format!("{}-flit buffer + {flow}", spec.buffer_depth)
            } else {
                format!("{flow} per VC")
            },
        );
        c.arrow(
            out_x + 150.0,
            y + row_h / 2.0,
            out_x + 190.0,
            y + row_h / 2.0,
        );
        c.text(
            out_x + 194.0,
            y + row_h / 2.0 + 4.0,
            12,
            "start",
            &format!("p{o} {}", port_label(spec, o)),
        );
    }
    let mut height = top + rows_h + 30.0;
    // Chien's other organizations: what sits behind the same ports.
    let org = organization_lines(spec, p, v);
    if !org.is_empty() {
        c.rect(
            10.0,
            height,
            width - 20.0,
            22.0 + 16.0 * org.len() as f64,
            "#fff8d8",
            false,
        );
        for (i, l) in org.iter().enumerate() {
            c.text(20.0, height + 18.0 + 16.0 * i as f64, 12, "start", l);
        }
        height += 40.0 + 16.0 * org.len() as f64;
    }
    c.svg(width, height)
}

/// Chien's other organizations in the middle of the drawing: the slices,
/// chained by their local ports, each with the router's ports it owns, or
/// the VC-port core (src/router/sliced.rs, planes.rs, vcports.rs).
fn slices(c: &mut Canvas, spec: &RouterSpec, p: usize, v: usize, at: (f64, f64), size: (f64, f64)) {
    let n = spec.dims as usize;
    let link = |d: usize| -> String {
        if spec.topology == Topology::Hypercube {
            format!("p{} dim {d}", d + 1)
        } else if spec.topology == Topology::UniTorus {
            format!("p{} +{d}", d + 1)
        } else {
            format!("p{} +{d}, p{} -{d}", 2 * d + 1, 2 * d + 2)
        }
    };
    let boxes: Vec<(String, String)> = match spec.datapath {
        RouterDatapath::VcPorts => vec![(
            format!(
                "VC-port core: {pv} x {pv} crossbar, a port per VC",
                pv = p * v
            ),
            format!("allocation per VC ({})", spec.path_selection),
        )],
        _ if spec.algorithm == crate::spec::Algorithm::PlanarAdaptive => (0..n - 1)
            .map(|i| {
                (
                    format!("slice {i}: plane A{i}, 5 x 5 crossbar"),
                    format!("ports: local, {}, {}", link(i), link(i + 1)),
                )
            })
            .collect(),
        _ => (0..n)
            .map(|d| {
                let k = spec.topology.links_per_dim() + 1;
                (
                    format!("slice {d}: dimension {d}, {k} x {k} crossbar"),
                    format!("ports: local, {}", link(d)),
                )
            })
            .collect(),
    };
    let gap = 24.0;
    let h = (size.1 - gap * (boxes.len() as f64 - 1.0)) / boxes.len() as f64;
    for (i, (a, b)) in boxes.iter().enumerate() {
        let y = at.1 + i as f64 * (h + gap);
        c.rect(at.0, y, size.0, h, "#fbecd2", false);
        c.text(at.0 + size.0 / 2.0, y + h / 2.0 - 4.0, 12, "middle", a);
        c.text(at.0 + size.0 / 2.0, y + h / 2.0 + 12.0, 10, "middle", b);
        if i + 1 < boxes.len() {
            c.arrow(
                at.0 + size.0 / 2.0,
                y + h,
                at.0 + size.0 / 2.0,
                y + h + gap - 2.0,
            );
            c.text(
                at.0 + size.0 / 2.0 + 6.0,
                y + h + gap / 2.0 + 4.0,
                9,
                "start",
                &format!("inter-slice channel, {v} VCs"),
            );
        }
    }
}

/// For Chien's other organizations, how the slices or the VC-port core
/// realize the relation drawn above (src/router/sliced.rs, planes.rs,
/// vcports.rs).
fn organization_lines(spec: &RouterSpec, p: usize, v: usize) -> Vec<String> {
    let n = spec.dims as usize;
    match spec.datapath {
        RouterDatapath::Unified => vec![],
        RouterDatapath::Sliced if spec.algorithm == crate::spec::Algorithm::PlanarAdaptive => {
            let mut out = vec![format!(
                "Built as Chien §5.2 plane slices: {} routers of 2-D networks, each a 5 x 5 crossbar, chained \
                 through their local ports (injection -> slice 0 -> ... -> slice {} -> ejection):",
                n - 1,
                n - 2
            )];
            for i in 0..n - 1 {
                out.push(format!(
                    "  slice {i}: plane A{i}, ports local, +{i}, -{i}, +{j}, -{j}; an input buffer per VC on its local port",
                    j = i + 1
                ));
            }
            out.push(format!(
                "  VC controllers on the links of dimensions 1..{} (shared by two planes): a {}-flit buffer per VC",
                n - 2,
                spec.buffer_depth
            ));
            out
        }
        RouterDatapath::Sliced => {
            let k = spec.topology.links_per_dim() + 1;
            let mut out = vec![format!(
                "Built as Chien §5.1 dimension slices: {n} routers of 1-D networks, each a {k} x {k} crossbar, \
                 chained through their local ports (injection -> slice 0 -> ... -> slice {} -> ejection):",
                n - 1
            )];
            for d in 0..n {
                out.push(if spec.topology == Topology::Hypercube {
                    format!("  slice {d}: ports local (inter-slice channel, {v} VCs), dim {d}")
                } else if spec.topology == Topology::UniTorus {
                    format!("  slice {d}: ports local (inter-slice channel, {v} VCs), +{d}")
                } else {
                    format!("  slice {d}: ports local (inter-slice channel, {v} VCs), +{d}, -{d}")
                });
            }
            out
        }
        RouterDatapath::VcPorts => vec![
            format!(
                "Built as Chien §5.4, a crossbar port per VC: one router of {pv} ports of one VC each \
                 (a {pv} x {pv} crossbar; port q V + c is VC c of link q),",
                pv = p * v
            ),
            format!(
                "  and per link a VC controller: a {}-flit buffer per VC, one flit per cycle onto the link.",
                spec.buffer_depth
            ),
        ],
    }
}
