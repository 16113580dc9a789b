//! The example community variants of `docs/examples/`: each file registers as a variant of its
//! own, beside the built-ins and clear of their names; its perft file holds; random games of it
//! run to their end by the rules and every record of them replays.

use std::sync::OnceLock;

use crate::game::{DrawReason, Game, Outcome, WinReason};
use crate::moves::Move;
use crate::notation;
use crate::perft::perft;
use crate::position::Position;
use crate::record::replay;
use crate::types::Color;
use crate::variant::{Reserve, StalemateRule, Variant, normalised};
use crate::variant_file::read_variant_file;

/// `(name, file, perft file)` of each example.
const EXAMPLES: [(&str, &str, &str); 3] = [
    (
        "hans38-seven",
        include_str!("../../docs/examples/hans38-seven.toml"),
        include_str!("../../docs/examples/hans38-seven.perft"),
    ),
    (
        "tiled-squares-laid",
        include_str!("../../docs/examples/tiled-squares-laid.toml"),
        include_str!("../../docs/examples/tiled-squares-laid.perft"),
    ),
    (
        "shrink-stalemate-loses",
        include_str!("../../docs/examples/shrink-stalemate-loses.toml"),
        include_str!("../../docs/examples/shrink-stalemate-loses.perft"),
    ),
];

/// The examples, registered once for the whole test binary (the registry is one per process).
fn examples() -> &'static [Variant; 3] {
    static REGISTERED: OnceLock<[Variant; 3]> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        EXAMPLES.map(|(name, text, _)| {
            let def = read_variant_file(text).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
            assert_eq!(def.name, name, "docs/examples/{name}.toml names another variant");
            Variant::register(def).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
    })
}

fn example(name: &str) -> Variant {
    let i = EXAMPLES.iter().position(|(n, _, _)| *n == name).expect("an example");
    examples()[i]
}

/// A perft file's cases, `(id, position, depth, nodes)`: blocks of `id`, `epd` and `perft DEPTH
/// NODES` lines, `#` comments, as `tests/data/perft/*.perft`.
fn perft_cases(text: &str) -> Vec<(String, String, u32, u64)> {
    let (mut id, mut fen, mut cases) = (String::new(), String::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or_else(|| panic!("line {}: {line}", n + 1));
        match key {
            "id" => id = value.to_string(),
            "epd" => fen = value.to_string(),
            "perft" => {
                let (depth, nodes) = value.split_once(' ').expect("perft DEPTH NODES");
                cases.push((id.clone(), fen.clone(), depth.parse().unwrap(), nodes.parse().unwrap()));
            }
            other => panic!("line {}: unknown key {other}", n + 1),
        }
    }
    cases
}

