//! The raw response as people read it: base64 data (`data` of an image or audio block, `blob`
//! of an embedded resource) cut to its first characters and a count, so the JSON around it is
//! visible. The window shows this first, the whole text one click away.

use serde::{Serialize, Serializer};

use toolscope_core::json_doc::{JsonKind, JsonRef};

/// Base64 strings longer than this are cut.
const LONG: usize = 120;
/// How much of a cut string stays.
const KEPT: usize = 48;

/// Whether `result` holds base64 data worth cutting (in its content blocks).
pub fn has_long_base64(result: JsonRef<'_>) -> bool {
    result
        .get("content")
        .is_some_and(|blocks| blocks.items().any(block_has_long_base64))
}

fn block_has_long_base64(block: JsonRef<'_>) -> bool {
    let long = |value: Option<JsonRef<'_>>| {
        value
            .and_then(JsonRef::as_str)
            .is_some_and(|s| s.len() > LONG)
    };
    long(block.get("data")) || long(block.get("resource").and_then(|r| r.get("blob")))
}

/// A response message as received, its content blocks' base64 data cut.
pub fn short_message(message: JsonRef<'_>) -> impl Serialize + '_ {
    Short(message, Place::Message)
}

/// Where a value sits: only the base64 of content blocks is cut, nothing in structuredContent
/// or `_meta` that happens to be called `data`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The JSON-RPC message.
    Message,
    /// Its `result`.
    Result,
    /// The `content` list.
    Content,
    /// One content block.
    Block,
    /// A block's embedded `resource`.
    Resource,
    /// A block's `data` or a resource's `blob`: base64.
    Base64,
    Elsewhere,
}

/// A value serialized with the base64 of content blocks cut.
struct Short<'a>(JsonRef<'a>, Place);

impl Serialize for Short<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.0;
        match value.kind() {
            JsonKind::String
                if self.1 == Place::Base64
                    && value.as_str().is_some_and(|text| text.len() > LONG) =>
            {
                let text = value.as_str().unwrap_or_default();
                let kept = toolscope_core::text_util::cut_at_char_boundary(&text, KEPT);
                serializer.serialize_str(&format!(
                    "{kept}… [{} more characters of base64]",
                    text.len() - kept.len()
                ))
            }
            // `collect_*`: serde_stacker grows the stack only there (values may nest deep).
            JsonKind::Array => {
                let inner = if self.1 == Place::Content {
                    Place::Block
                } else {
                    Place::Elsewhere
                };
                serializer.collect_seq(value.items().map(|item| Short(item, inner)))
            }
            JsonKind::Object => {
                let place = self.1;
                serializer.collect_map(value.entries().map(|(key, value)| {
                    let inner = match (place, key.as_ref()) {
                        (Place::Message, "result") => Place::Result,
                        (Place::Result, "content") => Place::Content,
                        (Place::Block, "data") | (Place::Resource, "blob") => Place::Base64,
                        (Place::Block, "resource") => Place::Resource,
                        _ => Place::Elsewhere,
                    };
                    (key, Short(value, inner))
                }))
            }
            _ => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolscope_core::json_doc::JsonDoc;

    #[test]
    fn base64_is_cut_and_the_rest_kept() {
        let data = "A".repeat(10_000);
        let result = json!({"content": [
            {"type": "image", "mimeType": "image/png", "data": data},
            {"type": "text", "text": "short", "data": "not base64 but short"},
            {"type": "resource", "resource": {"uri": "x:1", "blob": data}}
        ], "structuredContent": {"data": data}});
        let message = JsonDoc::from_value(&json!({"jsonrpc": "2.0", "id": 3, "result": result}));
        let message = message.root();
        assert!(has_long_base64(message.get("result").unwrap()));
        let short = serde_json::to_value(short_message(message)).unwrap();
        let cut = short["result"]["content"][0]["data"].as_str().unwrap();
        assert!(cut.starts_with(&"A".repeat(KEPT)), "{cut}");
        assert!(cut.ends_with("… [9952 more characters of base64]"), "{cut}");
        assert_eq!(
            short["result"]["content"][1]["data"],
            "not base64 but short"
        );
        assert_eq!(short["result"]["content"][0]["mimeType"], "image/png");
        let blob = short["result"]["content"][2]["resource"]["blob"]
            .as_str()
            .unwrap();
        assert!(blob.ends_with("more characters of base64]"));
        assert_eq!(
            short["result"]["structuredContent"]["data"]
                .as_str()
                .unwrap()
                .len(),
            10_000,
            "structuredContent is the application's data, never cut"
        );
        let text_only = JsonDoc::from_value(&json!({"content": [{"type": "text", "text": "x"}]}));
        assert!(!has_long_base64(text_only.root()));
    }
}
