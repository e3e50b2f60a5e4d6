//! The model's part for the rest of a server: its lists (asked for when it connects, and
//! again when it says one changed), the item picked, reads and prompts got, completions as
//! the user types (a newer one cancels the one before), subscriptions with updates re-read,
//! the log level and round trips.

use std::collections::HashMap;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Model;
use crate::workbench::{
    CallId, FeatureEvent, ServerId,
    feature_record::FeatureAsk,
    server_features::{
        CompletionField, CompletionState, FeatureKind, FeatureList, FeatureReply, FeatureSlot,
        PickedFeature,
    },
};

/// What the user asks of a server's resources, prompts and the rest.
#[derive(Debug, Clone)]
pub enum FeatureAction {
    /// List the resources, templates and prompts again (those the server declared).
    Refresh(ServerId),
    Pick(ServerId, Option<PickedFeature>),
    /// Read a resource (a template's URI once expanded).
    Read {
        server: ServerId,
        uri: String,
    },
    GetPrompt {
        server: ServerId,
        name: String,
        arguments: Map<String, Value>,
    },
    /// Values for what was typed in a field; `context` holds the other fields filled in.
    Complete {
        server: ServerId,
        field: CompletionField,
        typed: String,
        context: HashMap<String, String>,
    },
    Subscribe {
        server: ServerId,
        uri: String,
        on: bool,
    },
    SetLogLevel {
        server: ServerId,
        level: String,
    },
    Ping(ServerId),
    /// Pick a skill (by its SKILL.md URI) and load it.
    PickSkill {
        server: ServerId,
        uri: String,
    },
}

impl Model {
    pub(super) fn feature_action(&mut self, action: FeatureAction) {
        match action {
            FeatureAction::Refresh(server) => self.list_features(server),
            FeatureAction::Pick(server, picked) => {
                if let Some(state) = self.server_mut(server) {
                    let prompts = matches!(picked, Some(PickedFeature::Prompt(_)));
                    let slot = state.features.slot_mut(prompts);
                    if slot.picked != picked {
                        *slot = FeatureSlot {
                            picked,
                            ..FeatureSlot::default()
                        };
                    }
                }
            }
            FeatureAction::Read { server, uri } => {
                self.feature_request(server, FeatureAsk::Read { uri });
            }
            FeatureAction::GetPrompt {
                server,
                name,
                arguments,
            } => {
                self.feature_request(server, FeatureAsk::Prompt { name, arguments });
            }
            FeatureAction::Complete {
                server,
                field,
                typed,
                context,
            } => self.complete(server, field, typed, context),
            FeatureAction::Subscribe { server, uri, on } => {
                let Some(state) = self.server_mut(server) else {
                    return;
                };
                state.features.subscribing.insert(uri.clone());
                state.features.problem = None;
                let timeouts = self.timeouts();
                self.backend.subscribe(server, uri, on, timeouts);
            }
            FeatureAction::SetLogLevel { server, level } => {
                let timeouts = self.timeouts();
                self.backend.set_log_level(server, level, timeouts);
            }
            FeatureAction::Ping(server) => {
                let Some(state) = self.server_mut(server) else {
                    return;
                };
                state.features.pinging = true;
                let timeouts = self.timeouts();
                self.backend.ping(server, timeouts);
            }
            FeatureAction::PickSkill { server, uri } => self.pick_skill(server, uri),
        }
    }

    /// Asks for every list the server declared (after it connected, or on Refresh).
    pub(super) fn list_features(&mut self, server: ServerId) {
        let timeouts = self.timeouts();
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let Some(summary) = state.summary() else {
            return;
        };
        let declared = |key: &str| summary.capabilities.get(key).is_some();
        let (resources, prompts) = (declared("resources"), declared("prompts"));
        let features = &mut state.features;
        let mut kinds = Vec::new();
        if resources {
            features.resources = FeatureList::Listing;
            features.templates = FeatureList::Listing;
            kinds.extend([FeatureKind::Resources, FeatureKind::Templates]);
        }
        if prompts {
            features.prompts = FeatureList::Listing;
            kinds.push(FeatureKind::Prompts);
        }
        for kind in kinds {
            self.backend.list_feature(server, kind, timeouts);
        }
        self.list_skills(server);
    }

    /// One list again, as the server said it changed.
    pub(super) fn list_changed(&mut self, server: ServerId, list: &str) {
        let kinds: &[FeatureKind] = match list {
            "resources" => &[FeatureKind::Resources, FeatureKind::Templates],
            "prompts" => &[FeatureKind::Prompts],
            _ => return,
        };
        let timeouts = self.timeouts();
        for &kind in kinds {
            self.backend.list_feature(server, kind, timeouts);
        }
    }

