//! OAuth for one HTTP session: the token source the transport asks before each request, the
//! sign-in when the handshake is refused, and a sign-in again when a later request is (an
//! expired grant, a revoked token, a scope the token lacks), after which the request is sent
//! once more. Every step goes into the session's protocol log as its auth timeline.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use rmcp::transport::AuthorizationManager;
use tokio_util::sync::CancellationToken;

use crate::auth::{
    AuthOptions, KeptSignIn, OAuthExtensions, SignInError, SignInRequest, StepSink, dpop::Dpop,
    sign_in::ManagerError,
};
use crate::session::{error::SessionError, transports::tap::ProtocolTap};

/// One session's OAuth.
pub struct SessionAuth {
    url: String,
    kept: KeptSignIn,
    options: AuthOptions,
    steps: StepSink,
    cancel: CancellationToken,
    /// Held while a sign-in runs, so two refused requests do not open two browsers.
    signing_in: tokio::sync::Mutex<()>,
    /// Sign-ins finished: a request refused before another's sign-in ended just retries.
    sign_ins: AtomicU64,
    /// The last sign-in's manager, which knows the server and the client: the next
    /// transport's token source, with no discovery again.
    signed_in: std::sync::Mutex<Option<AuthorizationManager>>,
    /// The authorization server of this session's last sign-in.
    signed_in_at: std::sync::Mutex<Option<String>>,
    /// The server's DPoP key, read (or made) once, when tokens are bound with DPoP.
    dpop: tokio::sync::OnceCell<Option<Arc<Dpop>>>,
}

/// What a server's settings say of its OAuth client.
#[derive(Clone, Copy)]
pub struct OAuthSettings<'a> {
    pub client_id: Option<&'a String>,
    pub client_secret: Option<&'a String>,
    pub extensions: &'a OAuthExtensions,
}

impl SessionAuth {
    /// `settings`: the server's settings' OAuth client id and secret, used unless the options
    /// name a client of their own, and its extensions, unless the options name some.
    pub fn new(
        url: &str,
        settings: OAuthSettings<'_>,
        options: &AuthOptions,
        tap: &ProtocolTap,
        cancel: CancellationToken,
    ) -> Self {
        let tap = tap.clone();
        let also = options.on_step.clone();
        let steps: StepSink = Arc::new(move |step| {
            tap.record_auth_step(&step);
            if let Some(also) = &also {
                also(step);
            }
        });
        let mut options = match &options.client_id {
            Some(_) => options.clone(),
            None => AuthOptions {
                client_id: settings.client_id.cloned(),
                client_secret: settings.client_secret.cloned(),
                ..options.clone()
            },
        };
        if options.extensions.is_default() {
            options.extensions = settings.extensions.clone();
        }
        Self {
            url: url.to_owned(),
            kept: KeptSignIn::new(options.store.clone(), url),
            options,
            steps,
            cancel,
            signing_in: tokio::sync::Mutex::new(()),
            sign_ins: AtomicU64::new(0),
            signed_in: std::sync::Mutex::new(None),
            signed_in_at: std::sync::Mutex::new(None),
            dpop: tokio::sync::OnceCell::new(),
        }
    }

    /// The server's DPoP key when its tokens are bound with DPoP (read from the secret store,
    /// or made and kept there, once).
    pub async fn dpop(&self) -> Result<Option<Arc<Dpop>>, SessionError> {
        if !self.options.extensions.dpop {
            return Ok(None);
        }
        self.dpop
            .get_or_try_init(|| async {
                Dpop::for_server(&self.options.store, &self.url)
                    .await
                    .map(Some)
                    .map_err(|error| SessionError::InvalidConfig(error.to_string()))
            })
            .await
            .cloned()
    }

    /// What presents the session's DPoP-bound tokens to the server, when they are bound.
    pub async fn dpop_presenter(
        &self,
    ) -> Result<Option<Arc<super::http_dpop::DpopPresenter>>, SessionError> {
        Ok(self.dpop().await?.map(|dpop| {
            Arc::new(super::http_dpop::DpopPresenter::new(
                dpop,
                self.kept.clone(),
            ))
        }))
    }

