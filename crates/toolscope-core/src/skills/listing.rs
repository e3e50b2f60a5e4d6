//! A `skills/list` (or `skills/get`) entry read from the JSON the server sent: the skill's
//! `SKILL.md` URI, its frontmatter as the listing renders it, and its files with their
//! digests and sizes. Unknown fields are kept in the frontmatter or ignored; a field of the
//! wrong shape is said plainly, with the entry it belongs to.

use serde::Serialize;
use serde_json::{Map, Value};

/// One skill as a listing describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillEntry {
    /// The resource URI of the skill's `SKILL.md`.
    pub uri: String,
    /// `frontmatter.name` (the listing's; the file's is compared with it when it is read).
    pub name: String,
    pub description: String,
    /// Every field of the frontmatter, as the listing rendered it.
    pub frontmatter: Map<String, Value>,
    /// The skill's files with their digests (`SKILL.md` among them); `None` when the listing
    /// gives none (a generated skill, whose content cannot be verified).
    pub files: Option<Vec<ListedFile>>,
}

/// One file of a skill's `resources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedFile {
    pub uri: String,
    /// `sha256:<64 lowercase hex>` as listed.
    pub digest: Digest,
    /// The byte size, when the listing says it.
    pub size: Option<u64>,
}

/// A listed SHA-256 digest, its hex lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Digest(String);

impl Digest {
    /// `sha256:<hex>` of 64 hexadecimal digits (either case: compared lowercased).
    pub fn parse(text: &str) -> Result<Self, DigestError> {
        let Some(hex) = text.strip_prefix("sha256:") else {
            return Err(DigestError::NotSha256(text.to_owned()));
        };
        if hex.len() != 64 || !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Err(DigestError::Malformed(text.to_owned()));
        }
        Ok(Self(format!("sha256:{}", hex.to_ascii_lowercase())))
    }

    /// The digest of `bytes`, written as a listing writes it.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest as _;
        let hash = sha2::Sha256::digest(bytes);
        let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
        Self(format!("sha256:{hex}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a listed digest is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    #[error("the digest {0:?} does not start with \"sha256:\" (only SHA-256 is defined)")]
    NotSha256(String),
    #[error("the digest {0:?} is not \"sha256:\" and 64 hexadecimal digits")]
    Malformed(String),
}

/// What is wrong with an entry: which entry (its URI, or its place) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("skill {which}: {problem}")]
pub struct EntryError {
    pub which: String,
    pub problem: String,
}

impl SkillEntry {
    /// An entry from its JSON; `place` names it when it has no URI (e.g. "#2").
    pub fn from_value(value: &Value, place: &str) -> Result<Self, EntryError> {
        let fail = |which: &str, problem: String| EntryError {
            which: which.to_owned(),
            problem,
        };
        let Some(object) = value.as_object() else {
            return Err(fail(
                place,
                format!("the entry is {}, not an object", kind(value)),
            ));
        };
        let uri = match object.get("uri") {
            Some(Value::String(uri)) if !uri.is_empty() => uri.clone(),
            Some(other) => {
                return Err(fail(
                    place,
                    format!("`uri` is {}, not a string", kind(other)),
                ));
            }
            None => return Err(fail(place, "it has no `uri`".to_owned())),
        };
        let frontmatter = match object.get("frontmatter") {
            Some(Value::Object(fields)) => fields.clone(),
            Some(other) => {
                return Err(fail(
                    &uri,
                    format!("`frontmatter` is {}, not an object", kind(other)),
                ));
            }
            None => return Err(fail(&uri, "it has no `frontmatter`".to_owned())),
        };
        let text_field = |name: &str| match frontmatter.get(name) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(fail(
                &uri,
                format!("`frontmatter.{name}` is {}, not a string", kind(other)),
            )),
            None => Err(fail(&uri, format!("`frontmatter` has no `{name}`"))),
        };
        let (name, description) = (text_field("name")?, text_field("description")?);
        let files = match object.get("resources") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| ListedFile::from_value(item, &uri, index))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(other) => {
                return Err(fail(
                    &uri,
                    format!("`resources` is {}, not a list", kind(other)),
                ));
            }
        };
        Ok(Self {
            uri,
            name,
            description,
            frontmatter,
            files,
        })
    }

    /// The skill's root: its `SKILL.md` URI without the file's name.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }

    /// A file's path inside the skill (`references/FORMS.md`), or its whole URI when it is not
    /// under the skill's root.
    pub fn relative_path<'a>(&self, uri: &'a str) -> &'a str {
        uri.strip_prefix(self.root())
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(uri)
    }

    /// The listed file at `uri`.
    pub fn listed(&self, uri: &str) -> Option<&ListedFile> {
        self.files.as_ref()?.iter().find(|file| file.uri == uri)
    }

    /// The files beside `SKILL.md`, in the listing's order.
    pub fn supporting_files(&self) -> impl Iterator<Item = &ListedFile> {
        self.files
            .iter()
            .flatten()
            .filter(move |file| file.uri != self.uri)
    }

    /// Whether `wanted` names this skill: its name, its URI, or its path (`acme/billing/refunds`).
    pub fn is_named(&self, wanted: &str) -> bool {
        let path = self
            .root()
            .split_once("://")
            .map_or(self.root(), |(_, path)| path);
        self.name == wanted || self.uri == wanted || path == wanted
    }
}

