//! The grants without a browser, after discovery found the authorization server: client
//! credentials (with the client's secret, or its private key: `private_key_jwt`, RFC 7523 §2.2),
//! a JWT bearer assertion the platform issued to this workload (RFC 7523 §2.1, workload identity
//! federation), and enterprise-managed authorization (the identity provider's ID token
//! exchanged there for an ID-JAG, RFC 8693, then presented as a JWT bearer grant). The tokens
//! go where a browser sign-in's go; each step is in the timeline.

use rmcp::transport::auth::{
    AuthorizationManager, ClientCredentialsConfig, CredentialStore as _, OAuthClientConfig,
    OAuthTokenResponse, StoredCredentials,
    enterprise::{EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest},
};
use serde_json::{Map, Value, json};

use super::{
    extensions::{EnterpriseIdp, Grant},
    jwt::{self, SigningKey},
    sign_in::{AuthOptions, Failing, Found, SignInRequest, SignedIn, explain},
    timeline::{self, TimelineClient},
};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long a client assertion Toolscope signs is valid.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// Everything a grant needs.
pub(super) struct GrantContext<'a> {
    pub request: &'a SignInRequest<'a>,
    pub manager: AuthorizationManager,
    pub found: Found,
    pub kept: &'a super::KeptSignIn,
    pub options: &'a AuthOptions,
    pub http: TimelineClient,
    pub fail: &'a Failing<'a>,
}

/// How the client proves who it is at the token endpoint.
enum ClientAuth {
    /// No authentication (a public client, or the assertion is the only credential); the client
    /// id, if any, goes in the form.
    None(Option<String>),
    /// `client_secret_basic`.
    Secret { id: String, secret: String },
    /// `private_key_jwt`: a fresh signed assertion per request.
    PrivateKey { id: String, key: Box<SigningKey> },
}

/// Runs the grant the options name.
pub(super) async fn sign_in(context: GrantContext<'_>) -> Result<SignedIn, super::SignInError> {
    match context.options.extensions.grant {
        Grant::ClientCredentials => client_credentials(context).await,
        Grant::JwtBearer => workload_identity(context).await,
        Grant::Enterprise => enterprise(context).await,
        Grant::AuthorizationCode => Err(context.fail.at(
            "the start",
            "the authorization code grant signs in through the browser".to_owned(),
        )),
    }
}

fn client_auth(context: &GrantContext<'_>) -> Result<ClientAuth, super::SignInError> {
    let id = context.options.client_id.clone();
    let pem = context
        .options
        .extensions
        .private_key_pem()
        .map_err(|error| {
            context
                .fail
                .at("the client's private key", error.to_string())
        })?;
    Ok(match (id, pem, context.options.client_secret.clone()) {
        (Some(id), Some(pem), _) => ClientAuth::PrivateKey {
            id,
            key: Box::new(SigningKey::from_pem(&pem).map_err(|error| {
                context
                    .fail
                    .at("the client's private key", error.to_string())
            })?),
        },
        (None, Some(_), _) => {
            return Err(context.fail.at(
                "the start",
                "private_key_jwt needs the client id the authorization server knows the key by \
                 (--oauth-client-id, or OAuth client id in the server's settings)"
                    .to_owned(),
            ));
        }
        (Some(id), None, Some(secret)) => ClientAuth::Secret { id, secret },
        (id, None, _) => ClientAuth::None(id),
    })
}

/// Client credentials: with a private key, the request is made here (rmcp's needs a crypto
/// library Toolscope does not build); with a secret, rmcp makes it.
async fn client_credentials(context: GrantContext<'_>) -> Result<SignedIn, super::SignInError> {
    let auth = client_auth(&context)?;
    let scopes = context.manager.select_initial_scopes(&[]).await;
    match auth {
        ClientAuth::Secret { id, secret } => with_client_secret(context, id, secret, scopes).await,
        ClientAuth::PrivateKey { .. } => {
            let scope = scopes.join(" ");
            let mut form = vec![
                ("grant_type", "client_credentials"),
                ("resource", context.request.url),
            ];
            if !scope.is_empty() {
                form.push(("scope", scope.as_str()));
            }
            timeline::note(
                context.http.steps(),
                "Asking for a token with the client's credentials",
                format!("private_key_jwt; scopes: {}", or_none(&scope)),
            );
            let token = token_request(&context, &form, &auth, "the token request").await?;
            keep(context, token, scopes).await
        }
        ClientAuth::None(_) => Err(context.fail.at(
            "the start",
            "the client-credentials grant needs the client id the authorization server issued \
             and its secret (--oauth-client-id and --oauth-client-secret) or private key \
             (--oauth-private-key)"
                .to_owned(),
        )),
    }
}

