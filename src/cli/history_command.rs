//! `toolscope history`: the calls kept in the history, and one of them shown again.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::Value;

use super::{
    CliError, EXIT_FAILURE, EXIT_OK, call_report,
    output::{emit, emit_json, say},
};
use toolscope_core::{
    history::{CallKind, CallQuery, HistoryStore, StoredAnswer, StoredCall, Verdict},
    text_util::{clip_chars, terminal_safe},
};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: Option<HistoryCommand>,
    #[command(flatten)]
    pub filters: Filters,
    /// How many calls to list, newest first
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Group the calls by tool (resource, prompt): how many, how many not ok, and their
    /// median (p50), 95th percentile and slowest duration
    #[arg(long)]
    pub by_tool: bool,
    /// Read the calls from this recording (made by `history export`) instead of the history
    #[arg(long, value_name = "FILE", global = true, conflicts_with = "history")]
    pub recording: Option<PathBuf>,
    #[command(flatten)]
    pub history: super::history_flag::HistoryFlag,
}

/// Which calls are listed: by server, tool, verdict and text.
#[derive(Debug, Clone, clap::Args)]
pub struct Filters {
    /// Only calls to this server (its saved name, or the command line or URL used)
    #[arg(long)]
    pub server: Option<String>,
    /// Only this kind: call (tools/call), read (resources/read) or prompt (prompts/get)
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<CallKind>,
    /// Only calls of this tool (a read's URI, a prompt's name)
    #[arg(long)]
    pub tool: Option<String>,
    /// Only calls with this verdict: ok, tool_error, protocol_error, contract_violated,
    /// cancelled, timeout or failed
    #[arg(long, value_parser = parse_verdict)]
    pub verdict: Option<Verdict>,
    /// Only calls whose tool, server, arguments or note contain this text
    #[arg(long)]
    pub text: Option<String>,
    /// Only the calls of this session seen through `toolscope proxy` (ids from
    /// `history sessions`)
    #[arg(long, value_name = "ID")]
    pub session: Option<i64>,
    /// Only the calls recorded on this machine (a shared history: TOOLSCOPE_MACHINE, else
    /// its host name)
    #[arg(long)]
    pub machine: Option<String>,
    /// Only the calls this person recorded (TOOLSCOPE_PERSON, the settings' person, else
    /// the OS user)
    #[arg(long)]
    pub person: Option<String>,
}

impl Filters {
    /// The query of these filters, the newest `limit` calls.
    fn query(&self, limit: usize) -> CallQuery {
        CallQuery {
            kind: self.kind,
            server: self.server.clone(),
            tool: self.tool.clone(),
            verdict: self.verdict,
            text: self.text.clone(),
            session: self.session,
            through_proxy: false,
            limit: Some(limit),
            before_id: None,
            after_id: None,
            machine: self.machine.clone(),
            person: self.person.clone(),
        }
    }
}

