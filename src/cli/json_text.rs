//! JSON text for the human output, cut at a stated depth: a server may send a value nested
//! 10,000 levels deep, and serde_json's printer recurses once per level. Below the cut the
//! text is exactly serde_json's (pretty: two-space indent); `--json` prints everything.

use std::{borrow::Cow, fmt::Write as _};

use serde_json::Value;

use crate::{
    deep_json::SHOWN_DEPTH,
    text_util::{has_terminal_unsafe, is_terminal_unsafe},
};

/// What stands in for a container nested deeper than [`SHOWN_DEPTH`].
pub fn too_deep_note() -> String {
    format!("… nested deeper than {SHOWN_DEPTH} levels, see --json")
}

/// Pretty JSON lines of `value`, cut at [`SHOWN_DEPTH`] levels of nesting. When it is cut,
/// the first line says so (the cut itself may be further down than a view shows).
pub fn pretty_lines(value: &Value) -> Vec<String> {
    let mut out = String::new();
    write_value(&mut out, value, 1, Some(0));
    let mut lines: Vec<String> = out.lines().map(str::to_owned).collect();
    if out.contains(&too_deep_note()) && crate::deep_json::depth(value) > SHOWN_DEPTH {
        lines.insert(0, too_deep_note());
    }
    lines
}

/// Compact JSON of `value` on one line, cut at [`SHOWN_DEPTH`] levels of nesting.
pub fn compact(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 1, None);
    out
}

/// `level` is the nesting level a container here would have (the root's is 1); `indent` is
/// `None` for compact output. Recursion stops at `SHOWN_DEPTH`, so the stack stays small.
fn write_value(out: &mut String, value: &Value, level: usize, indent: Option<usize>) {
    match value {
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Array(_) | Value::Object(_) if level > SHOWN_DEPTH => {
            let (open, close) = if value.is_array() {
                ('[', ']')
            } else {
                ('{', '}')
            };
            let _ = write!(out, "{open} {} {close}", too_deep_note());
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                separator(out, n, indent.map(|i| i + 1));
                write_value(out, item, level + 1, indent.map(|i| i + 1));
            }
            close(out, ']', indent);
        }
        Value::Object(map) => {
            out.push('{');
            for (n, (key, item)) in map.iter().enumerate() {
                separator(out, n, indent.map(|i| i + 1));
                out.push_str(&escape_unsafe(
                    &serde_json::to_string(key).unwrap_or_default(),
                ));
                out.push_str(if indent.is_some() { ": " } else { ":" });
                write_value(out, item, level + 1, indent.map(|i| i + 1));
            }
            close(out, '}', indent);
        }
        // Scalars do not recurse: serde_json prints them exactly.
        scalar => out.push_str(&escape_unsafe(&scalar.to_string())),
    }
}

/// JSON text with the characters serde_json leaves raw but a terminal acts on (DEL, C1, bidi
/// marks, line separators) written as `\uXXXX`: the same JSON, safe to print. Newlines are
/// kept (in serde_json's output they are layout, never inside a string).
pub fn escape_unsafe(json: &str) -> Cow<'_, str> {
    if !has_terminal_unsafe(json, |c| c == '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c != '\n' && is_terminal_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn separator(out: &mut String, n: usize, indent: Option<usize>) {
    if n > 0 {
        out.push(',');
    }
    if let Some(indent) = indent {
        out.push('\n');
        out.push_str(&"  ".repeat(indent));
    }
}

fn close(out: &mut String, bracket: char, indent: Option<usize>) {
    if let Some(indent) = indent {
        out.push('\n');
        out.push_str(&"  ".repeat(indent));
    }
    out.push(bracket);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shallow_values_print_like_serde_json() {
        let value =
            json!({"a": [1, 2.5, "x\u{1b}"], "b": {}, "c": [], "d": {"e": null, "f": true}});
        assert_eq!(
            pretty_lines(&value).join("\n"),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(compact(&value), value.to_string());
        let hostile = json!({"k\u{202e}": "\u{9b}31m\u{7f}"});
        assert_eq!(compact(&hostile), r#"{"k\u202e":"\u009b31m\u007f"}"#);
        assert_eq!(
            serde_json::from_str::<Value>(&compact(&hostile)).unwrap(),
            hostile
        );
    }

    #[test]
    fn values_10000_deep_print_cut_on_a_small_stack() {
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
                let deep = crate::deep_json::parse(&text).unwrap();
                let lines = pretty_lines(&deep);
                assert_eq!(lines.len(), 2 * SHOWN_DEPTH + 2);
                assert_eq!(lines[0], too_deep_note());
                assert!(lines[SHOWN_DEPTH + 1].ends_with(&format!("[ {} ]", too_deep_note())));
                let one_line = compact(&deep);
                assert!(one_line.starts_with(&"[".repeat(SHOWN_DEPTH)));
                assert!(one_line.contains("deeper than 256 levels"));
                crate::deep_json::drop_value(deep);
            })
            .unwrap();
        worker.join().unwrap();
    }
}
