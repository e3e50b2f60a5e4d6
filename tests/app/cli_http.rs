//! The real binary against the demo server over Streamable HTTP, started by the test.

use crate::support::{demo_http_server, json_of, status, stderr, toolscope};
use serde_json::json;

#[test]
fn call_over_http() {
    let (_server, url) = demo_http_server(None);
    let output = toolscope(&[
        "call", "--url", &url, "add", "--arg", "a=1", "--arg", "b=2", "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let doc = json_of(&output);
    assert_eq!(
        doc["response"]["value"]["structuredContent"],
        json!({"result": 3})
    );
    assert_eq!(doc["analysis"]["contract"]["kind"], "satisfied");
}

#[test]
fn unauthorized_then_authorized() {
    let (_server, url) = demo_http_server(Some("s3cret"));
    let output = toolscope(&["tools", "--url", &url]);
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("unauthorized"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("Authorization: Bearer"));
    // The server's own challenge is quoted (its realm, error and scope say what it wants).
    assert!(
        stderr(&output).contains(r#"WWW-Authenticate: Bearer realm="toolscope-demo""#),
        "{}",
        stderr(&output)
    );
    let output = toolscope(&[
        "tools",
        "--url",
        &url,
        "--header",
        "Authorization: Bearer s3cret",
        "--json",
    ]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(json_of(&output)["tools"].as_array().unwrap().len(), 13);
}
