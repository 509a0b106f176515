//! Each option's check, as its row in `options.rs` calls it: the value as
//! given (or defaulted) and the resolved options it depends on in, the
//! resolved value or a one-paragraph message out. Messages name each
//! parameter as the TOML file does (`dims = 40`), the bad value, what is
//! allowed and why.

use super::names::one_of;
use super::{
    Adaptivity, Addressing, Algorithm, FlowControl, MetaClusters, Organization, PathSelection,
    RouterDatapath, RouterSpec, TableStorage, Topology, ON_OFF_ROUND_TRIP,
};
use crate::error::{Error, Result};
use crate::limits::{
    max_dims, MAX_BUFFER_DEPTH, MAX_ECONOMICAL_DIMS, MAX_FULL_TABLE_NODES, MAX_META_TABLE_NODES,
    MAX_NODES, MAX_RADIX, MAX_VCS, ROUTER_FLIT_WIDTHS,
};

/// Checks `value` lies in `lo..=hi`; the message names the parameter and
/// the range.
fn in_range(name: &str, value: i64, lo: i64, hi: i64, what: &str) -> Result<u32> {
    if value < lo || value > hi {
        return Err(Error::invalid(format!(
            "{name} = {value} is out of range: {what} must be from {lo} to {hi}"
        )));
    }
    Ok(value as u32)
}

/// Nodes of a `radix`-ary `dims`-dimensional network, saturating.
fn nodes(radix: u32, dims: u32) -> u64 {
    (radix as u64).checked_pow(dims).unwrap_or(u64::MAX)
}

/// Dimensions: 1 to the topology's limit.
pub(super) fn dims(n: i64, topology: Topology) -> Result<u32> {
    in_range(
        "dims",
        n,
        1,
        max_dims(topology) as i64,
        &format!("the dimensions n of a {topology} (docs/limits.md)"),
    )
}

/// Radix: 2 on a hypercube, 3 or more on a torus, and at most
/// [`MAX_NODES`] nodes in all.
pub(super) fn radix(radix: i64, topology: Topology, dims: u32) -> Result<u32> {
    let radix = match topology {
        Topology::Hypercube if radix != 2 => {
            return Err(Error::invalid(format!(
                "radix = {radix} does not fit a hypercube: a hypercube is a binary \
                 n-cube, radix 2 in every dimension; use topology = mesh or torus for \
                 radix {radix}"
            )))
        }
        Topology::Torus if radix == 2 => {
            return Err(Error::invalid(format!(
                "radix = 2 is not allowed for a torus: its wraparound link would join \
                 the same two nodes as the direct link; allowed: 3 to {MAX_RADIX} (a \
                 2-ary torus is a hypercube: use topology = hypercube)"
            )))
        }
        _ => in_range("radix", radix, 2, MAX_RADIX as i64, "nodes per dimension k")?,
    };
    let nodes = nodes(radix, dims);
    if nodes > MAX_NODES {
        return Err(Error::invalid(format!(
            "a {radix}-ary {dims}-dimensional {topology} has {} nodes; routergen \
             accepts networks of at most {MAX_NODES} nodes (docs/limits.md): lower \
             radix = {radix} or dims = {dims}",
            if nodes == u64::MAX {
                "more than 2^64".to_string()
            } else {
                nodes.to_string()
            }
        )));
    }
    Ok(radix)
}

/// The algorithm must be defined on the network.
pub(super) fn algorithm(algorithm: Algorithm, topology: Topology, dims: u32) -> Result<Algorithm> {
    algorithm.supports(topology, dims).map_err(|why| {
        Error::invalid(format!(
            "algorithm = {algorithm} cannot route a {dims}-dimensional {topology}: {why}"
        ))
    })?;
    Ok(algorithm)
}

