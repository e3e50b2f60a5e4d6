//! The tools a server lists, parsed leniently from the raw JSON: one malformed tool is shown
//! flagged instead of hiding the others, and fields rmcp would drop are kept in `raw`.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::{
    analysis::{MAX_CHECKED_DEPTH, check_header_annotations},
    deep_json::{clone_value, drop_value},
};

/// One tool as listed, with what we could read of it and what is wrong with it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolEntry {
    /// The tool exactly as the server sent it.
    pub raw: Value,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
    pub output_schema: Option<Value>,
    pub annotations: ToolHints,
    /// Plain-words problems with this tool's definition; empty when it is well formed.
    pub problems: Vec<String>,
    /// Why its `x-mcp-header` annotations are invalid (SEP-2243, 2026-07-28 and later): a
    /// Streamable HTTP client must not offer such a tool, so it is called only on request.
    pub invalid_headers: Option<String>,
}

/// The behaviour hints of `annotations`, as sent (`None` when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolHints {
    pub title: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// `(label, effective value, whether it was sent)` with the spec defaults for absent hints.
    pub fn effective(&self) -> [(&'static str, bool, bool); 4] {
        [
            (
                "read-only",
                self.read_only.unwrap_or(false),
                self.read_only.is_some(),
            ),
            (
                "destructive",
                self.destructive.unwrap_or(true),
                self.destructive.is_some(),
            ),
            (
                "idempotent",
                self.idempotent.unwrap_or(false),
                self.idempotent.is_some(),
            ),
            (
                "open-world",
                self.open_world.unwrap_or(true),
                self.open_world.is_some(),
            ),
        ]
    }
}

impl ToolEntry {
    /// Reads one tool. `modern` is true on protocol 2026-07-28 and later, where an output
    /// schema may have any root type.
    pub fn from_raw(raw: Value, index: usize, modern: bool) -> Self {
        let mut problems = Vec::new();
        let name = match raw.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            Some(Value::String(_)) => {
                problems.push("its name is empty".to_owned());
                format!("(tool #{index} with an empty name)")
            }
            Some(other) => {
                problems.push(format!("its name is not a string but {}", json_type(other)));
                format!("(tool #{index}: {other})")
            }
            None => {
                problems.push("it has no name".to_owned());
                format!("(unnamed tool #{index})")
            }
        };
        if !raw.is_object() {
            problems.push(format!("it is not a JSON object but {}", json_type(&raw)));
        }
        let title = optional_string(&raw, "title", &mut problems);
        let description = optional_string(&raw, "description", &mut problems);
        let input_schema = match raw.get("inputSchema") {
            Some(schema @ Value::Object(map)) => {
                if map.get("type").and_then(Value::as_str) != Some("object") {
                    problems.push("its inputSchema root is not of type \"object\"".to_owned());
                }
                Some(clone_value(schema))
            }
            Some(other) => {
                problems.push(format!(
                    "its inputSchema is {}, not a schema object",
                    json_type(other)
                ));
                None
            }
            None => {
                problems.push("it has no inputSchema (required)".to_owned());
                None
            }
        };
        let output_schema = match raw.get("outputSchema") {
            None | Some(Value::Null) => None,
            Some(schema @ Value::Object(map)) => {
                if !modern && map.get("type").and_then(Value::as_str) != Some("object") {
                    problems.push(
                        "its outputSchema root is not of type \"object\", which protocol \
                         2025-11-25 and older require"
                            .to_owned(),
                    );
                }
                Some(clone_value(schema))
            }
            Some(other) => {
                problems.push(format!(
                    "its outputSchema is {}, not a schema object",
                    json_type(other)
                ));
                None
            }
        };
        let annotations = read_hints(raw.get("annotations"), &mut problems);
        let invalid_headers = match &input_schema {
            Some(schema) if modern => check_headers(schema, &mut problems),
            _ => None,
        };
        Self {
            raw,
            name,
            title,
            description,
            input_schema,
            output_schema,
            annotations,
            problems,
            invalid_headers,
        }
    }

    /// `title`, then `annotations.title`, then `name`, as the spec says.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or(self.annotations.title.as_deref())
            .unwrap_or(&self.name)
    }
}

