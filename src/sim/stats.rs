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
    /// Flits created and not yet ejected as the measurement phase begins
    /// and as it ends, per node and measured cycle: what was offered but
    /// not accepted, or accepted but not offered, in the phase. Flits are
    /// conserved: `accepted = offered + backlog[0] - backlog[1]`, so
    /// accepted exceeds offered exactly when the backlog shrinks.
    #[serde(default)]
    pub backlog: [f64; 2],
    /// Latencies (creation to tail ejection, cycles) of the packets created
    /// in the measurement phase and delivered.
    pub latencies: Vec<u64>,
    /// Their mean latency inside the network, from the head flit's entry
    /// into the source router (the wait in the source queue left out) to
    /// the tail's ejection: the latency Dally's model gives (IEEE TC 1990
    /// §III-B, T = D + T_n, whose T_n starts at the source channel).
    #[serde(default)]
    pub network_latency: Option<f64>,
    /// Per hop count h (the index), the least latency of a measured
    /// packet whose minimal route crosses h links (`None`: no such
    /// packet). At light load some packet of each h meets no contention,
    /// so these are the zero-load latencies of the router and network.
    #[serde(default)]
    pub fastest: Vec<Option<u64>>,
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
    /// The seed of the run's traffic.
    #[serde(default)]
    pub seed: u64,
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
    "algorithm,load,seed,offered_flits_per_node_cycle,accepted_flits_per_node_cycle,\
backlog_start_flits_per_node_cycle,backlog_end_flits_per_node_cycle,packets_measured,\
packets_delivered,mean_latency_cycles,p99_latency_cycles,mean_latency_ns,p99_latency_ns,\
mean_channel_utilization,max_channel_utilization,cycles,complete,mean_network_latency_cycles";

impl Stats {
    /// The results as one CSV line under [`CSV_HEADER`] (`-` where a value
    /// is unknown).
    pub fn csv_row(&self) -> String {
        let ns = |c: Option<f64>| opt(c.zip(self.cycle_ns).map(|(c, t)| c * t), 2);
        format!(
            "{},{:.3},{},{:.4},{:.4},{:.4},{:.4},{},{},{},{},{},{},{:.4},{:.4},{},{},{}",
            self.algorithm,
            self.load,
            self.seed,
            self.offered,
            self.accepted,
            self.backlog[0],
            self.backlog[1],
            self.measured_packets,
            self.latencies.len(),
            opt(self.mean_latency(), 2),
            self.p99_latency().map_or("-".into(), |x| x.to_string()),
            ns(self.mean_latency()),
            ns(self.p99_latency().map(|x| x as f64)),
            self.mean_utilization(),
            self.max_utilization(),
            self.cycles,
            self.complete,
            opt(self.network_latency, 2)
        )
    }
}

/// The results as a text table.
pub fn table(rows: &[Stats]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<16} {:>5} {:>5} {:>8} {:>8} {:>9} {:>7} {:>9} {:>9} {:>6} {:>6}",
        "algorithm",
        "load",
        "seed",
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
            "{:<16} {:>5.2} {:>5} {:>8.4} {:>8.4} {:>9} {:>7} {:>9} {:>9} {:>6.3} {:>6.3}{}",
            r.algorithm,
            r.load,
            r.seed,
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

/// A mean over replications and its 95% confidence interval: Student's
/// t over the replications' own values (each replication one independent
/// run with its own seed, so the values are independent and the interval
/// needs no batching).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The mean of the values.
    pub mean: f64,
    /// Half the width of the 95% interval; `None` with one value.
    pub half: Option<f64>,
}

impl Interval {
    /// The mean of `xs` and its 95% interval, t(0.975, n - 1) s / sqrt(n);
    /// `None` without values.
    pub fn of(xs: &[f64]) -> Option<Interval> {
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let half = (n > 1).then(|| {
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t_975(n - 1) * (var / n as f64).sqrt()
        });
        Some(Interval { mean, half })
    }

    /// `mean ± half` with `digits` decimals (`mean` alone with one value).
    pub fn text(&self, digits: usize) -> String {
        match self.half {
            Some(h) => format!("{:.digits$} ± {h:.digits$}", self.mean),
            None => format!("{:.digits$}", self.mean),
        }
    }
}

/// The 0.975 quantile of Student's t with `df` (at least 1) degrees of
/// freedom.
pub fn t_975(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    StudentsT::new(0.0, 1.0, df as f64)
        .expect("a t distribution of at least one degree of freedom")
        .inverse_cdf(0.975)
}

