//! Images from `tests/fixtures/image_server.py` made drawable: the real decompression bomb is
//! refused from its header, without decoding (the process never holds its 900 Mpx), the wide
//! strip is scaled, large pictures are kept, the corrupt one says why; and the same through the
//! backend against the fixture server, where Save… still gets the bytes as sent.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::{
    process::Command,
    sync::Arc,
    time::{Duration, Instant},
};

use toolscope::workbench::{
    Backend, BackendEvent, CallRequest,
    media::{ImageProblem, prepare_image},
};
use toolscope_core::session::{ServerConfig, Timeouts};

fn fixture() -> String {
    crate::support::repo_root()
        .join("tests/fixtures/image_server.py")
        .display()
        .to_string()
}

fn fixture_png(name: &str) -> Vec<u8> {
    let output = Command::new("python3")
        .args([fixture().as_str(), "--png", name])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    output.stdout
}

/// The peak resident memory of this process so far, in bytes (Linux).
fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// The bomb below, in a process of its own: the other tests of this binary share its peak
/// memory otherwise.
#[test]
fn the_bomb_is_refused_quickly_with_little_memory() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "--ignored",
            "--test-threads=1",
            "media_limits::the_bomb_alone",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains("1 passed"), "{said}");
}

#[test]
#[ignore = "run alone by the_bomb_is_refused_quickly_with_little_memory"]
fn the_bomb_alone() {
    let bomb = fixture_png("bomb");
    assert!(bomb.len() < 200_000, "{} bytes", bomb.len());
    let started = Instant::now();
    let problem = prepare_image(&bomb, 4096).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        problem,
        ImageProblem::TooLarge {
            width: 30_000,
            height: 30_000
        }
    );
    // Decoding it would take at least 900 MB (11 GB before).
    assert!(peak_memory() < 256 * 1024 * 1024, "{}", peak_memory());
}

#[test]
fn the_fixture_images_are_prepared() {
    let strip = prepare_image(&fixture_png("strip"), 4096).unwrap();
    assert_eq!((strip.width, strip.height), (4096, 1));
    for (name, size) in [
        ("picture_1500x1200", (1500, 1200)),
        ("picture_2800x2700", (2800, 2700)),
    ] {
        let image = prepare_image(&fixture_png(name), 4096).unwrap();
        assert_eq!((image.width, image.height), size);
    }
    let problem = prepare_image(&fixture_png("corrupt"), 4096).unwrap_err();
    assert!(matches!(problem, ImageProblem::Corrupt { .. }), "{problem}");
}

#[test]
fn the_backend_prepares_the_fixture_servers_images() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (backend, events) = Backend::new(runtime.handle().clone(), Arc::new(|| {}));
    let config = ServerConfig::Stdio {
        command: "python3".to_owned(),
        args: vec![fixture()],
        env: Default::default(),
        cwd: None,
    };
    let timeouts = Timeouts::with_request(Duration::from_secs(60));
    backend.connect(
        1,
        "image server".to_owned(),
        config,
        Default::default(),
        timeouts,
        None,
    );
    let next = |what: &str| {
        events
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no event while waiting for {what}"))
    };
    loop {
        match next("the tool list") {
            BackendEvent::Tools { result, .. } => {
                assert!(result.unwrap().catalog.find("images").is_some());
                break;
            }
            BackendEvent::ConnectFailed { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
    backend.call(CallRequest {
        id: 7,
        server: 1,
        plan: toolscope_core::engine::CallPlan {
            tool: "images".to_owned(),
            listed: true,
            output_schema: None,
            as_task: false,
            notes: Vec::new(),
        },
        arguments: Default::default(),
        timeouts,
        max_image_side: 4096,
    });
    let record = loop {
        if let BackendEvent::CallDone { result, .. } = next("the call") {
            break result.unwrap();
        }
    };
    let drawn: Vec<Result<(u32, u32), ImageProblem>> = record
        .media
        .iter()
        .map(|media| {
            media
                .image
                .clone()
                .unwrap()
                .map(|image| (image.width, image.height))
        })
        .collect();
    assert_eq!(drawn.len(), 5);
    assert_eq!(drawn[0], Ok((4096, 1)));
    assert_eq!(
        drawn[1],
        Err(ImageProblem::TooLarge {
            width: 30_000,
            height: 30_000
        })
    );
    assert_eq!(drawn[2], Ok((1500, 1200)));
    assert_eq!(drawn[3], Ok((2800, 2700)));
    assert!(matches!(drawn[4], Err(ImageProblem::Corrupt { .. })));
    // Save… writes the bytes as sent, the bomb included.
    assert_eq!(&*record.media[1].bytes, fixture_png("bomb").as_slice());
}
