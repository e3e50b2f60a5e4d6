//! The model's side of calls: one started as the engine plans it, the tool gone to, the
//! running call found, and results made small when their tool leaves the screen.

use std::{sync::Arc, time::Instant};

use serde_json::{Map, Value};

use super::{Model, PendingCall};
use crate::workbench::{
    CallId, CallRecord, CallRequest, HistoryAction, ServerAction, ServerId,
    call_failure::CallFailure,
    compact_record::CompactRecord,
    server_state::ConnectionStatus,
    tool_run::{CallState, RunningTask, Settling, ToolKey, ToolRun},
};
use toolscope_core::{
    engine::{self, CallRefused, CallWish, ServerView},
    session::ProgressUpdate,
};

/// What the user asks of tools and their calls.
#[derive(Debug, Clone)]
pub enum CallAction {
    /// Select a tool by its position in the server's list (two tools may share a name).
    SelectTool {
        server: ServerId,
        index: usize,
    },
    /// Call a tool with these arguments. A call of the same tool still running is cancelled.
    Call {
        tool: ToolKey,
        arguments: Map<String, Value>,
        /// Send it even though the tool is flagged (e.g. not in `tools/list`).
        force: bool,
    },
    Cancel(ToolKey),
    /// A note shown above a tool's arguments (e.g. "`data` was filled in from query_db /rows").
    SetNote {
        tool: ToolKey,
        note: Option<String>,
    },
    /// Go to a tool: its server and, when the server lists it, the tool selected, the live
    /// result shown (the one way the window goes to a tool: from a history call, to run or
    /// edit it, and when a value is chained into an argument).
    GoToTool(ToolKey),
}

impl Model {
    pub(super) fn call_action(&mut self, action: CallAction) {
        match action {
            CallAction::SelectTool { server, index } => {
                if let Some(state) = self.server_mut(server) {
                    state.selected_tool = Some(index);
                }
                self.settle_results();
            }
            CallAction::Call {
                tool,
                arguments,
                force,
            } => self.start_call(tool, arguments, force),
            CallAction::Cancel(tool) => {
                if let Some(ToolRun {
                    call: CallState::Running { cancel, .. },
                    ..
                }) = self.runs.get(&tool)
                {
                    cancel.cancel();
                }
            }
            CallAction::SetNote { tool, note } => self.runs.entry(tool).or_default().note = note,
            CallAction::GoToTool(tool) => self.go_to_tool(&tool),
        }
    }

    pub(super) fn call_progress(&mut self, call: CallId, update: ProgressUpdate) {
        if let Some(ToolRun {
            call: CallState::Running { progress, .. },
            ..
        }) = self.running_call(call)
        {
            *progress = Some(update);
        }
    }

    pub(super) fn call_task_status(&mut self, call: CallId, task: RunningTask) {
        if let Some(ToolRun {
            call: CallState::Running { task: running, .. },
            ..
        }) = self.running_call(call)
        {
            *running = Some(task);
        }
    }

    pub(super) fn call_done(&mut self, call: CallId, result: Result<Arc<CallRecord>, CallFailure>) {
        self.record_in_history(call, &result);
        if let Some(tool) = self.calls.get(&call).map(|pending| pending.tool.clone()) {
            self.restart_call_done(&tool, &result);
        }
        let Some(run) = self.running_call(call) else {
            return;
        };
        let replaced = match result {
            Ok(record) => {
                // The old record is freed now, in the background (a big tree takes a while to
                // free), not kept until the next frame draws.
                let old = run.last_record.replace(record);
                run.stored = None;
                run.settling = None;
                run.call = CallState::Done;
                old
            }
            Err(failure) => {
                run.call = CallState::Failed(failure);
                None
            }
        };
        if let Some(old) = replaced {
            self.backend.release(old);
        }
        self.calls.remove(&call);
        // A result that arrives for a tool no longer shown is made small at once.
        self.settle_results();
    }

    /// A result made small (its tool left the screen) is kept that way.
    pub(super) fn compacted(&mut self, tool: &ToolKey, compact: Arc<CompactRecord>) {
        let Some(run) = self.runs.get_mut(tool) else {
            return;
        };
        if run.settling == Some(Settling::Compacting(compact.id())) && run.last_record.is_none() {
            run.stored = Some(compact);
            run.settling = None;
            // Shown again while it was being compacted: bring it back.
            self.settle_results();
        }
    }

