//! The one place a session starts: a server's settings with their kept secrets read back (off
//! the async workers: the keyring is a D-Bus or system call away), then the connection, with
//! OAuth when the options carry a sign-in. The window's backend (its servers and a case file's
//! server), `toolscope call` and every command that talks to a server, and `toolscope run`
//! connect through here.

use crate::{
    secret_store::{SecretStore, SecretStoreError},
    session::{ConnectOptions, ServerConfig, Session, SessionError},
    settings::kept_secrets::{self, KeptSecretsError},
};

/// Why a connection did not start.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The settings refer to secret values that cannot be read back.
    #[error(transparent)]
    Secrets(#[from] KeptSecretsError),
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Opens the secret store, when a server's settings refer to it.
pub type OpenSecrets = Box<dyn FnOnce() -> Result<SecretStore, SecretStoreError> + Send>;

/// A store for settings that cannot refer to one (a case file's, a command line's).
pub fn no_secret_store(reason: &'static str) -> OpenSecrets {
    Box::new(move || Err(SecretStoreError::Unavailable(reason.to_owned())))
}

/// Connects to the server `name` configured as `config`: its secret values are read from the
/// store `open_secrets` opens (only when the settings refer to it), then the session starts.
pub async fn connect(
    name: &str,
    config: &ServerConfig,
    open_secrets: OpenSecrets,
    options: ConnectOptions,
) -> Result<Session, ConnectError> {
    let config = with_kept_secrets(name, config, open_secrets).await?;
    Ok(Session::connect(&config, options).await?)
}

/// `config` with the secret values its settings refer to read back from the store.
pub async fn with_kept_secrets(
    name: &str,
    config: &ServerConfig,
    open_secrets: OpenSecrets,
) -> Result<ServerConfig, KeptSecretsError> {
    if !kept_secrets::has_references(config) {
        return Ok(config.clone());
    }
    let (name, config) = (name.to_owned(), config.clone());
    tokio::task::spawn_blocking(move || kept_secrets::with_values(&name, &config, open_secrets))
        .await
        .map_err(|error| {
            KeptSecretsError::Store(SecretStoreError::Unavailable(error.to_string()))
        })?
}
