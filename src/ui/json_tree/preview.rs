//! Text shown for a row (key, type, scalar preview), its colours, and clipboard text.

use egui::{Color32, Visuals};

use super::index::{JsonIndex, KeyRef, Kind};
use toolscope_core::deep_json::{self, SHOWN_DEPTH};
use toolscope_core::json_doc::{JsonKind, JsonRef};
use toolscope_core::text_util::clip_chars;

/// Longest scalar preview in a row; the full value is reachable with "Copy value".
pub(super) const MAX_PREVIEW_CHARS: usize = 120;
/// Longest key shown in a row.
const MAX_KEY_CHARS: usize = 60;

/// Row label of a node: its key, `[i]` for array items, `(root)` for the root.
/// Also the row's accessible name.
pub(super) fn key_label(index: &JsonIndex, node: u32) -> String {
    match index.key(node) {
        KeyRef::Root => "(root)".to_owned(),
        KeyRef::Index(i) => format!("[{i}]"),
        KeyRef::Name(k) => clip_chars(k, MAX_KEY_CHARS),
    }
}

/// `object {n}`, `array [n]`, `string`, `number`, `bool`, `null`.
pub(super) fn type_label(kind: Kind, child_count: u32) -> String {
    match kind {
        Kind::Object => format!("object {{{child_count}}}"),
        Kind::Array => format!("array [{child_count}]"),
        Kind::String => "string".to_owned(),
        Kind::Number => "number".to_owned(),
        Kind::Bool => "bool".to_owned(),
        Kind::Null => "null".to_owned(),
    }
}

/// One-line preview of a scalar (strings quoted, control characters made visible,
/// long text cut with `…`); empty for containers, whose type label says enough.
pub(super) fn scalar_preview(value: JsonRef<'_>) -> String {
    match value.kind() {
        JsonKind::String => {
            let (head, more) = value.str_prefix(MAX_PREVIEW_CHARS).unwrap_or_default();
            let mut out = String::with_capacity(head.len() + 4);
            out.push('"');
            for c in head.chars() {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c.is_control() => out.push(' '),
                    c => out.push(c),
                }
            }
            if more {
                out.push('…');
            }
            out.push('"');
            out
        }
        JsonKind::Number | JsonKind::Bool | JsonKind::Null => value.raw().to_owned(),
        JsonKind::Object | JsonKind::Array => String::new(),
    }
}

/// What "Copy value" puts on the clipboard: raw text for strings (no quotes),
/// pretty JSON for containers, JSON text for the other scalars. A container nested deeper than
/// [`SHOWN_DEPTH`] is copied compact: pretty text grows with the square of the depth.
pub(super) fn copy_text(value: JsonRef<'_>) -> String {
    match value.kind() {
        JsonKind::String => value.as_str().unwrap_or_default().into_owned(),
        JsonKind::Object | JsonKind::Array => {
            // Printed from the document: no tree is built, however big the value.
            let pretty = !value.deeper_than(SHOWN_DEPTH);
            let mut text = Vec::new();
            let _ = deep_json::serialize_to_writer(&value, &mut text, pretty);
            String::from_utf8(text).unwrap_or_default()
        }
        _ => value.raw().to_owned(),
    }
}

/// Type colours taken from the theme so they stay readable in light and dark mode.
/// Each JSON type its own colour (never the error colour: `false` is not a problem).
pub(super) fn kind_color(visuals: &Visuals, kind: Kind) -> Color32 {
    let palette = crate::ui::theme::palette(visuals);
    match kind {
        Kind::String => palette.json_string,
        Kind::Number => palette.json_number,
        Kind::Bool => palette.json_bool,
        Kind::Null => palette.json_null,
        Kind::Object | Kind::Array => visuals.weak_text_color(),
    }
}
