//! An HTTP client for rmcp's Streamable HTTP transport that keeps what the server sent: every
//! SSE event's data is logged and kept exactly, before rmcp parses it. (A plain JSON response
//! body arrives already parsed by rmcp; it is logged re-serialized and marked so.)

use std::{collections::HashMap, sync::Arc};

use futures::{StreamExt as _, stream::BoxStream};
use http::{HeaderName, HeaderValue};
use rmcp::{
    model::ClientJsonRpcMessage,
    transport::streamable_http_client::{
        SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
        StreamableHttpResponseLimits,
    },
};
use sse_stream::Sse;

use crate::json_doc::JsonDoc;

use crate::session::{
    requests::raw_responses::RawResponses,
    transports::http_dpop::{self, DpopPost, DpopPresenter},
    transports::http_resume::{self, Resume},
    transports::tap::{Direction, Fidelity, ProtocolTap, message_label},
};

type SseStream = BoxStream<'static, Result<Sse, SseError>>;
type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

/// reqwest underneath, with a tap on everything that comes back.
#[derive(Clone)]
pub struct CapturingClient {
    pub inner: reqwest::Client,
    pub tap: ProtocolTap,
    pub raw: RawResponses,
    /// Presents DPoP-bound tokens, when the session's tokens are bound with DPoP.
    pub dpop: Option<Arc<DpopPresenter>>,
}

impl CapturingClient {
    /// The presenter, when `auth_header` is a DPoP-bound token.
    async fn bound(&self, auth_header: Option<&String>) -> Option<&Arc<DpopPresenter>> {
        let (presenter, token) = (self.dpop.as_ref()?, auth_header?);
        presenter.binds(token).await.then_some(presenter)
    }

    /// A bound token goes in the headers with a proof (rmcp would send it as a bearer token).
    async fn with_proof(
        &self,
        method: &str,
        uri: &str,
        auth_header: Option<String>,
        mut custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<(Option<String>, HashMap<HeaderName, HeaderValue>)> {
        match (self.bound(auth_header.as_ref()).await, &auth_header) {
            (Some(presenter), Some(token)) => {
                presenter.present(method, uri, token, &mut custom_headers)?;
                Ok((None, custom_headers))
            }
            _ => Ok((auth_header, custom_headers)),
        }
    }

    fn capture_response(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Json(message, session) => {
                if let Ok(text) = serde_json::to_string(&message)
                    && let Ok(doc) = JsonDoc::parse(text)
                {
                    self.tap.record_message(
                        Direction::FromServer,
                        Fidelity::Reserialized,
                        doc.text(),
                        Some(doc.root()),
                    );
                    self.raw.offer_message(Arc::new(doc));
                }
                StreamableHttpPostResponse::Json(message, session)
            }
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.capture_stream(stream), session)
            }
            other => other,
        }
    }

    fn capture_stream(&self, stream: SseStream) -> SseStream {
        let tap = self.tap.clone();
        let raw = self.raw.clone();
        stream
            .inspect(move |event| {
                if let Ok(Sse {
                    data: Some(data), ..
                }) = event
                {
                    capture_event_data(&tap, &raw, data);
                }
            })
            .boxed()
    }
}

/// Logs one SSE event's data exactly and keeps it raw when it is a response. The data may nest
/// thousands of levels deep (rmcp then cannot parse it, and this copy is all there is), so it is
/// parsed, and dropped, without recursion.
fn capture_event_data(tap: &ProtocolTap, raw: &RawResponses, data: &str) {
    // Priming events carry an empty data line: nothing to log.
    if data.trim().is_empty() {
        return;
    }
    match JsonDoc::parse(data.to_owned()) {
        Ok(message) => {
            let label = message_label(message.root());
            let (_, note) = raw.offer_message(Arc::new(message));
            tap.record_labelled(
                Direction::FromServer,
                Fidelity::Exact,
                data,
                label,
                true,
                note,
            );
        }
        Err(_) => tap.record_message(Direction::FromServer, Fidelity::Exact, data, None),
    }
}

impl StreamableHttpClient for CapturingClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.tap.note_session_id(session_id.as_ref());
        let bound = self.bound(auth_header.as_ref()).await.cloned();
        let resume = http_resume::is_handshake(&message).then(|| Resume {
            client: self.inner.clone(),
            uri: uri.clone(),
            session_id: session_id.clone(),
            auth_header: auth_header.clone(),
            custom_headers: custom_headers.clone(),
            max_sse_event_size: limits.max_sse_event_size,
            dpop: bound.clone(),
        });
        let response = match (&bound, &auth_header) {
            (Some(presenter), Some(token)) => {
                http_dpop::post(
                    DpopPost {
                        client: &self.inner,
                        presenter,
                        tap: &self.tap,
                        uri,
                        session_id,
                        token,
                        custom_headers,
                        limits,
                    },
                    &message,
                )
                .await?
            }
            _ => {
                self.inner
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await?
            }
        };
        let response = match (response, resume) {
            (StreamableHttpPostResponse::Sse(stream, session), Some(mut resume)) => {
                // A legacy server names the session in the handshake's answer.
                if let Some(session) = &session {
                    resume.session_id = Some(Arc::from(session.as_str()));
                }
                StreamableHttpPostResponse::Sse(http_resume::resuming(stream, resume), session)
            }
            (other, _) => other,
        };
        Ok(self.capture_response(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        let (auth_header, custom_headers) = self
            .with_proof("DELETE", &uri, auth_header, custom_headers)
            .await?;
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<SseStream> {
        let (auth_header, custom_headers) = self
            .with_proof("GET", &uri, auth_header, custom_headers)
            .await?;
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        Ok(self.capture_stream(stream))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<SseStream> {
        let (auth_header, custom_headers) = self
            .with_proof("GET", &uri, auth_header, custom_headers)
            .await?;
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.capture_stream(stream))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::transports::tap::TapLimits;

    #[test]
    fn a_response_nested_ten_thousand_deep_is_captured_raw_on_a_worker_sized_stack() {
        let depth = 10_000;
        let data = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"structuredContent":{}1{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let tap = ProtocolTap::new(TapLimits::default(), None);
        let raw = RawResponses::default();
        // A tokio worker's stack is 2 MiB; the capture must fit well inside it.
        let capture = {
            let (tap, raw, data) = (tap.clone(), raw.clone(), data.clone());
            std::thread::Builder::new()
                .stack_size(1024 * 1024)
                .spawn(move || capture_event_data(&tap, &raw, &data))
                .unwrap()
        };
        capture.join().unwrap();
        let entries = tap.messages();
        let entry = entries.last().unwrap();
        assert_eq!(&*entry.text, data.as_str());
        assert!(entry.is_json);
        let kept = raw.take("7").unwrap();
        assert_eq!(
            kept.root()
                .pointer("/result/structuredContent")
                .unwrap()
                .depth(),
            depth
        );
    }
}
