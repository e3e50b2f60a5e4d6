//! A tool run as a 2025-11-25 task (experimental tasks, SEP-1686): the `tools/call` carries a
//! `task` and is answered with the created task; `tasks/get` is polled at the server's
//! `pollInterval` for its status while `tasks/result` waits for the result (the server sends
//! what it needs to ask along that request); Cancel sends `tasks/cancel`.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::task_status::{OnTaskStatus, TaskStatus, TaskTrack};
use crate::session::{
    SessionError, connection::Session, requests::call_outcome::CallOutcome,
    requests::raw_response::RawResponse, requests::request_control::RequestControl,
    tasks::input_rounds::CallRounds,
};

/// How long a task may be kept by the server after it ends (asked for in `task.ttl`).
const TASK_TTL_MS: u64 = 300_000;
/// The poll interval when the server suggests none, and the bounds of what it may suggest.
pub(in crate::session) const DEFAULT_POLL: Duration = Duration::from_secs(1);
pub(in crate::session) const MIN_POLL: Duration = Duration::from_millis(100);
pub(in crate::session) const MAX_POLL: Duration = Duration::from_secs(10);
/// How long `tasks/result` may take once a status says the task ended.
const TERMINAL_GRACE: Duration = Duration::from_secs(10);
/// How long `tasks/cancel` is waited for.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

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
    // Kept short: a server may write a novel into a status, for every poll.
    let short =
        |text: &str| crate::text_util::one_line(&crate::text_util::clip_chars(text, 1_000), 500);
    TaskStatus {
        status: task
            .get("status")
            .and_then(Value::as_str)
            .map_or_else(|| "unknown".to_owned(), short),
        status_message: task.get("statusMessage").and_then(Value::as_str).map(short),
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
    /// Calls `tool` as a task and follows it to its result; `control.on_task_status` hears
    /// each new status. A server that answers the call at once (no task) gets that answer
    /// returned.
    pub async fn call_tool_as_task(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        control: &RequestControl,
    ) -> Result<CallOutcome, SessionError> {
        let on_status = control.on_task_status.clone();
        let started = Instant::now();
        let mark = self.exchange_mark();
        // Subscribed before the call: a status may be told before the task is even returned.
        let mut notified = self.task_statuses();
        let completions = std::sync::Mutex::new(self.elicitation_completions());
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
            let mut rounds = CallRounds {
                exchanges: self.exchanges_since(mark),
                ..CallRounds::default()
            };
            rounds.keep_completions(crate::session::connection::drain(&completions));
            return Ok(outcome(created, rounds));
        };
        let task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();

        // `tasks/result` waits for the end; it is cancelled here, not by its own token.
        let waiting = RequestControl {
            timeouts: crate::session::Timeouts {
                request: control.timeouts.max_total,
                ..control.timeouts
            },
            cancel: CancellationToken::new(),
            on_progress: control.on_progress.clone(),
            on_task_status: control.on_task_status.clone(),
        };
        let result = self.request_custom(
            "tasks/result",
            json!({ "taskId": task_id }),
            "tasks/result",
            &waiting,
        );
        let mut following = Following::start(self, (task, created), started, on_status, control);
        let response = match following
            .until_result(result, &mut notified, &control.cancel, label)
            .await
        {
            Ok(response) => response,
            Err(error) => {
                // Cancelled, or the result never came (a timeout, a closed stream): the task
                // is let go.
                self.cancel_task(&task_id).await;
                return Err(error);
            }
        };
        following.last_word().await;
        let track = following.track;
        let mut rounds = CallRounds {
            exchanges: self.exchanges_since(mark),
            task: Some(track),
            ..CallRounds::default()
        };
        rounds.keep_completions(crate::session::connection::drain(&completions));
        Ok(outcome(response, rounds))
    }

    /// Asks the server to cancel the task (a short wait: the call is over either way).
    async fn cancel_task(&self, task_id: &str) {
        let control =
            RequestControl::with_timeouts(crate::session::Timeouts::with_request(CANCEL_WAIT));
        // Bounded here too: the request's idle timer waits while progress comes.
        let _ = tokio::time::timeout(
            CANCEL_WAIT,
            self.request_custom(
                "tasks/cancel",
                json!({ "taskId": task_id }),
                "tasks/cancel",
                &control,
            ),
        )
        .await;
    }
}

/// Sleeps until `deadline`, or for ever without one.
/// A task followed to its end beside `tasks/result`: the statuses heard and polled, in order
/// and each once, and when the task said it ended.
struct Following<'a> {
    session: &'a Session,
    task_id: String,
    started: Instant,
    on_status: OnTaskStatus,
    track: TaskTrack,
    /// As the task last asked to be polled.
    poll: Duration,
    next_poll: tokio::time::Instant,
    failed_polls: u32,
    /// When a status said the task ended (`tasks/result` then gets [`TERMINAL_GRACE`]).
    ended_at: Option<tokio::time::Instant>,
    polling: RequestControl,
}

