//! A tool's MCP App as the window shows it while it runs: where its page is, how it stands,
//! a link it waits on the person for, and its bridge log (bounded).

use std::collections::VecDeque;

use tokio::sync::oneshot;
use toolscope_core::apps::BridgeEntry;

/// How many bridge log entries are kept per app (the oldest go first).
pub const MAX_BRIDGE_ENTRIES: usize = 5_000;

#[derive(Debug, Default)]
pub struct AppRunView {
    /// The page's address, once it is served.
    pub url: Option<String>,
    /// Where it stands, in words (`starting`, `running: Get Time App 1.0.0`, `stopped`…).
    pub state: String,
    /// Why it could not run.
    pub failure: Option<String>,
    /// A link the app asks to open, waiting for the person.
    pub link: Option<(String, oneshot::Sender<bool>)>,
    pub log: VecDeque<BridgeEntry>,
    /// Entries dropped from the front.
    pub dropped: u64,
    pub stopped: bool,
    /// The app's own calls, by the tag their history row was sent with, then their id once
    /// recorded (to open them in the two panes).
    pub calls: Vec<(u64, Option<i64>)>,
}

impl AppRunView {
    pub fn starting() -> Self {
        Self {
            state: "starting".to_owned(),
            ..Self::default()
        }
    }

    pub(super) fn push(&mut self, entry: BridgeEntry) {
        self.log.push_back(entry);
        while self.log.len() > MAX_BRIDGE_ENTRIES {
            self.log.pop_front();
            self.dropped += 1;
        }
    }
}
