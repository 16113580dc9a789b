//! The practice opponent scores the draw a player could claim by the variant's own move count
//! (`ending.move-limit`): 50 moves in chess, another count or none in a variant file. Searches are
//! bounded by depth, so each run sees the same tree.

use tessera_engine::{Limits, Score, Searcher};
use tessera_rules::variant_file::{BUILT_IN_FILES, read_variant_file};
use tessera_rules::{Game, Position, Variant};

/// Chess under another name with `ending` appended: the move count is its only difference.
fn chess_with(name: &str, ending: &str) -> Variant {
    let text: String =
        BUILT_IN_FILES[0]
            .1
            .lines()
            .filter(|line| !line.starts_with("aliases = "))
            .map(|line| {
                if line.starts_with("name = ") { format!("name = \"{name}\"\n") } else { format!("{line}\n") }
            })
            .collect::<String>()
            + ending;
    Variant::register(read_variant_file(&text).unwrap()).unwrap()
}

/// The score of a depth-2 search of a rook-up ending 49 moves into the count: every line ends after
/// White's move and Black's reply, neither of which resets it.
fn score(variant: Variant) -> i32 {
    let game = Game::new(Position::from_fen(variant, "4k3/8/8/8/8/8/8/R3K3 w - - 98 80").unwrap());
    match Searcher::new().best_move(&game, Limits { depth: Some(2), movetime: None }).unwrap().score {
        Score::Cp(cp) => cp,
        Score::Mate(n) => panic!("{variant}: mate in {n}"),
    }
}

#[test]
fn a_claimable_draw_is_a_draw_by_the_variants_count() {
    // Chess: after two more half-moves the draw can be claimed, so the rook is worth nothing.
    let chess = score(Variant::CHESS);
    assert!(chess.abs() < 100, "chess: {chess}");
    // Without a move count, or with a longer one, the rook counts.
    let none = score(chess_with("engine-test-no-count", "\n[ending]\nmove-limit = \"none\"\n"));
    let sixty = score(chess_with("engine-test-sixty", "\n[ending]\nmove-limit = 60\n"));
    assert!(none > 300 && sixty > 300, "none: {none}, sixty: {sixty}");
    // A shorter count makes the position a draw already.
    let forty = score(chess_with("engine-test-forty", "\n[ending]\nmove-limit = 40\n"));
    assert!(forty.abs() < 100, "forty: {forty}");
}
