//! `toolscope tools <SERVER>`: every tool with its hints and both schemas.

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::{
    CliError, EXIT_OK, ServerArgs,
    call_command::connect,
    json_text,
    output::{emit_json, say},
};
use toolscope_core::{
    session::{ServerSummary, ToolEntry, events::ignore_events},
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print one JSON document with the raw tools instead of text
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: ToolsArgs) -> Result<u8, CliError> {
    let timeouts = args.server.timeouts()?;
    let session = connect(&args.server, ignore_events()).await?;
    let listed = session.list_tools(timeouts).await;
    let summary = session.summary().clone();
    session.close().await;
    let catalog = listed.map_err(|error| format!("listing tools failed: {error}"))?;
    for warning in &catalog.warnings {
        say(&format!("warning: {}", terminal_safe(warning)));
    }
    if args.json {
        // Borrowed, and written by deep_json: a schema may nest any depth.
        emit_json(&ToolsReport {
            server: &summary,
            protocol_version: &summary.protocol_version,
            tools: catalog.tools.iter().map(|tool| &tool.raw).collect(),
            pages: catalog.pages,
            problems: catalog
                .tools
                .iter()
                .filter(|tool| !tool.problems.is_empty())
                .map(|tool| ToolProblems {
                    name: &tool.name,
                    problems: &tool.problems,
                    invalid_headers: tool.invalid_headers.as_deref(),
                })
                .collect(),
            warnings: &catalog.warnings,
        });
        return Ok(EXIT_OK);
    }
    let out = &mut String::new();
    outln!(out, "{}", super::call_command::server_line(&summary));
    outln!(out, "{} tool(s)\n", catalog.tools.len());
    for tool in &catalog.tools {
        print_tool(out, tool);
    }
    super::emit(out);
    Ok(EXIT_OK)
}

/// The `--json` document of `tools`.
#[derive(Serialize)]
struct ToolsReport<'a> {
    server: &'a ServerSummary,
    protocol_version: &'a str,
    tools: Vec<&'a Value>,
    pages: usize,
    problems: Vec<ToolProblems<'a>>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct ToolProblems<'a> {
    name: &'a str,
    problems: &'a [String],
    /// Set when `call` refuses the tool without `--force` (invalid x-mcp-header, SEP-2243).
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid_headers: Option<&'a str>,
}

fn print_tool(out: &mut String, tool: &ToolEntry) {
    let name = terminal_safe(&tool.name);
    let mut heading = if tool.display_name() == tool.name {
        name.into_owned()
    } else {
        format!("{name} ({})", terminal_safe(tool.display_name()))
    };
    if tool.invalid_headers.is_some() {
        heading.push_str("  ⚠ invalid x-mcp-header: excluded by HTTP clients; call needs --force");
    }
    outln!(out, "━━ {heading}");
    if let Some(description) = &tool.description {
        for line in description.lines() {
            outln!(out, "   {}", terminal_safe(line));
        }
    }
    let hints: Vec<String> = tool
        .annotations
        .effective()
        .iter()
        .map(|(label, value, sent)| {
            let value = if *value { "yes" } else { "no" };
            if *sent {
                format!("{label}: {value}")
            } else {
                format!("{label}: {value} (default)")
            }
        })
        .collect();
    outln!(out, "   hints: {}", hints.join(" · "));
    print_schema(out, "input schema", tool.input_schema.as_ref());
    print_schema(out, "output schema", tool.output_schema.as_ref());
    if let Some(wrapping) = tool
        .output_schema
        .as_ref()
        .and_then(toolscope_core::analysis::output_schema_wraps)
    {
        outln!(out, "   note: {}", terminal_safe(&wrapping.explanation));
    }
    for problem in &tool.problems {
        outln!(out, "   ! malformed: {}", terminal_safe(problem));
    }
    out.push('\n');
}

fn print_schema(out: &mut String, label: &str, schema: Option<&Value>) {
    match schema {
        None => outln!(out, "   {label}: none"),
        Some(schema) => {
            outln!(out, "   {label}:");
            // Controls in its strings are JSON escapes already; this is the visible backstop.
            let schema = toolscope_core::json_doc::JsonDoc::from_value(schema);
            for line in json_text::pretty_lines(schema.root(), usize::MAX) {
                outln!(out, "     {}", terminal_safe(&line));
            }
        }
    }
}
