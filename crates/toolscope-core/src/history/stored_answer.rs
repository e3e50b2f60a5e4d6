//! A kept call turned back into what a live call gives: its outcome (to analyse again) or why
//! it has none. The window, `history show`, reports and recordings all read calls back here.

use std::sync::Arc;

use serde_json::Value;

use super::StoredCall;
use crate::{
    json_doc::JsonDoc,
    session::{CallOutcome, RawResponse, tasks::input_rounds::CallRounds},
};

/// What a kept call got.
#[derive(Debug)]
pub enum StoredAnswer {
    Answered {
        outcome: Box<CallOutcome>,
        /// The tool's output schema when it was called.
        output_schema: Option<Value>,
    },
    /// It got no answer (cancelled, timed out, the connection failed): why, in words.
    NoAnswer { failure: String },
    /// The kept response is not JSON: the file is damaged.
    Damaged { error: String },
}

impl StoredCall {
    /// What the call asked on its way, as it was kept (nothing when it asked nothing, or
    /// when a Toolscope from before schema step 3 recorded it).
    fn kept_rounds(&self) -> CallRounds {
        self.rounds
            .as_deref()
            .and_then(|text| crate::deep_json::parse_as(text).ok())
            .unwrap_or_default()
    }

    /// The call's answer, moving its response text out (so a big response is not copied).
    pub fn take_answer(&mut self) -> StoredAnswer {
        let Some(text) = self.response.take() else {
            return StoredAnswer::NoAnswer {
                failure: self
                    .failure
                    .clone()
                    .unwrap_or_else(|| "no reason was kept".to_owned()),
            };
        };
        let message = match JsonDoc::try_parse(text) {
            Ok(message) => message,
            Err((error, text)) => {
                self.response = Some(text);
                return StoredAnswer::Damaged {
                    error: format!(
                        "the response kept for call #{} is not JSON ({error}); the history file \
                         may be damaged",
                        self.id
                    ),
                };
            }
        };
        let parse = |text: &str| crate::deep_json::parse(text).ok();
        StoredAnswer::Answered {
            outcome: Box::new(CallOutcome {
                tool: self.tool.clone(),
                arguments: parse(&self.arguments).unwrap_or(Value::Null),
                request_id: self.request_id.clone().unwrap_or_default(),
                response: RawResponse::from_message(Arc::new(message)),
                duration: std::time::Duration::from_millis(self.duration_ms.unwrap_or(0)),
                duplicate_responses: usize::try_from(self.duplicate_responses)
                    .unwrap_or(usize::MAX),
                rounds: Box::new(self.kept_rounds()),
            }),
            output_schema: self.output_schema.as_deref().and_then(parse),
        }
    }
}
