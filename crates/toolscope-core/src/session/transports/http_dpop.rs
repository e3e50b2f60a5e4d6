//! DPoP at the MCP server (RFC 9449 §7, §9): a DPoP-bound token is presented as
//! `Authorization: DPoP <token>` with a fresh proof of the method, the URL and the token on
//! every request, and the server's `DPoP-Nonce` goes into the proofs after it.
//!
//! A POST is sent here rather than through rmcp's reqwest client: a nonce challenge (`401`,
//! `WWW-Authenticate: DPoP error="use_dpop_nonce"`) carries the nonce in a header rmcp does
//! not pass on, and the request must go once more with it. What comes back is then read as
//! rmcp reads it (the same statuses, limits and errors), so the session above sees no
//! difference.

use std::{borrow::Cow, collections::HashMap, sync::Arc};

use futures::{StreamExt as _, TryStreamExt as _};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use reqwest::header::{ACCEPT, CONTENT_TYPE, WWW_AUTHENTICATE};
use rmcp::{
    model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage},
    transport::streamable_http_client::{
        AuthRequiredError, HttpStatusError, InsufficientScopeError, StreamableHttpError,
        StreamableHttpPostResponse, StreamableHttpResponseLimits,
    },
};
use sse_stream::SseStream;

use crate::auth::{AuthStep, KeptSignIn, StepKind, dpop::Dpop};
use crate::session::transports::tap::ProtocolTap;

type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

/// Presents a session's DPoP-bound tokens.
pub struct DpopPresenter {
    dpop: Arc<Dpop>,
    kept: KeptSignIn,
}

impl DpopPresenter {
    pub fn new(dpop: Arc<Dpop>, kept: KeptSignIn) -> Self {
        Self { dpop, kept }
    }

    /// Whether `token` is bound to the key: the kept token it is was issued as `DPoP` (an
    /// authorization server that ignored the proof issued a bearer token, used as one).
    pub async fn binds(&self, token: &str) -> bool {
        let Some(response) = self
            .kept
            .credentials()
            .await
            .and_then(|credentials| credentials.token_response)
        else {
            return false;
        };
        oauth2::TokenResponse::access_token(&response).secret() == token
            && oauth2::TokenResponse::token_type(&response)
                .as_ref()
                .eq_ignore_ascii_case("dpop")
    }

    /// Adds `Authorization: DPoP …` and a fresh proof for `method` on `uri` to `headers`.
    pub fn present(
        &self,
        method: &str,
        uri: &str,
        token: &str,
        headers: &mut HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        let proof = self
            .dpop
            .proof(method, uri, Some(token))
            .map_err(|error| unexpected(format!("the DPoP proof: {error}")))?;
        let value = |text: String| {
            HeaderValue::try_from(text)
                .map_err(|_| unexpected("the DPoP headers are not valid header values".to_owned()))
        };
        headers.insert(http::header::AUTHORIZATION, value(format!("DPoP {token}"))?);
        headers.insert(
            HeaderName::from_static(crate::auth::dpop::PROOF_HEADER),
            value(proof)?,
        );
        Ok(())
    }

    /// Keeps the nonce an answer carries.
    pub fn remember_nonce(&self, uri: &str, headers: &HeaderMap) {
        if let Some(nonce) = headers
            .get(crate::auth::dpop::NONCE_HEADER)
            .and_then(|value| value.to_str().ok())
        {
            self.dpop.remember_nonce(uri, nonce);
        }
    }
}

/// What one DPoP POST needs.
pub struct DpopPost<'a> {
    pub client: &'a reqwest::Client,
    pub presenter: &'a DpopPresenter,
    pub tap: &'a ProtocolTap,
    pub uri: Arc<str>,
    pub session_id: Option<Arc<str>>,
    pub token: &'a str,
    pub custom_headers: HashMap<HeaderName, HeaderValue>,
    pub limits: StreamableHttpResponseLimits,
}

/// POSTs `message` with the token and a proof; a nonce challenge is answered once.
pub async fn post(
    post: DpopPost<'_>,
    message: &ClientJsonRpcMessage,
) -> HttpResult<StreamableHttpPostResponse> {
    let body = serde_json::to_vec(message)?;
    let mut retried = false;
    loop {
        let mut headers = post.custom_headers.clone();
        post.presenter
            .present("POST", &post.uri, post.token, &mut headers)?;
        let mut request = post
            .client
            .post(post.uri.as_ref())
            .header(ACCEPT, "text/event-stream, application/json")
            .header(CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(session_id) = &post.session_id {
            request = request.header("mcp-session-id", session_id.as_ref());
        }
        let response = request.body(body.clone()).send().await?;
        post.presenter.remember_nonce(&post.uri, response.headers());
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok());
        if !retried
            && response
                .headers()
                .contains_key(crate::auth::dpop::NONCE_HEADER)
            && crate::auth::dpop::is_nonce_challenge(response.status().as_u16(), challenge, b"")
        {
            retried = true;
            post.tap.record_auth_step(&AuthStep {
                kind: StepKind::Note,
                title: "The server asks for a DPoP nonce".to_owned(),
                detail: format!(
                    "{} answered {}: the request is sent once more, its proof carrying the \
                     nonce it gave",
                    post.uri,
                    response.status()
                ),
            });
            continue;
        }
        return read_answer(response, message, post.session_id.is_some(), post.limits).await;
    }
}

