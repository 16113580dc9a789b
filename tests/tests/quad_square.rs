//! Hand-checked positions for Quad-Square Chess (the rules R-Q1 to R-Q20 in
//! docs/rules/quad-square.md). Positions are 7 files wide; a quad's pieces are written on its two
//! lower cells (S1: a1 b1, S2: f1 g1, S3: a7 b7, S4: f7 g7, M1: b4 c4, M2: e4 f4).

use std::collections::BTreeSet;
use tessera_tests::{play, position, refused, sq};

use tessera_rules::notation::{self, MoveError, ResolveError};
use tessera_rules::quad::{self, occupants};
use tessera_rules::{Color, DrawReason, Game, Outcome, Piece, Position, Role, Variant, WinReason, replay};

const V: Variant = Variant::QUAD_SQUARE;

fn pos(fen: &str) -> Position {
    position(V, fen)
}

/// Where the piece standing at `from` can go, by location name.
fn destinations(p: &Position, from: &str) -> BTreeSet<String> {
    let from = quad::quad_named(from).map_or_else(|| sq(from), |q| q.cells[0]);
    p.legal_moves()
        .iter()
        .filter(|m| m.first().from() == from)
        .map(|m| {
            let text = notation::lan(p, m);
            let to = text.split(['-', 'x']).nth(1).unwrap().to_string();
            to.trim_end_matches(['+', '#']).to_string()
        })
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn pieces_on(p: &Position, quad_name: &str) -> Vec<char> {
    let mut v: Vec<char> =
        occupants(p, quad::quad_named(quad_name).unwrap().cells[0]).iter().map(|(_, pc)| pc.char()).collect();
    v.sort();
    v
}

#[test]
fn the_start_position() {
    let start = Position::start(V);
    assert_eq!(start.size(), (7, 8));
    assert_eq!(pieces_on(&start, "S1"), ['R']);
    assert_eq!(pieces_on(&start, "S2"), ['N']);
    assert_eq!(pieces_on(&start, "S3"), ['r']);
    assert_eq!(pieces_on(&start, "S4"), ['n']);
    // 7 pawn steps (three onto M1/M2), rook 4, bishop 2, king 3, queen 3, knight 3.
    assert_eq!(start.legal_moves().len(), 22);
    assert_eq!(destinations(&start, "S1"), names(&["c2", "d2", "e2", "S2"]));
    // R-Q10: out of S2 to e1/e2 then on diagonally to the d-file, or up to f3/g3 then on to M2 or
    // g4; d1 and d3 hold White's own king and pawn. Never e2.
    assert_eq!(destinations(&start, "S2"), names(&["d2", "M2", "g4"]));
    assert!(refused(&start, "NS2-e2").contains("e2"));
    assert_eq!(destinations(&start, "c1"), names(&["d2", "S1"]));
    assert!(refused(&start, "h3").contains("h3 is off this board"));
}

#[test]
fn a_bishop_on_a_quad_has_twelve_paths() {
    let p = pos("3k3/7/7/7/1B5/7/7/2K4 w - - 0 1");
    let expected = [
        "d6", "e7", "S4", "c3", "d2", "e1", "a3", "d5", "e6", "a6", "d3", "e2", "S2", "b3", "S1", "c6", "d7",
        "e8", "a4", "b6", "S3", "d4", "e3", "a5",
    ];
    assert_eq!(destinations(&p, "M1"), names(&expected));
}

#[test]
fn central_quads_stop_lines_but_empty_side_quads_let_them_through() {
    let p = pos("3k3/7/7/7/R6/7/7/3K3 w - - 0 1");
    // East the rook enters M1 and stops; north and south it crosses the empty S3 and S1.
    assert_eq!(destinations(&p, "a4"), names(&["M1", "a5", "a6", "S3", "a3", "S1"]));
    let p = pos("3k3/7/7/7/7/7/7/2BK3 w - - 0 1");
    assert_eq!(destinations(&p, "c1"), names(&["S1", "a3", "d2", "e3", "M2"]));
    // A quad holding a piece blocks like an occupied square.
    let p = pos("3k3/7/7/7/7/7/7/N1BK3 w - - 0 1");
    assert_eq!(destinations(&p, "c1"), names(&["S1", "d2", "e3", "M2"]));
}

#[test]
fn knights_leap_central_quads_from_any_cell() {
    let p = pos("3k3/7/7/7/1N5/7/7/3K3 w - - 0 1");
    let d = destinations(&p, "M1");
    // From b4, c4, b5, c5: a step out of M1, then on diagonally (R-Q10); M1 itself and the
    // twelve squares around it are out of reach.
    let expected = ["c2", "S1", "d2", "e3", "M2", "S3", "c7", "e6", "d7"];
    assert_eq!(d, names(&expected));
    // A knight on d4 steps into M1 and on to b3, over it; never onto M1 or M2, as a step into
    // either and on diagonally stays inside it.
    let p = pos("3k3/7/7/7/3N3/7/7/3K3 w - - 0 1");
    assert_eq!(destinations(&p, "d4"), names(&["e6", "f3", "e2", "c2", "b3", "c6"]));
}

#[test]
fn the_knight_steps_out_and_on_diagonally_location_by_location() {
    // R-Q10's examples: from S2 d1, d2, d3, g4 and M2 (never e1, e2, e3, f3, g3).
    let p = pos("3k3/7/7/7/7/7/7/K4N1 w - - 0 1");
    assert_eq!(destinations(&p, "S2"), names(&["d1", "d2", "d3", "g4", "M2"]));
    // From e3: c2, d1, d5, g4, M1, and S2 through f3; never M2 (up into M2, on to f5: still M2).
    let p = pos("3k3/7/7/7/7/4N2/7/K6 w - - 0 1");
    assert_eq!(destinations(&p, "e3"), names(&["c2", "d1", "d5", "g4", "M1", "S2"]));
    // From d6 both middle quads (down to d5, on to c4 or e4), S3 (left to c6, on to b7) and S4.
    let p = pos("3k3/7/3N3/7/7/7/7/K6 w - - 0 1");
    assert_eq!(destinations(&p, "d6"), names(&["S3", "c8", "e8", "M1", "M2", "S4"]));
    // From c3 never M1: up into M1 and on stays in it or leaves to d5.
    let p = pos("3k3/7/7/7/7/2N4/7/K6 w - - 0 1");
    assert_eq!(destinations(&p, "c3"), names(&["a4", "S1", "d1", "d5", "e2", "M2"]));
    // Not symmetric: e3 reaches S2, S2 not e3; d6 reaches M1, M1 not d6.
    assert!(!destinations(&pos("3k3/7/7/7/1N5/7/7/K6 w - - 0 1"), "M1").contains("d6"));
}

#[test]
fn howes_knight_move_d6_to_m1_is_accepted_as_written() {
    // The author's sample game plays `7... d6-M1`: a knight from d6 onto M1, no piece letter.
    let p = pos("3k3/7/3n3/7/7/7/7/3K3 b - - 0 1");
    for text in ["d6-M1", "Nd6-M1", "Nd6-b4", "d6-c5"] {
        let after = play(&p, text);
        assert_eq!(pieces_on(&after, "M1"), ['n'], "{text}");
    }
    // Onto M1 beside a white pawn: shared, no capture; and it reads back from the record.
    let p = pos("3k3/7/3n3/7/1P5/7/7/3K3 b - - 0 1");
    let mut g = Game::new(p);
    g.play_text("d6-M1").unwrap();
    assert_eq!(pieces_on(g.position(), "M1"), ['P', 'n']);
    assert!(g.record().contains("d6-M1"), "{}", g.record());
}

#[test]
fn check_by_a_knight_is_the_knights_own_move() {
    // The move is not symmetric, so a check is read from the attacker's moves: a king on a plain
    // square B is in check from a knight on A exactly when the knight on A could move to B.
    let locations: Vec<String> = (0..8u8)
        .flat_map(|r| (0..7u8).map(move |f| quad::location_name(tessera_rules::Square::from_coords(f, r))))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(locations.len(), 38);
    // A location's lower-left cell, where the position text writes a piece standing there.
    let cell = |name: &str| quad::quad_named(name).map_or_else(|| sq(name), |q| q.cells[0]);
    let with = |pieces: &[(&str, char)]| {
        let mut board = [['1'; 7]; 8];
        for (loc, c) in pieces {
            let s = cell(loc);
            board[7 - s.rank() as usize][s.file() as usize] = *c;
        }
        let rows: Vec<String> = board
            .iter()
            .map(|row| {
                let mut out = String::new();
                let mut empty = 0;
                for &c in row {
                    if c == '1' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                        }
                        empty = 0;
                        out.push(c);
                    }
                }
                if empty > 0 {
                    out.push_str(&empty.to_string());
                }
                out
            })
            .collect();
        Position::from_fen(V, &format!("{} w - - 0 1", rows.join("/"))).ok()
    };
    // Kings stand on d1 and d8 (every position needs them); those two take no part.
    let kings = [("d1", 'K'), ("d8", 'k')];
    let free: Vec<&String> = locations.iter().filter(|l| *l != "d1" && *l != "d8").collect();
    let mut reach: BTreeSet<(String, String)> = BTreeSet::new();
    // Where the knight would check the king on d8 the position is not White's to move: skipped.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for a in &free {
        let Some(p) = with(&[kings[0], kings[1], (a.as_str(), 'N')]) else { continue };
        seen.insert((*a).clone());
        for b in destinations(&p, a).into_iter().filter(|b| b != "d1" && b != "d8") {
            reach.insert(((*a).clone(), b));
        }
    }
    assert!(seen.len() > 30 && reach.len() > 100, "{} knight moves found", reach.len());
    // The pairs one way only, as the ruling says: e3 to S2, d6 to M1.
    let one_way: Vec<&(String, String)> =
        reach.iter().filter(|(a, b)| seen.contains(b) && !reach.contains(&(b.clone(), a.clone()))).collect();
    for pair in [("e3", "S2"), ("d6", "M1")] {
        assert!(one_way.contains(&&(pair.0.to_string(), pair.1.to_string())), "{pair:?}: {one_way:?}");
    }
    let mut checked = 0;
    for a in free.iter().filter(|a| seen.contains(**a)) {
        for b in free.iter().filter(|b| *b != a && quad::quad_named(b).is_none()) {
            let Some(black) = with(&[("d1", 'K'), (b.as_str(), 'k'), (a.as_str(), 'N')])
                .map(|p| p.fen().replacen(" w ", " b ", 1))
            else {
                continue;
            };
            let black = Position::from_fen(V, &black).unwrap();
            assert_eq!(
                black.is_check(),
                reach.contains(&((*a).clone(), (*b).clone())),
                "knight {a}, king {b}"
            );
            checked += 1;
        }
    }
    assert!(checked > 600, "{checked}");
    // On a quad, with a piece of its own beside it (so an enemy moving in takes it): a knight on
    // d6 checks a king on M1, one on M1 does not check a king on d6.
    assert!(pos("7/7/3N3/7/1kp4/7/7/K6 b - - 0 1").is_check());
    assert!(!pos("7/7/3k3/7/1N5/7/7/K6 b - - 0 1").is_check());
    // A knight on e3 checks a black king sharing S2 with a black pawn; from S2 none reaches e3.
    assert!(pos("3K3/7/7/7/7/4N2/7/5kn b - - 0 1").is_check());
    assert!(!pos("7/7/7/7/7/4k2/7/K4N1 b - - 0 1").is_check());
}

