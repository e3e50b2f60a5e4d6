//! RFC 6901 JSON Pointer helpers.

/// Escapes one reference token: `~` becomes `~0` and `/` becomes `~1`.
///
/// `~` is replaced first so that the `~` introduced by `~1` is not escaped again.
pub fn pointer_escape(segment: &str) -> String {
    if !segment.contains(['~', '/']) {
        return segment.to_owned();
    }
    let mut out = String::with_capacity(segment.len() + 2);
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
    out
}

/// Unescapes one reference token (`~1` → `/`, `~0` → `~`).
///
/// Scans left to right so that `~01` gives `~1` as RFC 6901 §4 requires.
/// Returns `None` for a `~` not followed by `0` or `1`, which the RFC calls an error.
pub fn pointer_unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Splits a pointer into unescaped tokens. `""` is the root (no tokens).
///
/// Returns `None` when the pointer is not empty and does not start with `/`,
/// or holds an invalid escape.
pub(super) fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(pointer_unescape).collect()
}

/// Parses an array index token: digits only, no leading zero (RFC 6901 §4).
pub(super) fn parse_array_index(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    let well_formed = !bytes.is_empty()
        && bytes.iter().all(u8::is_ascii_digit)
        && (bytes.len() == 1 || bytes[0] != b'0');
    if well_formed {
        token.parse().ok()
    } else {
        None
    }
}
