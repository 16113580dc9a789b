//! The next round's pairings for every format, through `tessera-pairing`, and the tournament as
//! FIDE's TRF-16 text.

use super::*;

impl Snapshot {
    /// The pairing number of each player still in the pairing, for the Swiss pairer: seeding
    /// order. Late entries take their place in it (C.04.2: numbers are reassigned).
    pub(super) fn pairing_numbers(&self) -> HashMap<PlayerId, u32> {
        self.entries.iter().enumerate().map(|(i, e)| (e.player, i as u32 + 1)).collect()
    }

    /// The tournament as the Swiss pairer sees it, with `extra_round`'s column (the one to pair)
    /// saying who is left out of it.
    pub fn to_pairing(&self, extra_round: Option<u32>) -> pairing::Tournament {
        let numbers = self.pairing_numbers();
        let players = self
            .entries
            .iter()
            .map(|e| {
                let mut rounds: Vec<RoundEntry> = self
                    .cells
                    .iter()
                    .map(|c| {
                        let cell = c.get(&e.player).copied().unwrap_or(Cell::alone(Outcome::Absent));
                        round_entry(&cell, &numbers)
                    })
                    .collect();
                if let Some(r) = extra_round
                    && !e.plays_in(r)
                {
                    rounds.push(RoundEntry::unpaired(ResultCode::ZeroBye));
                }
                pairing::Player {
                    id: numbers[&e.player],
                    name: e.name.clone(),
                    rating: e.seed_rating.clamp(0, 9999) as u16,
                    rounds,
                    ..pairing::Player::default()
                }
            })
            .collect();
        pairing::Tournament {
            name: Some(self.row.name.clone()),
            total_rounds: self.row.rounds,
            initial_colour: None,
            points: pairing::PointSystem { pairing_bye: self.row.bye_halves * 5, ..Default::default() },
            players,
        }
    }

    /// The pairings of the next round, or why there are none.
    pub fn next_round(&self) -> Result<Vec<NewPairing>, String> {
        let round = self.row.current_round + 1;
        match self.row.format {
            Format::Swiss => self.next_swiss(round),
            Format::RoundRobin | Format::DoubleRoundRobin => self.next_round_robin(round),
            Format::Knockout => self.next_knockout(round),
        }
    }

    pub(super) fn next_swiss(&self, round: u32) -> Result<Vec<NewPairing>, String> {
        let t = self.to_pairing(Some(round));
        let by_number: HashMap<u32, PlayerId> =
            self.pairing_numbers().into_iter().map(|(p, n)| (n, p)).collect();
        let found =
            pairing::pair_next_round(&t).map_err(|e| format!("round {round} cannot be paired: {e}"))?;
        let mut out: Vec<NewPairing> = found
            .boards
            .iter()
            .enumerate()
            .map(|(i, &(w, b))| NewPairing {
                board: i as u32 + 1,
                leg: 0,
                white: by_number[&w],
                black: Some(by_number[&b]),
                kind: PairingKind::Game,
                result: None,
            })
            .collect();
        if let Some(bye) = found.bye {
            out.push(NewPairing {
                board: out.len() as u32 + 1,
                leg: 0,
                white: by_number[&bye],
                black: None,
                kind: PairingKind::Bye,
                result: None,
            });
        }
        Ok(out)
    }

