//! An MCP App's HTML as its server serves it: the tool's `ui://` resource read with
//! `resources/read`, its `_meta.ui` taken from the read content first and the
//! `resources/list` entry second (the spec says hosts check both), and what is wrong with it
//! in words.

use base64::Engine as _;
use serde_json::Value;

use super::csp::DeclaredCsp;
use crate::{
    interface::mcp_app::{APP_MIME_TYPE, ui_resource_uri},
    session::{
        RequestControl, Session, SessionError,
        requests::resources::{ReadError, ResourceBody, contents},
    },
};

/// The most HTML an app may be (a single-file bundle is a few hundred kB).
pub const MAX_APP_HTML_BYTES: usize = 16 << 20;

/// The app a tool names, read and ready to run.
#[derive(Debug, Clone)]
pub struct AppResource {
    pub uri: String,
    pub html: String,
    pub csp: DeclaredCsp,
    /// `_meta.ui.permissions` as the iframe's `allow` list (`camera; microphone`…).
    pub allow: String,
    pub prefers_border: Option<bool>,
    /// What a host would warn of (a MIME type other than the app one…): the app still runs.
    pub warnings: Vec<String>,
}

/// Why a tool's app cannot run.
#[derive(Debug, thiserror::Error)]
pub enum AppResourceError {
    #[error("the tool names no UI resource (_meta.ui.resourceUri): it has no app to run")]
    NoApp,
    #[error("the tool's resourceUri {0:?} is not a ui:// URI: hosts run only ui:// resources")]
    NotUi(String),
    #[error("reading {uri} failed: {source}")]
    Session {
        uri: String,
        #[source]
        source: SessionError,
    },
    #[error("reading {uri} failed: {source}")]
    Read {
        uri: String,
        #[source]
        source: ReadError,
    },
    #[error("{uri} has no contents")]
    Empty { uri: String },
    #[error("{uri} is not HTML an app can run: {why}")]
    NotHtml { uri: String, why: String },
    #[error("{uri} is {bytes} bytes, more than the {} MiB an app may be", MAX_APP_HTML_BYTES >> 20)]
    TooLarge { uri: String, bytes: usize },
}

/// Reads the app `tool` (as listed, raw) names from `session`.
pub async fn read_app(
    session: &Session,
    tool: &Value,
    control: &RequestControl,
) -> Result<AppResource, AppResourceError> {
    let uri = ui_resource_uri(tool).ok_or(AppResourceError::NoApp)?;
    if !uri.starts_with("ui://") {
        return Err(AppResourceError::NotUi(uri));
    }
    let response = session
        .read_resource(&uri, control)
        .await
        .map_err(|source| AppResourceError::Session {
            uri: uri.clone(),
            source,
        })?;
    let read = contents(&response).map_err(|source| AppResourceError::Read {
        uri: uri.clone(),
        source,
    })?;
    // The listing may carry the CSP where the read does not; a server may not list it at all.
    let listed = match session.list_resources_page(control).await {
        Ok(page) => {
            let page = page.member().to_value();
            page.get("resources")
                .and_then(Value::as_array)
                .and_then(|items| {
                    items
                        .iter()
                        .find(|item| item.get("uri").and_then(Value::as_str) == Some(&uri))
                })
                .cloned()
        }
        Err(_) => None,
    };
    let content = read
        .iter()
        .find(|content| content.uri == uri)
        .or(read.first())
        .ok_or_else(|| AppResourceError::Empty { uri: uri.clone() })?;
    let mut warnings = Vec::new();
    let mime = content
        .mime_type
        .as_deref()
        .map(|mime| mime.replace(' ', "").to_ascii_lowercase());
    if mime.as_deref() != Some(APP_MIME_TYPE) {
        warnings.push(format!(
            "its MIME type is {}, not {APP_MIME_TYPE}: other hosts will not run it",
            content.mime_type.as_deref().unwrap_or("missing")
        ));
    }
    let html = match &content.body {
        ResourceBody::Text { text } => text.clone(),
        ResourceBody::Blob { base64 } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(base64)
                .map_err(|error| AppResourceError::NotHtml {
                    uri: uri.clone(),
                    why: format!("its blob is not base64 ({error})"),
                })?;
            String::from_utf8(bytes).map_err(|_| AppResourceError::NotHtml {
                uri: uri.clone(),
                why: "its blob is not UTF-8 text".to_owned(),
            })?
        }
        ResourceBody::Malformed { reason } => {
            return Err(AppResourceError::NotHtml {
                uri,
                why: reason.clone(),
            });
        }
    };
    if html.len() > MAX_APP_HTML_BYTES {
        return Err(AppResourceError::TooLarge {
            uri,
            bytes: html.len(),
        });
    }
    let from_read = content.meta.as_ref().and_then(|meta| meta.0.get("ui"));
    let from_list = listed.as_ref().and_then(|entry| entry.pointer("/_meta/ui"));
    let ui = from_read.or(from_list);
    Ok(AppResource {
        csp: DeclaredCsp::from_meta(ui.and_then(|ui| ui.get("csp"))),
        allow: allow_list(ui.and_then(|ui| ui.get("permissions"))),
        prefers_border: ui
            .and_then(|ui| ui.get("prefersBorder"))
            .and_then(Value::as_bool),
        uri,
        html,
        warnings,
    })
}

/// `_meta.ui.permissions` as a Permissions Policy `allow` list.
fn allow_list(permissions: Option<&Value>) -> String {
    let Some(permissions) = permissions.and_then(Value::as_object) else {
        return String::new();
    };
    [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ]
    .iter()
    .filter(|(key, _)| {
        permissions
            .get(*key)
            .is_some_and(|value| !matches!(value, Value::Null | Value::Bool(false)))
    })
    .map(|(_, feature)| *feature)
    .collect::<Vec<_>>()
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permissions_become_an_allow_list() {
        assert_eq!(
            allow_list(Some(
                &json!({"camera": {}, "clipboardWrite": true, "microphone": false})
            )),
            "camera; clipboard-write"
        );
        assert_eq!(allow_list(None), "");
    }
}
