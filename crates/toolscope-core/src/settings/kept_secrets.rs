//! Header and environment values that are secrets (by their name: `Authorization`,
//! `GITHUB_TOKEN`, see `secrets::is_secret_name`) do not stay in settings.json: the settings
//! writer moves them to the secret store and the file keeps a reference in their place
//! (`toolscope-secret:` and the key). A connection reads them back off the UI thread.
//!
//! Keys are random (`setting:` and 32 hex digits): a reference names nothing a configuration
//! from elsewhere could guess, so an imported or pasted entry cannot point at another
//! server's secret (or at an OAuth token), and two servers never share one. A value with a
//! placeholder in it (`Bearer ${input:key}`) stays in the file: it is filled on connect.

use std::collections::{BTreeMap, BTreeSet};

use super::SavedServer;
use crate::{
    secret_store::{SecretStore, SecretStoreError},
    secrets::is_secret_name,
    session::ServerConfig,
};

/// Why a server's secret values could not be kept or read back.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KeptSecretsError {
    #[error("no random numbers for a secret's key: {0}")]
    NoRandom(String),
    #[error(transparent)]
    Store(#[from] SecretStoreError),
    #[error(
        "the {kind} value {field:?} of {server} refers to {value:?}, which is not a secret \
         Toolscope kept: enter the value itself in the server's settings"
    )]
    NotOurs {
        kind: &'static str,
        field: String,
        server: String,
        value: String,
    },
    #[error(
        "the {kind} value {field:?} of {server} is not in {store}: it was kept in a secret store \
         that is not in use now (the keyring and the file are two; TOOLSCOPE_SECRETS chooses), \
         or it was removed there. Enter it again in the server's settings"
    )]
    Missing {
        kind: &'static str,
        field: String,
        server: String,
        store: String,
    },
}

/// What a value kept in the secret store is replaced by in the settings file.
pub const REFERENCE_PREFIX: &str = "toolscope-secret:";

/// What every key of a setting's secret starts with.
const KEY_PREFIX: &str = "setting:";

/// A fresh key for one header or environment value.
fn new_key() -> Result<String, KeptSecretsError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| KeptSecretsError::NoRandom(error.to_string()))?;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("{KEY_PREFIX}{hex}"))
}

