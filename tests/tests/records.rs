//! Every record Tessera writes reads back: random games of every variant, written with
//! `Game::record` (what `!t history` shows), replay to the same position. `TESSERA_FUZZ_CASES`
//! sets the number of games per variant for a long run.

use tessera_rules::{Color, Game, Position, Variant, replay};
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

/// The words of a SAN record, move numbers and the result left out, read without Tessera's
/// record reader.
fn san_words(record: &str) -> Vec<&str> {
    record
        .split_whitespace()
        .filter(|w| !w.ends_with('.') || !w.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|w| !matches!(*w, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .collect()
}

/// FIDE chess records are SAN that another chess library reads: every move of random games,
/// from the start and from positions rich in castling, promotions and en passant, is written as
/// cozy-chess writes it (disambiguation, `x`, `=Q`, `O-O`, `+` and `#`), and cozy-chess's SAN
/// reader finds exactly that move.
#[test]
fn fide_records_are_san_another_library_reads() {
    let starts = [
        Variant::CHESS.start_fen(),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3",
        "k7/8/8/8/8/3Q4/8/3Q1Q1K w - - 0 1",
    ];
    let mut rng = XorShift(0x0005_A10F_F1DE);
    let mut moves_checked = 0;
    for fen in starts {
        for _ in 0..25 {
            let mut game = Game::new(Position::from_fen(Variant::CHESS, fen).unwrap());
            for _ in 0..80 {
                let moves = game.position().legal_moves();
                if game.outcome().is_some() || moves.is_empty() {
                    break;
                }
                game.play(moves[rng.next_index() % moves.len()]).unwrap();
            }
            let record = game.record();
            let mut board: cozy_chess::Board = fen.parse().unwrap();
            let mut pos = game.start().clone();
            let words = san_words(&record);
            assert_eq!(words.len(), game.moves().len(), "{record}");
            for (word, mv) in words.iter().zip(game.moves()) {
                let theirs = cozy_chess::util::parse_san_move(&board, word)
                    .unwrap_or_else(|_| panic!("cozy-chess cannot read {word} at {board}: {record}"));
                let canonical = cozy_chess::util::display_san_move(&board, theirs).to_string();
                assert_eq!(*word, canonical, "at {board}: {record}");
                assert_eq!(
                    tessera_rules::notation::uci(&pos, mv),
                    uci_of(&board, theirs),
                    "{word} at {board}"
                );
                board.play(theirs);
                pos = pos.played(mv);
                moves_checked += 1;
            }
            // The record says where a game begun with Black's move starts: `3... `.
            let number = game.start().fullmoves();
            let opening = if game.start().turn() == Color::White {
                format!("{number}. ")
            } else {
                format!("{number}... ")
            };
            assert!(game.moves().is_empty() || record.starts_with(&opening), "{record}");
            let back = replay(Variant::CHESS, &format!("[FEN \"{fen}\"]\n{record}")).unwrap();
            assert_eq!(back.game.position(), game.position(), "{record}");
        }
    }
    assert!(moves_checked > 5000, "{moves_checked} moves checked");
}

/// cozy-chess writes castling as king-takes-rook; Tessera's coordinates give the king's own move.
fn uci_of(board: &cozy_chess::Board, mv: cozy_chess::Move) -> String {
    let us = board.side_to_move();
    if mv.from == board.king(us) && board.colors(us).has(mv.to) {
        let file = if mv.to.file() > mv.from.file() { "g" } else { "c" };
        return format!("{}{file}{}", mv.from, mv.from.rank());
    }
    mv.to_string()
}

fn record_of(fen: &str, moves: &str) -> String {
    let game =
        replay(Variant::CHESS, &format!("[FEN \"{fen}\"]\n{moves}")).unwrap_or_else(|e| panic!("{e}")).game;
    game.record()
}

/// Hand-written games, each written back as SAN exactly.
#[test]
fn fide_records_by_hand() {
    let start = Variant::CHESS.start_fen();
    // Scholar's mate, written in long notation, comes back in SAN with the mate.
    assert_eq!(
        record_of(start, "1. e2-e4 e7-e5 2. Qd1-h5 Nb8-c6 3. Bf1-c4 Ng8-f6 4. Qh5xf7"),
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"
    );
    // Castling on both sides, a check, and a knight named by its file.
    assert_eq!(
        record_of(
            start,
            "1. d4 d5 2. Nf3 Nf6 3. Nbd2 Bf5 4. e3 e6 5. Bd3 Qd6 6. O-O Nc6 7. b3 O-O-O 8. Bb2 Qb4"
        ),
        "1. d4 d5 2. Nf3 Nf6 3. Nbd2 Bf5 4. e3 e6 5. Bd3 Qd6 6. O-O Nc6 7. b3 O-O-O 8. Bb2 Qb4 *"
    );
    assert_eq!(
        record_of(start, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6"),
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 *"
    );
    // Promotions: a queen with check, a knight by capture; en passant is a pawn capture.
    assert_eq!(record_of("7k/P7/8/8/8/8/8/K7 w - - 0 1", "a8Q"), "1. a8=Q+ *");
    assert_eq!(record_of("rn5k/1P6/8/8/8/8/8/K7 w - - 0 1", "b7xa8=N"), "1. bxa8=N *");
    assert_eq!(record_of("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", "e4 dxe3"), "1. e4 dxe3 *");
    // Disambiguation by rank, and by the whole square when neither file nor rank will do.
    assert_eq!(record_of("7k/8/8/8/R7/8/8/R3K3 w - - 0 1", "Ra1-a3"), "1. R1a3 *");
    assert_eq!(record_of("k7/8/8/8/8/3Q4/8/3Q1Q1K w - - 0 1", "Qd1-e2"), "1. Qd1e2 *");
    // A pinned knight is no rival: Nc3, not Nbc3.
    assert_eq!(record_of("4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nb1-c3"), "1. Nc3 *");
    // A game begun with Black's move numbers it once, as PGN does.
    assert_eq!(record_of("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "Kd7 2. Ra7+ Kc6"), "1... Kd7 2. Ra7+ Kc6 *");
}

/// The PGN `Termination` tag's words for each way a game ends.
#[test]
fn termination_per_end_reason() {
    use tessera_rules::record::termination;
    use tessera_rules::{DrawReason, Outcome, WinReason};
    let win = |reason| Some(Outcome::Win { winner: Color::Black, reason });
    let draw = |reason| Some(Outcome::Draw { reason });
    assert_eq!(termination(win(WinReason::Checkmate)), "normal");
    assert_eq!(termination(win(WinReason::Stalemate)), "normal");
    assert_eq!(termination(win(WinReason::Resignation)), "normal");
    assert_eq!(termination(win(WinReason::Time)), "time forfeit");
    assert_eq!(termination(win(WinReason::Forfeit)), "abandoned");
    for reason in [
        DrawReason::Agreement,
        DrawReason::ThreefoldRepetition,
        DrawReason::FivefoldRepetition,
        DrawReason::FiftyMoves,
        DrawReason::SeventyFiveMoves,
        DrawReason::Stalemate,
        DrawReason::InsufficientMaterial,
    ] {
        assert_eq!(termination(draw(reason)), "normal", "{reason:?}");
    }
    assert_eq!(termination(None), "unterminated");
}

/// Variant records number Black's turn only where the reader needs it: `1. @@a3 @@a6`, where
/// Black's placement cannot be the end of White's turn; Blue Chip's opening chip stands before
/// move 1.
#[test]
fn variant_records_number_blacks_turn_once() {
    let record = |variant: Variant, text: &str| {
        let game = replay(variant, text).unwrap_or_else(|e| panic!("{variant}: {e}")).game;
        let written = game.record();
        assert_eq!(replay(variant, &written).unwrap().game.position(), game.position(), "{written}");
        written
    };
    assert_eq!(record(Variant::HANS38_POSTAL, "1. @@a3 1... @@a6"), "1. @@a3 @@a6 *");
    assert_eq!(
        record(Variant::HANS38_POSTAL_PLUS, "1. @@a3 1... @@a6 2. a2-a3 @@b3 a7-a6 @@b6"),
        "1. @@a3 @@a6 2. a2-a3 @@b3 a7-a6 @@b6 *"
    );
    assert_eq!(record(Variant::HANS38, "1. @@a3 @@a6 2. @@b3"), "1. @@a3 @@a6 2. @@b3 *");
    assert_eq!(
        record(Variant::BLUE_CHIP, "[e5] 1. e2-e4[d5] e7-e5[f3] 2. Nb1-c3[f6]"),
        "[e5] 1. e2-e4[d5] e7-e5[f3] 2. Nb1-c3[f6] *"
    );
}

/// Every `N...` a variant record writes is needed: without it the record reads as another game
/// (Black's square action joined to White's turn before it), or not at all. Random games of the
/// compound-turn variants, whose Black turns often open with a square action.
#[test]
fn every_black_move_number_in_a_record_is_needed() {
    let mut rng = XorShift(0x0B1A_C4ED);
    let mut black_square_turns = 0;
    for &variant in Variant::ALL.iter().filter(|v| v.rules().turn.is_postal()) {
        for _ in 0..20 {
            let mut game = Game::new(Position::start(variant));
            for _ in 0..10 {
                let moves = game.position().legal_moves();
                if game.outcome().is_some() || moves.is_empty() {
                    break;
                }
                game.play(moves[rng.next_index() % moves.len()]).unwrap();
            }
            let mut pos = game.start().clone();
            for mv in game.moves() {
                let opens_with_square = matches!(
                    mv.first(),
                    tessera_rules::Action::Place { .. } | tessera_rules::Action::Shift { .. }
                );
                black_square_turns += usize::from(pos.turn() == Color::Black && opens_with_square);
                pos = pos.played(mv);
            }
            let record = game.record();
            let words: Vec<&str> = record.split(' ').collect();
            for (i, word) in words.iter().enumerate().filter(|(i, w)| *i > 0 && w.ends_with("...")) {
                let without: Vec<&str> =
                    words.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, w)| *w).collect();
                let read = replay(variant, &without.join(" "));
                assert!(
                    read.is_err() || read.unwrap().game.position() != game.position(),
                    "{variant}: {word} is not needed in {record}"
                );
            }
        }
    }
    // Black turns that open with a square action were written: the check above was not empty.
    assert!(black_square_turns > 50, "{black_square_turns}");
}
