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

use tessera_rules::variant::{Reserve, TurnRule};
use tessera_rules::{Action, Bitboard, Color, Move, Position, Role, Square, attacks};

/// How widely square actions are looked at after a turn's first action.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// Every legal turn.
    All,
    /// Square actions at the `first` best-ranked locations (and where the first action started
    /// and ended, with the ring around its end if `ring`) as the turn's second action, at the
    /// `second` best as its third.
    Pruned { first: usize, second: usize, ring: bool },
}

impl Width {
    pub const ROOT: Width = Width::Pruned { first: 10, second: 4, ring: true };
    pub const INNER: Width = Width::Pruned { first: 4, second: 1, ring: false };
}

/// Whether a variant's turns are compound (a piece move and square actions, or the chip).
pub(crate) fn compound(pos: &Position) -> bool {
    pos.rules().turn != TurnRule::Single
}

/// Whether the search prunes a variant's compound turns: where they run into the thousands, with
/// squares in endless supply (Infinite Reserves, Moving Occupied Squares) or the chip free to go
/// on any empty square. The Hans38 Postal family has a few hundred turns at most (three squares in
/// hand): there every turn is searched, since pruning was measured to cost games there
/// (`docs/opponent.md`).
pub fn prunes(variant: tessera_rules::Variant) -> bool {
    let rules = variant.rules();
    rules.turn != TurnRule::Single && (rules.reserve == Reserve::Infinite || rules.chip)
}

