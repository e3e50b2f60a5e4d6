//! Small helpers for showing JSON and text to people, shared by every layer.

use serde_json::Value;

/// "a number", "an array", … for messages.
pub fn json_type_phrase(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// "an object with 2 keys", "an array of 1 item", "a string", … for messages.
pub fn json_shape_phrase(value: &Value) -> String {
    match value {
        Value::Object(map) => format!("an object with {}", count_noun(map.len(), "key", "keys")),
        Value::Array(items) => format!("an array of {}", count_noun(items.len(), "item", "items")),
        other => json_type_phrase(other).to_owned(),
    }
}

/// "1 key", "3 keys".
pub fn count_noun(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// At most `max_chars` characters of `text`, with "…" when something was cut.
pub fn clip_chars(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn cut_at_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_between_characters() {
        assert_eq!(cut_at_char_boundary("héllo", 2), "h");
        assert_eq!(cut_at_char_boundary("héllo", 3), "hé");
        assert_eq!(cut_at_char_boundary("abc", 10), "abc");
        assert_eq!(json_type_phrase(&serde_json::json!([1])), "an array");
        assert_eq!(
            json_shape_phrase(&serde_json::json!([1])),
            "an array of 1 item"
        );
        assert_eq!(
            json_shape_phrase(&serde_json::json!({"a": 1, "b": 2})),
            "an object with 2 keys"
        );
        assert_eq!(json_shape_phrase(&serde_json::json!(null)), "null");
        assert_eq!(clip_chars("héllo", 2), "hé…");
        assert_eq!(clip_chars("hi", 5), "hi");
    }
}