/// Ports must be the crossbar size of the algorithm's organization.
pub(super) fn ports(p: i64, algorithm: Algorithm, topology: Topology, dims: u32) -> Result<u32> {
    let org = algorithm.organization(topology, dims);
    if p != org.ports as i64 {
        return Err(Error::invalid(format!(
            "ports = {p} does not match {algorithm} on a {dims}-D {topology}: its \
             datapath is {} of {ports}x{ports} ({}); allowed: ports = {ports}, or \
             leave ports unset",
            crossbar_count(org),
            algorithm.routing().organization_reason(),
            ports = org.ports
        )));
    }
    Ok(org.ports)
}

/// Virtual channels: the algorithm's deadlock-freedom minimum to
/// [`MAX_VCS`].
pub(super) fn vcs(vcs: i64, algorithm: Algorithm, topology: Topology, dims: u32) -> Result<u32> {
    let vcs = in_range(
        "vcs",
        vcs,
        1,
        MAX_VCS as i64,
        "virtual channels per physical channel",
    )?;
    let min_vcs = algorithm.min_vcs(topology, dims);
    if vcs < min_vcs {
        return Err(Error::invalid(format!(
            "{} on a {dims}-D {topology} needs at least {min_vcs} virtual channels per \
             physical channel for deadlock freedom; got vcs = {vcs}. {}",
            algorithm.routing().title(),
            algorithm.routing().vc_reason(topology, dims)
        )));
    }
    Ok(vcs)
}

/// Flit width: one of [`ROUTER_FLIT_WIDTHS`] (whether the head flit fits
/// is [`head_flit`]'s question).
pub(super) fn flit_width(w: i64) -> Result<u32> {
    if !ROUTER_FLIT_WIDTHS.iter().any(|&x| x as i64 == w) {
        return Err(Error::invalid(format!(
            "flit_width = {w} is not supported; allowed: {} bits (the generated blocks \
             are built for these widths)",
            one_of(&ROUTER_FLIT_WIDTHS)
        )));
    }
    Ok(w as u32)
}

/// Buffer depth: 1 to [`MAX_BUFFER_DEPTH`].
pub(super) fn buffer_depth(d: i64) -> Result<u32> {
    in_range(
        "buffer_depth",
        d,
        1,
        MAX_BUFFER_DEPTH as i64,
        "flit buffers per virtual channel",
    )
}

/// A routing table is indexed by the destination, which relative offsets
/// do not carry.
pub(super) fn addressing(addressing: Addressing, table: TableStorage) -> Result<Addressing> {
    if table != TableStorage::None && addressing == Addressing::Relative {
        return Err(Error::invalid(format!(
            "table = {table} needs addressing = absolute: routing tables are indexed \
             by the destination (LAPSES §5), which relative offsets do not carry; \
             allowed with relative addressing: table = none"
        )));
    }
    Ok(addressing)
}

/// The economical table on meshes, hypercubes and unidirectional tori
/// (where the sign per dimension gives the dateline class) of at most
/// [`MAX_ECONOMICAL_DIMS`] dimensions; the full and meta tables up to
/// their node limits.
pub(super) fn table(
    table: TableStorage,
    topology: Topology,
    dims: u32,
    radix: u32,
) -> Result<TableStorage> {
    let nodes = nodes(radix, dims);
    match table {
        TableStorage::Economical if topology == Topology::Torus => Err(Error::invalid(
            "table = economical is defined for meshes, hypercubes and unidirectional \
             tori: its index, the sign of (destination - node id) per dimension (LAPSES \
             §5.2.1), does not give the minimal direction around a torus ring; allowed \
             on a torus: table = none, full or meta",
        )),
        TableStorage::Economical if dims > MAX_ECONOMICAL_DIMS => Err(Error::invalid(format!(
            "table = economical holds 3^n entries for at most {MAX_ECONOMICAL_DIMS} \
             dimensions (3^{MAX_ECONOMICAL_DIMS} = 81 entries, docs/limits.md), not \
             dims = {dims}: use table = none"
        ))),
        TableStorage::Full if nodes > MAX_FULL_TABLE_NODES => Err(Error::invalid(format!(
            "table = full needs one entry per node and its reset contents are a ROM \
             of nodes x entries: routergen builds it for networks of at most \
             {MAX_FULL_TABLE_NODES} nodes (docs/limits.md), not {nodes}: use table = \
             economical, meta or none"
        ))),
        TableStorage::Meta if nodes > MAX_META_TABLE_NODES => Err(Error::invalid(format!(
            "table = meta keeps its reset contents in a ROM of nodes x entries: \
             routergen builds it for networks of at most {MAX_META_TABLE_NODES} nodes \
             (docs/limits.md), not {nodes}: use table = economical or none"
        ))),
        _ => Ok(table),
    }
}

