//! Helpers shared by the hand-checked rule tests in `tests/tests/`.

use tessera_rules::{Position, Square, Variant, notation};

/// A square by name; panics on a typo in a test.
pub fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("{name} is not a square"))
}

/// A position of `variant`; panics with the reason on a bad text in a test.
pub fn position(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The position after `text`, which must be legal.
pub fn play(p: &Position, text: &str) -> Position {
    let mv = notation::parse_move(p, text).unwrap_or_else(|e| panic!("{text} at {}: {e}", p.fen()));
    p.played(&mv)
}

/// Why `text` is refused; panics if it is accepted.
pub fn refused(p: &Position, text: &str) -> String {
    match notation::parse_move(p, text) {
        Ok(mv) => panic!("{text} was accepted at {} as {mv:?}", p.fen()),
        Err(e) => e.to_string(),
    }
}

/// A small deterministic generator, so a failing random game can be replayed from its seed.
#[derive(Debug)]
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next_index(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as usize
    }
}
