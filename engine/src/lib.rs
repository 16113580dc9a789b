//! Tessera's practice opponent: iterative-deepening alpha-beta over every variant's turns.
//!
//! Pure computation like the rules crate: no I/O, no async, no threads of its own. The caller
//! decides where it runs (the bot runs it on one worker thread, off the chat runtime). How it
//! searches, what it evaluates and how strong each level is: `docs/opponent.md`.

mod eval;
mod search;
mod tt;
mod turns;

use std::time::Duration;

use tessera_rules::{Game, Move};

use search::{Memory, Style};
pub use turns::prunes;

/// A strength from 1 (a beginner: shallow, with some randomness) to 5 (the strongest the
/// time budget allows).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

/// What each level is: one row a level, weakest first.
struct LevelRow {
    /// Deepest iteration, in plies; `None`: as deep as its time allows.
    depth: Option<u32>,
    /// The most time it thinks about one turn. Level 5's leaves room under the five seconds a
    /// turn may take for the last node and the reply.
    movetime_ms: u64,
    /// Centipawns of noise on its judgement: the weaker levels misjudge, and so blunder now
    /// and then, the way people learning a game do.
    noise: i32,
}

const LEVELS: [LevelRow; 5] = [
    LevelRow { depth: Some(1), movetime_ms: 100, noise: 200 },
    LevelRow { depth: Some(2), movetime_ms: 250, noise: 90 },
    LevelRow { depth: Some(3), movetime_ms: 600, noise: 35 },
    LevelRow { depth: Some(5), movetime_ms: 1200, noise: 20 },
    LevelRow { depth: None, movetime_ms: 4500, noise: 0 },
];

impl Level {
    pub const WEAKEST: Level = Level(1);
    pub const STRONGEST: Level = Level(LEVELS.len() as u8);

    pub fn new(n: u8) -> Option<Level> {
        (Self::WEAKEST.0..=Self::STRONGEST.0).contains(&n).then_some(Level(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    fn row(self) -> &'static LevelRow {
        &LEVELS[usize::from(self.0 - 1)]
    }

    /// What the level is allowed: its time, and its depth where it is kept shallow.
    pub fn limits(self) -> Limits {
        Limits { depth: self.row().depth, movetime: Some(self.movetime()) }
    }

    /// The most time the level thinks about one turn.
    pub fn movetime(self) -> Duration {
        Duration::from_millis(self.row().movetime_ms)
    }

    fn noise(self) -> i32 {
        self.row().noise
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
    /// The deepest iteration completed, in plies.
    pub depth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub score: Score,
}

/// A search with its memory (a transposition table of fixed size, about 10 MB): keep one per
/// thread and reuse it, so a game's later turns profit from what the earlier ones learnt.
#[derive(Debug)]
pub struct Searcher {
    memory: Memory,
    prune: bool,
}

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new()
    }
}

impl Searcher {
    /// Table entries, as a power of two.
    const TABLE_BITS: u32 = 18;

    pub fn new() -> Searcher {
        Searcher { memory: Memory::new(Self::TABLE_BITS), prune: true }
    }

    /// Bytes the transposition table holds (the search's memory, bar a few move lists).
    pub fn table_bytes(&self) -> usize {
        self.memory.table.bytes()
    }

    /// Whether compound turns are pruned to the square actions that matter (on by default;
    /// off only to measure what the pruning costs).
    pub fn set_pruning(&mut self, prune: bool) {
        self.prune = prune;
    }

    /// Forgets what it learnt: for a new game.
    pub fn forget(&mut self) {
        self.memory.forget();
    }

    /// The best turn within `limits`, at full strength; `None` when the game is over.
    pub fn best_move(&mut self, game: &Game, limits: Limits) -> Option<Choice> {
        let style = Style { noise: 0, seed: 0, prune: self.prune };
        search::run(&mut self.memory, game, limits, style)
    }

    /// The turn `level` plays within its own budget; `seed` makes its randomness repeatable.
    pub fn play(&mut self, game: &Game, level: Level, seed: u64) -> Option<Choice> {
        self.play_limited(game, level, seed, level.limits())
    }

    /// The turn `level` plays (its depth cap and noise) within `limits` where they are tighter
    /// than its own: for matches run faster than real time.
    pub fn play_limited(&mut self, game: &Game, level: Level, seed: u64, limits: Limits) -> Option<Choice> {
        let own = level.limits();
        let limits = Limits {
            depth: match (own.depth, limits.depth) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            movetime: match (own.movetime, limits.movetime) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        };
        let style = Style { noise: level.noise(), seed: search::splitmix(seed), prune: self.prune };
        search::run(&mut self.memory, game, limits, style)
    }
}

/// [`Searcher::best_move`] with a fresh searcher.
pub fn best_move(game: &Game, limits: Limits) -> Option<Choice> {
    Searcher::new().best_move(game, limits)
}

/// [`Searcher::play`] with a fresh searcher.
pub fn play(game: &Game, level: Level, seed: u64) -> Option<Choice> {
    Searcher::new().play(game, level, seed)
}

/// [`Searcher::play_limited`] with a fresh searcher.
pub fn play_limited(game: &Game, level: Level, seed: u64, limits: Limits) -> Option<Choice> {
    Searcher::new().play_limited(game, level, seed, limits)
}
