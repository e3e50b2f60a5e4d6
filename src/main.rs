//! The `toolscope` binary: the window with no command, or a headless subcommand.

use std::process::ExitCode;

use clap::Parser as _;
use toolscope::cli::{self, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(command) => cli::run(command),
        None => open_window(cli.present, cli.tour, &cli.history),
    }
}

/// The window, on the built-in demo server. `main` owns the runtime; the window gets a handle.
fn open_window(present: bool, tour: bool, history: &cli::HistoryFlag) -> ExitCode {
    let runtime = match cli::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let options = toolscope::ui::AppOptions {
        present,
        tour,
        offer_tour_on_first_start: true,
        history: match history.chosen() {
            Ok(chosen) => Some(chosen.location),
            Err(error) => {
                eprintln!("warning: {error}; the window uses the local history");
                toolscope_core::history::history_path()
                    .map(toolscope_core::history::HistoryLocation::File)
            }
        },
        interfaces_dir: toolscope_core::history::data_dir().map(|dir| dir.join("interfaces")),
        // Other clients' servers, offered for import (the current folder is the project).
        import_files: Some(toolscope_core::import::files_here(
            std::env::current_dir().ok().as_deref(),
        )),
        secrets: secrets_place(),
        // `TOOLSCOPE_FILE_DIALOG=window` keeps to the window's own file dialog.
        native_file_dialogs: std::env::var("TOOLSCOPE_FILE_DIALOG").as_deref() != Ok("window"),
        ..toolscope::ui::AppOptions::new(
            toolscope_core::session::ServerConfig::demo(),
            toolscope_core::settings::settings_path(),
        )
    };
    toolscope_core::telemetry::start(&toolscope_core::telemetry::config::settings_in(
        options.settings_path.as_deref(),
    ));
    let result = toolscope::ui::run_window(runtime.handle().clone(), options);
    toolscope_core::telemetry::finish(toolscope_core::telemetry::EXPORT_AT_EXIT_LIMIT);
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            if let toolscope::ui::WindowError::CouldNotOpen(_) = error {
                eprintln!(
                    "Toolscope needs a display (X11 or Wayland) and OpenGL or Vulkan drivers, \
                     software ones (Mesa) will do. The command line works without: toolscope \
                     --help"
                );
            }
            ExitCode::from(cli::EXIT_FAILURE)
        }
    }
}

/// The keyring, or a file in the settings folder (`TOOLSCOPE_SECRETS` chooses).
fn secrets_place() -> Option<toolscope_core::settings::SecretsPlace> {
    let preference = match toolscope_core::secret_store::Preference::from_environment() {
        Ok(preference) => preference,
        Err(message) => {
            eprintln!("warning: {message}; the keyring is tried first");
            toolscope_core::secret_store::Preference::Automatic
        }
    };
    let dir = toolscope_core::settings::config_dir()?;
    Some(toolscope_core::settings::SecretsPlace::new(preference, dir))
}
