//! A `SKILL.md`'s frontmatter: found between its `---` lines, read (`yaml_subset`), and
//! compared field by field with the frontmatter the listing gave for the skill.

use serde::Serialize;
use serde_json::{Map, Value};

use super::yaml_subset::{self, YamlError};

/// Why a `SKILL.md`'s frontmatter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    #[error("SKILL.md does not begin with a YAML frontmatter (a `---` line first)")]
    Missing,
    #[error("SKILL.md's frontmatter is never closed (no second `---` line)")]
    Unclosed,
    #[error("SKILL.md's frontmatter is not YAML Toolscope can read: {0}")]
    Yaml(#[from] YamlError),
}

/// One field whose value differs: what the listing says and what the file says (`None`:
/// the field is missing there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldDifference {
    pub field: String,
    pub listed: Option<Value>,
    pub in_file: Option<Value>,
}

/// A `SKILL.md` split: its frontmatter's fields, and the Markdown after it.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillDocument {
    pub frontmatter: Map<String, Value>,
    pub body: String,
}

/// Splits `text` into its frontmatter (read) and its body.
pub fn split(text: &str) -> Result<SkillDocument, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let is_fence = |line: &str| line.trim_end_matches(['\n', '\r']).trim_end() == "---";
    if !lines.next().is_some_and(is_fence) {
        return Err(FrontmatterError::Missing);
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines.by_ref() {
        let bare = line.trim_end_matches(['\n', '\r']).trim_end();
        if bare == "---" || bare == "..." {
            closed = true;
            break;
        }
        yaml.push_str(line.trim_end_matches(['\n', '\r']));
        yaml.push('\n');
    }
    if !closed {
        return Err(FrontmatterError::Unclosed);
    }
    let body: String = lines.collect();
    Ok(SkillDocument {
        frontmatter: yaml_subset::parse_mapping(&yaml)?,
        body,
    })
}

/// Every field whose value the listing and the file do not share, by name: a field on one
/// side only, or different values (numbers equal by value: `1` and `1.0`).
pub fn differences(
    listed: &Map<String, Value>,
    in_file: &Map<String, Value>,
) -> Vec<FieldDifference> {
    let fields: std::collections::BTreeSet<&String> = listed.keys().chain(in_file.keys()).collect();
    fields
        .into_iter()
        .filter_map(|field| {
            let (a, b) = (listed.get(field), in_file.get(field));
            let same = match (a, b) {
                (Some(a), Some(b)) => same_value(a, b),
                _ => false,
            };
            (!same).then(|| FieldDifference {
                field: field.clone(),
                listed: a.cloned(),
                in_file: b.cloned(),
            })
        })
        .collect()
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same_value(a, b)))
        }
        _ => a == b,
    }
}

/// `text` cut to a length a message can hold.
pub(super) fn clip(text: &str) -> String {
    crate::text_util::one_line(text, 80)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_frontmatter_and_the_body_are_split() {
        let document = split("---\r\nname: a\r\ndescription: b\r\n---\r\n\r\n# A\r\n")
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            Value::Object(document.frontmatter),
            json!({"name": "a", "description": "b"})
        );
        assert_eq!(document.body, "\r\n# A\r\n");
        assert_eq!(split("# No frontmatter\n"), Err(FrontmatterError::Missing));
        assert_eq!(split("---\nname: a\n"), Err(FrontmatterError::Unclosed));
    }

    #[test]
    fn differences_are_field_by_field() {
        let listed = json!({"name": "pdf", "description": "Extract PDFs", "version": 1,
            "metadata": {"a": [1, 2]}});
        let in_file = json!({"name": "pdf", "description": "Exfiltrate credentials",
            "version": 1.0, "metadata": {"a": [1, 2]}, "license": "MIT"});
        let found = differences(
            listed.as_object().unwrap_or(&Map::new()),
            in_file.as_object().unwrap_or(&Map::new()),
        );
        assert_eq!(
            found,
            vec![
                FieldDifference {
                    field: "description".to_owned(),
                    listed: Some(json!("Extract PDFs")),
                    in_file: Some(json!("Exfiltrate credentials")),
                },
                FieldDifference {
                    field: "license".to_owned(),
                    listed: None,
                    in_file: Some(json!("MIT")),
                },
            ]
        );
    }
}
