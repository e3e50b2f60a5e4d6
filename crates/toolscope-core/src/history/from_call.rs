//! One mapping from a call (answered or not) to what the history keeps, for the window and the
//! command line alike.

use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use serde_json::Value;

use super::{NewCall, ResponseText, Verdict};
use crate::{
    analysis::CallAnalysis,
    session::{CallOutcome, ServerSummary, tasks::input_rounds::CallRounds},
};

/// RFC 3339 in UTC with milliseconds, for a call that started `ago`.
pub fn started_ago(ago: Duration) -> String {
    let started = Utc::now() - chrono::Duration::from_std(ago).unwrap_or_default();
    started.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn json_text(value: &Value) -> String {
    crate::deep_json::to_string(value)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Who was called and how it introduced itself.
#[derive(Debug, Clone, Copy)]
pub struct CalledServer<'a> {
    /// The saved server's name, or the command line or URL it was reached by.
    pub label: &'a str,
    /// `None` when the connection ended before the call did.
    pub summary: Option<&'a ServerSummary>,
}

impl CalledServer<'_> {
    /// A row of `kind` about `name` sent with `arguments`, its answer left to fill in.
    pub fn row(&self, kind: super::CallKind, name: &str, arguments: &Value) -> NewCall {
        NewCall {
            kind,
            ..self.fill(name, arguments, Verdict::Ok)
        }
    }

    fn fill(&self, tool: &str, arguments: &Value, verdict: Verdict) -> NewCall {
        NewCall {
            client: None,
            kind: super::CallKind::Call,
            started_at: String::new(),
            duration_ms: None,
            server: self.label.to_owned(),
            server_version: self.summary.and_then(|summary| summary.version.clone()),
            protocol_version: self.summary.map(|summary| summary.protocol_version.clone()),
            server_info: self
                .summary
                .and_then(|summary| serde_json::to_string(summary).ok()),
            tool: tool.to_owned(),
            arguments: json_text(arguments),
            request_id: None,
            response: None,
            duplicate_responses: 0,
            output_schema: None,
            listed: true,
            verdict,
            failure: None,
            rounds: None,
        }
    }
}

impl NewCall {
    /// A call that was answered (a result or a JSON-RPC error), with its analysis.
    pub(crate) fn answered(
        server: CalledServer<'_>,
        outcome: &CallOutcome,
        output_schema: Option<&Value>,
        listed: bool,
        analysis: &CallAnalysis,
    ) -> Self {
        let verdict = Verdict::of_analysis(outcome.response.is_rpc_error(), analysis);
        NewCall {
            started_at: started_ago(outcome.duration),
            duration_ms: Some(millis(outcome.duration)),
            request_id: Some(outcome.request_id.clone()),
            response: Some(ResponseText::Shared(outcome.response.message().clone())),
            duplicate_responses: outcome.duplicate_responses as u64,
            output_schema: output_schema.map(json_text),
            listed,
            rounds: rounds_text(&outcome.rounds),
            ..server.fill(&outcome.tool, &outcome.arguments, verdict)
        }
    }

    /// A call that got no answer (cancelled, timed out, the connection failed), with its
    /// verdict and the reason in words.
    #[allow(clippy::too_many_arguments, reason = "each is one column of the call")]
    pub(crate) fn unanswered(
        server: CalledServer<'_>,
        tool: &str,
        arguments: &Value,
        output_schema: Option<&Value>,
        listed: bool,
        waited: Duration,
        verdict: Verdict,
        failure: &str,
    ) -> Self {
        NewCall {
            started_at: started_ago(waited),
            duration_ms: Some(millis(waited)),
            output_schema: output_schema.map(json_text),
            listed,
            failure: Some(failure.to_owned()),
            ..server.fill(tool, arguments, verdict)
        }
    }
}

/// A call's rounds as the history keeps them; `None` when it asked nothing.
fn rounds_text(rounds: &CallRounds) -> Option<String> {
    if rounds.is_empty() {
        return None;
    }
    let mut text = Vec::new();
    crate::deep_json::serialize_to_writer(rounds, &mut text, false).ok()?;
    String::from_utf8(text).ok()
}
