//! The `toolscope` binary: the window with no command, or a headless subcommand.

use std::process::ExitCode;

use clap::Parser as _;
use toolscope::cli::{self, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(command) => cli::run(command),
        None => {
            eprintln!(
                "The Toolscope window is not built yet. Meanwhile use the command line, e.g.\n  \
                 toolscope tools --demo\n  toolscope call --demo add --args '{{\"a\":1,\"b\":2}}'"
            );
            ExitCode::from(cli::EXIT_FAILURE)
        }
    }
}
