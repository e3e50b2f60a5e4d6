use std::path::Path;

use super::*;
use crate::{
    import::{ConfigFile, read_text},
    session::ServerConfig,
};

const TOOLSCOPE: &str = "/opt/toolscope/bin/toolscope";
const HISTORY: &str = "/srv/qa data/history.sqlite3";

/// This Toolscope, recording into a history of its own (not the default one).
fn launch() -> ProxyLaunch {
    ProxyLaunch {
        toolscope: TOOLSCOPE.into(),
        history: Some(crate::history::HistoryLocation::File(HISTORY.into())),
    }
}

/// A made-up configuration of each client, with comments, odd spacing and neighbours that
/// must not move by a byte.
fn made_up(client: Client) -> (&'static str, &'static str) {
    match client {
        Client::ClaudeDesktop => (
            "claude_desktop_config.json",
            "{\n  \"globalShortcut\": \"\",\n  \"mcpServers\": {\n    \"weather\": {\n      \"command\": \"uvx\",\n      \"args\": [\"weather-mcp\", \"--units\", \"metric\"],\n      \"env\": {\"API_KEY\": \"k\"}\n    },\n    \"files\":   {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/tmp\"]}\n  }\n}\n",
        ),
        Client::ClaudeCode => (
            ".claude.json",
            "{\"numStartups\":12,\"projects\":{\"/work/app\":{\"mcpServers\":{\"weather\":{\"type\":\"stdio\",\"command\":\"python3\",\"args\":[\"server.py\"],\"env\":{}}},\"allowedTools\":[]}},\"mcpServers\":{}}",
        ),
        Client::Cursor => (
            "mcp.json",
            "// Cursor's servers\n{\n\t\"mcpServers\": {\n\t\t\"weather\": { \"command\": \"node\", \"args\": [\"dist/index.js\"], }, // trailing comma\n\t\t\"remote\": { \"url\": \"https://example.com/mcp\" },\n\t},\n}\n",
        ),
        Client::VsCode => (
            "mcp.json",
            "{\n  \"inputs\": [{\"type\": \"promptString\", \"id\": \"key\", \"password\": true}],\n  \"servers\": {\n    /* the one we write */\n    \"weather\": {\n      \"type\": \"stdio\",\n      \"command\": \"python3\",\n      \"args\": [\"-m\", \"weather\"],\n      \"env\": {\"KEY\": \"${input:key}\"}\n    }\n  }\n}\n",
        ),
        Client::Windsurf => (
            "mcp_config.json",
            "{\r\n  \"mcpServers\": {\r\n    \"weather\": {\r\n      \"command\": \"docker\",\r\n      \"args\": [\"run\", \"-i\", \"--rm\", \"weather\"]\r\n    }\r\n  }\r\n}\r\n",
        ),
        Client::GeminiCli => (
            "settings.json",
            "{\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"weather\": {\n      \"command\": \"python3\",\n      \"args\": [\"server.py\"],\n      \"cwd\": \"./weather\",\n      \"timeout\": 30000,\n      \"trust\": false\n    }\n  }\n}\n",
        ),
        Client::Codex => (
            "config.toml",
            "model = \"o3\"\n\n# my servers\n[mcp_servers.weather]\ncommand = \"uvx\" # the launcher\nargs = [\n  \"weather-mcp\",\n]\nstartup_timeout_sec = 20\n\n[mcp_servers.weather.env]\nAPI_KEY = \"k\"\n\n[mcp_servers.docs]\nurl = \"https://example.com/mcp\"\n",
        ),
    }
}

fn found_in(client: Client, path: &Path, text: &str, name: &str) -> FoundServer {
    let file = ConfigFile {
        client,
        path: path.to_owned(),
        scope: Scope::User,
    };
    read_text(&file, text)
        .unwrap()
        .into_iter()
        .find(|found| found.name == name)
        .unwrap_or_else(|| panic!("{name} in {client:?}"))
}

