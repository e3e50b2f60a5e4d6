//! The servers in the sidebar: one added in the editor and kept across a restart, a reconnection
//! that says what changed since last time, an OAuth sign-in and sign-out, and a server's long
//! stderr line read whole.

use egui_kittest::kittest::Queryable as _;
use toolscope::{ui::DEMO_SERVER, workbench::ServerAction};
use toolscope_core::{session::ServerConfig, settings::SavedServer};

use super::harness::{Setup, Window, has_text};

#[test]
fn added_servers_connect_and_survive_a_restart() {
    let setup = Window::setup("restart");
    let dir = setup.dir().to_owned();
    let mut window = setup.connected();
    window.harness.get_by_label("Add server…").click();
    window.harness.run_ok();
    window.type_into("Name", "second demo");
    let command_line = format!("{} demo-server", crate::support::binary());
    window.type_into("Command line", &command_line);
    window.harness.get_by_label("Add env").click();
    window.harness.run_ok();
    window.type_into("Variable", "API_TOKEN");
    window.type_into("Value", "hunter2");
    assert!(
        window.harness.query_all_by_label("Show").next().is_some(),
        "a secret-looking variable is masked, with a Show toggle"
    );
    window.click_until("Save", "the server saved", |h| has_text(h, "second demo"));
    // Saving a new server connects it.
    window.step_until("both servers to connect", |h| {
        h.query_all_by_label_contains("Connected: toolscope-demo")
            .count()
            == 2
    });
    // Closing the window writes what is queued (the settings writer flushes when dropped),
    // then a new window starts on the same settings.
    let Window {
        harness,
        _runtime,
        _config,
    } = window;
    drop(harness);
    drop(_runtime);
    std::mem::forget(_config);
    let saved = std::fs::read_to_string(dir.join("settings.json")).unwrap();
    assert!(
        saved.contains("second demo") && saved.contains("API_TOKEN"),
        "{saved}"
    );
    let mut window = Setup::reopen(dir).open();
    window.step_until("the saved server, connected again", |h| {
        has_text(h, "second demo")
            && h.query_all_by_label_contains("Connected: toolscope-demo")
                .count()
                == 2
    });
}

#[test]
fn a_reconnection_says_what_changed_in_the_interface_since_last_time() {
    let setup = Window::setup("since");
    let interfaces = setup.dir().join("interfaces");
    let mut window = setup
        .options(|options| options.interfaces_dir = Some(interfaces))
        .connected();
    // The bonus tool comes and is kept as part of the interface seen last.
    window.select_tool("toggle_bonus_tool");
    window.call();
    window.step_until("the bonus tool listed", |h| {
        h.state()
            .model()
            .server(DEMO_SERVER)
            .and_then(|server| server.catalog.as_ref())
            .is_some_and(|catalog| catalog.find("bonus_echo").is_some())
    });
    // A new demo process has no bonus tool: since last time, a tool was removed.
    window
        .harness
        .state_mut()
        .act(toolscope::workbench::Action::Servers(
            ServerAction::Connect(DEMO_SERVER),
        ));
    window.step_until("the note of what changed", |h| {
        has_text(h, "Since last time: 1 breaking")
    });
    let server = window.harness.state().model().server(DEMO_SERVER).unwrap();
    let note = server.since_last_time.as_ref().unwrap();
    assert!(
        note.changes[0].starts_with("breaking · bonus_echo:"),
        "{note:?}"
    );
}

#[test]
fn an_oauth_server_is_signed_into_from_the_window_and_signed_out_of() {
    let server = crate::support::oauth_server::AuthServer::start(&[]);
    let setup = Window::setup("oauth").servers(vec![SavedServer {
        name: "protected".to_owned(),
        config: ServerConfig::Http {
            url: server.url.clone(),
            headers: Default::default(),
            oauth_client_id: None,
            oauth_client_secret: None,
            oauth: Default::default(),
        },
        connect_at_start: true,
        client: Default::default(),
    }]);
    // No browser here: the window offers the page, and the "user" opens it.
    let pages = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = pages.clone();
    let secrets = setup.dir().join("secrets");
    let place = toolscope_core::settings::SecretsPlace::new(
        toolscope_core::secret_store::Preference::File,
        secrets.clone(),
    )
    .opening_pages_with(std::sync::Arc::new(move |page: &str| {
        seen.lock().unwrap().push(page.to_owned());
        Err(toolscope_core::auth::browser::BrowserError::CannotRun {
            program: "a browser".to_owned(),
            reason: "no browser in this test".to_owned(),
        })
    }));
    let mut window = setup
        .options(|options| options.secrets = Some(place))
        .open();
    window.step_until("the sign-in page offered", |h| {
        has_text(h, "No browser opened: open the sign-in page")
    });
    assert!(window.harness.query_by_label("Copy link").is_some());
    let page = pages
        .lock()
        .unwrap()
        .first()
        .cloned()
        .expect("a page to open");
    assert!(page.contains("/auth/authorize?"), "{page}");
    assert!(crate::support::oauth_server::open_in_fake_browser(&page));
    window.step_until("the protected server connected", |h| {
        has_text(h, "Connected: oauth-fixture")
    });
    assert!(!has_text(
        &window.harness,
        "No browser opened: open the sign-in page"
    ));
    // The auth timeline is in the server's protocol log.
    let id = window
        .harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|state| state.name == "protected")
        .map(|state| state.id)
        .unwrap();
    let tap = window.harness.state().tap(id).expect("a log");
    let steps: Vec<String> = tap
        .messages()
        .into_iter()
        .map(|entry| entry.label)
        .filter(|label| label.starts_with(toolscope_core::session::transports::tap::AUTH_LABEL))
        .collect();
    assert!(
        steps.iter().any(|label| label.contains("Signed in")),
        "{steps:?}"
    );
    assert!(
        std::fs::read_to_string(secrets.join("secrets.json"))
            .unwrap()
            .contains("oauth:")
    );

    // Signing out (from the server editor) forgets the tokens.
    window.harness.get_by_label("Edit…").click();
    window.harness.run_steps(4);
    window.harness.get_by_label("Sign out").click();
    window.harness.run_steps(2);
    window.step_until("the sign-out said", |h| {
        has_text(h, "Signed out of protected")
    });
    let kept = std::fs::read_to_string(secrets.join("secrets.json")).unwrap();
    assert!(!kept.contains("oauth:"), "{kept}");
}

