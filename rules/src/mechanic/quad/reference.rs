//! The first Quad-Square generator, location by location, kept as the oracle the fast one in
//! `board.rs` is held to (tests only): the same legal turns in the same order, the same check, the
//! same position after every turn.

use super::{
    Arrival, DIAGONAL, KING, ORTHOGONAL, PromotionKind, QUADS, castling_rook_of, cells_of, knight_targets,
    leap, location, occupants, on_board, promotion_kind, quad_at,
};
use crate::moves::{Action, Move};
use crate::position::Position;
use crate::types::{Color, Piece, Role, Square};

/// Locations a slider reaches from `from` along `dirs` (Q2, Q3).
fn slide(pos: &Position, from: Square, dirs: &[(i8, i8)]) -> Vec<Square> {
    let origin = location(from);
    let mut reached = Vec::new();
    for &cell in &cells_of(from) {
        for &(df, dr) in dirs {
            let mut cur = cell;
            let mut entered: Option<Square> = None;
            while let Some(next) = cur.offset(df, dr).filter(|&s| on_board(s)) {
                cur = next;
                let loc = location(cur);
                if loc == origin {
                    // A line through the mover's own quad simply continues.
                    continue;
                }
                if entered == Some(loc) {
                    continue;
                }
                reached.push(loc);
                match quad_at(cur) {
                    Some(quad) => {
                        entered = Some(loc);
                        if quad.central || !occupants(pos, loc).is_empty() {
                            break;
                        }
                    }
                    None => {
                        entered = None;
                        if pos.occupied().contains(cur) {
                            break;
                        }
                    }
                }
            }
        }
    }
    reached
}

/// Whether a piece of `side` at `loc` is held by an enemy rook sharing its quad (Q6).
fn pinned_by_rook(pos: &Position, loc: Square, side: Color) -> bool {
    quad_at(loc).is_some()
        && occupants(pos, loc).iter().any(|(_, p)| p.color == side.other() && p.role == Role::Rook)
}

/// Pseudo-legal actions of `side`: every move by the piece rules of Q2–Q10, before king safety.
pub(super) fn pseudo_actions(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    piece_actions(pos, side, emit);
    castling(pos, side, emit);
}

/// Every action but castling, which never captures: what attacks are made of.
fn piece_actions(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    let mut seen_locations = Vec::new();
    for cell in pos.by_color(side) {
        let Some(piece) = pos.piece_at(cell) else { continue };
        let from = location(cell);
        // Two pieces of one role on one quad move alike: generate once.
        if seen_locations.contains(&(from, piece.role)) {
            continue;
        }
        seen_locations.push((from, piece.role));

        if piece.role == Role::Bishop && quad_at(from).is_some() {
            // Q5: a bishop sharing a quad with an enemy may remove both without moving.
            for (_, other) in occupants(pos, from) {
                if other.color != side {
                    emit(Action::Sacrifice { from, to: from, victim: other.role });
                }
            }
        }
        if pinned_by_rook(pos, from, side) {
            continue;
        }

        let mut targets: Vec<(Square, Arrival)> = match piece.role {
            Role::Knight => knight_targets(cell).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::King => leap(cell, &KING).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Bishop => slide(pos, cell, &DIAGONAL).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Rook => slide(pos, cell, &ORTHOGONAL).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Queen => {
                let mut t = slide(pos, cell, &ORTHOGONAL);
                t.extend(slide(pos, cell, &DIAGONAL));
                t.into_iter().map(|l| (l, Arrival::Any)).collect()
            }
            Role::Pawn => {
                let fw = side.forward();
                let mut t: Vec<(Square, Arrival)> =
                    leap(cell, &[(0, fw)]).into_iter().map(|l| (l, Arrival::Step)).collect();
                t.extend(leap(cell, &[(-1, fw), (1, fw)]).into_iter().map(|l| (l, Arrival::Capture)));
                t
            }
        };
        targets.sort_by_key(|&(l, a)| (l, a as u8));
        targets.dedup();
        for (to, arrival) in targets {
            arrive(pos, side, piece.role, from, to, arrival, emit);
        }
    }
}

