//! The output contract: does structuredContent satisfy the tool's outputSchema?

use jsonschema::Draft;
use serde::Serialize;

use super::deep::MAX_VALIDATED_DEPTH;

/// At most this many violations are listed; the rest are only counted.
pub const MAX_LISTED_VIOLATIONS: usize = 1000;

/// The JSON Schema dialect a schema was compiled under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Dialect {
    #[serde(rename = "draft-04")]
    Draft4,
    #[serde(rename = "draft-06")]
    Draft6,
    #[serde(rename = "draft-07")]
    Draft7,
    #[serde(rename = "2019-09")]
    Draft2019_09,
    #[serde(rename = "2020-12")]
    Draft2020_12,
}

impl Dialect {
    pub(crate) fn from_draft(draft: Draft) -> Self {
        match draft {
            Draft::Draft4 => Dialect::Draft4,
            Draft::Draft6 => Dialect::Draft6,
            Draft::Draft7 => Dialect::Draft7,
            Draft::Draft201909 => Dialect::Draft2019_09,
            // `Draft` is non-exhaustive; anything newer or unknown is closest to 2020-12.
            _ => Dialect::Draft2020_12,
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            Dialect::Draft4 => "JSON Schema draft-04",
            Dialect::Draft6 => "JSON Schema draft-06",
            Dialect::Draft7 => "JSON Schema draft-07",
            Dialect::Draft2019_09 => "JSON Schema 2019-09",
            Dialect::Draft2020_12 => "JSON Schema 2020-12",
        }
    }
}

/// One way structuredContent breaks the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// JSON Pointer into structuredContent ("" is the root).
    pub pointer: String,
    /// The schema keyword that failed, e.g. "required", "type", "$ref".
    pub keyword: String,
    pub message: String,
    /// JSON Pointer to the failing keyword in the schema document (after `$ref` resolution).
    pub schema_path: String,
    /// The path taken to get there, through any `$ref`s.
    pub evaluation_path: String,
    /// For a `required` violation: the property that is missing (from the object at `pointer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_property: Option<String>,
}

impl Violation {
    /// The violation in plain words, e.g. `/value should be an integer, but it is the
    /// string "three"`.
    pub fn describe(&self) -> String {
        self.message.clone()
    }

    /// Where in the schema it failed: `keyword type, schema /properties/value/type`.
    pub fn schema_location(&self) -> String {
        format!(
            "keyword {}, schema {}",
            self.keyword,
            if self.schema_path.is_empty() {
                "(root)"
            } else {
                &self.schema_path
            }
        )
    }
}

/// Why the contract was not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// `isError: true`: a failure result need not match the output schema.
    ToolError,
    /// A JSON-RPC error: there is no result at all.
    ProtocolError,
    /// `resultType: "input_required"` (2026-07-28): the server asks for input first; this is
    /// not the tool's result.
    InputRequired,
    /// structuredContent nests deeper than [`MAX_VALIDATED_DEPTH`] levels.
    ValueTooDeep,
    /// The output schema nests deeper than [`MAX_VALIDATED_DEPTH`] levels.
    SchemaTooDeep,
}

impl SkipReason {
    pub fn describe(&self) -> &'static str {
        match self {
            SkipReason::ToolError => "the result has isError: true",
            SkipReason::ProtocolError => "the call failed with a protocol error",
            SkipReason::InputRequired => {
                "the server answered input_required: it asks for input before it gives a result"
            }
            SkipReason::ValueTooDeep => "structuredContent is nested too deep to validate",
            SkipReason::SchemaTooDeep => "the output schema is nested too deep to compile",
        }
    }
}

/// The outcome of checking structuredContent against outputSchema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ContractCheck {
    NoSchema {
        has_structured_content: bool,
    },
    NotChecked {
        reason: SkipReason,
    },
    Satisfied {
        dialect: Dialect,
    },
    Violated {
        dialect: Dialect,
        violations: Vec<Violation>,
        /// Violations beyond [`MAX_LISTED_VIOLATIONS`], counted but not listed.
        omitted: usize,
    },
    SchemaInvalid {
        error: String,
    },
}

impl ContractCheck {
    pub fn is_violated(&self) -> bool {
        matches!(
            self,
            ContractCheck::Violated { .. } | ContractCheck::SchemaInvalid { .. }
        )
    }

    /// Not validated because the value or the schema nests too deep.
    pub fn is_too_deep(&self) -> bool {
        matches!(
            self,
            ContractCheck::NotChecked {
                reason: SkipReason::ValueTooDeep | SkipReason::SchemaTooDeep
            }
        )
    }

    pub fn describe(&self) -> String {
        match self {
            ContractCheck::NoSchema {
                has_structured_content: false,
            } => "No output schema and no structuredContent: an application only gets text"
                .to_owned(),
            ContractCheck::NoSchema {
                has_structured_content: true,
            } => "No output schema: structuredContent is present but there is no contract to \
                  check it against"
                .to_owned(),
            ContractCheck::NotChecked {
                reason: SkipReason::ToolError,
            } => "Contract not checked: the result has isError: true, and error results need \
                  not match the output schema"
                .to_owned(),
            ContractCheck::NotChecked {
                reason: SkipReason::ProtocolError,
            } => "Contract not checked: the call failed with a protocol error, so there is no \
                  result"
                .to_owned(),
            ContractCheck::NotChecked {
                reason: SkipReason::InputRequired,
            } => "Contract not checked: the server answered input_required, a request for \
                  input, not the tool's result"
                .to_owned(),
            ContractCheck::NotChecked {
                reason: SkipReason::ValueTooDeep,
            } => format!(
                "Contract not validated: structuredContent is nested deeper than \
                 {MAX_VALIDATED_DEPTH} levels, too deep to check safely against the output schema"
            ),
            ContractCheck::NotChecked {
                reason: SkipReason::SchemaTooDeep,
            } => format!(
                "Contract not validated: the output schema is nested deeper than \
                 {MAX_VALIDATED_DEPTH} levels, too deep to compile safely"
            ),
            ContractCheck::Satisfied { dialect } => format!(
                "Contract satisfied: structuredContent matches the output schema ({})",
                dialect.describe()
            ),
            ContractCheck::Violated {
                dialect,
                violations,
                omitted,
            } => {
                let total = violations.len() + omitted;
                let first = violations
                    .first()
                    .map(|v| format!("; first: {}", v.describe()))
                    .unwrap_or_default();
                format!(
                    "Contract violated: structuredContent breaks the output schema ({}) in {total} \
                     place{}{first}",
                    dialect.describe(),
                    if total == 1 { "" } else { "s" }
                )
            }
            ContractCheck::SchemaInvalid { error } => format!(
                "Output schema cannot be compiled, so the contract cannot be checked: {error}"
            ),
        }
    }
}
