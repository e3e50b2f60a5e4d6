//! The model's side of the history: its status, the calls listed, a recording browsed in its
//! place, each finished call recorded, and a history call run again.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{HistoryStatus, Model, NO_SERVER, OpenRecording};
use crate::workbench::{
    CallId, CallRecord, call_failure::CallFailure, server_state::ConnectionStatus,
    tool_run::ToolKey,
};
use toolscope_core::{
    engine::CallEnd,
    history::{CalledServer, HistoryEvent, HistoryWriter},
};

/// What the user asks of the history.
#[derive(Debug, Clone)]
pub enum HistoryAction {
    /// List the history's calls that match (newest first).
    Query(toolscope_core::history::CallQuery),
    /// Show a call from the history as it was (`None`: back to the live result).
    Select(Option<i64>),
    /// Keep a note on a call in the history.
    SetNote { id: i64, note: String },
    /// Call the selected history call's tool again, on the same server, with the same
    /// arguments (or these, when they were edited).
    RunAgain {
        id: i64,
        arguments: Option<Map<String, Value>>,
    },
    /// How much call text the history keeps (bytes); the oldest calls go first.
    SetCap(u64),
    /// Browse a recording (made by Export) in place of the history.
    OpenRecording(std::path::PathBuf),
    /// Back to the history.
    CloseRecording,
    /// List the calls grouped by tool, with each tool's p50, p95 and slowest (or not).
    GroupByTool(bool),
    /// Follow the history while the History or the Live tab is open: the sessions seen
    /// through `toolscope proxy` and the calls another process records are read when the
    /// history moves (`false`: stop).
    WatchSessions(bool),
    /// Record into and read a team's history, or the local one again.
    UseTeamHistory(super::TeamHistoryChoice),
    /// The team history again, after it could not be reached.
    TryTeamHistoryAgain,
    /// Follow one proxied session (its calls listed, its log read), or all (`None`).
    SelectSession(Option<i64>),
    /// The Live view shows these lines (by position) of the selected session's log.
    ShowLogLines(std::ops::Range<u64>),
    /// The history moved: the calls newer than those listed, under the same query.
    ListNewer,
    /// Tick a proxied session for Compare (at most two), or untick it.
    MarkSession { session: i64, marked: bool },
    /// Compare the two ticked sessions: their tools, then their calls.
    CompareSessions,
    /// Close the sessions' comparison.
    CloseSessionComparison,
}

/// The tag of the latency request over the whole history (the tools' figures); the
/// browser's own requests count up from 1.
const ALL_TOOLS: u64 = u64::MAX;

impl Model {
    pub(super) fn history_action(&mut self, action: HistoryAction) {
        match action {
            HistoryAction::Query(query) => {
                self.history_browser.query = query;
                self.list_history();
            }
            HistoryAction::ListNewer => self.list_newer_history(),
            HistoryAction::Select(id) => {
                self.history_browser.clear_selection();
                self.history_browser.selected = id;
                if let Some(id) = id {
                    self.browsed().get(id);
                }
            }
            HistoryAction::SetNote { id, note } => {
                let browser = &mut self.history_browser;
                for call in browser.calls.iter_mut().chain(browser.entry.as_mut()) {
                    if call.id == id {
                        call.note.clone_from(&note);
                    }
                }
                self.browsed().set_note(id, note);
            }
            HistoryAction::RunAgain { id, arguments } => self.run_history_call(id, arguments),
            HistoryAction::SetCap(bytes) => self.history.set_cap(bytes),
            HistoryAction::OpenRecording(path) => {
                self.recording_generation += 1;
                let listener = self.backend.recording_listener(self.recording_generation);
                let writer = HistoryWriter::start_recording(path.clone(), listener);
                self.recording = Some((writer, OpenRecording { path, calls: None }));
                self.switch_browsed();
            }
            HistoryAction::CloseRecording => {
                self.recording_generation += 1;
                self.recording = None;
                self.switch_browsed();
            }
            HistoryAction::WatchSessions(on) => self.watch_sessions(on),
            HistoryAction::UseTeamHistory(choice) => self.use_team_history(choice),
            HistoryAction::TryTeamHistoryAgain => self.try_team_history_again(),
            HistoryAction::SelectSession(session) => self.select_session(session),
            HistoryAction::ShowLogLines(positions) => self.show_log_lines(positions),
            HistoryAction::MarkSession { session, marked } => self.mark_session(session, marked),
            HistoryAction::CompareSessions => self.compare_sessions(),
            HistoryAction::CloseSessionComparison => self.close_session_comparison(),
            HistoryAction::GroupByTool(on) => {
                self.history_browser.grouped = on;
                self.history_browser.groups = None;
                self.list_history();
            }
        }
    }

