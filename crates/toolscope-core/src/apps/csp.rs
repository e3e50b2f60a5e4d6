//! The Content-Security-Policy an MCP App runs under: built from the domains its resource
//! declares (`_meta.ui.csp`), nothing more (the spec: a host MAY restrict further but MUST NOT
//! allow an undeclared domain), sent as an HTTP header on the sandbox page so the app's
//! document inherits it and its violations are reported to Toolscope.

use serde::Serialize;
use serde_json::Value;

/// The domains a resource declares, each list as given (entries a header could be broken
/// by are dropped and said).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeclaredCsp {
    /// `connect-src`: fetch, XHR, WebSocket.
    pub connect: Vec<String>,
    /// Scripts, styles, images, fonts, media.
    pub resource: Vec<String>,
    /// `frame-src` (none when not declared).
    pub frame: Vec<String>,
    /// `base-uri` (`'self'` when not declared).
    pub base_uri: Vec<String>,
    /// Entries refused: not a source a CSP header can carry.
    pub refused: Vec<String>,
}

impl DeclaredCsp {
    /// Reads `_meta.ui.csp` (absent: nothing declared, the restrictive default).
    pub fn from_meta(csp: Option<&Value>) -> Self {
        let mut declared = Self::default();
        let Some(csp) = csp else {
            return declared;
        };
        let mut list = |key: &str| -> Vec<String> {
            let mut kept = Vec::new();
            for entry in csp.get(key).and_then(Value::as_array).into_iter().flatten() {
                match entry.as_str() {
                    Some(source) if is_safe_source(source) => kept.push(source.to_owned()),
                    Some(source) => declared.refused.push(source.to_owned()),
                    None => declared.refused.push(entry.to_string()),
                }
            }
            kept
        };
        let connect = list("connectDomains");
        let resource = list("resourceDomains");
        let frame = list("frameDomains");
        let base_uri = list("baseUriDomains");
        Self {
            connect,
            resource,
            frame,
            base_uri,
            refused: declared.refused,
        }
    }

    /// The header's value: the spec's construction, plus where the sandbox may be framed
    /// (`frame_ancestor`, the host page's origin) and where violations are reported.
    pub fn header(&self, frame_ancestor: &str, report_uri: &str) -> String {
        let with = |fixed: &str, extra: &[String]| {
            let mut sources = fixed.to_owned();
            for source in extra {
                sources.push(' ');
                sources.push_str(source);
            }
            sources
        };
        let resource = &self.resource;
        let frame = if self.frame.is_empty() {
            "'none'".to_owned()
        } else {
            self.frame.join(" ")
        };
        let base = if self.base_uri.is_empty() {
            "'self'".to_owned()
        } else {
            self.base_uri.join(" ")
        };
        [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'self' 'unsafe-inline'", resource)),
            format!("style-src {}", with("'self' 'unsafe-inline'", resource)),
            format!("connect-src {}", with("'self'", &self.connect)),
            format!("img-src {}", with("'self' data:", resource)),
            format!("font-src {}", with("'self'", resource)),
            format!("media-src {}", with("'self' data:", resource)),
            format!("frame-src {frame}"),
            "object-src 'none'".to_owned(),
            format!("base-uri {base}"),
            format!("frame-ancestors {frame_ancestor}"),
            format!("report-uri {report_uri}"),
        ]
        .join("; ")
    }
}

/// A source a header can carry as one token: no separator, quote or space, and a scheme or
/// a host (`https://cdn.example.com`, `https://*.example.com`, `wss://x.example:8443`).
fn is_safe_source(source: &str) -> bool {
    !source.is_empty()
        && source.len() <= 2048
        && !source
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, ';' | ',' | '\'' | '"'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nothing_declared_allows_nothing_beyond_the_page_itself() {
        let header = DeclaredCsp::from_meta(None).header("http://127.0.0.1:1", "/r");
        assert!(header.contains("default-src 'none'"), "{header}");
        assert!(header.contains("connect-src 'self';"), "{header}");
        assert!(header.contains("frame-src 'none'"), "{header}");
        assert!(header.contains("base-uri 'self'"), "{header}");
        assert!(
            header.contains("frame-ancestors http://127.0.0.1:1"),
            "{header}"
        );
    }

    #[test]
    fn declared_domains_go_where_the_spec_puts_them_and_unsafe_ones_are_refused() {
        let declared = DeclaredCsp::from_meta(Some(&json!({
            "connectDomains": ["https://api.example.com", "https://x.example; script-src *"],
            "resourceDomains": ["https://cdn.example.com"],
            "frameDomains": ["https://www.youtube.com"],
        })));
        assert_eq!(declared.refused, ["https://x.example; script-src *"]);
        let header = declared.header("http://127.0.0.1:1", "/r");
        assert!(
            header.contains("connect-src 'self' https://api.example.com;"),
            "{header}"
        );
        assert!(header.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com;"));
        assert!(
            header.contains("frame-src https://www.youtube.com;"),
            "{header}"
        );
        assert!(!header.contains("x.example"), "{header}");
    }
}
