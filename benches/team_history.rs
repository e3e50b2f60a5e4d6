//! The team history under many writers: 8 writers × 5,000 calls at once into PostgreSQL (a
//! throwaway cluster that writes as a real server does, fsync on) and into one SQLite file,
//! each against its floor in the same run (the same number of rows of the same bytes as bare
//! INSERTs, one connection per writer: what the database alone costs), and what following
//! them costs a window: a follower reads the change stamp every 250 ms as the window's
//! history thread does and, each time the stamp moved, lists what the History tab lists: the
//! calls newer than its newest, and all of them (up to 100,000) once every 30 s; its busy time,
//! and how long after the last write it saw it.
//! Prints numbers only; nothing is asserted.
//!
//! `cargo bench --bench team_history` (WRITERS=…, CALLS=… for other sizes).

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use toolscope::workbench::history_browser::{FULL_LIST_EVERY, MAX_LISTED};
use toolscope_core::history::{
    CallQuery, HistoryLocation, HistoryStore, NewCall, PostgresUrl, RecordedBy, ResponseText,
    Verdict, WATCH_PERIOD, open_store, test_cluster::TestCluster,
};

fn count(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// A call as the demo's `add` leaves it: a few hundred bytes of arguments and response.
fn call(writer: usize, n: usize) -> NewCall {
    NewCall {
        kind: Default::default(),
        client: None,
        started_at: format!("2026-12-05T10:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
        duration_ms: Some((n % 90) as u64),
        server: "Built-in demo".to_owned(),
        server_version: Some("0.1.0".to_owned()),
        protocol_version: Some("2026-07-28".to_owned()),
        server_info: None,
        tool: "add".to_owned(),
        arguments: format!(r#"{{"a":{writer},"b":{n}}}"#),
        request_id: Some(n.to_string()),
        response: Some(ResponseText::Owned(format!(
            r#"{{"jsonrpc":"2.0","id":{n},"result":{{"content":[{{"type":"text","text":"{}"}}],"structuredContent":{{"result":{}}},"isError":false}}}}"#,
            writer + n,
            writer + n
        ))),
        duplicate_responses: 0,
        output_schema: Some(
            r#"{"type":"object","properties":{"result":{"type":"integer"}}}"#.to_owned(),
        ),
        listed: true,
        verdict: Verdict::Ok,
        failure: None,
        rounds: None,
    }
}

/// The bytes a call's row carries, for the floor's rows.
fn payload(writer: usize, n: usize) -> String {
    let call = call(writer, n);
    let mut text = call.arguments.clone();
    if let Some(response) = &call.response {
        text.push_str(response.as_str());
    }
    text.push_str(call.output_schema.as_deref().unwrap_or_default());
    text
}

/// Runs `writers` threads of `calls` each; the rows per second.
fn in_parallel(writers: usize, calls: usize, write: impl Fn(usize) + Sync) -> (Duration, f64) {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for writer in 0..writers {
            let write = &write;
            scope.spawn(move || write(writer));
        }
    });
    let took = started.elapsed();
    (took, (writers * calls) as f64 / took.as_secs_f64())
}

/// What following the writers cost: stamp reads, lists, busy time, and the delay to the
/// last row.
struct Following {
    stamp_reads: u64,
    /// Lists of every call (up to 100,000), and lists of the calls since the newest.
    lists: u64,
    newer_lists: u64,
    busy: Duration,
    seen_last_after: Duration,
}

/// Follows `location` as the window does while `running`, until it has seen `total` calls.
fn follow(location: HistoryLocation, total: i64, running: Arc<AtomicBool>) -> Following {
    let store = open_store(&location, &RecordedBy::here(None)).expect("the follower opens");
    let mut following = Following {
        stamp_reads: 0,
        lists: 0,
        newer_lists: 0,
        busy: Duration::ZERO,
        seen_last_after: Duration::ZERO,
    };
    let mut last = None;
    let mut newest: Option<i64> = None;
    let mut listed_whole_at: Option<Instant> = None;
    let mut writers_done: Option<Instant> = None;
    loop {
        std::thread::sleep(WATCH_PERIOD);
        if writers_done.is_none() && !running.load(Ordering::Relaxed) {
            writers_done = Some(Instant::now());
        }
        let started = Instant::now();
        let stamp = store.change_stamp().expect("the stamp");
        following.stamp_reads += 1;
        if last != Some(stamp) {
            last = Some(stamp);
            let whole = newest.is_none()
                || listed_whole_at.is_none_or(|at| at.elapsed() >= FULL_LIST_EVERY);
            let listed = store
                .list(&CallQuery {
                    limit: Some(MAX_LISTED),
                    after_id: if whole { None } else { newest },
                    ..CallQuery::default()
                })
                .expect("the list");
            if whole {
                following.lists += 1;
                listed_whole_at = Some(Instant::now());
            } else {
                following.newer_lists += 1;
            }
            if let Some(first) = listed.first() {
                newest = newest.max(Some(first.id));
            }
            std::hint::black_box(listed);
        }
        following.busy += started.elapsed();
        let seen = count_seen(store.as_ref());
        if seen >= total
            && let Some(done) = writers_done
        {
            following.seen_last_after = done.elapsed();
            return following;
        }
    }
}

fn count_seen(store: &dyn HistoryStore) -> i64 {
    i64::try_from(store.count().expect("the count")).unwrap_or(i64::MAX)
}

fn report(name: &str, calls: (Duration, f64), floor: (Duration, f64), following: &Following) {
    println!(
        "{name}: {:.0} calls/s ({:.2} s), floor {:.0} rows/s ({:.2} s): {:.2}x the floor's time",
        calls.1,
        calls.0.as_secs_f64(),
        floor.1,
        floor.0.as_secs_f64(),
        calls.0.as_secs_f64() / floor.0.as_secs_f64()
    );
    println!(
        "  following it: {} stamp reads, {} lists of all and {} of the calls since, busy {:.0} ms of {:.2} s ({:.1} % of a core); \
         the last call seen {} ms after the writers ended",
        following.stamp_reads,
        following.lists,
        following.newer_lists,
        following.busy.as_secs_f64() * 1000.0,
        calls.0.as_secs_f64(),
        100.0 * following.busy.as_secs_f64() / calls.0.as_secs_f64(),
        following.seen_last_after.as_millis()
    );
}

fn main() {
    let writers = count("WRITERS", 8);
    let calls = count("CALLS", 5_000);
    let total = i64::try_from(writers * calls).unwrap_or(i64::MAX);
    println!("team history: {writers} writers × {calls} calls at once");

    // PostgreSQL.
    let cluster =
        TestCluster::durable().expect("a PostgreSQL cluster (apt-get install postgresql)");
    let url = cluster.new_database("bench");
    let floor_url = cluster.new_database("floor");
    {
        let mut client = postgres::Client::connect(floor_url.secret_text(), postgres::NoTls)
            .expect("the floor's database");
        client
            .batch_execute("CREATE TABLE floor (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)")
            .expect("the floor's table");
    }
    let floor = in_parallel(writers, calls, |writer| {
        let mut client = postgres::Client::connect(floor_url.secret_text(), postgres::NoTls)
            .expect("a floor writer");
        let insert = client
            .prepare("INSERT INTO floor (payload) VALUES ($1)")
            .expect("the insert");
        for n in 0..calls {
            client
                .execute(&insert, &[&payload(writer, n)])
                .expect("a floor row");
        }
    });
    let location = HistoryLocation::Postgres(url.clone());
    // The tables exist before the clock starts.
    drop(open_store(&location, &RecordedBy::here(None)).expect("the team history"));
    let running = Arc::new(AtomicBool::new(true));
    let follower = {
        let running = running.clone();
        std::thread::spawn(move || follow(location, total, running))
    };
    let team = in_parallel(writers, calls, |writer| {
        record_all(&url, writer, calls);
    });
    running.store(false, Ordering::Relaxed);
    let following = follower.join().expect("the follower");
    report("PostgreSQL", team, floor, &following);

    // SQLite: one file, every writer its own connection.
    let folder = tempfile::tempdir().expect("a folder");
    let file = folder.path().join("history.sqlite3");
    let floor_file = folder.path().join("floor.sqlite3");
    {
        let connection = rusqlite::Connection::open(&floor_file).expect("the floor's file");
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                 CREATE TABLE floor (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)",
            )
            .expect("the floor's table");
    }
    let floor = in_parallel(writers, calls, |writer| {
        let connection = rusqlite::Connection::open(&floor_file).expect("a floor writer");
        connection
            .busy_timeout(Duration::from_secs(30))
            .expect("a busy timeout");
        connection
            .execute_batch("PRAGMA synchronous = NORMAL")
            .expect("synchronous");
        for n in 0..calls {
            connection
                .execute(
                    "INSERT INTO floor (payload) VALUES (?1)",
                    [payload(writer, n)],
                )
                .expect("a floor row");
        }
    });
    let location = HistoryLocation::File(file);
    drop(open_store(&location, &RecordedBy::here(None)).expect("the local history"));
    let running = Arc::new(AtomicBool::new(true));
    let follower = {
        let (location, running) = (location.clone(), running.clone());
        std::thread::spawn(move || follow(location, total, running))
    };
    let local = in_parallel(writers, calls, |writer| {
        let mut store = open_store(&location, &RecordedBy::here(None)).expect("a writer");
        for n in 0..calls {
            store.record(&call(writer, n)).expect("a call");
        }
    });
    running.store(false, Ordering::Relaxed);
    let following = follower.join().expect("the follower");
    report("SQLite", local, floor, &following);
}

fn record_all(url: &PostgresUrl, writer: usize, calls: usize) {
    let location = HistoryLocation::Postgres(url.clone());
    let by = RecordedBy {
        machine: format!("writer-{writer}"),
        person: "bench".to_owned(),
    };
    let mut store = open_store(&location, &by).expect("a writer");
    for n in 0..calls {
        store.record(&call(writer, n)).expect("a call");
    }
}
