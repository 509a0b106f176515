//! Every block constructor refuses every size it cannot build, with a
//! message naming the parameter, the value and what is allowed, and
//! builds the sizes at the edges of its range. The bounds are the ones
//! each block's documentation states (port numbers of 4 bits, VC numbers
//! of 4 bits, 5-bit occupancy counters, fields that must fit the W-bit
//! flit).

use routergen::blocks::address_decoder::{DecoderShape, Row};
use routergen::blocks::es_table::Entry;
use routergen::blocks::flow_control::ram::BufferRam;
use routergen::blocks::{
    AddressDecoder, BlockKind, BlockParams, Crossbar, EconomicalStorageTable, FlowControlUnit,
    HeaderSelector, LookaheadMux, RoutingArbiter, VcController,
};
use routergen::spec::{Addressing, PathSelection, Topology};

/// `r` is an error whose message holds every one of `needles`.
#[track_caller]
fn refused<T>(r: routergen::Result<T>, needles: &[&str]) {
    match r {
        Ok(_) => panic!("built, but should be refused with {needles:?}"),
        Err(e) => {
            let msg = e.to_string();
            for n in needles {
                assert!(msg.contains(n), "{msg:?} lacks {n:?}");
            }
            assert!(
                !msg.contains("--"),
                "a library message names no flag: {msg}"
            );
        }
    }
}

#[test]
fn crossbar_needs_a_port_and_a_link_per_pair() {
    refused(
        Crossbar::<16>::new(0),
        &["crossbar", "port count", "at least 1", "not 0"],
    );
    refused(Crossbar::<16>::per_flit(0), &["port count", "not 0"]);
    refused(
        Crossbar::<16>::per_flit_linking(0, &[]),
        &["port count", "not 0"],
    );
    refused(
        Crossbar::<16>::per_flit_linking(3, &[true; 8]),
        &["link list", "9 to 9", "not 8"],
    );
    refused(Crossbar::<0>::new(2), &["flit width", "1 to 64", "not 0"]);
    refused(Crossbar::<65>::new(2), &["flit width", "not 65"]);
    assert_eq!(Crossbar::<16>::new(1).unwrap().ports(), 1);
    assert!(Crossbar::<64>::per_flit_linking(3, &[true; 9]).is_ok());
}

#[test]
fn routing_arbiter_takes_2_to_16_ports_and_at_most_one_candidate_per_output() {
    let sel = PathSelection::StaticXy;
    refused(
        RoutingArbiter::new(1, 1, sel),
        &["routing arbiter", "port count", "2 to 16", "not 1"],
    );
    refused(RoutingArbiter::new(17, 1, sel), &["2 to 16", "not 17"]);
    refused(
        RoutingArbiter::new(4, 0, sel),
        &["freedom", "1 to 4", "not 0"],
    );
    refused(
        RoutingArbiter::new(4, 5, sel),
        &["freedom", "1 to 4", "not 5"],
    );
    assert!(RoutingArbiter::new(2, 2, sel).is_ok());
    assert!(RoutingArbiter::new(16, 1, PathSelection::Lfu).is_ok());
}

#[test]
fn header_selector_needs_a_candidate() {
    refused(
        HeaderSelector::<16>::new(0),
        &["header selector", "freedom", "not 0"],
    );
    refused(HeaderSelector::<0>::new(1), &["flit width", "not 0"]);
    assert!(HeaderSelector::<8>::new(1).is_ok());
}

#[test]
fn lookahead_mux_field_fits_the_flit() {
    refused(
        LookaheadMux::<8>::new(0, 1),
        &["look-ahead mux", "port count", "1 to 8", "not 0"],
    );
    refused(LookaheadMux::<8>::new(9, 1), &["1 to 8", "not 9"]);
    refused(LookaheadMux::<8>::new(5, 0), &["freedom", "not 0"]);
    assert!(LookaheadMux::<8>::new(8, 3).is_ok());
}