/// The replications of one point: one algorithm at one load, a run per
/// seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicated {
    /// The routing algorithm's name.
    pub algorithm: String,
    /// Offered load, as a fraction of the bisection-limited rate.
    pub load: f64,
    /// The seeds of the runs.
    pub seeds: Vec<u64>,
    /// Mean latency in cycles over the replications (each replication's
    /// mean latency one value); `None` where a run delivered no packet.
    pub latency: Option<Interval>,
    /// The same of the latency inside the network
    /// ([`Stats::network_latency`]).
    pub network_latency: Option<Interval>,
    /// [`Stats::fastest`], the least over the replications.
    pub fastest: Vec<Option<u64>>,
    /// Accepted flits per node per cycle.
    pub accepted: Interval,
    /// Offered flits per node per cycle.
    pub offered: Interval,
    /// The runs' mean [`Stats::backlog`].
    pub backlog: [f64; 2],
    /// Packets created in the measurement phases, all replications.
    pub packets: usize,
    /// Whether every run went to its end.
    pub complete: bool,
    /// Cycle time in ns, if known.
    pub cycle_ns: Option<f64>,
}

/// The runs `rows` grouped by algorithm and load (in the order each first
/// appears), one [`Replicated`] per point.
pub fn replicate(rows: &[Stats]) -> Vec<Replicated> {
    let mut points: Vec<Vec<&Stats>> = Vec::new();
    for r in rows {
        match points
            .iter_mut()
            .find(|p| p[0].algorithm == r.algorithm && p[0].load == r.load)
        {
            Some(p) => p.push(r),
            None => points.push(vec![r]),
        }
    }
    points.iter().map(|runs| Replicated::of(runs)).collect()
}

/// What a replication contributes to its point: the values of a run
/// that the studies' pages and points.csv are made from (its latencies
/// summed up, its links left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// The routing algorithm's name.
    pub algorithm: String,
    /// Offered load, as a fraction of the bisection-limited rate.
    pub load: f64,
    /// The seed of the run's traffic.
    pub seed: u64,
    /// Offered flits per node per cycle ([`Stats::offered`]).
    pub offered: f64,
    /// Accepted flits per node per cycle ([`Stats::accepted`]).
    pub accepted: f64,
    /// [`Stats::backlog`].
    pub backlog: [f64; 2],
    /// Packets created in the measurement phase.
    pub packets: usize,
    /// Those delivered.
    pub delivered: usize,
    /// Their mean latency, cycles ([`Stats::mean_latency`]).
    pub latency: Option<f64>,
    /// Their median latency (nearest rank).
    pub p50: Option<u64>,
    /// Their 99th percentile latency (nearest rank).
    pub p99: Option<u64>,
    /// [`Stats::network_latency`].
    pub network_latency: Option<f64>,
    /// [`Stats::fastest`].
    pub fastest: Vec<Option<u64>>,
    /// Whether the run went to its end.
    pub complete: bool,
}

impl Run {
    /// The summary of `s`.
    pub fn of(s: &Stats) -> Run {
        Run {
            algorithm: s.algorithm.clone(),
            load: s.load,
            seed: s.seed,
            offered: s.offered,
            accepted: s.accepted,
            backlog: s.backlog,
            packets: s.measured_packets,
            delivered: s.latencies.len(),
            latency: s.mean_latency(),
            p50: percentile(&s.latencies, 0.5),
            p99: s.p99_latency(),
            network_latency: s.network_latency,
            fastest: s.fastest.clone(),
            complete: s.complete,
        }
    }
}

impl Replicated {
    /// The replications `runs` of one point (at least one).
    pub fn of(runs: &[&Stats]) -> Replicated {
        let summed: Vec<Run> = runs.iter().map(|s| Run::of(s)).collect();
        Replicated {
            cycle_ns: runs[0].cycle_ns,
            ..Replicated::of_runs(&summed.iter().collect::<Vec<_>>())
        }
    }

