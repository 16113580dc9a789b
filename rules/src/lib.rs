//! Tessera's rules: boards that change during play, positions, legal moves, notation and perft.
//!
//! Pure logic: no I/O, no async. Text comes in through [`Position::from_fen`] and
//! [`notation::parse`], is checked once ([`Position::from_setup`] for positions), and everything
//! past that boundary can be trusted. How the engine is built is told in `docs/engine.md`.
//!
//! ```
//! use tessera_rules::{Position, Variant};
//! let pos = Position::start(Variant::CHESS);
//! assert_eq!(pos.legal_moves().len(), 20);
//! assert_eq!(tessera_rules::perft(&pos, 3), 8902);
//! ```

mod advice;
pub mod attacks;
pub mod game;
mod magic;
mod mechanic;
pub mod moves;
pub mod notation;
pub mod perft;
mod plain;
pub mod position;
pub mod record;
pub mod setup;
pub mod text;
pub mod types;
pub mod variant;
pub mod variant_file;
pub mod view;

#[cfg(test)]
mod examples_tests;
#[cfg(test)]
mod switches_tests;

pub use game::{DrawReason, Game, Outcome, PlayError, WinReason};
/// Quad-Square Chess's board, for callers that name quads (`S1`, `M2`).
pub use mechanic::quad;
pub use moves::{Action, Move};
pub use perft::perft;
pub use position::Position;
pub use record::{Record, Replay, ReplayError, WrittenPly, parse_record, read_turns, replay, written_plies};
pub use setup::Setup;
pub use text::PositionError;
pub use types::{Bitboard, ByColor, Color, Piece, Role, Square};
pub use variant::{DeadMaterial, StalemateRule, Variant};
