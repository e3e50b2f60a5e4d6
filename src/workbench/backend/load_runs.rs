//! A load run from the Server tab: the core's run off the UI thread, its own sessions opened
//! with the secrets and kept sign-ins the window's connections use (never a new sign-in), its
//! progress reported five times a second and its figures at the end.

use std::{sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;
use toolscope_core::{
    auth::AuthOptions,
    load::{self, LoadError, LoadFigures, LoadPlan, LoadProgress, LoadTally, LoadTarget},
    session::{ConnectOptions, ServerConfig, events::ignore_events},
};

use super::{Backend, BackendEvent, window_secrets};

/// How often a run under way reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// What a load run reports.
#[derive(Debug)]
pub enum LoadEvent {
    Progress(LoadProgress),
    /// The figures, or why the run did not start.
    Done(Result<Box<LoadFigures>, LoadError>),
}

impl Backend {
    /// Runs `plan` against the server `label` as configured (placeholders filled); reports
    /// [`BackendEvent::Load`] with `generation` until it ends. `stop` ends it early.
    pub fn load(
        &self,
        generation: u64,
        (label, config): (String, ServerConfig),
        plan: LoadPlan,
        stop: CancellationToken,
    ) {
        let emit = self.emitter();
        let secrets = self.secrets.clone();
        let tally = Arc::new(LoadTally::new());
        self.runtime.spawn(async move {
            let mut options = ConnectOptions::new(plan.timeouts, ignore_events());
            if let (ServerConfig::Http { .. }, Some(place)) = (&config, &secrets)
                && let Ok(store) = place.store().await
            {
                options.auth = Some(AuthOptions::new(store, None));
            }
            let target = LoadTarget {
                name: label,
                config,
                connect: Box::new(move || (window_secrets(secrets.clone()), options.clone())),
            };
            let progress = {
                let (emit, tally) = (emit.clone(), tally.clone());
                tokio::spawn(async move {
                    loop {
                        tokio::time::sleep(PROGRESS_EVERY).await;
                        let event = LoadEvent::Progress(tally.progress());
                        emit.send(BackendEvent::Load { generation, event });
                    }
                })
            };
            let ran = load::run(target, plan, stop, tally).await;
            progress.abort();
            let event = LoadEvent::Done(ran.map(Box::new));
            emit.send(BackendEvent::Load { generation, event });
        });
    }
}
