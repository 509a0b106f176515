//! Command-line arguments. The binary parses these and calls the library;
//! everything here is about words on the command line, nothing about routers.

use std::ffi::OsStr;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::OnceLock;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::{Arg, ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::jobs::ExecutorKind;
use crate::limits::{BLOCK_FLIT_WIDTHS, MAX_COST_MODEL_DIMS};
use crate::network::Endpoints;
use crate::sim::traffic::Injection;
use crate::sim::EngineKind;
use crate::spec::names::{one_of, Named};
use crate::spec::options::{SpecOption, ValueKind};
use crate::spec::{
    Addressing, Algorithm, BufferStorage, FlowControl, PathSelection, SpecInput, Topology, OPTIONS,
};
use crate::synth::scope::Scope;
use crate::synth::Target;

/// The whole command line: a subcommand, or the generation flags.
#[derive(Debug, Parser)]
#[command(
    name = "routergen",
    version,
    about = "Generates wormhole routers for k-ary n-cube, mesh and hypercube networks",
    long_about = "Generates wormhole routers for k-ary n-cube, mesh and hypercube networks.\n\n\
        Without a subcommand, routergen validates the router specification given by \
        --config and the flags (flags override the file), prints it with the defaults it \
        chose, and writes DIR/routergen.toml (the resolved spec) and DIR/report.md and \
        DIR/report.json (Chien's cost and speed model for it).\n\n\
        Exit status: 0 on success, 2 for a bad specification or bad input file, 1 when \
        writing fails.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    /// The subcommand; none means generate an output directory.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The router specification, for generation.
    #[command(flatten)]
    pub spec: SpecArgs,

    /// Output directory: created, or replaced if it holds a previous routergen output.
    #[arg(short = 'o', long = "out", value_name = "DIR", required = true)]
    pub out: Option<PathBuf>,

    /// Technology constants for the cost report (TOML, like generators/tech/chien-0.8um.toml).
    #[arg(long, value_name = "FILE")]
    pub tech: Option<PathBuf>,
}

/// The subcommands, each with its arguments.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Chien's cost and speed model: module gates and delays, setup delay,
    /// flow-control cycle and flit rate.
    Model(ModelArgs),
    /// One router block as Verilog (DIR/NAME.v), and optionally its Yosys
    /// gate count beside Chien's Figure 4 formula.
    Block(BlockArgs),
    /// Proves a routing relation deadlock-free on a concrete network.
    ///
    /// Builds the channel dependency graph of the algorithm's routing relation
    /// on the k-ary n-dimensional network and tests it for cycles (Dally and
    /// Seitz); for escape-based algorithms (duato, star-channels) builds Duato's
    /// extended dependency graph of the escape sub-function instead. Also checks
    /// that every source reaches every destination and that every permitted hop
    /// is minimal, and prints the routing-table sizes (LAPSES §5). When the
    /// proof fails on a dependency cycle it prints the cycle as a list of
    /// channels.
    ///
    /// Exit status: 0 when the relation is proved (deadlock-free, connected,
    /// minimal); 1 when it is not (a dependency cycle, so deadlock is possible
    /// or not excluded; not connected; or not minimal); 2 for bad arguments.
    Check(CheckArgs),
    /// Synthesizes the router of a spec with Yosys (generic gates, iCE40 or
    /// ECP5), places and routes it with nextpnr, and reports gates or LUTs,
    /// flip-flops, carries, RAMs, logic depth and Fmax, in total and per block.
    ///
    /// The router is wrapped in serial scan chains (every input driven by a
    /// flip-flop, every output captured), so synthesis keeps all of its
    /// logic. With --compare-chien, sets Chien's model beside the measured
    /// gate counts and paths of every algorithm the router supports.
    Synth(SynthArgs),
    /// Writes an FPGA bring-up design for a board: the 2x2 network of
    /// `routergen network`, an AXI4-Stream traffic generator and checker
    /// per node, packet and error counts on the LEDs and a UART line;
    /// --build makes the bitstream.
    Fpga(FpgaArgs),
    /// Writes a whole network of the spec's routers as one Verilog top
    /// module: every node an instance of the router, the links wired as
    /// docs/interface.md numbers the ports, the ports of a mesh that leave
    /// the network tied off, the routers' local ports as the network's
    /// ports (docs/network.md).
    Network(NetworkArgs),
    /// Simulates a network of generated routers with a network interface
    /// per node: traffic, warm-up, measurement and drain phases; every run
    /// checks that each packet arrives once, at its destination, in order
    /// and unchanged, and a watchdog stops a deadlocked run and prints the
    /// blocked channels and the cycle of waits among them.
    ///
    /// Prints average and 99th-percentile latency (cycles and ns), offered
    /// and accepted throughput and channel utilization per load and
    /// algorithm; --sweep finds the saturation load. Exit status: 0 when
    /// every check passed, 1 on a fault or deadlock, 2 for bad arguments.
    Sim(Box<SimArgs>),
    /// Measures simulation speed: router-cycles per second of each engine
    /// on an 8x8 mesh under uniform traffic.
    Bench(BenchArgs),
    /// The papers' analytic performance models beside the values they
    /// print: Dally's k-ary n-cube model (Table I, Figures 8-10 and 14-17)
    /// and Quaglia et al.'s adaptive torus model (Tables 1 and 2).
    Analyze(AnalyzeArgs),
    /// A study: routergen's routers simulated beside a paper's model and
    /// printed values, written as DIR/README.md and SVG plots.
    Study(StudyArgs),
    /// Proves the router's blocks formally with SymbiYosys (docs/prove.md):
    /// unbounded proofs of each block's documented contract for the spec's
    /// parameters. Exit status: 0 when every proof passes, 1 when one fails
    /// (its counterexample trace is printed), 2 for bad arguments.
    Prove(ProveArgs),
    /// Every router configuration routergen builds through its output
    /// directory's own checks, each router a job (`make matrix`): Verilator
    /// lint, the Icarus testbench and Yosys synthesis; prints a table of
    /// their verdicts. Exit status: 0 when every check passes, 1 when one
    /// fails, 2 for bad arguments.
    Matrix(MatrixArgs),
    /// Runs one job of a plan (`--plan DIR` of study, sim, matrix and the
    /// proof suite): reads DIR/jobs/<i>.json, runs the routergen command
    /// line it holds and writes what that printed atomically to
    /// DIR/results/<i>.json. The executors run it, locally or as a Slurm
    /// array task (docs/cluster.md).
    Job(JobArgs),
    /// The command line of a job: does one task (JSON) and prints its result
    /// as JSON.
    #[command(hide = true)]
    Task(TaskArgs),
    /// Prints a shell completion script for routergen (`make install`
    /// installs those of bash, zsh and fish).
    Completions(CompletionsArgs),
    /// Prints routergen's man page (roff), or with -o writes routergen.1
    /// and a page per subcommand (routergen-sim.1, ...) into DIR.
    Man(ManArgs),
}

