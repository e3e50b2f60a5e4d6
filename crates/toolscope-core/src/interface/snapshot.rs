//! `InterfaceSnapshot`: a server's identity and its tools (names, titles, descriptions, both
//! schemas, annotations and the raw definition) as a JSON document `toolscope snapshot`
//! writes and `toolscope diff` reads. Schemas may nest any depth: they are parsed, written,
//! copied and dropped without recursion.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{
    deep_json::{clone_value, drop_value, serialize_deep, serialize_deep_option},
    session::{ServerSummary, ToolCatalog, ToolEntry},
    text_util::{clip_chars, json_type_phrase},
};

/// The `format` member every snapshot carries.
pub const FORMAT: &str = "toolscope-interface";
/// The snapshot format version this Toolscope writes and reads.
pub const VERSION: u64 = 1;
/// Nesting up to which a snapshot is written indented.
pub const PRETTY_DEPTH: usize = 64;

/// Who the server said it was when the snapshot was taken.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerIdentity {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub protocol_version: Option<String>,
}

impl ServerIdentity {
    pub fn of(summary: &ServerSummary) -> Self {
        Self {
            name: summary.name.clone(),
            title: summary.title.clone(),
            version: summary.version.clone(),
            protocol_version: Some(summary.protocol_version.clone()),
        }
    }

    /// `toolscope-demo 0.1.0 · protocol 2026-07-28` (server text, not yet terminal-safe).
    pub fn line(&self) -> String {
        let mut line = self
            .name
            .clone()
            .unwrap_or_else(|| "(unnamed server)".to_owned());
        if let Some(version) = &self.version {
            line.push(' ');
            line.push_str(version);
        }
        if let Some(protocol) = &self.protocol_version {
            line.push_str(" · protocol ");
            line.push_str(protocol);
        }
        line
    }
}

/// One tool as listed. The named members are what the diff compares; `raw` is the definition
/// exactly as the server sent it (with fields the others leave out, such as `icons`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ToolSnapshot {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(
        rename = "inputSchema",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_deep_option"
    )]
    pub input_schema: Option<Value>,
    #[serde(
        rename = "outputSchema",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_deep_option"
    )]
    pub output_schema: Option<Value>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_deep_option"
    )]
    pub annotations: Option<Value>,
    #[serde(default, serialize_with = "serialize_deep")]
    pub raw: Value,
}

impl ToolSnapshot {
    pub fn of(tool: &ToolEntry) -> Self {
        Self {
            name: tool.name.clone(),
            title: tool.title.clone(),
            description: tool.description.clone(),
            input_schema: tool.input_schema.as_ref().map(clone_value),
            output_schema: tool.output_schema.as_ref().map(clone_value),
            annotations: tool
                .raw
                .get("annotations")
                .filter(|value| !value.is_null())
                .map(clone_value),
            raw: clone_value(&tool.raw),
        }
    }
}

impl Clone for ToolSnapshot {
    /// `Value::clone` recurses once per level; a schema may nest 10,000 levels deep.
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.as_ref().map(clone_value),
            output_schema: self.output_schema.as_ref().map(clone_value),
            annotations: self.annotations.as_ref().map(clone_value),
            raw: clone_value(&self.raw),
        }
    }
}

impl Drop for ToolSnapshot {
    /// `Value`'s own drop recurses once per level.
    fn drop(&mut self) {
        drop_value(std::mem::take(&mut self.raw));
        for value in [
            self.input_schema.take(),
            self.output_schema.take(),
            self.annotations.take(),
        ]
        .into_iter()
        .flatten()
        {
            drop_value(value);
        }
    }
}

/// A server's interface at one moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InterfaceSnapshot {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] for a snapshot this Toolscope wrote.
    pub version: u64,
    /// When it was taken, RFC 3339 in UTC.
    pub taken_at: String,
    pub server: ServerIdentity,
    pub tools: Vec<ToolSnapshot>,
}