#[test]
fn sharing_and_capturing_on_quads() {
    // Two black pieces on M1: the mover chooses which to take.
    let p = pos("7/7/7/6k/1nb4/3Q3/7/3K3 w - - 0 1");
    match notation::parse_move(&p, "Qd3xM1") {
        Err(MoveError::Resolve(ResolveError::Ambiguous { candidates, .. })) => {
            assert_eq!(candidates.len(), 2);
            assert!(
                candidates.contains(&"Qd3xM1(N)".to_string())
                    && candidates.contains(&"Qd3xM1(B)".to_string())
            );
        }
        other => panic!("{other:?}"),
    }
    let after = play(&p, "Qd3xM1(N)");
    assert_eq!(pieces_on(&after, "M1"), ['Q', 'b']);
    // Two of opposite colours sharing a quad never take each other; only the bishop's sacrifice
    // removes the queen, and the bishop with it.
    let takes_on_m1: Vec<String> = after
        .legal_moves()
        .iter()
        .filter(|m| m.first().is_capture() && notation::lan(&after, m).contains("xM1"))
        .map(|m| notation::lan(&after, m))
        .collect();
    assert_eq!(takes_on_m1, ["BM1xM1"]);
    // One friend and one enemy: the enemy is taken.
    let p = pos("7/7/7/6k/1nP4/3Q3/7/3K3 w - - 0 1");
    let after = play(&p, "Qd3xM1");
    assert_eq!(pieces_on(&after, "M1"), ['P', 'Q']);
    // Two friends: no room.
    let p = pos("7/7/7/6k/1NP4/3Q3/7/3K3 w - - 0 1");
    assert!(refused(&p, "Qd3-M1").contains("M1 already holds two of your pieces"));
    // One enemy alone: the queen shares the quad.
    let p = pos("7/7/7/6k/1n5/3Q3/7/3K3 w - - 0 1");
    let after = play(&p, "Qd3-M1");
    assert_eq!(pieces_on(&after, "M1"), ['Q', 'n']);
    assert_eq!(after.halfmoves(), 1, "sharing is no capture");
}

