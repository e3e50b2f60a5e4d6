//! The model without a window: actions and events in, state out.

use std::{sync::Arc, time::Duration};

use serde_json::json;

use super::{
    Action, BackendEvent, CallAction, CallFailure, CallState, ConnectionStatus, DEMO_SERVER,
    HistoryAction, HistoryStatus, ImportAction, Model, ModelOptions, ServerAction, ToolChanges,
    ToolKey, backend::ToolListUpdate,
};
use toolscope_core::session::{
    ProtocolTap, ServerConfig, ServerSummary, ToolCatalog, transports::tap::TapLimits,
};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn model(runtime: &tokio::runtime::Runtime, settings: Option<std::path::PathBuf>) -> Model {
    Model::new(
        runtime.handle().clone(),
        Arc::new(|| {}),
        ModelOptions {
            demo: ServerConfig::stdio_from_command_line("toolscope demo-server").unwrap(),
            settings_path: settings,
            connect_at_start: false,
            history: None,
            interfaces_dir: None,
            import_files: None,
            secrets: None,
        },
    )
}

fn catalog(tools: serde_json::Value) -> Arc<ToolCatalog> {
    let mut catalog = ToolCatalog::default();
    catalog.add_page(&json!({ "tools": tools }), true);
    Arc::new(catalog)
}

fn summary() -> ServerSummary {
    ServerSummary {
        protocol_version: "2026-07-28".to_owned(),
        lifecycle: "server/discover",
        lifecycle_reason: None,
        name: Some("demo".to_owned()),
        title: None,
        version: Some("1".to_owned()),
        capabilities: json!({}),
        instructions: None,
    }
}

/// Waits (on the condition, not a timer) until the model holds what `done` asks.
fn drain_until(model: &mut Model, mut done: impl FnMut(&Model) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !done(model) {
        assert!(std::time::Instant::now() < deadline, "timed out");
        model.drain_events(Duration::from_millis(10));
        std::thread::yield_now();
    }
}

#[test]
fn connection_and_tool_list_events_update_the_servers() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    model.on_event(BackendEvent::Connected {
        server: DEMO_SERVER,
        summary: summary(),
        tap: ProtocolTap::new(TapLimits::default(), None),
    });
    assert!(model.server(DEMO_SERVER).unwrap().is_connected());
    let first = catalog(json!([
        {"name": "echo", "inputSchema": {"type": "object"}},
        {"name": "add", "inputSchema": {"type": "object"}},
        {"name": "add", "inputSchema": {"type": "object"}, "description": "a twin"}
    ]));
    model.on_event(BackendEvent::Tools {
        server: DEMO_SERVER,
        result: Ok(ToolListUpdate {
            catalog: first.clone(),
            changes: None,
        }),
    });
    let server = model.server(DEMO_SERVER).unwrap();
    assert_eq!(server.selected_tool, Some(1), "add is picked first");
    // Two tools share a name: selecting the second selects that one only.
    model.apply(Action::Calls(CallAction::SelectTool {
        server: DEMO_SERVER,
        index: 2,
    }));
    let (_, tool) = model.selected_tool().unwrap();
    assert_eq!(tool.description.as_deref(), Some("a twin"));

    let second = catalog(json!([
        {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {}}}}
    ]));
    let changes = ToolChanges::between(&first, &second);
    let before = model.tool_revision(&ToolKey::new(DEMO_SERVER, "add"));
    model.on_event(BackendEvent::Tools {
        server: DEMO_SERVER,
        result: Ok(ToolListUpdate {
            catalog: second,
            changes: Some(changes),
        }),
    });
    let server = model.server(DEMO_SERVER).unwrap();
    assert_eq!(
        server.change_note.as_deref(),
        Some("The tool list changed: removed echo; changed add")
    );
    assert_eq!(
        server.selected_tool,
        Some(0),
        "the selection follows the name"
    );
    assert_ne!(
        model.tool_revision(&ToolKey::new(DEMO_SERVER, "add")),
        before
    );

    model.on_event(BackendEvent::Session {
        server: DEMO_SERVER,
        event: toolscope_core::session::SessionEvent::Closed {
            reason: "the server exited (exit status: 1)".to_owned(),
        },
    });
    assert!(matches!(
        model.server(DEMO_SERVER).unwrap().status,
        ConnectionStatus::Closed { .. }
    ));
}

