//! Tournament logic without storage or chat: what each player did in each round, standings with
//! the FIDE tie-breaks (Handbook C.07), the next round's pairings for every format, and the
//! tournament as FIDE's TRF-16 text.
//!
//! Everything here is a function of the stored facts (entrants, pairings, the games' results), so
//! standings after a restart are the standings before it.

use std::collections::{BTreeMap, HashMap};

use tessera_pairing as pairing;
use tessera_pairing::{Colour, ResultCode, RoundEntry};

use crate::store::{GameId, PlayerId};
use crate::tournament_store::{Format, NewPairing, PairingKind, PairingRow, TournamentRow};

/// An entrant, as the tournament logic needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub player: PlayerId,
    pub name: String,
    pub seed_rating: i64,
    pub joined_at: i64,
    /// The first round they can be paired in.
    pub first_round: u32,
    /// Withdrawn after this round: never paired again.
    pub withdrawn_after: Option<u32>,
}

impl Entry {
    /// Whether they take part in the pairing of `round`.
    pub fn plays_in(&self, round: u32) -> bool {
        round >= self.first_round && self.withdrawn_after.is_none_or(|w| round <= w)
    }
}

/// One player's result in one round.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The game is still being played.
    Pending,
    Win,
    Draw,
    Loss,
    ForfeitWin,
    ForfeitLoss,
    /// The pairing-allocated bye.
    Bye,
    /// A round a late entry missed.
    HalfBye,
    /// Not paired: withdrawn, or the free round of a round robin with an odd number.
    Absent,
}

impl Outcome {
    /// Whether the game was played over the board.
    pub fn played(self) -> bool {
        matches!(self, Outcome::Win | Outcome::Draw | Outcome::Loss)
    }

    /// The same game seen from the opponent's side.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::ForfeitWin => Outcome::ForfeitLoss,
            Outcome::ForfeitLoss => Outcome::ForfeitWin,
            other => other,
        }
    }
}

/// What one player did in one round.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub opponent: Option<PlayerId>,
    /// Played White; `None` without a game.
    pub white: Option<bool>,
    pub outcome: Outcome,
    pub game: Option<GameId>,
}

impl Cell {
    fn alone(outcome: Outcome) -> Cell {
        Cell { opponent: None, white: None, outcome, game: None }
    }
}

/// The facts of a tournament: its settings, entrants in seeding order, and every round's cells.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub row: TournamentRow,
    /// Seeding order: seed rating, highest first, then order of entry. Index + 1 is the pairing
    /// number.
    pub entries: Vec<Entry>,
    /// `cells[r - 1][player]`: what each entrant did in round `r`, for the rounds paired so far.
    pub cells: Vec<HashMap<PlayerId, Cell>>,
    /// Knockout: each round's matches in bracket order.
    pub matches: Vec<Vec<Match>>,
    /// White's outcome of each pairing row by (round, board, leg): a knockout match's drawn game
    /// keeps its result when the replay is paired (the cells hold only a player's last game).
    outcomes: HashMap<(u32, u32, u32), Outcome>,
}

/// A knockout match: its games (legs) in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    pub board: u32,
    pub higher: PlayerId,
    pub lower: Option<PlayerId>,
    /// Each leg: (white, outcome for white).
    pub legs: Vec<(PlayerId, Outcome, Option<GameId>)>,
}

impl Match {
    /// The winner, once a leg was decided (a bye wins at once).
    pub fn winner(&self) -> Option<PlayerId> {
        let Some(lower) = self.lower else { return Some(self.higher) };
        let &(white, outcome, _) = self.legs.last()?;
        let black = if white == self.higher { lower } else { self.higher };
        match outcome {
            Outcome::Win | Outcome::ForfeitWin => Some(white),
            Outcome::Loss | Outcome::ForfeitLoss => Some(black),
            _ => None,
        }
    }

    /// A drawn last leg: the match goes on with colours reversed.
    pub fn needs_replay(&self) -> bool {
        self.lower.is_some() && matches!(self.legs.last(), Some((_, Outcome::Draw, _)))
    }
}

/// The outcome for White of a pairing row, given the results of the games.
fn white_outcome(p: &PairingRow, results: &HashMap<GameId, String>) -> Outcome {
    let stated = p.result.as_deref().or_else(|| p.game.and_then(|g| results.get(&g)).map(String::as_str));
    match (p.kind, stated) {
        (PairingKind::Bye, _) => Outcome::Bye,
        (PairingKind::HalfBye, _) => Outcome::HalfBye,
        (PairingKind::Absent, _) => Outcome::Absent,
        (PairingKind::Game, Some("1-0")) => Outcome::Win,
        (PairingKind::Game, Some("0-1")) => Outcome::Loss,
        (PairingKind::Game, Some("1/2-1/2")) => Outcome::Draw,
        (PairingKind::Game, Some("+-")) => Outcome::ForfeitWin,
        (PairingKind::Game, Some("-+" | "--")) => Outcome::ForfeitLoss,
        (PairingKind::Game, _) => Outcome::Pending,
    }
}

