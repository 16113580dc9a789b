//! The engine plays with a purpose (issue 32): it does not carry squares back and forth or round in
//! a circle, it does not walk its king to and fro for nothing, and it sees a hanging rook. Every
//! search here is bounded by depth, not time, so each run plays the same turns.

use tessera_engine::{Limits, Searcher};
use tessera_rules::{Action, Game, Move, Position, Role, Variant, notation};

fn depth(d: u32) -> Limits {
    Limits { depth: Some(d), movetime: None }
}

/// The engine against itself at a fixed depth for `plies` turns (or to the game's end).
fn self_play(game: &mut Game, plies: usize, d: u32) {
    let mut searcher = Searcher::new();
    for _ in 0..plies {
        if game.outcome().is_some() || game.claimable_draw().is_some() {
            break;
        }
        let choice = searcher.best_move(game, depth(d)).unwrap();
        game.play(choice.mv).unwrap();
    }
}

fn shifts(mv: &Move) -> impl Iterator<Item = (tessera_rules::Square, tessera_rules::Square)> + '_ {
    mv.actions().filter_map(|a| match a {
        Action::Shift { from, to, .. } => Some((from, to)),
        _ => None,
    })
}

/// Turns that move a square straight back where the mover's previous turn brought it from.
fn squares_moved_back(game: &Game) -> Vec<String> {
    let moves = game.moves();
    let positions = game.positions();
    (2..moves.len())
        .filter(|&i| {
            shifts(&moves[i]).any(|(from, to)| shifts(&moves[i - 2]).any(|(f, t)| f == to && t == from))
        })
        .map(|i| format!("ply {}: {}", i + 1, notation::lan(&positions[i], &moves[i])))
        .collect()
}

/// Hans38 and Hans38 Postal from the start, the engine against itself at 3 plies: before, a square
/// went from c1 to e1 and back eight times running (`@c1-e1`, `@e1-c1`, ...) until the position
/// repeated three times at ply 31. Now no square is moved straight back, and nothing repeats.
#[test]
fn squares_are_not_carried_back_and_forth() {
    for variant in [Variant::HANS38, Variant::HANS38_POSTAL, Variant::HANS38_NEUTRAL] {
        let mut game = Game::from_variant(variant);
        self_play(&mut game, 40, 3);
        assert_eq!(squares_moved_back(&game), Vec::<String>::new(), "{variant:?}: {}", game.record());
        assert_eq!(game.claimable_draw(), None, "{variant:?}: {}", game.record());
    }
}

/// A game the engine played against itself at 4 plies: White's square went `@c1-e1`, `@e1-c1`
/// and would have gone `@c1-e1` again here (a square circling between two locations while the
/// bishop went back and forth to make way for it). Now it does something else.
#[test]
fn a_square_that_went_there_and_back_is_not_sent_again() {
    let mut game = Game::from_variant(Variant::HANS38);
    let record = "@@d3 @@d6 d2-d3 d7-d6 Qd1-d2 Qd8-d7 Ke1-d1 Ke8-d8 @e1-c3 @@c6 Qd2-c3 Qd7-c6 Bc1-d2 \
                  @e8-e6 @c1-e1 Bc8-e6 @e1-c1 Kd8-c8 Bd2-c1 @d8-f6 Bc1-d2 Nb8-d7";
    for text in record.split_whitespace() {
        game.play_text(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    }
    let choice = Searcher::new().best_move(&game, depth(4)).unwrap();
    let played = notation::lan(game.position(), &choice.mv);
    assert_ne!(played, "@c1-e1", "{choice:?}");
    assert_ne!(played, "Bd2-c1", "{choice:?}");
}

/// The king stays home while there is nothing to run from: before, both kings stepped aside at
/// ply 7 of Hans38 (`Ke1-d1`, `Ke8-d8`) and later back (`Kd1-e1`).
#[test]
fn no_needless_king_walks() {
    for variant in [Variant::HANS38, Variant::HANS38_POSTAL, Variant::CHESS] {
        let mut game = Game::from_variant(variant);
        self_play(&mut game, 30, 3);
        let positions = game.positions();
        let walks: Vec<String> = game
            .moves()
            .iter()
            .enumerate()
            .filter(|(i, mv)| {
                let pos = &positions[*i];
                let queens = pos.by_role(Role::Queen).count() == 2;
                queens
                    && !pos.is_check()
                    && matches!(
                        mv.piece_action(),
                        Some(Action::Normal { role: Role::King, capture: None, .. })
                    )
            })
            .map(|(i, mv)| format!("ply {}: {}", i + 1, notation::lan(&positions[i], mv)))
            .collect();
        assert_eq!(walks, Vec::<String>::new(), "{variant:?}: {}", game.record());
    }
}

fn best(variant: Variant, fen: &str, d: u32) -> (Position, Move) {
    let pos = Position::from_fen(variant, fen).unwrap();
    let choice = Searcher::new().best_move(&Game::new(pos.clone()), depth(d)).unwrap();
    (pos, choice.mv)
}

/// Whether the side to move after `mv` can take a rook.
fn rook_can_be_taken(pos: &Position, mv: &Move) -> bool {
    let after = pos.played(mv);
    after
        .legal_moves()
        .iter()
        .any(|m| m.actions().any(|a| matches!(a, Action::Normal { capture: Some(Role::Rook), .. })))
}

/// Hans38, Black's rook on d5 stands on a square its own pieces do not guard, in reach of White's
/// bishop (the squares c4 and d5 carry the line over the holes): White takes it. Then the same with
/// colours reversed in spirit: White's rook on d4 is attacked by a knight (a cheaper piece) though
/// a pawn guards it, and White saves it.
#[test]
fn a_hanging_rook_is_taken_and_its_own_saved() {
    let take = "***k****/********/********/***r****/**1*****/*B******/********/****K*** w - - 0 1 hand:3/3";
    let (pos, mv) = best(Variant::HANS38, take, 2);
    assert_eq!(notation::lan(&pos, &mv), "Bb3xd5", "{}", pos.fen());

    let save = "6k1/5ppp/8/1n6/3R4/4P3/5PPP/6K1 w - - 0 1";
    let (pos, mv) = best(Variant::CHESS, save, 2);
    assert!(
        !rook_can_be_taken(&pos, &mv),
        "{} leaves the rook en prise in {}",
        notation::lan(&pos, &mv),
        pos.fen()
    );
}

/// Chess after `d2-d4 Ng8-f6 Ng1-f3 Nf6-g8 Nf3-g1 Ng8-f6 Ng1-f3 Nf6-g8 Nf3-g1`: Black, behind in
/// the centre and so a little worse by its own judgement, could go to f6 again and meet that
/// position a third time. A player does not take a draw while it stands about even: Black plays
/// on (without the contempt it goes `Ng8-f6`, the draw scored 0, less the knight's aimless return,
/// against -26 elsewhere).
#[test]
fn an_even_position_is_not_repeated_into_a_draw() {
    let mut game = Game::from_variant(Variant::CHESS);
    for text in ["d2-d4", "Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1", "Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1"] {
        game.play_text(text).unwrap();
    }
    for d in [2, 4] {
        let choice = Searcher::new().best_move(&game, depth(d)).unwrap();
        assert_ne!(notation::lan(game.position(), &choice.mv), "Ng8-f6", "depth {d}: {choice:?}");
    }
}