/// The arguments of `routergen prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// The router specification.
    #[command(flatten)]
    pub spec: SpecArgs,

    /// Keep the proofs (harnesses, .sby jobs, logs, traces) in DIR/prove
    /// [default: routergen-prove in the system temp directory; with --all,
    /// a scratch directory per job, removed].
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Instead of the spec's proofs, routergen's whole proof suite (`make
    /// prove-all`): every block at its default sizes and some at smaller
    /// ones, the whole router's proofs, and each mutant each proof must
    /// fail on, every proof and mutant a job; prints a line per job.
    #[arg(long)]
    pub all: bool,

    /// With --all, only the suite's proofs whose name holds TEXT (and
    /// their mutants).
    #[arg(long, value_name = "TEXT", requires = "all")]
    pub only: Option<String>,

    /// Where the jobs of --all run.
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// The arguments of `routergen matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Only the configurations whose name holds TEXT
    /// (`router_duato_torus2d_...`).
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,

    /// Where the jobs run.
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// The arguments of `routergen task`.
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// The task, as a job's command line spells it.
    #[arg(value_name = "JSON")]
    pub task: String,
}

/// The arguments of `routergen completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,

    /// Write the script to FILE instead of standard output.
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// The arguments of `routergen man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write routergen.1 and routergen-COMMAND.1 into DIR (created) instead
    /// of printing routergen.1.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The arguments of `routergen synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// The router specification.
    #[command(flatten)]
    pub spec: SpecArgs,

    /// generic (two-input gates), ice40-up5k, ice40-hx8k, ecp5-25k or ecp5-85k.
    #[arg(long, value_parser = named::<Target>(), default_value = "generic")]
    pub target: Target,

    /// Clock nextpnr aims at, in MHz [default: 24 on ice40-up5k, 60 on
    /// ice40-hx8k, 100 on ECP5].
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,

    /// What to measure: router; interface (the router, its AXI4-Stream
    /// network interface, and the two as one node, side by side); or
    /// network (the spec's whole network with its interfaces).
    #[arg(long, value_parser = named::<Scope>(), default_value = "router")]
    pub scope: Scope,

    /// Keep the build products (sources, scripts, logs, netlists, report) in DIR.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,

    /// Chien's model beside Yosys for every algorithm (n = 2 and 3, W = 16);
    /// with an FPGA --target, also Fmax.
    #[arg(long, conflicts_with_all = ["out", "config", "scope"])]
    pub compare_chien: bool,

    /// Technology constants for --compare-chien [default: Chien 0.8um].
    #[arg(long, value_name = "FILE")]
    pub tech: Option<PathBuf>,
}