    /// How long `tool` (of `kind`, on the server named `server`) took over its calls in the
    /// history, once known.
    pub fn tool_latency(
        &self,
        server: &str,
        kind: toolscope_core::history::CallKind,
        tool: &str,
    ) -> Option<&toolscope_core::history::ToolLatency> {
        self.latency.figures.iter().find(|figures| {
            figures.tool == tool && figures.kind == kind && figures.server == server
        })
    }

    /// Asks for every tool's figures again (the history changed); one request at a time.
    pub(super) fn refresh_latency(&mut self) {
        if self.latency.asking {
            self.latency.stale = true;
            return;
        }
        self.latency.asking = true;
        self.latency.stale = false;
        self.history
            .latency(toolscope_core::history::CallQuery::default(), ALL_TOOLS);
    }

    /// A history call read whole, for the call shown (if it still is).
    pub(super) fn history_record(&mut self, entry: i64, result: Result<Arc<CallRecord>, String>) {
        let browser = &mut self.history_browser;
        if browser.selected == Some(entry) {
            match result {
                Ok(record) => browser.shown = Some(record),
                Err(problem) => browser.problem = Some(problem),
            }
        }
    }

    /// The history: open (where, how many calls), or why it cannot be used.
    pub fn history_status(&self) -> &HistoryStatus {
        &self.history_status
    }

    /// Whether the history browsed is a team's (its calls say who recorded them).
    pub fn history_is_shared(&self) -> bool {
        self.recording.is_none()
            && matches!(
                &self.history_status,
                HistoryStatus::Open { location, .. } if location.file().is_none()
            )
    }

    /// The history as the window browses it.
    /// The recording browsed in place of the history, if one is open.
    pub fn open_recording(&self) -> Option<&OpenRecording> {
        self.recording.as_ref().map(|(_, open)| open)
    }

    /// Where the history browser reads: the open recording, else the history.
    pub(super) fn browsed(&self) -> &HistoryWriter {
        self.recording
            .as_ref()
            .map_or(&self.history, |(writer, _)| writer)
    }

    /// The browser starts over on another source (the history or a recording).
    pub(super) fn switch_browsed(&mut self) {
        self.history_browser.clear_selection();
        self.history_browser.marked.clear();
        self.history_browser.calls.clear();
        self.list_history();
    }

