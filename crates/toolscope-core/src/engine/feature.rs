//! **One way to read a resource or get a prompt**, for every face: the window, `toolscope
//! read` and `prompt`, and cases. The answer is kept as sent, said in words when it is an
//! error (a missing resource in its era's words), and made into the history's row here.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::{
    history::{CallKind, CalledServer, NewCall, ResponseText, Verdict, started_ago},
    session::{RawResponse, RequestControl, Session, SessionError, requests::resources},
};

/// What is asked of the server.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureAsk {
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        arguments: Map<String, Value>,
    },
}

impl FeatureAsk {
    pub fn kind(&self) -> CallKind {
        match self {
            FeatureAsk::Read { .. } => CallKind::Read,
            FeatureAsk::Prompt { .. } => CallKind::Prompt,
        }
    }

    /// The resource's URI or the prompt's name (the history's "tool" column).
    pub fn name(&self) -> &str {
        match self {
            FeatureAsk::Read { uri } => uri,
            FeatureAsk::Prompt { name, .. } => name,
        }
    }

    /// Said as the request it is (`resources/read demo://x`).
    pub fn describe(&self) -> String {
        format!("{} {}", self.kind().method(), self.name())
    }

    pub fn arguments(&self) -> Value {
        match self {
            FeatureAsk::Read { .. } => Value::Object(Map::new()),
            FeatureAsk::Prompt { arguments, .. } => Value::Object(arguments.clone()),
        }
    }
}

/// What came back, and how long it took.
#[derive(Debug)]
pub struct FeatureAnswer {
    pub ask: FeatureAsk,
    pub response: Result<RawResponse, SessionError>,
    pub duration: Duration,
    /// The protocol version the server spoke (a missing resource is said in its era's words).
    pub protocol_version: String,
    /// The trace its span is in, when traces are exported.
    pub trace_id: Option<String>,
}

/// A read's or a prompt's answer read as a tool result would be (its contents or messages as
/// the content blocks a model reads, no structuredContent): what lets a comparison or a
/// report take it beside another.
pub fn answer_analysis(
    response: &RawResponse,
    protocol_version: &str,
) -> crate::analysis::CallAnalysis {
    let era = crate::analysis::ProtocolEra::from_version(protocol_version);
    if response.is_rpc_error() {
        let member = response.member();
        return crate::analysis::analyze_call(
            crate::analysis::CallResponse::RpcError(member),
            None,
            era,
        );
    }
    let blocks = crate::session::requests::feature_items::answer_blocks(response.member());
    let mut shaped = Map::new();
    shaped.insert("content".to_owned(), Value::Array(blocks));
    let shaped = crate::deep_json::DeepValue(Value::Object(shaped));
    let shaped = crate::json_doc::JsonDoc::from_value(&shaped);
    crate::analysis::analyze_call(
        crate::analysis::CallResponse::Result(shaped.root()),
        None,
        era,
    )
}

/// Sends `ask` and waits for its answer.
pub async fn ask(session: &Session, ask: FeatureAsk, control: &RequestControl) -> FeatureAnswer {
    let started = Instant::now();
    let response = match &ask {
        FeatureAsk::Read { uri } => session.read_resource(uri, control).await,
        FeatureAsk::Prompt { name, arguments } => {
            let arguments = (!arguments.is_empty()).then(|| arguments.clone());
            session.get_prompt(name, arguments, control).await
        }
    };
    FeatureAnswer {
        ask,
        response,
        duration: started.elapsed(),
        protocol_version: session.summary().protocol_version.clone(),
        trace_id: session.trace_id(),
    }
}

impl FeatureAnswer {
    pub fn verdict(&self) -> Verdict {
        match &self.response {
            Ok(response) if response.is_rpc_error() => Verdict::ProtocolError,
            Ok(_) => Verdict::Ok,
            Err(error) => Verdict::of_error(error),
        }
    }

    /// Why there is no result, in words: no answer, a JSON-RPC error (a missing resource
    /// said as its era says it); `None` for a result.
    pub fn problem(&self) -> Option<String> {
        let response = match &self.response {
            Ok(response) => response,
            Err(error) => return Some(format!("{}: {error}", self.ask.describe())),
        };
        let (code, message) = response.rpc_error()?;
        let missing = self.ask.kind() == CallKind::Read
            && resources::is_not_found(code, &self.protocol_version, &message);
        Some(if missing {
            format!(
                "the server has no resource at {}: {}",
                self.ask.name(),
                resources::not_found_words(code, &self.protocol_version, &message)
            )
        } else {
            format!(
                "{}: the server answered with JSON-RPC error {code}: {}",
                self.ask.describe(),
                crate::text_util::one_line(&message, 400)
            )
        })
    }

    /// The history's row: the one place a read's or a prompt's row is made.
    pub fn history_row(&self, server: CalledServer<'_>) -> NewCall {
        match &self.response {
            Ok(response) => {
                let mut row = self.ask.row(server, self.duration, self.verdict());
                row.response = Some(ResponseText::Shared(response.message().clone()));
                row.request_id = response
                    .message()
                    .root()
                    .get("id")
                    .map(|id| id.raw().to_owned());
                row
            }
            Err(error) => {
                self.ask
                    .unanswered_row(server, self.duration, self.verdict(), &error.to_string())
            }
        }
    }
}

impl FeatureAsk {
    /// The row of this ask that got no answer (a timeout, a cancel, a broken connection).
    pub fn unanswered_row(
        &self,
        server: CalledServer<'_>,
        waited: Duration,
        verdict: Verdict,
        failure: &str,
    ) -> NewCall {
        NewCall {
            failure: Some(failure.to_owned()),
            ..self.row(server, waited, verdict)
        }
    }

    fn row(&self, server: CalledServer<'_>, took: Duration, verdict: Verdict) -> NewCall {
        let millis = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        NewCall {
            started_at: started_ago(took),
            duration_ms: Some(millis),
            verdict,
            ..server.row(self.kind(), self.name(), &self.arguments())
        }
    }
}
