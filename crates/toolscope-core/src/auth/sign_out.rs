//! Signing out: the tokens and client registration kept for a server are forgotten, and the
//! authorization server is told too (OAuth 2.0 Token Revocation, RFC 7009): the
//! refresh token, then the access token, are revoked at its `revocation_endpoint`, so tokens
//! copied from the store before the sign-out stop working. Where the server offers no such
//! endpoint, or cannot be reached, the tokens are still forgotten here, and the outcome says so.

use std::time::Duration;

use oauth2::TokenResponse as _;
use rmcp::transport::auth::StoredCredentials;

use super::{KeptSignIn, timeline::StepSink};
use crate::secret_store::SecretStoreError;

/// How long each revocation request may take.
const REQUEST_LIMIT: Duration = Duration::from_secs(10);

/// What the authorization server was told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revocation {
    /// Every token kept was revoked at `endpoint`.
    Revoked { endpoint: String },
    /// The authorization server names no revocation endpoint.
    NotOffered,
    /// No token was kept (only a client registration, or nothing).
    NothingKept,
    /// It could not be told: why.
    Failed(String),
}

impl Revocation {
    /// A sentence for the sign-out message.
    pub fn describe(&self) -> String {
        match self {
            Revocation::Revoked { endpoint } => {
                format!("the tokens were revoked at {endpoint}")
            }
            Revocation::NotOffered => "the authorization server offers no revocation endpoint, \
                                       so the tokens stay valid there until they expire"
                .to_owned(),
            Revocation::NothingKept => "no token was kept to revoke".to_owned(),
            Revocation::Failed(why) => format!(
                "revoking them at the authorization server failed ({why}); they stay valid \
                 there until they expire"
            ),
        }
    }
}

/// What a sign-out did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedOut {
    /// There were tokens or a registration to forget.
    pub was_signed_in: bool,
    pub revocation: Revocation,
}

/// Signs out of the server at `url`: its tokens are revoked at the authorization server where
/// it offers that, then everything kept for it is forgotten (also when revoking failed).
pub async fn sign_out(
    kept: &KeptSignIn,
    url: &str,
    client_secret: Option<&str>,
) -> Result<SignedOut, SecretStoreError> {
    let revocation = match kept.credentials().await {
        Some(credentials) => revoke(url, &credentials, client_secret).await,
        None => Revocation::NothingKept,
    };
    let was_signed_in = kept.forget().await?;
    Ok(SignedOut {
        was_signed_in,
        revocation,
    })
}

/// Revokes the tokens in `kept` at the authorization server of the MCP server at `url`.
/// `client_secret` authenticates a confidential client (RFC 7009 §2.1).
pub async fn revoke(
    url: &str,
    kept: &StoredCredentials,
    client_secret: Option<&str>,
) -> Revocation {
    let Some(tokens) = &kept.token_response else {
        return Revocation::NothingKept;
    };
    let endpoint = match revocation_endpoint(url).await {
        Ok(endpoint) => endpoint,
        Err(outcome) => return outcome,
    };
    if !super::browser::is_openable(&endpoint) {
        return Revocation::Failed(format!(
            "its revocation endpoint {endpoint} is not https (nor http on this machine)"
        ));
    }
    crate::tls::install_crypto_provider();
    let client = match reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_LIMIT)
        .build()
    {
        Ok(client) => client,
        Err(error) => return Revocation::Failed(error.to_string()),
    };
    // The refresh token first: revoking it usually ends the access tokens made from it.
    let mut revoke_each = Vec::new();
    if let Some(refresh) = tokens.refresh_token() {
        revoke_each.push((refresh.secret().as_str(), "refresh_token"));
    }
    revoke_each.push((tokens.access_token().secret().as_str(), "access_token"));
    for (token, hint) in revoke_each {
        let mut form = vec![("token", token), ("token_type_hint", hint)];
        let mut request = client.post(&endpoint);
        match client_secret {
            Some(secret) => request = request.basic_auth(&kept.client_id, Some(secret)),
            None => form.push(("client_id", kept.client_id.as_str())),
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&form)
            .finish();
        let request = request
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        let answer = match request.send().await {
            Ok(answer) => answer,
            Err(error) => {
                return Revocation::Failed(crate::error_chain::error_chain(&error.without_url()));
            }
        };
        // 200 for a token revoked or unknown (§2.2); 503 and the rest are failures.
        if !answer.status().is_success() {
            let status = answer.status();
            let body = answer.text().await.unwrap_or_default();
            // The server's words, without anything a terminal would act on.
            let printable: String = body.chars().filter(|c| !c.is_control()).collect();
            let said = crate::text_util::one_line(&printable, 200);
            return Revocation::Failed(format!("HTTP {status} {said}").trim_end().to_owned());
        }
    }
    Revocation::Revoked { endpoint }
}

/// The authorization server's `revocation_endpoint`, found as a sign-in finds its metadata;
/// or what the sign-out tells when there is none (`NotOffered`) or it cannot be found (`Failed`).
async fn revocation_endpoint(url: &str) -> Result<String, Revocation> {
    let quiet: StepSink = std::sync::Arc::new(|_| {});
    let manager = super::sign_in::timeline_manager(url, &quiet, None)
        .await
        .map_err(|error| match error {
            super::sign_in::ManagerError::Client(why) | super::sign_in::ManagerError::Url(why) => {
                Revocation::Failed(why)
            }
        })?;
    let resolution = manager
        .resolve_metadata()
        .await
        .map_err(|error| Revocation::Failed(format!("its metadata could not be read: {error}")))?;
    resolution
        .metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or(Revocation::NotOffered)
}
