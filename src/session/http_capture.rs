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
use serde_json::Value;
use sse_stream::Sse;

use super::{
    raw_responses::RawResponses,
    tap::{Direction, Fidelity, ProtocolTap},
};

type SseStream = BoxStream<'static, Result<Sse, SseError>>;
type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

/// reqwest underneath, with a tap on everything that comes back.
#[derive(Clone)]
pub struct CapturingClient {
    pub inner: reqwest::Client,
    pub tap: ProtocolTap,
    pub raw: RawResponses,
}

impl CapturingClient {
    fn capture_response(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Json(message, session) => {
                if let Ok(value) = serde_json::to_value(&message) {
                    let text = value.to_string();
                    self.tap.record_message(
                        Direction::FromServer,
                        Fidelity::Reserialized,
                        &text,
                        Some(&value),
                    );
                    self.raw.offer(&value);
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
                let Ok(Sse {
                    data: Some(data), ..
                }) = event
                else {
                    return;
                };
                // Priming events carry an empty data line: nothing to log.
                if data.trim().is_empty() {
                    return;
                }
                let parsed: Option<Value> = serde_json::from_str(data).ok();
                tap.record_message(
                    Direction::FromServer,
                    Fidelity::Exact,
                    data,
                    parsed.as_ref(),
                );
                if let Some(message) = &parsed {
                    raw.offer(message);
                }
            })
            .boxed()
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
        let response = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await?;
        Ok(self.capture_response(response))
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
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await?;
        Ok(self.capture_response(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
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