    /// The token source for a transport: the kept tokens (refreshed when they are about to
    /// expire), or none yet.
    pub async fn token_source(&self) -> Result<AuthorizationManager, SessionError> {
        let fresh = self
            .signed_in
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(manager) = fresh {
            return Ok(manager);
        }
        let dpop = self.dpop().await?;
        let mut with_tokens = manager(&self.url, self.steps.clone(), dpop.clone()).await?;
        with_tokens.set_credential_store(self.kept.clone());
        if self.kept.has_tokens().await {
            // The tokens' server is found again (metadata discovery, in the timeline), so a
            // refresh knows where to go.
            if let Err(error) = with_tokens.initialize_from_store().await {
                crate::auth::timeline::note(
                    &self.steps,
                    "The kept sign-in cannot be used",
                    format!(
                        "{}: the server is asked without a token (a sign-in follows if it wants \
                         one)",
                        crate::auth::sign_in::explain(&error)
                    ),
                );
                // Without the kept tokens: one that expired could not be refreshed anyway.
                return manager(&self.url, self.steps.clone(), dpop).await;
            }
        }
        Ok(with_tokens)
    }

    /// The kept access token as it is (for the `server/discover` probe, sent before rmcp).
    pub async fn kept_access_token(&self) -> Option<String> {
        self.kept.access_token().await
    }

    /// How many sign-ins were tried (read before a request, passed to [`Self::sign_in`]).
    pub fn sign_ins(&self) -> u64 {
        self.sign_ins.load(Ordering::SeqCst)
    }

    /// Stops a sign-in under way, and any later one (the session ends).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Signs in, unless another sign-in was tried since `seen`: then its outcome stands (its
    /// tokens are used, or the request fails as it did), so refused requests waiting together
    /// open one browser, not one each.
    pub async fn sign_in(&self, challenge: Option<&str>, seen: u64) -> Result<(), SignInError> {
        let _one_at_a_time = self.signing_in.lock().await;
        if self.sign_ins() != seen {
            return Ok(());
        }
        // Counted whatever comes of it.
        self.sign_ins.fetch_add(1, Ordering::SeqCst);
        let step_up = challenge.is_some_and(|challenge| challenge.contains("insufficient_scope"));
        if self.cancel.is_cancelled() {
            return Err(SignInError {
                server: crate::auth::kept_sign_in::resource_label(&self.url),
                step: "the start",
                reason: "the session ended".to_owned(),
            });
        }
        let dpop = self.dpop().await.map_err(|error| SignInError {
            server: crate::auth::kept_sign_in::resource_label(&self.url),
            step: "the DPoP key",
            reason: error.to_string(),
        })?;
        let signed_in = crate::auth::sign_in(
            SignInRequest {
                url: &self.url,
                challenge,
                step_up,
                dpop,
            },
            &self.kept,
            &self.options,
            &self.steps,
            &self.cancel,
        )
        .await;
        if let Some(prompt) = &self.options.prompt {
            prompt.finished(&self.url);
        }
        let signed_in = signed_in?;
        *self
            .signed_in
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(signed_in.manager);
        *self
            .signed_in_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = signed_in.issuer;
        Ok(())
    }

    /// Whether the resource now names another authorization server than this session signed
    /// in with (its token was refused right after a sign-in): then signing in again there is
    /// worth it, once; the same server refusing a fresh token is not helped by another.
    pub async fn authorization_server_moved(&self, challenge: Option<&str>) -> bool {
        let signed_in_at = self
            .signed_in_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let Some(before) = signed_in_at else {
            return false;
        };
        let now = crate::auth::sign_in::current_issuer(&self.url, challenge, &self.steps).await;
        let moved = now.as_ref().is_some_and(|now| *now != before);
        if moved {
            crate::auth::timeline::note(
                &self.steps,
                "The authorization server changed",
                format!(
                    "the resource now names {} instead of {before}: Toolscope registers and \
                     signs in there anew, and does not present the old server's client to it",
                    now.unwrap_or_default()
                ),
            );
        }
        moved
    }
}

/// A token source that never has a token (a server without OAuth, or with the user's own
/// Authorization header).
pub async fn no_tokens(url: &str) -> Result<AuthorizationManager, SessionError> {
    manager(url, Arc::new(|_| {}), None).await
}

async fn manager(
    url: &str,
    steps: StepSink,
    dpop: Option<Arc<Dpop>>,
) -> Result<AuthorizationManager, SessionError> {
    crate::auth::sign_in::timeline_manager(url, &steps, dpop)
        .await
        .map_err(|error| {
            SessionError::InvalidConfig(match error {
                ManagerError::Client(why) => format!("the OAuth HTTP client: {why}"),
                ManagerError::Url(why) => format!("{url:?}: {why}"),
            })
        })
}
