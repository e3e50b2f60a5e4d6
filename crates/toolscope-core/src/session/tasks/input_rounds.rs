//! Multi-round calls (2026-07-28, SEP-2322): a `tools/call` may be answered with
//! `resultType: "input_required"`, a map of `inputRequests` and an opaque `requestState`. The
//! client answers each request and sends the call again with a new JSON-RPC id, the answers
//! under `inputResponses` and `requestState` echoed exactly.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json_doc::JsonRef;
use crate::session::{
    asks::{AskOrigin, Exchange},
    requests::raw_response::RawResponse,
};

/// How many `input_required` answers one call follows before it stops (a server that keeps
/// asking must not keep the call alive for ever; rmcp's own limit is 10).
pub const MAX_ROUNDS: usize = 25;
/// How many `inputRequests` entries of one round are answered (a person answers each one).
pub const MAX_ASKS_PER_ROUND: usize = 32;

/// What an `input_required` result asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequired {
    /// `(key, method, params)` of each entry of `inputRequests`, in the server's order.
    pub requests: Vec<(String, String, Value)>,
    /// The `requestState` to echo, as the string it is.
    pub request_state: Option<String>,
    /// What is wrong with the result, in words (an entry without a method, a state that is
    /// not a string); the call goes on with what could be read.
    pub problems: Vec<String>,
}

/// The `input_required` request of a response, or `None` for any other answer.
pub fn input_required(response: &RawResponse) -> Option<InputRequired> {
    if response.is_rpc_error() {
        return None;
    }
    read(response.member())
}

fn read(result: JsonRef<'_>) -> Option<InputRequired> {
    let result_type = result.get("resultType")?.as_str()?;
    if result_type != "input_required" {
        return None;
    }
    let mut problems = Vec::new();
    let requests = input_requests(result.get("inputRequests"), &mut problems);
    let request_state = match result.get("requestState") {
        None => None,
        Some(state) => match state.as_str() {
            Some(text) => Some(text.into_owned()),
            None => {
                problems.push(
                    "requestState is not a string: it cannot be echoed, so it was left out"
                        .to_owned(),
                );
                None
            }
        },
    };
    if requests.is_empty() && request_state.is_none() && problems.is_empty() {
        problems.push(
            "an input_required result must carry inputRequests or requestState; it has neither"
                .to_owned(),
        );
    }
    Some(InputRequired {
        requests,
        request_state,
        problems,
    })
}

/// The entries of an `inputRequests` map, `(key, method, params)` in the server's order
/// (an `input_required` result's, or an `input_required` task's); what cannot be read is
/// told in `problems` and left out.
pub(in crate::session) fn input_requests(
    entries: Option<JsonRef<'_>>,
    problems: &mut Vec<String>,
) -> Vec<(String, String, Value)> {
    let mut requests = Vec::new();
    match entries {
        Some(entries) if entries.is_object() => {
            for (key, entry) in entries.entries() {
                let too_deep = entry
                    .get("params")
                    .is_some_and(|params| params.depth() > crate::session::asks::MAX_ASK_DEPTH);
                if too_deep {
                    problems.push(format!(
                        "inputRequests[{key:?}] nests deeper than {} levels: it was left \
                         unanswered",
                        crate::session::asks::MAX_ASK_DEPTH
                    ));
                    continue;
                }
                match entry.get("method").and_then(JsonRef::as_str) {
                    Some(method) => requests.push((
                        key.into_owned(),
                        method.into_owned(),
                        entry
                            .get("params")
                            .map_or_else(|| Value::Object(Default::default()), JsonRef::to_value),
                    )),
                    None => problems.push(format!(
                        "inputRequests[{key:?}] has no method: it was left unanswered"
                    )),
                }
            }
        }
        Some(_) => problems.push("inputRequests is not an object: nothing to answer".to_owned()),
        None => {}
    }
    requests
}

/// One `input_required` answer of a call and what was sent back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EarlierRound {
    /// The JSON-RPC id of the `tools/call` this round answered.
    pub request_id: String,
    pub response: RawResponse,
    #[serde(
        rename = "duration_ms",
        serialize_with = "crate::session::asks::millis",
        deserialize_with = "crate::session::asks::from_millis"
    )]
    pub duration: Duration,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// Everything a call asked of the client along the way, and its earlier rounds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CallRounds {
    /// The `input_required` answers before the final one, in order (2026-07-28).
    pub earlier: Vec<EarlierRound>,
    /// Every ask answered while the call ran: server requests (2025-11-25) and the entries of
    /// the earlier rounds, in the order they were answered.
    pub exchanges: Vec<Exchange>,
    /// The task the call ran as, with its statuses (2025-11-25 tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::session::tasks::task_status::TaskTrack>,
    /// The URL elicitations the server said were complete (`notifications/elicitation/complete`)
    /// while the call ran, by id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub completed_elicitations: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Set when the call stopped following rounds (the limit, or a cancel between rounds).
    pub stopped: Option<String>,
}

impl CallRounds {
    pub fn is_empty(&self) -> bool {
        self.earlier.is_empty()
            && self.exchanges.is_empty()
            && self.stopped.is_none()
            && self.task.is_none()
            && self.completed_elicitations.is_empty()
    }

