//! A subscribed resource read again on each update: the history keeps one row for the read,
//! with a count, instead of a row every few seconds pushing the tester's calls off screen.

use std::collections::{HashMap, VecDeque};

use super::CallId;

/// How many recorded reads are remembered (the rows a repeat may be counted on).
const REMEMBERED_ROWS: usize = 256;

/// Which reads are repeats, of which first read, and the history rows of the first reads.
#[derive(Debug, Default)]
pub struct RepeatedReads {
    /// A read (in flight or shown) made again on an update → the first read of its chain.
    first_of: HashMap<CallId, CallId>,
    /// A first read's history row, once recorded, newest last.
    rows: VecDeque<(CallId, i64)>,
}

impl RepeatedReads {
    /// `again` reads the resource `shown` showed, on its update: it counts on the row of
    /// `shown`'s chain.
    pub fn read_again(&mut self, again: CallId, shown: CallId) {
        let first = self.first_of.get(&shown).copied().unwrap_or(shown);
        self.first_of.insert(again, first);
    }

    /// The history row a read's answer counts on instead of a row of its own, if it is a
    /// repeat whose first read was recorded. A repeat whose first read has no row (not
    /// recorded, or forgotten) starts a chain of its own.
    pub fn counted_on(&mut self, read: CallId) -> Option<i64> {
        let first = *self.first_of.get(&read)?;
        let row = self
            .rows
            .iter()
            .find(|(id, _)| *id == first)
            .map(|(_, row)| *row);
        if row.is_none() {
            self.first_of.remove(&read);
        }
        row
    }

    /// A call or read was recorded as history row `row`.
    pub fn recorded(&mut self, read: CallId, row: i64) {
        if self.rows.len() == REMEMBERED_ROWS
            && let Some((forgotten, _)) = self.rows.pop_front()
        {
            // Its chain ends: the next repeat records a row of its own.
            self.first_of.retain(|_, first| *first != forgotten);
        }
        self.rows.push_back((read, row));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_count_on_the_first_reads_row() {
        let mut repeats = RepeatedReads::default();
        repeats.recorded(1, 40);
        repeats.read_again(2, 1);
        assert_eq!(repeats.counted_on(2), Some(40));
        // The repeat shown is read again: still the first read's row.
        repeats.read_again(3, 2);
        assert_eq!(repeats.counted_on(3), Some(40));
        // A read by hand is no repeat.
        assert_eq!(repeats.counted_on(4), None);
    }

    #[test]
    fn a_repeat_of_an_unrecorded_read_gets_a_row_of_its_own() {
        let mut repeats = RepeatedReads::default();
        repeats.read_again(2, 1);
        assert_eq!(repeats.counted_on(2), None);
        repeats.recorded(2, 41);
        repeats.read_again(3, 2);
        assert_eq!(repeats.counted_on(3), Some(41));
    }
}
