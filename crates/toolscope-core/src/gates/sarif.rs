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

/// The most results a run carries: code scanning shows 5,000 and refuses an upload over
/// 25,000; the rest are counted in a notification (the command's own lines have them all).
pub const MAX_SARIF_RESULTS: usize = 5_000;

/// A result's fingerprint, the same from one CI run to the next for the same finding: its
/// rule, the server, the tool and which of that rule's findings on that tool it is (messages
/// carry times and call ids, which change).
fn fingerprint(rule: &str, server: Option<&str>, tool: Option<&str>, occurrence: usize) -> String {
    use sha2::Digest as _;
    let key = format!(
        "{rule}|{}|{}|{occurrence}",
        server.unwrap_or_default(),
        tool.unwrap_or_default()
    );
    sha2::Sha256::digest(key.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

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
    let mut left_out = 0_usize;
    let mut occurrences: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    for (index, judgement) in judged.iter().enumerate() {
        let server = judgement.source.server();
        for finding in &judgement.findings {
            if results.len() >= MAX_SARIF_RESULTS {
                left_out += 1;
                continue;
            }
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
            if let super::recorded::Source::Session { id, .. } = &judgement.source {
                properties.insert("session".to_owned(), json!(id));
            }
            if let Some(call) = finding.call {
                properties.insert("call".to_owned(), json!(call));
            }
            if let Some(id) = &finding.request_id {
                properties.insert("requestId".to_owned(), json!(id));
            }
            if let Some(at) = finding.at_ms {
                properties.insert("atMs".to_owned(), json!(at));
            }
            let occurrence = occurrences
                .entry(format!(
                    "{}|{}|{}",
                    finding.rule.id(),
                    server.unwrap_or_default(),
                    finding.tool.as_deref().unwrap_or_default()
                ))
                .or_default();
            *occurrence += 1;
            let mut result = json!({
                "ruleId": finding.rule.id(),
                "ruleIndex": rule_index,
                "level": finding.level.as_str(),
                "message": {"text": finding.message},
                "locations": [location],
                "partialFingerprints": {
                    "toolscopeFinding/v1": fingerprint(
                        finding.rule.id(),
                        server,
                        finding.tool.as_deref(),
                        *occurrence,
                    ),
                },
            });
            if !properties.is_empty() {
                result["properties"] = Value::Object(properties);
            }
            results.push(result);
        }
    }
    let mut run = json!({
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
    });
    if left_out > 0 {
        run["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": [{
                "level": "warning",
                "message": {"text": format!(
                    "{left_out} more finding(s) left out: at most {MAX_SARIF_RESULTS} results \
                     a run (toolscope check's own lines and --json have them all)"
                )},
            }],
        }]);
    }
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [run],
    })
}
