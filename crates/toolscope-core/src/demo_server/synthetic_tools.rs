//! Extra generated tools (`demo-server --extra-tools N`), for trying a server with thousands of
//! tools: they are listed in pages of [`PAGE_SIZE`] with `nextCursor`, and each one echoes its
//! arguments back.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// Tools per `tools/list` page once extra tools are served.
pub const PAGE_SIZE: usize = 500;
/// The most extra tools the demo server makes.
pub const MAX_EXTRA_TOOLS: usize = 100_000;

const PREFIX: &str = "generated_";

/// `generated_00042` for index 42.
pub fn name(index: usize) -> String {
    format!("{PREFIX}{index:05}")
}

/// The index of a generated tool's name, if it is one of `count`.
pub fn index_of(name: &str, count: usize) -> Option<usize> {
    let index: usize = name.strip_prefix(PREFIX)?.parse().ok()?;
    (index < count).then_some(index)
}

pub fn tool(index: usize) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string", "description": "Anything; it comes back"}},
    });
    let description = format!(
        "Generated tool number {index}: echoes its arguments as structured content. Lets you \
         see how the tool list copes with many tools."
    );
    let mut tool = Tool::new(
        name(index),
        description,
        Arc::new(schema.as_object().cloned().unwrap_or_default()),
    );
    let mut hints = ToolAnnotations::default();
    hints.read_only_hint = Some(true);
    hints.open_world_hint = Some(false);
    tool.annotations = Some(hints);
    tool
}

pub fn call(index: usize, arguments: Option<JsonObject>) -> CallToolResult {
    let echoed =
        json!({"tool": name(index), "arguments": Value::Object(arguments.unwrap_or_default())});
    let mut result = CallToolResult::success(vec![ContentBlock::text(echoed.to_string())]);
    result.structured_content = Some(echoed);
    result
}

/// One page of `all` starting at the cursor (an offset); the next cursor if more remain.
/// A cursor this server did not hand out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cursor {0:?}")]
pub struct InvalidCursor(pub String);

pub fn page(
    all: Vec<Tool>,
    cursor: Option<&str>,
) -> Result<(Vec<Tool>, Option<String>), InvalidCursor> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .map_err(|_| InvalidCursor(cursor.to_owned()))?,
    };
    let end = (start + PAGE_SIZE).min(all.len());
    let next = (end < all.len()).then(|| end.to_string());
    Ok((
        all.into_iter()
            .skip(start)
            .take(end.saturating_sub(start))
            .collect(),
        next,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_pages() {
        assert_eq!(name(42), "generated_00042");
        assert_eq!(index_of("generated_00042", 100), Some(42));
        assert_eq!(index_of("generated_00042", 10), None);
        assert_eq!(index_of("add", 10), None);
        let all: Vec<Tool> = (0..1200).map(tool).collect();
        let (first, next) = page(all.clone(), None).unwrap();
        assert_eq!((first.len(), next.as_deref()), (500, Some("500")));
        let (last, next) = page(all.clone(), Some("1000")).unwrap();
        assert_eq!((last.len(), next), (200, None));
        assert!(page(all, Some("x")).is_err());
    }
}