async fn with_client_secret(
    context: GrantContext<'_>,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
) -> Result<SignedIn, super::SignInError> {
    let GrantContext {
        request,
        mut manager,
        found,
        http,
        fail,
        ..
    } = context;
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: client_id.clone(),
        client_secret,
        scopes: scopes.clone(),
        resource: Some(request.url.to_owned()),
    };
    manager
        .validate_client_credentials_metadata(&config)
        .and_then(|()| manager.configure_client_credentials(&config))
        .map_err(|error| fail.at("the token request", explain(&error)))?;
    timeline::note(
        http.steps(),
        "Asking for a token with the client's credentials",
        format!("client {client_id}; scopes: {}", or_none(&scopes.join(" "))),
    );
    let token = manager
        .exchange_client_credentials(&config)
        .await
        .map_err(|error| fail.at("the token request", explain(&error)))?;
    note_signed_in(http.steps(), "with the client's credentials", &token);
    Ok(SignedIn {
        manager,
        issuer: found.issuer,
    })
}

/// Workload identity federation: the platform's token for this workload is the grant.
async fn workload_identity(context: GrantContext<'_>) -> Result<SignedIn, super::SignInError> {
    let Some(source) = context.options.extensions.assertion.clone() else {
        return Err(context.fail.at(
            "the start",
            "the JWT bearer grant needs the workload's assertion: --oauth-assertion-file FILE or \
             --oauth-assertion-env VARIABLE (what the CI system or cluster provides)"
                .to_owned(),
        ));
    };
    let assertion = source
        .read("workload assertion")
        .map_err(|error| context.fail.at("the workload assertion", error.to_string()))?;
    timeline::note(
        context.http.steps(),
        "Presenting the workload's assertion (JWT bearer grant)",
        format!(
            "read from {}; {}",
            source.describe(),
            describe_jwt(&assertion)
        ),
    );
    let auth = client_auth(&context)?;
    let scopes = context.manager.select_initial_scopes(&[]).await;
    let scope = scopes.join(" ");
    let mut form = vec![
        ("grant_type", JWT_BEARER),
        ("assertion", assertion.as_str()),
        ("resource", context.request.url),
    ];
    if !scope.is_empty() {
        form.push(("scope", scope.as_str()));
    }
    // A refusal is final: the same assertion would be refused again, and another grant is not
    // what the workload was given (SEP-1933).
    let token = token_request(&context, &form, &auth, "the JWT bearer grant").await?;
    keep(context, token, scopes).await
}

/// Enterprise-managed authorization: the token exchange at the identity provider (rmcp checks
/// the ID-JAG it returns), then the ID-JAG as a JWT bearer grant here.
async fn enterprise(context: GrantContext<'_>) -> Result<SignedIn, super::SignInError> {
    let fail = context.fail;
    let Some(idp) = context.options.extensions.idp.clone() else {
        return Err(fail.at(
            "the start",
            "enterprise-managed authorization needs the identity provider: --oauth-idp-issuer, \
             --oauth-idp-client-id and the ID token (--oauth-id-token-file or \
             --oauth-id-token-env)"
                .to_owned(),
        ));
    };
    let (Some(client_id), Some(source)) = (context.options.client_id.clone(), &idp.id_token) else {
        return Err(fail.at(
            "the start",
            "enterprise-managed authorization needs the client id registered with the MCP \
             server's authorization server (--oauth-client-id) and the ID token \
             (--oauth-id-token-file or --oauth-id-token-env)"
                .to_owned(),
        ));
    };
    let id_token = source
        .read("ID token")
        .map_err(|error| fail.at("the ID token", error.to_string()))?;
    let idp_token_endpoint = idp_token_endpoint(&idp, &context).await?;
    let Some(issuer) = context.found.issuer.clone() else {
        return Err(fail.at(
            "discovery",
            "the authorization server's metadata names no issuer, which the ID-JAG's audience \
             must be"
                .to_owned(),
        ));
    };
    timeline::note(
        context.http.steps(),
        "Exchanging the ID token for an ID-JAG at the identity provider",
        format!(
            "{} (client {}); the ID token read from {}: {}; audience {issuer}, resource {}",
            idp_token_endpoint,
            idp.client_id,
            source.describe(),
            describe_jwt(&id_token),
            context.request.url
        ),
    );
    let idp_server = EmaAuthorizationServer::new(&idp.issuer, &idp_token_endpoint, &idp.client_id)
        .with_client_authentication(match &idp.client_secret {
            Some(secret) => EmaClientAuthentication::ClientSecretBasic(oauth2::ClientSecret::new(
                secret.clone(),
            )),
            None => EmaClientAuthentication::None,
        });
    let resource_server =
        EmaAuthorizationServer::new(&issuer, &context.found.token_endpoint, &client_id);
    let id_jag = EmaExchangeRequest::new_with_id_token(
        idp_server,
        resource_server,
        context.request.url,
        &id_token,
    )
    .exchange_id_jag(
        &TimelineClient::new(context.http.steps().clone(), None)
            .map_err(|error| fail.at("the token exchange", explain(&error)))?,
    )
    .await
    .map_err(|error| fail.at("the token exchange", error.to_string()))?;
    let assertion = id_jag.assertion().secret().clone();
    timeline::note(
        context.http.steps(),
        "Presenting the ID-JAG to the MCP server's authorization server (JWT bearer grant)",
        describe_jwt(&assertion),
    );
    let auth = client_auth(&context)?;
    // Only the assertion carries authority (as rmcp's own redemption does): no resource or
    // scope that could widen what the identity provider narrowed.
    let form = [
        ("grant_type", JWT_BEARER),
        ("assertion", assertion.as_str()),
    ];
    let token = token_request(&context, &form, &auth, "the JWT bearer grant").await?;
    let scopes: Vec<String> = id_jag.scopes().iter().cloned().collect();
    keep(context, token, scopes).await
}

