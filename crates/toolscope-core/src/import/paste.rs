//! A server described in pasted text, the ways people share them: an `mcpServers` (or VS
//! Code `servers`) JSON object, a single server entry, a `claude mcp add …` line, an http(s)
//! URL, or a shell command line (`npx -y @scope/server --flag`).

use super::ImportError;
use std::collections::BTreeMap;

use serde_json::Value;

use super::entry::{ReadEntry, read_entry};
use crate::session::ServerConfig;

/// A server read from pasted text, with the name it would get.
#[derive(Debug, Clone, PartialEq)]
pub struct PastedServer {
    pub name: String,
    pub entry: ReadEntry,
}

/// The servers `text` describes, or what is wrong with it.
pub fn read_pasted(text: &str) -> Result<Vec<PastedServer>, ImportError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ImportError::NothingPasted);
    }
    if text.starts_with('{') {
        return from_json(text);
    }
    if text.starts_with("http://") || text.starts_with("https://") {
        let url = text.split_whitespace().next().unwrap_or(text).to_owned();
        return Ok(vec![plain(
            name_of_url(&url),
            ServerConfig::Http {
                oauth_client_id: None,
                oauth_client_secret: None,
                oauth: Default::default(),
                url,
                headers: BTreeMap::new(),
            },
        )]);
    }
    let words = shlex::split(text).ok_or(ImportError::Unsplittable)?;
    if words.first().map(String::as_str) == Some("claude")
        && words.get(1).map(String::as_str) == Some("mcp")
    {
        return claude_mcp_add(&words[2..]).map(|server| vec![server]);
    }
    let config = ServerConfig::stdio_from_command_line(text)?;
    Ok(vec![plain(name_of_command(&words), config)])
}

fn plain(name: String, config: ServerConfig) -> PastedServer {
    PastedServer {
        name,
        entry: ReadEntry {
            placeholders: super::placeholders::in_config(&config),
            config,
            notes: Vec::new(),
            disabled: false,
        },
    }
}

fn from_json(text: &str) -> Result<Vec<PastedServer>, ImportError> {
    let value = crate::deep_json::parse(text)
        .map_err(|error| ImportError::PastedNotJson(error.to_string()))?;
    let servers = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .or_else(|| value.get("mcp").and_then(|mcp| mcp.get("servers")));
    if let Some(servers) = servers.and_then(Value::as_object) {
        return named(servers);
    }
    // A single entry, or a map of them without the wrapping key.
    if value.get("command").is_some()
        || value.get("url").is_some()
        || value.get("httpUrl").is_some()
        || value.get("serverUrl").is_some()
    {
        let entry = read_entry(&value, false)?;
        let name = match &entry.config {
            ServerConfig::Stdio { command, args, .. } => {
                let mut words = vec![command.clone()];
                words.extend(args.iter().cloned());
                name_of_command(&words)
            }
            ServerConfig::Http { url, .. } => name_of_url(url),
        };
        return Ok(vec![PastedServer { name, entry }]);
    }
    match value.as_object() {
        Some(map) if !map.is_empty() && map.values().all(Value::is_object) => named(map),
        _ => Err(ImportError::NotServers),
    }
}

fn named(servers: &serde_json::Map<String, Value>) -> Result<Vec<PastedServer>, ImportError> {
    let mut read = Vec::new();
    for (name, entry) in servers {
        let entry = read_entry(entry, false).map_err(|problem| ImportError::Server {
            name: name.clone(),
            problem: Box::new(problem),
        })?;
        read.push(PastedServer {
            name: name.clone(),
            entry,
        });
    }
    if read.is_empty() {
        return Err(ImportError::NoServers);
    }
    Ok(read)
}

