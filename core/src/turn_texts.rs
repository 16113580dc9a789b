//! The legal turns of a game's current position, written once for autocomplete.
//!
//! Discord asks for suggestions at every keystroke, and a compound-turn position has tens of
//! thousands of turns: listing and writing them all each time cost tens of milliseconds. An
//! entry is kept per game and position, compared whole, so a move or a takeback (another
//! position) is simply a miss, and no game is ever served another's turns. Where a platform
//! suggests turns as they are typed, each position a committed turn reaches is written here by a
//! worker before its player starts typing ([`crate::service::Service::write_turns_step`]).

use std::sync::{Arc, Mutex};

use tessera_rules::{Position, notation};

/// How many positions stay written: the games whose players may type a move soon (each position a
/// committed turn reaches is written where a platform suggests turns as they are typed).
const POSITIONS: usize = 256;
/// How many turns they may hold together: a compound-turn position has up to some hundred
/// thousand (about 110 bytes each written: two strings and their text), a chess position a few
/// dozen; about 40 MB in all.
const TURNS: usize = 350_000;

/// One legal turn's texts, without check marks.
pub struct TurnText {
    pub san: String,
    pub lan: String,
}

pub struct TurnTexts {
    entries: Mutex<Entries>,
    /// At most this many positions, and this many turns in all ([`POSITIONS`], [`TURNS`]).
    positions: usize,
    turns: usize,
}

impl Default for TurnTexts {
    fn default() -> TurnTexts {
        TurnTexts::with_room(POSITIONS, TURNS)
    }
}

#[derive(Default)]
struct Entries {
    list: Vec<Entry>,
    /// A counter standing for time, to forget the least recently used position first.
    clock: u64,
}

impl Entries {
    /// The turns the entries hold together.
    fn turns(&self) -> usize {
        self.list.iter().map(|e| e.texts.len()).sum()
    }
}

struct Entry {
    game: i64,
    position: Position,
    texts: Arc<[TurnText]>,
    used: u64,
}

impl TurnTexts {
    /// Room for `positions` positions holding `turns` turns in all; a single position larger than
    /// that is still kept, alone.
    fn with_room(positions: usize, turns: usize) -> TurnTexts {
        TurnTexts { entries: Mutex::default(), positions: positions.max(1), turns }
    }

    /// The legal turns of `pos`, game `game`'s current position, with their texts: written now
    /// unless this position of this game was written lately.
    pub fn of(&self, game: i64, pos: &Position) -> Arc<[TurnText]> {
        if let Some(texts) = self.get(game, pos) {
            return texts;
        }
        // Written without holding the lock: other games' suggestions need not wait.
        let texts: Arc<[TurnText]> = write_all(pos).into();
        self.put(game, pos, texts.clone());
        texts
    }

    fn get(&self, game: i64, pos: &Position) -> Option<Arc<[TurnText]>> {
        let mut entries = self.lock();
        entries.clock += 1;
        let now = entries.clock;
        let entry = entries.list.iter_mut().find(|e| e.game == game && e.position == *pos)?;
        entry.used = now;
        Some(entry.texts.clone())
    }

