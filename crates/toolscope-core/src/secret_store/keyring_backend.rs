//! The platform's keyring through the `keyring` crate: one entry per key, under the service
//! name [`crate::APP_ID`]. A long value (OAuth tokens are kilobytes; the Windows Credential
//! Manager takes at most 1280 characters) is kept in parts: the entry then says how many,
//! and the parts are `key#1`, `key#2`…

use std::sync::Arc;

use keyring::{Entry, Error};

use super::SecretStoreError;

pub struct KeyringBackend;

/// The most characters one entry holds.
const PART_CHARS: usize = 1000;
/// What an entry kept in parts holds: this and the number of parts.
const PARTS_HEADER: &str = "toolscope-parts:";

/// An entry no one writes, read once to see whether the keyring answers at all.
const PROBE_KEY: &str = "toolscope-keyring-probe";

impl KeyringBackend {
    /// The keyring, if one answers (on Linux: a Secret Service on the session bus).
    pub fn open() -> Result<Self, SecretStoreError> {
        if let Err(error) = Entry::store_status() {
            return Err(SecretStoreError::KeyringUnavailable(error.to_string()));
        }
        match entry(PROBE_KEY)?.get_password() {
            Ok(_) | Err(Error::NoEntry) => Ok(Self),
            Err(error) => Err(explain(error)),
        }
    }

    pub fn kind(&self) -> &'static str {
        if cfg!(target_os = "macos") {
            "Keychain"
        } else if cfg!(windows) {
            "Credential Manager"
        } else {
            "Secret Service"
        }
    }

    pub fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        let Some(value) = read(key)? else {
            return Ok(None);
        };
        let Some(parts) = parts_of(&value) else {
            return Ok(Some(value));
        };
        let mut whole = String::new();
        for part in 1..=parts {
            match read(&format!("{key}#{part}"))? {
                Some(text) => whole.push_str(&text),
                None => {
                    return Err(SecretStoreError::LostPart {
                        key: key.to_owned(),
                        part,
                    });
                }
            }
        }
        Ok(Some(whole))
    }

    pub fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        let before = read(key)?.as_deref().and_then(parts_of).unwrap_or(0);
        let chars: Vec<char> = value.chars().collect();
        let parts = if chars.len() <= PART_CHARS {
            entry(key)?.set_password(value).map_err(explain)?;
            0
        } else {
            let pieces: Vec<String> = chars
                .chunks(PART_CHARS)
                .map(|piece| piece.iter().collect())
                .collect();
            for (number, piece) in pieces.iter().enumerate() {
                entry(&format!("{key}#{}", number + 1))?
                    .set_password(piece)
                    .map_err(explain)?;
            }
            entry(key)?
                .set_password(&format!("{PARTS_HEADER}{}", pieces.len()))
                .map_err(explain)?;
            pieces.len()
        };
        for stale in parts + 1..=before {
            remove(&format!("{key}#{stale}"))?;
        }
        Ok(())
    }

    pub fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        let parts = read(key)?.as_deref().and_then(parts_of).unwrap_or(0);
        for part in 1..=parts {
            remove(&format!("{key}#{part}"))?;
        }
        remove(key)
    }
}

fn parts_of(value: &str) -> Option<usize> {
    value.strip_prefix(PARTS_HEADER)?.parse().ok()
}

fn read(key: &str) -> Result<Option<String>, SecretStoreError> {
    match entry(key)?.get_password() {
        Ok(secret) => Ok(Some(secret)),
        Err(Error::NoEntry) => Ok(None),
        Err(error) => Err(explain(error)),
    }
}

fn remove(key: &str) -> Result<(), SecretStoreError> {
    match entry(key)?.delete_credential() {
        Ok(()) | Err(Error::NoEntry) => Ok(()),
        Err(error) => Err(explain(error)),
    }
}

fn entry(key: &str) -> Result<Entry, SecretStoreError> {
    Entry::new(crate::APP_ID, key).map_err(explain)
}

fn explain(error: Error) -> SecretStoreError {
    SecretStoreError::Keyring(Arc::new(error))
}
