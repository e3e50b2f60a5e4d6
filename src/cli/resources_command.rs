//! `toolscope resources <SERVER> [--templates]`: every resource the server lists (all pages),
//! or its resource templates with their variables.

use clap::Args;
use serde_json::{Value, json};

use super::{CliError, EXIT_OK, ServerArgs, feature_session};
use toolscope_core::session::requests::server_features::{ListKind, Listed};

#[derive(Debug, Args)]
pub struct ResourcesArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// List the resource templates (URIs with variables) instead
    #[arg(long)]
    pub templates: bool,
    /// Print the items as the server sent them, as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: ResourcesArgs) -> Result<u8, CliError> {
    let (session, control) = feature_session::open(&args.server).await?;
    let kind = if args.templates {
        ListKind::ResourceTemplates
    } else {
        ListKind::Resources
    };
    let listed = session.list_all(kind, &control).await;
    session.close().await;
    let listed = listed.map_err(|error| format!("{}: {error}", kind.method()))?;
    if args.json {
        super::output::emit_json(&json!({
            kind.member(): listed.items,
            "pages": listed.pages,
            "problems": listed.problems,
        }));
        return Ok(EXIT_OK);
    }
    super::emit(&describe(kind, &listed));
    Ok(EXIT_OK)
}

fn describe(kind: ListKind, listed: &Listed) -> String {
    let noun = match kind {
        ListKind::ResourceTemplates => "resource template",
        _ => "resource",
    };
    let mut out = format!(
        "{} {noun}{} ({} page{})\n",
        listed.items.len(),
        if listed.items.len() == 1 { "" } else { "s" },
        listed.pages,
        if listed.pages == 1 { "" } else { "s" }
    );
    for item in &listed.items {
        out.push_str(&line(kind, item));
        out.push('\n');
    }
    for problem in &listed.problems {
        out.push_str(&format!("note: {}\n", feature_session::one_line(problem)));
    }
    out
}

/// One item: its URI (or template and variables), name, MIME type, and a 2026-07-28 server's
/// caching hints.
fn line(kind: ListKind, item: &Value) -> String {
    let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
    let mut parts = Vec::new();
    match kind {
        ListKind::ResourceTemplates => {
            let template = text("uriTemplate");
            let variables = toolscope_core::uri_template::variables(template);
            parts.push(feature_session::one_line(template));
            if !variables.is_empty() {
                parts.push(format!(
                    "({})",
                    feature_session::one_line(&variables.join(", "))
                ));
            }
        }
        _ => parts.push(feature_session::one_line(text("uri"))),
    }
    let name = if text("title").is_empty() {
        text("name")
    } else {
        text("title")
    };
    if !name.is_empty() {
        parts.push(format!("· {}", feature_session::one_line(name)));
    }
    if !text("mimeType").is_empty() {
        parts.push(format!("· {}", feature_session::one_line(text("mimeType"))));
    }
    if let Some(size) = item.get("size").and_then(Value::as_u64) {
        parts.push(format!("· {size} bytes"));
    }
    if let Some(ttl) = item.get("ttlMs").and_then(Value::as_u64) {
        parts.push(format!("· valid {ttl} ms"));
    }
    if !text("cacheScope").is_empty() {
        parts.push(format!(
            "· cache {}",
            feature_session::one_line(text("cacheScope"))
        ));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_what_a_person_needs() {
        let resource = json!({"uri": "test://static/resource/1", "name": "Resource 1",
            "mimeType": "text/plain", "ttlMs": 60000, "cacheScope": "private"});
        assert_eq!(
            line(ListKind::Resources, &resource),
            "test://static/resource/1 · Resource 1 · text/plain · valid 60000 ms · cache private"
        );
        let template = json!({"uriTemplate": "test://t/{id}{?q}", "name": "T"});
        assert_eq!(
            line(ListKind::ResourceTemplates, &template),
            "test://t/{id}{?q} (id, q) · T"
        );
    }
}
