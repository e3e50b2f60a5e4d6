//! A skill listed, found and loaded through a session. Nothing is read before a skill is
//! asked for: listing reads only `skills/list`; loading reads `SKILL.md`, checks it, and only
//! when it passes reads the files asked for, each checked in turn. Content that fails a check
//! is not kept: what failed, with both sides, is.

use base64::Engine as _;
use serde::Serialize;

use super::frontmatter::{self, SkillDocument};
use super::listing::{self, EntryError, ListedFile, SkillEntry};
use super::verify::{self, Mismatch};
use crate::session::{
    RequestControl, Session, SessionError,
    requests::resources::{self, ResourceBody},
    requests::server_features::{FeatureError, ListKind},
};

/// The extension's identifier in a server's `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Whether a server's capabilities declare the skills extension.
pub fn declares_skills(capabilities: &serde_json::Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(SKILLS_EXTENSION))
        .is_some()
}

/// Every skill a server lists, with what was wrong with its pages and entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkillListing {
    pub skills: Vec<SkillEntry>,
    pub pages: usize,
    /// Malformed entries (left out) and odd pages, in words.
    pub problems: Vec<String>,
}

/// Why no skill could be listed or found.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error(
        "the server does not declare the skills extension ({SKILLS_EXTENSION} in \
         capabilities.extensions), so it is not asked for skills"
    )]
    NotDeclared,
    #[error("skills/list: {0}")]
    Listing(#[from] FeatureError),
    #[error("skills/get: {0}")]
    Get(String),
    #[error("no skill is named {wanted:?}{}", available_text(.available))]
    NotFound {
        wanted: String,
        available: Vec<String>,
    },
    #[error(
        "{} skills are named {wanted:?}: give one's URI instead ({})",
        .uris.len(), .uris.join(", ")
    )]
    Ambiguous { wanted: String, uris: Vec<String> },
}

fn available_text(available: &[String]) -> String {
    if available.is_empty() {
        " (the server lists none; a skill's SKILL.md URI asks it with skills/get)".to_owned()
    } else {
        format!(" (the server lists {})", available.join(", "))
    }
}

/// What a file read for a skill became.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FileState {
    /// Read and every check passed.
    Verified { content: FileContent },
    /// Read, and these checks failed: the content was dropped.
    Mismatched { failed: Vec<Mismatch> },
    /// Not read: `SKILL.md` failed its checks, so the skill is not loaded.
    NotReadSkillRejected,
    /// Not read: not asked for.
    NotAskedFor,
    /// The read itself failed (the server refused, the connection dropped, a blob that is
    /// not base64).
    ReadFailed { problem: String },
}

impl FileState {
    pub fn is_verified(&self) -> bool {
        matches!(self, FileState::Verified { .. })
    }
}

/// A verified file's content: text, or bytes with their MIME type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileContent {
    Text {
        text: String,
    },
    Binary {
        mime_type: Option<String>,
        size: usize,
    },
}

/// One file of a skill and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileCheck {
    pub uri: String,
    /// Its path inside the skill (`references/FORMS.md`).
    pub path: String,
    pub listed_size: Option<u64>,
    pub state: FileState,
}

/// Which of a skill's supporting files to read once its `SKILL.md` passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilesWanted {
    All,
    None,
    /// One file, by its path inside the skill or its URI.
    Only(String),
}

/// A skill loaded: its entry, its `SKILL.md` and supporting files with their verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedSkill {
    pub entry: SkillEntry,
    pub skill_md: FileCheck,
    /// The verified `SKILL.md`'s body (after its frontmatter); `None` unless it passed.
    #[serde(skip)]
    pub document: Option<SkillDocument>,
    pub files: Vec<FileCheck>,
}

impl LoadedSkill {
    /// `SKILL.md` and every file read passed their checks.
    pub fn is_verified(&self) -> bool {
        self.skill_md.state.is_verified()
            && self.files.iter().all(|file| {
                matches!(
                    file.state,
                    FileState::Verified { .. } | FileState::NotAskedFor
                )
            })
    }
}

/// Every page of `skills/list`, each entry read; the server must declare the extension.
pub async fn list(session: &Session, control: &RequestControl) -> Result<SkillListing, SkillError> {
    if !declares_skills(&session.summary().capabilities) {
        return Err(SkillError::NotDeclared);
    }
    let listed = session.list_all(ListKind::Skills, control).await?;
    let (skills, bad) = listing::entries(&listed.items, 0);
    let mut problems = listed.problems;
    problems.extend(bad.iter().map(EntryError::to_string));
    Ok(SkillListing {
        skills,
        pages: listed.pages,
        problems,
    })
}

/// The skill `wanted` names (its name, path or `SKILL.md` URI) in `listing`; a URI the
/// listing does not hold is asked for with `skills/get`.
pub async fn find(
    session: &Session,
    listing: &SkillListing,
    wanted: &str,
    control: &RequestControl,
) -> Result<SkillEntry, SkillError> {
    let named: Vec<&SkillEntry> = listing
        .skills
        .iter()
        .filter(|skill| skill.is_named(wanted))
        .collect();
    match named.as_slice() {
        [one] => return Ok((*one).clone()),
        [] => {}
        many => {
            // A URI is unique; a name may be shared (SEP-2640 says hosts must not assume it
            // is not).
            if let Some(exact) = many.iter().find(|skill| skill.uri == wanted) {
                return Ok((*exact).clone());
            }
            return Err(SkillError::Ambiguous {
                wanted: wanted.to_owned(),
                uris: many.iter().map(|skill| skill.uri.clone()).collect(),
            });
        }
    }
    if !wanted.contains("://") {
        return Err(SkillError::NotFound {
            wanted: wanted.to_owned(),
            available: listing
                .skills
                .iter()
                .map(|skill| skill.name.clone())
                .collect(),
        });
    }
    let response = session
        .get_skill(wanted, control)
        .await
        .map_err(|error| SkillError::Get(error.to_string()))?;
    if let Some((code, message)) = response.rpc_error() {
        return Err(SkillError::Get(format!(
            "the server answered JSON-RPC error {code}: {}",
            crate::text_util::one_line(&message, 200)
        )));
    }
    let result = response.member().to_value();
    let skill = result
        .get("skill")
        .ok_or_else(|| SkillError::Get("the answer has no `skill`".to_owned()))?;
    SkillEntry::from_value(skill, wanted).map_err(|error| SkillError::Get(error.to_string()))
}

