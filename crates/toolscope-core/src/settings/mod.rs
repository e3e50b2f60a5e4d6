//! What survives a restart: the user's servers, the last arguments of each tool, the timeout,
//! the window's layout.
//! One small JSON file, readable only by the user. Secret header and env values are not in it
//! when a secret store is at hand: it keeps references to them (see `kept_secrets`).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub mod kept_secrets;
pub mod layout;
mod secrets_place;

use crate::{analysis::ProtocolEra, session::ServerConfig};
pub use layout::{Appearance, Layout};
pub use secrets_place::{PageOpener, SecretsPlace};

/// The settings could not be written (the file keeps what it had).
#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot save settings to {}: {source}", path.display())]
pub struct SaveError {
    pub path: PathBuf,
    pub source: std::sync::Arc<std::io::Error>,
}

/// A server the user added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedServer {
    pub name: String,
    pub config: ServerConfig,
    /// Connect it when Toolscope starts (settings from before this existed: yes).
    #[serde(default = "connect_by_default")]
    pub connect_at_start: bool,
    /// The client capabilities declared to it and the roots offered (all declared, no roots,
    /// for settings from before this existed).
    #[serde(default)]
    pub client: crate::session::ClientSettings,
}

fn connect_by_default() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub servers: Vec<SavedServer>,
    /// Last arguments by `server name` → `tool name`.
    pub last_arguments: BTreeMap<String, BTreeMap<String, Map<String, Value>>>,
    /// Request timeout in seconds (restarted by progress).
    pub timeout_seconds: f64,
    /// The protocol era each server (by name) spoke last time: a legacy server is then reached
    /// with `initialize` at once, without waiting for `server/discover` to go unanswered.
    pub protocol_eras: BTreeMap<String, ProtocolEra>,
    /// The window's layout as the user left it.
    pub layout: Layout,
    /// The folder the user last saved a file in or opened one from (where the next file
    /// dialog starts).
    pub last_folder: Option<PathBuf>,
    /// A team's PostgreSQL history (`postgres://user@host:port/database`), used instead of
    /// the local file unless `TOOLSCOPE_HISTORY_URL` or `--history` says otherwise. Never
    /// with a password: that is kept in the secret store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_url: Option<String>,
    /// The name the history gives the person recording (else the OS user).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// Where traces go and the trace viewer's page (`crate::telemetry`).
    pub telemetry: crate::telemetry::TelemetrySettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            servers: Vec::new(),
            last_arguments: BTreeMap::new(),
            protocol_eras: BTreeMap::new(),
            timeout_seconds: 60.0,
            layout: Layout::default(),
            last_folder: None,
            history_url: None,
            person: None,
            telemetry: crate::telemetry::TelemetrySettings::default(),
        }
    }
}

/// Where files the user saves start: the documents folder, else the home folder (never the
/// folder Toolscope happens to run in).
pub fn documents_dir() -> Option<PathBuf> {
    let dirs = directories::UserDirs::new()?;
    Some(
        dirs.document_dir()
            .map_or_else(|| dirs.home_dir().to_owned(), Path::to_owned),
    )
}

/// The user's home folder.
pub fn home_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.home_dir().to_owned())
}

/// The folders people keep files in, by name: home, documents, desktop, downloads (those
/// this system has).
pub fn places() -> Vec<(&'static str, PathBuf)> {
    let Some(dirs) = directories::UserDirs::new() else {
        return Vec::new();
    };
    [
        Some(("Home", dirs.home_dir().to_owned())),
        dirs.document_dir().map(|d| ("Documents", d.to_owned())),
        dirs.desktop_dir().map(|d| ("Desktop", d.to_owned())),
        dirs.download_dir().map(|d| ("Downloads", d.to_owned())),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Where the next file dialog starts: the last folder used while it exists, else the
/// documents folder.
pub fn start_folder(last_folder: Option<&Path>) -> Option<PathBuf> {
    last_folder
        .filter(|folder| folder.is_dir())
        .map(Path::to_owned)
        .or_else(documents_dir)
}

/// The folder settings live in: `$TOOLSCOPE_CONFIG_DIR`, else `toolscope` in the platform's
/// config folder (`$XDG_CONFIG_HOME` or `~/.config` on Linux, Application Support on macOS,
/// `%APPDATA%` on Windows).
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLSCOPE_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::BaseDirs::new().map(|dirs| dirs.config_dir().join("toolscope"))
}

pub fn settings_path() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join("settings.json"))
}

impl Settings {
    /// Reads the settings; a missing file gives the defaults, a broken one is kept aside (renamed
    /// `settings.json.broken`) so nothing the user had is lost, and the reason is returned.
    pub fn load(path: &Path) -> (Self, Option<String>) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return (Self::default(), None);
            }
            Err(error) => {
                return (
                    Self::default(),
                    Some(format!("cannot read {}: {error}", path.display())),
                );
            }
        };
        match serde_json::from_str(&text) {
            Ok(settings) => (settings, None),
            Err(error) => {
                let aside = path.with_extension("json.broken");
                let _ = std::fs::rename(path, &aside);
                (
                    Self::default(),
                    Some(format!(
                        "the settings file {} could not be read ({error}); it was kept as {}",
                        path.display(),
                        aside.display()
                    )),
                )
            }
        }
    }

    /// Writes atomically: a temporary file of its own (readable by the user only) in the same
    /// folder, then a rename over the old file. Call it from one writer (`SettingsWriter`).
    pub fn save(&self, path: &Path) -> Result<(), SaveError> {
        let fail = |error: std::io::Error| SaveError {
            path: path.to_owned(),
            source: std::sync::Arc::new(error),
        };
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir).map_err(fail)?;
        let text = serde_json::to_string_pretty(self).map_err(|error| fail(error.into()))?;
        // `tempfile` names it uniquely and creates it with mode 0600 on Unix.
        let mut temporary = tempfile::Builder::new()
            .prefix(".settings.")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(fail)?;
        std::io::Write::write_all(&mut temporary, text.as_bytes()).map_err(fail)?;
        temporary.as_file().sync_all().map_err(fail)?;
        temporary
            .persist(path)
            .map(|_| ())
            .map_err(|error| fail(error.error))
    }

    pub fn remembered_arguments(&self, server: &str, tool: &str) -> Option<&Map<String, Value>> {
        self.last_arguments.get(server)?.get(tool)
    }

    pub fn remember_arguments(&mut self, server: &str, tool: &str, arguments: Map<String, Value>) {
        self.last_arguments
            .entry(server.to_owned())
            .or_default()
            .insert(tool.to_owned(), arguments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_broken_file_kept_aside() {
        let dir = std::env::temp_dir().join(format!("toolscope-settings-{}", std::process::id()));
        let path = dir.join("settings.json");
        let mut settings = Settings::default();
        settings.servers.push(SavedServer {
            name: "mine".into(),
            config: ServerConfig::stdio_from_command_line("python3 srv.py").unwrap(),
            connect_at_start: false,
            client: Default::default(),
        });
        settings.remember_arguments(
            "mine",
            "add",
            serde_json::json!({"a": 1}).as_object().cloned().unwrap(),
        );
        settings.save(&path).unwrap();
        let (loaded, problem) = Settings::load(&path);
        assert!(problem.is_none());
        assert_eq!(loaded, settings);

        std::fs::write(&path, "{not json").unwrap();
        let (loaded, problem) = Settings::load(&path);
        assert_eq!(loaded, Settings::default());
        assert!(problem.unwrap().contains("kept as"));
        assert!(dir.join("settings.json.broken").exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
