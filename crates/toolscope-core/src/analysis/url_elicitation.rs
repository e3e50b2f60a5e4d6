//! The URL elicitation required error (`-32042`, 2025-11-25 and later): instead of running, the
//! tool answers with the pages the person must open first (`data.elicitations`, each a URL
//! elicitation); once they are done there, the call is made again.

use serde::Serialize;
use serde_json::Value;

use super::ErrorKind;

/// The JSON-RPC error code of "URL elicitation required".
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// How many of the listed pages are read (a server may list thousands).
const MAX_LISTED: usize = 10;

/// One page the server wants the person to open before the call can succeed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequiredPage {
    pub url: String,
    /// The URL's host, shown prominently (`None` when the URL does not parse or has none).
    pub host: Option<String>,
    pub message: Option<String>,
    pub elicitation_id: Option<String>,
    /// Whether Toolscope would open it: only http(s) pages are.
    pub openable: bool,
}

/// The pages of a URL elicitation required error, in the server's order; empty for any other
/// answer. At most [`MAX_LISTED`].
pub fn required_pages(error: &ErrorKind) -> Vec<RequiredPage> {
    let ErrorKind::ProtocolError {
        code: Some(URL_ELICITATION_REQUIRED),
        data: Some(data),
        ..
    } = error
    else {
        return Vec::new();
    };
    let text = |entry: &Value, key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    data.get("elicitations")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    let url = text(entry, "url")?;
                    let parsed = url::Url::parse(&url).ok();
                    Some(RequiredPage {
                        host: parsed
                            .as_ref()
                            .and_then(|url| url.host_str().map(str::to_owned)),
                        openable: parsed
                            .as_ref()
                            .is_some_and(|url| matches!(url.scheme(), "http" | "https")),
                        message: text(entry, "message"),
                        elicitation_id: text(entry, "elicitationId"),
                        url,
                    })
                })
                .take(MAX_LISTED)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_pages_of_a_url_elicitation_error_are_read_and_only_web_pages_open() {
        let error = ErrorKind::from_rpc_error(&json!({
            "code": -32042,
            "message": "This request requires more information.",
            "data": {"elicitations": [
                {"mode": "url", "elicitationId": "e1", "url": "https://auth.example.com/connect?x=1",
                 "message": "Authorize access to your files."},
                {"mode": "url", "url": "javascript:alert(1)"},
                {"mode": "url"}
            ]}
        }));
        let pages = required_pages(&error);
        assert_eq!(pages.len(), 2, "an entry without a url is left out");
        assert_eq!(pages[0].host.as_deref(), Some("auth.example.com"));
        assert!(pages[0].openable && !pages[1].openable);
        assert_eq!(pages[0].elicitation_id.as_deref(), Some("e1"));
        assert!(
            required_pages(&ErrorKind::from_rpc_error(
                &json!({"code": -32603, "message": "x"})
            ))
            .is_empty()
        );
    }
}
