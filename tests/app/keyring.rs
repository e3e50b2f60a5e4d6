//! The system keyring for real: a private D-Bus session with GNOME Keyring's Secret Service
//! (`dbus-run-session`, `gnome-keyring-daemon`), where a sign-in keeps its tokens, the next
//! command uses them, and sign-out removes them, with no secrets file written. Skipped with a
//! loud message where those programs are missing; CI installs them, so there it must run.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

use crate::support::oauth_server::{AuthServer, fake_browser};

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn tokens_live_in_the_secret_service_and_sign_out_removes_them() {
    if !(have("dbus-run-session") && have("gnome-keyring-daemon")) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have dbus-run-session and gnome-keyring-daemon (.ci/run installs them)"
        );
        eprintln!("SKIPPED: no dbus-run-session or gnome-keyring-daemon here");
        return;
    }
    // Tokens of kilobytes, as JWTs are: kept in parts (Windows takes 1280 characters an entry).
    let server = AuthServer::start(&["--long-tokens"]);
    let folder = std::env::temp_dir().join(format!("toolscope-keyring-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    // One session bus for the whole script: the keyring daemon lives as long as it.
    let script = format!(
        r#"echo -n test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
sleep 0.5
run() {{ "{binary}" "$@" --url "{url}" 2>&1; echo "exit $?"; }}
echo "== first"; run tools
echo "== second"; run tools
echo "== out"; run sign-out
echo "== third"; "{binary}" tools --no-browser --sign-in-timeout 1 --url "{url}" 2>&1; echo "exit $?"
"#,
        binary = crate::support::binary(),
        url = server.url,
    );
    let output = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &script])
        .env("TOOLSCOPE_CONFIG_DIR", &folder)
        .env("TOOLSCOPE_DATA_DIR", folder.join("data"))
        .env("TOOLSCOPE_SECRETS", "keyring")
        // A keyring of the test's own (GNOME Keyring keeps its files in the data folder).
        .env("XDG_DATA_HOME", folder.join("share"))
        .env("BROWSER", format!("python3 {}", fake_browser().display()))
        .output()
        .expect("dbus-run-session runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let part = |name: &str| {
        let start = text
            .find(&format!("== {name}"))
            .unwrap_or_else(|| panic!("{text}"));
        let rest = &text[start + 3..];
        rest[..rest.find("== ").unwrap_or(rest.len())].to_owned()
    };
    let first = part("first");
    assert!(
        first.contains("auth • Signed in") && first.contains("exit 0"),
        "{text}"
    );
    let second = part("second");
    assert!(
        !second.contains("Signing in") && second.contains("exit 0"),
        "{text}"
    );
    let out = part("out");
    assert!(
        out.contains("gone from the system keyring (Secret Service)"),
        "{text}"
    );
    // Signed out: a new sign-in is needed (and, with nobody to finish it, times out).
    let third = part("third");
    assert!(
        third.contains("open this page in a browser") && !third.contains("exit 0"),
        "{text}"
    );
    assert!(
        !folder.join("secrets.json").exists(),
        "the keyring, not the file"
    );
    assert_eq!(server.events("authorize").len(), 1);
    let _ = std::fs::remove_dir_all(&folder);
}
