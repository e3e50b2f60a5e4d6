//! Signing in to an OAuth-protected HTTP server (MCP authorization, OAuth 2.1): discovery from
//! the server's 401 challenge (protected resource metadata, then the authorization server's
//! metadata, with the spec's fallbacks), the client (a configured client id, else the one kept
//! from last time, else dynamic registration), then authorization code + PKCE through the
//! browser and a loopback redirect, with `resource` (RFC 8707), `state` and `iss` checked.
//! rmcp does the protocol; this file runs the steps and says which one failed.

use std::{sync::Arc, time::Duration};

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadataSource,
    AuthorizationRequest, AuthorizationSession,
};
use tokio_util::sync::CancellationToken;

use super::{
    kept_sign_in::{KeptSignIn, Registration},
    loopback::{Loopback, WaitError},
    timeline::{self, StepSink, TimelineClient},
};
use crate::secret_store::SecretStore;

/// The name Toolscope registers under.
pub const CLIENT_NAME: &str = "Toolscope";

/// How long a sign-in waits for the browser to come back, unless told otherwise.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(300);

/// Shows the user the page to sign in on.
pub trait SignInPrompt: Send + Sync {
    /// The user must open `url` to sign in to the server at `server`. Returns how it was
    /// shown, for the timeline ("opened with xdg-open"), or why it could not be.
    fn show(&self, server: &str, url: &str) -> Result<String, super::browser::BrowserError>;

    /// The sign-in for `server` is over, whatever came of it (the window stops offering the
    /// page).
    fn finished(&self, _server: &str) {}
}

/// How sessions sign in.
#[derive(Clone)]
pub struct AuthOptions {
    pub store: SecretStore,
    /// `None`: never sign in here (kept tokens are used; a server that wants a new sign-in
    /// fails with a message saying where to sign in).
    pub prompt: Option<Arc<dyn SignInPrompt>>,
    /// A client id registered beforehand with the authorization server (skips registration).
    pub client_id: Option<String>,
    /// How long to wait for the browser.
    pub wait: Duration,
    /// Hears every step too (the command line prints them).
    pub on_step: Option<StepSink>,
}

impl AuthOptions {
    pub fn new(store: SecretStore, prompt: Option<Arc<dyn SignInPrompt>>) -> Self {
        Self {
            store,
            prompt,
            client_id: None,
            wait: DEFAULT_WAIT,
            on_step: None,
        }
    }
}

/// A sign-in that did not succeed: at which step, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("signing in to {server} failed at {step}: {reason}")]
pub struct SignInError {
    pub server: String,
    pub step: &'static str,
    pub reason: String,
}

/// What to sign in for.
pub struct SignInRequest<'a> {
    pub url: &'a str,
    /// The server's `WWW-Authenticate` header, when a 401 or 403 gave one.
    pub challenge: Option<&'a str>,
    /// A 403 `insufficient_scope`: ask for the scopes held so far plus the challenge's.
    pub step_up: bool,
}

