//! `toolscope run <FILE>`: every case of a case file, one line each, with JUnit XML and a
//! report on request. Exit 0 when all pass, 1 when any fails, 2 when the server is not reached.

use std::path::PathBuf;

use clap::Args;

use super::{
    CliError, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs,
    call_command::server_line,
    output::{emit, emit_json, say},
};
use toolscope_core::{
    cases::{CaseAsker, CaseFile, CaseRun, RunSummary, junit_xml, run_case},
    history::{CalledServer, HistoryStore, started_ago},
    report::{Report, ReportEntry, ServerIdentity},
    session::{ConnectOptions, RequestControl, events::ignore_events},
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
#[command(mut_group("server", |group| group.required(false)))]
pub struct RunArgs {
    /// The case file (TOML)
    pub file: PathBuf,
    /// A server (--demo, --stdio, --url) to run the cases on instead of the file's
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print one JSON document with every case's outcome instead of lines
    #[arg(long)]
    pub json: bool,
    /// Also write JUnit XML here (one testcase per case)
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Also write a report here: Markdown (.md) or a self-contained HTML file (.html)
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Do not record the calls in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
    /// Run the cases again after each change in this folder (the server restarted), printing
    /// the summary each time; Ctrl+C ends
    #[arg(long, value_name = "DIR")]
    pub watch: Option<PathBuf>,
}

/// The case file, checked: it has cases, and a report asked for has a format.
fn read_cases(args: &RunArgs) -> Result<CaseFile, String> {
    let file = CaseFile::read(&args.file).map_err(|error| error.to_string())?;
    if file.cases.is_empty() {
        return Err(format!(
            "{} has no [[case]]; add one (see `toolscope run --help` and docs/guide/qa-sessions.md)",
            args.file.display()
        ));
    }
    if let Some(report) = args.report.as_deref() {
        toolscope_core::report::ReportFormat::of_path(report).map_err(|error| error.to_string())?;
    }
    Ok(file)
}

/// The server the cases run on: the command line's, else the file's (its variables filled
/// from the environment); its label and timeouts.
fn server_of_run(
    args: &RunArgs,
    file: &CaseFile,
) -> Result<
    (
        toolscope_core::session::ServerConfig,
        String,
        toolscope_core::session::Timeouts,
    ),
    String,
> {
    let server = &args.server;
    let command_line_timeouts = server.timeouts()?;
    if !server.is_given()
        && (!server.env.is_empty() || server.cwd.is_some() || !server.headers.is_empty())
    {
        return Err(
            "--env, --cwd and --header go with a server given here (--demo, --stdio or \
                    --url); the file's own server takes them in its [server] section"
                .to_owned(),
        );
    }
    if server.is_given() {
        return Ok((server.config()?, server.label(), command_line_timeouts));
    }
    let Some(file_server) = file.server.as_ref() else {
        return Err(format!(
            "{} has no [server] section; add one, or pass --demo, --stdio or --url",
            args.file.display()
        ));
    };
    let timeouts = match server.timeout {
        Some(_) => command_line_timeouts,
        None => file_server.timeouts(),
    };
    let config = file_server
        .config(&file.folder(), &|name| std::env::var(name).ok())
        .map_err(|error| format!("{}: {error}", args.file.display()))?;
    Ok((config, file_server.label(), timeouts))
}

/// Runs the file's cases one by one on a connected session.
struct CaseRunning<'a> {
    session: &'a toolscope_core::session::Session,
    catalog: Option<&'a toolscope_core::session::ToolCatalog>,
    asker: &'a CaseAsker,
    control: &'a RequestControl,
    /// How the history names the server.
    label: &'a str,
    /// Print a line for each case as it ends (not with --json).
    show_lines: bool,
}

impl CaseRunning<'_> {
    /// Each case in order, until the run is cancelled; each recorded in `history` (when it
    /// can be: a history that fails is given up with a warning).
    async fn run_all(
        &self,
        file: &CaseFile,
        mut history: Option<Box<dyn HistoryStore>>,
    ) -> Vec<CaseRun> {
        let mut runs = Vec::with_capacity(file.cases.len());
        for case in &file.cases {
            if self.control.cancel.is_cancelled() {
                break;
            }
            let run = run_case(
                self.session,
                self.catalog,
                case,
                Some(self.asker),
                self.control,
            )
            .await;
            if self.show_lines {
                emit(&case_lines(&run));
            }
            if let Some(store) = history.as_mut() {
                let server = CalledServer {
                    label: self.label,
                    summary: Some(self.session.summary()),
                };
                let recorded = run
                    .to_new_call(server)
                    .map_or(Ok(()), |row| store.record(&row).map(drop));
                if let Err(error) = recorded {
                    say(&format!("warning: the call was not recorded: {error}"));
                    history = None;
                }
            }
            runs.push(run);
        }
        runs
    }
}

