//! Which running call a `notifications/progress` belongs to, by progress token.
//!
//! rmcp handles each notification in a task of its own and picks the progress token only as it
//! sends the request. So a progress notification may be handled before its call has registered
//! its route (it is held until then), and a call's last one may be handled after its response
//! (the call waits for it before it drops its route).

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::sync::Notify;

use crate::session::events::ProgressUpdate;

pub type ProgressCallback = Arc<dyn Fn(ProgressUpdate) + Send + Sync>;

/// How many progress updates for not (yet) registered tokens are held.
const MAX_EARLY: usize = 64;

#[derive(Default)]
struct Routes {
    callbacks: HashMap<String, ProgressCallback>,
    /// Updates that came before their call registered, oldest first.
    early: VecDeque<(String, ProgressUpdate)>,
}

/// Progress callbacks of running calls, by progress token.
#[derive(Clone, Default)]
pub struct ProgressRoutes {
    routes: Arc<Mutex<Routes>>,
    handled: Arc<AtomicU64>,
    handled_changed: Arc<Notify>,
}

impl ProgressRoutes {
    /// Routes progress for `token` to `callback`, first replaying what came before.
    pub fn add(&self, token: String, callback: ProgressCallback) {
        let mut routes = self.lock();
        let mut index = 0;
        while index < routes.early.len() {
            if routes.early[index].0 == token {
                if let Some((_, update)) = routes.early.remove(index) {
                    callback(update);
                }
            } else {
                index += 1;
            }
        }
        routes.callbacks.insert(token, callback);
    }

    pub fn remove(&self, token: &str) {
        self.lock().callbacks.remove(token);
    }

    /// Hands `update` to the call that waits for `token`, or holds it until that call
    /// registers. Callbacks run under the lock, so one call's updates keep their order.
    pub fn deliver(&self, token: &str, update: &ProgressUpdate) {
        {
            let mut routes = self.lock();
            if let Some(callback) = routes.callbacks.get(token) {
                callback(update.clone());
            } else {
                routes.early.push_back((token.to_owned(), update.clone()));
                if routes.early.len() > MAX_EARLY {
                    routes.early.pop_front();
                }
            }
        }
        self.handled.fetch_add(1, Ordering::SeqCst);
        self.handled_changed.notify_waiters();
    }

    /// Waits until `count` progress notifications have been handled, or `limit` passed (rmcp
    /// drops a notification it cannot parse, so the count may never be reached).
    pub async fn wait_until_handled(&self, count: u64, limit: Duration) {
        let handled = async {
            loop {
                let changed = self.handled_changed.notified();
                if self.handled.load(Ordering::SeqCst) >= count {
                    return;
                }
                changed.await;
            }
        };
        let _ = tokio::time::timeout(limit, handled).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(progress: f64) -> ProgressUpdate {
        ProgressUpdate {
            progress,
            total: None,
            message: None,
        }
    }

    fn recorder() -> (ProgressCallback, Arc<Mutex<Vec<f64>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let callback: ProgressCallback =
            Arc::new(move |update: ProgressUpdate| sink.lock().unwrap().push(update.progress));
        (callback, seen)
    }

    #[test]
    fn progress_before_the_route_is_replayed_in_order() {
        let routes = ProgressRoutes::default();
        routes.deliver("7", &update(1.0));
        routes.deliver("8", &update(9.0));
        routes.deliver("7", &update(2.0));
        let (callback, seen) = recorder();
        routes.add("7".to_owned(), callback);
        routes.deliver("7", &update(3.0));
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
        routes.remove("7");
        routes.deliver("7", &update(4.0));
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn held_progress_is_bounded() {
        let routes = ProgressRoutes::default();
        for step in 0..(MAX_EARLY + 10) {
            routes.deliver("lost", &update(step as f64));
        }
        assert_eq!(routes.lock().early.len(), MAX_EARLY);
    }

    #[tokio::test]
    async fn waiting_for_handled_progress_ends_at_the_count_or_the_limit() {
        let routes = ProgressRoutes::default();
        let waiting = {
            let routes = routes.clone();
            tokio::spawn(async move { routes.wait_until_handled(2, Duration::from_secs(30)).await })
        };
        routes.deliver("1", &update(1.0));
        routes.deliver("1", &update(2.0));
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("ends once two were handled")
            .unwrap();
        let started = std::time::Instant::now();
        routes
            .wait_until_handled(3, Duration::from_millis(50))
            .await;
        assert!(started.elapsed() >= Duration::from_millis(50));
    }
}