/// Which calls `export` and `report` take: these ids, or the calls the filters list.
#[derive(Debug, Clone, clap::Args)]
pub struct Selection {
    /// These calls (ids from `toolscope history`, comma-separated); else the filters
    #[arg(long, value_delimiter = ',', value_name = "ID,ID…")]
    pub ids: Vec<i64>,
    #[command(flatten)]
    pub filters: Filters,
    /// How many calls at most, the newest
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Copy the local history (calls, reads, prompts, ended proxy sessions with their logs)
    /// into the team's PostgreSQL history (--history URL, TOOLSCOPE_HISTORY_URL or the
    /// settings' history_url), once: what was pushed before is not sent again
    Push {
        /// The local history to copy [default: history.sqlite3 in Toolscope's data folder]
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Print what was sent as JSON
        #[arg(long)]
        json: bool,
    },
    /// List the sessions seen through `toolscope proxy`: client, server, start, calls, end
    Sessions {
        /// How many, newest first
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Print a proxied session's protocol log: every line that passed, in order (a call's
    /// answer as `call #ID`: `history show ID` prints it)
    Log {
        /// The session's id (from `history sessions`)
        session: i64,
        /// Print JSON (one object per line, with the full text)
        #[arg(long)]
        json: bool,
    },
    /// Compare two proxied sessions: the tools each was given (added, removed, changed),
    /// then their calls matched by tool and arguments, with their results and durations
    Diff {
        /// The first session's id (from `history sessions`)
        old: i64,
        /// The second session's id
        new: i64,
        /// Print one JSON document
        #[arg(long)]
        json: bool,
    },
    /// Print one call as `toolscope call` printed it (analysed again)
    Show {
        /// The call's id (the first column of `toolscope history`)
        id: i64,
        /// Print one JSON document, as `call --json` does
        #[arg(long)]
        json: bool,
    },
    /// Write calls as a JSON recording (each response as received) that another Toolscope
    /// opens offline with --recording
    Export {
        #[command(flatten)]
        selection: Selection,
        /// The recording file to write
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
    },
    /// Write a report of calls with their notes: Markdown (.md) or self-contained HTML (.html)
    Report {
        #[command(flatten)]
        selection: Selection,
        /// The report file to write (.md or .html)
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
        /// The report's title
        #[arg(long, default_value = "Toolscope QA session")]
        title: String,
    },
}

fn parse_kind(word: &str) -> Result<CallKind, String> {
    CallKind::parse(word).ok_or_else(|| "not a kind; use call, read or prompt".to_owned())
}

fn parse_verdict(word: &str) -> Result<Verdict, String> {
    Verdict::parse(word).ok_or_else(|| {
        let words: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        format!("not a verdict; use one of {}", words.join(", "))
    })
}

fn open(args: &HistoryArgs) -> Result<Box<dyn HistoryStore>, CliError> {
    if let Some(path) = &args.recording {
        return Ok(open_recording(path)?);
    }
    args.history.open_for_reading()
}

/// A recording, read into a history of its own in memory.
pub fn open_recording(path: &Path) -> Result<Box<dyn HistoryStore>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the recording {}: {error}", path.display()))?;
    let mut store =
        toolscope_core::history::in_memory_store().map_err(|error| error.to_string())?;
    toolscope_core::history::read_recording(store.as_mut(), text)
        .map_err(|error| format!("{}: {error}", path.display()))?;
    Ok(store)
}

pub fn run(args: HistoryArgs) -> Result<u8, CliError> {
    // Opened by each command that reads it: pushing opens two histories of its own.
    let store = || open(&args);
    match &args.command {
        Some(HistoryCommand::Show { id, json }) => show(store()?.as_ref(), *id, *json),
        Some(HistoryCommand::Sessions { limit, json }) => {
            super::history_sessions::list(store()?.as_ref(), *limit, *json)
        }
        Some(HistoryCommand::Diff { old, new, json }) => {
            super::history_diff::run(store()?.as_ref(), *old, *new, *json)
        }
        Some(HistoryCommand::Log { session, json }) => {
            super::history_sessions::log(store()?.as_ref(), *session, *json)
        }
        Some(HistoryCommand::Export { selection, output }) => {
            export(store()?.as_ref(), selection, output)
        }
        Some(HistoryCommand::Report {
            selection,
            output,
            title,
        }) => report(store()?.as_ref(), selection, output, title.clone()),
        Some(HistoryCommand::Push { from, json }) => {
            super::history_push::run(&args.history, from.as_deref(), *json)
        }
        None if args.by_tool => by_tool(store()?.as_ref(), &args),
        None => list(store()?.as_ref(), &args),
    }
}

