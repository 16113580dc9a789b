//! Games kept alive between moves, so that a move does not replay its whole game.
//!
//! The stored moves stay the truth: an entry serves a game only while the stored moves begin with
//! the entry's moves, and whatever was stored since (by another process, or a takeback that
//! shortened the game) is replayed from the store. An entry holds no declared ending: resignation,
//! agreement and time are read from the row each time.

use std::collections::HashMap;
use std::sync::Mutex;

use tessera_rules::Game;

/// How many games stay in memory: the running games of a busy community. A long game's entry is
/// some tens of kilobytes (its positions, for repetition).
const CAPACITY: usize = 512;

#[derive(Default)]
pub struct GameCache {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_game: HashMap<i64, Entry>,
    /// A counter standing for time, to forget the least recently used game first.
    clock: u64,
}

struct Entry {
    start_fen: String,
    moves: Vec<String>,
    game: Game,
    used: u64,
}

impl GameCache {
    /// The cached game `id` as far as it agrees with the stored record: the game and how many of
    /// `moves` it has played. `None` when nothing usable is cached.
    pub fn get(&self, id: i64, start_fen: &str, moves: &[String]) -> Option<(Game, usize)> {
        let mut entries = self.lock();
        entries.clock += 1;
        let now = entries.clock;
        let entry = entries.by_game.get_mut(&id)?;
        if entry.start_fen != start_fen || !moves.starts_with(&entry.moves) {
            return None;
        }
        entry.used = now;
        Some((entry.game.clone(), entry.moves.len()))
    }

    /// Remembers game `id` after `moves`; `game` must be the start position with exactly these
    /// moves played, and no declared ending.
    pub fn put(&self, id: i64, start_fen: &str, moves: &[String], game: &Game) {
        let mut entries = self.lock();
        entries.clock += 1;
        let used = entries.clock;
        if entries.by_game.len() >= CAPACITY && !entries.by_game.contains_key(&id) {
            let oldest = entries.by_game.iter().min_by_key(|(_, e)| e.used).map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                entries.by_game.remove(&oldest);
            }
        }
        let entry =
            Entry { start_fen: start_fen.to_string(), moves: moves.to_vec(), game: game.clone(), used };
        entries.by_game.insert(id, entry);
    }

    /// Forgets a game: one that has ended needs no quick next move.
    pub fn forget(&self, id: i64) {
        self.lock().by_game.remove(&id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_game.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding the lock leaves consistent entries: each is replaced whole.
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::{Position, Variant};

    fn game_after(moves: &[&str]) -> Game {
        let mut game = Game::new(Position::start(Variant::CHESS));
        for m in moves {
            game.play_text(m).unwrap();
        }
        game
    }

    fn texts(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn an_entry_serves_only_records_that_begin_with_its_moves() {
        let fen = Variant::CHESS.start_fen();
        let cache = GameCache::default();
        cache.put(1, fen, &texts(&["e2-e4"]), &game_after(&["e2-e4"]));
        let (game, played) = cache.get(1, fen, &texts(&["e2-e4", "e7-e5"])).expect("a prefix serves");
        assert_eq!((game.moves().len(), played), (1, 1));
        assert!(cache.get(1, fen, &texts(&["d2-d4"])).is_none(), "another record");
        assert!(cache.get(1, fen, &[]).is_none(), "a record taken back past the entry");
        assert!(cache.get(1, "8/8/8/8/8/8/8/K6k w - - 0 1", &texts(&["e2-e4"])).is_none(), "another start");
        assert!(cache.get(2, fen, &texts(&["e2-e4"])).is_none(), "another game");
        cache.forget(1);
        assert!(cache.get(1, fen, &texts(&["e2-e4"])).is_none());
    }

    #[test]
    fn the_least_recently_used_game_goes_first() {
        let fen = Variant::CHESS.start_fen();
        let cache = GameCache::default();
        let game = game_after(&[]);
        for id in 0..CAPACITY as i64 {
            cache.put(id, fen, &[], &game);
        }
        assert!(cache.get(0, fen, &[]).is_some());
        cache.put(CAPACITY as i64, fen, &[], &game);
        assert_eq!(cache.len(), CAPACITY);
        assert!(cache.get(0, fen, &[]).is_some(), "used lately, so kept");
        assert!(cache.get(1, fen, &[]).is_none(), "the oldest unused one went");
    }
}
