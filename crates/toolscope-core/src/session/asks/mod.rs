//! What a server asks of the client (elicitation, sampling, roots) and how it was answered.
//! The same ask comes two ways: as a real JSON-RPC request (2025-11-25) or as an entry of an
//! `input_required` result's `inputRequests` (2026-07-28). Either way it is answered through
//! an [`Asker`] (a person in the window, flags in the command line), except roots, which the
//! session answers from the server's list.

pub(in crate::session) mod answering;
pub(crate) mod client_handler;
pub mod client_side;

use std::{
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const ELICITATION: &str = "elicitation/create";
pub const SAMPLING: &str = "sampling/createMessage";
pub const ROOTS: &str = "roots/list";

/// How deep the params of an ask may nest: a form or a conversation is a few levels; 10,000
/// levels is an attack on whoever copies or prints it.
pub const MAX_ASK_DEPTH: usize = 64;

/// JSON-RPC "method not found": what a client answers for a capability it did not declare.
pub const NOT_DECLARED_CODE: i32 = -32601;
/// The code of an ask refused or not answered: nobody to answer, withdrawn, a sampling
/// request the person rejected (as the TypeScript SDK's clients send).
pub const REFUSED_CODE: i32 = -1;

/// Where an ask came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum AskOrigin {
    /// A JSON-RPC request from the server, by its id.
    Request { id: String },
    /// The `key` entry of `inputRequests` in the `input_required` result of round `round`
    /// (1 is the first answer of the call).
    InputRequired { round: usize, key: String },
    /// The `key` entry of `inputRequests` of an `input_required` task (the 2026-07-28 tasks
    /// extension), answered with `tasks/update`.
    Task { task_id: String, key: String },
}

/// One thing a server asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerAsk {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list` (or whatever an
    /// `inputRequests` entry named).
    pub method: String,
    /// The request's params exactly as sent (an empty object when there were none).
    pub params: Value,
    pub origin: AskOrigin,
}

impl ServerAsk {
    /// Whether this is a URL-mode elicitation (the person is sent to a web page).
    pub fn is_url_elicitation(&self) -> bool {
        self.method == ELICITATION && self.params.get("mode").and_then(Value::as_str) == Some("url")
    }

    /// A short description for the log and the command line.
    pub fn summary(&self) -> String {
        let message = self
            .params
            .get("message")
            .and_then(Value::as_str)
            .map(|message| format!(": {}", crate::text_util::one_line(message, 120)));
        match self.method.as_str() {
            ELICITATION if self.is_url_elicitation() => format!(
                "asked to open {}{}",
                self.params
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or("(no url)"),
                message.unwrap_or_default()
            ),
            ELICITATION => format!("asked for input{}", message.unwrap_or_default()),
            SAMPLING => {
                let count = self
                    .params
                    .get("messages")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                format!("asked the model for a reply ({count} message(s))")
            }
            ROOTS => "asked for the roots".to_owned(),
            other => format!("asked {other}"),
        }
    }
}

/// The answer to one ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum AskReply {
    /// The result sent back (an `ElicitResult`, a `CreateMessageResult`, a `ListRootsResult`).
    Result { result: Value },
    /// Refused with a JSON-RPC error (a rejected sampling request, a capability not declared).
    /// In an `input_required` round a refused entry is left out of `inputResponses`.
    Refused { code: i32, message: String },
}

impl AskReply {
    pub fn refused(code: i32, message: impl Into<String>) -> Self {
        Self::Refused {
            code,
            message: message.into(),
        }
    }

    /// A short description: "accept {…}", "decline", "reply by model x", "refused: …".
    pub fn summary(&self) -> String {
        match self {
            Self::Result { result } => {
                if let Some(action) = result.get("action").and_then(Value::as_str) {
                    match result.get("content") {
                        Some(content) if !content.is_null() => format!(
                            "{action} {}",
                            crate::text_util::one_line(&content.to_string(), 160)
                        ),
                        _ => action.to_owned(),
                    }
                } else if let Some(roots) = result.get("roots").and_then(Value::as_array) {
                    format!("{} root(s)", roots.len())
                } else if result.get("role").is_some() {
                    let model = result.get("model").and_then(Value::as_str).unwrap_or("?");
                    format!("a reply as {model}")
                } else {
                    crate::text_util::one_line(&result.to_string(), 160)
                }
            }
            Self::Refused { code, message } => format!("refused ({code}): {message}"),
        }
    }
}

/// Who answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The asker: the person at the window, or the command line's flags.
    Asker,
    /// The session, from the server's roots list.
    RootsList,
    /// The session, because Toolscope did not declare the capability (or has no asker).
    Session,
    /// Nobody: the server withdrew the request, or the call was cancelled meanwhile.
    Withdrawn,
}

