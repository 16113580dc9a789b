//! The fast generator against the reference, position by position over random games.

use super::reference;
use crate::moves::{Action, Move};
use crate::position::Position;
use crate::types::Color;
use crate::variant::Variant;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// What the two generators must agree on in `pos`; returns its legal moves.
fn agree(pos: &Position, game: usize, ply: usize) -> Vec<Move> {
    let fast = pos.legal_moves();
    let mut slow = Vec::new();
    reference::legal_moves_into(pos, &mut slow);
    let fen = pos.fen();
    assert_eq!(fast, slow, "game {game} ply {ply}: legal moves differ in {fen}");
    assert_eq!(pos.has_legal_moves(), !slow.is_empty(), "game {game} ply {ply}: {fen}");
    for color in Color::ALL {
        assert_eq!(
            pos.king_attacked(color),
            reference::king_attacked(pos, color),
            "game {game} ply {ply}: check of {color} differs in {fen}"
        );
    }
    let mut fast_pseudo: Vec<Action> = Vec::new();
    pos.gen_piece_actions(&mut |a| fast_pseudo.push(a));
    let mut slow_pseudo: Vec<Action> = Vec::new();
    reference::pseudo_actions(pos, pos.turn(), &mut |a| slow_pseudo.push(a));
    assert_eq!(fast_pseudo, slow_pseudo, "game {game} ply {ply}: pseudo-legal actions differ in {fen}");
    for mv in &fast {
        let action = mv.actions().next().expect("one action a turn");
        let after = pos.played(mv);
        let expected = reference::played(pos, action);
        assert!(
            after.by_role == expected.by_role
                && after.by_color == expected.by_color
                && after.castling == expected.castling,
            "game {game} ply {ply}: {mv:?} leaves {} where the reference leaves {}",
            after.fen(),
            expected.fen()
        );
    }
    fast
}

/// Every position of thousands of random games: the same legal turns in the same order, the
/// same check for either side, the same pseudo-legal actions, the same position after each turn.
/// `TESSERA_QUAD_GAMES` sets how many (300 by default; the change that brought the fast generator ran 10,000).
#[test]
fn the_fast_generator_agrees_with_the_reference_in_random_games() {
    let games: usize = std::env::var("TESSERA_QUAD_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut positions, mut checks, mut ended) = (0usize, 0usize, 0usize);
    for game in 0..games {
        let mut pos = Position::start(Variant::QUAD_SQUARE);
        for ply in 0..300 {
            let moves = agree(&pos, game, ply);
            positions += 1;
            checks += usize::from(pos.is_check());
            if moves.is_empty() || pos.halfmoves() >= 100 {
                ended += 1;
                break;
            }
            pos = pos.played(&moves[rng.below(moves.len())]);
        }
    }
    eprintln!("{games} games, {positions} positions, {checks} in check, {ended} ended by the rules");
    assert!(checks > games, "the games reach checks often enough to test them");
}

/// Perft by the quad board's own road equals perft by legal moves played on positions (the road
/// games and the search take), and honours a budget.
#[test]
fn the_quad_perft_counts_as_positions_do() {
    fn by_positions(pos: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        pos.legal_moves().iter().map(|mv| by_positions(&pos.played(mv), depth - 1)).sum()
    }
    let mut rng = Rng(7);
    let mut pos = Position::start(Variant::QUAD_SQUARE);
    for ply in 0..60 {
        if ply % 10 == 0 {
            let depth = if ply == 0 { 3 } else { 2 };
            let exact = by_positions(&pos, depth);
            assert_eq!(crate::perft::perft(&pos, depth), exact, "ply {ply}: {}", pos.fen());
            let within = |budget| crate::perft::perft_within(&pos, depth, budget).map(|c| c.nodes);
            assert_eq!(within(exact), Some(exact));
            assert_eq!(within(exact - 1), None);
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos = pos.played(&moves[rng.below(moves.len())]);
    }
}
