//! Running cases against a connected server: one call per case, its analysis, and the check of
//! its expectations. The command line and the window's backend both run cases through here.

use std::time::Duration;

use serde_json::Value;

use super::{Answered, Case, CaseAsker, Failure};
use crate::{
    analysis::CallAnalysis,
    engine::{self, CallEnd, CallPlan, CallRefused, ServerView},
    history::{CalledServer, NewCall, Verdict},
    session::{CallOutcome, RequestControl, Session, ToolCatalog},
};

/// One case, run.
#[derive(Debug, Clone)]
pub struct CaseRun {
    pub name: String,
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
        matches!(&self.result, CaseResult::Answered { failures, .. } if failures.is_empty())
    }

    /// Why it failed, one sentence per unmet expectation (empty when it passed).
    pub fn failure_sentences(&self) -> Vec<String> {
        match &self.result {
            CaseResult::Answered { failures, .. } => {
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
            CaseResult::Refused(_) => return None,
        };
        Some(plan.history_row(server, end))
    }
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
    let run = |plan, result| CaseRun {
        name: case.name.clone(),
        tool: case.tool.clone(),
        arguments: Value::Object(case.arguments.clone()),
        plan,
        result,
    };
    let plan = match engine::plan(ServerView::of(session, catalog), &case.tool, case.wish) {
        Ok(plan) => plan,
        Err(refused) => return run(None, CaseResult::Refused(refused)),
    };
    if let Some(asker) = asker {
        asker.answer_as(case);
    }
    let sent = engine::send(session, &plan, case.arguments.clone(), control).await;
    let result = match sent.result {
        Ok(outcome) => {
            let analysis = plan.analyze(&outcome, &session.summary().protocol_version);
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
            waited: sent.waited,
        },
    };
    run(Some(plan), result)
}