/// Figure 8(b)'s square clusters fit a meta table of two or more
/// dimensions with k = b^2, b a power of two (so a coordinate's upper half
/// of bits is its cluster coordinate and its lower half its sub-cluster
/// coordinate).
pub(super) fn meta_clusters(
    clusters: MetaClusters,
    table: TableStorage,
    dims: u32,
    radix: u32,
) -> Result<MetaClusters> {
    if clusters == MetaClusters::Rows {
        return Ok(clusters);
    }
    if table != TableStorage::Meta {
        return Err(Error::invalid(format!(
            "meta_clusters = squares groups the nodes of a meta table (LAPSES Figure 8(b)); \
             table = {table} has no clusters: use table = meta, or leave meta_clusters unset"
        )));
    }
    if dims < 2 {
        return Err(Error::invalid(format!(
            "meta_clusters = squares needs 2 or more dimensions (LAPSES Figure 8(b)), not \
             dims = {dims}: use meta_clusters = rows"
        )));
    }
    let allowed: Vec<u32> = (1..=MAX_RADIX)
        .filter(|&k| {
            let b = (k as f64).sqrt().round() as u32;
            b > 1 && b * b == k && b.is_power_of_two()
        })
        .collect();
    if !allowed.contains(&radix) {
        return Err(Error::invalid(format!(
            "meta_clusters = squares needs k = b^2 with b a power of two (clusters of b^n \
             nodes, LAPSES Figure 8(b)), not radix = {radix}: allowed radix = {} or \
             meta_clusters = rows",
            one_of(&allowed)
        )));
    }
    Ok(clusters)
}

/// The path-selection heuristic an algorithm gets by default: STATIC-XY
/// where there is nothing to choose (deterministic routing), MAX-CREDIT
/// otherwise (LAPSES §1: with LRU the better choice, for its low cost).
pub(super) fn default_path_selection(algorithm: Algorithm) -> PathSelection {
    if algorithm.adaptivity() == Adaptivity::Deterministic {
        PathSelection::StaticXy
    } else {
        PathSelection::MaxCredit
    }
}

/// A deterministic algorithm leaves nothing to choose from.
pub(super) fn path_selection(ps: PathSelection, algorithm: Algorithm) -> Result<PathSelection> {
    if algorithm.adaptivity() == Adaptivity::Deterministic && ps != PathSelection::StaticXy {
        return Err(Error::invalid(format!(
            "path_selection = {ps} has nothing to choose from: {algorithm} \
             offers each packet exactly one output (LAPSES §4.1: path selection picks \
             among alternatives); allowed with a deterministic algorithm: \
             path_selection = static-xy"
        )));
    }
    Ok(ps)
}

