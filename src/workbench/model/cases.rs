//! The model's side of cases: opening a case file, running its cases (on a connected server or
//! the file's own), keeping each case's outcome, and saving a call as a case.

use std::{path::PathBuf, sync::Arc};

use serde_json::{Map, Value};

use super::Model;
use crate::workbench::{
    CallRecord, ConnectionStatus, ToolKey,
    backend::{CaseReport, CasesEvent, CasesOn, CasesRequest, SavedCase},
    case_book::{CaseOutcome, CasesTarget},
};
use toolscope_core::cases::{CaseTarget, server_toml};

/// Which call "Save as case" saves.
#[derive(Debug, Clone)]
pub enum CaseSource {
    /// A tool's last result (or just its arguments, when it has none yet).
    Tool {
        tool: ToolKey,
        arguments: Map<String, Value>,
    },
    /// The call shown from the history.
    HistoryCall(i64),
}

/// A call to save: its tool, arguments, result (when shown) and server (when known).
type SavedCall = (
    String,
    Map<String, Value>,
    Option<Arc<CallRecord>>,
    Option<crate::workbench::ServerId>,
);

/// What the user asks of the Cases panel.
#[derive(Debug, Clone)]
pub enum CaseAction {
    Open(PathBuf),
    Reload,
    SetTarget(CasesTarget),
    /// Run these cases (by position in the file), or all of them.
    Run(Option<Vec<usize>>),
    Stop,
    /// Show a case's last result (`None`: back to the live result).
    Select(Option<String>),
    /// Append a call to a case file as a `[[case]]` (the file is made when new).
    Save {
        path: PathBuf,
        name: String,
        source: CaseSource,
        /// Its result becomes the case's expectations.
        expect_result: bool,
    },
}

impl Model {
    pub(super) fn case_action(&mut self, action: CaseAction) {
        match action {
            CaseAction::Open(path) => {
                if self.cases.path.as_ref() != Some(&path) {
                    // Another file: what ran and what was shown belong to the old one.
                    if let Some((_, cancel)) = self.cases.running.take() {
                        cancel.cancel();
                    }
                    self.cases.batch += 1;
                    self.cases.file = None;
                    self.cases.selected = None;
                    self.cases.target = None;
                    self.release_case_records(|_| true);
                }
                self.cases.path = Some(path.clone());
                self.cases.problem = None;
                self.backend.read_case_file(path);
            }
            CaseAction::Reload => {
                if let Some(path) = self.cases.path.clone() {
                    self.backend.read_case_file(path);
                }
            }
            CaseAction::SetTarget(target) => self.cases.target = Some(target),
            CaseAction::Run(indices) => self.run_cases(indices),
            CaseAction::Stop => {
                if let Some((_, cancel)) = &self.cases.running {
                    cancel.cancel();
                }
            }
            CaseAction::Select(name) => self.cases.selected = name,
            CaseAction::Save {
                path,
                name,
                source,
                expect_result,
            } => self.save_case(path, &name, source, expect_result),
        }
    }

    /// Where cases run now: the chosen target, else the file's server, else the selected one.
    pub fn cases_target(&self) -> CasesTarget {
        self.cases.target.unwrap_or_else(|| {
            match self
                .cases
                .file
                .as_ref()
                .and_then(|file| file.server.as_ref())
            {
                // The window's demo is the same server, already connected.
                Some(server) if server.target == CaseTarget::Demo => {
                    CasesTarget::Server(super::DEMO_SERVER)
                }
                Some(_) => CasesTarget::FileServer,
                None => CasesTarget::Server(self.selected_server),
            }
        })
    }

    fn run_cases(&mut self, indices: Option<Vec<usize>>) {
        let Some(file) = self.cases.file.clone() else {
            return;
        };
        if self.cases.is_running() {
            return;
        }
        let cases: Vec<_> = file
            .cases
            .iter()
            .enumerate()
            .filter(|(index, _)| indices.as_ref().is_none_or(|wanted| wanted.contains(index)))
            .map(|(index, case)| (index, case.clone()))
            .collect();
        let target = self.cases_target();
        let (on, record_server, timeouts) = match target {
            CasesTarget::Server(id) => {
                let Some(server) = self.server(id) else {
                    return;
                };
                if !matches!(server.status, ConnectionStatus::Connected { .. }) {
                    self.cases.run_problem = Some(format!(
                        "\"{}\" is not connected: connect it, or run on the file's server",
                        server.name
                    ));
                    return;
                }
                (CasesOn::Connected(id), id, self.timeouts())
            }
            CasesTarget::FileServer => {
                let Some(server) = file.server.as_ref() else {
                    self.cases.run_problem = Some(
                        "the file has no [server] section: pick one of your servers to run on"
                            .to_owned(),
                    );
                    return;
                };
                let lookup = |name: &str| std::env::var(name).ok();
                let config = match (&server.target, self.server(super::DEMO_SERVER)) {
                    // The demo is this build's own, as the window runs it.
                    (CaseTarget::Demo, Some(demo)) => Ok(demo.config.clone()),
                    _ => server.config(&file.folder(), &lookup),
                };
                match config {
                    Ok(config) => (
                        CasesOn::FileServer {
                            config,
                            label: server.label(),
                        },
                        super::NO_SERVER,
                        server.timeouts(),
                    ),
                    Err(problem) => {
                        self.cases.run_problem = Some(problem.to_string());
                        return;
                    }
                }
            }
        };
        let names: std::collections::HashSet<&str> =
            cases.iter().map(|(_, case)| case.name.as_str()).collect();
        self.release_case_records(|name| names.contains(name));
        for (_, case) in &cases {
            self.cases
                .outcomes
                .insert(case.name.clone(), CaseOutcome::Waiting);
        }
        let first_id = self.next_id;
        self.next_id += cases.len() as u64 + 1;
        self.cases.batch += 1;
        self.cases.run_problem = None;
        let batch = self.cases.batch;
        let label = match target {
            CasesTarget::Server(id) => self.server(id).map(|server| server.name.clone()),
            CasesTarget::FileServer => None,
        };
        let cancel = self.backend.run_cases(CasesRequest {
            batch,
            label,
            on,
            cases,
            timeouts,
            max_image_side: self.max_image_side,
            first_id,
            record_server,
        });
        self.cases.running = Some((batch, cancel));
    }

