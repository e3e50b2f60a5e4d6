//! The MCP conformance suite's client scenarios against the command line: protocol, HTTP
//! headers, JSON Schema and every OAuth flow the suite checks, with the extensions Toolscope
//! implements: the OAuth ones (client credentials with a secret or `private_key_jwt`,
//! enterprise-managed authorization, DPoP with and without nonces, workload identity) and
//! skills (SEP-2640); tests/conformance/run.sh, and `bash tests/peers/install.sh` installs
//! the suite.

use crate::support::{binary, peer_available, repo_root};

#[test]
fn the_core_and_oauth_extension_client_scenarios_of_the_conformance_suite_pass() {
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
        report.contains("48 of 48 client scenarios pass"),
        "{report}"
    );
}
