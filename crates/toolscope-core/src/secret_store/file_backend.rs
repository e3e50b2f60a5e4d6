//! The fallback where no keyring runs: one JSON object of key → secret in a file created with
//! mode 0600 (only the user can read it), rewritten whole and atomically on every change.

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use super::SecretStoreError;

pub struct FileBackend {
    path: PathBuf,
    /// One writer at a time within the process (read, change, write back).
    lock: Mutex<()>,
}

impl FileBackend {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            lock: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    pub fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(self.read()?.remove(key))
    }

    pub fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut secrets = self.read()?;
        secrets.insert(key.to_owned(), value.to_owned());
        self.write(&secrets)
    }

    pub fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut secrets = self.read()?;
        if secrets.remove(key).is_some() {
            self.write(&secrets)?;
        }
        Ok(())
    }

    fn read(&self) -> Result<BTreeMap<String, String>, SecretStoreError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|error| SecretStoreError::NotJson {
                path: self.path.clone(),
                source: Arc::new(error),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(error) => Err(SecretStoreError::Read {
                path: self.path.clone(),
                source: Arc::new(error),
            }),
        }
    }

    fn write(&self, secrets: &BTreeMap<String, String>) -> Result<(), SecretStoreError> {
        let failed = |error: std::io::Error| SecretStoreError::Write {
            path: self.path.clone(),
            source: Arc::new(error),
        };
        let folder = self
            .path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or_else(|| std::path::Path::new("."));
        std::fs::create_dir_all(folder).map_err(failed)?;
        // A temporary file is created 0600 and keeps that mode when renamed over the old one.
        let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
        serde_json::to_writer_pretty(file.as_file_mut(), secrets)
            .map_err(|error| failed(error.into()))?;
        file.as_file().sync_all().map_err(failed)?;
        file.persist(&self.path)
            .map_err(|error| failed(error.error))?;
        Ok(())
    }
}
