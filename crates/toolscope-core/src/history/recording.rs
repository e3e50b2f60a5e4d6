//! A recording: calls of the history written to one JSON file, with each response exactly as
//! the server sent it, so another Toolscope shows the same panes and analysis without the
//! server. Read back into a history (an in-memory one, to look at it offline).

use serde::Serialize;

use super::{CallKind, HistoryError, HistoryStore, NewCall, ResponseText, StoredCall, Verdict};
use crate::json_doc::{JsonDoc, JsonRef};

/// The `format` member that marks a recording.
pub const RECORDING_FORMAT: &str = "toolscope-recording";
/// The recording version this build writes and reads.
pub const RECORDING_VERSION: u64 = 1;

/// One call, as the recording writes it (`response` is written apart, as received).
#[derive(Serialize)]
struct RecordedCall<'a> {
    id: i64,
    /// A read or a prompt (a tool call has none: older readers see what they know).
    #[serde(skip_serializing_if = "is_call")]
    kind: CallKind,
    /// The client a proxied call came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
    started_at: &'a str,
    duration_ms: Option<u64>,
    server: &'a str,
    server_version: Option<&'a str>,
    protocol_version: Option<&'a str>,
    server_info: Option<serde_json::Value>,
    tool: &'a str,
    arguments: serde_json::Value,
    request_id: Option<&'a str>,
    duplicate_responses: u64,
    output_schema: Option<serde_json::Value>,
    listed: bool,
    verdict: Verdict,
    failure: Option<&'a str>,
    note: &'a str,
}

fn is_call(kind: &CallKind) -> bool {
    *kind == CallKind::Call
}

fn parsed(text: Option<&str>) -> Option<serde_json::Value> {
    text.and_then(|text| crate::deep_json::parse(text).ok())
}

/// Writes the calls (read whole, oldest first) as a recording.
pub fn write_recording(
    calls: &[StoredCall],
    exported_at: &str,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let header = serde_json::json!({
        "format": RECORDING_FORMAT,
        "version": RECORDING_VERSION,
        "exported_at": exported_at,
        "toolscope": env!("CARGO_PKG_VERSION"),
    });
    let header = serde_json::to_string(&header).unwrap_or_default();
    // `{…}` without its closing brace, then the calls.
    out.write_all(&header.as_bytes()[..header.len() - 1])?;
    out.write_all(b",\"calls\":[")?;
    for (at, call) in calls.iter().enumerate() {
        if at > 0 {
            out.write_all(b",")?;
        }
        let recorded = RecordedCall {
            id: call.id,
            kind: call.kind,
            client: call.client.as_deref(),
            started_at: &call.started_at,
            duration_ms: call.duration_ms,
            server: &call.server,
            server_version: call.server_version.as_deref(),
            protocol_version: call.protocol_version.as_deref(),
            server_info: parsed(call.server_info.as_deref()),
            tool: &call.tool,
            arguments: parsed(Some(&call.arguments)).unwrap_or(serde_json::Value::Null),
            request_id: call.request_id.as_deref(),
            duplicate_responses: call.duplicate_responses,
            output_schema: parsed(call.output_schema.as_deref()),
            listed: call.listed,
            verdict: call.verdict,
            failure: call.failure.as_deref(),
            note: &call.note,
        };
        let mut text = Vec::new();
        crate::deep_json::serialize_to_writer(&recorded, &mut text, false)
            .map_err(std::io::Error::other)?;
        out.write_all(b"\n")?;
        out.write_all(&text[..text.len() - 1])?;
        // What the call asked on its way, as kept (its text written as it is: it may nest as
        // deep as a server's answer did).
        if let Some(rounds) = call
            .rounds
            .as_deref()
            .filter(|rounds| JsonDoc::parse((*rounds).to_owned()).is_ok())
        {
            out.write_all(b",\"rounds\":")?;
            out.write_all(rounds.trim().as_bytes())?;
        }
        out.write_all(b",\"response\":")?;
        // The response exactly as received; a damaged one (not JSON) cannot be written raw.
        match call.response.as_deref() {
            Some(response) if JsonDoc::parse(response.to_owned()).is_ok() => {
                out.write_all(response.trim().as_bytes())?;
            }
            _ => out.write_all(b"null")?,
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n]}\n")
}

