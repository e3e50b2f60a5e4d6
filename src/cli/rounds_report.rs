//! The rounds of a call as `call` prints them: what the server asked (server requests in
//! 2025-11-25, `input_required` rounds in 2026-07-28) and what was answered.

use serde_json::{Value, json};

use crate::{
    session::{AskOrigin, Exchange, input_rounds::CallRounds},
    text_util::terminal_safe,
};

fn asked_line(exchange: &Exchange) -> String {
    let key = match &exchange.ask.origin {
        AskOrigin::InputRequired { key, .. } => format!("{key}: "),
        AskOrigin::Request { id } => format!("request #{id}: "),
    };
    format!(
        "{key}{} → {}",
        exchange.ask.summary(),
        exchange.reply.summary()
    )
}

/// An ask of the final request: a server request, or (when the call stopped at an
/// `input_required` answer) an entry of that answer.
fn in_final(exchange: &Exchange, last: usize) -> bool {
    matches!(exchange.ask.origin, AskOrigin::Request { .. }) || in_round(exchange, last)
}

fn in_round(exchange: &Exchange, round: usize) -> bool {
    matches!(&exchange.ask.origin, AskOrigin::InputRequired { round: r, .. } if *r == round)
}

/// The lines of the timeline, or none when the call asked nothing.
pub fn lines(rounds: &CallRounds, final_request_id: &str) -> Vec<String> {
    if rounds.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["Rounds".to_owned()];
    for (index, round) in rounds.earlier.iter().enumerate() {
        let number = index + 1;
        lines.push(format!(
            "  {number}. tools/call #{} → input_required ({} ms)",
            terminal_safe(&round.request_id),
            round.duration.as_millis()
        ));
        for exchange in rounds.exchanges.iter().filter(|e| in_round(e, number)) {
            lines.push(format!(
                "       asked {}",
                terminal_safe(&asked_line(exchange))
            ));
        }
        for problem in &round.problems {
            lines.push(format!("       ! {}", terminal_safe(problem)));
        }
    }
    lines.push(format!(
        "  {}. tools/call #{} → the result below",
        rounds.earlier.len() + 1,
        terminal_safe(final_request_id)
    ));
    let last = rounds.earlier.len() + 1;
    for exchange in rounds.exchanges.iter().filter(|e| in_final(e, last)) {
        lines.push(format!(
            "       the server asked {}",
            terminal_safe(&asked_line(exchange))
        ));
    }
    if let Some(stopped) = &rounds.stopped {
        lines.push(format!("  ! {}", terminal_safe(stopped)));
    }
    lines
}

/// The rounds for `--json`: one entry per `tools/call` sent, with what each was asked (the
/// last is the final answer, printed in full under `response`).
pub fn json(rounds: &CallRounds, final_request_id: &str) -> Value {
    let mut list: Vec<Value> = rounds
        .earlier
        .iter()
        .enumerate()
        .map(|(index, round)| {
            let asked: Vec<&Exchange> = rounds
                .exchanges
                .iter()
                .filter(|e| in_round(e, index + 1))
                .collect();
            json!({
                "round": index + 1,
                "request_id": round.request_id,
                "result_type": "input_required",
                "response": round.response,
                "duration_ms": u64::try_from(round.duration.as_millis()).unwrap_or(u64::MAX),
                "asked": asked,
                "problems": round.problems,
            })
        })
        .collect();
    let last = rounds.earlier.len() + 1;
    let requests: Vec<&Exchange> = rounds
        .exchanges
        .iter()
        .filter(|e| in_final(e, last))
        .collect();
    list.push(json!({
        "round": rounds.earlier.len() + 1,
        "request_id": final_request_id,
        "result_type": "final",
        "asked": requests,
    }));
    Value::Array(list)
}
