//! Work waiting for a background worker: the bot's turns in practice games, tournaments to move
//! on. Only game and tournament numbers are queued; the database holds the work itself.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::model::GameId;

/// Games in which the bot is to move, each once, oldest first. Bounded by the running games
/// against the bot (a game already waiting is not queued twice).
#[derive(Debug, Default)]
pub struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct State {
    jobs: VecDeque<(GameId, Instant)>,
    closed: bool,
}

impl Queue {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A job is a game number: a panic elsewhere cannot leave the queue half-changed.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues the bot's turn in `game` unless it is already waiting (or the queue was closed).
    pub fn push(&self, game: GameId) {
        let mut state = self.state();
        if state.closed || state.jobs.iter().any(|(g, _)| *g == game) {
            return;
        }
        state.jobs.push_back((game, Instant::now()));
        self.ready.notify_one();
    }

    /// The oldest waiting game, without waiting (the local mode answers at once).
    pub fn try_pop(&self) -> Option<GameId> {
        self.state().jobs.pop_front().map(|(g, _)| g)
    }

    /// How many games wait for the bot's turn.
    pub fn len(&self) -> usize {
        self.state().jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops the worker once its current game is done; later pushes are ignored.
    pub fn close(&self) {
        self.state().closed = true;
        self.ready.notify_all();
    }

    /// The next game and when it was queued; `None` once closed.
    pub fn pop_wait(&self) -> Option<(GameId, Instant)> {
        let mut state = self.state();
        loop {
            if state.closed {
                return None;
            }
            if let Some(job) = state.jobs.pop_front() {
                return Some(job);
            }
            state = self.ready.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}
