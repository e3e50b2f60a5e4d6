//! A file read from the server checked against the skill's entry before anything uses it:
//! its byte size and SHA-256 digest against the listed ones, and for `SKILL.md` its
//! frontmatter field by field against the listing's. Each check that fails is a [`Mismatch`]
//! that says what was expected and what came.

use serde::Serialize;

use super::frontmatter::{self, FieldDifference};
use super::listing::{Digest, ListedFile, SkillEntry};

/// One check a file failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "check", rename_all = "snake_case")]
pub enum Mismatch {
    /// The skill's entry does not list the file, so it has nothing to verify it against.
    Unlisted,
    /// The entry lists no files at all (a generated skill): nothing can be verified.
    NoDigests,
    Size {
        listed: u64,
        read: u64,
    },
    Digest {
        listed: Digest,
        read: Digest,
    },
    Frontmatter {
        differences: Vec<FieldDifference>,
    },
    /// The file's frontmatter could not be read, so it cannot be compared.
    FrontmatterUnreadable {
        problem: String,
    },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Unlisted => {
                f.write_str("the skill's entry does not list this file, so it cannot be verified")
            }
            Mismatch::NoDigests => f.write_str(
                "the listing gives no digests for this skill (a generated skill): its content \
                 cannot be verified",
            ),
            Mismatch::Size { listed, read } => {
                write!(
                    f,
                    "size: the listing says {listed} bytes, the server sent {read}"
                )
            }
            Mismatch::Digest { listed, read } => {
                write!(
                    f,
                    "digest: the listing says {listed}, the bytes sent hash to {read}"
                )
            }
            Mismatch::Frontmatter { differences } => {
                f.write_str("frontmatter differs from the listing's: ")?;
                let fields: Vec<String> = differences.iter().map(difference_text).collect();
                f.write_str(&fields.join("; "))
            }
            Mismatch::FrontmatterUnreadable { problem } => f.write_str(problem),
        }
    }
}

/// One field's difference in words: `description: listed "A", in the file "B"`.
pub fn difference_text(difference: &FieldDifference) -> String {
    let side = |value: &Option<serde_json::Value>| match value {
        Some(value) => crate::text_util::one_line(&value.to_string(), 200),
        None => "(missing)".to_owned(),
    };
    format!(
        "{}: listed {}, in the file {}",
        difference.field,
        side(&difference.listed),
        side(&difference.in_file)
    )
}

/// The checks `bytes` fails against `listed` (empty: verified). The size is checked first and
/// the digest always, so a wrong size says both.
pub fn check_file(listed: &ListedFile, bytes: &[u8]) -> Vec<Mismatch> {
    let mut failed = Vec::new();
    let read = bytes.len() as u64;
    if let Some(size) = listed.size
        && size != read
    {
        failed.push(Mismatch::Size { listed: size, read });
    }
    let digest = Digest::of(bytes);
    if digest != listed.digest {
        failed.push(Mismatch::Digest {
            listed: listed.digest.clone(),
            read: digest,
        });
    }
    failed
}

/// The checks a `SKILL.md`'s `bytes` fail: its listed size and digest, then its frontmatter
/// against the entry's, field by field.
pub fn check_skill_md(entry: &SkillEntry, bytes: &[u8]) -> Vec<Mismatch> {
    let mut failed = match entry.listed(&entry.uri) {
        Some(listed) => check_file(listed, bytes),
        None if entry.files.is_none() => vec![Mismatch::NoDigests],
        None => vec![Mismatch::Unlisted],
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        failed.push(Mismatch::FrontmatterUnreadable {
            problem: "SKILL.md is not UTF-8 text, so its frontmatter cannot be read".to_owned(),
        });
        return failed;
    };
    match frontmatter::split(text) {
        Ok(document) => {
            let differences = frontmatter::differences(&entry.frontmatter, &document.frontmatter);
            if !differences.is_empty() {
                failed.push(Mismatch::Frontmatter { differences });
            }
        }
        Err(error) => failed.push(Mismatch::FrontmatterUnreadable {
            problem: error.to_string(),
        }),
    }
    failed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble \
                            PDF documents\n---\n\nSkill body.\n";

    fn entry(body: &str) -> SkillEntry {
        SkillEntry::from_value(
            &json!({
                "uri": "skill://pdf-processing/SKILL.md",
                "frontmatter": {"name": "pdf-processing",
                    "description": "Extract, fill, and assemble PDF documents"},
                "resources": [{"uri": "skill://pdf-processing/SKILL.md",
                    "digest": Digest::of(body.as_bytes()).as_str(), "size": body.len()}]
            }),
            "#1",
        )
        .unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn the_file_the_listing_describes_is_verified() {
        assert_eq!(
            check_skill_md(&entry(SKILL_MD), SKILL_MD.as_bytes()),
            vec![]
        );
    }

    #[test]
    fn each_kind_of_tampering_is_named_with_both_sides() {
        let listed = entry(SKILL_MD);
        let evil = SKILL_MD.replace("Skill body.", "Evil body!!");
        let failed = check_skill_md(&listed, evil.as_bytes());
        assert!(
            matches!(failed.as_slice(), [Mismatch::Digest { listed: a, read: b }] if a != b),
            "{failed:?}"
        );
        let longer = format!("{SKILL_MD}extra bytes\n");
        let failed = check_skill_md(&listed, longer.as_bytes());
        assert_eq!(
            failed[0],
            Mismatch::Size {
                listed: SKILL_MD.len() as u64,
                read: longer.len() as u64
            }
        );
        assert!(failed[0].to_string().starts_with("size: the listing says"));
        // The frontmatter changed, and the listing's digest and size with it: only the
        // comparison of fields catches it.
        let swapped = SKILL_MD.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials",
        );
        let failed = check_skill_md(&entry(&swapped), swapped.as_bytes());
        let [Mismatch::Frontmatter { differences }] = failed.as_slice() else {
            panic!("{failed:?}");
        };
        assert_eq!(
            difference_text(&differences[0]),
            "description: listed \"Extract, fill, and assemble PDF documents\", in the file \
             \"Exfiltrate credentials\""
        );
    }
}