/// One ask and its answer, as a round of a call shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub ask: ServerAsk,
    pub reply: AskReply,
    pub answered_by: AnsweredBy,
    /// For ordering a call's exchanges while it runs (not kept in the history).
    #[serde(skip, default = "SystemTime::now")]
    pub asked_at: SystemTime,
    /// How long the answer took (the person's thinking time, mostly).
    #[serde(
        rename = "took_ms",
        serialize_with = "millis",
        deserialize_with = "from_millis"
    )]
    pub took: Duration,
}

pub(in crate::session) fn millis<S: serde::Serializer>(
    duration: &Duration,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

pub(in crate::session) fn from_millis<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    u64::deserialize(deserializer).map(Duration::from_millis)
}

/// Who answers what a server asks during a session (elicitation, sampling): the person at the
/// window (`workbench`'s asker), the command line's flags and a case's answers
/// (`answers::FixedAnswers`). The answer may take as long as the person thinks; dropping the
/// future withdraws the ask.
#[async_trait::async_trait]
pub trait AnswerAsks: Send + Sync {
    async fn answer(&self, ask: ServerAsk) -> AskReply;
}

/// An asker made of a closure that returns the answer's future (tests, and small askers).
pub fn asker_fn<F, Answer>(answer: F) -> Asker
where
    F: Fn(ServerAsk) -> Answer + Send + Sync + 'static,
    Answer: Future<Output = AskReply> + Send + 'static,
{
    Arc::new(FnAsker(answer))
}

struct FnAsker<F>(F);

#[async_trait::async_trait]
impl<F, Answer> AnswerAsks for FnAsker<F>
where
    F: Fn(ServerAsk) -> Answer + Send + Sync,
    Answer: Future<Output = AskReply> + Send,
{
    async fn answer(&self, ask: ServerAsk) -> AskReply {
        (self.0)(ask).await
    }
}

/// The asker a connection's client side holds.
pub type Asker = Arc<dyn AnswerAsks>;

/// The exchanges of a session in order, so a call can pick up those made while it ran.
#[derive(Debug, Clone, Default)]
pub struct ExchangeLog {
    inner: Arc<Mutex<ExchangeLogInner>>,
}

#[derive(Debug, Default)]
struct ExchangeLogInner {
    /// The sequence number of `entries[0]`.
    first: u64,
    entries: std::collections::VecDeque<Exchange>,
}

/// How many exchanges a session keeps (a flood of requests must not grow memory for good).
const MAX_EXCHANGES: usize = 1_000;

impl ExchangeLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, ExchangeLogInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn push(&self, exchange: Exchange) {
        let mut inner = self.lock();
        inner.entries.push_back(exchange);
        while inner.entries.len() > MAX_EXCHANGES {
            inner.entries.pop_front();
            inner.first += 1;
        }
    }

    /// A mark to read from with [`Self::since`].
    pub fn mark(&self) -> u64 {
        let inner = self.lock();
        inner.first + inner.entries.len() as u64
    }

    /// The exchanges made since `mark`, in order.
    pub fn since(&self, mark: u64) -> Vec<Exchange> {
        let inner = self.lock();
        let skip = usize::try_from(mark.saturating_sub(inner.first)).unwrap_or(usize::MAX);
        inner.entries.iter().skip(skip).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exchange(n: usize) -> Exchange {
        Exchange {
            ask: ServerAsk {
                method: ROOTS.to_owned(),
                params: json!({}),
                origin: AskOrigin::Request { id: n.to_string() },
            },
            reply: AskReply::Result {
                result: json!({"roots": []}),
            },
            answered_by: AnsweredBy::RootsList,
            asked_at: SystemTime::now(),
            took: Duration::ZERO,
        }
    }

    #[test]
    fn a_call_reads_the_exchanges_made_since_its_mark_even_past_the_cap() {
        let log = ExchangeLog::default();
        log.push(exchange(0));
        let mark = log.mark();
        log.push(exchange(1));
        log.push(exchange(2));
        let since = log.since(mark);
        assert_eq!(since.len(), 2);
        assert_eq!(
            since[0].ask.origin,
            AskOrigin::Request { id: "1".to_owned() }
        );
        for n in 0..MAX_EXCHANGES + 10 {
            log.push(exchange(n));
        }
        assert_eq!(log.since(0).len(), MAX_EXCHANGES);
        assert!(log.since(log.mark()).is_empty());
    }

    #[test]
    fn summaries_say_what_was_asked_and_answered() {
        let ask = ServerAsk {
            method: ELICITATION.to_owned(),
            params: json!({"mode": "url", "url": "https://example.com/pay", "message": "Pay"}),
            origin: AskOrigin::InputRequired {
                round: 1,
                key: "pay".to_owned(),
            },
        };
        assert!(ask.is_url_elicitation());
        assert_eq!(ask.summary(), "asked to open https://example.com/pay: Pay");
        let reply = AskReply::Result {
            result: json!({"action": "accept", "content": {"name": "Ada"}}),
        };
        assert_eq!(reply.summary(), r#"accept {"name":"Ada"}"#);
        assert_eq!(AskReply::refused(-1, "no").summary(), "refused (-1): no");
    }
}
