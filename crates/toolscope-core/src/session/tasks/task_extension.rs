//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663). A server that
//! finds the extension declared in a request may answer `tools/call` with a task
//! (`resultType: "task"`) instead of its result; the server decides, call by call. The
//! client polls `tasks/get` at the task's `pollIntervalMs`: an `input_required` task carries
//! `inputRequests` (answered like a multi-round call's, and sent with `tasks/update`), a
//! `completed` one the call's result, a `failed` one its JSON-RPC error. Cancel sends
//! `tasks/cancel`. There is no `tasks/result` and no `tasks/list` in this era.

use std::{
    collections::HashSet,
    time::{Duration, Instant},
};

use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientRequest, GetTaskParams, GetTaskRequest,
    InputResponses, UpdateTaskParams, UpdateTaskRequest,
};

use crate::json_doc::JsonRef;
use crate::session::{
    SessionError,
    asks::{AskOrigin, AskReply, Exchange, ServerAsk},
    connection::Session,
    requests::raw_response::RawResponse,
    requests::request_control::RequestControl,
    tasks::input_rounds,
    tasks::{self, TaskStatus, TaskTrack},
};

/// `tasks/get` failures in a row after which the task is given up.
const MAX_FAILED_POLLS: u32 = 5;
/// How long `tasks/cancel` is waited for.
const CANCEL_WAIT: Duration = Duration::from_secs(5);
/// The longest status or status message kept (a server may write a novel into one).
const MAX_STATUS_CHARS: usize = 500;

/// A task followed to its end: the call's answer (the task's result or error, as a response
/// to the last `tasks/get`, whose id is in `track.result_from`), the task's statuses and
/// what it asked.
pub(in crate::session) struct FollowedTask {
    pub response: RawResponse,
    pub track: TaskTrack,
    pub exchanges: Vec<Exchange>,
}

/// A status word or message, read no further than it is kept.
fn short(text: JsonRef<'_>) -> Option<String> {
    let (prefix, cut) = text.str_prefix(MAX_STATUS_CHARS * 2)?;
    let line = crate::text_util::one_line(&prefix, MAX_STATUS_CHARS);
    Some(if cut && !line.ends_with('…') {
        format!("{line}…")
    } else {
        line
    })
}

/// The status of a task handle or a `tasks/get` answer, read in place (a completed task
/// carries the whole result beside it).
fn status_at(task: JsonRef<'_>, at: Duration) -> TaskStatus {
    TaskStatus {
        status: task
            .get("status")
            .and_then(short)
            .unwrap_or_else(|| "unknown".to_owned()),
        status_message: task.get("statusMessage").and_then(short),
        at,
    }
}

fn poll_interval(task: JsonRef<'_>) -> Duration {
    task.get("pollIntervalMs")
        .and_then(JsonRef::as_u64)
        .map_or(tasks::DEFAULT_POLL, Duration::from_millis)
        .clamp(tasks::MIN_POLL, tasks::MAX_POLL)
}

/// The most questions one task may ask in all (a server that keeps asking new ones is cut off).
const MAX_TASK_ASKS: usize = input_rounds::MAX_ROUNDS * input_rounds::MAX_ASKS_PER_ROUND;

/// Where a followed task stands between polls.
struct Following {
    track: TaskTrack,
    exchanges: Vec<Exchange>,
    /// `inputRequests` keys sent with a `tasks/update` the server took (keys are unique over
    /// a task's life: each is answered once, even while the server catches up).
    answered: HashSet<String>,
    /// Keys Toolscope could not answer (not declared, no one to ask): the task waits for
    /// them in vain.
    refused: HashSet<String>,
    asks: usize,
}

impl Following {
    /// The task's input requests sorted: those not answered yet (each key once), and those
    /// Toolscope refused before, which the task waits for in vain.
    fn sort_requests(
        &self,
        requests: Vec<(String, String, serde_json::Value)>,
    ) -> (Vec<(String, String, serde_json::Value)>, Vec<String>) {
        let mut new: Vec<(String, String, serde_json::Value)> = Vec::new();
        let mut waiting_in_vain = Vec::new();
        for (key, method, params) in requests {
            if self.refused.contains(&key) {
                waiting_in_vain.push(key);
            } else if !self.answered.contains(&key) && !new.iter().any(|(k, ..)| *k == key) {
                new.push((key, method, params));
            }
        }
        (new, waiting_in_vain)
    }
}

