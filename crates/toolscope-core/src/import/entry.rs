//! One server entry of another client's configuration, read into Toolscope's `ServerConfig`.
//! The clients spell the same things differently: `command`/`args`/`env`/`cwd` for a local
//! server everywhere; for a remote one `url` (Claude, Cursor, VS Code), `serverUrl`
//! (Windsurf), `httpUrl` (Gemini CLI), with `type` `http`, `streamable-http` or `sse`.

use super::ImportError;
use std::collections::BTreeMap;

use serde_json::Value;

use super::placeholders::{self, Placeholder};
use crate::session::ServerConfig;

/// A server read from an entry: its configuration as written (placeholders kept, to be
/// resolved when it connects) and what was odd about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadEntry {
    pub config: ServerConfig,
    /// `${input:…}`, `${env:…}`, `${VAR}` and the like found in its values.
    pub placeholders: Vec<Placeholder>,
    /// What Toolscope cannot do as the client does (an SSE transport, an `envFile`…), in words.
    pub notes: Vec<String>,
    /// The entry is turned off in its client (`disabled: true`).
    pub disabled: bool,
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| match item {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(key, value)| {
                    let text = match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    (key.clone(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Reads one entry (a JSON object). `url_means_sse`: the client reads a bare `url` as an SSE
/// server (Gemini CLI). `Err` says why it is not a server Toolscope can reach.
pub fn read_entry(entry: &Value, url_means_sse: bool) -> Result<ReadEntry, ImportError> {
    let Some(object) = entry.as_object() else {
        return Err(ImportError::NotAnObject);
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = text("type").or_else(|| text("transport"));
    let url = text("url")
        .or_else(|| text("serverUrl"))
        .or_else(|| text("httpUrl"));
    let mut notes = Vec::new();
    let config = match (text("command"), url) {
        (Some(command), _) => {
            if object.contains_key("envFile") {
                notes.push(
                    "its envFile is not read: add those variables to the server's environment"
                        .to_owned(),
                );
            }
            ServerConfig::Stdio {
                command,
                args: strings(object.get("args")),
                env: string_map(object.get("env")),
                cwd: text("cwd").map(Into::into),
            }
        }
        (None, Some(url)) => {
            // Gemini CLI's `url` (beside `httpUrl`) is its SSE transport.
            let sse = kind.as_deref() == Some("sse")
                || (url_means_sse && !object.contains_key("httpUrl"));
            if sse {
                notes.push(
                    "it is an SSE server (the 2024 HTTP+SSE transport): Toolscope speaks \
                     Streamable HTTP, which many such servers also serve at the same URL"
                        .to_owned(),
                );
            }
            ServerConfig::Http {
                oauth_client_id: None,
                oauth_client_secret: None,
                oauth: Default::default(),
                url,
                headers: string_map(object.get("headers")),
            }
        }
        (None, None) => {
            return Err(ImportError::NoCommandOrUrl);
        }
    };
    let disabled = object.get("disabled").and_then(Value::as_bool) == Some(true)
        || object.get("enabled").and_then(Value::as_bool) == Some(false);
    Ok(ReadEntry {
        placeholders: placeholders::in_config(&config),
        config,
        notes,
        disabled,
    })
}
