//! Restart on change in the window: a server being written is watched; editing its file
//! restarts it, lists its tools again and says what changed in its interface, calls the last
//! call again and opens the comparison with the result before.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text, saved_stdio};

#[test]
fn editing_the_server_restarts_it_calls_again_and_compares() {
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("server.py");
    std::fs::copy(
        crate::support::repo_root().join("tests/fixtures/editable_server.py"),
        &script,
    )
    .unwrap();
    let server = saved_stdio("editable", "python3", &[script.display().to_string()]);
    let mut window = Window::setup("restart-on-change")
        .servers(vec![server])
        .open();
    window.step_until("the server to connect", |h| {
        has_text(h, "Connected: editable 1.0.0")
    });
    window.click("editable");
    window.click("Restart on change");
    window.step_until("the folder watched", |h| has_text(h, "watching "));
    window.select_tool("answer");
    window.call();
    window.step_until("the first result", |h| {
        has_text(h, "— what the model reads") && has_text(h, "42")
    });

    // The person edits the server: its answer and its tool's description.
    let text = std::fs::read_to_string(&script).unwrap();
    let edited = text.replace("ANSWER = 42", "ANSWER = 7").replace(
        "The answer, as this file says it today",
        "The answer, edited",
    );
    std::fs::write(&script, edited).unwrap();

    window.step_until("the comparison after the restart", |h| {
        has_text(h, "answer · before the restart") && has_text(h, "/result: changed 42 → 7")
    });
    window.step_until("what changed in the interface", |h| {
        has_text(h, "Since the restart: 0 breaking, 1 compatible change")
    });
    assert!(
        has_text(
            &window.harness,
            "Restarted; `answer` called again, compared with its result before"
        ),
        "the card says how the restart went"
    );
    assert!(
        window
            .harness
            .query_all_by_label_contains("restarted once, last for server.py")
            .next()
            .is_some()
    );

    // A broken edit: the server does not start, and the card says so.
    let working = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, "this is not python\n").unwrap();
    window.step_until("the failed restart said", |h| {
        has_text(h, "the server did not start")
    });
    // Mended: it starts, and the call made again is compared with the last good result.
    std::fs::write(&script, working.replace("ANSWER = 7", "ANSWER = 8")).unwrap();
    window.step_until("the comparison after the mend", |h| {
        has_text(h, "/result: changed 7 → 8")
    });
}
