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
    dpop::Dpop,
    extensions::OAuthExtensions,
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
    /// That client's secret (a confidential client): sent at the token endpoint with the
    /// method the server advertises (HTTP Basic unless it takes only the request body).
    pub client_secret: Option<String>,
    /// Where Toolscope's client metadata document is published (an https URL): used as the
    /// client id, instead of registering, by an authorization server that advertises
    /// `client_id_metadata_document_supported` (SEP-991).
    pub client_metadata_url: Option<String>,
    /// How tokens are got (the grant: through the browser, or machine to machine), how the
    /// client authenticates with a key, and whether tokens are bound with DPoP.
    pub extensions: OAuthExtensions,
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
            client_secret: None,
            client_metadata_url: None,
            extensions: OAuthExtensions::default(),
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
    /// The server's DPoP key, when tokens are bound with DPoP.
    pub dpop: Option<Arc<Dpop>>,
}

/// A sign-in that succeeded.
pub struct SignedIn {
    /// Knows the authorization server and the client: a transport can use it as its token
    /// source without discovering them again.
    pub manager: AuthorizationManager,
    /// The authorization server signed in with (its metadata's `issuer`).
    pub issuer: Option<String>,
}

/// Runs a whole sign-in; on success the tokens are in `kept`. Each step below says in the
/// timeline what it did, and a failure names its step.
pub async fn sign_in(
    request: SignInRequest<'_>,
    kept: &KeptSignIn,
    options: &AuthOptions,
    steps: &StepSink,
    cancel: &CancellationToken,
) -> Result<SignedIn, SignInError> {
    let fail = Failing {
        server: super::kept_sign_in::resource_label(request.url),
        steps,
    };
    if !options.extensions.grant.is_interactive() {
        note_start(&request, steps);
        let (manager, found) = discover(&request, kept, steps, &fail).await?;
        let http = TimelineClient::new(steps.clone(), request.dpop.clone())
            .map_err(|error| fail.at("the start", explain(&error)))?;
        return super::extension_grants::sign_in(super::extension_grants::GrantContext {
            request: &request,
            manager,
            found,
            kept,
            options,
            http,
            fail: &fail,
        })
        .await;
    }
    let Some(prompt) = &options.prompt else {
        return Err(fail.at(
            "the start",
            "the server wants a sign-in, and this run does not ask for one: sign in from the \
             window or with `toolscope tools --url …` first, and the tokens kept are used"
                .to_owned(),
        ));
    };
    note_start(&request, steps);
    let (manager, found) = discover(&request, kept, steps, &fail).await?;
    // The MCP authorization spec: no PKCE with S256 in the metadata, no authorization code.
    // (The 2025-03-26 default endpoints, guessed without metadata, cannot say.)
    if !found.guessed && !found.pkce_s256 {
        return Err(fail.at(
            "discovery",
            "the authorization server's metadata does not name S256 among \
             code_challenge_methods_supported, so it may not support PKCE, which MCP clients \
             must not sign in without"
                .to_owned(),
        ));
    }
    let Prepared {
        loopback,
        redirect_uri,
        client_id,
        authorization,
    } = prepare_authorization(&request, kept, options, &found, &fail).await?;
    let session = AuthorizationSession::new(manager, authorization)
        .await
        .map_err(|(_, error)| {
            let step = if client_id.is_some() {
                "the authorization request"
            } else {
                "client registration"
            };
            fail.at(step, found.not_oauth(explain(&error)))
        })?;
    let registered_id =
        keep_registration(&session, kept, options, &redirect_uri, &found, &fail).await?;
    let callback = through_the_browser(
        &session,
        prompt.as_ref(),
        request.url,
        &registered_id,
        (loopback, &redirect_uri),
        options.wait,
        cancel,
        steps,
        &fail,
    )
    .await?;
    let token = match exchange_code(&session, &callback, &fail).await {
        Ok(token) => token,
        Err(error) => {
            // A client the authorization server no longer knows is not tried again: the next
            // sign-in registers anew (a client id given by the user is theirs to change).
            if error.reason.contains("invalid_client") && options.client_id.is_none() {
                let _ = kept.forget_registration().await;
            }
            return Err(error);
        }
    };
    note_signed_in(kept, &token, steps).await;
    Ok(SignedIn {
        manager: session.auth_manager,
        issuer: found.issuer,
    })
}

/// The authorization server the resource names now (discovery only, from its challenge), to
/// tell whether it moved since a sign-in (SEP-2352: a new one is registered with anew).
pub async fn current_issuer(
    url: &str,
    challenge: Option<&str>,
    steps: &StepSink,
) -> Option<String> {
    let manager = timeline_manager(url, steps, None).await.ok()?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge)
        .await
        .ok()?;
    resolution.metadata.issuer
}

