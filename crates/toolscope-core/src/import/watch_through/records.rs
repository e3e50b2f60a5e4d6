//! What Toolscope remembers of the entries it rewrote (to put each back byte for byte), and
//! the copies of the files as they were: `watched.json` and `watch-backups/` in its data
//! folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::import::Client;

/// One entry rewritten to run through Toolscope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchRecord {
    /// The client's id (`claude-desktop`, `codex`…).
    pub client: String,
    pub path: PathBuf,
    pub name: String,
    /// The keys that lead to the entry in the file.
    pub keys: Vec<String>,
    /// The entry's text before watching, and as Toolscope wrote it.
    pub before: String,
    pub after: String,
    /// The whole file as it was before watching.
    pub backup: PathBuf,
    /// RFC 3339, UTC.
    pub watched_at: String,
}

/// What failed with the records or the backups, and which file.
#[derive(Debug, thiserror::Error)]
pub enum WatchRecordsError {
    /// `watched.json` is not the records' JSON.
    #[error("{} is damaged: {source}", path.display())]
    Damaged {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{} cannot be read: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The records could not be put in JSON (told as the encoder says it).
    #[error("{source}")]
    Encode { source: serde_json::Error },
    /// The data folder, for `watched.json`, could not be made (told as the system says it).
    #[error("{source}")]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `watched.json` could not be written.
    #[error(transparent)]
    Save(#[from] crate::atomic_file::WriteError),
    /// The `watch-backups/` folder could not be made.
    #[error("{} cannot be created: {source}", path.display())]
    BackupFolder {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The records, in a folder (Toolscope's data folder).
#[derive(Debug, Clone)]
pub struct WatchRecords {
    folder: PathBuf,
}

impl WatchRecords {
    pub fn in_dir(folder: &Path) -> Self {
        Self {
            folder: folder.to_owned(),
        }
    }

    fn file(&self) -> PathBuf {
        self.folder.join("watched.json")
    }

    /// Every entry watched now (none when the file is not there).
    pub fn load(&self) -> Result<Vec<WatchRecord>, WatchRecordsError> {
        let path = self.file();
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|source| WatchRecordsError::Damaged { path, source }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(source) => Err(WatchRecordsError::Unreadable { path, source }),
        }
    }

    /// The watch of the entry `name` of `client` (the newest, if several files have one).
    pub fn find(
        &self,
        client: Client,
        name: &str,
    ) -> Result<Option<WatchRecord>, WatchRecordsError> {
        Ok(self
            .load()?
            .into_iter()
            .rev()
            .find(|record| record.client == client.id() && record.name == name))
    }

    fn save(&self, records: &[WatchRecord]) -> Result<(), WatchRecordsError> {
        let text = serde_json::to_string_pretty(records)
            .map_err(|source| WatchRecordsError::Encode { source })?;
        std::fs::create_dir_all(&self.folder).map_err(|source| WatchRecordsError::Folder {
            path: self.folder.clone(),
            source,
        })?;
        // Entries hold their environment (tokens): the records are the owner's alone.
        crate::atomic_file::write_private(&self.file(), |out| out.write_all(text.as_bytes()))?;
        Ok(())
    }

    pub(super) fn add(&self, record: WatchRecord) -> Result<(), WatchRecordsError> {
        let mut records = self.load()?;
        records.retain(|kept| !(kept.path == record.path && kept.name == record.name));
        records.push(record);
        self.save(&records)
    }

    pub(super) fn remove(&self, path: &Path, name: &str) -> Result<(), WatchRecordsError> {
        let mut records = self.load()?;
        records.retain(|kept| !(kept.path == path && kept.name == name));
        self.save(&records)
    }

    /// Keeps `text` (the file at `path` before the change) in `watch-backups/`; its path.
    pub(super) fn keep_backup(
        &self,
        client: Client,
        name: &str,
        path: &Path,
        text: &str,
    ) -> Result<PathBuf, WatchRecordsError> {
        let folder = self.folder.join("watch-backups");
        std::fs::create_dir_all(&folder).map_err(|source| WatchRecordsError::BackupFolder {
            path: folder.clone(),
            source,
        })?;
        let stamp = crate::history::started_ago(std::time::Duration::ZERO).replace(':', "-");
        let extension = path
            .extension()
            .map_or_else(String::new, |ext| format!(".{}", ext.to_string_lossy()));
        let safe_name: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let backup = folder.join(format!("{}-{safe_name}-{stamp}{extension}", client.id()));
        // The client's whole file, its other servers' secrets too: the owner's alone.
        crate::atomic_file::write_private(&backup, |out| out.write_all(text.as_bytes()))?;
        Ok(backup)
    }
}
