//! A tool's MCP App run from the window: the app's resource read from the tool's connected
//! session, its host started (the engine's `apps`), the page opened in the browser, and what
//! the host tells sent to the model; one run per tool, stopped (the app asked to tear down)
//! when asked or when another starts.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use serde_json::{Map, Value};
use toolscope_core::{
    apps::{self, AppEvent, AppRun, RunningApp, ToolOutcome},
    session::{RequestControl, Timeouts, ToolCatalog, ToolEntry},
};

use super::{Backend, BackendEvent, lock};
use crate::workbench::ToolKey;

pub(super) type RunningApps = Arc<Mutex<HashMap<ToolKey, RunningApp>>>;

/// What an app's run reports.
#[derive(Debug)]
pub enum AppUpdate {
    /// Its page is served at `url` (and was opened in the browser).
    Started {
        url: String,
    },
    /// It could not start: why.
    Failed(String),
    Event(AppEvent),
}

/// What the window runs an app with.
pub struct AppLaunch {
    pub label: String,
    pub catalog: Option<Arc<ToolCatalog>>,
    pub tool: ToolEntry,
    pub arguments: Map<String, Value>,
    pub outcome: ToolOutcome,
    pub timeouts: Timeouts,
    pub theme: &'static str,
}

impl Backend {
    /// Runs the app of `key`'s tool on its connected session.
    pub fn run_app(&self, key: ToolKey, launch: AppLaunch) {
        self.stop_app(&key);
        let session = lock(&self.sessions).get(&key.server).cloned();
        let emit = self.emitter();
        let apps = Arc::clone(&self.apps);
        let opener = self.page_opener();
        self.runtime.spawn(async move {
            let failed = |why: String| {
                emit.send(BackendEvent::App {
                    tool: key.clone(),
                    update: AppUpdate::Failed(why),
                });
            };
            let Some(session) = session else {
                failed("the server is not connected: connect it, then run the app".to_owned());
                return;
            };
            let control = RequestControl::with_timeouts(launch.timeouts);
            let app = match apps::read_app(&session, &launch.tool.raw, &control).await {
                Ok(app) => app,
                Err(error) => return failed(error.to_string()),
            };
            let events = {
                let (emit, key) = (emit.clone(), key.clone());
                Arc::new(move |event| {
                    emit.send(BackendEvent::App {
                        tool: key.clone(),
                        update: AppUpdate::Event(event),
                    });
                })
            };
            let run = AppRun {
                server_label: launch.label,
                session,
                catalog: launch.catalog,
                tool: launch.tool,
                arguments: launch.arguments,
                outcome: launch.outcome,
                app,
                timeouts: launch.timeouts,
                theme: launch.theme,
                listen: None,
                opener: Arc::clone(&opener),
            };
            let running = match apps::start(run, events).await {
                Ok(running) => running,
                Err(error) => return failed(error.to_string()),
            };
            let url = running.url.clone();
            lock(&apps).insert(key.clone(), running);
            emit.send(BackendEvent::App {
                tool: key,
                update: AppUpdate::Started { url: url.clone() },
            });
            let _ = tokio::task::spawn_blocking(move || opener(&url)).await;
        });
    }

    /// Stops `key`'s app, if one runs (the app is asked to tear down first).
    pub fn stop_app(&self, key: &ToolKey) {
        if let Some(running) = lock(&self.apps).remove(key) {
            self.runtime.spawn(running.close());
        }
    }
}
