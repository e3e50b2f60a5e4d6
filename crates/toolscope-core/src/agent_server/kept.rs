//! The history for an agent: each call it makes kept (with its client name), and calls and
//! proxied sessions searched and shown again, analysed as the window analyses them. The
//! database is opened off the async workers.

use serde_json::Value;

use super::{
    AgentSettings, bounded_json, call_out,
    outputs::{CallOut, FeatureOut, HistoryLine, HistoryOut, SessionLine},
    server_work::AgentToolError,
};
use crate::{
    history::{
        CallKind, CallQuery, NewCall, ProxySession, StoredAnswer, StoredCall, Verdict,
        open_or_local, open_store,
    },
    session::RawResponse,
};

/// The most calls or sessions one `history` request lists.
const MAX_LISTED: usize = 200;

/// Where a row went: its id, or why it was not kept.
#[derive(Debug, Default)]
pub struct Kept {
    pub id: Option<i64>,
    pub problem: Option<String>,
}

/// Keeps `row` (unless recording is off); a history that fails is a note, never a failed call.
pub async fn record(settings: &AgentSettings, row: NewCall) -> Kept {
    if !settings.record {
        return Kept::default();
    }
    let (location, by) = (settings.history.clone(), settings.recorded_by.clone());
    let recorded = tokio::task::spawn_blocking(move || {
        let mut opened = open_or_local(&location, &by).map_err(|error| error.to_string())?;
        opened.store.record(&row).map_err(|error| error.to_string())
    })
    .await;
    match recorded {
        Ok(Ok(id)) => Kept {
            id: Some(id),
            problem: None,
        },
        Ok(Err(problem)) => Kept {
            id: None,
            problem: Some(format!("the call was not kept in the history: {problem}")),
        },
        Err(error) => Kept {
            id: None,
            problem: Some(format!("the call was not kept in the history: {error}")),
        },
    }
}

/// What an agent asks of the history.
#[derive(Debug, Clone, Default)]
pub struct HistoryAsk {
    pub text: Option<String>,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub verdict: Option<String>,
    pub kind: Option<String>,
    pub session: Option<i64>,
    pub limit: Option<usize>,
    /// One call shown whole, analysed again.
    pub show: Option<i64>,
    /// List the proxied sessions too.
    pub sessions: bool,
}

/// `history`: calls found, sessions listed, a call shown.
pub async fn history(
    settings: &AgentSettings,
    ask: HistoryAsk,
) -> Result<HistoryOut, AgentToolError> {
    let query = query(&ask)?;
    let (location, by) = (settings.history.clone(), settings.recorded_by.clone());
    tokio::task::spawn_blocking(move || {
        let store = open_store(&location, &by)?;
        let mut out = HistoryOut {
            history: store.location().to_string(),
            calls: Vec::new(),
            sessions: Vec::new(),
            call: None,
            feature: None,
        };
        if let Some(id) = ask.show {
            let call = store.get(id)?.ok_or_else(|| {
                AgentToolError::Input(format!(
                    "there is no call #{id} in the history; `history` without `show` lists them"
                ))
            })?;
            match call.kind {
                CallKind::Call => out.call = Some(shown_call(call)),
                _ => out.feature = Some(shown_feature(&call)),
            }
        } else {
            out.calls = store.list(&query)?.iter().map(history_line).collect();
        }
        if ask.sessions {
            let limit = ask.limit.unwrap_or(20).min(MAX_LISTED);
            out.sessions = store
                .proxy_sessions(limit)?
                .iter()
                .map(session_line)
                .collect();
        }
        Ok(out)
    })
    .await
    .map_err(|error| AgentToolError::Input(format!("reading the history failed: {error}")))?
}

fn query(ask: &HistoryAsk) -> Result<CallQuery, AgentToolError> {
    let verdict = match ask.verdict.as_deref() {
        None => None,
        Some(word) => Some(Verdict::parse(word).ok_or_else(|| {
            let words: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
            AgentToolError::Input(format!(
                "verdict {word:?} is not one; use one of {}",
                words.join(", ")
            ))
        })?),
    };
    let kind = match ask.kind.as_deref() {
        None => None,
        Some(word) => Some(CallKind::parse(word).ok_or_else(|| {
            AgentToolError::Input(format!(
                "kind {word:?} is not one; use call, read or prompt"
            ))
        })?),
    };
    Ok(CallQuery {
        kind,
        server: ask.server.clone(),
        tool: ask.tool.clone(),
        verdict,
        text: ask.text.clone(),
        limit: Some(ask.limit.unwrap_or(20).clamp(1, MAX_LISTED)),
        session: ask.session,
        ..CallQuery::default()
    })
}

