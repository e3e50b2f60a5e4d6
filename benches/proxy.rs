//! `toolscope proxy` against its floor, the same raw driver talking to the server directly, in
//! the same run (plain `Instant`, no harness). Run with `cargo bench --bench proxy`.
//!
//! - small calls: 1,000 `tools/call add` round trips one after the other on one session,
//!   directly to `toolscope demo-server` and through `toolscope proxy -- toolscope
//!   demo-server` (recording into a history of its own, as for a user); the median and p95 per
//!   call, and the proxy's median overhead (target: at most 1 ms);
//! - a big response: `large_result` with `PROXY_BENCH_NODES` nodes (default 1,000,000), the
//!   time from sending the call to its last byte read, directly and through the proxy (target:
//!   within 1.2×), and the proxy's peak resident memory (`VmHWM`) against its resident memory
//!   after the handshake plus twice the response (target: within);
//! - a flood: `slow_task` with one step that sends `PROXY_BENCH_FLOOD` log messages (default
//!   100,000) before its answer, the time from sending the call to its answer, directly and
//!   through the proxy (target: within 1.5×), every line counted as the client reads it, and
//!   the session's log read back from the history once the proxy has ended: every line kept.
//!
//! Prints a table and the ratios; nothing is asserted (the machines are shared and noisy).

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    time::{Duration, Instant},
};

const BINARY: &str = env!("CARGO_BIN_EXE_toolscope");
const SMALL_CALLS: usize = 1_000;
const BIG_RUNS: usize = 3;

/// A server (or the proxy in front of it) driven over its stdio, line by line.
struct Driver {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
    next_id: u64,
}

impl Driver {
    fn start(through_proxy: bool, data: &std::path::Path) -> Self {
        let mut command = Command::new(BINARY);
        if through_proxy {
            command.args(["proxy", "--name", "bench", "--", BINARY, "demo-server"]);
        } else {
            command.arg("demo-server");
        }
        let mut child = command
            .env("TOOLSCOPE_DATA_DIR", data)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {BINARY}: {error}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("piped stdin"));
        let stdout = BufReader::with_capacity(
            1 << 20,
            child
                .stdout
                .take()
                .unwrap_or_else(|| panic!("piped stdout")),
        );
        let mut driver = Self {
            child,
            stdin,
            stdout,
            line: Vec::new(),
            next_id: 1,
        };
        driver.request(
            "initialize",
            r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}"#,
        );
        driver.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        driver
    }

    fn send(&mut self, line: &str) {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|error| panic!("writing: {error}"));
    }

    /// Sends a request and reads lines until its response; the response's size.
    fn request(&mut self, method: &str, params: &str) -> usize {
        self.request_counting(method, params).0
    }

    /// Sends a request and reads lines until its response: the response's size and how many
    /// lines came before it.
    fn request_counting(&mut self, method: &str, params: &str) -> (usize, usize) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ));
        let marker = format!("\"id\":{id}");
        let mut before = 0;
        loop {
            self.line.clear();
            let read = self
                .stdout
                .read_until(b'\n', &mut self.line)
                .unwrap_or_else(|error| panic!("reading: {error}"));
            assert!(read > 0, "the server closed its stdout");
            let head = &self.line[..self.line.len().min(64)];
            if head
                .windows(marker.len())
                .any(|window| window == marker.as_bytes())
            {
                return (self.line.len(), before);
            }
            before += 1;
        }
    }

    /// Resident memory now and at its peak, in bytes (Linux).
    fn memory(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|line| line.starts_with(name))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
                .map_or(0, |kb| kb * 1024)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// Closes its stdin and waits for it to end (at most 30 s); how long that took.
    fn finish(mut self) -> Duration {
        let started = Instant::now();
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        started.elapsed()
    }
}

fn median(sorted: &[Duration]) -> Duration {
    sorted[sorted.len() / 2]
}

