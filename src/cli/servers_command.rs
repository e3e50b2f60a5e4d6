//! `toolscope servers`: the servers saved in Toolscope's settings and those found in other
//! clients' configurations (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI,
//! Codex), each with where it came from. Only names, command lines and URLs without their
//! query are shown: environment values and headers stay out (they hold secrets).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CliError, EXIT_OK, output};
use toolscope_core::{
    import::{self, FoundServer, Scope},
    session::ServerConfig,
    settings::{Settings, settings_path},
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
pub struct ServersArgs {
    /// Also look for the project files (.mcp.json, .cursor/, .vscode/, .gemini/) in this
    /// folder [default: the current folder]
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Print the server NAME (saved in Toolscope) as an entry for another client's
    /// configuration (with --for)
    #[arg(long, value_name = "NAME", requires = "client")]
    pub export: Option<String>,
    /// With --export: the client, one of claude-desktop, claude-code, cursor, vs-code,
    /// windsurf, gemini-cli, codex
    #[arg(
        long = "for",
        id = "client",
        value_name = "CLIENT",
        requires = "export"
    )]
    pub client: Option<String>,
    /// With --export: write secret values (tokens, keys) instead of placeholders
    #[arg(long, requires = "export")]
    pub include_secrets: bool,
    /// Rewrite the server NAME of another client's configuration (with --in) so that client
    /// runs it through `toolscope proxy`: its calls are kept and shown live. The change is
    /// shown, and the file kept as it was
    #[arg(long, value_name = "NAME", requires = "within", conflicts_with_all = ["export", "unwatch"])]
    pub watch: Option<String>,
    /// Put the server NAME watched through Toolscope (with --in) back exactly as it was
    #[arg(
        long,
        value_name = "NAME",
        requires = "within",
        conflicts_with = "export"
    )]
    pub unwatch: Option<String>,
    /// With --watch or --unwatch: the client, one of claude-desktop, claude-code, cursor,
    /// vs-code, windsurf, gemini-cli, codex
    #[arg(long = "in", id = "within", value_name = "CLIENT")]
    pub within: Option<String>,
    /// With --watch: show the change and write nothing
    #[arg(long, requires = "watch")]
    pub dry_run: bool,
}

#[derive(Serialize)]
struct SavedLine {
    name: String,
    server: String,
}

#[derive(Serialize)]
struct FoundLine {
    name: String,
    client: import::Client,
    path: PathBuf,
    scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transport: Option<&'static str>,
    placeholders: Vec<String>,
    notes: Vec<String>,
    disabled: bool,
    /// Why it cannot be imported.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl FoundLine {
    fn of(found: &FoundServer) -> Self {
        let (server, transport, placeholders, notes, disabled, error) = match &found.entry {
            Ok(entry) => (
                Some(entry.config.listed()),
                Some(match entry.config {
                    ServerConfig::Stdio { .. } => "stdio",
                    ServerConfig::Http { .. } => "http",
                }),
                entry
                    .placeholders
                    .iter()
                    .map(import::Placeholder::written)
                    .collect(),
                entry.notes.clone(),
                entry.disabled,
                None,
            ),
            Err(error) => (
                None,
                None,
                Vec::new(),
                Vec::new(),
                false,
                Some(error.to_string()),
            ),
        };
        Self {
            name: found.name.clone(),
            client: found.client,
            path: found.path.clone(),
            scope: found.scope.clone(),
            server,
            transport,
            placeholders,
            notes,
            disabled,
            error,
        }
    }
}

