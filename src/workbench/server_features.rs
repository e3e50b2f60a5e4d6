//! The rest of a server beside its tools, as the window knows it: its resources, resource
//! templates and prompts (every page), the item picked, the last read or prompt got, the
//! completions offered as the user types, subscriptions, the log level and round trips.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
    time::Duration,
};

use super::feature_record::FeatureRecord;
use toolscope_core::session::{
    requests::feature_items::{PromptItem, ResourceItem, TemplateItem},
    requests::server_features::Completion,
};

/// A list as far as it was asked for.
#[derive(Debug, Clone)]
pub enum FeatureList<T> {
    /// The server did not declare it, or it was not asked for yet.
    NotAsked,
    Listing,
    Listed(Arc<ListedItems<T>>),
    Failed(String),
}

impl<T> FeatureList<T> {
    pub fn items(&self) -> &[T] {
        match self {
            FeatureList::Listed(listed) => &listed.items,
            _ => &[],
        }
    }
}

/// Every item of a list, with what was odd about its pages.
#[derive(Debug)]
pub struct ListedItems<T> {
    pub items: Vec<T>,
    pub pages: usize,
    pub problems: Vec<String>,
    /// Each page's result `_meta`, as sent (a 2026-07-28 server's caching hints).
    pub meta: Vec<serde_json::Value>,
}

/// Which list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeatureKind {
    Resources,
    Templates,
    Prompts,
}

/// What is picked in the Resources or Prompts tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickedFeature {
    Resource(String),
    /// A template, by its URI template.
    Template(String),
    Prompt(String),
}

/// What a completion is asked for: a prompt's argument or a template's variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompletionField {
    pub target: CompletionOf,
    pub argument: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompletionOf {
    Prompt(String),
    Template(String),
}

/// The values offered for a field, for the text they were asked with.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionState {
    Asking {
        typed: String,
    },
    Offered {
        typed: String,
        completion: Completion,
    },
    Failed {
        typed: String,
        error: String,
    },
}

/// A read or a prompt got, while it runs and once done.
#[derive(Debug)]
pub enum FeatureReply {
    Running { what: String },
    Done(Arc<FeatureRecord>),
    Failed { what: String, error: String },
}

impl FeatureReply {
    /// The request it answers, in words.
    pub fn what(&self) -> String {
        match self {
            FeatureReply::Running { what } | FeatureReply::Failed { what, .. } => what.clone(),
            FeatureReply::Done(record) => record.request.describe(),
        }
    }
}

/// The round trips that succeeded, in figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundTripSpread {
    pub fastest: Duration,
    pub median: Duration,
    pub p95: Duration,
    pub slowest: Duration,
    pub count: usize,
}

/// A round trip measured.
#[derive(Debug, Clone)]
pub struct RoundTrip {
    pub method: &'static str,
    pub result: Result<Duration, String>,
}

/// How many round trips are kept per server.
const MAX_ROUND_TRIPS: usize = 20;

/// What one tab shows: the item picked and the last answer about it.
#[derive(Debug, Default)]
pub struct FeatureSlot {
    pub picked: Option<PickedFeature>,
    /// The last read or prompt got, and the generation it answers.
    pub reply: Option<FeatureReply>,
    pub generation: u64,
    /// The reply a re-read after an update replaced, to mark what changed.
    pub before_update: Option<Arc<FeatureRecord>>,
}

#[derive(Debug)]
pub struct ServerFeatures {
    pub resources: FeatureList<ResourceItem>,
    pub templates: FeatureList<TemplateItem>,
    pub prompts: FeatureList<PromptItem>,
    /// What the Resources tab shows (a resource or a template), and what the Prompts tab
    /// shows: each keeps its pick and its last answer.
    pub resource_view: FeatureSlot,
    pub prompt_view: FeatureSlot,
    /// Bumped for each read or get: the answer of an older one is dropped.
    pub generation: u64,
    pub completions: HashMap<CompletionField, CompletionState>,
    /// Resources subscribed to, and those being subscribed or unsubscribed.
    pub subscribed: BTreeSet<String>,
    pub subscribing: BTreeSet<String>,
    /// How many `notifications/resources/updated` arrived for each resource.
    pub updates: HashMap<String, u32>,
    /// What went wrong with the last subscription, log level or list refresh.
    pub problem: Option<String>,
    /// The level asked for, once the server took it (or, on 2026-07-28, once it is sent with
    /// each request).
    pub log_level: Option<String>,
    pub round_trips: Vec<RoundTrip>,
    pub pinging: bool,
    /// Its skills (SEP-2640), when it declares the extension.
    pub skills: super::server_skills::ServerSkills,
}

impl Default for ServerFeatures {
    fn default() -> Self {
        Self {
            resources: FeatureList::NotAsked,
            templates: FeatureList::NotAsked,
            prompts: FeatureList::NotAsked,
            resource_view: FeatureSlot::default(),
            prompt_view: FeatureSlot::default(),
            generation: 0,
            completions: HashMap::new(),
            subscribed: BTreeSet::new(),
            subscribing: BTreeSet::new(),
            updates: HashMap::new(),
            problem: None,
            log_level: None,
            round_trips: Vec::new(),
            pinging: false,
            skills: Default::default(),
        }
    }
}

impl ServerFeatures {
    pub(super) fn push_round_trip(&mut self, trip: RoundTrip) {
        if self.round_trips.len() >= MAX_ROUND_TRIPS {
            self.round_trips.remove(0);
        }
        self.round_trips.push(trip);
    }

    /// The tab's slot an item shows in: prompts in theirs, the rest in the Resources tab's.
    pub fn slot(&self, prompts: bool) -> &FeatureSlot {
        if prompts {
            &self.prompt_view
        } else {
            &self.resource_view
        }
    }

    pub(super) fn slot_mut(&mut self, prompts: bool) -> &mut FeatureSlot {
        if prompts {
            &mut self.prompt_view
        } else {
            &mut self.resource_view
        }
    }

    /// The picked template's definition.
    pub fn picked_template(&self) -> Option<&TemplateItem> {
        let Some(PickedFeature::Template(uri)) = &self.resource_view.picked else {
            return None;
        };
        self.templates
            .items()
            .iter()
            .find(|template| &template.uri_template == uri)
    }

    pub fn picked_resource(&self) -> Option<&ResourceItem> {
        let Some(PickedFeature::Resource(uri)) = &self.resource_view.picked else {
            return None;
        };
        self.resources
            .items()
            .iter()
            .find(|resource| &resource.uri == uri)
    }

    pub fn picked_prompt(&self) -> Option<&PromptItem> {
        let Some(PickedFeature::Prompt(name)) = &self.prompt_view.picked else {
            return None;
        };
        self.prompts
            .items()
            .iter()
            .find(|prompt| &prompt.name == name)
    }

    /// The round trips that succeeded: the fastest, the median, the p95 and the slowest, and
    /// how many (nearest rank, as the history's figures).
    pub fn round_trip_spread(&self) -> Option<RoundTripSpread> {
        let mut times: Vec<Duration> = self
            .round_trips
            .iter()
            .filter_map(|trip| trip.result.as_ref().ok().copied())
            .collect();
        times.sort();
        let rank = |share: f64| {
            let rank = (share * times.len() as f64).ceil() as usize;
            times[rank.clamp(1, times.len()) - 1]
        };
        Some(RoundTripSpread {
            fastest: *times.first()?,
            median: rank(0.5),
            p95: rank(0.95),
            slowest: *times.last()?,
            count: times.len(),
        })
    }
}
