//! Watch through Toolscope: one server of another client's configuration rewritten so the
//! client launches `toolscope proxy` in its place (every call it makes is then kept and shown
//! live), and put back exactly as it was. Only that entry's bytes change: its span in the
//! file is found (JSON with comments, or Codex's TOML), replaced, and the text it held kept to
//! put back. A copy of the whole file is kept before the first change.

mod json_span;
mod records;
mod toml_span;

use std::{
    ops::Range,
    path::{Path, PathBuf},
};

use serde_json::{Map, Value};

pub use records::{WatchRecord, WatchRecords, WatchRecordsError};

use super::{Client, FoundServer, Scope};

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{0} cannot be read: {1}")]
    Read(PathBuf, String),
    #[error("\"{name}\" is not in {path} any more (the file changed since it was read)")]
    EntryGone { name: String, path: PathBuf },
    #[error(
        "\"{0}\" is reached over HTTP: watching through Toolscope rewrites a stdio server's \
         command. For this one, run `toolscope proxy --url <its URL> --listen 127.0.0.1:PORT` \
         and give the client http://127.0.0.1:PORT/mcp instead"
    )]
    NotStdio(String),
    #[error(
        "\"{0}\" is already watched through Toolscope (`toolscope servers --unwatch` puts it back)"
    )]
    AlreadyWatched(String),
    #[error("\"{name}\" in {path} is not watched through Toolscope")]
    NotWatched { name: String, path: PathBuf },
    #[error(
        "\"{0}\" is written in a form Toolscope does not rewrite (in Codex's config.toml, only a \
         [mcp_servers.NAME] table is): edit the file yourself to run `toolscope proxy -- …`"
    )]
    UnsupportedForm(String),
    #[error("{path} changed while the change was being made; nothing was written, try again")]
    ChangedMeanwhile { path: PathBuf },
    #[error("{0}")]
    Write(String),
    /// The records of what is watched, or the copy of the file as it was.
    #[error(transparent)]
    Records(#[from] WatchRecordsError),
}

/// One entry rewritten: where, what it is and what it becomes.
#[derive(Debug, Clone)]
pub struct EntryRewrite {
    pub client: Client,
    pub path: PathBuf,
    pub name: String,
    /// The keys that lead to the entry in its file (`mcpServers`, `name`).
    pub keys: Vec<String>,
    /// The entry's text as it is, and as it will be.
    pub before: String,
    pub after: String,
    /// Said with the change (the entry was edited since it was watched…).
    pub note: Option<String>,
    span: Range<usize>,
    /// The whole file, as read.
    text: String,
}

impl EntryRewrite {
    /// The entry as it is and as it will be, for a person to read: lines after the first
    /// lose the indentation they have from the file around them.
    pub fn shown(&self) -> (String, String) {
        (dedented(&self.before), dedented(&self.after))
    }

    /// The whole file with the entry rewritten.
    pub fn rewritten_text(&self) -> String {
        let mut text = String::with_capacity(self.text.len() + self.after.len());
        text.push_str(&self.text[..self.span.start]);
        text.push_str(&self.after);
        text.push_str(&self.text[self.span.end..]);
        text
    }

    /// Writes the change (atomically), unless the file changed since it was read.
    fn write(&self) -> Result<(), WatchError> {
        let now = std::fs::read_to_string(&self.path)
            .map_err(|error| WatchError::Read(self.path.clone(), error.to_string()))?;
        if now != self.text {
            return Err(WatchError::ChangedMeanwhile {
                path: self.path.clone(),
            });
        }
        let text = self.rewritten_text();
        crate::atomic_file::write_atomically(&self.path, |out| out.write_all(text.as_bytes()))
            .map_err(|error| WatchError::Write(error.to_string()))
    }
}

/// `text` with the indentation its lines after the first share taken off them, and its line
/// endings made `\n`.
fn dedented(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return String::new();
    };
    let rest: Vec<&str> = lines.collect();
    // The closing line is the entry's own indentation.
    let common = rest
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first.to_owned();
    for line in rest {
        out.push('\n');
        out.push_str(line.get(common..).unwrap_or(line.trim_start()));
    }
    out
}