/// A stderr line longer than a row: clicked, it is shown whole beside the rows.
#[test]
fn a_long_log_line_is_read_whole_when_clicked() {
    let mut window = Window::on_wide_server("long-stderr");
    window.harness.get_by_label("Protocol log & stderr").click();
    window.harness.run_ok();
    window.harness.get_by_label("Server stderr").click();
    window.harness.run_ok();
    window.step_until("the stderr line", |h| {
        h.query_all_by_label_contains("stderr says")
            .next()
            .is_some()
    });
    assert!(
        window
            .harness
            .query_all_by_label_contains(" END")
            .next()
            .is_none(),
        "the row is cut"
    );
    window
        .harness
        .query_all_by_label_contains("stderr says")
        .next()
        .unwrap()
        .click_accesskit();
    window.harness.run_ok();
    assert!(
        window
            .harness
            .query_all_by_label_contains(" END")
            .next()
            .is_some(),
        "the whole line is shown"
    );
}

#[test]
fn diagnose_on_a_failed_card_walks_the_connection_and_names_the_step() {
    let broken = super::harness::saved_stdio(
        "broken server",
        "sh",
        &[
            "-c".to_owned(),
            "echo 'ModuleNotFoundError: mcp' >&2; exit 3".to_owned(),
        ],
    );
    let mut window = Window::setup("diagnose").servers(vec![broken]).open();
    window.step_until("the broken server to fail", |h| {
        has_text(h, "Connection failed")
    });
    window.click_until("Diagnose", "the diagnosis", |h| {
        has_text(h, "Stopped at start")
    });
    assert!(
        has_text(&window.harness, "sh is /"),
        "the program found on the PATH"
    );
    assert!(
        has_text(&window.harness, "ModuleNotFoundError: mcp"),
        "the server's stderr is the evidence"
    );
    assert!(has_text(
        &window.harness,
        "Try: the server exited before the handshake"
    ));
    window.click("Close");
    assert!(!has_text(&window.harness, "Stopped at start"));
}

/// The editor's OAuth extensions: what is secret (a pasted private key, the identity provider's
/// client secret) goes to the secret store, the rest to settings.json.
#[test]
fn the_editor_keeps_oauth_extension_secrets_in_the_secret_store() {
    let setup = Window::setup("oauth-extensions");
    let dir = setup.dir().to_owned();
    let secrets = dir.join("secrets");
    let place = toolscope_core::settings::SecretsPlace::new(
        toolscope_core::secret_store::Preference::File,
        secrets.clone(),
    );
    let mut window = setup
        .options(|options| options.secrets = Some(place))
        .connected();
    window.click("Add server…");
    window.type_into("Name", "enterprise");
    window.click("Streamable HTTP (a URL)");
    window.type_into("URL", "http://127.0.0.1:9/mcp");
    window.type_into("OAuth client id", "mcp-client");
    window.click("OAuth sign-in");
    window.click("enterprise-managed (ID-JAG)");
    window.click("bind tokens to this server's key (a proof with every request)");
    window.type_into("Identity provider", "https://idp.example");
    window.type_into("Client id there", "toolscope");
    window.type_into("Client secret there", "idp-s3cret-value");
    window.type_into("ID token", "/run/secrets/id-token");
    let pem = "-----BEGIN PRIVATE KEY-----MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkeyMaterial-----END PRIVATE KEY-----";
    window.type_into("Private key", pem);
    window.click_until("Save", "the server saved", |h| has_text(h, "enterprise"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut settings = String::new();
    while !settings.contains("idp.example") && std::time::Instant::now() < deadline {
        window.harness.step();
        std::thread::sleep(std::time::Duration::from_millis(50));
        settings = std::fs::read_to_string(dir.join("settings.json")).unwrap_or_default();
    }
    for kept in [
        "\"grant\": \"enterprise\"",
        "\"dpop\": true",
        "https://idp.example",
        "/run/secrets/id-token",
        "toolscope-secret:",
    ] {
        assert!(settings.contains(kept), "{kept} in {settings}");
    }
    assert!(!settings.contains("idp-s3cret-value"), "{settings}");
    assert!(!settings.contains("keyMaterial"), "{settings}");
    let store = std::fs::read_to_string(secrets.join("secrets.json")).unwrap_or_default();
    assert!(
        store.contains("idp-s3cret-value") && store.contains("keyMaterial"),
        "both are in the secret store"
    );
}

#[test]
fn a_server_without_tools_says_so_instead_of_listing_forever() {
    let script = crate::support::repo_root().join("tests/fixtures/no_tools_server.py");
    let server =
        super::harness::saved_stdio("resources only", "python3", &[script.display().to_string()]);
    let mut window = Window::setup("no-tools").servers(vec![server]).open();
    window.step_until("the server connected", |h| {
        has_text(h, "Connected: no-tools")
    });
    window.click_until("resources only", "its tools listed", |h| {
        has_text(h, "this server offers no tools")
    });
    assert!(!has_text(&window.harness, "Listing tools…"));
    assert!(!has_text(&window.harness, "Listing tools failed"));
}
