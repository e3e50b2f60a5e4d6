//! How the command line signs in to an OAuth-protected server: the browser opened (or the
//! page's address printed with --no-browser), each step of the flow on stderr, the tokens
//! kept in the secret store so the next command needs no sign-in; and `toolscope sign-out`.

use std::sync::Arc;

use clap::Args;

use super::{CliError, EXIT_OK, ServerArgs, output::say};
use toolscope_core::{
    auth::{
        AuthOptions, EnterpriseIdp, Grant, KeptSignIn, OAuthExtensions, SignInPrompt, StepKind,
        TokenSource, browser,
    },
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
    /// With --url: how to get tokens: `authorization-code` (a person signs in, in the browser),
    /// `client-credentials` (machine to machine, with --oauth-client-id and
    /// --oauth-client-secret or --oauth-private-key), `jwt-bearer` (workload identity: an
    /// assertion the platform issued, --oauth-assertion-file or --oauth-assertion-env) or
    /// `enterprise` (enterprise-managed authorization: the identity provider's ID token
    /// exchanged for an ID-JAG, --oauth-idp-… and --oauth-id-token-…); none opens a browser
    #[arg(long, value_name = "GRANT", default_value = "authorization-code")]
    pub oauth_grant: OauthGrant,
    /// With --oauth-client-id: authenticate at the token endpoint with this private key (PEM:
    /// PKCS#8 ECDSA P-256/P-384, RSA or Ed25519), a signed client assertion
    /// (`private_key_jwt`) instead of a secret
    #[arg(long, value_name = "FILE", requires = "oauth_client_id")]
    pub oauth_private_key: Option<std::path::PathBuf>,
    /// With --url: ask for DPoP-bound tokens and present them with a proof per request (the
    /// key is this server's own, made once and kept in the secret store)
    #[arg(long)]
    pub oauth_dpop: bool,
    /// With --oauth-grant jwt-bearer: the file holding the workload's assertion (a JWT), read
    /// at each sign-in
    #[arg(long, value_name = "FILE", conflicts_with = "oauth_assertion_env")]
    pub oauth_assertion_file: Option<std::path::PathBuf>,
    /// With --oauth-grant jwt-bearer: the environment variable holding the assertion
    #[arg(long, value_name = "VARIABLE")]
    pub oauth_assertion_env: Option<String>,
    /// With --oauth-grant enterprise: the enterprise identity provider's issuer URL
    #[arg(long, value_name = "URL")]
    pub oauth_idp_issuer: Option<String>,
    /// With --oauth-grant enterprise: its token endpoint (default: from its metadata)
    #[arg(long, value_name = "URL")]
    pub oauth_idp_token_url: Option<String>,
    /// With --oauth-grant enterprise: Toolscope's client id at the identity provider
    #[arg(long, value_name = "ID")]
    pub oauth_idp_client_id: Option<String>,
    /// With --oauth-idp-client-id: that client's secret, if it is confidential
    #[arg(long, value_name = "SECRET", requires = "oauth_idp_client_id")]
    pub oauth_idp_client_secret: Option<String>,
    /// With --oauth-grant enterprise: the file holding the ID token the identity provider
    /// issued to the user
    #[arg(long, value_name = "FILE", conflicts_with = "oauth_id_token_env")]
    pub oauth_id_token_file: Option<std::path::PathBuf>,
    /// With --oauth-grant enterprise: the environment variable holding that ID token
    #[arg(long, value_name = "VARIABLE")]
    pub oauth_id_token_env: Option<String>,
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
    JwtBearer,
    #[value(alias = "id-jag")]
    Enterprise,
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
        options.extensions = self.extensions().map_err(|error| error.to_string())?;
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

impl SignInFlags {
    /// The OAuth extensions the flags name, checked for what each grant needs.
    fn extensions(&self) -> Result<OAuthExtensions, CliError> {
        let source = |file: &Option<std::path::PathBuf>, env: &Option<String>| {
            file.clone()
                .map(TokenSource::File)
                .or_else(|| env.clone().map(TokenSource::Env))
        };
        let mut extensions = OAuthExtensions {
            private_key_file: self.oauth_private_key.clone(),
            dpop: self.oauth_dpop,
            assertion: source(&self.oauth_assertion_file, &self.oauth_assertion_env),
            ..OAuthExtensions::default()
        };
        extensions.grant = match self.oauth_grant {
            OauthGrant::AuthorizationCode => Grant::AuthorizationCode,
            OauthGrant::ClientCredentials => {
                if self.oauth_client_secret.is_none() && self.oauth_private_key.is_none() {
                    return Err(
                        "--oauth-grant client-credentials needs --oauth-client-id and \
                         --oauth-client-secret or --oauth-private-key (the credentials the \
                         authorization server knows the client by)"
                            .into(),
                    );
                }
                Grant::ClientCredentials
            }
            OauthGrant::JwtBearer => {
                if extensions.assertion.is_none() {
                    return Err("--oauth-grant jwt-bearer needs the workload's assertion: \
                         --oauth-assertion-file FILE or --oauth-assertion-env VARIABLE"
                        .into());
                }
                Grant::JwtBearer
            }
            OauthGrant::Enterprise => {
                let id_token = source(&self.oauth_id_token_file, &self.oauth_id_token_env);
                let (Some(issuer), Some(client_id), Some(id_token), Some(_)) = (
                    &self.oauth_idp_issuer,
                    &self.oauth_idp_client_id,
                    id_token,
                    &self.oauth_client_id,
                ) else {
                    return Err("--oauth-grant enterprise needs the identity provider \
                         (--oauth-idp-issuer, --oauth-idp-client-id), the user's ID token \
                         (--oauth-id-token-file or --oauth-id-token-env) and the client id \
                         registered with the MCP server's authorization server \
                         (--oauth-client-id)"
                        .into());
                };
                extensions.idp = Some(EnterpriseIdp {
                    issuer: issuer.clone(),
                    token_endpoint: self.oauth_idp_token_url.clone(),
                    client_id: client_id.clone(),
                    client_secret: self.oauth_idp_client_secret.clone(),
                    id_token: Some(id_token),
                });
                Grant::Enterprise
            }
        };
        Ok(extensions)
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