fn p95(sorted: &[Duration]) -> Duration {
    sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Each of `SMALL_CALLS` round trips of `add`, sorted.
fn small_calls(through_proxy: bool, data: &std::path::Path) -> Vec<Duration> {
    let mut driver = Driver::start(through_proxy, data);
    let mut times = Vec::with_capacity(SMALL_CALLS);
    for n in 0..SMALL_CALLS {
        let params = format!(r#"{{"name":"add","arguments":{{"a":{n},"b":1}}}}"#);
        let started = Instant::now();
        driver.request("tools/call", &params);
        times.push(started.elapsed());
    }
    driver.finish();
    times.sort();
    times
}

struct Big {
    wall: Duration,
    bytes: usize,
    /// The proxy's memory after the handshake and at its peak (through the proxy only).
    memory: Option<(u64, u64)>,
}

fn big_response(through_proxy: bool, nodes: u64, data: &std::path::Path) -> Big {
    let mut driver = Driver::start(through_proxy, data);
    // Settled after the handshake: the proxy's baseline.
    std::thread::sleep(Duration::from_millis(200));
    let baseline = driver.memory().0;
    let params = format!(r#"{{"name":"large_result","arguments":{{"nodes":{nodes}}}}}"#);
    let started = Instant::now();
    let bytes = driver.request("tools/call", &params);
    let wall = started.elapsed();
    let peak = driver.memory().1;
    driver.finish();
    Big {
        wall,
        bytes,
        memory: through_proxy.then_some((baseline, peak)),
    }
}

struct Flood {
    wall: Duration,
    /// Lines the client read before the answer.
    delivered: usize,
    /// From the client leaving to the process's end (the proxy's recorder finishing).
    ending: Duration,
}

fn flood(through_proxy: bool, lines: u32, data: &std::path::Path) -> Flood {
    let mut driver = Driver::start(through_proxy, data);
    let params = format!(
        r#"{{"name":"slow_task","arguments":{{"steps":1,"step_ms":0,"logs_per_step":{lines}}}}}"#
    );
    let started = Instant::now();
    let (_, delivered) = driver.request_counting("tools/call", &params);
    let wall = started.elapsed();
    let ending = driver.finish();
    Flood {
        wall,
        delivered,
        ending,
    }
}

/// The newest proxied session in the history at `data`: its log lines, and those it says it
/// could not keep.
fn newest_session_log(data: &std::path::Path) -> (u64, u64) {
    let store = toolscope_core::history::open_store(
        &toolscope_core::history::HistoryLocation::File(data.join("history.sqlite3")),
        &toolscope_core::history::RecordedBy::here(None),
    )
    .unwrap_or_else(|error| panic!("the bench's history: {error}"));
    let sessions = store
        .proxy_sessions(1)
        .unwrap_or_else(|error| panic!("its sessions: {error}"));
    let session = sessions
        .first()
        .unwrap_or_else(|| panic!("no session was recorded"));
    (session.log_lines, session.log_dropped)
}

fn main() {
    let nodes: u64 = std::env::var("PROXY_BENCH_NODES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1_000_000);
    let flood_lines: u32 = std::env::var("PROXY_BENCH_FLOOD")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let data = tempfile::tempdir().unwrap_or_else(|error| panic!("a temporary folder: {error}"));
    let only_flood = std::env::args().any(|arg| arg == "flood");

    println!("toolscope proxy against a raw driver talking to the server directly");
    println!();
    flood_case(flood_lines, data.path());
    if only_flood {
        return;
    }
    println!();
    println!("{SMALL_CALLS} small calls (add), one after another on one session:");
    let direct = small_calls(false, data.path());
    let proxied = small_calls(true, data.path());
    println!(
        "  direct   median {:7.3} ms   p95 {:7.3} ms",
        ms(median(&direct)),
        ms(p95(&direct))
    );
    println!(
        "  proxy    median {:7.3} ms   p95 {:7.3} ms",
        ms(median(&proxied)),
        ms(p95(&proxied))
    );
    let overhead = ms(median(&proxied)) - ms(median(&direct));
    println!(
        "  the proxy adds {overhead:.3} ms per call at the median ({:.2}×; target: at most 1 ms)",
        ms(median(&proxied)) / ms(median(&direct)).max(f64::EPSILON)
    );

    println!();
    println!("a {nodes}-node response (large_result), best of {BIG_RUNS}:");
    let best = |through_proxy: bool| {
        (0..BIG_RUNS)
            .map(|_| big_response(through_proxy, nodes, data.path()))
            .min_by_key(|big| big.wall)
            .unwrap_or_else(|| panic!("runs"))
    };
    let direct = best(false);
    let proxied = best(true);
    println!(
        "  direct   {:8.1} ms for {:.1} MB",
        ms(direct.wall),
        direct.bytes as f64 / 1e6
    );
    println!(
        "  proxy    {:8.1} ms for {:.1} MB",
        ms(proxied.wall),
        proxied.bytes as f64 / 1e6
    );
    println!(
        "  ratio {:.2}× (target: within 1.2×)",
        ms(proxied.wall) / ms(direct.wall).max(f64::EPSILON)
    );
    if let Some((baseline, peak)) = proxied.memory {
        let allowed = baseline + 2 * proxied.bytes as u64;
        println!(
            "  proxy memory: {:.1} MB after the handshake, {:.1} MB at its peak; baseline + 2 × \
             the response = {:.1} MB ({})",
            baseline as f64 / 1e6,
            peak as f64 / 1e6,
            allowed as f64 / 1e6,
            if peak <= allowed { "within" } else { "over" }
        );
    }
}

/// The flood, best of three each way, and what the history kept of the last proxied one.
fn flood_case(lines: u32, data: &std::path::Path) {
    println!("a flood: {lines} log messages during one call (slow_task), best of {BIG_RUNS}:");
    let best = |through_proxy: bool| {
        (0..BIG_RUNS)
            .map(|_| flood(through_proxy, lines, data))
            .min_by_key(|flood| flood.wall)
            .unwrap_or_else(|| panic!("runs"))
    };
    let direct = best(false);
    let proxied = best(true);
    // Every run's proxy has ended (`finish`): its recorder wrote what it had.
    let (kept, not_kept) = newest_session_log(data);
    println!(
        "  direct   {:8.1} ms, {} lines before the answer",
        ms(direct.wall),
        direct.delivered
    );
    println!(
        "  proxy    {:8.1} ms, {} lines before the answer; it ended {:.1} ms after the client \
         left",
        ms(proxied.wall),
        proxied.delivered,
        ms(proxied.ending)
    );
    println!(
        "  ratio {:.2}× (target: within 1.5×); {}",
        ms(proxied.wall) / ms(direct.wall).max(f64::EPSILON),
        if proxied.delivered == direct.delivered && direct.delivered == lines as usize {
            "every line delivered"
        } else {
            "LINES MISSING"
        }
    );
    // The log has the handshake's 3 lines, the call and its answer besides the flood.
    println!(
        "  the last proxied session's log: {kept} lines kept, {not_kept} not kept ({})",
        if kept == u64::from(lines) + 5 && not_kept == 0 {
            "every line kept"
        } else {
            "LINES NOT KEPT"
        }
    );
}
