//! The MCP clients whose configurations Toolscope reads, and where each keeps them.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// A client that configures MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    VsCode,
    Windsurf,
    GeminiCli,
    Codex,
}

impl Client {
    /// The id the command line takes (`claude-desktop`, `vs-code`…), as JSON names it.
    pub fn id(self) -> &'static str {
        match self {
            Self::ClaudeDesktop => "claude-desktop",
            Self::ClaudeCode => "claude-code",
            Self::Cursor => "cursor",
            Self::VsCode => "vs-code",
            Self::Windsurf => "windsurf",
            Self::GeminiCli => "gemini-cli",
            Self::Codex => "codex",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        super::export::CLIENTS
            .into_iter()
            .find(|client| client.id() == id)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeDesktop => "Claude Desktop",
            Self::ClaudeCode => "Claude Code",
            Self::Cursor => "Cursor",
            Self::VsCode => "VS Code",
            Self::Windsurf => "Windsurf",
            Self::GeminiCli => "Gemini CLI",
            Self::Codex => "Codex",
        }
    }
}

/// Whose servers a file holds: the user's (every project) or one project's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    User,
    Project(PathBuf),
}

/// A configuration file a client may have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    pub client: Client,
    pub path: PathBuf,
    pub scope: Scope,
}

/// Where the clients keep their configurations, for a user whose home is `home` and whose
/// platform configuration folder is `config_dir` (`~/.config`, `~/Library/Application Support`,
/// `%APPDATA%`), and, when given, in the project folder `project`. `codex_home` is
/// `$CODEX_HOME` when set.
pub fn known_files(
    home: &Path,
    config_dir: &Path,
    codex_home: Option<&Path>,
    project: Option<&Path>,
) -> Vec<ConfigFile> {
    let user = |client, path: PathBuf| ConfigFile {
        client,
        path,
        scope: Scope::User,
    };
    let mut files = vec![
        user(
            Client::ClaudeDesktop,
            config_dir.join("Claude").join("claude_desktop_config.json"),
        ),
        // Claude Code's user file also holds each project's servers (`projects`).
        user(Client::ClaudeCode, home.join(".claude.json")),
        user(Client::Cursor, home.join(".cursor").join("mcp.json")),
        user(
            Client::VsCode,
            config_dir.join("Code").join("User").join("mcp.json"),
        ),
        user(
            Client::Windsurf,
            home.join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
        ),
        user(
            Client::GeminiCli,
            home.join(".gemini").join("settings.json"),
        ),
        user(
            Client::Codex,
            codex_home
                .map_or_else(|| home.join(".codex"), Path::to_path_buf)
                .join("config.toml"),
        ),
    ];
    if let Some(project) = project {
        let in_project = |client, path: PathBuf| ConfigFile {
            client,
            path,
            scope: Scope::Project(project.to_path_buf()),
        };
        files.extend([
            in_project(Client::ClaudeCode, project.join(".mcp.json")),
            in_project(Client::Cursor, project.join(".cursor").join("mcp.json")),
            in_project(Client::VsCode, project.join(".vscode").join("mcp.json")),
            in_project(
                Client::GeminiCli,
                project.join(".gemini").join("settings.json"),
            ),
        ]);
    }
    files
}
