//! How the window takes in what the backend reports: connections, tool lists, server
//! notifications, progress and finished calls.

use std::{collections::HashMap, time::Instant};

use super::{EVENT_BUDGET, MAX_LOG_MESSAGES, ToolscopeApp};
use crate::{
    session::SessionEvent,
    ui::state::{CallState, ConnectionStatus, ToolState, describe_tool_changes},
    workbench::{BackendEvent, CallId, ServerId},
};

impl ToolscopeApp {
    /// Applies every pending backend event, within a time budget so a flood cannot stall a
    /// frame; what is left waits for the next frame, which is requested.
    pub(super) fn drain_events(&mut self, ctx: &egui::Context) {
        let started = Instant::now();
        while let Ok(event) = self.events.try_recv() {
            self.handle_event(event);
            if started.elapsed() > EVENT_BUDGET {
                ctx.request_repaint();
                break;
            }
        }
    }

    fn handle_event(&mut self, event: BackendEvent) {
        match event {
            BackendEvent::Connected {
                server,
                summary,
                tap,
            } => {
                if let Some(view) = self.server_mut(server) {
                    view.status = ConnectionStatus::Connected {
                        summary: Box::new(summary),
                    };
                    view.tap = Some(tap);
                }
            }
            BackendEvent::ConnectFailed { server, message } => {
                if let Some(view) = self.server_mut(server) {
                    view.status = ConnectionStatus::Failed { message };
                }
            }
            BackendEvent::Tools { server, result } => self.tools_arrived(server, result),
            BackendEvent::Session { server, event } => self.session_event(server, event),
            BackendEvent::CallProgress { call, update } => {
                if let Some(state) = self.call_state(call)
                    && let CallState::Running { progress, .. } = &mut state.call
                {
                    *progress = Some(update);
                }
            }
            BackendEvent::CallDone { call, result } => {
                let Some(state) = self.call_state(call) else {
                    return;
                };
                match result {
                    Ok(record) => {
                        state.last_record = Some(record);
                        state.call = CallState::Done;
                    }
                    Err(message) => state.call = CallState::Failed { message },
                }
                self.calls.remove(&call);
            }
        }
    }

    /// The tool state of a call still wanted; a call replaced or cancelled is dropped by id.
    fn call_state(&mut self, call: CallId) -> Option<&mut ToolState> {
        let key = self.calls.get(&call)?.clone();
        let state = self.tools.get_mut(&key)?;
        match &state.call {
            CallState::Running { id, .. } if *id == call => Some(state),
            _ => None,
        }
    }

    fn tools_arrived(
        &mut self,
        server: ServerId,
        result: Result<crate::session::ToolCatalog, String>,
    ) {
        let Some(view) = self.server_mut(server) else {
            return;
        };
        match result {
            Ok(catalog) => {
                let definitions =
                    |catalog: &crate::session::ToolCatalog| -> HashMap<String, serde_json::Value> {
                        catalog
                            .tools
                            .iter()
                            .map(|tool| (tool.name.clone(), tool.raw.clone()))
                            .collect()
                    };
                let old_definitions = view.catalog.as_ref().map(definitions).unwrap_or_default();
                let new_definitions = definitions(&catalog);
                // A refresh that changed nothing (servers often notify twice) keeps the note
                // of the last real change.
                if let Some(note) = view
                    .catalog
                    .as_ref()
                    .and_then(|old| describe_tool_changes(old, &catalog))
                {
                    view.change_note = Some(note);
                }
                let keep = view
                    .selected_tool
                    .as_ref()
                    .is_some_and(|name| catalog.find(name).is_some());
                if !keep {
                    view.selected_tool = catalog
                        .tools
                        .iter()
                        .find(|tool| tool.name == "add")
                        .or(catalog.tools.first())
                        .map(|tool| tool.name.clone());
                }
                view.catalog = Some(catalog);
                view.filtered_tools = None;
                view.tools_error = None;
                // An editor built from a schema that changed (or a tool that left) is
                // rebuilt; the others keep their arguments and last result.
                let stale: Vec<String> = self
                    .tools
                    .iter()
                    .filter(|((id, name), state)| {
                        *id == server
                            && !matches!(state.call, CallState::Running { .. })
                            && new_definitions.get(name.as_str())
                                != old_definitions.get(name.as_str())
                    })
                    .map(|((_, name), _)| name.clone())
                    .collect();
                for name in stale {
                    self.tools.remove(&(server, name));
                }
            }
            Err(message) => view.tools_error = Some(message),
        }
    }

    fn session_event(&mut self, server: ServerId, event: SessionEvent) {
        let timeouts = self.timeouts();
        match event {
            SessionEvent::ToolListChanged => self.backend.refresh_tools(server, timeouts),
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                if let Some(view) = self.server_mut(server) {
                    let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
                    let text = data
                        .as_str()
                        .map_or_else(|| data.to_string(), str::to_owned);
                    view.log_messages.push(format!("[{level}{logger}] {text}"));
                    if view.log_messages.len() > MAX_LOG_MESSAGES {
                        view.log_messages.remove(0);
                    }
                }
            }
            SessionEvent::Closed { reason } => {
                if let Some(view) = self.server_mut(server)
                    && view.is_connected()
                {
                    view.status = ConnectionStatus::Closed { reason };
                }
            }
            SessionEvent::Progress { .. } | SessionEvent::OtherListChanged { .. } => {}
        }
    }
}