/// The calls the filters select, grouped by tool with their durations' figures.
fn by_tool(store: &dyn HistoryStore, args: &HistoryArgs) -> Result<u8, CliError> {
    let figures = store.latency(&args.filters.query(args.limit))?;
    if args.json {
        emit_json(&figures);
        return Ok(EXIT_OK);
    }
    if figures.is_empty() {
        say("no calls with a duration match");
        return Ok(EXIT_OK);
    }
    let out = &mut String::new();
    outln!(
        out,
        "{:<6}  {:<30}  {:>6}  {:>6}  {:>8}  {:>8}  {:>8}  {}",
        "kind",
        "tool · uri · prompt",
        "calls",
        "not ok",
        "p50 ms",
        "p95 ms",
        "max ms",
        "server"
    );
    for group in &figures {
        outln!(
            out,
            "{:<6}  {:<30}  {:>6}  {:>6}  {:>8}  {:>8}  {:>8}  {}",
            group.kind.as_str(),
            terminal_safe(&clip_chars(&group.tool, 30)),
            group.calls,
            group.not_ok,
            group.p50_ms,
            group.p95_ms,
            group.max_ms,
            terminal_safe(&clip_chars(&group.server, 40))
        );
    }
    emit(out);
    Ok(EXIT_OK)
}

/// The selected calls, read whole, oldest first.
fn selected(store: &dyn HistoryStore, selection: &Selection) -> Result<Vec<StoredCall>, String> {
    let ids: Vec<i64> = if selection.ids.is_empty() {
        let query = selection.filters.query(selection.limit);
        let mut ids: Vec<i64> = store
            .list(&query)
            .map_err(|error| error.to_string())?
            .iter()
            .map(|call| call.id)
            .collect();
        ids.reverse();
        ids
    } else {
        selection.ids.clone()
    };
    let mut calls = Vec::with_capacity(ids.len());
    for id in ids {
        match store.get(id).map_err(|error| error.to_string())? {
            Some(call) => calls.push(call),
            None => {
                return Err(format!(
                    "there is no call #{id} in the history (`toolscope history` lists them)"
                ));
            }
        }
    }
    if calls.is_empty() {
        return Err("no calls match; `toolscope history` lists them".to_owned());
    }
    Ok(calls)
}

fn export(store: &dyn HistoryStore, selection: &Selection, output: &Path) -> Result<u8, CliError> {
    let calls = selected(store, selection)?;
    let now = toolscope_core::history::started_ago(std::time::Duration::ZERO);
    toolscope_core::atomic_file::write_atomically(output, |out| {
        toolscope_core::history::write_recording(&calls, &now, out)
    })?;
    say(&format!(
        "wrote {} call(s) to {} (open it with `toolscope history --recording {}`)",
        calls.len(),
        output.display(),
        output.display()
    ));
    Ok(EXIT_OK)
}

fn report(
    store: &dyn HistoryStore,
    selection: &Selection,
    output: &Path,
    title: String,
) -> Result<u8, CliError> {
    toolscope_core::report::ReportFormat::of_path(output)?;
    let calls = selected(store, selection)?;
    let count = calls.len();
    let report = toolscope_core::report::Report {
        title,
        generated_at: toolscope_core::history::started_ago(std::time::Duration::ZERO),
        summary: Some(format!("{count} call(s)")),
        entries: calls
            .into_iter()
            .map(toolscope_core::report::ReportEntry::from_history)
            .collect(),
    };
    report.write(output)?;
    say(&format!(
        "wrote a report of {count} call(s) to {}",
        output.display()
    ));
    Ok(EXIT_OK)
}