#[test]
fn bishop_sacrifices() {
    // Moving: the bishop takes a lone enemy on a quad and is lost with it.
    let p = pos("3k3/7/7/7/1n5/3B3/7/3K3 w - - 0 1");
    let after = play(&p, "Bd3xM1");
    assert!(pieces_on(&after, "M1").is_empty());
    assert_eq!(after.halfmoves(), 0);
    // Without the capture mark it shares.
    let after = play(&p, "Bd3-M1");
    assert_eq!(pieces_on(&after, "M1"), ['B', 'n']);
    // Sharing, it may remove both without moving.
    let after = play(&after.played(&notation::parse_move(&after, "Kd8-c8").unwrap()), "BM1xM1");
    assert!(pieces_on(&after, "M1").is_empty());
}

#[test]
fn a_rook_pins_the_enemy_sharing_its_quad() {
    // The black knight shares M1 with a white rook: it cannot leave.
    let p = pos("3k3/7/7/7/1Rn4/7/7/3K3 b - - 0 1");
    assert!(
        !p.legal_moves()
            .iter()
            .any(|m| m.first().from() == sq("b4") && notation::lan(&p, m).starts_with('N'))
    );
    assert!(refused(&p, "NM1-d6").contains("pinned by the rook"));
    // A pinned bishop may still sacrifice itself for the rook.
    let p = pos("3k3/7/7/7/1Rb4/7/7/3K3 b - - 0 1");
    let after = play(&p, "BM1xM1");
    assert!(pieces_on(&after, "M1").is_empty());
    // A pinned piece gives no check through a move it cannot make: the knight on M1 would attack e3.
    let p = pos("3k3/7/7/7/1Rn4/4K2/7/7 w - - 0 1");
    assert!(!p.is_check());
    let unpinned = pos("3k3/7/7/7/1n5/4K2/7/7 w - - 0 1");
    assert!(unpinned.is_check());
}

