//! The model's side of calls: one started as the engine plans it, the tool gone to, the
//! running call found, and results made small when their tool leaves the screen.

use std::time::Instant;

use serde_json::{Map, Value};

use super::{Model, PendingCall};
use crate::{
    engine::{self, CallRefused, CallWish, ServerView},
    workbench::{
        Action, CallId, CallRequest,
        call_failure::CallFailure,
        server_state::ConnectionStatus,
        tool_run::{CallState, Settling, ToolKey, ToolRun},
    },
};

impl Model {
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
        self.apply(Action::SelectHistoryCall(None));
        self.apply(Action::SelectServer(tool.server));
        if let Some(index) = index {
            self.apply(Action::SelectTool {
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
