//! A position as read, before any rule is checked, and the one step that checks it.
//!
//! As shakmaty's `Setup` → `Position`: the text reader (and anyone else building a position) fills a
//! [`Setup`], a plain struct without invariants, and [`Position::from_setup`] is the only place a
//! [`Position`] is made of outside data. Everything past it can be trusted.

use crate::mechanic::{Mechanic, Room, dispatch};
use crate::position::{CachedRules, Position};
use crate::text::PositionError;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::variant::Variant;

/// Every field of a position, unchecked. Fields a variant does not use stay empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Board width and height in locations.
    pub width: u8,
    pub height: u8,
    pub by_role: [Bitboard; 6],
    pub by_color: [Bitboard; 2],
    /// Locations that hold a square (or tile).
    pub squares: Bitboard,
    pub turn: Color,
    /// Rooks (in Quad-Square Chess, castling quads) that keep the right to castle.
    pub castling: Bitboard,
    pub ep: Option<Square>,
    pub halfmoves: u32,
    pub fullmoves: u32,
    /// Owned squares (L10), White's then Black's.
    pub owners: [Bitboard; 2],
    /// Squares in hand, White's then Black's, where given.
    pub reserves: Option<[u8; 2]>,
    pub locked: Bitboard,
    pub carried: Bitboard,
    pub chip: Option<Square>,
    pub anti: Bitboard,
}

impl Setup {
    /// An empty board of this size: no pieces, no squares, White to move on turn 1.
    pub fn empty(width: u8, height: u8) -> Setup {
        Setup {
            width,
            height,
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            squares: Bitboard::EMPTY,
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            owners: [Bitboard::EMPTY; 2],
            reserves: None,
            locked: Bitboard::EMPTY,
            carried: Bitboard::EMPTY,
            chip: None,
            anti: Bitboard::EMPTY,
        }
    }

    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] |= sq.bb();
        self.by_role[piece.role.index()] |= sq.bb();
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = Color::ALL.into_iter().find(|c| self.by_color[c.index()].contains(sq))?;
        let role = Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq))?;
        Some(Piece { color, role })
    }

    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, PositionError> {
    Err(PositionError(msg.into()))
}

impl Position {
    /// Checks a setup against `variant`'s rules and makes it a position: the only way outside data
    /// becomes a [`Position`].
    pub fn from_setup(variant: Variant, setup: Setup) -> Result<Position, PositionError> {
        let room = Room::of_variant(variant);
        if let Some(reason) = dispatch!(room, M => M::why_not_size(variant, setup.width, setup.height)) {
            return err(reason);
        }
        check_board(&setup)?;
        dispatch!(room, M => M::check_setup(&setup, variant))?;
        if setup.fullmoves == 0 {
            return err("the fullmove number starts at 1");
        }
        let mut pos = Position {
            variant,
            rules: CachedRules(variant.rules()),
            room,
            by_role: setup.by_role,
            by_color: setup.by_color,
            squares: setup.squares,
            width: setup.width,
            height: setup.height,
            turn: setup.turn,
            castling: setup.castling,
            ep: setup.ep,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves,
            owners: setup.owners,
            reserves: setup.reserves.unwrap_or([0; 2]),
            locked: setup.locked,
            carried: setup.carried,
            chip: setup.chip,
            anti: setup.anti,
        };
        dispatch!(room, M => M::settle(&mut pos));
        validate(&pos)?;
        Ok(pos)
    }
}

/// What every board needs whatever its room: pieces each on one square of it. The text reader
/// cannot write anything else; a setup built by hand can.
fn check_board(setup: &Setup) -> Result<(), PositionError> {
    let board = Bitboard::rect(setup.width, setup.height);
    let [white, black] = setup.by_color;
    let roles = setup.by_role.iter().fold(Bitboard::EMPTY, |all, &r| all | r);
    let roles_overlap = setup.by_role.iter().map(|r| r.count()).sum::<u32>() != roles.count();
    if (white & black).any() || roles_overlap || roles != (white | black) {
        return err("every piece stands on its own square and has one colour and one kind");
    }
    if ((white | black | setup.squares | setup.anti) & !board).any() {
        return err("everything stands on the board");
    }
    if ((white | black) & !setup.squares).any() {
        return err("every piece stands on a square");
    }
    Ok(())
}