#[test]
fn a_call_without_a_connection_fails_typed_and_late_results_are_dropped() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    let add = ToolKey::new(DEMO_SERVER, "add");
    model.apply(Action::Calls(CallAction::Call {
        tool: add.clone(),
        arguments: serde_json::Map::new(),
        force: false,
    }));
    assert!(model.is_busy());
    drain_until(&mut model, |m| {
        !m.run(&ToolKey::new(DEMO_SERVER, "add"))
            .unwrap()
            .is_running()
    });
    assert!(matches!(
        model.run(&add).unwrap().call,
        CallState::Failed(CallFailure::NotConnected)
    ));
    // Even a call that was never answered is kept in the history.
    drain_until(&mut model, |m| {
        matches!(m.history_status(), HistoryStatus::Open { calls: 1, .. })
    });
    // An event for a call nobody waits for changes nothing.
    model.on_event(BackendEvent::CallDone {
        call: 9_999,
        result: Err(CallFailure::Cancelled),
    });
    assert!(matches!(
        model.run(&add).unwrap().call,
        CallState::Failed(CallFailure::NotConnected)
    ));
    assert!(!model.is_busy());
}

#[test]
fn servers_and_settings_are_saved_by_one_writer() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    {
        let mut model = model(&runtime, Some(path.clone()));
        for seconds in 1..=50 {
            model.apply(Action::SetTimeout(f64::from(seconds)));
        }
        model.apply(Action::Servers(ServerAction::Save {
            client: Default::default(),
            id: None,
            name: "mine".to_owned(),
            config: ServerConfig::stdio_from_command_line("python3 srv.py").unwrap(),
            connect_at_start: false,
        }));
        let mine = model.selected_server_id();
        assert!(
            matches!(
                model.server(mine).unwrap().status,
                ConnectionStatus::Connecting { .. }
            ),
            "saving a new server connects it"
        );
        assert_ne!(mine, DEMO_SERVER);
        model.apply(Action::Servers(ServerAction::Remove(DEMO_SERVER)));
        assert!(model.server(DEMO_SERVER).is_some(), "the demo stays");
        // The era a server spoke is remembered, so a legacy one skips server/discover.
        let mut legacy = summary();
        legacy.protocol_version = "2025-11-25".to_owned();
        model.on_event(BackendEvent::Connected {
            server: mine,
            summary: legacy,
            tap: ProtocolTap::new(TapLimits::default(), None),
        });
    }
    let (settings, problem) = toolscope_core::settings::Settings::load(&path);
    assert!(problem.is_none());
    assert_eq!(settings.timeout_seconds, 50.0);
    assert_eq!(settings.servers.len(), 1);
    assert!(!settings.servers[0].connect_at_start);
    assert_eq!(
        settings.protocol_eras.get("mine"),
        Some(&toolscope_core::analysis::ProtocolEra::Legacy)
    );
    let mut model = model(&runtime, Some(path));
    assert_eq!(model.servers().len(), 2, "the saved server is back");
    let mine = model.servers()[1].id;
    model.apply(Action::Servers(ServerAction::Remove(mine)));
    assert_eq!(model.servers().len(), 1);
}

