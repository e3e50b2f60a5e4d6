use base64::Engine as _;
use serde_json::{Value, json};

use super::*;
use crate::{
    analysis::{CallResponse, ProtocolEra, analyze_call},
    history::Verdict,
    session::RawResponse,
};

/// A 1×1 PNG.
const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn entry(heading: &str, result: &Value, status: Option<EntryStatus>, note: &str) -> ReportEntry {
    let response = RawResponse::new_result("1", result);
    let analysis = analyze_call(
        CallResponse::Result(response.member()),
        None,
        ProtocolEra::Modern,
    );
    ReportEntry {
        heading: heading.to_owned(),
        status,
        tool: "<b>tool</b>".to_owned(),
        server: ServerIdentity {
            label: "python3 server.py".to_owned(),
            name: Some("srv".to_owned()),
            version: Some("1.2".to_owned()),
            protocol_version: Some("2026-07-28".to_owned()),
        },
        started_at: Some("2026-12-01T10:00:00.000Z".to_owned()),
        duration_ms: Some(12),
        verdict: Verdict::Ok,
        arguments: json!({"q": "x"}),
        note: note.to_owned(),
        answer: EntryAnswer::Answered {
            response,
            analysis: Box::new(analysis),
        },
    }
}

fn sample() -> Report {
    let png = base64::engine::general_purpose::STANDARD.encode(PNG_1X1);
    let big: Vec<u32> = (0..5_000).collect();
    Report {
        title: "QA of srv".to_owned(),
        generated_at: "2026-12-01T10:01:00Z".to_owned(),
        summary: Some("2 cases: 1 passed, 1 failed".to_owned()),
        entries: vec![
            entry(
                "add <script>alert(1)</script>",
                &json!({
                    "content": [
                        {"type": "text", "text": "```\n<img src=x onerror=alert(1)>\u{1b}[31m"},
                        {"type": "image", "mimeType": "image/png", "data": png},
                    ],
                    "structuredContent": {"result": 3},
                }),
                Some(EntryStatus::Passed),
                "looks *right*",
            ),
            entry(
                "big",
                &json!({"content": [], "structuredContent": {"items": big}}),
                Some(EntryStatus::Failed(vec![
                    "structured: expected 1, got 2".to_owned(),
                ])),
                "",
            ),
        ],
    }
}

#[test]
fn html_is_self_contained_escaped_and_embeds_images() {
    let html = sample().render(ReportFormat::Html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains("default-src 'none'"),
        "no content security policy"
    );
    assert!(!html.contains("<script"), "server text became markup");
    assert!(!html.contains("<img src=x"), "server text became markup");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<img src=\"data:image/png;base64,"));
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(
        html.contains("\\u{1b}[31m"),
        "an escape sequence stays visible"
    );
    // Small structuredContent is open, a big one starts collapsed.
    assert!(html.contains("<details open><summary>"));
    assert!(html.contains("<details><summary>"));
    assert!(html.contains("structured: expected 1, got 2"));
    assert!(html.contains("looks *right*"));
    assert!(html.contains("srv 1.2 (python3 server.py) · protocol 2026-07-28"));
}

#[test]
fn markdown_keeps_server_text_inside_code_blocks() {
    let markdown = sample().render(ReportFormat::Markdown);
    assert!(markdown.contains("## ✅ add &lt;script&gt;alert(1)&lt;/script&gt;"));
    // The text holds a ``` run, so its fence is longer.
    assert!(markdown.contains("````text\n```\n<img src=x onerror=alert(1)>"));
    assert!(!markdown.contains('\u{1b}'));
    assert!(markdown.contains("> looks \\*right\\*"));
    assert!(markdown.contains("## ❌ big"));
    assert!(markdown.contains("- structured: expected 1, got 2"));
    assert!(
        markdown.contains("- Block 1: image (image/png, 70 bytes)"),
        "{markdown}"
    );
}

#[test]
fn the_format_comes_from_the_file_name() {
    use std::path::Path;
    assert_eq!(
        ReportFormat::of_path(Path::new("r.MD")).ok(),
        Some(ReportFormat::Markdown)
    );
    assert_eq!(
        ReportFormat::of_path(Path::new("r.html")).ok(),
        Some(ReportFormat::Html)
    );
    assert!(ReportFormat::of_path(Path::new("r.pdf")).is_err());
}