    /// The replications `runs` of one point (at least one), without a
    /// cycle time.
    pub fn of_runs(runs: &[&Run]) -> Replicated {
        let each = |f: fn(&Run) -> f64| -> Vec<f64> { runs.iter().map(|r| f(r)).collect() };
        let latencies: Option<Vec<f64>> = runs.iter().map(|r| r.latency).collect();
        let inside: Option<Vec<f64>> = runs.iter().map(|r| r.network_latency).collect();
        Replicated {
            algorithm: runs[0].algorithm.clone(),
            load: runs[0].load,
            seeds: runs.iter().map(|r| r.seed).collect(),
            latency: latencies.and_then(|l| Interval::of(&l)),
            network_latency: inside.and_then(|l| Interval::of(&l)),
            fastest: {
                let h = runs.iter().map(|r| r.fastest.len()).max().unwrap_or(0);
                (0..h)
                    .map(|i| {
                        runs.iter()
                            .filter_map(|r| r.fastest.get(i).copied().flatten())
                            .min()
                    })
                    .collect()
            },
            accepted: Interval::of(&each(|r| r.accepted)).expect("a run per point"),
            offered: Interval::of(&each(|r| r.offered)).expect("a run per point"),
            backlog: [0, 1]
                .map(|i| runs.iter().map(|r| r.backlog[i]).sum::<f64>() / runs.len() as f64),
            packets: runs.iter().map(|r| r.packets).sum(),
            complete: runs.iter().all(|r| r.complete),
            cycle_ns: None,
        }
    }

    /// The mean over the replications of their mean latencies, cycles.
    pub fn mean_latency(&self) -> Option<f64> {
        self.latency.map(|l| l.mean)
    }
}

/// The replicated points as a text table: means and 95% intervals.
pub fn replication_table(points: &[Replicated]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<16} {:>5} {:>5} {:>16} {:>18} {:>18} {:>8}",
        "algorithm", "load", "runs", "latency", "accepted", "offered", "packets"
    );
    for p in points {
        let _ = writeln!(
            s,
            "{:<16} {:>5.2} {:>5} {:>16} {:>18} {:>18} {:>8}{}",
            p.algorithm,
            p.load,
            p.seeds.len(),
            p.latency.map_or("-".into(), |l| l.text(2)),
            p.accepted.text(4),
            p.offered.text(4),
            p.packets,
            if p.complete { "" } else { "  (incomplete)" }
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

    /// Against the printed table of Student's t (0.975 quantile).
    #[test]
    fn t_quantiles_are_the_tables() {
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (29, 2.045),
            (120, 1.980),
        ] {
            assert!((t_975(df) - t).abs() < 5e-4, "df {df}: {}", t_975(df));
        }
    }

    /// Five values 10, 12, 11, 13, 9: mean 11, s^2 = 2.5, half-width
    /// 2.776 sqrt(2.5 / 5) = 1.963 (worked by hand).
    #[test]
    fn interval_of_five_values() {
        let i = Interval::of(&[10.0, 12.0, 11.0, 13.0, 9.0]).unwrap();
        assert!((i.mean - 11.0).abs() < 1e-12);
        assert!((i.half.unwrap() - 1.963).abs() < 1e-3, "{i:?}");
        assert_eq!(Interval::of(&[4.0]).unwrap().half, None);
        assert_eq!(Interval::of(&[]), None);
        assert_eq!(i.text(1), "11.0 ± 2.0");
    }

    /// Runs group by algorithm and load, whatever order they come in.
    #[test]
    fn replications_group_by_point() {
        let run = |a: &str, load: f64, seed: u64, lat: u64| Stats {
            algorithm: a.into(),
            load,
            seed,
            latencies: vec![lat, lat + 2],
            measured_packets: 2,
            accepted: 0.1,
            offered: 0.1,
            complete: true,
            ..Stats::default()
        };
        let rows = [
            run("dor", 0.1, 1, 10),
            run("dor", 0.2, 1, 20),
            run("dor", 0.1, 2, 12),
            run("duato", 0.1, 1, 30),
        ];
        let points = replicate(&rows);
        assert_eq!(points.len(), 3);
        assert_eq!(points[0].seeds, [1, 2]);
        assert_eq!(points[0].packets, 4);
        // Means 11 and 13: mean 12, s = sqrt(2), t(1) 12.706 sqrt(2 / 2).
        let l = points[0].latency.unwrap();
        assert!((l.mean - 12.0).abs() < 1e-12);
        assert!((l.half.unwrap() - 12.706).abs() < 1e-3, "{l:?}");
        assert_eq!(points[2].algorithm, "duato");
        assert_eq!(points[2].latency.unwrap().half, None);
        assert!(replication_table(&points).contains("12.00 ± 12.71"));
    }
}
