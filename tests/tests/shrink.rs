//! Hand-checked positions for Shrink Chess (the rules R-S1 to R-S13 in docs/rules/shrink.md).
//! Positions are written on the board as it stands, renamed towards a1.

use tessera_rules::notation;
use tessera_rules::{Color, DrawReason, Game, Outcome, Piece, Position, Role, Variant, replay};
use tessera_tests::{play, position, refused, sq};

const V: Variant = Variant::SHRINK;

fn pos(fen: &str) -> Position {
    position(V, fen)
}

#[test]
fn an_emptied_rank_disappears_and_the_board_closes_up() {
    // The knight visits the third rank and leaves it empty: the rank goes, ranks above move down.
    let g = replay(V, "1. Nf3 Nf6 2. Ng5").unwrap().game;
    let p = g.position();
    assert_eq!(p.size(), (8, 7));
    assert_eq!(p.fen(), "rnbqkb1r/pppppppp/5n2/6N1/8/PPPPPPPP/RNBQKB1R b KQkq - 3 2");
    // Ranks that were empty before the move stay: the start has four.
    let p = play(&Position::start(V), "e4");
    assert_eq!(p.size(), (8, 8));
}

#[test]
fn several_lines_go_at_once() {
    // The knight is alone on the a-file and the third rank: both go.
    let p = pos("4k3/8/8/8/8/N7/8/4K3 w - - 0 1");
    let after = play(&p, "Na3-b5");
    assert_eq!(after.size(), (7, 7));
    assert_eq!(after.fen(), "3k3/7/7/N6/7/7/3K3 b - - 1 1");
}

#[test]
fn legality_is_judged_after_the_shrink() {
    // Any knight move empties the third rank, bringing the bishop onto the king's diagonal.
    let p = pos("4k3/8/8/8/2b5/7N/8/K7 w - - 0 1");
    assert!(refused(&p, "Nh3-g5").contains("your king would be in check"));
    let mut legal: Vec<String> = p.legal_moves().iter().map(|m| notation::lan(&p, m)).collect();
    legal.sort();
    // Ka2 empties the first rank and walks into the same diagonal; Kb1 and Kb2 are safe.
    assert_eq!(legal, ["Ka1-b1", "Ka1-b2"]);
}

#[test]
fn castling_with_two_or_three_squares_between() {
    // The d-file is gone: two squares on each side, the king moves two towards the rook.
    let p = pos("3k3/7/7/7/7/7/P5P/R2K2R w KQ - 0 1");
    let long = play(&p, "O-O-O");
    assert_eq!(long.piece_at(sq("b1")), Some(Piece::new(Color::White, Role::King)));
    assert_eq!(long.piece_at(sq("c1")), Some(Piece::new(Color::White, Role::Rook)));
    let short = play(&p, "O-O");
    assert_eq!(short.piece_at(sq("f1")), Some(Piece::new(Color::White, Role::King)));
    assert_eq!(short.piece_at(sq("e1")), Some(Piece::new(Color::White, Role::Rook)));
    // Four squares between: no castling.
    let p = pos("6k1/8/8/8/8/8/8/R4K1R w Q - 0 1");
    assert!(refused(&p, "O-O-O").contains("two or three empty squares between king and rook"));
}

#[test]
fn double_steps_only_on_eight_ranks() {
    let g = replay(V, "1. Nf3 Nf6 2. Ng5").unwrap().game;
    // The black pawns now stand on the sixth rank of seven.
    assert!(refused(g.position(), "e6-e4").contains("cannot move to e4"));
    play(g.position(), "e6-e5");
}

#[test]
fn a_shrink_promotes_and_the_mover_chooses() {
    // The rook is the only piece on the first rank; when it leaves, the black pawn on a2 lands on
    // Black's last rank, and White picks the piece.
    let p = pos("4k3/8/8/8/8/4K3/p7/7R w - - 0 1");
    let knight = play(&p, "Rh1-h3[a1=N]");
    assert_eq!(knight.size(), (8, 7));
    assert_eq!(knight.piece_at(sq("a1")), Some(Piece::new(Color::Black, Role::Knight)));
    // Named nothing: a queen, as the rules say.
    let queen = play(&p, "Rh3");
    assert_eq!(queen.piece_at(sq("a1")), Some(Piece::new(Color::Black, Role::Queen)));
    let mv = notation::parse_move(&p, "Rh3").unwrap();
    assert_eq!(notation::lan(&p, &mv), "Rh1-h3[a1=Q]");
    let why = refused(&p, "Rh1-h3[b1=N]");
    assert!(why.contains("promotes no pawn on b1") && why.contains("the pawn on a1"), "{why}");
    // A pawn shrunk onto its own first rank stays a pawn.
    let p = pos("4k3/8/8/8/8/4K3/P7/7R w - - 0 1");
    let after = play(&p, "Rh3");
    assert_eq!(after.piece_at(sq("a1")), Some(Piece::new(Color::White, Role::Pawn)));
    play(&after.played(&notation::parse_move(&after, "Ke7-d7").unwrap()), "a1-a2");
}