/// The arguments of `routergen sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// The router specification.
    #[command(flatten)]
    pub spec: SpecArgs,

    /// Several algorithms, comma-separated (one curve each), instead of --algo.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        conflicts_with = "algorithm"
    )]
    pub algos: Vec<Algorithm>,

    /// rust (rust-hdl models in process), verilator (the emitted Verilog,
    /// compiled once per configuration and cached) or netlist (the router's
    /// Yosys gates, all routers at once in the bits of machine words)
    /// [default: the fastest installed: netlist when Yosys is found, else
    /// verilator when Verilator is, else rust].
    #[arg(long, value_parser = named::<EngineKind>())]
    pub engine: Option<EngineKind>,

    /// uniform, transpose, bit-reversal, shuffle, neighbour, or
    /// hot-spot:FRACTION:NODE.
    #[arg(long, value_name = "PATTERN", default_value = "uniform")]
    pub traffic: String,

    /// Message length in flits: L, LO..HI (uniform) or L:W,L:W,... (weighted mix).
    #[arg(long, value_name = "FLITS", default_value = "4")]
    pub length: String,

    /// Packet creation: bernoulli or exponential inter-arrival times.
    #[arg(long, value_parser = named::<Injection>(), default_value = "bernoulli")]
    pub injection: Injection,

    /// Offered loads, comma-separated, as fractions of the bisection-limited
    /// rate (LAPSES §2.2).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "0.3"
    )]
    pub load: Vec<f64>,

    /// Sweep the load upward in steps of 0.1, then bisect, to find the
    /// saturation load (accepted below 95% of offered, or latency above
    /// three times the lowest load's).
    #[arg(long)]
    pub sweep: bool,

    /// Warm-up cycles (not measured).
    #[arg(long, value_name = "CYCLES", default_value_t = 1000)]
    pub warmup: u64,

    /// Measurement cycles: packets created in them are measured.
    #[arg(long, value_name = "CYCLES", default_value_t = 5000)]
    pub measure: u64,

    /// Most cycles the drain phase may take to deliver every packet.
    #[arg(long, value_name = "CYCLES", default_value_t = 200_000)]
    pub drain: u64,

    /// Seed of the traffic (of the first replication).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Replications: runs per algorithm and load, with seeds SEED, SEED+1,
    /// ...; each point is then printed as the mean and its 95% confidence
    /// interval (Student's t over the runs).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::limits::MAX_SEEDS)))]
    pub seeds: u32,

    /// Deadlock watchdog: cycles with flits in the network and none moving.
    #[arg(long, value_name = "CYCLES", default_value_t = 1000)]
    pub watchdog: u64,

    /// Measured clock frequency of the router, for latency in ns [default:
    /// the cycle time of Chien's model].
    #[arg(long, value_name = "MHZ")]
    pub fmax_mhz: Option<f64>,

    /// Threads the engine evaluates the routers of a cycle on (the results
    /// do not depend on it).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,

    /// Write the results as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write an SVG plot of latency against load.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Write the per-flit delivery trace (node, cycle, packet, flit) as CSV
    /// (one load and algorithm only).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// Print the utilization of every channel.
    #[arg(long)]
    pub channels: bool,

    /// Write a waveform (VCD) of these routers' ports: node numbers,
    /// comma-separated, 0 to N-1 (as for hot-spot traffic), one scope per
    /// node (one algorithm and load only).
    #[arg(long, value_name = "NODES", value_delimiter = ',')]
    pub waves: Vec<u32>,

    /// The cycles the waveform covers, A..B (cycles after reset, both
    /// included) [default: the first 1000 cycles of the measurement phase].
    #[arg(long, value_name = "A..B", requires = "waves")]
    pub waves_cycles: Option<String>,

    /// Where the waveform goes.
    #[arg(
        long,
        value_name = "FILE",
        requires = "waves",
        default_value = "waves.vcd"
    )]
    pub waves_file: PathBuf,

    /// Write a replay of the run into DIR: the network's Verilog with its
    /// routers' local ports at its boundary (`routergen network --endpoints
    /// flits`), every local port's signals cycle by cycle, and a testbench
    /// that drives them in and writes what comes out, to compare (one
    /// algorithm and load only).
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,

    /// Run each algorithm and load as its own job (--executor, --plan):
    /// without either, every run is in this process.
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// Where the jobs of a plan run (docs/cluster.md).
#[derive(Debug, Clone, Args)]
pub struct ExecArgs {
    /// Where the jobs run: local (worker processes here) or slurm (one
    /// Slurm job array) [default: local].
    #[arg(long, value_parser = named::<ExecutorKind>())]
    pub executor: Option<ExecutorKind>,