#[test]
fn castling_swaps_king_and_rook() {
    let p = pos("3k3/7/7/7/7/7/7/R2K3 w Q - 0 1");
    let after = play(&p, "O-O");
    assert_eq!(after.fen(), "3k3/7/7/7/7/7/7/K2R3 b - - 1 1");
    assert_eq!(play(&p, "O-O-O"), after, "O-O-O reads alike");
    // c1 attacked by the rook on c8: no castling.
    let p = pos("3k3/7/7/7/7/4b2/7/R2K3 w Q - 0 1");
    assert!(refused(&p, "O-O").contains("empty and unattacked"));
    // Another piece on the rook's quad: no castling.
    let p = pos("3k3/7/7/7/7/7/7/RN1K3 w Q - 0 1");
    assert!(refused(&p, "O-O").contains("the rook alone on its quad-square"));
    // After the king has moved, the right is gone.
    let g = replay(V, "1. d3-d4 d6-d5 2. Kd1-d2 Kd8-d7 3. Kd2-d1 Kd7-d8").unwrap().game;
    assert!(g.position().castling_rooks().is_empty());
    assert!(refused(g.position(), "O-O").contains("can no longer castle"));
}

#[test]
fn pawns_step_once_and_promote() {
    let start = Position::start(V);
    assert!(refused(&start, "a3-a5").contains("cannot move to a5"));
    // Onto S3 promotion is optional: five moves.
    let p = pos("3k3/7/1P5/7/7/7/7/3K3 w - - 0 1");
    let pawn: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.first().from() == sq("b6"))
        .map(|m| notation::lan(&p, m))
        .collect();
    assert_eq!(pawn.len(), 5, "{pawn:?}");
    let stays = play(&p, "b6-S3");
    assert_eq!(pieces_on(&stays, "S3"), ['P']);
    let promoted = play(&p, "b6-S3=N");
    assert_eq!(pieces_on(&promoted, "S3"), ['N']);
    // On c8, d8, e8 it must promote; from S3 it can only capture onto c8.
    let p = pos("2bk3/P6/7/7/7/7/7/3K3 w - - 0 1");
    match notation::parse_move(&p, "S3xc8") {
        Err(MoveError::Resolve(ResolveError::Ambiguous { candidates, .. })) => {
            assert_eq!(candidates.len(), 4)
        }
        other => panic!("{other:?}"),
    }
    let after = play(&p, "S3xc8=Q");
    assert_eq!(after.piece_at(sq("c8")), Some(Piece::new(Color::White, Role::Queen)));
    let p = pos("7/2P4/7/6k/7/7/7/3K3 w - - 0 1");
    assert!(matches!(
        notation::parse_move(&p, "c8"),
        Err(MoveError::Resolve(ResolveError::Ambiguous { .. }))
    ));
}