pub async fn run(args: RunArgs) -> Result<u8, CliError> {
    let Some(folder) = args.watch.clone() else {
        return run_once(&args).await;
    };
    let mut watching = super::watching::Watching::start(&folder)?;
    loop {
        // The file is read again too: a case edited counts as a change. A run that fails is
        // said at once; watching goes on, and the last run's status is the command's.
        let code = run_once(&args).await.unwrap_or_else(CliError::exit);
        if !watching.wait_for_change().await {
            return Ok(code);
        }
    }
}

/// Reads the file, runs its cases on a fresh connection (the server's process ended and
/// reaped after), prints and writes what was asked; returns the exit code.
async fn run_once(args: &RunArgs) -> Result<u8, CliError> {
    let file = read_cases(args)?;
    let (config, label, timeouts) = server_of_run(args, &file)?;
    let suite = Suite {
        name: args.file.file_name().map_or_else(
            || "cases".to_owned(),
            |name| name.to_string_lossy().into_owned(),
        ),
        started_at: started_ago(std::time::Duration::ZERO),
        label,
        private_url: match &config {
            toolscope_core::session::ServerConfig::Http { url, .. } => Some(url.clone()),
            toolscope_core::session::ServerConfig::Stdio { .. } => None,
        },
    };
    // Nobody attends a run: each case's [case.answers] answers what the server asks.
    let asker = CaseAsker::default();
    let options = ConnectOptions {
        client_side: asker.client_side(&file.cases),
        ..ConnectOptions::new(timeouts, ignore_events())
    };
    let (session, catalog) = match reach(args, &suite, &config, options).await {
        Ok(reached) => reached,
        Err(problem) => return Err(suite.unreachable(args, problem)),
    };
    if !args.json {
        emit(&server_line(session.summary()));
    }
    let control = RequestControl::with_timeouts(timeouts);
    let cancel = control.cancel.clone();
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            say("cancelling the run (the server is sent notifications/cancelled)…");
            cancel.cancel();
        }
    });
    let each = CaseRunning {
        session: &session,
        catalog: catalog.as_ref(),
        asker: &asker,
        control: &control,
        label: &suite.label,
        show_lines: !args.json,
    };
    let mut runs = each
        .run_all(
            &file,
            (!args.no_history)
                .then(|| {
                    args.history
                        .open_for_recording("the calls are not recorded")
                })
                .flatten(),
        )
        .await;
    interrupt.abort();
    for run in &mut runs {
        if let toolscope_core::cases::CaseResult::NoAnswer { error, .. } = &mut run.result {
            *error = suite.public(std::mem::take(error));
        }
    }
    let summary = RunSummary {
        suite_name: suite.name,
        server_label: suite.label,
        summary: Some(session.summary().clone()),
        started_at: suite.started_at,
        connect_error: None,
        runs,
    };
    session.close().await;
    finish(
        args,
        &summary,
        file.cases.len(),
        control.cancel.is_cancelled(),
    )
}

/// The run's name, start and server, for every message and file it writes.
struct Suite {
    name: String,
    started_at: String,
    label: String,
    /// A URL filled in from the environment, named without its secrets in every message.
    private_url: Option<String>,
}

impl Suite {
    fn public(&self, message: String) -> String {
        match &self.private_url {
            Some(url) => message.replace(
                url.as_str(),
                &toolscope_core::session::config::url_label(url),
            ),
            None => message,
        }
    }

    /// What the run says, and writes, when the server could not be used at all.
    fn unreachable(self, args: &RunArgs, problem: String) -> CliError {
        let summary = RunSummary {
            suite_name: self.name,
            server_label: self.label,
            summary: None,
            started_at: self.started_at,
            connect_error: Some(problem.clone()),
            runs: Vec::new(),
        };
        if args.json {
            emit_json(&json_report(&summary));
        }
        let mut failures = write_files(args, &summary);
        failures.push(problem);
        CliError::Failures(failures)
    }
}

/// Connects the run's server and lists its tools (without them, the cases are still called;
/// a server that cannot list them at all is unreachable: the problem in words).
async fn reach(
    args: &RunArgs,
    suite: &Suite,
    config: &toolscope_core::session::ServerConfig,
    options: ConnectOptions,
) -> Result<
    (
        toolscope_core::session::Session,
        Option<toolscope_core::session::ToolCatalog>,
    ),
    String,
> {
    // A saved server (--server NAME) may keep secret values in the store; a case file's never.
    let open_secrets: toolscope_core::engine::OpenSecrets = if args.server.is_given() {
        Box::new(super::sign_in_flags::secret_store)
    } else {
        toolscope_core::engine::no_secret_store("a case file's server keeps no secrets")
    };
    let reached = toolscope_core::engine::reach(&suite.label, config, open_secrets, options)
        .await
        .map_err(|error| suite.public(error.to_string()))?;
    if let Some(warning) = &reached.warning {
        say(&format!(
            "warning: {}; the cases are called without their tools' definitions",
            suite.public(warning.to_string())
        ));
    }
    Ok((reached.session, reached.catalog))
}

