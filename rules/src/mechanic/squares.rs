//! Betza's family (L1–L13): holes between the armies, squares that move and are placed from
//! reserve, owners, locks, squares that carry their piece, and squares removed behind a piece.
//! The Rules switches `owned_squares`, `reserve`, `carry`, `removal_from_turn` and
//! `placement_locks` tune this room; Tiled Squares borrows its owners and placements.

use super::{Mechanic, TurnEffects};
use crate::attacks;
use crate::moves::Action;
use crate::position::Position;
use crate::setup::Setup;
use crate::text::PositionError;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::variant::{Reserve, Variant};
use crate::view::{BoardView, CellKind, Hand};

pub(crate) struct Squares;

/// Placements from hand: on any hole while a square is in hand (L4, L12).
pub(crate) fn placements(pos: &Position, emit: &mut dyn FnMut(Action)) {
    let in_hand = match pos.rules().reserve {
        Reserve::None => false,
        Reserve::Finite(_) => pos.reserves[pos.turn.index()] > 0,
        Reserve::Infinite => true,
    };
    if in_hand {
        for to in pos.holes() {
            emit(Action::Place { to });
        }
    }
}

/// A Postal turn of a piece move alone, or a piece move and a placement, as the turn walker
/// would build it (the placement due while a hole exists in Infinite Reserves, L12; the king safe
/// at the end, L9).
fn has_piece_and_placement_turn(pos: &Position) -> bool {
    let mut piece_actions = Vec::with_capacity(48);
    Squares::pseudo_piece_actions(pos, &mut |a| piece_actions.push(a));
    piece_actions.into_iter().any(|action| {
        let mut after = pos.clone();
        let mut fx = TurnEffects::default();
        after.apply(action, &mut fx);
        if !after.placement_due() && !after.king_attacked(after.turn) {
            return true;
        }
        let mut found = false;
        placements(&after, &mut |place| {
            if !found {
                let mut placed = after.clone();
                placed.apply(place, &mut fx.clone());
                found = !placed.king_attacked(placed.turn);
            }
        });
        found
    })
}

impl Mechanic for Squares {
    fn square_actions(pos: &Position, emit: &mut dyn FnMut(Action)) {
        let rules = pos.rules();
        let us = pos.turn;
        let holes = pos.holes();
        let mine = if rules.owned_squares { pos.owners[us.index()] } else { Bitboard::FULL };
        // L5, L6, L10, L11: an empty square, ours where owned, not locked, leaps up to two steps.
        for from in pos.squares & !pos.occupied() & !pos.locked & mine {
            for to in attacks::two_step(from) & holes {
                emit(Action::Shift { from, to, promotion: None });
            }
        }
        // L13: a square under a friendly piece other than the king moves one step, carrying it.
        if rules.carry {
            let last_rank = us.last_rank(pos.height);
            for from in pos.by_color(us) & !pos.by_role(Role::King) & !pos.locked {
                let pawn = pos.pieces(us, Role::Pawn).contains(from);
                for to in attacks::king(from) & holes {
                    if pawn && to.rank() == last_rank {
                        for promo in rules.promotions.roles() {
                            emit(Action::Shift { from, to, promotion: Some(promo) });
                        }
                    } else {
                        emit(Action::Shift { from, to, promotion: None });
                    }
                }
            }
        }
        placements(pos, emit);
    }

    /// Almost every position has a turn of a piece move and at most a placement: one is looked
    /// for without listing the square moves (tens of them at every step), and only where there is
    /// none does the whole turn tree get walked. What the quick look finds is a turn the walk would
    /// visit, so the answer is the same.
    fn has_legal_moves(pos: &Position) -> bool {
        (pos.rules().turn.is_postal() && has_piece_and_placement_turn(pos))
            || pos.walk_has_legal_moves::<Self>()
    }