/// Makes a step's failure: in the timeline, and as the error.
pub(super) struct Failing<'a> {
    server: String,
    steps: &'a StepSink,
}

impl Failing<'_> {
    pub(super) fn at(&self, step: &'static str, reason: String) -> SignInError {
        (self.steps)(timeline::AuthStep {
            kind: timeline::StepKind::Failure,
            title: format!("Sign-in failed at {step}"),
            detail: reason.clone(),
        });
        SignInError {
            server: self.server.clone(),
            step,
            reason,
        }
    }
}

fn note_start(request: &SignInRequest<'_>, steps: &StepSink) {
    timeline::note(
        steps,
        if request.step_up {
            "Signing in again for more scopes"
        } else {
            "Signing in"
        },
        match request.challenge {
            Some(challenge) => format!(
                "{} answered with WWW-Authenticate: {challenge}",
                request.url
            ),
            None => format!("{} needs authorization", request.url),
        },
    );
}

/// The authorization server, as discovery found it (its manager goes to the session).
pub(super) struct Found {
    pub(super) issuer: Option<String>,
    pub(super) token_endpoint: String,
    /// `token_endpoint_auth_signing_alg_values_supported`: what a client assertion is signed
    /// with.
    pub(super) signing_algorithms: Option<Vec<String>>,
    can_register: bool,
    /// The authorization server takes a client metadata document's URL as a client id.
    takes_metadata_url: bool,
    /// Its metadata names S256 among `code_challenge_methods_supported` (PKCE).
    pkce_s256: bool,
    /// No metadata was published: the 2025-03-26 default endpoints are guessed.
    guessed: bool,
    /// The server's own `WWW-Authenticate`, quoted when it turns out not to be OAuth.
    challenge: Option<String>,
}

impl Found {
    /// A server that publishes no metadata gets the default endpoints; one that is not an
    /// OAuth server at all (a plain bearer token) then refuses them: say so.
    fn not_oauth(&self, reason: String) -> String {
        if self.guessed {
            let asked = self.challenge.as_deref().map_or_else(
                || " (it sent no WWW-Authenticate challenge)".to_owned(),
                |challenge| format!(" It asked for: WWW-Authenticate: {challenge}."),
            );
            format!(
                "{reason}. The server publishes no OAuth metadata and refused the default \
                 endpoints as unauthorized, so it is likely not an OAuth server: if it takes a \
                 token, pass it, for example --header 'Authorization: Bearer …'.{asked}"
            )
        } else {
            reason
        }
    }
}

/// Why no OAuth manager could be made for a URL.
#[derive(Debug)]
pub(crate) enum ManagerError {
    /// The HTTP client it uses (and logs its requests through).
    Client(String),
    /// rmcp refused the URL.
    Url(String),
}

/// rmcp's OAuth manager for `url`, its HTTP requests going into the timeline.
pub(crate) async fn timeline_manager(
    url: &str,
    steps: &StepSink,
    dpop: Option<Arc<Dpop>>,
) -> Result<AuthorizationManager, ManagerError> {
    let client = TimelineClient::new(steps.clone(), dpop)
        .map_err(|error| ManagerError::Client(explain(&error)))?;
    AuthorizationManager::new_with_oauth_http_client(url, Arc::new(client))
        .await
        .map_err(|error| ManagerError::Url(error.to_string()))
}

/// Discovery from the challenge: the protected resource metadata, then the authorization
/// server's (with rmcp's fallbacks).
async fn discover(
    request: &SignInRequest<'_>,
    kept: &KeptSignIn,
    steps: &StepSink,
    fail: &Failing<'_>,
) -> Result<(AuthorizationManager, Found), SignInError> {
    let mut manager = timeline_manager(request.url, steps, request.dpop.clone())
        .await
        .map_err(|error| match error {
            ManagerError::Client(why) => {
                fail.at("the start", format!("the OAuth HTTP client: {why}"))
            }
            ManagerError::Url(why) => fail.at("the start", why),
        })?;
    manager.set_credential_store(kept.clone());
    let resolution = manager
        .resolve_metadata_from_challenge(request.challenge)
        .await
        .map_err(|error| fail.at("discovery", explain(&error)))?;
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
    let pkce_s256 = resolution
        .metadata
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|methods| methods.iter().any(|method| method == "S256"));
    let takes_metadata_url = resolution
        .metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let guessed = !resolution.source.is_discovered();
    let strings = |name: &str| {
        resolution
            .metadata
            .additional_fields
            .get(name)
            .and_then(|value| serde_json::from_value::<Vec<String>>(value.clone()).ok())
    };
    let signing_algorithms = strings("token_endpoint_auth_signing_alg_values_supported");
    if let Some(dpop) = &request.dpop {
        timeline::note(
            steps,
            "Tokens are bound to this server's DPoP key",
            format!(
                "key thumbprint {}; the authorization server {}",
                dpop.thumbprint(),
                match strings("dpop_signing_alg_values_supported") {
                    Some(algs) => format!("takes DPoP proofs signed with {}", algs.join(", ")),
                    None => "does not advertise DPoP (dpop_signing_alg_values_supported): a                              bearer token it returns is used as a bearer token"
                        .to_owned(),
                }
            ),
        );
    }
    let token_endpoint = resolution.metadata.token_endpoint.clone();
    manager.set_metadata(resolution.metadata);
    Ok((
        manager,
        Found {
            issuer,
            token_endpoint,
            signing_algorithms,
            can_register,
            takes_metadata_url,
            pkce_s256,
            guessed,
            challenge: request
                .challenge
                .map(|challenge| crate::text_util::one_line(challenge, 500)),
        },
    ))
}