#[test]
fn check_on_and_around_quads() {
    // A king alone on a quad cannot be taken by a rook moving in (that would share)...
    let p = pos("3k3/7/1r5/7/1K5/7/7/7 w - - 0 1");
    assert!(!p.is_check());
    // ...but a bishop's sacrifice takes it.
    let p = pos("3k3/7/b6/7/1K5/7/7/7 w - - 0 1");
    assert!(p.is_check());
    // Sharing with a friend, the king can be taken by an enemy moving in.
    let p = pos("3k3/7/1r5/7/1KP4/7/7/7 w - - 0 1");
    assert!(p.is_check());
    // Sharing with an enemy bishop is check: it may remove both without moving (R-Q16).
    let p = pos("3k3/7/7/7/1Kb4/7/7/7 w - - 0 1");
    assert!(p.is_check());
    // Sharing with an enemy knight is not check from that knight.
    let p = pos("3k3/7/7/7/1Kn4/7/7/7 w - - 0 1");
    assert!(!p.is_check());
}

#[test]
fn checkmate_and_stalemate() {
    // The rook on S1 checks along the first rank; S2 is full, the pawns hem the king in.
    let p = pos("3k3/7/7/7/7/7/2PPP2/r2K1NB w - - 0 1");
    assert!(p.is_check());
    let g = Game::new(p);
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: Color::Black, reason: WinReason::Checkmate }));
    // Stalemate is a draw (R-Q17): the bishops see c8 and e8 through the empty S3 and S4.
    let p = pos("3k3/7/B2K2B/7/7/7/7/7 b - - 0 1");
    assert!(p.legal_moves().is_empty() && !p.is_check());
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
}

