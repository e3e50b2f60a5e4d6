//! What each of `toolscope mcp`'s tools gives back as its `structuredContent`: the types its
//! `outputSchema` is generated from (schemars), so what is sent always validates against what
//! was declared. Every member that holds any JSON carries a doc comment: its schema is then an
//! object (`{"description": …}`), never the bare `true` some clients' validators refuse. Values a server sent are carried as received, within [`super::bounded_json`]'s
//! bounds.

use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::Value;

/// `list_servers`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ServersOut {
    /// The servers an agent may name: `demo`, the saved ones, those other clients list.
    pub servers: Vec<ServerLine>,
    /// Whether a command line or URL nobody saved may be named too.
    pub allow_new_servers: bool,
    /// Configuration files that could not be read.
    pub problems: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerLine {
    /// What to pass as `server`.
    pub name: String,
    /// Where it comes from: built in, saved in Toolscope, or another client's file.
    pub source: String,
    /// Its command line or URL (without environment values, headers or query).
    pub server: String,
    /// `stdio` or `http`.
    pub transport: Option<String>,
    /// Why it cannot be used, when it cannot.
    pub problem: Option<String>,
}

/// Who a server said it was.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerOut {
    /// The name `server` was given as (the history's name for it).
    pub label: String,
    pub name: Option<String>,
    pub version: Option<String>,
    pub protocol_version: String,
}

/// `list_tools`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolsOut {
    pub server: ServerOut,
    pub tools: Vec<ToolOut>,
    /// Why the tools could not be listed although the server answered, and other warnings.
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolOut {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The JSON Schema of its arguments, as listed.
    #[serde(rename = "inputSchema")]
    pub input_schema: Option<Value>,
    /// The JSON Schema of its structuredContent, as listed.
    #[serde(rename = "outputSchema")]
    pub output_schema: Option<Value>,
    /// Its behaviour hints, as listed.
    pub annotations: Option<Value>,
    /// What is wrong with the definition, in words (empty when it is well formed).
    pub problems: Vec<String>,
}

/// `call_tool`, and a call shown from the history.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallOut {
    pub server: String,
    pub tool: String,
    /// Whether the tool was in the server's tools/list (it is sent either way).
    pub listed: bool,
    /// The arguments as sent.
    pub arguments: Value,
    /// Milliseconds from sending to the answer or the failure.
    pub duration_ms: Option<u64>,
    /// The call's id in Toolscope's history (`history` with `show` gives it again).
    pub history_id: Option<i64>,
    /// The result's `content` as received: what the model reads.
    pub content: Option<Value>,
    /// The result's `structuredContent` as received: what the application reads.
    #[serde(rename = "structuredContent")]
    pub structured_content: Option<Value>,
    #[serde(rename = "isError")]
    pub is_error: Option<bool>,
    /// The JSON-RPC error the server answered with instead of a result.
    pub rpc_error: Option<RpcErrorOut>,
    /// A half the server sent that is not carried here (too big or too deep), and why.
    pub withheld: Vec<String>,
    /// What Toolscope says of the answer; `None` when there was none.
    pub analysis: Option<AnalysisOut>,
    /// How the call was sent (unlisted, as a task, …).
    pub notes: Vec<String>,
    /// Why there is no answer (a timeout, the server exiting, …).
    pub failure: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RpcErrorOut {
    pub code: i64,
    pub message: String,
}

/// The analysis in the window's words.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AnalysisOut {
    /// The history's verdict: ok, tool_error, protocol_error, contract_violated, …
    pub verdict: String,
    /// success, tool error, protocol error, input required.
    pub outcome: String,
    /// contract kept, contract broken (N), schema invalid, no output schema, contract not
    /// checked.
    pub contract: String,
    /// Each way the structuredContent breaks the output schema.
    pub violations: Vec<String>,
    /// `wrapped by the SDK` when the result is an SDK's wrapper around a value.
    pub wrapping: Option<String>,
    /// text mirrors it, text differs, no text mirror, text only; `None` for a protocol error.
    pub mirror: Option<String>,
    /// One sentence on what each half gives its reader.
    pub explanation: String,
    /// One sentence per aspect, as the window's details say them.
    pub details: Vec<String>,
}

/// `read_resource` and `get_prompt`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeatureOut {
    pub server: String,
    /// The request, e.g. `resources/read file:///x`.
    pub asked: String,
    pub duration_ms: u64,
    pub history_id: Option<i64>,
    /// The result as received (`contents`, or a prompt's `messages`).
    pub result: Option<Value>,
    /// Why there is no result (no answer, a JSON-RPC error, a missing resource).
    pub problem: Option<String>,
    /// The result, when it is not carried here (too big or too deep), and why.
    pub withheld: Vec<String>,
    /// What else is worth knowing (the history could not keep it, …).
    pub notes: Vec<String>,
}

/// `history`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryOut {
    /// Where the history is.
    pub history: String,
    /// The calls found, newest first.
    pub calls: Vec<HistoryLine>,
    /// The sessions seen through `toolscope proxy`, newest first (when asked for).
    pub sessions: Vec<SessionLine>,
    /// The tool call asked for with `show`, analysed again.
    pub call: Option<CallOut>,
    /// The read or prompt asked for with `show`.
    pub feature: Option<FeatureOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryLine {
    pub id: i64,
    /// call, read or prompt.
    pub kind: String,
    pub started_at: String,
    pub server: String,
    /// The tool, the resource's URI or the prompt's name.
    pub tool: String,
    pub verdict: String,
    pub duration_ms: Option<u64>,
    /// The client it came from (an agent through `toolscope mcp`, a client through the proxy).
    pub client: Option<String>,
    /// The proxied session it came through.
    pub session: Option<i64>,
    pub note: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionLine {
    pub id: i64,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub server: String,
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    pub calls: u64,
    pub ending: Option<String>,
}

/// `run_cases`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CasesOut {
    pub file: String,
    pub server: String,
    pub passed: usize,
    pub failed: usize,
    /// Every case ran and passed.
    pub all_passed: bool,
    /// Why no case could run.
    pub connect_error: Option<String>,
    pub cases: Vec<CaseLine>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CaseLine {
    pub name: String,
    /// call, read or prompt.
    pub kind: String,
    pub tool: String,
    pub passed: bool,
    pub verdict: String,
    pub duration_ms: u64,
    /// One sentence per unmet expectation.
    pub failures: Vec<String>,
    pub history_id: Option<i64>,
}

/// `diff_interface`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiffOut {
    pub snapshot: String,
    pub server: String,
    /// `2 breaking, 1 compatible change(s) in 2 tool(s)`, or that nothing changed.
    pub summary: String,
    pub breaking: usize,
    pub compatible: usize,
    /// Changes of the server's identity.
    pub server_changes: Vec<ChangeOut>,
    pub tools: Vec<ToolChangesOut>,
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolChangesOut {
    pub name: String,
    /// added, removed or changed.
    pub status: String,
    pub changes: Vec<ChangeOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangeOut {
    /// breaking or compatible.
    pub severity: String,
    /// Where in the tool (a JSON Pointer into a schema, or a field).
    pub location: String,
    pub message: String,
}