/// Checks the SEP-2243 header annotations; returns the reason the tool is excluded, if it is.
fn check_headers(schema: &Value, problems: &mut Vec<String>) -> Option<String> {
    let check = check_header_annotations(schema);
    if check.cut_at_depth {
        problems.push(format!(
            "its inputSchema nests deeper than {MAX_CHECKED_DEPTH} levels; x-mcp-header \
             annotations below that were not checked"
        ));
    }
    if check.is_valid() {
        return None;
    }
    let reason = check.reasons.join("; ");
    problems.push(format!(
        "its x-mcp-header annotations are invalid, so a Streamable HTTP client must exclude \
         it (SEP-2243): {reason}"
    ));
    Some(reason)
}

impl Drop for ToolEntry {
    /// A schema may nest 10,000 levels deep; `Value`'s own drop recurses per level.
    fn drop(&mut self) {
        drop_value(std::mem::take(&mut self.raw));
        for schema in [self.input_schema.take(), self.output_schema.take()]
            .into_iter()
            .flatten()
        {
            drop_value(schema);
        }
    }
}

fn optional_string(raw: &Value, key: &str, problems: &mut Vec<String>) -> Option<String> {
    match raw.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            problems.push(format!("its {key} is {}, not a string", json_type(other)));
            None
        }
    }
}

fn read_hints(annotations: Option<&Value>, problems: &mut Vec<String>) -> ToolHints {
    let Some(annotations) = annotations else {
        return ToolHints::default();
    };
    let Value::Object(map) = annotations else {
        problems.push(format!(
            "its annotations are {}, not an object",
            json_type(annotations)
        ));
        return ToolHints::default();
    };
    let mut hint = |key: &str| match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(value)) => Some(*value),
        Some(other) => {
            problems.push(format!(
                "annotation {key} is {}, not a boolean",
                json_type(other)
            ));
            None
        }
    };
    let read_only = hint("readOnlyHint");
    let destructive = hint("destructiveHint");
    let idempotent = hint("idempotentHint");
    let open_world = hint("openWorldHint");
    ToolHints {
        title: map.get("title").and_then(Value::as_str).map(str::to_owned),
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

pub use crate::text_util::json_type_phrase as json_type;

/// Every tool of a server, gathered over all pages.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ToolCatalog {
    pub tools: Vec<ToolEntry>,
    /// How many `tools/list` pages were fetched.
    pub pages: usize,
    /// Problems with the listing itself (a cursor that did not advance, a malformed page).
    pub warnings: Vec<String>,
}

