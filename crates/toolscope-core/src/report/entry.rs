//! One call in a report, from a case run or from the history.

use serde_json::Value;

use crate::{
    analysis::CallAnalysis,
    cases::{CaseResult, CaseRun},
    history::{CallKind, StoredAnswer, StoredCall, Verdict},
    session::{RawResponse, ServerSummary},
};

/// Which server a call went to, as far as it is known (never an environment or header value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    /// The saved name, the command line or the URL.
    pub label: String,
    pub name: Option<String>,
    pub version: Option<String>,
    pub protocol_version: Option<String>,
}

impl ServerIdentity {
    pub fn new(label: &str, summary: Option<&ServerSummary>) -> Self {
        Self {
            label: label.to_owned(),
            name: summary.and_then(|summary| summary.name.clone()),
            version: summary.and_then(|summary| summary.version.clone()),
            protocol_version: summary.map(|summary| summary.protocol_version.clone()),
        }
    }

    /// `toolscope-demo 0.1.0 (Built-in demo) · protocol 2026-07-28`.
    pub fn line(&self) -> String {
        let mut line = match (&self.name, &self.version) {
            (Some(name), Some(version)) => format!("{name} {version} ({})", self.label),
            (Some(name), None) => format!("{name} ({})", self.label),
            _ => self.label.clone(),
        };
        if let Some(protocol) = &self.protocol_version {
            line.push_str(&format!(" · protocol {protocol}"));
        }
        line
    }
}

/// A case's pass or fail; history entries have none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryStatus {
    Passed,
    /// One sentence per unmet expectation.
    Failed(Vec<String>),
}

#[derive(Debug)]
pub enum EntryAnswer {
    Answered {
        response: RawResponse,
        analysis: Box<CallAnalysis>,
    },
    /// A resource read or a prompt got: its answer as sent.
    Fetched {
        kind: CallKind,
        response: RawResponse,
    },
    /// No answer, or one that cannot be read: why.
    None { failure: String },
}

#[derive(Debug)]
pub struct ReportEntry {
    /// The case's name, or `Call #12`.
    pub heading: String,
    pub status: Option<EntryStatus>,
    pub tool: String,
    pub server: ServerIdentity,
    pub started_at: Option<String>,
    pub duration_ms: Option<u64>,
    pub verdict: Verdict,
    pub arguments: Value,
    /// The tester's note (empty when none).
    pub note: String,
    pub answer: EntryAnswer,
}

impl ReportEntry {
    /// A case as it ran.
    pub fn from_case(run: &CaseRun, server: &ServerIdentity, started_at: Option<&str>) -> Self {
        let status = if run.passed() {
            EntryStatus::Passed
        } else {
            EntryStatus::Failed(run.failure_sentences())
        };
        let answer = match &run.result {
            CaseResult::Answered {
                outcome, analysis, ..
            } => EntryAnswer::Answered {
                response: outcome.response.clone(),
                analysis: analysis.clone(),
            },
            CaseResult::Fetched { response, .. } => EntryAnswer::Fetched {
                kind: run.kind,
                response: response.clone(),
            },
            CaseResult::NoAnswer { error, .. } => EntryAnswer::None {
                failure: error.clone(),
            },
            CaseResult::Refused(refused) => EntryAnswer::None {
                failure: format!("not sent: {refused}"),
            },
        };
        Self {
            heading: run.name.clone(),
            status: Some(status),
            tool: run.tool.clone(),
            server: server.clone(),
            started_at: started_at.map(str::to_owned),
            duration_ms: u64::try_from(run.duration().as_millis()).ok(),
            verdict: run.verdict(),
            arguments: run.arguments.clone(),
            note: String::new(),
            answer,
        }
    }

    /// A call from the history, analysed again from its response as received.
    pub fn from_history(mut call: StoredCall) -> Self {
        let protocol = call.protocol_version.clone().unwrap_or_default();
        let kind = call.kind;
        let answer = match call.take_answer() {
            // A read or a prompt is not a tool result: its answer is shown as sent.
            StoredAnswer::Answered { outcome, .. } if kind != CallKind::Call => {
                EntryAnswer::Fetched {
                    kind,
                    response: outcome.response,
                }
            }
            StoredAnswer::Answered {
                outcome,
                output_schema,
            } => {
                let analysis = outcome.analyze(output_schema.as_ref(), &protocol);
                EntryAnswer::Answered {
                    response: outcome.response,
                    analysis: Box::new(analysis),
                }
            }
            StoredAnswer::NoAnswer { failure } => EntryAnswer::None { failure },
            StoredAnswer::Damaged { error } => EntryAnswer::None { failure: error },
        };
        let summary = call
            .server_info
            .as_deref()
            .and_then(|text| serde_json::from_str::<Value>(text).ok());
        let text = |key: &str| {
            summary
                .as_ref()
                .and_then(|summary| summary.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Self {
            heading: format!("Call #{}", call.id),
            status: None,
            server: ServerIdentity {
                label: call.server.clone(),
                name: text("name"),
                version: call.server_version.clone().or_else(|| text("version")),
                protocol_version: call.protocol_version.clone(),
            },
            started_at: Some(call.started_at.clone()),
            duration_ms: call.duration_ms,
            verdict: call.verdict,
            arguments: crate::deep_json::parse(&call.arguments).unwrap_or(Value::Null),
            note: std::mem::take(&mut call.note),
            tool: std::mem::take(&mut call.tool),
            answer,
        }
    }
}