/// On/off flow control needs [`ON_OFF_ROUND_TRIP`] buffer slots, and
/// credits where escape channels need atomic VC allocation.
pub(super) fn flow_control(
    fc: FlowControl,
    buffer_depth: u32,
    algorithm: Algorithm,
) -> Result<FlowControl> {
    if fc == FlowControl::Credit {
        return Ok(fc);
    }
    if buffer_depth < ON_OFF_ROUND_TRIP {
        return Err(Error::invalid(format!(
            "flow_control = on-off needs a buffer_depth of {ON_OFF_ROUND_TRIP} or more; \
             got buffer_depth = {buffer_depth}: a receiver raises its level while \
             {ON_OFF_ROUND_TRIP} buffer slots are free, because a sender obeys a level from \
             the cycle after it was computed and two flits can arrive beyond the occupancy \
             it saw (docs/interface.md, Flow control); with fewer slots the level never rises"
        )));
    }
    if algorithm.routing().has_escape() {
        // Atomic VC allocation needs to know that the downstream queue
        // is empty; a level does not say (docs/router.md, Flow control).
        return Err(Error::invalid(format!(
            "flow_control = on-off with algorithm = {algorithm}: its escape channels need \
             atomic VC allocation (an output VC takes a new packet only once the \
             downstream queue is empty, the assumption of Duato's theorem, survey \
             §4.2), which credits tell and on/off levels do not; allowed with \
             {algorithm}: flow_control = credit"
        )));
    }
    Ok(fc)
}

/// The sliced and VC-port datapaths are built for the algorithms whose
/// objects list them, without look-ahead or a routing table.
pub(super) fn datapath(
    datapath: RouterDatapath,
    algorithm: Algorithm,
    lookahead: bool,
    table: TableStorage,
) -> Result<RouterDatapath> {
    match datapath {
        RouterDatapath::Unified => {}
        RouterDatapath::Sliced => sliced_allowed(algorithm, lookahead, table)?,
        RouterDatapath::VcPorts => vc_ports_allowed(algorithm, lookahead, table)?,
    }
    Ok(datapath)
}

/// Whether `datapath = vc-ports` is built for this configuration: for the
/// algorithms whose object lists it (`RoutingAlgorithm::datapaths`). Chien
/// draws it for *-channels (§5.4, Figure 8), whose adaptive and escape
/// channels each get crossbar ports of their own, and Duato's algorithm
/// is built as *-channels is; the core's crossbar ports are VCs, which a
/// look-ahead field (ports) and a routing table (ports and a VC class) do
/// not name.
fn vc_ports_allowed(algorithm: Algorithm, lookahead: bool, table: TableStorage) -> Result<()> {
    if !algorithm
        .routing()
        .datapaths()
        .contains(&RouterDatapath::VcPorts)
    {
        return Err(Error::invalid(format!(
            "datapath = vc-ports is not built for algorithm = {algorithm}: it is Chien's \
             organization for *-channels (a crossbar port per virtual channel, §5.4, Figure \
             8), which Duato's algorithm shares; allowed: datapath = vc-ports with \
             algorithm = {}, or datapath = unified with any algorithm",
            one_of(&Algorithm::built_with(RouterDatapath::VcPorts))
        )));
    }
    if lookahead {
        return Err(Error::invalid(
            "datapath = vc-ports with lookahead = true is not built: the look-ahead field \
             names physical ports, the VC-port crossbar switches virtual channels; allowed \
             with datapath = vc-ports: lookahead = false",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "datapath = vc-ports with table = {table} is not built: the table's entries \
             name ports and a VC class, the VC-port crossbar switches virtual channels; \
             allowed with datapath = vc-ports: table = none"
        )));
    }
    Ok(())
}