    /// Jobs at once on the local executor [default: the cores here].
    #[arg(short = 'j', long = "jobs", id = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,

    /// The directory of the plan: its jobs and their results. Kept, and
    /// a re-run skips the jobs whose results are there (resume); on a
    /// cluster it must be on a filesystem every node sees. [default: study:
    /// DIR/jobs, removed when the study is written; otherwise a temporary
    /// one]
    #[arg(long, value_name = "DIR")]
    pub plan: Option<PathBuf>,

    /// Arguments passed to sbatch as they are, e.g. "--partition=short
    /// --time=30 --mem=2G".
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub slurm_args: Option<String>,

    /// Most Slurm array tasks running at once (`--array=...%M`).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..))]
    pub slurm_parallel: Option<u32>,

    /// Times the Slurm executor submits again the jobs left without a
    /// result (a task failed, was cancelled or lost).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub retries: u32,
}

/// The arguments of `routergen job`.
#[derive(Debug, Args)]
pub struct JobArgs {
    /// The job file (a plan's jobs/<i>.json).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Then run the plan's other jobs without a result too, each claimed
    /// first by creating DIR/<index> (a job claimed by another process is
    /// left to it): a Slurm array task keeps its processor busy.
    #[arg(long, value_name = "DIR")]
    pub claims: Option<PathBuf>,
}

/// The arguments of `routergen bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Engines to measure, comma-separated.
    #[arg(
        long,
        value_parser = named::<EngineKind>(),
        value_delimiter = ',',
        default_value = "netlist,verilator,rust"
    )]
    pub engine: Vec<EngineKind>,

    /// Offered load, a fraction of the bisection-limited rate [default:
    /// 0.225, half the saturation load `routergen sim --radix 8 --sweep`
    /// finds for dimension order].
    #[arg(long, default_value_t = 0.225)]
    pub load: f64,

    /// Measured cycles per engine (the Rust engine runs a tenth of them).
    #[arg(long, value_name = "CYCLES", default_value_t = 20_000)]
    pub cycles: u64,

    /// Mesh radix k (k x k mesh).
    #[arg(long, value_name = "K", default_value_t = 8)]
    pub radix: u32,

    /// Threads each engine evaluates the routers of a cycle on.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

/// The arguments of `routergen fpga`.
#[derive(Debug, Args)]
pub struct FpgaArgs {
    /// Board: icebreaker, hx8k-breakout, ulx3s or orangecrab.
    #[arg(long, value_name = "BOARD")]
    pub board: String,

    /// The router specification.
    #[command(flatten)]
    pub spec: SpecArgs,

    /// Output directory for the design (and with --build the bitstream).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,

    /// Also run Yosys, nextpnr and icepack or ecppack: DIR/build/.
    #[arg(long)]
    pub build: bool,
}

/// The arguments of `routergen network`.
#[derive(Debug, Args)]
pub struct NetworkArgs {
    /// The router specification (its topology, radix and dimensions are
    /// the network's).
    #[command(flatten)]
    pub spec: SpecArgs,

    /// Register stages on each link, each way (for long wires on an
    /// FPGA): each adds a cycle to a hop and two to the credit round trip.
    #[arg(
        long = "link-stages",
        id = "link_stages",
        value_name = "N",
        default_value_t = 0
    )]
    pub link_stages: u32,

    /// Each node's endpoint: a network interface with AXI4-Stream ports
    /// (injection and ejection), or the router's local port itself.
    #[arg(long, value_parser = named::<Endpoints>(), default_value = "axi-stream")]
    pub endpoints: Endpoints,

    /// Output directory: DIR/rtl/network_<name>.v and the files that check
    /// it (a cocotb testbench, Yosys scripts, a Makefile; docs/network.md).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
}

