//! The layers below the window know nothing of egui. For the engine the compiler sees to it
//! (`toolscope-core` has no GUI crate among its dependencies, checked here with `cargo tree`);
//! for the app's own egui-free layers (the window's model and the command line) a scan of their
//! sources does.

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
    for layer in ["workbench", "cli"] {
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

#[test]
fn the_core_crate_depends_on_no_gui_crate() {
    let output = std::process::Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--package",
            "toolscope-core",
            "--edges",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    // egui and its crates (egui_extras, egui-wgpu…), the windowing and graphics stack, the
    // accessibility tree, the file dialogs.
    let gui: Vec<&str> = tree
        .lines()
        .filter(|line| {
            let name = line.split_whitespace().next().unwrap_or_default();
            let prefixes = ["egui", "wgpu", "accesskit", "glow"];
            let names = ["eframe", "winit", "rfd"];
            prefixes.iter().any(|prefix| name.starts_with(prefix))
                || names
                    .iter()
                    .any(|gui| name == *gui || name.starts_with(&format!("{gui}-")))
        })
        .collect();
    assert!(
        tree.contains("rmcp"),
        "the tree lists the core's dependencies:\n{tree}"
    );
    assert!(
        gui.is_empty(),
        "toolscope-core must not depend on {gui:?}: the engine knows nothing of the window. \
         Move what needs them into the app (src/ui or src/workbench), or find the dependency \
         that brings them in with `cargo tree -p toolscope-core -i <crate>` and drop it"
    );
}
