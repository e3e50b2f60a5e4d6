//! Resumes the SSE stream of a handshake request that ends before its response. A server may
//! close any SSE stream gracefully; the client then resumes it with a GET carrying
//! `Last-Event-ID` (transport spec, SEP-1699). rmcp does that for every request stream after the
//! handshake, but reads the stream of `initialize` / `server/discover` to its end and fails, so
//! those are resumed here.

use std::{collections::HashMap, sync::Arc, time::Duration};

use futures::{StreamExt as _, stream::BoxStream};
use http::{HeaderName, HeaderValue};
use rmcp::{
    model::{ClientJsonRpcMessage, ClientRequest},
    transport::streamable_http_client::{SseError, StreamableHttpClient as _},
};
use sse_stream::Sse;

use crate::deep_json;

type SseStream = BoxStream<'static, Result<Sse, SseError>>;

/// Resumptions of one stream before giving up.
const MAX_RESUMES: usize = 5;
/// The wait before resuming when the server sent no `retry:`.
const DEFAULT_WAIT: Duration = Duration::from_millis(500);

/// What the GET that resumes a stream needs: the POST's target and headers.
pub struct Resume {
    pub client: reqwest::Client,
    pub uri: Arc<str>,
    pub session_id: Option<Arc<str>>,
    pub auth_header: Option<String>,
    pub custom_headers: HashMap<HeaderName, HeaderValue>,
    pub max_sse_event_size: usize,
    /// Presents the token with a fresh DPoP proof, when it is bound.
    pub dpop: Option<Arc<super::http_dpop::DpopPresenter>>,
}

/// Whether rmcp reads this request's response stream without resuming it.
pub fn is_handshake(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(request)
            if matches!(
                request.request,
                ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)
            )
    )
}

struct State {
    stream: SseStream,
    resume: Resume,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    answered: bool,
    resumes: usize,
}

/// `stream`, continued on a GET with `Last-Event-ID` whenever it ends after an event id and
/// before a response.
pub fn resuming(stream: SseStream, resume: Resume) -> SseStream {
    let state = State {
        stream,
        resume,
        last_event_id: None,
        retry: None,
        answered: false,
        resumes: 0,
    };
    futures::stream::unfold(Some(state), |state| async move {
        let mut state = state?;
        loop {
            match state.stream.next().await {
                Some(Ok(event)) => {
                    if let Some(id) = &event.id {
                        state.last_event_id = Some(id.clone());
                    }
                    if let Some(millis) = event.retry {
                        state.retry = Some(Duration::from_millis(millis));
                    }
                    if event.data.as_deref().is_some_and(is_response) {
                        state.answered = true;
                    }
                    return Some((Ok(event), Some(state)));
                }
                Some(Err(error)) => return Some((Err(error), None)),
                None => {
                    let last_event_id = state.last_event_id.clone()?;
                    if state.answered || state.resumes >= MAX_RESUMES {
                        return None;
                    }
                    state.resumes += 1;
                    tokio::time::sleep(state.retry.unwrap_or(DEFAULT_WAIT)).await;
                    let resume = &state.resume;
                    let (mut auth_header, mut custom_headers) =
                        (resume.auth_header.clone(), resume.custom_headers.clone());
                    if let (Some(presenter), Some(token)) = (&resume.dpop, auth_header.take()) {
                        if let Err(error) =
                            presenter.present("GET", &resume.uri, &token, &mut custom_headers)
                        {
                            return Some((Err(SseError::Body(Box::new(error))), None));
                        }
                    } else {
                        auth_header.clone_from(&resume.auth_header);
                    }
                    let reopened = resume
                        .client
                        .get_stream_with_max_sse_event_size(
                            resume.uri.clone(),
                            resume.session_id.clone(),
                            Some(last_event_id),
                            auth_header,
                            custom_headers,
                            resume.max_sse_event_size,
                        )
                        .await;
                    match reopened {
                        Ok(stream) => state.stream = stream,
                        Err(error) => return Some((Err(SseError::Body(Box::new(error))), None)),
                    }
                }
            }
        }
    })
    .boxed()
}

/// A JSON-RPC response or error response (an id and no method).
fn is_response(data: &str) -> bool {
    let Ok(message) = deep_json::parse(data) else {
        return false;
    };
    let answer = message.get("id").is_some() && message.get("method").is_none();
    deep_json::drop_value(message);
    answer
}