/// The arguments of `routergen block`.
#[derive(Debug, Args)]
pub struct BlockArgs {
    /// Block name: crossbar, flow-control-unit, routing-arbiter,
    /// header-selector, vc-controller, address-decoder,
    /// economical-storage-table, lookahead-mux (those implemented are listed
    /// by an unknown name).
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Ports P [default: 5].
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub ports: Option<i64>,

    /// Virtual channels V [default: 2].
    #[arg(long, value_name = "V", allow_negative_numbers = true)]
    pub vcs: Option<i64>,

    /// Routing freedom F, candidate outputs per input [default: 2].
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub freedom: Option<i64>,

    /// Flit width W in bits (the widths from
    /// [`crate::limits::BLOCK_FLIT_WIDTHS`]).
    #[arg(
        help = format!("Flit width W in bits: {} [default: 16]", one_of(&BLOCK_FLIT_WIDTHS)),
        long,
        value_name = "W",
        allow_negative_numbers = true
    )]
    pub flit_width: Option<i64>,

    /// Dimensions n [default: 2].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub dims: Option<i64>,

    /// Buffer depth D in flits [default: 4].
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub depth: Option<i64>,

    /// Path-selection heuristic of the routing arbiter: static-xy, lru, lfu,
    /// max-credit or min-mux [default: static-xy].
    #[arg(long, value_name = "NAME")]
    pub path_selection: Option<PathSelection>,

    /// Header addressing of the address decoder: relative or absolute
    /// [default: relative].
    #[arg(long, value_name = "MODE")]
    pub addressing: Option<Addressing>,

    /// Flow control of the flow-control unit: credit or on-off [default: credit].
    #[arg(long, value_name = "KIND")]
    pub flow_control: Option<FlowControl>,

    /// Where the flow-control unit keeps its flits: flops or bram
    /// [default: flops].
    #[arg(long, value_name = "KIND")]
    pub buffers: Option<BufferStorage>,

    /// Output directory for NAME.v (created if missing); its top module is
    /// named after the block and its parameters, e.g. crossbar_p5_w16.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Synthesize with Yosys to two-input gates and print the count beside
    /// Chien's Figure 4.
    #[arg(long)]
    pub measure: bool,

    /// Measure over a range of P (crossbar), F (arbiter, header selector)
    /// or V (VC controller) and print the growth exponent.
    #[arg(long)]
    pub sweep: bool,

    /// Prove the block's properties with SymbiYosys (docs/prove.md); with
    /// -o DIR the proof's files and logs go to DIR/prove.
    #[arg(long)]
    pub prove: bool,

    /// Technology constants for Chien's formula [default: Chien 0.8um].
    #[arg(long, value_name = "FILE")]
    pub tech: Option<PathBuf>,
}

/// The router specification as flags; each overrides the same key of
/// --config. The flags are built from the library's declaration of the
/// options ([`crate::spec::OPTIONS`]): one per option, named after its key
/// ([`spec_flag`]), with its help and its words.
#[derive(Debug, Clone, Default)]
pub struct SpecArgs {
    /// Router specification in TOML (see generators/ for presets).
    pub config: Option<PathBuf>,
    /// The options the flags set, to lay over the --config file.
    pub input: SpecInput,
}

/// The options whose flag is not their key written with `-`: the key, the
/// flag, and the key's own spelling, kept as a visible alias.
const RENAMED_FLAGS: &[(&str, &str, &str)] = &[
    ("algorithm", "algo", "algorithm"),
    ("buffer_depth", "depth", "buffer-depth"),
];

/// The long flag (without `--`) of the specification option `key`, and
/// its alias.
pub fn spec_flag(key: &str) -> (&'static str, Option<&'static str>) {
    static FLAGS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    if let Some(&(_, flag, alias)) = RENAMED_FLAGS.iter().find(|r| r.0 == key) {
        return (flag, Some(alias));
    }
    let flags = FLAGS.get_or_init(|| {
        OPTIONS
            .iter()
            .map(|o| (o.key, o.key.replace('_', "-")))
            .collect()
    });
    let flag = flags
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, f)| f.as_str());
    (flag, None)
}

/// What the help says of an option: what it is, what is allowed, its
/// default.
fn option_help(o: &SpecOption) -> String {
    let doc = o.summary();
    match o.kind {
        ValueKind::Switch => format!(
            "{doc}: on or off [default: {}; the bare flag means on]",
            on_off(&(o.default)())
        ),
        _ => format!("{doc}: {} [default: {}]", (o.allowed)(), (o.default)()),
    }
}

/// A switch's value as the command line writes it.
fn on_off(value: &str) -> &'static str {
    if value == "true" {
        "on"
    } else {
        "off"
    }
}

