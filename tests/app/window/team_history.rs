//! The window on a team's PostgreSQL history (a throwaway cluster the tests start): a call
//! another machine records shows in the History tab on its own, with who recorded it, and the
//! list narrows to one person.

use egui_kittest::kittest::Queryable as _;
use std::time::Instant;

use toolscope_core::history::{HistoryLocation, test_cluster};

use super::harness::{Window, has_text};

#[test]
fn another_machines_call_shows_in_the_history_tab_with_who_recorded_it() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("window");
    let setup = Window::setup("team-history");
    let dir = setup.dir().to_owned();
    let team = HistoryLocation::Postgres(url.clone());
    let mut window = setup.options(|options| options.history = Some(team)).open();
    window.tab("History");
    window.step_until("the empty team history", |h| {
        has_text(h, "No calls kept yet that match")
    });

    let other = dir.join("other-machine");
    std::fs::create_dir_all(&other).unwrap();
    let recorded = Instant::now();
    let called = std::process::Command::new(crate::support::binary())
        .args(["call", "--demo", "divide", "--arg", "a=1", "--arg", "b=0"])
        .env("TOOLSCOPE_DATA_DIR", &other)
        .env("TOOLSCOPE_CONFIG_DIR", other.join("config"))
        .env("TOOLSCOPE_HISTORY_URL", url.secret_text())
        .env("TOOLSCOPE_MACHINE", "ci-runner")
        .env("TOOLSCOPE_PERSON", "bo")
        .output()
        .unwrap();
    assert_eq!(called.status.code(), Some(1), "a tool error");
    let after_exit = Instant::now();
    window.step_until("the other machine's call listed", |h| {
        has_text(h, "divide · tool_error · bo@ci-runner")
    });
    eprintln!(
        "another machine's call showed {} ms after its command ended ({} ms after it began)",
        after_exit.elapsed().as_millis(),
        recorded.elapsed().as_millis()
    );
    window.step_until("the person filter", |h| has_text(h, "Person: anyone"));
}

/// Team history… switches the window onto the team's database: the URL kept in the settings
/// without its password, the password in the secret store, the window's own calls recorded
/// there with the name given, and Back to the local history returns.
#[test]
fn the_team_history_dialog_switches_the_window_and_keeps_the_password_out_of_the_settings() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("dialog");
    let setup = Window::setup("team-dialog");
    let dir = setup.dir().to_owned();
    let secrets = dir.join("secrets");
    let mut window = setup
        .options(|options| {
            options.history = Some(HistoryLocation::File(dir.join("history.sqlite3")));
            options.secrets = Some(toolscope_core::settings::SecretsPlace::new(
                toolscope_core::secret_store::Preference::File,
                secrets.clone(),
            ));
        })
        .connected();
    window.tab("History");
    window.menu_item("More", "Team history…");
    let without_password = url.without_password().to_string();
    window.type_into("Database", &without_password);
    window.type_into("Password", cluster.password());
    window.type_into("Your name", "ana");
    window.click("Use the team history");
    window.step_until("the team history read", |h| has_text(h, "Person: anyone"));

    window.tab("Tools");
    window.select_tool("add");
    // Clicked again if the click was lost (the layout can move under a loaded machine).
    window.click_until("Call", "the call's result", |h| {
        has_text(h, "what the model reads")
    });
    let team = toolscope_core::history::PostgresStore::open(&url, None).unwrap();
    let deadline = Instant::now() + std::time::Duration::from_secs(20);
    let kept = loop {
        let calls = toolscope_core::history::CallStore::list(&team, &Default::default()).unwrap();
        if let Some(call) = calls.into_iter().next() {
            break call;
        }
        assert!(
            Instant::now() < deadline,
            "the window's call reached the team history"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(
        (kept.tool.as_str(), kept.person.as_deref()),
        ("add", Some("ana"))
    );

    let settings = std::fs::read_to_string(dir.join("settings.json")).unwrap_or_default();
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    let mut settings = settings;
    while !settings.contains("history_url") && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        window.harness.step();
        settings = std::fs::read_to_string(dir.join("settings.json")).unwrap_or_default();
    }
    assert!(settings.contains(&without_password), "{settings}");
    assert!(settings.contains("\"person\": \"ana\""), "{settings}");
    assert!(!settings.contains(cluster.password()), "{settings}");
    let kept_secrets = std::fs::read_to_string(secrets.join("secrets.json")).unwrap_or_default();
    assert!(
        kept_secrets.contains(cluster.password()),
        "the password is in the secret store"
    );

    window.tab("History");
    window.menu_item("More", "Team history…");
    window.click("Back to the local history");
    window.step_until("the local history again", |h| {
        !has_text(h, "Person: anyone") && h.query_by_label("More").is_some()
    });
}

/// A team database that does not answer when the window starts: the calls go to the local
/// file, the History and Live tabs say so, and Try again reaches it once it is up.
#[test]
fn a_team_history_down_at_start_is_said_and_reached_with_try_again() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("down-at-start");
    // The database is reached through a port nothing listens on yet.
    let spare = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = spare.local_addr().unwrap().port();
    drop(spare);
    let through =
        url.secret_text()
            .replacen(&format!(":{}/", cluster.port()), &format!(":{port}/"), 1);
    let through = toolscope_core::history::PostgresUrl::parse(&through).unwrap();
    let setup = Window::setup("team-down");
    let mut window = setup
        .options(|options| options.history = Some(HistoryLocation::Postgres(through)))
        .connected();
    window.tab("History");
    window.step_until("the fallback said", |h| {
        has_text(h, "was not reached: calls are kept in the local file")
    });
    assert!(!has_text(&window.harness, cluster.password()));

    // The database comes up on that port.
    let target = cluster.port();
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", target)) else {
                continue;
            };
            let (mut client_read, mut server_write) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut client_read, &mut server_write));
            let (mut server_read, mut client_write) = (server, client);
            std::thread::spawn(move || std::io::copy(&mut server_read, &mut client_write));
        }
    });
    window.click("Try the team history again");
    window.step_until("the team history read", |h| {
        !has_text(h, "was not reached") && has_text(h, "Person: anyone")
    });
}
