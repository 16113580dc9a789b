//! A Swiss tournament as a pairing program sees it: players by start number and what each did in every
//! round so far, in the terms of FIDE's TRF-16 (one [`RoundEntry`] per round column).

use std::fmt;

/// A piece colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    /// The other colour.
    #[must_use]
    pub fn invert(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// The result code of one round for one player, as TRF-16 writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultCode {
    /// `1`: won a played game.
    Win,
    /// `=`: drew a played game.
    Draw,
    /// `0`: lost a played game.
    Loss,
    /// `W`: won a game played but not rated (less than one move each).
    WinUnrated,
    /// `D`: drew such a game.
    DrawUnrated,
    /// `L`: lost such a game.
    LossUnrated,
    /// `+`: won by forfeit; the game was not played.
    ForfeitWin,
    /// `-`: lost by forfeit, or absent for a round (`0000 - -`).
    ForfeitLoss,
    /// `H`: half-point bye (requested, not paired).
    HalfBye,
    /// `F`: full-point bye (not paired).
    FullBye,
    /// `U`: pairing-allocated bye.
    PairingBye,
    /// `Z`: zero-point bye (not paired).
    ZeroBye,
    /// Blank: no result (absent, not paired).
    Blank,
}

impl ResultCode {
    /// The code from its TRF character (either case for letters).
    #[must_use]
    pub fn from_char(c: char) -> Option<ResultCode> {
        Some(match c.to_ascii_uppercase() {
            '1' => ResultCode::Win,
            '=' => ResultCode::Draw,
            '0' => ResultCode::Loss,
            'W' => ResultCode::WinUnrated,
            'D' => ResultCode::DrawUnrated,
            'L' => ResultCode::LossUnrated,
            '+' => ResultCode::ForfeitWin,
            '-' => ResultCode::ForfeitLoss,
            'H' => ResultCode::HalfBye,
            'F' => ResultCode::FullBye,
            'U' => ResultCode::PairingBye,
            'Z' => ResultCode::ZeroBye,
            ' ' => ResultCode::Blank,
            _ => return None,
        })
    }

    /// The TRF character.
    #[must_use]
    pub fn to_char(self) -> char {
        match self {
            ResultCode::Win => '1',
            ResultCode::Draw => '=',
            ResultCode::Loss => '0',
            ResultCode::WinUnrated => 'W',
            ResultCode::DrawUnrated => 'D',
            ResultCode::LossUnrated => 'L',
            ResultCode::ForfeitWin => '+',
            ResultCode::ForfeitLoss => '-',
            ResultCode::HalfBye => 'H',
            ResultCode::FullBye => 'F',
            ResultCode::PairingBye => 'U',
            ResultCode::ZeroBye => 'Z',
            ResultCode::Blank => ' ',
        }
    }

    /// Whether a game was played over the board (`1 = 0 W D L`).
    #[must_use]
    pub fn is_played(self) -> bool {
        matches!(
            self,
            ResultCode::Win
                | ResultCode::Draw
                | ResultCode::Loss
                | ResultCode::WinUnrated
                | ResultCode::DrawUnrated
                | ResultCode::LossUnrated
        )
    }

    pub(crate) fn outcome(self) -> Outcome {
        match self {
            ResultCode::Win
            | ResultCode::WinUnrated
            | ResultCode::ForfeitWin
            | ResultCode::FullBye
            | ResultCode::PairingBye => Outcome::Win,
            ResultCode::Draw | ResultCode::DrawUnrated | ResultCode::HalfBye => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Win,
    Draw,
    Loss,
}

/// What one player did in one round: a TRF round column (`oooo c r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundEntry {
    /// The opponent's start number; `None` for `0000` or blank.
    pub opponent: Option<u32>,
    /// The colour played; `None` for `-` or blank.
    pub colour: Option<Colour>,
    pub result: ResultCode,
}

impl RoundEntry {
    /// A game against `opponent` with `colour` and `result`.
    #[must_use]
    pub fn game(opponent: u32, colour: Colour, result: ResultCode) -> RoundEntry {
        RoundEntry { opponent: Some(opponent), colour: Some(colour), result }
    }

    /// A round without an opponent (`0000 - H`, `0000 - U`, ...).
    #[must_use]
    pub fn unpaired(result: ResultCode) -> RoundEntry {
        RoundEntry { opponent: None, colour: None, result }
    }

