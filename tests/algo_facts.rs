//! Each registered algorithm's facts (`RoutingAlgorithm`, one object per
//! algorithm under src/algo/) against each other and against what its
//! relation does: the escape flag against the hops the relation offers,
//! the adaptivity against the choices it leaves, the datapaths against
//! Chien's organization, the supported topologies against what the spec,
//! the relation and the checker accept. The deadlock proofs of the minimum
//! VCs, and the cycles with one fewer, are in algo_deadlock.rs.
//!
//! The minimal directions are computed here from coordinates, not by the
//! network model.

use routergen::algo::{ChienModel, Input, Network, Port, Relation};
use routergen::spec::names::Named;
use routergen::spec::{
    Adaptivity, Algorithm, Datapath, RouterDatapath, SpecInput, TableStorage, Topology,
};

/// Small networks of every topology, 1 to 4 dimensions.
const SHAPES: [(Topology, u32, u32); 12] = [
    (Topology::Mesh, 1, 4),
    (Topology::Mesh, 2, 3),
    (Topology::Mesh, 2, 4),
    (Topology::Mesh, 3, 3),
    (Topology::Mesh, 4, 2),
    (Topology::Torus, 1, 5),
    (Topology::Torus, 2, 4),
    (Topology::Torus, 2, 5),
    (Topology::Torus, 3, 3),
    (Topology::Hypercube, 1, 2),
    (Topology::Hypercube, 3, 2),
    (Topology::Hypercube, 4, 2),
];

fn supported(a: Algorithm) -> Vec<(Topology, u32, u32)> {
    SHAPES
        .into_iter()
        .filter(|&(t, n, _)| a.supports(t, n).is_ok())
        .collect()
}

/// The link ports that shorten the way from `node` to `dest`: per
/// dimension the direction(s) of the shorter way round, from coordinates
/// (row-major, dimension 0 fastest); both ways at a torus tie.
fn minimal_ports(t: Topology, n: u32, k: u32, node: u32, dest: u32) -> Vec<Port> {
    use routergen::algo::Dir;
    let mut out = Vec::new();
    for d in 0..n {
        let (a, b) = ((node / k.pow(d)) % k, (dest / k.pow(d)) % k);
        if a == b {
            continue;
        }
        let (plus, minus) = if t == Topology::Torus {
            let fwd = (b + k - a) % k;
            (fwd <= k - fwd, k - fwd <= fwd)
        } else {
            (b > a, b < a)
        };
        if plus {
            out.push(Port::link(d as usize, Dir::Plus));
        }
        if minus {
            out.push(Port::link(d as usize, Dir::Minus));
        }
    }
    out.sort();
    out
}

/// The distinct ports a relation offers at `node` for `dest`.
fn offered_ports(rel: &Relation, node: u32, dest: u32) -> Vec<Port> {
    let mut ports: Vec<Port> = rel
        .hops(node, Input::INJECTED, dest)
        .iter()
        .map(|h| h.port)
        .collect();
    ports.sort();
    ports.dedup();
    ports
}

#[test]
fn every_algorithm_has_supported_shapes_and_says_why_not_elsewhere() {
    for a in Algorithm::all() {
        assert!(!supported(a).is_empty(), "{a} supports none of {SHAPES:?}");
        for (t, n, k) in SHAPES {
            let net = Network::new(t, n, k).unwrap();
            let spec = SpecInput {
                algorithm: Some(a),
                topology: Some(t),
                dims: Some(n as i64),
                radix: Some(k as i64),
                ..SpecInput::default()
            }
            .resolve();
            match a.supports(t, n) {
                Ok(()) => {
                    let min = a.min_vcs(t, n);
                    assert!(Relation::new(a, net, min).is_ok(), "{a} {n}-D {t}");
                    let spec = spec.unwrap_or_else(|e| panic!("{a} {n}-D {t}: {e}"));
                    assert_eq!(spec.spec.vcs, min, "{a} {n}-D {t}: the default VCs");
                }
                Err(why) => {
                    assert!(!why.is_empty(), "{a} {n}-D {t}");
                    assert!(Relation::new(a, net, 16).is_err(), "{a} {n}-D {t}");
                    let e = spec.expect_err("the spec refuses it too").to_string();
                    assert!(e.contains(&why), "{a} {n}-D {t}: {e}");
                }
            }
        }
    }
}

/// A spec refusing fewer VCs than the minimum says why; the minimum is what
/// the relation's classes need.
#[test]
fn the_minimum_vcs_are_the_classes_and_come_with_a_reason() {
    for a in Algorithm::all() {
        let r = a.routing();
        assert!(!r.title().is_empty(), "{a}");
        for (t, n, k) in supported(a) {
            let min = a.min_vcs(t, n);
            let rel = Relation::new(a, Network::new(t, n, k).unwrap(), min).unwrap();
            assert_eq!(rel.classes_needed() as u32, min, "{a} {n}-D {t}");
            if min > 1 {
                let reason = r.vc_reason(t, n);
                assert!(!reason.is_empty(), "{a} {n}-D {t} needs {min} VCs: why?");
                let e = SpecInput {
                    algorithm: Some(a),
                    topology: Some(t),
                    dims: Some(n as i64),
                    radix: Some(k as i64),
                    vcs: Some(min as i64 - 1),
                    ..SpecInput::default()
                }
                .resolve()
                .expect_err("fewer VCs than the minimum")
                .to_string();
                assert!(
                    e.contains(r.title()) && e.contains(&reason),
                    "{a} {n}-D {t}: {e}"
                );
            }
        }
    }
}

