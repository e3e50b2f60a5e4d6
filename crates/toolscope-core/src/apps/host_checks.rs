//! What a host checks before it runs an app, numbered so the log can point back at them, and
//! which check a run-time event bears out: the `ui/initialize` a host that negotiates the
//! extension would never have answered, a fetch blocked that the tool's own CSP declared, a
//! blocked source the resource declared in a form a header cannot carry.

use serde_json::Value;

use super::host::AppRun;
use crate::interface::mcp_app::UI_EXTENSION;

/// One finding before the run.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCheck {
    /// From 1, as the log says it (`check 2`).
    pub number: usize,
    pub kind: CheckKind,
    pub words: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CheckKind {
    /// The server's capabilities do not name the MCP Apps extension.
    ExtensionUndeclared,
    /// The tool carries `_meta.ui.csp`, which hosts ignore.
    CspOnTool,
    /// Something the resource's read said (its MIME type…).
    ResourceWarning,
    /// An entry of the resource's CSP that cannot be a header source, left out.
    CspEntryRefused(String),
}

/// The checks of `run`, in the order the log says them.
pub fn checks(run: &AppRun) -> Vec<HostCheck> {
    let mut found: Vec<(CheckKind, String)> = Vec::new();
    let declared = run
        .session
        .summary()
        .capabilities
        .pointer(&format!("/extensions/{}", UI_EXTENSION.replace('/', "~1")))
        .is_some();
    if !declared {
        found.push((
            CheckKind::ExtensionUndeclared,
            format!(
                "the server does not declare the {UI_EXTENSION} extension: a host that \
                 negotiates extensions would not show this app (Toolscope runs it anyway)"
            ),
        ));
    }
    if tool_declares_csp(&run.tool.raw) {
        found.push((
            CheckKind::CspOnTool,
            "the tool declares a csp: hosts read the CSP from the resource's _meta.ui, so this \
             one is ignored"
                .to_owned(),
        ));
    }
    for warning in &run.app.warnings {
        found.push((CheckKind::ResourceWarning, warning.clone()));
    }
    for refused in &run.app.csp.refused {
        found.push((
            CheckKind::CspEntryRefused(refused.clone()),
            format!(
                "the resource's CSP entry {refused:?} cannot be a source (a separator, quote \
                 or space in it): left out"
            ),
        ));
    }
    found
        .into_iter()
        .enumerate()
        .map(|(index, (kind, words))| HostCheck {
            number: index + 1,
            kind,
            words,
        })
        .collect()
}

fn tool_declares_csp(tool: &Value) -> bool {
    tool.pointer("/_meta/ui/csp").is_some()
}

/// The check the app's `ui/initialize` bears out: the point where a host that negotiates the
/// extension would have stopped.
pub fn bearing_on_initialize(checks: &[HostCheck]) -> Option<(&HostCheck, String)> {
    let check = checks
        .iter()
        .find(|check| check.kind == CheckKind::ExtensionUndeclared)?;
    Some((
        check,
        format!(
            "a host that negotiates extensions would not have shown the app that sent this \
             (check {}: the extension is not declared)",
            check.number
        ),
    ))
}

/// The check a blocked `blocked_uri` bears out, and why: the tool's own CSP declared its
/// origin (hosts ignore it), or the resource declared it in a form left out; else the tool's
/// CSP in general, when it has one.
pub fn bearing_on_blocked(
    checks: &[HostCheck],
    tool: &Value,
    blocked_uri: &str,
) -> Option<(usize, String)> {
    let origin = origin_of(blocked_uri);
    let entry_refused = checks.iter().find(|check| {
        matches!(&check.kind, CheckKind::CspEntryRefused(entry)
            if origin.as_deref().is_some_and(|origin| entry.contains(origin)))
    });
    if let Some(check) = entry_refused {
        return Some((
            check.number,
            format!(
                "the resource declares it, in an entry left out (check {})",
                check.number
            ),
        ));
    }
    let on_tool = checks
        .iter()
        .find(|check| check.kind == CheckKind::CspOnTool)?;
    let tool_names_it = origin.as_deref().is_some_and(|origin| {
        tool.pointer("/_meta/ui/csp")
            .is_some_and(|csp| csp.to_string().contains(origin))
    });
    Some((
        on_tool.number,
        if tool_names_it {
            format!(
                "the tool's own csp declares it, and hosts ignore a csp on the tool: move it \
                 to the resource's _meta.ui (check {})",
                on_tool.number
            )
        } else {
            format!(
                "the tool declares a csp of its own, which hosts ignore: it belongs on the \
                 resource's _meta.ui (check {})",
                on_tool.number
            )
        },
    ))
}

/// `scheme://host[:port]` of a URL; none for `eval`, `inline` and the like.
fn origin_of(uri: &str) -> Option<String> {
    let (scheme, rest) = uri.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty()).then(|| format!("{scheme}://{authority}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(number: usize, kind: CheckKind) -> HostCheck {
        HostCheck {
            number,
            kind,
            words: String::new(),
        }
    }

    #[test]
    fn a_fetch_the_tools_own_csp_declared_points_at_the_csp_on_the_tool() {
        let checks = [
            check(1, CheckKind::ExtensionUndeclared),
            check(2, CheckKind::CspOnTool),
        ];
        let tool = json!({"_meta": {"ui": {"csp": {"connectDomains": ["https://api.example"]}}}});
        let (number, why) =
            bearing_on_blocked(&checks, &tool, "https://api.example/v1/data").unwrap();
        assert_eq!(number, 2);
        assert!(why.contains("the tool's own csp declares it"), "{why}");
        let (_, why) = bearing_on_blocked(&checks, &tool, "https://other.example/").unwrap();
        assert!(why.contains("a csp of its own"), "{why}");
    }

    #[test]
    fn a_blocked_source_the_resource_declared_badly_points_at_the_entry_left_out() {
        let checks = [check(
            1,
            CheckKind::CspEntryRefused("https://cdn.example; script-src *".into()),
        )];
        let (number, why) =
            bearing_on_blocked(&checks, &json!({}), "https://cdn.example/lib.js").unwrap();
        assert_eq!(number, 1);
        assert!(why.contains("left out"), "{why}");
    }

    #[test]
    fn nothing_is_pointed_at_without_a_check_that_explains_it() {
        let checks = [check(1, CheckKind::ExtensionUndeclared)];
        assert!(bearing_on_blocked(&checks, &json!({}), "https://x.example/").is_none());
        assert!(bearing_on_blocked(&checks, &json!({}), "eval").is_none());
        assert_eq!(bearing_on_initialize(&checks).unwrap().0.number, 1);
        assert!(bearing_on_initialize(&[check(1, CheckKind::CspOnTool)]).is_none());
    }
}
