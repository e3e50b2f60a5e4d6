//! The MCP conformance suite's client scenarios against the command line: the core ones
//! (protocol, HTTP headers, JSON Schema and every OAuth flow the suite checks) and the
//! extensions Toolscope implements (skills, SEP-2640) (tests/conformance/run.sh; `bash
//! tests/peers/install.sh` installs the suite).

use crate::support::{binary, peer_available, repo_root};

#[test]
fn every_core_client_scenario_of_the_conformance_suite_passes() {
    let suite = repo_root().join("tests/conformance/node_modules/.bin/conformance");
    if !peer_available(&suite, "the MCP conformance suite") {
        return;
    }
    let output = std::process::Command::new("bash")
        .arg(repo_root().join("tests/conformance/run.sh"))
        .env("TOOLSCOPE", binary())
        .output()
        .expect("run.sh runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        report.contains("42 of 42 client scenarios pass"),
        "{report}"
    );
}