/// Why a file or text is not a snapshot this Toolscope can read. The text says what was
/// expected; the caller adds which file it was.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("it cannot be read: {0}")]
    Io(#[from] std::io::Error),
    #[error("it is not JSON ({0}); expected an interface snapshot written by `toolscope snapshot`")]
    NotJson(serde_json::Error),
    #[error(
        "it is not a Toolscope interface snapshot: expected a JSON object with \
         \"format\": \"{FORMAT}\" (written by `toolscope snapshot <SERVER>`), found {found}"
    )]
    NotASnapshot { found: String },
    #[error(
        "it is an interface snapshot of format version {found}, and this Toolscope reads \
         version {VERSION}: take the snapshot again with this Toolscope"
    )]
    UnsupportedVersion { found: String },
    #[error("it is an interface snapshot, but malformed: {0}")]
    Malformed(serde_json::Error),
    #[error("it cannot be written: {0}")]
    Write(serde_json::Error),
}

impl InterfaceSnapshot {
    /// A snapshot of what a server listed, taken now.
    pub fn from_catalog(summary: &ServerSummary, catalog: &ToolCatalog) -> Self {
        Self::of_tools(
            ServerIdentity::of(summary),
            catalog.tools.iter().map(ToolSnapshot::of).collect(),
        )
    }

    /// A snapshot of these tools, taken now.
    pub fn of_tools(server: ServerIdentity, tools: Vec<ToolSnapshot>) -> Self {
        Self {
            format: FORMAT.to_owned(),
            version: VERSION,
            taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            server,
            tools,
        }
    }

    /// Reads a snapshot from JSON text of any depth, checking the format marker and version
    /// before anything else, so a wrong file gets a sentence about what was expected.
    pub fn from_json(text: &str) -> Result<Self, SnapshotError> {
        let value = crate::deep_json::parse(text).map_err(SnapshotError::NotJson)?;
        let read = Self::from_value(&value);
        drop_value(value);
        read
    }

    /// Reads a snapshot file.
    pub fn read(path: &std::path::Path) -> Result<Self, SnapshotError> {
        let text = std::fs::read_to_string(path)?;
        Self::from_json(&text)
    }

    fn from_value(value: &Value) -> Result<Self, SnapshotError> {
        let Value::Object(map) = value else {
            return Err(SnapshotError::NotASnapshot {
                found: json_type_phrase(value).to_owned(),
            });
        };
        match map.get("format") {
            Some(Value::String(format)) if format == FORMAT => {}
            Some(Value::String(format)) => {
                return Err(SnapshotError::NotASnapshot {
                    found: format!("\"format\": {:?}", clip_chars(format, 60)),
                });
            }
            Some(other) => {
                return Err(SnapshotError::NotASnapshot {
                    found: format!("\"format\" holding {}", json_type_phrase(other)),
                });
            }
            None => {
                return Err(SnapshotError::NotASnapshot {
                    found: "an object without \"format\"".to_owned(),
                });
            }
        }
        match map.get("version") {
            Some(version) if version.as_u64() == Some(VERSION) => {}
            Some(version) => {
                return Err(SnapshotError::UnsupportedVersion {
                    found: clip_chars(&crate::deep_json::to_string(version), 20),
                });
            }
            None => {
                return Err(SnapshotError::UnsupportedVersion {
                    found: "(none given)".to_owned(),
                });
            }
        }
        Self::deserialize(serde_stacker::Deserializer::new(value)).map_err(SnapshotError::Malformed)
    }