#[test]
fn results_off_screen_are_kept_small_and_come_back_whole() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    model.on_event(BackendEvent::Tools {
        server: DEMO_SERVER,
        result: Ok(ToolListUpdate {
            catalog: catalog(json!([
                {"name": "add", "inputSchema": {"type": "object"}},
                {"name": "big", "inputSchema": {"type": "object"}}
            ])),
            changes: None,
        }),
    });
    let big = ToolKey::new(DEMO_SERVER, "big");
    model.apply(Action::Calls(CallAction::SelectTool {
        server: DEMO_SERVER,
        index: 1,
    }));
    model.apply(Action::Calls(CallAction::Call {
        tool: big.clone(),
        arguments: serde_json::Map::new(),
        force: false,
    }));
    let CallState::Running { id, .. } = model.run(&big).unwrap().call else {
        panic!("the call runs");
    };
    let items: Vec<u64> = (0..10_000).collect();
    let structured = json!({"items": items});
    let outcome = toolscope_core::session::CallOutcome {
        tool: "big".to_owned(),
        arguments: json!({}),
        request_id: "1".to_owned(),
        response: toolscope_core::session::RawResponse::new_result(
            "1",
            &json!({"content": [], "structuredContent": structured}),
        ),
        duration: Duration::ZERO,
        duplicate_responses: 0,
        rounds: Default::default(),
    };
    let record = super::call_record::prepare_record(
        id,
        DEMO_SERVER,
        outcome,
        None,
        "2026-07-28".into(),
        4096,
    );
    model.on_event(BackendEvent::CallDone {
        call: id,
        result: Ok(Arc::new(record)),
    });
    assert!(
        model.run(&big).unwrap().last_record.is_some(),
        "shown whole"
    );

    model.apply(Action::Calls(CallAction::SelectTool {
        server: DEMO_SERVER,
        index: 0,
    }));
    assert!(model.run(&big).unwrap().result_pending());
    drain_until(&mut model, |m| m.run(&big).unwrap().stored.is_some());
    let run = model.run(&big).unwrap();
    assert!(run.last_record.is_none(), "not kept whole off screen");
    assert!(run.stored.as_ref().unwrap().size() < 60_000);

    model.apply(Action::Calls(CallAction::SelectTool {
        server: DEMO_SERVER,
        index: 1,
    }));
    drain_until(&mut model, |m| m.run(&big).unwrap().last_record.is_some());
    let record = model.run(&big).unwrap().last_record.clone().unwrap();
    assert_eq!(
        record.structured_content().map(|v| v.to_value()),
        Some(structured)
    );
    assert_eq!(record.id, id);
    drop(record);

    // Leaving again keeps the small form it already has, without compacting again.
    model.apply(Action::Calls(CallAction::SelectTool {
        server: DEMO_SERVER,
        index: 0,
    }));
    let run = model.run(&big).unwrap();
    assert!(run.last_record.is_none() && run.settling.is_none() && run.stored.is_some());
}

#[test]
fn a_tool_with_invalid_header_annotations_is_sent_only_when_insisted() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    let mut catalog = ToolCatalog::default();
    catalog.add_page(
        &json!({"tools": [{
            "name": "route",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "object", "x-mcp-header": "Region"}
            }}
        }]}),
        true,
    );
    assert!(
        catalog.tools[0].invalid_headers.is_some(),
        "the fixture is invalid"
    );
    model.on_event(BackendEvent::Tools {
        server: DEMO_SERVER,
        result: Ok(ToolListUpdate {
            catalog: Arc::new(catalog),
            changes: None,
        }),
    });
    let route = ToolKey::new(DEMO_SERVER, "route");
    model.apply(Action::Calls(CallAction::Call {
        tool: route.clone(),
        arguments: serde_json::Map::new(),
        force: false,
    }));
    assert!(matches!(
        model.run(&route).unwrap().call,
        CallState::Failed(CallFailure::Excluded { .. })
    ));
    assert!(!model.is_busy(), "nothing was sent");
    model.apply(Action::Calls(CallAction::Call {
        tool: route.clone(),
        arguments: serde_json::Map::new(),
        force: true,
    }));
    assert!(
        model.run(&route).unwrap().is_running(),
        "sent when insisted"
    );
}

