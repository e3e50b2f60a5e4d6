//! One call made, the same for every face: the planned call sent (as a task when planned so,
//! with what the server asks along the way going to the connection's asker), its answer
//! analysed off the async workers, and the history row of how it ended. The window's backend,
//! `toolscope call` (and `call --watch`), `toolscope run` (and `run --watch`) and the window's
//! case runs make their calls here; a face supplies only what is its own (how progress and
//! task statuses are shown, through the [`RequestControl`], and how the result is shown).

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::plan::{CallEnd, CallPlan, CallRefused, CallWish, ServerView, plan};
use crate::{
    analysis::CallAnalysis,
    history::{CalledServer, NewCall, Verdict},
    session::{CallOutcome, RequestControl, Session, SessionError, ToolCatalog},
};

/// A call that was answered (a result or a JSON-RPC error), with what Toolscope says of it.
#[derive(Debug)]
pub struct AnsweredCall {
    pub outcome: CallOutcome,
    pub analysis: CallAnalysis,
}

/// A call made: how it was planned, what was sent and how it ended.
#[derive(Debug)]
pub struct MadeCall {
    pub plan: CallPlan,
    /// The arguments as sent (a call without an answer is kept with them).
    pub arguments: Value,
    /// From sending to the answer or the failure.
    pub waited: Duration,
    /// The answer, or why there was none (a timeout, a cancel, a broken connection).
    pub ended: Result<AnsweredCall, SessionError>,
    /// The trace its span is in, when traces are exported (the session's: see `telemetry`).
    pub trace_id: Option<String>,
}

/// Plans `tool` on what Toolscope knows of the server and makes the call: what a face calls
/// when it has nothing to say between the two (the case runner).
pub async fn call(
    session: &Session,
    catalog: Option<&ToolCatalog>,
    tool: &str,
    arguments: Map<String, Value>,
    wish: CallWish,
    control: &RequestControl,
) -> Result<MadeCall, CallRefused> {
    let plan = plan(ServerView::of(session, catalog), tool, wish)?;
    Ok(make(session, plan, arguments, control).await)
}

/// Makes a planned call: sends it and analyses the answer against the listed output schema.
pub async fn make(
    session: &Session,
    plan: CallPlan,
    arguments: Map<String, Value>,
    control: &RequestControl,
) -> MadeCall {
    let sent_arguments = Value::Object(arguments.clone());
    let started = Instant::now();
    let result = if plan.as_task {
        session
            .call_tool_as_task(&plan.tool, arguments, control)
            .await
    } else {
        session.call_tool(&plan.tool, arguments, control).await
    };
    let waited = started.elapsed();
    let ended = match result {
        Ok(outcome) => analyse(&plan, outcome, &session.summary().protocol_version).await,
        Err(error) => Err(error),
    };
    MadeCall {
        plan,
        arguments: sent_arguments,
        waited,
        ended,
        trace_id: session.trace_id(),
    }
}

/// The analysis of a huge result takes a while: it runs where blocking is allowed.
/// A panic there (logged by the panic hook) or a runtime shutting down ends the call as a
/// failure in words instead of taking the face down with it.
async fn analyse(
    plan: &CallPlan,
    outcome: CallOutcome,
    protocol_version: &str,
) -> Result<AnsweredCall, SessionError> {
    let (schema, version) = (plan.output_schema.clone(), protocol_version.to_owned());
    tokio::task::spawn_blocking(move || {
        let analysis = outcome.analyze(schema.as_ref(), &version);
        AnsweredCall { outcome, analysis }
    })
    .await
    .map_err(|error| SessionError::Protocol {
        request: format!("tools/call {}", plan.tool),
        reason: format!("analysing the answer failed: {error}"),
    })
}

impl MadeCall {
    /// `ok`, `tool_error`, … as the history says it.
    pub fn verdict(&self) -> Verdict {
        match &self.ended {
            Ok(answered) => {
                Verdict::of_analysis(answered.outcome.response.is_rpc_error(), &answered.analysis)
            }
            Err(error) => Verdict::of_error(error),
        }
    }

    /// The history's row for this call, answered or not.
    pub fn history_row(&self, server: CalledServer<'_>) -> NewCall {
        match &self.ended {
            Ok(AnsweredCall { outcome, analysis }) => self
                .plan
                .history_row(server, CallEnd::Answered { outcome, analysis }),
            Err(error) => {
                let failure = error.to_string();
                let end = CallEnd::failed(&self.arguments, self.waited, error, &failure);
                self.plan.history_row(server, end)
            }
        }
    }
}
