//! Running a case file's cases from the window: on a connected server, or on the file's own
//! (connected for the run, closed after). Each case is reported as it finishes.

use std::sync::Arc;

use super::{Backend, BackendEvent, CallId, CallRecord, ServerId, lock};
use crate::workbench::call_record::prepare_analysed;
use toolscope_core::{
    cases::{Case, CaseResult, run_case},
    engine,
    history::{CalledServer, NewCall, Verdict},
    session::{ConnectOptions, RequestControl, ServerConfig, Timeouts, events::ignore_events},
};

/// How often the open case file is looked at for changes made outside the window.
const CASE_FILE_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Where cases run.
#[derive(Debug, Clone)]
pub enum CasesOn {
    /// A server the window is connected to (its session and tool list are used).
    Connected(ServerId),
    /// The case file's own server, reached for this run.
    FileServer { config: ServerConfig, label: String },
}

/// One case, run and prepared for the window.
#[derive(Debug)]
pub struct CaseReport {
    pub index: usize,
    pub name: String,
    pub passed: bool,
    /// One sentence per unmet expectation, or why there was no answer.
    pub failures: Vec<String>,
    pub verdict: Verdict,
    pub duration: std::time::Duration,
    /// The result as the panes draw it (`None` when there was no answer).
    pub record: Option<Arc<CallRecord>>,
    /// A read's or a prompt's answer, as the Resources and Prompts tabs draw one.
    pub feature: Option<Arc<crate::workbench::feature_record::FeatureRecord>>,
    /// What the history keeps of the call (nothing when it was not sent).
    pub history: Option<NewCall>,
}

/// What a run of cases reports.
#[derive(Debug)]
pub enum CasesEvent {
    Ran(Box<CaseReport>),
    /// The run is over (`problem`: why it stopped early, e.g. the server was not reached).
    Finished {
        problem: Option<String>,
    },
}

/// A call to save as a case.
pub struct SavedCase {
    pub name: String,
    pub tool: String,
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// Its result, when it becomes the case's expectations.
    pub expected: Option<Arc<CallRecord>>,
}

/// Everything a run of cases needs.
pub struct CasesRequest {
    pub batch: u64,
    /// How the history names the server (`None`: the file's server's own label).
    pub label: Option<String>,
    pub on: CasesOn,
    pub cases: Vec<(usize, Case)>,
    pub timeouts: Timeouts,
    pub max_image_side: u32,
    /// Ids for the records, one per case.
    pub first_id: CallId,
    /// The server the records belong to (the connected one, or none).
    pub record_server: ServerId,
}

impl Backend {
    /// Runs cases in order; cancel the run with the returned token.
    pub fn run_cases(&self, request: CasesRequest) -> tokio_util::sync::CancellationToken {
        let control = RequestControl::with_timeouts(request.timeouts);
        let cancel = control.cancel.clone();
        let emit = self.emitter();
        let connected = match &request.on {
            CasesOn::Connected(server) => lock(&self.sessions).get(server).cloned(),
            CasesOn::FileServer { .. } => None,
        };
        let catalog = match &request.on {
            CasesOn::Connected(server) => lock(&self.catalogs).get(server).cloned(),
            CasesOn::FileServer { .. } => None,
        };
        self.runtime.spawn(async move {
            let batch = request.batch;
            let report = |event| emit.send(BackendEvent::Cases { batch, event });
            // On the file's own server nobody attends: each case's [case.answers] answers. On a
            // connected server the person at the window does, as for any call.
            let asker = toolscope_core::cases::CaseAsker::default();
            let (session, label, catalog, owned) = match (&request.on, connected) {
                (CasesOn::Connected(_), Some(session)) => {
                    // The window's tool list; listed here only when it has none yet.
                    let listed = match catalog {
                        Some(catalog) => Ok(Some(catalog)),
                        None => tokio::select! {
                            listed = engine::tools_for_calls(&session, request.timeouts) =>
                                listed.map(|tools| tools.catalog.map(Arc::new)),
                            () = control.cancel.cancelled() => Ok(None),
                        },
                    };
                    match listed {
                        Ok(catalog) => (session, request.label.clone(), catalog, false),
                        Err(error) => {
                            report(CasesEvent::Finished {
                                problem: Some(format!("listing tools failed: {error}")),
                            });
                            return;
                        }
                    }
                }
                (CasesOn::Connected(_), None) => {
                    report(CasesEvent::Finished {
                        problem: Some("the server is not connected".to_owned()),
                    });
                    return;
                }
                (CasesOn::FileServer { config, label }, _) => {
                    let cases = request.cases.iter().map(|(_, case)| case);
                    let options = ConnectOptions {
                        client_side: asker.client_side(cases),
                        ..ConnectOptions::new(request.timeouts, ignore_events())
                    };
                    match reach_file_server(config, label, options, &control).await {
                        Ok(reached) => (
                            Arc::new(reached.session),
                            Some(label.clone()),
                            reached.catalog.map(Arc::new),
                            true,
                        ),
                        Err(problem) => {
                            report(CasesEvent::Finished {
                                problem: Some(problem),
                            });
                            return;
                        }
                    }
                }
            };
            for (offset, (index, case)) in request.cases.iter().enumerate() {
                if control.cancel.is_cancelled() {
                    break;
                }
                let case_asker = owned.then_some(&asker);
                let run = run_case(&session, catalog.as_deref(), case, case_asker, &control).await;
                let server_label = label.clone().unwrap_or_default();
                let called = CalledServer {
                    label: &server_label,
                    summary: Some(session.summary()),
                };
                let record = RecordFor {
                    id: request.first_id + offset as u64,
                    server: request.record_server,
                    protocol: session.summary().protocol_version.clone(),
                    max_image_side: request.max_image_side,
                };
                let case_report = report_of(run, (*index, case), called, record).await;
                report(CasesEvent::Ran(Box::new(case_report)));
            }
            if owned {
                session
                    .close_and_wait(std::time::Duration::from_secs(5))
                    .await;
            }
            report(CasesEvent::Finished {
                problem: control.cancel.is_cancelled().then(|| "stopped".to_owned()),
            });
        });
        cancel
    }
}