#[test]
fn the_history_is_listed_a_call_is_shown_as_it_was_and_notes_are_kept() {
    use toolscope_core::history::{CallQuery, NewCall, ResponseText, Verdict};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite3");
    let message = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"result":3}}}"#;
    let recorded = |tool: &str, server: &str| NewCall {
        kind: Default::default(),
        client: None,
        started_at: "2026-12-01T10:00:00.000Z".to_owned(),
        duration_ms: Some(5),
        server: server.to_owned(),
        server_version: Some("0.1.0".to_owned()),
        protocol_version: Some("2026-07-28".to_owned()),
        server_info: None,
        tool: tool.to_owned(),
        arguments: r#"{"a":1,"b":2}"#.to_owned(),
        request_id: Some("4".to_owned()),
        response: Some(ResponseText::Owned(message.to_owned())),
        duplicate_responses: 0,
        output_schema: Some(r#"{"type":"object","required":["result"]}"#.to_owned()),
        listed: true,
        verdict: Verdict::Ok,
        failure: None,
        rounds: None,
    };
    let (add, elsewhere) = {
        let mut store = toolscope_core::history::open_store(
            &toolscope_core::history::HistoryLocation::File(path.clone()),
            &toolscope_core::history::RecordedBy::here(None),
        )
        .unwrap();
        let add = store.record(&recorded("add", "Built-in demo")).unwrap();
        let elsewhere = store
            .record(&recorded("add", "a server I removed"))
            .unwrap();
        (add, elsewhere)
    };
    let runtime = runtime();
    let mut model = Model::new(
        runtime.handle().clone(),
        Arc::new(|| {}),
        ModelOptions {
            demo: ServerConfig::stdio_from_command_line("toolscope demo-server").unwrap(),
            settings_path: None,
            connect_at_start: false,
            history: Some(toolscope_core::history::HistoryLocation::File(path.clone())),
            interfaces_dir: None,
            import_files: None,
            secrets: None,
        },
    );
    model.apply(Action::History(HistoryAction::Query(CallQuery {
        server: Some("Built-in demo".to_owned()),
        ..CallQuery::default()
    })));
    drain_until(&mut model, |m| !m.history_browser().loading);
    let listed: Vec<i64> = model.history_browser().calls.iter().map(|c| c.id).collect();
    assert_eq!(listed, [add]);
    // Another query replaces the list (the old one is freed in the background).
    model.apply(Action::History(HistoryAction::Query(CallQuery::default())));
    drain_until(&mut model, |m| !m.history_browser().loading);
    assert_eq!(model.history_browser().calls.len(), 2);
    model.apply(Action::History(HistoryAction::Query(CallQuery {
        server: Some("Built-in demo".to_owned()),
        ..CallQuery::default()
    })));
    drain_until(&mut model, |m| !m.history_browser().loading);
    let listed: Vec<i64> = model.history_browser().calls.iter().map(|c| c.id).collect();
    assert_eq!(listed, [add]);

    model.apply(Action::History(HistoryAction::Select(Some(add))));
    drain_until(&mut model, |m| m.history_browser().shown.is_some());
    let shown = model.history_browser().shown.clone().unwrap();
    assert_eq!(
        shown.structured_content().map(|v| v.to_value()),
        Some(json!({"result": 3}))
    );
    assert!(shown.analysis.is_conforming_success());
    assert_eq!(model.history_browser().entry.as_ref().unwrap().id, add);

    model.apply(Action::History(HistoryAction::SetNote {
        id: add,
        note: "the wrapper is expected".to_owned(),
    }));
    assert_eq!(
        model.history_browser().calls[0].note,
        "the wrapper is expected"
    );

    // A call made on a server that is not in the window cannot be run again: it says so.
    model.apply(Action::History(HistoryAction::Select(Some(elsewhere))));
    drain_until(&mut model, |m| m.history_browser().entry.is_some());
    model.apply(Action::History(HistoryAction::RunAgain {
        id: elsewhere,
        arguments: None,
    }));
    assert!(model.banner().unwrap().contains("not one of your servers"));
    drop(model);
    let kept = toolscope_core::history::open_store(
        &toolscope_core::history::HistoryLocation::File(path),
        &toolscope_core::history::RecordedBy::here(None),
    )
    .unwrap()
    .get(add)
    .unwrap()
    .unwrap();
    assert_eq!(kept.note, "the wrapper is expected");
}

