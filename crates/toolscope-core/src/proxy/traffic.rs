//! What passes through a proxy, offered to whoever records it: each line with its side and
//! when it passed. Offering never waits: the queue is bounded, and a line that finds it full
//! is counted as dropped (the relay goes on; the recording says what it missed).

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
        mpsc::{Receiver, SyncSender, TrySendError, sync_channel},
    },
    time::Instant,
};

use super::stdio_relay::RelayEnd;

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrafficSide {
    /// From the client to the server.
    ToServer,
    /// From the server to the client.
    ToClient,
    /// The server's stderr.
    ServerStderr,
}

/// One thing seen.
#[derive(Debug)]
pub enum TrafficEvent {
    Line {
        side: TrafficSide,
        /// The bytes exactly as relayed (with their line ending).
        bytes: Vec<u8>,
        /// Since the relay started.
        at: std::time::Duration,
    },
    /// The relay ended; `dropped` lines found the queue full on the way.
    Ended { end: RelayEnd, dropped: u64 },
}

/// The relay's side of the queue (cheap to clone). `Traffic::none()` offers to nobody.
#[derive(Clone)]
pub struct Traffic {
    sender: Option<SyncSender<TrafficEvent>>,
    started: Instant,
    dropped: Arc<AtomicU64>,
}

impl Traffic {
    /// No one records: lines are relayed and forgotten.
    pub fn none() -> Self {
        Self {
            sender: None,
            started: Instant::now(),
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// A queue of at most `capacity` events, and its receiving end.
    pub fn bounded(capacity: usize) -> (Self, Receiver<TrafficEvent>) {
        let (sender, receiver) = sync_channel(capacity);
        let traffic = Self {
            sender: Some(sender),
            started: Instant::now(),
            dropped: Arc::new(AtomicU64::new(0)),
        };
        (traffic, receiver)
    }

    /// Offers a line; a full queue drops it (counted).
    pub(super) fn offer(&self, side: TrafficSide, bytes: &[u8]) {
        let Some(sender) = &self.sender else { return };
        let event = TrafficEvent::Line {
            side,
            bytes: bytes.to_vec(),
            at: self.started.elapsed(),
        };
        match sender.try_send(event) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Says the relay ended (waits for room: the recorder should hear it).
    pub(super) fn ended(&self, end: &RelayEnd) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(TrafficEvent::Ended {
                end: end.clone(),
                dropped: self.dropped(),
            });
        }
    }

    /// How many lines found the queue full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        let (traffic, receiver) = Traffic::bounded(1);
        traffic.offer(TrafficSide::ToServer, b"one\n");
        traffic.offer(TrafficSide::ToServer, b"two\n");
        assert_eq!(traffic.dropped(), 1);
        let Ok(TrafficEvent::Line { bytes, .. }) = receiver.try_recv() else {
            panic!("the first line is kept");
        };
        assert_eq!(bytes, b"one\n");
        Traffic::none().offer(TrafficSide::ToClient, b"nobody\n");
    }
}