impl Session {
    /// Follows the task `created` (a `tools/call` answer with `resultType: "task"`) to its
    /// end; `started` is when the call began. Every request it sends ends by the call's
    /// deadline.
    pub(in crate::session) async fn follow_task(
        &self,
        created: RawResponse,
        label: &str,
        control: &RequestControl,
        started: Instant,
    ) -> Result<FollowedTask, SessionError> {
        let handle = created.member();
        let Some(task_id) = handle
            .get("taskId")
            .and_then(|id| id.str_prefix(MAX_STATUS_CHARS))
            .map(|(id, _)| id)
        else {
            return Err(SessionError::Protocol {
                request: label.to_owned(),
                reason: "the server answered with a task (resultType \"task\") that has no taskId"
                    .to_owned(),
            });
        };
        let poll = poll_interval(handle);
        let first = status_at(handle, started.elapsed());
        let mut following = Following {
            track: TaskTrack::new(task_id.clone(), created.clone()),
            exchanges: Vec::new(),
            answered: HashSet::new(),
            refused: HashSet::new(),
            asks: 0,
        };
        (control.on_task_status)(&task_id, &first);
        following.track.note(first);
        let deadline = tokio::time::Instant::from_std(started) + control.timeouts.max_total;
        let outcome = self
            .poll_task(
                &task_id,
                poll,
                label,
                control,
                started,
                deadline,
                &mut following,
            )
            .await;
        match outcome {
            Ok(response) => Ok(FollowedTask {
                response,
                track: following.track,
                exchanges: following.exchanges,
            }),
            Err(error) => {
                // The task is let go on the server too (a cancel, a timeout, a task given up).
                if !matches!(error, SessionError::ConnectionClosed { .. }) {
                    self.cancel_extension_task(&task_id).await;
                }
                Err(error)
            }
        }
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "the one loop of follow_task, split out"
    )]
    async fn poll_task(
        &self,
        task_id: &str,
        mut poll: Duration,
        label: &str,
        control: &RequestControl,
        started: Instant,
        deadline: tokio::time::Instant,
        following: &mut Following,
    ) -> Result<RawResponse, SessionError> {
        let protocol = |reason: String| SessionError::Protocol {
            request: label.to_owned(),
            reason,
        };
        let timed_out = || SessionError::Timeout {
            request: label.to_owned(),
            after: control.timeouts.max_total,
        };
        // A poll in flight ends when the call is cancelled.
        let polling = RequestControl {
            cancel: control.cancel.child_token(),
            ..RequestControl::with_timeouts(control.timeouts)
        };
        let mut failed_polls = 0_u32;
        loop {
            tokio::select! {
                () = control.cancel.cancelled() => {
                    return Err(SessionError::Cancelled { request: label.to_owned() });
                }
                () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
                () = tokio::time::sleep(poll) => {}
            }
            let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(
                task_id.to_owned(),
            )));
            let polled =
                tokio::time::timeout_at(deadline, self.request_raw(request, "tasks/get", &polling))
                    .await
                    .map_err(|_| timed_out())?;
            let failure = match polled {
                Ok((got, id, _)) if !got.is_rpc_error() => {
                    failed_polls = 0;
                    let task = got.member();
                    poll = poll_interval(task);
                    let status = status_at(task, started.elapsed());
                    if following.track.note(status.clone()) {
                        (control.on_task_status)(task_id, &status);
                    }
                    match status.status.as_str() {
                        "completed" | "failed" => {
                            let member = if status.status == "completed" {
                                "result"
                            } else {
                                "error"
                            };
                            return match task.get(member) {
                                Some(part) if part.is_object() => {
                                    following.track.result_from = Some(id.clone());
                                    Ok(RawResponse::embedded(&id, member, part))
                                }
                                _ => Err(protocol(format!(
                                    "the task is {} but tasks/get carries no `{member}` object",
                                    status.status
                                ))),
                            };
                        }
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
                        "input_required" => {
                            self.answer_task(
                                task, task_id, label, control, &polling, deadline, following,
                            )
                            .await?;
                            // The answers are in: look again soon.
                            poll = tasks::MIN_POLL;
                        }
                        // `working`, or a status this era does not know: poll on.
                        _ => {}
                    }
                    continue;
                }
                Ok((got, _, _)) => {
                    crate::session::requests::raw_response::rpc_error_words(got.member())
                }
                Err(SessionError::Cancelled { .. }) => {
                    return Err(SessionError::Cancelled {
                        request: label.to_owned(),
                    });
                }
                Err(closed @ SessionError::ConnectionClosed { .. }) => return Err(closed),
                Err(error) => error.to_string(),
            };
            failed_polls += 1;
            following.track.note_problem(failed_polls, &failure);
            if failed_polls >= MAX_FAILED_POLLS {
                return Err(protocol(format!(
                    "tasks/get failed {failed_polls} times in a row, the task is given up; \
                     last: {}",
                    crate::text_util::one_line(&failure, 300)
                )));
            }
        }
    }

    /// Answers what an `input_required` task asks that was not answered yet, and sends the
    /// answers with `tasks/update`. Gives the task up (an `Err`) when it waits for what
    /// Toolscope cannot give, asks too much, or refuses the answers.
    #[allow(clippy::too_many_arguments, reason = "one step of poll_task")]
    async fn answer_task(
        &self,
        task: JsonRef<'_>,
        task_id: &str,
        label: &str,
        control: &RequestControl,
        polling: &RequestControl,
        deadline: tokio::time::Instant,
        following: &mut Following,
    ) -> Result<(), SessionError> {
        let protocol = |reason: String| SessionError::Protocol {
            request: label.to_owned(),
            reason,
        };
        let entries = task.get("inputRequests");
        let listed = entries.map_or(0, JsonRef::len);
        let mut problems = Vec::new();
        let requests = input_rounds::input_requests(entries, &mut problems);
        let readable = requests.len();
        let (mut new, waiting_in_vain) = following.sort_requests(requests);
        if new.is_empty() {
            // Asked before and answered: the server has not taken the update in yet. What it
            // waits for that cannot come (refused, unreadable) ends the task.
            if !waiting_in_vain.is_empty() || listed > readable {
                let mut why: Vec<String> = waiting_in_vain
                    .iter()
                    .map(|key| format!("{key:?} could not be answered"))
                    .collect();
                why.extend(problems);
                return Err(protocol(format!(
                    "the task waits for input Toolscope cannot give ({}), so it was cancelled",
                    crate::text_util::one_line(&why.join("; "), 500)
                )));
            }
            return Ok(());
        }
        if following.asks + new.len() > MAX_TASK_ASKS {
            return Err(protocol(format!(
                "the task asked more than {MAX_TASK_ASKS} things: Toolscope stopped answering \
                 and cancelled it"
            )));
        }
        new.truncate(input_rounds::MAX_ASKS_PER_ROUND);
        if let Some(problem) = problems.pop() {
            following.track.problem = Some(problem);
        }
        let mut responses = InputResponses::new();
        let mut sent_keys = Vec::new();
        let mut unanswered = Vec::new();
        for (key, method, params) in new {
            if control.cancel.is_cancelled() {
                return Err(SessionError::Cancelled {
                    request: label.to_owned(),
                });
            }
            following.asks += 1;
            let ask = ServerAsk {
                method,
                params,
                origin: AskOrigin::Task {
                    task_id: task_id.to_owned(),
                    key: key.clone(),
                },
            };
            let exchange = tokio::time::timeout_at(deadline, self.answer_ask(ask, control))
                .await
                .map_err(|_| SessionError::Timeout {
                    request: label.to_owned(),
                    after: control.timeouts.max_total,
                })?;
            match &exchange.reply {
                AskReply::Result { result } => {
                    responses.insert(key.clone(), result.clone());
                    sent_keys.push(key);
                }
                _ => {
                    unanswered.push(input_rounds::exchange_line(&exchange));
                    following.refused.insert(key);
                }
            }
            following.exchanges.push(exchange);
        }
        if control.cancel.is_cancelled() {
            return Err(SessionError::Cancelled {
                request: label.to_owned(),
            });
        }
        if responses.is_empty() {
            // Polling on would wait for ever for an answer that cannot come.
            return Err(protocol(format!(
                "the task asked for input that Toolscope could not give ({}), so it was \
                 cancelled",
                crate::text_util::one_line(&unanswered.join("; "), 500)
            )));
        }
        let update = UpdateTaskParams::new(task_id.to_owned(), responses);
        self.send_update(update, (label, control, polling), deadline)
            .await?;
        following.answered.extend(sent_keys);
        Ok(())
    }

    /// `tasks/update` with the answers; a refusal ends the task.
    async fn send_update(
        &self,
        update: UpdateTaskParams,
        (label, control, polling): (&str, &RequestControl, &RequestControl),
        deadline: tokio::time::Instant,
    ) -> Result<(), SessionError> {
        let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(update));
        let sent =
            tokio::time::timeout_at(deadline, self.request_raw(request, "tasks/update", polling))
                .await
                .map_err(|_| SessionError::Timeout {
                    request: label.to_owned(),
                    after: control.timeouts.max_total,
                })?;
        let (ack, _, _) = sent?;
        if ack.is_rpc_error() {
            return Err(SessionError::Protocol {
                request: label.to_owned(),
                reason: format!(
                    "tasks/update was refused ({}), so the task was cancelled",
                    crate::session::requests::raw_response::rpc_error_words(ack.member())
                ),
            });
        }
        Ok(())
    }

    /// Asks the server to cancel a task: at most [`CANCEL_WAIT`], however the server stalls
    /// (the call is over either way).
    async fn cancel_extension_task(&self, task_id: &str) {
        let control =
            RequestControl::with_timeouts(crate::session::Timeouts::with_request(CANCEL_WAIT));
        let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
            CancelTaskParams::new(task_id.to_owned()),
        ));
        let _ = tokio::time::timeout(
            CANCEL_WAIT,
            self.request_raw(request, "tasks/cancel", &control),
        )
        .await;
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
        assert!(handle.is_task_handle());
        assert_eq!(poll_interval(handle.member()), tasks::MIN_POLL, "clamped");
        assert!(
            !response(
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#
            )
            .is_task_handle()
        );
        assert!(
            !response(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","resultType":"task"}}"#
            )
            .is_task_handle()
        );
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
