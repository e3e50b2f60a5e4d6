//! Raw responses by request id, exactly as the server sent them. rmcp's typed model drops
//! unknown fields and rejects odd results; what the user sees is built from these instead.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
};

use serde_json::Value;
use tokio::sync::Notify;

use super::tap::id_text;

/// How many unclaimed responses are kept (those nobody asks for: pings, the handshake).
const MAX_UNCLAIMED: usize = 256;

#[derive(Debug, Default)]
struct Store {
    by_id: HashMap<String, Value>,
    order: VecDeque<String>,
}

/// Collects every response and error message that arrives, keyed by its id.
#[derive(Debug, Clone, Default)]
pub struct RawResponses {
    store: Arc<Mutex<Store>>,
    arrived: Arc<Notify>,
}

impl RawResponses {
    /// Keeps `message` if it is a response or an error response (it has an id and no method).
    pub fn offer(&self, message: &Value) {
        if is_response(message) {
            self.keep(message.clone());
        }
    }

    /// Like [`offer`](Self::offer), without a copy: a message nested thousands of levels deep
    /// cannot be cloned (or dropped) recursively on a worker's stack.
    pub fn offer_owned(&self, message: Value) {
        if is_response(&message) {
            self.keep(message);
        } else {
            crate::deep_json::drop_value(message);
        }
    }

    fn keep(&self, message: Value) {
        let Some(id) = message.get("id") else { return };
        let key = id_text(id);
        {
            let mut store = self.lock();
            match store.by_id.insert(key.clone(), message) {
                Some(replaced) => crate::deep_json::drop_value(replaced),
                None => store.order.push_back(key),
            }
            while store.order.len() > MAX_UNCLAIMED {
                if let Some(old) = store.order.pop_front()
                    && let Some(evicted) = store.by_id.remove(&old)
                {
                    crate::deep_json::drop_value(evicted);
                }
            }
        }
        self.arrived.notify_waiters();
    }

    /// Takes the response to `id`, if it has arrived.
    pub fn take(&self, id: &str) -> Option<Value> {
        let mut store = self.lock();
        let message = store.by_id.remove(id)?;
        store.order.retain(|key| key != id);
        Some(message)
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

/// A response or an error response: it has an id and no method.
fn is_response(message: &Value) -> bool {
    message.get("id").is_some() && message.get("method").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_responses_not_requests() {
        let raw = RawResponses::default();
        raw.offer(&json!({"id": 1, "method": "ping"}));
        raw.offer(&json!({"id": 2, "result": {"x-extra": true}}));
        assert!(raw.take("1").is_none());
        assert_eq!(raw.take("2").unwrap()["result"]["x-extra"], true);
        assert!(raw.take("2").is_none());
    }

    #[test]
    fn unclaimed_responses_are_bounded() {
        let raw = RawResponses::default();
        for id in 0..1000 {
            raw.offer(&json!({"id": id, "result": {}}));
        }
        assert!(raw.take("0").is_none());
        assert!(raw.take("999").is_some());
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
        assert_eq!(message["error"]["message"], "no");
    }
}