#[test]
fn notation_uses_quad_names() {
    // M2 holds only the knight, so "M2xc6" names it well enough.
    let short = replay(V, "1. c3-M1 b6-M1 2. NS2-M2 d6-d5 3. M2xc6").unwrap().game;
    let g = replay(V, "1. c3-M1 b6-M1 2. NS2-M2 d6-d5 3. NM2xc6").unwrap().game;
    assert_eq!(g.position().piece_at(sq("c6")), Some(Piece::new(Color::White, Role::Knight)));
    assert_eq!(g.record(), "1. c3-M1 b6-M1 2. NS2-M2 d6-d5 3. NM2xc6+ *");
    assert_eq!(short.position(), g.position());
    // Cells of a quad name the quad too.
    let p = Position::start(V);
    assert_eq!(notation::parse_move(&p, "c3-c4"), notation::parse_move(&p, "c3-M1"));
    assert_eq!(notation::parse_move(&p, "c3-b5"), notation::parse_move(&p, "c3-M1"));
}

#[test]
fn text_format_round_trips() {
    let g =
        replay(V, "1. c3-M1 b6-M1 2. NS2-M2 e6-M2 3. Qe1-e2 Qe8-e7").unwrap_or_else(|e| panic!("{e}")).game;
    let mut p = g.start().clone();
    for mv in g.moves() {
        p = p.played(mv);
        let back = Position::from_fen(V, &p.fen()).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.fen(), p.fen());
    }
    let bad = Position::from_fen(V, "3k3/7/7/1n5/7/7/7/3K3 w - - 0 1").unwrap_err();
    assert!(bad.to_string().contains("lower cells"), "{bad}");
}

#[test]
fn two_equal_pieces_on_a_quad_make_one_move_each_way() {
    // R-Q15: two white pawns share M1; stepping to b6 or c6 is one move each, whichever pawn goes.
    let p = pos("3k3/7/7/7/1PP4/7/7/3K3 w - - 0 1");
    assert_eq!(pieces_on(&p, "M1"), ['P', 'P']);
    let mut from_m1: Vec<String> =
        p.legal_moves().iter().map(|m| notation::lan(&p, m)).filter(|t| t.starts_with("M1")).collect();
    from_m1.sort();
    assert_eq!(from_m1, ["M1-b6", "M1-c6"]);
}

#[test]
fn pawns_enter_quads_straight_to_share_and_diagonally_only_to_capture() {
    let pawn_moves = |p: &Position, from: &str| -> Vec<String> {
        let mut v: Vec<String> = p
            .legal_moves()
            .iter()
            .filter(|m| m.first().from() == sq(from))
            .map(|m| notation::lan(p, m))
            .collect();
        v.sort();
        v
    };
    // One black knight alone on M2: the pawn on e3 steps in beside it; its diagonal onto M2 (by
    // f4) is no capture, so it is no move either, and nor is the one onto the empty d4.
    let p = pos("3k3/7/7/7/4n2/4P2/7/3K3 w - - 0 1");
    assert_eq!(pawn_moves(&p, "e3"), ["e3-M2"]);
    // A black knight and a white bishop on M2: no room to step in, but the diagonal takes the knight.
    let p = pos("3k3/7/7/7/4nB1/4P2/7/3K3 w - - 0 1");
    assert_eq!(pawn_moves(&p, "e3"), ["e3xM2(N)"]);
    // Two black pieces on M2: the pawn on d3 takes either diagonally; the empty M1 is no capture.
    let p = pos("3k3/7/7/7/4nb1/3P3/7/3K3 w - - 0 1");
    assert_eq!(pawn_moves(&p, "d3"), ["d3-d4", "d3xM2(B)", "d3xM2(N)"]);
}