/// The identity provider's token endpoint: the one given, else its metadata's.
async fn idp_token_endpoint(
    idp: &EnterpriseIdp,
    context: &GrantContext<'_>,
) -> Result<String, super::SignInError> {
    if let Some(endpoint) = idp.token_endpoint.clone().filter(|e| !e.is_empty()) {
        return Ok(endpoint);
    }
    let manager = super::sign_in::timeline_manager(&idp.issuer, context.http.steps(), None)
        .await
        .map_err(|error| {
            let (super::sign_in::ManagerError::Client(why)
            | super::sign_in::ManagerError::Url(why)) = error;
            context.fail.at("the identity provider's metadata", why)
        })?;
    manager
        .resolve_metadata()
        .await
        .map(|resolution| resolution.metadata.token_endpoint)
        .map_err(|error| {
            context
                .fail
                .at("the identity provider's metadata", explain(&error))
        })
}

/// A token request Toolscope makes itself, with the client's authentication; the answer's
/// tokens, or the authorization server's refusal in its words.
async fn token_request(
    context: &GrantContext<'_>,
    form: &[(&str, &str)],
    auth: &ClientAuth,
    step: &'static str,
) -> Result<OAuthTokenResponse, super::SignInError> {
    let fail = context.fail;
    let mut form = form.to_vec();
    let assertion;
    let basic = match auth {
        ClientAuth::Secret { id, secret } => Some((id.as_str(), secret.as_str())),
        _ => None,
    };
    match auth {
        ClientAuth::None(Some(id)) => form.push(("client_id", id.as_str())),
        ClientAuth::PrivateKey { id, key } => {
            assertion = client_assertion(id, key, &context.found, context.http.steps())
                .map_err(|error| fail.at("signing the client assertion", error.to_string()))?;
            form.push(("client_assertion_type", ASSERTION_TYPE));
            form.push(("client_assertion", assertion.as_str()));
        }
        ClientAuth::None(None) | ClientAuth::Secret { .. } => {}
    }
    let response = context
        .http
        .post_form(&context.found.token_endpoint, &form, basic)
        .await
        .map_err(|error| fail.at(step, crate::error_chain::error_chain(error.as_ref())))?;
    let body: Value = serde_json::from_slice(response.body()).unwrap_or(Value::Null);
    if !response.status().is_success() {
        let error = body
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no error code");
        let description = body
            .get("error_description")
            .and_then(Value::as_str)
            .map(|text| format!(": {}", crate::text_util::one_line(text, 300)))
            .unwrap_or_default();
        return Err(fail.at(
            step,
            format!(
                "the authorization server answered HTTP {} with {error}{description}",
                response.status().as_u16()
            ),
        ));
    }
    serde_json::from_value(body).map_err(|error| {
        fail.at(
            step,
            format!("the token response is not one OAuth describes: {error}"),
        )
    })
}

