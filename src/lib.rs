//! routergen: synthesizable wormhole routers for k-ary n-cube, mesh and
//! hypercube networks.
//!
//! Data flows one way: a [`spec::RouterSpec`] (validated) is costed by the
//! [`model`] (Chien's cost and speed model) and written out by [`output`].

pub mod algo;
pub mod blocks;
pub mod cli;
pub mod commands;
pub mod emit;
pub mod error;
pub mod flows;
pub mod fpga;
pub mod interface;
pub mod limits;
pub mod model;
pub mod output;
pub mod router;
pub mod sim;
pub mod spec;
pub mod synth;

pub use error::{Error, Result};
