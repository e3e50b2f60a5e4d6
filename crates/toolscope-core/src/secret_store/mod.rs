//! Where Toolscope keeps secrets (OAuth tokens and client registrations, and the header and
//! environment values a user marks secret): the platform's keyring (Secret Service on Linux
//! and the BSDs, the Keychain on macOS, the Credential Manager on Windows) through the
//! `keyring` crate, or, where no keyring answers, a file only the user can read. Which one is
//! used is said plainly ([`SecretStore::describe`]): a file is never used silently.
//!
//! `TOOLSCOPE_SECRETS=keyring` or `=file` chooses; by default the keyring is tried first.
//! Calls block (the keyring is a D-Bus or system call away): call them off the UI thread.

mod file_backend;
mod keyring_backend;

use std::{path::PathBuf, sync::Arc};

use file_backend::FileBackend;
use keyring_backend::KeyringBackend;

/// Why the secret store could not be opened, read or written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SecretStoreError {
    #[error("the keyring: {0}")]
    Keyring(Arc<keyring::Error>),
    /// The platform has no keyring that answers.
    #[error("the keyring: {0}")]
    KeyringUnavailable(String),
    #[error("the keyring lost part {part} of {key}")]
    LostPart { key: String, part: usize },
    #[error("the secrets file {} is not a JSON object of strings ({source}): fix or delete it", path.display())]
    NotJson {
        path: PathBuf,
        source: Arc<serde_json::Error>,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: Arc<std::io::Error>,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: Arc<std::io::Error>,
    },
    #[error("TOOLSCOPE_SECRETS={0:?} is not understood: use keyring, file or auto")]
    UnknownPreference(String),
    #[error("TOOLSCOPE_SECRETS=keyring, but the keyring cannot be used: {0}")]
    KeyringRequired(Box<SecretStoreError>),
    /// No store is at hand here, and why (a case file's server keeps no secrets; no
    /// configuration folder; the blocking thread that opens it failed).
    #[error("{0}")]
    Unavailable(String),
}

/// The secrets file's name in the configuration folder.
pub const FILE_NAME: &str = "secrets.json";

/// A handle on the secret store; clones share it.
#[derive(Clone)]
pub struct SecretStore {
    backend: Arc<Backend>,
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.describe())
    }
}

enum Backend {
    Keyring(KeyringBackend),
    /// The file, and why the keyring is not used (`None` when the user chose the file).
    File(FileBackend, Option<String>),
}

/// Which store the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preference {
    /// The keyring if one answers, else the file.
    Automatic,
    Keyring,
    File,
}

impl Preference {
    /// `TOOLSCOPE_SECRETS`: `keyring`, `file`, or unset/`auto`.
    pub fn from_environment() -> Result<Self, SecretStoreError> {
        match std::env::var("TOOLSCOPE_SECRETS").as_deref() {
            Err(_) | Ok("" | "auto") => Ok(Self::Automatic),
            Ok("keyring") => Ok(Self::Keyring),
            Ok("file") => Ok(Self::File),
            Ok(other) => Err(SecretStoreError::UnknownPreference(other.to_owned())),
        }
    }
}

impl SecretStore {
    /// Opens the store: the keyring, or `config_dir/secrets.json` (see [`Preference`]).
    pub fn open(preference: Preference, config_dir: PathBuf) -> Result<Self, SecretStoreError> {
        let file = || FileBackend::new(config_dir.join(FILE_NAME));
        let backend = match preference {
            Preference::File => Backend::File(file(), None),
            Preference::Keyring => Backend::Keyring(
                KeyringBackend::open()
                    .map_err(|reason| SecretStoreError::KeyringRequired(Box::new(reason)))?,
            ),
            Preference::Automatic => match KeyringBackend::open() {
                Ok(keyring) => Backend::Keyring(keyring),
                Err(reason) => Backend::File(file(), Some(reason.to_string())),
            },
        };
        Ok(Self {
            backend: Arc::new(backend),
        })
    }

    /// A store in a file of its own (tests, and `TOOLSCOPE_SECRETS=file`).
    pub fn in_file(path: PathBuf) -> Self {
        Self {
            backend: Arc::new(Backend::File(FileBackend::new(path), None)),
        }
    }

    /// Whether secrets go to the keyring (else to a file).
    pub fn is_keyring(&self) -> bool {
        matches!(*self.backend, Backend::Keyring(_))
    }

    /// Where secrets live, in words for the user.
    pub fn describe(&self) -> String {
        match &*self.backend {
            Backend::Keyring(keyring) => format!("the system keyring ({})", keyring.kind()),
            Backend::File(file, None) => format!(
                "the file {} (readable only by you; TOOLSCOPE_SECRETS=file)",
                file.path().display()
            ),
            Backend::File(file, Some(reason)) => format!(
                "the file {} (readable only by you), because no keyring answered: {reason}",
                file.path().display()
            ),
        }
    }

    /// The secret kept under `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        match &*self.backend {
            Backend::Keyring(keyring) => keyring.get(key),
            Backend::File(file, _) => file.get(key),
        }
    }

    /// Keeps `value` under `key`, replacing what was there.
    pub fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        match &*self.backend {
            Backend::Keyring(keyring) => keyring.set(key, value),
            Backend::File(file, _) => file.set(key, value),
        }
    }

    /// Forgets `key`; forgetting what is not there is not an error.
    pub fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        match &*self.backend {
            Backend::Keyring(keyring) => keyring.delete(key),
            Backend::File(file, _) => file.delete(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_store_keeps_and_forgets() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let store = SecretStore::in_file(folder.path().join("secrets.json"));
        assert_eq!(store.get("a").expect("readable"), None);
        store.set("a", "one").expect("kept");
        store.set("b", "two").expect("kept");
        assert_eq!(store.get("a").expect("readable").as_deref(), Some("one"));
        // Another handle on the same file sees the same secrets.
        let again = SecretStore::in_file(folder.path().join("secrets.json"));
        assert_eq!(again.get("b").expect("readable").as_deref(), Some("two"));
        store.delete("a").expect("forgotten");
        store.delete("a").expect("forgetting twice is fine");
        assert_eq!(again.get("a").expect("readable"), None);
        assert!(store.describe().contains("secrets.json"));
        assert!(!store.is_keyring());
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_readable_only_by_its_owner() {
        use std::os::unix::fs::PermissionsExt as _;
        let folder = tempfile::tempdir().expect("a temporary folder");
        let path = folder.path().join("nested").join("secrets.json");
        SecretStore::in_file(path.clone())
            .set("k", "v")
            .expect("kept");
        let mode = std::fs::metadata(&path)
            .expect("written")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
