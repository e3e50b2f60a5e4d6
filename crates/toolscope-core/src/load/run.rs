//! A load run: its sessions connected (one per caller, or one shared), the tool planned once
//! on the server's listing, then the callers, each making calls through [`engine::make`] one
//! after the other until the bound is reached or the run is stopped. The server's memory is
//! sampled meanwhile. Sessions are closed (their processes ended and reaped) before the
//! figures are returned; after a stop they close in the background instead.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{
    figures::{LoadFigures, RunShape},
    plan::{LoadError, LoadPlan, MAX_CALLS},
    server_memory,
    tally::LoadTally,
    where_to::refuse_remote,
};
use crate::{
    engine::{self, CallPlan, OpenSecrets, Reached, ServerView},
    session::{ConnectOptions, RequestControl, ServerConfig, Session, Timeouts},
    text_util::terminal_safe,
};

/// How often the server's memory is read.
const MEMORY_EVERY: Duration = Duration::from_millis(100);

/// The server a run loads, and how each of its sessions connects.
pub struct LoadTarget {
    /// Its name, as the faces and the secret store know it.
    pub name: String,
    /// Its settings, placeholders filled.
    pub config: ServerConfig,
    /// A session's connection options and secret store, asked once per session.
    pub connect: Box<dyn Fn() -> (OpenSecrets, ConnectOptions) + Send + Sync>,
}

/// Runs `plan` against `target`. `stop` ends it early (the calls under way are cancelled and
/// the figures so far returned); `tally` is where a face reads the progress meanwhile.
pub async fn run(
    target: LoadTarget,
    plan: LoadPlan,
    stop: CancellationToken,
    tally: Arc<LoadTally>,
) -> Result<LoadFigures, LoadError> {
    plan.check()?;
    refuse_remote(&target.config, plan.allow_remote)?;
    let connecting = Instant::now();
    let reached = connect_all(&target, plan.sessions(), &stop).await?;
    let connect_seconds = connecting.elapsed().as_secs_f64();

    let first = &reached[0];
    let mut notes = Vec::new();
    if let Some(warning) = &first.warning {
        notes.push(format!(
            "{warning}; `{}` is sent without its definition",
            terminal_safe(&plan.tool)
        ));
    }
    let view = ServerView::of(&first.session, first.catalog.as_ref());
    let call_plan = match engine::plan(view, &plan.tool, plan.wish) {
        Ok(call_plan) => call_plan,
        Err(refused) => {
            close_all(reached.into_iter().map(|reached| reached.session)).await;
            return Err(refused.into());
        }
    };
    notes.extend(call_plan.notes.iter().cloned());

    let sessions: Vec<Arc<Session>> = reached
        .into_iter()
        .map(|reached| Arc::new(reached.session))
        .collect();
    let pids: Vec<u32> = sessions.iter().filter_map(|s| s.server_pid()).collect();
    let memory_not_known = server_memory::not_known(&pids);
    let sampling = CancellationToken::new();
    if memory_not_known.is_none() {
        tokio::spawn(sample_memory(pids.clone(), tally.clone(), sampling.clone()));
    }

    tally.begin();
    let deadline = plan
        .bound
        .duration
        .map(|duration| Instant::now() + duration);
    let mut callers = tokio::task::JoinSet::new();
    for index in 0..plan.concurrency {
        callers.spawn(caller(Caller {
            session: sessions[index % sessions.len()].clone(),
            plan: call_plan.clone(),
            arguments: plan.arguments.clone(),
            timeouts: plan.timeouts,
            // A run bounded by its duration alone still stops at the most calls a run keeps
            // the times of.
            limit: Some(plan.bound.calls.unwrap_or(MAX_CALLS)),
            deadline,
            stop: stop.clone(),
            tally: tally.clone(),
        }));
    }
    while callers.join_next().await.is_some() {}
    tally.end();
    sampling.cancel();
    if memory_not_known.is_none() {
        // The last look, with the load just over and the processes still there.
        tally.note_memory(server_memory::sample(&pids));
    }

    let counts = tally.take();
    if plan.bound.calls.is_none() && counts.claimed >= MAX_CALLS {
        notes.push(format!(
            "stopped at {MAX_CALLS} calls before its duration ended: the most a run makes \
             (each call's time is kept for the percentiles)"
        ));
    }
    let shape = RunShape {
        tool: plan.tool.clone(),
        concurrency: plan.concurrency,
        sessions: sessions.len(),
        shared: plan.shared,
        planned_calls: plan.bound.calls,
        planned_seconds: plan.bound.duration.map(|duration| duration.as_secs_f64()),
        interrupted: stop.is_cancelled(),
        notes,
        connect_seconds,
        memory_not_known,
    };
    let interrupted = shape.interrupted;
    let sessions = sessions
        .into_iter()
        .filter_map(|session| Arc::try_unwrap(session).ok());
    if interrupted {
        // The person is waiting for the figures: each session's process is ended in the
        // background (dropped sessions close themselves), not awaited here.
        drop(sessions.collect::<Vec<_>>());
    } else {
        close_all(sessions).await;
    }
    Ok(LoadFigures::new(shape, counts))
}

