//! routergen: synthesizable wormhole routers for k-ary n-cube, mesh and
//! hypercube networks.
//!
//! Data flows one way: a [`spec::SpecInput`] (every field optional) is
//! resolved and validated into a [`spec::RouterSpec`]; [`algo`] turns it
//! into a routing relation and checks it for deadlock; [`router`] builds
//! the router from Chien's blocks ([`blocks`], rust-hdl models with their
//! Verilog) and writes its Verilog; [`emit`] and [`output`] write the
//! output directory (testbenches, synthesis scripts, reports); [`model`]
//! costs the router with Chien's cost and speed model; [`sim`] simulates
//! whole networks; [`flows`], [`synth`] and [`fpga`] drive Verilator,
//! Icarus, Yosys and nextpnr. The facts every part shares live once:
//! the router's external interface in [`interface`] (docs/interface.md),
//! the sizes routergen accepts in [`limits`] (docs/limits.md), each routing
//! algorithm in its own object ([`algo::RoutingAlgorithm`]); the binary's
//! commands are thin layers in [`commands`].
//!
//! # Generating a router
//!
//! A dimension-order router of a 4-ary 2-D mesh with 2 virtual channels
//! and 16-bit flits; its top module has the five ports of
//! docs/interface.md (port 0 local, port 2d + 1 toward +d, 2d + 2 toward
//! -d):
//!
//! ```
//! use routergen::spec::{Algorithm, SpecInput, Topology};
//!
//! let spec = SpecInput {
//!     topology: Some(Topology::Mesh),
//!     dims: Some(2),
//!     radix: Some(4),
//!     algorithm: Some(Algorithm::DimensionOrder),
//!     vcs: Some(2),
//!     flit_width: Some(16),
//!     ..SpecInput::default()
//! }
//! .resolve()?
//! .spec;
//! let verilog = routergen::router::verilog(&spec)?;
//! assert!(verilog.contains(&format!("module {} (", spec.name())));
//! for p in 0..5 {
//!     assert!(verilog.contains(&format!("input wire [15:0] p{p}_in_data,")));
//!     // One credit line per virtual channel.
//!     assert!(verilog.contains(&format!("output wire [1:0] p{p}_in_credit,")));
//! }
//! assert!(!verilog.contains("p5_in_data"));
//! # Ok::<(), routergen::Error>(())
//! ```
//!
//! A bad spec is refused with a message naming the value and what is
//! allowed:
//!
//! ```
//! use routergen::spec::SpecInput;
//!
//! let err = SpecInput { vcs: Some(0), ..SpecInput::default() }
//!     .resolve()
//!     .unwrap_err();
//! assert!(err.to_string().contains("1 to 16"), "{err}");
//! ```
//!
//! # Simulating blocks and routers in Rust
//!
//! Every block and the router are rust-hdl `LogicBlock`s: build one with
//! its (checked) constructor, call [`blocks::prepare`] and drive it with
//! rust-hdl's `Simulation`. The `examples/` directory simulates a
//! crossbar (`crossbar_sim.rs`) and a whole router (`router_sim.rs`).
//!
//! ```
//! use routergen::blocks::Crossbar;
//!
//! assert!(Crossbar::<16>::new(3).is_ok());
//! let err = Crossbar::<16>::new(0).err().expect("no crossbar without ports");
//! assert!(err.to_string().contains("port count"), "{err}");
//! ```

#![warn(missing_docs)]

pub mod algo;
pub mod analysis;
pub mod atomic;
pub mod blocks;
pub mod cli;
pub mod commands;
pub mod emit;
pub mod error;
pub mod flows;
pub mod fpga;
pub mod hdl;
pub mod interface;
pub mod interrupt;
pub mod jobs;
pub mod limits;
pub mod model;
pub mod network;
pub mod output;
pub mod prove;
pub mod router;
pub mod sim;
pub mod spec;
pub mod study;
pub mod synth;
pub mod work;

pub use error::{Error, Result};
