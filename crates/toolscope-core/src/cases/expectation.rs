//! `[case.expect]`: what a case's result must be, and the check of one answered call against it.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::case_file::{CaseFileError, json_text, toml_to_json};
use crate::{
    analysis::{CallAnalysis, ContractCheck, ErrorKind, Sides, TextCompare, TextMirror},
    json_doc::{JsonDoc, JsonRef},
    session::RawResponse,
    text_util::clip_chars,
};

/// Every expectation is optional. A case expects success unless it says otherwise: a result
/// with `isError: true` fails it unless `is_error = true`, a JSON-RPC error unless
/// `protocol_error = true`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expect {
    pub is_error: Option<bool>,
    /// `true`: the server must answer with a JSON-RPC error.
    pub protocol_error: Option<bool>,
    pub contract: Option<ContractExpect>,
    /// structuredContent equals this (as parsed JSON: key order and 3 vs 3.0 do not matter).
    pub structured: Option<Value>,
    /// JSON Pointers into structuredContent, each with the value it must hold.
    pub pointer: Vec<(String, Value)>,
    /// Each must appear in the text blocks (joined by newlines).
    pub text_contains: Vec<String>,
    pub text_mirror: Option<MirrorExpect>,
    pub max_duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContractExpect {
    Satisfied,
    Violated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MirrorExpect {
    /// The text carries the same data as structuredContent.
    Matched,
    /// It does not.
    Differs,
    /// There is nothing to compare: no structuredContent, or no text block.
    Absent,
}

impl ContractExpect {
    /// What the analysis found, in a case's words (`None`: not checked, or no schema).
    pub fn of(check: &ContractCheck) -> Option<Self> {
        match check {
            ContractCheck::Satisfied { .. } => Some(Self::Satisfied),
            check if check.is_violated() => Some(Self::Violated),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Satisfied => "satisfied",
            Self::Violated => "violated",
        }
    }
}

impl MirrorExpect {
    /// What the analysis found, in a case's words.
    pub fn of(mirror: &TextMirror) -> Self {
        match mirror {
            TextMirror::Matches { .. } => Self::Matched,
            TextMirror::Differs { .. } => Self::Differs,
            TextMirror::NoStructuredContent { .. } | TextMirror::NoTextBlocks => Self::Absent,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::Differs => "differs",
            Self::Absent => "absent",
        }
    }
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExpectToml {
    is_error: Option<bool>,
    protocol_error: Option<bool>,
    contract: Option<ContractExpect>,
    structured: Option<toml::Value>,
    /// structuredContent as JSON text, for values TOML cannot hold (null).
    structured_json: Option<String>,
    #[serde(default)]
    pointer: toml::Table,
    #[serde(default)]
    text_contains: Vec<String>,
    text_mirror: Option<MirrorExpect>,
    max_duration_ms: Option<u64>,
}

/// One expectation a result did not meet, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The expectation's key, e.g. `structured`, `pointer /result`, `text_contains`.
    pub expectation: String,
    pub expected: String,
    pub actual: String,
}

impl Failure {
    fn new(expectation: impl Into<String>, expected: impl Into<String>, actual: String) -> Self {
        Self {
            expectation: expectation.into(),
            expected: expected.into(),
            actual,
        }
    }

    /// `structured: expected {"result": 3}, got {"result": 4}`.
    pub fn sentence(&self) -> String {
        format!(
            "{}: expected {}, got {}",
            self.expectation, self.expected, self.actual
        )
    }
}

/// What a case's call came back with.
pub struct Answered<'a> {
    pub response: &'a RawResponse,
    pub analysis: &'a CallAnalysis,
    pub duration: Duration,
}

/// How long a value may be in a failure's words.
const SHOWN_CHARS: usize = 200;

fn shown(value: JsonRef<'_>) -> String {
    value.one_line(SHOWN_CHARS)
}

