//! The one base64 decoder for media data: lenient, and it explains near-misses.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_PAD_INDIFFERENT, URL_SAFE_PAD_INDIFFERENT};

/// Outcome of decoding a `data`/`blob` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base64Data {
    /// The bytes, when the data could be decoded somehow.
    pub bytes: Option<Vec<u8>>,
    /// A plain-words problem when the data is not strict standard base64.
    pub problem: Option<String>,
}

/// Decodes `data` (the value of the field named `field`). Only standard base64 passes without
/// a problem, but near-misses (line breaks, the URL-safe alphabet) still give the bytes.
pub fn decode_base64(field: &str, data: &str) -> Base64Data {
    let ok = |bytes, problem| Base64Data {
        bytes: Some(bytes),
        problem,
    };
    // Missing padding is tolerated silently: common and harmless to every decoder in practice.
    let first_error = match STANDARD_PAD_INDIFFERENT.decode(data) {
        Ok(bytes) => return ok(bytes, None),
        Err(error) => error,
    };
    let compact: Option<String> = data
        .bytes()
        .any(|b| b.is_ascii_whitespace())
        .then(|| data.chars().filter(|c| !c.is_ascii_whitespace()).collect());
    let text = compact.as_deref().unwrap_or(data);
    if compact.is_some()
        && let Ok(bytes) = STANDARD_PAD_INDIFFERENT.decode(text)
    {
        return ok(
            bytes,
            Some(format!(
                "{field} contains whitespace or line breaks; strict base64 decoders reject it"
            )),
        );
    }
    if let Ok(bytes) = URL_SAFE_PAD_INDIFFERENT.decode(text) {
        return ok(
            bytes,
            Some(format!(
                "{field} uses the URL-safe base64 alphabet ('-' and '_'); MCP expects standard base64"
            )),
        );
    }
    Base64Data {
        bytes: None,
        problem: Some(format!("{field} is not valid base64 ({first_error})")),
    }
}

/// The decoded size and problem of `data`, for the analysis (the bytes are not kept).
pub(crate) fn decode_len(field: &str, data: &str) -> (Option<usize>, Option<String>) {
    let decoded = decode_base64(field, data);
    (decoded.bytes.map(|b| b.len()), decoded.problem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_and_lenient_base64() {
        assert_eq!(decode_len("data", "aGVsbG8="), (Some(5), None));
        assert_eq!(decode_len("data", "aGVsbG8").1, None);
        let wrapped = decode_base64("data", "aGVs\nbG8=");
        assert_eq!(wrapped.bytes.as_deref(), Some(&b"hello"[..]));
        assert!(wrapped.problem.unwrap_or_default().contains("line breaks"));
        let url = decode_len("data", "-_-_");
        assert_eq!(url.0, Some(3));
        assert!(url.1.unwrap_or_default().contains("URL-safe"));
        // Both at once: wrapped URL-safe data still decodes.
        assert_eq!(decode_len("data", "-_\n-_").0, Some(3));
        let bad = decode_len("data", "not base64!!");
        assert_eq!(bad.0, None);
        assert!(
            bad.1
                .unwrap_or_default()
                .starts_with("data is not valid base64")
        );
    }
}