/// The actions of a piece of `role` arriving at `to` (Q4, Q5, Q9).
fn arrive(
    pos: &Position,
    side: Color,
    role: Role,
    from: Square,
    to: Square,
    arrival: Arrival,
    emit: &mut dyn FnMut(Action),
) {
    let there = occupants(pos, to);
    let enemies: Vec<Role> = there.iter().filter(|(_, p)| p.color != side).map(|(_, p)| p.role).collect();
    let mut moves: Vec<Option<Role>> = Vec::new();
    if quad_at(to).is_some() {
        match there.len() {
            0 | 1 if arrival != Arrival::Capture => moves.push(None),
            2 => {
                // Both enemies: the mover picks; one enemy and one friend: the enemy goes.
                let mut victims = enemies.clone();
                victims.dedup();
                if arrival != Arrival::Step {
                    moves.extend(victims.into_iter().map(Some));
                }
            }
            _ => {}
        }
        if role == Role::Bishop && there.len() == 1 && enemies.len() == 1 {
            emit(Action::Sacrifice { from, to, victim: enemies[0] });
        }
    } else {
        match (there.first(), arrival) {
            (None, Arrival::Any | Arrival::Step) => moves.push(None),
            (Some((_, p)), Arrival::Any | Arrival::Capture) if p.color != side => moves.push(Some(p.role)),
            _ => {}
        }
    }
    for capture in moves {
        if role == Role::Pawn {
            match promotion_kind(side, to) {
                PromotionKind::Required => {
                    for promo in Role::PROMOTIONS {
                        emit(Action::Normal { role, from, to, capture, promotion: Some(promo) });
                    }
                    continue;
                }
                PromotionKind::Optional => {
                    for promo in Role::PROMOTIONS {
                        emit(Action::Normal { role, from, to, capture, promotion: Some(promo) });
                    }
                }
                PromotionKind::None => {}
            }
        }
        emit(Action::Normal { role, from, to, capture, promotion: None });
    }
}

/// Q10: king and rook swap places.
fn castling(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    let Some(king) = pos.king(side) else { return };
    for rook_loc in pos.castling_rooks() {
        let Some(quad) = quad_at(rook_loc) else { continue };
        let there = occupants(pos, rook_loc);
        let is_our_lone_rook = there.len() == 1 && there[0].1 == Piece::new(side, Role::Rook);
        if !is_our_lone_rook || quad_at(king).is_some() || king.rank() != side.first_rank(8) {
            continue;
        }
        // Locations between the king and the quad on the king's rank.
        let rank = king.rank();
        let near = quad.cells.iter().filter(|c| c.rank() == rank).map(|c| c.file()).collect::<Vec<_>>();
        if near.is_empty() {
            continue;
        }
        let (lo, hi) = if near[0] < king.file() {
            (near.iter().max().unwrap() + 1, king.file())
        } else {
            (king.file() + 1, *near.iter().min().unwrap())
        };
        let between: Vec<Square> = (lo..hi).map(|f| Square::from_coords(f, rank)).collect();
        if between.iter().any(|&s| quad_at(s).is_some() || pos.occupied().contains(s)) {
            continue;
        }
        if king_attacked(pos, side) || between.iter().any(|&s| square_attacked_for_king(pos, side, king, s)) {
            continue;
        }
        emit(Action::Castle { king, rook: rook_loc });
    }
}

/// Whether `side`'s king, moved from `king` to the empty square `to`, could be captured there.
fn square_attacked_for_king(pos: &Position, side: Color, king: Square, to: Square) -> bool {
    let mut probe = pos.clone();
    probe.take(king);
    probe.put(to, Piece::new(side, Role::King));
    king_attacked(&probe, side)
}

