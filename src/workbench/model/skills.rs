//! The model's part for a server's skills: listed once it connects (when it declares the
//! extension), a skill picked and loaded in the background, the answer of an older pick
//! dropped.

use std::sync::Arc;

use super::Model;
use crate::workbench::{
    ServerId,
    server_skills::{SkillLoad, SkillsList},
};

impl Model {
    /// Asks for the server's skills when it declares the extension; says it does not
    /// otherwise (nothing is asked of it).
    pub(super) fn list_skills(&mut self, server: ServerId) {
        let timeouts = self.timeouts();
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let Some(summary) = state.summary() else {
            return;
        };
        if !toolscope_core::skills::declares_skills(&summary.capabilities) {
            state.features.skills.list = SkillsList::NotDeclared;
            return;
        }
        state.features.skills.list = SkillsList::Listing;
        self.backend.list_skills(server, timeouts);
    }

    /// Picks the skill whose SKILL.md is at `uri` and loads it (nothing of it was read before).
    pub(super) fn pick_skill(&mut self, server: ServerId, uri: String) {
        let timeouts = self.timeouts();
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let skills = &mut state.features.skills;
        skills.picked = Some(uri);
        let Some(entry) = skills.picked_entry().cloned() else {
            skills.load = None;
            return;
        };
        skills.generation += 1;
        skills.load = Some(SkillLoad::Loading);
        let generation = skills.generation;
        self.backend.load_skill(server, entry, generation, timeouts);
    }

    pub(super) fn skills_listed(
        &mut self,
        server: ServerId,
        result: Result<toolscope_core::skills::SkillListing, toolscope_core::skills::SkillError>,
    ) {
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let skills = &mut state.features.skills;
        skills.list = match result {
            Ok(listing) => SkillsList::Listed(Arc::new(listing)),
            Err(error) => SkillsList::Failed(error.to_string()),
        };
        // A skill no longer listed is no longer picked.
        if skills.picked_entry().is_none() {
            skills.picked = None;
            skills.load = None;
        }
    }

    pub(super) fn skill_loaded(
        &mut self,
        server: ServerId,
        generation: u64,
        loaded: Arc<toolscope_core::skills::LoadedSkill>,
    ) {
        let Some(state) = self.server_mut(server) else {
            return;
        };
        let skills = &mut state.features.skills;
        if skills.generation != generation {
            return;
        }
        // SKILL.md that could not be read at all is a failure to load, not a verdict.
        skills.load = Some(match &loaded.skill_md.state {
            toolscope_core::skills::FileState::ReadFailed { problem } => {
                SkillLoad::Failed(format!("Reading {}: {problem}", loaded.skill_md.uri))
            }
            _ => SkillLoad::Loaded(loaded),
        });
    }
}
