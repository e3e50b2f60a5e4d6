//! What a sign-in leaves behind for one server, kept in the [`SecretStore`]: the tokens
//! (rmcp's `StoredCredentials`) and the client registration they were issued to, so a restart
//! needs no new sign-in and a new sign-in needs no new registration.

use std::sync::Arc;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::secret_store::{SecretStore, SecretStoreError};

/// The client registration a sign-in used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    pub client_id: String,
    /// The redirect URI registered with it (its port is tried first next time).
    pub redirect_uri: String,
    /// The authorization server that issued it.
    pub issuer: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Kept {
    #[serde(default)]
    credentials: Option<StoredCredentials>,
    #[serde(default)]
    registration: Option<Registration>,
}

/// One server's sign-in; clones share it (the transport's token source and a sign-in running
/// beside it see the same tokens).
#[derive(Clone)]
pub struct KeptSignIn {
    store: SecretStore,
    key: String,
    /// Read from the store once, then kept here: a request must not wait for the keyring.
    cache: Arc<Mutex<Option<Kept>>>,
}

/// A server's URL as a sign-in names it: without user, password, query or fragment (which
/// may hold secrets).
pub fn resource_label(url: &str) -> String {
    url::Url::parse(url).map_or_else(
        |_| url.split(['?', '#']).next().unwrap_or_default().to_owned(),
        |mut parsed| {
            parsed.set_query(None);
            parsed.set_fragment(None);
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        },
    )
}

/// The key of a server's sign-in.
pub fn key_for(url: &str) -> String {
    format!("oauth:{}", resource_label(url))
}

impl KeptSignIn {
    pub fn new(store: SecretStore, url: &str) -> Self {
        Self {
            store,
            key: key_for(url),
            cache: Arc::new(Mutex::new(None)),
        }
    }

    async fn read(&self) -> Result<Kept, SecretStoreError> {
        let mut cache = self.cache.lock().await;
        self.read_locked(&mut cache).await
    }

    /// Reads through the cache (the caller holds its lock). A store that cannot be read counts
    /// as holding nothing, once: a locked keyring must not fail every request, nor ask for
    /// its password on every one.
    async fn read_locked(&self, cache: &mut Option<Kept>) -> Result<Kept, SecretStoreError> {
        if let Some(kept) = &*cache {
            return Ok(kept.clone());
        }
        let (store, key) = (self.store.clone(), self.key.clone());
        let text = tokio::task::spawn_blocking(move || store.get(&key))
            .await
            .map_err(unavailable)?
            .unwrap_or(None);
        // Something unreadable (another version's format) is as good as nothing: sign in again.
        let kept: Kept = text
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        *cache = Some(kept.clone());
        Ok(kept)
    }

    /// Reads, changes and writes back under one lock, so two changes never lose one another.
    async fn change(&self, change: impl FnOnce(&mut Kept)) -> Result<(), SecretStoreError> {
        let mut cache = self.cache.lock().await;
        let mut kept = self.read_locked(&mut cache).await?;
        change(&mut kept);
        let text = serde_json::to_string(&kept).map_err(unavailable)?;
        let (store, key) = (self.store.clone(), self.key.clone());
        tokio::task::spawn_blocking(move || store.set(&key, &text))
            .await
            .map_err(unavailable)??;
        *cache = Some(kept);
        Ok(())
    }

    /// The registration kept, if any.
    pub async fn registration(&self) -> Option<Registration> {
        self.read().await.ok()?.registration
    }

    pub async fn keep_registration(
        &self,
        registration: Registration,
    ) -> Result<(), SecretStoreError> {
        self.change(|kept| kept.registration = Some(registration))
            .await
    }

    /// Forgets the registration kept (the authorization server no longer knows the client:
    /// `invalid_client`), so the next sign-in registers again.
    pub async fn forget_registration(&self) -> Result<(), SecretStoreError> {
        self.change(|kept| kept.registration = None).await
    }

    /// The tokens kept, if any.
    pub async fn credentials(&self) -> Option<StoredCredentials> {
        self.read().await.ok()?.credentials
    }

    /// Whether there are tokens to use.
    pub async fn has_tokens(&self) -> bool {
        self.credentials()
            .await
            .is_some_and(|credentials| credentials.token_response.is_some())
    }

    /// The kept access token as it is (sent before rmcp takes over: the `server/discover`
    /// probe, the doctor's HTTP step).
    pub async fn access_token(&self) -> Option<String> {
        let credentials = self.credentials().await?;
        let token = credentials.token_response?;
        Some(oauth2::TokenResponse::access_token(&token).secret().clone())
    }

    /// Signs out: the tokens, the registration and the DPoP key are forgotten. Returns whether
    /// there was anything to forget.
    pub async fn forget(&self) -> Result<bool, SecretStoreError> {
        let kept = self.read().await?;
        let was_signed_in = kept
            .credentials
            .is_some_and(|credentials| credentials.token_response.is_some())
            || kept.registration.is_some();
        let (store, key) = (self.store.clone(), self.key.clone());
        let dpop_key = format!(
            "oauth-dpop:{}",
            key.strip_prefix("oauth:").unwrap_or_default()
        );
        tokio::task::spawn_blocking(move || {
            store.delete(&key)?;
            // Tokens bound to it are gone: a new sign-in binds new ones to a new key.
            store.delete(&dpop_key)
        })
        .await
        .map_err(unavailable)??;
        *self.cache.lock().await = Some(Kept::default());
        Ok(was_signed_in)
    }
}

/// A blocking thread that failed, or a value that could not be written as JSON.
fn unavailable(error: impl std::fmt::Display) -> SecretStoreError {
    SecretStoreError::Unavailable(error.to_string())
}

fn store_error(error: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for KeptSignIn {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.read().await.map_err(store_error)?.credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.change(|kept| kept.credentials = Some(credentials))
            .await
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.change(|kept| kept.credentials = None)
            .await
            .map_err(store_error)
    }

    /// Before a refresh the tokens are read again from the store: another Toolscope (the
    /// command line, another window) may have refreshed and so rotated the refresh token.
    async fn acquire_refresh_guard(
        &self,
    ) -> Result<Option<rmcp::transport::auth::CredentialRefreshGuard>, AuthError> {
        *self.cache.lock().await = None;
        Ok(None)
    }
}
