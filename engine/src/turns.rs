//! Which turns the search looks at.
//!
//! One-action variants give every legal turn. Compound turns (the Postal family, Infinite
//! Reserves, Moving Occupied Squares, the chip) multiply a piece move by the square actions after
//! it: tens of thousands of turns in a Moving Occupied Squares middlegame. The search keeps every
//! first action (every piece move) and, after it, only square actions at locations that matter:
//! - next to either king (flight squares made or taken away),
//! - between a king and an enemy slider aimed at it (a hole blocks a line, a square opens it),
//! - the location the piece just left and those around where it landed,
//! - the centre, where a square most widens the pieces' reach.
//!
//! The locations are ranked once per position, and the widest choice is kept for the root.
//! `docs/opponent.md` measures what the pruning costs.

use tessera_rules::variant::TurnRule;
use tessera_rules::{Action, Bitboard, Color, Move, Position, Role, Square, attacks};

/// How widely square actions are looked at after a turn's first action.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// Every legal turn.
    All,
    /// Square actions at the `first` best-ranked locations (and where the piece moved) as the
    /// turn's second action, at the `second` best as its third.
    Pruned { first: usize, second: usize },
}

impl Width {
    pub const ROOT: Width = Width::Pruned { first: 10, second: 4 };
    pub const INNER: Width = Width::Pruned { first: 5, second: 2 };
}

/// Whether a variant's turns are compound (and so are pruned).
pub(crate) fn compound(pos: &Position) -> bool {
    pos.rules().turn != TurnRule::Single
}

/// The turns to search, appended to `out` (cleared first).
pub(crate) fn candidates(pos: &Position, width: Width, out: &mut Vec<Move>) {
    out.clear();
    let Width::Pruned { first, second } = width else {
        pos.legal_moves_into(out);
        return;
    };
    if !compound(pos) {
        pos.legal_moves_into(out);
        return;
    }
    let ranked = ranked_locations(pos);
    let wide: Bitboard = ranked.iter().take(first).fold(Bitboard::EMPTY, |b, sq| b.with(*sq));
    let narrow: Bitboard = ranked.iter().take(second).fold(Bitboard::EMPTY, |b, sq| b.with(*sq));
    let mut near_first = Bitboard::EMPTY;
    pos.for_each_legal_turn(
        &mut |step, _, action| {
            if step == 0 {
                near_first = touched(action);
                return true;
            }
            let allowed = if step == 1 { wide | near_first } else { narrow | near_first };
            match action {
                Action::Place { to } | Action::Chip { to } | Action::DropAnti { to } => allowed.contains(to),
                Action::Shift { from, to, .. } => allowed.contains(from) || allowed.contains(to),
                _ => true,
            }
        },
        &mut |mv| {
            out.push(mv);
            true
        },
    );
}

/// Turns that capture, for the quiescence search; in compound variants each capture once, with
/// the shortest completion the rules allow (no square move; a placement only where one is owed).
pub(crate) fn captures(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    if !compound(pos) {
        pos.legal_moves_into(out);
        out.retain(is_capture);
        return;
    }
    let mut last_first: Option<Action> = None;
    pos.for_each_legal_turn(
        &mut |step, _, action| {
            if step == 0 {
                return action.is_capture();
            }
            !matches!(action, Action::Shift { .. })
        },
        &mut |mv| {
            if last_first != Some(mv.first()) {
                last_first = Some(mv.first());
                out.push(mv);
            }
            true
        },
    );
}

pub(crate) fn is_capture(mv: &Move) -> bool {
    mv.actions().any(|a| a.is_capture())
}

/// The role a turn captures, if any (the most valuable, should a turn take twice).
pub(crate) fn victim(pos: &Position, mv: &Move) -> Option<Role> {
    mv.actions()
        .filter_map(|a| match a {
            Action::Normal { capture, .. } => capture,
            Action::EnPassant { .. } => Some(Role::Pawn),
            Action::Sacrifice { victim, .. } => Some(victim),
            _ => None,
        })
        .max_by_key(|r| crate::eval::value(pos, *r))
}

/// Locations an action starts from or lands on, and those next to where it lands.
fn touched(action: Action) -> Bitboard {
    match action {
        Action::Normal { from, to, .. } | Action::EnPassant { from, to } | Action::Shift { from, to, .. } => {
            from.bb() | to.bb() | attacks::king(to)
        }
        Action::Castle { king, rook } => king.bb() | rook.bb(),
        Action::Sacrifice { from, to, .. } => from.bb() | to.bb(),
        Action::Place { to } | Action::Chip { to } | Action::DropAnti { to } => to.bb(),
        Action::RemoveTile { at } => at.bb(),
    }
}

/// The board's locations, most telling first, for square actions.
fn ranked_locations(pos: &Position) -> Vec<Square> {
    let mask = pos.board_mask();
    let mut weight = [0i32; 64];
    let mut add = |squares: Bitboard, w: i32| {
        for sq in squares & mask {
            weight[sq.index()] += w;
        }
    };
    let blockers = pos.occupied() | pos.walls();
    for color in Color::ALL {
        let Some(king) = pos.king(color) else { continue };
        // The enemy king's flight squares weigh most: taking them away is how these games mate.
        let w = if color == pos.turn() { 4 } else { 6 };
        add(attacks::king(king), w);
        for ring in attacks::king(king) {
            add(attacks::king(ring), 1);
        }
        // Lines between this king and an enemy slider aimed at it, whatever stands between.
        let them = pos.by_color(color.other());
        let straight = them & (pos.by_role(Role::Rook) | pos.by_role(Role::Queen));
        let diagonal = them & (pos.by_role(Role::Bishop) | pos.by_role(Role::Queen));
        for slider in (attacks::rook(king, Bitboard::EMPTY) & straight)
            | (attacks::bishop(king, Bitboard::EMPTY) & diagonal)
        {
            let line = attacks::between(king, slider);
            // Only lines one or two obstacles away from opening matter now.
            if (line & blockers).count() <= 2 {
                add(line, 5);
            }
        }
    }
    let (width, height) = pos.size();
    let centre = |sq: Square| {
        let df = (2 * i32::from(sq.file()) - i32::from(width) + 1).abs();
        let dr = (2 * i32::from(sq.rank()) - i32::from(height) + 1).abs();
        -(df + dr)
    };
    let mut ranked: Vec<Square> = mask.into_iter().collect();
    ranked.sort_by_key(|sq| (-weight[sq.index()], -centre(*sq)));
    ranked
}
