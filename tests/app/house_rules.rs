//! The house rules that slipped once nothing checked them, checked inside `cargo test`: no
//! source file over 800 lines, the engine free of GUI crates (`layers.rs`), a ceiling on
//! errors that are only strings, and every module folder described in ARCHITECTURE.md. Each
//! failure says what to do.

#![allow(clippy::expect_used, reason = "a test fails loudly")]

use std::path::{Path, PathBuf};

/// A file longer than this holds more than one concept: split it by concept.
const MAX_LINES: usize = 800;

/// `Result<_, String>` in the core: none (its errors are typed; a face words them).
const CORE_STRING_ERRORS: usize = 0;

/// The app's (the window's model and the command line speak in words at their edge); the
/// ceiling only comes down.
const APP_STRING_ERRORS: usize = 58;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source roots: the app's and each crate's.
fn source_roots() -> Vec<PathBuf> {
    let mut roots = vec![root().join("src")];
    let crates = std::fs::read_dir(root().join("crates")).expect("crates/ is readable");
    for entry in crates {
        let src = entry.expect("a directory entry").path().join("src");
        if src.is_dir() {
            roots.push(src);
        }
    }
    roots
}

/// Every `.rs` file and every folder under `dir`, recursively.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, folders: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            folders.push(path.clone());
            walk(&path, files, folders);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// A file that holds only tests (`tests.rs`, `model_tests.rs`, `tests_model.rs`).
fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    name == "tests" || name.ends_with("_tests") || name.starts_with("tests_")
}

fn sources(root: &Path) -> Vec<PathBuf> {
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    walk(root, &mut files, &mut folders);
    files.retain(|file| !is_test_file(file));
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for root in source_roots() {
        for file in sources(&root) {
            let lines = read(&file).lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", shown(&file)));
            }
        }
    }
    assert!(
        long.is_empty(),
        "these files are over {MAX_LINES} lines: split each by concept (one concept per file; a \
         test module can move to a tests.rs beside it):\n  {}",
        long.join("\n  ")
    );
}

/// The lines (1-based) where a `Result<…, String>` is written in `text`, test code excluded
/// (what follows the first `#[cfg(test)]`). Generic arguments are matched by their brackets,
/// so a signature over several lines counts too.
fn string_errors(text: &str) -> Vec<usize> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("Result<") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let (mut depth, mut arguments, mut last_argument) = (1, 1, String::new());
        let mut index = at + "Result<".len();
        while index < bytes.len() {
            let c = bytes[index] as char;
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            if c == ',' && depth == 1 {
                arguments += 1;
                last_argument.clear();
            } else if !c.is_whitespace() {
                last_argument.push(c);
            }
            index += 1;
        }
        // `io::Result<String>` is a value, not an error.
        if arguments == 2 && last_argument == "String" {
            found.push(code[..at].matches('\n').count() + 1);
        }
    }
    found
}

#[test]
fn string_errors_stay_under_their_ceilings() {
    let core = root().join("crates/toolscope-core/src");
    let app = root().join("src");
    for (root, ceiling, side) in [
        (core, CORE_STRING_ERRORS, "the core"),
        (app, APP_STRING_ERRORS, "the app"),
    ] {
        let mut places = Vec::new();
        for file in sources(&root) {
            for line in string_errors(&read(&file)) {
                places.push(format!("{}:{line}", shown(&file)));
            }
        }
        assert!(
            places.len() <= ceiling,
            "{side} has {} `Result<_, String>` (at most {ceiling}): give the new one a typed \
             error (a thiserror enum whose message says what failed and what to do):\n  {}",
            places.len(),
            places.join("\n  ")
        );
        if places.len() < ceiling {
            eprintln!(
                "{side} has {} `Result<_, String>`, under its ceiling of {ceiling}: lower the \
                 ceiling in tests/app/house_rules.rs",
                places.len()
            );
        }
    }
}

#[test]
fn the_string_error_scan_finds_what_it_should() {
    let text = "fn a() -> Result<(), String> {}\nfn b() -> Result<Vec<u8>,\n    String> {}\n\
                fn c() -> Result<String, Error> {}\nfn d() -> io::Result<String> {}\n\
                #[cfg(test)]\nfn e() -> Result<(), String> {}\n";
    assert_eq!(string_errors(text), [1, 2]);
}

#[test]
fn every_module_folder_is_described_in_the_architecture() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for source_root in source_roots() {
        let (mut files, mut folders) = (Vec::new(), Vec::new());
        walk(&source_root, &mut files, &mut folders);
        for folder in folders {
            let relative = folder
                .strip_prefix(&source_root)
                .expect("under its root")
                .display()
                .to_string();
            let named = format!("{relative}/");
            if !architecture.contains(&named) {
                missing.push(format!("{named} (in {})", shown(&source_root)));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not describe these module folders: add each, by its path from its \
         crate's src/ (e.g. `session/transports/`), with what it holds and what it depends on:\n  \
         {}",
        missing.join("\n  ")
    );
}