#[test]
fn questions_from_a_server_wait_are_answered_and_a_flood_is_refused() {
    use toolscope_core::session::{AskOrigin, AskReply, ServerAsk};
    let runtime = runtime();
    let mut model = model(&runtime, None);
    let ask = || ServerAsk {
        method: "elicitation/create".to_owned(),
        params: json!({"message": "Name?"}),
        origin: AskOrigin::Request { id: "1".to_owned() },
    };
    let (reply, mut answered) = tokio::sync::oneshot::channel();
    model.on_event(BackendEvent::Asked {
        server: DEMO_SERVER,
        ask: ask(),
        reply,
    });
    let id = model.pending_asks().first().unwrap().id;
    let accept = AskReply::Result {
        result: json!({"action": "accept", "content": {"name": "Ada"}}),
    };
    model.apply(Action::AnswerAsk {
        id,
        reply: accept.clone(),
    });
    assert_eq!(answered.try_recv().ok(), Some(accept));
    assert!(model.pending_asks().is_empty());

    let mut waiting = Vec::new();
    for _ in 0..25 {
        let (reply, receiver) = tokio::sync::oneshot::channel();
        model.on_event(BackendEvent::Asked {
            server: DEMO_SERVER,
            ask: ask(),
            reply,
        });
        waiting.push(receiver);
    }
    assert_eq!(model.pending_asks().count_for(DEMO_SERVER), 20);
    let mut refused = 0;
    for receiver in &mut waiting {
        if matches!(receiver.try_recv(), Ok(AskReply::Refused { .. })) {
            refused += 1;
        }
    }
    assert_eq!(refused, 5, "the questions past the cap are refused at once");
    // A server disconnected takes its questions with it; the session hears no answer.
    model.apply(Action::Servers(ServerAction::Disconnect(DEMO_SERVER)));
    assert!(model.pending_asks().is_empty());
    assert!(
        waiting[0].try_recv().is_err(),
        "the first question got no answer: its sender is gone"
    );
}

/// A settings file holding `servers`, in a temporary folder.
fn settings_with(servers: serde_json::Value) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let settings_path = dir.path().join("settings.json");
    std::fs::write(&settings_path, json!({ "servers": servers }).to_string()).unwrap();
    (dir, settings_path)
}

#[test]
fn secret_header_values_move_out_of_the_settings_file_and_back_on_connect() {
    let runtime = runtime();
    // Settings from before secrets moved out: the token is in the file.
    let (dir, settings_path) = settings_with(
        json!([{"name": "remote", "connect_at_start": false, "config": {
        "transport": "http", "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer s3cret", "X-Trace": "on"}}}]),
    );
    let place = toolscope_core::settings::SecretsPlace::new(
        toolscope_core::secret_store::Preference::File,
        dir.path().to_owned(),
    );
    let new_model = || {
        Model::new(
            runtime.handle().clone(),
            Arc::new(|| {}),
            ModelOptions {
                demo: ServerConfig::stdio_from_command_line("toolscope demo-server").unwrap(),
                settings_path: Some(settings_path.clone()),
                connect_at_start: false,
                history: None,
                interfaces_dir: None,
                import_files: None,
                secrets: Some(place.clone()),
            },
        )
    };
    drop(new_model());
    let file = std::fs::read_to_string(&settings_path).unwrap();
    assert!(!file.contains("s3cret"), "{file}");
    assert!(
        file.contains("toolscope-secret:") && file.contains("\"X-Trace\": \"on\""),
        "{file}"
    );
    let store = place.store_blocking().unwrap();
    let saved: serde_json::Value = serde_json::from_str(&file).unwrap();
    let reference = saved["servers"][0]["config"]["headers"]["Authorization"]
        .as_str()
        .unwrap()
        .to_owned();
    let key =
        reference.trim_start_matches(toolscope_core::settings::kept_secrets::REFERENCE_PREFIX);
    assert_eq!(store.get(key).unwrap().as_deref(), Some("Bearer s3cret"));

    // A value gone from the store is named when the server connects.
    store.delete(key).unwrap();
    let mut model = new_model();
    let id = model
        .servers()
        .iter()
        .find(|server| server.name == "remote")
        .unwrap()
        .id;
    model.apply(Action::Servers(ServerAction::Connect(id)));
    drain_until(&mut model, |model| {
        matches!(
            model.server(id).unwrap().status,
            ConnectionStatus::Failed { .. }
        )
    });
    let ConnectionStatus::Failed { message } = &model.server(id).unwrap().status else {
        unreachable!()
    };
    assert!(
        message.contains("\"Authorization\"") && message.contains("Enter it again"),
        "{message}"
    );
}