fn shown_value(value: &Value) -> String {
    let text = crate::deep_json::to_string(value);
    clip_chars(&text, SHOWN_CHARS)
}

/// The same comparison as the text mirror's, in a case's words.
const RESULT_AGAINST_EXPECTED: Sides = Sides {
    actual: "the result",
    expected: "the expectation",
};

/// Where `actual` first differs from `expected`, or `None` when they are equal as JSON.
fn difference(expected: &Value, actual: JsonRef<'_>) -> Option<String> {
    let expected = JsonDoc::from_value(expected);
    match crate::analysis::compare_json(expected.root(), actual.raw(), RESULT_AGAINST_EXPECTED) {
        TextCompare::Equal => None,
        TextCompare::NotJson => Some("the result is not JSON".to_owned()),
        TextCompare::Differs(difference) if difference.pointer.is_empty() => {
            Some(difference.detail)
        }
        TextCompare::Differs(difference) => {
            Some(format!("at {}: {}", difference.pointer, difference.detail))
        }
    }
}

impl Expect {
    pub(super) fn from_toml(parsed: ExpectToml) -> Result<Self, CaseFileError> {
        let structured = match (parsed.structured, parsed.structured_json) {
            (Some(_), Some(_)) => {
                return Err(CaseFileError(
                    "give structured or structured_json, not both".to_owned(),
                ));
            }
            (Some(value), None) => Some(toml_to_json(value)?),
            (None, Some(text)) => {
                Some(json_text(&text).map_err(|error| error.within("structured_json"))?)
            }
            (None, None) => None,
        };
        let mut pointer = Vec::with_capacity(parsed.pointer.len());
        for (at, value) in parsed.pointer {
            if !(at.is_empty() || at.starts_with('/')) {
                return Err(CaseFileError(format!(
                    "pointer {at:?} is not a JSON Pointer: it must start with / (\"/result\")"
                )));
            }
            pointer.push((at, toml_to_json(value)?));
        }
        Ok(Self {
            is_error: parsed.is_error,
            protocol_error: parsed.protocol_error,
            contract: parsed.contract,
            structured,
            pointer,
            text_contains: parsed.text_contains,
            text_mirror: parsed.text_mirror,
            max_duration_ms: parsed.max_duration_ms,
        })
    }

