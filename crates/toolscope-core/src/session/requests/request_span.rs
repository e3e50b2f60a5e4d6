//! A request Toolscope sends as a span (`crate::telemetry`): started under the session's span
//! with what the request is about, its `traceparent` (and `tracestate`) put in the request's
//! `params._meta` where rmcp sends it, and ended with how the request ended.

use rmcp::model::{ClientRequest, GetMeta as _};

use crate::{
    session::{error::SessionError, requests::raw_response::RawResponse},
    telemetry::{Answer, McpRequest, Parent, RequestSpan, SessionSpan, Target, trace_context},
};

/// What `request` is about: the tool, the prompt or the resource it names.
fn target(request: &ClientRequest) -> Target<'_> {
    match request {
        ClientRequest::CallToolRequest(call) => Target::Tool(&call.params.name),
        ClientRequest::GetPromptRequest(prompt) => Target::Prompt(&prompt.params.name),
        ClientRequest::ReadResourceRequest(read) => Target::Resource(&read.params.uri),
        ClientRequest::SubscribeRequest(subscribe) => Target::Resource(&subscribe.params.uri),
        ClientRequest::UnsubscribeRequest(unsubscribe) => Target::Resource(&unsubscribe.params.uri),
        _ => Target::Nothing,
    }
}

/// Starts the span of `request` and writes its trace context into the request's `_meta`.
pub(in crate::session) fn start(
    session: Option<&SessionSpan>,
    request: &mut ClientRequest,
    protocol_version: &str,
    mcp_session_id: impl FnOnce() -> Option<std::sync::Arc<str>>,
) -> Option<RequestSpan> {
    let session = session?;
    let described = McpRequest {
        method: request.method(),
        target: target(request),
        protocol_version: Some(protocol_version),
        transport: session.transport(),
    };
    let mut span = RequestSpan::start(Parent::Session(session), &described, None)?;
    if let Some(id) = mcp_session_id() {
        span.set_session_id(&id);
    }
    let meta = request.get_meta_mut();
    meta.set_traceparent(trace_context::traceparent(span.span_context()));
    if let Some(state) = trace_context::tracestate(span.span_context()) {
        meta.set_tracestate(state);
    }
    Some(span)
}

/// Ends a request's span with how the request ended.
pub(in crate::session) fn end(span: RequestSpan, ended: &Result<RawResponse, SessionError>) {
    let error;
    let answer = match ended {
        Ok(response) => match response.rpc_error() {
            Some((code, message)) => {
                error = message;
                Answer::RpcError {
                    code,
                    message: &error,
                }
            }
            None => Answer::Result {
                tool_error: response
                    .member()
                    .get("isError")
                    .and_then(|flag| flag.as_bool())
                    == Some(true),
            },
        },
        Err(failure) => {
            error = failure.to_string();
            Answer::Failed {
                kind: failure_kind(failure),
                message: &error,
            }
        }
    };
    span.end(answer, None);
}

/// `error.type` for a request that got no answer: a word per kind of failure.
fn failure_kind(error: &SessionError) -> &'static str {
    match error {
        SessionError::Timeout { .. } => "timeout",
        SessionError::Cancelled { .. } => "cancelled",
        SessionError::ConnectionClosed { .. } => "connection_closed",
        SessionError::Unauthorized { .. }
        | SessionError::AuthRejected { .. }
        | SessionError::SignIn(_) => "unauthorized",
        SessionError::Unreachable { .. } => "unreachable",
        SessionError::Protocol { .. } => "protocol_error",
        _ => "_OTHER",
    }
}