/// The `private_key_jwt` assertion (RFC 7523 §3): `iss` and `sub` the client id, `aud` the
/// authorization server's issuer, short-lived, with a fresh `jti`; signed with the algorithm
/// the server advertises for it.
fn client_assertion(
    client_id: &str,
    key: &SigningKey,
    found: &Found,
    steps: &timeline::StepSink,
) -> Result<String, jwt::KeyError> {
    let advertised = found.signing_algorithms.as_deref();
    let alg = key.choose_algorithm(advertised)?;
    // RFC 7523 allows the token endpoint as the audience too; the issuer is what the conformance
    // suite (and draft-ietf-oauth-rfc7523bis) asks for, falling back to the endpoint without one.
    let audience = found
        .issuer
        .clone()
        .unwrap_or_else(|| found.token_endpoint.clone());
    let now = jwt::now_secs();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_SECS,
        "jti": jwt::random_id()?,
    });
    let mut header = Map::new();
    header.insert("typ".to_owned(), json!("JWT"));
    let signed = key.sign(alg, header, &claims)?;
    timeline::note(
        steps,
        "Signed a client assertion (private_key_jwt)",
        format!(
            "{alg}; iss and sub {client_id}; aud {audience}; valid {ASSERTION_LIFETIME_SECS} s"
        ),
    );
    Ok(signed)
}

/// Keeps the tokens where the transport reads them.
async fn keep(
    context: GrantContext<'_>,
    token: OAuthTokenResponse,
    asked: Vec<String>,
) -> Result<SignedIn, super::SignInError> {
    let granted = oauth2::TokenResponse::scopes(&token).map_or(asked, |scopes| {
        scopes.iter().map(|scope| scope.to_string()).collect()
    });
    let credentials = StoredCredentials::new(
        context.options.client_id.clone().unwrap_or_default(),
        Some(token.clone()),
        granted,
        Some(jwt::now_secs()),
    )
    .with_issuer(context.found.issuer.clone());
    context
        .kept
        .save(credentials)
        .await
        .map_err(|error| context.fail.at("keeping the tokens", explain(&error)))?;
    // The client is configured on the manager so that an expired token without a refresh
    // token reads as "sign in again" (another grant now), not as a client missing.
    let mut manager = context.manager;
    let mut client = OAuthClientConfig::new(
        context.options.client_id.clone().unwrap_or_default(),
        "http://127.0.0.1/callback",
    );
    client
        .client_secret
        .clone_from(&context.options.client_secret);
    manager
        .configure_client(client)
        .map_err(|error| context.fail.at("keeping the tokens", explain(&error)))?;
    note_signed_in(context.http.steps(), "without a browser", &token);
    Ok(SignedIn {
        manager,
        issuer: context.found.issuer,
    })
}

fn note_signed_in(steps: &timeline::StepSink, how: &str, token: &OAuthTokenResponse) {
    timeline::note(
        steps,
        "Signed in",
        format!(
            "{how}; a {} token that expires in {}",
            oauth2::TokenResponse::token_type(token).as_ref(),
            oauth2::TokenResponse::expires_in(token).map_or_else(
                || "an unknown time".to_owned(),
                |left| format!("{} s", left.as_secs())
            )
        ),
    );
}

/// What a JWT says of itself (issuer, subject, audience, expiry), for the timeline: never the
/// token.
fn describe_jwt(token: &str) -> String {
    let Some((header, claims)) = jwt::decode_unverified(token) else {
        return "not a JWT Toolscope can read (sent as it is)".to_owned();
    };
    let claim = |name: &str| {
        claims.get(name).map_or_else(
            || "—".to_owned(),
            |value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            },
        )
    };
    let expiry = claims.get("exp").and_then(Value::as_u64).map_or_else(
        || "no expiry".to_owned(),
        |exp| {
            let now = jwt::now_secs();
            if exp > now {
                format!("expires in {} s", exp - now)
            } else {
                format!("expired {} s ago", now - exp)
            }
        },
    );
    format!(
        "a {} JWT{}: iss {}, sub {}, aud {}; {expiry}",
        header.get("alg").and_then(Value::as_str).unwrap_or("?"),
        header
            .get("typ")
            .and_then(Value::as_str)
            .map(|typ| format!(" ({typ})"))
            .unwrap_or_default(),
        claim("iss"),
        claim("sub"),
        claim("aud"),
    )
}

fn or_none(scope: &str) -> &str {
    if scope.is_empty() {
        "none named"
    } else {
        scope
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jwt_is_described_without_its_signature() {
        let (key, _) = SigningKey::generate_es256().unwrap();
        let token = key
            .sign(
                "ES256",
                Map::new(),
                &json!({"iss": "https://idp", "sub": "w", "aud": "https://as", "exp": 1}),
            )
            .unwrap();
        let said = describe_jwt(&token);
        assert!(
            said.starts_with("a ES256 JWT: iss https://idp, sub w, aud https://as; expired"),
            "{said}"
        );
        assert!(!said.contains(token.rsplit('.').next().unwrap()));
        assert_eq!(
            describe_jwt("opaque"),
            "not a JWT Toolscope can read (sent as it is)"
        );
    }
}
