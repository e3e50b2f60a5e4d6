//! Skills served over MCP (SEP-2640, the `io.modelcontextprotocol/skills` extension): the
//! listing read from `skills/list` (`listing`), a `SKILL.md`'s frontmatter (`frontmatter`,
//! read by `yaml_subset`), each file read checked against the listing before it is used
//! (`verify`), and the skill listed, found and loaded through a session (`load`).

pub mod frontmatter;
pub mod listing;
pub mod load;
pub mod verify;
mod yaml_subset;

pub use frontmatter::{FieldDifference, SkillDocument};
pub use listing::{Digest, ListedFile, SkillEntry};
pub use load::{
    FileCheck, FileContent, FileState, FilesWanted, LoadedSkill, SKILLS_EXTENSION, SkillError,
    SkillListing, declares_skills, find, list, load,
};
pub use verify::Mismatch;
