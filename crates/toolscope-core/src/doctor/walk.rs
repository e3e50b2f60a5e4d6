//! The whole walk: for a URL the name, the connection, TLS, HTTP and (when credentials are
//! wanted) sign-in, then the session's steps; for a command the program, then the session's
//! steps. It stops at the first step that fails, and nothing secret is left in what it says.

use super::{
    Diagnosis,
    auth_step::{Credentials, auth_step},
    connect_step,
    http_step::http_step,
    resolve_step, session_steps,
    start_step::start_step,
    tls_step::tls_step,
};
use crate::{
    auth::{Grant, KeptSignIn},
    engine::{OpenSecrets, with_kept_secrets},
    session::{ConnectOptions, ServerConfig},
};

/// Diagnoses the server `name` configured as `config`, connecting as a call would (its kept
/// secrets, a kept sign-in) but never signing in anew: a diagnosis opens no browser.
pub async fn diagnose(
    name: &str,
    config: &ServerConfig,
    open_secrets: OpenSecrets,
    mut options: ConnectOptions,
) -> Diagnosis {
    let mut diagnosis = Diagnosis::default();
    let config = match with_kept_secrets(name, config, open_secrets).await {
        Ok(config) => config,
        Err(error) => {
            diagnosis.push(super::Step::failed(
                "settings",
                error.to_string(),
                "the server's settings refer to secrets that cannot be read: unlock the \
                 keyring, or enter them again in the server editor",
            ));
            return diagnosis;
        }
    };
    if let Some(auth) = options.auth.as_mut() {
        auth.prompt = None;
    }
    let mut secrets = secret_values(&config);
    let reached = match &config {
        ServerConfig::Http {
            url,
            headers,
            oauth,
            ..
        } => {
            let kept_token = match &options.auth {
                Some(auth) => {
                    KeptSignIn::new(auth.store.clone(), url)
                        .access_token()
                        .await
                }
                None => None,
            };
            secrets.extend(kept_token.clone());
            let credentials = Credentials {
                kept_sign_in: kept_token.is_some(),
                // The server's own grant, or the one this command was given.
                machine_grant: !matches!(oauth.grant, Grant::AuthorizationCode)
                    || options.auth.as_ref().is_some_and(|auth| {
                        !matches!(auth.extensions.grant, Grant::AuthorizationCode)
                    }),
                header: headers
                    .keys()
                    .any(|header| header.eq_ignore_ascii_case("authorization")),
            };
            url_steps(
                url,
                headers,
                kept_token.as_deref(),
                credentials,
                &mut diagnosis,
            )
            .await
        }
        ServerConfig::Stdio {
            command, env, cwd, ..
        } => diagnosis.push(start_step(command, env, cwd.as_deref()).await),
    };
    if reached {
        session_steps(&config, options, &mut diagnosis).await;
    }
    diagnosis.redact(&secrets);
    diagnosis
}

/// The steps before the session for `url`; whether the session's steps may follow.
async fn url_steps(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    kept_token: Option<&str>,
    credentials: Credentials,
    diagnosis: &mut Diagnosis,
) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return true; // The session says what is wrong with the URL.
    };
    let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
        return true;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let (resolved, addresses) = resolve_step(host, port).await;
    if !diagnosis.push(resolved) {
        return false;
    }
    let (connected, address) = connect_step(&addresses.unwrap_or_default()).await;
    if !diagnosis.push(connected) {
        return false;
    }
    if parsed.scheme() == "https"
        && let Some(address) = address
        && !diagnosis.push(tls_step(host, address).await)
    {
        return false;
    }
    let (http, answer) = http_step(url, headers, kept_token).await;
    if !diagnosis.push(http) {
        return false;
    }
    match answer {
        Some(answer) if answer.wants_credentials() => {
            diagnosis.push(auth_step(url, &answer, credentials).await)
        }
        _ => true,
    }
}

/// The values a diagnosis must not show: every header's value, the environment's secret-named
/// values (a key, a token, a password), the OAuth client secret.
fn secret_values(config: &ServerConfig) -> Vec<String> {
    match config {
        ServerConfig::Http {
            headers,
            oauth_client_secret,
            ..
        } => headers
            .values()
            .chain(oauth_client_secret)
            .cloned()
            .collect(),
        ServerConfig::Stdio { env, .. } => env
            .iter()
            .filter(|(name, _)| crate::secrets::is_secret_name(name))
            .map(|(_, value)| value.clone())
            .collect(),
    }
}
