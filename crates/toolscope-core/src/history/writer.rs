//! The history for the window: one thread owns the database, so recording a 50 MB response,
//! listing 100,000 calls or waiting on another Toolscope's write never touches a frame.

use std::{path::PathBuf, sync::mpsc, thread::JoinHandle};

use super::{
    CallQuery, HistoryError, HistoryLocation, HistoryStore, NewCall, RecordedBy, StoredCall,
};

enum Request {
    Record {
        call: Box<NewCall>,
        tag: u64,
    },
    List {
        query: CallQuery,
        tag: u64,
    },
    Latency {
        query: CallQuery,
        tag: u64,
    },
    Get {
        id: i64,
    },
    GetMany {
        ids: Vec<i64>,
        tag: u64,
    },
    SetNote {
        id: i64,
        note: String,
    },
    Repeat {
        id: i64,
    },
    SetCap {
        bytes: u64,
    },
    SessionLog {
        session: i64,
        first: u64,
    },
    /// Report the sessions whenever the change stamp moves (`Some(limit)`), or stop.
    WatchSessions {
        limit: Option<usize>,
    },
}

/// How often a watched history's change stamp is read (a row another process records shows
/// within this, without a frame drawn while nothing changes).
pub const WATCH_PERIOD: std::time::Duration = std::time::Duration::from_millis(250);

/// What the history thread reports.
#[derive(Debug)]
pub enum HistoryEvent {
    /// The history is open (where, how many calls, the cap).
    Opened {
        location: HistoryLocation,
        calls: u64,
        cap_bytes: u64,
    },
    /// The call sent with `tag` is recorded as `id`.
    Recorded {
        tag: u64,
        id: i64,
    },
    /// The calls the list request `tag` asked for.
    Listed {
        tag: u64,
        calls: Vec<StoredCall>,
    },
    /// Each tool's durations among the calls the latency request `tag` asked about.
    Latency {
        tag: u64,
        figures: Vec<super::ToolLatency>,
    },
    /// One call, whole.
    Loaded(Box<StoredCall>),
    /// The calls asked for with `tag`, whole and in the order asked (or why not).
    LoadedMany {
        tag: u64,
        calls: Result<Vec<StoredCall>, LoadError>,
    },
    /// Call `id` could not be read (the cap removed it, or the database failed).
    NotLoaded {
        id: i64,
        reason: String,
    },
    NoteSaved {
        id: i64,
    },
    /// Call `id` was made again on its own and counted: it has been made `times` more times
    /// (`None`: the call is no longer there).
    Repeated {
        id: i64,
        times: Option<u64>,
    },
    /// The size cap is now `cap_bytes` (the oldest calls past it are gone), `calls` remain.
    CapSet {
        cap_bytes: u64,
        calls: u64,
    },
    /// A watched history moved (or the watch began): its change stamp and the proxied
    /// sessions, newest first.
    Sessions {
        stamp: super::ChangeStamp,
        sessions: Vec<super::ProxySession>,
    },
    /// A page of a proxied session's protocol log: its lines from the `first`-th.
    SessionLog {
        session: i64,
        first: u64,
        lines: Vec<super::LogLine>,
    },
    /// What failed; the window says so and carries on without it.
    Failed(String),
    /// The team database could not be reached: what failed, and that the local history keeps
    /// the calls meanwhile (reported before `Opened`).
    FellBack(String),
}

/// Why calls asked for whole could not all be read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadError {
    /// The size cap removed call `id`.
    #[error(
        "call #{0} is no longer in the history (the oldest calls go when it reaches its size cap)"
    )]
    Gone(i64),
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// The log lines of a session the window reads at once: the page around what it shows.
pub const LOG_PAGE_LINES: usize = 2_000;

pub struct HistoryWriter {
    requests: Option<mpsc::Sender<Request>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for HistoryWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryWriter").finish_non_exhaustive()
    }
}

impl HistoryWriter {
    /// Opens the history at `location` (`None`: in memory) on a thread of its own, stamping
    /// the rows it records with `recorded_by`; `on_event` runs on that thread for everything
    /// it reports.
    pub fn start(
        location: Option<HistoryLocation>,
        recorded_by: RecordedBy,
        on_event: impl Fn(HistoryEvent) + Send + 'static,
    ) -> Self {
        let (requests, inbox) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("history".to_owned())
            .spawn(move || serve(location, &recorded_by, &inbox, &on_event))
            .ok();
        Self {
            requests: Some(requests),
            thread,
        }
    }

