//! `toolscope call <SERVER> <TOOL>`: both halves of a result side by side, and the analysis.

use std::sync::Arc;

use clap::Args;
use serde_json::Value;

use super::{CliError, ServerArgs, arguments, call_report, output::say};
use toolscope_core::{
    engine::{self, AnsweredCall, CallWish, ServerView},
    history::{CalledServer, NewCall, Verdict},
    session::{
        ClientSide, ConnectOptions, EventSink, RequestControl, ServerConfig, ServerSummary,
        Session, SessionEvent, tasks::TaskStatus,
    },
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
pub struct CallArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool's name
    pub tool: String,
    #[command(flatten)]
    pub arguments: arguments::ToolArguments,
    /// Print one JSON document: raw result, analysis, protocol version, duration
    #[arg(long)]
    pub json: bool,
    /// Call the tool even if its x-mcp-header annotations are invalid (SEP-2243)
    #[arg(long)]
    pub force: bool,
    /// Do not record the call in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
    #[command(flatten)]
    pub answers: super::answer_flags::AnswerFlags,
    /// Run the call as a task when the tool allows it (execution.taskSupport), polling its
    /// status to the end; a tool that requires it runs as one anyway
    #[arg(long)]
    pub task: bool,
    /// Call again after each change in this folder (the server restarted), printing the
    /// result and what changed against the one before; Ctrl+C ends
    #[arg(long, value_name = "DIR")]
    pub watch: Option<std::path::PathBuf>,
}

/// A call answered, kept to compare the next one with (`--watch`).
struct Answered {
    outcome: toolscope_core::session::CallOutcome,
    analysis: toolscope_core::analysis::CallAnalysis,
}

pub async fn connect(server: &ServerArgs, events: EventSink) -> Result<Session, String> {
    let (config, options) = connect_options(server, events, ClientSide::default())?;
    let store: engine::OpenSecrets = Box::new(super::sign_in_flags::secret_store);
    engine::connect(&server.label(), &config, store, options)
        .await
        .map_err(|error| error.to_string())
}

/// How the command line connects to `server`, with Toolscope's side of the conversation given
/// (capabilities, roots, answers).
pub(super) fn connect_options(
    server: &ServerArgs,
    events: EventSink,
    client_side: ClientSide,
) -> Result<(ServerConfig, ConnectOptions), String> {
    let config = server.config()?;
    let timeouts = server.timeouts()?;
    let options = ConnectOptions {
        client_side,
        // Only an HTTP server signs in: a stdio command never opens the keyring.
        auth: match &config {
            ServerConfig::Http { .. } => Some(server.sign_in.options()?),
            ServerConfig::Stdio { .. } => None,
        },
        ..ConnectOptions::new(timeouts, events)
    };
    Ok((config, options))
}

/// `toolscope-demo 0.1.0 · protocol 2026-07-28 (server/discover)`.
pub fn server_line(summary: &ServerSummary) -> String {
    let name = terminal_safe(summary.name.as_deref().unwrap_or("(unnamed server)"));
    let version = terminal_safe(summary.version.as_deref().unwrap_or(""));
    format!(
        "{name} {version} · protocol {} ({})",
        terminal_safe(&summary.protocol_version),
        summary.lifecycle
    )
}

pub async fn run(args: CallArgs) -> Result<u8, CliError> {
    let Some(folder) = args.watch.clone() else {
        return call_once(&args).await.map(|(code, _)| code);
    };
    let mut watching = super::watching::Watching::start(&folder)?;
    let mut previous: Option<Answered> = None;
    loop {
        // A call that fails is said at once; watching goes on, and the last call's status is
        // the command's.
        let code = match call_once(&args).await {
            Ok((code, answered)) => {
                if let (Some(before), Some(now)) = (&previous, &answered) {
                    print_changes(before, now, args.json);
                }
                if answered.is_some() {
                    previous = answered;
                }
                code
            }
            Err(error) => error.exit(),
        };
        if !watching.wait_for_change().await {
            return Ok(code);
        }
    }
}

/// Connects, calls, prints and disconnects (the server's process ended and reaped); the exit
/// status of what was printed, and the answer.
async fn call_once(args: &CallArgs) -> Result<(u8, Option<Answered>), CliError> {
    let arguments = args.arguments.build()?;
    let timeouts = args.server.timeouts()?;
    let client_side = args.answers.client_side()?;
    let (config, options) = connect_options(&args.server, Arc::new(print_log_event), client_side)?;
    let store: engine::OpenSecrets = Box::new(super::sign_in_flags::secret_store);
    let reached = engine::reach(&args.server.label(), &config, store, options).await?;
    if let Some(warning) = &reached.warning {
        let name = terminal_safe(&args.tool);
        say(&format!(
            "warning: {warning}; `{name}` is sent without its definition"
        ));
    }
    let answered = call_and_report(&reached, args, arguments, timeouts).await;
    reached.session.close().await;
    answered
}

/// What changed since the call before, after the result (`--watch`).
fn print_changes(before: &Answered, now: &Answered, json: bool) {
    fn side(answered: &Answered) -> toolscope_core::compare::CallSide<'_> {
        let verdict =
            Verdict::of_analysis(answered.outcome.response.is_rpc_error(), &answered.analysis);
        toolscope_core::compare::CallSide::answered(
            &answered.outcome.response,
            &answered.analysis,
            verdict,
            Some(answered.outcome.duration),
        )
    }
    let comparison = toolscope_core::compare::CallComparison::new(&side(before), &side(now));
    let mut out = String::new();
    if comparison.is_same_result() {
        out.push_str("since the call before: the same result\n");
    } else {
        out.push_str("since the call before:\n");
        for line in comparison.summary_lines() {
            out.push_str(&format!("  {}\n", terminal_safe(&line)));
        }
        // The first changes themselves: the edit's effect at a glance.
        const SHOWN_CHANGES: usize = 5;
        for change in comparison.structured.changes.iter().take(SHOWN_CHANGES) {
            out.push_str(&format!(
                "    structuredContent{}\n",
                terminal_safe(&change.describe())
            ));
        }
    }
    // With --json, standard output holds the JSON documents only.
    if json {
        say(out.trim_end());
    } else {
        super::output::emit(&out);
    }
}