    #[inline]
    fn apply_own(pos: &mut Position, action: Action, fx: &mut TurnEffects) {
        match action {
            Action::Place { to } => place(pos, to, fx),
            Action::Shift { from, to, promotion } => {
                let both = from.bb() | to.bb();
                pos.squares ^= both;
                for owned in &mut pos.owners {
                    if owned.contains(from) {
                        *owned ^= both;
                    }
                }
                if let Some(piece) = pos.take(from) {
                    pos.put(to, Piece::new(piece.color, promotion.unwrap_or(piece.role)));
                    pos.castling &= !from.bb();
                    // L13: a carried pawn has moved.
                    let was_pawn = piece.role == Role::Pawn && promotion.is_none();
                    pos.carried =
                        (pos.carried & !from.bb()) | if was_pawn { to.bb() } else { Bitboard::EMPTY };
                }
                fx.touched |= to.bb();
            }
            _ => unreachable!("{action:?} is not a square action"),
        }
    }

    #[inline]
    fn stepped(pos: &mut Position, _role: Role, from: Square, to: Square) {
        pos.carried &= !from.bb() & !to.bb();
    }

    #[inline]
    fn arrived(pos: &mut Position, sq: Square) -> bool {
        occupy(pos, sq)
    }

    #[inline]
    fn departed(pos: &mut Position, sq: Square) {
        // L12: from the fourth turn on, the square a moving piece leaves is removed.
        if pos.rules().removal_from_turn.is_some_and(|n| pos.fullmoves >= n) {
            remove_square(pos, sq);
        }
    }

    fn read_mark(setup: &mut Setup, variant: Variant, c: char, sq: Square) -> bool {
        match c {
            // A hole: no square here.
            '*' => true,
            '+' | '-' if variant.rules().owned_squares => {
                setup.squares |= sq.bb();
                let owner = if c == '+' { Color::White } else { Color::Black };
                setup.owners[owner.index()] |= sq.bb();
                true
            }
            _ => false,
        }
    }

    /// `hand:W/B` squares in reserve, `lock:e4,f5` locked squares, `carried:c2` carried pawns.
    fn read_extension(
        setup: &mut Setup,
        variant: Variant,
        key: &str,
        value: &str,
    ) -> Option<Result<(), PositionError>> {
        let rules = variant.rules();
        Some(match key {
            "hand" if matches!(rules.reserve, Reserve::Finite(_)) => {
                let parsed =
                    value.split_once('/').and_then(|(w, b)| Some([w.parse().ok()?, b.parse().ok()?]));
                match parsed {
                    Some(hand) => {
                        setup.reserves = Some(hand);
                        Ok(())
                    }
                    None => Err(PositionError(format!(
                        "hand:{value} should give White's and Black's squares in reserve, e.g. hand:3/2"
                    ))),
                }
            }
            "lock" => parse_squares(value, key).map(|bb| setup.locked = bb),
            "carried" if rules.carry => parse_squares(value, key).map(|bb| setup.carried = bb),
            _ => return None,
        })
    }

    fn check_setup(setup: &Setup, variant: Variant) -> Result<(), PositionError> {
        let rules = variant.rules();
        if let Reserve::Finite(n) = rules.reserve {
            let Some(reserves) = setup.reserves else {
                return err(format!("a {variant} position gives the squares in reserve, e.g. hand:{n}/{n}"));
            };
            if reserves.iter().any(|&r| r > n) {
                return err(format!("nobody has more than {n} squares in reserve in {variant}"));
            }
        }
        if (setup.locked & !setup.squares).any() {
            return err("a locked location must hold a square");
        }
        // L5: one turn moves at most one square, and places at most one.
        let most_locked = if rules.placement_locks { 2 } else { 1 };
        if setup.locked.count() > most_locked {
            return err(if most_locked == 1 {
                format!("lock: names one square in {variant}: the square the opponent moved last turn")
            } else {
                format!("lock: names at most two squares in {variant}: those the opponent placed and moved")
            });
        }
        if (setup.carried & !setup.by_role[Role::Pawn.index()]).any() {
            return err("only pawns are marked as carried");
        }
        Ok(())
    }

    fn settle(pos: &mut Position) {
        if pos.rules().owned_squares {
            // An occupied square is its occupant's (L10).
            for color in Color::ALL {
                pos.owners[color.index()] |= pos.by_color(color);
            }
        }
    }