#[test]
fn flow_control_unit_depth_is_1_to_16_and_slack_at_most_the_depth() {
    refused(
        FlowControlUnit::<16>::new(0, false),
        &["flow-control unit", "depth", "1 to 16", "not 0"],
    );
    refused(FlowControlUnit::<16>::new(17, true), &["1 to 16", "not 17"]);
    refused(
        FlowControlUnit::<16>::on_off(4, 0),
        &["slack", "1 to 4", "not 0"],
    );
    refused(
        FlowControlUnit::<16>::on_off(4, 5),
        &["slack", "1 to 4", "not 5"],
    );
    refused(FlowControlUnit::<16>::on_off(0, 1), &["depth", "not 0"]);
    refused(
        FlowControlUnit::<0>::new(2, false),
        &["flit width", "not 0"],
    );
    assert!(FlowControlUnit::<16>::new(1, false).is_ok());
    assert!(FlowControlUnit::<16>::on_off(16, 16).is_ok());
}

#[test]
fn buffer_ram_holds_1_to_32_entries() {
    refused(
        BufferRam::<16>::new(0),
        &["buffer RAM", "entry count", "1 to 32", "not 0"],
    );
    refused(BufferRam::<16>::new(33), &["not 33"]);
    assert!(BufferRam::<16>::new(32).is_ok());
}

#[test]
fn vc_controller_takes_1_to_16_vcs_and_on_off_needs_two_slots() {
    refused(
        VcController::<16>::new(0, 4),
        &["VC controller", "VC count", "1 to 16", "not 0"],
    );
    refused(VcController::<16>::new(17, 4), &["1 to 16", "not 17"]);
    refused(
        VcController::<16>::new(2, 0),
        &["depth", "1 to 16", "not 0"],
    );
    refused(VcController::<16>::new(2, 17), &["depth", "not 17"]);
    refused(
        VcController::<16>::on_off(2, 1),
        &["depth", "2 to 16", "not 1"],
    );
    refused(
        VcController::<16>::with_flow_control(2, 1, true),
        &["2 to 16", "not 1"],
    );
    assert!(VcController::<16>::new(16, 1).is_ok());
    assert!(VcController::<16>::on_off(1, 2).is_ok());
}

#[test]
fn economical_storage_table_fits_its_dimensions_entries_and_classes() {
    refused(
        EconomicalStorageTable::<16>::new(0, &[]),
        &[
            "economical-storage table",
            "dimension count",
            "1 to 4",
            "not 0",
        ],
    );
    refused(
        EconomicalStorageTable::<16>::new(5, &[]),
        &["1 to 4", "not 5"],
    );
    // A coordinate is 4 bits: an 8-bit flit holds 2.
    refused(
        EconomicalStorageTable::<8>::new(3, &[]),
        &["1 to 2", "not 3"],
    );
    refused(
        EconomicalStorageTable::<16>::new(1, &[Entry::default(); 4]),
        &["entry count", "0 to 3", "not 4"],
    );
    let wide = Entry {
        mask: 1 << 3,
        class: 0,
    };
    refused(
        EconomicalStorageTable::<16>::new(1, &[wide]),
        &["entry 0", "3 outputs"],
    );
    let class = Entry { mask: 1, class: 4 };
    refused(
        EconomicalStorageTable::<16>::new(1, &[class]),
        &["VC class of entry 0", "0 to 3", "not 4"],
    );
    let ok = Entry {
        mask: 0b111,
        class: 3,
    };
    assert!(EconomicalStorageTable::<16>::new(1, &[ok; 3]).is_ok());
    assert!(EconomicalStorageTable::<16>::new(4, &[]).is_ok());
}