#[test]
fn each_clients_entry_is_watched_then_put_back_byte_for_byte() {
    for client in crate::import::CLIENTS {
        let folder = tempfile::tempdir().unwrap();
        let (file_name, text) = made_up(client);
        let path = folder.path().join(file_name);
        std::fs::write(&path, text).unwrap();
        let records = WatchRecords::in_dir(&folder.path().join("data"));
        let found = found_in(client, &path, text, "weather");
        let original_command = match &found.entry.as_ref().unwrap().config {
            ServerConfig::Stdio { command, .. } => command.clone(),
            ServerConfig::Http { .. } => unreachable!(),
        };

        let rewrite = plan_watch(&found, &launch()).unwrap();
        if client == Client::ClaudeDesktop {
            let (_, after) = rewrite.shown();
            assert!(after.starts_with("{\n  \"command\""), "{after}");
            assert!(after.ends_with("\n}"), "{after}");
        }
        assert!(
            rewrite.after.contains(TOOLSCOPE),
            "{client:?}: {}",
            rewrite.after
        );
        let watched = watch(&rewrite, &records).unwrap();
        assert_eq!(std::fs::read_to_string(&watched.backup).unwrap(), text);
        // Both hold the entry's environment (API_KEY): the owner's alone.
        #[cfg(unix)]
        for kept in [&watched.backup, &folder.path().join("data/watched.json")] {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(kept).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", kept.display());
        }

        // The client now reads a server that runs the proxy in front of the same command.
        let now = std::fs::read_to_string(&path).unwrap();
        let again = found_in(client, &path, &now, "weather");
        let Ok(entry) = &again.entry else {
            panic!("{client:?}: {:?}\n{now}", again.entry)
        };
        let ServerConfig::Stdio { command, args, .. } = &entry.config else {
            panic!("{client:?}")
        };
        assert_eq!(command, TOOLSCOPE, "{client:?}");
        // Where to record travels in the entry: the client starts it with a bare environment.
        assert_eq!(
            &args[..6],
            ["proxy", "--history", HISTORY, "--name", "weather", "--"],
            "{client:?}"
        );
        assert_eq!(args[6], original_command, "{client:?}");
        // One line ending, as the file had.
        if text.contains("\r\n") {
            assert_eq!(
                now.matches('\n').count(),
                now.matches("\r\n").count(),
                "{client:?}: {now:?}"
            );
        } else {
            assert!(!now.contains('\r'), "{client:?}: {now:?}");
        }
        let prefix = &text[..text.find("weather").unwrap()];
        assert!(
            now.starts_with(prefix),
            "{client:?}: what came before is untouched"
        );
        assert!(
            matches!(
                plan_watch(&again, &launch()),
                Err(WatchError::AlreadyWatched(_))
            ),
            "{client:?}"
        );

        let record = records.find(client, "weather").unwrap().unwrap();
        let back = plan_unwatch(&record).unwrap();
        assert!(back.note.is_none(), "{client:?}: {:?}", back.note);
        unwatch(&back, &records).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "{client:?}: put back byte for byte"
        );
        assert!(records.find(client, "weather").unwrap().is_none());
    }
}

#[test]
fn a_remote_server_is_not_rewritten_and_a_file_changed_meanwhile_is_not_written() {
    let folder = tempfile::tempdir().unwrap();
    let (file_name, text) = made_up(Client::Cursor);
    let path = folder.path().join(file_name);
    std::fs::write(&path, text).unwrap();
    let remote = found_in(Client::Cursor, &path, text, "remote");
    assert!(matches!(
        plan_watch(&remote, &launch()),
        Err(WatchError::NotStdio(_))
    ));
    let found = found_in(Client::Cursor, &path, text, "weather");
    let rewrite = plan_watch(&found, &launch()).unwrap();
    std::fs::write(&path, format!("{text}\n")).unwrap();
    let records = WatchRecords::in_dir(&folder.path().join("data"));
    assert!(matches!(
        watch(&rewrite, &records),
        Err(WatchError::ChangedMeanwhile { .. })
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{text}\n"));
}
