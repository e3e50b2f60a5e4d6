//! Reading a string's escapes. The parser has checked them, so nothing here can fail.

/// The value of a string's inside (between its quotes).
pub(super) fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(slash) = rest.find('\\') {
        out.push_str(&rest[..slash]);
        let bytes = rest.as_bytes();
        let (ch, used) = match bytes.get(slash + 1) {
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => {
                let unit = hex4(&rest[slash + 2..]);
                if (0xD800..0xDC00).contains(&unit) {
                    let low = hex4(rest.get(slash + 8..).unwrap_or_default());
                    let code =
                        0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                    (char::from_u32(code).unwrap_or('\u{fffd}'), 12)
                } else {
                    (char::from_u32(unit).unwrap_or('\u{fffd}'), 6)
                }
            }
            Some(&other) => (char::from(other), 2),
            None => ('\\', 1),
        };
        out.push(ch);
        rest = rest.get(slash + used..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

fn hex4(text: &str) -> u32 {
    text.get(..4)
        .and_then(|digits| u32::from_str_radix(digits, 16).ok())
        .unwrap_or(0xFFFD)
}

/// The first `max_chars` characters of a string's value, and whether there are more. Reads
/// only as far as it needs, however long the string.
pub(super) fn unescape_prefix(inner: &str, escaped: bool, max_chars: usize) -> (String, bool) {
    if !escaped {
        return match inner.char_indices().nth(max_chars) {
            Some((at, _)) => (inner[..at].to_owned(), true),
            None => (inner.to_owned(), false),
        };
    }
    // Each character takes at most 12 bytes of escapes (a surrogate pair).
    let budget = max_chars.saturating_add(1).saturating_mul(12);
    let mut end = inner.len().min(budget);
    while !inner.is_char_boundary(end) {
        end -= 1;
    }
    // Do not cut an escape in half: back up to before a trailing partial escape.
    let head = &inner[..end];
    let head = match head.rfind('\\') {
        Some(slash) if end < inner.len() && head.len() - slash < 12 => &head[..slash],
        _ => head,
    };
    let text = unescape(head);
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text, head.len() < inner.len()),
    }
}
