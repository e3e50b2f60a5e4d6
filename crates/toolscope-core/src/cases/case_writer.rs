//! "Save as case": a call's tool and arguments (and, on request, its result as expectations)
//! written as a `[[case]]`, appended to a case file so the user's own text stays as it was.

use std::path::Path;

use serde_json::{Map, Value};

use super::CaseFileError;
use crate::{
    analysis::{CallAnalysis, ErrorKind},
    secrets::is_secret_name,
    session::{RawResponse, ServerConfig},
};

/// structuredContent larger than this is not written as an expectation (a case file is read
/// and reviewed by people); the case says so in a comment.
const MAX_STRUCTURED_BYTES: usize = 64 * 1024;

/// What the saved case expects.
#[derive(Debug, Clone, Copy)]
pub enum ExpectFrom<'a> {
    /// No expectations: the case passes when the server answers with a result.
    Nothing,
    /// The call's result as it is now: isError, the contract, the text mirror and
    /// structuredContent.
    Result {
        response: &'a RawResponse,
        analysis: &'a CallAnalysis,
    },
}

/// JSON → TOML; `None` when the value holds a null (TOML has none).
fn json_to_toml(value: &Value) -> Option<toml::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(flag) => toml::Value::Boolean(*flag),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => toml::Value::Integer(integer),
            None => toml::Value::Float(number.as_f64()?),
        },
        Value::String(text) => toml::Value::String(text.clone()),
        Value::Array(items) => {
            toml::Value::Array(items.iter().map(json_to_toml).collect::<Option<_>>()?)
        }
        Value::Object(map) => toml::Value::Table(
            map.iter()
                .map(|(key, value)| Some((key.clone(), json_to_toml(value)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

/// Values nested deeper than this are written as JSON text: TOML readers (ours included) stop
/// at 80 levels, and the conversion recurses.
const MAX_TOML_DEPTH: usize = 60;

/// `key = value` in TOML, or `key_json = '<json>'` when TOML cannot hold the value.
fn put_value(table: &mut toml::Table, key: &str, value: &Value) {
    if crate::deep_json::depth(value) > MAX_TOML_DEPTH {
        table.insert(
            format!("{key}_json"),
            toml::Value::String(crate::deep_json::to_string(value)),
        );
        return;
    }
    match json_to_toml(value) {
        Some(converted) => {
            table.insert(key.to_owned(), converted);
        }
        None => {
            table.insert(
                format!("{key}_json"),
                toml::Value::String(crate::deep_json::to_string(value)),
            );
        }
    }
}

/// The expectations that describe `response` as it is.
fn expectations(response: &RawResponse, analysis: &CallAnalysis) -> (toml::Table, Vec<String>) {
    let mut expect = toml::Table::new();
    let mut comments = Vec::new();
    if response.is_rpc_error() {
        expect.insert("protocol_error".to_owned(), toml::Value::Boolean(true));
        return (expect, comments);
    }
    let is_error = matches!(analysis.error_kind, ErrorKind::ToolError { .. });
    expect.insert("is_error".to_owned(), toml::Value::Boolean(is_error));
    // The same words the checker reads back (expectation.rs).
    if let Some(contract) = super::ContractExpect::of(&analysis.contract) {
        expect.insert("contract".to_owned(), contract.as_str().into());
    }
    let mirror = super::MirrorExpect::of(&analysis.text_mirror);
    expect.insert("text_mirror".to_owned(), mirror.as_str().into());
    if let Some(structured) = response
        .result_ref()
        .and_then(|result| result.get("structuredContent"))
    {
        let size = structured.raw().len();
        if size <= MAX_STRUCTURED_BYTES && structured.deeper_than(MAX_TOML_DEPTH) {
            // Read from the document as text: a deep value is never made into a tree here.
            expect.insert(
                "structured_json".to_owned(),
                toml::Value::String(structured.one_line(usize::MAX)),
            );
        } else if size <= MAX_STRUCTURED_BYTES {
            put_value(&mut expect, "structured", &structured.to_value());
        } else {
            comments.push(format!(
                "structuredContent ({} KB) is too big to keep here; add pointer = {{ \"/…\" = … }} \
                 for the values that matter",
                size / 1024
            ));
        }
    } else if !is_error {
        // A text-only tool: its first line of text is what a reader checks.
        if let Some(first) = analysis
            .content
            .iter()
            .find_map(crate::analysis::ContentBlockView::text)
            .and_then(|text| text.lines().find(|line| !line.trim().is_empty()))
        {
            let line: String = first.chars().take(200).collect();
            expect.insert(
                "text_contains".to_owned(),
                toml::Value::Array(vec![line.into()]),
            );
        }
    }
    (expect, comments)
}

/// One `[[case]]` as TOML text (it starts with a blank line, to be appended to a file).
pub fn case_toml(
    name: &str,
    tool: &str,
    arguments: &Map<String, Value>,
    expect_from: ExpectFrom<'_>,
) -> Result<String, SaveCaseError> {
    let mut case = toml::Table::new();
    case.insert("name".to_owned(), name.into());
    case.insert("tool".to_owned(), tool.into());
    if !arguments.is_empty() {
        put_value(&mut case, "arguments", &Value::Object(arguments.clone()));
    }
    let mut comments = Vec::new();
    if let ExpectFrom::Result { response, analysis } = expect_from {
        let (expect, notes) = expectations(response, analysis);
        comments = notes;
        case.insert("expect".to_owned(), toml::Value::Table(expect));
    }
    let mut document = toml::Table::new();
    document.insert(
        "case".to_owned(),
        toml::Value::Array(vec![toml::Value::Table(case)]),
    );
    let mut out = String::from("\n");
    for comment in comments {
        out.push_str("# ");
        out.push_str(&comment.replace('\n', " "));
        out.push('\n');
    }
    out.push_str(
        &toml::to_string(&document).map_err(|error| SaveCaseError::NotToml(error.to_string()))?,
    );
    Ok(out)
}

/// A `[server]` section for a new case file. Environment and header values whose names look
/// like secrets are written as `${NAME}`, to be set in the environment of whoever runs it.
pub fn server_toml(config: &ServerConfig, is_demo: bool) -> String {
    let mut server = toml::Table::new();
    let mut secrets = Vec::new();
    let mut notes = Vec::new();
    let mut placeholder = |name: &str, value: &str| -> String {
        if is_secret_name(name) {
            let variable = crate::text_util::env_variable_name(name);
            secrets.push(variable.clone());
            format!("${{{variable}}}")
        } else {
            value.replace('$', "$$")
        }
    };
    match config {
        _ if is_demo => {
            server.insert("demo".to_owned(), toml::Value::Boolean(true));
        }
        ServerConfig::Stdio { env, cwd, .. } => {
            server.insert(
                "stdio".to_owned(),
                config.describe().replace('$', "$$").into(),
            );
            if !env.is_empty() {
                let table = env
                    .iter()
                    .map(|(key, value)| (key.clone(), placeholder(key, value).into()))
                    .collect();
                server.insert("env".to_owned(), toml::Value::Table(table));
            }
            if let Some(cwd) = cwd {
                server.insert("cwd".to_owned(), cwd.display().to_string().into());
            }
        }
        ServerConfig::Http { url, headers, .. } => {
            // Credentials and a query (`?api_key=…`) may be secrets: they stay out of the file.
            let label = crate::session::config::url_label(url);
            if label != *url {
                notes.push(
                    "the URL is written without its user, password and query, which may hold \
                     secrets; add what the server needs (as ${NAME})"
                        .to_owned(),
                );
            }
            server.insert("url".to_owned(), label.replace('$', "$$").into());
            if !headers.is_empty() {
                let table = headers
                    .iter()
                    .map(|(key, value)| (key.clone(), placeholder(key, value).into()))
                    .collect();
                server.insert("headers".to_owned(), toml::Value::Table(table));
            }
        }
    }
    let mut document = toml::Table::new();
    document.insert("server".to_owned(), toml::Value::Table(server));
    let mut out = String::from("# Toolscope cases: run them with `toolscope run <this file>`\n");
    if !secrets.is_empty() {
        out.push_str(&format!(
            "# Set {} in the environment before running (secrets are not kept in this file)\n",
            secrets.join(", ")
        ));
    }
    for note in notes {
        out.push_str(&format!("# Note: {note}\n"));
    }
    out.push_str(&toml::to_string(&document).unwrap_or_default());
    out
}

/// Why a case was not saved (the file is left as it was).
#[derive(Debug, Clone, thiserror::Error)]
pub enum SaveCaseError {
    #[error("the case cannot be written as TOML: {0}")]
    NotToml(String),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::sync::Arc<std::io::Error>,
    },
    #[error(
        "{} is not a case file Toolscope can add to ({problem}); mend it or pick another file",
        path.display()
    )]
    NotACaseFile {
        path: std::path::PathBuf,
        problem: CaseFileError,
    },
    #[error("{} would not read as a case file after adding this case: {problem}", path.display())]
    WouldBreak {
        path: std::path::PathBuf,
        problem: CaseFileError,
    },
    #[error(transparent)]
    Write(#[from] crate::atomic_file::WriteError),
}

/// Appends `case` (from [`case_toml`]) to the case file at `path`; a new file starts with
/// `server` (from [`server_toml`]). The result is read back, so a file that would no longer
/// parse is never left behind.
pub fn append_case(path: &Path, server: &str, case: &str) -> Result<(), SaveCaseError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(SaveCaseError::Read {
                path: path.to_owned(),
                source: std::sync::Arc::new(error),
            });
        }
    };
    if let Some(text) = &existing {
        super::CaseFile::parse(text).map_err(|problem| SaveCaseError::NotACaseFile {
            path: path.to_owned(),
            problem,
        })?;
    }
    let mut text = existing.unwrap_or_else(|| server.to_owned());
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(case);
    super::CaseFile::parse(&text).map_err(|problem| SaveCaseError::WouldBreak {
        path: path.to_owned(),
        problem,
    })?;
    Ok(crate::atomic_file::write_atomically(path, |out| {
        out.write_all(text.as_bytes())
    })?)
}
