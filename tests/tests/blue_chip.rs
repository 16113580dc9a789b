//! Hand-checked positions for Blue Chip Chess (the rules R-B1 to R-B11 in
//! docs/rules/blue-chip.md). `chip:e4` in a position text is where the chip stands.

use tessera_rules::{Action, Color, DrawReason, Game, Outcome, Position, Variant, WinReason, replay};
use tessera_tests::{play, position, refused, sq};

const V: Variant = Variant::BLUE_CHIP;

fn pos(fen: &str) -> Position {
    position(V, fen)
}

#[test]
fn black_opens_by_placing_the_chip() {
    let start = Position::start(V);
    assert_eq!(start.turn(), Color::Black);
    assert_eq!(start.chip(), None);
    let moves = start.legal_moves();
    assert_eq!(moves.len(), 32, "the chip on any empty square");
    assert!(moves.iter().all(|m| matches!(m.first(), Action::Chip { .. })));
    assert!(refused(&start, "e7-e5").contains("first turn only places the chip"));
    let after = play(&start, "[e5]");
    assert_eq!((after.turn(), after.fullmoves(), after.chip()), (Color::White, 1, Some(sq("e5"))));
    assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 chip:e5");
    // Then every turn is a piece move and the chip.
    assert!(refused(&after, "e2-e4").contains("place the chip"));
    assert!(refused(&after, "[d5]").contains("one piece move and then the chip"));
    let next = play(&after, "e2-e4[d5]");
    assert_eq!(next.chip(), Some(sq("d5")));
}

#[test]
fn the_chip_closes_its_square_to_the_side_to_move() {
    let p = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 chip:f3");
    assert!(refused(&p, "Ng1-f3[e5]").contains("the chip on f3 closes that square"));
    assert!(refused(&p, "f2-f3[e5]").contains("closes that square"));
    // Pawns double-step across it.
    play(&p, "f2-f4[e5]");
    // Pieces pass over it.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 chip:c1");
    play(&p, "Ra1-d1[c2]");
    // The chip goes to another empty square; the square just left is allowed.
    let q = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 chip:c2");
    assert!(refused(&q, "Ra1-a2[c2]").contains("must leave c2"));
    assert!(refused(&q, "Ra1-a2[e8]").contains("e8 is occupied"));
    let after = play(&q, "Ra1-a2[a1]");
    assert_eq!(after.chip(), Some(sq("a1")));
}

#[test]
fn en_passant_onto_the_chip_is_closed() {
    let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2 chip:d6");
    assert!(refused(&p, "e5xd6[a1]").contains("closes that square"));
    let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2 chip:h6");
    play(&p, "e5xd6[a1]");
}

#[test]
fn castling_is_closed_only_by_the_chip_on_a_destination() {
    let fen = |chip: &str| format!("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 chip:{chip}");
    play(&pos(&fen("b1")), "O-O-O[h4]");
    for (chip, castle) in [("c1", "O-O-O[h4]"), ("d1", "O-O-O[h4]"), ("g1", "O-O[h4]"), ("f1", "O-O[h4]")] {
        assert!(refused(&pos(&fen(chip)), castle).contains("chip stands where your king or rook would land"));
    }
}

#[test]
fn the_chip_never_shields_the_king() {
    // The rook checks across the chip on d1.
    let p = pos("4k3/8/8/8/8/8/8/r3K3 w - - 0 1 chip:d1");
    assert!(p.is_check());
}

#[test]
fn the_chip_can_take_the_last_move_away() {
    // Back-rank check; the only flight square, h2, holds the chip: mate.
    let p = pos("4k3/8/8/8/8/7P/5PP1/r5K1 w - - 0 2 chip:h2");
    let g = Game::new(p);
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: Color::Black, reason: WinReason::Checkmate }));
    let without = pos("4k3/8/8/8/8/7P/5PP1/r5K1 w - - 0 2 chip:e4");
    assert_eq!(Game::new(without).outcome(), None);
    // The king's only move is onto the chip: stalemate, a draw.
    let p = pos("8/8/8/8/8/p1k5/P7/K7 w - - 0 2 chip:b1");
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
}