fn text_of(call: JsonRef<'_>, key: &str) -> Option<String> {
    call.get(key)
        .and_then(|value| value.as_str())
        .map(|text| text.into_owned())
}

/// The JSON text of a member (written compact), when present and not null.
fn json_of(call: JsonRef<'_>, key: &str) -> Option<String> {
    call.get(key)
        .filter(|value| !value.is_null())
        .map(|value| value.one_line(usize::MAX))
}

/// Why a recording cannot be read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RecordingError {
    #[error("it is not JSON ({0})")]
    NotJson(String),
    #[error(
        "it is not a Toolscope recording (its \"format\" is not \"{RECORDING_FORMAT}\"; make \
         one with `toolscope history export`)"
    )]
    NotARecording,
    #[error(
        "it is a recording of version {}, and this Toolscope reads version \
         {RECORDING_VERSION}; update Toolscope",
        .0.map_or_else(|| "(none)".to_owned(), |v| v.to_string())
    )]
    Version(Option<u64>),
    #[error("it has no \"calls\" list")]
    NoCalls,
    #[error("call #{call} of the recording {problem}")]
    Call { call: usize, problem: &'static str },
    #[error(transparent)]
    Store(#[from] HistoryError),
}

/// Reads a recording into `store`; returns how many calls it held. The calls keep their
/// times, verdicts and notes; they get the store's own ids. The store keeps them all (its
/// size cap is lifted: a recording is shown whole or not at all).
pub fn read_recording(store: &mut dyn HistoryStore, text: String) -> Result<usize, RecordingError> {
    store.set_cap_bytes(u64::MAX)?;
    let doc = JsonDoc::parse(text).map_err(|error| RecordingError::NotJson(error.to_string()))?;
    let root = doc.root();
    let format = root.get("format").and_then(|format| format.as_str());
    if format.as_deref() != Some(RECORDING_FORMAT) {
        return Err(RecordingError::NotARecording);
    }
    let version = root.get("version").and_then(|version| version.as_u64());
    if version != Some(RECORDING_VERSION) {
        return Err(RecordingError::Version(version));
    }
    let Some(calls) = root.get("calls").filter(|calls| calls.is_array()) else {
        return Err(RecordingError::NoCalls);
    };
    let mut count = 0;
    for (at, call) in calls.items().enumerate() {
        let place = |problem| RecordingError::Call {
            call: at + 1,
            problem,
        };
        let (Some(tool), Some(started_at)) = (text_of(call, "tool"), text_of(call, "started_at"))
        else {
            return Err(place("has no tool or started_at"));
        };
        let verdict = text_of(call, "verdict")
            .and_then(|word| Verdict::parse(&word))
            .ok_or_else(|| place("has no known verdict"))?;
        // The response's text as it stands in the file: exactly as the server sent it.
        let response = call
            .get("response")
            .filter(|response| !response.is_null())
            .map(|response| ResponseText::Owned(response.raw().to_owned()));
        let new = NewCall {
            kind: text_of(call, "kind")
                .and_then(|word| CallKind::parse(&word))
                .unwrap_or_default(),
            client: text_of(call, "client"),
            started_at,
            duration_ms: call.get("duration_ms").and_then(|ms| ms.as_u64()),
            server: text_of(call, "server").unwrap_or_default(),
            server_version: text_of(call, "server_version"),
            protocol_version: text_of(call, "protocol_version"),
            server_info: json_of(call, "server_info"),
            tool,
            arguments: json_of(call, "arguments").unwrap_or_else(|| "{}".to_owned()),
            request_id: text_of(call, "request_id"),
            response,
            duplicate_responses: call
                .get("duplicate_responses")
                .and_then(|n| n.as_u64())
                .unwrap_or(0),
            output_schema: json_of(call, "output_schema"),
            listed: call
                .get("listed")
                .and_then(|listed| listed.as_bool())
                .unwrap_or(true),
            verdict,
            failure: text_of(call, "failure"),
            rounds: json_of(call, "rounds"),
        };
        let id = store.record(&new)?;
        if let Some(note) = text_of(call, "note").filter(|note| !note.is_empty()) {
            store.set_note(id, &note)?;
        }
        count += 1;
    }
    Ok(count)
}
