//! Where the settings folder's secrets are kept (the keyring, or a file beside the settings),
//! opened once and off the UI thread, and how sign-in pages are opened.

use std::{path::PathBuf, sync::Arc};

use crate::{
    auth::browser::{self, BrowserError},
    secret_store::{Preference, SecretStore, SecretStoreError},
};

/// Opens a sign-in page: says how, or why it could not.
pub type PageOpener = Arc<dyn Fn(&str) -> Result<String, BrowserError> + Send + Sync>;

/// Where secrets are kept, and how sign-in pages are opened.
#[derive(Clone)]
pub struct SecretsPlace {
    preference: Preference,
    dir: PathBuf,
    opened: Arc<std::sync::OnceLock<Result<SecretStore, SecretStoreError>>>,
    opener: PageOpener,
}

impl SecretsPlace {
    /// The keyring or a file in `dir`, as `preference` says.
    pub fn new(preference: Preference, dir: PathBuf) -> Self {
        Self {
            preference,
            dir,
            opened: Arc::default(),
            opener: Arc::new(browser::open),
        }
    }

    /// Sign-in pages are opened by `opener` instead of the browser (tests).
    #[must_use]
    pub fn opening_pages_with(mut self, opener: PageOpener) -> Self {
        self.opener = opener;
        self
    }

    /// How sign-in pages are opened.
    pub fn opener(&self) -> PageOpener {
        self.opener.clone()
    }

    /// The store, opened the first time (the keyring is probed: a D-Bus call on Linux). It
    /// blocks: call it off the UI thread.
    pub fn store_blocking(&self) -> Result<SecretStore, SecretStoreError> {
        self.opened
            .get_or_init(|| SecretStore::open(self.preference, self.dir.clone()))
            .clone()
    }

    /// [`Self::store_blocking`] on a blocking thread.
    pub async fn store(&self) -> Result<SecretStore, SecretStoreError> {
        let place = self.clone();
        tokio::task::spawn_blocking(move || place.store_blocking())
            .await
            .map_err(|error| SecretStoreError::Unavailable(error.to_string()))?
    }
}
