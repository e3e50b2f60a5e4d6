//! Raw responses by request id, exactly as the server sent them. rmcp's typed model drops
//! unknown fields and rejects odd results; what the user sees is built from these instead.
//! The first response to an id wins; later ones are counted as duplicates, never swapped in.

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use tokio::sync::Notify;

use crate::json_doc::{JsonDoc, JsonRef};
use crate::session::transports::tap::id_text_of;

/// How many unclaimed responses are kept (those nobody asks for: pings, the handshake).
const MAX_UNCLAIMED: usize = 256;
/// How many server requests are kept for the handler to read raw (it takes each at once).
const MAX_REQUESTS: usize = 64;
/// How many answered ids are remembered to recognise a late duplicate.
const MAX_ANSWERED: usize = 4_096;

/// Who waits for the response to a request id, registered before the request is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Sent through rmcp by `request_raw`: rmcp gets a tiny stand-in with the same id, the raw
    /// response is delivered from here (so rmcp neither re-parses nor chokes on it).
    StandIn,
    /// Sent by us around rmcp (the discover probe): rmcp must not see the response at all.
    Own,
}

/// What became of an offered message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Not a response (a request or a notification): nothing kept.
    NotAResponse,
    /// The first response to its id, kept. `claim` says who waits for it.
    Kept { claim: Option<Claim> },
    /// A further response to an id already answered: ignored, `count` so far for that id.
    Duplicate { count: usize },
}

#[derive(Debug, Default)]
struct Store {
    by_id: HashMap<String, Arc<JsonDoc>>,
    /// Unclaimed ids in arrival order, for eviction.
    unclaimed: VecDeque<String>,
    claims: HashMap<String, Claim>,
    /// Ids that got a response, with how many duplicates followed.
    answered: HashMap<String, usize>,
    answered_order: VecDeque<String>,
    /// Requests from the server (elicitation, sampling, roots) by id, as sent, oldest first.
    requests: VecDeque<(String, Arc<JsonDoc>)>,
}

/// Collects every response and error message that arrives, keyed by its id.
#[derive(Debug, Clone, Default)]
pub struct RawResponses {
    store: Arc<Mutex<Store>>,
    arrived: Arc<Notify>,
    /// How many `notifications/progress` arrived, in arrival order with the responses.
    progress_seen: Arc<AtomicU64>,
}

/// The id of a response or error response (it has an id and no method), as text.
pub fn response_id(message: JsonRef<'_>) -> Option<String> {
    let id = message.get("id")?;
    if message.get("method").is_some() || id.is_null() {
        return None;
    }
    Some(id_text_of(id))
}

/// A `notifications/progress` that rmcp will hand to the client (a token and a numeric
/// progress); a malformed one is dropped by rmcp and must not be waited for.
fn is_deliverable_progress(message: JsonRef<'_>) -> bool {
    message
        .get("method")
        .and_then(JsonRef::as_str)
        .is_some_and(|method| method == "notifications/progress")
        && message.get("params").is_some_and(|params| {
            params
                .get("progressToken")
                .is_some_and(|token| token.is_string() || token.is_number())
                && params.get("progress").is_some_and(JsonRef::is_number)
        })
}

/// The protocol log's note on a further response to an id already answered.
fn duplicate_note(count: usize, id: &str) -> String {
    format!("duplicate response #{count} to request #{id}: ignored, the first response counts")
}

impl RawResponses {
    /// Keeps `message` if it is a response (tests; the transports use [`Self::offer_message`]).
    #[cfg(test)]
    pub fn offer(&self, message: &serde_json::Value) -> Offered {
        let doc = Arc::new(JsonDoc::from_value(message));
        match response_id(doc.root()) {
            Some(key) => self.offer_owned(key, doc),
            None => Offered::NotAResponse,
        }
    }

    /// Keeps the response `message` to `key` (from [`response_id`]).
    pub fn offer_owned(&self, key: String, message: Arc<JsonDoc>) -> Offered {
        let offered = {
            let mut store = self.lock();
            if let Some(count) = store.answered.get_mut(&key) {
                *count += 1;
                Offered::Duplicate { count: *count }
            } else {
                store.answered.insert(key.clone(), 0);
                store.answered_order.push_back(key.clone());
                while store.answered_order.len() > MAX_ANSWERED {
                    if let Some(old) = store.answered_order.pop_front() {
                        store.answered.remove(&old);
                    }
                }
                let claim = store.claims.get(&key).copied();
                if claim.is_none() {
                    store.unclaimed.push_back(key.clone());
                }
                store.by_id.insert(key, message);
                while store.unclaimed.len() > MAX_UNCLAIMED {
                    if let Some(old) = store.unclaimed.pop_front() {
                        store.by_id.remove(&old);
                    }
                }
                Offered::Kept { claim }
            }
        };
        if matches!(offered, Offered::Kept { .. }) {
            self.arrived.notify_waiters();
        }
        offered
    }

    /// Keeps a parsed message if it is a response (without copying it). Returns what became of
    /// it and, for a further response to an id already answered, the note the protocol log
    /// shows on it.
    pub fn offer_message(&self, message: Arc<JsonDoc>) -> (Offered, Option<String>) {
        if is_deliverable_progress(message.root()) {
            self.progress_seen.fetch_add(1, Ordering::SeqCst);
        }
        let Some(key) = response_id(message.root()) else {
            self.keep_if_request(&message);
            return (Offered::NotAResponse, None);
        };
        let offered = self.offer_owned(key.clone(), message);
        let note = match offered {
            Offered::Duplicate { count } => Some(duplicate_note(count, &key)),
            Offered::Kept { .. } | Offered::NotAResponse => None,
        };
        (offered, note)
    }

