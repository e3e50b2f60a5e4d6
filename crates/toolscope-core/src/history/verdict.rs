//! One word for how a call went, stored with it and filtered on.

use crate::analysis::{CallAnalysis, ContractCheck};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A result that keeps its contract.
    Ok,
    /// `isError: true`.
    ToolError,
    /// A JSON-RPC error.
    ProtocolError,
    /// structuredContent breaks the tool's output schema (or is missing where one is declared).
    ContractViolated,
    /// Cancelled by the user.
    Cancelled,
    /// No answer within a timeout.
    Timeout,
    /// No answer for another reason: the server exited, the connection broke.
    Failed,
}

impl Verdict {
    pub const ALL: [Verdict; 7] = [
        Verdict::Ok,
        Verdict::ToolError,
        Verdict::ProtocolError,
        Verdict::ContractViolated,
        Verdict::Cancelled,
        Verdict::Timeout,
        Verdict::Failed,
    ];

    /// The verdict of an answered call, from its analysis.
    pub fn of_analysis(is_rpc_error: bool, analysis: &CallAnalysis) -> Self {
        if is_rpc_error {
            Verdict::ProtocolError
        } else if !analysis.error_kind.is_success() {
            Verdict::ToolError
        } else if matches!(analysis.contract, ContractCheck::Violated { .. }) {
            Verdict::ContractViolated
        } else {
            Verdict::Ok
        }
    }

    /// The verdict of a call that ended with `error` instead of an answer.
    pub fn of_error(error: &crate::session::SessionError) -> Self {
        use crate::session::SessionError;
        match error {
            SessionError::Cancelled { .. } => Verdict::Cancelled,
            SessionError::Timeout { .. } => Verdict::Timeout,
            _ => Verdict::Failed,
        }
    }

    /// The word stored in the database and shown in lists.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::ToolError => "tool_error",
            Verdict::ProtocolError => "protocol_error",
            Verdict::ContractViolated => "contract_violated",
            Verdict::Cancelled => "cancelled",
            Verdict::Timeout => "timeout",
            Verdict::Failed => "failed",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|verdict| verdict.as_str() == word)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
