//! Tool arguments from `--args '<json>'` and `--arg key=value`.

use serde_json::{Map, Value};

use toolscope_core::session::config::parse_key_value;

/// The flags that give a tool its arguments, the same for every command that calls one.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ToolArguments {
    /// The tool's arguments as one JSON object
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// One argument (repeatable); the value is JSON when it parses, else a string
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
}

impl ToolArguments {
    /// The argument object (see [`build`]).
    pub fn build(&self) -> Result<Map<String, Value>, ArgumentsError> {
        build(self.args.as_deref(), &self.arg)
    }
}

/// Why the flags do not make an argument object.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentsError {
    #[error("--args must be a JSON object like '{{\"a\": 1}}', not {0}")]
    NotAnObject(&'static str),
    #[error("--args is not valid JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("--arg {0}")]
    Pair(toolscope_core::session::config::ConfigError),
}

/// Builds the argument object. `--arg` values are JSON when they parse (`n=5`, `ok=true`,
/// `list=[1,2]`) and strings otherwise (`name=Ada`); they override keys of `--args`.
pub fn build(json: Option<&str>, pairs: &[String]) -> Result<Map<String, Value>, ArgumentsError> {
    let mut arguments = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(ArgumentsError::NotAnObject(
                    toolscope_core::session::catalog::tool_catalog::json_type(&other),
                ));
            }
            Err(error) => return Err(ArgumentsError::NotJson(error)),
        },
    };
    for pair in pairs {
        let (key, text) = parse_key_value(pair).map_err(ArgumentsError::Pair)?;
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        arguments.insert(key, value);
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_and_pairs_merge() {
        let args = build(
            Some(r#"{"a": 1, "b": 2}"#),
            &["b=5".into(), "name=Ada".into(), "l=[1]".into()],
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 1, "b": 5, "name": "Ada", "l": [1]})
        );
    }

    #[test]
    fn bad_input_says_what_failed() {
        assert!(
            build(Some("{nope"), &[])
                .unwrap_err()
                .to_string()
                .contains("not valid JSON")
        );
        assert!(
            build(Some("[1]"), &[])
                .unwrap_err()
                .to_string()
                .contains("an array")
        );
        assert!(
            build(None, &["novalue".into()])
                .unwrap_err()
                .to_string()
                .contains("--arg")
        );
    }
}
