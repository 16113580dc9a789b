//! Tessera's rules: boards that change during play, positions, legal moves, notation and perft.
//!
//! Pure logic: no I/O, no async. Text comes in through [`Position::from_fen`] and
//! [`notation::parse`], is checked once, and everything past that boundary can be trusted.
//!
//! ```
//! use tessera_rules::{Position, Variant};
//! let pos = Position::start(Variant::Chess);
//! assert_eq!(pos.legal_moves().len(), 20);
//! assert_eq!(tessera_rules::perft(&pos, 3), 8902);
//! ```

mod advice;
pub mod attacks;
pub mod game;
mod magic;
pub mod moves;
pub mod notation;
pub mod perft;
mod plain;
pub mod position;
pub mod quad;
pub mod record;
pub mod text;
pub mod types;
pub mod variant;
pub mod view;

pub use game::{DrawReason, Game, Outcome, PlayError, WinReason};
pub use moves::{Action, Move};
pub use perft::perft;
pub use position::Position;
pub use record::{Record, Replay, ReplayError, parse_record, replay};
pub use text::PositionError;
pub use types::{Bitboard, ByColor, Color, Piece, Role, Square};
pub use variant::{DeadMaterial, StalemateRule, Variant};
