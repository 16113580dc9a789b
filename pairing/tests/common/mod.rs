//! Building and playing out tournaments for the tests.

#![allow(dead_code)]

use tessera_pairing::{Colour, Pairings, Player, ResultCode, RoundEntry, Tournament, pair_next_round};

/// `n` players with falling ratings, no rounds played.
pub fn fresh(n: u32, rounds: u32) -> Tournament {
    let players = (1..=n)
        .map(|id| Player {
            id,
            name: format!("Player {id}"),
            rating: 2400 - id as u16 * 10,
            ..Player::default()
        })
        .collect();
    Tournament { total_rounds: rounds, initial_colour: Some(Colour::White), players, ..Tournament::default() }
}

/// Records a round: `games` as `(white, black, white's result)`, plus a bye, padding everyone else
/// with what their column already says or a blank.
pub fn record(t: &mut Tournament, round: usize, pairings: &Pairings, results: &[ResultCode]) {
    for player in &mut t.players {
        while player.rounds.len() < round {
            player.rounds.push(RoundEntry::blank());
        }
    }
    for (&(white, black), &result) in pairings.boards.iter().zip(results) {
        let reverse = match result {
            ResultCode::Win => ResultCode::Loss,
            ResultCode::Loss => ResultCode::Win,
            ResultCode::ForfeitWin => ResultCode::ForfeitLoss,
            ResultCode::ForfeitLoss => ResultCode::ForfeitWin,
            other => other,
        };
        let (w, b) = (white as usize - 1, black as usize - 1);
        let (cw, cb) = if matches!(result, ResultCode::ForfeitWin | ResultCode::ForfeitLoss) {
            (None, None)
        } else {
            (Some(Colour::White), Some(Colour::Black))
        };
        t.players[w].rounds[round - 1] = RoundEntry { opponent: Some(black), colour: cw, result };
        t.players[b].rounds[round - 1] = RoundEntry { opponent: Some(white), colour: cb, result: reverse };
    }
    if let Some(bye) = pairings.bye {
        t.players[bye as usize - 1].rounds[round - 1] = RoundEntry::unpaired(ResultCode::PairingBye);
    }
}

/// Marks a player out of the next round with `code` (`H`, `F`, `Z`, `-`).
pub fn sit_out(t: &mut Tournament, round: usize, id: u32, code: ResultCode) {
    let player = &mut t.players[id as usize - 1];
    while player.rounds.len() < round {
        player.rounds.push(RoundEntry::blank());
    }
    player.rounds[round - 1] = RoundEntry::unpaired(code);
}

/// Pairs the next round and checks the rules every pairing must keep, panicking with the reason.
pub fn pair_and_check(t: &Tournament) -> Pairings {
    let round = t.played_rounds() + 1;
    let pairings = pair_next_round(t).unwrap_or_else(|e| panic!("round {round}: {e}"));
    let present: Vec<u32> = t.players.iter().filter(|p| p.entered_rounds() < round).map(|p| p.id).collect();
    let mut seen: Vec<u32> = pairings.boards.iter().flat_map(|&(w, b)| [w, b]).chain(pairings.bye).collect();
    seen.sort_unstable();
    assert_eq!(seen, present, "round {round}: everyone present is paired exactly once");
    let last_round = round as u32 == t.total_rounds;
    let threshold = (round as u32 - 1) * 10 / 2;
    for &(white, black) in &pairings.boards {
        let (pw, pb) = (&t.players[white as usize - 1], &t.players[black as usize - 1]);
        assert!(
            !pw.rounds.iter().any(|e| e.is_played() && e.opponent == Some(black)),
            "round {round}: {white} and {black} meet again"
        );
        // In the last round a pair with a topscorer in it may break the colour rules.
        let topscorer = [pw, pb].iter().any(|p| t.score_after(p, round - 1) > threshold);
        if last_round && topscorer {
            continue;
        }
        for (player, colour) in [(pw, Colour::White), (pb, Colour::Black)] {
            let mut colours: Vec<Colour> =
                player.rounds.iter().filter(|e| e.is_played()).filter_map(|e| e.colour).collect();
            colours.push(colour);
            let difference: i32 = colours.iter().map(|&c| if c == Colour::White { 1 } else { -1 }).sum();
            assert!(
                difference.abs() <= 2,
                "round {round}: player {} colour difference {difference}",
                player.id
            );
            let n = colours.len();
            assert!(
                n < 3 || !(colours[n - 1] == colours[n - 2] && colours[n - 2] == colours[n - 3]),
                "round {round}: player {} has one colour three times running",
                player.id
            );
        }
    }
    if let Some(bye) = pairings.bye {
        let player = &t.players[bye as usize - 1];
        assert!(
            !player.rounds.iter().any(|e| matches!(
                e.result,
                ResultCode::PairingBye | ResultCode::FullBye | ResultCode::ForfeitWin
            )),
            "round {round}: {bye} gets a second pairing-allocated bye or one after an unplayed full point"
        );
    }
    pairings
}
