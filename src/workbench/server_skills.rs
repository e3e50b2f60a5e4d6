//! A server's skills as the window knows them (SEP-2640): the listing (asked for only when the
//! server declares the extension), the skill picked, and that skill loaded: its `SKILL.md` and
//! files with each one's verdict against the listing.

use std::sync::Arc;

use toolscope_core::skills::{LoadedSkill, SkillListing};

/// The listing as far as it went.
#[derive(Debug, Clone, Default)]
pub enum SkillsList {
    /// Not connected yet, or not asked.
    #[default]
    NotAsked,
    /// The server does not declare `io.modelcontextprotocol/skills`: it is not asked.
    NotDeclared,
    Listing,
    Listed(Arc<SkillListing>),
    Failed(String),
}

/// The skill picked, loading or loaded.
#[derive(Debug, Clone)]
pub enum SkillLoad {
    Loading,
    Loaded(Arc<LoadedSkill>),
    Failed(String),
}

#[derive(Debug, Default)]
pub struct ServerSkills {
    pub list: SkillsList,
    /// The picked skill's `SKILL.md` URI (a skill's identity on its server).
    pub picked: Option<String>,
    pub load: Option<SkillLoad>,
    /// Bumped for each load: an answer for an older pick is dropped.
    pub generation: u64,
}

impl ServerSkills {
    /// The picked skill's entry in the listing.
    pub fn picked_entry(&self) -> Option<&toolscope_core::skills::SkillEntry> {
        let (SkillsList::Listed(listing), Some(uri)) = (&self.list, &self.picked) else {
            return None;
        };
        listing.skills.iter().find(|skill| &skill.uri == uri)
    }
}