/// Loads `entry`: reads `SKILL.md` and checks it; only when it passes, reads the supporting
/// files `wanted`, each checked against its listed digest and size.
pub async fn load(
    session: &Session,
    entry: SkillEntry,
    wanted: &FilesWanted,
    control: &RequestControl,
) -> LoadedSkill {
    let (skill_md_state, document) = if entry.files.is_none() {
        // Nothing to verify it against: it is not read at all.
        let failed = vec![Mismatch::NoDigests];
        (FileState::Mismatched { failed }, None)
    } else {
        read_skill_md(session, &entry, control).await
    };
    let skill_md = FileCheck {
        uri: entry.uri.clone(),
        path: "SKILL.md".to_owned(),
        listed_size: entry.listed(&entry.uri).and_then(|file| file.size),
        state: skill_md_state,
    };
    let accepted = skill_md.state.is_verified();
    let mut files = Vec::new();
    for listed in entry.supporting_files() {
        let path = entry.relative_path(&listed.uri).to_owned();
        let asked = match wanted {
            FilesWanted::All => true,
            FilesWanted::None => false,
            FilesWanted::Only(one) => *one == path || *one == listed.uri,
        };
        let state = if !accepted {
            FileState::NotReadSkillRejected
        } else if asked {
            read_listed(session, listed, control).await
        } else {
            FileState::NotAskedFor
        };
        files.push(FileCheck {
            uri: listed.uri.clone(),
            path,
            listed_size: listed.size,
            state,
        });
    }
    LoadedSkill {
        entry,
        skill_md,
        document,
        files,
    }
}

async fn read_skill_md(
    session: &Session,
    entry: &SkillEntry,
    control: &RequestControl,
) -> (FileState, Option<SkillDocument>) {
    let bytes = match read_bytes(session, &entry.uri, control).await {
        Ok(bytes) => bytes,
        Err(failure) => {
            let problem = failure.to_string();
            return (FileState::ReadFailed { problem }, None);
        }
    };
    let failed = verify::check_skill_md(entry, &bytes.bytes);
    if !failed.is_empty() {
        return (FileState::Mismatched { failed }, None);
    }
    let text = String::from_utf8_lossy(&bytes.bytes).into_owned();
    let document = frontmatter::split(&text).ok();
    let state = FileState::Verified {
        content: FileContent::Text { text },
    };
    (state, document)
}

async fn read_listed(
    session: &Session,
    listed: &ListedFile,
    control: &RequestControl,
) -> FileState {
    let read = match read_bytes(session, &listed.uri, control).await {
        Ok(read) => read,
        Err(failure) => {
            let problem = failure.to_string();
            return FileState::ReadFailed { problem };
        }
    };
    let failed = verify::check_file(listed, &read.bytes);
    if !failed.is_empty() {
        return FileState::Mismatched { failed };
    }
    let content = match (read.text, String::from_utf8(read.bytes)) {
        (true, Ok(text)) => FileContent::Text { text },
        (_, Ok(text)) if !text.contains('\0') => FileContent::Text { text },
        (_, bytes) => FileContent::Binary {
            mime_type: read.mime_type,
            size: bytes.map_or_else(|error| error.into_bytes().len(), |text| text.len()),
        },
    };
    FileState::Verified { content }
}

struct ReadBytes {
    bytes: Vec<u8>,
    /// Sent as `text` (not a `blob`).
    text: bool,
    mime_type: Option<String>,
}

/// Why a file could not be read (before any check).
#[derive(Debug, thiserror::Error)]
enum ReadFailure {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Answer(#[from] resources::ReadError),
    #[error("the answer's contents is empty")]
    Empty,
    #[error("its blob is not base64: {0}")]
    NotBase64(#[from] base64::DecodeError),
    #[error("its content is unreadable: {0}")]
    Unreadable(String),
}

/// The bytes of `uri` as the server sent them: a text's UTF-8, a blob decoded.
async fn read_bytes(
    session: &Session,
    uri: &str,
    control: &RequestControl,
) -> Result<ReadBytes, ReadFailure> {
    let response = session.read_resource(uri, control).await?;
    let contents = resources::contents(&response)?;
    let content = contents
        .iter()
        .find(|content| content.uri == uri)
        .or(contents.first())
        .ok_or(ReadFailure::Empty)?;
    let mime_type = content.mime_type.clone();
    match &content.body {
        ResourceBody::Text { text } => Ok(ReadBytes {
            bytes: text.as_bytes().to_vec(),
            text: true,
            mime_type,
        }),
        ResourceBody::Blob { base64 } => Ok(ReadBytes {
            bytes: base64::engine::general_purpose::STANDARD.decode(base64)?,
            text: false,
            mime_type,
        }),
        ResourceBody::Malformed { reason } => Err(ReadFailure::Unreadable(reason.clone())),
    }
}
