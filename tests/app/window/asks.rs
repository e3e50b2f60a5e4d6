//! What a server asks during a call: a form (multi-round), a model's reply written by the person,
//! a page to open (URL elicitation, and the error that requires one), a question taken away with
//! its cancelled call, and a capability turned off in the editor.

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::{Harness, SnapshotResults, kittest::Queryable as _};
use toolscope::ui::ToolscopeApp;

use super::harness::{Window, has_text, saved_stdio};

#[test]
fn a_multi_round_tool_asks_through_a_form_and_completes_once_it_is_answered() {
    let Some(mut window) = Window::on_python_peer("asks-form") else {
        return;
    };
    window.select_tool("book_table");
    window.step_until("the restaurant argument", |h| {
        h.query_all_by_label("restaurant").next().is_some()
    });
    window.type_into("restaurant", "Noma");
    window.call();
    window.step_until("the server's question", |h| {
        has_text(h, "When would you like the table")
    });
    assert!(has_text(&window.harness, "round 1 of the call"));
    // Accepting with the required date empty is refused by the form itself.
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    assert!(has_text(&window.harness, "Date is required"));
    window.type_into("Date *", "2026-12-24");
    assert!(
        !has_text(&window.harness, "Date is required"),
        "an edited field loses its old error"
    );
    // The running call's spinner turns from frame to frame.
    let spinners: Vec<egui::Rect> = window
        .harness
        .query_all_by_role(Role::ProgressIndicator)
        .chain(window.harness.query_all_by_label_contains("Running…"))
        .map(|node| node.rect())
        .collect();
    // The sidebar shows the server's command line, which holds the checkout's path (and wraps
    // differently in another folder): it is left out of the picture.
    let sidebar_right = window.harness.get_by_label("Filter").rect().right() + 8.0;
    window.harness.mask(egui::Rect::from_min_max(
        egui::pos2(0.0, 32.0),
        egui::pos2(sidebar_right, 900.0),
    ));
    for rect in spinners {
        window.harness.mask(rect.expand(2.0));
    }
    let mut snapshots = SnapshotResults::new();
    snapshots.add(window.harness.try_snapshot("ask_form"));
    window.harness.get_by_label("Accept").click();
    window.harness.run_ok();
    window.step_until("the booking", |h| {
        has_text(h, "Booked Noma on 2026-12-24 for 2.")
    });
    assert!(
        window.harness.state().model().pending_asks().is_empty(),
        "the question is gone once answered"
    );
    // The rounds are shown beside the result: the question, the answer, who gave it.
    assert!(has_text(
        &window.harness,
        "Rounds: the server asked 1 thing in 2 requests"
    ));
    assert!(has_text(&window.harness, "→ input_required after"));
    assert!(has_text(&window.harness, "answered by you in"));
}

#[test]
fn a_sampling_request_is_answered_by_the_person_in_place_of_a_model() {
    let Some(mut window) = Window::on_everything("asks-sampling") else {
        return;
    };
    window.select_tool_titled("trigger-sampling-request", "Trigger Sampling Request Tool");
    window.type_into("prompt", "Say hello");
    window.call();
    window.step_until("the sampling request", |h| {
        has_text(h, "The server asks for a model's reply")
    });
    assert!(
        has_text(&window.harness, "Say hello"),
        "the messages are shown"
    );
    window.type_into("The reply", "Hello from a person");
    window.harness.get_by_label("Send the reply").click();
    window.harness.run_ok();
    window.step_until("the tool's result with the reply", |h| {
        has_text(h, "Hello from a person") && h.state().model().pending_asks().is_empty()
    });
}