    /// The expectations a read or a prompt cannot meet (they are about a tool's result), by
    /// their keys; empty when the case asks only what such an answer has.
    pub(super) fn tool_only(&self) -> Vec<&'static str> {
        [
            ("is_error", self.is_error.is_some()),
            ("contract", self.contract.is_some()),
            ("structured", self.structured.is_some()),
            ("pointer", !self.pointer.is_empty()),
            ("text_mirror", self.text_mirror.is_some()),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(key, _)| key)
        .collect()
    }

    /// Every expectation a read's or a prompt's answer does not meet: a JSON-RPC error or
    /// not, `text_contains` in the text of its contents or messages, the time it took.
    pub fn check_fetched(
        &self,
        response: &RawResponse,
        text: &str,
        duration: Duration,
    ) -> Vec<Failure> {
        let mut failures = Vec::new();
        let rpc_error = response.rpc_error();
        match (self.protocol_error, &rpc_error) {
            (Some(true), None) => failures.push(Failure::new(
                "protocol_error",
                "a JSON-RPC error",
                "a result".to_owned(),
            )),
            (Some(false) | None, Some((code, message))) => failures.push(Failure::new(
                "protocol_error",
                "a result",
                format!(
                    "JSON-RPC error {code}: {}",
                    clip_chars(message, SHOWN_CHARS)
                ),
            )),
            _ => {}
        }
        if rpc_error.is_none() {
            self.check_text(text, &mut failures);
        }
        self.check_duration(duration, &mut failures);
        failures
    }

    fn check_text(&self, text: &str, failures: &mut Vec<Failure>) {
        for wanted in &self.text_contains {
            if !text.contains(wanted.as_str()) {
                let actual = if text.is_empty() {
                    "no text".to_owned()
                } else {
                    format!("{:?}", clip_chars(text, SHOWN_CHARS))
                };
                failures.push(Failure::new(
                    "text_contains",
                    format!("the text to contain {wanted:?}"),
                    actual,
                ));
            }
        }
    }

    fn check_duration(&self, duration: Duration, failures: &mut Vec<Failure>) {
        if let Some(limit) = self.max_duration_ms {
            let took = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
            if took > limit {
                failures.push(Failure::new(
                    "max_duration_ms",
                    format!("at most {limit} ms"),
                    format!("{took} ms"),
                ));
            }
        }
    }

    /// Every expectation the answer does not meet (empty: the case passes).
    pub fn check(&self, answered: &Answered<'_>) -> Vec<Failure> {
        let mut failures = Vec::new();
        let analysis = answered.analysis;
        let rpc_error = answered.response.is_rpc_error();
        match (self.protocol_error, rpc_error) {
            (Some(true), false) => failures.push(Failure::new(
                "protocol_error",
                "a JSON-RPC error",
                "a result".to_owned(),
            )),
            (Some(false) | None, true) => failures.push(Failure::new(
                "protocol_error",
                "a result",
                format!("a JSON-RPC error: {}", analysis.error_kind.describe()),
            )),
            _ => {}
        }
        if rpc_error {
            // Nothing else of a result can be checked.
            return failures;
        }
        {
            let expected = self.is_error.unwrap_or(false);
            let actual = matches!(analysis.error_kind, ErrorKind::ToolError { .. });
            if actual != expected {
                let detail = match &analysis.error_kind {
                    ErrorKind::ToolError {
                        message: Some(message),
                    } => format!("true ({})", clip_chars(message, SHOWN_CHARS)),
                    _ => actual.to_string(),
                };
                failures.push(Failure::new("is_error", expected.to_string(), detail));
            }
        }
        if let Some(expected) = self.contract
            && ContractExpect::of(&analysis.contract) != Some(expected)
        {
            failures.push(Failure::new(
                "contract",
                expected.as_str(),
                analysis.contract.describe(),
            ));
        }
        let structured = answered
            .response
            .result_ref()
            .and_then(|result| result.get("structuredContent"));
        if let Some(expected) = &self.structured {
            match structured {
                None => failures.push(Failure::new(
                    "structured",
                    shown_value(expected),
                    "no structuredContent".to_owned(),
                )),
                Some(actual) => {
                    if let Some(difference) = difference(expected, actual) {
                        failures.push(Failure::new(
                            "structured",
                            shown_value(expected),
                            format!("{} ({difference})", shown(actual)),
                        ));
                    }
                }
            }
        }
        for (at, expected) in &self.pointer {
            let key = format!("pointer {at}");
            match structured.and_then(|value| value.pointer(at)) {
                None if structured.is_none() => {
                    failures.push(Failure::new(
                        key,
                        shown_value(expected),
                        "no structuredContent".to_owned(),
                    ));
                }
                None => failures.push(Failure::new(
                    key,
                    shown_value(expected),
                    "nothing at that pointer".to_owned(),
                )),
                Some(actual) => {
                    if difference(expected, actual).is_some() {
                        failures.push(Failure::new(key, shown_value(expected), shown(actual)));
                    }
                }
            }
        }
        if !self.text_contains.is_empty() {
            let text = analysis
                .content
                .iter()
                .filter_map(crate::analysis::ContentBlockView::text)
                .collect::<Vec<_>>()
                .join("\n");
            self.check_text(&text, &mut failures);
        }
        if let Some(expected) = self.text_mirror
            && MirrorExpect::of(&analysis.text_mirror) != expected
        {
            failures.push(Failure::new(
                "text_mirror",
                expected.as_str(),
                analysis.text_mirror.describe(),
            ));
        }
        self.check_duration(answered.duration, &mut failures);
        failures
    }
}
