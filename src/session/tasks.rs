//! Tools run as tasks (2025-11-25 experimental tasks, SEP-1686): the `tools/call` carries a
//! `task` and is answered with the created task; `tasks/get` is polled at the server's
//! `pollInterval` for its status while `tasks/result` waits for the result (the server
//! sends what it needs to ask along that request); Cancel sends `tasks/cancel`.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::model::{ClientRequest, CustomRequest};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{
    SessionError,
    connection::{CallOutcome, RawResponse, RequestControl, Session},
    input_rounds::CallRounds,
};

/// How long a task may be kept by the server after it ends (asked for in `task.ttl`).
const TASK_TTL_MS: u64 = 300_000;
/// The poll interval when the server suggests none, and the bounds of what it may suggest.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
const MIN_POLL: Duration = Duration::from_millis(100);
const MAX_POLL: Duration = Duration::from_secs(10);

/// Hears each new status of a task: its id and the status.
pub type OnTaskStatus = Arc<dyn Fn(&str, &TaskStatus) + Send + Sync>;

/// One status of a task, as `tasks/get` (or the created task) told it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskStatus {
    pub status: String,
    pub status_message: Option<String>,
    /// Since the call started.
    #[serde(rename = "at_ms", serialize_with = "super::asks::millis")]
    pub at: Duration,
}

/// A call's task: its id and every status it went through.
#[derive(Debug, Clone, Serialize)]
pub struct TaskTrack {
    pub task_id: String,
    /// The `tools/call` answer that created it.
    pub created: RawResponse,
    pub statuses: Vec<TaskStatus>,
}

impl TaskTrack {
    fn note(&mut self, status: TaskStatus) -> bool {
        let changed = self.statuses.last().is_none_or(|last| {
            last.status != status.status || last.status_message != status.status_message
        });
        if changed {
            self.statuses.push(status);
        }
        changed
    }
}

fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// The task object of a `CreateTaskResult` or a `tasks/get` result (its fields at the top).
fn task_of(result: &Value) -> Option<&Value> {
    result
        .get("task")
        .filter(|task| task.get("taskId").is_some())
        .or_else(|| result.get("taskId").map(|_| result))
}

fn status_of(task: &Value, at: Duration) -> TaskStatus {
    TaskStatus {
        status: task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned(),
        status_message: task
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned),
        at,
    }
}

