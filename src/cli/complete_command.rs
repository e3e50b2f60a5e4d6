//! `toolscope complete <SERVER> (--prompt NAME | --resource-template URI) --argument NAME
//! --value PREFIX [--context JSON]`: the values the server offers for an argument typed so far.

use std::collections::HashMap;

use clap::Args;
use serde_json::Value;

use super::{CliError, EXIT_OK, ServerArgs, feature_session};
use toolscope_core::session::requests::server_features::{Completion, CompletionTarget};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["prompt", "resource_template"])))]
pub struct CompleteArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Complete an argument of this prompt
    #[arg(long, value_name = "NAME")]
    pub prompt: Option<String>,
    /// Complete a variable of this resource template (its uriTemplate)
    #[arg(long, value_name = "URI")]
    pub resource_template: Option<String>,
    /// The argument (or variable) to complete
    #[arg(long, value_name = "NAME")]
    pub argument: String,
    /// What is typed so far
    #[arg(long, value_name = "PREFIX", default_value = "")]
    pub value: String,
    /// The other arguments already given, a JSON object of strings
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,
    /// Print the answer exactly as the server sent it
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: CompleteArgs) -> Result<u8, CliError> {
    let target = match (&args.prompt, &args.resource_template) {
        (Some(name), _) => CompletionTarget::Prompt(name.clone()),
        (None, Some(uri)) => CompletionTarget::ResourceTemplate(uri.clone()),
        (None, None) => return Err("give --prompt or --resource-template".into()),
    };
    let context = args.context.as_deref().map(context_of).transpose()?;
    let (session, control) = feature_session::open(&args.server).await?;
    let answer = session
        .complete(&target, (&args.argument, &args.value), context, &control)
        .await;
    session.close().await;
    let response = answer?;
    if args.json {
        return Ok(feature_session::emit_raw(&response));
    }
    let result = feature_session::result_of(&response, "completion/complete")?;
    super::emit(&describe(&Completion::from_result(&result)));
    Ok(EXIT_OK)
}

/// `--context`: a JSON object whose values are strings (numbers and booleans are written as
/// text, as a form would send them).
fn context_of(text: &str) -> Result<HashMap<String, String>, String> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Err("--context must be a JSON object, for example '{\"owner\": \"acme\"}'".into());
    };
    map.into_iter()
        .map(|(key, value)| match value {
            Value::String(text) => Ok((key, text)),
            Value::Number(_) | Value::Bool(_) => Ok((key, value.to_string())),
            _ => Err(format!("--context: {key} must be a string")),
        })
        .collect()
}

fn describe(completion: &Completion) -> String {
    let mut out = String::new();
    for value in &completion.values {
        out.push_str(&feature_session::one_line(value));
        out.push('\n');
    }
    let shown = completion.values.len();
    let summary = match (completion.total, completion.has_more) {
        (_, _) if shown == 0 => "(no values offered)".to_owned(),
        (Some(total), true) => format!("({shown} of {total}; more exist)"),
        (Some(total), false) => format!("({shown} of {total})"),
        (None, true) => format!("({shown}; more exist)"),
        (None, false) => format!("({shown})"),
    };
    out.push_str(&summary);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn context_and_summary() {
        let context = context_of(r#"{"a": "x", "n": 2}"#).expect("a context");
        assert_eq!(context["n"], "2");
        assert!(context_of("[1]").is_err());
        assert!(context_of(r#"{"a": [1]}"#).is_err());
        let completion = Completion::from_result(&json!({"completion":
            {"values": ["Engineering"], "total": 3, "hasMore": true}}));
        assert_eq!(describe(&completion), "Engineering\n(1 of 3; more exist)");
        assert_eq!(describe(&Completion::default()), "(no values offered)");
    }
}
