//! JSON text for the human output, cut at a stated depth: a server may send a value nested
//! 10,000 levels deep, and serde_json's printer recurses once per level. Below the cut the
//! text is exactly serde_json's (pretty: two-space indent); `--json` prints everything.

use std::{borrow::Cow, fmt::Write as _};

use toolscope_core::{
    deep_json::SHOWN_DEPTH,
    json_doc::{JsonKind, JsonRef},
    text_util::{has_terminal_unsafe, is_terminal_unsafe},
};

/// What stands in for a container nested deeper than [`SHOWN_DEPTH`].
pub fn too_deep_note() -> String {
    format!("… nested deeper than {SHOWN_DEPTH} levels, see --json")
}

/// Pretty JSON lines of `value` (serde_json's layout, two-space indent; numbers as the server
/// wrote them), cut at
/// [`SHOWN_DEPTH`] levels of nesting and after `max_lines` lines. A depth cut is said on the
/// first line, a length cut on the last ("… N more lines").
pub fn pretty_lines(value: JsonRef<'_>, max_lines: usize) -> Vec<String> {
    let mut printer = Printer {
        out: String::new(),
        lines: 1,
        max_lines,
        indent: Some(0),
        cut_deep: false,
    };
    printer.value(value, 1);
    let total = printer.lines;
    let mut lines: Vec<String> = printer.out.lines().map(str::to_owned).collect();
    if total > lines.len() {
        lines.push(format!(
            "… {} more lines (--json prints everything)",
            total - lines.len()
        ));
    }
    if printer.cut_deep {
        lines.insert(0, too_deep_note());
    }
    lines
}

/// Compact JSON of `value` on one line, cut at [`SHOWN_DEPTH`] levels of nesting.
pub fn compact(value: JsonRef<'_>) -> String {
    let mut printer = Printer {
        out: String::new(),
        lines: 1,
        max_lines: usize::MAX,
        indent: None,
        cut_deep: false,
    };
    printer.value(value, 1);
    printer.out
}

/// Writes until `max_lines`, then only counts the lines the rest would take.
struct Printer {
    out: String,
    lines: usize,
    max_lines: usize,
    /// `None` for compact output.
    indent: Option<usize>,
    cut_deep: bool,
}

impl Printer {
    fn writing(&self) -> bool {
        self.lines <= self.max_lines
    }

    fn push(&mut self, text: &str) {
        if self.writing() {
            self.out.push_str(&escape_unsafe(text));
        }
    }

    fn line_break(&mut self, indent: usize) {
        self.lines += 1;
        if self.writing() {
            self.out.push('\n');
            self.out.push_str(&"  ".repeat(indent));
        }
    }

    /// `level` is the nesting level a container here would have (the root's is 1). Recursion
    /// stops at `SHOWN_DEPTH`, so the stack stays small.
    fn value(&mut self, value: JsonRef<'_>, level: usize) {
        let (open, close) = match value.kind() {
            JsonKind::Array => ("[", "]"),
            JsonKind::Object => ("{", "}"),
            _ => return self.scalar(value),
        };
        if value.is_empty() {
            self.push(open);
            return self.push(close);
        }
        if level > SHOWN_DEPTH {
            self.cut_deep = true;
            return self.push(&format!("{open} {} {close}", too_deep_note()));
        }
        self.push(open);
        let inner = self.indent.map(|i| i + 1);
        let mut first = true;
        let mut separator = |printer: &mut Self| {
            if !std::mem::take(&mut first) {
                printer.push(",");
            }
            if let Some(inner) = inner {
                printer.line_break(inner);
            }
        };
        let outer = self.indent;
        self.indent = inner;
        if value.is_array() {
            for item in value.items() {
                separator(self);
                self.value(item, level + 1);
            }
        } else {
            for (key, item) in value.entries() {
                separator(self);
                if self.writing() {
                    self.push(&serde_json::to_string(key.as_ref()).unwrap_or_default());
                    self.push(if inner.is_some() { ": " } else { ":" });
                }
                self.value(item, level + 1);
            }
        }
        self.indent = outer;
        if let Some(outer) = outer {
            self.line_break(outer);
        }
        self.push(close);
    }

    /// Scalars as serde_json prints them: a string with escapes is written again in serde's
    /// escaping, everything else as sent.
    fn scalar(&mut self, value: JsonRef<'_>) {
        if !self.writing() {
            return;
        }
        match (value.as_plain_str(), value.as_str()) {
            (Some(_), _) | (None, None) => self.push(value.raw()),
            (None, Some(text)) => {
                self.push(&serde_json::to_string(text.as_ref()).unwrap_or_default());
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use toolscope_core::json_doc::JsonDoc;

    fn lines_of(value: &Value) -> Vec<String> {
        pretty_lines(JsonDoc::from_value(value).root(), usize::MAX)
    }

    fn compact_of(value: &Value) -> String {
        compact(JsonDoc::from_value(value).root())
    }

    #[test]
    fn shallow_values_print_like_serde_json() {
        let value =
            json!({"a": [1, 2.5, "x\u{1b}"], "b": {}, "c": [], "d": {"e": null, "f": true}});
        assert_eq!(
            lines_of(&value).join("\n"),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(compact_of(&value), value.to_string());
        let hostile = json!({"k\u{202e}": "\u{9b}31m\u{7f}"});
        assert_eq!(compact_of(&hostile), r#"{"k\u202e":"\u009b31m\u007f"}"#);
        assert_eq!(
            serde_json::from_str::<Value>(&compact_of(&hostile)).unwrap(),
            hostile
        );
    }

    #[test]
    fn a_long_value_stops_after_its_line_budget_and_counts_the_rest() {
        let value = json!({"items": (0..1000).collect::<Vec<_>>()});
        let all = lines_of(&value);
        assert_eq!(all.len(), 1004);
        let cut = pretty_lines(JsonDoc::from_value(&value).root(), 10);
        assert_eq!(cut[..10], all[..10]);
        assert_eq!(cut[10], "… 994 more lines (--json prints everything)");
        assert_eq!(cut.len(), 11);
    }

    #[test]
    fn values_10000_deep_print_cut_on_a_small_stack() {
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
                let deep = JsonDoc::parse(text).unwrap();
                let lines = pretty_lines(deep.root(), usize::MAX);
                assert_eq!(lines.len(), 2 * SHOWN_DEPTH + 2);
                assert_eq!(lines[0], too_deep_note());
                assert!(lines[SHOWN_DEPTH + 1].ends_with(&format!("[ {} ]", too_deep_note())));
                let one_line = compact(deep.root());
                assert!(one_line.starts_with(&"[".repeat(SHOWN_DEPTH)));
                assert!(one_line.contains("deeper than 256 levels"));
            })
            .unwrap();
        worker.join().unwrap();
    }
}
