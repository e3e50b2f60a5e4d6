//! Signing in from the window: where secrets are kept (opened once, off the UI thread, when an
//! HTTP server first connects), the prompt that opens the browser and tells the window which
//! page a server's sign-in waits on, and signing out.

use std::sync::Arc;

use super::{Backend, BackendEvent, Emitter, ServerId};
use toolscope_core::{
    auth::{AuthOptions, KeptSignIn, SignInPrompt, browser},
    session::ProtocolTap,
    settings::{PageOpener, SecretsPlace},
};

/// A sign-in waiting for the browser, as the window shows it.
#[derive(Debug, Clone)]
pub struct SignInPage {
    /// The authorization page.
    pub page: String,
    /// How the browser was opened, or why it could not be.
    pub opened: Result<String, String>,
}

/// Opens the browser and tells the window.
struct WindowPrompt {
    server: ServerId,
    emit: Emitter,
    tap: ProtocolTap,
    opener: PageOpener,
}

impl SignInPrompt for WindowPrompt {
    fn show(&self, _server: &str, url: &str) -> Result<String, browser::BrowserError> {
        let opened = (self.opener)(url);
        let said = match &opened {
            Ok(how) => how.clone(),
            Err(reason) => {
                format!("no browser opened ({reason}): the window offers the page to open")
            }
        };
        self.emit.send(BackendEvent::SignInWaiting {
            server: self.server,
            page: SignInPage {
                page: url.to_owned(),
                opened: opened.map_err(|error| error.to_string()),
            },
            tap: self.tap.clone(),
        });
        Ok(said)
    }

    fn finished(&self, _server: &str) {
        self.emit.send(BackendEvent::SignInEnded {
            server: self.server,
        });
    }
}

impl Backend {
    /// Keeps secrets (OAuth tokens) in `place`; without one, servers are not signed into.
    pub fn keep_secrets(&mut self, place: Option<SecretsPlace>) {
        self.secrets = place;
    }

    /// How a connection to `server` signs in, if secrets have a place.
    pub(super) async fn auth_options(
        secrets: Option<&SecretsPlace>,
        server: ServerId,
        emit: &Emitter,
        tap: &ProtocolTap,
    ) -> Option<AuthOptions> {
        let secrets = secrets?;
        let store = match secrets.store().await {
            Ok(store) => store,
            Err(message) => {
                emit.send(BackendEvent::Notice(format!(
                    "Signing in to servers is off: {message}"
                )));
                return None;
            }
        };
        let prompt: Arc<dyn SignInPrompt> = Arc::new(WindowPrompt {
            server,
            emit: emit.clone(),
            tap: tap.clone(),
            opener: secrets.opener(),
        });
        Some(AuthOptions::new(store, Some(prompt)))
    }

    /// Opens a sign-in page again (the user closed the tab, or no browser opened).
    /// How the window opens a page in the browser (the secrets' place says, in tests).
    pub(super) fn page_opener(&self) -> PageOpener {
        self.secrets.as_ref().map_or_else(
            || Arc::new(browser::open) as PageOpener,
            |place| place.opener(),
        )
    }

    pub fn open_page(&self, page: String) {
        let emit = self.emitter();
        let opener = self.page_opener();
        self.runtime.spawn_blocking(move || {
            if let Err(reason) = opener(&page) {
                emit.send(BackendEvent::Notice(format!(
                    "No browser could be opened ({reason}): copy the link and open it yourself"
                )));
            }
        });
    }

    /// Writes a server as `client`'s entry for the clipboard; its secret values are read from
    /// the store when they are asked for and kept there.
    pub fn copy_as(
        &self,
        name: String,
        config: toolscope_core::session::ServerConfig,
        client: toolscope_core::import::Client,
        include_secrets: bool,
    ) {
        let emit = self.emitter();
        let secrets = self.secrets.clone();
        self.runtime.spawn_blocking(move || {
            let config = if include_secrets {
                let open = || {
                    secrets
                        .ok_or_else(|| {
                            toolscope_core::secret_store::SecretStoreError::Unavailable(
                                "no secret store is in use".to_owned(),
                            )
                        })
                        .and_then(|place| place.store_blocking())
                };
                match toolscope_core::settings::kept_secrets::with_values(&name, &config, open) {
                    Ok(config) => config,
                    Err(message) => {
                        emit.send(BackendEvent::Notice(format!(
                            "Nothing was copied: {message}"
                        )));
                        return;
                    }
                }
            } else {
                config
            };
            let text = toolscope_core::import::entry_for(client, &name, &config, include_secrets);
            let what = format!(
                "{name} as a {} entry{}",
                client.name(),
                if include_secrets {
                    ", secret values included"
                } else {
                    " (secret values as placeholders)"
                }
            );
            emit.send(BackendEvent::CopyText { text, what });
        });
    }

    /// Revokes the tokens kept for the server at `url` at its authorization server (where it
    /// offers that), then forgets them and the client registration.
    pub fn sign_out(&self, name: String, url: String, client_secret: Option<String>) {
        let emit = self.emitter();
        let secrets = self.secrets.clone();
        self.runtime.spawn(async move {
            let Some(secrets) = secrets else {
                return;
            };
            let message = match secrets.store().await {
                Ok(store) => {
                    let kept = KeptSignIn::new(store.clone(), &url);
                    match toolscope_core::auth::sign_out::sign_out(
                        &kept,
                        &url,
                        client_secret.as_deref(),
                    )
                    .await
                    {
                        Ok(done) if done.was_signed_in => format!(
                            "Signed out of {name}: its tokens and client registration are gone \
                             from {}; {}",
                            store.describe(),
                            done.revocation.describe()
                        ),
                        Ok(_) => format!("{name} was not signed into: nothing was kept for it"),
                        Err(error) => format!("Signing out of {name} failed: {error}"),
                    }
                }
                Err(error) => format!("Signing out of {name} failed: {error}"),
            };
            emit.send(BackendEvent::Notice(message));
        });
    }
}
