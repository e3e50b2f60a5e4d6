//! Restart on change: a server's folder watched; on a change the server is restarted, its
//! tools listed again (and what changed in its interface said), its last call made again with
//! the same arguments, and that result compared with the one before.

use std::{path::PathBuf, sync::Arc};

use super::Model;
use crate::workbench::{
    CallRecord, ServerId, ToolKey,
    backend::SideInput,
    call_failure::CallFailure,
    restart_on_change::{CallAgain, PendingRestart, RestartOnChange, RestartStage},
    server_state::ConnectionStatus,
};

impl Model {
    /// Watches `folder` (else the server's default: its script's folder, or its working
    /// directory) and restarts the server on each change.
    pub(super) fn start_restart_on_change(&mut self, server: ServerId, folder: Option<PathBuf>) {
        let Some(state) = self.server(server) else {
            return;
        };
        let Some(folder) = folder.or_else(|| toolscope_core::watch::default_folder(&state.config))
        else {
            self.show_banner(
                format!(
                    "Restart on change is for a stdio server you are writing: \"{}\" is \
                     reached over HTTP, so Toolscope cannot restart it",
                    state.name
                ),
                None,
            );
            return;
        };
        let watching = self.backend.watch_folder(server, folder.clone());
        if let Some(state) = self.server_mut(server) {
            state.restart_on_change = Some(RestartOnChange::new(folder, watching));
        }
    }

    pub(super) fn stop_restart_on_change(&mut self, server: ServerId) {
        if let Some(state) = self.server_mut(server) {
            state.restart_on_change = None;
        }
    }

    pub(super) fn watch_failed(&mut self, server: ServerId, problem: String) {
        if let Some(watch) = self
            .server_mut(server)
            .and_then(|state| state.restart_on_change.as_mut())
        {
            watch.problem = Some(problem);
        }
    }

    /// Files changed in the server's folder: restart it.
    pub(super) fn folder_changed(&mut self, server: ServerId, names: Vec<String>) {
        let Some(state) = self.server(server) else {
            return;
        };
        if state.restart_on_change.is_none() {
            return;
        }
        let before = match (&state.status, &state.catalog) {
            (ConnectionStatus::Connected { summary }, Some(catalog)) => {
                Some(((**summary).clone(), Arc::clone(catalog)))
            }
            _ => None,
        };
        let again = state.last_call.clone().map(|(name, arguments)| {
            let tool = ToolKey::new(server, name);
            let before = self.runs.get(&tool).and_then(|run| run.last_record.clone());
            CallAgain {
                tool,
                arguments,
                before,
            }
        });
        let Some(watch) = self
            .server_mut(server)
            .and_then(|state| state.restart_on_change.as_mut())
        else {
            return;
        };
        // A change while a restart is under way restarts again, still measured against what
        // was there before the first.
        let earlier = watch.pending.take();
        let (before, again) = match earlier {
            Some(earlier) => (earlier.before.or(before), earlier.again.or(again)),
            None => (before, again),
        };
        watch.pending = Some(PendingRestart {
            before,
            again,
            stage: RestartStage::Relisting,
        });
        watch.restarts += 1;
        watch.report = None;
        let more = names.len().saturating_sub(3);
        let mut shown: Vec<String> = names.into_iter().take(3).collect();
        if more > 0 {
            shown.push(format!("{more} more"));
        }
        watch.last_change = Some(shown.join(", "));
        // Restarting never takes the selection away from the server the person is on.
        let selected = self.selected_server;
        self.connect(server);
        self.selected_server = selected;
    }

    /// The tools of a restarted server are listed: say what changed, call the last call again.
    pub(super) fn restart_listed(&mut self, server: ServerId) {
        // The server and the backend borrowed apart.
        let Some(state) = self.servers.iter_mut().find(|state| state.id == server) else {
            return;
        };
        let now = match (&state.status, &state.catalog) {
            (ConnectionStatus::Connected { summary }, Some(catalog)) => {
                Some(((**summary).clone(), Arc::clone(catalog)))
            }
            _ => None,
        };
        let listed: Option<std::collections::HashSet<String>> = state
            .catalog
            .as_ref()
            .map(|catalog| catalog.tools.iter().map(|tool| tool.name.clone()).collect());
        let Some(watch) = state.restart_on_change.as_mut() else {
            return;
        };
        let Some(pending) = watch
            .pending
            .as_mut()
            .filter(|pending| pending.stage == RestartStage::Relisting)
        else {
            return;
        };
        if let (Some(before), Some(now)) = (pending.before.take(), now) {
            self.backend.interface_since_restart(server, before, now);
        }
        let Some(again) = pending.again.as_ref() else {
            watch.pending = None;
            watch.report = Some("Restarted; no call to make again yet".to_owned());
            return;
        };
        if !listed.is_some_and(|names| names.contains(&again.tool.name)) {
            watch.report = Some(format!(
                "Restarted; `{}` is no longer listed, so it was not called again",
                again.tool.name
            ));
            watch.pending = None;
            return;
        }
        pending.stage = RestartStage::Calling;
        let (tool, arguments) = (again.tool.clone(), again.arguments.clone());
        watch.report = Some(format!("Restarted; calling `{}` again…", tool.name));
        self.start_call(tool, arguments, false);
    }

    /// What the interface after a restart changed (`None`: nothing).
    pub(super) fn since_restart(
        &mut self,
        server: ServerId,
        note: Option<crate::workbench::InterfaceNote>,
    ) {
        if let Some(state) = self.server_mut(server) {
            state.since_last_time = note;
        }
    }

    /// A call ended: when it is a restart's call made again, compare it with the one before.
    pub(super) fn restart_call_done(
        &mut self,
        tool: &ToolKey,
        result: &Result<Arc<CallRecord>, CallFailure>,
    ) {
        let Some(watch) = self
            .server_mut(tool.server)
            .and_then(|state| state.restart_on_change.as_mut())
        else {
            return;
        };
        let calling = watch.pending.as_ref().is_some_and(|pending| {
            pending.stage == RestartStage::Calling
                && pending
                    .again
                    .as_ref()
                    .is_some_and(|again| &again.tool == tool)
        });
        if !calling {
            return;
        }
        let before = watch
            .pending
            .take()
            .and_then(|pending| pending.again)
            .and_then(|again| again.before);
        let after = match result {
            Ok(record) => Arc::clone(record),
            Err(failure) => {
                watch.report = Some(format!(
                    "Restarted; `{}` called again failed: {failure}",
                    tool.name
                ));
                return;
            }
        };
        let Some(before) = before else {
            watch.report = Some(format!(
                "Restarted; `{}` called again (no result before it to compare with)",
                tool.name
            ));
            return;
        };
        watch.report = Some(format!(
            "Restarted; `{}` called again, compared with its result before",
            tool.name
        ));
        let server = self.server(tool.server).map(|state| state.name.clone());
        let side = |when: &str, record: Arc<CallRecord>| SideInput::Live {
            label: format!("{} · {when} the restart", tool.name),
            server: server.clone(),
            record,
        };
        self.compare_inputs(side("before", before), side("after", after));
    }
}