/// Runs a whole sign-in; on success the tokens are in `kept`, and the manager returned knows
/// the authorization server and the client (a transport can use it as its token source
/// without discovering them again).
pub async fn sign_in(
    request: SignInRequest<'_>,
    kept: &KeptSignIn,
    options: &AuthOptions,
    steps: &StepSink,
    cancel: &CancellationToken,
) -> Result<AuthorizationManager, SignInError> {
    let url = request.url;
    let label = super::kept_sign_in::resource_label(url);
    let fail = |step: &'static str, reason: String| {
        steps(timeline::AuthStep {
            kind: timeline::StepKind::Failure,
            title: format!("Sign-in failed at {step}"),
            detail: reason.clone(),
        });
        SignInError {
            server: label.clone(),
            step,
            reason,
        }
    };
    let Some(prompt) = &options.prompt else {
        return Err(fail(
            "the start",
            "the server wants a sign-in, and this run does not ask for one: sign in from the \
             window or with `toolscope tools --url …` first, and the tokens kept are used"
                .to_owned(),
        ));
    };
    timeline::note(
        steps,
        if request.step_up {
            "Signing in again for more scopes"
        } else {
            "Signing in"
        },
        match request.challenge {
            Some(challenge) => format!("{url} answered with WWW-Authenticate: {challenge}"),
            None => format!("{url} needs authorization"),
        },
    );
    let client = TimelineClient::new(steps.clone()).map_err(|error| {
        fail(
            "the start",
            format!("the OAuth HTTP client: {}", explain(&error)),
        )
    })?;
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url, Arc::new(client))
        .await
        .map_err(|error| fail("the start", error.to_string()))?;
    manager.set_credential_store(kept.clone());
    let resolution = manager
        .resolve_metadata_from_challenge(request.challenge)
        .await
        .map_err(|error| fail("discovery", explain(&error)))?;
    let issuer = resolution.metadata.issuer.clone();
    timeline::note(
        steps,
        "Authorization server found",
        format!(
            "{} ({}); authorize at {}, tokens at {}{}",
            issuer.as_deref().unwrap_or("no issuer named"),
            match resolution.source {
                AuthorizationMetadataSource::ProtectedResourceMetadata =>
                    "through the protected resource metadata",
                AuthorizationMetadataSource::AuthorizationServerMetadata =>
                    "through the server's own authorization server metadata",
                _ => "no metadata published: the 2025-03-26 default endpoints are tried",
            },
            resolution.metadata.authorization_endpoint,
            resolution.metadata.token_endpoint,
            resolution
                .metadata
                .registration_endpoint
                .as_deref()
                .map(|endpoint| format!(", registration at {endpoint}"))
                .unwrap_or_default(),
        ),
    );
    let can_register = resolution.metadata.registration_endpoint.is_some();
    // A server that publishes no metadata gets the 2025-03-26 default endpoints; one that is
    // not an OAuth server at all (a plain bearer token) then refuses them.
    let guessed = !resolution.source.is_discovered();
    let not_oauth = |reason: String| {
        if guessed {
            format!(
                "{reason}. The server publishes no OAuth metadata and refused the default \
                 endpoints as unauthorized, so it is likely not an OAuth server: if it takes a \
                 token, pass it, for example --header 'Authorization: Bearer …'"
            )
        } else {
            reason
        }
    };
    manager.set_metadata(resolution.metadata);

    let kept_registration = kept
        .registration()
        .await
        .filter(|registration| registration.issuer == issuer);
    let preferred_port = kept_registration
        .as_ref()
        .and_then(|registration| url::Url::parse(&registration.redirect_uri).ok())
        .and_then(|uri| uri.port())
        .unwrap_or(0);
    let loopback = Loopback::bind(preferred_port).await.map_err(|error| {
        fail(
            "the redirect listener",
            format!("cannot listen on 127.0.0.1: {error}"),
        )
    })?;
    let redirect_uri = loopback.redirect_uri().to_owned();

    let mut authorization =
        AuthorizationRequest::new(redirect_uri.clone()).with_client_name(CLIENT_NAME);
    if let Some(challenge) = request.challenge {
        authorization = authorization.with_challenge(challenge);
    }
    // A kept registration is reused only with the redirect URI it was registered with: not
    // every authorization server lets a loopback port change (RFC 8252 §7.3 says it should).
    let client_id = options.client_id.clone().or_else(|| {
        kept_registration
            .filter(|registration| registration.redirect_uri == redirect_uri)
            .map(|registration| registration.client_id)
    });
    if let Some(client_id) = &client_id {
        authorization = authorization.with_preregistered_client(client_id);
    } else if !can_register {
        return Err(fail(
            "client registration",
            "the authorization server offers no dynamic registration (its metadata names no \
             registration_endpoint): register Toolscope with it, with the redirect URI \
             http://127.0.0.1/callback (any port), and give the client id (--oauth-client-id, \
             or OAuth client id in the server's settings)"
                .to_owned(),
        ));
    }
    if request.step_up {
        let held = kept
            .credentials()
            .await
            .map(|credentials| credentials.granted_scopes)
            .unwrap_or_default();
        let wanted: Vec<String> = request
            .challenge
            .zip(url::Url::parse(url).ok())
            .and_then(|(challenge, base)| {
                rmcp::transport::auth::WWWAuthenticateParams::parse(challenge, &base).scope
            })
            .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let mut scopes = held;
        for scope in wanted {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        authorization = authorization.with_scopes(scopes);
    } else {
        // The challenge's scope, else the resource's scopes_supported, else none.
        authorization = authorization.with_initial_scope_selection();
    }
    let session = AuthorizationSession::new(manager, authorization)
        .await
        .map_err(|(_, error)| {
            let step = if client_id.is_some() {
                "the authorization request"
            } else {
                "client registration"
            };
            fail(step, not_oauth(explain(&error)))
        })?;
    let registered_id = session
        .get_credentials()
        .await
        .map(|(client_id, _)| client_id)
        .map_err(|error| fail("client registration", explain(&error)))?;
    if options.client_id.is_none() {
        kept.keep_registration(Registration {
            client_id: registered_id.clone(),
            redirect_uri: redirect_uri.clone(),
            issuer: issuer.clone(),
        })
        .await
        .map_err(|reason| fail("keeping the registration", reason.to_string()))?;
    }
    let authorize_url = session.get_authorization_url().to_owned();
    if !super::browser::is_openable(&authorize_url) {
        return Err(fail(
            "discovery",
            format!(
                "the authorization server's page {} is not https (nor http on this machine): \
                 Toolscope does not open it",
                timeline::mask_query(&authorize_url)
            ),
        ));
    }
    if cancel.is_cancelled() {
        return Err(fail("the browser", "cancelled".to_owned()));
    }
    let shown = prompt
        .show(url, &authorize_url)
        .map_err(|reason| fail("opening the browser", reason.to_string()))?;
    timeline::note(
        steps,
        "Waiting for the browser",
        format!(
            "client {registered_id}; {shown}; the page: {authorize_url}; listening on \
             {redirect_uri} for {} s",
            options.wait.as_secs()
        ),
    );
    let callback = loopback
        .wait(options.wait, cancel)
        .await
        .map_err(|error| match error {
            WaitError::TimedOut(after) => fail(
                "the browser",
                format!(
                    "no sign-in came back within {} s. Was the page opened and the sign-in \
                 finished? Connect again to start over",
                    after.as_secs()
                ),
            ),
            WaitError::Cancelled => fail("the browser", "cancelled".to_owned()),
            WaitError::Failed(reason) => fail("the browser", reason),
        })?;
    timeline::note(
        steps,
        "The browser came back",
        timeline::mask_query(&callback),
    );
    if let Some(refusal) = refusal(&callback) {
        return Err(fail("authorization", refusal));
    }
    let parsed = AuthorizationCallback::from_redirect_url(&callback)
        .map_err(|error| fail("authorization", explain(&error)))?;
    let token = session
        .handle_callback_with_issuer(&parsed.code, &parsed.csrf_token, parsed.issuer.as_deref())
        .await
        .map_err(|error| match &error {
            AuthError::InternalError(text) if text.contains("state not found") => fail(
                "authorization",
                "the redirect's state is not this sign-in's (a stale or forged redirect): \
                 nothing was exchanged"
                    .to_owned(),
            ),
            AuthError::AuthorizationServerMismatch { .. }
            | AuthError::AuthorizationServerMissingIssuer { .. } => {
                fail("authorization", explain(&error))
            }
            _ => fail("the token exchange", explain(&error)),
        })?;
    let granted = kept
        .credentials()
        .await
        .map(|credentials| credentials.granted_scopes.join(" "))
        .unwrap_or_default();
    timeline::note(
        steps,
        "Signed in",
        format!(
            "scopes: {}; the access token expires in {}; {}",
            if granted.is_empty() {
                "none named"
            } else {
                &granted
            },
            oauth2::TokenResponse::expires_in(&token).map_or_else(
                || "an unknown time".to_owned(),
                |left| format!("{} s", left.as_secs())
            ),
            if oauth2::TokenResponse::refresh_token(&token).is_some() {
                "a refresh token came with it"
            } else {
                "no refresh token: a new sign-in will be needed when it expires"
            }
        ),
    );
    Ok(session.auth_manager)
}

/// `error` (and `error_description`) of a redirect that refused the sign-in.
fn refusal(callback: &str) -> Option<String> {
    let url = url::Url::parse(callback).ok()?;
    let get = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    let error = get("error")?;
    Some(match get("error_description") {
        Some(description) => format!("the authorization server said {error}: {description}"),
        None => format!("the authorization server said {error}"),
    })
}

/// rmcp's errors, with the cause chain that says what happened.
pub fn explain(error: &AuthError) -> String {
    crate::error_chain::error_chain(error)
}