/// `claude mcp add [options] <name> <command> [args…]`, `claude mcp add --transport http <name>
/// <url>`, `claude mcp add-json <name> '<json>'` (the words after `claude mcp`).
fn claude_mcp_add(words: &[String]) -> Result<PastedServer, ImportError> {
    let (verb, rest) = words.split_first().ok_or(ImportError::ClaudeAddUsage)?;
    if verb == "add-json" {
        let [name, json, ..] = rest else {
            return Err(ImportError::ClaudeAddJsonUsage);
        };
        let value = crate::deep_json::parse(json)
            .map_err(|error| ImportError::ClaudeAddJsonNotJson(error.to_string()))?;
        return Ok(PastedServer {
            name: name.clone(),
            entry: read_entry(&value, false)?,
        });
    }
    if verb != "add" {
        return Err(ImportError::ClaudeAddUsage);
    }
    let mut transport = None;
    let mut env = BTreeMap::new();
    let mut headers = BTreeMap::new();
    let mut positional: Vec<String> = Vec::new();
    let mut words = rest.iter();
    let value = |words: &mut std::slice::Iter<'_, String>, word: &str, what: &'static str| {
        words
            .next()
            .cloned()
            .ok_or_else(|| ImportError::FlagWithoutValue {
                flag: word.to_owned(),
                what,
            })
    };
    while let Some(word) = words.next() {
        // After the name and the command, every word is the server's own.
        if positional.len() >= 2 {
            positional.push(word.clone());
            continue;
        }
        match word.as_str() {
            "--" => positional.extend(words.by_ref().cloned()),
            "-t" | "--transport" => transport = Some(value(&mut words, word, "transport")?),
            "-s" | "--scope" => {
                value(&mut words, word, "scope")?;
            }
            "-e" | "--env" => {
                let pair = value(&mut words, word, "KEY=value")?;
                let (key, text) = crate::session::config::parse_key_value(&pair)?;
                env.insert(key, text);
            }
            "-H" | "--header" => {
                let header = value(&mut words, word, "header")?;
                let (name, text) = crate::session::config::parse_header(&header)?;
                headers.insert(name, text);
            }
            other => positional.push(other.to_owned()),
        }
    }
    let (name, target) = match positional.as_slice() {
        [name, target, ..] => (name.clone(), target.clone()),
        _ => return Err(ImportError::ClaudeAddUsage),
    };
    let remote = matches!(transport.as_deref(), Some("http" | "sse"))
        || target.starts_with("http://")
        || target.starts_with("https://");
    let config = if remote {
        ServerConfig::Http {
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
            url: target,
            headers,
        }
    } else {
        ServerConfig::Stdio {
            command: target,
            args: positional[2..].to_vec(),
            env,
            cwd: None,
        }
    };
    let mut server = plain(name, config);
    if transport.as_deref() == Some("sse") {
        server.entry.notes.push(
            "it is an SSE server: Toolscope speaks Streamable HTTP, which many such servers also \
             serve"
                .to_owned(),
        );
    }
    Ok(server)
}

/// `npx -y @modelcontextprotocol/server-everything` → `server-everything`; `uvx
/// mcp-server-git` → `mcp-server-git`; a file with a generic name is named by its folder:
/// `node ~/mcp/weather/build/index.js` → `weather`, `python server.py` → `server`.
fn name_of_command(words: &[String]) -> String {
    const RUNNERS: &[&str] = &[
        "npx", "uvx", "bunx", "pnpx", "pipx", "node", "python", "python3", "uv", "deno", "docker",
    ];
    let first = words.first().map_or("server", String::as_str);
    // Names that say nothing of which server it is, and the folders builds go in.
    const GENERIC: &[&str] = &[
        "index", "main", "server", "app", "cli", "mcp", "run", "start",
    ];
    const BUILD_FOLDERS: &[&str] = &["build", "dist", "out", "src", "lib", "bin", "target"];
    let base = |word: &str| {
        let word = word.trim_end_matches('/');
        let mut parts = word.rsplit(['/', '\\']).filter(|part| !part.is_empty());
        let last = parts.next().unwrap_or(word);
        let stem = last
            .trim_end_matches(".py")
            .trim_end_matches(".js")
            .trim_end_matches(".mjs")
            .trim_end_matches(".ts");
        if GENERIC.contains(&stem) {
            let folder = parts.find(|part| !BUILD_FOLDERS.contains(part) && *part != "~");
            if let Some(folder) = folder.filter(|folder| !folder.starts_with('.')) {
                return folder.trim_start_matches('@').to_owned();
            }
        }
        let last = last
            .split('@')
            .find(|part| !part.is_empty())
            .unwrap_or(last);
        last.trim_end_matches(".py")
            .trim_end_matches(".js")
            .trim_end_matches(".mjs")
            .trim_end_matches(".ts")
            .to_owned()
    };
    let program = base(first);
    if RUNNERS.contains(&program.as_str()) {
        let subject = words[1..].iter().find(|word| {
            !word.starts_with('-') && !matches!(word.as_str(), "run" | "exec" | "x" | "tool")
        });
        if let Some(subject) = subject {
            return base(subject);
        }
    }
    program
}

