//! Do the text blocks carry the same data as structuredContent? Compared as parsed JSON.

use serde::Serialize;
use serde_json::Value;

use super::error_kind::clip;
use super::json_compare::{first_difference, json_equal, short};

/// How the text blocks mirror structuredContent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MirrorShape {
    /// A text block holds the JSON of the whole structuredContent.
    WholeValue,
    /// A text block holds the value inside a `{"result": …}` wrapper (a string may be unquoted).
    UnwrappedResult,
    /// One text block per item of the (possibly wrapped) list, in order.
    OneBlockPerItem,
}

impl MirrorShape {
    pub fn describe(&self) -> &'static str {
        match self {
            MirrorShape::WholeValue => "whole value",
            MirrorShape::UnwrappedResult => "unwrapped `result` value",
            MirrorShape::OneBlockPerItem => "one block per list item",
        }
    }
}

/// Outcome of the text-mirror comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextMirror {
    NoStructuredContent { text_blocks: usize },
    NoTextBlocks,
    Matches { shape: MirrorShape },
    Differs { detail: String },
}

impl TextMirror {
    pub fn describe(&self) -> String {
        match self {
            TextMirror::NoStructuredContent { text_blocks } => format!(
                "Text mirror: not applicable, there is no structuredContent ({text_blocks} text \
                 block{})",
                if *text_blocks == 1 { "" } else { "s" }
            ),
            TextMirror::NoTextBlocks => "Text mirror: missing; there is structuredContent but no \
                 text block, so clients that only read text see nothing (a tool SHOULD also \
                 return the JSON as text)"
                .to_owned(),
            TextMirror::Matches { shape } => format!(
                "Text mirror: the text blocks carry the same data as structuredContent ({})",
                shape.describe()
            ),
            TextMirror::Differs { detail } => format!(
                "Text mirror: the text blocks do not carry the same data as structuredContent: \
                 {detail}"
            ),
        }
    }
}

/// Compares the texts of the well-formed text blocks with structuredContent.
pub(crate) fn check_text_mirror(structured: Option<&Value>, texts: &[&str]) -> TextMirror {
    let Some(whole) = structured else {
        return TextMirror::NoStructuredContent {
            text_blocks: texts.len(),
        };
    };
    if texts.is_empty() {
        return TextMirror::NoTextBlocks;
    }
    // Each text is parsed once; all comparisons below reuse these values.
    let parsed: Vec<Option<Value>> = texts.iter().map(|t| serde_json::from_str(t).ok()).collect();
    let unwrapped = whole
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("result"));

    if parsed.iter().flatten().any(|p| json_equal(whole, p)) {
        return TextMirror::Matches {
            shape: MirrorShape::WholeValue,
        };
    }
    if let Some(inner) = unwrapped
        && (0..texts.len()).any(|i| text_matches(inner, texts[i], parsed[i].as_ref()))
    {
        return TextMirror::Matches {
            shape: MirrorShape::UnwrappedResult,
        };
    }
    let (list, prefix) = match (unwrapped, whole) {
        (Some(Value::Array(items)), _) => (Some(items), "/result"),
        (_, Value::Array(items)) => (Some(items), ""),
        _ => (None, ""),
    };
    if let Some(items) = list
        && items.len() == texts.len()
        && (0..texts.len()).all(|i| text_matches(&items[i], texts[i], parsed[i].as_ref()))
    {
        return TextMirror::Matches {
            shape: MirrorShape::OneBlockPerItem,
        };
    }
    TextMirror::Differs {
        detail: explain_difference(whole, unwrapped, list.map(|l| (l, prefix)), texts, &parsed),
    }
}

/// A text matches a value if its JSON equals it, or it is that string verbatim (unquoted).
fn text_matches(value: &Value, text: &str, parsed: Option<&Value>) -> bool {
    parsed.is_some_and(|p| json_equal(value, p)) || value.as_str() == Some(text)
}

fn explain_difference(
    whole: &Value,
    unwrapped: Option<&Value>,
    list: Option<(&Vec<Value>, &str)>,
    texts: &[&str],
    parsed: &[Option<Value>],
) -> String {
    if let [text] = texts {
        return match (&parsed[0], unwrapped) {
            (None, Some(Value::String(s))) => format!(
                "text \"{}\" is neither JSON nor the result string \"{}\"",
                clip(text, 40),
                clip(s, 40)
            ),
            (None, _) => format!("text is not JSON (\"{}\")", clip(text, 40)),
            (Some(p), Some(inner)) if !is_result_object(p) => diff_phrase(inner, p, "/result"),
            (Some(p), _) => diff_phrase(whole, p, ""),
        };
    }
    if let Some((items, prefix)) = list {
        if items.len() != texts.len() {
            return format!(
                "{} text blocks, but the list at {} has {} items",
                texts.len(),
                if prefix.is_empty() {
                    "the root"
                } else {
                    prefix
                },
                items.len()
            );
        }
        for (i, item) in items.iter().enumerate() {
            if !text_matches(item, texts[i], parsed[i].as_ref()) {
                return match &parsed[i] {
                    None => format!("text block {i} is not JSON and is not item {prefix}/{i}"),
                    Some(p) => format!(
                        "text block {i} does not match item {prefix}/{i}: {}",
                        diff_phrase(item, p, &format!("{prefix}/{i}"))
                    ),
                };
            }
        }
    }
    match parsed.iter().flatten().next() {
        None => format!("none of the {} text blocks is JSON", texts.len()),
        Some(p) => format!(
            "none of the {} text blocks is the structuredContent JSON; the first JSON one: {}",
            texts.len(),
            diff_phrase(whole, p, "")
        ),
    }
}