    /// Pretty JSON text (two-space indent), written without recursion. Indentation grows
    /// with the square of the depth, so a snapshot with a value nested deeper than
    /// [`PRETTY_DEPTH`] levels is written compact instead.
    pub fn to_json_pretty(&self) -> Result<String, SnapshotError> {
        let pretty = self.tools.iter().all(|tool| {
            crate::deep_json::depth(&tool.raw) <= PRETTY_DEPTH
                && [&tool.input_schema, &tool.output_schema, &tool.annotations]
                    .into_iter()
                    .flatten()
                    .all(|value| crate::deep_json::depth(value) <= PRETTY_DEPTH)
        });
        let mut out = Vec::new();
        crate::deep_json::serialize_to_writer(self, &mut out, pretty)
            .map_err(SnapshotError::Write)?;
        out.push(b'\n');
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(raw: Value) -> ToolEntry {
        ToolEntry::from_raw(raw, 0, true)
    }

    pub(crate) fn summary() -> ServerSummary {
        ServerSummary {
            protocol_version: "2026-07-28".to_owned(),
            lifecycle: "server/discover",
            lifecycle_reason: None,
            name: Some("demo".to_owned()),
            title: Some("Demo".to_owned()),
            version: Some("1.0.0".to_owned()),
            capabilities: json!({}),
            instructions: None,
        }
    }

    #[test]
    fn a_snapshot_keeps_identity_tools_and_raw_definitions_and_round_trips() {
        let catalog = ToolCatalog {
            tools: vec![tool(json!({
                "name": "add",
                "title": "Add",
                "description": "Adds",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}},
                "outputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": true},
                "icons": [{"src": "data:image/png;base64,AA=="}],
            }))],
            pages: 1,
            warnings: Vec::new(),
        };
        let snapshot = InterfaceSnapshot::from_catalog(&summary(), &catalog);
        assert_eq!(snapshot.format, FORMAT);
        assert_eq!(snapshot.version, VERSION);
        assert!(
            chrono::DateTime::parse_from_rfc3339(&snapshot.taken_at).is_ok(),
            "{}",
            snapshot.taken_at
        );
        assert_eq!(snapshot.server.name.as_deref(), Some("demo"));
        assert_eq!(
            snapshot.server.protocol_version.as_deref(),
            Some("2026-07-28")
        );
        let text = snapshot.to_json_pretty().unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["format"], "toolscope-interface");
        assert_eq!(value["version"], 1);
        assert_eq!(
            value["tools"][0]["inputSchema"]["properties"]["a"]["type"],
            "number"
        );
        assert_eq!(
            value["tools"][0]["annotations"],
            json!({"readOnlyHint": true})
        );
        assert_eq!(
            value["tools"][0]["raw"]["icons"][0]["src"],
            "data:image/png;base64,AA=="
        );
        let read = InterfaceSnapshot::from_json(&text).unwrap();
        assert_eq!(read.server, snapshot.server);
        assert_eq!(read.taken_at, snapshot.taken_at);
        assert_eq!(read.tools[0].title.as_deref(), Some("Add"));
        assert_eq!(read.tools[0].output_schema, Some(json!({"type": "object"})));
    }

    #[test]
    fn a_file_that_is_not_a_snapshot_says_what_was_expected() {
        let cases = [
            ("[1]", "found an array"),
            ("{\"tools\": []}", "found an object without \"format\""),
            ("{\"format\": \"other\"}", "found \"format\": \"other\""),
        ];
        for (text, found) in cases {
            let error = InterfaceSnapshot::from_json(text).unwrap_err().to_string();
            assert!(
                error.contains("expected a JSON object with \"format\": \"toolscope-interface\""),
                "{error}"
            );
            assert!(error.contains(found), "{error}");
        }
        let error = InterfaceSnapshot::from_json("not json").unwrap_err();
        assert!(matches!(error, SnapshotError::NotJson(_)), "{error}");
        let error =
            InterfaceSnapshot::from_json(r#"{"format": "toolscope-interface", "version": 7}"#)
                .unwrap_err();
        assert!(error.to_string().contains("format version 7"), "{error}");
        let error = InterfaceSnapshot::from_json(
            r#"{"format": "toolscope-interface", "version": 1, "tools": 3}"#,
        )
        .unwrap_err();
        assert!(matches!(error, SnapshotError::Malformed(_)), "{error}");
    }

    #[test]
    fn a_schema_nested_ten_thousand_levels_reads_writes_and_drops() {
        let levels = 10_000;
        let schema = "{\"type\":\"object\",\"properties\":{\"x\":".repeat(levels)
            + "{}"
            + &"}}".repeat(levels);
        let text = format!(
            "{{\"format\":\"toolscope-interface\",\"version\":1,\"taken_at\":\"2026-01-01T00:00:00Z\",\
             \"server\":{{}},\"tools\":[{{\"name\":\"deep\",\"inputSchema\":{schema},\"raw\":{{}}}}]}}"
        );
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let snapshot = InterfaceSnapshot::from_json(&text).unwrap();
                let copy = snapshot.clone();
                let written = copy.to_json_pretty().unwrap();
                // Too deep to indent: written compact, and read back whole.
                assert!(!written.trim_end().contains('\n'), "not compact");
                let again = InterfaceSnapshot::from_json(&written).unwrap();
                let depth = crate::deep_json::depth(again.tools[0].input_schema.as_ref().unwrap());
                assert_eq!(depth, 2 * levels + 1);
                snapshot.tools.len()
            })
            .unwrap();
        assert_eq!(worker.join().unwrap(), 1);
    }
}