#[test]
fn records_and_notation() {
    let r = replay(V, "[e5] 1. e2-e4[d5] e7-e5[f3] 2. Nb1-c3[f6] Ng8-e7[c3]").unwrap_err();
    assert!(r.to_string().contains("occupied"), "{r}");
    let g = replay(V, "[e5] 1. e2-e4[d5] e7-e5[f3] 2. Nb1-c3[f6] Ng8-e7[d4] 3. Nc3-b5[c6]").unwrap().game;
    assert_eq!(g.record(), "[e5] 1. e2-e4[d5] e7-e5[f3] 2. Nb1-c3[f6] Ng8-e7[d4] 3. Nc3-b5[c6] *");
    // SAN with the chip reads too; a bare chip in its own word joins the move before it.
    let g2 = replay(V, "[e5] 1. e4[d5] e5 [f3] 2. Nc3[f6] Ne7[d4] 3. Nb5[c6]").unwrap().game;
    assert_eq!(g2.position(), g.position());
    assert_eq!(g.position().chip(), Some(sq("c6")));
}

#[test]
fn only_bare_kings_are_a_dead_draw() {
    // R-B6: king and knight against a lone king plays on, because the chip can take a flight square.
    let p = pos("7k/5K2/8/4N3/8/8/8/8 w - - 0 1 chip:a1");
    assert_eq!(Game::new(p.clone()).outcome(), None);
    // And it mates: the knight checks from g6 and the chip closes h7.
    let mate = play(&p, "Ne5-g6[h7]");
    assert_eq!(
        Game::new(mate).outcome(),
        Some(Outcome::Win { winner: Color::White, reason: WinReason::Checkmate })
    );
    // A lone bishop plays on too.
    let p = pos("4k3/8/8/8/8/8/8/4K1B1 b - - 0 9 chip:a1");
    assert_eq!(Game::new(p).outcome(), None);
    // King against king is over.
    let p = pos("4k3/8/8/8/8/8/8/4K3 b - - 0 9 chip:a1");
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial }));
    // A capture that leaves bare kings ends the game at once.
    let p = pos("4k3/8/8/8/8/8/3n4/4K3 w - - 0 9 chip:a8");
    let g = Game::new(play(&p, "Ke1xd2[a1]"));
    assert_eq!(g.outcome(), Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial }));
}

#[test]
fn en_passant_is_written_only_where_it_can_be_taken() {
    // R-B10: after d2-d4 beside a black pawn on e4, d3 is written unless the chip closes it.
    let p = pos("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1 chip:a8");
    let open = play(&p, "d2-d4[h8]");
    assert_eq!(open.fen(), "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1 chip:h8");
    play(&open, "e4xd3[a1]");
    let closed = play(&p, "d2-d4[d3]");
    assert_eq!(closed.fen(), "4k3/8/8/8/3Pp3/8/8/4K3 b - - 0 1 chip:d3");
    assert!(refused(&closed, "e4xd3[a1]").contains("chip"));
}

#[test]
fn repetition_counts_where_the_chip_stands() {
    // R-B7: the same pieces with the chip elsewhere are another position.
    let cycle = "[e5] 1. Ng1-f3[a3] Ng8-f6[a6] 2. Nf3-g1[h3] Nf6-g8[h6] 3. Ng1-f3[a3] Ng8-f6";
    let same = replay(V, &format!("{cycle}[a6]")).unwrap().game;
    assert_eq!(same.repetitions(), 2);
    let moved = replay(V, &format!("{cycle}[b6]")).unwrap().game;
    assert_eq!(moved.repetitions(), 1);
}

#[test]
fn without_a_chip_the_turn_is_the_chip_alone() {
    // Whoever is to move: here White, in a position text without a chip. The counters stand still.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 5 20");
    assert!(p.legal_moves().iter().all(|m| matches!(m.first(), Action::Chip { .. })));
    assert!(refused(&p, "Ra1-a2[b2]").contains("first turn only places the chip"));
    let after = play(&p, "[e5]");
    assert_eq!((after.turn(), after.halfmoves(), after.fullmoves()), (Color::Black, 5, 20));
    // Black's chip alone does not finish a move either: the move number stays.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 b - - 5 20");
    let after = play(&p, "[e5]");
    assert_eq!((after.turn(), after.halfmoves(), after.fullmoves()), (Color::White, 5, 20));
}

#[test]
fn the_move_counter_ignores_the_chip() {
    // Piece moves count as in chess; the chip's placement resets nothing.
    let p = pos("4k3/4p3/8/8/8/8/8/R3K3 w - - 7 30 chip:h8");
    let after = play(&p, "Ra1-a2[a1]");
    assert_eq!(after.halfmoves(), 8);
    assert_eq!(play(&after, "e7-e5[h8]").halfmoves(), 0, "a pawn move");
    assert_eq!(play(&after, "Ke8-d8[h8]").halfmoves(), 9);
}
