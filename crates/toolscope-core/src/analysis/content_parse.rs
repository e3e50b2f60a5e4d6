//! Lenient parsing of content blocks: every block is kept, odd ones are flagged, none dropped.

use serde_json::{Map, Value};

use super::annotations::{json_type_phrase, parse_annotations};
use super::base64_data::decode_len;
use super::content::{BlockKind, ContentBlockView, EmbeddedBody};
use super::deep::{bounded_copy, too_deep_note};

/// Parses `content`; a missing or non-array `content` yields no blocks (the caller notes it).
#[cfg(test)]
pub(crate) fn parse_content(content: &Value) -> Vec<ContentBlockView> {
    match content.as_array() {
        Some(items) => items
            .iter()
            .enumerate()
            .map(|(i, b)| parse_block(i, b))
            .collect(),
        None => Vec::new(),
    }
}

/// [`parse_block`] of a block the caller no longer needs: a text block's text is moved into
/// the view instead of copied (it may be megabytes, and it is the block's bulk).
pub(crate) fn parse_block_owned(index: usize, mut block: Value) -> ContentBlockView {
    let text = block
        .as_object_mut()
        .filter(|object| object.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|object| match object.get_mut("text") {
            Some(Value::String(text)) => Some(std::mem::take(text)),
            _ => None,
        });
    let mut view = parse_block(index, &block);
    if let (Some(text), BlockKind::Text { text: Some(slot) }) = (text, &mut view.kind) {
        *slot = text;
    }
    crate::deep_json::drop_value(block);
    view
}

pub(crate) fn parse_block(index: usize, block: &Value) -> ContentBlockView {
    let mut problems = Vec::new();
    let Some(obj) = block.as_object() else {
        problems.push(format!(
            "block is {}, not an object",
            json_type_phrase(block)
        ));
        let raw = raw_copy(block, &mut problems);
        return ContentBlockView {
            index,
            kind: BlockKind::Unknown { type_name: None },
            annotations: None,
            meta: None,
            problems,
            raw,
        };
    };
    let type_name = obj.get("type").and_then(Value::as_str);
    let kind = match type_name {
        Some("text") => BlockKind::Text {
            text: req_str(obj, "text", "text block", &mut problems),
        },
        Some(t @ ("image" | "audio")) => {
            let (mime_type, decoded_bytes) = media(obj, t, &mut problems);
            if t == "image" {
                BlockKind::Image {
                    mime_type,
                    decoded_bytes,
                }
            } else {
                BlockKind::Audio {
                    mime_type,
                    decoded_bytes,
                }
            }
        }
        Some("resource_link") => resource_link(obj, &mut problems),
        Some("resource") => embedded_resource(obj, &mut problems),
        Some(other) => {
            problems.push(format!("unknown block type \"{other}\""));
            BlockKind::Unknown {
                type_name: Some(other.to_owned()),
            }
        }
        None => {
            problems.push(match obj.get("type") {
                None => "block has no \"type\"".to_owned(),
                Some(v) => format!("block \"type\" is {}, not a string", json_type_phrase(v)),
            });
            BlockKind::Unknown { type_name: None }
        }
    };
    let annotations = obj
        .get("annotations")
        .filter(|a| !a.is_null())
        .and_then(|a| parse_annotations(a, &mut problems));
    let meta = obj.get("_meta").and_then(|m| {
        if !m.is_object() {
            problems.push(format!("_meta is {}, not an object", json_type_phrase(m)));
        }
        let copy = bounded_copy(m);
        if copy.is_none() {
            problems.push(too_deep_note("_meta"));
        }
        copy
    });
    let raw = if problems.is_empty() {
        None
    } else {
        raw_copy(block, &mut problems)
    };
    ContentBlockView {
        index,
        kind,
        annotations,
        meta,
        problems,
        raw,
    }
}

/// The block's JSON for the report, unless it is too deep to copy (then a problem says so).
fn raw_copy(block: &Value, problems: &mut Vec<String>) -> Option<Value> {
    let copy = bounded_copy(block);
    if copy.is_none() {
        problems.push(too_deep_note("the block"));
    }
    copy
}

/// A required string field; absent or non-string values become problems.
fn req_str(
    obj: &Map<String, Value>,
    key: &str,
    ctx: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None => {
            problems.push(format!("{ctx} has no \"{key}\""));
            None
        }
        Some(v) => {
            problems.push(format!(
                "{ctx} \"{key}\" is {}, not a string",
                json_type_phrase(v)
            ));
            None
        }
    }
}

