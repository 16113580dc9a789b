//! Hand-checked positions for the rules every variant starts from (docs/rules/README.md).

use tessera_rules::{Game, Position, Variant};
use tessera_tests::{play, position};

fn pos(fen: &str) -> Position {
    position(Variant::CHESS, fen)
}

#[test]
fn the_move_counter_resets_on_captures_and_pawn_moves() {
    let p = pos("4k3/4p3/8/8/8/8/4n3/R3K3 w - - 7 30");
    assert_eq!(play(&p, "Ra1-a2").halfmoves(), 8, "a piece move");
    assert_eq!(play(&p, "Ke1xe2").halfmoves(), 0, "a capture");
    let black = play(&p, "Ra1-a2");
    assert_eq!(play(&black, "e7-e6").halfmoves(), 0, "a pawn move");
}

#[test]
fn an_en_passant_square_nobody_can_use_does_not_split_a_repetition() {
    // After e2-e4 no black pawn can take on e3: the position is the one the kings come back to.
    let mut g = Game::new(pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
    for m in ["e2-e4", "Ke8-d7", "Ke1-d1", "Kd7-e8", "Kd1-e1"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.repetitions(), 2);
    // With a black pawn on d4 ready to take, the position after e2-e4 is another one.
    let mut g = Game::new(pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"));
    for m in ["e2-e4", "Ke8-d7", "Ke1-d1", "Kd7-e8", "Kd1-e1"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.repetitions(), 1);
}
