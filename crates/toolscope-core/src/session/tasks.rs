//! Tools run as tasks (2025-11-25 experimental tasks, SEP-1686): the `tools/call` carries a
//! `task` and is answered with the created task; `tasks/get` is polled at the server's
//! `pollInterval` for its status while `tasks/result` waits for the result (the server
//! sends what it needs to ask along that request); Cancel sends `tasks/cancel`.
//!
//! The 2026-07-28 tasks extension, where the server decides, is in `task_extension.rs`;
//! [`choose`] is the one rule for which a call gets.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{
    SessionError, call_outcome::CallOutcome, connection::Session, input_rounds::CallRounds,
    raw_response::RawResponse, request_control::RequestControl, tool_catalog::TaskSupport,
};

/// How long a task may be kept by the server after it ends (asked for in `task.ttl`).
const TASK_TTL_MS: u64 = 300_000;
/// The poll interval when the server suggests none, and the bounds of what it may suggest.
pub(super) const DEFAULT_POLL: Duration = Duration::from_secs(1);
pub(super) const MIN_POLL: Duration = Duration::from_millis(100);
pub(super) const MAX_POLL: Duration = Duration::from_secs(10);
/// How long `tasks/result` may take once a status says the task ended.
const TERMINAL_GRACE: Duration = Duration::from_secs(10);
/// How long `tasks/cancel` is waited for.
const CANCEL_WAIT: Duration = Duration::from_secs(5);
/// Statuses kept of one task: the first and the last ones (a server may put a counter in
/// its status message for half an hour).
const MAX_STATUSES: usize = 200;

/// How a call is sent as far as tasks go, and a word for the person when that is not what
/// they asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskChoice {
    /// Sent as a 2025-11-25 task-augmented `tools/call` ([`Session::call_tool_as_task`]).
    pub augmented: bool,
    pub note: Option<String>,
}

/// The rule the window and the command line share. `modern`: the server speaks 2026-07-28
/// or later (the server then decides, and does only when the tasks extension is declared);
/// `declared`: tasks are declared to this server; `asked`: the person asked for a task (the
/// command line's `--task`; the window asks whenever the tool allows one).
pub fn choose(
    modern: bool,
    declared: bool,
    support: TaskSupport,
    asked: bool,
    tool: &str,
) -> TaskChoice {
    let choice = |augmented, note: Option<String>| TaskChoice { augmented, note };
    if modern {
        let note = asked.then(|| {
            if declared {
                "on a 2026-07-28 server the server decides whether a call runs as a task \
                 (Toolscope declares the io.modelcontextprotocol/tasks extension in the request)"
                    .to_owned()
            } else {
                "tasks are turned off for this server: the call does not declare the tasks \
                 extension, so the server answers it at once"
                    .to_owned()
            }
        });
        return choice(false, note);
    }
    match (support, declared) {
        (TaskSupport::Required, true) => choice(
            true,
            (!asked).then(|| format!("`{tool}` requires a task, so it runs as one")),
        ),
        (TaskSupport::Required, false) => choice(
            false,
            Some(format!(
                "`{tool}` requires a task but tasks are turned off for this server: called \
                 without one (the server should refuse it)"
            )),
        ),
        (TaskSupport::Optional, true) => choice(asked, None),
        (TaskSupport::Optional, false) => choice(
            false,
            asked.then(|| "tasks are turned off for this server: called without a task".to_owned()),
        ),
        (TaskSupport::Forbidden, _) => choice(
            false,
            asked.then(|| format!("`{tool}` does not declare task support; called without a task")),
        ),
    }
}

/// Hears each new status of a task: its id and the status.
pub type OnTaskStatus = Arc<dyn Fn(&str, &TaskStatus) + Send + Sync>;

/// One status of a task, as `tasks/get` (or the created task) told it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub status: String,
    pub status_message: Option<String>,
    /// Since the call started.
    #[serde(
        rename = "at_ms",
        serialize_with = "super::asks::millis",
        deserialize_with = "super::asks::from_millis"
    )]
    pub at: Duration,
}

