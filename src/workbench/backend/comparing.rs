//! Making two calls into a comparison off the UI thread: kept calls are parsed and analysed
//! again, then both are compared (which takes a while on big results).

use std::sync::Arc;

use super::{Backend, BackendEvent, CallId, CallRecord, ServerId, history_record};
use crate::workbench::comparison::{ComparedCall, ComparisonView};
use toolscope_core::{
    compare::{CallComparison, CallContext, CallSide},
    history::{StoredCall, Verdict},
};

/// One side as handed to the backend.
#[derive(Debug)]
pub enum SideInput {
    Stored {
        call: Box<StoredCall>,
        server: ServerId,
    },
    Live {
        label: String,
        /// The server's name and version.
        server: Option<String>,
        record: Arc<CallRecord>,
    },
}

fn prepare(side: SideInput, id: CallId, max_image_side: u32) -> ComparedCall {
    match side {
        SideInput::Live {
            label,
            server,
            record,
        } => ComparedCall {
            label,
            server,
            verdict: Verdict::of_analysis(record.outcome.response.is_rpc_error(), &record.analysis),
            record: Some(record),
            problem: None,
        },
        SideInput::Stored { call, server } => {
            let time = call.started_at.get(11..19).unwrap_or(&call.started_at);
            let label = format!("#{} · {} · {time}", call.id, call.tool);
            let verdict = call.verdict;
            let server_label = format!(
                "{} {}",
                call.server,
                call.server_version.as_deref().unwrap_or_default()
            )
            .trim_end()
            .to_owned();
            let (record, problem) = match history_record(id, server, *call, max_image_side) {
                Ok(record) => (Some(Arc::new(record)), None),
                Err(problem) => (None, Some(problem)),
            };
            ComparedCall {
                label,
                server: Some(server_label),
                verdict,
                record,
                problem,
            }
        }
    }
}

fn side_of(call: &ComparedCall) -> CallSide<'_> {
    match &call.record {
        Some(record) => CallSide::answered(
            &record.outcome.response,
            &record.analysis,
            call.verdict,
            Some(record.outcome.duration),
        )
        .with_context(CallContext {
            server: call.server.as_deref(),
            protocol: Some(&record.protocol_version),
            tool: Some(&record.outcome.tool),
            arguments: Some(&record.outcome.arguments),
        }),
        None => CallSide::unanswered(call.verdict, None),
    }
}

impl Backend {
    /// Compares `old` with `new` in the background; reports `BackendEvent::Compared`.
    pub fn compare(
        &self,
        tag: u64,
        (old, new): (SideInput, SideInput),
        first_id: CallId,
        max_image_side: u32,
    ) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let old = prepare(old, first_id, max_image_side);
            let new = prepare(new, first_id + 1, max_image_side);
            let comparison = CallComparison::new(&side_of(&old), &side_of(&new));
            let view = Arc::new(ComparisonView {
                old,
                new,
                comparison,
            });
            emit.send(BackendEvent::Compared { tag, view });
        });
    }
}

impl Backend {
    /// Writes calls read from the history as a report (its format from the file name) or as a
    /// recording, off the UI thread; the banner says how it went.
    pub fn write_calls(&self, path: std::path::PathBuf, calls: Vec<StoredCall>, recording: bool) {
        let emit = self.emitter();
        self.runtime.spawn_blocking(move || {
            let count = calls.len();
            let now = toolscope_core::history::started_ago(std::time::Duration::ZERO);
            let written = if recording {
                toolscope_core::atomic_file::write_atomically(&path, |out| {
                    toolscope_core::history::write_recording(&calls, &now, out)
                })
                .map_err(toolscope_core::report::ReportError::from)
            } else {
                toolscope_core::report::Report {
                    title: "Toolscope QA session".to_owned(),
                    generated_at: now,
                    summary: Some(format!("{count} call(s)")),
                    entries: calls
                        .into_iter()
                        .map(toolscope_core::report::ReportEntry::from_history)
                        .collect(),
                }
                .write(&path)
            };
            let what = if recording { "a recording" } else { "a report" };
            emit.send(match written {
                Ok(()) => BackendEvent::Wrote {
                    message: format!("Wrote {what} of {count} call(s) to {}", path.display()),
                    path,
                },
                Err(problem) => BackendEvent::Notice(format!("Nothing was written: {problem}")),
            });
        });
    }
}