/// An optional string field; a wrong type is still a problem.
fn opt_str(
    obj: &Map<String, Value>,
    key: &str,
    ctx: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(_) => req_str(obj, key, ctx, problems),
    }
}

/// `image`/`audio`: mimeType and the decoded size of `data`.
fn media(
    obj: &Map<String, Value>,
    kind: &str,
    problems: &mut Vec<String>,
) -> (Option<String>, Option<usize>) {
    let ctx = format!("{kind} block");
    let mime_type = req_str(obj, "mimeType", &ctx, problems);
    if let Some(m) = &mime_type
        && !m.starts_with(&format!("{kind}/"))
    {
        problems.push(format!("mimeType \"{m}\" is not an {kind}/* type"));
    }
    let size = req_str(obj, "data", &ctx, problems).and_then(|data| {
        let (size, problem) = decode_len("data", &data);
        problems.extend(problem);
        size
    });
    (mime_type, size)
}

fn resource_link(obj: &Map<String, Value>, problems: &mut Vec<String>) -> BlockKind {
    let ctx = "resource_link block";
    let size = match obj.get("size") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let n = v.as_u64();
            if n.is_none() {
                problems.push(format!(
                    "resource_link \"size\" is {v}, not a non-negative whole number of bytes"
                ));
            }
            n
        }
    };
    BlockKind::ResourceLink {
        uri: req_str(obj, "uri", ctx, problems),
        name: req_str(obj, "name", ctx, problems),
        title: opt_str(obj, "title", ctx, problems),
        description: opt_str(obj, "description", ctx, problems),
        mime_type: opt_str(obj, "mimeType", ctx, problems),
        size,
    }
}

fn embedded_resource(obj: &Map<String, Value>, problems: &mut Vec<String>) -> BlockKind {
    let Some(res) = obj.get("resource").and_then(Value::as_object) else {
        problems.push("resource block has no \"resource\" object".to_owned());
        return BlockKind::Resource {
            uri: None,
            mime_type: None,
            body: EmbeddedBody::Missing,
        };
    };
    let ctx = "embedded resource";
    let uri = req_str(res, "uri", ctx, problems);
    let mime_type = opt_str(res, "mimeType", ctx, problems);
    let text = res.get("text");
    let blob = res.get("blob");
    let body = match (text, blob) {
        (Some(_), Some(_)) => {
            problems.push("embedded resource has both \"text\" and \"blob\"".to_owned());
            text_body(res, ctx, problems)
        }
        (Some(_), None) => text_body(res, ctx, problems),
        (None, Some(_)) => match req_str(res, "blob", ctx, problems) {
            Some(b) => {
                let (decoded_bytes, problem) = decode_len("blob", &b);
                problems.extend(problem);
                EmbeddedBody::Blob { decoded_bytes }
            }
            None => EmbeddedBody::Missing,
        },
        (None, None) => {
            problems.push("embedded resource has neither \"text\" nor \"blob\"".to_owned());
            EmbeddedBody::Missing
        }
    };
    BlockKind::Resource {
        uri,
        mime_type,
        body,
    }
}

