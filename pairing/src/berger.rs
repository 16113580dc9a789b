//! Round robin by the FIDE Berger tables (Handbook C.05, Annex 1).
//!
//! With `n` players (an odd number gets a dummy, `n + 1`, whose opponent has the bye) there are `n - 1`
//! rounds (`n` when odd). In round `r` the player numbered `a` meets the last number, and the others
//! pair off around `a`: `a + k` (White) against `a - k` (Black), counted cyclically over `1..n-1`. `a`
//! advances by `n / 2` each round; against the last number `a` has White in odd rounds. This reproduces
//! the published tables row for row, board order included.

/// One board of a round robin: start numbers, White first. `black` is `None` for the bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub white: u32,
    pub black: Option<u32>,
}

/// The pairings of round `round` (1-based) for `players` players (3 and up), board 1 first; in a double
/// round robin (`round` past the first cycle) the first cycle repeats with colours reversed. `None` when
/// the round does not exist.
#[must_use]
pub fn round(players: u32, round: u32, double: bool) -> Option<Vec<Board>> {
    if players < 2 {
        return None;
    }
    let size = players + players % 2;
    let per_cycle = size - 1;
    let cycles = if double { 2 } else { 1 };
    if round == 0 || round > per_cycle * cycles {
        return None;
    }
    let reversed = round > per_cycle;
    let r = (round - 1) % per_cycle + 1;
    let m = size - 1;
    // The player meeting the last number: 1, then + n/2 each round (cyclic over 1..m).
    let a = ((r - 1) * (size / 2)) % m + 1;
    let wrap = |x: i64| -> u32 { ((x - 1).rem_euclid(i64::from(m)) + 1) as u32 };
    let mut boards = Vec::new();
    let (white, black) = if r % 2 == 1 { (a, size) } else { (size, a) };
    boards.push((white, black));
    for k in 1..size / 2 {
        boards.push((wrap(i64::from(a) + i64::from(k)), wrap(i64::from(a) - i64::from(k))));
    }
    Some(
        boards
            .into_iter()
            .map(|(w, b)| if reversed { (b, w) } else { (w, b) })
            .map(|(w, b)| {
                if w > players {
                    Board { white: b, black: None }
                } else if b > players {
                    Board { white: w, black: None }
                } else {
                    Board { white: w, black: Some(b) }
                }
            })
            .collect(),
    )
}

/// Every round of the schedule, round 1 first.
#[must_use]
pub fn schedule(players: u32, double: bool) -> Vec<Vec<Board>> {
    (1..).map_while(|r| round(players, r, double)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(players: u32, r: u32) -> String {
        round(players, r, false)
            .unwrap()
            .iter()
            .map(|b| format!("{}-{}", b.white, b.black.map_or("bye".to_string(), |x| x.to_string())))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn fide_table_for_three_or_four() {
        assert_eq!(text(4, 1), "1-4 2-3");
        assert_eq!(text(4, 2), "4-3 1-2");
        assert_eq!(text(4, 3), "2-4 3-1");
        assert_eq!(text(3, 1), "1-bye 2-3");
        assert_eq!(text(3, 2), "3-bye 1-2");
    }

    #[test]
    fn fide_table_for_five_or_six() {
        let rows = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"];
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(text(6, r as u32 + 1), *row);
        }
    }

    #[test]
    fn fide_table_for_seven_or_eight() {
        let rows = [
            "1-8 2-7 3-6 4-5",
            "8-5 6-4 7-3 1-2",
            "2-8 3-1 4-7 5-6",
            "8-6 7-5 1-4 2-3",
            "3-8 4-2 5-1 6-7",
            "8-7 1-6 2-5 3-4",
            "4-8 5-3 6-2 7-1",
        ];
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(text(8, r as u32 + 1), *row);
        }
    }

    #[test]
    fn everyone_meets_everyone_once_with_balanced_colours() {
        for n in 3..=16 {
            let mut met = std::collections::HashSet::new();
            let mut whites = vec![0i32; n as usize + 1];
            for boards in schedule(n, false) {
                let mut seen = std::collections::HashSet::new();
                for b in boards {
                    assert!(seen.insert(b.white));
                    if let Some(black) = b.black {
                        assert!(seen.insert(black));
                        assert!(met.insert((b.white.min(black), b.white.max(black))));
                        whites[b.white as usize] += 1;
                        whites[black as usize] -= 1;
                    }
                }
                assert_eq!(seen.len() as u32, n);
            }
            assert_eq!(met.len() as u32, n * (n - 1) / 2);
            assert!(whites.iter().all(|w| w.abs() <= 1), "{n}: {whites:?}");
        }
        let double = schedule(6, true);
        assert_eq!(double.len(), 10);
        assert_eq!(double[5][0], Board { white: 6, black: Some(1) });
    }
}