    /// An empty column: absent, not paired.
    #[must_use]
    pub fn blank() -> RoundEntry {
        RoundEntry::unpaired(ResultCode::Blank)
    }

    pub(crate) fn is_blank(&self) -> bool {
        self.opponent.is_none() && self.colour.is_none() && self.result == ResultCode::Blank
    }

    /// Whether the player took part in the pairing of this round (an opponent, or a pairing-allocated
    /// bye); byes asked for and absences are left out of the pairing.
    #[must_use]
    pub fn participated_in_pairing(&self) -> bool {
        self.opponent.is_some() || matches!(self.result, ResultCode::PairingBye | ResultCode::ForfeitWin)
    }

    /// Whether the game was played over the board.
    #[must_use]
    pub fn is_played(&self) -> bool {
        self.opponent.is_some() && self.colour.is_some() && self.result.is_played()
    }
}

/// Points in tenths (1.0 = 10), as TRF writes them with one decimal.
pub type Points = u32;

/// Points for each kind of result, in tenths. The default is FIDE's: 1, ½, 0, and a win for the
/// pairing-allocated bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointSystem {
    pub win: Points,
    pub draw: Points,
    pub loss: Points,
    pub zero_bye: Points,
    pub forfeit_loss: Points,
    pub pairing_bye: Points,
}

impl Default for PointSystem {
    fn default() -> Self {
        PointSystem { win: 10, draw: 5, loss: 0, zero_bye: 0, forfeit_loss: 0, pairing_bye: 10 }
    }
}

impl PointSystem {
    /// Points for a round entry of player `id` (an entry naming no opponent is a bye or an absence).
    #[must_use]
    pub fn points(&self, entry: &RoundEntry) -> Points {
        let participated = entry.participated_in_pairing();
        match entry.result.outcome() {
            Outcome::Win if entry.opponent.is_none() && participated => self.pairing_bye,
            Outcome::Win => self.win,
            Outcome::Draw => self.draw,
            Outcome::Loss if !participated => self.zero_bye,
            Outcome::Loss if entry.is_played() => self.loss,
            Outcome::Loss => self.forfeit_loss,
        }
    }
}

/// One player: the TRF `001` line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Player {
    /// Start number, 1..N.
    pub id: u32,
    /// Sex column (one character, often blank).
    pub sex: String,
    /// Title column (up to 3 characters).
    pub title: String,
    /// Name, up to 33 characters (longer names are cut on writing).
    pub name: String,
    /// Rating, 0 when unrated.
    pub rating: u16,
    /// Federation column (up to 3 characters).
    pub federation: String,
    /// FIDE id column (up to 11 characters).
    pub fide_id: String,
    /// Birth date column (up to 10 characters).
    pub birth_date: String,
    /// Round columns, the first round first; missing trailing rounds are absences.
    pub rounds: Vec<RoundEntry>,
}

impl Player {
    /// The number of round columns up to the last non-blank one.
    #[must_use]
    pub fn entered_rounds(&self) -> usize {
        self.rounds.iter().rposition(|e| !e.is_blank()).map_or(0, |i| i + 1)
    }
}

/// A tournament to pair: what a TRF-16 file holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tournament {
    /// Tournament name (`012`), if any.
    pub name: Option<String>,
    /// Total number of rounds (`XXR`).
    pub total_rounds: u32,
    /// Colour of the first-ranked player in round 1 (`XXC white1|black1`); inferred from the played rounds
    /// when `None`, and White when nothing can be inferred.
    pub initial_colour: Option<Colour>,
    pub points: PointSystem,
    /// Players in start-number order: `players[i].id == i + 1`.
    pub players: Vec<Player>,
}

/// A tournament the pairing cannot use as it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidTournament {
    /// Start numbers must be 1..N in order, with no gap.
    BadStartNumbers { index: usize, id: u32 },
    /// A round entry names an opponent that is not in the tournament, or the player himself.
    UnknownOpponent { player: u32, round: usize, opponent: u32 },
    /// A played game whose opponent's entry does not name the player back with the other colour.
    InconsistentGame { player: u32, round: usize },
    /// The entry is impossible (a played result without a colour, a bye with an opponent, ...).
    BadEntry { player: u32, round: usize },
    /// Every round has been played.
    Finished { rounds: u32 },
    /// `XXR` is missing or zero.
    NoTotalRounds,
}

