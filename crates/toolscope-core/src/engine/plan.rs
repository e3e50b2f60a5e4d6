//! What is decided before a call is sent, the same for every face: listed or not, refused for
//! invalid `x-mcp-header` annotations unless forced, sent as a task or not; and the history row
//! of how it ended, the one place a call's row is made (a proxied call's too).

use std::time::Duration;

use serde_json::Value;

use crate::{
    analysis::CallAnalysis,
    history::{CalledServer, NewCall, Verdict},
    session::{
        CallOutcome, ServerSummary, Session, SessionError, ToolCatalog,
        catalog::tool_catalog::{TaskSupport, ToolEntry},
        tasks,
    },
};

/// What the caller asks for, beyond the tool's name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallWish {
    /// Call it even if its `x-mcp-header` annotations are invalid (SEP-2243).
    pub force: bool,
    /// Run it as a task when the tool allows one (a tool that requires one runs as one anyway).
    pub prefer_task: bool,
}

/// What Toolscope knows of the server when it plans a call.
#[derive(Debug, Clone, Copy)]
pub struct ServerView<'a> {
    /// The server's tool list, when it gave one.
    pub catalog: Option<&'a ToolCatalog>,
    /// It speaks 2026-07-28 or later (the server then decides about tasks).
    pub modern_era: bool,
    /// Tasks are declared to it.
    pub tasks_declared: bool,
}

impl<'a> ServerView<'a> {
    /// A connected session and its tool list.
    pub fn of(session: &Session, catalog: Option<&'a ToolCatalog>) -> Self {
        Self::new(session.summary(), session.declared().tasks, catalog)
    }

    pub fn new(
        summary: &ServerSummary,
        tasks_declared: bool,
        catalog: Option<&'a ToolCatalog>,
    ) -> Self {
        Self {
            catalog,
            modern_era: summary.is_modern_era(),
            tasks_declared,
        }
    }
}

/// A call decided on and ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct CallPlan {
    pub tool: String,
    /// The tool is in the server's tools/list (a call of an unlisted tool is sent anyway: what
    /// the server answers is the point of a debugger).
    pub listed: bool,
    /// The listed tool's output schema, which its result is checked against.
    pub output_schema: Option<Value>,
    /// Sent as a 2025-11-25 task (see [`tasks::choose`]).
    pub as_task: bool,
    /// What the person should be told about how it is sent, a sentence each.
    pub notes: Vec<String>,
}

/// Why a call is not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallRefused {
    #[error(
        "`{tool}` has invalid x-mcp-header annotations, so a Streamable HTTP client must not \
         call it (SEP-2243): {reason}"
    )]
    InvalidHeaders { tool: String, reason: String },
}

/// Decides how `tool` is called: the one rule for every front end.
pub fn plan(server: ServerView<'_>, tool: &str, wish: CallWish) -> Result<CallPlan, CallRefused> {
    let entry: Option<&ToolEntry> = server.catalog.and_then(|catalog| catalog.find(tool));
    let mut notes = Vec::new();
    match entry {
        // No list at all: whoever listed said why.
        None if server.catalog.is_none() => {}
        None => notes.push(format!(
            "`{tool}` is not in the server's tools/list; sent anyway"
        )),
        Some(entry) => {
            if let Some(reason) = &entry.invalid_headers {
                if !wish.force {
                    return Err(CallRefused::InvalidHeaders {
                        tool: tool.to_owned(),
                        reason: reason.clone(),
                    });
                }
                notes.push(format!(
                    "calling `{tool}` despite invalid x-mcp-header annotations"
                ));
            }
        }
    }
    let support = entry.map_or(TaskSupport::Forbidden, ToolEntry::task_support);
    let choice = tasks::choose(
        server.modern_era,
        server.tasks_declared,
        support,
        wish.prefer_task,
        tool,
    );
    notes.extend(choice.note);
    Ok(CallPlan {
        tool: tool.to_owned(),
        listed: entry.is_some(),
        output_schema: entry.and_then(|entry| entry.output_schema.clone()),
        as_task: choice.augmented,
        notes,
    })
}

impl CallPlan {
    /// A call someone else sent (a client through `toolscope proxy`), as the server's listing
    /// in that session says it: listed or not, and the output schema it is checked against.
    /// Nothing is decided: it was sent as the client chose.
    pub fn observed(catalog: Option<&ToolCatalog>, tool: &str) -> Self {
        let entry = catalog.and_then(|catalog| catalog.find(tool));
        CallPlan {
            tool: tool.to_owned(),
            listed: entry.is_some(),
            output_schema: entry.and_then(|entry| entry.output_schema.clone()),
            as_task: false,
            notes: Vec::new(),
        }
    }

