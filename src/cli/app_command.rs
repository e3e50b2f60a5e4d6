//! `toolscope app <SERVER> <TOOL>`: a tool's MCP App run for real. The tool is called (and
//! kept in the history), its `ui://` HTML is served on loopback behind a sandbox on another
//! origin, the page is opened in the system browser, and every message over the bridge is
//! printed as it passes; the app's own calls go through Toolscope to its server and into the
//! history with the app's name. Ctrl+C ends it (the app is asked to tear down first).

use std::{io::IsTerminal as _, net::SocketAddr, sync::Arc};

use clap::Args;
use tokio::sync::mpsc;

use super::{
    CliError, EXIT_OK, ServerArgs, arguments,
    call_command::{connect_options, print_log_event, record},
    output::{emit, say},
};
use toolscope_core::{
    apps::{self, AppEvent, AppRun, BridgeEntry, PageState, ToolOutcome},
    engine::{self, CallWish},
    history::CalledServer,
    session::{ClientSide, RequestControl},
    text_util::{one_line, terminal_safe},
};

/// How long the server has to exit once the app is done (the process reaps it after).
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

#[derive(Debug, Args)]
pub struct AppArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool whose app to run
    pub tool: String,
    #[command(flatten)]
    pub arguments: arguments::ToolArguments,
    /// Where the app's page listens (loopback only) [default: a free port]
    #[arg(long, value_name = "127.0.0.1:PORT")]
    pub listen: Option<SocketAddr>,
    /// Print the page's address only: open no browser
    #[arg(long)]
    pub no_open: bool,
    /// Print the bridge log as JSON lines
    #[arg(long)]
    pub json: bool,
    /// Do not record the calls in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
}

pub async fn run(args: AppArgs) -> Result<u8, CliError> {
    let arguments = args.arguments.build()?;
    let timeouts = args.server.timeouts()?;
    let label = args.server.label();
    let (config, options) = connect_options(
        &args.server,
        Arc::new(print_log_event),
        ClientSide::default(),
    )?;
    let store: engine::OpenSecrets = Box::new(super::sign_in_flags::secret_store);
    let reached = engine::reach(&label, &config, store, options).await?;
    let catalog = reached.catalog.map(Arc::new);
    let session = Arc::new(reached.session);
    let Some(tool) = catalog
        .as_deref()
        .and_then(|catalog| catalog.find(&args.tool))
        .cloned()
    else {
        session.close_and_wait(CLOSE_GRACE).await;
        return Err(CliError::Failure(format!(
            "the server lists no tool {:?} (toolscope tools lists them)",
            terminal_safe(&args.tool)
        )));
    };
    let control = RequestControl::with_timeouts(timeouts);
    let app = match apps::read_app(&session, &tool.raw, &control).await {
        Ok(app) => app,
        Err(error) => {
            session.close_and_wait(CLOSE_GRACE).await;
            return Err(error.into());
        }
    };
    for warning in &app.warnings {
        say(&format!("warning: {}: {warning}", terminal_safe(&app.uri)));
    }
    // The tool is called first, as a host does; the app is given its input and result.
    let made = engine::call(
        &session,
        catalog.as_deref(),
        &tool.name,
        arguments.clone(),
        CallWish::default(),
        &control,
    )
    .await?;
    keep(
        &args,
        made.history_row(CalledServer {
            label: &label,
            summary: Some(session.summary()),
        }),
    );
    let outcome = match &made.ended {
        Ok(answered) => match answered.outcome.response.rpc_error() {
            Some((code, message)) => ToolOutcome::Cancelled(format!(
                "the server answered JSON-RPC error {code}: {message}"
            )),
            None => ToolOutcome::Result(answered.outcome.response.member().to_value()),
        },
        Err(error) => ToolOutcome::Cancelled(error.to_string()),
    };
    let (sender, mut events) = mpsc::unbounded_channel();
    let running = apps::start(
        AppRun {
            server_label: label,
            session: Arc::clone(&session),
            catalog,
            tool,
            arguments,
            outcome,
            app,
            timeouts,
            theme: "light",
            listen: args.listen,
            opener: Arc::new(toolscope_core::auth::browser::open),
        },
        Arc::new(move |event| {
            let _ = sender.send(event);
        }),
    )
    .await?;
    // The first line says where the page is (a script may read it).
    emit(&format!("app: {}\n", running.url));
    say("Ctrl+C ends the app (it is asked to tear down first)");
    if !args.no_open {
        match toolscope_core::auth::browser::open(&running.url) {
            Ok(how) => say(&format!("the page was {how}")),
            Err(error) => say(&format!(
                "no browser opened ({error}): open the address above"
            )),
        }
    }
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(event) => handle(&args, event),
                None => break,
            },
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    // The teardown is logged as it goes: Ctrl+C leaves the command two seconds to end.
    let closing = running.close();
    let mut closing = std::pin::pin!(closing);
    loop {
        tokio::select! {
            () = &mut closing => break,
            Some(event) = events.recv() => handle(&args, event),
        }
    }
    while let Ok(event) = events.try_recv() {
        handle(&args, event);
    }
    session.close_and_wait(CLOSE_GRACE).await;
    Ok(EXIT_OK)
}

fn handle(args: &AppArgs, event: AppEvent) {
    match event {
        AppEvent::Logged(entry) => print_entry(&entry, args.json),
        AppEvent::Page(state) => say(&match state {
            PageState::Waiting => "waiting for a browser to open the page".to_owned(),
            PageState::Opened => "a page opened the app".to_owned(),
            PageState::Running(app) => format!("the app is running: {}", terminal_safe(&app)),
            PageState::Closed => "the page closed".to_owned(),
        }),
        AppEvent::OpenLink { url, answer } => {
            let yes = ask_to_open(&url);
            let _ = answer.send(yes);
        }
        AppEvent::Called(row) => keep(args, *row),
    }
}

/// One line of the bridge log: time, direction, method and id, then what it means (or the
/// payload, cut).
fn print_entry(entry: &BridgeEntry, json: bool) {
    if json {
        emit(&format!(
            "{}\n",
            serde_json::to_string(entry).unwrap_or_default()
        ));
        return;
    }
    let id = entry
        .id
        .as_deref()
        .map(|id| format!(" #{id}"))
        .unwrap_or_default();
    let what = entry
        .note
        .clone()
        .unwrap_or_else(|| one_line(&entry.payload, 160));
    emit(&format!(
        "{:>7} ms  {:<13}  {}{}  {}\n",
        entry.at.as_millis(),
        entry.direction.arrow(),
        terminal_safe(&entry.method),
        terminal_safe(&id),
        terminal_safe(&what)
    ));
}

/// Asks on the terminal whether to open a link the app asks for; no terminal, no.
fn ask_to_open(url: &str) -> bool {
    let url = terminal_safe(url);
    if !std::io::stdin().is_terminal() {
        say(&format!(
            "the app asks to open {url}: not opened (no terminal to ask on)"
        ));
        return false;
    }
    say(&format!("the app asks to open {url}. Open it? [y/N]"));
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).is_ok() && line.trim().eq_ignore_ascii_case("y")
}

/// Keeps a call in the history (off the async workers), unless told not to.
fn keep(args: &AppArgs, row: toolscope_core::history::NewCall) {
    if args.no_history {
        return;
    }
    let history = args.history.clone();
    tokio::task::spawn_blocking(move || record(&history, row));
}