fn list(store: &dyn HistoryStore, args: &HistoryArgs) -> Result<u8, CliError> {
    let query = args.filters.query(args.limit);
    let calls = store.list(&query)?;
    if args.json {
        emit_json(&calls);
        return Ok(EXIT_OK);
    }
    if calls.is_empty() {
        say(&format!(
            "no calls recorded{} (the history is {})",
            if query_is_filtered(&query) {
                " that match"
            } else {
                " yet"
            },
            store.location()
        ));
        return Ok(EXIT_OK);
    }
    let team = store.location().file().is_none();
    let out = &mut String::new();
    outln!(
        out,
        "{:>6}  {:<6}  {:<20}  {:<18}  {:<17}  {:>8}  {}",
        "id",
        "kind",
        "started (UTC)",
        "tool · uri · prompt",
        "verdict",
        "ms",
        if team {
            "server · note · person@machine"
        } else {
            "server · note"
        }
    );
    for call in &calls {
        let started = call.started_at.replace('T', " ");
        let started = clip_chars(started.trim_end_matches('Z'), 19);
        let took = call
            .duration_ms
            .map_or_else(|| "-".to_owned(), |ms| ms.to_string());
        let mut note = if call.note.is_empty() {
            String::new()
        } else {
            format!(
                " · {}",
                clip_chars(call.note.lines().next().unwrap_or(""), 60)
            )
        };
        // A read made again on a subscribed resource's updates is one row with a count.
        if call.repeats > 0 {
            note.push_str(&format!(" · read {} times in all", call.repeats + 1));
        }
        // A call that came through `toolscope proxy` names its client.
        let server = clip_chars(&call.server, 40);
        let mut server = match &call.client {
            Some(client) => format!("{server} (from {})", clip_chars(client, 40)),
            None => server,
        };
        // A team's history says whose call it is.
        if team && let (Some(person), Some(machine)) = (&call.person, &call.machine) {
            server.push_str(&format!(
                " · {}@{}",
                clip_chars(person, 30),
                clip_chars(machine, 30)
            ));
        }
        outln!(
            out,
            "{:>6}  {:<6}  {:<20}  {:<18}  {:<17}  {:>8}  {}{}",
            call.id,
            call.kind.as_str(),
            started,
            terminal_safe(&clip_chars(&call.tool, 18)),
            call.verdict.as_str(),
            took,
            terminal_safe(&server),
            terminal_safe(&note)
        );
    }
    emit(out);
    Ok(EXIT_OK)
}

fn query_is_filtered(query: &CallQuery) -> bool {
    query.server.is_some()
        || query.kind.is_some()
        || query.tool.is_some()
        || query.verdict.is_some()
        || query.text.is_some()
        || query.session.is_some()
        || query.machine.is_some()
        || query.person.is_some()
}

fn show(store: &dyn HistoryStore, id: i64, json: bool) -> Result<u8, CliError> {
    let Some(call) = store.get(id)? else {
        return Err(format!(
            "there is no call #{id} in the history (`toolscope history` lists them)"
        )
        .into());
    };
    if call.kind != CallKind::Call {
        return show_feature(&call, json);
    }
    let mut call = call;
    let arguments = toolscope_core::deep_json::parse(&call.arguments).unwrap_or(Value::Null);
    let protocol_version = call.protocol_version.clone().unwrap_or_default();
    match call.take_answer() {
        StoredAnswer::Answered {
            outcome,
            output_schema,
        } => {
            let analysis = outcome.analyze(output_schema.as_ref(), &protocol_version);
            let code = call_report::exit_code(&outcome.response, &analysis);
            let answer = call_report::Answer::Response {
                response: &outcome.response,
                analysis: &analysis,
            };
            call_report::print(
                &shown(
                    &call,
                    &arguments,
                    &protocol_version,
                    answer,
                    code,
                    Some(&outcome.rounds),
                ),
                json,
            );
            Ok(code)
        }
        StoredAnswer::Damaged { error } => Err(error.into()),
        StoredAnswer::NoAnswer { failure } => {
            let answer = call_report::Answer::None { failure: &failure };
            call_report::print(
                &shown(
                    &call,
                    &arguments,
                    &protocol_version,
                    answer,
                    EXIT_FAILURE,
                    None,
                ),
                json,
            );
            Ok(EXIT_FAILURE)
        }
    }
}

