//! `toolscope read <SERVER> <URI>`: a resource's contents (text printed, blobs by size or
//! saved with `--output`), or the raw answer with `--json`. A resource template's URI is read
//! with its variables given by `--var NAME=VALUE`; a resource the server does not have is
//! said so in the words of its protocol era.

use std::path::PathBuf;

use clap::Args;

use super::{CliError, EXIT_OK, ServerArgs, output::say};
use toolscope_core::{
    session::requests::resources::{self, ResourceBody},
    text_util::terminal_safe_lines,
};

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The resource's URI (from a resource_link or resources/list), or a resource template's
    /// (`demo://resource/dynamic/text/{resourceId}`) with its variables given by --var
    pub uri: String,
    /// A template variable's value (repeatable): --var resourceId=1
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Print the raw answer as JSON
    #[arg(long)]
    pub json: bool,
    /// Write the first content (text, or a blob decoded) to this file
    #[arg(long, short, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Do not keep the read in the history
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
}

pub async fn run(args: ReadArgs) -> Result<u8, CliError> {
    let uri = expanded_uri(&args.uri, &args.vars)?;
    let opened = super::feature_session::open(&args.server).await?;
    let ask = toolscope_core::engine::FeatureAsk::Read { uri };
    let answer = super::feature_session::ask_and_keep(
        &args.server,
        opened,
        ask,
        (!args.no_history).then_some(&args.history),
    )
    .await;
    if let (true, Ok(response)) = (args.json, &answer.response) {
        return Ok(super::feature_session::emit_raw(response));
    }
    if let Some(problem) = answer.problem() {
        return Err(problem.into());
    }
    let response = answer.response?;
    let contents = resources::contents(&response)?;
    if let Some(path) = &args.output {
        return write_first(&contents, path);
    }
    super::emit(&contents_text(&contents));
    Ok(EXIT_OK)
}

/// A read's contents as printed: each URI and MIME type, then its text (a blob by its size).
pub(super) fn contents_text(contents: &[resources::ResourceContent]) -> String {
    let mut out = String::new();
    for content in contents {
        let mime = content.mime_type.as_deref().unwrap_or("no MIME type");
        out.push_str(&format!(
            "── {} ({})\n",
            terminal_safe_lines(&content.uri),
            terminal_safe_lines(mime)
        ));
        match &content.body {
            ResourceBody::Text { text } => {
                out.push_str(&terminal_safe_lines(text));
                out.push('\n');
            }
            ResourceBody::Blob { base64 } => out.push_str(&format!(
                "(a blob of about {} bytes; --output FILE saves it)\n",
                base64.len() / 4 * 3
            )),
            ResourceBody::Malformed { reason } => {
                out.push_str(&format!("(unreadable: {reason})\n"));
            }
        }
    }
    if contents.is_empty() {
        out.push_str("(the resource has no contents)\n");
    }
    out
}

/// `uri` with a template's variables filled from `vars` (`NAME=VALUE`); every variable must
/// have a value, and a value for no variable is refused.
fn expanded_uri(uri: &str, vars: &[String]) -> Result<String, String> {
    let mut given = std::collections::HashMap::new();
    for var in vars {
        let Some((name, value)) = var.split_once('=') else {
            return Err(format!("--var {var}: write it NAME=VALUE"));
        };
        given.insert(name.to_owned(), value.to_owned());
    }
    let variables = toolscope_core::uri_template::variables(uri);
    if let Some(unknown) = given.keys().find(|name| !variables.contains(name)) {
        return Err(format!(
            "--var {unknown}: the URI has no such variable{}",
            if variables.is_empty() {
                String::new()
            } else {
                format!(" (it has {})", variables.join(", "))
            }
        ));
    }
    let missing: Vec<&str> = variables
        .iter()
        .filter(|name| !given.contains_key(*name))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the URI is a template: give {} (--var NAME=VALUE)",
            missing.join(", ")
        ));
    }
    Ok(toolscope_core::uri_template::expand(uri, |name| {
        given.get(name).cloned()
    }))
}

fn write_first(
    contents: &[resources::ResourceContent],
    path: &std::path::Path,
) -> Result<u8, CliError> {
    let bytes = match contents.first().map(|content| &content.body) {
        Some(ResourceBody::Text { text }) => text.clone().into_bytes(),
        Some(ResourceBody::Blob { base64 }) => {
            let decoded = toolscope_core::analysis::decode_base64("blob", base64.trim());
            match decoded.bytes {
                Some(bytes) => {
                    if let Some(problem) = decoded.problem {
                        say(&format!("note: {problem}"));
                    }
                    bytes
                }
                None => {
                    // "blob is not valid base64 (…)"
                    let why = decoded.problem.unwrap_or_default();
                    return Err(format!("the {why}").into());
                }
            }
        }
        Some(ResourceBody::Malformed { reason }) => {
            return Err(format!("the content cannot be saved: {reason}").into());
        }
        None => return Err("the resource has no contents to save".into()),
    };
    toolscope_core::atomic_file::write_atomically(path, |file| file.write_all(&bytes))?;
    say(&format!(
        "wrote {} bytes to {}",
        bytes.len(),
        path.display()
    ));
    Ok(EXIT_OK)
}
