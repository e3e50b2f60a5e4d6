//! The command line's one error: why a command ends before its outcome, the exit status that
//! means, and the one place an `error: …` line is written.
//!
//! A command returns `Result<u8, CliError>`: `Ok` is the status of an outcome it has printed
//! (0, or 1 and 2 as a call's or a run's verdict says, or a proxied server's own status);
//! `Err` is a failure or a signal, said and turned into a status by [`CliError::exit`].

use super::{EXIT_FAILURE, output::say};

/// Exit status after Ctrl+C (SIGINT), as shells report it.
const EXIT_INTERRUPTED: u8 = 130;
/// Exit status after SIGTERM.
const EXIT_TERMINATED: u8 = 143;

/// Why a command ends without its outcome.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line was wrong, or the server, the connection, the protocol or a file
    /// failed: `error: <message>`, exit 2.
    #[error("{0}")]
    Failure(String),
    /// Several things failed (the files a run was to write, then why the server could not
    /// be used): an `error:` line each, exit 2.
    #[error("{}", .0.join("; "))]
    Failures(Vec<String>),
    /// Ctrl+C stopped it (a run's totals are printed first): exit 130, nothing more said.
    #[error("interrupted")]
    Interrupted,
    /// SIGTERM stopped it: exit 143.
    #[error("terminated")]
    Terminated,
}

impl CliError {
    /// The exit status it ends the command with.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Failure(_) | Self::Failures(_) => EXIT_FAILURE,
            Self::Interrupted => EXIT_INTERRUPTED,
            Self::Terminated => EXIT_TERMINATED,
        }
    }

    /// Says it on stderr (through `say`, so a server's words cannot act on the terminal).
    pub fn report(&self) {
        let messages = match self {
            Self::Failure(message) => std::slice::from_ref(message),
            Self::Failures(messages) => messages.as_slice(),
            Self::Interrupted | Self::Terminated => &[],
        };
        for message in messages {
            say(&format!("error: {message}"));
        }
    }

    /// Says it and gives the exit status: how every command's error ends.
    pub fn exit(self) -> u8 {
        self.report();
        self.exit_code()
    }
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        Self::Failure(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        Self::Failure(message.to_owned())
    }
}

/// The core's errors the commands meet, said in their own words.
macro_rules! failure_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for CliError {
            fn from(error: $error) -> Self {
                Self::Failure(error.to_string())
            }
        }
    )*};
}

failure_from!(
    toolscope_core::session::SessionError,
    toolscope_core::engine::ReachError,
    toolscope_core::session::config::ConfigError,
    toolscope_core::session::requests::resources::ReadError,
    toolscope_core::history::HistoryError,
    toolscope_core::atomic_file::WriteError,
    toolscope_core::report::ReportError,
    toolscope_core::secret_store::SecretStoreError,
    toolscope_core::import::watch_through::WatchError,
    toolscope_core::import::watch_through::WatchRecordsError,
    toolscope_core::proxy::HttpProxyError,
    toolscope_core::proxy::RelayError,
    toolscope_core::demo_server::DemoServerError,
    toolscope_core::settings::kept_secrets::KeptSecretsError,
    toolscope_core::apps::AppResourceError,
    toolscope_core::apps::AppHostError,
    toolscope_core::engine::CallRefused,
    super::arguments::ArgumentsError,
    toolscope_core::load::LoadError,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_has_its_exit_status() {
        assert_eq!(CliError::from("no").exit_code(), 2);
        assert_eq!(
            CliError::Failures(vec!["a".into(), "b".into()]).exit_code(),
            2
        );
        assert_eq!(CliError::Interrupted.exit_code(), 130);
        assert_eq!(CliError::Terminated.exit_code(), 143);
    }
}
