//! Protocol era: which MCP rules apply to structured output.

use serde::{Deserialize, Serialize};

/// The first protocol version in which `structuredContent` may be any JSON value.
pub const FIRST_MODERN_VERSION: &str = "2026-07-28";

/// The two MCP eras that differ in what `structuredContent` may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolEra {
    /// Up to "2025-11-25": structuredContent must be an object, outputSchema root type object.
    Legacy,
    /// "2026-07-28" and newer: structuredContent may be any JSON value.
    Modern,
}

impl ProtocolEra {
    /// Classifies a negotiated protocol version string.
    ///
    /// Dated versions ("YYYY-MM-DD") compare lexically against [`FIRST_MODERN_VERSION`].
    /// A "DRAFT…" version is newer than every release, so it counts as modern.
    /// Anything else is unrecognised and treated as legacy, the stricter rule set.
    pub fn from_version(version: &str) -> Self {
        let version = version.trim();
        if looks_like_date(version) {
            if version >= FIRST_MODERN_VERSION {
                ProtocolEra::Modern
            } else {
                ProtocolEra::Legacy
            }
        } else if version.to_ascii_lowercase().starts_with("draft") {
            ProtocolEra::Modern
        } else {
            ProtocolEra::Legacy
        }
    }

    pub fn describe(&self) -> String {
        match self {
            ProtocolEra::Legacy => format!(
                "Protocol before {FIRST_MODERN_VERSION}: structuredContent must be a JSON object"
            ),
            ProtocolEra::Modern => format!(
                "Protocol {FIRST_MODERN_VERSION} or newer: structuredContent may be any JSON value"
            ),
        }
    }
}

/// True for strings starting with "DDDD-DD-DD"; lexical comparison is only meaningful then.
fn looks_like_date(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.len() >= 10
        && bytes[..10].iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn era_from_version() {
        assert_eq!(ProtocolEra::from_version("2024-11-05"), ProtocolEra::Legacy);
        assert_eq!(ProtocolEra::from_version("2025-06-18"), ProtocolEra::Legacy);
        assert_eq!(ProtocolEra::from_version("2025-11-25"), ProtocolEra::Legacy);
        assert_eq!(ProtocolEra::from_version("2026-07-28"), ProtocolEra::Modern);
        assert_eq!(
            ProtocolEra::from_version(" 2027-01-01 "),
            ProtocolEra::Modern
        );
        assert_eq!(
            ProtocolEra::from_version("DRAFT-2026-v1"),
            ProtocolEra::Modern
        );
        assert_eq!(ProtocolEra::from_version(""), ProtocolEra::Legacy);
        assert_eq!(ProtocolEra::from_version("latest"), ProtocolEra::Legacy);
        assert!(ProtocolEra::Modern.describe().contains("any JSON value"));
    }
}