/// Connects `count` sessions, as many at a time as the machine has cores, and lists their
/// tools; on a failure the others are closed and the first failure (by number) is the error.
/// Not all at once: servers that all start together (interpreters loading their libraries)
/// starve each other's handshakes past their timeouts on a small machine.
async fn connect_all(
    target: &LoadTarget,
    count: usize,
    stop: &CancellationToken,
) -> Result<Vec<Reached>, LoadError> {
    use futures::StreamExt as _;
    let at_once = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let attempts = futures::stream::iter(0..count)
        .map(|_| {
            let (secrets, options) = (target.connect)();
            engine::reach(&target.name, &target.config, secrets, options)
        })
        .buffered(at_once)
        .collect::<Vec<_>>();
    let results = tokio::select! {
        results = attempts => results,
        // Dropping the attempts drops their sessions, which ends their processes.
        () = stop.cancelled() => return Err(LoadError::StoppedConnecting),
    };
    let mut reached = Vec::with_capacity(count);
    let mut failure = None;
    for (index, result) in results.into_iter().enumerate() {
        match result {
            Ok(session) => reached.push(session),
            Err(source) if failure.is_none() => {
                failure = Some(LoadError::Reach {
                    number: index + 1,
                    sessions: count,
                    source,
                });
            }
            Err(_) => {}
        }
    }
    match failure {
        None => Ok(reached),
        Some(error) => {
            close_all(reached.into_iter().map(|reached| reached.session)).await;
            Err(error)
        }
    }
}

async fn close_all(sessions: impl Iterator<Item = Session>) {
    futures::future::join_all(sessions.map(Session::close)).await;
}

/// One caller's share of the run.
struct Caller {
    session: Arc<Session>,
    plan: CallPlan,
    arguments: Map<String, Value>,
    timeouts: Timeouts,
    limit: Option<u64>,
    deadline: Option<Instant>,
    stop: CancellationToken,
    tally: Arc<LoadTally>,
}

/// Calls one after the other until the bound, the stop, or the session's end. A call under
/// way at the deadline is waited for; one under way at the stop is cancelled.
async fn caller(caller: Caller) {
    loop {
        let past_deadline = caller
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        if caller.stop.is_cancelled() || past_deadline || !caller.tally.claim(caller.limit) {
            return;
        }
        let control = RequestControl {
            cancel: caller.stop.child_token(),
            ..RequestControl::with_timeouts(caller.timeouts)
        };
        let made = engine::make(
            &caller.session,
            caller.plan.clone(),
            caller.arguments.clone(),
            &control,
        )
        .await;
        if caller.tally.record(&made) {
            return;
        }
    }
}

/// Reads the server's memory every [`MEMORY_EVERY`] until `done`.
async fn sample_memory(pids: Vec<u32>, tally: Arc<LoadTally>, done: CancellationToken) {
    let pids = Arc::new(pids);
    loop {
        let read = pids.clone();
        if let Ok(sample) = tokio::task::spawn_blocking(move || server_memory::sample(&read)).await
        {
            tally.note_memory(sample);
        }
        tokio::select! {
            () = done.cancelled() => return,
            () = tokio::time::sleep(MEMORY_EVERY) => {}
        }
    }
}