/// The keys of a found server's entry in its file.
fn entry_keys(found: &FoundServer) -> Vec<String> {
    let name = found.name.clone();
    match (found.client, &found.scope) {
        (Client::Codex, _) => vec!["mcp_servers".to_owned(), name],
        (Client::VsCode, _) => vec!["servers".to_owned(), name],
        // Claude Code's user file holds each project's servers under `projects`.
        (Client::ClaudeCode, Scope::Project(project))
            if found
                .path
                .file_name()
                .is_some_and(|file| file == ".claude.json") =>
        {
            vec![
                "projects".to_owned(),
                project.display().to_string(),
                "mcpServers".to_owned(),
                name,
            ]
        }
        _ => vec!["mcpServers".to_owned(), name],
    }
}

fn read(path: &Path) -> Result<String, WatchError> {
    std::fs::read_to_string(path)
        .map_err(|error| WatchError::Read(path.to_owned(), error.to_string()))
}

/// Where the entry is in `text` (for Codex: its table's body).
fn locate(client: Client, text: &str, keys: &[String]) -> Option<Range<usize>> {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    if client == Client::Codex {
        toml_span::table_body_span(text, &keys)
    } else {
        json_span::value_span(text, &keys)
    }
}

/// How a watched entry launches Toolscope: which binary, and which history it records into.
/// Clients start their servers with a bare environment (Claude Desktop, the TypeScript SDK,
/// the Inspector), so a data folder chosen with `TOOLSCOPE_DATA_DIR` must be in the entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyLaunch {
    /// The running binary's absolute path.
    pub toolscope: PathBuf,
    /// The history the watching Toolscope reads (`None`: the proxy's default). A team
    /// database is named without its password (the proxy finds it as libpq would).
    pub history: Option<crate::history::HistoryLocation>,
}

/// The command and arguments that run `toolscope proxy` in front of `command args…`.
fn proxied(
    launch: &ProxyLaunch,
    name: &str,
    command: &str,
    args: &[String],
) -> (String, Vec<String>) {
    let mut proxy_args = vec!["proxy".to_owned()];
    if let Some(history) = &launch.history {
        proxy_args.extend(["--history".to_owned(), history.to_string()]);
    }
    proxy_args.extend([
        "--name".to_owned(),
        name.to_owned(),
        "--".to_owned(),
        command.to_owned(),
    ]);
    proxy_args.extend(args.iter().cloned());
    (launch.toolscope.display().to_string(), proxy_args)
}

/// Whether an entry's command already is a Toolscope proxy.
fn runs_proxy(args: &[String]) -> bool {
    args.first().is_some_and(|first| first == "proxy") && args.iter().any(|arg| arg == "--")
}

/// The change that makes the client launch `toolscope` (`toolscope` is the running binary's
/// absolute path) as a proxy in front of `found`.
pub fn plan_watch(found: &FoundServer, launch: &ProxyLaunch) -> Result<EntryRewrite, WatchError> {
    let text = read(&found.path)?;
    let keys = entry_keys(found);
    let gone = || WatchError::EntryGone {
        name: found.name.clone(),
        path: found.path.clone(),
    };
    let span = locate(found.client, &text, &keys).ok_or_else(|| {
        if found.client == Client::Codex {
            WatchError::UnsupportedForm(found.name.clone())
        } else {
            gone()
        }
    })?;
    let before = text[span.clone()].to_owned();
    let after = if found.client == Client::Codex {
        watched_toml_body(&before, &found.name, launch)?
    } else {
        // Lines after the first carry the entry's indentation and the file's line ending.
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let indent = json_span::line_indent(&text, span.start);
        let line_start = format!("{newline}{indent}");
        watched_json_entry(&before, &found.name, launch, &line_start)?
    };
    Ok(EntryRewrite {
        client: found.client,
        path: found.path.clone(),
        name: found.name.clone(),
        keys,
        before,
        after,
        note: None,
        span,
        text,
    })
}

/// A JSON entry with its command and arguments put behind the proxy, the rest as it was;
/// each line after the first starts with `line_start` (the file's line ending, the entry's
/// indentation).
fn watched_json_entry(
    entry: &str,
    name: &str,
    launch: &ProxyLaunch,
    line_start: &str,
) -> Result<String, WatchError> {
    let plain = super::config_file::strip_jsonc(entry);
    let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(&plain) else {
        return Err(WatchError::UnsupportedForm(name.to_owned()));
    };
    let Some(command) = object
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Err(WatchError::NotStdio(name.to_owned()));
    };
    let args: Vec<String> = object
        .get("args")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .map(|arg| match arg {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    if runs_proxy(&args) {
        return Err(WatchError::AlreadyWatched(name.to_owned()));
    }
    let (command, args) = proxied(launch, name, &command, &args);
    let mut rewritten = Map::new();
    let mut placed_args = false;
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            "command" => {
                rewritten.insert(key.clone(), Value::String(command.clone()));
                rewritten.insert("args".to_owned(), Value::from(args.clone()));
                placed_args = true;
            }
            "args" => {}
            _ => {
                rewritten.insert(key.clone(), std::mem::take(value));
            }
        }
    }
    if !placed_args {
        rewritten.insert("args".to_owned(), Value::from(args));
    }
    let pretty = serde_json::to_string_pretty(&Value::Object(rewritten))
        .map_err(|error| WatchError::Write(error.to_string()))?;
    Ok(pretty.replace('\n', line_start))
}

