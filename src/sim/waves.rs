//! Waveforms of a network run (`routergen sim --waves`): the top-level
//! ports of chosen routers (docs/interface.md, "Ports": `clk`, `rst`,
//! `node_id` where the router has it, and per port the flit, valid, head,
//! tail, VC and the credits in and out) over a window of cycles, as a VCD
//! file (IEEE 1364-2005 §18) with one scope per node, so a viewer shows
//! `node_5.p1_out_data`.
//!
//! The driver ([`super::run`]) sees every router's ports each cycle,
//! whatever the engine: the outputs from [`Engine::port_out`] and
//! [`Engine::outputs`], the local inputs it drives itself, and each link
//! input as the output of the far router across the link (a wire). So the
//! waveform is the same on every engine.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::network::{Engine, Flit, Wiring};
use super::SimConfig;
use crate::algo::{Network, NodeId};
use crate::error::{Error, Result};
use crate::interface::documented_ports;

/// Cycles a waveform covers when `--waves-cycles` is not given: the
/// measurement phase's first cycles, at most this many.
pub const DEFAULT_CYCLES: u64 = 1000;

/// Which routers and which cycles a waveform covers. Cycles count from
/// the end of reset, as `--warmup`, `--measure` and the delivery trace do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The nodes, ascending, each once.
    pub nodes: Vec<NodeId>,
    /// The first cycle.
    pub first: u64,
    /// The last cycle (included).
    pub last: u64,
}

impl Window {
    /// The window of `nodes` over `cycles` (`A..B`, both included; `None`:
    /// the first [`DEFAULT_CYCLES`] cycles of the measurement phase) for
    /// the run `cfg`. Every fault is an [`Error::InvalidSpec`] naming the
    /// bad value and what is allowed.
    pub fn new(nodes: &[u32], cycles: Option<&str>, cfg: &SimConfig) -> Result<Window> {
        let net = Network::new(cfg.spec.topology, cfg.spec.dims, cfg.spec.radix)?;
        let count = net.nodes();
        if nodes.is_empty() {
            return Err(Error::InvalidSpec(format!(
                "waves names no node; allowed: nodes 0 to {}",
                count - 1
            )));
        }
        if let Some(&bad) = nodes.iter().find(|&&n| n >= count) {
            return Err(Error::InvalidSpec(format!(
                "waves = {}: node {bad} does not exist; the {} nodes are numbered 0 to {}",
                nodes
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                count,
                count - 1
            )));
        }
        let mut nodes = nodes.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        // The driver runs at most this many cycles after reset.
        let end = (cfg.warmup + cfg.measure + cfg.drain).saturating_sub(1);
        let (first, last) = match cycles {
            None => (
                cfg.warmup,
                cfg.warmup + cfg.measure.clamp(1, DEFAULT_CYCLES) - 1,
            ),
            Some(s) => {
                let bad = |why: &str| {
                    Error::InvalidSpec(format!(
                        "waves_cycles = '{s}': {why}; allowed: A..B, cycles after reset with \
                         A <= B <= {end} (warmup + measure + drain - 1)"
                    ))
                };
                let (a, b) = s
                    .split_once("..")
                    .ok_or_else(|| bad("not a range of cycles"))?;
                let num = |x: &str| {
                    x.trim()
                        .parse::<u64>()
                        .map_err(|_| bad(&format!("'{x}' is not a cycle number")))
                };
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(bad(&format!("{a} is after {b}")));
                }
                if b > end {
                    return Err(bad(&format!("{b} is after the run's last cycle")));
                }
                (a, b)
            }
        };
        Ok(Window { nodes, first, last })
    }

    /// Whether cycle `t` is in the window.
    pub fn covers(&self, t: u64) -> bool {
        (self.first..=self.last).contains(&t)
    }
}

/// A waveform being written: a VCD in a temporary file beside its
/// destination, moved there by [`Waves::finish`] (dropped unfinished, it
/// is removed: nothing half-written is left).
pub struct Waves {
    window: Window,
    path: PathBuf,
    out: BufWriter<tempfile::NamedTempFile>,
    /// The error of the first write that failed.
    error: Option<std::io::Error>,
    /// One cycle in picoseconds, and its first half (clk high).
    period: u64,
    high: u64,
    ports: usize,
    /// `node_id` per node of the window, where the router has that input.
    node_ids: Option<Vec<u64>>,
    /// Per node of the window, the VCD code of each signal and its last
    /// value written (`clk` and `rst` share one code over all nodes).
    codes: Vec<Vec<String>>,
    widths: Vec<u32>,
    last: Vec<Vec<Option<u64>>>,
    /// The first and last cycles written.
    written: Option<(u64, u64)>,
    /// The cycle begun and its values (`None`: not known yet).
    pending: Option<(u64, Vec<Vec<Option<u64>>>)>,
}

