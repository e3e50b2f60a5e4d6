//! Semantic JSON equality: key order ignored, 3 == 3.0, first difference located.

use serde_json::Value;

/// Where two JSON values first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    /// JSON Pointer into the expected value.
    pub pointer: String,
    /// Plain words, e.g. "expected 3, text has 4".
    pub detail: String,
}

/// Compares `expected` (structuredContent side) against `actual` (text side).
///
/// Linear in the size of the values: object lookups are hash-based, never nested scans.
pub(crate) fn first_difference(expected: &Value, actual: &Value) -> Option<Difference> {
    let mut path = Vec::new();
    diff(expected, actual, &mut path).map(|detail| Difference {
        pointer: render_pointer(&path),
        detail,
    })
}

pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    first_difference(a, b).is_none()
}

enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// Returns the detail of the first difference; `path` is left pointing at it.
fn diff<'a>(expected: &'a Value, actual: &'a Value, path: &mut Vec<Seg<'a>>) -> Option<String> {
    match (expected, actual) {
        (Value::Null, Value::Null) => None,
        (Value::Bool(a), Value::Bool(b)) if a == b => None,
        (Value::String(a), Value::String(b)) if a == b => None,
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b) => None,
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("expected {} items, text has {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push(Seg::Index(i));
                if let Some(d) = diff(x, y, path) {
                    return Some(d);
                }
                path.pop();
            }
            None
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, x) in a {
                path.push(Seg::Key(k));
                match b.get(k) {
                    None => return Some("missing from the text".to_owned()),
                    Some(y) => {
                        if let Some(d) = diff(x, y, path) {
                            return Some(d);
                        }
                    }
                }
                path.pop();
            }
            // Same keys checked above; any surplus is an extra key in the text.
            if b.len() != a.len()
                && let Some(extra) = b.keys().find(|k| !a.contains_key(*k))
            {
                path.push(Seg::Key(extra));
                return Some("present in the text but not in structuredContent".to_owned());
            }
            None
        }
        _ => Some(format!(
            "expected {}, text has {}",
            short(expected),
            short(actual)
        )),
    }
}

/// Integers compare exactly; anything involving a float compares as f64 (so 3 == 3.0).
fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A value for a one-line message: scalars shown (clipped), containers summarised.
pub(crate) fn short(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(o) => format!("an object with {} keys", o.len()),
        other => super::error_kind::clip(&other.to_string(), 40),
    }
}

fn render_pointer(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => out.push_str(&escape_pointer_token(k)),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// RFC 6901 escaping: "~" → "~0", "/" → "~1".
pub(crate) fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_ignoring_key_order_and_number_form() {
        assert!(json_equal(
            &json!({"a": 1, "b": [1.0, 2]}),
            &json!({"b": [1, 2.0], "a": 1.0})
        ));
        assert!(json_equal(&json!(null), &json!(null)));
        assert!(!json_equal(&json!(1), &json!("1")));
        assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_equal(&json!(-1), &json!(u64::MAX)));
    }

    #[test]
    fn first_difference_is_located() {
        let d = first_difference(&json!({"count": 3, "x": 1}), &json!({"x": 1, "count": 4}));
        assert_eq!(
            d,
            Some(Difference {
                pointer: "/count".into(),
                detail: "expected 3, text has 4".into()
            })
        );
        let d = first_difference(&json!({"a/b": [1, {"c": 1}]}), &json!({"a/b": [1, {}]}));
        assert_eq!(d.map(|d| d.pointer), Some("/a~1b/1/c".into()));
        let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "z": 2})).unwrap();
        assert_eq!(d.pointer, "/z");
        assert!(d.detail.contains("not in structuredContent"));
        let d = first_difference(&json!([1, 2]), &json!([1])).unwrap();
        assert_eq!(
            (d.pointer.as_str(), d.detail.as_str()),
            ("", "expected 2 items, text has 1")
        );
    }
}
