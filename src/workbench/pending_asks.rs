//! What servers have asked and the person has not answered yet, oldest first. Each ask holds
//! the way back to the session that waits for it; an ask the server withdrew (or whose call
//! was cancelled) is dropped, and dropping one unanswered tells the session so.

use std::{collections::VecDeque, time::Instant};

use tokio::sync::oneshot;

use super::ServerId;
use toolscope_core::session::{AskReply, ServerAsk, asks::SAMPLING};

pub type AskId = u64;

/// One question waiting for the person.
#[derive(Debug)]
pub struct PendingAsk {
    pub id: AskId,
    pub server: ServerId,
    pub ask: ServerAsk,
    pub arrived: Instant,
    reply: Option<oneshot::Sender<AskReply>>,
}

impl PendingAsk {
    /// The session stopped waiting (the server cancelled the request, or the call ended).
    pub fn is_withdrawn(&self) -> bool {
        self.reply.as_ref().is_none_or(oneshot::Sender::is_closed)
    }
}

/// How many earlier sampling replies are offered again.
const RECENT_REPLIES: usize = 8;

#[derive(Debug, Default)]
pub struct PendingAsks {
    queue: VecDeque<PendingAsk>,
    next_id: AskId,
    /// The texts of the last sampling replies, newest first.
    recent_replies: VecDeque<String>,
}

impl PendingAsks {
    pub fn push(
        &mut self,
        server: ServerId,
        ask: ServerAsk,
        reply: oneshot::Sender<AskReply>,
    ) -> AskId {
        self.next_id += 1;
        self.queue.push_back(PendingAsk {
            id: self.next_id,
            server,
            ask,
            arrived: Instant::now(),
            reply: Some(reply),
        });
        self.next_id
    }

    /// The question to show: the oldest one still waited for.
    pub fn first(&self) -> Option<&PendingAsk> {
        self.queue.front()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// How many questions of `server` wait.
    pub fn count_for(&self, server: ServerId) -> usize {
        self.queue.iter().filter(|ask| ask.server == server).count()
    }

    /// Sends the person's answer to ask `id`; returns the ask, or `None` when it is gone.
    pub fn answer(&mut self, id: AskId, reply: AskReply) -> Option<PendingAsk> {
        let at = self.queue.iter().position(|ask| ask.id == id)?;
        let mut ask = self.queue.remove(at)?;
        if ask.ask.method == SAMPLING
            && let AskReply::Result { result } = &reply
            && let Some(text) = result.pointer("/content/text").and_then(|t| t.as_str())
        {
            self.recent_replies.retain(|earlier| earlier != text);
            self.recent_replies.push_front(text.to_owned());
            self.recent_replies.truncate(RECENT_REPLIES);
        }
        if let Some(sender) = ask.reply.take() {
            let _ = sender.send(reply);
        }
        Some(ask)
    }

    /// Drops the asks nobody waits for any more; returns them (for the log).
    pub fn drop_withdrawn(&mut self) -> Vec<PendingAsk> {
        if !self.queue.iter().any(PendingAsk::is_withdrawn) {
            return Vec::new();
        }
        let mut gone = Vec::new();
        for ask in std::mem::take(&mut self.queue) {
            if ask.is_withdrawn() {
                gone.push(ask);
            } else {
                self.queue.push_back(ask);
            }
        }
        gone
    }

    /// Drops every ask of `server` (it was disconnected or removed): the session is told
    /// that nobody will answer.
    pub fn drop_server(&mut self, server: ServerId) {
        self.queue.retain(|ask| ask.server != server);
    }

    /// The last sampling replies, newest first.
    pub fn recent_replies(&self) -> impl Iterator<Item = &str> {
        self.recent_replies.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use toolscope_core::session::AskOrigin;

    fn ask(method: &str) -> ServerAsk {
        ServerAsk {
            method: method.to_owned(),
            params: json!({}),
            origin: AskOrigin::Request { id: "1".to_owned() },
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_the_session_and_a_sampling_text_is_offered_again() {
        let mut asks = PendingAsks::default();
        let (sender, receiver) = oneshot::channel();
        let id = asks.push(3, ask(SAMPLING), sender);
        assert_eq!(asks.count_for(3), 1);
        let reply = AskReply::Result {
            result: json!({"role": "assistant", "content": {"type": "text", "text": "Hi"}}),
        };
        assert!(asks.answer(id, reply.clone()).is_some());
        assert_eq!(receiver.await.ok(), Some(reply));
        assert_eq!(asks.recent_replies().collect::<Vec<_>>(), vec!["Hi"]);
        assert!(asks.is_empty());
    }

    #[test]
    fn a_withdrawn_ask_is_dropped_and_a_dropped_one_tells_the_session() {
        let mut asks = PendingAsks::default();
        let (sender, receiver) = oneshot::channel();
        asks.push(1, ask("elicitation/create"), sender);
        drop(receiver);
        let (sender, mut waiting) = oneshot::channel();
        asks.push(2, ask("elicitation/create"), sender);
        assert_eq!(asks.drop_withdrawn().len(), 1);
        assert_eq!(asks.len(), 1);
        asks.drop_server(2);
        assert!(asks.is_empty());
        assert!(
            waiting.try_recv().is_err(),
            "the sender is gone: the session hears no"
        );
    }
}
