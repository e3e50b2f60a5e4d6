//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663). A server that
//! finds the extension declared in a request may answer `tools/call` with a task
//! (`resultType: "task"`) instead of its result; the server decides, call by call. The
//! client polls `tasks/get` at the task's `pollIntervalMs`: an `input_required` task carries
//! `inputRequests` (answered like a multi-round call's, and sent with `tasks/update`), a
//! `completed` one the call's result, a `failed` one its JSON-RPC error. Cancel sends
//! `tasks/cancel`. There is no `tasks/result` and no `tasks/list` in this era.

use std::{
    borrow::Cow,
    collections::HashSet,
    time::{Duration, Instant},
};

use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientRequest, GetTaskParams, GetTaskRequest,
    InputResponses, UpdateTaskParams, UpdateTaskRequest,
};

use super::{
    SessionError,
    asks::{AskOrigin, AskReply, Exchange, ServerAsk},
    connection::{RawResponse, RequestControl, Session},
    input_rounds,
    tasks::{self, TaskStatus, TaskTrack},
};
use crate::json_doc::JsonRef;

/// `tasks/get` failures in a row after which the task is given up.
const MAX_FAILED_POLLS: u32 = 5;
/// How long `tasks/cancel` is waited for.
const CANCEL_WAIT: Duration = Duration::from_secs(5);
/// The longest status or status message kept (a server may write a novel into one).
const MAX_STATUS_CHARS: usize = 500;

/// A task followed to its end: the call's answer (the task's result or error, as a response
/// to the last `tasks/get`, whose id is in `track.result_from`), the task's statuses and
/// what it asked.
pub(super) struct FollowedTask {
    pub response: RawResponse,
    pub track: TaskTrack,
    pub exchanges: Vec<Exchange>,
}

/// Whether a `tools/call` answer is a task handle rather than the call's result.
pub(super) fn is_task_handle(response: &RawResponse) -> bool {
    !response.is_rpc_error()
        && response
            .member()
            .get("resultType")
            .and_then(JsonRef::as_str)
            .as_deref()
            == Some("task")
}

fn short(text: Cow<'_, str>) -> String {
    crate::text_util::one_line(&text, MAX_STATUS_CHARS)
}

/// The status of a task handle or a `tasks/get` answer, read in place (a completed task
/// carries the whole result beside it).
fn status_at(task: JsonRef<'_>, at: Duration) -> TaskStatus {
    TaskStatus {
        status: task
            .get("status")
            .and_then(JsonRef::as_str)
            .map_or_else(|| "unknown".to_owned(), short),
        status_message: task
            .get("statusMessage")
            .and_then(JsonRef::as_str)
            .map(short),
        at,
    }
}

fn poll_interval(task: JsonRef<'_>) -> Duration {
    task.get("pollIntervalMs")
        .and_then(JsonRef::as_u64)
        .map_or(tasks::DEFAULT_POLL, Duration::from_millis)
        .clamp(tasks::MIN_POLL, tasks::MAX_POLL)
}

