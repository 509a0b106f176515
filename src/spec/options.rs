//! Every option of a router specification, declared once.
//!
//! One row of the table at the end of this file gives an option's TOML
//! key, its type as given and as resolved, what it is, the symbol its
//! value goes by, what is allowed, its default, its check, and its part
//! of the module name. Everything else is derived from the rows:
//! [`SpecInput`] (every option optional; read from TOML, set by key from
//! the command line with [`SpecInput::set`]), [`RouterSpec`] (every
//! option resolved), [`SpecInput::overlay`], [`SpecInput::resolve`] (each
//! option's default and check, asked for in the order the rows are
//! written), [`RouterSpec::name`], [`RouterSpec::describe`], and
//! [`OPTIONS`], from which the command line builds its flags and their
//! help and docs/generate.md its table of options. Adding an option is
//! adding a row, and a check function in `checks.rs` where other options
//! constrain it.

use std::fmt;

use super::checks;
use super::{
    Addressing, Algorithm, BufferStorage, FlowControl, MetaClusters, PathSelection, RouterDatapath,
    TableStorage, Topology, DEFAULT_PIPELINE,
};
use crate::error::{Error, Result};
use crate::limits::{
    MAX_BUFFER_DEPTH, MAX_DIMS, MAX_HYPERCUBE_DIMS, MAX_NODES, MAX_RADIX, MAX_VCS,
    ROUTER_FLIT_WIDTHS,
};

