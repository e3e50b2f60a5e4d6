//! Load on the Server tab: a run asked of the backend with the configuration a connection
//! would use (placeholders filled), its progress taken in, Stop, and its figures kept until
//! the next run or Close.

use std::time::Instant;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_core::{
    engine::{self, CallWish},
    load::{LoadBound, LoadPlan},
};

use super::Model;
use crate::workbench::{
    ServerId,
    backend::LoadEvent,
    load_run::{LoadRunState, LoadRunView},
};

/// What the person asks of a load run.
#[derive(Debug, Clone)]
pub enum LoadAction {
    Start {
        server: ServerId,
        tool: String,
        arguments: Map<String, Value>,
        concurrency: usize,
        calls: u64,
        shared: bool,
    },
    Stop,
    Close,
}

impl Model {
    pub fn load_run(&self) -> Option<&LoadRunView> {
        self.load_run.as_ref()
    }

    pub(super) fn load_action(&mut self, action: LoadAction) {
        match action {
            LoadAction::Start {
                server,
                tool,
                arguments,
                concurrency,
                calls,
                shared,
            } => self.start_load(server, tool, arguments, (concurrency, calls, shared)),
            LoadAction::Stop => {
                if let Some(LoadRunState::Running { stop, stopping, .. }) =
                    self.load_run.as_mut().map(|run| &mut run.state)
                {
                    stop.cancel();
                    *stopping = true;
                }
            }
            LoadAction::Close => {
                if self.load_run.as_ref().is_some_and(|run| !run.is_running()) {
                    self.load_run = None;
                }
            }
        }
    }

    fn start_load(
        &mut self,
        id: ServerId,
        tool: String,
        arguments: Map<String, Value>,
        (concurrency, calls, shared): (usize, u64, bool),
    ) {
        if self.load_run.as_ref().is_some_and(LoadRunView::is_running) {
            return;
        }
        self.load_generation += 1;
        let generation = self.load_generation;
        let Some(server) = self.server(id) else {
            return;
        };
        let name = server.name.clone();
        let given = &self.input_values;
        let filled = engine::fill_placeholders(
            &server.config,
            std::env::current_dir().ok().as_deref(),
            |input| given.get(&(id, input.to_owned())).cloned(),
        );
        let plan = LoadPlan {
            tool: tool.clone(),
            arguments,
            concurrency,
            bound: LoadBound {
                calls: Some(calls),
                duration: None,
            },
            shared,
            wish: CallWish::default(),
            timeouts: self.timeouts(),
            // The window loads only this machine's servers: a remote one takes the command
            // line's --allow-remote, a deliberate act.
            allow_remote: false,
        };
        let state = match filled
            .map_err(|missing| missing.to_string())
            .and_then(|config| {
                plan.check().map_err(|error| error.to_string())?;
                Ok(config)
            }) {
            Ok(config) => {
                let stop = CancellationToken::new();
                self.backend
                    .load(generation, (name, config), plan, stop.clone());
                LoadRunState::Running {
                    since: Instant::now(),
                    progress: Default::default(),
                    stop,
                    stopping: false,
                }
            }
            Err(problem) => LoadRunState::Failed(problem),
        };
        self.load_run = Some(LoadRunView {
            server: id,
            tool,
            generation,
            sessions: if shared { 1 } else { concurrency },
            planned_calls: calls,
            state,
        });
    }

    pub(super) fn load_event(&mut self, generation: u64, event: LoadEvent) {
        let Some(run) = self
            .load_run
            .as_mut()
            .filter(|run| run.generation == generation)
        else {
            return;
        };
        match (event, &mut run.state) {
            (LoadEvent::Progress(now), LoadRunState::Running { progress, .. }) => *progress = now,
            (LoadEvent::Progress(_), _) => {}
            (LoadEvent::Done(Ok(figures)), _) => run.state = LoadRunState::Done(figures),
            (LoadEvent::Done(Err(error)), _) => run.state = LoadRunState::Failed(error.to_string()),
        }
    }
}
