//! Content-block annotations (`audience`, `priority`, `lastModified`), read leniently.

use serde::Serialize;
use serde_json::Value;

/// What a block's `annotations` say; odd values are kept and flagged by the block's problems.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Annotations {
    /// Audience entries as sent, including invalid ones such as "system".
    pub audience: Vec<String>,
    pub priority: Option<f64>,
    pub last_modified: Option<String>,
}

impl Annotations {
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.audience.is_empty() {
            parts.push(format!("for {}", self.audience.join(" and ")));
        }
        if let Some(p) = self.priority {
            parts.push(format!("priority {p}"));
        }
        if let Some(m) = &self.last_modified {
            parts.push(format!("last modified {m}"));
        }
        if parts.is_empty() {
            "no annotations".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// Parses `annotations`, pushing plain-words problems for anything off-spec.
pub(crate) fn parse_annotations(value: &Value, problems: &mut Vec<String>) -> Option<Annotations> {
    let Some(obj) = value.as_object() else {
        problems.push(format!(
            "annotations is {}, not an object",
            json_type_phrase(value)
        ));
        return None;
    };
    let mut out = Annotations::default();
    match obj.get("audience") {
        None => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item.as_str() {
                    Some(role @ ("user" | "assistant")) => out.audience.push(role.to_owned()),
                    Some(other) => {
                        problems.push(format!(
                            "annotations.audience has \"{other}\"; only \"user\" and \"assistant\" are allowed"
                        ));
                        out.audience.push(other.to_owned());
                    }
                    None => problems.push(format!(
                        "annotations.audience has {}, not a role string",
                        json_type_phrase(item)
                    )),
                }
            }
        }
        Some(other) => problems.push(format!(
            "annotations.audience is {}, not a list of roles",
            json_type_phrase(other)
        )),
    }
    match obj.get("priority") {
        None => {}
        Some(Value::Number(n)) => {
            let p = n.as_f64().unwrap_or(f64::NAN);
            if !(0.0..=1.0).contains(&p) {
                problems.push(format!(
                    "annotations.priority is {n}; it must be between 0 and 1"
                ));
            }
            out.priority = Some(p);
        }
        Some(other) => problems.push(format!(
            "annotations.priority is {}, not a number",
            json_type_phrase(other)
        )),
    }
    match obj.get("lastModified") {
        None => {}
        Some(Value::String(s)) => {
            if !looks_like_iso_timestamp(s) {
                problems.push(format!(
                    "annotations.lastModified \"{s}\" is not an ISO 8601 timestamp"
                ));
            }
            out.last_modified = Some(s.clone());
        }
        Some(other) => problems.push(format!(
            "annotations.lastModified is {}, not a timestamp string",
            json_type_phrase(other)
        )),
    }
    Some(out)
}

/// A light check (date part "YYYY-MM-DD"); full RFC 3339 parsing is not worth a dependency.
fn looks_like_iso_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..10].iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

pub(crate) use crate::text_util::json_type_phrase;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_annotations() {
        let mut problems = Vec::new();
        let a = parse_annotations(
            &json!({"audience": ["user", "assistant"], "priority": 0.5,
                    "lastModified": "2025-01-12T15:00:58Z"}),
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
        let a = a.unwrap_or_default();
        assert_eq!(a.audience, vec!["user", "assistant"]);
        assert_eq!(a.priority, Some(0.5));
        assert!(a.describe().contains("for user and assistant"));
    }

    #[test]
    fn odd_annotations_are_kept_and_flagged() {
        let mut problems = Vec::new();
        let a = parse_annotations(
            &json!({"audience": ["system", 3], "priority": 2, "lastModified": "yesterday"}),
            &mut problems,
        )
        .unwrap_or_default();
        assert_eq!(a.audience, vec!["system"]);
        assert_eq!(a.priority, Some(2.0));
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("\"system\""));

        let mut problems = Vec::new();
        assert!(parse_annotations(&json!("x"), &mut problems).is_none());
        assert_eq!(problems, vec!["annotations is a string, not an object"]);
    }
}