impl ToolCatalog {
    pub fn find(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// Adds the tools of one raw `tools/list` result; returns its `nextCursor`.
    pub fn add_page(&mut self, page: &Value, modern: bool) -> Option<String> {
        self.pages += 1;
        match page.get("tools") {
            Some(Value::Array(tools)) => {
                let mut names: HashSet<String> =
                    self.tools.iter().map(|tool| tool.name.clone()).collect();
                for raw in tools {
                    let mut entry = ToolEntry::from_raw(clone_value(raw), self.tools.len(), modern);
                    if !names.insert(entry.name.clone()) {
                        entry
                            .problems
                            .push("another tool has the same name".to_owned());
                    }
                    self.tools.push(entry);
                }
            }
            Some(other) => self.warnings.push(format!(
                "page {} has `tools` as {}, not an array",
                self.pages,
                json_type(other)
            )),
            None => self
                .warnings
                .push(format!("page {} has no `tools` array", self.pages)),
        }
        match page.get("nextCursor") {
            Some(Value::String(cursor)) if !cursor.is_empty() => Some(cursor.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn well_formed_tool_keeps_unknown_fields() {
        let raw = json!({
            "name": "add", "inputSchema": {"type": "object"},
            "execution": {"taskSupport": "optional"}, "x-vendor": 1
        });
        let tool = ToolEntry::from_raw(raw, 0, false);
        assert!(tool.problems.is_empty(), "{:?}", tool.problems);
        assert_eq!(tool.raw["execution"]["taskSupport"], "optional");
        assert_eq!(tool.display_name(), "add");
    }

    #[test]
    fn display_name_precedence() {
        let both = json!({"name": "n", "title": "T", "annotations": {"title": "A"}, "inputSchema": {"type": "object"}});
        assert_eq!(ToolEntry::from_raw(both, 0, false).display_name(), "T");
        let annotation =
            json!({"name": "n", "annotations": {"title": "A"}, "inputSchema": {"type": "object"}});
        assert_eq!(
            ToolEntry::from_raw(annotation, 0, false).display_name(),
            "A"
        );
    }

    #[test]
    fn hint_defaults_follow_the_spec() {
        let tool = ToolEntry::from_raw(
            json!({"name": "n", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
            0,
            false,
        );
        let hints = tool.annotations.effective();
        assert_eq!(hints[0], ("read-only", true, true));
        assert_eq!(hints[1], ("destructive", true, false));
        assert_eq!(hints[3], ("open-world", true, false));
    }

    #[test]
    fn malformed_tools_are_flagged_not_dropped() {
        let mut catalog = ToolCatalog::default();
        let page = json!({"tools": [
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"inputSchema": {"type": "object"}},
            {"name": 5, "inputSchema": "nope"},
            {"name": "ok", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}, "annotations": {"readOnlyHint": "yes"}}
        ], "nextCursor": "p2"});
        assert_eq!(catalog.add_page(&page, false).as_deref(), Some("p2"));
        assert_eq!(catalog.tools.len(), 4);
        assert!(catalog.tools[0].problems.is_empty());
        assert!(catalog.tools[1].problems[0].contains("no name"));
        assert!(
            catalog.tools[2]
                .problems
                .iter()
                .any(|p| p.contains("not a string"))
        );
        let last = &catalog.tools[3].problems;
        assert!(last.iter().any(|p| p.contains("2025-11-25")), "{last:?}");
        assert!(last.iter().any(|p| p.contains("readOnlyHint")));
        assert!(last.iter().any(|p| p.contains("same name")));
    }

    #[test]
    fn invalid_header_annotations_flag_the_tool_in_the_modern_era() {
        let raw = json!({"name": "h", "inputSchema": {"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
            "id": {"type": "string", "x-mcp-header": "Bad Header"}
        }}});
        let tool = ToolEntry::from_raw(raw.clone(), 0, true);
        let reason = tool.invalid_headers.as_deref().unwrap();
        assert!(reason.contains("properties.list.items"), "{reason}");
        assert!(reason.contains("not an HTTP token"), "{reason}");
        assert!(tool.problems.iter().any(|p| p.contains("SEP-2243")));
        // Before 2026-07-28 the annotation means nothing.
        let legacy = ToolEntry::from_raw(raw, 0, false);
        assert!(legacy.invalid_headers.is_none() && legacy.problems.is_empty());
    }

    #[test]
    fn a_10000_deep_schema_is_listed_on_a_worker_stack() {
        let worker = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(|| {
                let mut text = String::from(r#"{"tools":[{"name":"deep","inputSchema":"#);
                for _ in 0..10_000 {
                    text.push_str(r#"{"type":"object","properties":{"p":"#);
                }
                text.push_str(r#"{"type":"string"}"#);
                text.push_str(&"}}".repeat(10_000));
                text.push_str("}]}");
                let page = crate::deep_json::parse(&text).unwrap();
                let mut catalog = ToolCatalog::default();
                catalog.add_page(&page, true);
                let tool = &catalog.tools[0];
                assert!(tool.invalid_headers.is_none());
                assert!(
                    tool.problems[0].contains("deeper than 256"),
                    "{:?}",
                    tool.problems
                );
                drop_value(page);
                drop(catalog);
            })
            .unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn array_output_schema_is_fine_in_the_modern_era() {
        let tool = ToolEntry::from_raw(
            json!({"name": "l", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}),
            0,
            true,
        );
        assert!(tool.problems.is_empty());
    }
}

/// How a tool may be run as a task (2025-11-25 `execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl ToolEntry {
    /// `execution.taskSupport` as the server sent it (absent: forbidden).
    pub fn task_support(&self) -> TaskSupport {
        match self
            .raw
            .get("execution")
            .and_then(|execution| execution.get("taskSupport"))
            .and_then(Value::as_str)
        {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}
