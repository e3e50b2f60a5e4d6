//! The model's questions from servers: kept when they arrive, answered through
//! [`Action::AnswerAsk`](crate::workbench::Action::AnswerAsk), dropped when the server stops
//! waiting, each noted in the server's log.

use tokio::sync::oneshot;

use super::Model;
use crate::workbench::{AskId, PendingAsks, ServerId};
use toolscope_core::session::{AskReply, ServerAsk};

/// How many questions of one server may wait at once; a server that floods the client with
/// requests gets the rest refused at once instead of growing the queue without end.
const MAX_WAITING_PER_SERVER: usize = 20;

impl Model {
    /// The questions waiting for the person, oldest first.
    pub fn pending_asks(&self) -> &PendingAsks {
        &self.asks
    }

    /// The tool being called on `server`, when exactly one is (what an ask is most likely for).
    pub fn running_tool_of(&self, server: ServerId) -> Option<&str> {
        let mut running = self
            .runs
            .iter()
            .filter(|(tool, run)| tool.server == server && run.is_running());
        let (tool, _) = running.next()?;
        running.next().is_none().then_some(tool.name.as_str())
    }

    pub(super) fn asked(
        &mut self,
        server: ServerId,
        ask: ServerAsk,
        reply: oneshot::Sender<AskReply>,
    ) {
        let summary = ask.summary();
        if self.server(server).is_none() {
            // Removed meanwhile: dropping the sender refuses the ask.
            return;
        }
        if self.asks.count_for(server) >= MAX_WAITING_PER_SERVER {
            let _ = reply.send(AskReply::refused(
                toolscope_core::session::asks::REFUSED_CODE,
                format!(
                    "{MAX_WAITING_PER_SERVER} questions of this server already wait for an answer"
                ),
            ));
            return;
        }
        self.asks.push(server, ask, reply);
        if let Some(state) = self.server_mut(server) {
            state.push_log(format!("[client] the server {summary}: waiting for you"));
        }
    }

    pub(super) fn answer_ask(&mut self, id: AskId, reply: AskReply) {
        // The session logs the answer when it sends it (`SessionEvent::Answered`).
        let _ = self.asks.answer(id, reply);
    }

    pub(super) fn drop_withdrawn_asks(&mut self) {
        for gone in self.asks.drop_withdrawn() {
            if let Some(state) = self.server_mut(gone.server) {
                state.push_log(format!(
                    "[client] the server withdrew its question ({}) before it was answered",
                    gone.ask.summary()
                ));
            }
        }
    }
}