impl ListedFile {
    /// `resources[index]` of the skill `skill`.
    fn from_value(value: &Value, skill: &str, index: usize) -> Result<Self, EntryError> {
        let fail = |problem: String| EntryError {
            which: skill.to_owned(),
            problem: format!("`resources[{index}]`: {problem}"),
        };
        let Some(object) = value.as_object() else {
            return Err(fail(format!("{}, not an object", kind(value))));
        };
        let uri = match object.get("uri") {
            Some(Value::String(uri)) if !uri.is_empty() => uri.clone(),
            Some(other) => return Err(fail(format!("`uri` is {}, not a string", kind(other)))),
            None => return Err(fail("it has no `uri`".to_owned())),
        };
        let digest = match object.get("digest") {
            Some(Value::String(digest)) => {
                Digest::parse(digest).map_err(|problem| fail(format!("{uri}: {problem}")))?
            }
            Some(other) => {
                return Err(fail(format!(
                    "{uri}: `digest` is {}, not a string",
                    kind(other)
                )));
            }
            None => return Err(fail(format!("{uri}: it has no `digest`"))),
        };
        let size = match object.get("size") {
            None | Some(Value::Null) => None,
            Some(size) => Some(size.as_u64().ok_or_else(|| {
                fail(format!(
                    "{uri}: `size` is {size}, not a whole number of bytes"
                ))
            })?),
        };
        Ok(Self { uri, digest, size })
    }
}

/// A `skills/list` page's entries, each read on its own: a malformed one is said and the
/// others kept.
pub fn entries(items: &[Value], first_place: usize) -> (Vec<SkillEntry>, Vec<EntryError>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (offset, item) in items.iter().enumerate() {
        match SkillEntry::from_value(item, &format!("#{}", first_place + offset + 1)) {
            Ok(entry) => good.push(entry),
            Err(error) => bad.push(error),
        }
    }
    (good, bad)
}

/// A JSON value's kind, for messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn hex(byte: char) -> String {
        std::iter::repeat_n(byte, 64).collect()
    }

    #[test]
    fn an_entry_is_read_with_unknown_fields_kept_or_ignored() {
        let entry = SkillEntry::from_value(
            &json!({
                "uri": "skill://acme/billing/refunds/SKILL.md",
                "frontmatter": {"name": "refunds", "description": "Refunds", "license": "MIT"},
                "resources": [
                    {"uri": "skill://acme/billing/refunds/SKILL.md",
                     "digest": format!("sha256:{}", hex('A')), "size": 12, "extra": true},
                    {"uri": "skill://acme/billing/refunds/examples/email.md",
                     "digest": format!("sha256:{}", hex('b'))}
                ],
                "somethingNew": 1
            }),
            "#1",
        )
        .expect("a good entry");
        assert_eq!(entry.name, "refunds");
        assert_eq!(entry.frontmatter["license"], "MIT");
        assert_eq!(entry.root(), "skill://acme/billing/refunds");
        let files: Vec<_> = entry.supporting_files().map(|file| &file.uri).collect();
        assert_eq!(files, ["skill://acme/billing/refunds/examples/email.md"]);
        assert_eq!(
            entry.relative_path("skill://acme/billing/refunds/examples/email.md"),
            "examples/email.md"
        );
        let listed = entry.listed(&entry.uri).expect("SKILL.md listed");
        assert_eq!(listed.size, Some(12));
        assert_eq!(listed.digest.as_str(), format!("sha256:{}", hex('a')));
        assert!(entry.is_named("refunds"));
        assert!(entry.is_named("acme/billing/refunds"));
        assert!(!entry.is_named("billing"));
    }

    #[test]
    fn a_malformed_entry_says_which_field_and_why() {
        let message = |value: Value| {
            SkillEntry::from_value(&value, "#3")
                .err()
                .map(|error| error.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            message(json!(7)),
            "skill #3: the entry is a number, not an object"
        );
        assert_eq!(
            message(json!({"frontmatter": {}})),
            "skill #3: it has no `uri`"
        );
        assert!(
            message(json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}}))
                .contains("`frontmatter` has no `description`")
        );
        let bad_digest = json!({"uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": "md5:abc"}]});
        assert!(message(bad_digest).contains("`resources[0]`: skill://a/SKILL.md: the digest"));
        let bad_size = json!({"uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md",
                "digest": format!("sha256:{}", hex('0')), "size": -1}]});
        assert!(message(bad_size).contains("not a whole number of bytes"));
        let (good, bad) = entries(&[json!({}), json!(null)], 4);
        assert!(good.is_empty());
        assert_eq!(bad[1].which, "#6");
    }

    #[test]
    fn a_digest_is_sha256_of_the_bytes() {
        assert_eq!(
            Digest::of(b"abc").as_str(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
