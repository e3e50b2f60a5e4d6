//! The Resources, Prompts and Server tabs against server-everything (the reference server):
//! a resource read, a template's variable filled in and read, a subscription with its update
//! read again, a prompt's arguments completed as typed and the prompt got, the log level set
//! with the server's messages seen, and round trips.

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text};

#[test]
fn resources_are_listed_read_subscribed_to_and_a_template_is_filled_in_and_read() {
    let Some(mut window) = Window::on_everything("resources-tab") else {
        return;
    };
    window.tab("Resources");
    window.step_until("the resources listed", |h| has_text(h, " templates"));
    window.click("architecture.md");
    window.click("Read");
    window.step_until("the resource read", |h| {
        has_text(h, "Everything Server – Architecture")
    });
    assert!(
        has_text(&window.harness, "embedded resource"),
        "drawn as the tool content pane draws an embedded resource"
    );
    assert!(
        window.harness.query_by_label("Rendered").is_some(),
        "Markdown can be rendered on request"
    );
    // Kept in the history, it has its figures beside it.
    window.step_until("its latency from the history", |h| {
        has_text(h, "slowest") && has_text(h, "over 1 call")
    });

    // A subscription: the server acknowledges it in a log message, and an update (started
    // by one of its tools) reads the resource on screen again.
    window.click("Subscribe");
    window.step_until("the subscription", |h| {
        h.query_by_label("Unsubscribe").is_some()
    });
    window.tab("Tools");
    window.select_tool_titled("toggle-subscriber-updates", "Toggle Subscriber Updates");
    window.call();
    window.tab("Resources");
    window.step_until("an update read again", |h| {
        has_text(h, "Updated (notifications/resources/updated)")
    });
    window.step_until("the update counted", |h| has_text(h, "update(s)"));
    // Read again on each update, it stays one row in the history, with a count.
    window.tab("History");
    window.step_until("the read again counted on its row", |h| {
        h.state()
            .model()
            .history_browser()
            .calls
            .iter()
            .any(|call| call.tool.ends_with("architecture.md") && call.repeats >= 1)
    });
    let reads = window
        .harness
        .state()
        .model()
        .history_browser()
        .calls
        .iter()
        .filter(|call| call.tool.ends_with("architecture.md"))
        .count();
    assert_eq!(reads, 1, "one row for the read and its repeats");
    window.tab("Resources");

    // A template: its variable as a field, the URI it reads as typed, then read.
    window.click("Dynamic Text Resource");
    window.type_into("resourceId", "5");
    window.step_until("the URI expanded", |h| {
        has_text(h, "demo://resource/dynamic/text/5")
    });
    window.click("Read");
    window.step_until("the templated read", |h| {
        has_text(h, "Resource 5: This is a plaintext resource")
    });
    // A blob of text is shown decoded beside Save….
    window.click("Dynamic Blob Resource");
    window.type_into("resourceId", "2");
    window.click("Read");
    window.step_until("the blob read", |h| has_text(h, "Decoded as text:"));
    assert!(window.harness.query_by_label("Save…").is_some());

    // The history grouped by tool: each read and the tool call, with their figures.
    window.tab("History");
    window.click("By tool");
    window.step_until("the groups", |h| {
        has_text(h, "read: demo://resource/dynamic/text/5") && has_text(h, "Slowest")
    });
    window.click_containing("read: demo://resource/static/document/architecture.md");
    window.step_until("its calls listed", |h| {
        has_text(h, "Only demo://resource/static/document/architecture.md") && has_text(h, "1 call")
    });
}

#[test]
fn a_prompts_arguments_are_completed_as_typed_and_it_is_got_as_a_conversation() {
    let Some(mut window) = Window::on_everything("prompts-tab") else {
        return;
    };
    window.tab("Prompts");
    window.step_until("the prompts listed", |h| has_text(h, " prompts"));
    window.click("Team Management");
    let get_before = window.harness.get_by_label("Get").rect();
    window.type_into("department *", "E");
    // Asked once typing pauses: the server offers the departments starting with E, in a
    // drop-down over the form (the Get button stays where it was).
    window.step_until("the department completed", |h| {
        h.query_by_label("Engineering").is_some()
    });
    assert_eq!(window.harness.get_by_label("Get").rect(), get_before);
    window.click("Engineering");
    // The department chosen is the context the name is completed in.
    window.type_into("name *", "A");
    window.step_until("the name completed", |h| {
        h.query_by_label("Alice").is_some()
    });
    window.click("Alice");
    window.click("Get");
    window.step_until("the prompt got", |h| {
        has_text(
            h,
            "Please promote Alice to the head of the Engineering team.",
        )
    });
    assert!(
        window.harness.query_by_label("user").is_some(),
        "each message says whose it is"
    );
}

