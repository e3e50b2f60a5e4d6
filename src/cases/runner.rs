//! Running cases against a connected server: one call per case, its analysis, and the check of
//! its expectations. The command line and the window's backend both run cases through here.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Answered, Case, Failure};
use crate::{
    analysis::CallAnalysis,
    history::{CalledServer, NewCall, Verdict},
    session::{CallOutcome, RequestControl, Session, ToolCatalog},
};

/// One case, run.
#[derive(Debug, Clone)]
pub struct CaseRun {
    pub name: String,
    pub tool: String,
    pub arguments: Value,
    /// Whether the tool was in the server's tools/list.
    pub listed: bool,
    pub output_schema: Option<Value>,
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
        }
    }

    pub fn duration(&self) -> Duration {
        match &self.result {
            CaseResult::Answered { outcome, .. } => outcome.duration,
            CaseResult::NoAnswer { waited, .. } => *waited,
        }
    }

    /// `ok`, `tool_error`, … as the history says it.
    pub fn verdict(&self) -> Verdict {
        match &self.result {
            CaseResult::Answered {
                outcome, analysis, ..
            } => Verdict::of_analysis(outcome.response.is_rpc_error(), analysis),
            CaseResult::NoAnswer { verdict, .. } => *verdict,
        }
    }

    /// What the history keeps of it.
    pub fn to_new_call(&self, server: CalledServer<'_>) -> NewCall {
        match &self.result {
            CaseResult::Answered {
                outcome, analysis, ..
            } => NewCall::answered(
                server,
                outcome,
                self.output_schema.as_ref(),
                self.listed,
                analysis,
            ),
            CaseResult::NoAnswer {
                error,
                verdict,
                waited,
            } => NewCall::unanswered(
                server,
                &self.tool,
                &self.arguments,
                self.output_schema.as_ref(),
                self.listed,
                *waited,
                *verdict,
                error,
            ),
        }
    }
}

/// Calls `case.tool` and checks what comes back. `catalog` is the server's tool list, when it
/// gave one (the output schema comes from there).
pub async fn run_case(
    session: &Session,
    catalog: Option<&ToolCatalog>,
    case: &Case,
    control: &RequestControl,
) -> CaseRun {
    let tool = catalog.and_then(|catalog| catalog.find(&case.tool));
    let output_schema = tool.and_then(|tool| tool.output_schema.clone());
    let arguments = Value::Object(case.arguments.clone());
    let started = Instant::now();
    let called = session
        .call_tool(&case.tool, case.arguments.clone(), control)
        .await;
    let result = match called {
        Ok(outcome) => {
            let analysis =
                outcome.analyze(output_schema.as_ref(), &session.summary().protocol_version);
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
            waited: started.elapsed(),
        },
    };
    CaseRun {
        name: case.name.clone(),
        tool: case.tool.clone(),
        arguments,
        listed: tool.is_some(),
        output_schema,
        result,
    }
}
