//! Which lifecycle to start a server with. rmcp's `Auto` mode waits 10 s for an ignored
//! `server/discover` and fails on an answer that is not a discover result; we send the probe
//! ourselves, with its own short timeout, and then start rmcp in the era that will work. This
//! file sends it over stdio; `http_discover_probe` over Streamable HTTP.

use std::time::Duration;

use rmcp::{
    model::{
        ClientCapabilities, ClientJsonRpcMessage, ClientRequest, DiscoverRequest,
        DiscoverRequestParams, Implementation, ProtocolVersion, RequestId, RequestMetaObject,
    },
    service::ClientLifecycleMode,
};
use serde_json::Value;
use tokio::io::{AsyncWriteExt, DuplexStream};

use crate::session::requests::raw_responses::{Claim, RawResponses};
use crate::{analysis::ProtocolEra, deep_json::drop_value};

/// Our id of the probe: a string, so it never collides with rmcp's numeric ids.
pub const PROBE_ID: &str = "toolscope-discover-probe";

/// The lifecycle to use and why, for the summary.
pub struct Choice {
    pub lifecycle: ClientLifecycleMode,
    pub reason: Option<String>,
    /// The probe went unanswered in time but its claim is kept: a slow-starting server may
    /// still answer it, and then refuses `initialize` (see [`answered_late`]).
    pub still_waiting: bool,
}

pub fn modern_versions() -> Vec<ProtocolVersion> {
    vec![ProtocolVersion::V_2026_07_28]
}

pub fn auto() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: modern_versions(),
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// The lifecycle for a server whose era is known from an earlier connection.
pub fn for_known_era(era: ProtocolEra) -> Choice {
    match era {
        ProtocolEra::Legacy => Choice {
            lifecycle: ClientLifecycleMode::Initialize,
            reason: Some("known legacy server: server/discover skipped".to_owned()),
            still_waiting: false,
        },
        ProtocolEra::Modern => Choice {
            lifecycle: auto(),
            reason: None,
            still_waiting: false,
        },
    }
}

/// `server/discover` alone, for a server that answered it moments ago: no fallback.
pub fn discover_only() -> Choice {
    Choice {
        lifecycle: ClientLifecycleMode::Discover {
            preferred_versions: modern_versions(),
        },
        reason: None,
        still_waiting: false,
    }
}

/// Sends `server/discover` on `to_server` (before rmcp owns it) and waits up to `limit` for
/// the answer, which the tee keeps away from rmcp. `gone` resolves when the server exits.
pub async fn probe(
    to_server: &mut DuplexStream,
    raw: &RawResponses,
    client: &Implementation,
    capabilities: &ClientCapabilities,
    limit: Duration,
    gone: impl Future<Output = ()>,
) -> Choice {
    raw.claim(PROBE_ID.to_owned(), Claim::Own);
    let message = discover_message(client, capabilities);
    let mut line = serde_json::to_string(&message).unwrap_or_default();
    line.push('\n');
    if to_server.write_all(line.as_bytes()).await.is_err() {
        raw.release(PROBE_ID);
        return legacy("the server's stdin closed before server/discover");
    }
    let answered = tokio::select! {
        answered = tokio::time::timeout(limit, raw.arrival(PROBE_ID)) => answered.is_ok(),
        () = gone => false,
    };
    if !answered {
        // The claim stays: a late answer must not reach rmcp, which would take it for the
        // answer to its `initialize`.
        let mut choice = legacy(&format!(
            "server/discover got no answer within {:.1} s",
            limit.as_secs_f64()
        ));
        choice.still_waiting = true;
        return choice;
    }
    let answer = raw
        .take(PROBE_ID)
        .map(|doc| doc.root().to_value())
        .unwrap_or_default();
    let choice = classify(&answer);
    drop_value(answer);
    choice
}

/// Whether the probe was answered after it gave up, with a discover result: the server is a
/// modern one that was slow to start, and the fallback `initialize` was (or will be) refused.
pub fn answered_late(raw: &RawResponses) -> bool {
    let Some(doc) = raw.take(PROBE_ID) else {
        return false;
    };
    let answer = doc.root().to_value();
    let modern = matches!(
        classify(&answer).lifecycle,
        ClientLifecycleMode::Discover { .. }
    );
    drop_value(answer);
    modern
}

/// The `server/discover` request of the probe, with the client context 2026-07-28 asks for.
pub fn discover_message(
    client: &Implementation,
    capabilities: &ClientCapabilities,
) -> ClientJsonRpcMessage {
    let meta = RequestMetaObject::with_client_context(
        ProtocolVersion::V_2026_07_28,
        client.clone(),
        capabilities.clone(),
    );
    let mut discover = DiscoverRequest::new(DiscoverRequestParams {});
    discover.extensions.insert(meta);
    ClientJsonRpcMessage::request(
        ClientRequest::DiscoverRequest(discover),
        RequestId::String(PROBE_ID.into()),
    )
}

/// A discover result, or a JSON-RPC error (rmcp's `Auto` tells a legacy server from a version
/// mismatch), goes on with `server/discover`; anything else with `initialize`.
pub fn classify(answer: &Value) -> Choice {
    if answer.get("error").is_some() {
        return Choice {
            lifecycle: auto(),
            reason: None,
            still_waiting: false,
        };
    }
    let is_discover_result = answer
        .get("result")
        .and_then(|result| result.get("supportedVersions"))
        .is_some_and(Value::is_array);
    if is_discover_result {
        Choice {
            lifecycle: ClientLifecycleMode::Discover {
                preferred_versions: modern_versions(),
            },
            reason: None,
            still_waiting: false,
        }
    } else {
        legacy("server/discover was answered with something that is not a discover result")
    }
}

pub fn legacy(reason: &str) -> Choice {
    Choice {
        lifecycle: ClientLifecycleMode::Initialize,
        reason: Some(format!("{reason}: fell back to initialize")),
        still_waiting: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_classified() {
        let modern = classify(&json!({"result": {"supportedVersions": ["2026-07-28"]}}));
        assert!(matches!(
            modern.lifecycle,
            ClientLifecycleMode::Discover { .. }
        ));
        let empty = classify(&json!({"result": {}}));
        assert_eq!(empty.lifecycle, ClientLifecycleMode::Initialize);
        assert!(empty.reason.unwrap().contains("not a discover result"));
        let error = classify(&json!({"error": {"code": -32601, "message": "no"}}));
        assert!(matches!(error.lifecycle, ClientLifecycleMode::Auto { .. }));
    }
}