    /// Each `tools/call` sent, in order, with what the server asked along with it; the last
    /// step is the final answer (`final_request_id`). The command line and the window show
    /// the same timeline.
    pub fn timeline<'a>(&'a self, final_request_id: &'a str) -> Vec<TimelineStep<'a>> {
        let last = self.earlier.len() + 1;
        let mut steps: Vec<TimelineStep<'a>> = self
            .earlier
            .iter()
            .enumerate()
            .map(|(index, round)| TimelineStep {
                number: index + 1,
                request_id: &round.request_id,
                earlier: Some(round),
                asked: self
                    .exchanges
                    .iter()
                    .filter(|exchange| in_round(exchange, index + 1))
                    .collect(),
            })
            .collect();
        steps.push(TimelineStep {
            number: last,
            request_id: final_request_id,
            earlier: None,
            // Server requests (2025-11-25) come while the final request runs; so do a
            // task's questions and the entries of an `input_required` answer the call
            // stopped at.
            asked: self
                .exchanges
                .iter()
                .filter(|exchange| {
                    matches!(
                        exchange.ask.origin,
                        AskOrigin::Request { .. } | AskOrigin::Task { .. }
                    ) || in_round(exchange, last)
                })
                .collect(),
        });
        steps
    }
}

/// One `tools/call` of a call and what was asked with it.
#[derive(Debug)]
pub struct TimelineStep<'a> {
    pub number: usize,
    pub request_id: &'a str,
    /// The `input_required` round this request got, or `None` for the final answer.
    pub earlier: Option<&'a EarlierRound>,
    pub asked: Vec<&'a Exchange>,
}

fn in_round(exchange: &Exchange, round: usize) -> bool {
    matches!(&exchange.ask.origin, AskOrigin::InputRequired { round: r, .. } if *r == round)
}

/// An ask and its answer on one line: `key: asked for input: … → accept {…}`.
pub fn exchange_line(exchange: &Exchange) -> String {
    let key = match &exchange.ask.origin {
        AskOrigin::InputRequired { key, .. } | AskOrigin::Task { key, .. } => format!("{key}: "),
        AskOrigin::Request { id } => format!("request #{id}: "),
    };
    format!(
        "{key}{} → {}",
        exchange.ask.summary(),
        exchange.reply.summary()
    )
}

impl CallRounds {
    /// Keeps of `completed` (ids the session heard while the call ran) those of this call's
    /// own URL elicitations: a call on the same server may have heard others'.
    pub fn keep_completions(&mut self, completed: Vec<String>) {
        let own: Vec<&str> = self
            .exchanges
            .iter()
            .filter(|exchange| exchange.ask.is_url_elicitation())
            .filter_map(|exchange| {
                exchange
                    .ask
                    .params
                    .get("elicitationId")
                    .and_then(Value::as_str)
            })
            .collect();
        for id in completed {
            if own.contains(&id.as_str()) && !self.completed_elicitations.contains(&id) {
                self.completed_elicitations.push(id);
            }
        }
    }

    /// Whether the server said the URL elicitation of `exchange` was complete while the call
    /// ran (`notifications/elicitation/complete` with its `elicitationId`).
    pub fn completed(&self, exchange: &Exchange) -> bool {
        exchange.ask.is_url_elicitation()
            && exchange
                .ask
                .params
                .get("elicitationId")
                .and_then(Value::as_str)
                .is_some_and(|id| self.completed_elicitations.iter().any(|done| done == id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_doc::JsonDoc;

    fn read_text(text: &str) -> Option<InputRequired> {
        let doc = JsonDoc::try_parse(text.to_owned()).unwrap_or_else(|_| panic!("json"));
        read(doc.root())
    }

    #[test]
    fn an_input_required_result_is_read_in_the_servers_order_with_its_state_intact() {
        let asked = read_text(
            r#"{"resultType":"input_required","inputRequests":{
                "z":{"method":"elicitation/create","params":{"message":"Name?"}},
                "a":{"method":"roots/list"}},
              "requestState":"opaque \u00e9 \"state\""}"#,
        )
        .unwrap_or_else(|| panic!("input required"));
        assert_eq!(asked.requests.len(), 2);
        assert_eq!(asked.requests[0].0, "z");
        assert_eq!(asked.requests[1].2, serde_json::json!({}));
        assert_eq!(asked.request_state.as_deref(), Some("opaque é \"state\""));
        assert!(asked.problems.is_empty());
    }

    #[test]
    fn complete_results_are_not_rounds_and_odd_ones_are_explained() {
        assert!(read_text(r#"{"content":[]}"#).is_none());
        assert!(read_text(r#"{"resultType":"complete","content":[]}"#).is_none());
        let odd = read_text(
            r#"{"resultType":"input_required","inputRequests":{"x":{}},"requestState":7}"#,
        )
        .unwrap_or_else(|| panic!("input required"));
        assert!(odd.requests.is_empty());
        assert_eq!(odd.problems.len(), 2, "{:?}", odd.problems);
        let empty = read_text(r#"{"resultType":"input_required"}"#)
            .unwrap_or_else(|| panic!("input required"));
        assert!(empty.problems[0].contains("neither"));
    }
}