#[test]
fn records_round_trip_with_renamed_squares() {
    let g = replay(V, "1. Nf3 Nf6 2. Ng5 Ng4 3. Nf3").unwrap_err();
    assert!(g.to_string().contains("ply 4"), "{g}");
    let g = replay(V, "1. Nf3 Nf6 2. Ng5 Nd4 3. Ne3").unwrap().game;
    let record = g.record();
    let again = replay(V, &record).unwrap().game;
    assert_eq!(again.position(), g.position());
    let fen = g.position().fen();
    assert_eq!(Position::from_fen(V, &fen).unwrap().fen(), fen);
}

#[test]
fn every_pawn_a_shrink_promotes_is_chosen_for_separately() {
    // R-S8: four black pawns land on the last rank at once; White names each one's piece.
    let p = pos("4k3/8/8/7K/8/8/pppp4/7R w - - 0 1");
    let after = play(&p, "Rh3");
    for s in ["a1", "b1", "c1", "d1"] {
        assert_eq!(after.piece_at(sq(s)), Some(Piece::new(Color::Black, Role::Queen)), "{s}");
    }
    let mixed = play(&p, "Rh1-h3[a1=N,b1=B,c1=R,d1=Q]");
    let roles: Vec<Option<Role>> =
        ["a1", "b1", "c1", "d1"].iter().map(|s| mixed.piece_at(sq(s)).map(|p| p.role)).collect();
    assert_eq!(roles, [Some(Role::Knight), Some(Role::Bishop), Some(Role::Rook), Some(Role::Queen)]);
    // Naming some leaves the rest queens.
    let some = play(&p, "Rh1-h3[c1=N]");
    assert_eq!(some.piece_at(sq("c1")).map(|p| p.role), Some(Role::Knight));
    assert_eq!(some.piece_at(sq("d1")).map(|p| p.role), Some(Role::Queen));
    // Every combination is a move of its own: 4^4 for the rook's move to h3.
    let to_h3 = p.legal_moves().iter().filter(|m| notation::lan(&p, m).starts_with("Rh1-h3")).count();
    assert_eq!(to_h3, 256);
    // Five pawns at once, each chosen: the records say so and read back.
    let five = pos("4k3/8/8/7K/8/8/ppppp3/7R w - - 0 1");
    let mv = notation::parse_move(&five, "Rh1-h3[a1=N,b1=B,c1=R,d1=N,e1=R]").unwrap();
    assert_eq!(notation::lan(&five, &mv), "Rh1-h3[a1=N,b1=B,c1=R,d1=N,e1=R]");
    assert_eq!(notation::parse_move(&five, &notation::lan(&five, &mv)).unwrap(), mv);
    // The king, now on h4, stands on e1's diagonal: neither a bishop nor a queen there, so the
    // default for e1 is a rook, while the others become queens.
    assert!(refused(&five, "Rh1-h3[e1=B]").contains("a bishop on e1 would leave your king in check"));
    let default = play(&five, "Rh3");
    assert_eq!(default.piece_at(sq("e1")).map(|p| p.role), Some(Role::Rook));
    assert_eq!(default.piece_at(sq("d1")).map(|p| p.role), Some(Role::Queen));
}

#[test]
fn an_unnamed_shrink_promotion_avoids_checking_the_movers_king() {
    // R-S8: Rh1-h5 empties the first rank; the black pawn lands on a1 beside White's king, now on e1.
    // A queen or a rook there would check it: the default is the first safe piece, a bishop.
    let p = pos("4k3/8/8/8/8/8/p3K3/7R w - - 0 1");
    let after = play(&p, "Rh1-h5");
    assert_eq!(after.piece_at(sq("a1")), Some(Piece::new(Color::Black, Role::Bishop)));
    assert_eq!(after.piece_at(sq("e1")), Some(Piece::new(Color::White, Role::King)));
    let mv = notation::parse_move(&p, "Rh5").unwrap();
    assert_eq!(notation::lan(&p, &mv), "Rh1-h5[a1=B]");
    // Naming a knight is allowed; naming a piece that checks is refused, saying why.
    assert_eq!(play(&p, "Rh1-h5[a1=N]").piece_at(sq("a1")).map(|p| p.role), Some(Role::Knight));
    let why = refused(&p, "Rh1-h5[a1=Q]");
    assert!(
        why.contains("a queen on a1 would leave your king in check") && why.contains("bishop or knight"),
        "{why}"
    );
    refused(&p, "Rh1-h5[a1=R]");
    // The rook's move counts twice (bishop, knight) in the move list, never four times.
    assert_eq!(p.legal_moves().iter().filter(|m| notation::lan(&p, m).starts_with("Rh1-h5")).count(), 2);
}

