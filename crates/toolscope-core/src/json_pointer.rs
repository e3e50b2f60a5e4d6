//! RFC 6901 JSON Pointers and local `$ref`s, for every layer: one escaping rule, one
//! resolution rule (with the URI fragment's percent-decoding).

use serde_json::Value;

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
pub fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(pointer_unescape).collect()
}

/// Parses an array index token: digits only, no leading zero (RFC 6901 §4).
pub fn parse_array_index(token: &str) -> Option<usize> {
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

/// Appends one escaped reference token to `pointer`.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&pointer_escape(token));
}

/// Resolves a local `$ref` (`#`, `#/$defs/a%20b`, `#/definitions/x~1y`) inside `root`.
/// The fragment is a URI fragment: percent-escapes are decoded before the pointer is read.
/// Anything not local (another document, a URL) gives `None`: nothing is ever fetched.
pub fn resolve_local_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    root.pointer(&percent_decode(fragment)?)
}

/// Follows a chain of local `$ref`s from `schema` inside `root` to the schema it ends at: one
/// that is not a `$ref`, or whose `$ref` does not resolve here (it is then used as it is).
/// `None` for a chain that loops or is longer than `max_hops`. The one follower of ref chains
/// (the schema view, the interface diff).
pub fn follow_refs<'a>(
    root: &'a Value,
    mut schema: &'a Value,
    max_hops: usize,
) -> Option<&'a Value> {
    for _ in 0..max_hops {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            return Some(schema);
        };
        match resolve_local_ref(root, reference) {
            Some(target) => schema = target,
            None => return Some(schema),
        }
    }
    None
}

/// Decodes `%XX` escapes (RFC 3986); `None` for a broken escape or bytes that are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_refs_are_percent_decoded_then_unescaped() {
        let root =
            json!({"$defs": {"a b": 1, "x/y": 2, "100%": 3, "é": 4}, "definitions": {"d": 5}});
        assert_eq!(resolve_local_ref(&root, "#/$defs/a%20b"), Some(&json!(1)));
        let chain = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "integer"},
            "loop": {"$ref": "#/$defs/loop"}}});
        let start = json!({"$ref": "#/$defs/a"});
        assert_eq!(
            follow_refs(&chain, &start, 8),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(follow_refs(&chain, &chain["$defs"]["loop"], 8), None);
        let remote = json!({"$ref": "https://x/y"});
        assert_eq!(follow_refs(&chain, &remote, 8), Some(&remote));
        assert_eq!(resolve_local_ref(&root, "#/$defs/x~1y"), Some(&json!(2)));
        assert_eq!(resolve_local_ref(&root, "#/$defs/100%25"), Some(&json!(3)));
        assert_eq!(resolve_local_ref(&root, "#/$defs/%C3%A9"), Some(&json!(4)));
        assert_eq!(resolve_local_ref(&root, "#/definitions/d"), Some(&json!(5)));
        assert_eq!(resolve_local_ref(&root, "#"), Some(&root));
        assert_eq!(resolve_local_ref(&root, "#/$defs/%2"), None);
        assert_eq!(resolve_local_ref(&root, "https://example.com/s.json"), None);
        assert_eq!(resolve_local_ref(&root, "#/$defs/missing"), None);
    }

    #[test]
    fn tokens_are_escaped_once() {
        let mut pointer = String::new();
        push_token(&mut pointer, "a/b");
        push_token(&mut pointer, "~");
        assert_eq!(pointer, "/a~1b/~0");
        assert_eq!(
            parse_pointer(&pointer),
            Some(vec!["a/b".into(), "~".into()])
        );
    }
}
