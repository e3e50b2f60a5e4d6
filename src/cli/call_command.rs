//! `toolscope call <SERVER> <TOOL>`: both halves of a result side by side, and the analysis.

use std::{sync::Arc, time::Duration};

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::{
    EXIT_FAILURE, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs, arguments,
    side_by_side::{self, terminal_width},
};
use crate::{
    analysis::{self, BlockKind, CallAnalysis, CallResponse, EmbeddedBody, ProtocolEra},
    session::{
        ConnectOptions, EventSink, RawResponse, RequestControl, ServerSummary, Session,
        SessionEvent,
    },
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
    let name = summary.name.as_deref().unwrap_or("(unnamed server)");
    let version = summary.version.as_deref().unwrap_or("");
    format!(
        "{name} {version} · protocol {} ({})",
        summary.protocol_version, summary.lifecycle
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
    let catalog = match session.list_tools(timeouts).await {
        Ok(catalog) => catalog,
        Err(error) => return fail(&format!("listing tools failed: {error}")),
    };
    let Some(tool) = catalog.find(&args.tool) else {
        let names: Vec<&str> = catalog
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect();
        return fail(&format!(
            "this server has no tool named {:?}. Its tools: {}",
            args.tool,
            if names.is_empty() {
                "(none)".to_owned()
            } else {
                names.join(", ")
            }
        ));
    };
    let output_schema = tool.output_schema.clone();

    let control = RequestControl {
        on_progress: Arc::new(|update| {
            let total = update.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = update.message.map(|m| format!(" {m}")).unwrap_or_default();
            eprintln!("progress {}{total}{message}", update.progress);
        }),
        ..RequestControl::with_timeouts(timeouts)
    };
    let cancel = control.cancel.clone();
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("cancelling the call (the server is sent notifications/cancelled)…");
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
    let era = ProtocolEra::from_version(&summary.protocol_version);
    let response = match &outcome.response {
        RawResponse::Result(result) => CallResponse::Result(result),
        RawResponse::RpcError(error) => CallResponse::RpcError(error),
    };
    let analysis = analysis::analyze_call(response, output_schema.as_ref(), era);
    let code = exit_code(&outcome.response, &analysis);

    if args.json {
        // Streamed straight to stdout: a big response is never copied into a second tree or
        // a String.
        let document = JsonReport {
            server: summary,
            protocol_version: &summary.protocol_version,
            tool: &outcome.tool,
            arguments: &outcome.arguments,
            request_id: &outcome.request_id,
            duration_ms: duration_ms(outcome.duration),
            duplicate_responses: outcome.duplicate_responses,
            response: &outcome.response,
            analysis: &analysis,
            exit_code: code,
        };
        emit_json(&document);
    } else {
        let out = &mut String::new();
        outln!(out, "{}", server_line(summary));
        outln!(
            out,
            "{} · {} ms\n",
            outcome.tool,
            duration_ms(outcome.duration)
        );
        if let RawResponse::Result(result) = &outcome.response {
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
        for line in analysis.summary_lines() {
            outln!(out, "  • {line}");
        }
        if let analysis::ContractCheck::Violated { violations, .. } = &analysis.contract {
            for violation in violations {
                outln!(out, "      – {}", violation.describe());
            }
        }
        super::emit(out);
    }
    // A big or deep response is freed off this thread: the answer is already out, and the
    // process may exit before it is done.
    let (RawResponse::Result(response) | RawResponse::RpcError(response)) = outcome.response;
    std::thread::spawn(move || crate::deep_json::drop_value(response));
    code
}

/// The `--json` document, borrowing the response instead of copying it.
#[derive(Serialize)]
struct JsonReport<'a> {
    server: &'a ServerSummary,
    protocol_version: &'a str,
    tool: &'a str,
    arguments: &'a Value,
    request_id: &'a str,
    duration_ms: u64,
    duplicate_responses: usize,
    response: &'a RawResponse,
    analysis: &'a CallAnalysis,
    exit_code: u8,
}

/// Writes pretty JSON of any depth to stdout through a buffer; a closed pipe ends it quietly.
fn emit_json(document: &impl Serialize) {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    if crate::deep_json::serialize_to_writer(document, &mut out, true).is_ok() {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// 0 for a conforming success, 1 for a tool error or a contract violation, 2 for a JSON-RPC error.
fn exit_code(response: &RawResponse, analysis: &CallAnalysis) -> u8 {
    match response {
        RawResponse::RpcError(_) => EXIT_FAILURE,
        RawResponse::Result(_) if analysis.is_conforming_success() => EXIT_OK,
        RawResponse::Result(_) => EXIT_TOOL_PROBLEM,
    }
}

fn content_lines(analysis: &CallAnalysis, result: &Value) -> Vec<String> {
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
                let raw = result["content"]
                    .get(block.index)
                    .cloned()
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

fn structured_lines(result: &Value) -> Vec<String> {
    match result.get("structuredContent") {
        None => vec!["(no structuredContent)".to_owned()],
        Some(value) => serde_json::to_string_pretty(value)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect(),
    }
}

fn print_log_event(event: SessionEvent) {
    if let SessionEvent::Log {
        level,
        logger,
        data,
    } = event
    {
        let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
        let text = data
            .as_str()
            .map_or_else(|| data.to_string(), str::to_owned);
        eprintln!("server log [{level}{logger}] {text}");
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_FAILURE
}
