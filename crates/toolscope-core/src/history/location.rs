//! Where the history lives: `$TOOLSCOPE_DATA_DIR`, else `toolscope` in the platform's data
//! folder (`$XDG_DATA_HOME` or `~/.local/share` on Linux, Application Support on macOS,
//! `%APPDATA%` on Windows).

use std::path::PathBuf;

/// The folder of Toolscope's data (the history).
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLSCOPE_DATA_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::BaseDirs::new().map(|dirs| dirs.data_dir().join("toolscope"))
}

/// The history database.
pub fn history_path() -> Option<PathBuf> {
    data_dir().map(|dir| dir.join("history.sqlite3"))
}
