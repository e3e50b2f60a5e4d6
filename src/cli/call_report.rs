//! How a call is printed, by `call` and by `history show`: both halves side by side and the
//! analysis, or one JSON document with the response as the server sent it.

use std::time::Duration;

use serde_json::Value;

use super::{
    EXIT_FAILURE, EXIT_OK, EXIT_TOOL_PROBLEM, json_text,
    output::emit_json_object,
    side_by_side::{self, terminal_width},
};
use toolscope_core::{
    analysis::{self, BlockKind, CallAnalysis, EmbeddedBody},
    history::StoredCall,
    json_doc::JsonRef,
    session::RawResponse,
    text_util::terminal_safe,
};

/// What the server answered, if anything.
pub enum Answer<'a> {
    Response {
        response: &'a RawResponse,
        analysis: &'a CallAnalysis,
    },
    /// No answer (a call from the history that timed out, was cancelled or failed).
    None { failure: &'a str },
}

/// Everything a printed call shows.
pub struct CallShown<'a> {
    /// The server's summary as JSON (`null` when unknown).
    pub server_json: String,
    /// `toolscope-demo 0.1.0 · protocol 2026-07-28 (server/discover)`.
    pub server_line: String,
    pub protocol_version: &'a str,
    /// Whether the tool was in the server's tools/list.
    pub listed: bool,
    pub tool: &'a str,
    pub arguments: &'a Value,
    pub request_id: Option<&'a str>,
    pub duration: Option<Duration>,
    pub duplicate_responses: usize,
    pub answer: Answer<'a>,
    pub exit_code: u8,
    /// For a call shown again from the history.
    pub history: Option<&'a StoredCall>,
    /// What the server asked on the way, and the task the call ran as.
    pub rounds: Option<&'a toolscope_core::session::tasks::input_rounds::CallRounds>,
}

/// 0 for a conforming success, 1 for a tool error or a contract violation, 2 for a JSON-RPC error.
pub fn exit_code(response: &RawResponse, analysis: &CallAnalysis) -> u8 {
    if response.is_rpc_error() {
        EXIT_FAILURE
    } else if analysis.is_conforming_success() {
        EXIT_OK
    } else {
        EXIT_TOOL_PROBLEM
    }
}

