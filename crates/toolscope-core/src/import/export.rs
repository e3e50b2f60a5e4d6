//! A Toolscope server written as another client's configuration entry, to paste into that
//! client's file: `mcpServers` JSON (Claude Desktop, Claude Code, Cursor, Windsurf, Gemini
//! CLI, each with its own spelling of a remote server), VS Code's `servers`, Codex's TOML.
//! Secret values become placeholders unless the user asks for them.

use serde_json::{Map, Value, json};

use super::Client;
use crate::session::ServerConfig;

/// Every client an entry can be written for.
pub const CLIENTS: [Client; 7] = [
    Client::ClaudeDesktop,
    Client::ClaudeCode,
    Client::Cursor,
    Client::VsCode,
    Client::Windsurf,
    Client::GeminiCli,
    Client::Codex,
];

/// The environment variable a secret `key` is replaced by: `API_KEY`, `AUTHORIZATION`.
fn secret_variable(key: &str) -> String {
    crate::text_util::env_variable_name(key)
}

/// `value`, or a placeholder for it when `key` names a secret and secrets are left out.
fn kept(key: &str, value: &str, include_secrets: bool, client: Client) -> String {
    if include_secrets || !crate::secrets::is_secret_name(key) {
        return value.to_owned();
    }
    let variable = secret_variable(key);
    let placeholder = match client {
        // VS Code reads `${env:NAME}`; the others `${NAME}`.
        Client::VsCode => format!("${{env:{variable}}}"),
        _ => format!("${{{variable}}}"),
    };
    // `Bearer …` keeps its scheme: only the token is the secret.
    match value.split_once(' ') {
        Some((scheme, _)) if matches!(scheme, "Bearer" | "Basic" | "Token") => {
            format!("{scheme} {placeholder}")
        }
        _ => placeholder,
    }
}

fn kept_map(
    map: &std::collections::BTreeMap<String, String>,
    include_secrets: bool,
    client: Client,
) -> Map<String, Value> {
    map.iter()
        .map(|(key, value)| {
            (
                key.clone(),
                Value::String(kept(key, value, include_secrets, client)),
            )
        })
        .collect()
}

/// The entry for `client`, as text to paste (the whole `{"mcpServers": {name: …}}` or, for
/// Codex, the `[mcp_servers.name]` table).
pub fn entry_for(
    client: Client,
    name: &str,
    config: &ServerConfig,
    include_secrets: bool,
) -> String {
    let mut entry = Map::new();
    match config {
        ServerConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            if client == Client::VsCode || client == Client::ClaudeCode {
                entry.insert("type".to_owned(), json!("stdio"));
            }
            entry.insert("command".to_owned(), json!(command));
            entry.insert("args".to_owned(), json!(args));
            if !env.is_empty() {
                entry.insert(
                    "env".to_owned(),
                    Value::Object(kept_map(env, include_secrets, client)),
                );
            }
            if let Some(cwd) = cwd {
                entry.insert("cwd".to_owned(), json!(cwd.display().to_string()));
            }
        }
        ServerConfig::Http { url, headers, .. } => {
            let key = match client {
                Client::Windsurf => "serverUrl",
                Client::GeminiCli => "httpUrl",
                _ => "url",
            };
            if matches!(client, Client::VsCode | Client::ClaudeCode) {
                entry.insert("type".to_owned(), json!("http"));
            }
            entry.insert(key.to_owned(), json!(url));
            if !headers.is_empty() {
                let key = if client == Client::Codex {
                    "http_headers"
                } else {
                    "headers"
                };
                entry.insert(
                    key.to_owned(),
                    Value::Object(kept_map(headers, include_secrets, client)),
                );
            }
        }
    }
    if client == Client::Codex {
        return codex_toml(name, entry);
    }
    let wrapper = if client == Client::VsCode {
        "servers"
    } else {
        "mcpServers"
    };
    let document = json!({ wrapper: { name: Value::Object(entry) } });
    serde_json::to_string_pretty(&document).unwrap_or_default()
}

fn codex_toml(name: &str, entry: Map<String, Value>) -> String {
    let mut servers = toml::Table::new();
    let table: toml::Table = entry
        .into_iter()
        .filter_map(|(key, value)| Some((key, json_to_toml(value)?)))
        .collect();
    servers.insert(name.to_owned(), toml::Value::Table(table));
    let mut root = toml::Table::new();
    root.insert("mcp_servers".to_owned(), toml::Value::Table(servers));
    toml::to_string(&root).unwrap_or_default()
}

fn json_to_toml(value: Value) -> Option<toml::Value> {
    Some(match value {
        Value::String(text) => toml::Value::String(text),
        Value::Bool(flag) => toml::Value::Boolean(flag),
        Value::Number(number) => toml::Value::Integer(number.as_i64()?),
        Value::Array(items) => {
            toml::Value::Array(items.into_iter().filter_map(json_to_toml).collect())
        }
        Value::Object(map) => toml::Value::Table(
            map.into_iter()
                .filter_map(|(key, value)| Some((key, json_to_toml(value)?)))
                .collect(),
        ),
        Value::Null => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ConfigFile, Scope, read_text};

    fn stdio() -> ServerConfig {
        ServerConfig::Stdio {
            command: "npx".to_owned(),
            args: vec!["-y".to_owned(), "weather-mcp".to_owned()],
            env: [
                ("API_KEY".to_owned(), "s3cret".to_owned()),
                ("UNITS".to_owned(), "metric".to_owned()),
            ]
            .into(),
            cwd: None,
        }
    }

    fn remote() -> ServerConfig {
        ServerConfig::Http {
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
            url: "https://mcp.example.com/mcp".to_owned(),
            headers: [("Authorization".to_owned(), "Bearer t0k".to_owned())].into(),
        }
    }

    #[test]
    fn each_clients_entry_reads_back_as_the_same_server_with_secrets_as_placeholders() {
        for client in CLIENTS {
            for config in [stdio(), remote()] {
                let text = entry_for(client, "w", &config, false);
                assert!(
                    !text.contains("s3cret") && !text.contains("t0k"),
                    "{client:?}: {text}"
                );
                let file = ConfigFile {
                    client,
                    path: "/x".into(),
                    scope: Scope::User,
                };
                let found = read_text(&file, &text).unwrap_or_default();
                assert_eq!(found.len(), 1, "{client:?}: {text}");
                let Ok(entry) = &found[0].entry else {
                    panic!("{client:?}: {:?}", found[0].entry);
                };
                assert_eq!(entry.placeholders.len(), 1, "{client:?}: {text}");
                match (&entry.config, &config) {
                    (
                        ServerConfig::Stdio {
                            command, args, env, ..
                        },
                        ServerConfig::Stdio {
                            command: c,
                            args: a,
                            ..
                        },
                    ) => {
                        assert_eq!((command, args), (c, a));
                        assert_eq!(env["UNITS"], "metric");
                    }
                    (ServerConfig::Http { url, .. }, ServerConfig::Http { url: u, .. }) => {
                        assert_eq!(url, u);
                    }
                    other => panic!("{client:?}: {other:?}"),
                }
                if let ServerConfig::Http { headers, .. } = &entry.config {
                    assert!(
                        headers["Authorization"].starts_with("Bearer ${"),
                        "{client:?}: {text}"
                    );
                }
                let whole = entry_for(client, "w", &config, true);
                assert!(
                    whole.contains("s3cret") || whole.contains("t0k"),
                    "{client:?}: {whole}"
                );
            }
        }
    }
}