/// A Codex table body with its command and arguments put behind the proxy.
fn watched_toml_body(body: &str, name: &str, launch: &ProxyLaunch) -> Result<String, WatchError> {
    let mut table: toml::Table = body
        .parse()
        .map_err(|_| WatchError::UnsupportedForm(name.to_owned()))?;
    let Some(command) = table
        .get("command")
        .and_then(toml::Value::as_str)
        .map(str::to_owned)
    else {
        return Err(WatchError::NotStdio(name.to_owned()));
    };
    let args: Vec<String> = table
        .get("args")
        .and_then(toml::Value::as_array)
        .map(|args| {
            args.iter()
                .map(|arg| arg.as_str().map_or_else(|| arg.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if runs_proxy(&args) {
        return Err(WatchError::AlreadyWatched(name.to_owned()));
    }
    let (command, args) = proxied(launch, name, &command, &args);
    table.insert("command".to_owned(), toml::Value::String(command));
    table.insert(
        "args".to_owned(),
        toml::Value::Array(args.into_iter().map(toml::Value::String).collect()),
    );
    let mut text = toml::to_string(&table).map_err(|error| WatchError::Write(error.to_string()))?;
    // The blank lines that followed the body before follow it still.
    let trailing = &body[body.trim_end().len()..];
    text.truncate(text.trim_end().len());
    text.push_str(if trailing.is_empty() { "\n" } else { trailing });
    Ok(text)
}

/// What watching did: the file changed, and where a copy of it as it was is.
#[derive(Debug, Clone)]
pub struct Watched {
    pub backup: PathBuf,
}

/// Makes the change: a copy of the whole file first (in `records`' folder), then the file
/// rewritten, then the change remembered (to put it back).
pub fn watch(rewrite: &EntryRewrite, records: &WatchRecords) -> Result<Watched, WatchError> {
    let backup =
        records.keep_backup(rewrite.client, &rewrite.name, &rewrite.path, &rewrite.text)?;
    rewrite.write()?;
    records.add(WatchRecord {
        client: rewrite.client.id().to_owned(),
        path: rewrite.path.clone(),
        name: rewrite.name.clone(),
        keys: rewrite.keys.clone(),
        before: rewrite.before.clone(),
        after: rewrite.after.clone(),
        backup: backup.clone(),
        watched_at: crate::history::started_ago(std::time::Duration::ZERO),
    })?;
    Ok(Watched { backup })
}

/// The change that puts `record`'s entry back as it was before watching.
pub fn plan_unwatch(record: &WatchRecord) -> Result<EntryRewrite, WatchError> {
    let client = Client::from_id(&record.client).ok_or_else(|| WatchError::NotWatched {
        name: record.name.clone(),
        path: record.path.clone(),
    })?;
    let text = read(&record.path)?;
    let span = locate(client, &text, &record.keys).ok_or_else(|| WatchError::EntryGone {
        name: record.name.clone(),
        path: record.path.clone(),
    })?;
    let now = text[span.clone()].to_owned();
    let note = (now != record.after).then(|| {
        format!(
            "the entry was edited since it was watched; it is put back as it was before \
             watching (the whole file as it was then is in {})",
            record.backup.display()
        )
    });
    Ok(EntryRewrite {
        client,
        path: record.path.clone(),
        name: record.name.clone(),
        keys: record.keys.clone(),
        before: now,
        after: record.before.clone(),
        note,
        span,
        text,
    })
}

/// Puts the entry back and forgets the watch.
pub fn unwatch(rewrite: &EntryRewrite, records: &WatchRecords) -> Result<(), WatchError> {
    rewrite.write()?;
    records.remove(&rewrite.path, &rewrite.name)?;
    Ok(())
}

#[cfg(test)]
mod tests;
