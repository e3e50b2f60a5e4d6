//! Run the app: a tool's MCP App started from its last result (the tool's input and result as
//! the app is given them), what its host reports kept for the view, the app's own calls
//! recorded in the history, a link it asks for answered by the person.

use super::Model;
use crate::workbench::{
    ToolKey,
    app_run_view::AppRunView,
    backend::{AppUpdate, app_runs::AppLaunch},
};
use toolscope_core::apps::{AppEvent, PageState, ToolOutcome};

/// What the person asks of an app's run.
#[derive(Debug, Clone)]
pub enum AppAction {
    /// Run the tool's app; `dark` is the theme the window shows (with the System appearance
    /// only the window knows which), given to the app as its host's theme.
    Run {
        tool: ToolKey,
        dark: bool,
    },
    Stop(ToolKey),
    /// Open (or not) the link the app asked for.
    AnswerLink {
        tool: ToolKey,
        open: bool,
    },
    /// Open the app's page in the browser again.
    OpenPage(ToolKey),
}

impl Model {
    pub fn app_run(&self, tool: &ToolKey) -> Option<&AppRunView> {
        self.app_runs.get(tool)
    }

    /// Whether the tool's last result can be handed to its app.
    pub fn can_run_app(&self, tool: &ToolKey) -> bool {
        self.runs
            .get(tool)
            .is_some_and(|run| run.last_record.is_some())
    }

    pub(super) fn app_action(&mut self, action: AppAction) {
        match action {
            AppAction::Run { tool, dark } => self.run_app(tool, dark),
            AppAction::Stop(tool) => {
                self.backend.stop_app(&tool);
                if let Some(run) = self.app_runs.get_mut(&tool) {
                    run.stopped = true;
                    run.state = "stopped: the app was asked to tear down".to_owned();
                }
            }
            AppAction::AnswerLink { tool, open } => {
                if let Some((_, answer)) =
                    self.app_runs.get_mut(&tool).and_then(|run| run.link.take())
                {
                    let _ = answer.send(open);
                }
            }
            AppAction::OpenPage(tool) => {
                if let Some(url) = self.app_runs.get(&tool).and_then(|run| run.url.clone()) {
                    self.backend.open_page(url);
                }
            }
        }
    }

    fn run_app(&mut self, key: ToolKey, dark: bool) {
        let timeouts = self.timeouts();
        let Some(server) = self.server(key.server) else {
            return;
        };
        let catalog = server.catalog.clone();
        let Some(tool) = catalog
            .as_ref()
            .and_then(|catalog| catalog.find(&key.name))
            .cloned()
        else {
            return;
        };
        let Some(record) = self.runs.get(&key).and_then(|run| run.last_record.clone()) else {
            return;
        };
        let outcome = &record.outcome;
        let outcome_for_app = match outcome.response.rpc_error() {
            Some((code, message)) => ToolOutcome::Cancelled(format!(
                "the server answered JSON-RPC error {code}: {message}"
            )),
            None => ToolOutcome::Result(outcome.response.member().to_value()),
        };
        let arguments = outcome.arguments.as_object().cloned().unwrap_or_default();
        let theme = if dark { "dark" } else { "light" };
        self.backend.run_app(
            key.clone(),
            AppLaunch {
                label: server.name.clone(),
                catalog,
                tool,
                arguments,
                outcome: outcome_for_app,
                timeouts,
                theme,
            },
        );
        self.app_runs.insert(key, AppRunView::starting());
    }

    /// A call an app made was recorded as `id`.
    pub(super) fn app_call_recorded(&mut self, tag: u64, id: i64) {
        for run in self.app_runs.values_mut() {
            if let Some(call) = run.calls.iter_mut().find(|(of, _)| *of == tag) {
                call.1 = Some(id);
                return;
            }
        }
    }

    pub(super) fn app_update(&mut self, tool: ToolKey, update: AppUpdate) {
        let Some(run) = self.app_runs.get_mut(&tool) else {
            return;
        };
        match update {
            AppUpdate::Started { url } => {
                run.url = Some(url);
                run.state = "served: waiting for the browser".to_owned();
            }
            AppUpdate::Failed(why) => {
                run.failure = Some(why);
                run.state = "not running".to_owned();
                run.stopped = true;
            }
            AppUpdate::Event(AppEvent::Logged(entry)) => run.push(entry),
            // A run stopped says so, whatever its page did last.
            AppUpdate::Event(AppEvent::Page(_)) if run.stopped => {}
            AppUpdate::Event(AppEvent::Page(state)) => {
                run.state = match state {
                    PageState::Waiting => "served: waiting for the browser".to_owned(),
                    PageState::Opened => "the page opened: loading the app".to_owned(),
                    PageState::Running(app) => format!("running: {app}"),
                    PageState::Closed => {
                        "the page closed (still served: Open the page shows it again)".to_owned()
                    }
                };
            }
            AppUpdate::Event(AppEvent::OpenLink { url, answer }) => {
                // A second ask answers the first no.
                if let Some((_, earlier)) = run.link.replace((url, answer)) {
                    let _ = earlier.send(false);
                }
            }
            AppUpdate::Event(AppEvent::Called(row)) => {
                let tag = self.fresh_id();
                if let Some(run) = self.app_runs.get_mut(&tool) {
                    run.calls.push((tag, None));
                }
                self.history.record(*row, tag);
            }
        }
    }
}
