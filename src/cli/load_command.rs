//! `toolscope load <SERVER> <TOOL> --concurrency N (--calls M | --duration S)`: many calls of
//! one tool at once through the engine, then calls per second, latency percentiles, errors by
//! kind and the server's memory. Ctrl+C stops the run and prints the figures so far.

use std::{io::IsTerminal as _, sync::Arc, time::Duration};

use clap::Args;

use super::{CliError, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs, arguments, output::say};
use tokio_util::sync::CancellationToken;
use toolscope_core::{
    engine::{self, CallWish},
    load::{self, LoadBound, LoadFigures, LoadPlan, LoadTally, LoadTarget},
    session::{ClientSide, events::ignore_events},
    text_util::{count_noun, terminal_safe},
};

#[derive(Debug, Args)]
#[group(id = "bound", required = true, multiple = true, args = ["calls", "duration"])]
pub struct LoadArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool's name
    pub tool: String,
    /// The tool's arguments (every call sends the same)
    #[command(flatten)]
    pub arguments: arguments::ToolArguments,
    /// Callers at once, each on a session of its own (one server process each over stdio)
    #[arg(long, short = 'c', value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// Stop after this many calls in all
    #[arg(long, value_name = "M")]
    pub calls: Option<u64>,
    /// Stop after this many seconds (calls under way then are waited for)
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// All callers on one shared session instead of one session each
    #[arg(long)]
    pub shared: bool,
    /// Print the figures as one JSON document
    #[arg(long)]
    pub json: bool,
    /// Load a server that is not on this machine (by default only stdio servers and
    /// loopback URLs are loaded)
    #[arg(long)]
    pub allow_remote: bool,
}

pub async fn run(args: LoadArgs) -> Result<u8, CliError> {
    let arguments = args.arguments.build()?;
    super::open_files::raise_open_file_limit();
    let duration = args.duration.map(seconds).transpose()?;
    let plan = LoadPlan {
        tool: args.tool.clone(),
        arguments,
        concurrency: args.concurrency,
        bound: LoadBound {
            calls: args.calls,
            duration,
        },
        shared: args.shared,
        wish: CallWish::default(),
        timeouts: args.server.timeouts()?,
        allow_remote: args.allow_remote,
    };
    // Checked before the configuration is read, so a wrong size is said first.
    plan.check()?;
    let (config, options) =
        super::call_command::connect_options(&args.server, ignore_events(), ClientSide::default())?;
    let target = LoadTarget {
        name: args.server.label(),
        config,
        // Every session with the same options.
        connect: Box::new(move || {
            let store: engine::OpenSecrets = Box::new(super::sign_in_flags::secret_store);
            (store, options.clone())
        }),
    };

    let stop = CancellationToken::new();
    let tally = Arc::new(LoadTally::new());
    let interrupt = {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                say("stopping the load run (the calls under way are cancelled)…");
                stop.cancel();
            }
        })
    };
    let progress = std::io::stderr()
        .is_terminal()
        .then(|| tokio::spawn(tell_progress(tally.clone())));
    let ran = load::run(target, plan, stop, tally).await;
    interrupt.abort();
    if let Some(progress) = progress {
        progress.abort();
    }
    let figures = match ran {
        Ok(figures) => figures,
        Err(load::LoadError::StoppedConnecting) => return Err(CliError::Interrupted),
        Err(error) => return Err(error.into()),
    };
    if args.json {
        super::output::emit_json(&figures);
    } else {
        super::emit(&describe(&figures, &args.server.label()));
    }
    if figures.interrupted {
        return Err(CliError::Interrupted);
    }
    Ok(if figures.errors.total() == 0 {
        EXIT_OK
    } else {
        EXIT_TOOL_PROBLEM
    })
}

fn seconds(value: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|duration| !duration.is_zero())
        .ok_or_else(|| {
            CliError::from(format!(
                "--duration must be a positive number of seconds, not {value}"
            ))
        })
}

/// A line on stderr every two seconds while the run goes on (only on a terminal).
async fn tell_progress(tally: Arc<LoadTally>) {
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    tick.tick().await;
    loop {
        tick.tick().await;
        let progress = tally.progress();
        if progress.elapsed.is_zero() {
            continue;
        }
        say(&format!(
            "… {} in {:.1} s, {}",
            count_noun(progress.done as usize, "call", "calls"),
            progress.elapsed.as_secs_f64(),
            count_noun(progress.failed as usize, "error", "errors")
        ));
    }
}

/// The figures as a person reads them.
fn describe(figures: &LoadFigures, server: &str) -> String {
    let mut out = String::new();
    let callers = if figures.shared {
        format!(
            "{} on one shared session",
            count_noun(figures.concurrency, "caller", "callers")
        )
    } else {
        format!(
            "{} on a session each",
            count_noun(figures.concurrency, "caller", "callers")
        )
    };
    outln!(
        &mut out,
        "load: {} on {} · {callers}",
        terminal_safe(&figures.tool),
        terminal_safe(server)
    );
    for note in &figures.notes {
        outln!(&mut out, "note: {}", terminal_safe(note));
    }
    let planned = figures
        .planned_calls
        .map(|planned| format!(" of {planned}"))
        .unwrap_or_default();
    outln!(
        &mut out,
        "{}{planned} in {:.2} s · {:.1} calls/s (connecting took {:.2} s)",
        count_noun(figures.calls as usize, "call", "calls"),
        figures.seconds,
        figures.calls_per_second,
        figures.connect_seconds
    );
    if figures.interrupted {
        outln!(
            &mut out,
            "stopped before its end: the figures so far ({} under way cancelled, not counted)",
            count_noun(figures.stopped as usize, "call", "calls")
        );
    }
    outln!(
        &mut out,
        "ok {} · errors {}",
        figures.ok,
        figures.errors.total()
    );
    for words in figures.errors_in_words() {
        outln!(&mut out, "  {}", terminal_safe(&words));
    }
    if figures.lost_sessions > 0 {
        outln!(
            &mut out,
            "{} closed during the run: their callers stopped",
            count_noun(figures.lost_sessions as usize, "session", "sessions")
        );
    }
    match &figures.latency {
        Some(latency) => {
            outln!(
                &mut out,
                "latency p50 {:.2} ms · p95 {:.2} ms · p99 {:.2} ms · max {:.2} ms (min {:.2} ms, mean {:.2} ms, over {})",
                latency.p50_ms,
                latency.p95_ms,
                latency.p99_ms,
                latency.max_ms,
                latency.min_ms,
                latency.mean_ms,
                count_noun(latency.answered as usize, "answered call", "answered calls")
            );
            out.push_str(&histogram_lines(figures));
        }
        None => outln!(&mut out, "latency: no call was answered"),
    }
    outln!(
        &mut out,
        "server memory: {}",
        figures.server_memory.describe()
    );
    out
}

/// The histogram as bars of `#`, one line per bar, the widest 40 characters.
fn histogram_lines(figures: &LoadFigures) -> String {
    const WIDTH: u64 = 40;
    let most = figures
        .histogram
        .iter()
        .map(|bar| bar.calls)
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    if most == 0 {
        return out;
    }
    for bar in &figures.histogram {
        let width = (bar.calls * WIDTH).div_ceil(most) as usize;
        outln!(
            &mut out,
            "  {:>9.2} – {:>9.2} ms {:>8} {}",
            bar.from_ms,
            bar.to_ms,
            bar.calls,
            "#".repeat(width)
        );
    }
    out
}
