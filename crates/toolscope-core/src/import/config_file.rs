//! Reads the servers out of one client's configuration file: `mcpServers` (Claude Desktop,
//! Claude Code, Cursor, Windsurf, Gemini CLI; Claude Code's `~/.claude.json` also per project
//! under `projects`), VS Code's `servers` with its `inputs`, and Codex's TOML
//! `[mcp_servers.*]`.

use super::ImportError;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{
    client::{Client, ConfigFile, Scope},
    entry::{ReadEntry, read_entry},
};

/// A file bigger than this is not a configuration (it is not read).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// A value VS Code asks for when a server starts (`inputs`), for `${input:id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputPrompt {
    pub id: String,
    pub description: Option<String>,
    /// Typed without echo (a secret).
    pub password: bool,
}

/// A server found in a client's configuration.
#[derive(Debug, Clone)]
pub struct FoundServer {
    pub name: String,
    pub client: Client,
    /// The file it was found in.
    pub path: PathBuf,
    pub scope: Scope,
    /// The server, or why it cannot be imported.
    pub entry: Result<ReadEntry, ImportError>,
    /// The prompts its `${input:…}` placeholders refer to (VS Code).
    pub inputs: Vec<InputPrompt>,
}

/// What reading one file gave.
#[derive(Debug)]
pub enum FileReading {
    /// The file is not there (the client is not used, or not here).
    Absent,
    Read(Vec<FoundServer>),
    /// The file is there but could not be read: why.
    Unreadable(String),
}

/// Reads `file` from the disk.
pub fn read_file(file: &ConfigFile) -> FileReading {
    match std::fs::metadata(&file.path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return FileReading::Absent,
        Err(error) => return FileReading::Unreadable(error.to_string()),
        Ok(meta) if meta.len() > MAX_FILE_BYTES => {
            return FileReading::Unreadable(format!(
                "it is {} MB, too big for a configuration",
                meta.len() / 1_000_000
            ));
        }
        Ok(_) => {}
    }
    match std::fs::read_to_string(&file.path) {
        Ok(text) => match read_text(file, &text) {
            Ok(servers) => FileReading::Read(servers),
            Err(error) => FileReading::Unreadable(error.to_string()),
        },
        Err(error) => FileReading::Unreadable(error.to_string()),
    }
}

/// Reads the servers of `file` from its `text`.
pub fn read_text(file: &ConfigFile, text: &str) -> Result<Vec<FoundServer>, ImportError> {
    let root = if file.client == Client::Codex {
        codex_as_json(text)?
    } else {
        parse_json_with_comments(text)?
    };
    let found = |name: &str, entry: &Value, scope: &Scope, inputs: &[InputPrompt]| {
        let entry = read_entry(entry, file.client == Client::GeminiCli);
        let inputs = match &entry {
            Ok(read) => inputs
                .iter()
                .filter(|input| {
                    read.placeholders.iter().any(|placeholder| {
                        matches!(placeholder, super::Placeholder::Input { id } if *id == input.id)
                    })
                })
                .cloned()
                .collect(),
            Err(_) => Vec::new(),
        };
        FoundServer {
            name: name.to_owned(),
            client: file.client,
            path: file.path.clone(),
            scope: scope.clone(),
            entry,
            inputs,
        }
    };
    let mut servers = Vec::new();
    let key = match file.client {
        Client::VsCode => "servers",
        Client::Codex => "mcp_servers",
        _ => "mcpServers",
    };
    let inputs = vs_code_inputs(&root);
    if let Some(entries) = root.get(key).and_then(Value::as_object) {
        for (name, entry) in entries {
            servers.push(found(name, entry, &file.scope, &inputs));
        }
    }
    // Claude Code keeps each project's own servers in the user file.
    if file.client == Client::ClaudeCode
        && let Some(projects) = root.get("projects").and_then(Value::as_object)
    {
        for (project, settings) in projects {
            let scope = Scope::Project(PathBuf::from(project));
            if let Some(entries) = settings.get("mcpServers").and_then(Value::as_object) {
                for (name, entry) in entries {
                    servers.push(found(name, entry, &scope, &[]));
                }
            }
        }
    }
    Ok(servers)
}

