//! The gate's findings as SARIF 2.1.0, for CI code-scanning views: one run of Toolscope, one
//! rule per kind of finding, each result located at its tool and its call (logical locations)
//! in the session or recording it came from (the artifact).

use serde_json::{Value, json};

use super::{finding::Rule, judge::Judgement};

/// The SARIF version written.
pub const SARIF_VERSION: &str = "2.1.0";
/// The schema a SARIF 2.1.0 log names.
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF log of `judged` (one artifact per source, in order).
pub fn sarif_log(judged: &[Judgement]) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id(),
                "name": rule.name(),
                "shortDescription": {"text": rule.description()},
                "fullDescription": {"text": rule.description()},
                "defaultConfiguration": {"level": rule.default_level().as_str()},
                "helpUri": "https://github.com/toolscope/toolscope#gates-over-recorded-sessions",
            })
        })
        .collect();
    let artifacts: Vec<Value> = judged
        .iter()
        .map(|judgement| {
            json!({
                "location": {"uri": judgement.source.artifact_uri()},
                "description": {"text": judgement.source.label()},
            })
        })
        .collect();
    let mut results = Vec::new();
    for (index, judgement) in judged.iter().enumerate() {
        let server = judgement.source.server();
        for finding in &judgement.findings {
            let rule_index = Rule::ALL
                .iter()
                .position(|rule| *rule == finding.rule)
                .unwrap_or(0);
            let mut logical = Vec::new();
            if let Some(tool) = &finding.tool {
                let qualified = match server {
                    Some(server) => format!("{server}/{tool}"),
                    None => tool.clone(),
                };
                logical.push(json!({
                    "name": tool,
                    "fullyQualifiedName": qualified,
                    "kind": "function",
                }));
            }
            let call = match (finding.call, &finding.request_id) {
                (Some(call), _) => Some(format!("call #{call}")),
                (None, Some(id)) => Some(format!("request {id}")),
                (None, None) => None,
            };
            if let Some(call) = call {
                let qualified = match &finding.tool {
                    Some(tool) => format!("{tool}/{call}"),
                    None => call.clone(),
                };
                logical.push(json!({
                    "name": call,
                    "fullyQualifiedName": qualified,
                    "kind": "object",
                }));
            }
            let mut location = json!({
                "physicalLocation": {
                    "artifactLocation": {
                        "uri": judgement.source.artifact_uri(),
                        "index": index,
                    }
                }
            });
            if !logical.is_empty() {
                location["logicalLocations"] = Value::Array(logical);
            }
            let mut properties = serde_json::Map::new();
            if let Some(call) = finding.call {
                properties.insert("call".to_owned(), json!(call));
            }
            if let Some(id) = &finding.request_id {
                properties.insert("requestId".to_owned(), json!(id));
            }
            if let Some(at) = finding.at_ms {
                properties.insert("atMs".to_owned(), json!(at));
            }
            let mut result = json!({
                "ruleId": finding.rule.id(),
                "ruleIndex": rule_index,
                "level": finding.level.as_str(),
                "message": {"text": finding.message},
                "locations": [location],
            });
            if !properties.is_empty() {
                result["properties"] = Value::Object(properties);
            }
            results.push(result);
        }
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {
                "driver": {
                    "name": "Toolscope",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/toolscope/toolscope",
                    "rules": rules,
                }
            },
            "artifacts": artifacts,
            "results": results,
        }]
    })
}