#[test]
fn the_examples_register_clear_of_the_built_ins() {
    let built_in: Vec<String> = Variant::ALL
        .iter()
        .flat_map(|v| std::iter::once(v.name()).chain(v.aliases().iter().copied()))
        .map(normalised)
        .collect();
    for (&v, (name, _, _)) in examples().iter().zip(EXAMPLES) {
        assert!(!Variant::ALL.contains(&v) && Variant::all().contains(&v), "{name}");
        assert_eq!(v.name(), name);
        for n in std::iter::once(v.name()).chain(v.aliases().iter().copied()) {
            assert!(!built_in.contains(&normalised(n)), "{name}: {n} is a built-in's name");
            assert_eq!(n.parse::<Variant>(), Ok(v), "{n}");
        }
        // Its `!t rules` example is a legal first turn.
        let mut game = Game::from_variant(v);
        game.play_text(v.info().help.example).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn the_examples_perft_files_hold() {
    for (&v, (name, _, file)) in examples().iter().zip(EXAMPLES) {
        let cases = perft_cases(file);
        assert!(cases.iter().any(|(_, fen, _, _)| fen == v.start_fen()), "{name}: no case from the start");
        for (id, fen, depth, nodes) in cases {
            let pos = Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{name} {id}: {e}"));
            assert_eq!(perft(&pos, depth), nodes, "{name} {id} at depth {depth}");
        }
    }
}

/// Random games of every example until the rules end them (mate, stalemate, repetition, the move
/// count): each ends, and its record replays to the same position and ending. The players take a
/// piece when they can, half the time: without that, a game of the squares family can run on for
/// many thousands of turns, since taking an empty square resets the move count (R-L22) and two
/// lone kings can take each other's squares for ever.
#[test]
fn random_games_of_the_examples_end_and_replay() {
    let mut seed = 0x0e8a_3b1e_u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for (&v, (name, _, _)) in examples().iter().zip(EXAMPLES) {
        let mut plies = Vec::new();
        for _ in 0..8 {
            let mut game = Game::from_variant(v);
            while game.outcome().is_none() {
                assert!(game.moves().len() < 5000, "{name}: a game of 5000 plies has not ended");
                let moves = game.position().legal_moves();
                let captures: Vec<Move> = moves.iter().copied().filter(Move::is_capture).collect();
                let mv = if !captures.is_empty() && next() % 2 == 0 {
                    captures[next() % captures.len()]
                } else {
                    moves[next() % moves.len()]
                };
                game.play(mv).unwrap();
            }
            plies.push(game.moves().len());
            let record = game.record();
            let back = replay(v, &record).unwrap_or_else(|e| panic!("{name}: {e}\n{record}"));
            assert_eq!(back.game.position(), game.position(), "{name}: {record}");
            assert_eq!(back.game.outcome(), game.outcome(), "{name}: {record}");
        }
        println!("{name}: games of {plies:?} plies");
    }
}

#[test]
fn hans38_seven_is_seven_files_wide() {
    let v = example("hans38-seven");
    let r = v.rules();
    assert_eq!((r.width, r.reserve, r.double_step), (7, Reserve::Finite(5), false));
    let start = Position::start(v);
    assert_eq!(start.size(), (7, 8));
    // White's first turn: a square from hand on any of the 28 holes; no piece can move yet.
    assert_eq!(start.legal_moves().len(), 28);
    // Nothing reaches the h-file: not a square, not a piece, not a placement.
    for text in ["@@h4", "@g1-h3"] {
        let why = notation::parse_move(&start, text).unwrap_err().to_string();
        assert!(why.contains("h"), "{text}: {why}");
    }
    // Squares laid on e3 and e4: the pawn steps to e3, not two squares to e4.
    let laid = Position::from_fen(
        v,
        "rnbqkbr/ppppppp/*******/*******/****+**/****+**/PPPPPPP/RNBQKBR w KQkq - 0 3 hand:3/5",
    )
    .unwrap();
    let why = notation::parse_move(&laid, "e2-e4").unwrap_err().to_string();
    assert!(why.contains("pawns never step two squares"), "{why}");
    notation::parse_move(&laid, "e2-e3").unwrap();
    // Castling towards the g-file rook: the king to g1, the rook to f1.
    let castle = Position::from_fen(v, "4k2/7/7/7/7/7/7/4K1R w K - 0 1 hand:5/5").unwrap();
    let after = castle.played(&notation::parse_move(&castle, "O-O").unwrap());
    assert_eq!(after.fen(), "4k2/7/7/7/7/7/7/4+RK b - - 1 1 hand:5/5");
    // Perft on 7 files against 8: no turn of the narrow board names a location on the h-file.
    let mut moves = Vec::new();
    let mut pos = laid;
    for _ in 0..40 {
        moves.clear();
        pos.legal_moves_into(&mut moves);
        for mv in &moves {
            assert!(!notation::lan(&pos, mv).contains('h'), "{}", notation::lan(&pos, mv));
        }
        if moves.is_empty() {
            break;
        }
        pos = pos.played(&moves[moves.len() / 2]);
    }
}

#[test]
fn tiled_squares_laid_starts_with_two_ranks_laid_and_placements_do_not_reset_the_count() {
    let v = example("tiled-squares-laid");
    let start = Position::start(v);
    // 16 void locations × a tile or an anti-tile, 8 own empty tiles to take away, 8 pawn steps
    // onto rank 3 and 4 knight moves: 52 (the double step would land on void).
    assert_eq!(start.legal_moves().len(), 52);
    let mut game = Game::from_variant(v);
    game.play_text("@@e4").unwrap();
    assert_eq!(game.position().halfmoves(), 1, "a tile laid counts on");
    game.play_text("@!d5").unwrap();
    assert_eq!(game.position().halfmoves(), 0, "an anti-tile resets it, as in Tiled Squares (R-T12)");
    assert!(!v.rules().placement_resets_clock && Variant::TILED_SQUARES.rules().placement_resets_clock);
}

#[test]
fn shrink_stalemate_loses_by_stalemate() {
    let v = example("shrink-stalemate-loses");
    assert_eq!(v.stalemate(), StalemateRule::Loss);
    let fen = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let ours = Game::new(Position::from_fen(v, fen).unwrap());
    assert_eq!(ours.outcome(), Some(Outcome::Win { winner: Color::White, reason: WinReason::Stalemate }));
    let theirs = Game::new(Position::from_fen(Variant::SHRINK, fen).unwrap());
    assert_eq!(theirs.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
    // Otherwise Shrink Chess: the same turns from the same positions.
    let mut pos = Position::start(v);
    for i in 0..60 {
        let moves = pos.legal_moves();
        let shrink = Position::from_fen(Variant::SHRINK, &pos.fen()).unwrap().legal_moves();
        assert_eq!(moves, shrink, "{}", pos.fen());
        if moves.is_empty() {
            break;
        }
        pos = pos.played(&moves[(i * 7) % moves.len()]);
    }
}