/// The case file's own server, reached for this run (connected, its tools listed); why not, in
/// words (a URL filled in from the environment is named without its secrets).
async fn reach_file_server(
    config: &ServerConfig,
    label: &str,
    options: ConnectOptions,
    control: &RequestControl,
) -> Result<engine::Reached, String> {
    let secrets = engine::no_secret_store("a case file's server keeps no secrets");
    let reached = tokio::select! {
        reached = engine::reach(label, config, secrets, options) => reached,
        () = control.cancel.cancelled() => return Err("stopped".to_owned()),
    };
    reached.map_err(|error| {
        let mut problem = error.to_string();
        if let ServerConfig::Http { url, .. } = config {
            problem = problem.replace(
                url.as_str(),
                &toolscope_core::session::config::url_label(url),
            );
        }
        format!("the file's server: {problem}")
    })
}

/// What a case's record is made with, for the window's panes.
struct RecordFor {
    id: CallId,
    server: ServerId,
    protocol: String,
    max_image_side: u32,
}

/// A case run, told as the window shows it: passed, its failures in words, its result
/// prepared for the panes (off the async workers) and what the history keeps.
async fn report_of(
    run: toolscope_core::cases::CaseRun,
    (index, case): (usize, &Case),
    called: CalledServer<'_>,
    record_for: RecordFor,
) -> CaseReport {
    let history = run.to_new_call(called);
    let (passed, failures, verdict, duration) = (
        run.passed(),
        run.failure_sentences(),
        run.verdict(),
        run.duration(),
    );
    let ask = run.feature_ask();
    let mut feature = None;
    let record = match run.result {
        CaseResult::Fetched {
            response, duration, ..
        } if !response.is_rpc_error() => {
            let RecordFor {
                id,
                server,
                max_image_side,
                ..
            } = record_for;
            feature = match ask {
                Some(ask) => tokio::task::spawn_blocking(move || {
                    crate::workbench::feature_record::FeatureRecord::prepare(
                        (id, server),
                        ask,
                        &response,
                        duration,
                        max_image_side,
                    )
                })
                .await
                .ok()
                .map(Arc::new),
                None => None,
            };
            None
        }
        CaseResult::Answered {
            outcome, analysis, ..
        } => {
            let schema = run.plan.and_then(|plan| plan.output_schema);
            let RecordFor {
                id,
                server,
                protocol,
                max_image_side,
            } = record_for;
            tokio::task::spawn_blocking(move || {
                prepare_analysed(
                    id,
                    server,
                    outcome,
                    *analysis,
                    schema.as_ref(),
                    protocol,
                    max_image_side,
                )
            })
            .await
            .ok()
            .map(Arc::new)
        }
        // An error answer says what failed in words; no answer has nothing to show.
        CaseResult::Fetched { .. } | CaseResult::NoAnswer { .. } | CaseResult::Refused(_) => None,
    };
    CaseReport {
        index,
        name: case.name.clone(),
        passed,
        failures,
        verdict,
        duration,
        record,
        feature,
        history,
    }
}

impl Backend {
    /// Reads and checks a case file off the UI thread.
    /// Then watches it (once a second, until another file is read) and reports
    /// `CaseFileChanged` when it changes on disk.
    pub fn read_case_file(&self, path: std::path::PathBuf) {
        use std::sync::atomic::Ordering;
        let emit = self.emitter();
        let watching = self.case_file_generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = self.case_file_generation.clone();
        self.runtime.spawn(async move {
            let modified = |path: std::path::PathBuf| async move {
                tokio::fs::metadata(&path)
                    .await
                    .and_then(|meta| meta.modified())
                    .ok()
            };
            let read_at = modified(path.clone()).await;
            let read = path.clone();
            let result = tokio::task::spawn_blocking(move || {
                toolscope_core::cases::CaseFile::read(&read).map_err(|error| error.to_string())
            })
            .await
            .unwrap_or_else(|error| Err(format!("the file could not be read: {error}")));
            emit.send(BackendEvent::CaseFileRead {
                path: path.clone(),
                result,
            });
            while generation.load(Ordering::SeqCst) == watching {
                tokio::time::sleep(CASE_FILE_POLL).await;
                if generation.load(Ordering::SeqCst) != watching {
                    break;
                }
                if modified(path.clone()).await != read_at {
                    emit.send(BackendEvent::CaseFileChanged { path });
                    break;
                }
            }
        });
    }

    /// Appends a case to a case file off the UI thread (`server` starts a new file). Saves
    /// run one at a time: two at once would each add to the file as it was.
    pub fn save_case(&self, path: std::path::PathBuf, server: String, case: SavedCase) {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let _turn = lock(&ONE_AT_A_TIME);
            let expect_from = match &case.expected {
                Some(record) => toolscope_core::cases::ExpectFrom::Result {
                    response: &record.outcome.response,
                    analysis: &record.analysis,
                },
                None => toolscope_core::cases::ExpectFrom::Nothing,
            };
            let result = toolscope_core::cases::case_toml(
                &case.name,
                &case.tool,
                &case.arguments,
                expect_from,
            )
            .and_then(|text| toolscope_core::cases::append_case(&path, &server, &text))
            .map_err(|error| error.to_string());
            emit.send(BackendEvent::CaseSaved { path, result });
        });
    }
}
