//! `toolscope prompts <SERVER>`: every prompt the server lists with its arguments;
//! `toolscope prompt <SERVER> <NAME> [--args JSON]`: one prompt's messages as a conversation.

use clap::Args;
use serde_json::{Value, json};

use super::{CliError, EXIT_OK, ServerArgs, feature_session};
use toolscope_core::session::requests::server_features::ListKind;

#[derive(Debug, Args)]
pub struct PromptsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print the prompts as the server sent them, as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The prompt's name
    pub name: String,
    /// Its arguments, a JSON object of strings: '{"department": "Engineering"}'
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// Print the answer exactly as the server sent it
    #[arg(long)]
    pub json: bool,
    /// Do not keep the prompt got in the history
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
}

pub async fn list(args: PromptsArgs) -> Result<u8, CliError> {
    let (session, control) = feature_session::open(&args.server).await?;
    let listed = session.list_all(ListKind::Prompts, &control).await;
    session.close().await;
    let listed = listed.map_err(|error| format!("prompts/list: {error}"))?;
    if args.json {
        super::output::emit_json(&json!({
            "prompts": listed.items,
            "pages": listed.pages,
            "problems": listed.problems,
        }));
        return Ok(EXIT_OK);
    }
    let mut out = format!(
        "{} prompt{}\n",
        listed.items.len(),
        if listed.items.len() == 1 { "" } else { "s" }
    );
    for prompt in &listed.items {
        out.push_str(&prompt_line(prompt));
        out.push('\n');
    }
    for problem in &listed.problems {
        out.push_str(&format!("note: {}\n", feature_session::one_line(problem)));
    }
    super::emit(&out);
    Ok(EXIT_OK)
}

/// `name(arg*, other) · description`; a required argument has a star.
fn prompt_line(prompt: &Value) -> String {
    let name = prompt
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("(no name)");
    let arguments: Vec<String> = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .map(|arguments| {
            arguments
                .iter()
                .map(|argument| {
                    let name = argument.get("name").and_then(Value::as_str).unwrap_or("?");
                    let required = argument.get("required").and_then(Value::as_bool) == Some(true);
                    format!("{name}{}", if required { "*" } else { "" })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut line = format!(
        "{}({})",
        feature_session::one_line(name),
        feature_session::one_line(&arguments.join(", "))
    );
    if let Some(description) = prompt.get("description").and_then(Value::as_str) {
        line.push_str(&format!(" · {}", feature_session::one_line(description)));
    }
    line
}

pub async fn get(args: PromptArgs) -> Result<u8, CliError> {
    let arguments = match args.args.as_deref().map(serde_json::from_str::<Value>) {
        None => None,
        Some(Ok(Value::Object(map))) => Some(map),
        Some(_) => {
            return Err(
                "--args must be a JSON object, for example '{\"department\": \"Engineering\"}'"
                    .into(),
            );
        }
    };
    let opened = feature_session::open(&args.server).await?;
    let ask = toolscope_core::engine::FeatureAsk::Prompt {
        name: args.name.clone(),
        arguments: arguments.unwrap_or_default(),
    };
    let answer = feature_session::ask_and_keep(
        &args.server,
        opened,
        ask,
        (!args.no_history).then_some(&args.history),
    )
    .await;
    if let (true, Ok(response)) = (args.json, &answer.response) {
        return Ok(feature_session::emit_raw(response));
    }
    if let Some(problem) = answer.problem() {
        return Err(problem.into());
    }
    let result = answer
        .response
        .map(|response| response.member().to_value())
        .unwrap_or_default();
    super::emit(&conversation(&result));
    Ok(EXIT_OK)
}

/// The messages as a conversation: each role, then its content the way a tool's is shown.
pub(super) fn conversation(result: &Value) -> String {
    let mut out = String::new();
    if let Some(description) = result.get("description").and_then(Value::as_str) {
        out.push_str(&format!("{}\n", feature_session::one_line(description)));
    }
    let messages = result.get("messages").and_then(Value::as_array);
    for message in messages.into_iter().flatten() {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("(no role)");
        out.push_str(&format!("── {}\n", feature_session::one_line(role)));
        // One content block, or (from 2025-11-25 on) a list of them.
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            Some(block) => vec![block],
            None => Vec::new(),
        };
        for block in blocks {
            out.push_str(&block_text(block));
            out.push('\n');
        }
    }
    if messages.is_none_or(Vec::is_empty) {
        out.push_str("(the prompt has no messages)\n");
    }
    out
}

fn block_text(block: &Value) -> String {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    match text("type") {
        "text" => toolscope_core::text_util::terminal_safe_lines(text("text")).into_owned(),
        kind @ ("image" | "audio") => format!(
            "[{kind} {}, about {} bytes]",
            feature_session::one_line(text("mimeType")),
            text("data").len() / 4 * 3
        ),
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let field = |key: &str| resource.get(key).and_then(Value::as_str).unwrap_or("");
            let mut shown = format!(
                "[resource {} {}]",
                feature_session::one_line(field("uri")),
                feature_session::one_line(field("mimeType"))
            );
            if !field("text").is_empty() {
                shown.push('\n');
                shown.push_str(&toolscope_core::text_util::terminal_safe_lines(field(
                    "text",
                )));
            }
            shown
        }
        "resource_link" => format!(
            "[link to {} · {}]",
            feature_session::one_line(text("uri")),
            feature_session::one_line(text("name"))
        ),
        other => format!("[a {} block]", feature_session::one_line(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_reads_as_a_conversation() {
        let shown = conversation(&json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Hello"}},
            {"role": "assistant", "content": [
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "test://1", "mimeType": "text/plain",
                    "text": "inside"}}
            ]}
        ]}));
        assert_eq!(
            shown,
            "── user\nHello\n── assistant\n[image image/png, about 3 bytes]\n\
             [resource test://1 text/plain]\ninside\n"
        );
        assert_eq!(
            prompt_line(&json!({"name": "p", "description": "d",
                "arguments": [{"name": "a", "required": true}, {"name": "b"}]})),
            "p(a*, b) · d"
        );
    }
}
