//! DPoP (RFC 9449): tokens bound to a key Toolscope holds. Each server has its own P-256 key,
//! made on first use and kept in the secret store; every token request and every request that
//! presents the token carries a fresh proof (`DPoP:` header: a JWT of the method, the URL and,
//! with a token, its hash), and a server's `DPoP-Nonce` is put into the proofs that follow.
//! A nonce challenge (`use_dpop_nonce`) is answered by sending the request once more.

use std::{collections::HashMap, sync::Arc};

use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::jwt::{self, KeyError, SigningKey};
use crate::secret_store::{SecretStore, SecretStoreError};

/// The header a proof goes in, and the one a server's nonce comes in.
pub const PROOF_HEADER: &str = "dpop";
pub const NONCE_HEADER: &str = "dpop-nonce";

/// Why the DPoP key could not be had.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DpopError {
    #[error("the DPoP key in the secret store: {0}")]
    Store(#[from] SecretStoreError),
    #[error("the DPoP key: {0}")]
    Key(#[from] KeyError),
}

/// One server's DPoP key and the nonces its servers gave.
pub struct Dpop {
    key: SigningKey,
    jwk: Value,
    /// The last nonce each server (by origin: the authorization server and the MCP server
    /// each have their own) sent.
    nonces: std::sync::Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for Dpop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dpop({})", self.thumbprint())
    }
}

/// Where a server's DPoP key is kept (beside its sign-in, `oauth:…`; signing out forgets it).
pub fn key_for(url: &str) -> String {
    format!("oauth-dpop:{}", super::kept_sign_in::resource_label(url))
}

impl Dpop {
    /// The DPoP key of the server at `url`: the one kept, else a new one, kept now.
    pub async fn for_server(store: &SecretStore, url: &str) -> Result<Arc<Self>, DpopError> {
        let (store, key) = (store.clone(), key_for(url));
        let made = tokio::task::spawn_blocking(move || -> Result<SigningKey, DpopError> {
            if let Some(pem) = store.get(&key)?
                && let Ok(kept) = SigningKey::from_pem(&pem)
            {
                return Ok(kept);
            }
            let (fresh, der) = SigningKey::generate_es256()?;
            store.set(&key, &jwt::pkcs8_pem(&der))?;
            Ok(fresh)
        })
        .await
        .map_err(|error| DpopError::Store(SecretStoreError::Unavailable(error.to_string())))??;
        Ok(Arc::new(Self::with_key(made)))
    }

    pub fn with_key(key: SigningKey) -> Self {
        let jwk = key.public_jwk();
        Self {
            key,
            jwk,
            nonces: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The key's JWK thumbprint: what a bound token's `cnf.jkt` names.
    pub fn thumbprint(&self) -> String {
        jwt::jwk_thumbprint(&self.jwk)
    }

    /// A fresh proof for `method` on `url`; with the access token it presents (`ath`) and the
    /// last nonce that server gave.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, KeyError> {
        let mut claims = json!({
            "jti": jwt::random_id()?,
            "htm": method,
            "htu": htu(url),
            "iat": jwt::now_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = Value::String(ath(token));
        }
        if let Some(nonce) = self.nonce_for(url) {
            claims["nonce"] = Value::String(nonce);
        }
        let mut header = Map::new();
        header.insert("typ".to_owned(), json!("dpop+jwt"));
        header.insert("jwk".to_owned(), self.jwk.clone());
        let alg = self.key.algorithms()[0];
        self.key.sign(alg, header, &claims)
    }

    /// Keeps the nonce a server sent (in any answer: a challenge or a success).
    pub fn remember_nonce(&self, url: &str, nonce: &str) {
        self.nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(origin(url), nonce.to_owned());
    }

    fn nonce_for(&self, url: &str) -> Option<String> {
        self.nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&origin(url))
            .cloned()
    }
}

/// `htu`: the URL without its query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_owned(),
    }
}

/// `ath`: the base64url SHA-256 of the access token.
pub fn ath(access_token: &str) -> String {
    jwt::base64url(&Sha256::digest(access_token.as_bytes()))
}

fn origin(url: &str) -> String {
    url::Url::parse(url).map_or_else(
        |_| url.to_owned(),
        |parsed| parsed.origin().ascii_serialization(),
    )
}

