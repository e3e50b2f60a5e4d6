//! Load: one tool called many times at once, for a server's author who wants to know how it
//! holds up. N callers, each on a session of its own or all on one shared session, bounded by
//! a number of calls, a duration or both; every call made through the engine
//! ([`crate::engine::make`]), so what one call of `toolscope call` checks, each of these does
//! too. The figures: calls per second, latency percentiles and a histogram, errors by kind,
//! and the server's memory when it is a process Toolscope started.
//!
//! - [`plan`]: what a run is asked to do, checked before anything starts;
//! - [`where_to`]: only loopback and stdio servers, unless remote ones are allowed;
//! - [`tally`]: what the callers count while the run goes on (progress is read from it);
//! - [`figures`]: the run's figures, made once from the tally;
//! - [`server_memory`]: the resident memory of the server's processes, sampled;
//! - [`run`]: the sessions, the callers, the stop.
//!
//! Load calls are not kept in the history: thousands of rows of one call would bury the
//! person's own calls, and writing them would compete with the load being measured.

pub mod figures;
pub mod plan;
pub mod run;
pub mod server_memory;
pub mod tally;
pub mod where_to;

pub use figures::{ErrorCounts, HistogramBar, LatencyFigures, LoadFigures, ServerMemory};
pub use plan::{LoadBound, LoadError, LoadPlan, MAX_CALLS, MAX_CONCURRENCY};
pub use run::{LoadTarget, run};
pub use tally::{FailureKind, LoadProgress, LoadTally};
pub use where_to::refuse_remote;