#[test]
fn the_server_tab_says_what_it_declares_sets_the_log_level_and_pings() {
    let Some(mut window) = Window::on_everything("server-tab") else {
        return;
    };
    window.tab("Server");
    window.step_until("the capabilities", |h| {
        has_text(h, "Completion of prompt and resource-template arguments")
    });
    window.click("Ping");
    window.step_until("a round trip", |h| {
        has_text(h, "min ") && has_text(h, " · p95 ")
    });
    assert!(has_text(&window.harness, "ping "), "the method is named");
    window.click("Set");
    window.step_until("the level taken", |h| has_text(h, "Set to info"));
    // A subscription makes the server log at info level.
    window.tab("Resources");
    window.step_until("the resources listed", |h| has_text(h, " templates"));
    window.click("architecture.md");
    window.click("Subscribe");
    window.tab("Server");
    // Straight to the server's own messages, not the protocol log.
    window.click("Show the messages");
    window.step_until("the server's message", |h| {
        has_text(h, "Received Subscribe Resource request")
    });
}

#[test]
fn on_a_2026_server_a_template_is_read_a_prompt_got_and_logging_said_to_be_deprecated() {
    let Some(mut window) = Window::on_python_peer("features-2026") else {
        return;
    };
    window.tab("Resources");
    window.step_until("the resources listed", |h| has_text(h, "1 template"));
    window.click("note");
    window.type_into("name", "milk");
    window.click("Read");
    window.step_until("the note read", |h| {
        has_text(h, "Note milk: remember the milk.")
    });
    window
        .harness
        .get_by_label("name")
        .set_text_value_accesskit("eggs");
    window.harness.run_ok();
    window.click("Read");
    window.step_until("another note read", |h| {
        has_text(h, "Note eggs: remember the milk.")
    });

    window.tab("Prompts");
    window.step_until("the prompts listed", |h| has_text(h, "1 prompt"));
    window.click("Code review");
    window.type_into("code *", "x = 1");
    window.click("Get");
    window.step_until("the prompt got", |h| {
        has_text(h, "Please review this python code")
    });

    window.tab("Server");
    window.step_until("the server's capabilities", |h| has_text(h, "It declares"));
    assert!(
        has_text(&window.harness, "SEP-2577"),
        "what 2026-07-28 deprecates is said where it is offered"
    );
    // No logging/setLevel on 2026-07-28: the level rides on each request from now on.
    window.click("Set");
    window.step_until("the level kept", |h| has_text(h, "Set to info"));
    window.click("Ping");
    window.step_until("a round trip", |h| has_text(h, "server/discover "));

    // All are kept in the history, and one picked there is shown as it was answered.
    window.until_recorded("the reads and the prompt kept", 3);
    window.open_history(3);
    assert!(has_text(&window.harness, "prompt review"));
    window.click_containing("read note://milk");
    window.step_until("the kept read shown", |h| {
        has_text(h, "Note milk: remember the milk.") && has_text(h, "History #1")
    });
    // Two reads compared: the text a model would read, line by line.
    window.mark(1);
    window.mark(2);
    window.click("Compare");
    window.step_until("the comparison", |h| {
        has_text(h, "Note eggs: remember the milk.") && has_text(h, "note://eggs")
    });
}

