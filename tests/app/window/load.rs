//! Load on the Server tab against the demo server: the form filled, a run started and its
//! figures and latency histogram shown; a long run stopped with the figures so far.

use egui_kittest::kittest::Queryable as _;
use toolscope::workbench::{Action, LoadAction, load_run::LoadRunState};

use super::harness::{Window, has_text};

#[test]
fn a_load_run_from_the_server_tab_shows_its_figures_and_histogram_and_stops() {
    let mut window = Window::connected("load-run");
    window.pick_demo_tool("add");
    window.tab("Server");
    window.step_until("the load form", |h| has_text(h, "Start load"));
    window
        .harness
        .get_by_label("Load arguments (JSON)")
        .set_text_value_accesskit(r#"{"a": 2, "b": 3}"#);
    window.harness.run_ok();
    window.click("Start load");
    window.step_until("the run's figures", |h| {
        has_text(h, "200 calls of 200 in ") && has_text(h, "Latency histogram: ")
    });
    assert!(has_text(&window.harness, "4 callers on a session each"));
    assert!(has_text(&window.harness, "ok 200 · errors 0"));
    assert!(has_text(&window.harness, "latency p50 "));
    assert!(has_text(&window.harness, "server memory: peak "));
    {
        let model = window.harness.state().model();
        let run = model.load_run().expect("the run is kept");
        let LoadRunState::Done(figures) = &run.state else {
            panic!("the run is done: {:?}", run.state);
        };
        assert_eq!((figures.calls, figures.ok), (200, 200));
        let in_bars: u64 = figures.histogram.iter().map(|bar| bar.calls).sum();
        assert_eq!(in_bars, 200, "every answered call is in a bar");
    }

    // Arguments that are not an object are said, and Start waits for good ones.
    window
        .harness
        .get_by_label("Load arguments (JSON)")
        .set_text_value_accesskit("[1, 2]");
    window.harness.run_ok();
    assert!(has_text(
        &window.harness,
        "The arguments must be a JSON object"
    ));

    // A run far longer than the test, stopped: the figures so far.
    window
        .harness
        .state_mut()
        .act(Action::Load(LoadAction::Start {
            server: toolscope::ui::DEMO_SERVER,
            tool: "add".to_owned(),
            arguments: serde_json::from_str(r#"{"a": 1, "b": 1}"#).unwrap(),
            concurrency: 2,
            calls: 1_000_000,
            shared: true,
        }));
    window.step_until("calls under way", |h| has_text(h, " of 1000000 calls · "));
    window.click("Stop load");
    window.step_until("the figures so far", |h| {
        has_text(h, "Stopped before its end: the figures so far")
    });
    assert!(has_text(&window.harness, "2 callers on one shared session"));
    window.click("Close");
    window.step_until("the run closed", |h| !has_text(h, "Latency histogram: "));
}