/// The flag of one specification option.
fn option_arg(o: &'static SpecOption) -> Arg {
    let (long, alias) = spec_flag(o.key);
    let arg = Arg::new(o.key)
        .long(long)
        .value_name(o.symbol)
        .help(option_help(o))
        .value_parser(OptionParser(o));
    let arg = match alias {
        Some(a) => arg.visible_alias(a),
        None => arg,
    };
    match o.kind {
        ValueKind::Integer => arg.allow_negative_numbers(true),
        ValueKind::Switch => arg
            .num_args(0..=1)
            .default_missing_value("on")
            .hide_possible_values(true),
        // The help lists the words with their aliases already.
        ValueKind::Words(_) => arg.hide_possible_values(true),
    }
}

impl Args for SpecArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            Arg::new("config")
                .long("config")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Router specification in TOML (see generators/ for presets)"),
        )
        .args(OPTIONS.iter().map(option_arg))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SpecArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut args = SpecArgs::default();
        args.update_from_arg_matches(matches)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        if let Some(path) = matches.get_one::<PathBuf>("config") {
            self.config = Some(path.clone());
        }
        for o in OPTIONS {
            if let Some(word) = matches.get_one::<String>(o.key) {
                self.input
                    .set(o.key, word)
                    .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e))?;
            }
        }
        Ok(())
    }
}

/// Reads a specification option's word with the library's reader (the
/// word a TOML spec takes too), and offers its words to the shell
/// completions.
#[derive(Clone)]
struct OptionParser(&'static SpecOption);

impl TypedValueParser for OptionParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        let check = self.0.check_word;
        StringValueParser::new()
            .try_map(move |s| check(&s).map(|()| s))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        match self.0.kind {
            ValueKind::Integer => None,
            ValueKind::Switch => Some(Box::new(["on", "off"].into_iter().map(PossibleValue::new))),
            ValueKind::Words(words) => {
                Some(Box::new(words().into_iter().map(|(name, aliases)| {
                    PossibleValue::new(name).aliases(aliases.iter().copied())
                })))
            }
        }
    }
}

/// The specification options as the table of docs/generate.md: each
/// flag with its TOML key, what it is and allows, and its default.
pub fn spec_options_markdown() -> String {
    let mut s = String::from("| option | TOML key | allowed | default |\n|---|---|---|---|\n");
    for o in OPTIONS {
        let (long, alias) = spec_flag(o.key);
        let flag = match o.kind {
            ValueKind::Switch => format!("`--{long} [{}]`", o.symbol),
            _ => format!("`--{long} {}`", o.symbol),
        };
        let flag = match alias {
            Some(a) => format!("{flag} (alias `--{a}`)"),
            None => flag,
        };
        let doc = o.summary();
        let allowed = match o.kind {
            ValueKind::Switch => "`on`, `off` (TOML: `true`, `false`)".to_string(),
            ValueKind::Words(words) => words()
                .into_iter()
                .map(|(name, aliases)| match aliases {
                    [] => format!("`{name}`"),
                    _ => format!("`{name}` (alias `{}`)", aliases.join("`, `")),
                })
                .collect::<Vec<_>>()
                .join(", "),
            ValueKind::Integer => (o.allowed)(),
        };
        let default = match o.kind {
            ValueKind::Switch => on_off(&(o.default)()).to_string(),
            _ => (o.default)(),
        };
        s.push_str(&format!(
            "| {} | `{}` | {doc}: {allowed} | {default} |\n",
            flag.replace('|', "\\|"),
            o.key
        ));
    }
    s
}

/// Output format of `routergen model`.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// The report as text.
    Text,
    /// The report as JSON.
    Json,
}

// By hand rather than derived: a derived ValueEnum would turn the variants'
// doc comments into a per-value list in `--help`.
impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[Format::Text, Format::Json]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            Format::Text => "text",
            Format::Json => "json",
        }))
    }
}