#[test]
fn address_decoder_fields_key_and_rows_fit() {
    let mesh = DecoderShape::new(Topology::Mesh, 2, 4, Addressing::Relative, 2, false);
    // 2 dimensions of 3 bits fit 8 bits; 3 dimensions of 3 bits do not.
    assert!(AddressDecoder::<8>::new(mesh.clone(), &[]).is_ok());
    let three = DecoderShape::new(Topology::Mesh, 3, 4, Addressing::Relative, 2, false);
    refused(
        AddressDecoder::<8>::new(three, &[]),
        &["address decoder", "field width", "1 to 2", "not 3"],
    );
    // Absolute addressing reads the node id's coordinates too.
    let abs = DecoderShape::new(Topology::Mesh, 2, 16, Addressing::Absolute, 1, false);
    refused(
        AddressDecoder::<4>::new(abs.clone(), &[]),
        &["field width", "not 4"],
    );
    assert!(AddressDecoder::<8>::new(abs, &[]).is_ok());
    let no_dims = DecoderShape {
        dims: 0,
        ..mesh.clone()
    };
    refused(
        AddressDecoder::<16>::new(no_dims, &[]),
        &["dimension count", "not 0"],
    );
    let many = DecoderShape {
        dims: 11,
        field_bits: 1,
        ..mesh.clone()
    };
    refused(
        AddressDecoder::<64>::new(many, &[]),
        &["dimension count", "1 to 10", "not 11"],
    );
    let no_vcs = DecoderShape {
        vcs: 0,
        ..mesh.clone()
    };
    refused(
        AddressDecoder::<16>::new(no_vcs, &[]),
        &["VC count", "not 0"],
    );
    let no_ports = DecoderShape {
        ports: 0,
        ..mesh.clone()
    };
    refused(
        AddressDecoder::<16>::new(no_ports, &[]),
        &["port count", "not 0"],
    );
    let radix = DecoderShape {
        radix: 1,
        ..mesh.clone()
    };
    refused(AddressDecoder::<16>::new(radix, &[]), &["radix", "not 1"]);
    // A radix of 0 gives a shape (no overflow) that the decoder refuses.
    let zero = DecoderShape::new(Topology::Mesh, 2, 0, Addressing::Relative, 1, false);
    refused(AddressDecoder::<16>::new(zero, &[]), &["radix", "not 0"]);
    // Rows: keys of 3 bits per dimension, masks over P V = 10 output VCs.
    let key = Row {
        key: 1 << 6,
        mask: vec![1],
    };
    refused(
        AddressDecoder::<16>::new(mesh.clone(), &[key]),
        &["key 0x40", "6 bits"],
    );
    let mask = Row {
        key: 1,
        mask: vec![1 << 10],
    };
    refused(
        AddressDecoder::<16>::new(mesh.clone(), &[mask]),
        &["output VC 10", "P V = 10"],
    );
    let good = Row {
        key: 0o11,
        mask: vec![1 << 9],
    };
    assert!(AddressDecoder::<16>::new(mesh, &[good]).is_ok());
    refused(
        AddressDecoder::<16>::dimension_order(0, Addressing::Relative),
        &["dimension count", "1 to 4", "not 0"],
    );
    refused(
        AddressDecoder::<16>::dimension_order(5, Addressing::Relative),
        &["not 5"],
    );
    // 4 dimensions of 4-bit relative fields need 16 bits.
    refused(
        AddressDecoder::<8>::dimension_order(3, Addressing::Relative),
        &["field width", "not 4"],
    );
    assert!(AddressDecoder::<16>::dimension_order(4, Addressing::Relative).is_ok());
}

#[test]
fn block_kind_checks_name_parameters() {
    let none = BlockParams {
        ports: 0,
        ..BlockParams::default()
    };
    let e = BlockKind::Crossbar.check(&none).unwrap_err().to_string();
    assert!(e.contains("ports = 0") && e.contains("2 to 16"), "{e}");
    assert!(!e.contains("--"), "a library message names no flag: {e}");
    let shallow = BlockParams {
        on_off: true,
        depth: 1,
        ..BlockParams::default()
    };
    let e = BlockKind::VcController
        .check(&shallow)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("on/off") && e.contains("depth of 2 or more"),
        "{e}"
    );
    assert!(e.contains("depth = 1"), "{e}");
    assert!(!e.contains("--"), "a library message names no flag: {e}");
}