/// The totals (or the JSON report), the files asked for, and the exit status: a failure when
/// a file cannot be written, interrupted, else whether every case passed.
fn finish(
    args: &RunArgs,
    summary: &RunSummary,
    cases: usize,
    interrupted: bool,
) -> Result<u8, CliError> {
    if args.json {
        emit_json(&json_report(summary));
    } else {
        emit(&totals(summary, cases));
    }
    let failures = write_files(args, summary);
    if !failures.is_empty() {
        return Err(CliError::Failures(failures));
    }
    if interrupted {
        return Err(CliError::Interrupted);
    }
    Ok(if summary.all_passed() {
        EXIT_OK
    } else {
        EXIT_TOOL_PROBLEM
    })
}

/// `PASS  add wraps a scalar  (add, 12 ms)` and, for a failure, one line per reason.
fn case_lines(run: &CaseRun) -> String {
    let word = if run.passed() { "PASS" } else { "FAIL" };
    let what = match run.kind {
        toolscope_core::history::CallKind::Call => terminal_safe(&run.tool).into_owned(),
        kind => format!("{kind} {}", terminal_safe(&run.tool)),
    };
    let mut out = format!(
        "{word}  {}  ({what}, {} ms)",
        terminal_safe(&run.name),
        run.duration().as_millis()
    );
    for note in run.notes() {
        out.push_str("\n      note: ");
        out.push_str(&terminal_safe(note));
    }
    for reason in run.failure_sentences() {
        out.push_str("\n      ");
        out.push_str(&terminal_safe(&reason));
    }
    out
}

fn totals(summary: &RunSummary, planned: usize) -> String {
    let mut line = format!(
        "{} case(s): {} passed, {} failed",
        summary.runs.len(),
        summary.passed(),
        summary.failed()
    );
    if summary.runs.len() < planned {
        line.push_str(&format!(
            "; {} not run (interrupted)",
            planned - summary.runs.len()
        ));
    }
    line
}

#[derive(serde::Serialize)]
struct JsonRun<'a> {
    file: &'a str,
    server: &'a str,
    server_summary: Option<&'a toolscope_core::session::ServerSummary>,
    started_at: &'a str,
    passed: usize,
    failed: usize,
    cases: Vec<JsonCase<'a>>,
}

#[derive(serde::Serialize)]
struct JsonCase<'a> {
    name: &'a str,
    /// call, read or prompt.
    kind: toolscope_core::history::CallKind,
    /// The tool's name, the resource's URI or the prompt's name.
    tool: &'a str,
    passed: bool,
    verdict: &'static str,
    duration_ms: u128,
    failures: Vec<&'a toolscope_core::cases::Failure>,
    no_answer: Option<String>,
    /// How the call was sent (unlisted, forced, as a task), a sentence each.
    notes: &'a [String],
}

fn json_report(summary: &RunSummary) -> JsonRun<'_> {
    JsonRun {
        file: &summary.suite_name,
        server: &summary.server_label,
        server_summary: summary.summary.as_ref(),
        started_at: &summary.started_at,
        passed: summary.passed(),
        failed: summary.failed(),
        cases: summary
            .runs
            .iter()
            .map(|run| {
                let (failures, no_answer) = match &run.result {
                    toolscope_core::cases::CaseResult::Answered { failures, .. }
                    | toolscope_core::cases::CaseResult::Fetched { failures, .. } => {
                        (failures.iter().collect(), None)
                    }
                    toolscope_core::cases::CaseResult::NoAnswer { error, .. } => {
                        (Vec::new(), Some(error.clone()))
                    }
                    toolscope_core::cases::CaseResult::Refused(refused) => {
                        (Vec::new(), Some(format!("not sent: {refused}")))
                    }
                };
                JsonCase {
                    name: &run.name,
                    kind: run.kind,
                    tool: &run.tool,
                    passed: run.passed(),
                    verdict: run.verdict().as_str(),
                    duration_ms: run.duration().as_millis(),
                    failures,
                    no_answer,
                    notes: run.notes(),
                }
            })
            .collect(),
    }
}

/// The JUnit XML and the report, when asked for; what could not be written, in words (empty
/// when everything asked for was written).
fn write_files(args: &RunArgs, summary: &RunSummary) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(path) = &args.junit {
        let xml = junit_xml(summary);
        if let Err(error) =
            toolscope_core::atomic_file::write_atomically(path, |out| out.write_all(xml.as_bytes()))
        {
            failures.push(format!("the JUnit file: {error}"));
        }
    }
    if let Some(path) = &args.report {
        let server = ServerIdentity::new(&summary.server_label, summary.summary.as_ref());
        let report = Report {
            title: format!("Toolscope cases: {}", summary.suite_name),
            generated_at: started_ago(std::time::Duration::ZERO),
            summary: Some(match &summary.connect_error {
                Some(error) => format!("The server could not be reached: {error}"),
                None => format!(
                    "{} case(s): {} passed, {} failed",
                    summary.runs.len(),
                    summary.passed(),
                    summary.failed()
                ),
            }),
            entries: summary
                .runs
                .iter()
                .map(|run| ReportEntry::from_case(run, &server, None))
                .collect(),
        };
        if let Err(error) = report.write(path) {
            failures.push(error.to_string());
        }
    }
    failures
}