    /// Opens the recording at `path` in a history of its own, in memory, on a thread of its
    /// own: it is browsed as the history is (its notes are kept in memory only).
    pub fn start_recording(
        path: PathBuf,
        on_event: impl Fn(HistoryEvent) + Send + 'static,
    ) -> Self {
        let (requests, inbox) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("recording".to_owned())
            .spawn(move || {
                let opened = std::fs::read_to_string(&path)
                    .map_err(|error| format!("cannot read {}: {error}", path.display()))
                    .and_then(|text| {
                        let mut store =
                            crate::history::in_memory_store().map_err(|error| error.to_string())?;
                        super::read_recording(store.as_mut(), text)
                            .map_err(|error| format!("{}: {error}", path.display()))?;
                        Ok(store)
                    });
                match opened {
                    Ok(store) => serve_store(store, Some(path), &inbox, &on_event),
                    Err(problem) => {
                        on_event(HistoryEvent::Failed(problem));
                        while inbox.recv().is_ok() {}
                    }
                }
            })
            .ok();
        Self {
            requests: Some(requests),
            thread,
        }
    }

    fn send(&self, request: Request) {
        if let Some(requests) = &self.requests {
            let _ = requests.send(request);
        }
    }

    pub fn record(&self, call: NewCall, tag: u64) {
        self.send(Request::Record {
            call: Box::new(call),
            tag,
        });
    }

    pub fn list(&self, query: CallQuery, tag: u64) {
        self.send(Request::List { query, tag });
    }

    pub fn get(&self, id: i64) {
        self.send(Request::Get { id });
    }

    /// Sets the size cap (bytes of call text); the oldest calls past it go at once.
    pub fn set_cap(&self, bytes: u64) {
        self.send(Request::SetCap { bytes });
    }

    /// Reads these calls whole (to compare, report or export them).
    pub fn get_many(&self, ids: Vec<i64>, tag: u64) {
        self.send(Request::GetMany { ids, tag });
    }

    /// Each tool's p50, p95 and slowest among the calls `query` selects.
    pub fn latency(&self, query: CallQuery, tag: u64) {
        self.send(Request::Latency { query, tag });
    }

    pub fn set_note(&self, id: i64, note: String) {
        self.send(Request::SetNote { id, note });
    }

    /// Counts call `id` made once more on its own (see [`super::CallStore::add_repeat`]).
    pub fn repeat(&self, id: i64) {
        self.send(Request::Repeat { id });
    }

    /// A page of a proxied session's protocol log: its lines from the `first`-th (0: its
    /// first), [`LOG_PAGE_LINES`] of them at most.
    pub fn session_log(&self, session: i64, first: u64) {
        self.send(Request::SessionLog { session, first });
    }

    /// Watches the history (`Some(limit)`): the stamp and the newest `limit` sessions are
    /// reported now and then each time the stamp moves, read every [`WATCH_PERIOD`] on the
    /// history's thread; nothing is reported while nothing changes. `None` stops watching.
    pub fn watch_sessions(&self, limit: Option<usize>) {
        self.send(Request::WatchSessions { limit });
    }
}