/// A read or a prompt got from the history: what was asked, then the contents or the
/// conversation as `read` and `prompt` print them (`json`: the answer as received).
fn show_feature(call: &StoredCall, json: bool) -> Result<u8, CliError> {
    let response = call.response.as_deref();
    if json {
        let text = response.ok_or(call.failure.as_deref().unwrap_or("it got no answer"))?;
        emit(&format!("{}\n", super::json_text::escape_unsafe(text)));
        return Ok(EXIT_OK);
    }
    let mut out = format!(
        "#{} {} {} · {} · {} · {}\n",
        call.id,
        call.kind.method(),
        terminal_safe(&call.tool),
        terminal_safe(&server_line(call)),
        call.verdict,
        call.duration_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms"))
    );
    if call.arguments != "{}" && !call.arguments.is_empty() {
        out.push_str(&format!("arguments: {}\n", terminal_safe(&call.arguments)));
    }
    let answer = response
        .and_then(|text| toolscope_core::json_doc::JsonDoc::parse(text.to_owned()).ok())
        .map(|message| {
            toolscope_core::session::RawResponse::from_message(std::sync::Arc::new(message))
        });
    let Some(answer) = answer else {
        out.push_str(&format!(
            "no answer: {}\n",
            terminal_safe(call.failure.as_deref().unwrap_or("none was kept"))
        ));
        emit(&out);
        return Ok(EXIT_FAILURE);
    };
    if let Some((code, message)) = answer.rpc_error() {
        out.push_str(&format!(
            "JSON-RPC error {code}: {}\n",
            terminal_safe(&message)
        ));
        emit(&out);
        return Ok(EXIT_FAILURE);
    }
    match call.kind {
        CallKind::Read => match toolscope_core::session::requests::resources::contents(&answer) {
            Ok(contents) => out.push_str(&super::read_command::contents_text(&contents)),
            Err(error) => out.push_str(&format!("{error}\n")),
        },
        _ => out.push_str(&super::prompts_command::conversation(
            &answer.member().to_value(),
        )),
    }
    emit(&out);
    Ok(EXIT_OK)
}

/// The printed form of a call from the history.
fn shown<'a>(
    call: &'a StoredCall,
    arguments: &'a Value,
    protocol_version: &'a str,
    answer: call_report::Answer<'a>,
    exit_code: u8,
    rounds: Option<&'a toolscope_core::session::tasks::input_rounds::CallRounds>,
) -> call_report::CallShown<'a> {
    call_report::CallShown {
        server_json: call
            .server_info
            .clone()
            .unwrap_or_else(|| "null".to_owned()),
        server_line: server_line(call),
        protocol_version,
        listed: call.listed,
        tool: &call.tool,
        arguments,
        request_id: call.request_id.as_deref(),
        duration: call.duration_ms.map(std::time::Duration::from_millis),
        duplicate_responses: usize::try_from(call.duplicate_responses).unwrap_or(usize::MAX),
        answer,
        exit_code,
        rounds,
        history: Some(call),
    }
}

/// The line `call` printed (`toolscope-demo 0.1.0 · protocol 2026-07-28 (server/discover)`),
/// from what the server said about itself; else from the history's columns.
fn server_line(call: &StoredCall) -> String {
    let info = call
        .server_info
        .as_deref()
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    if let Some(info) = info.filter(Value::is_object) {
        let text = |key: &str| info.get(key).and_then(Value::as_str).unwrap_or("");
        let name = info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(unnamed server)");
        return format!(
            "{} {} · protocol {} ({})",
            terminal_safe(name),
            terminal_safe(text("version")),
            terminal_safe(text("protocol_version")),
            terminal_safe(text("lifecycle"))
        );
    }
    history_server_line(call)
}

/// `Built-in demo 0.1.0 · protocol 2026-07-28`.
fn history_server_line(call: &StoredCall) -> String {
    let mut line = terminal_safe(&call.server).into_owned();
    if let Some(version) = &call.server_version {
        line.push_str(&format!(" {}", terminal_safe(version)));
    }
    if let Some(protocol) = &call.protocol_version {
        line.push_str(&format!(" · protocol {}", terminal_safe(protocol)));
    }
    line
}