fn history_line(call: &StoredCall) -> HistoryLine {
    HistoryLine {
        id: call.id,
        kind: call.kind.as_str().to_owned(),
        started_at: call.started_at.clone(),
        server: call.server.clone(),
        tool: call.tool.clone(),
        verdict: call.verdict.as_str().to_owned(),
        duration_ms: call.duration_ms,
        client: call.client.clone(),
        session: call.session,
        note: call.note.clone(),
    }
}

fn session_line(session: &ProxySession) -> SessionLine {
    SessionLine {
        id: session.id,
        started_at: session.started_at.clone(),
        ended_at: session.ended_at.clone(),
        server: session.server.clone(),
        client: session.client.clone(),
        protocol_version: session.protocol_version.clone(),
        calls: session.calls,
        ending: session.ending.clone(),
    }
}

/// A kept tool call, analysed again against the output schema it had.
fn shown_call(mut call: StoredCall) -> CallOut {
    let arguments = crate::deep_json::parse(&call.arguments).unwrap_or(Value::Null);
    let protocol_version = call.protocol_version.clone().unwrap_or_default();
    let notes = if call.note.is_empty() {
        Vec::new()
    } else {
        vec![format!("note: {}", call.note)]
    };
    let answer = call.take_answer();
    let facts = call_out::CallFacts {
        server: &call.server,
        tool: &call.tool,
        listed: call.listed,
        arguments: &arguments,
        duration: call.duration_ms.map(std::time::Duration::from_millis),
        history_id: Some(call.id),
        notes,
    };
    let out = match answer {
        StoredAnswer::Answered {
            outcome,
            output_schema,
        } => {
            let analysis = outcome.analyze(output_schema.as_ref(), &protocol_version);
            let verdict = Verdict::of_analysis(outcome.response.is_rpc_error(), &analysis);
            call_out::answered(facts, &outcome.response, &analysis, verdict)
        }
        StoredAnswer::NoAnswer { failure } => call_out::unanswered(facts, failure),
        StoredAnswer::Damaged { error } => call_out::unanswered(facts, error),
    };
    crate::deep_json::drop_value(arguments);
    out
}

/// A kept read or prompt: its result as received.
fn shown_feature(call: &StoredCall) -> FeatureOut {
    let mut withheld = Vec::new();
    let response = call
        .response
        .as_deref()
        .and_then(|text| crate::json_doc::JsonDoc::parse(text.to_owned()).ok())
        .map(|message| RawResponse::from_message(std::sync::Arc::new(message)));
    let (result, problem) = match &response {
        Some(response) => match response.rpc_error() {
            Some((code, message)) => (
                None,
                Some(format!(
                    "the server answered with JSON-RPC error {code}: {message}"
                )),
            ),
            None => (
                bounded_json::member(Some(response.member()), "the result", &mut withheld),
                None,
            ),
        },
        None => (
            None,
            Some(
                call.failure
                    .clone()
                    .unwrap_or_else(|| "no answer was kept".to_owned()),
            ),
        ),
    };
    FeatureOut {
        server: call.server.clone(),
        asked: format!("{} {}", call.kind.method(), call.tool),
        duration_ms: call.duration_ms.unwrap_or(0),
        history_id: Some(call.id),
        result,
        problem,
        withheld,
        notes: Vec::new(),
    }
}

/// The short text for the model beside `history`'s result.
pub fn summary(out: &HistoryOut) -> String {
    if let Some(call) = &out.call {
        return call_out::summary(call);
    }
    if let Some(feature) = &out.feature {
        return format!(
            "#{} {} on {}: {}",
            feature.history_id.unwrap_or_default(),
            feature.asked,
            feature.server,
            feature.problem.as_deref().unwrap_or("answered")
        );
    }
    let mut text = format!("{} call(s) found in {}", out.calls.len(), out.history);
    for call in out.calls.iter().take(10) {
        let from = call
            .client
            .as_deref()
            .map(|client| format!(" (from {client})"))
            .unwrap_or_default();
        text.push_str(&format!(
            "\n#{} {} {} on {}: {}{from}",
            call.id, call.kind, call.tool, call.server, call.verdict
        ));
    }
    if !out.sessions.is_empty() {
        text.push_str(&format!("\n{} proxied session(s)", out.sessions.len()));
    }
    text
}
