//! What a load run is asked to do, and why it does not start.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::{
    engine::{CallRefused, CallWish, ReachError},
    session::Timeouts,
};

/// The most callers a run starts (each may be a server process of its own).
pub const MAX_CONCURRENCY: usize = 1_000;
/// The most calls a run makes, whatever its duration: every call's time is kept for the
/// percentiles (8 bytes each).
pub const MAX_CALLS: u64 = 10_000_000;
/// The longest a run lasts.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// When a run ends: after so many calls, after so long, or at whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadBound {
    pub calls: Option<u64>,
    pub duration: Option<Duration>,
}

/// A load run as asked.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub tool: String,
    pub arguments: Map<String, Value>,
    /// Callers at once.
    pub concurrency: usize,
    pub bound: LoadBound,
    /// All callers on one session (else one session each).
    pub shared: bool,
    pub wish: CallWish,
    /// Each call's timeouts.
    pub timeouts: Timeouts,
    /// Servers that are not on this machine may be loaded.
    pub allow_remote: bool,
}

/// Why a run did not start (or could not go on).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "{url} is not on this machine: a load run sends many calls, so it goes only to stdio \
         servers and loopback addresses (localhost, 127.0.0.1, [::1]). If the server is yours \
         to load, allow remote servers (--allow-remote)"
    )]
    Remote { url: String },
    #[error("{url} is not a URL Toolscope can load: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error(
        "a load run needs a bound: a number of calls (--calls), a duration (--duration) or both"
    )]
    Unbounded,
    #[error("the concurrency must be between 1 and {MAX_CONCURRENCY}, not {0}")]
    Concurrency(usize),
    #[error("the number of calls must be between 1 and {MAX_CALLS}, not {0}")]
    Calls(u64),
    #[error("the duration must be more than 0 seconds and at most 24 hours")]
    Duration,
    #[error("connecting session {number} of {sessions} failed: {source}")]
    Reach {
        number: usize,
        sessions: usize,
        source: ReachError,
    },
    #[error(transparent)]
    Refused(#[from] CallRefused),
    #[error("the run was stopped before its sessions were connected")]
    StoppedConnecting,
}

impl LoadPlan {
    /// How many sessions the run opens.
    pub fn sessions(&self) -> usize {
        if self.shared { 1 } else { self.concurrency }
    }

    /// The plan's own limits, before any server is touched.
    pub fn check(&self) -> Result<(), LoadError> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Err(LoadError::Concurrency(self.concurrency));
        }
        match (self.bound.calls, self.bound.duration) {
            (None, None) => return Err(LoadError::Unbounded),
            (Some(calls), _) if !(1..=MAX_CALLS).contains(&calls) => {
                return Err(LoadError::Calls(calls));
            }
            (_, Some(duration)) if duration.is_zero() || duration > MAX_DURATION => {
                return Err(LoadError::Duration);
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(concurrency: usize, calls: Option<u64>, duration: Option<Duration>) -> LoadPlan {
        LoadPlan {
            tool: "add".to_owned(),
            arguments: Map::new(),
            concurrency,
            bound: LoadBound { calls, duration },
            shared: false,
            wish: CallWish::default(),
            timeouts: Timeouts::default(),
            allow_remote: false,
        }
    }

    #[test]
    fn a_plan_needs_a_bound_and_sane_sizes() {
        assert!(plan(8, Some(2_000), None).check().is_ok());
        assert!(plan(1, None, Some(Duration::from_secs(1))).check().is_ok());
        assert!(matches!(
            plan(8, None, None).check(),
            Err(LoadError::Unbounded)
        ));
        assert!(matches!(
            plan(0, Some(1), None).check(),
            Err(LoadError::Concurrency(0))
        ));
        assert!(matches!(
            plan(1, Some(0), None).check(),
            Err(LoadError::Calls(0))
        ));
        assert!(matches!(
            plan(1, None, Some(Duration::ZERO)).check(),
            Err(LoadError::Duration)
        ));
        assert_eq!(plan(8, Some(1), None).sessions(), 8);
        let shared = LoadPlan {
            shared: true,
            ..plan(8, Some(1), None)
        };
        assert_eq!(shared.sessions(), 1);
    }
}