/// `https://mcp.example.com/mcp` → `mcp.example.com`.
fn name_of_url(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| "remote server".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> PastedServer {
        let mut servers = read_pasted(text).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(servers.len(), 1, "{text}");
        servers.remove(0)
    }

    #[test]
    fn every_way_of_sharing_a_server_is_read() {
        let npx = one("npx -y @modelcontextprotocol/server-everything stdio");
        assert_eq!(npx.name, "server-everything");
        assert!(
            matches!(&npx.entry.config, ServerConfig::Stdio { command, args, .. }
            if command == "npx" && args == &["-y", "@modelcontextprotocol/server-everything", "stdio"])
        );

        let url = one("https://mcp.example.com/mcp");
        assert_eq!(url.name, "mcp.example.com");

        let added = one(
            "claude mcp add -s user -e API_KEY=abc weather -- npx -y weather-mcp --units metric",
        );
        assert_eq!(added.name, "weather");
        assert!(
            matches!(&added.entry.config, ServerConfig::Stdio { command, args, env, .. }
            if command == "npx" && args == &["-y", "weather-mcp", "--units", "metric"] && env["API_KEY"] == "abc")
        );

        let remote = one(
            "claude mcp add --transport http -H 'Authorization: Bearer ${TOKEN}' linear https://mcp.linear.app/mcp",
        );
        assert!(
            matches!(&remote.entry.config, ServerConfig::Http { url, headers, .. }
            if url == "https://mcp.linear.app/mcp" && headers["Authorization"] == "Bearer ${TOKEN}")
        );
        assert_eq!(remote.entry.placeholders.len(), 1);

        let entry = one(r#"{"command": "uvx", "args": ["mcp-server-git", "--repository", "."]}"#);
        assert_eq!(entry.name, "mcp-server-git");
        // A file with a name every server has is named by its folder, past the build's.
        for (pasted, name) in [
            ("node /home/me/mcp/weather/build/index.js", "weather"),
            (
                r#"{"command": "node", "args": ["C:\\servers\\notes\\dist\\index.mjs"]}"#,
                "notes",
            ),
            ("npx -y @acme/mcp", "acme"),
            ("python server.py", "server"),
        ] {
            assert_eq!(one(pasted).name, name, "{pasted}");
        }

        let many = read_pasted(
            r#"{"mcpServers": {"a": {"command": "a"}, "b": {"type": "http", "url": "https://b.example/mcp"}}}"#,
        )
        .unwrap_or_default();
        assert_eq!(
            many.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );

        let added_json = one(
            r#"claude mcp add-json fs '{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}'"#,
        );
        assert_eq!(added_json.name, "fs");
    }

    #[test]
    fn what_is_not_a_server_says_why() {
        for (text, why) in [
            ("", "nothing was pasted"),
            ("{not json", "not"),
            (r#"{"name": 3}"#, "neither"),
            ("claude mcp add onlyname", "expected"),
            ("echo 'unclosed", "quotes"),
        ] {
            let error = read_pasted(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