    /// A result brought back whole (its tool is on screen again).
    pub(super) fn restored(&mut self, tool: &ToolKey, record: Arc<CallRecord>) {
        let Some(run) = self.runs.get_mut(tool) else {
            return;
        };
        if run.settling == Some(Settling::Restoring(record.id)) && run.last_record.is_none() {
            run.last_record = Some(record);
            run.settling = None;
            // Left again while it was being restored: make it small again.
            self.settle_results();
        }
    }

    /// Starts a call as the engine plans it: a tool whose `x-mcp-header` annotations are
    /// invalid is refused unless forced, and one that can run as a task does (its statuses are
    /// the interesting part; the rule is the command line's with `--task` always on).
    pub(super) fn start_call(&mut self, tool: ToolKey, arguments: Map<String, Value>, force: bool) {
        let timeouts = self.timeouts();
        let Some(server) = self.server(tool.server) else {
            return;
        };
        let server_name = server.name.clone();
        let catalog = server.catalog.as_deref();
        let view = match &server.status {
            ConnectionStatus::Connected { summary } => {
                ServerView::new(summary, server.client.declared.tasks, catalog)
            }
            // Not connected: the backend says so; nothing is sent.
            _ => ServerView {
                catalog,
                modern_era: false,
                tasks_declared: false,
            },
        };
        let wish = CallWish {
            force,
            prefer_task: true,
        };
        let plan = match engine::plan(view, &tool.name, wish) {
            Ok(plan) => plan,
            Err(CallRefused::InvalidHeaders { reason, .. }) => {
                let run = self.runs.entry(tool).or_default();
                if !run.is_running() {
                    run.call = CallState::Failed(CallFailure::Excluded { reason });
                }
                return;
            }
        };
        let id = self.fresh_id();
        // What a restart on change calls again.
        if let Some(server) = self.server_mut(tool.server) {
            server.last_call = Some((tool.name.clone(), arguments.clone()));
        }
        let run = self.runs.entry(tool.clone()).or_default();
        if let CallState::Running { cancel, .. } = &run.call {
            cancel.cancel();
        }
        run.note = None;
        let cancel = self.backend.call(CallRequest {
            id,
            server: tool.server,
            plan: plan.clone(),
            arguments: arguments.clone(),
            timeouts,
            max_image_side: self.max_image_side,
        });
        run.call = CallState::Running {
            id,
            started: Instant::now(),
            progress: None,
            task: None,
            cancel,
        };
        self.settings
            .remember_arguments(&server_name, &tool.name, arguments.clone());
        self.calls.insert(
            id,
            PendingCall {
                tool,
                arguments: Value::Object(arguments),
                plan,
                started: Instant::now(),
            },
        );
        self.save_settings();
    }

    /// Selects `tool`'s server and, when the server lists it, the tool; a history call shown
    /// gives way to the live result.
    pub(super) fn go_to_tool(&mut self, tool: &ToolKey) {
        let index = self.server(tool.server).and_then(|server| {
            server
                .catalog
                .as_ref()?
                .tools
                .iter()
                .position(|t| t.name == tool.name)
        });
        self.history_action(HistoryAction::Select(None));
        self.server_action(ServerAction::Select(tool.server));
        if let Some(index) = index {
            self.call_action(CallAction::SelectTool {
                server: tool.server,
                index,
            });
        }
    }

    /// The run of a call still wanted; a call replaced or cancelled is dropped by id.
    pub(super) fn running_call(&mut self, call: CallId) -> Option<&mut ToolRun> {
        let tool = &self.calls.get(&call)?.tool;
        let run = self.runs.get_mut(tool)?;
        match &run.call {
            CallState::Running { id, .. } if *id == call => Some(run),
            _ => None,
        }
    }

    /// The tool on screen: its result is kept whole, every other tool's is made small (its
    /// response as text), so memory does not grow with each tool called.
    pub(super) fn settle_results(&mut self) {
        let shown = self
            .selected_tool()
            .map(|(server, tool)| ToolKey::new(server.id, tool.name.clone()));
        for (key, run) in &mut self.runs {
            if run.settling.is_some() {
                continue;
            }
            if Some(key) == shown.as_ref() {
                if run.last_record.is_none()
                    && let Some(stored) = &run.stored
                {
                    run.settling = Some(Settling::Restoring(stored.id()));
                    self.backend
                        .restore(key.clone(), stored.clone(), self.max_image_side);
                }
            } else if let Some(record) = run.last_record.take() {
                if run
                    .stored
                    .as_ref()
                    .is_some_and(|stored| stored.id() == record.id)
                {
                    // Restored before: the small form is still there.
                    self.backend.release(record);
                } else {
                    run.settling = Some(Settling::Compacting(record.id));
                    run.stored = None;
                    self.backend.compact(key.clone(), record);
                }
            }
        }
    }
}