/// The arguments of `routergen model`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Routing algorithm (names as for the main command).
    #[arg(
        long = "algo",
        visible_alias = "algorithm",
        value_name = "NAME",
        required_unless_present = "paper_tables"
    )]
    pub algorithm: Option<Algorithm>,

    /// Dimensions n (the range from
    /// [`crate::limits::MAX_COST_MODEL_DIMS`]).
    #[arg(
        help = format!("Dimensions n, 1 to {MAX_COST_MODEL_DIMS}."),
        long,
        value_name = "N",
        allow_negative_numbers = true,
        required_unless_present = "paper_tables"
    )]
    pub dims: Option<i64>,

    /// mesh, torus or hypercube [default: mesh; torus for star-channels].
    #[arg(long, value_name = "NAME")]
    pub topology: Option<Topology>,

    /// Virtual channels per physical channel [default: the V of Chien §5 for
    /// the routers it studies, else the deadlock-freedom minimum].
    #[arg(long, value_name = "V", allow_negative_numbers = true)]
    pub vcs: Option<i64>,

    /// Technology constants (TOML) [default: generators/tech/chien-0.8um.toml].
    #[arg(long, value_name = "FILE")]
    pub tech: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// Print Chien's Figures 9 and 10 as the model computes them beside the printed values.
    #[arg(long, conflicts_with_all = ["algorithm", "dims", "topology", "vcs"])]
    pub paper_tables: bool,
}

/// The arguments of `routergen check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Routing algorithm (names as for the main command).
    #[arg(long = "algo", visible_alias = "algorithm", value_name = "NAME")]
    pub algorithm: Algorithm,

    /// mesh, torus or hypercube [default: mesh].
    #[arg(long, value_name = "NAME")]
    pub topology: Option<Topology>,

    /// Dimensions n [default: 2].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub dims: Option<i64>,

    /// Nodes per dimension k [default: 4; 2 on a hypercube].
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub radix: Option<i64>,

    /// Virtual channels per physical channel [default: the algorithm's
    /// deadlock-freedom minimum]. Fewer than the minimum merges channel
    /// classes, and the checker shows what breaks.
    #[arg(long, value_name = "V", allow_negative_numbers = true)]
    pub vcs: Option<i64>,

    /// Also print the economical-storage, full and meta tables of the router
    /// at these coordinates, e.g. 1,1.
    #[arg(long, value_name = "COORDS")]
    pub node: Option<String>,

    /// Exploration: drop the dateline virtual channels of torus rings, to see
    /// the cycle they break (torus only).
    #[arg(long)]
    pub no_dateline: bool,

    /// Exploration: drop the escape sub-function of duato or star-channels
    /// (every VC adaptive), to see the cycle it breaks.
    #[arg(long)]
    pub no_escape: bool,
}

/// Parses a named enum with the library's own name table, the words a
/// TOML spec takes too, and offers its names to `--help` and the shell
/// completions; a bad word gets the table's message (what is allowed).
#[derive(Clone)]
pub struct NamedParser<T>(PhantomData<T>);

/// The value parser of the named enum `T`.
pub fn named<T: Named>() -> NamedParser<T> {
    NamedParser(PhantomData)
}

impl<T: Named + Send + Sync> TypedValueParser for NamedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        StringValueParser::new()
            .try_map(|s| T::parse_name(&s))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(T::TABLE.iter().map(|&(_, name, aliases)| {
            PossibleValue::new(name).aliases(aliases.iter().copied())
        })))
    }
}

/// The paper whose model `routergen analyze` evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnalyzePaper {
    /// Dally (1990): k-ary n-cubes under constant bisection.
    Dally,
    /// Quaglia, Ciciani, Colajanni (2002): adaptive wormhole in a k x k torus.
    Quaglia,
}

/// The arguments of `routergen analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// dally or quaglia.
    #[arg(value_enum)]
    pub paper: AnalyzePaper,

    /// Evaluate one network instead of the paper's tables: nodes per
    /// dimension k (dally: 2 to 4096; quaglia: the k x k torus, a multiple of 4).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub radix: Option<i64>,

    /// Dimensions n of the network of --radix (dally only) [default: 2].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub dims: Option<i64>,

    /// Message length of the network of --radix, in bits for dally [default: 200], flits for
    /// quaglia [default: 12].
    #[arg(long, value_name = "L", allow_negative_numbers = true)]
    pub length: Option<f64>,

    /// Loads for --radix, comma-separated: bits/cycle/node for dally,
    /// messages/cycle/node for quaglia [default: the paper's table loads].
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub loads: Vec<f64>,

    /// Write the paper's figures as SVG into DIR (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The study `routergen study` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StudyName {
    /// Dally's networks under constant bisection, dimension-order routers.
    Dally,
    /// Quaglia et al.'s tori, Duato's fully adaptive routers.
    Quaglia,
    /// LAPSES's 16x16 mesh: look-ahead, adaptivity, path selection, tables.
    Lapses,
    /// Chien's algorithms in ns, with each router's modelled and measured
    /// cycle time.
    Chien,
}

