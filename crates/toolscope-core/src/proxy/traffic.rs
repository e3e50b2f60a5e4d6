//! What passes through a proxy, offered to whoever records it: each line with its side and
//! when it passed. Offering never waits: the queue is bounded by the bytes waiting in it (a
//! flood of small lines fits whole while the recorder catches up; one line of any size is
//! taken when nothing waits), and a line that finds it full is counted as dropped, and the
//! next line kept says how many went before it (the relay goes on; the recording says what it
//! missed, and where).

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
        mpsc::{Receiver, RecvTimeoutError, Sender, channel},
    },
    time::{Duration, Instant},
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
        at: Duration,
        /// Lines that passed just before this one but found the queue full.
        dropped_before: u64,
    },
    /// The relay ended; `dropped` lines found the queue full on the way.
    Ended { end: RelayEnd, dropped: u64 },
}

/// What both ends share: the bytes waiting, the lines dropped in all and since the last kept.
#[derive(Debug, Default)]
struct Counts {
    waiting_bytes: AtomicUsize,
    dropped: AtomicU64,
    dropped_since_kept: AtomicU64,
}

/// The relay's side of the queue (cheap to clone). `Traffic::none()` offers to nobody.
#[derive(Clone)]
pub struct Traffic {
    sender: Option<Sender<TrafficEvent>>,
    /// The most bytes of lines waiting for the recorder.
    capacity: usize,
    started: Instant,
    counts: Arc<Counts>,
}

/// The recorder's side of the queue.
pub struct TrafficReceiver {
    events: Receiver<TrafficEvent>,
    counts: Arc<Counts>,
    /// When the relay started (a line's `at` counts from it).
    started: Instant,
}

impl Traffic {
    /// No one records: lines are relayed and forgotten.
    pub fn none() -> Self {
        Self {
            sender: None,
            capacity: 0,
            started: Instant::now(),
            counts: Arc::default(),
        }
    }

    /// A queue of lines of at most `capacity` bytes in all, and its receiving end.
    pub fn bounded(capacity: usize) -> (Self, TrafficReceiver) {
        let (sender, events) = channel();
        let counts = Arc::new(Counts::default());
        let started = Instant::now();
        let traffic = Self {
            sender: Some(sender),
            capacity,
            started,
            counts: Arc::clone(&counts),
        };
        let receiver = TrafficReceiver {
            events,
            counts,
            started,
        };
        (traffic, receiver)
    }

    /// Offers a line; a full queue drops it (counted).
    pub(super) fn offer(&self, side: TrafficSide, bytes: &[u8]) {
        let Some(sender) = &self.sender else { return };
        let counts = &self.counts;
        let waiting = counts
            .waiting_bytes
            .fetch_add(bytes.len(), Ordering::AcqRel);
        if waiting > 0 && waiting + bytes.len() > self.capacity {
            counts
                .waiting_bytes
                .fetch_sub(bytes.len(), Ordering::AcqRel);
            counts.dropped.fetch_add(1, Ordering::Relaxed);
            counts.dropped_since_kept.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let event = TrafficEvent::Line {
            side,
            bytes: bytes.to_vec(),
            at: self.started.elapsed(),
            dropped_before: counts.dropped_since_kept.swap(0, Ordering::Relaxed),
        };
        if sender.send(event).is_err() {
            // No recorder any more: nothing waits.
            counts
                .waiting_bytes
                .fetch_sub(bytes.len(), Ordering::AcqRel);
        }
    }

    /// Says the relay ended.
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
        self.counts.dropped.load(Ordering::Relaxed)
    }
}

impl TrafficReceiver {
    /// How long ago the relay started.
    pub fn relay_age(&self) -> Duration {
        self.started.elapsed()
    }

    /// The next event, within `timeout`; its line's bytes no longer count as waiting.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<TrafficEvent, RecvTimeoutError> {
        let event = self.events.recv_timeout(timeout)?;
        if let TrafficEvent::Line { bytes, .. } = &event {
            self.counts
                .waiting_bytes
                .fetch_sub(bytes.len(), Ordering::AcqRel);
        }
        Ok(event)
    }

    /// The next event already waiting, if any.
    pub fn try_recv(&self) -> Option<TrafficEvent> {
        self.recv_timeout(Duration::ZERO).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next_line(receiver: &TrafficReceiver) -> (Vec<u8>, u64) {
        match receiver.try_recv() {
            Some(TrafficEvent::Line {
                bytes,
                dropped_before,
                ..
            }) => (bytes, dropped_before),
            other => panic!("a line, not {other:?}"),
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_and_the_next_line_kept_says_so() {
        let (traffic, receiver) = Traffic::bounded(8);
        traffic.offer(TrafficSide::ToServer, b"one\n");
        traffic.offer(TrafficSide::ToServer, b"two\n");
        traffic.offer(TrafficSide::ToServer, b"three\n");
        traffic.offer(TrafficSide::ToServer, b"four\n");
        assert_eq!(
            traffic.dropped(),
            2,
            "8 bytes: `three` and `four` do not fit"
        );
        assert_eq!(next_line(&receiver), (b"one\n".to_vec(), 0));
        assert_eq!(next_line(&receiver), (b"two\n".to_vec(), 0));
        traffic.offer(TrafficSide::ToServer, b"five\n");
        assert_eq!(
            next_line(&receiver),
            (b"five\n".to_vec(), 2),
            "the gap is said where it was"
        );
        Traffic::none().offer(TrafficSide::ToClient, b"nobody\n");
    }

    #[test]
    fn one_line_bigger_than_the_queue_is_taken_when_nothing_waits() {
        let (traffic, receiver) = Traffic::bounded(4);
        traffic.offer(TrafficSide::ToClient, b"a long answer\n");
        assert_eq!(traffic.dropped(), 0);
        assert_eq!(next_line(&receiver).0, b"a long answer\n");
        traffic.offer(TrafficSide::ToClient, b"another long one\n");
        assert_eq!(traffic.dropped(), 0, "taken again once the first was");
    }
}
