//! Enumerations that users type by name (on the command line and in TOML).
//!
//! Every such enum gets one canonical kebab-case name, optional aliases, a
//! `FromStr` whose error lists what is allowed, and serde support through that
//! same parser, so the command line and the TOML file accept exactly the same
//! words and reject bad ones with the same message.

use std::fmt;

/// A name that is not one of the allowed words for some setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{got}'; allowed: {allowed}")]
pub struct UnknownName {
    /// What the setting is called ("topology", "algorithm", ...).
    pub what: &'static str,
    /// The word as given.
    pub got: String,
    /// The allowed words, as [`Named::allowed`] lists them.
    pub allowed: String,
}

/// Implemented by every named enum through the crate-private `named_enum!` macro.
pub trait Named: Sized + Copy + 'static {
    /// What the setting is called in messages ("algorithm", "topology", ...).
    const WHAT: &'static str;
    /// Every value with its canonical name and aliases.
    const TABLE: &'static [(Self, &'static str, &'static [&'static str])];

    /// The canonical kebab-case name, as written in TOML and on the command line.
    fn name(self) -> &'static str;

    /// All values, in declaration order.
    fn all() -> Vec<Self> {
        Self::TABLE.iter().map(|(v, _, _)| *v).collect()
    }

    /// The allowed words as one human-readable list, aliases in parentheses.
    fn allowed() -> String {
        Self::TABLE
            .iter()
            .map(|(_, n, aliases)| {
                if aliases.is_empty() {
                    (*n).to_string()
                } else {
                    format!("{n} (alias {})", aliases.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parses a name or alias, ignoring case, surrounding blanks, and `_`
    /// against `-`; the error lists what is allowed.
    fn parse_name(s: &str) -> Result<Self, UnknownName> {
        let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
        Self::TABLE
            .iter()
            .find(|(_, n, aliases)| *n == wanted || aliases.contains(&wanted.as_str()))
            .map(|(v, _, _)| *v)
            .ok_or_else(|| UnknownName {
                what: Self::WHAT,
                got: s.to_string(),
                allowed: Self::allowed(),
            })
    }
}

/// Declares a named enum: `named_enum!(Topology, "topology", { Mesh => "mesh" [], ... })`.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($(#[$vmeta:meta])* $variant:ident => $canon:literal [$($alias:literal),*]),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $crate::spec::names::Named for $name {
            const WHAT: &'static str = $what;
            const TABLE: &'static [(Self, &'static str, &'static [&'static str])] =
                &[$(($name::$variant, $canon, &[$($alias),*])),+];
            fn name(self) -> &'static str {
                match self { $($name::$variant => $canon),+ }
            }
        }

        impl $crate::spec::options::OptionValue for $name {
            const KIND: $crate::spec::options::ValueKind =
                $crate::spec::options::ValueKind::Words(|| {
                    <$name as $crate::spec::names::Named>::TABLE
                        .iter()
                        .map(|&(_, name, aliases)| (name, aliases))
                        .collect()
                });
            fn parse_word(word: &str) -> std::result::Result<Self, String> {
                <$name as $crate::spec::names::Named>::parse_name(word).map_err(|e| e.to_string())
            }
            fn allowed() -> String {
                let names: Vec<&str> = <$name as $crate::spec::names::Named>::TABLE
                    .iter()
                    .map(|&(_, name, _)| name)
                    .collect();
                $crate::spec::names::one_of(&names)
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::spec::names::UnknownName;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                <$name as $crate::spec::names::Named>::parse_name(s)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::spec::names::Named::name(*self))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str($crate::spec::names::Named::name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use named_enum;

/// Formats a list of values as `a, b or c`.
pub fn one_of<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|i| i.to_string()).collect();
    match parts.len() {
        0 => String::new(),
        1 => parts[0].clone(),
        _ => format!(
            "{} or {}",
            parts[..parts.len() - 1].join(", "),
            parts[parts.len() - 1]
        ),
    }
}
