//! The rest of a server for the window: lists, reads, prompts, completions, subscriptions,
//! the log level and round trips, each run as a task that reports one [`FeatureEvent`].

use std::{future::Future, sync::Arc};

use futures::FutureExt as _;
use tokio_util::sync::CancellationToken;

use super::{Backend, BackendEvent, lock};
use crate::workbench::{
    CallId, ServerId,
    feature_record::{FeatureAsk, FeatureRecord},
    server_features::{CompletionField, CompletionOf, FeatureKind, ListedItems, RoundTrip},
};
use toolscope_core::{
    history::CalledServer,
    session::{
        RequestControl, Session, Timeouts,
        requests::feature_items::{PromptItem, ResourceItem, TemplateItem},
        requests::server_features::{
            Completion, CompletionTarget, FeatureError, ListKind, Listed, result_of,
        },
    },
};

/// What a feature task reports.
#[derive(Debug)]
pub enum FeatureEvent {
    ResourcesListed(Result<ListedItems<ResourceItem>, String>),
    TemplatesListed(Result<ListedItems<TemplateItem>, String>),
    PromptsListed(Result<ListedItems<PromptItem>, String>),
    Replied {
        generation: u64,
        id: CallId,
        result: Result<Arc<FeatureRecord>, String>,
        /// What the history keeps of it.
        row: Box<toolscope_core::history::NewCall>,
    },
    Completed {
        field: CompletionField,
        typed: String,
        result: Result<Completion, String>,
    },
    Subscribed {
        uri: String,
        on: bool,
        result: Result<(), String>,
    },
    LogLevelSet {
        level: String,
        result: Result<(), String>,
    },
    Pinged(RoundTrip),
    SkillsListed(Result<toolscope_core::skills::SkillListing, toolscope_core::skills::SkillError>),
    /// A skill loaded for the pick `generation`: each file's verdict.
    SkillLoaded {
        generation: u64,
        loaded: Arc<toolscope_core::skills::LoadedSkill>,
    },
}

fn listed_items<T>(listed: Listed<T>) -> ListedItems<T> {
    ListedItems {
        items: listed.items,
        pages: listed.pages,
        problems: listed.problems,
        meta: listed.meta,
    }
}

impl Backend {
    /// Runs `work` on the server's session and reports what it returns.
    fn feature_task<Work, Done>(&self, server: ServerId, work: Work)
    where
        Work: FnOnce(Arc<Session>) -> Done + Send + 'static,
        Done: Future<Output = FeatureEvent> + Send + 'static,
    {
        let session = lock(&self.sessions).get(&server).cloned();
        let emit = self.emitter();
        self.runtime.spawn(async move {
            let Some(session) = session else {
                emit.send(BackendEvent::Notice(
                    "The server is not connected: connect it, then try again.".to_owned(),
                ));
                return;
            };
            // A panic while answering is said in the window instead of ending silently.
            match std::panic::AssertUnwindSafe(work(session))
                .catch_unwind()
                .await
            {
                Ok(event) => emit.send(BackendEvent::Feature { server, event }),
                Err(payload) => emit.send(BackendEvent::Notice(
                    crate::workbench::internal_failure::lost(
                        "asking the server (a list, a read, a prompt or a subscription)",
                        payload.as_ref(),
                    ),
                )),
            }
        });
    }

