//! The auth timeline: every HTTP request the sign-in makes and every answer, with secrets
//! masked, plus the flow's own notes (the browser opened, the callback came back). It goes into
//! the protocol log, so a sign-in that fails shows at which step and with what answer.

use std::sync::Arc;

use rmcp::transport::auth::{AuthError, OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest};
use serde_json::Value;

use super::dpop::Dpop;

/// The most of a body shown in one step.
const MAX_BODY_CHARS: usize = 4000;

/// Keys whose values are credentials, in forms, JSON bodies and URL queries.
const SECRET_KEYS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "code",
    "code_verifier",
    "client_secret",
    "client_assertion",
    "assertion",
    "registration_access_token",
    "password",
];

/// One step of a sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthStep {
    pub kind: StepKind,
    /// One line: `POST http://…/token`, `200 ← http://…/token`, `Opened the browser`.
    pub title: String,
    /// Headers and body, or more words; secrets masked.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Request,
    Response,
    /// An answer with an error status.
    RefusedResponse,
    Note,
    /// The request got no answer, or the flow stopped here.
    Failure,
}

/// Where steps go (the protocol log, and the command line's stderr).
pub type StepSink = Arc<dyn Fn(AuthStep) + Send + Sync>;

/// Records a note.
pub fn note(steps: &StepSink, title: impl Into<String>, detail: impl Into<String>) {
    steps(AuthStep {
        kind: StepKind::Note,
        title: title.into(),
        detail: detail.into(),
    });
}

/// rmcp's OAuth HTTP client, with each exchange recorded; with a DPoP key, token requests
/// carry proofs (sent by [`TimelineClient::send_direct`], which may send one twice).
pub struct TimelineClient {
    inner: Box<dyn OAuthHttpClient>,
    steps: StepSink,
    /// Token requests Toolscope makes itself, and those DPoP binds: never redirected (as
    /// rmcp's own client does for them).
    direct: reqwest::Client,
    dpop: Option<Arc<Dpop>>,
}

/// The largest token response read.
const MAX_TOKEN_RESPONSE_BYTES: usize = 1024 * 1024;

impl TimelineClient {
    pub fn new(steps: StepSink, dpop: Option<Arc<Dpop>>) -> Result<Self, AuthError> {
        crate::tls::install_crypto_provider();
        let inner = rmcp::transport::auth::default_oauth_http_client()?;
        let direct = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .map_err(|error| AuthError::InternalError(error.to_string()))?;
        Ok(Self {
            inner: Box::new(inner),
            steps,
            direct,
            dpop,
        })
    }

    /// The steps it records into.
    pub fn steps(&self) -> &StepSink {
        &self.steps
    }

    /// A token request Toolscope makes itself: a form POSTed to `url`, with HTTP Basic client
    /// authentication when `basic` is given (form-encoded first, RFC 6749 §2.3.1).
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> Result<http::Response<Vec<u8>>, rmcp::transport::auth::OAuthHttpClientError> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = http::Request::post(url)
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json");
        if let Some((id, secret)) = basic {
            let encode = |text: &str| -> String {
                url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
            };
            let credentials = base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                format!("{}:{}", encode(id), encode(secret)),
            );
            request = request.header(http::header::AUTHORIZATION, format!("Basic {credentials}"));
        }
        self.send_direct(request.body(body.into_bytes())?).await
    }

    /// Sends a request with Toolscope's own client, recorded; a token request DPoP binds gets
    /// a proof, and a `use_dpop_nonce` answer is followed by the same request once more, its
    /// proof carrying the nonce.
    async fn send_direct(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, rmcp::transport::auth::OAuthHttpClientError> {
        let uri = request.uri().to_string();
        let dpop = self
            .dpop
            .as_deref()
            .filter(|_| super::dpop::binds(&request));
        let mut retried = false;
        loop {
            let mut attempt = http::Request::new(request.body().clone());
            *attempt.method_mut() = request.method().clone();
            *attempt.uri_mut() = request.uri().clone();
            *attempt.headers_mut() = request.headers().clone();
            if let Some(dpop) = dpop {
                let proof = dpop.proof(request.method().as_str(), &uri, None)?;
                attempt.headers_mut().insert(
                    super::dpop::PROOF_HEADER,
                    http::HeaderValue::try_from(proof)?,
                );
            }
            let title = format!("{} {}", attempt.method(), mask_query(&uri));
            (self.steps)(AuthStep {
                kind: StepKind::Request,
                title: title.clone(),
                detail: exchange_text(attempt.headers(), attempt.body()),
            });
            let response = match send(&self.direct, attempt).await {
                Ok(response) => response,
                Err(error) => {
                    (self.steps)(AuthStep {
                        kind: StepKind::Failure,
                        title: format!("no answer ← {title}"),
                        detail: crate::error_chain::error_chain(error.as_ref()),
                    });
                    return Err(error);
                }
            };
            (self.steps)(AuthStep {
                kind: if response.status().is_success() {
                    StepKind::Response
                } else {
                    StepKind::RefusedResponse
                },
                title: format!("{} ← {title}", response.status()),
                detail: exchange_text(response.headers(), response.body()),
            });
            let Some(dpop) = dpop else {
                return Ok(response);
            };
            if let Some(nonce) = response
                .headers()
                .get(super::dpop::NONCE_HEADER)
                .and_then(|value| value.to_str().ok())
            {
                dpop.remember_nonce(&uri, nonce);
            }
            let challenge = response
                .headers()
                .get(http::header::WWW_AUTHENTICATE)
                .and_then(|value| value.to_str().ok());
            if !retried
                && super::dpop::is_nonce_challenge(
                    response.status().as_u16(),
                    challenge,
                    response.body(),
                )
            {
                retried = true;
                note(
                    &self.steps,
                    "The authorization server asks for a DPoP nonce",
                    "the token request is sent once more, its proof carrying the nonce it gave",
                );
                continue;
            }
            return Ok(response);
        }
    }
}