impl Drop for HistoryWriter {
    /// Finishes what was asked (a recorded call is not lost at exit), then closes.
    fn drop(&mut self) {
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    location: Option<HistoryLocation>,
    recorded_by: &RecordedBy,
    inbox: &mpsc::Receiver<Request>,
    on_event: &dyn Fn(HistoryEvent),
) {
    let opened = match &location {
        Some(location) => crate::history::open_or_local(location, recorded_by),
        None => crate::history::in_memory_store().map(|store| super::OpenedHistory {
            store,
            fell_back: None,
        }),
    };
    let store = match opened {
        Ok(opened) => {
            if let Some(note) = opened.fell_back {
                on_event(HistoryEvent::FellBack(note));
            }
            opened.store
        }
        Err(error) => {
            on_event(HistoryEvent::Failed(format!(
                "{error}. Calls are not recorded in this session."
            )));
            // Keep draining so senders never block or fail loudly.
            while inbox.recv().is_ok() {}
            return;
        }
    };
    serve_store(store, None, inbox, on_event);
}

/// Answers requests on `store` until the writer is dropped. `shown_path` is the file it was
/// read from, when that is not the store's own (a recording).
fn serve_store(
    mut store: Box<dyn HistoryStore>,
    shown_path: Option<PathBuf>,
    inbox: &mpsc::Receiver<Request>,
    on_event: &dyn Fn(HistoryEvent),
) {
    let calls = store.count().unwrap_or(0);
    let cap_bytes = store.cap_bytes().unwrap_or(super::DEFAULT_CAP_BYTES);
    on_event(HistoryEvent::Opened {
        location: shown_path.map_or_else(|| store.location().clone(), HistoryLocation::File),
        calls,
        cap_bytes,
    });
    let mut watch = SessionWatch::default();
    while let Some(request) = watch.next_request(store.as_ref(), inbox, on_event) {
        let event = match request {
            Request::Record { call, tag } => store
                .record(&call)
                .map(|id| HistoryEvent::Recorded { tag, id }),
            Request::List { query, tag } => store
                .list(&query)
                .map(|calls| HistoryEvent::Listed { tag, calls }),
            Request::Latency { query, tag } => store
                .latency(&query)
                .map(|figures| HistoryEvent::Latency { tag, figures }),
            Request::Get { id } => Ok(match store.get(id) {
                Ok(Some(call)) => HistoryEvent::Loaded(Box::new(call)),
                Ok(None) => HistoryEvent::NotLoaded {
                    id,
                    reason: format!(
                        "Call #{id} is no longer in the history (the oldest calls go when it \
                         reaches its size cap)"
                    ),
                },
                Err(error) => HistoryEvent::NotLoaded {
                    id,
                    reason: error.to_string(),
                },
            }),
            Request::GetMany { ids, tag } => Ok(HistoryEvent::LoadedMany {
                tag,
                calls: ids
                    .iter()
                    .map(|&id| match store.get(id) {
                        Ok(Some(call)) => Ok(call),
                        Ok(None) => Err(LoadError::Gone(id)),
                        Err(error) => Err(error.into()),
                    })
                    .collect(),
            }),
            Request::SetNote { id, note } => store
                .set_note(id, &note)
                .map(|_| HistoryEvent::NoteSaved { id }),
            Request::Repeat { id } => store
                .add_repeat(id)
                .map(|times| HistoryEvent::Repeated { id, times }),
            Request::WatchSessions { limit } => {
                (watch.limit, watch.reported) = (limit, None);
                let Some(limit) = limit else { continue };
                sessions_now(store.as_ref(), limit).inspect(|event| {
                    if let HistoryEvent::Sessions { stamp, .. } = event {
                        watch.reported = Some(*stamp);
                    }
                })
            }
            Request::SessionLog { session, first } => store
                .proxy_log_from(session, first, LOG_PAGE_LINES)
                .map(|lines| HistoryEvent::SessionLog {
                    session,
                    first,
                    lines,
                }),
            Request::SetCap { bytes } => store.set_cap_bytes(bytes).and_then(|()| {
                Ok(HistoryEvent::CapSet {
                    cap_bytes: store.cap_bytes()?,
                    calls: store.count()?,
                })
            }),
        };
        on_event(event.unwrap_or_else(|error| HistoryEvent::Failed(error.to_string())));
    }
}

/// The stamp and the newest `limit` sessions.
fn sessions_now(store: &dyn HistoryStore, limit: usize) -> Result<HistoryEvent, HistoryError> {
    let stamp = store.change_stamp()?;
    let sessions = store.proxy_sessions(limit)?;
    Ok(HistoryEvent::Sessions { stamp, sessions })
}

/// A window watching the history: the stamp it was last told, read again every
/// [`WATCH_PERIOD`] between requests.
#[derive(Default)]
struct SessionWatch {
    limit: Option<usize>,
    reported: Option<super::ChangeStamp>,
    next_read: Option<std::time::Instant>,
    /// The last read failed (said once until one succeeds).
    failing: bool,
}

impl SessionWatch {
    /// The next request; while watching, the stamp is read when a period passes without one
    /// and the sessions reported when it moved. `None` when the writer is dropped.
    fn next_request(
        &mut self,
        store: &dyn HistoryStore,
        inbox: &mpsc::Receiver<Request>,
        on_event: &dyn Fn(HistoryEvent),
    ) -> Option<Request> {
        loop {
            let Some(limit) = self.limit else {
                return inbox.recv().ok();
            };
            let now = std::time::Instant::now();
            let due = *self.next_read.get_or_insert(now + WATCH_PERIOD);
            match inbox.recv_timeout(due.saturating_duration_since(now)) {
                Ok(request) => return Some(request),
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            self.next_read = None;
            match store.change_stamp() {
                Ok(stamp) if Some(stamp) == self.reported => self.failing = false,
                Ok(stamp) => {
                    self.failing = false;
                    self.reported = Some(stamp);
                    let sessions = store.proxy_sessions(limit);
                    on_event(match sessions {
                        Ok(sessions) => HistoryEvent::Sessions { stamp, sessions },
                        Err(error) => HistoryEvent::Failed(error.to_string()),
                    });
                }
                Err(error) => {
                    // Said once, and read again next period: a team's database that restarts
                    // is followed again once it is back.
                    if !self.failing {
                        self.failing = true;
                        on_event(HistoryEvent::Failed(error.to_string()));
                    }
                }
            }
        }
    }
}
