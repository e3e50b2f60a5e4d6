//! The last interface seen of each server, kept in the data folder
//! (`<data dir>/interfaces/<hash of the server's label>.json`), so a reconnection can say what
//! changed since last time. Each file is a snapshot as `toolscope snapshot` writes it,
//! replaced atomically (a temporary file of its own, then a rename).

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::snapshot::{InterfaceSnapshot, SnapshotError};

/// Why the last snapshot could not be kept or read back.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("there is no data folder for Toolscope (set TOOLSCOPE_DATA_DIR)")]
    NoDataDir,
    #[error("the last interface of this server cannot be read: {source} ({})", path.display())]
    Read {
        path: PathBuf,
        source: SnapshotError,
    },
    #[error("the interface of this server cannot be saved: {source} ({})", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the interface of this server cannot be saved: {0}")]
    Serialize(SnapshotError),
}

/// The folder of last snapshots, one file per server.
#[derive(Debug, Clone)]
pub struct InterfaceStore {
    dir: PathBuf,
}

/// A stable file name for a server's label (its saved name, command line or URL): the first
/// 16 bytes of its SHA-256 in hex, the same on every run and platform.
pub fn label_key(label: &str) -> String {
    Sha256::digest(label.as_bytes()).iter().take(16).fold(
        String::with_capacity(32),
        |mut key, byte| {
            let _ = std::fmt::Write::write_fmt(&mut key, format_args!("{byte:02x}"));
            key
        },
    )
}

impl InterfaceStore {
    /// Keeps snapshots in `dir` (created when the first one is saved).
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<data dir>/interfaces`, or `None` when the system has no data folder.
    pub fn default_location() -> Option<Self> {
        crate::history::data_dir().map(|dir| Self::in_dir(dir.join("interfaces")))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the last snapshot of the server called `label` is kept.
    pub fn path_for(&self, label: &str) -> PathBuf {
        self.dir.join(format!("{}.json", label_key(label)))
    }

    /// The last snapshot saved for `label`; `None` when there is none yet.
    pub fn load_last(&self, label: &str) -> Result<Option<InterfaceSnapshot>, StoreError> {
        let path = self.path_for(label);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(StoreError::Read {
                    path,
                    source: SnapshotError::Io(error),
                });
            }
        };
        InterfaceSnapshot::from_json(&text)
            .map(Some)
            .map_err(|source| StoreError::Read { path, source })
    }

    /// Replaces the last snapshot of `label`: written to a temporary file (mode 0600 on
    /// Unix) in the same folder, synced, then renamed over the old one.
    pub fn save_last(&self, label: &str, snapshot: &InterfaceSnapshot) -> Result<(), StoreError> {
        let path = self.path_for(label);
        let text = snapshot.to_json_pretty().map_err(StoreError::Serialize)?;
        let fail = |source: std::io::Error| StoreError::Write {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(fail)?;
        let mut temporary = tempfile::Builder::new()
            .prefix(".interface.")
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .map_err(fail)?;
        std::io::Write::write_all(&mut temporary, text.as_bytes()).map_err(fail)?;
        temporary.as_file().sync_all().map_err(fail)?;
        temporary
            .persist(&path)
            .map(|_| ())
            .map_err(|error| fail(error.error))
    }
}

/// The last snapshot of `label` in the data folder.
pub fn load_last(label: &str) -> Result<Option<InterfaceSnapshot>, StoreError> {
    InterfaceStore::default_location()
        .ok_or(StoreError::NoDataDir)?
        .load_last(label)
}

/// Keeps `snapshot` as the last one of `label` in the data folder.
pub fn save_last(label: &str, snapshot: &InterfaceSnapshot) -> Result<(), StoreError> {
    InterfaceStore::default_location()
        .ok_or(StoreError::NoDataDir)?
        .save_last(label, snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::{ServerIdentity, ToolSnapshot};

    fn snapshot(version: &str) -> InterfaceSnapshot {
        let mut tool = ToolSnapshot::default();
        tool.name = "add".to_owned();
        tool.input_schema = Some(serde_json::json!({"type": "object"}));
        InterfaceSnapshot::of_tools(
            ServerIdentity {
                version: Some(version.to_owned()),
                ..ServerIdentity::default()
            },
            vec![tool],
        )
    }

    #[test]
    fn the_last_snapshot_is_kept_per_server_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let store = InterfaceStore::in_dir(dir.path().join("interfaces"));
        assert!(store.load_last("python3 server.py").unwrap().is_none());
        store
            .save_last("python3 server.py", &snapshot("1"))
            .unwrap();
        store
            .save_last("https://example.com/mcp", &snapshot("9"))
            .unwrap();
        store
            .save_last("python3 server.py", &snapshot("2"))
            .unwrap();
        let last = store.load_last("python3 server.py").unwrap().unwrap();
        assert_eq!(last.server.version.as_deref(), Some("2"));
        assert_eq!(last.tools[0].name, "add");
        let other = store.load_last("https://example.com/mcp").unwrap().unwrap();
        assert_eq!(other.server.version.as_deref(), Some("9"));
        // Two snapshots, no temporary file left behind.
        let mut names: Vec<String> = std::fs::read_dir(store.dir())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut expected = vec![
            format!("{}.json", label_key("python3 server.py")),
            format!("{}.json", label_key("https://example.com/mcp")),
        ];
        expected.sort();
        assert_eq!(names, expected);
    }

    #[test]
    fn the_file_name_is_a_stable_hash_of_the_label() {
        // SHA-256 of "abc", first 16 bytes: the same on every run and platform.
        assert_eq!(label_key("abc"), "ba7816bf8f01cfea414140de5dae2223");
        assert_ne!(label_key("a"), label_key("b"));
    }

    #[test]
    fn a_damaged_file_is_an_error_that_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = InterfaceStore::in_dir(dir.path());
        std::fs::write(store.path_for("s"), "{\"tools\": []}").unwrap();
        let error = store.load_last("s").unwrap_err().to_string();
        assert!(
            error.contains("not a Toolscope interface snapshot"),
            "{error}"
        );
        assert!(error.contains(&label_key("s")), "{error}");
    }
}