async fn call_and_report(
    reached: &engine::Reached,
    args: &CallArgs,
    arguments: serde_json::Map<String, Value>,
    timeouts: toolscope_core::session::Timeouts,
) -> Result<(u8, Option<Answered>), CliError> {
    let session = &reached.session;
    let wish = CallWish {
        force: args.force,
        prefer_task: args.task,
    };
    let view = ServerView::of(session, reached.catalog.as_ref());
    let plan = engine::plan(view, &args.tool, wish)
        .map_err(|refused| format!("{refused}. Pass --force to call it anyway"))?;
    for note in &plan.notes {
        say(&format!("note: {note}"));
    }
    // What the flags offer that the server's era deprecates (SEP-2577).
    let offered = [
        ("sampling", args.answers.sample.is_some()),
        ("roots", !args.answers.roots.is_empty()),
    ];
    for (feature, given) in offered {
        if given
            && let Some(note) = toolscope_core::session::catalog::capability_words::deprecation_note(
                session.summary(),
                feature,
            )
        {
            say(&format!("note: {note}"));
        }
    }

    let control = told_on_stderr(timeouts);
    let cancel = control.cancel.clone();
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            say("cancelling the call (the server is sent notifications/cancelled)…");
            cancel.cancel();
        }
    });
    let made = engine::make(session, plan, arguments, &control).await;
    interrupt.abort();
    let code = report_answer(session, args, &made)?;
    let answered = made.ended.ok().map(|answered| Answered {
        outcome: answered.outcome,
        analysis: answered.analysis,
    });
    Ok((code, answered))
}

/// A call's progress and task statuses, each a line on stderr as it comes.
fn told_on_stderr(timeouts: toolscope_core::session::Timeouts) -> RequestControl {
    RequestControl {
        on_progress: Arc::new(|update| {
            let total = update.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = update
                .message
                .map(|m| format!(" {}", terminal_safe(&m)))
                .unwrap_or_default();
            say(&format!("progress {}{total}{message}", update.progress));
        }),
        on_task_status: Arc::new(|task_id: &str, status: &TaskStatus| {
            say(&format!(
                "task {} {}",
                terminal_safe(task_id),
                terminal_safe(&status.describe())
            ));
        }),
        ..RequestControl::with_timeouts(timeouts)
    }
}

/// The call printed (or why it got no answer), and kept in the history meanwhile; returns the
/// exit code.
fn report_answer(
    session: &Session,
    args: &CallArgs,
    made: &engine::MadeCall,
) -> Result<u8, CliError> {
    let summary = session.summary();
    // The history is written while the report is printed (the response text is shared, not
    // copied); the command ends once both are done.
    let recording = (!args.no_history).then(|| {
        let server = CalledServer {
            label: &args.server.label(),
            summary: Some(summary),
        };
        let call = made.history_row(server);
        let history = args.history.clone();
        std::thread::Builder::new()
            .name("history".to_owned())
            .spawn(move || record(&history, call))
    });
    let code = match &made.ended {
        Ok(AnsweredCall { outcome, analysis }) => {
            let code = call_report::exit_code(&outcome.response, analysis);
            call_report::print(
                &call_report::CallShown {
                    server_json: serde_json::to_string(summary)
                        .unwrap_or_else(|_| "null".to_owned()),
                    server_line: server_line(summary),
                    protocol_version: &summary.protocol_version,
                    listed: made.plan.listed,
                    tool: &outcome.tool,
                    arguments: &outcome.arguments,
                    request_id: Some(&outcome.request_id),
                    duration: Some(outcome.duration),
                    duplicate_responses: outcome.duplicate_responses,
                    answer: call_report::Answer::Response {
                        response: &outcome.response,
                        analysis,
                    },
                    exit_code: code,
                    history: None,
                    rounds: Some(&outcome.rounds),
                },
                args.json,
            );
            Ok(code)
        }
        Err(error) => Err(CliError::Failure(error.to_string())),
    };
    match recording {
        Some(Ok(thread)) => {
            let _ = thread.join();
        }
        Some(Err(error)) => say(&format!("warning: the call was not recorded: {error}")),
        None => {}
    }
    code
}

/// Keeps the call in the history; a history that cannot be written is a warning, not a
/// failure of the call.
pub(super) fn record(history: &super::history_flag::HistoryFlag, call: NewCall) {
    let Some(mut store) = history.open_for_recording("the call was not recorded") else {
        return;
    };
    if let Err(error) = store.record(&call) {
        say(&format!(
            "warning: the call was not recorded: {error} (--no-history skips recording)"
        ));
    }
}

pub(super) fn print_log_event(event: SessionEvent) {
    if let SessionEvent::Log {
        level,
        logger,
        data,
    } = event
    {
        // `say` makes the server's text safe for the terminal.
        say(&format!(
            "server log {}",
            toolscope_core::session::events::log_line(&level, logger.as_deref(), &data)
        ));
        toolscope_core::deep_json::drop_value(data);
    }
}
