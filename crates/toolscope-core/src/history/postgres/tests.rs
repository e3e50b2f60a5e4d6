//! The PostgreSQL history against a real server (a throwaway cluster these tests start).

use super::{PostgresStore, test_cluster};
use crate::history::{
    CallKind, CallQuery, CallStore, HistoryLocation, LogSide, NewCall, NewLogLine, RecordedBy,
    ResponseText, SessionDescription, SessionEnding, SessionStore, Verdict, started_ago,
};

fn by(machine: &str, person: &str) -> RecordedBy {
    RecordedBy {
        machine: machine.to_owned(),
        person: person.to_owned(),
    }
}

fn call(tool: &str, verdict: Verdict, response: &str) -> NewCall {
    NewCall {
        kind: CallKind::Call,
        client: None,
        started_at: started_ago(std::time::Duration::ZERO),
        duration_ms: Some(12),
        server: "Built-in demo".to_owned(),
        server_version: Some("0.1.0".to_owned()),
        protocol_version: Some("2026-07-28".to_owned()),
        server_info: Some(r#"{"name":"demo"}"#.to_owned()),
        tool: tool.to_owned(),
        arguments: r#"{"a":1,"b":"Ünïcode"}"#.to_owned(),
        request_id: Some("3".to_owned()),
        response: Some(ResponseText::Owned(response.to_owned())),
        duplicate_responses: 0,
        output_schema: Some(r#"{"type":"object"}"#.to_owned()),
        listed: true,
        verdict,
        failure: None,
        rounds: Some(r#"{"exchanges":[]}"#.to_owned()),
    }
}

/// A store on a fresh database of the shared test cluster (`None`: no PostgreSQL here).
fn fresh(
    hint: &str,
    recorded_by: RecordedBy,
) -> Option<(PostgresStore, crate::history::PostgresUrl)> {
    let cluster = test_cluster::shared()?;
    let url = cluster.new_database(hint);
    Some((PostgresStore::open(&url, Some(recorded_by)).unwrap(), url))
}

#[test]
fn calls_are_recorded_listed_read_whole_and_say_who_recorded_them() {
    let Some((mut store, url)) = fresh("calls", by("laptop", "ana")) else {
        return;
    };
    let first = store
        .record(&call("add", Verdict::Ok, r#"{"result":3}"#))
        .unwrap();
    let second = store
        .record(&call("divide", Verdict::ToolError, r#"{"isError":true}"#))
        .unwrap();
    assert!(second > first);
    assert_eq!(store.location(), &HistoryLocation::Postgres(url.clone()));

    let listed = store.list(&CallQuery::default()).unwrap();
    assert_eq!(
        listed.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
        ["divide", "add"]
    );
    assert_eq!(listed[0].machine.as_deref(), Some("laptop"));
    assert_eq!(listed[0].person.as_deref(), Some("ana"));
    assert!(
        listed[0].response.is_none(),
        "a list leaves the big texts out"
    );

    let whole = store.get(first).unwrap().unwrap();
    assert_eq!(whole.response.as_deref(), Some(r#"{"result":3}"#));
    assert_eq!(whole.arguments, r#"{"a":1,"b":"Ünïcode"}"#);
    assert_eq!(whole.rounds.as_deref(), Some(r#"{"exchanges":[]}"#));
    assert_eq!(whole.output_schema.as_deref(), Some(r#"{"type":"object"}"#));

    // Another person on another machine, into the same database.
    let mut other = PostgresStore::open(&url, Some(by("ci-runner", "ci"))).unwrap();
    other.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let only = |query: CallQuery| {
        store
            .list(&query)
            .unwrap()
            .iter()
            .map(|c| (c.tool.clone(), c.person.clone().unwrap_or_default()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        only(CallQuery {
            person: Some("ci".into()),
            ..CallQuery::default()
        }),
        [("add".to_owned(), "ci".to_owned())]
    );
    assert_eq!(
        only(CallQuery {
            machine: Some("laptop".into()),
            verdict: Some(Verdict::ToolError),
            ..CallQuery::default()
        }),
        [("divide".to_owned(), "ana".to_owned())]
    );
    assert_eq!(
        only(CallQuery {
            text: Some("ÜNÏ".into()),
            limit: Some(1),
            ..CallQuery::default()
        })
        .len(),
        1,
        "found in the arguments, case folded, the limit bound"
    );
    assert_eq!(
        only(CallQuery {
            after_id: Some(first),
            person: Some("ci".into()),
            ..CallQuery::default()
        }),
        [("add".to_owned(), "ci".to_owned())],
        "only the calls newer than an id"
    );

    assert!(store.set_note(first, "looks right").unwrap());
    assert!(!store.set_note(9_999, "none").unwrap());
    assert_eq!(store.add_repeat(first).unwrap(), Some(1));
    assert_eq!(store.add_repeat(first).unwrap(), Some(2));
    assert_eq!(store.add_repeat(9_999).unwrap(), None);
    let noted = store.get(first).unwrap().unwrap();
    assert_eq!((noted.note.as_str(), noted.repeats), ("looks right", 2));
    assert_eq!(store.count().unwrap(), 3);
    let figures = store.latency(&CallQuery::default()).unwrap();
    assert_eq!(figures[0].tool, "add");
    assert_eq!(figures[0].calls, 2);
}

#[test]
fn many_writers_at_once_lose_nothing_and_double_nothing() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("writers");
    let writers: Vec<_> = (0..4)
        .map(|n| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut store =
                    PostgresStore::open(&url, Some(by(&format!("m{n}"), "qa"))).unwrap();
                (0..25)
                    .map(|_| store.record(&call("add", Verdict::Ok, "{}")).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut ids: Vec<i64> = writers
        .into_iter()
        .flat_map(|writer| writer.join().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 100, "every id unique");
    let store = PostgresStore::open(&url, None).unwrap();
    assert_eq!(store.count().unwrap(), 100);
    let from_m2 = store
        .list(&CallQuery {
            machine: Some("m2".into()),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(from_m2.len(), 25);
}

#[test]
fn a_watching_reader_sees_another_writers_sessions_calls_and_log_through_announcements() {
    let Some((mut proxy, url)) = fresh("sessions", by("proxy-host", "ops")) else {
        return;
    };
    let window = PostgresStore::open(&url, Some(by("desk", "ana"))).unwrap();
    let quiet = window.change_stamp().unwrap();
    assert_eq!(window.change_stamp().unwrap(), quiet, "nothing moved");

    let session = proxy
        .begin_proxy_session("python3 server.py", &started_ago(std::time::Duration::ZERO))
        .unwrap();
    proxy
        .describe_proxy_session(
            session,
            &SessionDescription {
                client: Some("claude-ai 0.1".into()),
                protocol_version: Some("2025-11-25".into()),
                server_name: Some("weather\0".into()),
                server_version: Some("1.0".into()),
            },
        )
        .unwrap();
    let id = proxy
        .record(&NewCall {
            client: Some("claude-ai 0.1".into()),
            ..call("get_user", Verdict::Ok, "{}")
        })
        .unwrap();
    proxy.link_call_to_session(id, session).unwrap();
    let lines: Vec<NewLogLine> = (0..3)
        .map(|n| NewLogLine {
            at_ms: n,
            side: if n == 0 {
                LogSide::ToServer
            } else {
                LogSide::ToClient
            },
            text: format!("line {n} with a NUL \0 and é"),
            flag: (n == 2).then(|| "not JSON".to_owned()),
            call_id: (n == 1).then_some(id),
        })
        .collect();
    proxy.append_proxy_log(session, &lines).unwrap();

    let moved = wait_for_move(&window, quiet);
    assert!(moved.newest_call >= id);
    assert!(moved.calls_announced > quiet.calls_announced);
    let sessions = window.proxy_sessions(10).unwrap();
    assert_eq!(sessions.len(), 1);
    let seen = &sessions[0];
    assert_eq!(seen.client.as_deref(), Some("claude-ai 0.1"));
    assert_eq!(
        seen.server_name.as_deref(),
        Some("weather\u{2400}"),
        "a NUL kept as ␀"
    );
    assert_eq!((seen.calls, seen.log_lines), (1, 3));
    assert_eq!(
        (seen.machine.as_deref(), seen.person.as_deref()),
        (Some("proxy-host"), Some("ops"))
    );
    let log = window.proxy_log(session, 0, 10).unwrap();
    assert_eq!(
        log[0].text, "line 0 with a NUL \0 and é",
        "a log line is kept byte for byte"
    );
    assert_eq!(log[2].flag.as_deref(), Some("not JSON"));
    assert_eq!(log[1].call_id, Some(id));
    let page = window.proxy_log_from(session, 1, 1).unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].id, log[1].id);
    let through = window
        .list(&CallQuery {
            session: Some(session),
            ..CallQuery::default()
        })
        .unwrap();
    assert_eq!(through[0].session, Some(session));

    proxy
        .end_proxy_session(
            session,
            &started_ago(std::time::Duration::ZERO),
            &SessionEnding {
                ending: "the client closed".into(),
                stderr_tail: String::new(),
                log_dropped: 0,
            },
        )
        .unwrap();
    let ended = wait_for_move(&window, moved);
    assert_eq!(ended.sessions[1], 1, "one session ended");
    assert!(
        window
            .proxy_session(session)
            .unwrap()
            .unwrap()
            .ended_at
            .is_some()
    );
}

/// The reader's stamp once it moved past `from` (announcements arrive as the writer commits).
fn wait_for_move(
    store: &PostgresStore,
    from: crate::history::ChangeStamp,
) -> crate::history::ChangeStamp {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now = store.change_stamp().unwrap();
        if now != from {
            return now;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the stamp never moved"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_cap_drops_the_oldest_calls_and_keeps_the_newest() {
    let Some((mut store, _)) = fresh("cap", by("m", "p")) else {
        return;
    };
    let big = "x".repeat(10_000);
    let ids: Vec<i64> = (0..5)
        .map(|_| store.record(&call("add", Verdict::Ok, &big)).unwrap())
        .collect();
    store.set_cap_bytes(25_000).unwrap();
    assert_eq!(store.cap_bytes().unwrap(), 25_000);
    let kept: Vec<i64> = store
        .list(&CallQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(kept, [ids[4], ids[3]]);
    assert!(store.total_bytes().unwrap() <= 25_000);
    store.set_cap_bytes(1).unwrap();
    assert_eq!(store.count().unwrap(), 1, "the newest call always stays");
}

#[test]
fn the_tables_are_made_once_and_a_newer_toolscopes_are_refused() {
    let Some((store, url)) = fresh("schema", by("m", "p")) else {
        return;
    };
    drop(store);
    let openers: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PostgresStore::open(&url, None).map(drop))
        })
        .collect();
    for opener in openers {
        opener.join().unwrap().unwrap();
    }
    let mut admin = postgres::Client::connect(url.secret_text(), postgres::NoTls).unwrap();
    admin
        .execute("UPDATE toolscope.schema_version SET version = 99", &[])
        .unwrap();
    let error = PostgresStore::open(&url, None).unwrap_err().to_string();
    assert!(
        error.contains("newer Toolscope (schema version 99"),
        "{error}"
    );
    assert!(
        !error.contains(test_cluster::shared().unwrap().password()),
        "{error}"
    );
}

#[test]
fn a_database_that_is_down_or_refuses_the_password_says_which_and_why() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let down = crate::history::PostgresUrl::parse(&format!(
        "postgres://qa@127.0.0.1:{port}/team?sslmode=disable"
    ))
    .unwrap();
    let error = PostgresStore::open(&down, None).unwrap_err().to_string();
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    assert!(error.to_lowercase().contains("refused"), "{error}");

    let wrong = crate::history::PostgresUrl::parse(&format!(
        "postgres://{}:wrong-secret@127.0.0.1:{}/postgres?sslmode=disable",
        test_cluster::ADMIN,
        cluster.port()
    ))
    .unwrap();
    let error = PostgresStore::open(&wrong, None).unwrap_err().to_string();
    assert!(error.contains("password authentication failed"), "{error}");
    assert!(
        !error.contains("wrong-secret"),
        "the password is never shown: {error}"
    );
}

#[test]
fn a_store_used_on_a_tokio_worker_does_not_panic() {
    let Some((store, _)) = fresh("tokio", by("m", "p")) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let counted = runtime.block_on(async move { store.count() });
    assert_eq!(counted.unwrap(), 0);
}

#[test]
fn tls_is_used_as_sslmode_says_and_a_certificate_nobody_trusts_is_refused() {
    let Some(cluster) = test_cluster::shared() else {
        return;
    };
    let url = cluster.new_database("tls");
    let with = |host: &str, parameters: &str| {
        let mut text = url.without_password().with_password(cluster.password());
        let mut parsed = url::Url::parse(text.secret_text()).unwrap();
        parsed.set_host(Some(host)).unwrap();
        parsed.set_query(Some(parameters));
        text = crate::history::PostgresUrl::parse(parsed.as_str()).unwrap();
        text
    };
    let encrypted = |url: &crate::history::PostgresUrl| -> bool {
        let mut client = super::connect::connect(url).unwrap();
        client
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .unwrap()
            .get(0)
    };
    assert!(!encrypted(&with("127.0.0.1", "sslmode=disable")));
    assert!(
        encrypted(&with("127.0.0.1", "sslmode=require")),
        "not checked, but encrypted"
    );
    assert!(
        encrypted(&with("127.0.0.1", "sslmode=prefer")),
        "TLS when offered"
    );
    let ca = cluster.ca_file().display().to_string();
    let trusted = format!("sslmode=verify-full&sslrootcert={ca}");
    assert!(encrypted(&with("localhost", &trusted)));
    assert!(encrypted(&with("127.0.0.1", &trusted)));
    assert!(encrypted(&with(
        "127.0.0.1",
        &format!("sslmode=verify-ca&sslrootcert={ca}")
    )));
    let store = PostgresStore::open(&with("localhost", &trusted), Some(by("m", "p"))).unwrap();
    assert_eq!(
        store.count().unwrap(),
        0,
        "the store itself over verify-full"
    );

    let untrusted = PostgresStore::open(&with("localhost", "sslmode=verify-full"), None)
        .unwrap_err()
        .to_string();
    assert!(untrusted.contains("localhost:"), "{untrusted}");
    assert!(
        untrusted.to_lowercase().contains("certificate"),
        "{untrusted}"
    );
    let wrong = PostgresStore::open(&with("localhost", "sslmode=sometimes"), None)
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("sslmode=sometimes is not one of"), "{wrong}");
}

/// An id is given out when a row is inserted, before it commits: a watcher that read the
/// stamp in between still lists the row, since the stamp moves once more on the next read.
#[test]
fn a_row_that_commits_after_the_stamp_saw_its_id_is_still_listed() {
    let Some((store, url)) = fresh("late-commit", by("m", "p")) else {
        return;
    };
    let before = store.change_stamp().unwrap();
    let mut slow = postgres::Client::connect(url.secret_text(), postgres::NoTls).unwrap();
    let mut transaction = slow.transaction().unwrap();
    transaction
        .execute(
            "INSERT INTO toolscope.calls (started_at, server, tool, arguments, verdict, bytes) \
             VALUES ('2026-12-05T00:00:00Z', 's', 'slow_tool', '{}', 'ok', 2)",
            &[],
        )
        .unwrap();
    let saw_id = store.change_stamp().unwrap();
    assert_ne!(saw_id, before, "the id given out moved the stamp");
    assert!(
        store.list(&CallQuery::default()).unwrap().is_empty(),
        "not committed yet"
    );
    transaction.commit().unwrap();
    let settled = store.change_stamp().unwrap();
    assert_ne!(settled, saw_id, "the next read reports again");
    assert_eq!(
        store.list(&CallQuery::default()).unwrap()[0].tool,
        "slow_tool"
    );
    assert_eq!(store.change_stamp().unwrap(), settled, "then it is quiet");
}

/// The database dropped the connection (it restarted, an administrator ended it): the next
/// write after a pause finds out first and connects again, so the call is kept, not lost.
#[test]
fn a_connection_the_database_dropped_is_made_again_before_the_next_write() {
    let Some((mut store, url)) = fresh("reconnect", by("m", "p")) else {
        return;
    };
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    let mut admin = postgres::Client::connect(url.secret_text(), postgres::NoTls).unwrap();
    let ended: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(ended >= 1, "the store's connection was ended");
    std::thread::sleep(super::IDLE_CHECK + std::time::Duration::from_millis(300));
    store.record(&call("add", Verdict::Ok, "{}")).unwrap();
    assert_eq!(store.count().unwrap(), 2);
}