impl<'a> Following<'a> {
    /// Follows the task `created` returned: its first status told as it is, the first poll
    /// when the task asks for it. A poll in flight ends when the call is cancelled.
    fn start(
        session: &'a Session,
        (task, created): (&Value, RawResponse),
        started: Instant,
        on_status: OnTaskStatus,
        control: &RequestControl,
    ) -> Self {
        let task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let first = status_of(task, started.elapsed());
        on_status(&task_id, &first);
        let mut track = TaskTrack::new(task_id.clone(), created);
        track.note(first);
        let poll = poll_interval(task);
        Self {
            session,
            task_id,
            started,
            on_status,
            track,
            poll,
            next_poll: tokio::time::Instant::now() + poll,
            failed_polls: 0,
            ended_at: None,
            polling: RequestControl {
                cancel: control.cancel.child_token(),
                ..RequestControl::with_timeouts(control.timeouts)
            },
        }
    }

    /// Waits for `tasks/result` while statuses are heard and polled. Ends with an error when
    /// the call is cancelled, or when the task ended and no result came within
    /// [`TERMINAL_GRACE`].
    async fn until_result(
        &mut self,
        result: impl Future<Output = Result<(RawResponse, String, usize), SessionError>>,
        notified: &mut tokio::sync::broadcast::Receiver<Value>,
        cancel: &CancellationToken,
        label: String,
    ) -> Result<RawResponse, SessionError> {
        tokio::pin!(result);
        let mut listening = true;
        loop {
            let result_deadline = self.ended_at.map(|at| at + TERMINAL_GRACE);
            tokio::select! {
                answered = &mut result => return answered.map(|(response, _, _)| response),
                () = cancel.cancelled() => return Err(SessionError::Cancelled { request: label }),
                () = sleep_until_some(result_deadline) => {
                    let last = self.track.statuses.last();
                    return Err(SessionError::Protocol {
                        request: label,
                        reason: format!(
                            "the task ended ({}) but tasks/result gave no result within {} s",
                            last.map_or("?", |status| status.status.as_str()),
                            TERMINAL_GRACE.as_secs()
                        ),
                    });
                }
                heard = notified.recv(), if listening => match heard {
                    Ok(params) => self.heard(&params),
                    // A flood: some statuses were missed, polling catches up.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => listening = false,
                },
                () = tokio::time::sleep_until(self.next_poll) => self.poll_once().await,
            }
        }
    }

    /// A status, told or polled: kept (and told to the caller) when it is new.
    fn seen(&mut self, status: TaskStatus) {
        if is_terminal(&status.status) && self.ended_at.is_none() {
            self.ended_at = Some(tokio::time::Instant::now());
        }
        if self.track.note(status.clone()) {
            (self.on_status)(&self.task_id, &status);
        }
    }

    /// `tasks/get` for this task (ended by the call's cancel).
    async fn get(&self) -> Result<(RawResponse, String, usize), SessionError> {
        self.session
            .request_custom(
                "tasks/get",
                json!({ "taskId": self.task_id }),
                "tasks/get",
                &self.polling,
            )
            .await
    }

    /// A `notifications/tasks/status`: this task's status, or another task's (ignored).
    fn heard(&mut self, params: &Value) {
        if params.get("taskId").and_then(Value::as_str) == Some(self.task_id.as_str()) {
            self.seen(status_of(params, self.started.elapsed()));
        }
    }

    /// One `tasks/get`; a refused or failed poll is counted (the track gives up after five).
    async fn poll_once(&mut self) {
        let polled = self.get().await;
        self.next_poll = tokio::time::Instant::now() + self.poll;
        let value = match polled {
            Ok((got, _, _)) if !got.is_rpc_error() => got.member().to_value(),
            Ok((got, _, _)) => {
                self.failed_polls += 1;
                let what = got.member().to_value().to_string();
                self.track.note_problem(self.failed_polls, &what);
                return;
            }
            Err(error) => {
                self.failed_polls += 1;
                self.track
                    .note_problem(self.failed_polls, &error.to_string());
                return;
            }
        };
        if let Some(task) = task_of(&value) {
            self.poll = poll_interval(task);
            self.seen(status_of(task, self.started.elapsed()));
        }
    }

    /// The last word on the status, now that the result is in (only an end is kept).
    async fn last_word(&mut self) {
        if let Ok((got, _, _)) = self.get().await
            && let Some(task) = task_of(&got.member().to_value())
        {
            let status = status_of(task, self.started.elapsed());
            if is_terminal(&status.status) && self.track.note(status.clone()) {
                (self.on_status)(&self.task_id, &status);
            }
        }
    }
}

async fn sleep_until_some(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
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