/// Whether an answer asks for the request again with a nonce: a resource server's 401 with
/// `WWW-Authenticate: DPoP error="use_dpop_nonce"`, or an authorization server's 400 (or
/// 401) whose JSON error is `use_dpop_nonce` (RFC 9449 §8, §9).
pub fn is_nonce_challenge(status: u16, www_authenticate: Option<&str>, body: &[u8]) -> bool {
    if !matches!(status, 400 | 401) {
        return false;
    }
    if www_authenticate.is_some_and(|challenge| challenge.contains("use_dpop_nonce")) {
        return true;
    }
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|body| body.get("error").and_then(Value::as_str).map(str::to_owned))
        .is_some_and(|error| error == "use_dpop_nonce")
}

/// Whether an OAuth request is a token request DPoP binds: a form with a `grant_type`, except
/// the token exchange at an enterprise identity provider (its ID-JAG is not a DPoP token).
pub fn binds(request: &http::Request<Vec<u8>>) -> bool {
    request.method() == http::Method::POST
        && url::form_urlencoded::parse(request.body())
            .find(|(name, _)| name == "grant_type")
            .is_some_and(|(_, grant)| grant != "urn:ietf:params:oauth:grant-type:token-exchange")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dpop() -> Dpop {
        Dpop::with_key(SigningKey::generate_es256().unwrap().0)
    }

    #[test]
    fn a_proof_names_the_request_the_key_and_the_token() {
        let dpop = dpop();
        let proof = dpop
            .proof("POST", "https://mcp.example/mcp?x=1#f", Some("token-1"))
            .unwrap();
        let (header, claims) = jwt::decode_unverified(&proof).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(jwt::jwk_thumbprint(&header["jwk"]), dpop.thumbprint());
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        // base64url(SHA-256("token-1")).
        assert_eq!(claims["ath"], ath("token-1"));
        assert_eq!(ath("token-1").len(), 43);
        assert!(claims["iat"].as_u64().unwrap() > 1_700_000_000);
        assert!(claims.get("nonce").is_none());
        let again = dpop.proof("POST", "https://mcp.example/mcp", None).unwrap();
        let (_, second) = jwt::decode_unverified(&again).unwrap();
        assert_ne!(claims["jti"], second["jti"], "a fresh jti per proof");
        assert!(second.get("ath").is_none());
    }

    #[test]
    fn a_nonce_goes_only_to_the_server_that_gave_it() {
        let dpop = dpop();
        dpop.remember_nonce("https://as.example/token", "n-as");
        let claims = |url: &str| {
            jwt::decode_unverified(&dpop.proof("POST", url, None).unwrap())
                .unwrap()
                .1
        };
        assert_eq!(claims("https://as.example/token")["nonce"], "n-as");
        assert!(claims("https://mcp.example/mcp").get("nonce").is_none());
        dpop.remember_nonce("https://mcp.example/mcp", "n-rs");
        assert_eq!(claims("https://mcp.example/other")["nonce"], "n-rs");
    }

    #[test]
    fn nonce_challenges_are_told_from_other_refusals() {
        assert!(is_nonce_challenge(
            401,
            Some(r#"DPoP error="use_dpop_nonce", resource_metadata="x""#),
            b""
        ));
        assert!(is_nonce_challenge(
            400,
            None,
            br#"{"error":"use_dpop_nonce"}"#
        ));
        assert!(!is_nonce_challenge(
            400,
            None,
            br#"{"error":"invalid_grant"}"#
        ));
        assert!(!is_nonce_challenge(
            401,
            Some("DPoP resource_metadata=\"x\""),
            b""
        ));
        assert!(!is_nonce_challenge(
            200,
            None,
            br#"{"error":"use_dpop_nonce"}"#
        ));
    }

    #[test]
    fn token_requests_are_bound_but_not_the_token_exchange() {
        let request = |body: &str| {
            http::Request::post("https://as.example/token")
                .body(body.as_bytes().to_vec())
                .unwrap()
        };
        assert!(binds(&request("grant_type=authorization_code&code=c")));
        assert!(binds(&request("grant_type=refresh_token&refresh_token=r")));
        assert!(!binds(&request(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
        )));
        assert!(!binds(&request("token=t")));
    }
}
