//! The platform's keyring through the `keyring` crate: one entry per key, under the service
//! name [`crate::APP_ID`].

use keyring::{Entry, Error};

pub struct KeyringBackend;

/// An entry no one writes, read once to see whether the keyring answers at all.
const PROBE_KEY: &str = "toolscope-keyring-probe";

impl KeyringBackend {
    /// The keyring, if one answers (on Linux: a Secret Service on the session bus).
    pub fn open() -> Result<Self, String> {
        if let Err(error) = Entry::store_status() {
            return Err(explain(error));
        }
        match entry(PROBE_KEY)?.get_password() {
            Ok(_) | Err(Error::NoEntry) => Ok(Self),
            Err(error) => Err(explain(&error)),
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

    pub fn get(&self, key: &str) -> Result<Option<String>, String> {
        match entry(key)?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(Error::NoEntry) => Ok(None),
            Err(error) => Err(explain(&error)),
        }
    }

    pub fn set(&self, key: &str, value: &str) -> Result<(), String> {
        entry(key)?
            .set_password(value)
            .map_err(|error| explain(&error))
    }

    pub fn delete(&self, key: &str) -> Result<(), String> {
        match entry(key)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(error) => Err(explain(&error)),
        }
    }
}

fn entry(key: &str) -> Result<Entry, String> {
    Entry::new(crate::APP_ID, key).map_err(|error| explain(&error))
}

fn explain(error: &Error) -> String {
    format!("the keyring: {error}")
}