/// Sends one request and reads its answer (at most [`MAX_TOKEN_RESPONSE_BYTES`]).
async fn send(
    client: &reqwest::Client,
    request: http::Request<Vec<u8>>,
) -> Result<http::Response<Vec<u8>>, rmcp::transport::auth::OAuthHttpClientError> {
    let mut response = client.execute(reqwest::Request::try_from(request)?).await?;
    let mut answer = http::Response::builder().status(response.status());
    if let Some(headers) = answer.headers_mut() {
        *headers = response.headers().clone();
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_TOKEN_RESPONSE_BYTES {
            return Err(format!(
                "the token response is larger than {} MiB",
                MAX_TOKEN_RESPONSE_BYTES >> 20
            )
            .into());
        }
    }
    Ok(answer.body(body)?)
}

impl OAuthHttpClient for TimelineClient {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        if self.dpop.is_some() && super::dpop::binds(&request.request) {
            return Box::pin(self.send_direct(request.request));
        }
        let method = request.request.method().to_string();
        let uri = mask_query(&request.request.uri().to_string());
        (self.steps)(AuthStep {
            kind: StepKind::Request,
            title: format!("{method} {uri}"),
            detail: exchange_text(request.request.headers(), request.request.body()),
        });
        Box::pin(async move {
            let answered = self.inner.execute(request).await;
            match &answered {
                Ok(response) => (self.steps)(AuthStep {
                    kind: if response.status().is_success() || response.status().is_redirection() {
                        StepKind::Response
                    } else {
                        StepKind::RefusedResponse
                    },
                    title: format!("{} ← {method} {uri}", response.status()),
                    detail: exchange_text(response.headers(), response.body()),
                }),
                Err(error) => (self.steps)(AuthStep {
                    kind: StepKind::Failure,
                    title: format!("no answer ← {method} {uri}"),
                    detail: crate::error_chain::error_chain(error.as_ref()),
                }),
            }
            answered
        })
    }
}

/// Headers, a blank line, the body: as an HTTP message reads, secrets masked.
fn exchange_text(headers: &http::HeaderMap, body: &[u8]) -> String {
    let mut text = String::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        let shown = if matches!(
            name.as_str(),
            "authorization" | "cookie" | "set-cookie" | "proxy-authorization"
        ) {
            crate::secrets::mask(&value)
        } else {
            value.into_owned()
        };
        text.push_str(&format!("{name}: {shown}\n"));
    }
    if !body.is_empty() {
        text.push('\n');
        text.push_str(&mask_body(&String::from_utf8_lossy(body)));
    }
    crate::text_util::cut_at_char_boundary(&text, MAX_BODY_CHARS * 4).to_owned()
}

/// A JSON or form body with the values of [`SECRET_KEYS`] masked.
pub fn mask_body(body: &str) -> String {
    if let Ok(mut value) = serde_json::from_str::<Value>(body) {
        mask_json(&mut value);
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        return cut(&text);
    }
    if body.contains('=') && !body.contains(char::is_whitespace) {
        return cut(&mask_pairs(body));
    }
    cut(body)
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_BODY_CHARS) {
        Some((at, _)) => format!("{}… ({} bytes in all)", &text[..at], text.len()),
        None => text.to_owned(),
    }
}

fn mask_json(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if SECRET_KEYS.contains(&key.as_str()) && inner.is_string() {
                    *inner = Value::String("••••••".to_owned());
                } else {
                    mask_json(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_json),
        _ => {}
    }
}