    /// Lists every page of one of the server's lists.
    pub fn list_feature(&self, server: ServerId, kind: FeatureKind, timeouts: Timeouts) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let list = match kind {
                FeatureKind::Resources => ListKind::Resources,
                FeatureKind::Templates => ListKind::ResourceTemplates,
                FeatureKind::Prompts => ListKind::Prompts,
            };
            let failed = |error: FeatureError| format!("{}: {error}", list.method());
            match kind {
                FeatureKind::Resources => FeatureEvent::ResourcesListed(
                    session
                        .list_all_as(list, &control, ResourceItem::from_ref)
                        .await
                        .map(listed_items)
                        .map_err(failed),
                ),
                FeatureKind::Templates => FeatureEvent::TemplatesListed(
                    session
                        .list_all_as(list, &control, TemplateItem::from_ref)
                        .await
                        .map(listed_items)
                        .map_err(failed),
                ),
                FeatureKind::Prompts => FeatureEvent::PromptsListed(
                    session
                        .list_all_as(list, &control, PromptItem::from_ref)
                        .await
                        .map(listed_items)
                        .map_err(failed),
                ),
            }
        });
    }

    /// Reads a resource or gets a prompt (through the engine, as every face does); the
    /// answer is prepared for drawing off the UI thread, and its history row made, kept
    /// under `label` (the server's name).
    pub fn feature_request(
        &self,
        (server, id, label): (ServerId, CallId, String),
        request: FeatureAsk,
        (timeouts, max_image_side): (Timeouts, u32),
        generation: u64,
    ) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let answer = toolscope_core::engine::feature::ask(&session, request, &control).await;
            let called = CalledServer {
                label: &label,
                summary: Some(session.summary()),
            };
            let row = Box::new(answer.history_row(called));
            let result = match (answer.problem(), answer.response) {
                (Some(problem), _) => Err(problem),
                (None, Err(error)) => Err(error.to_string()),
                (None, Ok(response)) => {
                    let (request, duration) = (answer.ask, answer.duration);
                    tokio::task::spawn_blocking(move || {
                        Arc::new(FeatureRecord::prepare(
                            (id, server),
                            request,
                            &response,
                            duration,
                            max_image_side,
                        ))
                    })
                    .await
                    .map_err(|_| "preparing the answer failed".to_owned())
                }
            };
            FeatureEvent::Replied {
                generation,
                id,
                result,
                row,
            }
        });
    }

    /// Asks the server to complete `field` from what was typed; `cancel` ends the request
    /// when a newer one supersedes it (nothing is reported then).
    pub fn complete(
        &self,
        server: ServerId,
        (field, typed): (CompletionField, String),
        context: std::collections::HashMap<String, String>,
        (timeouts, cancel): (Timeouts, CancellationToken),
    ) {
        let session = lock(&self.sessions).get(&server).cloned();
        let emit = self.emitter();
        self.runtime.spawn(async move {
            let Some(session) = session else { return };
            let mut control = RequestControl::with_timeouts(timeouts);
            control.cancel = cancel.clone();
            let target = match &field.target {
                CompletionOf::Prompt(name) => CompletionTarget::Prompt(name.clone()),
                CompletionOf::Template(uri) => CompletionTarget::ResourceTemplate(uri.clone()),
            };
            let context = (!context.is_empty()).then_some(context);
            let answer = session
                .complete(&target, (&field.argument, &typed), context, &control)
                .await;
            if cancel.is_cancelled() {
                return;
            }
            let result = match answer {
                Ok(response) => result_of(&response)
                    .map(|result| Completion::from_result(&result))
                    .map_err(|error| error.to_string()),
                Err(error) => Err(error.to_string()),
            };
            let event = FeatureEvent::Completed {
                field,
                typed,
                result,
            };
            emit.send(BackendEvent::Feature { server, event });
        });
    }

    pub fn subscribe(&self, server: ServerId, uri: String, on: bool, timeouts: Timeouts) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let result = session
                .subscribe(&uri, on, &control)
                .await
                .map_err(|error| error.to_string());
            FeatureEvent::Subscribed { uri, on, result }
        });
    }

    pub fn set_log_level(&self, server: ServerId, level: String, timeouts: Timeouts) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let result = match session.set_log_level(&level, &control).await {
                Ok(Some(response)) => result_of(&response)
                    .map(drop)
                    .map_err(|error| format!("logging/setLevel: {error}")),
                Ok(None) => Ok(()),
                Err(error) => Err(error.to_string()),
            };
            FeatureEvent::LogLevelSet { level, result }
        });
    }

    pub fn ping(&self, server: ServerId, timeouts: Timeouts) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let method = session.round_trip_method();
            let result = session
                .ping(&control)
                .await
                .map_err(|error| error.to_string());
            FeatureEvent::Pinged(RoundTrip { method, result })
        });
    }

    /// Every page of `skills/list` (only asked of a server that declares the extension).
    pub fn list_skills(&self, server: ServerId, timeouts: Timeouts) {
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let listed = toolscope_core::skills::list(&session, &control).await;
            FeatureEvent::SkillsListed(listed)
        });
    }

    /// Loads a skill: its SKILL.md read and checked against `entry`, then (only when it
    /// passed) each of its files read and checked.
    pub fn load_skill(
        &self,
        server: ServerId,
        entry: toolscope_core::skills::SkillEntry,
        generation: u64,
        timeouts: Timeouts,
    ) {
        use toolscope_core::skills::FilesWanted;
        self.feature_task(server, move |session| async move {
            let control = RequestControl::with_timeouts(timeouts);
            let loaded =
                toolscope_core::skills::load(&session, entry, &FilesWanted::All, &control).await;
            FeatureEvent::SkillLoaded {
                generation,
                loaded: Arc::new(loaded),
            }
        });
    }
}
