//! The auth step of a URL that wants credentials: the challenge quoted, the protected-resource
//! and authorization-server metadata found or not (rmcp's discovery, as a sign-in does it),
//! the scopes, and whether this Toolscope can answer: a kept sign-in, a machine grant, or a
//! header.

use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadataSource};

use super::{Failed, Step, http_step::HttpAnswer, timed};

/// What Toolscope holds for this server.
#[derive(Debug, Clone, Copy, Default)]
pub struct Credentials {
    /// A sign-in kept from before (its token was sent with the probe).
    pub kept_sign_in: bool,
    /// A grant that needs no person (client credentials and the like).
    pub machine_grant: bool,
    /// An `Authorization` header in the server's settings.
    pub header: bool,
}

pub async fn auth_step(url: &str, answer: &HttpAnswer, credentials: Credentials) -> Step {
    timed("auth", judge(url, answer, credentials)).await.0
}

async fn judge(
    url: &str,
    answer: &HttpAnswer,
    credentials: Credentials,
) -> Result<((), String), Failed> {
    let mut evidence = vec![format!(
        "HTTP {}, WWW-Authenticate: {}",
        answer.status,
        answer.challenge.as_deref().unwrap_or("(none)")
    )];
    let discovered = discover(url, answer.challenge.as_deref(), &mut evidence).await;
    if answer.status == 403 {
        return Err(Failed::new(
            evidence.join("\n"),
            "the server refused these credentials (403): the token may lack a scope the tool \
             needs, or the account lacks access; sign in again with the scopes it names",
        ));
    }
    if credentials.header {
        return Err(Failed::new(
            evidence.join("\n"),
            "the Authorization header given was refused: check the token (expired, or for \
             another server)",
        ));
    }
    if !discovered {
        return Err(Failed::new(
            evidence.join("\n"),
            "the server wants credentials but publishes no OAuth metadata: give the credential \
             it expects as a header (--header 'Authorization: Bearer …', or the server editor's \
             headers)",
        ));
    }
    if credentials.kept_sign_in {
        evidence.push("a sign-in is kept for this server: the session refreshes it".to_owned());
        return Ok(((), evidence.join("\n")));
    }
    if credentials.machine_grant {
        evidence.push("the session gets a token with the client's own credentials".to_owned());
        return Ok(((), evidence.join("\n")));
    }
    Err(Failed::new(
        evidence.join("\n"),
        "sign in first (any command on the server signs in through the browser, e.g. \
         toolscope tools --url URL; in the window, Connect), then diagnose again",
    ))
}

/// Adds what discovery found to `evidence`; whether OAuth metadata was found.
async fn discover(url: &str, challenge: Option<&str>, evidence: &mut Vec<String>) -> bool {
    crate::tls::install_crypto_provider();
    let manager = match AuthorizationManager::new(url).await {
        Ok(manager) => manager,
        Err(error) => {
            evidence.push(format!("OAuth discovery could not start: {error}"));
            return false;
        }
    };
    let resolution = match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => resolution,
        Err(error) => {
            evidence.push(format!("OAuth metadata could not be read: {error}"));
            return false;
        }
    };
    let metadata = &resolution.metadata;
    let found = match resolution.source {
        AuthorizationMetadataSource::ProtectedResourceMetadata => {
            "found through the protected resource metadata (RFC 9728)"
        }
        AuthorizationMetadataSource::AuthorizationServerMetadata => {
            "found at the server's own origin (RFC 8414), with no protected resource metadata"
        }
        _ => {
            evidence.push(
                "no protected resource metadata and no authorization server metadata".to_owned(),
            );
            return false;
        }
    };
    evidence.push(format!(
        "authorization server {} {found}; authorize at {}, tokens at {}{}",
        metadata.issuer.as_deref().unwrap_or("(no issuer named)"),
        metadata.authorization_endpoint,
        metadata.token_endpoint,
        metadata.registration_endpoint.as_deref().map_or_else(
            || ", no registration endpoint".to_owned(),
            |endpoint| format!(", registration at {endpoint}")
        ),
    ));
    let scopes = manager.select_initial_scopes(&[]).await;
    evidence.push(if scopes.is_empty() {
        "scopes: none named".to_owned()
    } else {
        format!("scopes: {}", scopes.join(" "))
    });
    true
}