impl Snapshot {
    /// Builds the snapshot from stored rows; `results` maps finished games to their results.
    pub fn new(
        row: TournamentRow,
        mut entries: Vec<Entry>,
        pairings: &[PairingRow],
        results: &HashMap<GameId, String>,
    ) -> Snapshot {
        entries.sort_by(|a, b| {
            b.seed_rating
                .cmp(&a.seed_rating)
                .then(a.joined_at.cmp(&b.joined_at))
                .then(a.player.cmp(&b.player))
        });
        let rounds = row.current_round as usize;
        let mut cells: Vec<HashMap<PlayerId, Cell>> = vec![HashMap::new(); rounds];
        let mut matches: Vec<Vec<Match>> = vec![Vec::new(); rounds];
        let mut outcomes = HashMap::new();
        for p in pairings {
            let Some(round_cells) = cells.get_mut(p.round as usize - 1) else { continue };
            let outcome = white_outcome(p, results);
            outcomes.insert((p.round, p.board, p.leg), outcome);
            if row.format == Format::Knockout {
                let list = &mut matches[p.round as usize - 1];
                match list.iter_mut().find(|m| m.board == p.board) {
                    Some(m) => m.legs.push((p.white, outcome, p.game)),
                    None => list.push(Match {
                        board: p.board,
                        higher: p.white,
                        lower: p.black,
                        legs: if p.black.is_some() { vec![(p.white, outcome, p.game)] } else { Vec::new() },
                    }),
                }
            }
            // A double forfeit is a loss for both.
            let black_outcome =
                if p.result.as_deref() == Some("--") { Outcome::ForfeitLoss } else { outcome.flipped() };
            round_cells.insert(
                p.white,
                Cell { opponent: p.black, white: p.black.map(|_| true), outcome, game: p.game },
            );
            if let Some(black) = p.black {
                round_cells.insert(
                    black,
                    Cell {
                        opponent: Some(p.white),
                        white: Some(false),
                        outcome: black_outcome,
                        game: p.game,
                    },
                );
            }
        }
        // Rounds without a row: a late entry's missed rounds are half-point byes; anything else
        // (withdrawn, not paired) is an absence.
        for (i, round_cells) in cells.iter_mut().enumerate() {
            let round = i as u32 + 1;
            for e in &entries {
                round_cells.entry(e.player).or_insert_with(|| {
                    let late = row.format == Format::Swiss && round < e.first_round;
                    Cell::alone(if late { Outcome::HalfBye } else { Outcome::Absent })
                });
            }
        }
        Snapshot { row, entries, cells, matches, outcomes }
    }

    /// White's outcome of one pairing row (a game, a bye, a free round), if it was paired.
    pub fn pairing_outcome(&self, p: &PairingRow) -> Option<Outcome> {
        self.outcomes.get(&(p.round, p.board, p.leg)).copied()
    }

    pub fn entry(&self, player: PlayerId) -> Option<&Entry> {
        self.entries.iter().find(|e| e.player == player)
    }

    /// Points in halves for an outcome, by this tournament's settings.
    pub fn halves(&self, outcome: Outcome) -> u32 {
        match outcome {
            Outcome::Win | Outcome::ForfeitWin => 2,
            Outcome::Draw | Outcome::HalfBye => 1,
            Outcome::Bye => self.row.bye_halves,
            Outcome::Loss | Outcome::ForfeitLoss | Outcome::Absent | Outcome::Pending => 0,
        }
    }

    /// A player's points in halves after `rounds` rounds.
    pub fn score(&self, player: PlayerId, rounds: usize) -> u32 {
        self.cells.iter().take(rounds).filter_map(|c| c.get(&player)).map(|c| self.halves(c.outcome)).sum()
    }

    /// Whether every game of the last round paired has a result (knockout: every match a winner).
    pub fn round_complete(&self) -> bool {
        match (self.row.format, self.cells.last()) {
            (_, None) => true,
            (Format::Knockout, _) => {
                self.matches.last().is_some_and(|ms| ms.iter().all(|m| m.winner().is_some()))
            }
            (_, Some(cells)) => cells.values().all(|c| c.outcome != Outcome::Pending),
        }
    }

    /// The tournament is over: its last round is complete (knockout: one player left).
    pub fn finished(&self) -> bool {
        let last = self.row.current_round;
        self.round_complete()
            && last > 0
            && match self.row.format {
                Format::Knockout => self.matches.last().is_some_and(|ms| ms.len() <= 1),
                _ => last >= self.row.rounds,
            }
    }

    /// Players who lost their last two games on time are withdrawn: those of the entries still in.
    pub fn lost_twice_on_time(&self, time_losses: &HashMap<GameId, PlayerId>) -> Vec<PlayerId> {
        self.entries
            .iter()
            .filter(|e| e.withdrawn_after.is_none())
            .filter(|e| {
                let games: Vec<&Cell> =
                    self.cells.iter().filter_map(|c| c.get(&e.player)).filter(|c| c.game.is_some()).collect();
                games.len() >= 2
                    && games[games.len() - 2..]
                        .iter()
                        .all(|c| c.game.and_then(|g| time_losses.get(&g)) == Some(&e.player))
            })
            .map(|e| e.player)
            .collect()
    }

