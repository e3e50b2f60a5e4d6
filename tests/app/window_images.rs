//! The real window (egui_kittest, wgpu) against `tests/fixtures/image_server.py`: a strip wider
//! than any texture, a decompression bomb, two large pictures and a corrupt PNG, in one result.
//! The window draws what it can, says why it does not draw the rest, and keeps every session.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::time::{Duration, Instant};

use egui_kittest::{Harness, kittest::Queryable as _};
use toolscope::ui::{AppOptions, ToolscopeApp};
use toolscope_core::session::ServerConfig;

fn has_text(harness: &Harness<'static, ToolscopeApp>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

fn step_until(
    harness: &mut Harness<'static, ToolscopeApp>,
    what: &str,
    mut done: impl FnMut(&Harness<'static, ToolscopeApp>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(harness) {
        if Instant::now() > deadline {
            let path = std::env::temp_dir()
                .join(format!("toolscope-timeout-{}.png", what.replace(' ', "_")));
            if let Ok(image) = harness.render() {
                let _ = image.save(&path);
            }
            panic!(
                "timed out waiting for {what}; screenshot: {}",
                path.display()
            );
        }
        harness.step();
        // Real time passes for the server between frames.
        std::thread::sleep(Duration::from_millis(20));
    }
    harness.run_ok();
}

#[test]
fn hostile_and_large_images_draw_or_say_why() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("toolscope-window-images-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = AppOptions::new(
        ServerConfig::Stdio {
            command: "python3".to_owned(),
            args: vec![
                crate::support::repo_root()
                    .join("tests/fixtures/image_server.py")
                    .display()
                    .to_string(),
            ],
            env: Default::default(),
            cwd: None,
        },
        Some(dir.join("settings.json")),
    );
    let handle = runtime.handle().clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_max_steps(20)
        .with_context_setup(toolscope::ui::fonts::install_system_fallback)
        .wgpu()
        .build_eframe(move |cc| ToolscopeApp::new(&cc.egui_ctx, handle, options));

    step_until(&mut harness, "the image server to connect", |h| {
        has_text(h, "Connected: images")
    });
    step_until(&mut harness, "the tool list", |h| {
        h.query_all_by_label("images").next().is_some()
    });
    harness.query_all_by_label("images").next().unwrap().click();
    harness.run_ok();
    harness.get_by_label("Call").click();
    harness.run_ok();
    step_until(&mut harness, "the images", |h| {
        has_text(h, "too large to draw (30000×30000), Save… still works")
    });
    assert!(has_text(
        &harness,
        "A 9000×2 image, too thin to see at its shape"
    ));
    for drawn in [0, 2, 3] {
        assert!(
            has_text(&harness, &format!("image block {drawn} (image/png)")),
            "block {drawn} is drawn"
        );
    }
    assert!(!has_text(&harness, "image block 1 (image/png)"));
    assert!(!has_text(&harness, "image block 4 (image/png)"));
    assert!(has_text(&harness, "the image cannot be drawn"));
    assert_eq!(harness.query_all_by_label("Save…").count(), 5);
    // Rendering uploads the textures to the GPU: a texture wider than its limit panics here.
    harness.render().unwrap();
    assert!(has_text(&harness, "Connected: images"));
    drop(harness);
    drop(runtime);
    let _ = std::fs::remove_dir_all(&dir);
}