    fn feature_request(&mut self, server: ServerId, request: FeatureAsk) -> CallId {
        let id = self.fresh_id();
        let (timeouts, side) = (self.timeouts(), self.max_image_side);
        let Some(state) = self.server_mut(server) else {
            return id;
        };
        let features = &mut state.features;
        features.generation += 1;
        let generation = features.generation;
        let slot = features.slot_mut(request.kind() == toolscope_core::history::CallKind::Prompt);
        slot.generation = generation;
        slot.reply = Some(FeatureReply::Running {
            what: request.describe(),
        });
        let label = state.name.clone();
        self.backend
            .feature_request((server, id, label), request, (timeouts, side), generation);
        id
    }

    fn complete(
        &mut self,
        server: ServerId,
        field: CompletionField,
        typed: String,
        context: HashMap<String, String>,
    ) {
        let timeouts = self.timeouts();
        // The one before is superseded: its request is cancelled (notifications/cancelled).
        if let Some(previous) = self.completion_cancels.remove(&(server, field.clone())) {
            previous.cancel();
        }
        let cancel = CancellationToken::new();
        self.completion_cancels
            .insert((server, field.clone()), cancel.clone());
        if let Some(state) = self.server_mut(server) {
            state.features.completions.insert(
                field.clone(),
                CompletionState::Asking {
                    typed: typed.clone(),
                },
            );
        }
        self.backend
            .complete(server, (field, typed), context, (timeouts, cancel));
    }

    /// A subscribed resource changed: the one on screen is read again and what changed
    /// marked.
    pub(super) fn resource_updated(&mut self, server: ServerId, uri: String) {
        let Some(state) = self.server_mut(server) else {
            return;
        };
        *state.features.updates.entry(uri.clone()).or_default() += 1;
        let slot = &mut state.features.resource_view;
        let on_screen = match &slot.reply {
            Some(FeatureReply::Done(record))
                if record.request == (FeatureAsk::Read { uri: uri.clone() }) =>
            {
                Some(record.clone())
            }
            _ => None,
        };
        if let Some(record) = on_screen {
            let shown = record.id;
            slot.before_update = Some(record);
            let again = self.feature_request(server, FeatureAsk::Read { uri });
            self.repeats.read_again(again, shown);
        }
    }

    pub(super) fn feature_event(&mut self, server: ServerId, event: FeatureEvent) {
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let features = &mut state.features;
        match event {
            FeatureEvent::ResourcesListed(result) => {
                features.resources = list_state(result);
            }
            FeatureEvent::TemplatesListed(result) => {
                features.templates = list_state(result);
            }
            FeatureEvent::PromptsListed(result) => features.prompts = list_state(result),
            FeatureEvent::Replied {
                generation,
                id,
                result,
                row,
            } => {
                // Kept whatever became of it on screen (a newer read may have replaced it); a
                // read made again on an update is counted on its first read's row.
                match self.repeats.counted_on(id) {
                    Some(first_row) => self.history.repeat(first_row),
                    None => self.history.record(*row, id),
                }
                let Some(state) = self.server_mut(server) else {
                    return;
                };
                let features = &mut state.features;
                let slot = [&mut features.resource_view, &mut features.prompt_view]
                    .into_iter()
                    .find(|slot| slot.generation == generation);
                // An answer another read or get superseded is dropped.
                let Some(slot) = slot else { return };
                let what = slot.reply.as_ref().map(FeatureReply::what);
                slot.reply = Some(match result {
                    Ok(record) => FeatureReply::Done(record),
                    Err(error) => FeatureReply::Failed {
                        what: what.unwrap_or_default(),
                        error,
                    },
                });
            }
            FeatureEvent::Completed {
                field,
                typed,
                result,
            } => {
                self.completion_cancels.remove(&(server, field.clone()));
                let state = match result {
                    Ok(completion) => CompletionState::Offered { typed, completion },
                    Err(error) => CompletionState::Failed { typed, error },
                };
                if let Some(server) = self.server_mut(server) {
                    server.features.completions.insert(field, state);
                }
            }
            FeatureEvent::Subscribed { uri, on, result } => {
                features.subscribing.remove(&uri);
                match result {
                    Ok(()) if on => {
                        features.subscribed.insert(uri);
                    }
                    Ok(()) => {
                        features.subscribed.remove(&uri);
                    }
                    Err(error) => features.problem = Some(error),
                }
            }
            FeatureEvent::LogLevelSet { level, result } => match result {
                Ok(()) => {
                    features.log_level = Some(level);
                    features.problem = None;
                }
                Err(error) => features.problem = Some(error),
            },
            FeatureEvent::Pinged(trip) => {
                features.pinging = false;
                features.push_round_trip(trip);
            }
            FeatureEvent::SkillsListed(result) => self.skills_listed(server, result),
            FeatureEvent::SkillLoaded { generation, loaded } => {
                self.skill_loaded(server, generation, loaded);
            }
        }
    }
}

fn list_state<T>(
    result: Result<crate::workbench::server_features::ListedItems<T>, String>,
) -> FeatureList<T> {
    match result {
        Ok(listed) => FeatureList::Listed(std::sync::Arc::new(listed)),
        Err(error) => FeatureList::Failed(error),
    }
}
