//! Why a call ended without a result, typed up to the window: a cancel the user asked for is
//! not a failure, and a timeout says which limit it hit.

use std::time::Duration;

use toolscope_core::session::{SessionError, Timeouts};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallFailure {
    #[error("Cancelled: the server was told to stop (notifications/cancelled)")]
    Cancelled,
    #[error(
        "No answer within {:.1} s, the request timeout (progress notifications restart it). Raise the timeout if the tool is just slow",
        after.as_secs_f64()
    )]
    InactivityTimeout { after: Duration },
    #[error(
        "The call ran past {:.0} s, the limit for one call in all (progress does not extend it)",
        after.as_secs_f64()
    )]
    TotalTimeout { after: Duration },
    #[error("The server is not connected: connect it first")]
    NotConnected,
    #[error(
        "Not sent: the tool's x-mcp-header annotations are invalid ({reason}), so a Streamable HTTP client must not call it (SEP-2243). Call anyway to see what the server answers"
    )]
    Excluded { reason: String },
    #[error("{0}")]
    Failed(String),
}

impl CallFailure {
    /// How the history files a call that ended this way.
    pub fn verdict(&self) -> toolscope_core::history::Verdict {
        use toolscope_core::history::Verdict;
        match self {
            CallFailure::Cancelled => Verdict::Cancelled,
            CallFailure::InactivityTimeout { .. } | CallFailure::TotalTimeout { .. } => {
                Verdict::Timeout
            }
            CallFailure::NotConnected | CallFailure::Excluded { .. } | CallFailure::Failed(_) => {
                Verdict::Failed
            }
        }
    }

    /// Maps a session error, telling the two timeouts apart by the limit that fired.
    pub fn from_session(error: &SessionError, timeouts: Timeouts) -> Self {
        match error {
            SessionError::Cancelled { .. } => Self::Cancelled,
            SessionError::Timeout { after, .. } => {
                if *after >= timeouts.max_total && timeouts.max_total > timeouts.request {
                    Self::TotalTimeout { after: *after }
                } else {
                    Self::InactivityTimeout { after: *after }
                }
            }
            other => Self::Failed(other.to_string()),
        }
    }

    /// Words for the place the result would be shown.
    pub fn headline(&self) -> &'static str {
        match self {
            Self::Cancelled => "Cancelled",
            Self::InactivityTimeout { .. } | Self::TotalTimeout { .. } => "Timed out",
            Self::NotConnected => "Not connected",
            Self::Excluded { .. } => "Not sent",
            Self::Failed(_) => "The call failed",
        }
    }

    /// A cancel the user asked for is an outcome, not an error.
    pub fn is_cancel(&self) -> bool {
        matches!(self, Self::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_say_which_limit() {
        let timeouts = Timeouts {
            request: Duration::from_secs(5),
            max_total: Duration::from_secs(60),
            ..Timeouts::default()
        };
        let inactivity = SessionError::Timeout {
            request: "tools/call x".into(),
            after: Duration::from_secs(5),
        };
        let total = SessionError::Timeout {
            request: "tools/call x".into(),
            after: Duration::from_secs(60),
        };
        assert!(matches!(
            CallFailure::from_session(&inactivity, timeouts),
            CallFailure::InactivityTimeout { .. }
        ));
        assert!(matches!(
            CallFailure::from_session(&total, timeouts),
            CallFailure::TotalTimeout { .. }
        ));
        let cancelled = SessionError::Cancelled {
            request: "tools/call x".into(),
        };
        assert!(CallFailure::from_session(&cancelled, timeouts).is_cancel());
        assert!(
            CallFailure::InactivityTimeout {
                after: Duration::from_secs(5)
            }
            .to_string()
            .contains("request timeout")
        );
    }
}
