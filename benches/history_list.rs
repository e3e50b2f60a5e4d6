//! Timing of the history: the sidebar's History tab on a database of 100,000 calls (frames
//! while idle, while scrolling, and the filter's query), and a 50 MB call stored while the
//! window keeps drawing. Runs the real app (egui_kittest, no GPU) with no server connected.
//! Prints numbers only; nothing is asserted as a timing.
//!
//! `cargo bench --bench history_list` (CALLS=… for another history size).

#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::{
    path::Path,
    sync::mpsc,
    time::{Duration, Instant},
};

use egui_kittest::{
    Harness,
    kittest::{NodeT as _, Queryable as _},
};
use toolscope::{
    ui::{AppOptions, ToolscopeApp},
    workbench::HistoryStatus,
};
use toolscope_core::{
    history::{HistoryEvent, HistoryWriter, NewCall, ResponseText, Verdict},
    session::ServerConfig,
};

const FRAMES: usize = 60;
/// The size of the big call's response.
const BIG_RESPONSE: usize = 50_000_000;
const DEADLINE: Duration = Duration::from_secs(120);

const TOOLS: [&str; 8] = [
    "add",
    "search_docs",
    "large_result",
    "get_weather",
    "list_files",
    "primes",
    "echo",
    "render_chart",
];
const SERVERS: [&str; 3] = ["Built-in demo", "weather (http)", "npx -y files-server"];

/// The `n`th of the generated calls: tools, servers, verdicts and notes vary, one second apart.
fn generated_call(n: usize) -> NewCall {
    let tool = TOOLS[n % TOOLS.len()];
    let verdict = Verdict::ALL[n % 11 % Verdict::ALL.len()];
    let (hours, minutes, seconds) = (n / 3600 % 24, n / 60 % 60, n % 60);
    let day = 1 + n / 86_400;
    let answered = matches!(
        verdict,
        Verdict::Ok | Verdict::ToolError | Verdict::ContractViolated | Verdict::ProtocolError
    );
    NewCall {
        kind: Default::default(),
        client: None,
        started_at: format!("2026-03-{day:02}T{hours:02}:{minutes:02}:{seconds:02}.000Z"),
        duration_ms: Some((n % 900) as u64),
        server: SERVERS[n % SERVERS.len()].to_owned(),
        server_version: Some("1.4.2".to_owned()),
        protocol_version: Some("2025-11-25".to_owned()),
        server_info: None,
        tool: tool.to_owned(),
        arguments: format!(r#"{{"query":"item {n}","limit":{}}}"#, n % 50),
        request_id: Some(n.to_string()),
        response: answered.then(|| {
            ResponseText::Owned(format!(
                r#"{{"jsonrpc":"2.0","id":{n},"result":{{"content":[{{"type":"text","text":"{n}"}}],"structuredContent":{{"value":{n}}},"isError":false}}}}"#
            ))
        }),
        duplicate_responses: 0,
        output_schema: None,
        listed: true,
        verdict,
        failure: (!answered).then(|| "the server exited".to_owned()),
        rounds: None,
    }
}

/// Distinct calls recorded one by one; the rest of the history repeats them.
const SEED: usize = 2_000;

/// Fills a history at `path` with `calls` calls: [`SEED`] of them through `record` (as the
/// window and the command line record), then copies of those in one SQL transaction, since
/// `record` sums the whole history's size for its cap on every call and filling 100,000 that
/// way takes many minutes. Returns how long each part took.
fn fill(path: &Path, calls: usize) -> (Duration, Duration) {
    let started = Instant::now();
    let mut store = toolscope_core::history::open_store(
        &toolscope_core::history::HistoryLocation::File(path.to_owned()),
        &toolscope_core::history::RecordedBy::here(None),
    )
    .expect("the history opens");
    let seed = calls.min(SEED);
    for n in 0..seed {
        let id = store
            .record(&generated_call(n))
            .expect("a call is recorded");
        if n % 10 == 7 {
            store
                .set_note(id, &format!("checked by hand, case {n}"))
                .expect("a note is kept");
        }
    }
    drop(store);
    let recorded = started.elapsed();
    let started = Instant::now();
    let mut connection = rusqlite::Connection::open(path).expect("the history opens");
    let copies = connection.transaction().expect("a transaction");
    copies
        .execute_batch("CREATE TEMP TABLE seed AS SELECT * FROM calls; UPDATE seed SET id = NULL;")
        .expect("the seed is copied");
    let mut left = calls - seed;
    while left > 0 {
        let now = left.min(seed);
        copies
            .execute(
                "INSERT INTO calls SELECT * FROM seed ORDER BY rowid LIMIT ?1",
                [i64::try_from(now).expect("a count")],
            )
            .expect("copies are inserted");
        left -= now;
    }
    copies.commit().expect("the copies are kept");
    (recorded, started.elapsed())
}

/// How long `record` takes on a history of `calls` calls (it sums the history's size).
fn record_cost(path: &Path, calls: usize) -> Duration {
    let mut store = toolscope_core::history::open_store(
        &toolscope_core::history::HistoryLocation::File(path.to_owned()),
        &toolscope_core::history::RecordedBy::here(None),
    )
    .expect("the history opens");
    let started = Instant::now();
    for n in 0..10 {
        store
            .record(&generated_call(calls + n))
            .expect("a call is recorded");
    }
    started.elapsed() / 10
}

/// One frame: its wall time, and how much of it this thread waited for a core (the machine is
/// shared: another process's time slice is a few milliseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Frame {
    wall: Duration,
    waited: Option<Duration>,
}

impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&ms(self.wall))?;
        match self.waited {
            Some(waited) if !waited.is_zero() => {
                write!(f, " ({} of it waiting for a core)", ms(waited))
            }
            _ => Ok(()),
        }
    }
}

/// How long this thread has waited, runnable, for a core (Linux's schedstat; `None`
/// elsewhere).
fn thread_waited() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[derive(Debug, Clone, Copy)]
struct Frames {
    median: Duration,
    p95: Duration,
    max: Frame,
}

impl std::fmt::Display for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {}, p95 {}, max {}",
            ms(self.median),
            ms(self.p95),
            self.max
        )
    }
}

fn ms(time: Duration) -> String {
    format!("{:.2} ms", time.as_secs_f64() * 1000.0)
}

fn frames(samples: &mut [Frame]) -> Frames {
    samples.sort();
    Frames {
        median: samples[samples.len() / 2].wall,
        p95: samples[(samples.len() * 95 / 100).min(samples.len() - 1)].wall,
        max: samples[samples.len() - 1],
    }
}

/// Times one frame; `before` queues its input.
fn timed_step(
    harness: &mut Harness<'_, ToolscopeApp>,
    before: impl FnOnce(&mut Harness<'_, ToolscopeApp>),
) -> Frame {
    before(harness);
    let waited = thread_waited();
    let frame = Instant::now();
    harness.step();
    let wall = frame.elapsed();
    Frame {
        wall,
        waited: waited
            .zip(thread_waited())
            .map(|(before, after)| after.saturating_sub(before)),
    }
}

/// Steps until `done`, failing after the deadline; returns how long it took and the longest
/// frame meanwhile.
fn step_until(
    harness: &mut Harness<'_, ToolscopeApp>,
    what: &str,
    done: impl Fn(&ToolscopeApp) -> bool,
) -> (Duration, Frame) {
    let started = Instant::now();
    let mut longest = Frame::default();
    while !done(harness.state()) {
        assert!(started.elapsed() < DEADLINE, "timed out waiting for {what}");
        longest = longest.max(timed_step(harness, |_| {}));
        std::thread::sleep(Duration::from_millis(1));
    }
    (started.elapsed(), longest)
}

fn window(history: &Path) -> Harness<'static, ToolscopeApp> {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let options = AppOptions {
        history: Some(toolscope_core::history::HistoryLocation::File(
            history.to_owned(),
        )),
        connect_at_start: false,
        ..AppOptions::new(ServerConfig::demo(), None)
    };
    let handle = runtime.handle().clone();
    // The runtime lives as long as the process (the window holds its handle).
    std::mem::forget(runtime);
    Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options))
}

