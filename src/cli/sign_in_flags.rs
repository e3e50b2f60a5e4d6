//! How the command line signs in to an OAuth-protected server: the browser opened (or the
//! page's address printed with --no-browser), each step of the flow on stderr, the tokens
//! kept in the secret store so the next command needs no sign-in; and `toolscope sign-out`.

use std::sync::Arc;

use clap::Args;

use super::{CliError, EXIT_OK, ServerArgs, output::say};
use toolscope_core::{
    auth::{AuthOptions, KeptSignIn, SignInPrompt, StepKind, browser},
    secret_store::{Preference, SecretStore, SecretStoreError},
};

/// Sign-in options of every command that talks to a server.
#[derive(Debug, Clone, Default, Args)]
pub struct SignInFlags {
    /// With --url: print the sign-in page's address instead of opening a browser
    #[arg(long)]
    pub no_browser: bool,
    /// With --url: a client id registered beforehand with the server's authorization server
    /// (otherwise Toolscope registers itself)
    #[arg(long, value_name = "ID")]
    pub oauth_client_id: Option<String>,
    /// With --oauth-client-id: that client's secret (a confidential client), sent at the token
    /// endpoint the way the authorization server advertises (HTTP Basic or the request body)
    #[arg(long, value_name = "SECRET", requires = "oauth_client_id")]
    pub oauth_client_secret: Option<String>,
    /// With --url: the https URL of Toolscope's client metadata document, used as the client id
    /// where the authorization server supports client ID metadata documents (instead of
    /// registering)
    #[arg(long, value_name = "URL")]
    pub oauth_client_metadata_url: Option<String>,
    /// With --url: how to get tokens: `authorization-code` (a person signs in, in the browser)
    /// or `client-credentials` (machine to machine, with --oauth-client-id and
    /// --oauth-client-secret; no browser)
    #[arg(long, value_name = "GRANT", default_value = "authorization-code")]
    pub oauth_grant: OauthGrant,
    /// With --url: seconds to wait for the sign-in in the browser [default: 300]
    #[arg(long, value_name = "SECONDS")]
    pub sign_in_timeout: Option<u64>,
}

/// `--oauth-grant`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OauthGrant {
    #[default]
    AuthorizationCode,
    ClientCredentials,
}

/// The secret store the user's settings folder holds (or the keyring).
pub fn secret_store() -> Result<SecretStore, SecretStoreError> {
    let folder = toolscope_core::settings::config_dir().ok_or_else(|| {
        SecretStoreError::Unavailable(
            "no configuration folder: set TOOLSCOPE_CONFIG_DIR".to_owned(),
        )
    })?;
    SecretStore::open(Preference::from_environment()?, folder)
}

impl SignInFlags {
    /// How this command signs in.
    pub fn options(&self) -> Result<AuthOptions, String> {
        let prompt: Arc<dyn SignInPrompt> = Arc::new(TerminalPrompt {
            open_browser: !self.no_browser,
        });
        let mut options = AuthOptions::new(
            secret_store().map_err(|error| error.to_string())?,
            Some(prompt),
        );
        options.client_id.clone_from(&self.oauth_client_id);
        options.client_secret.clone_from(&self.oauth_client_secret);
        options
            .client_metadata_url
            .clone_from(&self.oauth_client_metadata_url);
        options.grant = match self.oauth_grant {
            OauthGrant::AuthorizationCode => toolscope_core::auth::Grant::AuthorizationCode,
            OauthGrant::ClientCredentials => {
                if self.oauth_client_secret.is_none() {
                    return Err(
                        "--oauth-grant client-credentials needs --oauth-client-id and \
                         --oauth-client-secret (the credentials the authorization server issued)"
                            .to_owned(),
                    );
                }
                toolscope_core::auth::Grant::ClientCredentials
            }
        };
        if let Some(seconds) = self.sign_in_timeout {
            options.wait = std::time::Duration::from_secs(seconds.max(1));
        }
        options.on_step = Some(Arc::new(|step| {
            let mark = match step.kind {
                StepKind::Request => "→",
                StepKind::Response => "←",
                StepKind::RefusedResponse | StepKind::Failure => "✗",
                StepKind::Note => "•",
            };
            say(&format!("auth {mark} {}", step.title));
        }));
        Ok(options)
    }
}

struct TerminalPrompt {
    open_browser: bool,
}

impl SignInPrompt for TerminalPrompt {
    fn show(&self, server: &str, url: &str) -> Result<String, browser::BrowserError> {
        let server = toolscope_core::session::config::url_label(server);
        if !self.open_browser {
            say(&format!(
                "To sign in to {server}, open this page in a browser:\n  {url}"
            ));
            return Ok("the page's address was printed (--no-browser)".to_owned());
        }
        match browser::open(url) {
            Ok(how) => {
                say(&format!(
                    "Sign in to {server} in the browser ({how}). If no page opened, open:\n  {url}"
                ));
                Ok(how)
            }
            Err(reason) => {
                say(&format!(
                    "No browser could be opened ({reason}). To sign in to {server}, open:\n  {url}"
                ));
                Ok(format!(
                    "no browser opened ({reason}); the address was printed"
                ))
            }
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct SignOutArgs {
    #[command(flatten)]
    pub server: ServerArgs,
}

/// `toolscope sign-out`: forgets a server's tokens and client registration.
pub async fn sign_out(args: SignOutArgs) -> Result<u8, CliError> {
    let config = args.server.config()?;
    let toolscope_core::session::ServerConfig::Http {
        url,
        oauth_client_secret,
        ..
    } = &config
    else {
        return Err("only an HTTP server (--url, or a saved one with a URL) is signed into".into());
    };
    let store = secret_store()?;
    let kept = KeptSignIn::new(store.clone(), url);
    let done = toolscope_core::auth::sign_out::sign_out(&kept, url, oauth_client_secret.as_deref())
        .await?;
    if done.was_signed_in {
        say(&format!(
            "Signed out of {}: its tokens and client registration are gone from {}; {}",
            toolscope_core::session::config::url_label(url),
            store.describe(),
            done.revocation.describe()
        ));
    } else {
        say(&format!(
            "Not signed in to {}: nothing was kept for it",
            toolscope_core::session::config::url_label(url)
        ));
    }
    Ok(EXIT_OK)
}