/// A key this file made: `setting:` and 32 hex digits. Anything else is not looked up.
fn is_our_key(key: &str) -> bool {
    key.strip_prefix(KEY_PREFIX)
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether a value is a reference to the secret store.
pub fn is_reference(value: &str) -> bool {
    value.starts_with(REFERENCE_PREFIX)
}

/// The secret values of a config: (kind, name, value). An OAuth client secret, private key or
/// identity provider's client secret is one whatever its value.
fn secret_values(config: &mut ServerConfig) -> Vec<(&'static str, &str, &mut String)> {
    let (kind, map, client_secret, oauth) = match config {
        ServerConfig::Stdio { env, .. } => ("env", env, None, None),
        ServerConfig::Http {
            headers,
            oauth_client_secret,
            oauth,
            ..
        } => ("header", headers, oauth_client_secret.as_mut(), Some(oauth)),
    };
    let mut values: Vec<(&'static str, &str, &mut String)> = map
        .iter_mut()
        .filter(|(name, value)| {
            // A reference is one whatever the name (a header renamed to a plain name keeps it).
            is_reference(value)
                || (is_secret_name(name)
                    && !value.is_empty()
                    && crate::import::placeholders::in_text(value).is_empty())
        })
        .map(|(name, value)| (kind, name.as_str(), value))
        .collect();
    if let Some(secret) = client_secret.filter(|secret| !secret.is_empty()) {
        values.push(("OAuth client secret", "oauth_client_secret", secret));
    }
    if let Some(oauth) = oauth {
        let crate::auth::OAuthExtensions {
            private_key, idp, ..
        } = &mut **oauth;
        if let Some(key) = private_key.as_mut().filter(|key| !key.is_empty()) {
            values.push(("OAuth private key", "oauth.private_key", key));
        }
        if let Some(secret) = idp
            .as_mut()
            .and_then(|idp| idp.client_secret.as_mut())
            .filter(|secret| !secret.is_empty())
        {
            values.push((
                "identity provider's client secret",
                "oauth.idp.client_secret",
                secret,
            ));
        }
    }
    values
}

/// Whether any server still holds a secret value in the clear (settings from before secrets
/// moved out: saving them migrates it).
pub fn any_in_the_clear(servers: &[SavedServer]) -> bool {
    servers.iter().any(|server| {
        let mut config = server.config.clone();
        secret_values(&mut config)
            .iter()
            .any(|(_, _, value)| !is_reference(value))
    })
}

/// Moves the servers' secret values into `store` (only those not already there with the same
/// value, as `written` remembers), replacing them with references. Returns the keys now in use.
pub fn move_out(
    servers: &mut [SavedServer],
    store: &SecretStore,
    written: &mut BTreeMap<String, String>,
) -> Result<BTreeSet<String>, KeptSecretsError> {
    let mut in_use = BTreeSet::new();
    for server in servers {
        for (_, _, value) in secret_values(&mut server.config) {
            if let Some(key) = value.strip_prefix(REFERENCE_PREFIX) {
                if is_our_key(key) {
                    in_use.insert(key.to_owned());
                }
                continue;
            }
            // The same value as one written before keeps its key (saves repeat all the time).
            let key = match written.iter().find(|(_, kept)| *kept == value) {
                Some((key, _)) => key.clone(),
                None => {
                    let key = new_key()?;
                    store.set(&key, value)?;
                    written.insert(key.clone(), value.clone());
                    key
                }
            };
            *value = format!("{REFERENCE_PREFIX}{key}");
            in_use.insert(key);
        }
    }
    Ok(in_use)
}

/// The config with its references replaced by the values kept.
fn resolve(
    name: &str,
    config: &ServerConfig,
    store: &SecretStore,
) -> Result<ServerConfig, KeptSecretsError> {
    let mut config = config.clone();
    for (kind, field, value) in secret_values(&mut config) {
        let Some(key) = value.strip_prefix(REFERENCE_PREFIX) else {
            continue;
        };
        if !is_our_key(key) {
            return Err(KeptSecretsError::NotOurs {
                kind,
                field: field.to_owned(),
                server: name.to_owned(),
                value: value.clone(),
            });
        }
        match store.get(key)? {
            Some(secret) => *value = secret,
            None => {
                return Err(KeptSecretsError::Missing {
                    kind,
                    field: field.to_owned(),
                    server: name.to_owned(),
                    store: store.describe(),
                });
            }
        }
    }
    Ok(config)
}

/// The config with its secret values read back; the store is opened (by `open`) only when
/// the config refers to it.
pub fn with_values(
    name: &str,
    config: &ServerConfig,
    open: impl FnOnce() -> Result<SecretStore, SecretStoreError>,
) -> Result<ServerConfig, KeptSecretsError> {
    if !has_references(config) {
        return Ok(config.clone());
    }
    resolve(name, config, &open()?)
}

/// Whether a config holds references (and so needs the store to connect).
pub fn has_references(config: &ServerConfig) -> bool {
    let mut config = config.clone();
    secret_values(&mut config)
        .iter()
        .any(|(_, _, value)| is_reference(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str) -> SavedServer {
        SavedServer {
            name: name.to_owned(),
            config: ServerConfig::Http {
                url: "https://h/mcp".to_owned(),
                headers: [
                    ("Authorization".to_owned(), "Bearer s3cret".to_owned()),
                    ("X-Trace".to_owned(), "on".to_owned()),
                ]
                .into(),
                oauth_client_id: None,
                oauth_client_secret: None,
                oauth: Default::default(),
            },
            connect_at_start: true,
            client: Default::default(),
        }
    }

    #[test]
    fn a_private_key_and_an_identity_providers_secret_move_out_too() {
        let folder = tempfile::tempdir().expect("a folder");
        let store = SecretStore::in_file(folder.path().join("secrets.json"));
        let mut servers = vec![server("enterprise")];
        if let ServerConfig::Http { oauth, .. } = &mut servers[0].config {
            oauth.private_key = Some("-----BEGIN PRIVATE KEY-----\nMIG…".to_owned());
            oauth.idp = Some(crate::auth::EnterpriseIdp {
                client_secret: Some("idp-s3cret".to_owned()),
                ..Default::default()
            });
        }
        let original = servers[0].config.clone();
        move_out(&mut servers, &store, &mut BTreeMap::new()).expect("moved");
        let written = serde_json::to_string(&servers[0].config).unwrap();
        assert!(!written.contains("PRIVATE KEY"), "{written}");
        assert!(!written.contains("idp-s3cret"), "{written}");
        assert!(written.contains(REFERENCE_PREFIX), "{written}");
        let back = with_values("enterprise", &servers[0].config, || Ok(store.clone())).unwrap();
        assert_eq!(back, original);
    }

    #[test]
    fn secrets_move_out_and_come_back() {
        let folder = tempfile::tempdir().expect("a folder");
        let store = SecretStore::in_file(folder.path().join("secrets.json"));
        let mut servers = vec![server("remote")];
        assert!(any_in_the_clear(&servers));
        let mut written = BTreeMap::new();
        let keys = move_out(&mut servers, &store, &mut written).expect("moved");
        assert_eq!(keys.len(), 1);
        let ServerConfig::Http { headers, .. } = &servers[0].config else {
            unreachable!()
        };
        assert!(is_reference(&headers["Authorization"]));
        assert_eq!(headers["X-Trace"], "on", "only secrets move");
        assert!(!any_in_the_clear(&servers));
        assert!(has_references(&servers[0].config));
        let text = serde_json::to_string(&servers).expect("serializes");
        assert!(!text.contains("s3cret"));
        let back = resolve("remote", &servers[0].config, &store).expect("resolved");
        assert_eq!(back, server("remote").config);
        // Moving again writes nothing new and keeps the reference.
        let again = move_out(&mut servers, &store, &mut written).expect("moved");
        assert_eq!(again, keys);
        store.delete(keys.first().expect("a key")).expect("deleted");
        let missing = resolve("remote", &servers[0].config, &store).expect_err("gone");
        assert!(missing.to_string().contains("Enter it again"), "{missing}");
    }

    #[test]
    fn an_oauth_client_secret_is_kept_like_a_secret_header() {
        let folder = tempfile::tempdir().expect("a folder");
        let store = SecretStore::in_file(folder.path().join("secrets.json"));
        let mut confidential = server("confidential");
        if let ServerConfig::Http {
            oauth_client_id,
            oauth_client_secret,
            ..
        } = &mut confidential.config
        {
            *oauth_client_id = Some("pre-registered".to_owned());
            *oauth_client_secret = Some("client-s3cret".to_owned());
        }
        let mut servers = vec![confidential.clone()];
        let keys = move_out(&mut servers, &store, &mut BTreeMap::new()).expect("moved");
        assert_eq!(keys.len(), 2, "the header and the client secret");
        let text = serde_json::to_string(&servers).expect("serializes");
        assert!(!text.contains("client-s3cret"), "{text}");
        assert!(text.contains("pre-registered"), "the id is no secret");
        let back = resolve("confidential", &servers[0].config, &store).expect("resolved");
        assert_eq!(back, confidential.config);
    }

    #[test]
    fn a_reference_from_elsewhere_reads_nothing() {
        let folder = tempfile::tempdir().expect("a folder");
        let store = SecretStore::in_file(folder.path().join("secrets.json"));
        store
            .set("oauth:https://victim/mcp", "tokens")
            .expect("kept");
        let mut stolen = server("evil");
        if let ServerConfig::Http { headers, .. } = &mut stolen.config {
            headers.insert(
                "Authorization".to_owned(),
                format!("{REFERENCE_PREFIX}oauth:https://victim/mcp"),
            );
        }
        let refused = resolve("evil", &stolen.config, &store).expect_err("refused");
        assert!(
            matches!(refused, KeptSecretsError::NotOurs { .. }),
            "{refused}"
        );
        // Nor is it ever deleted as a key no longer in use.
        let keys = move_out(&mut [stolen], &store, &mut BTreeMap::new()).expect("moved");
        assert!(keys.is_empty());
        // A placeholder stays where it is, to be filled on connect.
        let mut typed = server("vs");
        if let ServerConfig::Http { headers, .. } = &mut typed.config {
            headers.insert("Authorization".to_owned(), "Bearer ${input:key}".to_owned());
        }
        let keys = move_out(
            std::slice::from_mut(&mut typed),
            &store,
            &mut BTreeMap::new(),
        )
        .expect("moved");
        assert!(keys.is_empty());
        assert!(!any_in_the_clear(&[typed]));
    }
}
