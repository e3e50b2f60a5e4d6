//! One finished tool call: what was sent, the raw answer, and how it came.

use serde::Serialize;
use serde_json::Value;

use crate::analysis::ProtocolEra;
use crate::session::{requests::raw_response::RawResponse, tasks::input_rounds::CallRounds};

/// One finished tool call.
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    pub tool: String,
    pub arguments: Value,
    pub request_id: String,
    pub response: RawResponse,
    pub duration: std::time::Duration,
    /// Further responses the server sent to the same id; the first one is `response`.
    pub duplicate_responses: usize,
    /// What the server asked along the way, and the `input_required` rounds before this one.
    pub rounds: Box<CallRounds>,
}

impl CallOutcome {
    /// The analysis of this call: the one mapping from a raw response to what Toolscope says
    /// about it, for the window and the command line alike.
    pub fn analyze(
        &self,
        output_schema: Option<&Value>,
        protocol_version: &str,
    ) -> crate::analysis::CallAnalysis {
        let era = ProtocolEra::from_version(protocol_version);
        let member = self.response.member();
        let response = if self.response.is_rpc_error() {
            crate::analysis::CallResponse::RpcError(member)
        } else {
            crate::analysis::CallResponse::Result(member)
        };
        let mut analysis = crate::analysis::analyze_call(response, output_schema, era);
        crate::analysis::note_duplicate_responses(&mut analysis, self.duplicate_responses);
        analysis
    }
}
