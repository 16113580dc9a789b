//! Tournament logic without storage or chat: what each player did in each round, standings with
//! the FIDE tie-breaks (Handbook C.07), the next round's pairings for every format, and the
//! tournament as FIDE's TRF-16 text.
//!
//! Everything here is a function of the stored facts (entrants, pairings, the games' results), so
//! standings after a restart are the standings before it.

use std::collections::{BTreeMap, HashMap};

use tessera_pairing as pairing;
use tessera_pairing::{Colour, ResultCode, RoundEntry};

use crate::model::{Format, NewPairing, PairingKind, PairingRow, TournamentRow};
use crate::model::{GameId, PlayerId};

mod pairings;
mod standings;

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
mod tests;