fn text_body(res: &Map<String, Value>, ctx: &str, problems: &mut Vec<String>) -> EmbeddedBody {
    match req_str(res, "text", ctx, problems) {
        Some(text) => EmbeddedBody::Text { text },
        None => EmbeddedBody::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(block: Value) -> ContentBlockView {
        parse_block(0, &block)
    }

    #[test]
    fn every_block_type_parses_cleanly() {
        let blocks = parse_content(&json!([
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt",
             "title": "A", "description": "d", "mimeType": "text/plain", "size": 12},
            {"type": "resource", "resource": {"uri": "mem://x", "mimeType": "text/plain", "text": "abc"}},
            {"type": "resource", "resource": {"uri": "mem://y", "blob": "aGVsbG8="}}
        ]));
        assert_eq!(blocks.len(), 6);
        for b in &blocks {
            assert!(b.problems.is_empty(), "{b:?}");
            assert!(b.raw.is_none());
        }
        assert_eq!(blocks[0].text(), Some("hi"));
        assert_eq!(
            blocks[1].kind,
            BlockKind::Image {
                mime_type: Some("image/png".into()),
                decoded_bytes: Some(5)
            }
        );
        assert!(matches!(
            blocks[2].kind,
            BlockKind::Audio {
                decoded_bytes: Some(2),
                ..
            }
        ));
        assert!(matches!(
            blocks[3].kind,
            BlockKind::ResourceLink { size: Some(12), .. }
        ));
        assert!(matches!(
            &blocks[4].kind,
            BlockKind::Resource { body: EmbeddedBody::Text { text }, .. } if text == "abc"
        ));
        assert!(matches!(
            blocks[5].kind,
            BlockKind::Resource {
                body: EmbeddedBody::Blob {
                    decoded_bytes: Some(5)
                },
                ..
            }
        ));
        assert_eq!(blocks[3].index, 3);
        let json = serde_json::to_value(&blocks[0]).unwrap();
        assert_eq!(json["kind"], "text");
        assert_eq!(json["text"], "hi");
    }

    #[test]
    fn annotations_and_meta_are_read() {
        let b = one(json!({"type": "text", "text": "x", "_meta": {"k": 1},
            "annotations": {"audience": ["assistant"], "priority": 0.9}}));
        assert!(b.problems.is_empty());
        let a = b.annotations.clone().unwrap();
        assert_eq!(a.audience, vec!["assistant"]);
        assert_eq!(a.priority, Some(0.9));
        assert_eq!(b.meta, Some(json!({"k": 1})));
        assert!(b.describe().contains("for assistant"));
    }

    #[test]
    fn unknown_type_is_kept_with_raw() {
        let raw = json!({"type": "video", "url": "x"});
        let b = one(raw.clone());
        assert_eq!(
            b.kind,
            BlockKind::Unknown {
                type_name: Some("video".into())
            }
        );
        assert_eq!(b.raw, Some(raw));
        assert_eq!(b.problems, vec!["unknown block type \"video\""]);

        let b = one(json!("just a string"));
        assert_eq!(b.kind, BlockKind::Unknown { type_name: None });
        assert_eq!(b.problems, vec!["block is a string, not an object"]);
        assert!(one(json!({"text": "x"})).problems[0].contains("no \"type\""));
    }

    #[test]
    fn malformed_fields_are_flagged_not_dropped() {
        let b = one(json!({"type": "image", "data": "aGVsbG8="}));
        assert_eq!(b.problems, vec!["image block has no \"mimeType\""]);
        assert!(matches!(
            b.kind,
            BlockKind::Image {
                mime_type: None,
                decoded_bytes: Some(5)
            }
        ));
        assert!(b.raw.is_some());

        let b = one(json!({"type": "audio", "data": "%%%", "mimeType": "audio/mpeg"}));
        assert!(matches!(
            b.kind,
            BlockKind::Audio {
                decoded_bytes: None,
                ..
            }
        ));
        assert!(
            b.problems[0].starts_with("data is not valid base64"),
            "{:?}",
            b.problems
        );

        let b = one(json!({"type": "image", "data": "aGk=", "mimeType": "text/plain"}));
        assert!(b.problems[0].contains("not an image/* type"));

        let b = one(json!({"type": "text"}));
        assert_eq!(b.kind, BlockKind::Text { text: None });
        assert_eq!(b.problems, vec!["text block has no \"text\""]);

        let b = one(json!({"type": "text", "text": "x", "annotations": {"audience": ["system"]}}));
        assert_eq!(b.annotations.clone().unwrap().audience, vec!["system"]);
        assert!(b.problems[0].contains("\"system\""));
        assert!(b.raw.is_some());
    }

    #[test]
    fn malformed_resources_are_flagged() {
        let b = one(json!({"type": "resource_link", "uri": "x://y", "size": -1}));
        assert_eq!(b.problems.len(), 2, "{:?}", b.problems);
        let b = one(json!({"type": "resource", "resource": {"uri": "x://y"}}));
        assert!(matches!(
            b.kind,
            BlockKind::Resource {
                body: EmbeddedBody::Missing,
                ..
            }
        ));
        assert!(b.problems[0].contains("neither"));
        let b = one(json!({"type": "resource", "resource": {"uri": "x://y", "blob": "@@"}}));
        assert!(b.problems[0].starts_with("blob is not valid base64"));
        assert!(one(json!({"type": "resource"})).problems[0].contains("no \"resource\""));
    }

    #[test]
    fn non_array_content_yields_no_blocks() {
        assert!(parse_content(&json!({"type": "text"})).is_empty());
        assert!(parse_content(&json!([])).is_empty());
    }
}