/// The arguments of `routergen study`.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// dally, quaglia, lapses or chien.
    #[arg(value_enum)]
    pub study: StudyName,

    /// Directory for README.md, the plots, points.csv and config.json
    /// (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,

    /// A tiny network and few cycles (seconds), as the test suite runs it.
    #[arg(long)]
    pub quick: bool,

    /// Redraw the page from a study's points.csv (and the config.json
    /// beside it, which gives the scale, seeds and engine) without
    /// simulating: no jobs, so no executor flags either.
    #[arg(long, value_name = "POINTS_CSV",
          conflicts_with_all = ["quick", "seeds", "engine", "no_synth", "executor", "jobs",
                                "plan", "slurm_args", "slurm_parallel"])]
    pub from: Option<PathBuf>,

    /// chien: take the FPGA Fmax from the reports cached in DIR/fmax only;
    /// a router without one gets no FPGA column (never synthesizes).
    #[arg(long)]
    pub no_synth: bool,

    /// Simulation engine: rust, verilator or netlist [default: the
    /// fastest installed, as `routergen sim`].
    #[arg(long, value_parser = named::<EngineKind>())]
    pub engine: Option<EngineKind>,

    /// Replications of each simulated point: seeds 1 to N, each point's
    /// latency the mean with its 95% confidence interval (Student's t)
    /// [default: 5; 2 with --quick].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::limits::MAX_SEEDS)))]
    pub seeds: Option<u32>,

    /// Where the study's jobs run.
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::{Cli, Command};
    use crate::sim::EngineKind;
    use crate::spec::names::Named;
    use crate::synth::Target;

    /// `--help` and the completions offer exactly the library's names.
    #[test]
    fn named_flags_offer_the_library_names() {
        let cli = Cli::command();
        let synth = cli.find_subcommand("synth").expect("synth");
        let target = synth
            .get_arguments()
            .find(|a| a.get_id() == "target")
            .expect("--target");
        let offered: Vec<String> = target
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect();
        let names: Vec<String> = Target::all().iter().map(|t| t.to_string()).collect();
        assert_eq!(offered, names);
    }

    /// A named flag parses through the library's table, and a bad word is
    /// a usage error naming the flag and every allowed word.
    #[test]
    fn named_flags_parse_with_the_library_table() {
        let cli = Cli::try_parse_from(["routergen", "bench", "--engine", "rust,netlist"])
            .expect("parses");
        match cli.command {
            Some(Command::Bench(b)) => {
                assert_eq!(b.engine, [EngineKind::Rust, EngineKind::Netlist])
            }
            other => panic!("not bench: {other:?}"),
        }
        let e = Cli::try_parse_from(["routergen", "sim", "--engine", "spice"])
            .expect_err("refused")
            .to_string();
        assert!(e.contains("--engine") && e.contains("'spice'"), "{e}");
        assert!(e.contains(&EngineKind::allowed()), "{e}");
    }

    /// The first `LO to HI` that `text` states, as numbers.
    fn stated_range(text: &str) -> Option<(i64, i64)> {
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '(')
            .collect();
        words.windows(3).find_map(|w| match w {
            [lo, "to", hi] => Some((lo.parse().ok()?, hi.parse().ok()?)),
            _ => None,
        })
    }

    /// Every specification flag whose help states a range states the one
    /// validation enforces: both ends accepted, one beyond either refused
    /// (over a 2-ary 1-D network, where the limit on nodes binds last).
    #[test]
    fn the_ranges_in_the_help_are_the_ones_validation_enforces() {
        let cli = Cli::command();
        let mut checked = Vec::new();
        for arg in cli.get_arguments() {
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            let Some((lo, hi)) = stated_range(&help) else {
                continue;
            };
            let key = arg.get_id().as_str();
            let flag = arg.get_long().unwrap_or(key);
            let resolve = |v: i64| {
                let mut input = crate::spec::SpecInput {
                    dims: Some(1),
                    radix: Some(2),
                    ..Default::default()
                };
                input.set(key, &v.to_string()).expect("a number");
                input.resolve()
            };
            for v in [lo, hi] {
                if let Err(e) = resolve(v) {
                    panic!("--{flag}: help says {lo} to {hi}, {v} is refused: {e}");
                }
            }
            for v in [lo - 1, hi + 1] {
                assert!(
                    resolve(v).is_err(),
                    "--{flag}: help says {lo} to {hi}, {v} is accepted"
                );
            }
            checked.push(key.to_string());
        }
        assert_eq!(checked, ["dims", "radix", "buffer_depth"]);
    }
}