impl TaskStatus {
    /// `working: Gathering sources…`, the same in the window and the command line.
    pub fn describe(&self) -> String {
        match &self.status_message {
            Some(message) => format!("{}: {message}", self.status),
            None => self.status.clone(),
        }
    }
}

/// A call's task: its id and every status it went through.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskTrack {
    pub task_id: String,
    /// The `tools/call` answer that created it.
    pub created: RawResponse,
    pub statuses: Vec<TaskStatus>,
    /// Statuses left out between the first and the last [`MAX_STATUSES`].
    pub statuses_left_out: usize,
    /// Why `tasks/get` failed, when it did (the task is followed by `tasks/result` anyway).
    pub problem: Option<String>,
    /// The id of the `tasks/get` whose answer carried the result (2026-07-28: the call's
    /// answer is the result found there); `None` when `tasks/result` answered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_from: Option<String>,
}

impl TaskTrack {
    /// A task whose first status is `first`, created by the `created` answer.
    pub(super) fn new(task_id: String, created: RawResponse) -> Self {
        Self {
            task_id,
            created,
            statuses: Vec::new(),
            statuses_left_out: 0,
            problem: None,
            result_from: None,
        }
    }

    /// Keeps `status` when it differs from the last one; says whether it did.
    pub(super) fn note(&mut self, status: TaskStatus) -> bool {
        let changed = self.statuses.last().is_none_or(|last| {
            last.status != status.status || last.status_message != status.status_message
        });
        if changed {
            if self.statuses.len() >= MAX_STATUSES {
                self.statuses.remove(1);
                self.statuses_left_out += 1;
            }
            self.statuses.push(status);
        }
        changed
    }

    pub(super) fn note_problem(&mut self, failures: u32, what: &str) {
        self.problem = Some(format!(
            "tasks/get failed {failures} time(s), last: {}",
            crate::text_util::one_line(what, 200)
        ));
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
            rounds.keep_completions(super::connection::drain(&completions));
            return Ok(outcome(created, rounds));
        };
        let task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();

        // `tasks/result` waits for the end; it is cancelled here, not by its own token.
        let waiting = RequestControl {
            timeouts: super::Timeouts {
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
        rounds.keep_completions(super::connection::drain(&completions));
        Ok(outcome(response, rounds))
    }

    /// Asks the server to cancel the task (a short wait: the call is over either way).
    async fn cancel_task(&self, task_id: &str) {
        let control = RequestControl::with_timeouts(super::Timeouts::with_request(CANCEL_WAIT));
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

    #[test]
    fn one_rule_decides_whether_a_call_is_sent_as_a_task() {
        use TaskSupport::{Forbidden, Optional, Required};
        let sent = |modern, declared, support, asked| {
            choose(modern, declared, support, asked, "t").augmented
        };
        // 2025-11-25: the tool's taskSupport and the person decide, if tasks are declared.
        assert!(sent(false, true, Required, false));
        assert!(sent(false, true, Optional, true) && !sent(false, true, Optional, false));
        assert!(!sent(false, true, Forbidden, true));
        assert!(!sent(false, false, Required, true) && !sent(false, false, Optional, true));
        // 2026-07-28: never a 2025-style task; the server decides.
        assert!(!sent(true, true, Required, true) && !sent(true, true, Optional, true));
        let note =
            |modern, declared, support, asked| choose(modern, declared, support, asked, "t").note;
        assert!(note(true, true, Optional, true).is_some_and(|n| n.contains("server decides")));
        assert!(note(true, true, Optional, false).is_none());
        assert!(note(false, false, Required, false).is_some_and(|n| n.contains("turned off")));
        assert!(note(false, true, Required, false).is_some_and(|n| n.contains("requires a task")));
        assert!(note(false, true, Forbidden, true).is_some());
    }
}