#[test]
fn a_server_is_copied_as_another_clients_entry_with_or_without_its_secrets() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    let config = ServerConfig::Http {
        url: "https://mcp.example.com/mcp".to_owned(),
        headers: [("Authorization".to_owned(), "Bearer t0k".to_owned())].into(),
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
    };
    for (include_secrets, expected) in [(false, "Bearer ${AUTHORIZATION}"), (true, "Bearer t0k")] {
        model.apply(Action::Servers(ServerAction::CopyAs {
            name: "remote".to_owned(),
            config: config.clone(),
            client: toolscope_core::import::Client::Cursor,
            include_secrets,
        }));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let text = loop {
            model.drain_events(Duration::from_millis(10));
            if let Some(text) = model.take_clipboard() {
                break text;
            }
            assert!(std::time::Instant::now() < deadline, "nothing copied");
        };
        assert!(
            text.contains("\"remote\"") && text.contains(expected),
            "{text}"
        );
        assert!(
            model
                .banner()
                .is_some_and(|banner| banner.starts_with("Copied remote as a Cursor entry"))
        );
    }
}

#[test]
fn a_reimport_shows_what_changed_and_updates_the_saved_server() {
    let runtime = runtime();
    let mut model = model(&runtime, None);
    let found = |args: &[&str]| toolscope_core::import::FoundServer {
        name: "files".to_owned(),
        client: toolscope_core::import::Client::Cursor,
        path: "/home/u/.cursor/mcp.json".into(),
        scope: toolscope_core::import::Scope::User,
        entry: Ok(toolscope_core::import::ReadEntry {
            config: ServerConfig::Stdio {
                command: "npx".to_owned(),
                args: args.iter().map(|arg| (*arg).to_owned()).collect(),
                env: Default::default(),
                cwd: None,
            },
            placeholders: Vec::new(),
            notes: Vec::new(),
            disabled: false,
        }),
        inputs: Vec::new(),
    };
    model.on_event(BackendEvent::ServersFound {
        servers: vec![found(&["fs@1"])],
        unreadable: Vec::new(),
        watched: Vec::new(),
    });
    model.apply(Action::Import(ImportAction::Import(0)));
    let listed = &model.found_servers().servers()[0];
    assert!(model.is_imported(listed));
    assert!(model.earlier_import(listed).is_none());
    // Cursor's file changed since.
    model.on_event(BackendEvent::ServersFound {
        servers: vec![found(&["fs@2", "--read-only"])],
        unreadable: Vec::new(),
        watched: Vec::new(),
    });
    let listed = &model.found_servers().servers()[0];
    let (id, name, changes) = model.earlier_import(listed).expect("the earlier import");
    assert_eq!(name, "files");
    assert_eq!(changes, ["command line: npx fs@1 → npx fs@2 --read-only"]);
    model.apply(Action::Import(ImportAction::Update(0)));
    assert_eq!(
        model
            .servers()
            .iter()
            .filter(|server| server.name == "files")
            .count(),
        1
    );
    assert_eq!(
        model.server(id).unwrap().config.describe(),
        "npx fs@2 --read-only"
    );
    assert!(model.is_imported(&model.found_servers().servers()[0]));
}

#[test]
fn input_placeholders_are_asked_for_and_used_for_the_connection() {
    let runtime = runtime();
    let (_dir, settings_path) = settings_with(json!([{"name": "vs", "connect_at_start": false,
        "config": {"transport": "stdio", "command": "definitely-not-a-program-here",
            "env": {"API_KEY": "${input:api-key}"}}}]));
    let mut model = model(&runtime, Some(settings_path));
    let id = model.servers().iter().find(|s| s.name == "vs").unwrap().id;
    model.apply(Action::Servers(ServerAction::Connect(id)));
    let server = model.server(id).unwrap();
    assert_eq!(server.asked_inputs, ["api-key"]);
    assert!(
        matches!(&server.status, ConnectionStatus::Failed { message } if message.contains("${input:api-key}"))
    );
    model.apply(Action::Servers(ServerAction::GiveInputs {
        server: id,
        values: vec![("api-key".to_owned(), "k1".to_owned())],
    }));
    let server = model.server(id).unwrap();
    assert!(server.asked_inputs.is_empty());
    // The value filled the placeholder: the connection went on to start the program.
    drain_until(&mut model, |model| {
        matches!(
            model.server(id).unwrap().status,
            ConnectionStatus::Failed { .. }
        )
    });
    let ConnectionStatus::Failed { message } = &model.server(id).unwrap().status else {
        unreachable!()
    };
    assert!(message.contains("no such program"), "{message}");
}
