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
    /// Crossbar delay c0 + c1 log2 P: the constant part.
    pub c0: f64,
    /// Crossbar: the part per log2 P.
    pub c1: f64,
    /// Flow-control unit delay (constant).
    pub c2: f64,
    /// Address decoder delay (constant).
    pub c3: f64,
    /// Routing decision (arbiter) delay c4 + c5 log2 F: the constant part.
    pub c4: f64,
    /// Routing decision: the part per log2 F.
    pub c5: f64,
    /// Header selection delay c6 + c7 log2 F: the constant part.
    pub c6: f64,
    /// Header selection: the part per log2 F.
    pub c7: f64,
    /// Virtual-channel controller delay c8 + c9 log2 V: the constant part.
    pub c8: f64,
    /// Virtual-channel controller: the part per log2 V.
    pub c9: f64,
}

/// Gate-count constants of Figure 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConstants {
    /// Crossbar gates per P^2 (29 in Figure 4).
    pub crossbar_per_port_squared: f64,
    /// Gates of one flow-control unit (320).
    pub flow_control_unit: f64,
    /// Gates of one address decoder (100).
    pub address_decoder: f64,
    /// Routing-decision gates per F^2 (17).
    pub routing_decision_per_freedom_squared: f64,
    /// Virtual-channel controller gates per V (126).
    pub vc_controller_per_vc: f64,
    /// Header-selector gates per F (Figure 4 gives none: 0).
    pub header_selector_per_freedom: f64,
}

/// A technology for Chien's model: its name and the constants of
/// Figures 3 and 4 (one TOML file, `generators/tech/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Technology {
    /// The technology's name, as reports print it.
    pub name: String,
    /// Figure 3: module delay constants, in nanoseconds.
    pub delay_ns: DelayConstants,
    /// Figure 4: gate-count constants (16-bit flits).
    pub gates: GateConstants,
}

impl Technology {
    /// Chien's 0.8 micron gate array (Figures 3 and 4).
    pub fn chien() -> Self {
        Self::parse(CHIEN_0_8UM, Path::new("generators/tech/chien-0.8um.toml"))
            .expect("the shipped technology file parses")
    }

    /// The technology in TOML `text` (read from `path`, which errors
    /// name): every constant present, finite and at least 0.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let tech: Technology = toml::from_str(text).map_err(|e| Error::toml(path, text, &e))?;
        tech.check(path)?;
        Ok(tech)
    }

    /// The technology in the TOML file at `path` ([`Technology::parse`]).
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
