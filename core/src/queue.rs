//! Work waiting for a background worker: the bot's turns in practice games, hints, analyses after
//! the game, tournaments to move on. Only numbers are queued; the database holds the work itself.
//!
//! Two lanes: jobs pushed with [`Queue::push`] go before every job pushed with
//! [`Queue::push_later`] (a practice turn never waits behind an analysis), each lane oldest first.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::model::{GameId, PlayerId};

/// Jobs waiting, each once (a job already waiting is not queued twice), oldest first in its lane.
/// Bounded by what queues them: the running games against the bot, the analysis queue's bound.
#[derive(Debug)]
pub struct Queue<J = GameId> {
    state: Mutex<State<J>>,
    ready: Condvar,
}

impl<J> Default for Queue<J> {
    fn default() -> Queue<J> {
        Queue {
            state: Mutex::new(State { jobs: VecDeque::new(), later: VecDeque::new(), closed: false }),
            ready: Condvar::new(),
        }
    }
}

#[derive(Debug)]
struct State<J> {
    jobs: VecDeque<(J, Instant)>,
    later: VecDeque<(J, Instant)>,
    closed: bool,
}

/// What the practice worker does: the bot's turn in a game, a hint for a player, an analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
    /// The bot's turn in this game.
    Turn(GameId),
    /// The engine's turn for a practice game's player, for them alone.
    Hint(Hint),
    /// A finished game's analysis (in the later lane).
    Analysis(GameId),
}

/// A hint asked for: the game as the player saw it (its number of moves), and whom to tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub game: GameId,
    pub plies: usize,
    pub player: PlayerId,
    pub platform: String,
    pub channel: String,
    pub user_id: String,
}

impl<J: PartialEq> Queue<J> {
    fn state(&self) -> std::sync::MutexGuard<'_, State<J>> {
        // A job is a number or two: a panic elsewhere cannot leave the queue half-changed.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues `job` in the first lane unless it is already waiting (or the queue was closed).
    pub fn push(&self, job: J) {
        let mut state = self.state();
        if state.closed || state.jobs.iter().any(|(j, _)| *j == job) {
            return;
        }
        state.jobs.push_back((job, Instant::now()));
        self.ready.notify_one();
    }

    /// Queues `job` after everything in the first lane, unless it is already waiting.
    pub fn push_later(&self, job: J) {
        let mut state = self.state();
        if state.closed || state.later.iter().any(|(j, _)| *j == job) {
            return;
        }
        state.later.push_back((job, Instant::now()));
        self.ready.notify_one();
    }

    /// The oldest job of the first lane, without waiting (the local mode answers at once; a long
    /// job looks here between its steps).
    pub fn try_pop(&self) -> Option<J> {
        self.try_pop_queued().map(|(j, _)| j)
    }

    /// As [`Queue::try_pop`], with when the job was queued.
    pub fn try_pop_queued(&self) -> Option<(J, Instant)> {
        self.state().jobs.pop_front()
    }

    /// The oldest job of the later lane, without waiting, once the first is empty.
    pub fn try_pop_later(&self) -> Option<J> {
        let mut state = self.state();
        if !state.jobs.is_empty() {
            return None;
        }
        state.later.pop_front().map(|(j, _)| j)
    }

    /// How many jobs of the first lane wait.
    pub fn len(&self) -> usize {
        self.state().jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many jobs of the later lane wait.
    pub fn later_len(&self) -> usize {
        self.state().later.len()
    }

    /// Stops the worker once its current job is done; later pushes are ignored.
    pub fn close(&self) {
        self.state().closed = true;
        self.ready.notify_all();
    }

    pub fn is_closed(&self) -> bool {
        self.state().closed
    }

    /// The next job (the first lane's before the later lane's) and when it was queued; `None`
    /// once closed.
    pub fn pop_wait(&self) -> Option<(J, Instant)> {
        let mut state = self.state();
        loop {
            if state.closed {
                return None;
            }
            if let Some(job) = state.jobs.pop_front().or_else(|| state.later.pop_front()) {
                return Some(job);
            }
            state = self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_lane_goes_before_the_later_one() {
        let q: Queue<i64> = Queue::default();
        q.push_later(10);
        q.push(1);
        q.push_later(11);
        q.push_later(10);
        q.push(2);
        assert_eq!((q.len(), q.later_len()), (2, 2));
        assert_eq!(q.try_pop_later(), None, "not while a first-lane job waits");
        assert_eq!(q.pop_wait().map(|j| j.0), Some(1));
        assert_eq!(q.pop_wait().map(|j| j.0), Some(2));
        assert_eq!(q.pop_wait().map(|j| j.0), Some(10));
        q.push(3);
        assert_eq!(q.pop_wait().map(|j| j.0), Some(3));
        assert_eq!(q.try_pop_later(), Some(11));
        q.close();
        q.push_later(12);
        assert_eq!(q.later_len(), 0);
        assert!(q.is_closed());
    }
}