pub fn print(shown: &CallShown<'_>, json: bool) {
    if json {
        print_json(shown);
    } else {
        print_human(shown);
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn print_json(shown: &CallShown<'_>) {
    emit_json_object(|report| {
        if let Some(call) = shown.history {
            report.field("history", call);
        }
        report.raw_field("server", &shown.server_json);
        report.field("protocol_version", shown.protocol_version);
        report.field("tool", shown.tool);
        // Whether the tool was in the server's tools/list (it is sent either way).
        report.field("listed", &shown.listed);
        report.field("arguments", shown.arguments);
        report.field("request_id", &shown.request_id);
        report.field("duration_ms", &shown.duration.map(duration_ms));
        // Further responses the server sent with the same id (the first one is shown).
        report.field("duplicate_responses", &shown.duplicate_responses);
        if let Some(rounds) = shown.rounds.filter(|rounds| !rounds.is_empty()) {
            let final_id = shown.request_id.unwrap_or_default();
            report.field("rounds", &super::rounds_report::json(rounds, final_id));
            if !rounds.completed_elicitations.is_empty() {
                report.field("completed_elicitations", &rounds.completed_elicitations);
            }
            if let Some(stopped) = &rounds.stopped {
                report.field("rounds_stopped", stopped);
            }
            if let Some(task) = &rounds.task {
                report.field("task", task);
            }
        }
        match &shown.answer {
            Answer::Response { response, analysis } => {
                // The response as the server sent it: no tree, no copy, any depth.
                let kind = serde_json::to_string(response.kind()).unwrap_or_default();
                report.raw_field("response", &format!("{{\"kind\": {kind}, \"value\": "));
                report.raw_field_continued(response.member().raw());
                report.raw_field_continued("}");
                report.field("analysis", analysis);
            }
            Answer::None { failure } => {
                report.field("response", &Value::Null);
                report.field("failure", failure);
            }
        }
        report.field("exit_code", &shown.exit_code);
    });
}

fn print_human(shown: &CallShown<'_>) {
    let out = &mut String::new();
    if let Some(call) = shown.history {
        outln!(
            out,
            "History #{} · {} · {}",
            call.id,
            terminal_safe(&call.started_at),
            call.verdict
        );
        if !call.note.is_empty() {
            outln!(out, "Note: {}", terminal_safe(&call.note));
        }
    }
    outln!(out, "{}", shown.server_line);
    let took = shown
        .duration
        .map(|duration| format!(" · {} ms", duration_ms(duration)))
        .unwrap_or_default();
    outln!(out, "{}{took}\n", terminal_safe(shown.tool));
    if let Some(rounds) = shown.rounds {
        let lines = super::rounds_report::lines(rounds, shown.request_id.unwrap_or_default());
        if !lines.is_empty() {
            for line in lines {
                outln!(out, "{line}");
            }
            out.push('\n');
        }
    }
    let (response, analysis) = match &shown.answer {
        Answer::Response { response, analysis } => (*response, *analysis),
        Answer::None { failure } => {
            outln!(out, "No answer: {}", terminal_safe(failure));
            super::emit(out);
            return;
        }
    };
    if let Some(result) = response.result_ref() {
        let left = content_lines(analysis, result);
        let right = structured_lines(result);
        outp!(
            out,
            "{}",
            side_by_side::render(
                "content — what the model reads",
                &left,
                "structuredContent — what the application reads",
                &right,
                terminal_width(),
            )
        );
        out.push('\n');
    }
    outln!(out, "Analysis");
    outln!(out, "  {}", terminal_safe(&analysis.explanation));
    for page in analysis::required_pages(&analysis.error_kind) {
        let why = page
            .message
            .as_deref()
            .map(|message| format!(" ({})", terminal_safe(message)))
            .unwrap_or_default();
        let careful = if page.openable {
            ""
        } else {
            " [not an http(s) page: do not open it blindly]"
        };
        outln!(
            out,
            "  → open {} on {}{why}{careful}",
            terminal_safe(&page.url),
            terminal_safe(page.host.as_deref().unwrap_or("(no host)"))
        );
    }
    for line in analysis.summary_lines() {
        outln!(out, "  • {}", terminal_safe(&line));
    }
    if let analysis::ContractCheck::Violated { violations, .. } = &analysis.contract {
        for violation in violations {
            outln!(
                out,
                "      – {} [{}]",
                terminal_safe(&violation.describe()),
                terminal_safe(&violation.schema_location())
            );
        }
    }
    super::emit(out);
}

fn content_lines(analysis: &CallAnalysis, result: JsonRef<'_>) -> Vec<String> {
    let blocks: Vec<JsonRef<'_>> = result
        .get("content")
        .map(|content| content.items().collect())
        .unwrap_or_default();
    let mut lines = Vec::new();
    if analysis.content.is_empty() {
        lines.push("(no content blocks)".to_owned());
    }
    for block in &analysis.content {
        let chips = block
            .annotations
            .as_ref()
            .map(|a| format!(" [{}]", a.describe()))
            .unwrap_or_default();
        match &block.kind {
            BlockKind::Text { text: Some(text) } => {
                lines.push(format!("[{}] text{chips}", block.index));
                lines.extend(text.lines().map(|line| format!("  {line}")));
            }
            BlockKind::Resource {
                body: EmbeddedBody::Text { text },
                ..
            } => {
                lines.push(format!(
                    "[{}] {}{chips}",
                    block.index,
                    block.kind.describe()
                ));
                lines.extend(text.lines().map(|line| format!("  {line}")));
            }
            BlockKind::Unknown { .. } => {
                lines.push(format!(
                    "[{}] {}{chips}",
                    block.index,
                    block.kind.describe()
                ));
                let raw = blocks
                    .get(block.index)
                    .map(|block| json_text::compact(*block))
                    .unwrap_or_default();
                lines.push(format!("  {raw}"));
            }
            other => lines.push(format!("[{}] {}{chips}", block.index, other.describe())),
        }
        for problem in &block.problems {
            lines.push(format!("  ! {problem}"));
        }
    }
    lines
}

fn structured_lines(result: JsonRef<'_>) -> Vec<String> {
    match result.get("structuredContent") {
        None => vec!["(no structuredContent)".to_owned()],
        Some(value) => json_text::pretty_lines(value, side_by_side::MAX_LINES),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_10000_deep_structured_content_prints_with_the_depth_note_on_top() {
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let levels = 10_000;
                let text = format!(
                    r#"{{"structuredContent":{}1{}}}"#,
                    "[".repeat(levels),
                    "]".repeat(levels)
                );
                let result = toolscope_core::json_doc::JsonDoc::parse(text).unwrap();
                let right = structured_lines(result.root());
                let shown = side_by_side::render("L", &[], "R", &right, 120);
                let second_row = shown.lines().nth(2).unwrap();
                assert!(
                    second_row.ends_with("… nested deeper than 256 levels, see --json"),
                    "{second_row}"
                );
                assert!(shown.contains("more lines (--json prints everything)"));
            })
            .unwrap();
        worker.join().unwrap();
    }
}