fn vs_code_inputs(root: &Value) -> Vec<InputPrompt> {
    root.get("inputs")
        .and_then(Value::as_array)
        .map(|inputs| {
            inputs
                .iter()
                .filter_map(|input| {
                    Some(InputPrompt {
                        id: input.get("id")?.as_str()?.to_owned(),
                        description: input
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        password: input.get("password").and_then(Value::as_bool) == Some(true),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// JSON as the editors write it: `//` and `/* */` comments and trailing commas allowed (VS
/// Code's and Cursor's files are JSONC).
fn parse_json_with_comments(text: &str) -> Result<Value, ImportError> {
    let plain = strip_jsonc(text);
    crate::deep_json::parse(&plain).map_err(|error| ImportError::NotJson(error.to_string()))
}

pub(super) fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
                out.push(' ');
            }
            (',', _) => {
                // A trailing comma: the next thing that is not space closes the list.
                let closes = chars
                    .clone()
                    .find(|next| !next.is_whitespace())
                    .is_some_and(|next| next == '}' || next == ']');
                if !closes {
                    out.push(',');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Codex's TOML, with its `[mcp_servers.*]` entries turned into the JSON entry form: `url`
/// (Streamable HTTP) with `http_headers` and `bearer_token_env_var`, `enabled = false`.
fn codex_as_json(text: &str) -> Result<Value, ImportError> {
    let table: toml::Table = text
        .parse()
        .map_err(|error: toml::de::Error| ImportError::NotToml(error.to_string()))?;
    let mut servers = Map::new();
    if let Some(entries) = table.get("mcp_servers").and_then(toml::Value::as_table) {
        for (name, entry) in entries {
            let mut entry = serde_json::to_value(entry).unwrap_or(Value::Null);
            if let Some(object) = entry.as_object_mut() {
                let mut headers = object
                    .remove("http_headers")
                    .and_then(|headers| headers.as_object().cloned())
                    .unwrap_or_default();
                if let Some(variable) = object
                    .remove("bearer_token_env_var")
                    .and_then(|variable| variable.as_str().map(str::to_owned))
                {
                    headers.insert(
                        "Authorization".to_owned(),
                        Value::String(format!("Bearer ${{{variable}}}")),
                    );
                }
                if !headers.is_empty() {
                    object.insert("headers".to_owned(), Value::Object(headers));
                }
            }
            servers.insert(name.clone(), entry);
        }
    }
    Ok(json!({ "mcp_servers": servers }))
}

/// Every known file, read: the servers found and the files that could not be read.
pub fn discover(files: &[ConfigFile]) -> (Vec<FoundServer>, Vec<(PathBuf, String)>) {
    let mut found = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        match read_file(file) {
            FileReading::Absent => {}
            FileReading::Read(servers) => found.extend(servers),
            FileReading::Unreadable(why) => unreadable.push((file.path.clone(), why)),
        }
    }
    (found, unreadable)
}

/// The files for this user (from the platform's folders) and, when given, a project.
pub fn files_here(project: Option<&Path>) -> Vec<ConfigFile> {
    let Some(dirs) = directories::BaseDirs::new() else {
        return Vec::new();
    };
    let codex_home = std::env::var_os("CODEX_HOME").map(PathBuf::from);
    super::client::known_files(
        dirs.home_dir(),
        dirs.config_dir(),
        codex_home.as_deref(),
        project,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(client: Client) -> ConfigFile {
        ConfigFile {
            client,
            path: PathBuf::from("/x"),
            scope: Scope::User,
        }
    }

    #[test]
    fn comments_and_trailing_commas_go_but_strings_stay_whole() {
        let text = "{\"mcpServers\": {/* a */ \"w\": {\"url\": \"https://h/x//y\", // c\n \"headers\": {\"a\": \"/* not */,\"},},},}";
        let servers = read_text(&file(Client::Cursor), text).unwrap_or_default();
        assert_eq!(servers.len(), 1);
        let Ok(entry) = &servers[0].entry else {
            panic!("{:?}", servers[0].entry);
        };
        assert!(
            matches!(&entry.config, crate::session::ServerConfig::Http { url, headers, .. }
            if url == "https://h/x//y" && headers["a"] == "/* not */,")
        );
    }

    #[test]
    fn a_file_that_does_not_parse_says_how() {
        assert!(
            read_text(&file(Client::Codex), "[[[").is_err_and(|e| e.to_string().contains("TOML"))
        );
        assert!(
            read_text(&file(Client::ClaudeDesktop), "{")
                .is_err_and(|e| e.to_string().contains("JSON"))
        );
        assert!(read_text(&file(Client::ClaudeDesktop), "{}").is_ok_and(|found| found.is_empty()));
    }
}
