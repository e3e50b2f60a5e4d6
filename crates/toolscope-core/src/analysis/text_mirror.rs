//! Do the text blocks carry the same data as structuredContent? Compared as parsed JSON.

use serde::Serialize;

use crate::json_doc::JsonRef;

use super::error_kind::{clip, count_noun};
use super::json_compare::{TextCompare, compare_text};
use crate::text_util::clip_chars;

/// How the text blocks mirror structuredContent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MirrorShape {
    /// A text block holds the JSON of the whole structuredContent.
    WholeValue,
    /// A text block holds the value inside a `{"result": …}` wrapper (a string may be unquoted).
    UnwrappedResult,
    /// One text block per item of the (possibly wrapped) list, in order.
    OneBlockPerItem,
    /// A text block is the string of structuredContent's only field, verbatim (server-filesystem's
    /// `{"content": "<the text>"}`).
    StringField { field: String },
}

impl MirrorShape {
    pub fn describe(&self) -> String {
        match self {
            MirrorShape::WholeValue => "whole value".to_owned(),
            MirrorShape::UnwrappedResult => "unwrapped `result` value".to_owned(),
            MirrorShape::OneBlockPerItem => "one block per list item".to_owned(),
            MirrorShape::StringField { field } => {
                format!("the string of field `{}`", clip(field, 60))
            }
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
pub(crate) fn check_text_mirror(structured: Option<JsonRef<'_>>, texts: &[&str]) -> TextMirror {
    let Some(whole) = structured else {
        return TextMirror::NoStructuredContent {
            text_blocks: texts.len(),
        };
    };
    if texts.is_empty() {
        return TextMirror::NoTextBlocks;
    }
    let unwrapped = Some(whole)
        .filter(|o| o.is_object() && o.len() == 1)
        .and_then(|o| o.get("result"));

    // Kept for the explanation; each comparison is one parse of the text, no tree built.
    let against_whole: Vec<TextCompare> = texts.iter().map(|t| compare_text(whole, t)).collect();
    if against_whole.contains(&TextCompare::Equal) {
        return TextMirror::Matches {
            shape: MirrorShape::WholeValue,
        };
    }
    if let Some(inner) = unwrapped
        && texts.iter().any(|t| text_matches(inner, t))
    {
        return TextMirror::Matches {
            shape: MirrorShape::UnwrappedResult,
        };
    }
    let list = match unwrapped {
        Some(items) if items.is_array() => Some((items, "/result")),
        _ if whole.is_array() => Some((whole, "")),
        _ => None,
    };
    if let Some((items, _)) = list
        && items.len() == texts.len()
        && items
            .items()
            .zip(texts)
            .all(|(item, t)| text_matches(item, t))
    {
        return TextMirror::Matches {
            shape: MirrorShape::OneBlockPerItem,
        };
    }
    if let Some((field, others)) = string_field_in_text(whole, texts) {
        if others.is_empty() {
            return TextMirror::Matches {
                shape: MirrorShape::StringField { field },
            };
        }
        return TextMirror::Differs {
            detail: format!(
                "the text is the string of field `{}`, but the text leaves out {} ({})",
                clip(&field, 60),
                count_noun(others.len(), "other field", "other fields"),
                clip(&others.join(", "), 120)
            ),
        };
    }
    TextMirror::Differs {
        detail: explain_difference(unwrapped, list, texts, &against_whole),
    }
}

/// The top-level field of structuredContent whose string is a text block verbatim (the first
/// such), and the names of the other fields.
fn string_field_in_text(whole: JsonRef<'_>, texts: &[&str]) -> Option<(String, Vec<String>)> {
    if !whole.is_object() {
        return None;
    }
    let field = whole.entries().find_map(|(key, value)| {
        let text = value.as_str()?;
        texts
            .iter()
            .any(|t| *t == text.as_ref())
            .then(|| key.into_owned())
    })?;
    let others = whole
        .entries()
        .map(|(key, _)| key.into_owned())
        .filter(|key| *key != field)
        .collect();
    Some((field, others))
}

/// A text matches a value if its JSON equals it, or it is that string verbatim (unquoted).
fn text_matches(value: JsonRef<'_>, text: &str) -> bool {
    value.as_str().as_deref() == Some(text) || compare_text(value, text) == TextCompare::Equal
}

fn explain_difference(
    unwrapped: Option<JsonRef<'_>>,
    list: Option<(JsonRef<'_>, &str)>,
    texts: &[&str],
    against_whole: &[TextCompare],
) -> String {
    if let ([text], [outcome]) = (texts, against_whole) {
        let result_string = unwrapped.and_then(JsonRef::as_str);
        return match (outcome, unwrapped) {
            (TextCompare::NotJson, Some(_)) if result_string.is_some() => format!(
                "text \"{}\" is neither JSON nor the result string \"{}\"",
                clip(text, 40),
                clip(result_string.as_deref().unwrap_or_default(), 40)
            ),
            (TextCompare::NotJson, _) => format!("text is not JSON (\"{}\")", clip(text, 40)),
            // A root-level mismatch against a wrapper means the text holds the bare value.
            (TextCompare::Differs(d), Some(inner)) if d.pointer.is_empty() => {
                diff_phrase(&compare_text(inner, text), "/result")
            }
            (other, _) => diff_phrase(other, ""),
        };
    }
    if let Some((items, prefix)) = list {
        if items.len() != texts.len() {
            return format!(
                "{} text blocks, but the list at {} has {}",
                texts.len(),
                if prefix.is_empty() {
                    "the root"
                } else {
                    prefix
                },
                count_noun(items.len(), "item", "items")
            );
        }
        for (i, (item, text)) in items.items().zip(texts).enumerate() {
            if !text_matches(item, text) {
                return match compare_text(item, text) {
                    TextCompare::NotJson => {
                        format!("text block {i} is not JSON and is not item {prefix}/{i}")
                    }
                    other => format!(
                        "text block {i} does not match item {prefix}/{i}: {}",
                        diff_phrase(&other, &format!("{prefix}/{i}"))
                    ),
                };
            }
        }
    }
    match against_whole.iter().find(|o| **o != TextCompare::NotJson) {
        None => format!("none of the {} text blocks is JSON", texts.len()),
        Some(outcome) => format!(
            "none of the {} text blocks is the structuredContent JSON; the first JSON one: {}",
            texts.len(),
            diff_phrase(outcome, "")
        ),
    }
}

fn diff_phrase(outcome: &TextCompare, prefix: &str) -> String {
    match outcome {
        TextCompare::Differs(d) => {
            let at = format!("{prefix}{}", d.pointer);
            // A pointer deep into a deep value is long: the start locates it well enough.
            let at = if at.is_empty() {
                "the root".to_owned()
            } else {
                clip_chars(&at, 200)
            };
            format!("text JSON differs at {at} ({})", d.detail)
        }
        TextCompare::NotJson => "text is not JSON".to_owned(),
        TextCompare::Equal => "text JSON is equal".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn mirror(structured: Value, texts: &[&str]) -> TextMirror {
        let doc = crate::json_doc::JsonDoc::from_value(&structured);
        check_text_mirror(Some(doc.root()), texts)
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
    fn a_text_that_is_the_only_string_field_mirrors_it() {
        // server-filesystem's read_text_file: the text, and {"content": the same text}.
        let text = "line one\nline two: not JSON";
        let m = mirror(json!({"content": text}), &[text]);
        assert_eq!(
            m,
            matches(MirrorShape::StringField {
                field: "content".to_owned()
            })
        );
        assert!(
            m.describe().contains("the string of field `content`"),
            "{}",
            m.describe()
        );
        // Other fields the text leaves out are named, not called "not JSON".
        let partial = detail(mirror(json!({"content": text, "size": 27}), &[text]));
        assert!(partial.contains("field `content`"), "{partial}");
        assert!(partial.contains("1 other field (size)"), "{partial}");
        // A text that is no field at all is still a difference.
        let other = detail(mirror(json!({"content": "else"}), &[text]));
        assert!(other.contains("not JSON"), "{other}");
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
        assert_eq!(
            d,
            "text JSON differs at /count (expected 3, the text has 4)"
        );
        let d = detail(mirror(json!({"result": 3}), &["4"]));
        assert_eq!(
            d,
            "text JSON differs at /result (expected 3, the text has 4)"
        );
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