#[test]
fn a_url_elicitation_names_the_host_and_opens_nothing_unless_asked() {
    let Some(mut window) = Window::on_everything("asks-url") else {
        return;
    };
    window.select_tool_titled("trigger-url-elicitation", "Trigger URL Elicitation Tool");
    window.step_until("the url argument", |h| {
        h.query_all_by_label("url").next().is_some()
    });
    window.type_into("url", "https://pay.example.com/checkout?order=7");
    window.call();
    window.step_until("the request to open a page", |h| {
        has_text(h, "The server asks you to open a page")
    });
    assert!(
        has_text(&window.harness, "pay.example.com"),
        "the host is named"
    );
    assert!(has_text(&window.harness, "Open in the browser"));
    window.harness.get_by_label("Decline").click();
    window.harness.run_ok();
    // server-everything may ask for the roots during the call too: a second thing asked.
    window.step_until("the result of the declined elicitation", |h| {
        h.state().model().pending_asks().is_empty()
            && has_text(h, "Rounds: the server asked")
            && has_text(h, "User declined to open the URL")
    });
    assert!(has_text(
        &window.harness,
        "asked to open https://pay.example.com/checkout?order=7"
    ));
    assert!(has_text(&window.harness, "→ decline"));
}

#[test]
fn a_url_elicitation_required_error_offers_the_page_and_a_second_call() {
    let Some(mut window) = Window::on_everything("asks-url-required") else {
        return;
    };
    window.select_tool_titled("trigger-url-elicitation", "Trigger URL Elicitation Tool");
    window.step_until("the url argument", |h| {
        h.query_all_by_label("url").next().is_some()
    });
    window.harness.get_by_label("JSON").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Arguments (JSON)")
        .set_text_value_accesskit(r#"{"url": "https://example.com/authorize", "errorPath": true}"#);
    window.harness.run_ok();
    window.call();
    window.step_until("the page to open", |h| {
        has_text(h, "Open modelcontextprotocol.io in the browser")
    });
    assert!(has_text(
        &window.harness,
        "The server needs you to open a page on"
    ));
    // Done on the page: the same call again, which the server now lets through.
    window.harness.get_by_label("Call again").click();
    window.harness.run_ok();
    window.step_until("the server's URL question", |h| {
        has_text(h, "The server asks you to open a page")
    });
}

#[test]
fn a_call_cancelled_while_its_question_waits_takes_the_question_away() {
    let Some(mut window) = Window::on_python_peer("asks-cancel") else {
        return;
    };
    window.select_tool("book_twice");
    window.call();
    window.step_until("the first question", |h| has_text(h, "First: when"));
    assert!(has_text(
        &window.harness,
        "1 question from this server waiting for you"
    ));
    // The call's own Cancel, between rounds.
    window.harness.get_by_label("Cancel").click();
    window.harness.run_ok();
    window.step_until("the question to go with the call", |h| {
        h.state().model().pending_asks().is_empty() && !has_text(h, "First: when")
    });
}

/// Whether the server named `name` lists `tool` (once connected).
fn lists_tool(harness: &Harness<'static, ToolscopeApp>, name: &str, tool: &str) -> Option<bool> {
    let server = harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|server| server.name == name)?;
    Some(server.catalog.as_ref()?.find(tool).is_some())
}

#[test]
fn a_capability_turned_off_in_the_editor_hides_the_tools_that_need_it() {
    let Some(entry) = crate::support::everything_entry() else {
        return;
    };
    let server = saved_stdio("everything", "node", &[entry.display().to_string()]);
    let mut window = Window::setup("asks-capabilities")
        .servers(vec![server])
        .open();
    window.step_until("server-everything's tools", |h| {
        lists_tool(h, "everything", "trigger-sampling-request") == Some(true)
    });
    window.harness.get_by_label("Edit…").click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("Client capabilities and roots")
        .click();
    window.harness.run_ok();
    window
        .harness
        .get_by_label("sampling: the server may ask for a model's reply (you write it)")
        .click();
    window.harness.run_ok();
    window.harness.get_by_label("Save").click();
    window.harness.run_ok();
    window.step_until("the tools listed without sampling declared", |h| {
        lists_tool(h, "everything", "trigger-sampling-request") == Some(false)
            && lists_tool(h, "everything", "trigger-elicitation-request") == Some(true)
    });
    // The settings writer saves a moment later, on its own thread.
    let path = window.dir().join("settings.json");
    let deadline = Instant::now() + Duration::from_secs(10);
    let saved = loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let saved: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if saved["servers"][0]["client"]["declared"]["sampling"] == false
            || Instant::now() > deadline
        {
            break saved;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        saved["servers"][0]["client"]["declared"]["sampling"], false,
        "{saved}"
    );
}
