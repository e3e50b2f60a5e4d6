//! One difference between two interfaces: where it is, what it is in plain words, and whether
//! it can break a client that worked with the old interface.

use serde::Serialize;

/// Whether a change can break a client written against the old interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A call that worked may now fail, or a result a client relied on may now differ.
    Breaking,
    /// Nothing that worked stops working.
    Compatible,
}

impl Severity {
    pub fn is_breaking(self) -> bool {
        self == Self::Breaking
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Breaking => "breaking",
            Self::Compatible => "compatible",
        }
    }
}

/// What kind of change it is, for machines (`--json`) and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    ToolAdded,
    ToolRemoved,
    TitleChanged,
    DescriptionChanged,
    AnnotationChanged,
    InputSchemaAdded,
    InputSchemaRemoved,
    OutputSchemaAdded,
    OutputSchemaRemoved,
    PropertyAdded,
    PropertyRemoved,
    RequiredAdded,
    RequiredRemoved,
    TypeNarrowed,
    TypeWidened,
    TypeChanged,
    EnumAdded,
    EnumRemoved,
    EnumValuesAdded,
    EnumValuesRemoved,
    AdditionalPropertiesClosed,
    AdditionalPropertiesOpened,
    ConstraintTightened,
    ConstraintLoosened,
    /// A keyword whose effect Toolscope does not weigh (`pattern`, `anyOf`…) changed.
    KeywordChanged,
    /// Documentation inside a schema (`description`, `title`, `examples`, `default`…).
    SchemaDocChanged,
    ServerIdentityChanged,
}

/// One change, at a JSON-Pointer-like location inside the tool (`/inputSchema/properties/q`;
/// empty for the whole tool), with a sentence that says what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub severity: Severity,
    pub kind: ChangeKind,
    pub location: String,
    pub message: String,
}

impl Change {
    pub fn new(
        severity: Severity,
        kind: ChangeKind,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            kind,
            location: location.into(),
            message: message.into(),
        }
    }

    pub fn breaking(
        kind: ChangeKind,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Breaking, kind, location, message)
    }

    pub fn compatible(
        kind: ChangeKind,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Compatible, kind, location, message)
    }
}
