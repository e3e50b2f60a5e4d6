//! Running cases against a connected server: one call per case, its analysis, and the check of
//! its expectations. The command line and the window's backend both run cases through here.

use std::time::Duration;

use serde_json::Value;

use super::{Answered, Case, CaseAsker, Failure};
use crate::{
    analysis::CallAnalysis,
    engine::{self, AnsweredCall, CallEnd, CallPlan, CallRefused},
    history::{CallKind, CalledServer, NewCall, Verdict},
    session::{CallOutcome, RawResponse, RequestControl, Session, ToolCatalog},
};

/// One case, run.
#[derive(Debug, Clone)]
pub struct CaseRun {
    pub name: String,
    /// A call, a read or a prompt.
    pub kind: CallKind,
    /// The tool's name, the resource's URI or the prompt's name.
    pub tool: String,
    pub arguments: Value,
    /// How it was sent (listed or not, its output schema, as a task, notes); `None` when it
    /// was refused.
    pub plan: Option<CallPlan>,
    pub result: CaseResult,
}

#[derive(Debug, Clone)]
pub enum CaseResult {
    /// The server answered (a result or a JSON-RPC error); `failures` is empty when it passed.
    Answered {
        outcome: CallOutcome,
        analysis: Box<CallAnalysis>,
        failures: Vec<Failure>,
    },
    /// A read or a prompt that was answered (a result or a JSON-RPC error).
    Fetched {
        response: RawResponse,
        duration: Duration,
        failures: Vec<Failure>,
    },
    /// No answer: a timeout, a cancel, a broken connection.
    NoAnswer {
        error: String,
        verdict: Verdict,
        waited: Duration,
    },
    /// Not sent, as `toolscope call` would not send it.
    Refused(CallRefused),
}

impl CaseRun {
    pub fn passed(&self) -> bool {
        matches!(
            &self.result,
            CaseResult::Answered { failures, .. } | CaseResult::Fetched { failures, .. }
                if failures.is_empty()
        )
    }

    /// Why it failed, one sentence per unmet expectation (empty when it passed).
    pub fn failure_sentences(&self) -> Vec<String> {
        match &self.result {
            CaseResult::Answered { failures, .. } | CaseResult::Fetched { failures, .. } => {
                failures.iter().map(Failure::sentence).collect()
            }
            CaseResult::NoAnswer { error, .. } => vec![format!("no answer: {error}")],
            CaseResult::Refused(refused) => vec![format!(
                "not sent: {refused}; `force = true` in the case calls it anyway"
            )],
        }
    }

    pub fn duration(&self) -> Duration {
        match &self.result {
            CaseResult::Answered { outcome, .. } => outcome.duration,
            CaseResult::Fetched { duration, .. } => *duration,
            CaseResult::NoAnswer { waited, .. } => *waited,
            CaseResult::Refused(_) => Duration::ZERO,
        }
    }

    /// `ok`, `tool_error`, … as the history says it.
    pub fn verdict(&self) -> Verdict {
        match &self.result {
            CaseResult::Answered {
                outcome, analysis, ..
            } => Verdict::of_analysis(outcome.response.is_rpc_error(), analysis),
            CaseResult::Fetched { response, .. } if response.is_rpc_error() => {
                Verdict::ProtocolError
            }
            CaseResult::Fetched { .. } => Verdict::Ok,
            CaseResult::NoAnswer { verdict, .. } => *verdict,
            CaseResult::Refused(_) => Verdict::Failed,
        }
    }

    /// What was said of how it was sent (unlisted, forced, as a task).
    pub fn notes(&self) -> &[String] {
        self.plan.as_ref().map_or(&[], |plan| &plan.notes)
    }

    /// What the history keeps of it (a call that was not sent has no row).
    pub fn to_new_call(&self, server: CalledServer<'_>) -> Option<NewCall> {
        if self.kind != CallKind::Call {
            return self.feature_row(server);
        }
        let plan = self.plan.as_ref()?;
        let end = match &self.result {
            CaseResult::Answered {
                outcome, analysis, ..
            } => CallEnd::Answered { outcome, analysis },
            CaseResult::NoAnswer {
                error,
                verdict,
                waited,
            } => CallEnd::NoAnswer {
                arguments: &self.arguments,
                waited: *waited,
                verdict: *verdict,
                failure: error,
            },
            CaseResult::Refused(_) | CaseResult::Fetched { .. } => return None,
        };
        Some(plan.history_row(server, end))
    }

    /// What a read or a prompt case asked (`None` for a tool call).
    pub fn feature_ask(&self) -> Option<engine::FeatureAsk> {
        (self.kind != CallKind::Call).then(|| feature_ask(self.kind, &self.tool, &self.arguments))
    }

