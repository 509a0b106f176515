//! What a run measured: latency (average and 99th percentile, in cycles
//! and in ns), accepted throughput, per-channel utilization.

use std::fmt::Write as _;

/// Results of one run at one load (serialized as a job's result,
/// [`crate::jobs`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// The routing algorithm's name.
    pub algorithm: String,
    /// Offered load, as a fraction of the bisection-limited rate.
    pub load: f64,
    /// Offered flits per node per cycle (measurement phase).
    pub offered: f64,
    /// Accepted (ejected) flits per node per cycle (measurement phase).
    pub accepted: f64,
    /// Latencies (creation to tail ejection, cycles) of the packets created
    /// in the measurement phase and delivered.
    pub latencies: Vec<u64>,
    /// Packets created in the measurement phase.
    pub measured_packets: usize,
    /// Per link (name, flits per cycle in the measurement phase).
    pub utilization: Vec<(String, f64)>,
    /// Cycles simulated after reset.
    pub cycles: u64,
    /// Whether the run went to its end (false: stopped early, Ctrl-C).
    pub complete: bool,
    /// Cycle time in ns (Chien's model), if known.
    pub cycle_ns: Option<f64>,
}

impl Stats {
    /// Mean latency in cycles of the delivered measured packets; `None`
    /// when none was delivered.
    pub fn mean_latency(&self) -> Option<f64> {
        (!self.latencies.is_empty())
            .then(|| self.latencies.iter().sum::<u64>() as f64 / self.latencies.len() as f64)
    }

    /// The 99th percentile (nearest rank).
    pub fn p99_latency(&self) -> Option<u64> {
        percentile(&self.latencies, 0.99)
    }

    /// Highest link utilization, flits per cycle (0 without links).
    pub fn max_utilization(&self) -> f64 {
        self.utilization.iter().map(|x| x.1).fold(0.0, f64::max)
    }

    /// Mean link utilization over the links, flits per cycle (0 without links).
    pub fn mean_utilization(&self) -> f64 {
        if self.utilization.is_empty() {
            0.0
        } else {
            self.utilization.iter().map(|x| x.1).sum::<f64>() / self.utilization.len() as f64
        }
    }
}

/// Nearest-rank percentile `q` of `xs`.
pub fn percentile(xs: &[u64], q: f64) -> Option<u64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_unstable();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// Header line of the CSV results (`routergen sim --csv`), one column per
/// field of [`Stats::csv_row`]; latencies in cycles and ns.
pub const CSV_HEADER: &str =
    "algorithm,load,offered_flits_per_node_cycle,accepted_flits_per_node_cycle,\
packets_measured,packets_delivered,mean_latency_cycles,p99_latency_cycles,mean_latency_ns,\
p99_latency_ns,mean_channel_utilization,max_channel_utilization,cycles,complete";

impl Stats {
    /// The results as one CSV line under [`CSV_HEADER`] (`-` where a value
    /// is unknown).
    pub fn csv_row(&self) -> String {
        let ns = |c: Option<f64>| opt(c.zip(self.cycle_ns).map(|(c, t)| c * t), 2);
        format!(
            "{},{:.3},{:.4},{:.4},{},{},{},{},{},{},{:.4},{:.4},{},{}",
            self.algorithm,
            self.load,
            self.offered,
            self.accepted,
            self.measured_packets,
            self.latencies.len(),
            opt(self.mean_latency(), 2),
            self.p99_latency().map_or("-".into(), |x| x.to_string()),
            ns(self.mean_latency()),
            ns(self.p99_latency().map(|x| x as f64)),
            self.mean_utilization(),
            self.max_utilization(),
            self.cycles,
            self.complete
        )
    }
}

/// The results as a text table.
pub fn table(rows: &[Stats]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<16} {:>5} {:>8} {:>8} {:>9} {:>7} {:>9} {:>9} {:>6} {:>6}",
        "algorithm",
        "load",
        "offered",
        "accepted",
        "latency",
        "p99",
        "lat ns",
        "p99 ns",
        "util",
        "umax"
    );
    for r in rows {
        let ns = |c: Option<f64>| opt(c.zip(r.cycle_ns).map(|(c, t)| c * t), 1);
        let _ = writeln!(
            s,
            "{:<16} {:>5.2} {:>8.4} {:>8.4} {:>9} {:>7} {:>9} {:>9} {:>6.3} {:>6.3}{}",
            r.algorithm,
            r.load,
            r.offered,
            r.accepted,
            opt(r.mean_latency(), 1),
            r.p99_latency().map_or("-".into(), |x| x.to_string()),
            ns(r.mean_latency()),
            ns(r.p99_latency().map(|x| x as f64)),
            r.mean_utilization(),
            r.max_utilization(),
            if r.complete { "" } else { "  (incomplete)" }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentile() {
        let xs: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&xs, 0.99), Some(99));
        assert_eq!(percentile(&[5], 0.99), Some(5));
        assert_eq!(percentile(&[], 0.99), None);
        let ys: Vec<u64> = (1..=1000).rev().collect();
        assert_eq!(percentile(&ys, 0.99), Some(990));
    }
}
