//! Counting leaf nodes of the move tree, the standard check of a move generator.

use crate::moves::Move;
use crate::position::Position;

/// Number of move sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if let Some(nodes) = crate::plain::perft(pos, depth) {
        return nodes;
    }
    let mut buffers = vec![Vec::with_capacity(64); depth as usize + 1];
    perft_inner(pos, depth, &mut buffers)
}

fn perft_inner(pos: &Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per level");
    pos.legal_moves_into(moves);
    if depth == 1 {
        // Bulk counting: the legal moves at the last level are the leaves.
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for mv in moves.iter() {
        nodes += perft_inner(&pos.played(mv), depth - 1, rest);
    }
    nodes
}

/// [`perft`] that gives up, returning `None`, once more than `budget` leaves have been counted:
/// a depth too deep for the position ends in bounded time instead of running for days.
pub fn perft_within(pos: &Position, depth: u32, budget: u64) -> Option<u64> {
    let mut buffers = vec![Vec::with_capacity(64); depth as usize + 1];
    let mut left = budget;
    let nodes = perft_bounded(pos, depth, &mut buffers, &mut left)?;
    Some(nodes)
}

fn perft_bounded(pos: &Position, depth: u32, buffers: &mut [Vec<Move>], left: &mut u64) -> Option<u64> {
    if depth == 0 {
        *left = left.checked_sub(1)?;
        return Some(1);
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per level");
    pos.legal_moves_into(moves);
    if depth == 1 {
        *left = left.checked_sub(moves.len() as u64)?;
        return Some(moves.len() as u64);
    }
    let mut nodes = 0;
    for mv in moves.iter() {
        nodes += perft_bounded(&pos.played(mv), depth - 1, rest, left)?;
    }
    Some(nodes)
}

/// Perft split by first move: each legal move with the leaf count below it.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().into_iter().map(|mv| (mv, perft(&pos.played(&mv), depth - 1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn a_budget_ends_a_count_that_would_run_too_long() {
        let start = Position::start(Variant::Chess);
        assert_eq!(perft_within(&start, 3, 8902), Some(8902));
        assert_eq!(perft_within(&start, 3, 8901), None);
        assert_eq!(perft_within(&start, 12, 100_000), None);
    }
}
