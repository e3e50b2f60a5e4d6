//! MCP Apps (SEP-1865): a tool whose `_meta.ui.resourceUri` names a `ui://` resource, the
//! HTML a host would render in a sandboxed frame. Toolscope renders nothing; it reads the
//! resource and checks what a host checks, each finding in words.

use serde::Serialize;
use serde_json::Value;

use crate::session::requests::resources::{ResourceBody, ResourceContent};

/// The MIME type of an MCP App's HTML.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The extension a server declares when it serves MCP Apps.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The `ui://` resource a tool names (`_meta.ui.resourceUri`, or the older flat key
/// `_meta["ui/resourceUri"]`), if it names one.
pub fn ui_resource_uri(tool: &Value) -> Option<String> {
    let meta = tool.get("_meta")?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// One thing checked, and whether it is as a host expects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub ok: bool,
    pub text: String,
}

/// What the check found, and the HTML to show as source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppCheck {
    pub uri: String,
    pub findings: Vec<Finding>,
    pub html: Option<String>,
}

fn finding(ok: bool, text: impl Into<String>) -> Finding {
    Finding {
        ok,
        text: text.into(),
    }
}

/// Checks a tool's UI resource: `read` is what `resources/read` gave (or why it failed),
/// `listed` the resource's entry in `resources/list` when one was found.
pub fn check(
    tool: &Value,
    server_capabilities: &Value,
    read: Result<&[ResourceContent], &str>,
    listed: Option<&Value>,
) -> Option<AppCheck> {
    let uri = ui_resource_uri(tool)?;
    let mut findings = Vec::new();
    if uri.starts_with("ui://") {
        findings.push(finding(true, "the tool names a ui:// resource"));
    } else {
        findings.push(finding(
            false,
            format!("the tool's resourceUri {uri:?} is not a ui:// URI: hosts only render ui:// resources"),
        ));
    }
    let declared = server_capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(UI_EXTENSION))
        .is_some();
    findings.push(if declared {
        finding(
            true,
            format!("the server declares the {UI_EXTENSION} extension"),
        )
    } else {
        finding(
            false,
            format!(
                "the server does not declare the {UI_EXTENSION} extension in its capabilities: \
                 a host that negotiates extensions will not show the app"
            ),
        )
    });
    let tool_csp = tool
        .get("_meta")
        .and_then(|meta| meta.get("ui"))
        .and_then(|ui| ui.get("csp"));
    if tool_csp.is_some() {
        findings.push(finding(
            false,
            "the tool declares a csp: the Content Security Policy belongs on the resource \
             (its _meta.ui.csp), where hosts look for it; on the tool it is ignored",
        ));
    }
    let mut html = None;
    match read {
        Err(reason) => findings.push(finding(
            false,
            format!("the resource cannot be read: {reason}"),
        )),
        Ok(contents) => {
            let content = contents
                .iter()
                .find(|content| content.uri == uri)
                .or(contents.first());
            match content {
                None => findings.push(finding(false, "the resource has no contents")),
                Some(content) => {
                    findings.push(mime_finding(content.mime_type.as_deref()));
                    match &content.body {
                        ResourceBody::Text { text } => {
                            findings.push(finding(
                                true,
                                format!("its HTML is {} bytes of text", text.len()),
                            ));
                            html = Some(text.clone());
                        }
                        ResourceBody::Blob { .. } => findings.push(finding(
                            false,
                            "its HTML comes as a blob: hosts expect it as text",
                        )),
                        ResourceBody::Malformed { reason } => {
                            findings.push(finding(
                                false,
                                format!("its content is unreadable: {reason}"),
                            ));
                        }
                    }
                    findings.push(csp_finding(content, listed));
                }
            }
        }
    }
    Some(AppCheck {
        uri,
        findings,
        html,
    })
}

fn mime_finding(mime: Option<&str>) -> Finding {
    let normal = mime.map(|mime| mime.replace(' ', "").to_ascii_lowercase());
    match normal.as_deref() {
        Some(APP_MIME_TYPE) => finding(true, format!("its MIME type is {APP_MIME_TYPE}")),
        Some(other) => finding(
            false,
            format!(
                "its MIME type is {other:?}, not {APP_MIME_TYPE:?}: hosts will not render it as an app"
            ),
        ),
        None => finding(
            false,
            format!("it has no MIME type; an app's is {APP_MIME_TYPE}"),
        ),
    }
}

/// The CSP as the resource declares it (on the read content, or its resources/list entry).
fn csp_finding(content: &ResourceContent, listed: Option<&Value>) -> Finding {
    let from_read = content
        .meta
        .as_ref()
        .and_then(|meta| meta.pointer("/ui/csp"));
    let from_list = listed.and_then(|entry| entry.pointer("/_meta/ui/csp"));
    match from_read.or(from_list) {
        Some(csp) => {
            let domains = |key: &str| {
                csp.get(key)
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .filter(|list| !list.is_empty())
                    .unwrap_or_else(|| "none".to_owned())
            };
            finding(
                true,
                format!(
                    "the resource declares its CSP: connect to {}; load from {}",
                    domains("connectDomains"),
                    domains("resourceDomains")
                ),
            )
        }
        None => finding(
            true,
            "the resource declares no CSP: hosts then allow no network access and no outside \
             scripts, styles or images (fine for a self-contained page)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn content(mime: &str, meta: Option<Value>) -> ResourceContent {
        ResourceContent {
            uri: "ui://app/page.html".to_owned(),
            mime_type: Some(mime.to_owned()),
            body: ResourceBody::Text {
                text: "<html></html>".to_owned(),
            },
            meta: meta.map(crate::deep_json::DeepValue),
        }
    }

    #[test]
    fn a_well_made_app_passes_every_check() {
        let tool = json!({"name": "show", "_meta": {"ui": {"resourceUri": "ui://app/page.html"}}});
        let capabilities = json!({"extensions": {"io.modelcontextprotocol/ui": {}}});
        let read = [content(
            "text/html;profile=mcp-app",
            Some(json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}})),
        )];
        let checked =
            check(&tool, &capabilities, Ok(&read), None).unwrap_or_else(|| panic!("an app"));
        assert!(
            checked.findings.iter().all(|finding| finding.ok),
            "{:?}",
            checked.findings
        );
        assert!(
            checked
                .findings
                .iter()
                .any(|finding| finding.text.contains("api.example.com"))
        );
        assert_eq!(checked.html.as_deref(), Some("<html></html>"));
    }

    #[test]
    fn a_misplaced_csp_a_plain_mime_type_and_no_extension_are_each_explained() {
        let tool = json!({"_meta": {"ui/resourceUri": "ui://app/page.html",
                                    "ui": {"csp": {"connectDomains": ["x"]}}}});
        let read = [content("text/html", None)];
        let checked = check(&tool, &json!({}), Ok(&read), None).unwrap_or_else(|| panic!("an app"));
        let failed: Vec<&str> = checked
            .findings
            .iter()
            .filter(|finding| !finding.ok)
            .map(|finding| finding.text.as_str())
            .collect();
        assert_eq!(failed.len(), 3, "{failed:?}");
        assert!(check(&json!({"name": "plain"}), &json!({}), Ok(&read), None).is_none());
    }
}
