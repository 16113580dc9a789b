//! Counting leaf nodes of the move tree, the standard check of a move generator.

use crate::moves::Move;
use crate::position::Position;

/// Number of move sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
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

/// Perft split by first move: each legal move with the leaf count below it.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().into_iter().map(|mv| (mv, perft(&pos.played(&mv), depth - 1))).collect()
}
