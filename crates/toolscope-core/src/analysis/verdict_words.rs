//! The short words the window's verdict chips say of a call (outcome, contract, wrapping, text
//! mirror), kept here so every face that names them (the window, `toolscope mcp`) says the
//! same words.

use super::{ContractCheck, ErrorKind, TextMirror};

/// `success`, `tool error`, `protocol error`, `input required`.
pub fn outcome_word(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Success => "success",
        ErrorKind::ToolError { .. } => "tool error",
        ErrorKind::ProtocolError { .. } => "protocol error",
        ErrorKind::InputRequired => "input required",
    }
}

/// `contract kept`, `contract broken (2)`, `schema invalid`, `no output schema`, `contract not
/// checked`.
pub fn contract_words(contract: &ContractCheck) -> String {
    match contract {
        ContractCheck::Satisfied { .. } => "contract kept".to_owned(),
        ContractCheck::Violated {
            violations,
            omitted,
            ..
        } => format!("contract broken ({})", violations.len() + omitted),
        ContractCheck::SchemaInvalid { .. } => "schema invalid".to_owned(),
        ContractCheck::NoSchema { .. } => "no output schema".to_owned(),
        ContractCheck::NotChecked { .. } => "contract not checked".to_owned(),
    }
}

/// What a result wrapped by its SDK is called.
pub const WRAPPED_WORDS: &str = "wrapped by the SDK";

/// `text mirrors it`, `text differs`, `no text mirror`, `text only`.
pub fn mirror_words(mirror: &TextMirror) -> &'static str {
    match mirror {
        TextMirror::Matches { .. } => "text mirrors it",
        TextMirror::Differs { .. } => "text differs",
        TextMirror::NoTextBlocks => "no text mirror",
        TextMirror::NoStructuredContent { .. } => "text only",
    }
}
