//! The model's side of working with several calls at once: history calls marked in the list,
//! two results compared (history calls or a tool's live result), and marked calls written as
//! a report or a recording.

use std::path::PathBuf;

use super::Model;
use crate::workbench::{CompareSide, ComparisonState, backend::SideInput};
use toolscope_core::history::{LoadError, StoredCall};

/// What calls read whole from the history are for.
#[derive(Debug, Clone)]
pub(super) enum Wanted {
    Compare(CompareSide, CompareSide),
    Report(PathBuf),
    Export(PathBuf),
}

/// What the user asks of several calls.
#[derive(Debug, Clone)]
pub enum SelectionAction {
    /// Mark or unmark a history call (for Compare, Report and Export).
    Mark {
        id: i64,
        marked: bool,
    },
    ClearMarks,
    Compare {
        old: CompareSide,
        new: CompareSide,
    },
    CloseComparison,
    /// Write these history calls as a report (`.md` or `.html`).
    Report {
        ids: Vec<i64>,
        path: PathBuf,
    },
    /// Write these history calls as a JSON recording.
    Export {
        ids: Vec<i64>,
        path: PathBuf,
    },
}

impl Model {
    pub(super) fn selection_action(&mut self, action: SelectionAction) {
        match action {
            SelectionAction::Mark { id, marked } => {
                let marks = &mut self.history_browser.marked;
                marks.retain(|&other| other != id);
                if marked {
                    marks.push(id);
                }
            }
            SelectionAction::ClearMarks => self.history_browser.marked.clear(),
            SelectionAction::Compare { old, new } => self.compare(old, new),
            SelectionAction::CloseComparison => self.set_comparison(ComparisonState::None),
            SelectionAction::Report { ids, path } => self.read_many(ids, Wanted::Report(path)),
            SelectionAction::Export { ids, path } => self.read_many(ids, Wanted::Export(path)),
        }
    }

    /// Shows `state` in place of the comparison shown; the old one's records are freed in the
    /// background.
    fn set_comparison(&mut self, state: ComparisonState) {
        let old = std::mem::replace(&mut self.comparison, state);
        if let ComparisonState::Ready(view) = old {
            self.backend.drop_in_background(view);
        }
    }

    fn read_many(&mut self, ids: Vec<i64>, wanted: Wanted) {
        let tag = self.fresh_id();
        self.wanted.insert(tag, wanted);
        self.browsed().get_many(ids, tag);
    }

    fn compare(&mut self, old: CompareSide, new: CompareSide) {
        let ids: Vec<i64> = [&old, &new]
            .into_iter()
            .filter_map(|side| match side {
                CompareSide::History(id) => Some(*id),
                CompareSide::Live(_) => None,
            })
            .collect();
        if ids.is_empty() {
            self.start_comparison(old, new, Vec::new());
            return;
        }
        let tag = self.fresh_id();
        self.set_comparison(ComparisonState::Preparing { tag });
        self.wanted.insert(tag, Wanted::Compare(old, new));
        self.browsed().get_many(ids, tag);
    }

    /// Compares the two sides; `stored` holds the history calls among them, in order.
    fn start_comparison(&mut self, old: CompareSide, new: CompareSide, stored: Vec<StoredCall>) {
        let mut stored = stored.into_iter();
        let mut input = |side: CompareSide| -> Result<SideInput, String> {
            match side {
                CompareSide::History(id) => {
                    let call = stored
                        .next()
                        .ok_or_else(|| format!("call #{id} could not be read"))?;
                    let server = self
                        .servers
                        .iter()
                        .find(|server| server.name == call.server)
                        .map_or(super::NO_SERVER, |server| server.id);
                    Ok(SideInput::Stored {
                        call: Box::new(call),
                        server,
                    })
                }
                CompareSide::Live(tool) => {
                    let record = self
                        .runs
                        .get(&tool)
                        .and_then(|run| run.last_record.clone())
                        .ok_or_else(|| {
                            format!("`{}` has no result on screen to compare", tool.name)
                        })?;
                    let server = self.server(tool.server).map(|server| {
                        let version = match &server.status {
                            crate::workbench::ConnectionStatus::Connected { summary } => {
                                summary.version.clone().unwrap_or_default()
                            }
                            _ => String::new(),
                        };
                        format!("{} {version}", server.name).trim_end().to_owned()
                    });
                    Ok(SideInput::Live {
                        label: format!("{} · the live result", tool.name),
                        server,
                        record,
                    })
                }
            }
        };
        let sides = input(old).and_then(|old| Ok((old, input(new)?)));
        match sides {
            Ok((old, new)) => self.compare_inputs(old, new),
            Err(problem) => self.set_comparison(ComparisonState::Failed(problem)),
        }
    }

    /// Compares two sides made ready, off the UI thread; the comparison is shown when done.
    pub(super) fn compare_inputs(&mut self, old: SideInput, new: SideInput) {
        let tag = self.fresh_id();
        let first_id = self.next_id;
        self.next_id += 2;
        self.set_comparison(ComparisonState::Preparing { tag });
        self.backend
            .compare(tag, (old, new), first_id, self.max_image_side);
    }

    /// Calls read whole for `tag`.
    pub(super) fn loaded_many(&mut self, tag: u64, calls: Result<Vec<StoredCall>, LoadError>) {
        let Some(wanted) = self.wanted.remove(&tag) else {
            return;
        };
        let calls = match calls {
            Ok(calls) => calls,
            Err(problem) => {
                let problem = problem.to_string();
                match wanted {
                    Wanted::Compare(..) => self.set_comparison(ComparisonState::Failed(problem)),
                    Wanted::Report(_) | Wanted::Export(_) => {
                        self.show_banner(format!("Nothing was written: {problem}"), None);
                    }
                }
                return;
            }
        };
        match wanted {
            Wanted::Compare(old, new) => {
                if matches!(self.comparison, ComparisonState::Preparing { tag: shown } if shown == tag)
                {
                    self.start_comparison(old, new, calls);
                }
            }
            Wanted::Report(path) => self.backend.write_calls(path, calls, false),
            Wanted::Export(path) => self.backend.write_calls(path, calls, true),
        }
    }

    pub(super) fn compared(
        &mut self,
        tag: u64,
        view: std::sync::Arc<crate::workbench::ComparisonView>,
    ) {
        if matches!(self.comparison, ComparisonState::Preparing { tag: shown } if shown == tag) {
            self.set_comparison(ComparisonState::Ready(view));
        }
    }
}