/// The turns to search, appended to `out` (cleared first).
pub(crate) fn candidates(pos: &Position, width: Width, out: &mut Vec<Move>) {
    out.clear();
    let Width::Pruned { first, second, ring } = width else {
        pos.legal_moves_into(out);
        return;
    };
    if !prunes(pos.variant()) {
        pos.legal_moves_into(out);
        return;
    }
    let ranked = ranked_locations(pos);
    let wide: Bitboard = ranked.iter().take(first).fold(Bitboard::EMPTY, |b, sq| b.with(*sq));
    let narrow: Bitboard = ranked.iter().take(second).fold(Bitboard::EMPTY, |b, sq| b.with(*sq));
    let mut near_first = Bitboard::EMPTY;
    pos.for_each_turn(
        &mut |step, _, action| {
            if step == 0 {
                near_first = touched(action, ring);
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
        out.retain(Move::is_capture);
        return;
    }
    let mut last_first: Option<Action> = None;
    pos.for_each_turn(
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

/// What a capture wins once every piece bearing on its square has taken there in turn, the
/// cheapest first and either side free to stop (a static exchange): a queen taking a pawn a pawn
/// defends loses 800. `None` where it cannot be told this way: a turn of more than one action, or
/// the quad board, whose pieces do not attack along lines.
pub(crate) fn exchange(pos: &Position, mv: &Move) -> Option<i32> {
    use crate::eval::{exchange_value, value};
    if mv.len() != 1 || pos.has_named_locations() {
        return None;
    }
    let Action::Normal { role, from, to, capture: Some(victim), promotion: None } = mv.first() else {
        return None;
    };
    let mut blockers = (pos.occupied() | pos.walls()) & !from.bb();
    let mut gains = [0i32; 34];
    gains[0] = value(pos, victim);
    let mut standing = exchange_value(pos, role);
    let mut side = pos.turn().other();
    let mut depth = 0;
    loop {
        let attackers = pos.attackers(to, side, blockers) & blockers;
        let Some((sq, r)) = Role::ALL
            .into_iter()
            .find_map(|r| (attackers & pos.pieces(side, r)).into_iter().next().map(|sq| (sq, r)))
        else {
            break;
        };
        depth += 1;
        gains[depth] = standing - gains[depth - 1];
        // Neither side would go on from here: the rest cannot change the sign.
        if (-gains[depth - 1]).max(gains[depth]) < 0 || depth == gains.len() - 1 {
            break;
        }
        blockers &= !sq.bb();
        standing = exchange_value(pos, r);
        side = side.other();
    }
    while depth > 0 {
        gains[depth - 1] = -(-gains[depth - 1]).max(gains[depth]);
        depth -= 1;
    }
    Some(gains[0])
}

/// Locations an action starts from or lands on ([`Action::from`], [`Action::to`]), and with `ring`
/// those next to its `to`: for castling that is the rook's corner, so the square actions around
/// it count as near the first step (since eb6bd64; the opponent's measured tables include it).
fn touched(action: Action, ring: bool) -> Bitboard {
    let to = action.to();
    action.from().bb() | to.bb() | if ring { attacks::king(to) } else { Bitboard::EMPTY }
}

/// Empty squares `color`'s pieces reach by their own powers (pawns by their steps forward).
fn piece_targets(pos: &Position, color: Color, blockers: Bitboard) -> Bitboard {
    let empty = pos.squares() & !pos.occupied();
    let mut reach = Bitboard::EMPTY;
    let ours = pos.by_color(color);
    for sq in ours & pos.by_role(Role::Knight) {
        reach |= attacks::knight(sq);
    }
    for sq in ours & (pos.by_role(Role::Bishop) | pos.by_role(Role::Queen)) {
        reach |= attacks::bishop(sq, blockers);
    }
    for sq in ours & (pos.by_role(Role::Rook) | pos.by_role(Role::Queen)) {
        reach |= attacks::rook(sq, blockers);
    }
    for sq in ours & pos.by_role(Role::King) {
        reach |= attacks::king(sq);
    }
    for sq in ours & pos.by_role(Role::Pawn) {
        if let Some(one) = sq.offset(0, color.forward()) {
            reach |= one.bb();
        }
    }
    reach & empty
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
    // Where a side has only a few squares to move its pieces to, those squares decide whether it
    // can move at all, and a side without a turn loses in the Betza family: they rank first.
    for color in Color::ALL {
        let few = piece_targets(pos, color, blockers);
        if few.count() <= 6 {
            add(few, 8);
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

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::{Game, Variant};

    /// A game of random turns, for positions well past the opening.
    fn random_game(variant: Variant, plies: usize, mut seed: u64) -> Game {
        let mut game = Game::from_variant(variant);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.position().legal_moves();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            game.play(legal[(seed >> 33) as usize % legal.len()]).unwrap();
        }
        game
    }

    /// The static exchange, counted by hand: a queen taking a pawn a pawn guards loses 800; a
    /// rook taking a pawn a rook guards, with its twin behind it, wins the pawn (the defender does
    /// better not to take back); an unguarded knight is won whole; en passant and the quad board
    /// are not told this way.
    #[test]
    fn exchanges_counted_as_by_hand() {
        let case = |variant: Variant, fen: &str, lan: &str| {
            let pos = Position::from_fen(variant, fen).unwrap();
            let mv = pos
                .legal_moves()
                .into_iter()
                .find(|m| tessera_rules::notation::lan(&pos, m) == lan)
                .unwrap_or_else(|| panic!("{lan} not legal in {fen}"));
            exchange(&pos, &mv)
        };
        assert_eq!(case(Variant::CHESS, "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "Qd1xd5"), Some(-800));
        assert_eq!(case(Variant::CHESS, "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "Rd2xd5"), Some(100));
        assert_eq!(case(Variant::CHESS, "3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "Rd2xd5"), Some(-400));
        assert_eq!(case(Variant::CHESS, "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", "Rd1xd5"), Some(320));
        assert_eq!(case(Variant::CHESS, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5xd6"), None);
    }

    /// The pruned turns are legal turns, and every legal first action (every piece move) is kept.
    /// Run with `--nocapture` to see how many turns the pruning leaves.
    #[test]
    fn pruning_keeps_every_first_action_and_only_legal_turns() {
        for &variant in Variant::ALL.iter().filter(|v| prunes(**v)) {
            for seed in 0..6 {
                let game = random_game(variant, 24 + seed as usize, seed);
                let pos = game.position();
                if game.outcome().is_some() {
                    continue;
                }
                let legal = pos.legal_moves();
                let mut root = Vec::new();
                candidates(pos, Width::ROOT, &mut root);
                let mut inner = Vec::new();
                candidates(pos, Width::INNER, &mut inner);
                for mv in root.iter().chain(&inner) {
                    assert!(
                        legal.contains(mv),
                        "{variant:?}: pruned turn {mv:?} is not legal in {}",
                        pos.fen()
                    );
                }
                let firsts = |moves: &[Move]| {
                    let mut f: Vec<Action> = moves.iter().map(|m| m.first()).collect();
                    f.sort_by_key(|a| format!("{a:?}"));
                    f.dedup();
                    f
                };
                // A first action whose every completion needs a square action elsewhere may go
                // (Infinite Reserves' owed placement); none of a turn that may end with it.
                let may_end: Vec<Action> =
                    firsts(&legal.iter().filter(|m| m.len() == 1).copied().collect::<Vec<_>>());
                let kept = firsts(&inner);
                for a in &may_end {
                    assert!(kept.contains(a), "{variant:?}: {a:?} lost in {}", pos.fen());
                }
                eprintln!(
                    "{variant:?} seed {seed}: {} legal turns, {} at the root, {} inside",
                    legal.len(),
                    root.len(),
                    inner.len()
                );
            }
        }
    }
}
