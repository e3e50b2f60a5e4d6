//! The CLI on a big result against a floor, both against `toolscope demo-server`'s
//! `large_result` tool (plain `Instant`, no harness). Run with `cargo bench --bench big_result`.
//!
//! - floor: a bare client that spawns the server, does the `initialize` handshake, sends the
//!   call and reads the raw response line (no rmcp, no parsing);
//! - CLI: `toolscope call --demo large_result --arg nodes=N --json > /dev/null`, recording the
//!   call in a history of its own as it does for a user, wall time and peak RSS (`VmHWM`,
//!   sampled until the process exits; it only grows).
//!
//! Prints a table; nothing is asserted. `BIG_RESULT_NODES=100000,1000000` picks the sizes.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

const BINARY: &str = env!("CARGO_BIN_EXE_toolscope");
const RUNS: usize = 3;

struct Floor {
    wall: Duration,
    response_bytes: usize,
}

/// Spawns the server, handshakes, calls, and reads lines until the response to the call.
fn floor(nodes: u64) -> Floor {
    let started = Instant::now();
    let mut server = Command::new(BINARY)
        .arg("demo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {BINARY}: {error}"));
    let mut stdin = server.stdin.take().unwrap_or_else(|| panic!("piped stdin"));
    let mut stdout = BufReader::with_capacity(
        1 << 20,
        server
            .stdout
            .take()
            .unwrap_or_else(|| panic!("piped stdout")),
    );
    let mut send = |line: String| {
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|error| panic!("writing to the server: {error}"));
    };
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}"#
            .to_owned(),
    );
    let mut line = Vec::new();
    read_response(&mut stdout, &mut line, b"\"id\":1");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
    send(format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"large_result","arguments":{{"nodes":{nodes}}}}}}}"#
    ));
    read_response(&mut stdout, &mut line, b"\"id\":2");
    let wall = started.elapsed();
    // Closing stdin ends the server.
    drop(stdin);
    finish(server);
    Floor {
        wall,
        response_bytes: line.len(),
    }
}

/// Reads lines until one holds `id` near its start (the response), leaving it in `line`.
fn read_response(stdout: &mut impl BufRead, line: &mut Vec<u8>, id: &[u8]) {
    loop {
        line.clear();
        let read = stdout
            .read_until(b'\n', line)
            .unwrap_or_else(|error| panic!("reading the server: {error}"));
        assert!(read > 0, "the server closed its stdout");
        let head = &line[..line.len().min(64)];
        if head.windows(id.len()).any(|window| window == id) {
            return;
        }
    }
}

fn finish(mut server: Child) {
    drop(server.stdin.take());
    let _ = server.wait();
}

struct CliRun {
    wall: Duration,
    peak_rss_kib: u64,
}

/// The CLI records every call in its history, as it does for a user: here in a folder of
/// the benchmark's own.
fn bench_data_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("toolscope-bench-data-{}", std::process::id()))
}

fn cli(nodes: u64) -> CliRun {
    let started = Instant::now();
    let mut child = Command::new(BINARY)
        .args(["call", "--demo", "large_result", "--json", "--arg"])
        .arg(format!("nodes={nodes}"))
        .env("TOOLSCOPE_DATA_DIR", bench_data_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {BINARY}: {error}"));
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Some(hwm) = std::fs::read_to_string(&status_path)
            .ok()
            .and_then(|status| vm_hwm_kib(&status))
        {
            peak = peak.max(hwm);
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(error) => panic!("waiting for the CLI: {error}"),
        }
    }
    CliRun {
        wall: started.elapsed(),
        peak_rss_kib: peak,
    }
}

fn vm_hwm_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    let sizes: Vec<u64> = std::env::var("BIG_RESULT_NODES").ok().map_or_else(
        || vec![100_000, 1_000_000, 3_000_000],
        |text| {
            text.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        },
    );
    println!("big_result: median of {RUNS} runs each, {BINARY}");
    println!(
        "{:>10} {:>10} {:>10} {:>10} {:>7} {:>10} {:>9}",
        "nodes", "response", "floor", "CLI", "ratio", "peak RSS", "RSS/resp"
    );
    for nodes in sizes {
        let mut floors = Vec::new();
        let mut clis = Vec::new();
        let mut peak = 0;
        let mut bytes = 0;
        for _ in 0..RUNS {
            let run = floor(nodes);
            bytes = run.response_bytes;
            floors.push(run.wall);
            let run = cli(nodes);
            peak = peak.max(run.peak_rss_kib);
            clis.push(run.wall);
        }
        let floor = median(floors);
        let cli = median(clis);
        let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
        println!(
            "{nodes:>10} {:>7.1} MiB {:>7.0} ms {:>7.0} ms {:>6.2}× {:>6.0} MiB {:>8.2}×",
            mib(bytes as f64),
            floor.as_secs_f64() * 1000.0,
            cli.as_secs_f64() * 1000.0,
            cli.as_secs_f64() / floor.as_secs_f64(),
            mib(peak as f64 * 1024.0),
            (peak as f64 * 1024.0) / bytes as f64,
        );
    }
    let _ = std::fs::remove_dir_all(bench_data_dir());
}