/// Whether `datapath = sliced` is built for this configuration: for the
/// algorithms whose object lists it (`RoutingAlgorithm::datapaths`). Chien's
/// dimension slices (§5.1, Figure 5) route dimension order, whose packets
/// never return to a lower dimension, and his plane slices (§5.2, Figure 6)
/// route planar-adaptive (on meshes and tori), whose packets never return
/// to a lower plane; a slice's own address decoder reads its dimensions' fields only
/// (no look-ahead field of the whole router's ports, no 3^n table of the
/// whole router).
fn sliced_allowed(algorithm: Algorithm, lookahead: bool, table: TableStorage) -> Result<()> {
    if !algorithm
        .routing()
        .datapaths()
        .contains(&RouterDatapath::Sliced)
    {
        return Err(Error::invalid(format!(
            "datapath = sliced is not built for algorithm = {algorithm}: the sliced router \
             is Chien's organization for dimension order (one 3x3 crossbar per dimension, \
             §5.1, Figure 5) and for planar-adaptive routing (one 2-D router per adaptive \
             plane, §5.2, Figure 6); allowed: datapath = sliced with algorithm = {}, \
             or datapath = unified with any algorithm",
            one_of(&Algorithm::built_with(RouterDatapath::Sliced))
        )));
    }
    if lookahead {
        return Err(Error::invalid(
            "datapath = sliced with lookahead = true is not built: the look-ahead field \
             names the ports of a unified router; allowed with datapath = sliced: \
             lookahead = false",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "datapath = sliced with table = {table} is not built: each slice decodes its \
             own dimension's field in logic; allowed with datapath = sliced: table = none"
        )));
    }
    Ok(())
}

/// Whether `pipeline = N` is built for this configuration. Two cycles per
/// router for every configuration; one where a head flit's permitted
/// output VCs can be known in the cycle it arrives without the address
/// decoder on that path: the look-ahead field it carries (LAPSES §3.2
/// removes the routing stage this way). It requires `lookahead` rather
/// than implying it, because look-ahead changes the head flit's format
/// (docs/interface.md); a routing table (its word lines decoded from the
/// address) and the sliced and VC-port datapaths (which refuse
/// look-ahead) are not offered.
pub(super) fn pipeline(
    pipeline: i64,
    lookahead: bool,
    table: TableStorage,
    datapath: RouterDatapath,
) -> Result<u32> {
    if pipeline != 1 && pipeline != 2 {
        return Err(Error::invalid(format!(
            "pipeline = {pipeline} is not built: a head flit takes 2 cycles per router, \
             or 1 with lookahead = true; allowed: pipeline = 1 or 2"
        )));
    }
    if pipeline == 2 {
        return Ok(2);
    }
    if !lookahead {
        return Err(Error::invalid(
            "pipeline = 1 needs lookahead = true: a head flit is allocated an output VC in \
             the cycle it arrives, from the look-ahead field it carries (LAPSES §3.2); \
             allowed with lookahead = false: pipeline = 2",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "pipeline = 1 with table = {table} is not built: the table's word line is \
             decoded from the head's address before allocation; allowed with pipeline = 1: \
             table = none"
        )));
    }
    if datapath != RouterDatapath::Unified {
        return Err(Error::invalid(format!(
            "pipeline = 1 with datapath = {datapath} is not built; allowed with \
             pipeline = 1: datapath = unified"
        )));
    }
    Ok(1)
}

/// The head flit's routing field must fit the flit.
pub(super) fn head_flit(spec: &RouterSpec) -> Result<()> {
    let header = spec.header_bits();
    if header <= spec.flit_width {
        return Ok(());
    }
    let (radix, dims) = (spec.radix, spec.dims);
    let wide_enough: Vec<u32> = ROUTER_FLIT_WIDTHS
        .into_iter()
        .filter(|&w| w >= header)
        .collect();
    Err(Error::invalid(format!(
        "flit_width = {} is too narrow for the head flit: {} addressing on a \
         {radix}-ary {dims}-D {}{} takes {header} bits; allowed: {}",
        spec.flit_width,
        spec.addressing,
        spec.topology,
        if spec.lookahead {
            " with look-ahead"
        } else {
            ""
        },
        if wide_enough.is_empty() {
            format!("none of the supported widths; lower radix = {radix} or dims = {dims}")
        } else {
            format!("flit_width = {}", one_of(&wide_enough))
        }
    )))
}

/// `one crossbar` or `N crossbars`, for messages and the printed spec.
pub(super) fn crossbar_count(org: Organization) -> String {
    match org.crossbars {
        1 => "one crossbar".into(),
        n => format!("{n} crossbars"),
    }
}