fn poll_interval(task: &Value) -> Duration {
    task.get("pollInterval")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

impl Session {
    /// Calls `tool` as a task and follows it to its result; `on_status` hears each new
    /// status. A server that answers the call at once (no task) gets that answer returned.
    pub async fn call_tool_as_task(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        control: &RequestControl,
        on_status: OnTaskStatus,
    ) -> Result<CallOutcome, SessionError> {
        let started = Instant::now();
        let mark = self.exchange_mark();
        // Subscribed before the call: a status may be told before the task is even returned.
        let mut notified = self.task_statuses();
        let label = format!("tools/call {tool} (as a task)");
        let params = json!({
            "name": tool,
            "arguments": arguments,
            "task": { "ttl": TASK_TTL_MS },
        });
        let (created, request_id, duplicate_responses) = self
            .request_custom("tools/call", params, &label, control)
            .await?;
        let created_value = created.member().to_value();
        let outcome = |response: RawResponse, rounds: CallRounds| CallOutcome {
            tool: tool.to_owned(),
            arguments: Value::Object(arguments.clone()),
            request_id: request_id.clone(),
            response,
            duration: started.elapsed(),
            duplicate_responses,
            rounds: Box::new(rounds),
        };
        let Some(task) = task_of(&created_value).filter(|_| !created.is_rpc_error()) else {
            // Run at once (or refused): that answer is the result.
            let rounds = CallRounds {
                exchanges: self.exchanges_since(mark),
                ..CallRounds::default()
            };
            return Ok(outcome(created, rounds));
        };
        let task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut poll = poll_interval(task);
        let mut track = TaskTrack {
            task_id: task_id.clone(),
            created,
            statuses: Vec::new(),
        };
        let first = status_of(task, started.elapsed());
        on_status(&task_id, &first);
        track.note(first);

        // `tasks/result` waits for the end; it is cancelled here, not by its own token.
        let waiting = RequestControl {
            timeouts: super::Timeouts {
                request: control.timeouts.max_total,
                ..control.timeouts
            },
            cancel: CancellationToken::new(),
            on_progress: control.on_progress.clone(),
        };
        let result = self.request_custom(
            "tasks/result",
            json!({ "taskId": task_id }),
            "tasks/result",
            &waiting,
        );
        tokio::pin!(result);
        let polling = RequestControl {
            cancel: CancellationToken::new(),
            ..RequestControl::with_timeouts(control.timeouts)
        };
        let mut listening = true;
        let response = loop {
            tokio::select! {
                answered = &mut result => break answered,
                heard = notified.recv(), if listening => {
                    let params = match heard {
                        Ok(params) => params,
                        // A flood: some statuses were missed, polling catches up.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            listening = false;
                            continue;
                        }
                    };
                    if params.get("taskId").and_then(Value::as_str) == Some(task_id.as_str()) {
                        let status = status_of(&params, started.elapsed());
                        if track.note(status.clone()) {
                            on_status(&task_id, &status);
                        }
                    }
                }
                () = tokio::time::sleep(poll) => {
                    let Ok((got, _, _)) = self
                        .request_custom("tasks/get", json!({ "taskId": task_id }), "tasks/get", &polling)
                        .await
                    else {
                        continue;
                    };
                    let value = got.member().to_value();
                    if let Some(task) = task_of(&value) {
                        poll = poll_interval(task);
                        let status = status_of(task, started.elapsed());
                        if track.note(status.clone()) {
                            on_status(&task_id, &status);
                        }
                    }
                }
                () = control.cancel.cancelled() => {
                    let _ = self
                        .request_custom("tasks/cancel", json!({ "taskId": task_id }), "tasks/cancel", &polling)
                        .await;
                    return Err(SessionError::Cancelled { request: label });
                }
            }
        };
        let (response, _, _) = response?;
        // The last word on the status, now that the result is in.
        if let Ok((got, _, _)) = self
            .request_custom(
                "tasks/get",
                json!({ "taskId": task_id }),
                "tasks/get",
                &polling,
            )
            .await
            && let Some(task) = task_of(&got.member().to_value())
        {
            let status = status_of(task, started.elapsed());
            if is_terminal(&status.status) && track.note(status.clone()) {
                on_status(&task_id, &status);
            }
        }
        let rounds = CallRounds {
            exchanges: self.exchanges_since(mark),
            task: Some(track),
            ..CallRounds::default()
        };
        Ok(outcome(response, rounds))
    }

    /// Sends a request rmcp has no type for (or whose typed params would drop a field), and
    /// answers with its raw response.
    async fn request_custom(
        &self,
        method: &str,
        params: Value,
        label: &str,
        control: &RequestControl,
    ) -> Result<(RawResponse, String, usize), SessionError> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        self.request_raw(request, label, control).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_read_from_a_created_result_or_a_status() {
        let created = json!({"task": {"taskId": "t1", "status": "working", "pollInterval": 20}});
        let task = task_of(&created).unwrap_or(&Value::Null);
        assert_eq!(poll_interval(task), MIN_POLL, "clamped");
        let status = json!({"taskId": "t1", "status": "input_required", "statusMessage": "?"});
        let task = task_of(&status).unwrap_or(&Value::Null);
        assert_eq!(status_of(task, Duration::ZERO).status, "input_required");
        assert!(task_of(&json!({"content": []})).is_none());
        assert!(is_terminal("completed") && !is_terminal("working"));
    }
}