    pub(super) fn cases_event(&mut self, batch: u64, event: CasesEvent) {
        if batch != self.cases.batch {
            return;
        }
        match event {
            CasesEvent::Ran(report) => self.case_ran(*report),
            CasesEvent::Finished { problem } => {
                self.cases.running = None;
                self.cases.run_problem = problem;
                // Cases that did not run (stopped, or the server was not reached) wait no more.
                self.cases
                    .outcomes
                    .retain(|_, outcome| !matches!(outcome, CaseOutcome::Waiting));
            }
        }
    }

    fn case_ran(&mut self, report: CaseReport) {
        let CaseReport {
            name,
            passed,
            failures,
            verdict,
            duration,
            record,
            feature,
            history,
            ..
        } = report;
        if let Some(history) = history {
            let tag = self.fresh_id();
            self.history.record(history, tag);
        }
        let outcome = CaseOutcome::Done {
            passed,
            failures,
            verdict,
            duration,
            record,
            feature,
        };
        if let Some(CaseOutcome::Done {
            record: Some(old), ..
        }) = self.cases.outcomes.insert(name, outcome)
        {
            self.backend.release(old);
        }
    }

    /// The record and server of what "Save as case" saves.
    fn case_source(&self, source: &CaseSource) -> Option<SavedCall> {
        match source {
            CaseSource::Tool { tool, arguments } => {
                let record = self
                    .run(tool)
                    .and_then(|run| run.last_record.clone())
                    .filter(|record| record.outcome.arguments == Value::Object(arguments.clone()));
                Some((
                    tool.name.clone(),
                    arguments.clone(),
                    record,
                    Some(tool.server),
                ))
            }
            CaseSource::HistoryCall(id) => {
                let entry = self
                    .history_browser
                    .entry
                    .as_ref()
                    .filter(|entry| entry.id == *id)?;
                let arguments = match toolscope_core::deep_json::parse(&entry.arguments) {
                    Ok(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                let server = self
                    .servers
                    .iter()
                    .find(|server| server.name == entry.server)
                    .map(|server| server.id);
                Some((
                    entry.tool.clone(),
                    arguments,
                    self.history_browser.shown.clone(),
                    server,
                ))
            }
        }
    }

    fn save_case(&mut self, path: PathBuf, name: &str, source: CaseSource, expect_result: bool) {
        let Some((tool, arguments, record, server)) = self.case_source(&source) else {
            self.show_banner(
                "That call is no longer shown; pick it again to save it".into(),
                None,
            );
            return;
        };
        let expected = if expect_result { record } else { None };
        let server_section = server.and_then(|id| self.server(id)).map_or_else(
            || {
                "# Toolscope cases: run them with `toolscope run <this file>` (add a \
                     [server])\n"
                    .to_owned()
            },
            |server| server_toml(&server.config, server.id == super::DEMO_SERVER),
        );
        self.backend.save_case(
            path,
            server_section,
            SavedCase {
                name: name.to_owned(),
                tool,
                arguments,
                expected,
            },
        );
    }

    pub(super) fn case_saved(&mut self, path: PathBuf, result: Result<(), String>) {
        match result {
            Ok(()) => {
                self.show_banner(
                    format!("Saved the case to {}", path.display()),
                    Some(path.clone()),
                );
                if self.cases.path.as_ref() == Some(&path) || self.cases.path.is_none() {
                    self.case_action(CaseAction::Open(path));
                }
            }
            Err(problem) => self.show_banner(format!("The case was not saved: {problem}"), None),
        }
    }

    /// Forgets the outcomes of the cases `which` names; their records are freed in the
    /// background (a big one takes a while).
    fn release_case_records(&mut self, which: impl Fn(&str) -> bool) {
        let names: Vec<String> = self
            .cases
            .outcomes
            .keys()
            .filter(|name| which(name))
            .cloned()
            .collect();
        for name in names {
            if let Some(CaseOutcome::Done {
                record: Some(record),
                ..
            }) = self.cases.outcomes.remove(&name)
            {
                self.backend.release(record);
            }
        }
    }

    pub(super) fn case_file_read(
        &mut self,
        path: PathBuf,
        result: Result<toolscope_core::cases::CaseFile, String>,
    ) {
        if self.cases.path.as_ref() != Some(&path) {
            return;
        }
        self.cases.changed_on_disk = false;
        match result {
            Ok(file) => {
                let names: std::collections::HashSet<&str> =
                    file.cases.iter().map(|case| case.name.as_str()).collect();
                self.release_case_records(|name| !names.contains(name));
                self.cases.file = Some(Arc::new(file));
                self.cases.problem = None;
            }
            Err(problem) => {
                // What is listed must be what the path names: nothing, then.
                self.cases.file = None;
                self.cases.selected = None;
                self.release_case_records(|_| true);
                self.cases.problem = Some(problem);
            }
        }
    }
}