fn validate(pos: &Position) -> Result<(), PositionError> {
    for color in Color::ALL {
        let kings = pos.pieces(color, Role::King).count();
        if kings != 1 {
            return err(format!("{color} must have exactly one king, found {kings}"));
        }
    }
    let first_rank_pawns = dispatch!(pos.room, M => M::pawns_on_first_rank(pos.variant));
    for color in Color::ALL {
        let pawns = pos.pieces(color, Role::Pawn);
        let last = Bitboard::rank(color.last_rank(pos.height));
        let first =
            if first_rank_pawns { Bitboard::EMPTY } else { Bitboard::rank(color.first_rank(pos.height)) };
        if let Some(sq) = (pawns & (last | first)).into_iter().next() {
            let ranks = if first_rank_pawns { "their last rank" } else { "their first or last rank" };
            return err(format!(
                "pawns cannot stand on {ranks}, and the {color} pawn on {sq} does: move it or promote it"
            ));
        }
    }
    let rules = pos.rules();
    if !rules.castling && pos.castling.any() {
        return err(format!("{} has no castling: the castling field is '-'", pos.variant));
    }
    if !rules.double_step && pos.ep.is_some() {
        return err(format!(
            "pawns never step two squares in {}, so there is no en passant square: write '-'",
            pos.variant
        ));
    }
    let them = pos.turn.other();
    if pos.king_attacked(them) {
        return err(format!("{them} is in check but it is not {them}'s turn"));
    }
    if let Some(ep) = pos.ep {
        let us = pos.turn;
        let pushed = ep.offset(0, -us.forward());
        let origin = ep.offset(0, us.forward());
        let plausible = ep.rank() == them.first_rank(pos.height).abs_diff(2)
            && !pos.occupied().contains(ep)
            && pushed.is_some_and(|sq| pos.pieces(them, Role::Pawn).contains(sq))
            && origin.is_some_and(|sq| !pos.occupied().contains(sq));
        if !plausible {
            return err(format!("en passant square {ep} does not follow a double step by {them}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::read_setup;

    #[test]
    fn text_goes_through_the_setup() {
        for &v in Variant::ALL {
            let setup = read_setup(v, v.start_fen()).unwrap();
            let pos = Position::from_setup(v, setup).unwrap();
            assert_eq!(pos, Position::start(v), "{v}");
            assert_eq!(pos.fen(), v.start_fen(), "{v}");
        }
    }

    #[test]
    fn a_setup_built_by_hand_is_checked_like_text() {
        let sq = |s| Square::parse(s).unwrap();
        let mut setup = Setup::empty(8, 8);
        setup.squares = Bitboard::FULL;
        setup.put(sq("e1"), Piece::new(Color::White, Role::King));
        setup.put(sq("e8"), Piece::new(Color::Black, Role::King));
        let pos = Position::from_setup(Variant::CHESS, setup.clone()).unwrap();
        assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");

        let mut two_on_one = setup.clone();
        two_on_one.put(sq("e1"), Piece::new(Color::Black, Role::Queen));
        assert!(Position::from_setup(Variant::CHESS, two_on_one).is_err());

        let mut off_board = setup.clone();
        off_board.width = 7;
        off_board.put(sq("h4"), Piece::new(Color::White, Role::Rook));
        let e = Position::from_setup(Variant::QUAD_SQUARE, off_board).unwrap_err();
        assert!(e.to_string().contains("on the board"), "{e}");
        let e = Position::from_setup(Variant::QUAD_SQUARE, setup.clone()).unwrap_err();
        assert!(e.to_string().contains("7 files"), "{e}");

        let mut no_hand = setup;
        no_hand.squares = Bitboard::rank(0) | Bitboard::rank(7);
        let e = Position::from_setup(Variant::HANS38, no_hand).unwrap_err();
        assert!(e.to_string().contains("hand:3/3"), "{e}");
    }
}