    /// A read's or a prompt's row, as the engine makes it.
    fn feature_row(&self, server: CalledServer<'_>) -> Option<NewCall> {
        let ask = feature_ask(self.kind, &self.tool, &self.arguments);
        match &self.result {
            CaseResult::Fetched {
                response, duration, ..
            } => {
                let answer = engine::FeatureAnswer {
                    ask,
                    response: Ok(response.clone()),
                    duration: *duration,
                    protocol_version: String::new(),
                    trace_id: None,
                };
                Some(answer.history_row(server))
            }
            CaseResult::NoAnswer {
                error,
                verdict,
                waited,
            } => Some(ask.unanswered_row(server, *waited, *verdict, error)),
            CaseResult::Answered { .. } | CaseResult::Refused(_) => None,
        }
    }
}

/// What a read or a prompt case asks of the server.
fn feature_ask(kind: CallKind, name: &str, arguments: &Value) -> engine::FeatureAsk {
    match kind {
        CallKind::Prompt => engine::FeatureAsk::Prompt {
            name: name.to_owned(),
            arguments: arguments.as_object().cloned().unwrap_or_default(),
        },
        _ => engine::FeatureAsk::Read {
            uri: name.to_owned(),
        },
    }
}

/// Reads the resource or gets the prompt and checks what comes back.
async fn fetch_case(session: &Session, case: &Case, control: &RequestControl) -> CaseRun {
    let arguments = Value::Object(case.arguments.clone());
    let ask = feature_ask(case.kind, &case.tool, &arguments);
    let answer = engine::feature::ask(session, ask, control).await;
    let result = match answer.response {
        Ok(response) => {
            let text = fetched_text(&response);
            let failures = case.expect.check_fetched(&response, &text, answer.duration);
            CaseResult::Fetched {
                response,
                duration: answer.duration,
                failures,
            }
        }
        Err(error) => CaseResult::NoAnswer {
            verdict: Verdict::of_error(&error),
            error: error.to_string(),
            waited: answer.duration,
        },
    };
    CaseRun {
        name: case.name.clone(),
        kind: case.kind,
        tool: case.tool.clone(),
        arguments,
        plan: None,
        result,
    }
}

/// The text a read's contents or a prompt's messages hold (texts, embedded resources'
/// texts), joined by newlines: what `text_contains` looks in.
fn fetched_text(response: &RawResponse) -> String {
    let Some(result) = response.result_ref() else {
        return String::new();
    };
    let blocks = crate::session::requests::feature_items::answer_blocks(result);
    crate::analysis::parse_blocks(blocks)
        .iter()
        .filter_map(|block| match &block.kind {
            crate::analysis::BlockKind::Text { text } => text.clone(),
            crate::analysis::BlockKind::Resource {
                body: crate::analysis::EmbeddedBody::Text { text },
                ..
            } => Some(text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls `case.tool` and checks what comes back. `catalog` is the server's tool list, when it
/// gave one (the output schema comes from there); `asker`, the run's, answers as the case says
/// (`None` on a connection whose questions go to a person).
pub async fn run_case(
    session: &Session,
    catalog: Option<&ToolCatalog>,
    case: &Case,
    asker: Option<&CaseAsker>,
    control: &RequestControl,
) -> CaseRun {
    if case.kind != CallKind::Call {
        return fetch_case(session, case, control).await;
    }
    let run = |plan, result| CaseRun {
        name: case.name.clone(),
        kind: CallKind::Call,
        tool: case.tool.clone(),
        arguments: Value::Object(case.arguments.clone()),
        plan,
        result,
    };
    // The run's asker answers what this case says before anything is sent.
    if let Some(asker) = asker {
        asker.answer_as(case);
    }
    let arguments = case.arguments.clone();
    let made = match engine::call(session, catalog, &case.tool, arguments, case.wish, control).await
    {
        Ok(made) => made,
        Err(refused) => return run(None, CaseResult::Refused(refused)),
    };
    let result = match made.ended {
        Ok(AnsweredCall { outcome, analysis }) => {
            let failures = case.expect.check(&Answered {
                response: &outcome.response,
                analysis: &analysis,
                duration: outcome.duration,
            });
            CaseResult::Answered {
                outcome,
                analysis: Box::new(analysis),
                failures,
            }
        }
        Err(error) => CaseResult::NoAnswer {
            verdict: Verdict::of_error(&error),
            error: error.to_string(),
            waited: made.waited,
        },
    };
    run(Some(made.plan), result)
}