/// The answer as rmcp's reqwest client reads it.
async fn read_answer(
    response: reqwest::Response,
    message: &ClientJsonRpcMessage,
    session_was_attached: bool,
    limits: StreamableHttpResponseLimits,
) -> HttpResult<StreamableHttpPostResponse> {
    let status = response.status();
    let challenge = response
        .headers()
        .get(WWW_AUTHENTICATE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    match (status, challenge) {
        (StatusCode::UNAUTHORIZED, Some(challenge)) => {
            return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                challenge,
            )));
        }
        (StatusCode::FORBIDDEN, Some(challenge)) => {
            let scope = url::Url::parse("http://scope.invalid/")
                .ok()
                .and_then(|base| {
                    rmcp::transport::auth::WWWAuthenticateParams::parse(&challenge, &base).scope
                });
            return Err(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(challenge, scope),
            ));
        }
        _ => {}
    }
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        return Ok(StreamableHttpPostResponse::Accepted);
    }
    if status == StatusCode::NOT_FOUND && session_was_attached {
        return Err(StreamableHttpError::SessionExpired);
    }
    let session_id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.to_ascii_lowercase());
    let awaits_no_response = !matches!(message, ClientJsonRpcMessage::Request(_));
    if !status.is_success() {
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = read_bounded(response, limits.max_json_response_size).await?;
        if let Ok(error @ JsonRpcMessage::Error(_)) =
            serde_json::from_slice::<ServerJsonRpcMessage>(&body)
        {
            return Ok(StreamableHttpPostResponse::Json(error, session_id));
        }
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            return Err(HttpStatusError::new(status.as_u16(), retry_after).into());
        }
        let shown =
            String::from_utf8_lossy(&body[..body.len().min(limits.max_error_response_size)])
                .into_owned();
        return Err(unexpected(format!("HTTP {status}: {shown}")));
    }
    match content_type.as_deref() {
        Some(kind) if kind.starts_with("text/event-stream") => {
            let bytes = bounded_events(response.bytes_stream(), limits.max_sse_event_size);
            Ok(StreamableHttpPostResponse::Sse(
                SseStream::from_bytes_stream(bytes).boxed(),
                session_id,
            ))
        }
        Some(kind) if kind.starts_with("application/json") => {
            let body = read_bounded(response, limits.max_json_response_size).await?;
            match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(parsed) => Ok(StreamableHttpPostResponse::Json(parsed, session_id)),
                Err(_) if awaits_no_response => Ok(StreamableHttpPostResponse::Accepted),
                Err(error) => Err(unexpected(format!(
                    "the response is not a JSON-RPC message: {error}"
                ))),
            }
        }
        _ if awaits_no_response => Ok(StreamableHttpPostResponse::Accepted),
        _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
    }
}

fn unexpected(text: String) -> StreamableHttpError<reqwest::Error> {
    StreamableHttpError::UnexpectedServerResponse(Cow::Owned(text))
}

/// The whole body, refused past `limit` bytes.
async fn read_bounded(mut response: reqwest::Response, limit: usize) -> HttpResult<Vec<u8>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
        if body.len() > limit {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
        }
    }
    Ok(body)
}

/// The event stream's bytes, failing once an event grows past `limit` bytes without ending.
fn bounded_events(
    bytes: impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
    limit: usize,
) -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static {
    let mut open = 0usize;
    bytes.map_err(std::io::Error::other).and_then(move |chunk| {
        // Bytes since the last blank line (either line ending) are the event still open.
        let text = &chunk[..];
        let end = text
            .windows(2)
            .rposition(|pair| pair == b"\n\n")
            .or_else(|| text.windows(4).rposition(|four| four == b"\r\n\r\n"));
        open = match end {
            Some(at) => text.len() - at,
            None => open + text.len(),
        };
        let result = if open > limit {
            Err(std::io::Error::other(format!(
                "an SSE event is larger than {limit} bytes"
            )))
        } else {
            Ok(chunk)
        };
        futures::future::ready(result)
    })
}