/// A flit's signals in the order of docs/interface.md: data, valid, head,
/// tail, VC (all unknown for `None`).
fn flit_values(f: Option<Flit>) -> [Option<u64>; 5] {
    f.map_or([None; 5], |f| {
        [
            f.data,
            u64::from(f.valid),
            u64::from(f.head),
            u64::from(f.tail),
            u64::from(f.vc),
        ]
        .map(Some)
    })
}

/// What a finished waveform holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// The first and last cycles written (none if the run ended before
    /// the window).
    pub cycles: Option<(u64, u64)>,
}

/// The VCD identifier code of signal `i`: printable ASCII `!` to `~`,
/// base 94.
fn code(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push(char::from(b'!' + (i % 94) as u8));
        i /= 94;
        if i == 0 {
            return s;
        }
        i -= 1;
    }
}

impl Waves {
    /// Starts the waveform of `window` for the run `cfg` at `path`: the
    /// header, one scope per node. The time unit is 1 ps and a cycle lasts
    /// the run's cycle time ([`SimConfig::cycle_time_ns`]: `--fmax-mhz`,
    /// else Chien's model), so the viewer's times match the ns columns;
    /// cycle t starts at t cycle times.
    pub fn create(path: &Path, window: Window, cfg: &SimConfig) -> Result<Waves> {
        let spec = &cfg.spec;
        let net = Network::new(spec.topology, spec.dims, spec.radix)?;
        let out_err = |e: std::io::Error| Error::Output {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let file = tempfile::NamedTempFile::new_in(dir).map_err(out_err)?;
        let period = ((cfg.cycle_time_ns() * 1000.0).round() as u64).max(2);
        let mut signals: Vec<(String, u32)> =
            documented_ports(spec.physical_ports(), spec.flit_width, spec.vcs)
                .into_iter()
                .map(|(name, _, width)| (name, width))
                .collect();
        let table = cfg.table()?;
        let node_bits = crate::router::node_id_bits_of(&table);
        let node_ids = node_bits.map(|b| {
            signals.insert(2, ("node_id".to_string(), b));
            window
                .nodes
                .iter()
                .map(|&n| super::network::node_id(spec, &net, n))
                .collect()
        });
        let per_node = signals.len() - 2;
        let codes: Vec<Vec<String>> = (0..window.nodes.len())
            .map(|k| {
                let mut c = vec![code(0), code(1)];
                c.extend((0..per_node).map(|i| code(2 + k * per_node + i)));
                c
            })
            .collect();
        let mut head = format!(
            "$version routergen {} $end\n$comment {}-ary {}-dimensional {}, router {}; cycles \
             {}..{} after reset, cycle t starting at t * {period} ps",
            env!("CARGO_PKG_VERSION"),
            spec.radix,
            spec.dims,
            spec.topology,
            spec.name(),
            window.first,
            window.last,
        );
        for &n in &window.nodes {
            head.push_str(&format!("; node_{n} is {}", net.node_name(n)));
        }
        head.push_str(" $end\n$timescale 1ps $end\n");
        for (k, &n) in window.nodes.iter().enumerate() {
            head.push_str(&format!("$scope module node_{n} $end\n"));
            for (i, (name, width)) in signals.iter().enumerate() {
                let range = if *width > 1 {
                    format!(" [{}:0]", width - 1)
                } else {
                    String::new()
                };
                head.push_str(&format!(
                    "$var wire {width} {} {name}{range} $end\n",
                    codes[k][i]
                ));
            }
            head.push_str("$upscope $end\n");
        }
        head.push_str("$enddefinitions $end\n");
        let mut out = BufWriter::new(file);
        out.write_all(head.as_bytes()).map_err(out_err)?;
        Ok(Waves {
            last: vec![vec![None; signals.len()]; window.nodes.len()],
            widths: signals.iter().map(|s| s.1).collect(),
            window,
            path: path.to_path_buf(),
            out,
            error: None,
            period,
            high: period / 2,
            ports: spec.physical_ports() as usize,
            node_ids,
            codes,
            written: None,
            pending: None,
        })
    }

    /// The values of node `n`'s signals in cycle t, in the header's order,
    /// but for the local port's inputs (left `None`, see [`Waves::end`]):
    /// what the routers drive (`engine`), and on each link port what the
    /// router across the link drives (a mesh edge: tied off, all 0).
    fn values(&self, k: usize, n: usize, w: &Wiring, engine: &dyn Engine) -> Vec<Option<u64>> {
        let pp = self.ports;
        let credits = &engine.outputs().credits;
        let mut v = vec![Some(1), Some(0)];
        if let Some(ids) = &self.node_ids {
            v.push(Some(ids[k]));
        }
        for p in 0..pp {
            // Flits from the port feeding p, credits from the port p sends
            // into (the same one unless the rings run one way).
            let far = |end: Option<(NodeId, usize)>| end.map(|(m, q)| m as usize * pp + q);
            let (arriving, credit_in) = if p == 0 {
                (None, None)
            } else {
                (
                    Some(
                        far(w.feed[n * pp + p]).map_or_else(Flit::default, |k| engine.port_out(k)),
                    ),
                    Some(far(w.link[n * pp + p]).map_or(0, |k| credits[k])),
                )
            };
            v.extend(flit_values(arriving));
            v.push(Some(u64::from(credits[n * pp + p])));
            v.extend(flit_values(Some(engine.port_out(n * pp + p))));
            v.push(credit_in.map(u64::from));
        }
        v
    }

    /// Starts cycle `t` (recorded if the window covers it): the routers'
    /// outputs of the cycle, read from `engine` before its step. The local
    /// ports' inputs follow in [`Waves::end`]; a run that faults before
    /// then leaves them unknown (`x`) in that last cycle.
    pub fn begin(&mut self, t: u64, w: &Wiring, engine: &dyn Engine) {
        if !self.window.covers(t) || self.error.is_some() {
            return;
        }
        let values = (0..self.window.nodes.len())
            .map(|k| self.values(k, self.window.nodes[k] as usize, w, engine))
            .collect();
        self.pending = Some((t, values));
    }

    /// Ends the cycle begun: the local ports' inputs the driver steps the
    /// routers with (`inject[n]`, `eject_credit[n]`), and writes it.
    pub fn end(&mut self, inject: &[Flit], eject_credit: &[u32]) {
        let Some((t, mut values)) = self.pending.take() else {
            return;
        };
        let base = if self.node_ids.is_some() { 3 } else { 2 };
        for (k, &n) in self.window.nodes.iter().enumerate() {
            let v = &mut values[k];
            let f = flit_values(Some(inject[n as usize]));
            v[base..base + 5].copy_from_slice(&f);
            v[base + 11] = Some(u64::from(eject_credit[n as usize]));
        }
        self.write(t, &values);
    }

    /// Writes cycle `t`: the rising edge that starts it, with every value
    /// that changed, then the falling edge.
    fn write(&mut self, t: u64, values: &[Vec<Option<u64>>]) {
        let first = self.written.is_none();
        let mut text = format!("#{}\n", t * self.period);
        if first {
            text.push_str("$dumpvars\n");
        }
        for (k, values) in values.iter().enumerate() {
            for (i, &x) in values.iter().enumerate() {
                // clk and rst are written once, for every node.
                if (k > 0 && i < 2) || (!first && self.last[k][i] == x) {
                    continue;
                }
                self.last[k][i] = x;
                let c = &self.codes[k][i];
                match (x, self.widths[i]) {
                    (Some(x), 1) => text.push_str(&format!("{x}{c}\n")),
                    (Some(x), _) => text.push_str(&format!("b{x:b} {c}\n")),
                    (None, 1) => text.push_str(&format!("x{c}\n")),
                    (None, _) => text.push_str(&format!("bx {c}\n")),
                }
            }
        }
        if first {
            text.push_str("$end\n");
        }
        // The falling edge in the middle of the cycle.
        text.push_str(&format!("#{}\n0{}\n", t * self.period + self.high, code(0)));
        self.last[0][0] = Some(0);
        self.written = Some((self.written.map_or(t, |w| w.0), t));
        if let Err(e) = self.out.write_all(text.as_bytes()) {
            self.error = Some(e);
        }
    }

    /// Writes the file in place and says what it holds; a cycle begun
    /// and not ended (the run faulted in it) is written with the local
    /// ports' inputs unknown.
    pub fn finish(mut self) -> Result<Written> {
        if let Some((t, values)) = self.pending.take() {
            self.write(t, &values);
        }
        let path = self.path;
        let out_err = |message: String| Error::Output {
            path: path.clone(),
            message,
        };
        if let Some(e) = self.error {
            return Err(out_err(e.to_string()));
        }
        let file = self.out.into_inner().map_err(|e| out_err(e.to_string()))?;
        file.persist(&path)
            .map_err(|e| out_err(e.error.to_string()))?;
        Ok(Written {
            path,
            cycles: self.written,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_printable_and_short() {
        let all: Vec<String> = (0..94 * 95).map(code).collect();
        let set: std::collections::HashSet<&String> = all.iter().collect();
        assert_eq!(set.len(), all.len());
        assert!(all
            .iter()
            .all(|c| c.bytes().all(|b| (b'!'..=b'~').contains(&b))));
        assert_eq!((code(0).as_str(), code(93).as_str()), ("!", "~"));
        assert_eq!(code(94).len(), 2);
    }
}