impl Session {
    /// Follows the task `created` (a `tools/call` answer with `resultType: "task"`) to its
    /// end; `started` is when the call began.
    pub(super) async fn follow_task(
        &self,
        created: RawResponse,
        label: &str,
        control: &RequestControl,
        started: Instant,
    ) -> Result<FollowedTask, SessionError> {
        let protocol = |reason: String| SessionError::Protocol {
            request: label.to_owned(),
            reason,
        };
        let handle = created.member();
        let Some(task_id) = handle
            .get("taskId")
            .and_then(JsonRef::as_str)
            .map(Cow::into_owned)
        else {
            return Err(protocol(
                "the server answered with a task (resultType \"task\") that has no taskId"
                    .to_owned(),
            ));
        };
        let mut poll = poll_interval(handle);
        let first = status_at(handle, started.elapsed());
        let mut track = TaskTrack::new(task_id.clone(), created.clone());
        (control.on_task_status)(&task_id, &first);
        track.note(first);

        // A poll in flight ends when the call is cancelled.
        let polling = RequestControl {
            cancel: control.cancel.child_token(),
            ..RequestControl::with_timeouts(control.timeouts)
        };
        let deadline = tokio::time::Instant::from_std(started) + control.timeouts.max_total;
        // inputRequests keys are unique over a task's life: each is answered once, even
        // while the server has not yet taken in the update.
        let mut answered: HashSet<String> = HashSet::new();
        let mut exchanges = Vec::new();
        let mut failed_polls = 0_u32;
        loop {
            tokio::select! {
                () = control.cancel.cancelled() => {
                    self.cancel_extension_task(&task_id).await;
                    return Err(SessionError::Cancelled { request: label.to_owned() });
                }
                () = tokio::time::sleep_until(deadline) => {
                    self.cancel_extension_task(&task_id).await;
                    return Err(SessionError::Timeout {
                        request: label.to_owned(),
                        after: control.timeouts.max_total,
                    });
                }
                () = tokio::time::sleep(poll) => {}
            }
            let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(
                task_id.clone(),
            )));
            let (got, get_id) = match self.request_raw(request, "tasks/get", &polling).await {
                Ok((got, id, _)) if !got.is_rpc_error() => (got, id),
                Ok((got, _, _)) => {
                    failed_polls += 1;
                    let error = super::connection::rpc_error_text(&got.member().to_value());
                    track.note_problem(failed_polls, &error);
                    if failed_polls >= MAX_FAILED_POLLS {
                        return Err(protocol(format!(
                            "tasks/get failed {failed_polls} times in a row, the task is given \
                             up; last: {error}"
                        )));
                    }
                    continue;
                }
                Err(SessionError::Cancelled { .. }) => {
                    self.cancel_extension_task(&task_id).await;
                    return Err(SessionError::Cancelled {
                        request: label.to_owned(),
                    });
                }
                Err(closed @ SessionError::ConnectionClosed { .. }) => return Err(closed),
                Err(error) => {
                    failed_polls += 1;
                    track.note_problem(failed_polls, &error.to_string());
                    if failed_polls >= MAX_FAILED_POLLS {
                        self.cancel_extension_task(&task_id).await;
                        return Err(error);
                    }
                    continue;
                }
            };
            failed_polls = 0;
            let task = got.member();
            poll = poll_interval(task);
            let status = status_at(task, started.elapsed());
            if track.note(status.clone()) {
                (control.on_task_status)(&task_id, &status);
            }
            let end = |member: &str| -> Result<FollowedTask, SessionError> {
                match task.get(member) {
                    Some(part) if part.is_object() => Ok(FollowedTask {
                        response: RawResponse::embedded(&get_id, member, part),
                        track: TaskTrack {
                            result_from: Some(get_id.clone()),
                            ..track.clone()
                        },
                        exchanges: exchanges.clone(),
                    }),
                    _ => Err(protocol(format!(
                        "the task is {} but tasks/get carries no `{member}` object",
                        status.status
                    ))),
                }
            };
            match status.status.as_str() {
                "completed" => return end("result"),
                "failed" => return end("error"),
                "cancelled" => {
                    return Err(protocol(format!(
                        "the server cancelled the task{}",
                        status
                            .status_message
                            .as_deref()
                            .map(|message| format!(": {message}"))
                            .unwrap_or_default()
                    )));
                }
                "input_required" => {}
                // `working`, or a status this era does not know: poll on.
                _ => continue,
            }
            let mut problems = Vec::new();
            let mut requests =
                input_rounds::input_requests(task.get("inputRequests"), &mut problems);
            requests.retain(|(key, ..)| !answered.contains(key));
            if requests.len() > input_rounds::MAX_ASKS_PER_ROUND {
                problems.push(format!(
                    "the task asked {} things at once: the first {} were answered, the rest \
                     left out",
                    requests.len(),
                    input_rounds::MAX_ASKS_PER_ROUND
                ));
                requests.truncate(input_rounds::MAX_ASKS_PER_ROUND);
            }
            if let Some(problem) = problems.pop() {
                track.problem = Some(problem);
            }
            if requests.is_empty() {
                // Asked before and answered: the server has not taken the update in yet.
                continue;
            }
            let mut responses = InputResponses::new();
            let mut unanswered = Vec::new();
            for (key, method, params) in requests {
                if control.cancel.is_cancelled() {
                    break;
                }
                answered.insert(key.clone());
                let ask = ServerAsk {
                    method,
                    params,
                    origin: AskOrigin::Task {
                        task_id: task_id.clone(),
                        key: key.clone(),
                    },
                };
                let exchange = self.answer_ask(ask, control).await;
                match &exchange.reply {
                    AskReply::Result { result } => {
                        responses.insert(key, result.clone());
                    }
                    _ => unanswered.push(input_rounds::exchange_line(&exchange)),
                }
                exchanges.push(exchange);
            }
            if control.cancel.is_cancelled() {
                self.cancel_extension_task(&task_id).await;
                return Err(SessionError::Cancelled {
                    request: label.to_owned(),
                });
            }
            if responses.is_empty() {
                // Polling on would wait for ever for an answer that cannot come.
                self.cancel_extension_task(&task_id).await;
                return Err(protocol(format!(
                    "the task asked for input that Toolscope could not give ({}), so it was \
                     cancelled",
                    unanswered.join("; ")
                )));
            }
            let update = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(
                UpdateTaskParams::new(task_id.clone(), responses),
            ));
            match self.request_raw(update, "tasks/update", &polling).await {
                Ok((ack, _, _)) if ack.is_rpc_error() => {
                    track.problem = Some(format!(
                        "tasks/update was refused: {}",
                        super::connection::rpc_error_text(&ack.member().to_value())
                    ));
                }
                Ok(_) => {}
                Err(error) => track.problem = Some(format!("tasks/update failed: {error}")),
            }
            // The answer is in: look again soon.
            poll = tasks::MIN_POLL;
        }
    }

    /// Asks the server to cancel a task (a short wait: the call is over either way).
    async fn cancel_extension_task(&self, task_id: &str) {
        let control = RequestControl::with_timeouts(super::Timeouts::with_request(CANCEL_WAIT));
        let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
            CancelTaskParams::new(task_id.to_owned()),
        ));
        let _ = self.request_raw(request, "tasks/cancel", &control).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_doc::JsonDoc;

    #[test]
    fn a_task_handle_is_told_from_a_result_and_read_in_place() {
        let response = |text: &str| {
            RawResponse::from_message(std::sync::Arc::new(
                JsonDoc::parse(text.to_owned()).unwrap_or_else(|_| JsonDoc::null()),
            ))
        };
        let handle = response(
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t","status":"working","pollIntervalMs":5}}"#,
        );
        assert!(is_task_handle(&handle));
        assert_eq!(poll_interval(handle.member()), tasks::MIN_POLL, "clamped");
        assert!(!is_task_handle(&response(
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#
        )));
        assert!(!is_task_handle(&response(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","resultType":"task"}}"#
        )));
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"status":"working","statusMessage":"{}"}}}}"#,
            "word ".repeat(1000)
        );
        let status = status_at(response(&long).member(), Duration::ZERO);
        assert!(
            status
                .status_message
                .is_some_and(|m| m.chars().count() == MAX_STATUS_CHARS + 1 && m.ends_with('…'))
        );
    }

    #[test]
    fn a_tasks_result_is_its_own_response_with_the_text_as_sent() {
        let got = RawResponse::from_message(std::sync::Arc::new(
            JsonDoc::parse(
                r#"{"jsonrpc":"2.0","id":9,"result":{"status":"completed","result":{"content":[],"n":1e2 }}}"#
                    .to_owned(),
            )
            .unwrap_or_else(|_| JsonDoc::null()),
        ));
        let part = got.member().get("result");
        let embedded = RawResponse::embedded("9", "result", part.unwrap_or(got.member()));
        assert_eq!(embedded.member().raw(), r#"{"content":[],"n":1e2 }"#);
        assert!(!embedded.is_rpc_error());
    }
}
