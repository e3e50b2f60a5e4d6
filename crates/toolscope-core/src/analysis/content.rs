//! Content blocks, parsed leniently: every block is kept, odd ones are flagged, none dropped.

use serde::Serialize;
use serde_json::Value;

use super::annotations::Annotations;

/// One entry of `content`, as understood, with its problems in plain words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentBlockView {
    /// Position in `content`, so a UI can find the original (e.g. to render image data).
    pub index: usize,
    #[serde(flatten)]
    pub kind: BlockKind,
    pub annotations: Option<Annotations>,
    pub meta: Option<Value>,
    pub problems: Vec<String>,
    /// The block's JSON, kept when the type is unknown or something is malformed.
    pub raw: Option<Value>,
}

/// What kind of block it is, with the fields that matter for display.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockKind {
    Text {
        text: Option<String>,
    },
    Image {
        mime_type: Option<String>,
        decoded_bytes: Option<usize>,
    },
    Audio {
        mime_type: Option<String>,
        decoded_bytes: Option<usize>,
    },
    ResourceLink {
        uri: Option<String>,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
        size: Option<u64>,
    },
    Resource {
        uri: Option<String>,
        mime_type: Option<String>,
        body: EmbeddedBody,
    },
    /// Not a known block type (or not even an object).
    Unknown {
        type_name: Option<String>,
    },
}

/// The contents of an embedded `resource` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EmbeddedBody {
    Text { text: String },
    Blob { decoded_bytes: Option<usize> },
    Missing,
}

impl ContentBlockView {
    /// The text of a well-formed text block.
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            BlockKind::Text { text } => text.as_deref(),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        let what = self.kind.describe();
        let mut s = format!("Block {}: {what}", self.index);
        if let Some(a) = &self.annotations {
            s.push_str(&format!(" ({})", a.describe()));
        }
        if !self.problems.is_empty() {
            s.push_str(&format!("; problems: {}", self.problems.join("; ")));
        }
        s
    }
}

impl BlockKind {
    /// Short name used in summaries ("text", "image", …).
    pub fn label(&self) -> &'static str {
        match self {
            BlockKind::Text { .. } => "text",
            BlockKind::Image { .. } => "image",
            BlockKind::Audio { .. } => "audio",
            BlockKind::ResourceLink { .. } => "resource link",
            BlockKind::Resource { .. } => "embedded resource",
            BlockKind::Unknown { .. } => "unknown",
        }
    }

    pub fn describe(&self) -> String {
        let bytes =
            |n: &Option<usize>| n.map_or("undecodable".to_owned(), |n| format!("{n} bytes"));
        let mime = |m: &Option<String>| m.clone().unwrap_or_else(|| "no mimeType".to_owned());
        match self {
            BlockKind::Text { text } => match text {
                Some(t) => format!("text, {} characters", t.chars().count()),
                None => "text block without text".to_owned(),
            },
            BlockKind::Image {
                mime_type,
                decoded_bytes,
            } => format!("image ({}, {})", mime(mime_type), bytes(decoded_bytes)),
            BlockKind::Audio {
                mime_type,
                decoded_bytes,
            } => format!("audio ({}, {})", mime(mime_type), bytes(decoded_bytes)),
            BlockKind::ResourceLink { uri, name, .. } => format!(
                "link to resource {} ({})",
                uri.as_deref().unwrap_or("(no uri)"),
                name.as_deref().unwrap_or("no name")
            ),
            BlockKind::Resource { uri, body, .. } => {
                let uri = uri.as_deref().unwrap_or("(no uri)");
                match body {
                    EmbeddedBody::Text { text } => {
                        format!("embedded resource {uri}, {} characters of text", text.len())
                    }
                    EmbeddedBody::Blob { decoded_bytes } => {
                        format!("embedded resource {uri}, blob of {}", bytes(decoded_bytes))
                    }
                    EmbeddedBody::Missing => format!("embedded resource {uri} with no contents"),
                }
            }
            BlockKind::Unknown { type_name } => match type_name {
                Some(t) => format!("unknown block type \"{t}\""),
                None => "block without a type".to_owned(),
            },
        }
    }
}
