//! Refusals a new player reads, on positions reached by real moves: each must name things the way
//! the player wrote them and say what would be right (issue 26).

use tessera_rules::notation::{self, parse_move};
use tessera_rules::{Position, Variant};
use tessera_tests::{play, refused};

/// Plays a line of turns from the variant's start.
fn after(variant: Variant, turns: &[&str]) -> Position {
    turns.iter().fold(Position::start(variant), |p, t| play(&p, t))
}

/// Quad-Square: a refusal names a quad-square by its name, whichever of its cells the move wrote,
/// and a cell of a quad names the quad as an origin too (R-Q: locations).
#[test]
fn quad_square_refusals_name_locations_as_the_player_does() {
    let p = after(Variant::QUAD_SQUARE, &["c3-c4"]);
    // Black's knight stands on S4 (f7 g7 f8 g8).
    for text in ["NS4-M1", "Nf8-M1", "Ng8-c5", "Nf7-b4"] {
        let why = refused(&p, text).replacen(text, "", 1);
        assert!(why.contains("the knight on S4 cannot move to M1"), "{text}: {why}");
        for cell in ["f7", "f8", "g8", "b4", "c5"] {
            assert!(!why.contains(cell), "{text} names the cell {cell}: {why}");
        }
    }
    // Any cell of S4 names the knight standing there.
    let by_quad = parse_move(&p, "NS4-d7").unwrap();
    for text in ["Nf8-d7", "Ng8-d7", "Ng7-d7"] {
        assert_eq!(parse_move(&p, text).unwrap(), by_quad, "{text}");
    }
    // A role letter that is not there is refused by the quad's name.
    assert!(refused(&p, "Bf8-d7").contains("there is no bishop of yours on S4"), "{}", refused(&p, "Bf8-d7"));
}

/// Shrink: after 1. e2-e4 d7-d5 2. e4xd5 the 4th rank vanished; the black queen's d8 is d7 now,
/// and there is no d8: say so, with the board's size and where the queen is (S2).
#[test]
fn shrink_says_a_square_is_gone() {
    let p = after(Variant::SHRINK, &["e2-e4", "d7-d5", "e4xd5"]);
    assert_eq!(p.size(), (8, 7));
    let why = refused(&p, "Qd8-d4");
    assert!(why.contains("there is no d8 any more: the 8th rank is gone"), "{why}");
    assert!(why.contains("(a rank vanished and the board closed up towards a1; it is 8×7 now)"), "{why}");
    assert!(why.contains("your queen stands on d7"), "{why}");
    assert!(!why.contains("there is no piece on d8"), "{why}");
    // The same as a destination, and the renamed square is the right one.
    let why = refused(&p, "Qd7-d8");
    assert!(why.contains("there is no d8 any more"), "{why}");
    assert!(parse_move(&p, "Qd7-d5").is_ok());
}

/// Blue Chip: a move that cannot be made is refused for itself; the chip is asked for only when
/// the move can be made and the chip alone is missing (B2).
#[test]
fn blue_chip_asks_for_the_chip_only_after_a_possible_move() {
    // White's e-pawn stands blocked on e4 by Black's on e5; the d-pawn could take it.
    let p = after(Variant::BLUE_CHIP, &["[e5]", "e2-e4[d5]", "e7-e5[a6]", "d2-d4[h6]", "Nb8-c6[h3]"]);
    let why = refused(&p, "exe5");
    assert!(!why.contains("chip"), "{why}");
    assert!(why.contains("a pawn takes diagonally, so `exe5` takes nothing"), "{why}");
    let why = refused(&p, "Ke1-e3");
    assert!(!why.contains("chip"), "{why}");
    assert!(why.contains("the king on e1 cannot move to e3"), "{why}");
    // A move that can be made, without its chip: the chip is what is missing.
    let why = refused(&p, "dxe5");
    assert!(why.contains("after your move, place the chip"), "{why}");
    assert!(parse_move(&p, "dxe5[d4]").is_ok());
    // The case: the e-pawn could step to e5, but `exe5` writes a capture along its own
    // file, which no pawn makes: refused as such, not read as the step and asked for a chip.
    let p = after(Variant::BLUE_CHIP, &["[h6]", "e2-e4[h3]", "a7-a6[h6]"]);
    assert!(parse_move(&p, "e4-e5[d4]").is_ok());
    let why = refused(&p, "exe5");
    assert!(!why.contains("chip"), "{why}");
    assert!(
        why.contains("a pawn takes diagonally, so `exe5` takes nothing: write `e5` for the step"),
        "{why}"
    );
    // So in chess too; where a pawn takes a square by stepping onto it (Hans38), the mark stays.
    let p = after(Variant::CHESS, &["e2-e4", "a7-a6"]);
    assert!(refused(&p, "exe5").contains("a pawn takes diagonally"), "{}", refused(&p, "exe5"));
    assert!(parse_move(&p, "e5").is_ok());
}

