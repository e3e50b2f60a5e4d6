//! `toolscope call <SERVER> <TOOL>`: both halves of a result side by side, and the analysis.

use std::{sync::Arc, time::Duration};

use clap::Args;
use serde_json::Value;

use super::{
    EXIT_FAILURE, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs, arguments, json_text,
    output::{emit_json_object, say},
    side_by_side::{self, terminal_width},
};
use crate::{
    analysis::{self, BlockKind, CallAnalysis, EmbeddedBody},
    json_doc::JsonRef,
    session::{
        ConnectOptions, EventSink, RawResponse, RequestControl, ServerSummary, Session,
        SessionError, SessionEvent,
    },
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
pub struct CallArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool's name
    pub tool: String,
    /// The arguments as one JSON object
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// One argument (repeatable); the value is JSON when it parses, else a string
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// Print one JSON document: raw result, analysis, protocol version, duration
    #[arg(long)]
    pub json: bool,
    /// Call the tool even if its x-mcp-header annotations are invalid (SEP-2243)
    #[arg(long)]
    pub force: bool,
}

pub async fn connect(server: &ServerArgs, events: EventSink) -> Result<Session, String> {
    let config = server.config()?;
    let timeouts = server.timeouts()?;
    Session::connect(&config, ConnectOptions::new(timeouts, events))
        .await
        .map_err(|error| error.to_string())
}

/// `toolscope-demo 0.1.0 · protocol 2026-07-28 (server/discover)`.
pub fn server_line(summary: &ServerSummary) -> String {
    let name = terminal_safe(summary.name.as_deref().unwrap_or("(unnamed server)"));
    let version = terminal_safe(summary.version.as_deref().unwrap_or(""));
    format!(
        "{name} {version} · protocol {} ({})",
        terminal_safe(&summary.protocol_version),
        summary.lifecycle
    )
}

pub async fn run(args: CallArgs) -> u8 {
    let prepared = arguments::build(args.args.as_deref(), &args.arg)
        .and_then(|arguments| Ok((arguments, args.server.timeouts()?)));
    let (arguments, timeouts) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => return fail(&error),
    };
    let session = match connect(&args.server, Arc::new(print_log_event)).await {
        Ok(session) => session,
        Err(error) => return fail(&error),
    };
    let code = call_and_report(&session, &args, arguments, timeouts).await;
    session.close().await;
    code
}

async fn call_and_report(
    session: &Session,
    args: &CallArgs,
    arguments: serde_json::Map<String, Value>,
    timeouts: crate::session::Timeouts,
) -> u8 {
    let name = terminal_safe(&args.tool);
    let catalog = match session.list_tools(timeouts).await {
        Ok(catalog) => Some(catalog),
        // The server answered, just not with a tool list: the call may still work.
        Err(error @ SessionError::Protocol { .. }) => {
            say(&format!(
                "warning: {error}; `{name}` is sent without its definition"
            ));
            None
        }
        Err(error) => return fail(&format!("listing tools failed: {error}")),
    };
    let tool = catalog
        .as_ref()
        .and_then(|catalog| catalog.find(&args.tool));
    match tool {
        None if catalog.is_none() => {}
        // A debugger sends it anyway: what the server answers is the point.
        None => say(&format!(
            "note: `{name}` is not in the server's tools/list; sent anyway"
        )),
        Some(tool) => {
            if let Some(reason) = &tool.invalid_headers {
                if !args.force {
                    return fail(&format!(
                        "`{name}` has invalid x-mcp-header annotations, so a Streamable HTTP \
                         client must not call it (SEP-2243): {}. Pass --force to call it anyway",
                        terminal_safe(reason)
                    ));
                }
                say(&format!(
                    "note: calling `{name}` despite invalid x-mcp-header annotations (--force)"
                ));
            }
        }
    }
    let output_schema = tool.and_then(|tool| tool.output_schema.as_ref());

    let control = RequestControl {
        on_progress: Arc::new(|update| {
            let total = update.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = update
                .message
                .map(|m| format!(" {}", terminal_safe(&m)))
                .unwrap_or_default();
            say(&format!("progress {}{total}{message}", update.progress));
        }),
        ..RequestControl::with_timeouts(timeouts)
    };
    let cancel = control.cancel.clone();
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            say("cancelling the call (the server is sent notifications/cancelled)…");
            cancel.cancel();
        }
    });
    let outcome = session.call_tool(&args.tool, arguments, &control).await;
    interrupt.abort();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => return fail(&error.to_string()),
    };

    let summary = session.summary();
    let analysis = outcome.analyze(output_schema, &summary.protocol_version);
    let code = exit_code(&outcome.response, &analysis);

    if args.json {
        // The response is written as the server sent it: no tree, no copy, any depth.
        let response = &outcome.response;
        emit_json_object(|report| {
            report.field("server", summary);
            report.field("protocol_version", &summary.protocol_version);
            report.field("tool", &outcome.tool);
            // Whether the tool was in the server's tools/list (it is sent either way).
            report.field("listed", &tool.is_some());
            report.field("arguments", &outcome.arguments);
            report.field("request_id", &outcome.request_id);
            report.field("duration_ms", &duration_ms(outcome.duration));
            // Further responses the server sent with the same id (the first one is shown).
            report.field("duplicate_responses", &outcome.duplicate_responses);
            let kind = serde_json::to_string(response.kind()).unwrap_or_default();
            let raw = response.member().raw();
            report.raw_field("response", &format!("{{\"kind\": {kind}, \"value\": "));
            report.raw_field_continued(raw);
            report.raw_field_continued("}");
            report.field("analysis", &analysis);
            report.field("exit_code", &code);
        });
    } else {
        let out = &mut String::new();
        outln!(out, "{}", server_line(summary));
        outln!(
            out,
            "{} · {} ms\n",
            terminal_safe(&outcome.tool),
            duration_ms(outcome.duration)
        );
        if let Some(result) = outcome.response.result_ref() {
            let left = content_lines(&analysis, result);
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
    code
}

/// 0 for a conforming success, 1 for a tool error or a contract violation, 2 for a JSON-RPC error.
fn exit_code(response: &RawResponse, analysis: &CallAnalysis) -> u8 {
    if response.is_rpc_error() {
        EXIT_FAILURE
    } else if analysis.is_conforming_success() {
        EXIT_OK
    } else {
        EXIT_TOOL_PROBLEM
    }
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

fn print_log_event(event: SessionEvent) {
    if let SessionEvent::Log {
        level,
        logger,
        data,
    } = event
    {
        // `say` makes the server's text safe for the terminal.
        say(&format!(
            "server log {}",
            crate::session::events::log_line(&level, logger.as_deref(), &data)
        ));
        crate::deep_json::drop_value(data);
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn fail(message: &str) -> u8 {
    say(&format!("error: {message}"));
    EXIT_FAILURE
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
                let result = crate::json_doc::JsonDoc::parse(text).unwrap();
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