/// The escape flag is what the relation does: an escape-channel algorithm
/// offers an escape hop at every node for every destination, the others
/// never flag one.
#[test]
fn has_escape_is_what_the_relation_offers() {
    for a in Algorithm::all() {
        for (t, n, k) in supported(a) {
            let net = Network::new(t, n, k).unwrap();
            let rel = Relation::new(a, net, a.min_vcs(t, n)).unwrap();
            assert_eq!(rel.has_escape(), a.routing().has_escape(), "{a}");
            for node in 0..net.nodes() {
                for dest in (0..net.nodes()).filter(|&d| d != node) {
                    let hops = rel.hops(node, Input::INJECTED, dest);
                    let escapes = hops.iter().filter(|h| h.escape).count();
                    if a.routing().has_escape() {
                        assert!(escapes >= 1, "{a} {n}-D {t}: {node} -> {dest}");
                    } else {
                        assert_eq!(escapes, 0, "{a} {n}-D {t}: {node} -> {dest}");
                    }
                }
            }
        }
    }
}

/// Deterministic: one port per state. Fully adaptive: every minimal port
/// in every state. Partially adaptive: neither, on some supported network.
#[test]
fn adaptivity_is_the_choice_the_relation_leaves() {
    for a in Algorithm::all() {
        let (mut one_port_always, mut all_minimal_always) = (true, true);
        for (t, n, k) in supported(a) {
            let net = Network::new(t, n, k).unwrap();
            let rel = Relation::new(a, net, a.min_vcs(t, n)).unwrap();
            assert_eq!(
                rel.is_deterministic(),
                a.adaptivity() == Adaptivity::Deterministic
            );
            for node in 0..net.nodes() {
                for dest in (0..net.nodes()).filter(|&d| d != node) {
                    let offered = offered_ports(&rel, node, dest);
                    let minimal = minimal_ports(t, n, k, node, dest);
                    assert!(!offered.is_empty(), "{a}: {node} -> {dest}");
                    assert!(
                        offered.iter().all(|p| minimal.contains(p)),
                        "{a} {n}-D {t}: {node} -> {dest} offers {offered:?}, minimal {minimal:?}"
                    );
                    one_port_always &= offered.len() == 1;
                    all_minimal_always &= offered == minimal;
                }
            }
        }
        let observed = match (one_port_always, all_minimal_always) {
            (true, _) => Adaptivity::Deterministic,
            (false, true) => Adaptivity::FullyAdaptive,
            (false, false) => Adaptivity::PartiallyAdaptive,
        };
        assert_eq!(a.adaptivity(), observed, "{a}");
    }
}

/// routergen builds every algorithm unified, and besides that Chien's own
/// organization for it where that organization has a builder: slices for
/// Figures 5 and 6, a crossbar port per channel class for Figure 8. The
/// spec accepts exactly those datapaths.
#[test]
fn the_datapaths_are_unified_and_chiens_own_organization() {
    for a in Algorithm::all() {
        let r = a.routing();
        let (t, n, k) = supported(a)
            .into_iter()
            .find(|s| s.1 >= 2)
            .expect("a supported shape of 2 dimensions or more");
        let org = r.organization(t, n);
        let mut want = vec![RouterDatapath::Unified];
        match org.datapath {
            Datapath::DimensionSlices | Datapath::PlaneSlices => want.push(RouterDatapath::Sliced),
            Datapath::Unified if org.classes_per_link == 2 => want.push(RouterDatapath::VcPorts),
            Datapath::Unified => {}
        }
        assert_eq!(r.datapaths(), want.as_slice(), "{a}");
        for d in RouterDatapath::all() {
            let spec = SpecInput {
                algorithm: Some(a),
                topology: Some(t),
                dims: Some(n as i64),
                radix: Some(k as i64),
                datapath: Some(d),
                table: Some(TableStorage::None),
                ..SpecInput::default()
            }
            .resolve();
            match spec {
                Ok(_) => assert!(r.datapaths().contains(&d), "{a} accepted with {d}"),
                Err(e) => {
                    let e = e.to_string();
                    assert!(!r.datapaths().contains(&d), "{a} refused with {d}: {e}");
                    // The message lists the algorithms built with it.
                    let built: Vec<String> = Algorithm::built_with(d)
                        .iter()
                        .map(|b| b.to_string())
                        .collect();
                    assert!(
                        built.iter().all(|b| e.contains(&format!(" {b}"))),
                        "{a} with {d}: {e} should name {built:?}"
                    );
                }
            }
        }
    }
}

/// Chien's organization: F = P (Chien Figure 2 counts every port a
/// choice), one slice per dimension or plane, a reason citing the section
/// of Chien §5 that the model costs it with.
#[test]
fn the_organization_its_reason_and_the_cost_model_agree() {
    for a in Algorithm::all() {
        let r = a.routing();
        for (t, n, _) in supported(a) {
            let org = r.organization(t, n);
            assert_eq!(org.freedom, org.ports, "{a}");
            match org.datapath {
                Datapath::DimensionSlices | Datapath::PlaneSlices => {
                    assert_eq!(org.crossbars, n, "{a}")
                }
                Datapath::Unified => assert_eq!(org.crossbars, 1, "{a}"),
            }
        }
        let reason = r.organization_reason();
        match r.chien() {
            ChienModel::CostedAs { section, .. } => {
                assert!(
                    reason.contains(&format!("Chien §5.{section}")),
                    "{a}: {reason}"
                )
            }
            ChienModel::Studied { topology, .. } => {
                assert!(reason.contains("Chien §5."), "{a}: {reason}");
                assert!(a.supports(topology, 2).is_ok(), "{a} on Chien's {topology}");
            }
        }
    }
}