    pub(super) fn next_round_robin(&self, round: u32) -> Result<Vec<NewPairing>, String> {
        let n = self.entries.len() as u32;
        let double = self.row.format == Format::DoubleRoundRobin;
        let boards = pairing::berger::round(n, round, double)
            .ok_or_else(|| format!("a round robin of {n} players has no round {round}"))?;
        let player = |number: u32| &self.entries[number as usize - 1];
        Ok(boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let white = player(b.white);
                let board = i as u32 + 1;
                let Some(black) = b.black.map(player) else {
                    // The free round of an odd number of players scores nothing.
                    return NewPairing {
                        board,
                        leg: 0,
                        white: white.player,
                        black: None,
                        kind: PairingKind::Absent,
                        result: None,
                    };
                };
                // A withdrawn player's remaining games are lost by forfeit.
                let result = match (white.plays_in(round), black.plays_in(round)) {
                    (true, true) => None,
                    (true, false) => Some("+-"),
                    (false, true) => Some("-+"),
                    (false, false) => Some("--"),
                };
                NewPairing {
                    board,
                    leg: 0,
                    white: white.player,
                    black: Some(black.player),
                    kind: PairingKind::Game,
                    result,
                }
            })
            .collect())
    }

    pub(super) fn next_knockout(&self, round: u32) -> Result<Vec<NewPairing>, String> {
        let pairs: Vec<(PlayerId, Option<PlayerId>)> = if round == 1 {
            pairing::knockout::first_round(self.entries.len())
                .into_iter()
                .map(|m| match m {
                    pairing::knockout::Match::Game { higher, lower } => {
                        (self.entries[higher - 1].player, Some(self.entries[lower - 1].player))
                    }
                    pairing::knockout::Match::Bye { seed } => (self.entries[seed - 1].player, None),
                })
                .collect()
        } else {
            let last = self.matches.last().ok_or("no earlier round")?;
            let winners: Vec<PlayerId> = last.iter().filter_map(Match::winner).collect();
            if winners.len() < 2 {
                return Err("the knockout is decided".into());
            }
            // The better seed plays White in the first game of a match.
            let seed = |p: PlayerId| self.entries.iter().position(|e| e.player == p).unwrap_or(usize::MAX);
            pairing::knockout::next_round(&winners)
                .into_iter()
                .map(|(a, b)| match b {
                    Some(b) if seed(b) < seed(a) => (b, Some(a)),
                    other => (a, other),
                })
                .collect()
        };
        Ok(pairs
            .into_iter()
            .enumerate()
            .map(|(i, (white, black))| {
                let board = i as u32 + 1;
                let Some(black) = black else {
                    return NewPairing {
                        board,
                        leg: 0,
                        white,
                        black: None,
                        kind: PairingKind::Bye,
                        result: None,
                    };
                };
                let active = |p: PlayerId| self.entry(p).is_some_and(|e| e.plays_in(round));
                let result = match (active(white), active(black)) {
                    (true, true) => None,
                    (true, false) => Some("+-"),
                    (false, true) => Some("-+"),
                    (false, false) => Some("--"),
                };
                NewPairing { board, leg: 0, white, black: Some(black), kind: PairingKind::Game, result }
            })
            .collect())
    }

    /// Knockout: the replay games the current round needs (a drawn last leg, colours reversed).
    pub fn replays(&self) -> Vec<NewPairing> {
        let Some(last) = self.matches.last() else { return Vec::new() };
        last.iter()
            .filter(|m| m.needs_replay())
            .filter_map(|m| {
                let lower = m.lower?;
                let &(white, _, _) = m.legs.last()?;
                let next_white = if white == m.higher { lower } else { m.higher };
                Some(NewPairing {
                    board: m.board,
                    leg: m.legs.len() as u32,
                    white: next_white,
                    black: Some(if next_white == m.higher { lower } else { m.higher }),
                    kind: PairingKind::Game,
                    result: None,
                })
            })
            .collect()
    }

    /// Rounds a knockout of this many players needs.
    pub fn knockout_rounds(players: usize) -> u32 {
        players.max(1).next_power_of_two().trailing_zeros()
    }

    /// The tournament as TRF-16, as an arbiter's program reads it: the rounds whose games have
    /// all ended (a round still being played has no results to write yet).
    pub fn to_trf(&self) -> String {
        let mut complete = self.clone();
        while complete.cells.last().is_some_and(|c| c.values().any(|c| c.outcome == Outcome::Pending)) {
            complete.cells.pop();
        }
        pairing::write_trf(&complete.to_pairing(None))
    }
}

fn round_entry(cell: &Cell, numbers: &HashMap<PlayerId, u32>) -> RoundEntry {
    let opponent = cell.opponent.and_then(|o| numbers.get(&o).copied());
    let colour = cell.white.map(|w| if w { Colour::White } else { Colour::Black });
    let code = match cell.outcome {
        Outcome::Win => ResultCode::Win,
        Outcome::Draw => ResultCode::Draw,
        Outcome::Loss => ResultCode::Loss,
        Outcome::ForfeitWin => ResultCode::ForfeitWin,
        Outcome::ForfeitLoss => ResultCode::ForfeitLoss,
        Outcome::Bye => ResultCode::PairingBye,
        Outcome::HalfBye => ResultCode::HalfBye,
        Outcome::Absent => ResultCode::ZeroBye,
        Outcome::Pending => ResultCode::Blank,
    };
    match (opponent, colour) {
        (Some(o), Some(c)) => RoundEntry::game(o, c, code),
        _ => RoundEntry::unpaired(code),
    }
}
