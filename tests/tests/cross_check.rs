//! Random games checked move by move against an independent chess library (cozy-chess).
//! Every position reached must have the same set of legal moves in both, and the same
//! board, side to move and castling rights after each move.

use std::collections::BTreeSet;
use tessera_tests::XorShift;

use tessera_rules::{Game, Position, Variant, notation};

fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    board.generate_moves(|moves| {
        for mv in moves {
            set.insert(cozy_uci(board, mv));
        }
        false
    });
    set
}

/// cozy-chess writes castling as king-takes-rook; write it as the king's two-square move.
fn cozy_uci(board: &cozy_chess::Board, mv: cozy_chess::Move) -> String {
    let king = board.king(board.side_to_move());
    if mv.from == king && board.colors(board.side_to_move()).has(mv.to) {
        let to_file = if mv.to.file() > mv.from.file() { "g" } else { "c" };
        return format!("{}{}{}", mv.from, to_file, mv.from.rank());
    }
    mv.to_string()
}

/// The first four FEN fields, with the en passant square dropped (the libraries record it differently).
fn board_fields(fen: &str) -> String {
    fen.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[test]
fn random_games_agree_with_cozy_chess() {
    let starts = [
        Variant::CHESS.start_fen(),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut positions = 0;
    for game_no in 0..400 {
        let fen = starts[game_no % starts.len()];
        let mut game = Game::new(Position::from_fen(Variant::CHESS, fen).unwrap());
        let mut cozy: cozy_chess::Board = fen.parse().unwrap();
        for ply in 0..200 {
            let pos = game.position().clone();
            let ours: BTreeSet<String> = pos.legal_moves().iter().map(|m| notation::uci(&pos, m)).collect();
            let theirs = cozy_moves(&cozy);
            assert_eq!(ours, theirs, "game {game_no} ply {ply}: {}", pos.fen());
            positions += 1;
            if ours.is_empty() || game.outcome().is_some() {
                break;
            }
            let pick = ours.iter().nth(rng.next_index() % ours.len()).unwrap().clone();
            game.play_text(&pick).unwrap();
            let mut cozy_move = None;
            cozy.generate_moves(|moves| {
                cozy_move = moves.into_iter().find(|m| cozy_uci(&cozy, *m) == pick);
                cozy_move.is_some()
            });
            cozy.play_unchecked(cozy_move.unwrap());
            assert_eq!(board_fields(&game.position().fen()), board_fields(&cozy.to_string()), "after {pick}");
            // Every position we reach must survive a trip through the text format.
            let text = game.position().fen();
            assert_eq!(Position::from_fen(Variant::CHESS, &text).unwrap().fen(), text);
        }
    }
    assert!(positions > 10_000, "only {positions} positions checked");
}
