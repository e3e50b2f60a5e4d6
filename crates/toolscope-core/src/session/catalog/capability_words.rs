//! A server's declared capabilities said in words, with what its protocol era deprecates:
//! from 2026-07-28, SEP-2577 deprecates logging (the level travels in each request's `_meta`),
//! roots and sampling (asked through `input_required` results instead of requests).

use serde_json::Value;

use crate::session::ServerSummary;

/// One capability, said as a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapabilityWords {
    /// Its key in `capabilities` (`tools`, `resources`…).
    pub key: String,
    pub sentence: String,
    /// What the server's era says against using it, if anything.
    pub deprecation: Option<String>,
}

/// The deprecation note for `feature` (`logging`, `roots`, `sampling`) on a server of this
/// era, for every face that offers the feature.
pub fn deprecation_note(summary: &ServerSummary, feature: &str) -> Option<String> {
    if !summary.is_modern_era() {
        return None;
    }
    let how = match feature {
        "logging" => "a client sets the level in each request's _meta instead of logging/setLevel",
        "roots" => "the server asks for them through an input_required result, not roots/list",
        "sampling" => {
            "the server asks for a completion through an input_required result, not \
             sampling/createMessage"
        }
        _ => return None,
    };
    Some(format!(
        "{feature} is deprecated from protocol 2026-07-28 (SEP-2577), which this server speaks: \
         {how}"
    ))
}

/// Every capability the server declared, in the order a person looks for them.
pub fn capabilities_in_words(summary: &ServerSummary) -> Vec<CapabilityWords> {
    let Some(declared) = summary.capabilities.as_object() else {
        return Vec::new();
    };
    let flag = |value: &Value, key: &str| value.get(key).and_then(Value::as_bool) == Some(true);
    let order = [
        "tools",
        "resources",
        "prompts",
        "completions",
        "logging",
        "tasks",
    ];
    let mut keys: Vec<&String> = declared.keys().collect();
    keys.sort_by_key(|key| {
        order
            .iter()
            .position(|known| known == key)
            .unwrap_or(order.len())
    });
    keys.into_iter()
        .map(|key| {
            let value = &declared[key];
            let changes = if flag(value, "listChanged") {
                "; it says when the list changes"
            } else {
                ""
            };
            let sentence = match key.as_str() {
                "tools" => format!("Tools to call{changes}"),
                "resources" => {
                    let subscribe = if flag(value, "subscribe") {
                        "; resources can be subscribed to for updates"
                    } else {
                        ""
                    };
                    format!("Resources to read{changes}{subscribe}")
                }
                "prompts" => format!("Prompts to get{changes}"),
                "completions" => "Completion of prompt and resource-template arguments".to_owned(),
                "logging" => "Log messages, at a level the client sets".to_owned(),
                "tasks" => "Tasks: long requests run in the background and are polled".to_owned(),
                "experimental" | "extensions" => format!(
                    "{}: {}",
                    if key == "experimental" {
                        "Experimental features"
                    } else {
                        "Extensions"
                    },
                    value
                        .as_object()
                        .map(|named| named.keys().cloned().collect::<Vec<_>>().join(", "))
                        .filter(|names| !names.is_empty())
                        .unwrap_or_else(|| "none named".to_owned())
                ),
                other => format!("{other} (a capability Toolscope does not know)"),
            };
            CapabilityWords {
                key: key.clone(),
                sentence,
                deprecation: deprecation_note(summary, key),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn summary(version: &str, capabilities: Value) -> ServerSummary {
        ServerSummary {
            protocol_version: version.to_owned(),
            lifecycle: "initialize",
            lifecycle_reason: None,
            name: None,
            title: None,
            version: None,
            capabilities,
            instructions: None,
        }
    }

    #[test]
    fn capabilities_are_said_in_words_and_logging_is_deprecated_on_2026() {
        let capabilities = json!({"logging": {}, "prompts": {"listChanged": true},
            "resources": {"subscribe": true}, "tools": {}, "x-odd": {}});
        let old = capabilities_in_words(&summary("2025-11-25", capabilities.clone()));
        let keys: Vec<_> = old.iter().map(|words| words.key.as_str()).collect();
        assert_eq!(keys, ["tools", "resources", "prompts", "logging", "x-odd"]);
        assert!(old[1].sentence.contains("subscribed"));
        assert!(old[2].sentence.contains("list changes"));
        assert!(old.iter().all(|words| words.deprecation.is_none()));
        let modern = capabilities_in_words(&summary("2026-07-28", capabilities));
        assert!(
            modern[3]
                .deprecation
                .as_deref()
                .is_some_and(|note| note.contains("SEP-2577"))
        );
        assert!(deprecation_note(&summary("2026-07-28", json!({})), "roots").is_some());
        assert!(deprecation_note(&summary("2026-07-28", json!({})), "tools").is_none());
    }
}
