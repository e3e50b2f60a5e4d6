//! A call record prepared for the window from a structuredContent nested 10,000 and 100,000
//! levels deep, on a thread with a tokio worker's 2 MiB stack: analysis, raw preview, copy.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::sync::Arc;

use serde_json::json;
use toolscope::workbench::call_record::prepare_record;
use toolscope_core::{
    json_doc::JsonDoc,
    session::{CallOutcome, RawResponse},
};

#[test]
fn deep_results_become_records_on_a_worker_stack() {
    for levels in [10_000, 100_000] {
        std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                let deep = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
                let message = format!(
                    r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"{deep}"}}],"structuredContent":{deep}}}}}"#
                );
                let message = Arc::new(JsonDoc::parse(message).unwrap());
                let outcome = CallOutcome {
                    tool: "deep".to_owned(),
                    arguments: json!({}),
                    request_id: "3".to_owned(),
                    response: RawResponse::from_message(message),
                    duration: std::time::Duration::ZERO,
                    duplicate_responses: 0,
                    rounds: Default::default(),
                };
                let schema = json!({"type": "array"});
                let record =
                    prepare_record(3, 0, outcome, Some(&schema), "2025-11-25".into(), 4096);
                assert!(record.analysis.contract.is_too_deep());
                assert!(
                    record
                        .response_preview
                        .starts_with("{\n  \"jsonrpc\": \"2.0\"")
                );
                assert!(record.response_preview_cut);
                let whole = record.response_text();
                assert!(
                    whole.ends_with(&format!("{}}}}}", "]".repeat(levels))),
                    "{}",
                    &whole[whole.len() - 20..]
                );
                assert_eq!(record.structured_content().unwrap().depth(), levels);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
