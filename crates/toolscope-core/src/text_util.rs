//! Small helpers for showing JSON and text to people, shared by every layer.

use std::{borrow::Cow, fmt::Write as _};

use crate::json_doc::{JsonKind, JsonShape};

/// "a number", "an array", … for messages.
pub fn json_type_phrase<V: JsonShape + ?Sized>(value: &V) -> &'static str {
    match value.json_kind() {
        JsonKind::Null => "null",
        JsonKind::Bool => "a boolean",
        JsonKind::Number => "a number",
        JsonKind::String => "a string",
        JsonKind::Array => "an array",
        JsonKind::Object => "an object",
    }
}

/// "an object with 2 keys", "an array of 1 item", "a string", … for messages.
pub fn json_shape_phrase<V: JsonShape + ?Sized>(value: &V) -> String {
    match value.json_kind() {
        JsonKind::Object => format!(
            "an object with {}",
            count_noun(value.child_count(), "key", "keys")
        ),
        JsonKind::Array => format!(
            "an array of {}",
            count_noun(value.child_count(), "item", "items")
        ),
        _ => json_type_phrase(value).to_owned(),
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

/// `text` on one line (runs of whitespace, newlines included, become one space), clipped to
/// `max_chars` characters.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    clip_chars(&joined, max_chars)
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

/// Whether `c` must not reach a terminal raw: C0 controls other than tab, DEL, C1 controls
/// (a terminal may run `\u{9b}` as CSI), the line and paragraph separators, and the bidi
/// marks, embeddings, overrides and isolates that reorder what the user sees.
pub fn is_terminal_unsafe(c: char) -> bool {
    matches!(c,
        '\0'..='\u{8}' | '\u{a}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Whether `text` holds an [`is_terminal_unsafe`] character other than those `allowed`:
/// a byte scan that skips printable ASCII (most text, and all of it in big JSON documents)
/// and decodes characters only from the first byte that is not.
pub fn has_terminal_unsafe(text: &str, allowed: impl Fn(char) -> bool) -> bool {
    let plain = |byte: u8| byte == b'\t' || (0x20..0x7f).contains(&byte);
    let Some(start) = text
        .bytes()
        .position(|byte| !(plain(byte) || byte.is_ascii() && allowed(char::from(byte))))
    else {
        return false;
    };
    text[start..]
        .chars()
        .any(|c| is_terminal_unsafe(c) && !allowed(c))
}

/// Server text made safe for a terminal: every [`is_terminal_unsafe`] character, newlines
/// included, becomes visible as `\u{1b}`. Split multi-line text into lines first.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !has_terminal_unsafe(text, |_| false) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_terminal_unsafe(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`terminal_safe`], but newlines (and CRLF) stay line breaks.
pub fn terminal_safe_lines(text: &str) -> Cow<'_, str> {
    if !has_terminal_unsafe(text, |c| c == '\n') {
        return Cow::Borrowed(text);
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    for line in &mut lines[..last] {
        *line = line.strip_suffix('\r').unwrap_or(line);
    }
    let safe: Vec<Cow<'_, str>> = lines.into_iter().map(terminal_safe).collect();
    Cow::Owned(safe.join("\n"))
}

/// Text as XML 1.0 (or HTML) character data or an attribute value. Characters XML cannot hold at all
/// (most C0 controls) are written as `\u{1b}` and the like, never dropped silently.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as an environment variable's name: letters and digits upper-cased, anything else
/// `_` (`gh-token` → `GH_TOKEN`).
pub fn env_variable_name(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_and_controls_are_escaped() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd'>\u{1b}[31m\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\\u{1b}[31m\n"
        );
    }

    use super::*;

    #[test]
    fn terminal_controls_become_visible() {
        assert_eq!(terminal_safe("plain\ttab"), "plain\ttab");
        assert!(matches!(terminal_safe("ok"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(terminal_safe("a\u{9b}b\u{7f}"), "a\\u{9b}b\\u{7f}");
        assert_eq!(
            terminal_safe("\u{202e}evil\u{2066}"),
            "\\u{202e}evil\\u{2066}"
        );
        assert_eq!(terminal_safe("two\nlines\r"), "two\\u{a}lines\\u{d}");
        assert_eq!(terminal_safe_lines("a\u{7}\r\nb\r"), "a\\u{7}\nb\\u{d}");
        // Letters, CJK, emoji and combining marks pass through.
        assert_eq!(terminal_safe("é你👍🏽"), "é你👍🏽");
        assert!(!is_terminal_unsafe('\u{200d}'));
    }

    #[test]
    fn the_byte_scan_finds_what_the_character_check_finds() {
        let newline = |c: char| c == '\n';
        for (text, unsafe_at_all, unsafe_but_newline) in [
            ("plain text\twith tab", false, false),
            ("two\nlines", true, false),
            ("é你 then \u{1b}", true, true),
            ("é你 then \u{202e}", true, true),
            ("é你👍🏽\n", true, false),
            ("\u{7f}", true, true),
            ("\r\n", true, true),
        ] {
            assert_eq!(
                has_terminal_unsafe(text, |_| false),
                unsafe_at_all,
                "{text:?}"
            );
            assert_eq!(
                has_terminal_unsafe(text, newline),
                unsafe_but_newline,
                "{text:?}"
            );
        }
    }

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
