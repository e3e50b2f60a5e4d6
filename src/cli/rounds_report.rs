//! The rounds of a call as `call` prints them: what the server asked (server requests in
//! 2025-11-25, `input_required` rounds in 2026-07-28) and what was answered.

use serde_json::{Value, json};

use toolscope_core::{
    session::tasks::input_rounds::{CallRounds, exchange_line},
    text_util::terminal_safe,
};

/// Under a URL elicitation the server said was complete.
const COMPLETED: &str =
    "         the server says the page is done (notifications/elicitation/complete)";

/// The lines of the timeline, or none when the call asked nothing.
pub fn lines(rounds: &CallRounds, final_request_id: &str) -> Vec<String> {
    if rounds.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["Rounds".to_owned()];
    for step in rounds.timeline(final_request_id) {
        let id = terminal_safe(step.request_id);
        match step.earlier {
            Some(round) => {
                lines.push(format!(
                    "  {}. tools/call #{id} → input_required ({} ms)",
                    step.number,
                    round.duration.as_millis()
                ));
                for exchange in &step.asked {
                    lines.push(format!(
                        "       asked {}",
                        terminal_safe(&exchange_line(exchange))
                    ));
                    if rounds.completed(exchange) {
                        lines.push(COMPLETED.to_owned());
                    }
                }
                for problem in &round.problems {
                    lines.push(format!("       ! {}", terminal_safe(problem)));
                }
            }
            None => {
                lines.push(format!(
                    "  {}. tools/call #{id} → the result below",
                    step.number
                ));
                for exchange in &step.asked {
                    lines.push(format!(
                        "       the server asked {}",
                        terminal_safe(&exchange_line(exchange))
                    ));
                    if rounds.completed(exchange) {
                        lines.push(COMPLETED.to_owned());
                    }
                }
            }
        }
    }
    if let Some(task) = &rounds.task {
        lines.push(format!("  ran as task {}:", terminal_safe(&task.task_id)));
        for status in &task.statuses {
            lines.push(format!(
                "     {:>6.1} s  {}",
                status.at.as_secs_f64(),
                terminal_safe(&status.describe())
            ));
        }
        if task.statuses_left_out > 0 {
            lines.push(format!(
                "     ({} more statuses left out)",
                task.statuses_left_out
            ));
        }
        if let Some(id) = &task.result_from {
            lines.push(format!(
                "     the result came with tasks/get #{}",
                terminal_safe(id)
            ));
        }
        if let Some(problem) = &task.problem {
            lines.push(format!("     ! {}", terminal_safe(problem)));
        }
    }
    if let Some(stopped) = &rounds.stopped {
        lines.push(format!("  ! {}", terminal_safe(stopped)));
    }
    lines
}

/// The rounds for `--json`: one entry per `tools/call` sent, with what each was asked (the
/// last is the final answer, printed in full under `response`).
pub fn json(rounds: &CallRounds, final_request_id: &str) -> Value {
    let steps = rounds
        .timeline(final_request_id)
        .into_iter()
        .map(|step| match step.earlier {
            Some(round) => json!({
                "round": step.number,
                "request_id": step.request_id,
                "result_type": "input_required",
                "response": round.response,
                "duration_ms": u64::try_from(round.duration.as_millis()).unwrap_or(u64::MAX),
                "asked": step.asked,
                "problems": round.problems,
            }),
            None => json!({
                "round": step.number,
                "request_id": step.request_id,
                "result_type": "final",
                "asked": step.asked,
            }),
        });
    Value::Array(steps.collect())
}
