//! Every record Tessera writes reads back: random games of every variant, written with
//! `Game::record` (what `!t history` shows), replay to the same position. `TESSERA_FUZZ_CASES`
//! sets the number of games per variant for a long run.

use tessera_rules::{Game, Position, Variant, replay};
use tessera_tests::XorShift;

#[test]
fn every_written_record_replays() {
    let games: usize = std::env::var("TESSERA_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(12);
    let mut rng = XorShift(0x05EC_04D5);
    let mut checked = 0;
    for &variant in Variant::ALL {
        // The squares family's compound turns run to tens of thousands a position: fewer plies.
        let plies = if variant.rules().turn.is_postal() { 14 } else { 60 };
        for _ in 0..games {
            let mut game = Game::new(Position::start(variant));
            for _ in 0..plies {
                if game.outcome().is_some() {
                    break;
                }
                let moves = game.position().legal_moves();
                if moves.is_empty() {
                    break;
                }
                game.play(moves[rng.next_index() % moves.len()]).unwrap();
            }
            let record = game.record();
            let back = replay(variant, &record).unwrap_or_else(|e| panic!("{variant}: {record}\n{e}"));
            assert_eq!(back.game.position(), game.position(), "{variant}: {record}");
            checked += 1;
        }
    }
    assert!(checked >= 13 * games);
}
