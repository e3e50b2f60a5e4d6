//! Two small helpers for showing JSON and text to people, shared by every layer.

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
    }
}
