//! The layers below the window know nothing of egui: a build fails the day one of them does.

#![allow(clippy::expect_used, reason = "a test fails loudly")]

use std::path::Path;

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn the_layers_below_the_window_do_not_use_egui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for layer in [
        "json_doc",
        "analysis",
        "answers",
        "compare",
        "session",
        "history",
        "interface",
        "import",
        "cases",
        "report",
        "workbench",
        "cli",
    ] {
        let mut files = Vec::new();
        sources(&root.join(layer), &mut files);
        assert!(!files.is_empty(), "{layer} has sources");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a readable source file");
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                let uses_ui = ["egui", "eframe", "crate::ui", "super::ui", "rfd::"]
                    .iter()
                    .any(|name| {
                        code.match_indices(name).any(|(at, _)| {
                            // A whole path segment, not part of a longer word.
                            let before = code[..at].chars().next_back();
                            before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                        })
                    });
                if uses_ui {
                    offenders.push(format!("{}:{}: {line}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these layers must not depend on the window:\n{}",
        offenders.join("\n")
    );
}
