//! The rooms of the house: one module per board mechanic, and the hooks the board calls them by.
//!
//! The shared board ([`Position`]) knows pieces, squares, check, and how a turn is walked. Everything
//! a variant's board does beyond FIDE chess lives in one room here, which owns that mechanic's
//! actions, how they apply, its part of the position text, its picture cells and its refusal texts.
//!
//! The rule that keeps the house acyclic: rooms depend on the shared board (its `pub(crate)` fields
//! and methods); the board, the text reader, the picture and the notation know only this module's
//! [`Mechanic`] hooks and [`Room`], never a room's insides. `dispatch!` is the one place that names
//! the rooms.

use crate::moves::{Action, Move};
use crate::notation::{ParsedAction, ParsedPieceMove};
use crate::position::Position;
use crate::setup::Setup;
use crate::text::PositionError;
use crate::types::{Bitboard, Role, Square};
use crate::variant::{Rules, Variant};
use crate::view::BoardView;

pub(crate) mod chip;
pub mod quad;
pub(crate) mod shrink;
pub(crate) mod squares;
pub(crate) mod tiles;

/// Which room a variant's board lives in. A function of the variant, kept in the position so the
/// hot hooks cost one byte load and a jump.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Room {
    /// FIDE chess's board: nothing beyond the shared board.
    Plain,
    /// Betza's family: holes, square moves and placements, reserves, owners, locks, carrying, removal.
    Squares,
    /// Quad-Square Chess's six 2x2 quad-squares.
    Quad,
    /// Blue Chip Chess's chip.
    Chip,
    /// Tiled Squares Chess: void, tiles and anti-tiles.
    Tiles,
    /// Shrink Chess: emptied lines vanish.
    Shrink,
}

impl Room {
    /// The room of a variant's rules. Each variant has exactly one; the switches that pick a room
    /// are exclusive, tiles coming before the square actions it shares with Betza's family.
    pub(crate) const fn of(rules: &Rules) -> Room {
        if rules.quad_squares {
            Room::Quad
        } else if rules.chip {
            Room::Chip
        } else if rules.tiles {
            Room::Tiles
        } else if rules.shrink {
            Room::Shrink
        } else if rules.square_actions {
            Room::Squares
        } else {
            Room::Plain
        }
    }

    pub(crate) fn of_variant(variant: Variant) -> Room {
        Room::of(variant.rules())
    }
}

/// Runs `$body` with `$m` naming the room's [`Mechanic`] type: static dispatch, so every default
/// hook is compiled once per room and inlines.
macro_rules! dispatch {
    ($room:expr, $m:ident => $body:expr) => {
        match $room {
            $crate::mechanic::Room::Plain => {
                type $m = $crate::mechanic::Plain;
                $body
            }
            $crate::mechanic::Room::Squares => {
                type $m = $crate::mechanic::squares::Squares;
                $body
            }
            $crate::mechanic::Room::Quad => {
                type $m = $crate::mechanic::quad::QuadSquares;
                $body
            }
            $crate::mechanic::Room::Chip => {
                type $m = $crate::mechanic::chip::Chip;
                $body
            }
            $crate::mechanic::Room::Tiles => {
                type $m = $crate::mechanic::tiles::Tiles;
                $body
            }
            $crate::mechanic::Room::Shrink => {
                type $m = $crate::mechanic::shrink::Shrink;
                $body
            }
        }
    };
}
pub(crate) use dispatch;

/// FIDE chess's board: every hook at its default.
pub(crate) struct Plain;
impl Mechanic for Plain {}

/// What one turn's actions leave for the end of the turn.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct TurnEffects {
    pub reset_clock: bool,
    pub double_step: Option<Square>,
    /// Squares this turn locks for the opponent's next turn: those moved, and those placed
    /// where placements lock too (L5).
    pub touched: Bitboard,
    /// A piece moved by its own powers this turn.
    pub piece_moved: bool,
}

/// Every way a board mechanic changes the game, with FIDE chess's board as the default. A room
/// implements only the hooks its rules touch.
pub(crate) trait Mechanic: Sized {
    // The board's shape.