/// The label of the first history row drawn (rows read "15:40:01 add · ok").
fn first_row(harness: &Harness<'_, ToolscopeApp>) -> Option<String> {
    harness
        .query_all_by_label_contains(" · ")
        .next()
        .and_then(|node| node.accesskit_node().label())
}

fn listed(app: &ToolscopeApp) -> usize {
    app.model().history_browser().calls.len()
}

fn history_list(dir: &Path, calls: usize) {
    let path = dir.join("history.sqlite3");
    let (recorded, copied) = fill(&path, calls);
    println!(
        "filled a history of {calls} calls: {} recorded one by one in {:.1} s, the rest copied \
         in SQL in {:.1} s",
        calls.min(SEED),
        recorded.as_secs_f64(),
        copied.as_secs_f64()
    );

    let mut harness = window(&path);
    harness.step();
    let opened = Instant::now();
    harness.get_by_label("History").click();
    let (_, longest) = step_until(&mut harness, "the history list", |app| listed(app) == calls);
    println!(
        "History tab clicked → {calls} calls listed: {:.0} ms (longest frame meanwhile {})",
        opened.elapsed().as_secs_f64() * 1000.0,
        longest
    );

    let mut idle: Vec<Frame> = (0..FRAMES)
        .map(|_| timed_step(&mut harness, |_| {}))
        .collect();
    println!(
        "history list, {calls} calls, idle: frame {} (goal < 4 ms)",
        frames(&mut idle)
    );

    // Scroll with the wheel over the list, a notch (-120 points) every frame.
    let top_row = first_row(&harness).expect("rows are drawn");
    let over_list = harness
        .get_by_label(&format!("{calls} calls"))
        .rect()
        .center()
        + egui::vec2(0.0, 150.0);
    harness.hover_at(over_list);
    harness.step();
    let mut scrolling: Vec<Frame> = (0..FRAMES)
        .map(|_| {
            timed_step(&mut harness, |harness| {
                harness.event(egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta: egui::vec2(0.0, -120.0),
                    phase: egui::TouchPhase::Move,
                    source: egui::MouseWheelSource::Wheel,
                    modifiers: egui::Modifiers::NONE,
                });
            })
        })
        .collect();
    let scrolled_row = first_row(&harness).expect("rows are drawn");
    assert_ne!(top_row, scrolled_row, "the list did not scroll");
    println!(
        "history list, {calls} calls, scrolling: frame {} (goal < 4 ms; the top row went from \
         {top_row:?} to {scrolled_row:?})",
        frames(&mut scrolling)
    );

    // A text filter: the frame that sends the query, the query on the history thread, the
    // frame that takes the answer.
    harness.get_by_label("Find").focus();
    harness.step();
    let filter = "search";
    let typed = timed_step(&mut harness, |harness| {
        harness.get_by_label("Find").type_text(filter);
    });
    let sent = Instant::now();
    let mut waited = Vec::new();
    while harness.state().model().history_browser().loading {
        assert!(
            sent.elapsed() < DEADLINE,
            "timed out waiting for the filter"
        );
        std::thread::sleep(Duration::from_millis(1));
        waited.push(timed_step(&mut harness, |_| {}));
    }
    let query = sent.elapsed();
    let answer = waited.last().copied().unwrap_or_default();
    let found = listed(harness.state());
    let mut filtered: Vec<Frame> = (0..FRAMES)
        .map(|_| timed_step(&mut harness, |_| {}))
        .collect();
    println!(
        "filter {filter:?} over {calls} calls: the frame that sends it {}, the query {:.0} ms \
         (on the history thread; {found} calls found), the frame that takes the answer {}, \
         the longest frame meanwhile {}; then frames {}",
        typed,
        query.as_secs_f64() * 1000.0,
        answer,
        waited.iter().copied().max().unwrap_or_default(),
        frames(&mut filtered)
    );
    // The filter cleared: the whole list again (the filtered one is dropped in that frame).
    let cleared = timed_step(&mut harness, |harness| {
        harness.get_by_label("Find").set_text_value_accesskit("");
    });
    let sent = Instant::now();
    let (_, longest) = step_until(&mut harness, "the whole list again", |app| {
        listed(app) == calls
    });
    println!(
        "filter cleared: the frame that sends it {}, the whole list back after {:.0} ms, the \
         longest frame meanwhile {}",
        cleared,
        sent.elapsed().as_secs_f64() * 1000.0,
        longest
    );
    drop(harness);
    println!(
        "record() on a history of {calls} calls: {} a call (on the history thread, not in a \
         frame)",
        ms(record_cost(&path, calls))
    );
}

