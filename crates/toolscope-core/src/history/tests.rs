use super::*;
use crate::history::{LogSide, NewLogLine, SessionEnding};

fn call(tool: &str, verdict: Verdict, response: &str) -> NewCall {
    NewCall {
        kind: Default::default(),
        client: None,
        started_at: started_ago(std::time::Duration::ZERO),
        duration_ms: Some(12),
        server: "Built-in demo".to_owned(),
        server_version: Some("0.1.0".to_owned()),
        protocol_version: Some("2026-07-28".to_owned()),
        server_info: None,
        tool: tool.to_owned(),
        arguments: r#"{"a":1}"#.to_owned(),
        request_id: Some("3".to_owned()),
        response: Some(ResponseText::Owned(response.to_owned())),
        duplicate_responses: 0,
        output_schema: None,
        listed: true,
        verdict,
        failure: None,
        rounds: None,
    }
}

#[test]
fn records_lists_newest_first_and_reads_a_call_whole() {
    let mut store = in_memory_store().unwrap();
    let first = store
        .record(&call("add", Verdict::Ok, r#"{"id":3}"#))
        .unwrap();
    let second = store
        .record(&call("divide", Verdict::ToolError, r#"{"id":4}"#))
        .unwrap();
    let listed = store.list(&CallQuery::default()).unwrap();
    assert_eq!(
        listed.iter().map(|c| c.id).collect::<Vec<_>>(),
        [second, first]
    );
    assert!(
        listed[0].response.is_none(),
        "lists leave the big texts out"
    );
    let whole = store.get(first).unwrap().unwrap();
    assert_eq!(whole.response.as_deref(), Some(r#"{"id":3}"#));
    assert_eq!(whole.arguments, r#"{"a":1}"#);
    assert_eq!(whole.verdict, Verdict::Ok);
    assert!(store.get(999).unwrap().is_none());
    let newer = store
        .list(&CallQuery {
            after_id: Some(first),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(newer.iter().map(|c| c.id).collect::<Vec<_>>(), [second]);
}

#[test]
fn filters_by_server_tool_verdict_and_text() {
    let mut store = in_memory_store().unwrap();
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    store
        .record(&call("divide", Verdict::ToolError, "{}"))
        .unwrap();
    let mut other = call("add", Verdict::Ok, "{}");
    other.server = "python3 server.py".to_owned();
    other.arguments = r#"{"city":"Zürich"}"#.to_owned();
    store.record(&other).unwrap();
    let count = |query: CallQuery| store.list(&query).unwrap().len();
    assert_eq!(count(CallQuery::default()), 3);
    let tool = |t: &str| CallQuery {
        tool: Some(t.to_owned()),
        ..CallQuery::default()
    };
    assert_eq!(count(tool("add")), 2);
    assert_eq!(
        count(CallQuery {
            verdict: Some(Verdict::ToolError),
            ..CallQuery::default()
        }),
        1
    );
    assert_eq!(
        count(CallQuery {
            server: Some("python3 server.py".to_owned()),
            tool: Some("add".to_owned()),
            ..CallQuery::default()
        }),
        1
    );
    let text = |t: &str| CallQuery {
        text: Some(t.to_owned()),
        ..CallQuery::default()
    };
    assert_eq!(count(text("ZÜRICH".to_lowercase().as_str())), 1);
    assert_eq!(count(text("DIVIDE")), 1);
    assert_eq!(count(text("nothing like it")), 0);
    assert_eq!(
        count(CallQuery {
            limit: Some(2),
            ..CallQuery::default()
        }),
        2
    );
}

#[test]
fn a_note_is_kept() {
    let mut store = in_memory_store().unwrap();
    let id = store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    assert!(
        store
            .set_note(id, "checked with Ana: wrapping is expected")
            .unwrap()
    );
    assert!(!store.set_note(id + 1, "no such call").unwrap());
    assert_eq!(
        store.get(id).unwrap().unwrap().note,
        "checked with Ana: wrapping is expected"
    );
    let found = store
        .list(&CallQuery {
            text: Some("ana".to_owned()),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(found.len(), 1);
}

#[test]
fn over_the_cap_the_oldest_calls_go_and_the_newest_stays() {
    let mut store = in_memory_store().unwrap();
    store.set_cap_bytes(1_000).unwrap();
    let body = "x".repeat(300);
    let ids: Vec<i64> = (0..6)
        .map(|n| {
            store
                .record(&call(&format!("t{n}"), Verdict::Ok, &body))
                .unwrap()
        })
        .collect();
    let kept: Vec<i64> = store
        .list(&CallQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(
        kept,
        [ids[5], ids[4], ids[3]],
        "300+7 bytes each under a 1,000-byte cap"
    );
    assert!(store.total_bytes().unwrap() <= 1_000);
    // One call bigger than the cap is still kept: it is the newest.
    let huge = store
        .record(&call("huge", Verdict::Ok, &"y".repeat(5_000)))
        .unwrap();
    let kept: Vec<i64> = store
        .list(&CallQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(kept, [huge]);
}

#[test]
fn a_file_is_created_upgraded_shared_and_refused_when_newer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/history.sqlite3");
    let mut writer = open_file(&path).unwrap();
    let id = writer.record(&call("add", Verdict::Ok, "{}")).unwrap();
    // A second Toolscope (a CLI beside the window) reads and writes the same file.
    let mut other = open_file(&path).unwrap();
    assert_eq!(other.get(id).unwrap().unwrap().tool, "add");
    other.record(&call("divide", Verdict::Ok, "{}")).unwrap();
    assert_eq!(writer.count().unwrap(), 2);
    drop((writer, other));
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection.pragma_update(None, "user_version", 99).unwrap();
    drop(connection);
    let error = open_file(&path).unwrap_err().to_string();
    assert!(error.contains("newer Toolscope"), "{error}");
    assert!(error.contains("history.sqlite3"), "{error}");
}

#[test]
fn the_writer_thread_records_lists_and_reports_failures() {
    let (events, received) = std::sync::mpsc::channel();
    let writer = HistoryWriter::start(None, RecordedBy::tester(), move |event| {
        let _ = events.send(event);
    });
    writer.record(call("add", Verdict::Ok, "{}"), 7);
    writer.list(CallQuery::default(), 8);
    writer.get(42);
    drop(writer);
    let events: Vec<HistoryEvent> = received.iter().collect();
    assert!(matches!(events[0], HistoryEvent::Opened { calls: 0, .. }));
    assert!(matches!(
        events[1],
        HistoryEvent::Recorded { tag: 7, id: 1 }
    ));
    assert!(matches!(&events[2], HistoryEvent::Listed { tag: 8, calls } if calls.len() == 1));
    assert!(
        matches!(&events[3], HistoryEvent::NotLoaded { id: 42, reason } if reason.contains("#42"))
    );

    // A folder that cannot be created: one clear failure, and requests are not lost loudly.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let (events, received) = std::sync::mpsc::channel();
    let writer = HistoryWriter::start(
        Some(HistoryLocation::File(
            blocker.path().join("history.sqlite3"),
        )),
        RecordedBy::tester(),
        move |e| {
            let _ = events.send(e);
        },
    );
    writer.record(call("add", Verdict::Ok, "{}"), 1);
    drop(writer);
    let events: Vec<HistoryEvent> = received.iter().collect();
    assert_eq!(events.len(), 1);
    assert!(matches!(&events[0], HistoryEvent::Failed(text) if text.contains("not recorded")));
}

#[test]
fn a_watched_history_reports_what_another_process_records_and_nothing_while_idle() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("history.sqlite3");
    let (events, received) = std::sync::mpsc::channel();
    let writer = HistoryWriter::start(
        Some(HistoryLocation::File(path.clone())),
        RecordedBy::tester(),
        move |event| {
            let _ = events.send(event);
        },
    );
    let wait = std::time::Duration::from_secs(5);
    assert!(matches!(
        received.recv_timeout(wait),
        Ok(HistoryEvent::Opened { .. })
    ));
    writer.watch_sessions(Some(10));
    let Ok(HistoryEvent::Sessions { stamp, .. }) = received.recv_timeout(wait) else {
        panic!("the watch reports where the history stands at once");
    };
    // Idle: several periods pass and nothing is reported (nothing to draw).
    assert!(received.recv_timeout(WATCH_PERIOD * 4).is_err());
    // Another process records a call: reported within a period or two.
    let mut other = open_file(&path).unwrap();
    other.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let Ok(HistoryEvent::Sessions { stamp: moved, .. }) = received.recv_timeout(wait) else {
        panic!("the call another process recorded is reported");
    };
    assert!(moved.newest_call > stamp.newest_call);
    // Not watched any more: a new call is not reported.
    writer.watch_sessions(None);
    other.record(&call("add", Verdict::Ok, "{}")).unwrap();
    assert!(received.recv_timeout(WATCH_PERIOD * 4).is_err());
}

#[test]
fn a_read_made_again_is_counted_on_its_row() {
    let mut store = in_memory_store().unwrap();
    let id = store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    assert_eq!(store.add_repeat(id).unwrap(), Some(1));
    assert_eq!(store.add_repeat(id).unwrap(), Some(2));
    assert_eq!(store.count().unwrap(), 1, "no row of its own");
    let listed = store.list(&CallQuery::default()).unwrap();
    assert_eq!(listed[0].repeats, 2);
    assert_eq!(store.get(id).unwrap().unwrap().repeats, 2);
    assert_eq!(store.add_repeat(id + 1).unwrap(), None, "no such call");
}

#[test]
fn cancelled_calls_are_left_out_of_the_latency_figures() {
    let mut store = in_memory_store().unwrap();
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let mut cancelled = call("add", Verdict::Cancelled, "");
    cancelled.duration_ms = Some(60_000);
    store.record(&cancelled).unwrap();
    let figures = store.latency(&CallQuery::default()).unwrap();
    assert_eq!((figures[0].calls, figures[0].max_ms), (1, 12));
}

#[test]
fn search_folds_case_beyond_ascii() {
    let mut store = in_memory_store().unwrap();
    let mut call = call("Überprüfen", Verdict::Ok, "{}");
    call.arguments = r#"{"Stadt":"ZÜRICH"}"#.to_owned();
    store.record(&call).unwrap();
    for text in ["überprüfen", "ÜBERPRÜFEN", "zürich"] {
        let found = store
            .list(&CallQuery {
                text: Some(text.to_owned()),
                ..CallQuery::default()
            })
            .unwrap();
        assert_eq!(found.len(), 1, "{text}");
    }
}

#[test]
fn several_toolscopes_opening_a_new_history_at_once_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..10 {
        let path = dir.path().join(format!("history-{round}.sqlite3"));
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut store = open_file(&path)?;
                    store.record(&call("add", Verdict::Ok, "{}"))
                })
            })
            .collect();
        for opener in openers {
            opener.join().unwrap().unwrap();
        }
        assert_eq!(open_file(&path).unwrap().count().unwrap(), 4);
    }
}

#[cfg(unix)]
#[test]
fn the_history_file_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite3");
    open_file(&path).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn the_writer_sets_the_cap_reads_several_calls_and_opens_a_recording() {
    let folder = tempfile::tempdir().unwrap();
    let (events, received) = std::sync::mpsc::channel();
    let writer = HistoryWriter::start(None, RecordedBy::tester(), move |event| {
        let _ = events.send(event);
    });
    for tool in ["a", "b", "c"] {
        writer.record(
            call(
                tool,
                Verdict::Ok,
                &format!("{{\"id\":3,\"result\":{{\"tool\":\"{tool}\"}}}}"),
            ),
            0,
        );
    }
    writer.get_many(vec![3, 1, 9], 5);
    // So small that only the newest call stays.
    writer.set_cap(1);
    drop(writer);
    let events: Vec<HistoryEvent> = received.iter().collect();
    let many = events.iter().find_map(|event| match event {
        HistoryEvent::LoadedMany { tag: 5, calls } => Some(calls),
        _ => None,
    });
    let error = many.unwrap().as_ref().unwrap_err().to_string();
    assert!(error.contains("#9"), "a missing call is named: {error}");
    assert!(events.iter().any(|event| matches!(
        event,
        HistoryEvent::CapSet {
            cap_bytes: 1,
            calls: 1
        }
    )));

    // The calls written as a recording open in a writer of their own.
    let mut store = in_memory_store().unwrap();
    for tool in ["a", "b"] {
        store
            .record(&call(tool, Verdict::Ok, r#"{"id":3,"result":{}}"#))
            .unwrap();
    }
    let calls: Vec<StoredCall> = [1, 2]
        .iter()
        .map(|&id| store.get(id).unwrap().unwrap())
        .collect();
    let path = folder.path().join("session.json");
    let mut file = std::fs::File::create(&path).unwrap();
    write_recording(&calls, "2026-12-01T00:00:00Z", &mut file).unwrap();
    let (events, received) = std::sync::mpsc::channel();
    let writer = HistoryWriter::start_recording(path.clone(), move |event| {
        let _ = events.send(event);
    });
    writer.list(CallQuery::default(), 1);
    drop(writer);
    let events: Vec<HistoryEvent> = received.iter().collect();
    assert!(
        matches!(&events[0], HistoryEvent::Opened { calls: 2, location: shown, .. } if shown.file() == Some(path.as_path()))
    );
    assert!(matches!(&events[1], HistoryEvent::Listed { calls, .. } if calls[0].tool == "b"));
}

#[test]
fn the_total_size_follows_records_deletions_and_an_upgrade() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("history.sqlite3");
    // A history of schema version 1 with two calls, as an older Toolscope left it.
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        connection.execute_batch(schema::FIRST_STEP).unwrap();
        connection.pragma_update(None, "user_version", 1).unwrap();
        for id in [1, 2] {
            connection
                .execute(
                    "INSERT INTO calls (id, started_at, server, tool, arguments, verdict, bytes) \
                     VALUES (?1, 't', 's', 'add', '{}', 'ok', 100)",
                    [id],
                )
                .unwrap();
        }
    }
    let mut store = open_file(&path).unwrap();
    assert_eq!(store.total_bytes().unwrap(), 200, "counted on the upgrade");
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let recorded = store.total_bytes().unwrap();
    assert!(recorded > 200, "{recorded}");
    store.set_cap_bytes(recorded - 200).unwrap();
    assert_eq!(store.count().unwrap(), 1, "the cap keeps the newest");
    assert_eq!(store.total_bytes().unwrap(), recorded - 200);
}

#[test]
fn reads_and_prompts_are_kept_with_their_kind_and_listed_by_it() {
    let mut store = in_memory_store().unwrap();
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let read = NewCall {
        kind: CallKind::Read,
        ..call("demo://a", Verdict::Ok, "{}")
    };
    let read = store.record(&read).unwrap();
    let prompt = NewCall {
        kind: CallKind::Prompt,
        ..call("review", Verdict::Ok, "{}")
    };
    store.record(&prompt).unwrap();
    let reads = store
        .list(&CallQuery {
            kind: Some(CallKind::Read),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(reads.len(), 1);
    assert_eq!((reads[0].id, reads[0].kind), (read, CallKind::Read));
    let calls = store
        .list(&CallQuery {
            kind: Some(CallKind::Call),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(calls.len(), 1, "a tool call has no kind row and is a call");
    assert_eq!(store.get(read).unwrap().unwrap().kind, CallKind::Read);
    // A recording keeps the kind.
    let mut written = Vec::new();
    let whole: Vec<StoredCall> = [1, 2, 3]
        .into_iter()
        .map(|id| store.get(id).unwrap().unwrap())
        .collect();
    write_recording(&whole, "now", &mut written).unwrap();
    let mut copy = in_memory_store().unwrap();
    read_recording(copy.as_mut(), String::from_utf8(written).unwrap()).unwrap();
    let kinds: Vec<CallKind> = copy
        .list(&CallQuery::default())
        .unwrap()
        .iter()
        .map(|call| call.kind)
        .collect();
    assert_eq!(kinds, [CallKind::Prompt, CallKind::Read, CallKind::Call]);
}

#[test]
fn a_proxied_sessions_log_counts_toward_the_cap_and_goes_with_its_calls() {
    let mut store = in_memory_store().unwrap();
    let line = |text: &str| NewLogLine {
        at_ms: 1,
        side: LogSide::ToClient,
        text: text.to_owned(),
        flag: None,
        call_id: None,
    };
    let old = store
        .begin_proxy_session("srv", "2026-12-01T00:00:00Z")
        .unwrap();
    store
        .append_proxy_log(old, &[line(&"x".repeat(600))])
        .unwrap();
    let id = store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    store.link_call_to_session(id, old).unwrap();
    store
        .end_proxy_session(old, "2026-12-01T00:01:00Z", &SessionEnding::default())
        .unwrap();
    let bytes = store.total_bytes().unwrap();
    assert!(bytes >= 600, "the log is counted: {bytes}");
    // A running session's log stays while it runs, whatever the cap.
    let running = store
        .begin_proxy_session("srv", "2026-12-01T00:02:00Z")
        .unwrap();
    store.append_proxy_log(running, &[line("{}")]).unwrap();
    store.set_cap_bytes(100).unwrap();
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let left: Vec<i64> = store
        .proxy_sessions(10)
        .unwrap()
        .iter()
        .map(|session| session.id)
        .collect();
    assert_eq!(
        left,
        [running],
        "the ended session went with its call and log"
    );
    assert!(store.total_bytes().unwrap() < 100);
    assert_eq!(store.change_stamp().unwrap().sessions[0], running);
}

#[test]
fn a_sessions_log_is_read_from_any_position_whatever_else_was_logged_meanwhile() {
    let mut store = in_memory_store().unwrap();
    let line = |n: usize| NewLogLine {
        at_ms: n as u64,
        side: LogSide::ToClient,
        text: format!("line {n}"),
        flag: None,
        call_id: None,
    };
    let first = store
        .begin_proxy_session("a", "2026-12-01T00:00:00Z")
        .unwrap();
    let second = store
        .begin_proxy_session("b", "2026-12-01T00:00:00Z")
        .unwrap();
    // Two sessions logging at once: their lines' ids interleave.
    for n in 0..30_000 {
        let session = if n % 3 == 0 { second } else { first };
        store.append_proxy_log(session, &[line(n)]).unwrap();
    }
    let tail = store.proxy_log_from(first, 19_998, 5).unwrap();
    let texts: Vec<&str> = tail.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(
        texts,
        ["line 29998", "line 29999"],
        "the 20,000 lines of `a` end there"
    );
    let start = store.proxy_log_from(second, 0, 2).unwrap();
    assert_eq!(start[1].text, "line 3");
    assert!(store.proxy_log_from(first, 20_000, 5).unwrap().is_empty());
}