fn diff_phrase(expected: &Value, actual: &Value, prefix: &str) -> String {
    match first_difference(expected, actual) {
        Some(d) => {
            let at = format!("{prefix}{}", d.pointer);
            let at = if at.is_empty() {
                "the root".to_owned()
            } else {
                at
            };
            format!("text JSON differs at {at} ({})", d.detail)
        }
        None => format!("text JSON equals {}", short(expected)),
    }
}

fn is_result_object(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.contains_key("result"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mirror(structured: Value, texts: &[&str]) -> TextMirror {
        check_text_mirror(Some(&structured), texts)
    }

    fn matches(shape: MirrorShape) -> TextMirror {
        TextMirror::Matches { shape }
    }

    fn detail(m: TextMirror) -> String {
        match m {
            TextMirror::Differs { detail } => detail,
            other => panic!("expected a difference, got {other:?}"),
        }
    }

    #[test]
    fn whole_value_pretty_compact_reordered() {
        let s = json!({"count": 3, "items": ["a", "b"], "ok": true});
        let pretty =
            "{\n  \"count\": 3,\n  \"items\": [\n    \"a\",\n    \"b\"\n  ],\n  \"ok\": true\n}";
        assert_eq!(
            mirror(s.clone(), &[pretty]),
            matches(MirrorShape::WholeValue)
        );
        let compact = r#"{"count":3,"items":["a","b"],"ok":true}"#;
        assert_eq!(
            mirror(s.clone(), &[compact]),
            matches(MirrorShape::WholeValue)
        );
        let reordered = r#"{"ok":true,"items":["a","b"],"count":3.0}"#;
        assert_eq!(
            mirror(s.clone(), &[reordered]),
            matches(MirrorShape::WholeValue)
        );
        // A human note alongside the JSON block still counts.
        assert_eq!(
            mirror(s, &["Here you go:", compact]),
            matches(MirrorShape::WholeValue)
        );
        assert!(
            matches(MirrorShape::WholeValue)
                .describe()
                .ends_with("(whole value)")
        );
    }

    #[test]
    fn wrapped_list_one_block_per_item() {
        let m = mirror(json!({"result": [1, 2, 3]}), &["1", "2", "3"]);
        assert_eq!(m, matches(MirrorShape::OneBlockPerItem));
        assert_eq!(
            m.describe(),
            "Text mirror: the text blocks carry the same data as structuredContent \
             (one block per list item)"
        );
        let m = mirror(json!({"result": ["x", {"a": 1}]}), &["x", "{\"a\": 1.0}"]);
        assert_eq!(m, matches(MirrorShape::OneBlockPerItem));
        // Modern era: a bare list.
        assert_eq!(
            mirror(json!([1, 2]), &["1", "2"]),
            matches(MirrorShape::OneBlockPerItem)
        );
    }

    #[test]
    fn wrapped_scalar_and_string() {
        assert_eq!(
            mirror(json!({"result": 3}), &["3"]),
            matches(MirrorShape::UnwrappedResult)
        );
        assert_eq!(
            mirror(json!({"result": 3}), &["3.0"]),
            matches(MirrorShape::UnwrappedResult)
        );
        assert_eq!(
            mirror(json!({"result": "hi"}), &["hi"]),
            matches(MirrorShape::UnwrappedResult)
        );
        assert_eq!(
            mirror(json!({"result": "hi"}), &["\"hi\""]),
            matches(MirrorShape::UnwrappedResult)
        );
        assert_eq!(
            mirror(json!({"result": [1, 2]}), &["[1,2]"]),
            matches(MirrorShape::UnwrappedResult)
        );
        assert_eq!(
            mirror(json!({"result": 3}), &["{\"result\": 3}"]),
            matches(MirrorShape::WholeValue)
        );
    }

    #[test]
    fn differing_data_is_located() {
        let d = detail(mirror(
            json!({"count": 3, "x": 1}),
            &[r#"{"x": 1, "count": 4}"#],
        ));
        assert_eq!(d, "text JSON differs at /count (expected 3, text has 4)");
        let d = detail(mirror(json!({"result": 3}), &["4"]));
        assert_eq!(d, "text JSON differs at /result (expected 3, text has 4)");
        let d = detail(mirror(json!({"result": [1, 2, 3]}), &["1", "5", "3"]));
        assert!(
            d.starts_with("text block 1 does not match item /result/1"),
            "{d}"
        );
        let d = detail(mirror(json!({"result": [1, 2, 3]}), &["1", "2"]));
        assert_eq!(d, "2 text blocks, but the list at /result has 3 items");
        let d = detail(mirror(json!({"a": 1}), &["x", "{\"a\": 2}"]));
        assert!(d.contains("differs at /a"), "{d}");
    }

    #[test]
    fn non_json_text() {
        let d = detail(mirror(json!({"a": 1}), &["a = 1"]));
        assert_eq!(d, "text is not JSON (\"a = 1\")");
        let d = detail(mirror(json!({"result": "hi"}), &["hello"]));
        assert!(d.contains("neither JSON nor the result string"), "{d}");
        let d = detail(mirror(json!({"a": 1}), &["one", "two"]));
        assert_eq!(d, "none of the 2 text blocks is JSON");
    }

    #[test]
    fn empty_states() {
        assert_eq!(mirror(json!({"a": 1}), &[]), TextMirror::NoTextBlocks);
        assert!(TextMirror::NoTextBlocks.describe().contains("missing"));
        assert_eq!(
            check_text_mirror(None, &["hello"]),
            TextMirror::NoStructuredContent { text_blocks: 1 }
        );
    }
}