    /// The pairing number of each player still in the pairing, for the Swiss pairer: seeding
    /// order. Late entries take their place in it (C.04.2: numbers are reassigned).
    fn pairing_numbers(&self) -> HashMap<PlayerId, u32> {
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

    fn next_swiss(&self, round: u32) -> Result<Vec<NewPairing>, String> {
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

    fn next_round_robin(&self, round: u32) -> Result<Vec<NewPairing>, String> {
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

    fn next_knockout(&self, round: u32) -> Result<Vec<NewPairing>, String> {
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

    /// The standings after the rounds completed so far (all paired rounds, pending games
    /// counting nothing), with the tie-breaks of the format.
    ///
    /// Unplayed rounds follow FIDE C.07 of 1 August 2024: in a round robin (pairings
    /// fixed in advance) a forfeit is a game against the scheduled opponent (15.2); in a Swiss
    /// event, and in a knockout, Article 16 applies (see [`Snapshot::adjusted_score`] and
    /// [`Snapshot::dummy_score`]).
    pub fn standings(&self) -> Standings {
        let rounds = self.cells.len();
        let tie_breaks: Vec<TieBreak> = match self.row.format {
            Format::Swiss | Format::Knockout => {
                vec![
                    TieBreak::BuchholzCut1,
                    TieBreak::Buchholz,
                    TieBreak::SonnebornBerger,
                    TieBreak::DirectEncounter,
                ]
            }
            Format::RoundRobin | Format::DoubleRoundRobin => {
                vec![TieBreak::SonnebornBerger, TieBreak::DirectEncounter, TieBreak::Wins, TieBreak::Koya]
            }
        };
        let final_score: HashMap<PlayerId, u32> =
            self.entries.iter().map(|e| (e.player, self.score(e.player, rounds))).collect();
        let adjusted: HashMap<PlayerId, u32> =
            self.entries.iter().map(|e| (e.player, self.adjusted_score(e.player))).collect();
        let mut lines: Vec<StandingLine> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| StandingLine {
                player: e.player,
                name: e.name.clone(),
                start_no: i as u32 + 1,
                rating: e.seed_rating,
                halves: final_score[&e.player],
                tie_breaks: Vec::new(),
                order: Vec::new(),
                withdrawn: e.withdrawn_after.is_some(),
                rank: 0,
            })
            .collect();
        for tb in &tie_breaks {
            if *tb == TieBreak::DirectEncounter {
                continue;
            }
            for line in &mut lines {
                let v = self.tie_break(*tb, line.player, &final_score, &adjusted);
                line.tie_breaks.push(v);
            }
        }
        for line in &mut lines {
            line.order = line.tie_breaks.clone();
        }
        // Direct encounter among players still level on points and the tie-breaks before it
        // (C.07 4.2, Article 6): it shows each one's score against the others of the group, and
        // ranks them by Article 6, which may take several passes.
        if let Some(de) = tie_breaks.iter().position(|t| *t == TieBreak::DirectEncounter) {
            let mut groups: BTreeMap<(u32, Vec<u32>), Vec<PlayerId>> = BTreeMap::new();
            for line in &lines {
                groups.entry((line.halves, line.order[..de].to_vec())).or_default().push(line.player);
            }
            let mut shown: HashMap<PlayerId, u32> = HashMap::new();
            let mut order: HashMap<PlayerId, u32> = HashMap::new();
            for group in groups.values() {
                let table = self.encounters(group);
                for &p in group {
                    shown.insert(p, if group.len() < 2 { 0 } else { table.quarters(p) });
                }
                let tiers = self.direct_encounter(group.clone());
                for (i, tier) in tiers.iter().enumerate() {
                    for &p in tier {
                        order.insert(p, (tiers.len() - i) as u32);
                    }
                }
            }
            for line in &mut lines {
                line.tie_breaks.insert(de, shown[&line.player]);
                line.order.insert(de, order[&line.player]);
            }
        }
        lines.sort_by(|a, b| {
            b.halves.cmp(&a.halves).then_with(|| b.order.cmp(&a.order)).then(a.start_no.cmp(&b.start_no))
        });
        // Equal points and tie-breaks share a rank.
        for i in 0..lines.len() {
            lines[i].rank =
                if i > 0 && lines[i].halves == lines[i - 1].halves && lines[i].order == lines[i - 1].order {
                    lines[i - 1].rank
                } else {
                    i as u32 + 1
                };
        }
        Standings { tie_breaks, lines, rounds: rounds as u32 }
    }

    /// Pairings fixed in advance (a round robin): C.07 15.2 counts a forfeit as a game against
    /// the scheduled opponent, and the free round of an odd number is no element of any sum.
    fn predetermined(&self) -> bool {
        matches!(self.row.format, Format::RoundRobin | Format::DoubleRoundRobin)
    }

    /// C.07 16.1.2: a voluntary unplayed round: a requested bye (a late entry's missed round,
    /// worth half a point, or a round after withdrawing, which 16.1.1 counts as a zero-point
    /// bye) or a forfeit loss. A pairing-allocated bye and a forfeit win are not voluntary.
    fn voluntary(outcome: Outcome) -> bool {
        matches!(outcome, Outcome::HalfBye | Outcome::Absent | Outcome::ForfeitLoss)
    }

    /// A player's outcome in each round counted, in order.
    fn outcomes(&self, player: PlayerId) -> Vec<Outcome> {
        self.cells.iter().map(|c| c.get(&player).map_or(Outcome::Absent, |c| c.outcome)).collect()
    }

    /// A player's score in halves as their opponents' tie-breaks see it (C.07 16.3): every round
    /// as awarded, except a requested bye followed only by voluntary unplayed rounds (or in the
    /// last round), which counts as a draw (16.2.5, 16.3.2) - so a player who withdrew is, to
    /// the people they played, one who drew the rest. Round robins count scores as they are.
    pub fn adjusted_score(&self, player: PlayerId) -> u32 {
        let outcomes = self.outcomes(player);
        outcomes
            .iter()
            .enumerate()
            .map(|(i, &o)| {
                let requested = matches!(o, Outcome::HalfBye | Outcome::Absent);
                if !self.predetermined() && requested && outcomes[i + 1..].iter().all(|&l| Self::voluntary(l))
                {
                    1
                } else {
                    self.halves(o)
                }
            })
            .sum()
    }

    /// The score in halves of the dummy a player's unplayed round is counted against (C.07 of
    /// 1 August 2024, 16.4): the player's own score, whatever the round was. (The edition of
    /// 1 March 2026 caps it: for a forfeit at the scheduled opponent's adjusted score, for a bye
    /// at a draw in every round; the issue that set our rules names the 2024 edition.)
    pub fn dummy_score(&self, own: u32) -> u32 {
        own
    }

    /// What one round adds to a player's opponents' sums: the opponent's (or the dummy's) score
    /// in halves, and whether the round is a voluntary unplayed one. `None`: no element (a game
    /// still being played, a round robin's free round).
    fn element(
        &self,
        own: u32,
        cell: &Cell,
        final_score: &HashMap<PlayerId, u32>,
        adjusted: &HashMap<PlayerId, u32>,
    ) -> Option<(u32, bool)> {
        if cell.outcome == Outcome::Pending {
            return None;
        }
        if self.predetermined() {
            return cell.opponent.map(|o| (final_score.get(&o).copied().unwrap_or(0), false));
        }
        match cell.opponent {
            Some(o) if cell.outcome.played() => Some((adjusted.get(&o).copied().unwrap_or(0), false)),
            _ => Some((self.dummy_score(own), Self::voluntary(cell.outcome))),
        }
    }

    /// One tie-break value: points in quarters (Sonneborn-Berger multiplies half points), wins as
    /// a count.
    fn tie_break(
        &self,
        tb: TieBreak,
        player: PlayerId,
        final_score: &HashMap<PlayerId, u32>,
        adjusted: &HashMap<PlayerId, u32>,
    ) -> u32 {
        let own = final_score[&player];
        // A game still being played is no round yet.
        let cells: Vec<Cell> = self
            .cells
            .iter()
            .filter_map(|c| c.get(&player).copied())
            .filter(|c| c.outcome != Outcome::Pending)
            .collect();
        match tb {
            TieBreak::Buchholz | TieBreak::BuchholzCut1 => {
                // In quarters, like the other point values.
                let mut values: Vec<(u32, bool)> = cells
                    .iter()
                    .filter_map(|c| self.element(own, c, final_score, adjusted))
                    .map(|(v, vur)| (2 * v, vur))
                    .collect();
                if tb == TieBreak::BuchholzCut1 && !values.is_empty() {
                    // C.07 14.1 cuts the least significant value; 16.5 cuts the lowest value
                    // coming from a voluntary unplayed round instead, when there is one (for
                    // Buchholz it is never below the least significant value).
                    let cut = values
                        .iter()
                        .enumerate()
                        .filter(|(_, (_, vur))| *vur)
                        .min_by_key(|(_, (v, _))| *v)
                        .or_else(|| values.iter().enumerate().min_by_key(|(_, (v, _))| *v))
                        .map(|(i, _)| i);
                    if let Some(i) = cut {
                        values.remove(i);
                    }
                }
                values.iter().map(|(v, _)| v).sum()
            }
            // The opponent's (or the dummy's) score times the points scored against them: halves
            // times halves are quarters.
            TieBreak::SonnebornBerger => cells
                .iter()
                .filter_map(|c| {
                    self.element(own, c, final_score, adjusted).map(|(v, _)| v * self.halves(c.outcome))
                })
                .sum(),
            // C.07 7.1: rounds that brought a win's points, played or not.
            TieBreak::Wins => cells.iter().filter(|c| self.halves(c.outcome) == 2).count() as u32,
            TieBreak::Koya => {
                // C.07 9.2: points against those who scored at least half the most a player could
                // score; in a round robin that is a win against each of the others (the free
                // round of an odd number scores nothing).
                let games = if self.predetermined() {
                    let legs = if self.row.format == Format::DoubleRoundRobin { 2 } else { 1 };
                    legs * (self.entries.len() as u32).saturating_sub(1)
                } else {
                    self.row.rounds.max(self.cells.len() as u32)
                };
                // Half of `games` wins is `games` half points.
                cells
                    .iter()
                    .filter(|c| c.opponent.is_some_and(|o| final_score[&o] >= games))
                    .map(|c| 2 * self.halves(c.outcome))
                    .sum()
            }
            TieBreak::DirectEncounter => 0,
        }
    }

    /// The games a direct encounter counts (C.07 6.1.1): those played over the board, and in a
    /// round robin forfeits too (15.2).
    fn counts_as_encounter(&self, cell: &Cell) -> bool {
        cell.outcome.played()
            || (self.predetermined() && matches!(cell.outcome, Outcome::ForfeitWin | Outcome::ForfeitLoss))
    }

    /// The separate standings of a tied group (C.07 6.1): each player's score against the others
    /// of the group, two players who met more than once counting the average of those games
    /// (6.1.2).
    fn encounters(&self, group: &[PlayerId]) -> Encounters {
        // (player, opponent) -> (halves scored, games)
        let mut met: HashMap<(PlayerId, PlayerId), (u32, u32)> = HashMap::new();
        for c in &self.cells {
            for &p in group {
                if let Some(cell) = c.get(&p)
                    && let Some(o) = cell.opponent.filter(|o| group.contains(o))
                    && self.counts_as_encounter(cell)
                {
                    let e = met.entry((p, o)).or_insert((0, 0));
                    e.0 += self.halves(cell.outcome);
                    e.1 += 1;
                }
            }
        }
        // Averages over 1, 2, ... games, in units of 1 / (2 * scale) of a point.
        let scale = met.values().fold(1u32, |l, &(_, n)| lcm(l, n));
        let mut score: HashMap<PlayerId, u32> = group.iter().map(|&p| (p, 0)).collect();
        let mut missing: HashMap<PlayerId, u32> = group.iter().map(|&p| (p, 0)).collect();
        for &p in group {
            for &o in group {
                if p == o {
                    continue;
                }
                match met.get(&(p, o)) {
                    Some(&(halves, n)) => *score.get_mut(&p).unwrap() += halves * scale / n,
                    None => *missing.get_mut(&p).unwrap() += 1,
                }
            }
        }
        Encounters { scale, score, missing }
    }

    /// Ranks a tied group by direct encounter (C.07 Article 6): tiers, best first, the players
    /// of one tier still tied. When all of them met, their scores against each other rank them,
    /// and the article is applied again to each subgroup still level (6.2). In a Swiss event,
    /// when some did not meet, a player who stays alone on top whatever the missing games'
    /// results is ranked first, then the same for the next place, and the article is applied
    /// again to those left (6.3).
    fn direct_encounter(&self, group: Vec<PlayerId>) -> Vec<Vec<PlayerId>> {
        if group.len() < 2 {
            return vec![group];
        }
        let table = self.encounters(&group);
        let mut sorted = group.clone();
        sorted.sort_by_key(|p| std::cmp::Reverse(table.score[p]));
        if table.missing.values().all(|&m| m == 0) {
            let mut tiers: Vec<Vec<PlayerId>> = Vec::new();
            for p in sorted {
                match tiers.last_mut() {
                    Some(tier) if table.score[&tier[0]] == table.score[&p] => tier.push(p),
                    _ => tiers.push(vec![p]),
                }
            }
            if tiers.len() == 1 {
                return tiers;
            }
            return tiers.into_iter().flat_map(|t| self.direct_encounter(t)).collect();
        }
        if self.row.format != Format::Swiss {
            return vec![group];
        }
        // A missing game won is worth a win against them.
        let best = |p: &PlayerId| table.score[p] + table.missing[p] * 2 * table.scale;
        let mut ranked: Vec<Vec<PlayerId>> = Vec::new();
        let mut rest = sorted;
        while rest.len() >= 2 && rest[1..].iter().all(|o| table.score[&rest[0]] > best(o)) {
            ranked.push(vec![rest.remove(0)]);
        }
        if ranked.is_empty() {
            return vec![rest];
        }
        ranked.extend(self.direct_encounter(rest));
        ranked
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

/// A tie-break of FIDE C.07.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TieBreak {
    BuchholzCut1,
    Buchholz,
    SonnebornBerger,
    DirectEncounter,
    Wins,
    Koya,
}

impl TieBreak {
    pub fn short(self) -> &'static str {
        match self {
            TieBreak::BuchholzCut1 => "BH-C1",
            TieBreak::Buchholz => "BH",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::DirectEncounter => "DE",
            TieBreak::Wins => "WIN",
            TieBreak::Koya => "KS",
        }
    }

    /// Whether the value is a count (wins) rather than points in quarters.
    pub fn is_count(self) -> bool {
        self == TieBreak::Wins
    }

    /// A value as people read it: `12`, `5½`, `5.25`.
    pub fn value_text(self, value: u32) -> String {
        if self.is_count() {
            return value.to_string();
        }
        match value % 4 {
            0 => (value / 4).to_string(),
            2 => points_text(value / 2),
            q => format!("{}.{}", value / 4, if q == 1 { "25" } else { "75" }),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StandingLine {
    pub rank: u32,
    pub player: PlayerId,
    pub name: String,
    pub start_no: u32,
    pub rating: i64,
    pub halves: u32,
    /// In the order of [`Standings::tie_breaks`]: points in quarters, or a count, as shown.
    pub tie_breaks: Vec<u32>,
    /// What the ranking compares, tie-break by tie-break: the values shown, except that direct
    /// encounter's place is its rank within the tied group (higher is better), which may take
    /// several passes of Article 6 and is not a single score.
    pub order: Vec<u32>,
    pub withdrawn: bool,
}

/// The separate standings of a tied group: scores in units of 1 / (2 * `scale`) of a point.
struct Encounters {
    scale: u32,
    score: HashMap<PlayerId, u32>,
    /// Others of the group a player has not met.
    missing: HashMap<PlayerId, u32>,
}

impl Encounters {
    /// A player's score against the group in quarters, as shown.
    fn quarters(&self, player: PlayerId) -> u32 {
        2 * self.score.get(&player).copied().unwrap_or(0) / self.scale
    }
}

fn lcm(a: u32, b: u32) -> u32 {
    fn gcd(a: u32, b: u32) -> u32 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    if a == 0 || b == 0 { a.max(b) } else { a / gcd(a, b) * b }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    pub tie_breaks: Vec<TieBreak>,
    pub lines: Vec<StandingLine>,
    pub rounds: u32,
}

/// Points in halves as people write them: `3`, `3½`, `½`.
pub fn points_text(halves: u32) -> String {
    match (halves / 2, halves % 2) {
        (0, 1) => "½".to_string(),
        (n, 1) => format!("{n}½"),
        (n, _) => n.to_string(),
    }
}

impl Standings {
    /// The standings as chat text, at most `limit` lines.
    pub fn text(&self, limit: usize) -> String {
        let mut out = format!(
            "{:>3}  {:<20} {:>5} {:>5}  {}\n",
            "#",
            "Player",
            "Rtg",
            "Pts",
            self.tie_breaks.iter().map(|t| format!("{:>6}", t.short())).collect::<Vec<_>>().join("")
        );
        for line in self.lines.iter().take(limit) {
            let name = crate::names::fit(&line.name, 20);
            let tbs: String = self
                .tie_breaks
                .iter()
                .zip(&line.tie_breaks)
                .map(|(t, v)| format!("{:>6}", t.value_text(*v)))
                .collect();
            out.push_str(&format!(
                "{:>3}  {:<20} {:>5} {:>5}  {tbs}{}\n",
                line.rank,
                name,
                line.rating,
                points_text(line.halves),
                if line.withdrawn { "  (withdrawn)" } else { "" }
            ));
        }
        if self.lines.len() > limit {
            out.push_str(&format!("… and {} more\n", self.lines.len() - limit));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament_store::TournamentStatus;

    fn row(format: Format, rounds: u32, current: u32) -> TournamentRow {
        TournamentRow {
            id: 1,
            platform: "test".into(),
            channel: "c".into(),
            name: "Test".into(),
            organiser: 1,
            variant: "chess".into(),
            format,
            rounds,
            days_per_move: None,
            rated: false,
            starts_at: None,
            max_players: None,
            bye_halves: 2,
            status: TournamentStatus::Running,
            current_round: current,
            created_at: 0,
        }
    }

    fn entries(n: i64) -> Vec<Entry> {
        (1..=n)
            .map(|p| Entry {
                player: p,
                name: format!("P{p}"),
                seed_rating: 2000 - p * 10,
                joined_at: p,
                first_round: 1,
                withdrawn_after: None,
            })
            .collect()
    }

    fn game(round: u32, board: u32, white: PlayerId, black: PlayerId, game: GameId) -> PairingRow {
        PairingRow {
            round,
            board,
            leg: 0,
            white,
            black: Some(black),
            kind: PairingKind::Game,
            game: Some(game),
            result: None,
            result_reason: None,
        }
    }

    #[test]
    fn round_robin_standings_and_tie_breaks() {
        // Four players, three rounds by the Berger table; 1 wins all, 2-3-4 share the rest.
        let s0 = Snapshot::new(row(Format::RoundRobin, 3, 0), entries(4), &[], &HashMap::new());
        let r1 = s0.next_round().unwrap();
        let pairs: Vec<(PlayerId, Option<PlayerId>)> = r1.iter().map(|p| (p.white, p.black)).collect();
        assert_eq!(pairs, [(1, Some(4)), (2, Some(3))], "Berger round 1 for four");
        let rows = vec![
            game(1, 1, 1, 4, 11),
            game(1, 2, 2, 3, 12),
            game(2, 1, 4, 3, 21),
            game(2, 2, 1, 2, 22),
            game(3, 1, 2, 4, 31),
            game(3, 2, 3, 1, 32),
        ];
        let results: HashMap<GameId, String> =
            [(11, "1-0"), (12, "1-0"), (21, "1/2-1/2"), (22, "1-0"), (31, "0-1"), (32, "0-1")]
                .into_iter()
                .map(|(g, r)| (g, r.to_string()))
                .collect();
        let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &results);
        assert!(s.finished());
        let st = s.standings();
        let order: Vec<(PlayerId, u32)> = st.lines.iter().map(|l| (l.player, l.halves)).collect();
        // 1: 3 points; 2: beat 3, lost to 1 and 4 = 1; 3: lost to 2, drew 4, lost to 1 = ½;
        // 4: lost to 1, drew 3, beat 2 = 1½.
        assert_eq!(order, [(1, 6), (4, 3), (2, 2), (3, 1)]);
        assert_eq!(st.tie_breaks[0], TieBreak::SonnebornBerger);
        let sb = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap().tie_breaks[0];
        // In quarters: SB(1) = 1 + 1½ + ½ = 3 points = 12; SB(4) = beat 2 (1) + half of 3's ½
        // = 1¼ = 5.
        assert_eq!(sb(1), 12);
        assert_eq!(sb(4), 5);
        assert_eq!(TieBreak::SonnebornBerger.value_text(5), "1.25");
        assert_eq!(TieBreak::SonnebornBerger.value_text(6), "1½");
        assert!(st.text(10).contains("P1"));
    }

    #[test]
    fn swiss_rounds_pair_and_export_as_trf() {
        let s0 = Snapshot::new(row(Format::Swiss, 3, 0), entries(5), &[], &HashMap::new());
        let r1 = s0.next_round().unwrap();
        // Five players: top half against bottom half, the lowest gets the bye.
        let pairs: Vec<(PlayerId, Option<PlayerId>, PairingKind)> =
            r1.iter().map(|p| (p.white, p.black, p.kind)).collect();
        assert_eq!(
            pairs,
            [(1, Some(3), PairingKind::Game), (4, Some(2), PairingKind::Game), (5, None, PairingKind::Bye)]
        );
        let trf = s0.to_trf();
        assert!(trf.contains("XXR    3") || trf.contains("XXR 3"), "{trf}");
    }

    #[test]
    fn knockout_brackets_replay_draws() {
        let s0 = Snapshot::new(row(Format::Knockout, 3, 0), entries(6), &[], &HashMap::new());
        let r1 = s0.next_round().unwrap();
        let byes: Vec<PlayerId> = r1.iter().filter(|p| p.kind == PairingKind::Bye).map(|p| p.white).collect();
        assert_eq!(byes, [1, 2], "the top seeds get the byes");
        // The better seed has White in a match's first game (seeds 4-5 and 3-6 here).
        let games: Vec<(PlayerId, Option<PlayerId>)> =
            r1.iter().filter(|p| p.kind == PairingKind::Game).map(|p| (p.white, p.black)).collect();
        assert_eq!(games, [(4, Some(5)), (3, Some(6))]);
        assert_eq!(Snapshot::knockout_rounds(6), 3);
        let mut rows: Vec<PairingRow> = r1
            .iter()
            .enumerate()
            .map(|(i, p)| PairingRow {
                round: 1,
                board: p.board,
                leg: 0,
                white: p.white,
                black: p.black,
                kind: p.kind,
                game: p.black.map(|_| 100 + i as i64),
                result: None,
                result_reason: None,
            })
            .collect();
        let mut results: HashMap<GameId, String> =
            rows.iter().filter_map(|r| r.game).map(|g| (g, "1/2-1/2".to_string())).collect();
        let s = Snapshot::new(row(Format::Knockout, 3, 1), entries(6), &rows, &results);
        assert!(!s.round_complete());
        let replays = s.replays();
        assert_eq!(replays.len(), 2);
        for r in &replays {
            let first = rows.iter().find(|x| x.board == r.board).unwrap();
            assert_eq!(
                (r.white, r.black, r.leg),
                (first.black.unwrap(), Some(first.white), 1),
                "colours reversed"
            );
        }
        for (i, r) in replays.iter().enumerate() {
            rows.push(PairingRow {
                round: 1,
                board: r.board,
                leg: 1,
                white: r.white,
                black: r.black,
                kind: PairingKind::Game,
                game: Some(200 + i as i64),
                result: None,
                result_reason: None,
            });
            results.insert(200 + i as i64, "1-0".into());
        }
        let s = Snapshot::new(row(Format::Knockout, 3, 1), entries(6), &rows, &results);
        assert!(s.round_complete() && s.replays().is_empty());
        let r2 = s.next_round().unwrap();
        assert_eq!(r2.len(), 2);
        assert!(r2.iter().all(|p| p.kind == PairingKind::Game));
    }

    /// A pairing row with a result set on it (byes, forfeits, a game the organiser decided).
    fn stated(
        round: u32,
        board: u32,
        white: PlayerId,
        black: Option<PlayerId>,
        kind: PairingKind,
        result: &str,
    ) -> PairingRow {
        PairingRow {
            round,
            board,
            leg: 0,
            white,
            black,
            kind,
            game: None,
            result: (!result.is_empty()).then(|| result.to_string()),
            result_reason: None,
        }
    }

    /// A Swiss of six over four rounds, by hand: player 6 enters in round 2 (a half point for
    /// round 1), player 5 has the pairing-allocated bye in round 1, wins round 2 by forfeit and
    /// withdraws after it; players 3 and 4 have byes in rounds 3 and 4.
    ///
    /// | player | r1       | r2        | r3      | r4      | points |
    /// |--------|----------|-----------|---------|---------|--------|
    /// | 1      | +2 (W)   | +3 (W)    | =6 (W)  | =2 (B)  | 3      |
    /// | 2      | -1 (B)   | -5 forfeit| +4 (W)  | =1 (W)  | 1½     |
    /// | 3      | =4 (W)   | -1 (B)    | bye 1   | -6 (W)  | 1½     |
    /// | 4      | =3 (B)   | -6 (W)    | -2 (B)  | bye 1   | 1½     |
    /// | 5      | bye 1    | +2 forfeit| absent  | absent  | 2      |
    /// | 6      | late ½   | +4 (B)    | =1 (B)  | +3 (B)  | 3      |
    fn swiss_with_byes_forfeits_and_a_withdrawal() -> Snapshot {
        let mut e = entries(6);
        e[5].first_round = 2;
        e[4].withdrawn_after = Some(2);
        let g = |round, board, white, black, result: &str| {
            stated(round, board, white, Some(black), PairingKind::Game, result)
        };
        let bye = |round, board, player| stated(round, board, player, None, PairingKind::Bye, "");
        let rows = vec![
            g(1, 1, 1, 2, "1-0"),
            g(1, 2, 3, 4, "1/2-1/2"),
            bye(1, 3, 5),
            g(2, 1, 1, 3, "1-0"),
            g(2, 2, 2, 5, "-+"),
            g(2, 3, 4, 6, "0-1"),
            g(3, 1, 1, 6, "1/2-1/2"),
            g(3, 2, 2, 4, "1-0"),
            bye(3, 3, 3),
            g(4, 1, 2, 1, "1/2-1/2"),
            g(4, 2, 3, 6, "0-1"),
            bye(4, 3, 4),
        ];
        Snapshot::new(row(Format::Swiss, 4, 4), e, &rows, &HashMap::new())
    }

    #[test]
    fn unplayed_rounds_count_as_c07_article_16_says() {
        let s = swiss_with_byes_forfeits_and_a_withdrawal();
        let scores: Vec<u32> = (1..=6).map(|p| s.score(p, 4)).collect();
        assert_eq!(scores, [6, 3, 3, 3, 4, 6], "halves");
        // 16.3: for the opponents, every round counts as awarded (the forfeit loss of 2, the
        // byes of 3 and 4, the late half point of 6), except the rounds after 5 withdrew, which
        // count as draws: 1 + 1 + ½ + ½.
        let adjusted: Vec<u32> = (1..=6).map(|p| s.adjusted_score(p)).collect();
        assert_eq!(adjusted, [6, 3, 3, 3, 6, 6], "halves");
        let st = s.standings();
        let line = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap();
        // Quarters: [BH-C1, BH, SB, DE].
        // 1: opponents 2, 3, 6, 2 = 1½ + 1½ + 3 + 1½ = 7½; cut 1½; SB 1½ + 1½ + 3·½ + 1½·½.
        assert_eq!(line(1).tie_breaks[..3], [24, 30, 21]);
        // 6: round 1 against a dummy with 6's own 3 points (16.4); then 4 (1½), 1 (3), 3 (1½):
        // BH 9. The dummy's round is voluntary and is cut first (16.5), though 1½ is lower:
        // Cut-1 6. SB 3·½ + 1½ + 3·½ + 1½ = 6.
        assert_eq!(line(6).tie_breaks[..3], [24, 36, 24]);
        // 5: the bye, the forfeit win against 2 and two absences, each against a dummy with 5's
        // own 2 points: BH 8; Cut-1 takes a voluntary round's 2; SB 1·2 + 1·2 = 4.
        assert_eq!(line(5).tie_breaks[..3], [24, 32, 16]);
        // 2: 1 (3), the forfeit loss against 5 (a dummy with 2's own 1½), 4 (1½), 1 (3): BH 9,
        // Cut-1 takes the forfeit loss's 1½; SB 1½·1 + 3·½.
        assert_eq!(line(2).tie_breaks[..3], [30, 36, 12]);
        // 3: 4 (1½), 1 (3), the bye (dummy 1½), 6 (3): BH 9; the bye is no voluntary round, so
        // Cut-1 takes a 1½ as usual; SB 1½·½ + 1½.
        assert_eq!(line(3).tie_breaks[..3], [30, 36, 9]);
        // 4: 3 (1½), 6 (3), 2 (1½), the bye (dummy 1½): BH 7½, Cut-1 6.
        assert_eq!(line(4).tie_breaks[..3], [24, 30, 9]);
        // 6 and 1 tie on 3 points and Cut-1; Buchholz puts 6 first. 2 and 3 tie on 1½, Cut-1
        // and Buchholz; Sonneborn-Berger puts 2 first.
        let order: Vec<PlayerId> = st.lines.iter().map(|l| l.player).collect();
        assert_eq!(order, [6, 1, 5, 2, 3, 4]);
        let ranks: Vec<u32> = st.lines.iter().map(|l| l.rank).collect();
        assert_eq!(ranks, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn wins_count_rounds_that_brought_a_win_s_points() {
        // C.07 7.1: 5's bye worth a win and forfeit win are two wins; with a half-point bye the
        // bye is none.
        let s = swiss_with_byes_forfeits_and_a_withdrawal();
        let score: HashMap<PlayerId, u32> = (1..=6).map(|p| (p, s.score(p, 4))).collect();
        let adjusted: HashMap<PlayerId, u32> = (1..=6).map(|p| (p, s.adjusted_score(p))).collect();
        assert_eq!(s.tie_break(TieBreak::Wins, 5, &score, &adjusted), 2);
        assert_eq!(s.tie_break(TieBreak::Wins, 6, &score, &adjusted), 2);
        let mut half = s.clone();
        half.row.bye_halves = 1;
        assert_eq!(half.tie_break(TieBreak::Wins, 5, &score, &adjusted), 1);
    }

    /// Rows of a four-player event over three rounds in which every pair meets once, with the
    /// results given for White.
    fn all_meet(results: [&str; 6]) -> Vec<PairingRow> {
        let pairs = [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)];
        pairs
            .iter()
            .zip(results)
            .enumerate()
            .map(|(i, (&(w, b), r))| {
                stated(i as u32 / 2 + 1, i as u32 % 2 + 1, w, Some(b), PairingKind::Game, r)
            })
            .collect()
    }

    #[test]
    fn direct_encounter_is_applied_again_to_those_still_level() {
        // 1 beat 2 and 4, lost to 3; 2 beat 3 and 4; 4 beat 3. Among all four: 1 and 2 have 2
        // points, 3 and 4 one each; applied again (C.07 6.2), 1 beat 2 and 4 beat 3.
        let rows = all_meet(["1-0", "0-1", "0-1", "1-0", "1-0", "1-0"]);
        let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
        assert_eq!(s.direct_encounter(vec![1, 2, 3, 4]), [vec![1], vec![2], vec![4], vec![3]]);
        // Three who beat each other in a circle stay level.
        let rows = all_meet(["1-0", "1-0", "0-1", "1-0", "1-0", "1-0"]);
        let s = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
        assert_eq!(s.direct_encounter(vec![1, 2, 3]), [vec![1, 2, 3]]);
    }

    #[test]
    fn direct_encounter_counts_forfeits_only_with_fixed_pairings() {
        // 1 won against 2 by forfeit, the rest drawn: a round robin counts the forfeit (C.07
        // 15.2), a Swiss event does not (6.1.1), and then 1 and 2 never met.
        let rows = all_meet(["+-", "1/2-1/2", "1/2-1/2", "1/2-1/2", "1/2-1/2", "1/2-1/2"]);
        let rr = Snapshot::new(row(Format::RoundRobin, 3, 3), entries(4), &rows, &HashMap::new());
        assert_eq!(rr.direct_encounter(vec![1, 2]), [vec![1], vec![2]]);
        let swiss = Snapshot::new(row(Format::Swiss, 3, 3), entries(4), &rows, &HashMap::new());
        assert_eq!(swiss.direct_encounter(vec![1, 2]), [vec![1, 2]]);
    }

    #[test]
    fn direct_encounter_in_a_swiss_ranks_who_stays_on_top_whatever_the_missing_games() {
        // 1 beat 3 and 4; 3 and 4 never met: 1 is first whatever 3-4 would have given (C.07
        // 6.3); applied again to 3 and 4, who never met, it leaves them level.
        let rows = vec![
            stated(1, 1, 1, Some(3), PairingKind::Game, "1-0"),
            stated(1, 2, 2, Some(5), PairingKind::Game, "1-0"),
            stated(2, 1, 4, Some(1), PairingKind::Game, "0-1"),
            stated(2, 2, 5, Some(3), PairingKind::Game, "0-1"),
        ];
        let s = Snapshot::new(row(Format::Swiss, 2, 2), entries(5), &rows, &HashMap::new());
        assert_eq!(s.direct_encounter(vec![1, 3, 4]), [vec![1], vec![3, 4]]);
        // The same games in a knockout, where 6.3 does not apply: no order.
        let mut k = s.clone();
        k.row.format = Format::Knockout;
        assert_eq!(k.direct_encounter(vec![1, 3, 4]), [vec![1, 3, 4]]);
    }

    #[test]
    fn round_robin_forfeits_count_as_games_and_koya_sees_the_free_round() {
        // Five players, five rounds by the Berger table (each has one free round). 1 wins every
        // game, 2 every game but against 1 (the one against 5 by forfeit), 3 beats 4 and 5,
        // who draw: 4, 3, 2, ½ and ½ points.
        let mut rows = Vec::new();
        let mut s = Snapshot::new(row(Format::RoundRobin, 5, 0), entries(5), &[], &HashMap::new());
        for round in 1..=5 {
            for p in s.next_round().unwrap() {
                let result = match (p.white, p.black) {
                    (_, None) => "",
                    (1, _) => "1-0",
                    (_, Some(1)) => "0-1",
                    (2, Some(5)) => "+-",
                    (5, Some(2)) => "-+",
                    (2, _) => "1-0",
                    (_, Some(2)) => "0-1",
                    (3, _) => "1-0",
                    (_, Some(3)) => "0-1",
                    _ => "1/2-1/2",
                };
                rows.push(stated(round, p.board, p.white, p.black, p.kind, result));
            }
            s = Snapshot::new(row(Format::RoundRobin, 5, round), entries(5), &rows, &HashMap::new());
        }
        assert!(s.finished());
        let st = s.standings();
        let line = |p: PlayerId| st.lines.iter().find(|l| l.player == p).unwrap();
        let points: Vec<u32> = (1..=5).map(|p| line(p).halves).collect();
        assert_eq!(points, [8, 6, 4, 1, 1]);
        // [SB, DE, WIN, KS]. SB of 2: 3 (2 points), 4 and 5 (½ each; 5's game a forfeit, which
        // counts as a game, C.07 15.2) beaten: 3 points = 12 quarters; the free round adds
        // nothing.
        assert_eq!(line(2).tie_breaks[0], 12);
        // Koya: against those with at least half the 4 points a player could score (the free
        // round scores nothing): 1, 2 and 3. 1 scored 2 against 2 and 3; 2 scored 1, against 3.
        assert_eq!(line(1).tie_breaks[3], 8);
        assert_eq!(line(2).tie_breaks[3], 4);
        // WIN counts the forfeit win: 3.
        assert_eq!(line(2).tie_breaks[2], 3);
    }

    #[test]
    fn each_knockout_game_keeps_its_own_result() {
        // Seeds 1-4, 2-3; 1-4 drawn and replayed with colours reversed; the replay is on.
        let mut rows = vec![
            stated(1, 1, 1, Some(4), PairingKind::Game, "1/2-1/2"),
            stated(1, 2, 2, Some(3), PairingKind::Game, "1-0"),
        ];
        let mut replay = stated(1, 1, 4, Some(1), PairingKind::Game, "");
        replay.leg = 1;
        rows.push(replay.clone());
        let s = Snapshot::new(row(Format::Knockout, 2, 1), entries(4), &rows, &HashMap::new());
        assert_eq!(s.pairing_outcome(&rows[0]), Some(Outcome::Draw));
        assert_eq!(s.pairing_outcome(&replay), Some(Outcome::Pending));
        assert_eq!(s.pairing_outcome(&rows[1]), Some(Outcome::Win));
    }

    #[test]
    fn points_are_written_with_halves() {
        assert_eq!(points_text(0), "0");
        assert_eq!(points_text(1), "½");
        assert_eq!(points_text(7), "3½");
        assert_eq!(points_text(8), "4");
    }
}
