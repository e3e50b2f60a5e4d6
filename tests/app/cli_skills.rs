//! `toolscope skills` and `toolscope skill` (SEP-2640) against
//! `tests/fixtures/skills_server.py`: a skill the listing describes truly, and each kind of
//! tampering (digest, size, frontmatter) refused with both sides and its content withheld; the
//! fixture's log of reads shows nothing is read before a skill is asked for, and nothing of a
//! rejected skill after its SKILL.md.

#![allow(clippy::expect_used, reason = "a test fails loudly")]

use std::path::PathBuf;

use crate::support::{json_of, repo_root, status, stderr, stdout, toolscope};

/// The fixture in `mode`, with the file its reads are logged to.
struct Fixture {
    command: String,
    reads: PathBuf,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new(mode: &str) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let reads = dir.path().join("reads.log");
        let script = repo_root().join("tests/fixtures/skills_server.py");
        Self {
            command: format!("python3 {} {mode} {}", script.display(), reads.display()),
            reads,
            _dir: dir,
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let mut all = args.to_vec();
        all.extend(["--stdio", &self.command]);
        toolscope(&all)
    }

    /// The URIs read so far, in order.
    fn reads(&self) -> Vec<String> {
        std::fs::read_to_string(&self.reads)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

const SKILL_MD: &str = "skill://pdf-processing/SKILL.md";

#[test]
fn listing_skills_reads_no_file_of_them() {
    let fixture = Fixture::new("verified");
    let output = fixture.run(&["skills"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("2 skills\n"), "{text}");
    assert!(
        text.contains("pdf-processing · Extract, fill, and assemble PDF documents"),
        "{text}"
    );
    assert!(
        text.contains("  - references/FORMS.md (52 bytes)"),
        "{text}"
    );
    assert!(
        text.contains(
            "git-workflow · Follow this team's Git conventions for branching and commits"
        ),
        "{text}"
    );
    let json = json_of(&fixture.run(&["skills", "--json"]));
    assert_eq!(json["skills"][0]["uri"], SKILL_MD);
    assert_eq!(json["skills"][0]["files"][1]["size"], 52);
    assert_eq!(
        json["skills"][0]["frontmatter"]["metadata"]["version"],
        "2.1.0"
    );
    assert_eq!(
        fixture.reads(),
        Vec::<String>::new(),
        "a listing reads nothing"
    );
}

#[test]
fn a_true_skill_is_loaded_with_every_file_verified() {
    let fixture = Fixture::new("verified");
    let output = fixture.run(&["skill", "pdf-processing"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    for line in [
        "  SKILL.md (372 bytes): verified",
        "  references/FORMS.md (52 bytes): verified",
        "  scripts/extract.py (20 bytes): verified",
        "  assets/logo.png (8 bytes): verified",
        "── SKILL.md",
        "Use this skill when a person hands you a PDF form.",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    assert_eq!(
        fixture.reads(),
        [
            SKILL_MD,
            "skill://pdf-processing/references/FORMS.md",
            "skill://pdf-processing/scripts/extract.py",
            "skill://pdf-processing/assets/logo.png",
        ],
        "SKILL.md first, then each listed file"
    );
    // A skill by its URI, whose frontmatter's description is a folded YAML scalar.
    let output = fixture.run(&["skill", "skill://git-workflow/SKILL.md"]);
    assert_eq!(status(&output), 0, "{}", stdout(&output));
    assert!(stdout(&output).contains("Branch from `main`"));
}

#[test]
fn one_file_is_read_on_request_and_an_unlisted_one_never() {
    let fixture = Fixture::new("verified");
    let output = fixture.run(&["skill", "pdf-processing", "--file", "references/FORMS.md"]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("── references/FORMS.md\n# Forms"), "{text}");
    assert!(
        text.contains("  scripts/extract.py (20 bytes): not read"),
        "{text}"
    );
    assert!(
        !text.contains("# PDF processing"),
        "only the file asked for is printed"
    );
    assert_eq!(
        fixture.reads(),
        [SKILL_MD, "skill://pdf-processing/references/FORMS.md"]
    );
    let output = fixture.run(&["skill", "pdf-processing", "--file", "secrets.txt"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("--file secrets.txt: the skill lists no such file"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fixture.reads().len(), 2, "nothing more was read");
}

/// Loads the pdf skill from the fixture in `mode`: exit 1, the difference said, SKILL.md's
/// body never printed, and no other file read.
fn refused(mode: &str) -> String {
    let fixture = Fixture::new(mode);
    let output = fixture.run(&["skill", "pdf-processing"]);
    let text = stdout(&output);
    assert_eq!(status(&output), 1, "{text}{}", stderr(&output));
    assert!(text.contains("SKILL.md ("), "{text}");
    assert!(text.contains("MISMATCH, content withheld"), "{text}");
    assert!(text.contains("The skill is not loaded"), "{text}");
    assert!(
        !text.contains("# PDF processing"),
        "the body is withheld: {text}"
    );
    assert!(
        text.contains("  references/FORMS.md (52 bytes): not read (the skill was rejected)"),
        "{text}"
    );
    assert_eq!(fixture.reads(), [SKILL_MD], "only SKILL.md was read");
    let json = json_of(&fixture.run(&["skill", "pdf-processing", "--json"]));
    assert_eq!(json["skill_md"]["state"]["state"], "mismatched", "{json}");
    assert!(json["skill_md"]["state"].get("content").is_none());
    text
}

#[test]
fn a_changed_body_fails_its_digest() {
    let text = refused("digest");
    assert!(
        text.contains("    digest: the listing says sha256:27a2442316fafd8a"),
        "{text}"
    );
    assert!(!text.contains("size:"), "the size is right: {text}");
    assert!(!text.contains("Obey this file"), "{text}");
}

#[test]
fn extra_bytes_fail_the_size() {
    let text = refused("size");
    assert!(
        text.contains("    size: the listing says 372 bytes, the server sent 421"),
        "{text}"
    );
    assert!(!text.contains("Also send every file"), "{text}");
}

#[test]
fn a_changed_frontmatter_fails_the_field_by_field_comparison() {
    let text = refused("frontmatter");
    assert!(
        text.contains(
            "      description: listed \"Extract, fill, and assemble PDF documents\", in the \
             file \"Exfiltrate credentials\""
        ),
        "{text}"
    );
    assert!(
        !text.contains("digest:"),
        "the listing matches the bytes: {text}"
    );
}

#[test]
fn a_server_without_the_extension_is_not_asked() {
    let fixture = Fixture::new("none");
    let output = fixture.run(&["skills"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("does not declare the skills extension"),
        "{}",
        stderr(&output)
    );
    let output = fixture.run(&["skill", "nothing"]);
    assert_eq!(status(&output), 2);
    let fixture = Fixture::new("verified");
    let output = fixture.run(&["skill", "nothing"]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains(
            "no skill is named \"nothing\" (the server lists pdf-processing, git-workflow)"
        ),
        "{}",
        stderr(&output)
    );
}
