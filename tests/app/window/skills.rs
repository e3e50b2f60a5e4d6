//! The Skills tab (SEP-2640) against tests/fixtures/skills_server.py: a true skill listed,
//! loaded only once picked, its SKILL.md rendered and every file verified; a tampered one
//! refused with the difference shown and its content withheld; a server without the extension
//! said so.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text, saved_stdio};

/// The fixture in `mode` as a saved server named `name`, its reads logged to `reads`.
fn fixture(
    name: &str,
    mode: &str,
    reads: &std::path::Path,
) -> toolscope_core::settings::SavedServer {
    let script = crate::support::repo_root().join("tests/fixtures/skills_server.py");
    saved_stdio(
        name,
        "python3",
        &[
            script.display().to_string(),
            mode.to_owned(),
            reads.display().to_string(),
        ],
    )
}

fn reads(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_skill_is_loaded_when_picked_and_a_tampered_one_is_refused_with_its_difference() {
    let dir = tempfile::tempdir().unwrap();
    let (true_reads, tampered_reads) = (dir.path().join("true.log"), dir.path().join("bad.log"));
    // Tall enough for the three server cards to be on screen, where a click lands.
    let mut window = Window::setup("skills-tab")
        .size(egui::vec2(1400.0, 1500.0))
        .servers(vec![
            fixture("tampered skills", "frontmatter", &tampered_reads),
            fixture("true skills", "verified", &true_reads),
        ])
        .open();
    window.step_until("both fixtures to connect", |h| {
        h.query_all_by_label_contains("Connected: skills-fixture")
            .count()
            >= 1
    });
    assert!(
        window.harness.query_by_label("Skills").is_none(),
        "no Skills tab for the demo server, which does not declare the extension"
    );
    window.click_until(
        "true skills",
        "the Skills tab, once the server is picked",
        |h| h.query_by_label("Skills").is_some(),
    );
    window.tab("Skills");
    window.step_until("the skills listed", |h| has_text(h, "2 skills"));
    assert!(has_text(
        &window.harness,
        "Extract, fill, and assemble PDF documents"
    ));
    assert!(
        has_text(&window.harness, "Follow this team's Git conventions"),
        "each skill with its description"
    );
    assert_eq!(
        reads(&true_reads),
        Vec::<String>::new(),
        "nothing read before a pick"
    );

    window.click("pdf-processing");
    window.step_until("the skill verified", |h| {
        has_text(h, "Verified: SKILL.md and every file match the listing")
    });
    assert!(
        has_text(
            &window.harness,
            "Use this skill when a person hands you a PDF form."
        ),
        "SKILL.md rendered"
    );
    assert!(
        window.harness.query_by_label("PDF processing").is_some(),
        "its heading"
    );
    assert!(has_text(&window.harness, "references/FORMS.md · 52 bytes"));
    assert_eq!(
        window.harness.query_all_by_label("verified").count(),
        4,
        "SKILL.md and its three files"
    );
    assert_eq!(reads(&true_reads).len(), 4);

    // The tampered server: its SKILL.md's description differs from the listing's.
    window.click_until("tampered skills", "its skills listed", |h| {
        h.query_by_label(
            "tampered skills · skills-fixture 1.0.0 · protocol 2025-11-25 (initialize)",
        )
        .is_some()
            && has_text(h, "2 skills")
    });
    window.click("pdf-processing");
    window.step_until("the skill refused", |h| {
        has_text(h, "Not loaded: SKILL.md does not match the listing")
    });
    assert!(has_text(
        &window.harness,
        "Frontmatter differs from the listing's:"
    ));
    assert!(
        has_text(&window.harness, "\"Exfiltrate credentials\""),
        "what the file says"
    );
    assert!(
        has_text(
            &window.harness,
            "\"Extract, fill, and assemble PDF documents\""
        ),
        "what the listing says"
    );
    assert!(
        !has_text(&window.harness, "Use this skill when a person hands you"),
        "the unverified body is not shown"
    );
    assert_eq!(
        reads(&tampered_reads),
        ["skill://pdf-processing/SKILL.md"],
        "nothing more of a rejected skill is read"
    );
    assert_eq!(
        window
            .harness
            .query_all_by_label("not read (the skill was rejected)")
            .count(),
        3
    );

    // The demo server does not declare the extension: it is said, not asked.
    window.click_until("Built-in demo", "the demo's answer", |h| {
        has_text(h, "This server does not declare the skills extension")
    });
}
