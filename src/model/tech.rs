//! Technology constants for Chien's model (Figures 3 and 4), read from TOML.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The constants shipped in `generators/tech/chien-0.8um.toml`.
pub const CHIEN_0_8UM: &str = include_str!("../../generators/tech/chien-0.8um.toml");

/// Delay constants c0..c9 of Figure 3, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayConstants {
    /// Crossbar: T_CB = c0 + c1 log2 P.
    pub c0: f64,
    /// Crossbar, per doubling of P.
    pub c1: f64,
    /// Flow-control unit: T_FC = c2.
    pub c2: f64,
    /// Address decoder: T_AD = c3.
    pub c3: f64,
    /// Routing arbiter: T_ARB = c4 + c5 log2 F.
    pub c4: f64,
    /// Routing arbiter, per doubling of F.
    pub c5: f64,
    /// Header selector: T_SEL = c6 + c7 log2 F.
    pub c6: f64,
    /// Header selector, per doubling of F.
    pub c7: f64,
    /// VC controller: T_VC = c8 + c9 log2 V.
    pub c8: f64,
    /// VC controller, per doubling of V.
    pub c9: f64,
}

/// Gate-count constants of Figure 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConstants {
    /// Crossbar gates per P^2.
    pub crossbar_per_port_squared: f64,
    /// Gates of a flow-control unit.
    pub flow_control_unit: f64,
    /// Gates of an address decoder.
    pub address_decoder: f64,
    /// Routing-decision gates per F^2.
    pub routing_decision_per_freedom_squared: f64,
    /// VC-controller gates per virtual channel.
    pub vc_controller_per_vc: f64,
    /// Header-selector gates per F.
    pub header_selector_per_freedom: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
/// A technology: a name and the constants of Figures 3 and 4.
pub struct Technology {
    /// The technology's name in reports.
    pub name: String,
    /// Module delays.
    pub delay_ns: DelayConstants,
    /// Module gate counts.
    pub gates: GateConstants,
}

impl Technology {
    /// Chien's 0.8 micron gate array (Figures 3 and 4).
    pub fn chien() -> Self {
        Self::parse(CHIEN_0_8UM, Path::new("generators/tech/chien-0.8um.toml"))
            .expect("the shipped technology file parses")
    }

    /// Parses and checks a technology file's text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let tech: Technology = toml::from_str(text).map_err(|e| Error::toml(path, text, &e))?;
        tech.check(path)?;
        Ok(tech)
    }

    /// Reads, parses and checks a technology file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Every constant must be a finite, non-negative number.
    fn check(&self, path: &Path) -> Result<()> {
        let d = &self.delay_ns;
        let g = &self.gates;
        let named = [
            ("delay_ns.c0", d.c0),
            ("delay_ns.c1", d.c1),
            ("delay_ns.c2", d.c2),
            ("delay_ns.c3", d.c3),
            ("delay_ns.c4", d.c4),
            ("delay_ns.c5", d.c5),
            ("delay_ns.c6", d.c6),
            ("delay_ns.c7", d.c7),
            ("delay_ns.c8", d.c8),
            ("delay_ns.c9", d.c9),
            (
                "gates.crossbar_per_port_squared",
                g.crossbar_per_port_squared,
            ),
            ("gates.flow_control_unit", g.flow_control_unit),
            ("gates.address_decoder", g.address_decoder),
            (
                "gates.routing_decision_per_freedom_squared",
                g.routing_decision_per_freedom_squared,
            ),
            ("gates.vc_controller_per_vc", g.vc_controller_per_vc),
            (
                "gates.header_selector_per_freedom",
                g.header_selector_per_freedom,
            ),
        ];
        match named.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
            Some((key, v)) => Err(Error::invalid(format!(
                "{}: {key} = {v} is not allowed; every technology constant must be a \
                 finite number of at least 0",
                path.display()
            ))),
            None => Ok(()),
        }
    }
}
