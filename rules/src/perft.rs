//! Counting leaf nodes of the move tree, the standard check of a move generator.

use crate::moves::Move;
use crate::position::Position;

/// Number of move sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if let Some(nodes) = crate::plain::perft(pos, depth) {
        return nodes;
    }
    if let Some(nodes) = crate::mechanic::quad::perft(pos, depth, u64::MAX) {
        return nodes.expect("no budget");
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

/// The move generator a count was made by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Generator {
    /// FIDE chess on the whole 8x8 board: the fast generator of the plain board.
    Plain,
    /// Every other board (and a chess position the plain board does not take), by the general
    /// generator.
    General,
}

impl Generator {
    pub fn name(self) -> &'static str {
        match self {
            Generator::Plain => "plain",
            Generator::General => "general",
        }
    }
}

/// The generator [`perft`] and [`perft_within`] count `pos` by.
pub fn generator(pos: &Position) -> Generator {
    if crate::plain::Board::of(pos).is_some() { Generator::Plain } else { Generator::General }
}

/// A leaf count and the generator that made it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Count {
    pub nodes: u64,
    pub by: Generator,
}

/// [`perft`] that gives up, returning `None`, once more than `budget` leaves have been counted:
/// a depth too deep for the position ends in bounded time instead of running for days. FIDE chess
/// is counted on the plain board, as [`perft`] does; the budget means the same on either board.
pub fn perft_within(pos: &Position, depth: u32, budget: u64) -> Option<Count> {
    if let Some(counted) = crate::plain::perft_within(pos, depth, budget) {
        return counted.map(|nodes| Count { nodes, by: Generator::Plain });
    }
    if let Some(counted) = crate::mechanic::quad::perft(pos, depth, budget) {
        return counted.map(|nodes| Count { nodes, by: Generator::General });
    }
    let mut buffers = vec![Vec::with_capacity(64); depth as usize + 1];
    let mut left = budget;
    let nodes = perft_bounded(pos, depth, &mut buffers, &mut left)?;
    Some(Count { nodes, by: Generator::General })
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

/// Perft by the general generator whatever the board: what the tests hold the plain board's fast
/// path (and its FIDE switches) to.
#[cfg(test)]
pub(crate) fn general(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    pos.general_legal_moves_into(&mut moves);
    moves.iter().map(|m| general(&pos.played(m), depth - 1)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn a_budget_ends_a_count_that_would_run_too_long() {
        let nodes = |pos: &Position, depth, budget| perft_within(pos, depth, budget).map(|c| c.nodes);
        for variant in [Variant::CHESS, Variant::HANS38] {
            // The budget counts leaves the same way on both boards: exactly enough is enough.
            let start = Position::start(variant);
            let exact = perft(&start, 3);
            assert_eq!(nodes(&start, 3, exact), Some(exact), "{variant}");
            assert_eq!(nodes(&start, 3, exact - 1), None, "{variant}");
            assert_eq!(nodes(&start, 0, 1), Some(1), "{variant}");
            assert_eq!(nodes(&start, 0, 0), None, "{variant}");
        }
        let start = Position::start(Variant::CHESS);
        assert_eq!(nodes(&start, 3, 8902), Some(8902));
        assert_eq!(nodes(&start, 3, 8901), None);
        assert_eq!(nodes(&start, 12, 100_000), None);
    }

    #[test]
    fn fide_chess_is_counted_on_the_plain_board_within_a_budget_too() {
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let pos = Position::from_fen(Variant::CHESS, kiwipete).unwrap();
        assert_eq!(perft_within(&pos, 3, u64::MAX), Some(Count { nodes: 97862, by: Generator::Plain }));
        let start = Position::start(Variant::CHESS);
        assert_eq!(perft_within(&start, 4, u64::MAX), Some(Count { nodes: 197_281, by: Generator::Plain }));
        // Every other variant keeps the general board.
        for &variant in Variant::ALL.iter().filter(|&&v| v != Variant::CHESS) {
            let by = perft_within(&Position::start(variant), 1, u64::MAX).map(|c| c.by);
            assert_eq!(by, Some(Generator::General), "{variant}");
        }
    }
}
