//! The `server/discover` probe over Streamable HTTP, sent with the session's own client (same
//! redirect policy, same configured headers) before rmcp starts. A server that never answers
//! costs the discover timeout, not rmcp's 10 s; an answer that is not a discover result leads
//! to `initialize` instead of a failed connection.

use std::{collections::HashMap, time::Duration};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use rmcp::model::{ClientCapabilities, Implementation};
use serde_json::Value;

use crate::session::{
    transports::discover_probe::{self, Choice, PROBE_ID},
    transports::tap::{Direction, Fidelity, ProtocolTap, id_text},
};
use crate::{deep_json, json_doc::JsonDoc};

/// A discover result is small; a bigger answer is not one.
const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// What came back for the probe.
enum Answer {
    /// The JSON-RPC response to the probe.
    Message(Value),
    /// An HTTP status without a JSON-RPC response in its body.
    Status(reqwest::StatusCode),
    /// A 2xx answer without a response to the probe, and why.
    Unusable(String),
    /// The request could not be made (refused, TLS, a refused redirect): rmcp reports it.
    Unsent,
}

/// The probe's headers: JSON in, JSON or an event stream out, the version and method it asks
/// with, then the user's own (theirs win, once each).
pub(crate) fn probe_headers(
    headers: &HashMap<http::HeaderName, http::HeaderValue>,
) -> http::HeaderMap {
    let mut all = http::HeaderMap::new();
    all.insert(
        CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    all.insert(
        ACCEPT,
        http::HeaderValue::from_static("application/json, text/event-stream"),
    );
    all.insert(
        "mcp-protocol-version",
        http::HeaderValue::from_static("2026-07-28"),
    );
    all.insert(
        "mcp-method",
        http::HeaderValue::from_static("server/discover"),
    );
    for (name, value) in headers {
        all.insert(name.clone(), value.clone());
    }
    all
}

/// Sends the probe and decides the lifecycle; waits at most `limit`.
pub async fn probe(
    client: &reqwest::Client,
    url: &str,
    headers: &HashMap<http::HeaderName, http::HeaderValue>,
    tap: &ProtocolTap,
    info: (&Implementation, &ClientCapabilities),
    limit: Duration,
) -> Choice {
    let message = discover_probe::discover_message(info.0, info.1);
    let body = serde_json::to_string(&message).unwrap_or_default();
    let parsed = JsonDoc::parse(body.clone()).ok();
    tap.record_message(
        Direction::ToServer,
        Fidelity::Exact,
        &body,
        parsed.as_ref().map(JsonDoc::root),
    );
    let request = client.post(url).headers(probe_headers(headers));
    let exchange = async {
        match request.body(body).send().await {
            Ok(response) => read_answer(response, tap).await,
            Err(_) => Answer::Unsent,
        }
    };
    let Ok(answer) = tokio::time::timeout(limit, exchange).await else {
        return discover_probe::legacy(&format!(
            "server/discover got no answer within {:.1} s",
            limit.as_secs_f64()
        ));
    };
    match answer {
        Answer::Message(message) => {
            let choice = discover_probe::classify(&message);
            deep_json::drop_value(message);
            choice
        }
        // Authentication and redirects are rmcp's to report, with the reason.
        Answer::Status(status)
            if status.is_redirection() || matches!(status.as_u16(), 401 | 403 | 407) =>
        {
            leave_it_to_rmcp()
        }
        Answer::Status(status) => {
            discover_probe::legacy(&format!("server/discover was answered with HTTP {status}"))
        }
        Answer::Unusable(reason) => discover_probe::legacy(&reason),
        Answer::Unsent => leave_it_to_rmcp(),
    }
}

fn leave_it_to_rmcp() -> Choice {
    Choice {
        lifecycle: discover_probe::auto(),
        reason: None,
        still_waiting: false,
    }
}

/// Reads the body, JSON or an SSE stream, until the response to the probe; logs what it read.
async fn read_answer(mut response: reqwest::Response, tap: &ProtocolTap) -> Answer {
    let status = response.status();
    let is_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let mut body = Vec::new();
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(_) => return Answer::Unusable("the server/discover answer broke off".to_owned()),
        };
        // Line ends of either kind; a carriage return is only ever whitespace in JSON.
        body.extend(chunk.iter().filter(|&&byte| byte != b'\r'));
        if body.len() > MAX_ANSWER_BYTES {
            return Answer::Unusable(format!(
                "the server/discover answer is larger than {} MiB, so not a discover result",
                MAX_ANSWER_BYTES >> 20
            ));
        }
        if is_stream && let Some(message) = probe_response_in_events(&mut body, tap) {
            if is_probe_response(&message) {
                return Answer::Message(message);
            }
            deep_json::drop_value(message);
            return Answer::Unusable(
                "server/discover was answered with a response to no request (\"id\": null)"
                    .to_owned(),
            );
        }
    }
    if is_stream {
        return Answer::Unusable("the server/discover stream ended without an answer".to_owned());
    }
    let text = String::from_utf8_lossy(&body);
    let message = log_answer(tap, text.trim());
    match message {
        // An answer to the probe itself, a result or an error (a version mismatch says which
        // versions the server speaks): rmcp takes it from there.
        Some(message) if is_probe_response(&message) => Answer::Message(message),
        // Anything else, such as a legacy server's `400` with `"id": null` for a request
        // without a session: the status decides.
        _ if !status.is_success() => Answer::Status(status),
        _ => Answer::Unusable(
            "server/discover was answered with something that is not a discover result".to_owned(),
        ),
    }
}

/// Logs one message of the answer and parses it (at any depth).
fn log_answer(tap: &ProtocolTap, text: &str) -> Option<Value> {
    if text.is_empty() {
        return None;
    }
    let message = JsonDoc::parse(text.to_owned()).ok();
    tap.record_message(
        Direction::FromServer,
        Fidelity::Exact,
        text,
        message.as_ref().map(JsonDoc::root),
    );
    message.map(|doc| doc.root().to_value())
}

fn is_probe_response(message: &Value) -> bool {
    message.get("method").is_none() && message.get("id").map(id_text).as_deref() == Some(PROBE_ID)
}

/// Takes the complete events off the front of `body` and returns the first response among
/// them: the probe's, or one to no request (`"id": null`, an error about the request itself).
/// Other events (notifications, priming events) are logged and skipped.
fn probe_response_in_events(body: &mut Vec<u8>, tap: &ProtocolTap) -> Option<Value> {
    while let Some(end) = body.windows(2).position(|pair| pair == b"\n\n") {
        let event: Vec<u8> = body.drain(..end + 2).collect();
        let event = String::from_utf8_lossy(&event);
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        let data = data.join("\n");
        if data.trim().is_empty() {
            continue;
        }
        if let Some(message) = log_answer(tap, &data) {
            let to_no_request =
                message.get("id").is_some_and(Value::is_null) && message.get("method").is_none();
            if is_probe_response(&message) || to_no_request {
                return Some(message);
            }
            deep_json::drop_value(message);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_response_is_found_among_events() {
        let tap = ProtocolTap::new(Default::default(), None);
        let mut body = b"id: 1\ndata: \n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"toolscope-discover-probe\",".to_vec();
        assert!(probe_response_in_events(&mut body, &tap).is_none());
        body.extend_from_slice(b"\ndata: \"result\":{\"supportedVersions\":[]}}\n\n");
        let message = probe_response_in_events(&mut body, &tap).expect("the response");
        assert!(message["result"]["supportedVersions"].is_array());
        assert!(body.is_empty());
    }
}