    pub(super) fn recording_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Opened { calls, .. } => {
                if let Some((_, open)) = &mut self.recording {
                    open.calls = Some(calls);
                }
                self.list_history();
            }
            HistoryEvent::Failed(problem) => {
                self.recording = None;
                self.show_banner(format!("The recording cannot be opened: {problem}"), None);
                self.switch_browsed();
            }
            other => self.history_event(other),
        }
    }

    /// The calls recorded since the list was made, put in front of it (or the list made
    /// again when it cannot be brought up to date that way).
    fn list_newer_history(&mut self) {
        let Some(request) = self.history_browser.newer_request() else {
            self.list_history();
            return;
        };
        let browser = &mut self.history_browser;
        browser.list_tag += 1;
        browser.newer_tag = Some(browser.list_tag);
        let tag = browser.list_tag;
        self.browsed().list(request, tag);
    }

    pub(super) fn list_history(&mut self) {
        let browser = &mut self.history_browser;
        browser.newer_tag = None;
        browser.list_tag += 1;
        browser.loading = true;
        let request = browser.request();
        let tag = browser.list_tag;
        let grouped = browser.grouped;
        if grouped {
            self.browsed().latency(request.clone(), tag);
        }
        self.browsed().list(request, tag);
    }

    /// Calls a history call's tool again on the server it was made on (by its saved name).
    pub(super) fn run_history_call(&mut self, id: i64, arguments: Option<Map<String, Value>>) {
        let Some(entry) = self
            .history_browser
            .entry
            .as_ref()
            .filter(|entry| entry.id == id)
        else {
            return;
        };
        let Some(server) = self
            .servers
            .iter()
            .find(|server| server.name == entry.server)
        else {
            self.show_banner(
                format!(
                    "Call #{id} was made on \"{}\", which is not one of your servers: add it (the \
                 same name) to run the call again",
                    entry.server
                ),
                None,
            );
            return;
        };
        let arguments =
            arguments.unwrap_or_else(
                || match toolscope_core::deep_json::parse(&entry.arguments) {
                    Ok(Value::Object(map)) => map,
                    _ => Map::new(),
                },
            );
        let tool = ToolKey::new(server.id, entry.tool.clone());
        self.go_to_tool(&tool);
        self.call_action(super::CallAction::Call {
            tool,
            arguments,
            force: false,
        });
    }

    /// Records a finished call (answered or not) in the history, off this thread.
    pub(super) fn record_in_history(
        &mut self,
        call: CallId,
        result: &Result<Arc<CallRecord>, CallFailure>,
    ) {
        let Some(input) = self.calls.get(&call) else {
            return;
        };
        let tool = &input.tool;
        let Some(server) = self.server(tool.server) else {
            return;
        };
        let summary = match &server.status {
            ConnectionStatus::Connected { summary } => Some(&**summary),
            _ => None,
        };
        let called = CalledServer {
            label: &server.name,
            summary,
        };
        let failure = result.as_ref().err().map(ToString::to_string);
        let end = match (result, &failure) {
            (Ok(record), _) => CallEnd::Answered {
                outcome: &record.outcome,
                analysis: &record.analysis,
            },
            (Err(failed), Some(failure)) => CallEnd::NoAnswer {
                arguments: &input.arguments,
                waited: input.started.elapsed(),
                verdict: failed.verdict(),
                failure,
            },
            (Err(_), None) => return,
        };
        let entry = input.plan.history_row(called, end);
        self.history.record(entry, call);
    }

    pub(super) fn history_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Opened {
                location,
                calls,
                cap_bytes,
            } => {
                self.history_status = HistoryStatus::Open {
                    location,
                    calls,
                    cap_bytes,
                };
                self.refresh_latency();
            }
            HistoryEvent::Recorded { tag, id } => {
                self.repeats.recorded(tag, id);
                self.app_call_recorded(tag, id);
                if let HistoryStatus::Open { calls, .. } = &mut self.history_status {
                    *calls += 1;
                }
                self.refresh_latency();
            }
            HistoryEvent::Latency { tag, figures } if tag == ALL_TOOLS => {
                self.latency.figures = figures;
                self.latency.asking = false;
                if self.latency.stale {
                    self.refresh_latency();
                }
            }
            HistoryEvent::Latency { tag, figures } => {
                if tag == self.history_browser.list_tag {
                    self.history_browser.groups = Some(figures);
                }
            }
            HistoryEvent::Listed { tag, calls } => {
                let shared = self.history_is_shared();
                let browser = &mut self.history_browser;
                if tag == browser.list_tag {
                    browser.shared = shared;
                    let old = browser.listed(tag, calls);
                    self.backend.drop_in_background(old);
                }
            }
            HistoryEvent::Loaded(call) => {
                if self.history_browser.selected == Some(call.id) {
                    let server = self
                        .servers
                        .iter()
                        .find(|server| server.name == call.server)
                        .map_or(NO_SERVER, |server| server.id);
                    let id = self.fresh_id();
                    let mut listed = (*call).clone();
                    listed.response = None;
                    self.history_browser.entry = Some(listed);
                    self.backend
                        .show_history_call(id, server, *call, self.max_image_side);
                }
            }
            HistoryEvent::FellBack(note) => self.show_banner(format!("History: {note}"), None),
            HistoryEvent::Failed(message) => {
                // A page of a session's log that failed is asked for again as it is shown.
                self.live.reading_log = false;
                if !matches!(self.history_status, HistoryStatus::Open { .. }) {
                    self.history_status = HistoryStatus::Unavailable(message.clone());
                }
                self.show_banner(format!("History: {message}"), None);
            }
            HistoryEvent::NotLoaded { id, reason } => {
                if self.history_browser.selected == Some(id) {
                    self.history_browser.problem = Some(reason);
                }
            }
            HistoryEvent::NoteSaved { .. } => {}
            HistoryEvent::Repeated { id, times } => {
                // The row listed shows its count at once (the stamp does not move for it).
                if let (Some(times), Some(listed)) = (
                    times,
                    self.history_browser
                        .calls
                        .iter_mut()
                        .find(|call| call.id == id),
                ) {
                    listed.repeats = times;
                }
            }
            HistoryEvent::CapSet {
                cap_bytes: cap,
                calls: left,
            } => {
                if let HistoryStatus::Open {
                    calls, cap_bytes, ..
                } = &mut self.history_status
                {
                    *cap_bytes = cap;
                    *calls = left;
                }
            }
            HistoryEvent::LoadedMany { tag, calls } => self.loaded_many(tag, calls),
            HistoryEvent::Sessions { stamp, sessions } => self.sessions_read(stamp, sessions),
            HistoryEvent::SessionLog {
                session,
                first,
                lines,
            } => self.session_log_read(session, first, lines),
        }
    }
}