    /// Keeps a request from the server so its handler can show the params exactly as sent
    /// (rmcp's typed params drop what they do not know).
    fn keep_if_request(&self, message: &Arc<JsonDoc>) {
        let root = message.root();
        let is_request =
            root.get("method").is_some() && root.get("id").is_some_and(|id| !id.is_null());
        if !is_request {
            return;
        }
        let Some(id) = root.get("id") else {
            return;
        };
        let key = id_text_of(id);
        let mut store = self.lock();
        store.requests.push_back((key, message.clone()));
        while store.requests.len() > MAX_REQUESTS {
            store.requests.pop_front();
        }
    }

    /// Takes the server's request `id` as it was sent, if it is still kept.
    pub fn take_request(&self, id: &str) -> Option<Arc<JsonDoc>> {
        let mut store = self.lock();
        let at = store.requests.iter().rposition(|(key, _)| key == id)?;
        store.requests.remove(at).map(|(_, message)| message)
    }

    /// How many progress notifications have arrived so far. Read after a response arrived, it
    /// counts every progress notification the server sent before that response.
    pub fn progress_seen(&self) -> u64 {
        self.progress_seen.load(Ordering::SeqCst)
    }

    /// Registers who waits for the response to `id`; call before the request is written.
    pub fn claim(&self, id: String, claim: Claim) {
        self.lock().claims.insert(id, claim);
    }

    /// Whether a response to `id` is waited for, and by whom.
    pub fn claim_of(&self, id: &str) -> Option<Claim> {
        self.lock().claims.get(id).copied()
    }

    /// Takes the response to `id`, if it has arrived, and ends any claim on it.
    pub fn take(&self, id: &str) -> Option<Arc<JsonDoc>> {
        let mut store = self.lock();
        store.claims.remove(id);
        let message = store.by_id.remove(id)?;
        store.unclaimed.retain(|key| key != id);
        Some(message)
    }

    /// Forgets the claim on `id` and any response held for it (the waiter gave up).
    pub fn release(&self, id: &str) {
        let dropped = {
            let mut store = self.lock();
            store.claims.remove(id);
            store.by_id.remove(id)
        };
        drop(dropped);
    }

    /// How many further responses arrived for `id` after the first.
    pub fn duplicates(&self, id: &str) -> usize {
        self.lock().answered.get(id).copied().unwrap_or(0)
    }

    /// Waits until the response to `id` has arrived, without taking it.
    pub async fn arrival(&self, id: &str) {
        loop {
            let notified = self.arrived.notified();
            if self.lock().by_id.contains_key(id) {
                return;
            }
            notified.await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_responses_not_requests() {
        let raw = RawResponses::default();
        assert_eq!(
            raw.offer(&json!({"id": 1, "method": "ping"})),
            Offered::NotAResponse
        );
        raw.offer(&json!({"id": 2, "result": {"x-extra": true}}));
        assert!(raw.take("1").is_none());
        assert_eq!(
            raw.take("2").unwrap().root().to_value()["result"]["x-extra"],
            true
        );
        assert!(raw.take("2").is_none());
    }

    #[test]
    fn unclaimed_responses_are_bounded_claimed_ones_kept() {
        let raw = RawResponses::default();
        raw.claim("0".to_owned(), Claim::StandIn);
        for id in 0..1000 {
            raw.offer(&json!({"id": id, "result": {}}));
        }
        assert!(raw.take("1").is_none());
        assert!(raw.take("0").is_some());
        assert!(raw.take("999").is_some());
    }

    #[test]
    fn the_first_response_wins_and_duplicates_are_counted() {
        let raw = RawResponses::default();
        raw.claim("5".to_owned(), Claim::StandIn);
        let first = raw.offer(&json!({"id": 5, "result": {"n": 1}}));
        assert_eq!(
            first,
            Offered::Kept {
                claim: Some(Claim::StandIn)
            }
        );
        let second = raw.offer(&json!({"id": 5, "result": {"n": 2}}));
        assert_eq!(second, Offered::Duplicate { count: 1 });
        assert_eq!(raw.take("5").unwrap().root().to_value()["result"]["n"], 1);
        // A duplicate after the first was taken is still recognised.
        let third = raw.offer(&json!({"id": 5, "result": {"n": 3}}));
        assert_eq!(third, Offered::Duplicate { count: 2 });
        assert_eq!(raw.duplicates("5"), 2);
        assert!(raw.take("5").is_none());
    }

    #[tokio::test]
    async fn waiting_sees_a_later_arrival() {
        let raw = RawResponses::default();
        let waiter = {
            let raw = raw.clone();
            tokio::spawn(async move {
                raw.arrival("7").await;
                raw.take("7").unwrap()
            })
        };
        tokio::task::yield_now().await;
        raw.offer(&json!({"id": "7", "error": {"code": -1, "message": "no"}}));
        let message = waiter.await.unwrap();
        assert_eq!(message.root().to_value()["error"]["message"], "no");
    }
}
