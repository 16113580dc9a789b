//! Questions a careful opponent would ask before a turn is sent: could it do more, and does it
//! allow a stalemate that loses? They walk the turn tree with pruning rather than listing every
//! legal turn, which in the compound-turn variants runs to tens of thousands.

use crate::moves::{Action, Move};
use crate::position::Position;
use crate::variant::StalemateRule;

/// How many answers [`Position::stalemating_answer`] tries at most: all of them in the
/// single-action variants, the first few thousand of a compound-turn position's tens of thousands.
const ANSWERS: usize = 5000;

impl Position {
    /// A legal turn that takes every action of `mv` and at least one more, if there is one.
    pub fn longer_turn(&self, mv: &Move) -> Option<Move> {
        const LONGEST: usize = 3;
        let ours: Vec<Action> = mv.actions().collect();
        if ours.len() >= LONGEST {
            return None;
        }
        // A Postal turn with a piece move begins with it: only ours can begin the longer turn.
        let piece_first =
            self.rules().turn.is_postal() && !matches!(ours[0], Action::Place { .. } | Action::Shift { .. });
        // The path to the action being tried: the tree is walked depth first.
        let mut path = [None; LONGEST];
        let mut found = None;
        self.for_each_turn(
            &mut |step, _, action| {
                if piece_first && step == 0 && action != ours[0] {
                    return false;
                }
                path[step] = Some(action);
                // Our actions not on the path yet must fit in the steps left after this one.
                let missing = ours.iter().filter(|a| !path[..=step].contains(&Some(**a))).count();
                missing < LONGEST - step
            },
            &mut |turn| {
                if turn.len() > ours.len() && ours.iter().all(|a| turn.actions().any(|b| b == *a)) {
                    found = Some(turn);
                    return false;
                }
                true
            },
        );
        found
    }

    /// An answer to `mv` after which the mover has no legal turn and is not in check, where that
    /// loses: the position after `mv` and the answer. A warning, not a rule, so bounded: the first
    /// [`ANSWERS`] answers, walked without listing them all.
    pub fn stalemating_answer(&self, mv: &Move) -> Option<(Position, Move)> {
        if self.variant().stalemate() != StalemateRule::Loss {
            return None;
        }
        let after = self.played(mv);
        let mut tried = 0;
        let mut found = None;
        after.for_each_turn(&mut |_, _, _| true, &mut |answer| {
            tried += 1;
            // Check first: it is cheap, and a side in check is not stalemated.
            let next = after.played(&answer);
            if !next.is_check() && !next.has_legal_moves() {
                found = Some(answer);
                return false;
            }
            tried < ANSWERS
        });
        found.map(|answer| (after, answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{TurnRule, Variant};

    /// Positions along a pseudo-random game of each variant with compound turns or losing stalemates.
    fn walk(variant: Variant, plies: usize, mut seed: u64) -> Vec<Position> {
        let mut at = Position::start(variant);
        let mut seen = Vec::new();
        for _ in 0..plies {
            let moves = at.legal_moves();
            if moves.is_empty() {
                break;
            }
            seen.push(at.clone());
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            at = at.played(&moves[seed as usize % moves.len()]);
        }
        seen
    }

    #[test]
    fn a_longer_turn_is_found_exactly_when_the_list_of_turns_has_one() {
        for &variant in Variant::ALL.iter().filter(|v| v.rules().turn != TurnRule::Single) {
            for pos in walk(variant, 24, 0x9E37_79B9_7F4A_7C15) {
                let moves = pos.legal_moves();
                for mv in moves.iter().step_by(7) {
                    let listed = moves
                        .iter()
                        .any(|m| m.len() > mv.len() && mv.actions().all(|a| m.actions().any(|b| b == a)));
                    let found = pos.longer_turn(mv);
                    assert_eq!(found.is_some(), listed, "{variant} {} {mv:?}", pos.fen());
                    if let Some(longer) = found {
                        assert!(moves.contains(&longer), "a legal turn");
                        assert!(mv.actions().all(|a| longer.actions().any(|b| b == a)));
                    }
                }
            }
        }
    }

    #[test]
    fn a_stalemating_answer_is_found_where_one_move_allows_it() {
        // Where turns are single actions every answer is tried: the search agrees with the list.
        for variant in [Variant::HANS38, Variant::HANS38_NEUTRAL] {
            for pos in walk(variant, 40, 0x2545_F491_4F6C_DD1D) {
                for mv in pos.legal_moves() {
                    let after = pos.played(&mv);
                    let listed = after.legal_moves().into_iter().any(|answer| {
                        let next = after.played(&answer);
                        !next.is_check() && !next.has_legal_moves()
                    });
                    assert_eq!(pos.stalemating_answer(&mv).is_some(), listed, "{variant} {}", pos.fen());
                }
            }
        }
        // Hans38 Postal, as the rules' example: a placement that lets Black wall White in.
        let start = Position::start(Variant::HANS38_POSTAL);
        let e4 = crate::notation::parse_move(&start, "@@e4").unwrap();
        let (after, answer) = start.stalemating_answer(&e4).expect("Black can leave White no turn");
        assert!(!after.played(&answer).has_legal_moves());
        // Where stalemate draws, nothing is asked.
        let chess = Position::start(Variant::CHESS);
        assert!(chess.legal_moves().iter().all(|mv| chess.stalemating_answer(mv).is_none()));
    }
}
