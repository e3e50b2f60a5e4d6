//! What a gate finds in a recorded session: one finding per thing wrong, of one of a few
//! kinds (a SARIF rule each), located at the tool and the call it is about.

use serde::Serialize;

/// The kinds of finding, each a rule of its own in SARIF and a test case in JUnit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// structuredContent broke the tool's output schema (or was missing where one is declared).
    ContractBroken,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error answer, or a line that was not JSON.
    ProtocolError,
    /// A tool called that the session's `tools/list` did not offer.
    UnlistedTool,
    /// A request with no answer.
    Unanswered,
    /// A call slower than `--max-ms`.
    SlowCall,
    /// A feature the session's protocol version deprecates.
    DeprecatedFeature,
    /// A tool's definition changed between two lists within the session.
    ToolsChangedInSession,
    /// What the session listed differs from the snapshot it is held against.
    ToolsDifferFromSnapshot,
}

/// How bad a finding is, as SARIF levels say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Error,
    Warning,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
        }
    }
}

impl Rule {
    pub const ALL: [Rule; 9] = [
        Rule::ContractBroken,
        Rule::ToolError,
        Rule::ProtocolError,
        Rule::UnlistedTool,
        Rule::Unanswered,
        Rule::SlowCall,
        Rule::DeprecatedFeature,
        Rule::ToolsChangedInSession,
        Rule::ToolsDifferFromSnapshot,
    ];

    /// The rule's id (SARIF `ruleId`, the word in each line).
    pub fn id(self) -> &'static str {
        match self {
            Rule::ContractBroken => "contract-broken",
            Rule::ToolError => "tool-error",
            Rule::ProtocolError => "protocol-error",
            Rule::UnlistedTool => "unlisted-tool",
            Rule::Unanswered => "unanswered",
            Rule::SlowCall => "slow-call",
            Rule::DeprecatedFeature => "deprecated-feature",
            Rule::ToolsChangedInSession => "tools-changed-in-session",
            Rule::ToolsDifferFromSnapshot => "tools-differ-from-snapshot",
        }
    }

    /// Its name in CamelCase, as SARIF's `name` has it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ContractBroken => "OutputContractBroken",
            Rule::ToolError => "ToolError",
            Rule::ProtocolError => "ProtocolError",
            Rule::UnlistedTool => "UnlistedToolCalled",
            Rule::Unanswered => "RequestNeverAnswered",
            Rule::SlowCall => "SlowCall",
            Rule::DeprecatedFeature => "DeprecatedFeatureUsed",
            Rule::ToolsChangedInSession => "ToolsChangedWithinSession",
            Rule::ToolsDifferFromSnapshot => "ToolsDifferFromSnapshot",
        }
    }

    /// One sentence: what the rule checks.
    pub fn description(self) -> &'static str {
        match self {
            Rule::ContractBroken => {
                "A tool's structuredContent must keep the output schema it declares (and be \
                 there when one is declared)."
            }
            Rule::ToolError => "A tool call answered with isError: true.",
            Rule::ProtocolError => {
                "A request answered with a JSON-RPC error, or a line on the wire that was not \
                 JSON."
            }
            Rule::UnlistedTool => {
                "A client called a tool that the session's tools/list did not offer."
            }
            Rule::Unanswered => "A request that got no answer before the session ended.",
            Rule::SlowCall => "A call that took longer than the gate's --max-ms.",
            Rule::DeprecatedFeature => {
                "A feature the session's protocol version deprecates (SEP-2577 from \
                 2026-07-28: logging, roots, sampling)."
            }
            Rule::ToolsChangedInSession => {
                "A tool's definition changed between two tools/list answers within one session."
            }
            Rule::ToolsDifferFromSnapshot => {
                "The tools the session listed differ from the interface snapshot they are \
                 held against."
            }
        }
    }

    /// How bad a finding of this rule is unless it says otherwise.
    pub fn default_level(self) -> Level {
        match self {
            Rule::ContractBroken | Rule::ProtocolError | Rule::Unanswered | Rule::UnlistedTool => {
                Level::Error
            }
            Rule::ToolError
            | Rule::SlowCall
            | Rule::DeprecatedFeature
            | Rule::ToolsChangedInSession
            | Rule::ToolsDifferFromSnapshot => Level::Warning,
        }
    }
}

/// How much of a tool's name a finding keeps.
pub const TOOL_CHARS: usize = 200;

/// One thing wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub level: Level,
    /// The tool called (a read's URI, a prompt's name), or the method of a request that
    /// names none.
    pub tool: Option<String>,
    /// The call's id in the history, when the finding is about a kept call.
    pub call: Option<i64>,
    /// The JSON-RPC id of the request it is about.
    pub request_id: Option<String>,
    /// When, in milliseconds since the session started (from its log).
    pub at_ms: Option<u64>,
    /// What is wrong, in words (server text not yet made terminal-safe).
    pub message: String,
}

impl Finding {
    pub fn new(rule: Rule, message: impl Into<String>) -> Self {
        Self {
            rule,
            level: rule.default_level(),
            tool: None,
            call: None,
            request_id: None,
            at_ms: None,
            message: message.into(),
        }
    }

    /// The tool it is about (a name of any length is cut to [`TOOL_CHARS`]).
    #[must_use]
    pub fn tool(mut self, tool: impl AsRef<str>) -> Self {
        self.tool = Some(crate::text_util::clip_chars(tool.as_ref(), TOOL_CHARS));
        self
    }

    #[must_use]
    pub fn call(mut self, call: i64) -> Self {
        self.call = Some(call);
        self
    }

    #[must_use]
    pub fn request(mut self, id: impl Into<String>, at_ms: u64) -> Self {
        self.request_id = Some(id.into());
        self.at_ms = Some(at_ms);
        self
    }

    #[must_use]
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    /// Where it is, in words: `add (call #12)`, `tools/list (request 3)`, or empty.
    pub fn place(&self) -> String {
        let mut place = self.tool.clone().unwrap_or_default();
        let detail = match (self.call, &self.request_id) {
            (Some(call), _) => Some(format!("call #{call}")),
            (None, Some(id)) => Some(format!("request {id}")),
            (None, None) => None,
        };
        if let Some(detail) = detail {
            if place.is_empty() {
                place = detail;
            } else {
                place = format!("{place} ({detail})");
            }
        }
        place
    }
}
