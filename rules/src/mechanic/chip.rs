//! Blue Chip Chess (Neal Turner, B1–B4): after each move the mover places the chip on an empty
//! square, which the opponent may not move onto next turn. Black opens by placing it alone.

use super::{Mechanic, Room, TurnEffects};
use crate::moves::{Action, Move};
use crate::notation::{ParsedAction, ParsedPieceMove};
use crate::position::Position;
use crate::setup::Setup;
use crate::text::PositionError;
use crate::types::{Bitboard, Square};
use crate::variant::Variant;
use crate::view::BoardView;

pub(crate) struct Chip;

impl Mechanic for Chip {
    /// B3: the chip's square is closed to the side to move (it is always empty).
    #[inline]
    fn closed(pos: &Position) -> Bitboard {
        pos.chip.map_or(Bitboard::EMPTY, |c| c.bb())
    }

    /// B3: castling is closed only when the chip stands where the king or rook lands.
    fn may_castle(
        pos: &Position,
        _king: Square,
        _rook: Square,
        (king_to, rook_to): (Square, Square),
    ) -> bool {
        !pos.chip.is_some_and(|c| c == king_to || c == rook_to)
    }

    /// [`Chip::for_each_turn`] without a filter to ask or a visitor to call for each of the many
    /// chip squares: the turns perft and the move list need, in the same order.
    fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
        let Some(chip) = pos.chip else {
            return pos.walk_legal_moves_into::<Chip>(out);
        };
        let mut piece_moves = Vec::new();
        Chip::piece_moves(pos, &mut piece_moves);
        for mv in piece_moves {
            let mut after = pos.clone();
            after.apply_action(mv.first());
            out.extend(chip_squares(&after, chip).into_iter().map(|to| mv.then(Action::Chip { to })));
        }
    }

    /// The chip alone at the start (B1), then a piece move and the chip (B2).
    fn for_each_turn(
        pos: &Position,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let Some(chip) = pos.chip else {
            for to in pos.squares & !pos.occupied() {
                let action = Action::Chip { to };
                if filter(0, pos, action) && !visit(Move::single(action)) {
                    return false;
                }
            }
            return true;
        };
        let mut piece_moves = Vec::new();
        Chip::piece_moves(pos, &mut piece_moves);
        for mv in piece_moves {
            let action = mv.first();
            if !filter(0, pos, action) {
                continue;
            }
            let mut after = pos.clone();
            after.apply_action(action);
            for to in chip_squares(&after, chip) {
                let place = Action::Chip { to };
                if filter(1, &after, place) && !visit(mv.then(place)) {
                    return false;
                }
            }
        }
        true
    }

    /// A chip placement is always possible: what counts is a legal piece move (B4).
    fn has_legal_moves(pos: &Position) -> bool {
        if pos.chip.is_none() {
            return pos.walk_has_legal_moves::<Chip>();
        }
        let mut moves = Vec::new();
        Chip::piece_moves(pos, &mut moves);
        !moves.is_empty()
    }

    #[inline]
    fn apply_own(pos: &mut Position, action: Action, _fx: &mut TurnEffects) {
        match action {
            Action::Chip { to } => pos.chip = Some(to),
            _ => unreachable!("{action:?} is not the chip's"),
        }
    }

    /// Black's opening chip placement (B1) comes before White's first move: no move is counted.
    #[inline]
    fn counts_turn(fx: &TurnEffects) -> bool {
        fx.piece_moved
    }

    fn read_extension(
        setup: &mut Setup,
        _variant: Variant,
        key: &str,
        value: &str,
    ) -> Option<Result<(), PositionError>> {
        if key != "chip" {
            return None;
        }
        Some(match Square::parse(value) {
            Some(sq) => {
                setup.chip = Some(sq);
                Ok(())
            }
            None => Err(PositionError(format!("chip:{value} should name a square, like chip:e5"))),
        })
    }

    fn check_setup(setup: &Setup, _variant: Variant) -> Result<(), PositionError> {
        match setup.chip {
            Some(sq) if setup.occupied().contains(sq) => {
                Err(PositionError(format!("the chip stands on an empty square, and {sq} is occupied")))
            }
            _ => Ok(()),
        }
    }

    fn write_extensions(pos: &Position, out: &mut String) {
        if let Some(chip) = pos.chip {
            out.push_str(&format!(" chip:{chip}"));
        }
    }

    fn decorate(pos: &Position, view: &mut BoardView) {
        view.chip = pos.chip.map(|sq| (sq.file(), sq.rank()));
    }

    fn why_not_piece_move(pos: &Position, p: &ParsedPieceMove) -> Option<String> {
        (pos.chip == Some(p.to)).then(|| format!("the chip on {} closes that square to you this turn", p.to))
    }

    fn why_castling_blocked(pos: &Position, king: Square, long: bool) -> Option<String> {
        let blocks = pos.chip.is_some_and(|c| {
            pos.castling_rooks().into_iter().filter(|r| (r.file() < king.file()) == long).any(|r| {
                let (king_to, rook_to) = pos.castling_targets(king, r);
                c == king_to || c == rook_to
            })
        });
        blocks.then(|| "you cannot castle while the chip stands where your king or rook would land".into())
    }

    /// B1, B2: the chip alone on the first turn, then a piece move and the chip.
    fn why_turn_shape(pos: &Position, actions: &[ParsedAction]) -> Option<String> {
        let chips = actions.iter().filter(|a| matches!(a, ParsedAction::Chip { .. })).count();
        let pieces = actions.len() - chips;
        if pos.chip.is_none() {
            (actions.len() != 1 || chips != 1)
                .then(|| "the first turn only places the chip, written like [e5]".to_string())
        } else if pieces == 1 && chips == 0 {
            Some("after your move, place the chip: write it like e2-e4[d5]".into())
        } else if pieces != 1 || chips != 1 || !actions[0].is_piece_move() {
            Some("a turn is one piece move and then the chip, written like e2-e4[d5]".into())
        } else {
            None
        }
    }
}

/// Where the chip may go after a piece move (B2): any empty square but its own; the one just
/// vacated is allowed.
#[inline]
fn chip_squares(after: &Position, chip: Square) -> Bitboard {
    after.squares & !after.occupied() & !chip.bb()
}

/// Why the chip cannot go to `to` (B2).
pub(super) fn why_no_chip(pos: &Position, to: Square) -> String {
    if pos.occupied().contains(to) {
        format!("the chip goes on an empty square, and {to} is occupied")
    } else if pos.chip == Some(to) {
        format!("the chip must leave {to} for another square")
    } else {
        format!("the chip cannot go to {to}{}", crate::notation::legal_examples(pos))
    }
}

impl Position {
    /// Whether the board has Blue Chip's chip, placed yet or not.
    pub fn has_chip(&self) -> bool {
        self.room == Room::Chip
    }

    /// Blue Chip: the square closed to the side to move, once the chip is on the board.
    pub fn chip(&self) -> Option<Square> {
        self.chip
    }
}
