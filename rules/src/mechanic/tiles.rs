//! Tiled Squares Chess (Tony Quintanilla, T1–T7): the middle starts as void that lines cross;
//! tiles and anti-tiles are dropped on it, own empty tiles taken away, and the king lays a tile
//! wherever it steps. Owners and placements are Betza's, borrowed from the squares room.

use super::squares::{self, Squares};
use super::{Mechanic, TurnEffects};
use crate::moves::Action;
use crate::position::Position;
use crate::setup::Setup;
use crate::text::PositionError;
use crate::types::{Bitboard, Role, Square};
use crate::variant::Variant;
use crate::view::{BoardView, CellKind};

pub(crate) struct Tiles;

impl Mechanic for Tiles {
    /// Void is passed over; only anti-tiles (and the board's edge) stop a line (T4).
    #[inline]
    fn walls(pos: &Position) -> Bitboard {
        pos.anti | !pos.board_mask()
    }

    fn square_word() -> &'static str {
        "tile"
    }

    fn kings_lay_squares() -> bool {
        true
    }

    /// T5: the king steps anywhere without a friendly piece, laying a tile.
    #[inline]
    fn king_targets(pos: &Position, _targets: Bitboard) -> Bitboard {
        pos.board_mask() & !pos.by_color(pos.turn)
    }

    /// T4: a double step crosses void but not an anti-tile.
    #[inline]
    fn pawn_passable(pos: &Position) -> Bitboard {
        pos.board_mask() & !pos.anti & !pos.occupied()
    }

    /// T2: a tile or an anti-tile on void, or one of our own empty tiles taken away.
    fn square_actions(pos: &Position, emit: &mut dyn FnMut(Action)) {
        let void = pos.holes() & !pos.anti;
        for to in void {
            emit(Action::Place { to });
        }
        for to in void {
            emit(Action::DropAnti { to });
        }
        for at in pos.squares & pos.owners[pos.turn.index()] & !pos.occupied() {
            emit(Action::RemoveTile { at });
        }
    }

    #[inline]
    fn apply_own(pos: &mut Position, action: Action, fx: &mut TurnEffects) {
        match action {
            Action::Place { to } => squares::place(pos, to, fx),
            Action::DropAnti { to } => {
                pos.anti |= to.bb();
                fx.reset_clock = true;
            }
            Action::RemoveTile { at } => squares::remove_square(pos, at),
            _ => unreachable!("{action:?} is not a tile action"),
        }
    }

    /// T5: the king lays a tile where there was none, or on an anti-tile.
    #[inline]
    fn stepped(pos: &mut Position, role: Role, _from: Square, to: Square) {
        if role == Role::King {
            pos.squares |= to.bb();
            pos.anti &= !to.bb();
        }
    }

    #[inline]
    fn arrived(pos: &mut Position, sq: Square) -> bool {
        squares::occupy(pos, sq)
    }

    /// Tiles never move, so nothing is locked (L5 guards against moving a square back).
    #[inline]
    fn locks(_pos: &Position, _fx: &TurnEffects) -> Bitboard {
        Bitboard::EMPTY
    }

    fn read_mark(setup: &mut Setup, variant: Variant, c: char, sq: Square) -> bool {
        if c == '!' {
            setup.anti |= sq.bb();
            return true;
        }
        Squares::read_mark(setup, variant, c, sq)
    }

    fn read_extension(
        setup: &mut Setup,
        variant: Variant,
        key: &str,
        value: &str,
    ) -> Option<Result<(), PositionError>> {
        // Tiles are never locked (T1–T7 have no lock): `lock:` is not part of a tiled position.
        if key == "lock" {
            return None;
        }
        Squares::read_extension(setup, variant, key, value)
    }

    fn check_setup(setup: &Setup, variant: Variant) -> Result<(), PositionError> {
        Squares::check_setup(setup, variant)
    }

    fn settle(pos: &mut Position) {
        Squares::settle(pos)
    }

    fn cell_mark(pos: &Position, sq: Square) -> Option<char> {
        if pos.anti.contains(sq) { Some('!') } else { Squares::cell_mark(pos, sq) }
    }

    fn write_extensions(pos: &Position, out: &mut String) {
        Squares::write_extensions(pos, out)
    }

    fn decorate(pos: &Position, view: &mut BoardView) {
        for sq in pos.anti {
            view.cells[sq.rank() as usize * view.files as usize + sq.file() as usize].kind =
                CellKind::AntiTile;
        }
        Squares::decorate(pos, view);
        view.tiles = true;
    }

    fn obstacle(pos: &Position, sq: Square) -> Option<String> {
        pos.anti.contains(sq).then(|| format!("the anti-tile on {sq} is in the way"))
    }

    fn why_no_double_step(pos: &Position, middle: Square) -> Option<String> {
        pos.anti
            .contains(middle)
            .then(|| format!("a pawn's double step cannot cross the anti-tile on {middle}"))
    }
}

/// Why a tile (or, elsewhere, a square) cannot be placed at `to` (T2).
pub(super) fn why_no_place(pos: &Position, to: Square) -> String {
    if pos.anti_tiles().contains(to) {
        format!("there is an anti-tile at {to}; tiles go on void, and only a king clears an anti-tile")
    } else {
        squares::why_no_place(pos, to)
    }
}

/// Why an anti-tile cannot be dropped at `to` (T2).
pub(super) fn why_no_anti(pos: &Position, to: Square) -> String {
    if pos.anti_tiles().contains(to) {
        format!("there is already an anti-tile at {to}")
    } else if pos.squares().contains(to) {
        format!("there is already a tile at {to}; anti-tiles go on void")
    } else {
        format!("you cannot drop an anti-tile at {to} now{}", crate::notation::legal_examples(pos))
    }
}

/// Why the tile at `at` cannot be taken away (T2).
pub(super) fn why_no_removal(pos: &Position, at: Square) -> String {
    let us = pos.turn();
    if !pos.squares().contains(at) {
        format!("there is no tile at {at}")
    } else if pos.occupied().contains(at) {
        format!("a piece stands on the tile at {at}")
    } else if pos.owner(at) != Some(us) {
        format!("the tile at {at} is {}'s; you remove only your own", us.other())
    } else {
        format!("you cannot remove the tile at {at} now{}", crate::notation::legal_examples(pos))
    }
}

impl Position {
    /// Tiled Squares: the anti-tiles.
    pub fn anti_tiles(&self) -> Bitboard {
        self.anti
    }
}

#[cfg(test)]
mod lock_tests {
    use crate::position::Position;
    use crate::variant::Variant;

    /// Tiles are never locked, so a tiled position with `lock:` is refused, not read and ignored.
    #[test]
    fn a_tiled_position_has_no_locks() {
        let start = Position::start(Variant::TILED_SQUARES).fen();
        let locked = format!("{start} lock:e2");
        let refused = Position::from_fen(Variant::TILED_SQUARES, &locked).unwrap_err().to_string();
        assert!(refused.contains("lock"), "{refused}");
    }
}