/// Q7: a king is in check when an enemy move could capture it under Q4–Q6.
pub(super) fn king_attacked(pos: &Position, side: Color) -> bool {
    if pos.king(side).is_none() {
        return false;
    }
    let mut attacked = false;
    piece_actions(pos, side.other(), &mut |action| match action {
        Action::Normal { capture: Some(Role::King), .. } | Action::Sacrifice { victim: Role::King, .. } => {
            attacked = true
        }
        _ => {}
    });
    attacked
}

pub(super) fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    let side = pos.turn();
    pseudo_actions(pos, side, &mut |action| {
        if !king_attacked(&played(pos, action), side) {
            out.push(Move::single(action));
        }
    });
}

/// Removes the piece of `piece`'s kind from location `loc`; returns the cell it was kept on.
fn remove_from(pos: &mut Position, loc: Square, piece: Piece) -> Option<Square> {
    let cell = occupants(pos, loc).into_iter().find(|(_, p)| *p == piece).map(|(c, _)| c)?;
    pos.take(cell);
    Some(cell)
}

/// Puts a piece on a location: a quad's first free slot, or the square.
fn add_to(pos: &mut Position, loc: Square, piece: Piece) {
    let cell = match quad_at(loc) {
        Some(quad) => {
            quad.cells[..2].iter().copied().find(|&c| pos.piece_at(c).is_none()).unwrap_or(quad.cells[0])
        }
        None => loc,
    };
    pos.put(cell, piece);
}

/// Makes one action of the side to move. Returns whether it resets the move counter.
pub(super) fn apply(pos: &mut Position, action: Action) -> bool {
    let us = pos.turn();
    let them = us.other();
    match action {
        Action::Normal { role, from, to, capture, promotion } => {
            remove_from(pos, from, Piece::new(us, role));
            if let Some(victim) = capture {
                remove_from(pos, to, Piece::new(them, victim));
                if victim == Role::Rook {
                    pos.castling &= !to.bb();
                }
            }
            add_to(pos, to, Piece::new(us, promotion.unwrap_or(role)));
            match role {
                Role::King => pos.castling &= !castling_rook_of(us),
                Role::Rook => pos.castling &= !from.bb(),
                _ => {}
            }
            role == Role::Pawn || capture.is_some()
        }
        Action::Sacrifice { from, to, victim } => {
            remove_from(pos, from, Piece::new(us, Role::Bishop));
            remove_from(pos, to, Piece::new(them, victim));
            if victim == Role::Rook {
                pos.castling &= !to.bb();
            }
            true
        }
        Action::Castle { king, rook } => {
            remove_from(pos, king, Piece::new(us, Role::King));
            remove_from(pos, rook, Piece::new(us, Role::Rook));
            add_to(pos, rook, Piece::new(us, Role::King));
            add_to(pos, king, Piece::new(us, Role::Rook));
            pos.castling &= !castling_rook_of(us);
            false
        }
        Action::EnPassant { .. }
        | Action::Place { .. }
        | Action::Shift { .. }
        | Action::Chip { .. }
        | Action::DropAnti { .. }
        | Action::RemoveTile { .. } => {
            unreachable!("Quad-Square Chess has no en passant and no square actions")
        }
    }
}

/// Puts the pieces a quad holds in a fixed order, so equal positions compare equal.
pub(super) fn normalise(pos: &mut Position) {
    for quad in &QUADS {
        let [a, b] = [quad.cells[0], quad.cells[1]];
        let (pa, pb) = (pos.piece_at(a), pos.piece_at(b));
        let key = |p: Option<Piece>| p.map(|p| (p.color as u8, p.role as u8));
        let swap = match (pa, pb) {
            (None, Some(_)) => true,
            (Some(_), Some(_)) => key(pa) > key(pb),
            _ => false,
        };
        if swap {
            pos.take(a);
            pos.take(b);
            if let Some(p) = pb {
                pos.put(a, p);
            }
            if let Some(p) = pa {
                pos.put(b, p);
            }
        }
    }
}

/// The pieces after `action`, by this module's own rules of play (turn and counters aside).
pub(super) fn played(pos: &Position, action: Action) -> Position {
    let mut next = pos.clone();
    apply(&mut next, action);
    normalise(&mut next);
    next
}