#[test]
fn castling_never_leaves_the_king_attacked_on_the_rooks_quad() {
    // The bishop on d4 could sacrifice itself for a king alone on S1: no castling.
    let p = pos("3k3/7/7/7/3b3/7/7/R2K3 w Q - 0 1");
    assert!(refused(&p, "O-O").contains("your king would be in check"));
    // With the bishop elsewhere it castles.
    play(&pos("3k3/7/7/7/7/7/7/R2K1b1 w Q - 0 1"), "O-O");
}

#[test]
fn bare_kings_play_on_and_draws_by_rule_apply() {
    // No material draws in Quad-Square Chess.
    assert_eq!(Game::new(pos("3k3/7/7/7/7/7/7/3K3 w - - 0 1")).outcome(), None);
    // Threefold repetition may be claimed, as in chess.
    let g = replay(V, "1. Qe1-e2 Qe8-e7 2. Qe2-e1 Qe7-e8 3. Qe1-e2 Qe8-e7 4. Qe2-e1 Qe7-e8")
        .unwrap_or_else(|e| panic!("{e}"))
        .game;
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.claimable_draw(), Some(DrawReason::ThreefoldRepetition));
    assert_eq!(g.position().halfmoves(), 8);
    // The 50-move rule too: a hundred half-moves without a pawn move, capture or sacrifice.
    let mut g = Game::new(pos("3k3/7/7/7/7/7/7/3KQ2 w - - 99 80"));
    g.play_text("Qe1-e2").unwrap();
    assert_eq!(g.claimable_draw(), Some(DrawReason::FiftyMoves));
}

#[test]
fn a_king_sharing_a_quad_with_a_rook_or_queen_is_not_in_check() {
    // Pieces of opposite sides on one quad never take each other: only a bishop's sacrifice could.
    for fen in ["3k3/7/7/7/1Kr4/7/7/7 w - - 0 1", "3k3/7/7/7/1Kq4/7/7/7 w - - 0 1"] {
        assert!(!pos(fen).is_check(), "{fen}");
    }
    // The rook still holds the king on its quad.
    let p = pos("3k3/7/7/7/1Kr4/7/7/7 w - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
}

#[test]
fn every_move_is_written_in_long_form_everywhere() {
    // The short form chat replies use is the long form here: both ends of every move are named.
    let p = pos("3k3/7/7/6b/1nb1N2/Q6/7/3K3 w - - 0 1");
    let moves = p.legal_moves();
    assert!(moves.len() > 20);
    for mv in &moves {
        assert_eq!(notation::san(&p, mv), notation::lan(&p, mv));
    }
    assert!(moves.iter().any(|m| notation::san(&p, m) == "Qa3xM1(N)"));
}

#[test]
fn a_pawn_sharing_a_quad_with_a_piece_is_named() {
    // A white pawn and rook share M1; both can take on b6. Each move is written so that it
    // reads back as itself: `PM1xb6` for the pawn, `RM1xb6` for the rook.
    let p = pos("3k3/7/1n5/7/1PR4/7/7/3K3 w - - 0 1");
    let takes: Vec<String> =
        p.legal_moves().iter().map(|m| notation::lan(&p, m)).filter(|t| t.contains("xb6")).collect();
    assert!(takes.contains(&"PM1xb6".to_string()) && takes.contains(&"RM1xb6".to_string()), "{takes:?}");
    for text in &takes {
        let mv = notation::parse_move(&p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&notation::lan(&p, &mv), text);
    }
    // Alone on a quad, a pawn goes without its letter as ever.
    let alone = pos("3k3/7/1n5/7/1P5/7/7/3K3 w - - 0 1");
    assert!(alone.legal_moves().iter().any(|m| notation::lan(&alone, m) == "M1xb6"));
}