#[test]
fn ten_thousand_resources_are_listed_whole_filtered_and_read() {
    let script = crate::support::repo_root().join("tests/fixtures/many_server.py");
    let mut window = Window::setup("many")
        .options(|options| {
            options.demo = toolscope_core::session::ServerConfig::Stdio {
                command: "python3".to_owned(),
                args: vec![
                    script.display().to_string(),
                    "3".to_owned(),
                    "10000".to_owned(),
                ],
                env: Default::default(),
                cwd: None,
            };
        })
        .open();
    window.step_until("the server", |h| has_text(h, "3 tools"));
    window.tab("Resources");
    // Twenty pages of 500, every one followed.
    window.step_until("every page", |h| has_text(h, "10000 resources"));
    window
        .harness
        .get_by_label("Filter")
        .set_text_value_accesskit("resource_09999");
    window.harness.run_ok();
    window.step_until("the filtered list", |h| has_text(h, "1 of 10000 resources"));
    window.click("Resource 9999");
    window.click("Read");
    window.step_until("the last one read", |h| {
        has_text(h, "This is many://resource/09999")
    });
}

/// A tool's description of 100 kB of Markdown: its start rendered, the rest said in bytes.
#[test]
fn a_long_markdown_description_is_rendered_in_part() {
    let script = crate::support::repo_root().join("tests/fixtures/many_server.py");
    let mut window = Window::setup("long-description")
        .options(|options| {
            options.demo = toolscope_core::session::ServerConfig::Stdio {
                command: "python3".to_owned(),
                args: vec![
                    script.display().to_string(),
                    "2".to_owned(),
                    "0".to_owned(),
                    "100000".to_owned(),
                ],
                env: Default::default(),
                cwd: None,
            };
        })
        .open();
    window.step_until("the server", |h| has_text(h, "2 tools"));
    window.select_tool("tool_00000");
    window.step_until("the description", |h| has_text(h, "Section 0"));
    assert!(has_text(&window.harness, "more bytes not rendered"));
    assert!(
        !has_text(&window.harness, "Section 700"),
        "the end is not laid out"
    );
}

#[test]
fn a_resource_holding_json_is_shown_as_a_tree_on_request() {
    let Some(mut window) = Window::on_python_peer("json-resource") else {
        return;
    };
    window.tab("Resources");
    window.step_until("the resources listed", |h| has_text(h, "1 template"));
    window.click("settings");
    window.click("Read");
    window.step_until("the settings read", |h| h.query_by_label("Tree").is_some());
    window.click("Tree");
    window.step_until("the tree", |h| {
        h.query_by_role_and_label(egui::accesskit::Role::TreeItem, "limits")
            .is_some()
    });
    assert!(
        window.harness.query_by_label("Expand all").is_some(),
        "the tree has its toolbar"
    );
}

#[test]
fn a_read_case_and_a_prompt_case_show_their_answers_in_the_cases_tab() {
    let Some(entry) = crate::support::everything_entry() else {
        return;
    };
    let Some(mut window) = Window::on_everything("feature-cases") else {
        return;
    };
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("features.toml");
    std::fs::write(
        &file,
        format!(
            "[server]\nstdio = \"node {}\"\n\n\
             [[case]]\nname = \"the fifth text resource\"\n\
             resource = \"demo://resource/dynamic/text/5\"\n\
             [case.expect]\ntext_contains = [\"Resource 5\"]\n\n\
             [[case]]\nname = \"weather in Lyon\"\nprompt = \"args-prompt\"\n\
             arguments = {{ city = \"Lyon\" }}\n\
             [case.expect]\ntext_contains = [\"Paris\"]\n",
            entry.display()
        ),
    )
    .unwrap();
    window.tab("Cases");
    window
        .harness
        .get_by_label("Case file")
        .set_text_value_accesskit(&file.display().to_string());
    window.harness.run_ok();
    window.click("Open");
    window.step_until("the cases listed", |h| {
        has_text(h, "the fifth text resource")
    });
    window.click("Run all");
    window.step_until("the run's tally", |h| has_text(h, "1 passed, 1 failed"));
    window.click_containing("the fifth text resource");
    window.step_until("the read shown as the Resources tab shows one", |h| {
        has_text(h, "embedded resource") && has_text(h, "Resource 5")
    });
    window.click_containing("weather in Lyon");
    window.step_until("the prompt's messages and why it failed", |h| {
        has_text(h, "user") && has_text(h, "Lyon") && has_text(h, "Paris")
    });
}
