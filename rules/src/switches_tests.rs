//! The FIDE switches of a variant file (`[moves]` castling, double-step, promotions and
//! `ending.move-limit`), room by room: hand-counted positions, perft counts that can be reasoned
//! out, and, along random games, each switched variant's legal turns held to its built-in's legal
//! turns less exactly those the switch takes away.

use crate::game::{DrawReason, Game, Outcome};
use crate::moves::{Action, Move};
use crate::notation;
use crate::perft::{Generator, generator, perft};
use crate::position::Position;
use crate::types::{Role, Square};
use crate::variant::{Promotions, Variant};
use crate::variant_file::{BUILT_IN_FILES, read_variant_file};

/// A built-in's file under another name, with `edits` made to its text and `extra` appended,
/// registered. Names are unique in the whole test binary, since the registry is one per process.
fn switched(base: Variant, name: &str, edits: &[(&str, &str)], extra: &str) -> Variant {
    let mut text = String::new();
    for line in BUILT_IN_FILES[base.index()].1.lines() {
        if line.starts_with("name = ") {
            text.push_str(&format!("name = \"{name}\"\n"));
        } else if !line.starts_with("aliases = ") {
            text.push_str(line);
            text.push('\n');
        }
    }
    for (from, to) in edits {
        assert!(text.contains(from), "{base}: no {from:?} to change");
        text = text.replacen(from, to, 1);
    }
    text.push_str(extra);
    let def = read_variant_file(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    Variant::register(def).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn pos(v: Variant, fen: &str) -> Position {
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{v}: {fen}: {e}"))
}

fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
    moves.sort_by_key(|m| format!("{m:?}"));
    moves
}

use crate::perft::general;

fn is_double_step(mv: &Move) -> bool {
    mv.actions().any(|a| {
        matches!(a, Action::Normal { role: Role::Pawn, from, to, .. } if from.rank().abs_diff(to.rank()) == 2)
    })
}

/// Whether every piece a turn makes of a pawn is in `set`: by its own move, by a carried square,
/// or by a shrink.
fn promotes_within(pos: &Position, mv: &Move, set: Promotions) -> bool {
    mv.actions().all(|a| a.promotion().is_none_or(|r| set.contains(r)))
        && pos.shrink_promotions(mv).iter().all(|&(_, r)| set.contains(r))
}

/// In `p` (a position of the switched variant `v`), the legal turns are the built-in's less those
/// `keep` refuses; gives how many were taken away.
fn check_filtered(v: Variant, base: Variant, p: &Position, keep: &dyn Fn(&Position, &Move) -> bool) -> usize {
    let theirs = pos(base, &p.fen());
    let all = theirs.legal_moves();
    let expected: Vec<Move> = all.iter().copied().filter(|m| keep(&theirs, m)).collect();
    let removed = all.len() - expected.len();
    assert_eq!(sorted(p.legal_moves()), sorted(expected), "{v} at {}", p.fen());
    assert_eq!(p.has_legal_moves(), !p.legal_moves().is_empty(), "{v} at {}", p.fen());
    removed
}

/// Random games of `v` from `starts`, checking every position by [`check_filtered`]; gives how
/// many turns the switch took away in all.
fn walk(
    v: Variant,
    base: Variant,
    starts: &[&str],
    games: usize,
    plies: usize,
    keep: &dyn Fn(&Position, &Move) -> bool,
) -> usize {
    let mut seed = 0x5eed_u64 ^ v.index() as u64;
    let mut removed = 0;
    for start in starts {
        for _ in 0..games {
            let mut p = pos(v, start);
            for _ in 0..plies {
                removed += check_filtered(v, base, &p, keep);
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p = p.played(&moves[(seed >> 33) as usize % moves.len()]);
            }
        }
    }
    removed
}

const FIDE: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// Pawns a step from promoting on both sides, with pieces to take on the way.
const PROMOTING: &str = "rn3kn1/PPPP4/8/8/8/8/4pppp/K1N3NR w - - 0 1";

#[test]
fn no_double_step_on_the_plain_board() {
    let v = switched(Variant::CHESS, "sw-plain-single-step", &[], "\n[moves]\ndouble-step = false\n");
    let start = Position::start(v);
    assert_eq!(generator(&start), Generator::Plain, "the plain room keeps its fast path");
    // Each side's 8 single steps and 4 knight moves, nothing else, and no reply touches the other.
    assert_eq!(perft(&start, 1), 12);
    assert_eq!(perft(&start, 2), 144);
    for depth in 1..=3 {
        assert_eq!(perft(&start, depth), general(&start, depth), "depth {depth}");
    }
    // Chess's 20 less the 8 double steps.
    assert_eq!(perft(&Position::start(Variant::CHESS), 1) - perft(&start, 1), 8);
    let removed = walk(v, Variant::CHESS, &[FIDE], 8, 60, &|_, m| !is_double_step(m));
    assert!(removed > 100, "{removed} double steps taken away");
    // Refused with the reason, in SAN and in long notation; the single step plays.
    for text in ["e4", "e2-e4", "Pe4"] {
        let why = notation::parse_move(&start, text).unwrap_err().to_string();
        assert!(why.contains("pawns never step two squares in sw-plain-single-step"), "{text}: {why}");
        assert!(why.contains("`e3` is one"), "{text}: {why}");
    }
    notation::parse_move(&start, "e3").unwrap();
    // No position of it has an en passant square, and its start may not give one.
    let e =
        Position::from_fen(v, "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3").unwrap_err();
    assert!(e.to_string().contains("no en passant square"), "{e}");
    assert!(v.help().contains("Moves: pawns never step two squares (so there is no en passant)."));
}

#[test]
fn promotion_pieces_on_the_plain_board() {
    let v = switched(Variant::CHESS, "sw-plain-knights", &[], "\n[moves]\npromotions = [\"knight\"]\n");
    let qn =
        switched(Variant::CHESS, "sw-plain-qn", &[], "\n[moves]\npromotions = [\"knight\", \"queen\"]\n");
    // The king's five steps, b8 and bxa8: in chess each promotion four times (13), here once or twice.
    let fen = "n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(pos(Variant::CHESS, fen).legal_moves().len(), 13);
    assert_eq!(pos(v, fen).legal_moves().len(), 7);
    assert_eq!(pos(qn, fen).legal_moves().len(), 9);
    for (variant, depth) in [(v, 3), (qn, 3)] {
        let p = pos(variant, PROMOTING);
        assert_eq!(generator(&p), Generator::Plain);
        assert_eq!(perft(&p, depth), general(&p, depth), "{variant}");
    }
    let knights = v.rules().promotions;
    let removed = walk(v, Variant::CHESS, &[PROMOTING], 6, 40, &|p, m| promotes_within(p, m, knights));
    assert!(removed > 100, "{removed} promotions taken away");
    // A bare b8 promotes to the one piece there is; =Q is refused, naming the pieces allowed.
    let p = pos(v, fen);
    let mv = notation::parse_move(&p, "b8").unwrap();
    assert_eq!(mv.first().promotion(), Some(Role::Knight));
    let why = notation::parse_move(&p, "b8=Q").unwrap_err().to_string();
    assert!(
        why.contains("in sw-plain-knights a pawn promotes only to a knight (=N), not to a queen"),
        "{why}"
    );
    let why = notation::parse_move(&pos(qn, fen), "bxa8=R").unwrap_err().to_string();
    assert!(why.contains("promotes only to a queen or a knight (=Q or =N), not to a rook"), "{why}");
    // With two pieces the bare move is ambiguous between them.
    assert!(notation::parse_move(&pos(qn, fen), "b8").is_err());
    assert!(qn.help().contains("Moves: a pawn promotes only to a queen or a knight."), "{}", qn.help());
}

#[test]
fn no_castling_anywhere() {
    // Chess's castling position without rights: five king steps, ten and nine rook moves (24).
    let v = switched(
        Variant::CHESS,
        "sw-plain-no-castling",
        &[],
        "\n[board]\nstart = \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\"\n[moves]\ncastling = false\n",
    );
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1";
    assert_eq!(pos(v, fen).legal_moves().len(), 24);
    assert_eq!(pos(Variant::CHESS, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").legal_moves().len(), 26);
    let why = notation::parse_move(&pos(v, fen), "O-O").unwrap_err().to_string();
    assert!(why.contains("there is no castling in sw-plain-no-castling"), "{why}");
    assert!(v.help().contains("Moves: there is no castling."));
    // In every room: the start has no rights, a position that gives some is refused, and O-O is
    // refused with the reason.
    for (base, name) in [
        (Variant::HANS38, "sw-hans38-no-castling"),
        (Variant::TILED_SQUARES, "sw-tiles-no-castling"),
        (Variant::SHRINK, "sw-shrink-no-castling"),
        (Variant::BLUE_CHIP, "sw-chip-no-castling"),
        (Variant::QUAD_SQUARE, "sw-quad-no-castling"),
    ] {
        let rights = base.start_fen().split_whitespace().nth(2).unwrap();
        let fen = base.start_fen();
        let rightless = fen.replacen(&format!(" {rights} "), " - ", 1);
        let v = if BUILT_IN_FILES[base.index()].1.contains("\nstart = ") {
            switched(base, name, &[(fen, &rightless)], "\n[moves]\ncastling = false\n")
        } else {
            let extra = format!("\n[board]\nstart = \"{rightless}\"\n[moves]\ncastling = false\n");
            switched(base, name, &[], &extra)
        };
        let start = Position::start(v);
        assert!(start.castling_rooks().is_empty(), "{v}");
        let e = Position::from_fen(v, base.start_fen()).unwrap_err();
        assert!(e.to_string().contains("has no castling"), "{v}: {e}");
        // (Blue Chip's first turn is the chip alone, which is what its refusal says.)
        if base != Variant::BLUE_CHIP {
            let why = notation::parse_move(&start, "O-O").unwrap_err().to_string();
            assert!(why.contains("there is no castling"), "{v}: {why}");
        }
        // Otherwise the same game: the built-in from the same rightless start has the same turns.
        walk(v, base, &[&start.fen()], 2, 12, &|_, _| true);
    }
    // The file reader refuses a start with rights where there is no castling.
    let text = BUILT_IN_FILES[0].1.replace("name = \"chess\"", "name = \"sw-refused\"")
        + "\n[board]\nstart = \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"\n[moves]\ncastling = false\n";
    let text = text.replace("aliases = [\"fide\", \"standard\"]\n", "");
    let e = read_variant_file(&text).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("board.start"), "{e}");
    assert!(e.message.contains("write '-' in the start's castling field"), "{e}");
}

#[test]
fn no_double_step_in_the_rooms() {
    let extra = "\n[moves]\ndouble-step = false\n";
    // Tiled Squares: of the 3988 turns of depth 2, the 8 black pawns' double steps over the void
    // onto a white tile on the fifth rank go.
    let tiles = switched(Variant::TILED_SQUARES, "sw-tiles-single-step", &[], extra);
    let start = Position::start(tiles);
    assert_eq!((perft(&start, 1), perft(&start, 2)), (64, 3980));
    // Shrink: no line empties in the first two plies, so chess's 8 single steps and 4 knight
    // moves, and 12 × 12.
    let shrink = switched(Variant::SHRINK, "sw-shrink-single-step", &[], extra);
    let start = Position::start(shrink);
    assert_eq!((perft(&start, 1), perft(&start, 2)), (12, 144));
    // Hans38 with the third and fourth ranks laid: the built-in's turns less White's 8 double steps.
    let hans = switched(Variant::HANS38, "sw-hans38-single-step", &[], extra);
    let laid = "rnbqkbnr/pppppppp/********/********/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:3/3";
    assert_eq!(pos(Variant::HANS38, laid).legal_moves().len() - pos(hans, laid).legal_moves().len(), 8);
    // Blue Chip, on the general board.
    let chip = switched(Variant::BLUE_CHIP, "sw-chip-single-step", &[], extra);
    for (v, base, games, plies, least) in [
        (tiles, Variant::TILED_SQUARES, 6, 40, 20),
        (shrink, Variant::SHRINK, 8, 60, 100),
        (hans, Variant::HANS38, 6, 60, 20),
        (chip, Variant::BLUE_CHIP, 3, 24, 100),
    ] {
        let starts = [base.start_fen(), if v == hans { laid } else { base.start_fen() }];
        let removed = walk(v, base, &starts, games, plies, &|_, m| !is_double_step(m));
        assert!(removed >= least, "{v}: {removed} double steps taken away");
    }
}

#[test]
fn promotion_pieces_in_the_rooms() {
    let extra = "\n[moves]\npromotions = [\"rook\", \"knight\"]\n";
    let set = Promotions::of(&[Role::Rook, Role::Knight]).unwrap();
    // Shrink: four black pawns shrunk onto the last rank at once, each a rook or a knight: 2^4
    // turns of the rook to h3, where chess's pieces give 4^4.
    let shrink = switched(Variant::SHRINK, "sw-shrink-rn", &[], extra);
    let fen = "4k3/8/8/7K/8/8/pppp4/7R w - - 0 1";
    let to_h3 = |v: Variant| {
        let p = pos(v, fen);
        p.legal_moves().iter().filter(|m| notation::lan(&p, m).starts_with("Rh1-h3")).count()
    };
    assert_eq!((to_h3(Variant::SHRINK), to_h3(shrink)), (256, 16));
    let p = pos(shrink, fen);
    // Named nothing: each the first piece allowed, a rook.
    let after = p.played(&notation::parse_move(&p, "Rh3").unwrap());
    for s in ["a1", "b1", "c1", "d1"] {
        assert_eq!(after.piece_at(Square::parse(s).unwrap()).map(|pc| pc.role), Some(Role::Rook), "{s}");
    }
    notation::parse_move(&p, "Rh1-h3[a1=N,b1=N]").unwrap();
    let why = notation::parse_move(&p, "Rh1-h3[a1=Q]").unwrap_err().to_string();
    assert!(
        why.contains("in sw-shrink-rn a pawn promotes only to a rook or a knight, not to a queen"),
        "{why}"
    );
    // Every room that promotes by the board's own generator, from positions full of promotions.
    let hans = switched(Variant::HANS38, "sw-hans38-rn", &[], extra);
    let tiles = switched(Variant::TILED_SQUARES, "sw-tiles-rn", &[], extra);
    let chip = switched(Variant::BLUE_CHIP, "sw-chip-rn", &[], extra);
    for (v, base, start, plies) in [
        (shrink, Variant::SHRINK, PROMOTING.to_string(), 40),
        (hans, Variant::HANS38, format!("{PROMOTING} hand:3/3"), 30),
        (tiles, Variant::TILED_SQUARES, PROMOTING.to_string(), 30),
        (chip, Variant::BLUE_CHIP, format!("{PROMOTING} chip:e5"), 16),
    ] {
        let removed = walk(v, base, &[&start], 4, plies, &|p, m| promotes_within(p, m, set));
        assert!(removed > 20, "{v}: {removed} promotions taken away");
        let p = pos(v, &start);
        let why = notation::parse_move(&p, "b8=Q").unwrap_err().to_string();
        assert!(why.contains("promotes only to a rook or a knight (=R or =N), not to a queen"), "{v}: {why}");
    }
}

#[test]
fn the_move_count_moves_the_fifty_and_seventy_five_move_rules() {
    let forty = switched(Variant::CHESS, "sw-forty-moves", &[], "\n[ending]\nmove-limit = 40\n");
    let none = switched(Variant::CHESS, "sw-no-move-limit", &[], "\n[ending]\nmove-limit = \"none\"\n");
    let game_after = |v: Variant, halfmoves: u32| {
        let mut game = Game::new(pos(v, &format!("4k3/8/8/8/8/8/8/R3K3 w - - {halfmoves} 80")));
        game.play_text("Ra2").unwrap();
        game
    };
    // 40 moves: a claim after 80 half-moves, the automatic draw after 120 (as 50 and 75 are 100 and 150).
    assert_eq!(game_after(forty, 78).claimable_draw(), None);
    assert_eq!(game_after(forty, 79).claimable_draw(), Some(DrawReason::FiftyMoves));
    assert_eq!(game_after(forty, 118).outcome(), None);
    assert_eq!(
        game_after(forty, 119).outcome(),
        Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves })
    );
    // Chess's own, unchanged.
    assert_eq!(game_after(Variant::CHESS, 98).claimable_draw(), None);
    assert_eq!(game_after(Variant::CHESS, 99).claimable_draw(), Some(DrawReason::FiftyMoves));
    assert_eq!(
        game_after(Variant::CHESS, 149).outcome(),
        Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves })
    );
    // No rule: neither, however long.
    let endless = game_after(none, 10_000);
    assert_eq!((endless.claimable_draw(), endless.outcome()), (None, None));
    assert!(forty.ends().contains("a 40-move rule in place of the 50-move rule"), "{}", forty.ends());
    assert!(forty.ends().contains("automatic after 60)"), "{}", forty.ends());
    assert!(none.ends().contains("no 50-move rule"), "{}", none.ends());
    let odd = switched(Variant::CHESS, "sw-odd-moves", &[], "\n[ending]\nmove-limit = 25\n");
    assert!(odd.ends().contains("automatic after 37½)"), "{}", odd.ends());
    assert_eq!((odd.rules().claim_plies(), odd.rules().automatic_plies()), (Some(50), Some(75)));
    // The count is the game's, whatever the room: Hans38 with a 10-move rule.
    let hans = switched(
        Variant::HANS38,
        "sw-hans38-ten-moves",
        &[("[ending]\n", "[ending]\nmove-limit = 10\n")],
        "",
    );
    let hans_after = |halfmoves: u32| {
        let mut game = Game::new(pos(hans, &format!("4k3/8/8/8/8/8/8/R3K3 w - - {halfmoves} 80 hand:0/0")));
        game.play_text("Ra1-a2").unwrap();
        game
    };
    assert_eq!(hans_after(18).claimable_draw(), None);
    assert_eq!(hans_after(19).claimable_draw(), Some(DrawReason::FiftyMoves));
    assert_eq!(hans_after(28).outcome(), None);
    assert_eq!(hans_after(29).outcome(), Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves }));
    // A switch that changes only the ending leaves the moves as chess's and the help without a Moves line.
    assert!(!forty.help().contains("Moves:"));
}

#[test]
fn every_built_in_keeps_the_fide_switches() {
    for &v in Variant::ALL {
        let r = v.rules();
        assert!(r.fide_moves(), "{v}");
        assert_eq!(r.move_limit, Some(50), "{v}");
        assert_eq!(v.moves_note(), None, "{v}");
    }
    assert_eq!(Promotions::of(&Role::PROMOTIONS), Some(Promotions::ALL));
    assert_eq!(Promotions::of(&[]), None);
    assert_eq!(Promotions::of(&[Role::King]), None);
    assert_eq!(Promotions::ALL.names(), "a queen, a rook, a bishop or a knight");
    let _ = FIDE;
}