impl fmt::Display for InvalidTournament {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidTournament::BadStartNumbers { index, id } => {
                write!(f, "player {} has start number {id}; start numbers must be 1..N", index + 1)
            }
            InvalidTournament::UnknownOpponent { player, round, opponent } => {
                write!(f, "player {player}, round {round}: no opponent {opponent}")
            }
            InvalidTournament::InconsistentGame { player, round } => write!(
                f,
                "player {player}, round {round}: the opponent's entry does not match (opponent, colour)"
            ),
            InvalidTournament::BadEntry { player, round } => {
                write!(f, "player {player}, round {round}: impossible entry")
            }
            InvalidTournament::Finished { rounds } => write!(f, "all {rounds} rounds have been played"),
            InvalidTournament::NoTotalRounds => write!(f, "the total number of rounds (XXR) is missing"),
        }
    }
}

impl std::error::Error for InvalidTournament {}

/// Whether an entry could come from a TRF file: the rules `tessera pair` holds files to.
pub(crate) fn entry_is_valid(entry: &RoundEntry) -> bool {
    use ResultCode as R;
    match (entry.opponent, entry.colour, entry.result) {
        (None, Some(_), _) => false,
        (Some(_), _, R::HalfBye | R::FullBye | R::PairingBye | R::ZeroBye | R::Blank) => false,
        (_, _, R::ForfeitWin | R::ForfeitLoss) => true,
        (None, None, R::HalfBye | R::FullBye | R::PairingBye | R::ZeroBye | R::Blank) => true,
        // A played result needs a colour; a colourless `=` with no opponent is read as a half bye.
        (Some(_), Some(_), _) => true,
        (None, None, R::Draw) => true,
        _ => false,
    }
}

impl Tournament {
    /// Checks start numbers and that both sides of every played game agree.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), InvalidTournament> {
        if self.total_rounds == 0 {
            return Err(InvalidTournament::NoTotalRounds);
        }
        let n = self.players.len() as u32;
        for (index, player) in self.players.iter().enumerate() {
            if player.id != index as u32 + 1 {
                return Err(InvalidTournament::BadStartNumbers { index, id: player.id });
            }
        }
        for player in &self.players {
            for (r, entry) in player.rounds.iter().enumerate() {
                let round = r + 1;
                if !entry_is_valid(entry) {
                    return Err(InvalidTournament::BadEntry { player: player.id, round });
                }
                let Some(opponent) = entry.opponent else { continue };
                if opponent == 0 || opponent > n || opponent == player.id {
                    return Err(InvalidTournament::UnknownOpponent { player: player.id, round, opponent });
                }
                if entry.is_played() {
                    let back = self.players[opponent as usize - 1].rounds.get(r);
                    let agrees = back.is_some_and(|b| {
                        b.is_played() && b.opponent == Some(player.id) && b.colour != entry.colour
                    });
                    if !agrees {
                        return Err(InvalidTournament::InconsistentGame { player: player.id, round });
                    }
                }
            }
        }
        Ok(())
    }

    /// The number of rounds already played, as endorsed programs count it: a round counts once anyone
    /// took part in its pairing, or a later column has an entry. The round to pair is the next one.
    #[must_use]
    pub fn played_rounds(&self) -> usize {
        let mut played = 0;
        for player in &self.players {
            for (r, entry) in player.rounds.iter().enumerate() {
                if entry.is_blank() {
                    continue;
                }
                played = played.max(r);
                if entry.participated_in_pairing() {
                    played = played.max(r + 1);
                }
            }
        }
        // A forward column that names everyone (all byes) is a round of its own.
        if !self.players.is_empty() && self.players.iter().all(|p| p.entered_rounds() > played) {
            played += 1;
        }
        played
    }

    /// The score of a player after `rounds` rounds, in tenths.
    #[must_use]
    pub fn score_after(&self, player: &Player, rounds: usize) -> Points {
        (0..rounds)
            .map(|r| self.points.points(&player.rounds.get(r).copied().unwrap_or(RoundEntry::blank())))
            .sum()
    }
}
