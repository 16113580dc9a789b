//! Single-elimination brackets: seeds by rating, byes to the top seeds, the standard bracket order in
//! which seeds 1 and 2 can meet only in the final, 1–4 only in a semi-final, and so on.

/// The bracket order of seeds for a bracket of `size` slots (a power of two): slot `i` holds seed
/// `order[i]`, and slots `2k`, `2k + 1` meet in the first round. `[1, 8, 4, 5, 2, 7, 3, 6]` for 8.
#[must_use]
pub fn seed_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let next = 2 * order.len() + 1;
        order = order.iter().flat_map(|&s| [s, next - s]).collect();
    }
    order
}

/// Seeds players (any ids) by rating, highest first; equal ratings keep the given order.
#[must_use]
pub fn seed_by_rating<T: Clone>(players: &[(T, u32)]) -> Vec<T> {
    let mut seeded: Vec<(usize, &(T, u32))> = players.iter().enumerate().collect();
    seeded.sort_by_key(|(i, (_, rating))| (std::cmp::Reverse(*rating), *i));
    seeded.into_iter().map(|(_, (id, _))| id.clone()).collect()
}

/// A first-round match: two seeds (1-based), or one seed and a bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Match {
    Game { higher: usize, lower: usize },
    Bye { seed: usize },
}

/// The first round for `players` seeds, in bracket order: the bracket is the next power of two, and the
/// missing seeds are byes, so the top seeds get them.
#[must_use]
pub fn first_round(players: usize) -> Vec<Match> {
    if players < 2 {
        return if players == 1 { vec![Match::Bye { seed: 1 }] } else { Vec::new() };
    }
    let size = players.next_power_of_two();
    let order = seed_order(size);
    order
        .chunks(2)
        .map(|pair| {
            let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            if b > players { Match::Bye { seed: a } } else { Match::Game { higher: a, lower: b } }
        })
        .collect()
}

/// The winners' slots of the next round: the winners of matches `2k` and `2k + 1` meet.
#[must_use]
pub fn next_round<T: Clone>(winners: &[T]) -> Vec<(T, Option<T>)> {
    winners.chunks(2).map(|pair| (pair[0].clone(), pair.get(1).cloned())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_order() {
        assert_eq!(seed_order(2), vec![1, 2]);
        assert_eq!(seed_order(4), vec![1, 4, 2, 3]);
        assert_eq!(seed_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
    }

    #[test]
    fn byes_go_to_top_seeds() {
        let round = first_round(6);
        assert_eq!(
            round,
            vec![
                Match::Bye { seed: 1 },
                Match::Game { higher: 4, lower: 5 },
                Match::Bye { seed: 2 },
                Match::Game { higher: 3, lower: 6 },
            ]
        );
        assert_eq!(seed_by_rating(&[("a", 1500), ("b", 1800), ("c", 1500)]), vec!["b", "a", "c"]);
        assert_eq!(next_round(&[1, 4, 2, 3]), vec![(1, Some(4)), (2, Some(3))]);
    }
}