    /// The location a cell belongs to (a quad-square's canonical cell).
    fn location(sq: Square) -> Square {
        sq
    }

    /// How players name a location.
    fn location_name(sq: Square) -> String {
        sq.to_string()
    }

    /// Locations that stop sliding pieces besides pieces: holes and everything off the board.
    #[inline]
    fn walls(pos: &Position) -> Bitboard {
        !pos.squares
    }

    /// What players call the things pieces stand on.
    fn square_word() -> &'static str {
        "square"
    }

    /// Locations no piece of the side to move may move onto (B3).
    #[inline]
    fn closed(_pos: &Position) -> Bitboard {
        Bitboard::EMPTY
    }

    /// Whether a king may step where there is no square, laying one (T5).
    fn kings_lay_squares() -> bool {
        false
    }

    /// Whether a line of cells is a line of locations, so a path can be walked cell by cell (not
    /// on a board of quad-squares).
    fn straight_lines() -> bool {
        true
    }

    // Attacks and move generation.

    /// Whether `color`'s king stands attacked.
    #[inline]
    fn king_attacked(pos: &Position, color: crate::Color) -> bool {
        pos.board_king_attacked::<Self>(color)
    }

    /// All legal turns, into a cleared `out`.
    fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
        pos.walk_legal_moves_into::<Self>(out)
    }

    /// Legal one-action piece moves.
    fn piece_moves(pos: &Position, out: &mut Vec<Move>) {
        pos.proven_piece_moves::<Self>(out)
    }

    /// Pseudo-legal piece actions of the side to move.
    fn pseudo_piece_actions(pos: &Position, emit: &mut dyn FnMut(Action)) {
        pos.board_piece_actions::<Self>(emit)
    }

    /// Where a king may step, given where other pieces may go.
    #[inline]
    fn king_targets(_pos: &Position, targets: Bitboard) -> Bitboard {
        targets
    }

    /// Locations a pawn's push passes through (a double step's middle).
    #[inline]
    fn pawn_passable(pos: &Position) -> Bitboard {
        pos.squares & !pos.occupied()
    }

    /// Whether pawns may double-step at all on this board.
    #[inline]
    fn double_steps(_pos: &Position) -> bool {
        true
    }

    /// Where king and rook land when castling: FIDE's g/c and f/d files.
    fn castling_targets(_pos: &Position, king: Square, rook: Square) -> (Square, Square) {
        let rank = king.rank();
        if rook.file() > king.file() {
            (Square::from_coords(6, rank), Square::from_coords(5, rank))
        } else {
            (Square::from_coords(2, rank), Square::from_coords(3, rank))
        }
    }

    /// Whether this castling is open by the mechanic's own rules (S4, B3).
    fn may_castle(_pos: &Position, _king: Square, _rook: Square, _targets: (Square, Square)) -> bool {
        true
    }

    /// Pseudo-legal actions on the board itself: square moves, placements, tiles.
    fn square_actions(_pos: &Position, _emit: &mut dyn FnMut(Action)) {}

    /// Walks the legal turns (see [`Position::for_each_turn`]).
    fn for_each_turn(
        pos: &Position,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        pos.walk_turns::<Self>(filter, visit)
    }

    /// Whether the side to move has a legal turn (plain boards aside).
    fn has_legal_moves(pos: &Position) -> bool {
        pos.walk_has_legal_moves::<Self>()
    }

    // Playing.

    /// Makes one action of the side to move, leaving the turn open.
    #[inline]
    fn apply(pos: &mut Position, action: Action, fx: &mut TurnEffects) {
        if action.is_piece_move() {
            pos.apply_piece_action::<Self>(action, fx)
        } else {
            Self::apply_own(pos, action, fx)
        }
    }

    /// Makes an action that is not a piece's own move (placements, square moves, the chip…).
    fn apply_own(_pos: &mut Position, action: Action, _fx: &mut TurnEffects) {
        unreachable!("{action:?} belongs to another board")
    }

    /// A piece of the side to move made a plain move from `from` to `to` (L13, T5).
    #[inline]
    fn stepped(_pos: &mut Position, _role: Role, _from: Square, _to: Square) {}

    /// A piece of the side to move now stands on `sq`; whether that captured a square (L10).
    #[inline]
    fn arrived(_pos: &mut Position, _sq: Square) -> bool {
        false
    }

    /// A piece of the side to move left `sq` by its own move (L12).
    #[inline]
    fn departed(_pos: &mut Position, _sq: Square) {}

    /// After a turn's actions, before the turn closes: what the board does by itself (S1, S6).
    /// Returns where pawns it promoted stand.
    #[inline]
    fn after_actions(
        _pos: &mut Position,
        _before: Bitboard,
        _mv: &Move,
        _fx: &mut TurnEffects,
    ) -> Vec<Square> {
        Vec::new()
    }

    /// Whether the closing turn counts for the move counters (not Blue Chip's opening chip, B1).
    #[inline]
    fn counts_turn(_fx: &TurnEffects) -> bool {
        true
    }

    /// The squares the opponent may not move next turn (L5).
    #[inline]
    fn locks(pos: &Position, fx: &TurnEffects) -> Bitboard {
        fx.touched & pos.squares
    }

    // The position text.

    /// The board's size by the placement text.
    fn board_size(variant: Variant, _placement: &str) -> Result<(u8, u8), PositionError> {
        Ok((variant.rules().width, 8))
    }

    /// Why a board of this size cannot be this variant's; checked for setups made by hand.
    fn why_not_size(variant: Variant, width: u8, height: u8) -> Option<String> {
        let rules = variant.rules();
        ((width, height) != (rules.width, 8))
            .then(|| format!("a {variant} board has {} files and 8 ranks", rules.width))
    }

    /// Reads a placement character that is not a piece or a digit; false if it is not this room's.
    fn read_mark(_setup: &mut Setup, _variant: Variant, _c: char, _sq: Square) -> bool {
        false
    }

    /// Reads a `key:value` field; `None` if the key is not this room's.
    fn read_extension(
        _setup: &mut Setup,
        _variant: Variant,
        _key: &str,
        _value: &str,
    ) -> Option<Result<(), PositionError>> {
        None
    }

    /// Reads the castling field, where the room writes castling its own way.
    fn read_castling(_setup: &Setup, _text: &str) -> Option<Result<Bitboard, PositionError>> {
        None
    }

    /// Writes the castling field, where the room writes castling its own way.
    fn castling_text(_pos: &Position) -> Option<String> {
        None
    }

    /// The mark for a location without a piece; `None` for a plain empty square.
    fn cell_mark(pos: &Position, sq: Square) -> Option<char> {
        (!pos.squares.contains(sq)).then_some('*')
    }

    /// Appends the room's `key:value` fields.
    fn write_extensions(_pos: &Position, _out: &mut String) {}

    /// Checks the room's part of a setup, before a position is made of it.
    fn check_setup(_setup: &Setup, _variant: Variant) -> Result<(), PositionError> {
        Ok(())
    }

    /// Brings a new position's room state into its one canonical form.
    fn settle(_pos: &mut Position) {}

    /// Whether pawns may stand on their own first rank (carried there, L13, or shrunk there, S6).
    fn pawns_on_first_rank(_variant: Variant) -> bool {
        false
    }

    // The picture.

    /// Adds the room's cells and marks to a view the board has filled.
    fn decorate(_pos: &Position, _view: &mut BoardView) {}

    // Notation and refusals.

    /// Whether SAN is written as long algebraic (locations with names read badly disambiguated).
    fn long_notation_only() -> bool {
        false
    }

    /// How the room writes an action of its own, or a castling its own way.
    fn action_text(_pos: &Position, _action: Action) -> Option<String> {
        None
    }

    /// Whether a pawn's move is written with its letter.
    fn pawn_letter(_pos: &Position, _from: Square) -> bool {
        false
    }

    /// Why a piece move cannot be made by this room's rules (the chip, quad-squares).
    fn why_not_piece_move(_pos: &Position, _p: &ParsedPieceMove) -> Option<String> {
        None
    }

    /// What on `sq` stops a line through it, besides a piece.
    fn obstacle(pos: &Position, sq: Square) -> Option<String> {
        (!pos.squares.contains(sq)).then(|| format!("the hole at {sq} is in the way"))
    }

    /// Why a pawn's double step is stopped at its middle, besides a piece.
    fn why_no_double_step(pos: &Position, middle: Square) -> Option<String> {
        (!pos.squares.contains(middle))
            .then(|| format!("a pawn's double step needs a square at {middle} too"))
    }

    /// Why castling on this side cannot be made, where the room decides it; the first check of all.
    fn why_no_castling(_pos: &Position, _long: bool) -> Option<String> {
        None
    }

    /// Why castling on this side is closed by the room's rules before anything else is looked at.
    fn why_castling_blocked(_pos: &Position, _king: Square, _long: bool) -> Option<String> {
        None
    }

    /// Whether the one castling a side has is written either way (O-O and O-O-O alike, Q10).
    fn one_castling() -> bool {
        false
    }

    /// Why this castling is closed by the room's rules, checked before the path is looked at.
    fn why_castling_closed(_pos: &Position, _king: Square, _rook: Square) -> Option<String> {
        None
    }

    /// What is wrong with a turn's shape by this room's turn (the chip's), if the room has its own.
    fn why_turn_shape(_pos: &Position, _actions: &[ParsedAction]) -> Option<String> {
        None
    }

    /// What is wrong with a readable, otherwise legal turn's extras (shrink promotions).
    fn why_extras(
        _pos: &Position,
        _parsed: &crate::notation::ParsedMove,
        _made: &[Action],
    ) -> Option<String> {
        None
    }

    /// Legal turns that fit a text's extras, from those that fit its actions.
    fn keep_named(_pos: &Position, _parsed: &crate::notation::ParsedMove, _found: &mut Vec<Move>) {}

    /// Text after a turn's actions (shrink promotions).
    fn turn_suffix(_pos: &Position, _mv: &Move) -> String {
        String::new()
    }
}

