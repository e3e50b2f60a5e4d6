//! Lenient base64 decoding that measures payloads and explains near-misses.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_PAD_INDIFFERENT, URL_SAFE_PAD_INDIFFERENT};

/// Outcome of decoding a `data`/`blob` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// Byte length when the data could be decoded somehow.
    pub size: Option<usize>,
    /// A plain-words problem when the data is not strict standard base64.
    pub problem: Option<String>,
}

/// Decodes `data` to learn its size; only strict standard base64 passes without a problem,
/// but near-misses (line breaks, URL-safe alphabet) still report a size.
pub(crate) fn decode_len(field: &str, data: &str) -> Decoded {
    // Missing padding is tolerated silently: common and harmless to every decoder in practice.
    if let Ok(bytes) = STANDARD_PAD_INDIFFERENT.decode(data) {
        return Decoded {
            size: Some(bytes.len()),
            problem: None,
        };
    }
    if data.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if let Ok(bytes) = STANDARD_PAD_INDIFFERENT.decode(&compact) {
            return Decoded {
                size: Some(bytes.len()),
                problem: Some(format!(
                    "{field} contains whitespace or line breaks; strict base64 decoders reject it"
                )),
            };
        }
    }
    if let Ok(bytes) = URL_SAFE_PAD_INDIFFERENT.decode(data) {
        return Decoded {
            size: Some(bytes.len()),
            problem: Some(format!(
                "{field} uses the URL-safe base64 alphabet ('-' and '_'); MCP expects standard base64"
            )),
        };
    }
    let reason = match STANDARD_PAD_INDIFFERENT.decode(data) {
        Err(e) => e.to_string(),
        Ok(_) => String::new(),
    };
    Decoded {
        size: None,
        problem: Some(format!("{field} is not valid base64 ({reason})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_and_lenient_base64() {
        assert_eq!(decode_len("data", "aGVsbG8=").size, Some(5));
        assert_eq!(decode_len("data", "aGVsbG8").problem, None);
        let wrapped = decode_len("data", "aGVs\nbG8=");
        assert_eq!(wrapped.size, Some(5));
        assert!(wrapped.problem.unwrap_or_default().contains("line breaks"));
        let url = decode_len("data", "-_-_");
        assert_eq!(url.size, Some(3));
        assert!(url.problem.unwrap_or_default().contains("URL-safe"));
        let bad = decode_len("data", "not base64!!");
        assert_eq!(bad.size, None);
        assert!(
            bad.problem
                .unwrap_or_default()
                .starts_with("data is not valid base64")
        );
    }
}