    fn put(&self, game: i64, pos: &Position, texts: Arc<[TurnText]>) {
        let mut entries = self.lock();
        entries.clock += 1;
        let used = entries.clock;
        // A game's older positions are of no more use: one entry per game.
        entries.list.retain(|e| e.game != game);
        // The least recently used go first, until the new entry has room.
        let mut held = entries.turns();
        while entries.list.len() >= self.positions || (held + texts.len() > self.turns && held > 0) {
            let Some(oldest) = entries.list.iter().enumerate().min_by_key(|(_, e)| e.used).map(|(i, _)| i)
            else {
                break;
            };
            held -= entries.list.swap_remove(oldest).texts.len();
        }
        entries.list.push(Entry { game, position: pos.clone(), texts, used });
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().list.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // Each entry is replaced whole, so a panic elsewhere leaves them consistent.
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Every legal turn of `pos` with its short and long form.
fn write_all(pos: &Position) -> Vec<TurnText> {
    let moves = pos.legal_moves();
    let mut writer = notation::TurnWriter::new(pos);
    moves.iter().map(|mv| TurnText { san: writer.san(mv), lan: writer.lan(mv) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::{Game, Variant};

    fn sans(texts: &[TurnText]) -> Vec<&str> {
        texts.iter().map(|t| t.san.as_str()).collect()
    }

    #[test]
    fn the_texts_are_the_positions_legal_turns() {
        let cache = TurnTexts::default();
        for variant in [Variant::CHESS, Variant::MOVING_OCCUPIED_SQUARES] {
            let pos = Position::start(variant);
            let texts = cache.of(1, &pos);
            let moves = pos.legal_moves();
            assert_eq!(texts.len(), moves.len());
            for (text, mv) in texts.iter().zip(&moves) {
                let (san, lan) = notation::san_and_lan_unmarked(&pos, mv);
                assert_eq!((&text.san, &text.lan), (&san, &lan));
            }
        }
    }

    #[test]
    fn a_position_is_written_once_and_a_move_or_takeback_is_a_miss() {
        let cache = TurnTexts::default();
        let mut game = Game::new(Position::start(Variant::CHESS));
        let first = cache.of(1, game.position());
        assert!(Arc::ptr_eq(&first, &cache.of(1, game.position())), "the same position is served");
        game.play_text("e4").unwrap();
        let after = cache.of(1, game.position());
        assert!(!Arc::ptr_eq(&first, &after));
        assert!(sans(&after).contains(&"e5") && !sans(&after).contains(&"e4"), "Black's turns now");
        // A takeback: the start again, whose turns are White's.
        let back = Game::new(Position::start(Variant::CHESS));
        let again = cache.of(1, back.position());
        assert!(!Arc::ptr_eq(&after, &again));
        assert!(sans(&again).contains(&"e4") && !sans(&again).contains(&"e5"));
        assert_eq!(cache.len(), 1, "one position per game");
    }

    #[test]
    fn no_game_is_served_another_games_turns() {
        let cache = TurnTexts::default();
        let start = Position::start(Variant::CHESS);
        let one = cache.of(1, &start);
        let two = cache.of(2, &start);
        assert!(!Arc::ptr_eq(&one, &two), "the same position in another game is written for it");
        let hans = Position::start(Variant::HANS38);
        let three = cache.of(3, &hans);
        assert_eq!(three.len(), hans.legal_moves().len());
        assert!(Arc::ptr_eq(&one, &cache.of(1, &start)));
    }

    #[test]
    fn the_least_recently_used_position_goes_first() {
        const ROOM: usize = 8;
        let cache = TurnTexts::with_room(ROOM, TURNS);
        let start = Position::start(Variant::CHESS);
        let kept = cache.of(0, &start);
        for game in 1..ROOM as i64 {
            cache.of(game, &start);
        }
        assert!(Arc::ptr_eq(&kept, &cache.of(0, &start)), "used lately");
        let oldest = cache.of(1, &start);
        for game in 2..ROOM as i64 {
            cache.of(game, &start);
        }
        cache.of(0, &start);
        cache.of(ROOM as i64, &start);
        assert_eq!(cache.len(), ROOM);
        assert!(!Arc::ptr_eq(&oldest, &cache.of(1, &start)), "game 1's entry was the oldest, and went");
    }

    #[test]
    fn the_turns_kept_stay_within_their_room() {
        // Room for 50 turns: two chess starts (20 each), not three.
        let cache = TurnTexts::with_room(POSITIONS, 50);
        let start = Position::start(Variant::CHESS);
        let first = cache.of(1, &start);
        let second = cache.of(2, &start);
        cache.of(3, &start);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.lock().turns(), 40);
        assert!(!Arc::ptr_eq(&first, &cache.of(1, &start)), "the oldest went to make room");
        assert!(!Arc::ptr_eq(&second, &cache.of(2, &start)), "then the next oldest");
        // A position larger than the whole room is still kept, alone.
        let mos = Position::start(Variant::MOVING_OCCUPIED_SQUARES);
        assert!(mos.legal_moves().len() > 50);
        let big = cache.of(4, &mos);
        assert_eq!(cache.len(), 1);
        assert!(Arc::ptr_eq(&big, &cache.of(4, &mos)));
        assert_eq!(cache.lock().turns(), big.len());
    }
}
