//! `toolscope tools <SERVER>`: every tool with its hints and both schemas.

use clap::Args;
use serde_json::{Value, json};

use super::{EXIT_FAILURE, EXIT_OK, ServerArgs, call_command::connect};
use crate::session::{ToolEntry, events::ignore_events};

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print one JSON document with the raw tools instead of text
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: ToolsArgs) -> u8 {
    let timeouts = match args.server.timeouts() {
        Ok(timeouts) => timeouts,
        Err(error) => return fail(&error),
    };
    let session = match connect(&args.server, ignore_events()).await {
        Ok(session) => session,
        Err(error) => return fail(&error),
    };
    let listed = session.list_tools(timeouts).await;
    let summary = session.summary().clone();
    session.close().await;
    let catalog = match listed {
        Ok(catalog) => catalog,
        Err(error) => return fail(&format!("listing tools failed: {error}")),
    };
    for warning in &catalog.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        let problems: Vec<Value> = catalog
            .tools
            .iter()
            .filter(|tool| !tool.problems.is_empty())
            .map(|tool| json!({"name": tool.name, "problems": tool.problems}))
            .collect();
        let document = json!({
            "server": summary,
            "protocol_version": summary.protocol_version,
            "tools": catalog.tools.iter().map(|tool| &tool.raw).collect::<Vec<_>>(),
            "pages": catalog.pages,
            "problems": problems,
            "warnings": catalog.warnings,
        });
        super::emit(&serde_json::to_string_pretty(&document).unwrap_or_default());
        return EXIT_OK;
    }
    let out = &mut String::new();
    outln!(out, "{}", super::call_command::server_line(&summary));
    outln!(out, "{} tool(s)\n", catalog.tools.len());
    for tool in &catalog.tools {
        print_tool(out, tool);
    }
    super::emit(out);
    EXIT_OK
}

fn print_tool(out: &mut String, tool: &ToolEntry) {
    let heading = if tool.display_name() == tool.name {
        tool.name.clone()
    } else {
        format!("{} ({})", tool.name, tool.display_name())
    };
    outln!(out, "━━ {heading}");
    if let Some(description) = &tool.description {
        for line in description.lines() {
            outln!(out, "   {line}");
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
        .and_then(crate::analysis::output_schema_wraps)
    {
        outln!(out, "   note: {}", wrapping.explanation);
    }
    for problem in &tool.problems {
        outln!(out, "   ! malformed: {problem}");
    }
    out.push('\n');
}

fn print_schema(out: &mut String, label: &str, schema: Option<&Value>) {
    match schema {
        None => outln!(out, "   {label}: none"),
        Some(schema) => {
            outln!(out, "   {label}:");
            let text = serde_json::to_string_pretty(schema).unwrap_or_default();
            for line in text.lines() {
                outln!(out, "     {line}");
            }
        }
    }
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_FAILURE
}