pub fn run(args: ServersArgs) -> Result<u8, CliError> {
    if let (Some(name), Some(client)) = (&args.export, &args.client) {
        return export(name, client, args.include_secrets);
    }
    if let (Some(name), Some(client)) = (&args.watch, &args.within) {
        let project = args
            .project
            .clone()
            .or_else(|| std::env::current_dir().ok());
        return super::watch_through_command::watch(name, client, project.as_deref(), args.dry_run);
    }
    if let (Some(name), Some(client)) = (&args.unwatch, &args.within) {
        return super::watch_through_command::unwatch(name, client);
    }
    let settings_file = settings_path();
    // Read only: a broken file is reported, never moved aside as the window does.
    let (saved, settings_problem) = match &settings_file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => match serde_json::from_str::<Settings>(&text) {
                Ok(settings) => (settings.servers, None),
                Err(error) => (Vec::new(), Some(format!("{}: {error}", path.display()))),
            },
            Err(_) => (Vec::new(), None),
        },
        None => (Vec::new(), None),
    };
    let project = args
        .project
        .clone()
        .or_else(|| std::env::current_dir().ok());
    let (found, unreadable) = import::discover(&import::files_here(project.as_deref()));
    let saved: Vec<SavedLine> = std::iter::once(SavedLine {
        name: toolscope_core::history::DEMO_SERVER_NAME.to_owned(),
        server: "toolscope demo-server".to_owned(),
    })
    .chain(saved.iter().map(|server| SavedLine {
        name: server.name.clone(),
        server: server.config.listed(),
    }))
    .collect();
    let found: Vec<FoundLine> = found.iter().map(FoundLine::of).collect();
    if args.json {
        output::emit_json(&serde_json::json!({
            "settings": settings_file,
            "saved": saved,
            "found": found,
            "unreadable": unreadable
                .iter()
                .map(|(path, why)| serde_json::json!({"path": path, "reason": why}))
                .collect::<Vec<_>>(),
            "settings_problem": settings_problem,
        }));
        return Ok(EXIT_OK);
    }
    let mut out = String::new();
    let safe = |text: &str| terminal_safe(text).into_owned();
    out.push_str(&match &settings_file {
        Some(path) => format!(
            "Saved in Toolscope ({})\n",
            safe(&path.display().to_string())
        ),
        None => "Saved in Toolscope\n".to_owned(),
    });
    for line in &saved {
        out.push_str(&format!(
            "  {:<24} {}\n",
            safe(&line.name),
            safe(&line.server)
        ));
    }
    if let Some(problem) = &settings_problem {
        out.push_str(&format!(
            "  ! the settings file does not read: {}\n",
            safe(problem)
        ));
    }
    // The entries Toolscope rewrote to run through its proxy.
    let watched = toolscope_core::history::data_dir()
        .map(|dir| import::watch_through::WatchRecords::in_dir(&dir))
        .and_then(|records| records.load().ok())
        .unwrap_or_default();
    out.push_str("\nFound in other clients\n");
    if found.is_empty() {
        out.push_str("  (none: no Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI or Codex configuration lists a server here)\n");
    }
    for line in &found {
        let scope = match &line.scope {
            Scope::User => String::new(),
            Scope::Project(folder) => format!(", project {}", folder.display()),
        };
        out.push_str(&format!(
            "  {:<24} {}{}  ({})\n",
            safe(&line.name),
            line.client_name(),
            safe(&scope),
            safe(&line.path.display().to_string())
        ));
        match (&line.server, &line.error) {
            (Some(server), _) => out.push_str(&format!("      {}\n", safe(server))),
            (None, Some(error)) => {
                out.push_str(&format!("      cannot be imported: {}\n", safe(error)));
            }
            (None, None) => {}
        }
        if line.disabled {
            out.push_str("      turned off in its client\n");
        }
        if watched
            .iter()
            .any(|record| record.path == line.path && record.name == line.name)
        {
            out.push_str(&format!(
                "      watched through Toolscope (`toolscope servers --unwatch {} --in {}` puts it back)\n",
                safe(&line.name),
                line.client.id()
            ));
        }
        if !line.placeholders.is_empty() {
            out.push_str(&format!(
                "      resolved when it connects: {}\n",
                safe(&line.placeholders.join(", "))
            ));
        }
        for note in &line.notes {
            out.push_str(&format!("      note: {}\n", safe(note)));
        }
    }
    if !unreadable.is_empty() {
        out.push_str("\nCould not be read\n");
        for (path, why) in &unreadable {
            out.push_str(&format!(
                "  {}: {}\n",
                safe(&path.display().to_string()),
                safe(why)
            ));
        }
    }
    output::emit(&out);
    Ok(EXIT_OK)
}

/// `servers --export NAME --for CLIENT`: the saved server as that client's entry.
fn export(name: &str, client: &str, include_secrets: bool) -> Result<u8, CliError> {
    let Some(client) = import::Client::from_id(client) else {
        return Err(format!(
            "--for {}: not a client Toolscope writes for (claude-desktop, claude-code, \
             cursor, vs-code, windsurf, gemini-cli, codex)",
            terminal_safe(client)
        )
        .into());
    };
    let saved = settings_path()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str::<Settings>(&text).ok())
        .and_then(|settings| {
            settings
                .servers
                .into_iter()
                .find(|server| server.name == name)
        });
    let Some(server) = saved else {
        return Err(format!(
            "no saved server is called {:?} (`toolscope servers` lists them)",
            terminal_safe(name)
        )
        .into());
    };
    // The secret values themselves are in the keyring when asked for; else placeholders.
    let config = if include_secrets {
        let open = super::sign_in_flags::secret_store;
        toolscope_core::settings::kept_secrets::with_values(&server.name, &server.config, open)?
    } else {
        server.config.clone()
    };
    let mut text = import::entry_for(client, &server.name, &config, include_secrets);
    text.push('\n');
    output::emit(&text);
    Ok(EXIT_OK)
}

impl FoundLine {
    fn client_name(&self) -> &'static str {
        self.client.name()
    }
}