/// A JSON-RPC response of about `size` bytes: structuredContent and its text mirror (the same
/// JSON as an escaped string), half each.
fn big_response(size: usize) -> String {
    let mut items = String::with_capacity(size / 2 + 64);
    items.push_str(r#"{"items":["#);
    // The mirror is the items again with each quote escaped.
    let mut quotes = 2;
    let mut n = 0;
    while 2 * items.len() + quotes + 120 < size {
        if n > 0 {
            items.push(',');
        }
        let item = format!(
            r#"{{"id":{n},"name":"item {n}","tags":["a","b"],"score":{}.5}}"#,
            n % 97
        );
        quotes += item.matches('"').count();
        items.push_str(&item);
        n += 1;
    }
    items.push_str("]}");
    let text = serde_json::to_string(&items).expect("a string serializes");
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{items},"isError":false}}}}"#
    )
}

fn big_call(dir: &Path) {
    // The window on an empty history, no server; the big call is written to that same file
    // by a writer of the bench's own (the window records through one like it, off its thread).
    let path = dir.join("big.sqlite3");
    let mut harness = window(&path);
    harness.get_by_label("History").click();
    step_until(&mut harness, "the empty history", |app| {
        matches!(app.model().history_status(), HistoryStatus::Open { .. })
            && !app.model().history_browser().loading
    });
    let response = big_response(BIG_RESPONSE);
    let size = response.len();
    let mut call = generated_call(0);
    call.tool = "large_result".to_owned();
    call.verdict = Verdict::Ok;
    call.failure = None;
    call.response = Some(ResponseText::Owned(response));

    let (events, recorded) = mpsc::channel();
    let writer = HistoryWriter::start(
        Some(toolscope_core::history::HistoryLocation::File(path)),
        toolscope_core::history::RecordedBy::here(None),
        move |event| {
            if let HistoryEvent::Recorded { id, .. } = event {
                let _ = events.send(id);
            }
        },
    );
    let started = Instant::now();
    writer.record(call, 1);
    let mut longest = Frame::default();
    let mut frames = 0;
    let id = loop {
        if let Ok(id) = recorded.try_recv() {
            break id;
        }
        assert!(started.elapsed() < DEADLINE, "timed out writing the call");
        longest = longest.max(timed_step(&mut harness, |_| {}));
        frames += 1;
        std::thread::sleep(Duration::from_millis(1));
    };
    let written = started.elapsed();
    drop(writer);
    println!(
        "{:.1} MB call recorded (a HistoryWriter of the bench's own, the window drawing on \
         the bench's thread meanwhile) in {:.2} s; longest of {frames} frames meanwhile {} \
         (goal < 100 ms)",
        size as f64 / 1e6,
        written.as_secs_f64(),
        longest
    );
    // The window finds it on a refresh, as it finds the command line's calls.
    harness.get_by_label("Refresh").click();
    let (after, longest) = step_until(&mut harness, "the big call listed", |app| {
        app.model()
            .history_browser()
            .calls
            .first()
            .is_some_and(|listed| listed.id == id)
    });
    println!(
        "the window lists it after a refresh in {:.0} ms (longest frame {})",
        after.as_secs_f64() * 1000.0,
        longest
    );
}

fn main() {
    let calls: usize = std::env::var("CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let started = Instant::now();
    history_list(dir.path(), calls);
    big_call(dir.path());
    println!("the whole bench: {:.1} s", started.elapsed().as_secs_f64());
}
