//! `toolscope check`: a gate over what a client really did. A proxied session (`--session`),
//! the sessions since a time (`--since`) or a recording file is judged; one line per finding
//! on stdout, JUnit XML and SARIF 2.1.0 on request; exit 1 when anything was found.

use std::path::PathBuf;

use clap::Args;

use super::{
    CliError, EXIT_OK, EXIT_TOOL_PROBLEM,
    history_flag::HistoryFlag,
    output::{emit, emit_json, say},
};
use toolscope_core::{
    gates::{self, GateOptions, Judgement, RecordedSession},
    history::HistoryStore,
    interface::InterfaceSnapshot,
    text_util::terminal_safe,
};

#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("judged").required(true).args(["recording", "session", "since"])
))]
pub struct CheckArgs {
    /// A recording (written by `toolscope history export`) to judge: its calls only, since a
    /// recording keeps no protocol log
    #[arg(value_name = "RECORDING")]
    pub recording: Option<PathBuf>,
    /// The proxied sessions to judge (ids from `toolscope history sessions`, comma-separated
    /// or the option repeated)
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub session: Vec<i64>,
    /// Judge every proxied session started since this time: RFC 3339, a date (midnight UTC)
    /// or an age (30m, 2h, 1d)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// A call slower than this many milliseconds is a finding
    #[arg(long, value_name = "N")]
    pub max_ms: Option<u64>,
    /// Hold the tools each session listed against this interface snapshot (written by
    /// `toolscope snapshot`)
    #[arg(long, value_name = "FILE")]
    pub against: Option<PathBuf>,
    /// Also write the findings as JUnit XML to this file
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write the findings as SARIF 2.1.0 to this file (for code-scanning views)
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Print the findings as JSON instead of lines
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub history: HistoryFlag,
}

pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    let against = args
        .against
        .as_ref()
        .map(|path| {
            InterfaceSnapshot::read(path).map_err(|error| {
                format!(
                    "--against {} cannot be used: {error}. Write one with `toolscope snapshot \
                     <SERVER> --output FILE`",
                    path.display()
                )
            })
        })
        .transpose()?;
    let options = GateOptions {
        max_ms: args.max_ms,
        against,
    };
    let judged = match &args.recording {
        Some(path) => {
            let store = super::history_command::open_recording(path)?;
            let recorded =
                RecordedSession::from_recording(store.as_ref(), &path.display().to_string())
                    .map_err(|error| error.to_string())?;
            vec![gates::judge(&recorded, store.as_ref(), &options).map_err(|e| e.to_string())?]
        }
        None => {
            let store = args.history.open_for_reading()?;
            judge_sessions(store.as_ref(), &args, &options)?
        }
    };
    let mut failures = Vec::new();
    if let Some(path) = &args.junit {
        let xml = gates::junit_xml(&judged);
        if let Err(error) = write(path, xml.as_bytes()) {
            failures.push(format!("the JUnit file {}: {error}", path.display()));
        }
    }
    if let Some(path) = &args.sarif {
        let mut text = serde_json::to_vec_pretty(&gates::sarif_log(&judged)).unwrap_or_default();
        text.push(b'\n');
        if let Err(error) = write(path, &text) {
            failures.push(format!("the SARIF file {}: {error}", path.display()));
        }
    }
    if args.json {
        emit_json(&judged);
    } else {
        print(&judged);
    }
    if !failures.is_empty() {
        return Err(CliError::Failures(failures));
    }
    let found = judged
        .iter()
        .any(|judgement| !judgement.findings.is_empty());
    Ok(if found { EXIT_TOOL_PROBLEM } else { EXIT_OK })
}

fn write(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    toolscope_core::atomic_file::write_atomically(path, |out| out.write_all(bytes))
        .map_err(|error| CliError::Failure(error.to_string()))
}

fn judge_sessions(
    store: &dyn HistoryStore,
    args: &CheckArgs,
    options: &GateOptions,
) -> Result<Vec<Judgement>, CliError> {
    let ids = match &args.since {
        Some(since) if args.session.is_empty() => {
            let since = gates::parse_since_now(since).map_err(|error| error.to_string())?;
            gates::sessions_since(store, since).map_err(|error| error.to_string())?
        }
        _ => args.session.clone(),
    };
    ids.into_iter()
        .map(|id| {
            let recorded =
                RecordedSession::from_session(store, id).map_err(|error| error.to_string())?;
            gates::judge(&recorded, store, options).map_err(|error| error.to_string().into())
        })
        .collect()
}

/// One line per finding on stdout; what was judged and the notes on stderr.
fn print(judged: &[Judgement]) {
    let out = &mut String::new();
    for judgement in judged {
        let source = judgement.source.label();
        for finding in &judgement.findings {
            let place = finding.place();
            let place = if place.is_empty() {
                String::new()
            } else {
                format!(" · {}", terminal_safe(&place))
            };
            outln!(
                out,
                "{}{place} · {}: {}",
                terminal_safe(&source),
                finding.rule.id(),
                terminal_safe(&finding.message)
            );
        }
    }
    if !out.is_empty() {
        emit(out);
    }
    for judgement in judged {
        for note in &judgement.notes {
            say(&format!("note: {}", terminal_safe(note)));
        }
        say(&format!(
            "checked {}: {}, {}",
            terminal_safe(&judgement.source.label()),
            toolscope_core::text_util::count_noun(judgement.calls, "call", "calls"),
            toolscope_core::text_util::count_noun(judgement.findings.len(), "finding", "findings")
        ));
    }
}
