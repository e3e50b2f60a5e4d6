//! What a kept exchange was: a tool call, a resource read or a prompt got. All three are kept,
//! listed and compared alike; the kind says how to read the response.

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// `tools/call`: the name is the tool's.
    #[default]
    Call,
    /// `resources/read`: the name is the resource's URI.
    Read,
    /// `prompts/get`: the name is the prompt's.
    Prompt,
}

impl CallKind {
    pub const ALL: [CallKind; 3] = [CallKind::Call, CallKind::Read, CallKind::Prompt];

    /// The word stored in the database, shown in lists and given to `history --kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Call => "call",
            CallKind::Read => "read",
            CallKind::Prompt => "prompt",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == word)
    }

    /// The request it was.
    pub fn method(self) -> &'static str {
        match self {
            CallKind::Call => "tools/call",
            CallKind::Read => "resources/read",
            CallKind::Prompt => "prompts/get",
        }
    }
}

impl std::fmt::Display for CallKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