/// Infinite Reserves: the piece move comes first (L9, L12); a turn written the other way round is
/// refused with the turn put in order, offered when it is legal.
#[test]
fn the_piece_move_comes_first() {
    let p = after(Variant::INFINITE_RESERVES, &["@@f3", "@@f6"]);
    let why = refused(&p, "@@e3 Ng1-f3");
    assert!(why.contains("the piece move comes first, then the square actions: `Ng1-f3 @@e3`"), "{why}");
    assert!(parse_move(&p, "Ng1-f3 @@e3").is_ok());
    // Three actions: the square move and the placement keep their order after the piece move.
    let why = refused(&p, "@@e3 @f3-f4 Ng1-h3");
    assert!(why.contains("`Ng1-h3 @@e3 @f3-f4`"), "{why}");
    // The same order advice where the turn in order is not legal either, with why.
    let start = Position::start(Variant::INFINITE_RESERVES);
    let why = refused(&start, "@@f3 Ng1-f3");
    assert!(why.contains("the piece move comes first"), "{why}");
    assert!(why.contains("`Ng1-f3 @@f3` is not legal either: there is no square at f3"), "{why}");
    // The help says so too.
    for v in [Variant::INFINITE_RESERVES, Variant::HANS38_POSTAL_PLUS, Variant::HANS38_NEUTRAL_POSTAL_PLUS] {
        let turn = v.info().help.turn;
        assert!(turn.contains("a piece move first"), "{v}: {turn}");
        assert!(turn.contains("those two in either order"), "{v}: {turn}");
    }
}

/// The hint after unreadable text shows the variant's own forms.
#[test]
fn the_move_syntax_hint_shows_the_variants_forms() {
    let e = notation::parse("Ng1-z3").unwrap_err();
    let hint = |v: Variant| e.in_variant(v);
    assert_eq!(hint(Variant::CHESS), e.to_string());
    for v in [Variant::HANS38, Variant::HANS38_NEUTRAL] {
        assert!(hint(v).contains("@@e4") && hint(v).contains("@g1-g3"), "{v}: {}", hint(v));
    }
    for v in [Variant::HANS38_POSTAL, Variant::HANS38_POSTAL_PLUS, Variant::INFINITE_RESERVES] {
        assert!(hint(v).contains("piece move first"), "{v}: {}", hint(v));
        assert!(
            hint(v).contains("Ng1-f3 @@e4") || hint(v).contains("Ng1-f3 @g1-g3 @@e4"),
            "{v}: {}",
            hint(v)
        );
    }
    assert!(hint(Variant::MOVING_OCCUPIED_SQUARES).contains("carry"));
    let tiled = hint(Variant::TILED_SQUARES);
    assert!(tiled.contains("@@e4") && tiled.contains("@!e4") && tiled.contains("@xe4"), "{tiled}");
    assert!(hint(Variant::BLUE_CHIP).contains("e2-e4[d5]") && hint(Variant::BLUE_CHIP).contains("[e5]"));
    assert!(hint(Variant::QUAD_SQUARE).contains("c3-M1"));
    assert!(hint(Variant::SHRINK).contains("[a1=N]"));
    // Every example in the hints reads as a move.
    for &v in Variant::ALL {
        for word in notation::move_forms(v)
            .split([' ', ',', ';', ':'])
            .filter(|w| w.starts_with(['@', '[']) || w.contains('-'))
        {
            let word = word.trim_end_matches('.');
            if word.chars().any(|c| c.is_ascii_digit()) {
                assert!(notation::parse(word).is_ok(), "{v}: {word} does not read");
            }
        }
    }
}
