//! The window on a team's PostgreSQL history (a throwaway cluster the tests start): a call
//! another machine records shows in the History tab on its own, with who recorded it, and the
//! list narrows to one person.

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
