//! The QA checks an agent runs: a case file's cases (`cases::run_case`, as `toolscope run`
//! runs them) and an interface snapshot diffed against a server now (`interface::diff`, as
//! `toolscope diff` does).

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::{
    AgentSettings,
    kept::record,
    outputs::{CaseLine, CasesOut, ChangeOut, DiffOut, ToolChangesOut},
    reachable::Reachable,
    server_work::{AgentClient, AgentToolError, with_client},
};
use crate::{
    cases::{CaseAsker, CaseFile, CaseTarget, run_case},
    history::CalledServer,
    interface::{self, Change, InterfaceSnapshot, ToolStatus},
    session::{ConnectOptions, ServerConfig},
};

impl AgentSettings {
    /// `path` as the agent wrote it: a relative one is taken from the project folder.
    fn path(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        match &self.sources.project {
            Some(project) if path.is_relative() => project.join(path),
            _ => path.to_owned(),
        }
    }
}

/// `run_cases`: every case of the file on `server` (else the file's own server, when it is the
/// demo or new servers are allowed), each kept in the history.
pub async fn run_cases(
    settings: &AgentSettings,
    client: &AgentClient,
    file: &str,
    server: Option<&str>,
    cancel: &CancellationToken,
) -> Result<CasesOut, AgentToolError> {
    let path = settings.path(file);
    let cases = CaseFile::read(&path).map_err(|error| AgentToolError::Input(error.0))?;
    if cases.cases.is_empty() {
        return Err(AgentToolError::Input(format!(
            "{} has no [[case]]",
            path.display()
        )));
    }
    let (target, timeouts) = match (server, &cases.server) {
        (Some(server), _) => (settings.reachable(server)?, settings.timeouts),
        (None, None) => {
            return Err(AgentToolError::Input(format!(
                "{} has no [server] section: name a server to run it on",
                path.display()
            )));
        }
        (None, Some(own)) => {
            if own.target != CaseTarget::Demo && !settings.allow_new_servers {
                return Err(AgentToolError::Input(format!(
                    "{}'s [server] is a command line or URL of its own, which toolscope mcp \
                     does not start unless started with --allow-new-servers: name a server \
                     (`list_servers`) to run the cases on",
                    path.display()
                )));
            }
            let config: ServerConfig = own
                .config(&cases.folder(), &|name| std::env::var(name).ok())
                .map_err(|error| AgentToolError::Input(format!("{}: {error}", path.display())))?;
            let target = Reachable {
                label: own.label(),
                config,
            };
            (target, own.timeouts())
        }
    };
    // Nobody attends the run: each case's [case.answers] answers what the server asks.
    let asker = CaseAsker::default();
    let options = ConnectOptions {
        client_side: asker.client_side(&cases.cases),
        timeouts,
        ..settings.connect_options(&target.config)
    };
    let mut out = CasesOut {
        file: path.display().to_string(),
        server: target.label.clone(),
        passed: 0,
        failed: 0,
        all_passed: false,
        connect_error: None,
        cases: Vec::new(),
    };
    let reached = match settings.reach(&target, options).await {
        Ok(reached) => reached,
        Err(error) => {
            out.connect_error = Some(error.to_string());
            return Ok(out);
        }
    };
    let control = crate::session::RequestControl {
        timeouts,
        ..settings.control(cancel)
    };
    for case in &cases.cases {
        if control.cancel.is_cancelled() {
            break;
        }
        let run = run_case(
            &reached.session,
            reached.catalog.as_ref(),
            case,
            Some(&asker),
            &control,
        )
        .await;
        let server_named = CalledServer {
            label: &target.label,
            summary: Some(reached.session.summary()),
        };
        let history_id = match run.to_new_call(server_named) {
            Some(row) => record(settings, with_client(row, client)).await.id,
            None => None,
        };
        let passed = run.passed();
        out.cases.push(CaseLine {
            name: run.name.clone(),
            kind: run.kind.as_str().to_owned(),
            tool: run.tool.clone(),
            passed,
            verdict: run.verdict().as_str().to_owned(),
            duration_ms: u64::try_from(run.duration().as_millis()).unwrap_or(u64::MAX),
            failures: run.failure_sentences(),
            history_id,
        });
    }
    reached.session.close().await;
    out.passed = out.cases.iter().filter(|case| case.passed).count();
    out.failed = out.cases.len() - out.passed;
    out.all_passed = out.failed == 0 && out.cases.len() == cases.cases.len();
    Ok(out)
}

/// The short text for the model beside `run_cases`' result.
pub fn cases_summary(out: &CasesOut) -> String {
    if let Some(error) = &out.connect_error {
        return format!("no case ran: {error}");
    }
    let mut text = format!(
        "{}: {} passed, {} failed on {}",
        out.file, out.passed, out.failed, out.server
    );
    for case in out.cases.iter().filter(|case| !case.passed) {
        text.push_str(&format!("\n✗ {}: {}", case.name, case.failures.join("; ")));
    }
    text
}

/// `diff_interface`: the snapshot file against what `server` lists now.
pub async fn diff_interface(
    settings: &AgentSettings,
    snapshot: &str,
    server: &str,
) -> Result<DiffOut, AgentToolError> {
    let path = settings.path(snapshot);
    let old = InterfaceSnapshot::read(&path).map_err(|error| {
        AgentToolError::Input(format!(
            "the snapshot {} cannot be used: {error}. `toolscope snapshot --server NAME \
             --output FILE` writes one",
            path.display()
        ))
    })?;
    let target = settings.reachable(server)?;
    let reached = settings
        .reach(&target, settings.connect_options(&target.config))
        .await?;
    let summary = reached.session.summary().clone();
    let catalog = reached.catalog;
    let warning = reached.warning;
    reached.session.close().await;
    let Some(catalog) = catalog else {
        let why = warning.map_or_else(String::new, |error| error.to_string());
        return Err(AgentToolError::Input(format!(
            "{} did not list its tools: {why}",
            target.label
        )));
    };
    let new = InterfaceSnapshot::from_catalog(&summary, &catalog);
    let diff = interface::diff(&old, &new);
    let changes = |changes: &[Change]| -> Vec<ChangeOut> {
        changes
            .iter()
            .map(|change| ChangeOut {
                severity: change.severity.label().to_owned(),
                location: change.location.clone(),
                message: change.message.clone(),
            })
            .collect()
    };
    Ok(DiffOut {
        snapshot: path.display().to_string(),
        server: target.label,
        summary: diff.summary(),
        breaking: diff.breaking_count(),
        compatible: diff.compatible_count(),
        server_changes: changes(&diff.server),
        tools: diff
            .tools
            .iter()
            .map(|tool| ToolChangesOut {
                name: tool.name.clone(),
                status: match tool.status {
                    ToolStatus::Added => "added",
                    ToolStatus::Removed => "removed",
                    ToolStatus::Changed => "changed",
                }
                .to_owned(),
                changes: changes(&tool.changes),
            })
            .collect(),
        notes: diff.notes.clone(),
    })
}

/// The short text for the model beside `diff_interface`'s result.
pub fn diff_summary(out: &DiffOut) -> String {
    let mut text = format!("{} against {}: {}", out.server, out.snapshot, out.summary);
    for tool in &out.tools {
        text.push_str(&format!("\n{} ({})", tool.name, tool.status));
        for change in tool.changes.iter().take(5) {
            text.push_str(&format!(
                "\n  {} {}: {}",
                change.severity, change.location, change.message
            ));
        }
    }
    text
}