/// What kind of word an option's value is written as.
#[derive(Debug, Clone, Copy)]
pub enum ValueKind {
    /// A whole number.
    Integer,
    /// True or false.
    Switch,
    /// One of some names; the function lists each with its aliases.
    Words(fn() -> Vec<(&'static str, &'static [&'static str])>),
}

/// A type an option's value has as given: how a word is read as one, and
/// what is allowed when the option's row does not say.
pub trait OptionValue: Copy + fmt::Display + Sized {
    /// The kind of word.
    const KIND: ValueKind;
    /// Reads `word`; the error names it and what is allowed.
    fn parse_word(word: &str) -> std::result::Result<Self, String>;
    /// The values allowed, in words.
    fn allowed() -> String;
}

impl OptionValue for i64 {
    const KIND: ValueKind = ValueKind::Integer;
    fn parse_word(word: &str) -> std::result::Result<Self, String> {
        word.trim()
            .parse()
            .map_err(|_| format!("expected a whole number, got '{word}'"))
    }
    fn allowed() -> String {
        "a whole number".into()
    }
}

impl OptionValue for bool {
    const KIND: ValueKind = ValueKind::Switch;
    fn parse_word(word: &str) -> std::result::Result<Self, String> {
        match word.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "1" => Ok(true),
            "off" | "false" | "no" | "0" => Ok(false),
            _ => Err(format!("expected on or off, got '{word}'")),
        }
    }
    fn allowed() -> String {
        "true or false".into()
    }
}

/// One option as the command line and the documentation see it.
#[derive(Debug, Clone, Copy)]
pub struct SpecOption {
    /// The TOML key, also the field of [`SpecInput`] and [`RouterSpec`].
    pub key: &'static str,
    /// What the option is: a sentence ([`SpecOption::summary`]), then
    /// perhaps more for the reader of the code.
    pub doc: &'static str,
    /// What its value is called in a usage line (`N`, `K`, `KIND`).
    pub symbol: &'static str,
    /// The kind of word its value is.
    pub kind: ValueKind,
    /// The values allowed, in words.
    pub allowed: fn() -> String,
    /// Its default, in words.
    pub default: fn() -> String,
    /// Reads a word as its value; the error names the word and what is
    /// allowed.
    pub check_word: fn(&str) -> std::result::Result<(), String>,
}

impl SpecOption {
    /// The first paragraph of the option's documentation on one line,
    /// without its final stop: what help and tables say it is.
    pub fn summary(&self) -> String {
        let first = self.doc.split("\n\n").next().unwrap_or_default();
        let words: Vec<&str> = first.split_whitespace().collect();
        words.join(" ").trim_end_matches('.').to_string()
    }
}

/// The rows, as [`spec_options!`] turns them into the types and functions
/// of the module documentation. A row:
///
/// ```text
/// /// What it is.
/// key: GivenType => ResolvedType {
///     symbol: "N",
///     allowed: <text; the given type's own list if left out>,
///     default: <a value>,                 or
///     default(r): <from other options, asked of r>, shown: "<text>",
///     check(r, v): <the resolved value of v, or why not>,   (optional)
///     show(s): <its value in the printed spec>,             (optional)
///     name(s, place): <its part of the module name>,        (optional)
/// }
/// ```
///
/// `r` is the [`Resolver`], whose method of each key resolves that option
/// (so a default or a check asks for the options it depends on); `s` is
/// the [`RouterSpec`]. Module-name parts are joined in the order of their
/// places, which keeps the names existing designs use.
macro_rules! spec_options {
    ($(
        $(#[doc = $doc:literal])*
        $key:ident: $in:ty => $out:ty {
            symbol: $symbol:literal,
            $(allowed: $allowed:expr,)?
            $(default: $default:expr,)?
            $(default($dr:ident): $dep_default:expr, shown: $shown:literal,)?
            $(check($cr:ident, $cv:ident): $check:expr,)?
            $(show($sr:ident): $show:expr,)?
            $(name($nr:ident, $place:literal): $name:expr,)?
        }
    )+) => {
        /// A specification as given: every option optional. Read from
        /// TOML, whose keys are the field names, and set from the command
        /// line ([`SpecInput::set`]); [`SpecInput::overlay`] lets the
        /// flags win over a file.
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct SpecInput {
            $($(#[doc = $doc])* pub $key: Option<$in>,)+
        }

        /// A resolved, validated specification: every option set, and the
        /// checks of [`SpecInput::resolve`] hold.
        #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
        pub struct RouterSpec {
            $($(#[doc = $doc])* pub $key: $out,)+
        }

        /// Every option, in the order of the TOML file and the printed
        /// spec.
        pub const OPTIONS: &[SpecOption] = &[$(
            SpecOption {
                key: stringify!($key),
                doc: concat!($($doc, "\n"),*),
                symbol: $symbol,
                kind: <$in as OptionValue>::KIND,
                allowed: spec_options!(@allowed $in $(, $allowed)?),
                default: spec_options!(@shown $in $(, $default)? $(; $shown)?),
                check_word: {
                    fn check(word: &str) -> std::result::Result<(), String> {
                        <$in as OptionValue>::parse_word(word).map(|_| ())
                    }
                    check
                },
            },
        )+];

        impl SpecInput {
            /// `self` with every option that `over` sets replaced by
            /// `over`'s value.
            pub fn overlay(self, over: SpecInput) -> SpecInput {
                SpecInput { $($key: over.$key.or(self.$key),)+ }
            }

            /// Sets the option `key` from a word, as a flag gives it; the
            /// error names the word and what is allowed.
            pub fn set(&mut self, key: &str, word: &str) -> std::result::Result<(), String> {
                $(if key == stringify!($key) {
                    self.$key = Some(<$in as OptionValue>::parse_word(word)?);
                    return Ok(());
                })+
                Err(format!("no option is called {key}"))
            }

            /// Fills in defaults and validates, each option in the order
            /// of the rows, each asking for the options its default and
            /// check depend on; then the head flit is checked against the
            /// flit width. The first problem found is reported.
            pub fn resolve(&self) -> Result<Resolved> {
                let mut r = Resolver::new(self);
                let spec = RouterSpec { $($key: r.$key()?,)+ };
                checks::head_flit(&spec)?;
                Ok(Resolved { spec, defaulted: r.defaulted })
            }
        }

        /// Options resolved so far.
        #[derive(Default)]
        struct Done {
            $($key: Option<$out>,)+
        }

        /// Resolves each option once, on demand: its value as given or its
        /// default, then its check.
        struct Resolver<'a> {
            input: &'a SpecInput,
            done: Done,
            /// Options that took their default.
            defaulted: Vec<&'static str>,
            /// Options being resolved, to refuse a default or check that
            /// depends on itself.
            busy: Vec<&'static str>,
        }

        impl<'a> Resolver<'a> {
            fn new(input: &'a SpecInput) -> Self {
                Resolver { input, done: Done::default(), defaulted: Vec::new(), busy: Vec::new() }
            }

            fn enter(&mut self, key: &'static str) -> Result<()> {
                if self.busy.contains(&key) {
                    return Err(Error::Internal(format!(
                        "the spec options {} depend on each other in a circle",
                        self.busy.join(", ")
                    )));
                }
                self.busy.push(key);
                Ok(())
            }

            $(
                fn $key(&mut self) -> Result<$out> {
                    if let Some(v) = self.done.$key {
                        return Ok(v);
                    }
                    self.enter(stringify!($key))?;
                    let given = self.input.$key;
                    let value: $in = match given {
                        Some(v) => v,
                        None => {
                            self.defaulted.push(stringify!($key));
                            $($default)?
                            $({
                                let $dr: &mut Self = self;
                                $dep_default
                            })?
                        }
                    };
                    let out: $out = spec_options!(@check self, value $(, $cr, $cv, $check)?);
                    self.busy.pop();
                    self.done.$key = Some(out);
                    Ok(out)
                }
            )+
        }

        impl RouterSpec {
            /// Each option's key and value as the printed spec shows it.
            pub fn values(&self) -> Vec<(&'static str, String)> {
                vec![$((stringify!($key), spec_options!(@show self, $key $(, $sr, $show)?)),)+]
            }

            /// A name for this configuration, usable as a Verilog module
            /// name (docs/interface.md, "Module and clocking"). Every
            /// setting that changes the RTL changes the name, so two
            /// variants can sit in one design:
            /// `router_<algorithm>_<topology><n>d_k<k>_v<V>_w<W>_d<D>`, then
            /// `_abs` (absolute addressing without a table), `_la`
            /// (look-ahead), the path-selection heuristic where it is not
            /// the algorithm's default (`_lru`, `_lfu`, `_maxcredit`,
            /// `_minmux`, `_staticxy`), the table (`_es`, `_full`, `_meta`,
            /// `_meta_sq` with square clusters), `_onoff`, `_bram` or
            /// `_lutram`, the datapath (`_sliced`, `_vcports`) and `_p1`.
            pub fn name(&self) -> String {
                let mut parts: Vec<(u32, String)> = Vec::new();
                $($({
                    let $nr = self;
                    parts.push(($place, ($name).to_string()));
                })?)+
                parts.sort_by_key(|(place, _)| *place);
                parts.into_iter().fold("router".to_string(), |name, (_, part)| name + &part)
            }
        }
    };

    (@allowed $in:ty) => {{
        fn allowed() -> String {
            <$in as OptionValue>::allowed()
        }
        allowed
    }};
    (@allowed $in:ty, $allowed:expr) => {{
        fn allowed() -> String {
            ($allowed).to_string()
        }
        allowed
    }};
    (@shown $in:ty, $default:expr) => {{
        fn shown() -> String {
            let value: $in = $default;
            value.to_string()
        }
        shown
    }};
    (@shown $in:ty; $shown:literal) => {{
        fn shown() -> String {
            $shown.to_string()
        }
        shown
    }};
    (@check $r:ident, $value:ident) => {
        $value
    };
    (@check $r:ident, $value:ident, $cr:ident, $cv:ident, $check:expr) => {{
        let $cr: &mut Self = $r;
        let $cv = $value;
        $check?
    }};
    (@show $s:ident, $key:ident) => {
        $s.$key.to_string()
    };
    (@show $s:ident, $key:ident, $sr:ident, $show:expr) => {{
        let $sr = $s;
        $show
    }};
}

/// A resolved spec together with the options that took their default.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The resolved specification.
    pub spec: RouterSpec,
    /// Keys of the options that took their default (`flit_width`, ...).
    pub defaulted: Vec<&'static str>,
}

spec_options! {
    /// Network topology.
    topology: Topology => Topology {
        symbol: "NAME",
        default: Topology::Mesh,
        name(s, 1): match s.topology {
            Topology::Mesh => "_mesh",
            Topology::Torus => "_torus",
            Topology::Hypercube => "_hypercube",
            Topology::UniTorus => "_unitorus",
        },
    }
    /// Dimensions n.
    ///
    /// Signed as given, so that a negative value gets a range message.
    dims: i64 => u32 {
        symbol: "N",
        allowed: format!("1 to {MAX_DIMS} (hypercube: 1 to {MAX_HYPERCUBE_DIMS})"),
        default: 2,
        check(r, n): checks::dims(n, r.topology()?),
        name(s, 2): format!("{}d", s.dims),
    }
    /// Nodes per dimension k.
    ///
    /// 2 on a hypercube.
    radix: i64 => u32 {
        symbol: "K",
        allowed: format!(
            "mesh 2 to {MAX_RADIX}, torus 3 to {MAX_RADIX}, unidirectional-torus 2 to \
             {MAX_RADIX}, hypercube 2; at most {MAX_NODES} nodes"
        ),
        default(r): if r.topology()? == Topology::Hypercube { 2 } else { 4 },
        shown: "4; 2 on a hypercube",
        check(r, k): checks::radix(k, r.topology()?, r.dims()?),
        name(s, 3): if s.topology == Topology::Hypercube {
            String::new()
        } else {
            format!("_k{}", s.radix)
        },
    }
    /// Routing algorithm.
    algorithm: Algorithm => Algorithm {
        symbol: "NAME",
        default: Algorithm::DimensionOrder,
        check(r, a): checks::algorithm(a, r.topology()?, r.dims()?),
        name(s, 0): format!("_{}", s.algorithm.to_string().replace('-', "_")),
    }
    /// Crossbar ports P.
    ///
    /// Per crossbar or slice: given, it must match the algorithm's
    /// organization (Chien §5).
    ports: i64 => u32 {
        symbol: "P",
        allowed: "the crossbar size of the algorithm's datapath (docs/algorithms.md)",
        default(r): i64::from(r.algorithm()?.organization(r.topology()?, r.dims()?).ports),
        shown: "derived",
        check(r, p): checks::ports(p, r.algorithm()?, r.topology()?, r.dims()?),
        show(s): format!(
            "{p} [Chien's crossbar size P: {} of {p}x{p}; the router has {} physical ports]",
            checks::crossbar_count(s.organization()),
            s.physical_ports(),
            p = s.ports
        ),
    }
    /// Virtual channels per physical channel.
    vcs: i64 => u32 {
        symbol: "V",
        allowed: format!("the algorithm's minimum to {MAX_VCS}"),
        default(r): i64::from(r.algorithm()?.min_vcs(r.topology()?, r.dims()?)),
        shown: "the deadlock-freedom minimum",
        check(r, v): checks::vcs(v, r.algorithm()?, r.topology()?, r.dims()?),
        name(s, 4): format!("_v{}", s.vcs),
    }
    /// Flit width W in bits.
    flit_width: i64 => u32 {
        symbol: "W",
        allowed: format!(
            "{}, at least the head flit's routing field",
            super::names::one_of(&ROUTER_FLIT_WIDTHS)
        ),
        default: 16,
        check(_r, w): checks::flit_width(w),
        name(s, 5): format!("_w{}", s.flit_width),
    }
    /// Flit buffers per virtual channel.
    buffer_depth: i64 => u32 {
        symbol: "D",
        allowed: format!("1 to {MAX_BUFFER_DEPTH}"),
        default: 4,
        check(_r, d): checks::buffer_depth(d),
        name(s, 6): format!("_d{}", s.buffer_depth),
    }
    /// How the head flit names its destination.
    addressing: Addressing => Addressing {
        symbol: "MODE",
        default(r): if r.table()? == TableStorage::None {
            Addressing::Relative
        } else {
            Addressing::Absolute
        },
        shown: "relative; absolute with a routing table",
        check(r, a): checks::addressing(a, r.table()?),
        name(s, 7): if s.addressing == Addressing::Absolute && s.table == TableStorage::None {
            "_abs"
        } else {
            ""
        },
    }
    /// Look-ahead routing, head flits carrying the next router's output ports (LAPSES §3).
    lookahead: bool => bool {
        symbol: "on|off",
        default: false,
        name(s, 8): if s.lookahead { "_la" } else { "" },
    }
    /// Path-selection heuristic among free candidates (LAPSES §4.1).
    path_selection: PathSelection => PathSelection {
        symbol: "NAME",
        default(r): checks::default_path_selection(r.algorithm()?),
        shown: "static-xy for dor, max-credit otherwise",
        check(r, ps): checks::path_selection(ps, r.algorithm()?),
        name(s, 9): if s.path_selection == checks::default_path_selection(s.algorithm) {
            String::new()
        } else {
            format!("_{}", s.path_selection.to_string().replace('-', ""))
        },
    }
    /// Routing-table storage, where the routing decision comes from (LAPSES §5).
    table: TableStorage => TableStorage {
        symbol: "KIND",
        default: TableStorage::None,
        check(r, t): checks::table(t, r.topology()?, r.dims()?, r.radix()?),
        name(s, 10): match s.table {
            TableStorage::None => "",
            TableStorage::Economical => "_es",
            TableStorage::Full => "_full",
            TableStorage::Meta => "_meta",
        },
    }
    /// How a meta table groups the nodes into clusters (LAPSES Figure 8).
    ///
    /// Rows unless the table is a meta table.
    meta_clusters: MetaClusters => MetaClusters {
        symbol: "KIND",
        default: MetaClusters::Rows,
        check(r, m): checks::meta_clusters(m, r.table()?, r.dims()?, r.radix()?),
        name(s, 11): if s.meta_clusters == MetaClusters::Squares { "_sq" } else { "" },
    }
    /// Link-level flow control.
    flow_control: FlowControl => FlowControl {
        symbol: "KIND",
        default: FlowControl::Credit,
        check(r, f): checks::flow_control(f, r.buffer_depth()?, r.algorithm()?),
        name(s, 12): if s.flow_control == FlowControl::OnOff { "_onoff" } else { "" },
    }
    /// Datapath organization (Chien §5).
    datapath: RouterDatapath => RouterDatapath {
        symbol: "KIND",
        default: RouterDatapath::Unified,
        check(r, d): checks::datapath(d, r.algorithm()?, r.lookahead()?, r.table()?),
        name(s, 14): match s.datapath {
            RouterDatapath::Unified => "",
            RouterDatapath::Sliced => "_sliced",
            RouterDatapath::VcPorts => "_vcports",
        },
    }
    /// Where the input buffers keep their flits.
    buffers: BufferStorage => BufferStorage {
        symbol: "KIND",
        default: BufferStorage::Flops,
        name(s, 13): s.buffers.suffix(),
    }
    /// Cycles a head flit takes through an idle router.
    ///
    /// 2, or 1: routed from its look-ahead field in the cycle it arrives
    /// (LAPSES §3.2).
    pipeline: i64 => u32 {
        symbol: "N",
        allowed: "2, or 1 with lookahead = true, table = none and datapath = unified",
        default: i64::from(DEFAULT_PIPELINE),
        check(r, p): checks::pipeline(p, r.lookahead()?, r.table()?, r.datapath()?),
        name(s, 15): if s.pipeline == DEFAULT_PIPELINE {
            String::new()
        } else {
            format!("_p{}", s.pipeline)
        },
    }
}