    fn cell_mark(pos: &Position, sq: Square) -> Option<char> {
        if !pos.squares.contains(sq) {
            return Some('*');
        }
        match pos.owner(sq) {
            Some(Color::White) => Some('+'),
            Some(Color::Black) => Some('-'),
            None => None,
        }
    }

    fn write_extensions(pos: &Position, out: &mut String) {
        if let Reserve::Finite(_) = pos.rules().reserve {
            out.push_str(&format!(" hand:{}/{}", pos.reserves[0], pos.reserves[1]));
        }
        for (key, squares) in [("lock", pos.locked), ("carried", pos.carried)] {
            if squares.any() {
                let names: Vec<String> = squares.into_iter().map(|sq| sq.to_string()).collect();
                out.push_str(&format!(" {key}:{}", names.join(",")));
            }
        }
    }

    fn pawns_on_first_rank(variant: Variant) -> bool {
        // A pawn reaches its own first rank only by being carried (L13).
        variant.rules().carry
    }

    fn decorate(pos: &Position, view: &mut BoardView) {
        for (i, cell) in view.cells.iter_mut().enumerate() {
            if cell.kind == CellKind::Square {
                let sq = Square::from_coords(i as u8 % view.files, i as u8 / view.files);
                cell.owner = pos.owner(sq);
            }
        }
        let hand = |c: Color| match pos.rules().reserve {
            Reserve::Infinite => Hand::Unlimited,
            _ => Hand::Count(pos.reserve(c).unwrap_or(0)),
        };
        view.hands = (pos.rules().reserve != Reserve::None).then(|| [hand(Color::White), hand(Color::Black)]);
        view.locked = pos.locked.into_iter().map(|sq| (sq.file(), sq.rank())).collect();
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, PositionError> {
    Err(PositionError(msg.into()))
}

fn parse_squares(value: &str, key: &str) -> Result<Bitboard, PositionError> {
    let mut bb = Bitboard::EMPTY;
    for name in value.split(',') {
        let sq =
            Square::parse(name).ok_or_else(|| PositionError(format!("{key}: \"{name}\" is not a square")))?;
        bb |= sq.bb();
    }
    Ok(bb)
}

/// A square (or tile) from reserve placed at `to` (L4, T2).
#[inline]
pub(super) fn place(pos: &mut Position, to: Square, fx: &mut TurnEffects) {
    let rules = pos.rules();
    let us = pos.turn;
    pos.squares |= to.bb();
    if rules.owned_squares {
        pos.owners[us.index()] |= to.bb();
    }
    if let Reserve::Finite(_) = rules.reserve {
        pos.reserves[us.index()] = pos.reserves[us.index()].saturating_sub(1);
    }
    fx.reset_clock |= rules.placement_resets_clock;
    if rules.placement_locks {
        fx.touched |= to.bb();
    }
}

/// Gives the square at `sq` to the side to move, where squares are owned (L10).
/// Returns whether that captured an enemy square.
#[inline]
pub(super) fn occupy(pos: &mut Position, sq: Square) -> bool {
    if !pos.rules().owned_squares {
        return false;
    }
    let (us, them) = (pos.turn.index(), pos.turn.other().index());
    let captured = pos.owners[them].contains(sq);
    pos.owners[them] &= !sq.bb();
    pos.owners[us] |= sq.bb();
    captured
}

#[inline]
pub(super) fn remove_square(pos: &mut Position, sq: Square) {
    pos.squares &= !sq.bb();
    pos.owners[0] &= !sq.bb();
    pos.owners[1] &= !sq.bb();
}

/// Why a square cannot be placed at `to` (L4).
pub(super) fn why_no_place(pos: &Position, to: Square) -> String {
    if !pos.board_mask().contains(to) {
        format!("{to} is off the board")
    } else if pos.squares().contains(to) {
        format!("there is already a {} at {to}", pos.square_word())
    } else if pos.reserve(pos.turn) == Some(0) {
        "you have no squares left in reserve".into()
    } else {
        format!("you cannot place a square at {to} now{}", crate::notation::legal_examples(pos))
    }
}

/// Why the square at `from` cannot move to `to` (L5, L6, L10, L13).
pub(super) fn why_no_shift(pos: &Position, from: Square, to: Square) -> String {
    let us = pos.turn();
    let rules = pos.rules();
    if !pos.squares().contains(from) {
        return format!("there is no square at {from} to move");
    }
    if let Some(piece) = pos.piece_at(from) {
        if !rules.carry {
            return format!("only empty squares move, and a {} stands on {from}", piece.role.name());
        }
        if piece.color != us {
            return format!(
                "only squares under your own pieces move with them, and {from} holds a {} piece",
                piece.color
            );
        }
        if piece.role == Role::King {
            return "the king's square never moves".into();
        }
        if from.distance(to) != 1 {
            return "a square with a piece on it moves one step".into();
        }
    }
    if pos.locked().contains(from) {
        let how = if rules.placement_locks { "placed or moved" } else { "moved" };
        return format!("your opponent just {how} the square at {from}; it cannot move this turn");
    }
    if rules.owned_squares && pos.piece_at(from).is_none() && pos.owner(from) != Some(us) {
        return format!("the square at {from} is {}'s; you move only your own squares", us.other());
    }
    if !pos.board_mask().contains(to) {
        return format!("{to} is off the board");
    }
    if pos.squares().contains(to) {
        return format!("there is already a square at {to}");
    }
    if from.distance(to) > 2 {
        return "a square moves at most two steps in any direction".into();
    }
    format!("the square at {from} cannot move to {to} now{}", crate::notation::legal_examples(pos))
}

impl Position {
    /// Squares in hand; `None` where the supply is unlimited or there is none.
    pub fn reserve(&self, color: Color) -> Option<u8> {
        match self.rules().reserve {
            Reserve::Finite(_) => Some(self.reserves[color.index()]),
            Reserve::None | Reserve::Infinite => None,
        }
    }

    /// Who owns the square at `sq`, where squares are owned.
    pub fn owner(&self, sq: Square) -> Option<Color> {
        Color::ALL.into_iter().find(|c| self.owners[c.index()].contains(sq))
    }

    pub fn owned_by(&self, color: Color) -> Bitboard {
        self.owners[color.index()]
    }

    /// Squares the side to move may not move this turn.
    pub fn locked(&self) -> Bitboard {
        self.locked
    }

    /// Pawns that were carried by their square (and may not double-step).
    pub fn carried_pawns(&self) -> Bitboard {
        self.carried
    }
}

#[cfg(test)]
mod quick_turn_tests {
    use crate::position::Position;
    use crate::variant::Variant;

    /// The quick look for a piece move and a placement never changes whether a turn exists: along
    /// random games, and in positions where the side to move has few or no turns.
    #[test]
    fn a_legal_turn_exists_exactly_when_the_list_of_turns_is_not_empty() {
        let postal = Variant::ALL.iter().filter(|v| v.rules().turn.is_postal());
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checked = 0;
        for &variant in postal {
            for game in 0..16 {
                let mut at = Position::start(variant);
                for _ in 0..60 + game * 10 {
                    let moves = at.legal_moves();
                    assert_eq!(at.has_legal_moves(), !moves.is_empty(), "{variant} {}", at.fen());
                    checked += 1;
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    at = at.played(&moves[seed as usize % moves.len()]);
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}

#[cfg(test)]
mod carried_tests {
    use crate::notation::parse_move;
    use crate::position::Position;
    use crate::variant::Variant;

    /// A carried pawn (L13) that takes en passant leaves its mark behind like any other move:
    /// the position after it writes and reads back.
    #[test]
    fn a_carried_pawn_taking_en_passant_takes_its_mark_along() {
        let v = Variant::MOVING_OCCUPIED_SQUARES;
        let pos = Position::from_fen(v, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2 carried:e5").unwrap();
        let mv = parse_move(&pos, "e5xd6").unwrap();
        let after = pos.played(&mv);
        assert!(!after.fen().contains("carried"), "{}", after.fen());
        assert_eq!(Position::from_fen(v, &after.fen()).unwrap(), after);
    }
}
