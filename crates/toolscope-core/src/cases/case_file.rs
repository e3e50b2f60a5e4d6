//! A case file: plain TOML in the user's repository, with one `[server]` and `[[case]]`s.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{CaseServer, Expect};
use crate::{
    answers::{ElicitChoice, FixedAnswers},
    engine::CallWish,
    history::CallKind,
};

/// A case file as read.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseFile {
    /// Where it was read from (relative paths in `[server]` are relative to its folder).
    pub path: Option<PathBuf>,
    /// `None` when the file has no `[server]` (a server must then be given to run it).
    pub server: Option<CaseServer>,
    pub cases: Vec<Case>,
}

/// One call (or resource read, or prompt got) and what its answer must be.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    /// A tool call (`tool = …`), a read (`resource = …`) or a prompt (`prompt = …`).
    pub kind: CallKind,
    /// The tool's name, the resource's URI or the prompt's name.
    pub tool: String,
    pub arguments: Map<String, Value>,
    pub expect: Expect,
    /// How the call is sent: `force = true` calls a tool with invalid `x-mcp-header`
    /// annotations, `task = true` runs it as a task when it allows one, as `toolscope call`'s
    /// `--force` and `--task` do.
    pub wish: CallWish,
    /// What the server is answered if it asks during the call (`[case.answers]`).
    pub answers: CaseAnswers,
}

/// A case's answers to what the server asks: elicitation is declined and sampling refused
/// unless the case says otherwise, as `toolscope call` does without its flags.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseAnswers {
    /// `elicit = "accept-defaults" | "decline" | "cancel"` (`None`: not said).
    pub elicit: Option<ElicitChoice>,
    /// `elicit_answer = { … }`: accept with this content.
    pub elicit_answer: Option<Value>,
    /// `sample = "text"`: reply to sampling requests with this text.
    pub sample: Option<String>,
}

impl CaseAnswers {
    /// The case says how elicitations are answered.
    pub fn answers_elicitation(&self) -> bool {
        self.elicit.is_some() || self.elicit_answer.is_some()
    }

    /// As answers the session gives.
    pub fn to_fixed(&self) -> FixedAnswers {
        FixedAnswers {
            elicit: self.elicit.unwrap_or_default(),
            content: self.elicit_answer.clone(),
            sample: self.sample.clone(),
            sample_hint: "`sample = \"…\"` in the case's [case.answers] replies",
            notes: None,
        }
    }
}

/// Why a case file cannot be used, in words that say where and what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CaseFileError(pub String);

impl CaseFileError {
    fn new(problem: &str) -> Self {
        Self(problem.to_owned())
    }

    /// The same problem, said of `place` (`arguments: …`).
    pub(super) fn within(self, place: &str) -> Self {
        Self(format!("{place}: {}", self.0))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    server: Option<ServerToml>,
    #[serde(default)]
    case: Vec<CaseToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerToml {
    #[serde(default)]
    pub demo: bool,
    pub stdio: Option<String>,
    #[serde(default)]
    pub env: toml::Table,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    #[serde(default)]
    pub headers: toml::Table,
    pub timeout_seconds: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    name: String,
    /// One of these three: what the case calls, reads or gets.
    tool: Option<String>,
    resource: Option<String>,
    prompt: Option<String>,
    #[serde(default)]
    arguments: toml::Table,
    /// The arguments as JSON text, for values TOML cannot hold (null).
    arguments_json: Option<String>,
    /// Call it despite invalid `x-mcp-header` annotations.
    #[serde(default)]
    force: bool,
    /// Run it as a task when the tool allows one.
    #[serde(default)]
    task: bool,
    answers: Option<AnswersToml>,
    #[serde(default)]
    expect: super::expectation::ExpectToml,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
struct AnswersToml {
    elicit: Option<ElicitChoice>,
    elicit_answer: Option<toml::Table>,
    sample: Option<String>,
}

impl AnswersToml {
    fn read(self) -> Result<CaseAnswers, CaseFileError> {
        if self.elicit.is_some() && self.elicit_answer.is_some() {
            return Err(CaseFileError::new("give elicit or elicit_answer, not both"));
        }
        let elicit_answer = self
            .elicit_answer
            .map(|table| toml_to_json(toml::Value::Table(table)))
            .transpose()
            .map_err(|error| error.within("elicit_answer"))?;
        Ok(CaseAnswers {
            elicit: self.elicit,
            elicit_answer,
            sample: self.sample,
        })
    }
}

impl CaseFile {
    /// Reads and checks a case file.
    pub fn read(path: &Path) -> Result<Self, CaseFileError> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            CaseFileError(format!(
                "cannot read the case file {}: {error}",
                path.display()
            ))
        })?;
        let mut file = Self::parse(&text).map_err(|CaseFileError(message)| {
            CaseFileError(format!("{}: {message}", path.display()))
        })?;
        file.path = Some(path.to_owned());
        Ok(file)
    }

