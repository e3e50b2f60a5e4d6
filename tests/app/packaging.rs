//! packaging/: the desktop entry, the AppStream metadata, the cargo-deb and cargo-packager
//! configurations and the icons all name the same application id, version and files. The .deb
//! itself is built and installed by .ci/run (packaging/linux/check-deb.sh).

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use toolscope_core::APP_ID;

fn root() -> PathBuf {
    crate::support::repo_root()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn toml_at(path: &Path) -> toml::Table {
    read(path)
        .parse::<toml::Table>()
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Runs a validator when this machine has it (CI installs both); says so when it does not.
fn validate(tool: &str, args: &[&str], file: &Path) {
    match std::process::Command::new(tool)
        .args(args)
        .arg(file)
        .output()
    {
        Ok(output) => assert!(
            output.status.success(),
            "{tool} refuses {}: {}{}",
            file.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(_) => eprintln!(
            "{tool} is not installed: {} not validated here",
            file.display()
        ),
    }
}

#[test]
fn the_desktop_entry_is_named_and_points_by_the_application_id() {
    let path = root().join(format!("packaging/linux/{APP_ID}.desktop"));
    let entry = read(&path);
    for line in [
        "Type=Application".to_owned(),
        "Exec=toolscope".to_owned(),
        format!("Icon={APP_ID}"),
        // winit sets the X11 class from the window's app id: the entry is matched to it.
        format!("StartupWMClass={APP_ID}"),
    ] {
        assert!(
            entry.lines().any(|l| l == line),
            "{} lacks {line}",
            path.display()
        );
    }
    validate("desktop-file-validate", &[], &path);
}

#[test]
fn the_appstream_metadata_names_the_id_the_version_and_the_screenshots() {
    let path = root().join(format!("packaging/linux/{APP_ID}.metainfo.xml"));
    let metainfo = read(&path);
    assert!(metainfo.contains(&format!("<id>{APP_ID}</id>")));
    assert!(metainfo.contains(&format!(
        r#"<launchable type="desktop-id">{APP_ID}.desktop</launchable>"#
    )));
    assert!(
        metainfo.contains(&format!(
            r#"<release version="{}""#,
            env!("CARGO_PKG_VERSION")
        )),
        "the newest release is this version"
    );
    assert!(metainfo.contains(r#"<content_rating type="oars-1.1"/>"#));
    // Each screenshot is one of the user guide's (README.md, docs/guide/).
    for shot in ["assets/screenshot.png", "assets/rounds.png"] {
        assert!(metainfo.contains(shot), "{shot}");
        assert!(root().join(shot).exists(), "{shot} exists");
    }
    validate("appstreamcli", &["validate", "--no-net"], &path);
}

#[test]
fn every_file_the_deb_installs_exists_and_icons_go_by_the_application_id() {
    let manifest = toml_at(&root().join("Cargo.toml"));
    let assets = manifest["package"]["metadata"]["deb"]["assets"]
        .as_array()
        .expect("deb assets");
    let mut installed = Vec::new();
    for asset in assets {
        let parts = asset
            .as_array()
            .expect("an asset is [source, destination, mode]");
        let source = parts[0].as_str().unwrap_or_default();
        let destination = parts[1].as_str().unwrap_or_default();
        if !source.starts_with("target/") {
            assert!(root().join(source).is_file(), "{source} exists");
        }
        installed.push(destination.to_owned());
    }
    assert!(installed.contains(&"usr/bin/".to_owned()));
    for size in [32, 48, 64, 128, 256, 512] {
        let icon = format!("usr/share/icons/hicolor/{size}x{size}/apps/{APP_ID}.png");
        assert!(installed.contains(&icon), "{icon}");
        let png = image::open(root().join(format!("assets/icon/toolscope-{size}.png")))
            .expect("the icon decodes");
        assert_eq!((png.width(), png.height()), (size, size));
    }
    assert!(installed.contains(&format!(
        "usr/share/icons/hicolor/scalable/apps/{APP_ID}.svg"
    )));
}

#[test]
fn the_bundle_configuration_matches_the_crate_and_its_files_exist() {
    let folder = root().join("packaging");
    let config = toml_at(&folder.join("Packager.toml"));
    assert_eq!(config["identifier"].as_str(), Some(APP_ID));
    assert_eq!(config["version"].as_str(), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(config["product-name"].as_str(), Some("Toolscope"));
    // cargo-packager reads paths from the configuration's own folder.
    let icons = config["icons"].as_array().expect("icons");
    assert!(!icons.is_empty());
    for icon in icons {
        let icon = icon.as_str().unwrap_or_default();
        assert!(folder.join(icon).is_file(), "{icon} exists");
    }
    for (section, key) in [("macos", "info-plist-path"), ("nsis", "installer-icon")] {
        let path = config[section][key].as_str().unwrap_or_default();
        assert!(
            folder.join(path).is_file(),
            "[{section}] {key} = {path} exists"
        );
    }
    assert_eq!(config["license-file"].as_str(), Some("../LICENSE-MIT"));
    assert!(folder.join("../LICENSE-MIT").is_file());
    let formats: Vec<&str> = config["formats"]
        .as_array()
        .expect("formats")
        .iter()
        .filter_map(toml::Value::as_str)
        .collect();
    assert_eq!(formats, ["app", "dmg", "nsis", "wix"]);
}

#[test]
fn the_binary_says_its_version() {
    let output = crate::support::toolscope(&["--version"]);
    assert!(output.status.success());
    assert_eq!(
        crate::support::stdout(&output).trim(),
        format!("toolscope {}", env!("CARGO_PKG_VERSION"))
    );
}