/// `a=1&code=xyz` → `a=1&code=••••••`.
fn mask_pairs(pairs: &str) -> String {
    pairs
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if SECRET_KEYS.contains(&key) => format!("{key}=••••••"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A URL with the values of secret query parameters masked.
pub fn mask_query(url: &str) -> String {
    match url.split_once('?') {
        Some((base, query)) => {
            let (query, fragment) = query.split_once('#').unwrap_or((query, ""));
            let fragment = if fragment.is_empty() {
                String::new()
            } else {
                format!("#{fragment}")
            };
            format!("{base}?{}{fragment}", mask_pairs(query))
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// An authorization server that wants a DPoP nonce: a token request is refused with the
    /// nonce `n-1`, one whose proof carries `accepted` gets a token. Returns its URL and the proofs
    /// it saw.
    async fn nonce_demanding_server(
        accepted: &'static str,
    ) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token", listener.local_addr().unwrap());
        let proofs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = proofs.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                while !String::from_utf8_lossy(&request).contains("\r\n\r\n") {
                    let read = socket.read(&mut buffer).await.unwrap_or(0);
                    if read == 0 {
                        break;
                    }
                    request.extend_from_slice(&buffer[..read]);
                }
                let text = String::from_utf8_lossy(&request).to_string();
                let proof = text
                    .lines()
                    .find_map(|line| line.strip_prefix("dpop: "))
                    .unwrap_or_default()
                    .to_owned();
                seen.lock().unwrap().push(proof.clone());
                let nonce = super::super::jwt::decode_unverified(&proof)
                    .and_then(|(_, claims)| claims["nonce"].as_str().map(str::to_owned));
                let (status, extra, body) = if nonce.as_deref() == Some(accepted) {
                    ("200 OK", "", r#"{"access_token":"t","token_type":"DPoP"}"#)
                } else {
                    (
                        "400 Bad Request",
                        "DPoP-Nonce: n-1\r\n",
                        r#"{"error":"use_dpop_nonce"}"#,
                    )
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nContent-Length: \
                     {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            }
        });
        (url, proofs)
    }

    #[tokio::test]
    async fn a_token_request_asked_for_a_nonce_is_sent_once_more_with_it() {
        let (url, proofs) = nonce_demanding_server("n-1").await;
        let steps_seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = steps_seen.clone();
        let steps: StepSink = Arc::new(move |step: AuthStep| kept.lock().unwrap().push(step));
        let dpop = Arc::new(Dpop::with_key(
            super::super::jwt::SigningKey::generate_es256().unwrap().0,
        ));
        let client = TimelineClient::new(steps, Some(dpop.clone())).unwrap();
        let answer = client
            .post_form(&url, &[("grant_type", "client_credentials")], None)
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let proofs = proofs.lock().unwrap().clone();
        assert_eq!(proofs.len(), 2, "once, then once more with the nonce");
        let claims = |proof: &str| super::super::jwt::decode_unverified(proof).unwrap().1;
        assert!(claims(&proofs[0]).get("nonce").is_none());
        assert_eq!(claims(&proofs[1])["nonce"], "n-1");
        assert_eq!(claims(&proofs[1])["htm"], "POST");
        assert_eq!(claims(&proofs[1])["htu"], url);
        assert!(claims(&proofs[1]).get("ath").is_none(), "no token yet");
        assert_ne!(claims(&proofs[0])["jti"], claims(&proofs[1])["jti"]);
        let titles: Vec<String> = steps_seen
            .lock()
            .unwrap()
            .iter()
            .map(|step| step.title.clone())
            .collect();
        assert!(
            titles
                .iter()
                .any(|title| title == "The authorization server asks for a DPoP nonce"),
            "{titles:?}"
        );
    }

    #[tokio::test]
    async fn a_stale_nonce_is_replaced_by_the_one_a_challenge_gives() {
        let (url, proofs) = nonce_demanding_server("n-1").await;
        let dpop = Arc::new(Dpop::with_key(
            super::super::jwt::SigningKey::generate_es256().unwrap().0,
        ));
        dpop.remember_nonce(&url, "stale");
        let client = TimelineClient::new(Arc::new(|_| {}), Some(dpop)).unwrap();
        let answer = client
            .post_form(&url, &[("grant_type", "client_credentials")], None)
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "the retry carried the new nonce");
        assert_eq!(proofs.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_nonce_challenge_is_answered_once_only() {
        let (url, proofs) = nonce_demanding_server("never").await;
        let dpop = Arc::new(Dpop::with_key(
            super::super::jwt::SigningKey::generate_es256().unwrap().0,
        ));
        let client = TimelineClient::new(Arc::new(|_| {}), Some(dpop)).unwrap();
        let answer = client
            .post_form(&url, &[("grant_type", "client_credentials")], None)
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "the second refusal is the answer");
        assert_eq!(proofs.lock().unwrap().len(), 2);
    }

    #[test]
    fn secrets_are_masked_everywhere() {
        assert_eq!(
            mask_body("grant_type=authorization_code&code=abc&code_verifier=v&resource=r"),
            "grant_type=authorization_code&code=••••••&code_verifier=••••••&resource=r"
        );
        let json =
            mask_body(r#"{"access_token":"t","refresh_token":"r","expires_in":3,"scope":"a"}"#);
        assert!(!json.contains("\"t\"") && !json.contains("\"r\"") && json.contains("expires_in"));
        let nested = mask_body(r#"{"tokens":[{"access_token":"deep"}]}"#);
        assert!(!nested.contains("deep"), "{nested}");
        assert_eq!(
            mask_query("http://x/cb?code=secret&state=s#f"),
            "http://x/cb?code=••••••&state=s#f"
        );
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "authorization",
            http::HeaderValue::from_static("Bearer abc"),
        );
        assert_eq!(
            exchange_text(&headers, b""),
            "authorization: Bearer ••••••\n"
        );
    }
}