#[test]
fn en_passant_is_renamed_by_the_shrink() {
    // R-S6: e2-e4 empties the second rank, which goes; the skipped e3 is now e2.
    let p = pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let after = play(&p, "e2-e4");
    assert_eq!(after.size(), (8, 7));
    assert_eq!(after.piece_at(sq("e3")), Some(Piece::new(Color::White, Role::Pawn)));
    assert!(after.fen().contains(" b - e2 "), "{}", after.fen());
    // Taken en passant on the renamed square: the white pawn on e3 goes.
    let taken = play(&after, "d3xe2");
    assert!(!taken.fen().contains('P'), "{}", taken.fen());
}

#[test]
fn stalemate_is_a_draw_and_bare_kings_play_on() {
    // R-S10.
    let stalemate = Game::new(pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"));
    assert_eq!(stalemate.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
    let bare = Game::new(pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(bare.outcome(), None);
}

#[test]
fn captures_and_castling_empty_lines_too() {
    // Taking en passant removes the black pawn from the fifth rank while the white pawn leaves it:
    // the rank goes. The sixth rank, empty before the move, stays and closes down onto it.
    let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    let after = play(&p, "e5xd6");
    assert_eq!(after.size(), (8, 7));
    assert_eq!(after.fen(), "4k3/8/3P4/8/8/8/4K3 b - - 0 2");
    // Castling short takes the rook off the h-file, which goes.
    let p = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    let after = play(&p, "O-O");
    assert_eq!(after.size(), (7, 8));
    assert_eq!(after.fen(), "4k2/7/7/7/7/7/7/5RK b - - 1 1");
}

#[test]
fn a_pawn_moving_to_the_last_rank_names_its_piece() {
    // As in chess: no piece is chosen for it, the move asks which.
    let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let why = refused(&p, "a7-a8");
    assert!(why.contains("a8=Q") && why.contains("a8=N"), "{why}");
    let after = play(&p, "a7-a8=N");
    // The seventh rank is emptied and goes: the knight now stands on a7 of seven ranks.
    assert_eq!(after.size(), (8, 7));
    assert_eq!(after.piece_at(sq("a7")), Some(Piece::new(Color::White, Role::Knight)));
}

#[test]
fn repetition_and_the_move_counter_as_in_chess() {
    // The kings walk out and back; the pawns keep the d- and e-files: no line empties, and the
    // start comes round again.
    let p = pos("4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1");
    let mut g = Game::new(p);
    for m in ["Ke1-d1", "Ke8-d8", "Kd1-e1", "Kd8-e8", "Ke1-d1", "Ke8-d8", "Kd1-e1", "Kd8-e8"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.position().size(), (8, 8));
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.claimable_draw(), Some(DrawReason::ThreefoldRepetition));
    assert_eq!(g.position().halfmoves(), 8);
    // A pawn move resets the counter.
    g.play_text("e2-e3").unwrap();
    assert_eq!(g.position().halfmoves(), 0);
}

#[test]
fn the_movers_own_pawns_promote_by_a_shrink_too() {
    // The rook is alone on the eighth rank; when it leaves, the seventh is the last, and White's
    // own pawn there promotes, to the piece White names (a queen if none).
    let p = pos("R7/6P1/8/4k3/8/8/8/4K3 w - - 0 1");
    let knight = play(&p, "Ra8-a5[g7=N]");
    assert_eq!(knight.size(), (8, 7));
    assert_eq!(knight.piece_at(sq("g7")), Some(Piece::new(Color::White, Role::Knight)));
    let queen = play(&p, "Ra5");
    assert_eq!(queen.piece_at(sq("g7")), Some(Piece::new(Color::White, Role::Queen)));
    assert!(queen.is_check(), "the new queen checks the black king on e5");
}

/// A king the shrinking board has brought beside the corner, its rook next to it and the right
/// to castle kept: no castling (S4 needs two or three squares between), and no fault working out
/// where the king would have gone (found by the practice opponent's search).
#[test]
fn a_king_beside_the_corner_with_its_right_to_castle() {
    for fen in ["4k3/8/8/8/8/8/8/RK6 w Q - 0 1", "3k3/7/7/7/7/7/7/RK5 w Q - 0 1"] {
        let p = pos(fen);
        let moves = p.legal_moves();
        assert!(!moves.iter().any(|m| matches!(m.first(), tessera_rules::Action::Castle { .. })), "{fen}");
        // King to a2, b2, c2 and c1; the rook up the a-file.
        let king_moves = moves.iter().filter(|m| m.first().from() == sq("b1")).count();
        assert_eq!(king_moves, 4, "{fen}");
    }
}
