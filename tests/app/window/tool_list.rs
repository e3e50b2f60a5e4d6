//! The tool list and a tool's own panel: the list refreshed when the server says it changed
//! (once for a burst), a new filter's first match in view among 10,013 tools, and an MCP App
//! tool's UI resource read and checked.

use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable as _;
use toolscope_core::session::ServerConfig;

use super::harness::{Window, has_text};

#[test]
fn a_tool_list_change_refreshes_the_list_and_says_what_changed() {
    let mut window = Window::connected("changes");
    window.select_tool("toggle_bonus_tool");
    window.call();
    window.step_until("the refreshed list", |h| {
        has_text(h, "The tool list changed: added bonus_echo")
    });
    assert!(has_text(&window.harness, "14 tools"));
}

/// server-everything says `notifications/tools/list_changed` four times as it starts: the
/// window lists the tools once for the connection and once more for the changes told while
/// that list was under way, not once per notification.
#[test]
fn list_changed_told_in_a_burst_lists_the_tools_again_once() {
    let Some(mut window) = Window::on_everything("list-burst") else {
        return;
    };
    // Time for the burst and any lists it would start.
    let until = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < until {
        window.harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let server = window
        .harness
        .state()
        .model()
        .servers()
        .iter()
        .find(|server| server.name == "everything")
        .map(|server| server.id)
        .unwrap();
    let tap = window.harness.state().tap(server).unwrap();
    let notified = tap
        .messages()
        .iter()
        .filter(|entry| entry.text.contains("notifications/tools/list_changed"))
        .count();
    let lists = tap
        .messages()
        .iter()
        .filter(|entry| entry.label.starts_with("tools/list"))
        .count();
    assert!(
        notified >= 2,
        "the burst was seen ({notified} notifications)"
    );
    assert!(
        (1..=2).contains(&lists),
        "{lists} tools/list requests for {notified} notifications"
    );
}

/// 10,013 tools, the list scrolled to its end: a new filter shows its first match.
#[test]
fn a_new_filter_scrolls_the_tool_list_to_its_first_match() {
    let mut window = Window::setup("filter")
        .size(egui::vec2(1280.0, 800.0))
        .options(|options| {
            if let ServerConfig::Stdio { args, .. } = &mut options.demo {
                args.extend(["--extra-tools".to_owned(), "10000".to_owned()]);
            }
        })
        .open();
    window.step_until("the tools", |h| has_text(h, "10013 tools"));
    window
        .harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    window.harness.run_ok();
    // Up from no row is the last row: the list scrolls to its end.
    window.harness.key_press(egui::Key::ArrowUp);
    window.harness.run_ok();
    assert!(window.harness.query_by_label("generated_09999").is_some());
    window
        .harness
        .event(egui::Event::Text("generated_0".to_owned()));
    window.harness.run_ok();
    assert!(has_text(&window.harness, "10000 of 10013 tools"));
    assert!(
        window.harness.query_by_label("generated_00000").is_some(),
        "the first match is in view"
    );
}

#[test]
fn an_mcp_app_tool_gets_its_ui_resource_read_and_checked() {
    let Some(mut window) = Window::on_python_peer("mcp-app") else {
        return;
    };
    window.select_tool("show_booking");
    window.step_until("the UI resource section", |h| {
        has_text(h, "UI resource (MCP App)")
    });
    window.harness.get_by_label("Read and check").click();
    window.harness.run_ok();
    window.step_until("the findings", |h| has_text(h, "its MIME type is"));
    assert!(has_text(
        &window.harness,
        "its MIME type is text/html;profile=mcp-app"
    ));
    assert!(has_text(
        &window.harness,
        "connect to https://api.example.com"
    ));
    // The one made wrong says what is wrong with it.
    window.select_tool("show_plain");
    window.step_until("the UI resource section", |h| {
        has_text(h, "UI resource (MCP App)")
    });
    window.harness.get_by_label("Read and check").click();
    window.harness.run_ok();
    window.step_until("the findings", |h| has_text(h, "its MIME type is"));
    assert!(has_text(&window.harness, "the tool declares a csp"));
    assert!(has_text(
        &window.harness,
        "not \"text/html;profile=mcp-app\""
    ));
}
