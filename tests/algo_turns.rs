//! The turn model's 16 ways (survey §6.2): prohibiting one turn in each of
//! the two abstract cycles of a 2-D mesh gives 16 turn sets, of which 12
//! prevent deadlock, three unique up to symmetry: west-first, north-last and
//! negative-first.

use routergen::algo::check::check;
use routergen::algo::turn_model::{Compass, CLOCKWISE, COUNTER_CLOCKWISE};
use routergen::algo::{Network, Relation, Turn, TurnSet};
use routergen::spec::Topology;

fn deadlock_free(set: &TurnSet, k: u32) -> bool {
    let net = Network::new(Topology::Mesh, 2, k).unwrap();
    let rel = Relation::turns(net, set.clone()).unwrap();
    check(&rel, false).cdg.cycle.is_none()
}

fn sixteen() -> Vec<TurnSet> {
    let mut out = Vec::new();
    for cw in CLOCKWISE {
        for ccw in COUNTER_CLOCKWISE {
            out.push(TurnSet::new(&[cw, ccw]));
        }
    }
    out
}

#[test]
fn twelve_of_the_sixteen_ways_prevent_deadlock() {
    for k in [4, 5] {
        let free: Vec<TurnSet> = sixteen()
            .into_iter()
            .filter(|s| deadlock_free(s, k))
            .collect();
        assert_eq!(free.len(), 12, "k = {k}: {:?}", free);
        for named in [
            TurnSet::west_first(),
            TurnSet::north_last(),
            TurnSet::negative_first(),
        ] {
            assert!(free.contains(&named), "{named} should be deadlock-free");
        }
    }
}

#[test]
fn prohibiting_nothing_or_one_cycle_only_deadlocks() {
    assert!(!deadlock_free(&TurnSet::new(&[]), 4));
    assert!(!deadlock_free(&TurnSet::new(&[CLOCKWISE[0]]), 4));
    assert!(!deadlock_free(&TurnSet::new(&[COUNTER_CLOCKWISE[2]]), 4));
}

/// The eight symmetries of the square acting on compass directions.
fn symmetries() -> Vec<[Compass; 4]> {
    use Compass::*;
    // Images of [North, East, South, West].
    let rot = |r: usize| {
        let ring = [North, East, South, West];
        [
            ring[r % 4],
            ring[(r + 1) % 4],
            ring[(r + 2) % 4],
            ring[(r + 3) % 4],
        ]
    };
    let mut out = Vec::new();
    for r in 0..4 {
        let m = rot(r);
        out.push(m);
        // Mirror east-west, then rotate.
        out.push([m[0], m[3], m[2], m[1]]);
    }
    out
}

fn apply(g: &[Compass; 4], c: Compass) -> Compass {
    let i = match c {
        Compass::North => 0,
        Compass::East => 1,
        Compass::South => 2,
        Compass::West => 3,
    };
    g[i]
}

#[test]
fn the_twelve_are_three_up_to_symmetry() {
    let free: Vec<TurnSet> = sixteen()
        .into_iter()
        .filter(|s| deadlock_free(s, 4))
        .collect();
    let mut orbits: Vec<Vec<TurnSet>> = Vec::new();
    for s in &free {
        if orbits.iter().any(|o| o.contains(s)) {
            continue;
        }
        let orbit: Vec<TurnSet> = symmetries()
            .iter()
            .map(|g| {
                let turns: Vec<Turn> = s
                    .prohibited
                    .iter()
                    .map(|t| Turn {
                        from: apply(g, t.from),
                        to: apply(g, t.to),
                    })
                    .collect();
                TurnSet::new(&turns)
            })
            .collect();
        orbits.push(orbit);
    }
    assert_eq!(orbits.len(), 3);
    for named in [
        TurnSet::west_first(),
        TurnSet::north_last(),
        TurnSet::negative_first(),
    ] {
        let hits = orbits.iter().filter(|o| o.contains(&named)).count();
        assert_eq!(hits, 1);
    }
    // The three named algorithms are in three different orbits.
    let which = |t: &TurnSet| orbits.iter().position(|o| o.contains(t)).unwrap();
    let mut ids = vec![
        which(&TurnSet::west_first()),
        which(&TurnSet::north_last()),
        which(&TurnSet::negative_first()),
    ];
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3);
}
