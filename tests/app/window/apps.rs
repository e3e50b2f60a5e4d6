//! Run the app from the window: the official example app server's get-time called, its app
//! opened by the window in a real browser (the test's page opener drives Debian's chromium with
//! tests/fixtures/app_browser.py), and the bridge log, the app's state and the link it asks for
//! shown in the MCP App section.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
};

use egui_kittest::kittest::Queryable as _;

use super::harness::{Window, has_text, saved_stdio};
use crate::support::{peer_available, repo_root};

#[test]
fn run_the_app_opens_it_in_a_browser_and_shows_its_bridge() {
    let entry = repo_root().join(
        "tests/peers/npm/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js",
    );
    if !peer_available(&entry, "@modelcontextprotocol/server-basic-vanillajs")
        || !crate::apps::chromium_available()
    {
        return;
    }
    let server = saved_stdio(
        "time app",
        "node",
        &[entry.display().to_string(), "--stdio".to_owned()],
    );
    let setup = Window::setup("run-app");
    let dir = setup.dir().to_owned();
    // The page the window opens goes to a real browser, which does what a person would.
    let browser: Arc<Mutex<Option<std::thread::JoinHandle<String>>>> = Arc::default();
    let opened = Arc::clone(&browser);
    let opener = Arc::new(move |url: &str| {
        let url = url.to_owned();
        let driver: PathBuf = repo_root().join("tests/fixtures/app_browser.py");
        *opened.lock().unwrap() = Some(std::thread::spawn(move || {
            let output = std::process::Command::new("python3")
                .arg(driver)
                .arg(url)
                .output()
                .expect("python3 runs");
            String::from_utf8_lossy(&output.stdout).into_owned()
        }));
        Ok("opened by the test's browser".to_owned())
    });
    let mut window = setup
        .options(|options| {
            options.secrets = Some(
                toolscope_core::settings::SecretsPlace::new(
                    toolscope_core::secret_store::Preference::File,
                    dir.join("secrets"),
                )
                .opening_pages_with(opener),
            );
        })
        .servers(vec![server])
        .open();
    window.step_until("the app server connected", |h| {
        has_text(h, "Connected: Basic MCP App Server")
    });
    window.click_until("time app", "the app server picked", |h| {
        has_text(h, "1 tools") || h.query_by_label("get-time").is_some()
    });
    window.select_tool("get-time");
    window.call();
    window.step_until("the tool's result", |h| has_text(h, "structuredContent"));
    window.click_until("Run the app", "the app started", |h| {
        has_text(h, "The app: ")
    });
    window.step_until("the app running in the browser", |h| {
        has_text(h, "The app: running: Get Time App 1.0.0")
    });
    window.step_until("the app's link asked", |h| {
        has_text(h, "The app asks to open https://modelcontextprotocol.io/")
    });
    window.click("Don't open it");
    window.step_until("the fetch the app was not allowed", |h| {
        has_text(
            h,
            "blocked: https://undeclared.example/data under connect-src",
        )
    });
    // The log keeps to its newest rows (the earlier ones are a scroll away).
    window.step_until("the link refused in the log", |h| {
        has_text(
            h,
            "not opened: the person said no to https://modelcontextprotocol.io/",
        )
    });
    let seen = browser
        .lock()
        .unwrap()
        .take()
        .map(|thread| thread.join().unwrap());
    let seen = seen.unwrap_or_default();
    assert!(
        seen.contains("clicked_time"),
        "the browser did its part: {seen}"
    );
    // What a host checks first links to where the run bore it out, and back.
    window.click_until("check 1 (1 at run time)", "the check picked", |h| {
        has_text(h, "Check 1 at run time:")
    });
    // The app's ui/initialize: where a host that negotiates extensions would have stopped.
    // (Clicked again if the layout moved under the click: entries keep arriving.)
    for _ in 0..5 {
        if has_text(&window.harness, "Said before the run:") {
            break;
        }
        window.click_containing("ms ui/initialize");
    }
    window.step_until("the entry that bore it out", |h| {
        has_text(h, "Said before the run:")
    });
    window.tab("Tools");
    window.click("Stop");
    window.step_until("the app stopped", |h| has_text(h, "The app: stopped"));
}
