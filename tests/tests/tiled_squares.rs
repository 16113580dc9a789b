//! Hand-checked positions for Tiled Squares Chess (the rules R-T1 to R-T14 in
//! docs/rules/tiled-squares.md). In positions: `*` void, `!` an anti-tile, `+`/`-` an empty tile of
//! White/Black; an occupied tile belongs to its occupant.

use tessera_rules::notation;
use tessera_rules::{Action, Color, DrawReason, Game, Outcome, Position, Role, Variant, replay};
use tessera_tests::{play, position, refused, sq};

const V: Variant = Variant::TILED_SQUARES;

fn pos(fen: &str) -> Position {
    position(V, fen)
}

fn targets(p: &Position, from: &str) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter_map(|m| match m.first() {
            Action::Normal { from: f, to, .. } if f == sq(from) => Some(to.to_string()),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_start_is_built_by_drops() {
    let start = Position::start(V);
    let moves = start.legal_moves();
    assert_eq!(moves.len(), 64, "a tile or an anti-tile on each of 32 void locations");
    assert!(refused(&start, "Ng1-f3").contains("there is no tile at f3"));
    let after = play(&start, "@@f3");
    assert_eq!(after.owner(sq("f3")), Some(Color::White));
    let after = play(&after, "@!f6");
    assert!(after.anti_tiles().contains(sq("f6")));
    play(&after, "Ng1-f3");
    assert!(refused(&after, "@@f6").contains("there is an anti-tile at f6"));
}

#[test]
fn pieces_pass_over_void_and_land_on_tiles() {
    let p = pos("****k***/********/********/+*******/********/********/********/R***K*** w - - 0 1");
    assert_eq!(targets(&p, "a1"), ["a5"]);
    // An anti-tile on a3 blocks the rook; the knight leaps it.
    let p = pos("****k***/********/********/+*******/********/!*******/********/R***K*** w - - 0 1");
    assert!(targets(&p, "a1").is_empty());
    let p = pos("****k***/********/********/********/********/!+******/!!******/N***K*** w - - 0 1");
    assert_eq!(targets(&p, "a1"), ["b3"]);
}

#[test]
fn the_king_lays_tiles() {
    // The king steps onto void and onto an anti-tile, making tiles of its own.
    let p = pos("****k***/********/********/********/********/********/***!****/****K*** w - - 0 1");
    let mut to = targets(&p, "e1");
    to.sort();
    assert_eq!(to, ["d1", "d2", "e2", "f1", "f2"]);
    let after = play(&p, "Kd2");
    assert!(after.squares().contains(sq("d2")) && !after.anti_tiles().contains(sq("d2")));
    assert_eq!(after.owner(sq("d2")), Some(Color::White));
    assert_eq!(after.owner(sq("e1")), Some(Color::White), "the tile it left stays, still White's");
    // It may not step where it would be attacked once the tile is there: the rook sees e2 over void.
    let p = pos("****r**k/********/********/********/********/********/********/***+K*** w - - 0 1");
    assert!(p.is_check());
    assert!(refused(&p, "Ke2").contains("you are in check"));
    play(&p, "Kd2");
}

#[test]
fn tiles_change_hands_and_only_the_owner_removes_an_empty_one() {
    let p = pos("****k***/********/********/********/***-+***/********/**N*****/****K*** w - - 0 1");
    // A white knight landing on Black's tile makes it White's.
    let after = play(&p, "Nc2-d4");
    assert_eq!(after.owner(sq("d4")), Some(Color::White));
    // White removes its own empty tile; not Black's, not an occupied one, not void.
    let gone = play(&p, "@xe4");
    assert!(!gone.squares().contains(sq("e4")));
    assert!(refused(&p, "@xd4").contains("is black's"));
    assert!(refused(&p, "@xc2").contains("a piece stands on"));
    assert!(refused(&p, "@xc4").contains("no tile at c4"));
}

#[test]
fn the_move_counter_counts_taking_a_tile_as_a_capture() {
    // R-T12: drops of either kind and pawn moves reset it; taking over an empty enemy tile is
    // capturing a square and resets it too; removing one's own tile or a plain move does not.
    let p = pos("****k***/********/********/********/*+*-+***/********/**N*****/****K*** w - - 7 30");
    assert_eq!(play(&p, "Nc2-d4").halfmoves(), 0, "onto Black's empty tile");
    assert_eq!(play(&p, "Nc2-b4").halfmoves(), 8, "onto White's own tile");
    assert_eq!(play(&p, "@xe4").halfmoves(), 8, "removing a tile");
    assert_eq!(play(&p, "@@a5").halfmoves(), 0, "a tile drop");
    assert_eq!(play(&p, "@!a5").halfmoves(), 0, "an anti-tile drop");
    // The king laying a tile on void captures nothing.
    assert_eq!(play(&p, "Ke1-f1").halfmoves(), 8);
}

#[test]
fn pawns_over_void_and_en_passant_only_onto_a_tile() {
    // Double step over void (e3) onto a tile (e4); not over an anti-tile.
    let p = pos("****k***/********/********/***p****/****+***/********/****P***/****K*** w - - 0 1");
    let after = play(&p, "e2-e4");
    assert_eq!(after.ep_square(), None, "the skipped location is void: no en passant");
    let p2 = pos("****k***/********/********/***p****/****+***/****!***/****P***/****K*** w - - 0 1");
    assert!(refused(&p2, "e2-e4").contains("cannot cross the anti-tile on e3"));
    // With a tile on e3 the skipped location can be taken en passant.
    let p3 = pos("****k***/********/********/********/***p+***/****+***/****P***/****K*** w - - 0 1");
    let after = play(&p3, "e2-e4");
    assert_eq!(after.ep_square(), Some(sq("e3")));
    play(&after, "d4xe3");
}

#[test]
fn castling_needs_empty_tiles_between() {
    let p = pos("****k***/********/********/********/********/********/********/R+++K++R w KQ - 0 1");
    play(&p, "O-O");
    play(&p, "O-O-O");
    let p = pos("****k***/********/********/********/********/********/********/R*++K+*R w KQ - 0 1");
    assert!(
        refused(&p, "O-O").contains("castling needs a tile at g1, and there is none"),
        "{}",
        refused(&p, "O-O")
    );
    assert!(
        refused(&p, "O-O-O").contains("castling needs a tile at b1, and there is none"),
        "{}",
        refused(&p, "O-O-O")
    );
}

#[test]
fn stalemate_is_a_draw() {
    // Every location holds a tile, none of them Black's and empty: no drop, no removal, and every
    // king step is covered.
    let p = pos("k+++++++/++Q+++++/+K++++++/++++++++/++++++++/++++++++/++++++++/++++++++ b - - 0 1");
    let g = Game::new(p);
    assert_eq!(g.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
}

#[test]
fn a_game_record_replays() {
    let g = replay(V, "1. @@e4 @@e5 2. e2-e4 @!d5 3. Ke1-e2 e7-e5 4. Ke2-d3 @xe7").unwrap().game;
    let p = g.position();
    assert_eq!(p.fen(), "rnbqkbnr/pppp*ppp/********/***!p***/****P***/***K****/PPPP+PPP/RNBQ+BNR w kq - 2 5");
    assert_eq!(p.piece_at(sq("d3")).map(|pc| pc.role), Some(Role::King));
    assert_eq!(notation::lan(g.start(), &g.moves()[0]), "@@e4");
    let back = Position::from_fen(V, &p.fen()).unwrap();
    assert_eq!(&back, p);
}

#[test]
fn repetition_counts_tiles() {
    // R-T11: dropping and removing tiles can come back to a position, or to the same pieces on
    // other tiles, which is another position.
    let back = replay(V, "1. @@e4 @@e5 2. @xe4 @xe5").unwrap().game;
    assert_eq!(back.repetitions(), 2, "the start again");
    let other = replay(V, "1. @@e4 @@e5 2. @xe4 @@d5").unwrap().game;
    assert_eq!(other.repetitions(), 1);
}

#[test]
fn pawns_step_only_onto_tiles() {
    // The location ahead is void: no step. With a tile there, the pawn steps.
    let p = pos("****k***/********/********/********/********/********/****P***/****K*** w - - 0 1");
    assert!(refused(&p, "e2-e3").contains("no tile at e3"));
    let tiled = play(&play(&p, "@@e3"), "Ke8-d8");
    play(&tiled, "e2-e3");
}

#[test]
fn anti_tiles_stop_all_but_the_knight_and_only_a_king_removes_one() {
    // The knight leaps the anti-tiles on a2 and b2 but may not land on the one on c2.
    let p = pos("****k***/********/********/********/********/*+******/!!!*****/N***K*** w - - 0 1");
    assert_eq!(targets(&p, "a1"), ["b3"]);
    // Nothing is dropped on an anti-tile, and it is no tile to take away.
    assert!(refused(&p, "@@c2").contains("there is an anti-tile at c2"));
    assert!(refused(&p, "@!c2").contains("c2"));
    assert!(refused(&p, "@xc2").contains("no tile at c2"));
    // Only a king stepping onto an anti-tile lifts it; one beside the king's path stays.
    let after = play(&p, "Ke1-d2");
    assert!(after.anti_tiles().contains(sq("c2")));
    let p = pos("****k***/********/********/********/********/********/***!****/****K*** w - - 0 1");
    assert!(play(&p, "Ke1-d2").anti_tiles().is_empty());
}

#[test]
fn an_anti_tile_parries_a_check_and_a_tile_does_not() {
    // The rook on e8 checks across the void. A tile on e4 changes nothing; an anti-tile blocks.
    let p = pos("****r**k/********/********/********/********/********/********/***+K*** w - - 0 1");
    assert!(p.is_check());
    assert!(refused(&p, "@@e4").contains("does not get you out of check"));
    let after = play(&p, "@!e4");
    assert!(!after.king_attacked(Color::White));
    // Taking away a tile never opens a line: void lets lines through as it is.
    let p = pos("****r**k/********/********/********/****+***/********/********/***+K*** w - - 0 1");
    assert!(refused(&p, "@xe4").contains("does not get you out of check"));
}

#[test]
fn bare_kings_play_on() {
    // No material draws: tiles and anti-tiles can always change what mates.
    let p = pos("****k***/********/********/********/********/********/********/****K*** w - - 0 1");
    assert_eq!(Game::new(p).outcome(), None);
}