    /// Parses a case file's text.
    pub fn parse(text: &str) -> Result<Self, CaseFileError> {
        let parsed: FileToml = toml::from_str(text).map_err(|error| {
            CaseFileError(format!(
                "not a valid case file: {}",
                error.to_string().trim_end()
            ))
        })?;
        let server = parsed.server.map(CaseServer::from_toml).transpose()?;
        let mut cases = Vec::with_capacity(parsed.case.len());
        for (index, case) in parsed.case.into_iter().enumerate() {
            let place = format!("[[case]] #{} ({:?})", index + 1, case.name);
            if case.name.trim().is_empty() {
                return Err(CaseFileError(format!(
                    "[[case]] #{} has an empty name; give every case a name",
                    index + 1
                )));
            }
            if cases.iter().any(|seen: &Case| seen.name == case.name) {
                return Err(CaseFileError(format!(
                    "{place}: another case has the same name; names must be unique (they name \
                     the test cases in reports and JUnit)"
                )));
            }
            let (kind, target) = match (case.tool, case.resource, case.prompt) {
                (Some(tool), None, None) => (CallKind::Call, tool),
                (None, Some(uri), None) => (CallKind::Read, uri),
                (None, None, Some(prompt)) => (CallKind::Prompt, prompt),
                _ => {
                    return Err(CaseFileError(format!(
                        "{place}: give one of tool = \"…\" (a call), resource = \"…\" (a \
                         read) or prompt = \"…\" (a prompt got)"
                    )));
                }
            };
            let arguments = arguments(case.arguments, case.arguments_json)
                .map_err(|error| CaseFileError(format!("{place}: {error}")))?;
            let expect = Expect::from_toml(case.expect)
                .map_err(|error| CaseFileError(format!("{place}: expect: {error}")))?;
            if kind != CallKind::Call {
                not_for_a_tool(
                    kind,
                    &expect,
                    (case.force, case.task, case.answers.is_some()),
                )
                .map_err(|error| error.within(&place))?;
                if kind == CallKind::Read && !arguments.is_empty() {
                    return Err(CaseFileError(format!(
                        "{place}: a read has no arguments; write a template's values into \
                         its URI"
                    )));
                }
                let strings = arguments.values().all(Value::is_string);
                if !strings {
                    return Err(CaseFileError(format!(
                        "{place}: a prompt's arguments are strings"
                    )));
                }
            }
            cases.push(Case {
                name: case.name,
                kind,
                tool: target,
                arguments,
                expect,
                wish: CallWish {
                    force: case.force,
                    prefer_task: case.task,
                },
                answers: case
                    .answers
                    .map(AnswersToml::read)
                    .transpose()
                    .map_err(|error| CaseFileError(format!("{place}: answers: {error}")))?
                    .unwrap_or_default(),
            });
        }
        Ok(Self {
            path: None,
            server,
            cases,
        })
    }

    /// The folder relative paths are resolved against.
    pub fn folder(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .filter(|folder| !folder.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }
}

/// A read or a prompt case asks only what such an answer has.
fn not_for_a_tool(
    kind: CallKind,
    expect: &Expect,
    (force, task, answers): (bool, bool, bool),
) -> Result<(), CaseFileError> {
    let mut refused: Vec<&str> = expect.tool_only();
    for (key, given) in [("force", force), ("task", task), ("answers", answers)] {
        if given {
            refused.push(key);
        }
    }
    if refused.is_empty() {
        return Ok(());
    }
    Err(CaseFileError(format!(
        "{} apply to tool calls only; a {} case may expect protocol_error, text_contains and \
         max_duration_ms",
        refused.join(", "),
        kind.as_str()
    )))
}

fn arguments(
    table: toml::Table,
    json: Option<String>,
) -> Result<Map<String, Value>, CaseFileError> {
    let value = match json {
        Some(_) if !table.is_empty() => {
            return Err(CaseFileError::new(
                "give arguments or arguments_json, not both",
            ));
        }
        Some(text) => json_text(&text).map_err(|error| error.within("arguments_json"))?,
        None => {
            toml_to_json(toml::Value::Table(table)).map_err(|error| error.within("arguments"))?
        }
    };
    match value {
        Value::Object(map) => Ok(map),
        other => Err(CaseFileError(format!(
            "arguments_json must be a JSON object, not {}",
            crate::text_util::json_shape_phrase(&other)
        ))),
    }
}

/// JSON written in a TOML string (for values TOML cannot hold, such as null).
pub(super) fn json_text(text: &str) -> Result<Value, CaseFileError> {
    crate::deep_json::parse(text).map_err(|error| CaseFileError(format!("not valid JSON: {error}")))
}

/// TOML → JSON: tables become objects (in the file's order), dates become RFC 3339 strings.
pub(super) fn toml_to_json(value: toml::Value) -> Result<Value, CaseFileError> {
    Ok(match value {
        toml::Value::String(text) => Value::String(text),
        toml::Value::Integer(number) => Value::from(number),
        toml::Value::Float(number) => serde_json::Number::from_f64(number)
            .map(Value::Number)
            .ok_or_else(|| CaseFileError(format!("{number} is not a number JSON can hold")))?,
        toml::Value::Boolean(flag) => Value::Bool(flag),
        toml::Value::Datetime(when) => Value::String(when.to_string()),
        toml::Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(toml_to_json)
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => Value::Object(
            table
                .into_iter()
                .map(|(key, value)| Ok((key, toml_to_json(value)?)))
                .collect::<Result<_, CaseFileError>>()?,
        ),
    })
}