/// Why a parsed action on the board itself cannot be made, by the room whose action it is
/// (whatever the variant: a refusal explains even an action the variant does not have).
pub(crate) fn why_not_action(pos: &Position, parsed: &ParsedAction) -> Option<String> {
    Some(match *parsed {
        ParsedAction::Place { to } => tiles::why_no_place(pos, to),
        ParsedAction::Shift { from, to, .. } => squares::why_no_shift(pos, from, to),
        ParsedAction::DropAnti { to } => tiles::why_no_anti(pos, to),
        ParsedAction::RemoveTile { at } => tiles::why_no_removal(pos, at),
        ParsedAction::Chip { to } => chip::why_no_chip(pos, to),
        ParsedAction::Piece(_) | ParsedAction::Castle { .. } => return None,
    })
}

/// Move text with quad-square names (`M1`) read as their cells; parsing sees no position.
pub(crate) fn location_names_as_cells(text: &str) -> String {
    quad::names_as_cells(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant is one table row of switches, and its board one room: the switches that pick
    /// rooms must not meet in one row, or a room's rules would silently go unasked.
    #[test]
    fn every_variant_lives_in_one_room() {
        for &v in Variant::ALL {
            let r = v.rules();
            let rooms = [r.quad_squares, r.chip, r.tiles, r.shrink, r.square_actions && !r.tiles];
            assert!(rooms.iter().filter(|&&on| on).count() <= 1, "{v} mixes rooms");
            let squares_switches =
                r.owned_squares || r.carry || r.removal_from_turn.is_some() || r.placement_locks;
            if squares_switches {
                assert!(
                    matches!(Room::of(r), Room::Squares | Room::Tiles),
                    "{v}: square switches need squares"
                );
            }
            assert_eq!(crate::Position::start(v).room, Room::of(r), "{v}");
        }
    }
}