    /// Checks an answer against the tool's output schema: the analysis every face shows.
    pub fn analyze(&self, outcome: &CallOutcome, protocol_version: &str) -> CallAnalysis {
        outcome.analyze(self.output_schema.as_ref(), protocol_version)
    }

    /// The history's row for this call, answered or not: the one place a row is made.
    pub fn history_row(&self, server: CalledServer<'_>, end: CallEnd<'_>) -> NewCall {
        match end {
            CallEnd::Answered { outcome, analysis } => NewCall::answered(
                server,
                outcome,
                self.output_schema.as_ref(),
                self.listed,
                analysis,
            ),
            CallEnd::NoAnswer {
                arguments,
                waited,
                verdict,
                failure,
            } => NewCall::unanswered(
                server,
                &self.tool,
                arguments,
                self.output_schema.as_ref(),
                self.listed,
                waited,
                verdict,
                failure,
            ),
        }
    }
}

/// How a call ended, as the history keeps it.
#[derive(Debug, Clone, Copy)]
pub enum CallEnd<'a> {
    Answered {
        outcome: &'a CallOutcome,
        analysis: &'a CallAnalysis,
    },
    /// No answer: a timeout, a cancel, a broken connection.
    NoAnswer {
        arguments: &'a Value,
        waited: Duration,
        verdict: Verdict,
        failure: &'a str,
    },
}

impl<'a> CallEnd<'a> {
    /// The end of a call that got no answer because of `error`.
    pub fn failed(
        arguments: &'a Value,
        waited: Duration,
        error: &SessionError,
        failure: &'a str,
    ) -> Self {
        CallEnd::NoAnswer {
            arguments,
            waited,
            verdict: Verdict::of_error(error),
            failure,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog(modern: bool) -> ToolCatalog {
        let mut catalog = ToolCatalog::default();
        let page = json!({"tools": [
            {"name": "plain", "inputSchema": {"type": "object"},
             "outputSchema": {"type": "object"}},
            {"name": "research", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "required"}},
            {"name": "maybe", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "optional"}},
            {"name": "bad_headers", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Bad Region"}}}},
        ]});
        catalog.add_page(&page, modern);
        catalog
    }

    fn view(catalog: &ToolCatalog, modern_era: bool) -> ServerView<'_> {
        ServerView {
            catalog: Some(catalog),
            modern_era,
            tasks_declared: true,
        }
    }

    #[test]
    fn a_listed_tool_carries_its_output_schema_and_an_unlisted_one_is_sent_with_a_note() {
        let catalog = catalog(false);
        let plain = plan(view(&catalog, false), "plain", CallWish::default()).unwrap();
        assert!(plain.listed && plain.output_schema.is_some() && plain.notes.is_empty());
        let unlisted = plan(view(&catalog, false), "nope", CallWish::default()).unwrap();
        assert!(!unlisted.listed);
        assert_eq!(
            unlisted.notes,
            ["`nope` is not in the server's tools/list; sent anyway"]
        );
        let no_list = ServerView {
            catalog: None,
            ..view(&catalog, false)
        };
        assert!(
            plan(no_list, "nope", CallWish::default())
                .unwrap()
                .notes
                .is_empty()
        );
    }

    #[test]
    fn a_required_task_is_one_whatever_is_asked_and_an_optional_one_when_preferred() {
        let catalog = catalog(false);
        let research = plan(view(&catalog, false), "research", CallWish::default()).unwrap();
        assert!(research.as_task);
        assert_eq!(
            research.notes,
            ["`research` requires a task, so it runs as one"]
        );
        let maybe = |prefer_task| {
            let wish = CallWish {
                prefer_task,
                ..CallWish::default()
            };
            plan(view(&catalog, false), "maybe", wish).unwrap().as_task
        };
        assert!(!maybe(false) && maybe(true));
    }

    #[test]
    fn invalid_headers_are_refused_unless_forced() {
        let catalog = catalog(true);
        let refused = plan(view(&catalog, true), "bad_headers", CallWish::default());
        let Err(CallRefused::InvalidHeaders { tool, reason }) = refused else {
            panic!("refused: {refused:?}");
        };
        assert_eq!(tool, "bad_headers");
        assert!(reason.contains("Bad Region"), "{reason}");
        let forced = CallWish {
            force: true,
            ..CallWish::default()
        };
        let sent = plan(view(&catalog, true), "bad_headers", forced).unwrap();
        assert_eq!(
            sent.notes,
            ["calling `bad_headers` despite invalid x-mcp-header annotations"]
        );
    }
}