/// What the authorization request asks for, and where the browser comes back to.
struct Prepared {
    loopback: Loopback,
    redirect_uri: String,
    client_id: Option<String>,
    authorization: AuthorizationRequest,
}

/// The redirect listener, the client (the configured id, else the one kept for this issuer
/// and redirect URI, else dynamic registration) and the scopes asked for.
async fn prepare_authorization(
    request: &SignInRequest<'_>,
    kept: &KeptSignIn,
    options: &AuthOptions,
    found: &Found,
    fail: &Failing<'_>,
) -> Result<Prepared, SignInError> {
    let kept_registration = kept
        .registration()
        .await
        .filter(|registration| registration.issuer == found.issuer);
    let preferred_port = kept_registration
        .as_ref()
        .and_then(|registration| url::Url::parse(&registration.redirect_uri).ok())
        .and_then(|uri| uri.port())
        .unwrap_or(0);
    let loopback = Loopback::bind(preferred_port).await.map_err(|error| {
        fail.at(
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
    let metadata_url = options
        .client_metadata_url
        .as_ref()
        .filter(|_| found.takes_metadata_url);
    if let Some(client_id) = &client_id {
        authorization = authorization.with_preregistered_client(client_id);
        if let Some(secret) = options
            .client_secret
            .as_ref()
            .filter(|_| options.client_id.is_some())
        {
            authorization = authorization.with_client_secret(secret);
        }
    } else if let Some(url) = metadata_url {
        // SEP-991: the document's URL is the client id; nothing is registered.
        authorization = authorization.with_client_metadata_url(url);
    } else if !found.can_register {
        return Err(fail.at(
            "client registration",
            "the authorization server offers no dynamic registration (its metadata names no \
             registration_endpoint): register Toolscope with it, with the redirect URI \
             http://127.0.0.1/callback (any port), and give the client id (--oauth-client-id, \
             or OAuth client id in the server's settings), or publish a client metadata \
             document where the server takes one (--oauth-client-metadata-url)"
                .to_owned(),
        ));
    }
    authorization = if request.step_up {
        authorization.with_scopes(step_up_scopes(request, kept).await)
    } else {
        // The challenge's scope, else the resource's scopes_supported, else none.
        authorization.with_initial_scope_selection()
    };
    Ok(Prepared {
        loopback,
        redirect_uri,
        client_id,
        authorization,
    })
}

/// A step-up asks for the scopes held so far plus the ones the challenge names.
async fn step_up_scopes(request: &SignInRequest<'_>, kept: &KeptSignIn) -> Vec<String> {
    let held = kept
        .credentials()
        .await
        .map(|credentials| credentials.granted_scopes)
        .unwrap_or_default();
    let wanted: Vec<String> = request
        .challenge
        .zip(url::Url::parse(request.url).ok())
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
    scopes
}

/// The client id the session uses; a registration made here is kept for next time.
async fn keep_registration(
    session: &AuthorizationSession,
    kept: &KeptSignIn,
    options: &AuthOptions,
    redirect_uri: &str,
    found: &Found,
    fail: &Failing<'_>,
) -> Result<String, SignInError> {
    let registered_id = session
        .get_credentials()
        .await
        .map(|(client_id, _)| client_id)
        .map_err(|error| fail.at("client registration", explain(&error)))?;
    let by_metadata_url = options.client_metadata_url.as_deref() == Some(registered_id.as_str());
    if options.client_id.is_none() && !by_metadata_url {
        kept.keep_registration(Registration {
            client_id: registered_id.clone(),
            redirect_uri: redirect_uri.to_owned(),
            issuer: found.issuer.clone(),
        })
        .await
        .map_err(|reason| fail.at("keeping the registration", reason.to_string()))?;
    }
    Ok(registered_id)
}

/// Shows the authorization page (only an https one, or http on this machine) and waits for
/// the browser to come back to the loopback redirect; returns the redirect's URL.
#[allow(
    clippy::too_many_arguments,
    reason = "each is one part of the step's context"
)]
async fn through_the_browser(
    session: &AuthorizationSession,
    prompt: &dyn SignInPrompt,
    url: &str,
    registered_id: &str,
    (loopback, redirect_uri): (Loopback, &str),
    wait: Duration,
    cancel: &CancellationToken,
    steps: &StepSink,
    fail: &Failing<'_>,
) -> Result<String, SignInError> {
    let authorize_url = session.get_authorization_url().to_owned();
    if !super::browser::is_openable(&authorize_url) {
        return Err(fail.at(
            "discovery",
            format!(
                "the authorization server's page {} is not https (nor http on this machine): \
                 Toolscope does not open it",
                timeline::mask_query(&authorize_url)
            ),
        ));
    }
    if cancel.is_cancelled() {
        return Err(fail.at("the browser", "cancelled".to_owned()));
    }
    let shown = prompt
        .show(url, &authorize_url)
        .map_err(|reason| fail.at("opening the browser", reason.to_string()))?;
    timeline::note(
        steps,
        "Waiting for the browser",
        format!(
            "client {registered_id}; {shown}; the page: {authorize_url}; listening on {} for {} \
             s",
            redirect_uri,
            wait.as_secs()
        ),
    );
    // Only the redirect that carries this sign-in's state ends the wait.
    let state = url::Url::parse(&authorize_url).ok().and_then(|url| {
        url.query_pairs()
            .find(|(key, _)| key == "state")
            .map(|(_, value)| value.into_owned())
    });
    let callback = loopback
        .wait(state.as_deref(), wait, cancel)
        .await
        .map_err(|error| match error {
            WaitError::TimedOut { after, stale: 0 } => fail.at(
                "the browser",
                format!(
                    "no sign-in came back within {} s. Was the page opened and the sign-in \
                 finished? Connect again to start over",
                    after.as_secs()
                ),
            ),
            WaitError::TimedOut { after, stale } => fail.at(
                "authorization",
                format!(
                    "no sign-in came back within {} s with this sign-in's state: {stale} \
                     redirect(s) came back with another state and were not used (a stale tab, \
                     a forged link, or an authorization server that does not return the state \
                     it was given)",
                    after.as_secs()
                ),
            ),
            WaitError::Cancelled => fail.at("the browser", "cancelled".to_owned()),
            WaitError::Failed(reason) => fail.at("the browser", reason),
        })?;
    timeline::note(
        steps,
        "The browser came back",
        timeline::mask_query(&callback),
    );
    Ok(callback)
}

/// The redirect's code exchanged for tokens, with `state` and `iss` checked.
async fn exchange_code(
    session: &AuthorizationSession,
    callback: &str,
    fail: &Failing<'_>,
) -> Result<rmcp::transport::auth::OAuthTokenResponse, SignInError> {
    if let Some(refusal) = refusal(callback) {
        return Err(fail.at("authorization", refusal));
    }
    let parsed = AuthorizationCallback::from_redirect_url(callback)
        .map_err(|error| fail.at("authorization", explain(&error)))?;
    session
        .handle_callback_with_issuer(&parsed.code, &parsed.csrf_token, parsed.issuer.as_deref())
        .await
        .map_err(|error| match &error {
            AuthError::InternalError(text) if text.contains("state not found") => fail.at(
                "authorization",
                "the redirect's state is not this sign-in's (a stale or forged redirect): \
                 nothing was exchanged"
                    .to_owned(),
            ),
            AuthError::AuthorizationServerMismatch { .. }
            | AuthError::AuthorizationServerMissingIssuer { .. } => {
                fail.at("authorization", explain(&error))
            }
            _ => fail.at("the token exchange", explain(&error)),
        })
}

/// The timeline's last step: the scopes granted, the token's lifetime, a refresh token or not.
async fn note_signed_in(
    kept: &KeptSignIn,
    token: &rmcp::transport::auth::OAuthTokenResponse,
    steps: &StepSink,
) {
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
            oauth2::TokenResponse::expires_in(token).map_or_else(
                || "an unknown time".to_owned(),
                |left| format!("{} s", left.as_secs())
            ),
            if oauth2::TokenResponse::refresh_token(token).is_some() {
                "a refresh token came with it"
            } else {
                "no refresh token: a new sign-in will be needed when it expires"
            }
        ),
    );
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
