//! Tournaments as the store keeps them: their settings, entrants and the pairings of each round.
//! Standings are not stored; they follow from the pairings and the games' results.

use crate::model::{GameId, NewGame, PlayerId, StoredDefinition};
use crate::outbox::NewNotice;

pub type TournamentId = i64;

/// How a tournament pairs its rounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// FIDE Dutch system, a number of rounds set by the organiser.
    Swiss,
    /// Everyone meets everyone once, by the Berger tables.
    RoundRobin,
    /// Everyone meets everyone twice, colours reversed in the second cycle.
    DoubleRoundRobin,
    /// Single elimination; a drawn game is replayed with colours reversed until someone wins.
    Knockout,
}

impl Format {
    pub const ALL: [Format; 4] =
        [Format::Swiss, Format::RoundRobin, Format::DoubleRoundRobin, Format::Knockout];

    pub fn name(self) -> &'static str {
        match self {
            Format::Swiss => "swiss",
            Format::RoundRobin => "round-robin",
            Format::DoubleRoundRobin => "double-round-robin",
            Format::Knockout => "knockout",
        }
    }

    /// Reads a format as players type it: `swiss`, `rr`, `round-robin`, `double`, `ko`, `knockout`...
    pub fn parse(text: &str) -> Option<Format> {
        let t: String = text.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_lowercase();
        Some(match t.as_str() {
            "swiss" | "dutch" => Format::Swiss,
            "rr" | "roundrobin" | "robin" | "berger" | "allplayall" => Format::RoundRobin,
            "drr" | "doubleroundrobin" | "double" | "doublerr" => Format::DoubleRoundRobin,
            "ko" | "knockout" | "elimination" | "cup" | "singleelimination" => Format::Knockout,
            _ => return None,
        })
    }

    pub fn is_round_robin(self) -> bool {
        matches!(self, Format::RoundRobin | Format::DoubleRoundRobin)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TournamentStatus {
    /// Taking entries.
    Open,
    Running,
    /// Running games go on; no new round is paired.
    Paused,
    Finished,
    Cancelled,
}

impl TournamentStatus {
    pub fn name(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Running => "running",
            TournamentStatus::Paused => "paused",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> TournamentStatus {
        match text {
            "open" => TournamentStatus::Open,
            "running" => TournamentStatus::Running,
            "paused" => TournamentStatus::Paused,
            "finished" => TournamentStatus::Finished,
            _ => TournamentStatus::Cancelled,
        }
    }

    /// Still to be played: open, running or paused.
    pub fn is_live(self) -> bool {
        matches!(self, TournamentStatus::Open | TournamentStatus::Running | TournamentStatus::Paused)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    pub id: TournamentId,
    pub platform: String,
    pub channel: String,
    pub name: String,
    pub organiser: PlayerId,
    pub variant: String,
    pub format: Format,
    /// Planned rounds (for round robin and knockout, fixed at the start).
    pub rounds: u32,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub starts_at: Option<i64>,
    pub max_players: Option<u32>,
    /// Points in halves for a pairing-allocated bye.
    pub bye_halves: u32,
    pub status: TournamentStatus,
    /// The last round paired; 0 before the start.
    pub current_round: u32,
    pub created_at: i64,
    /// Vacation in its games: `None` as each player's allowance says, `Some(0)` none, `Some(n)` at
    /// most `n` days a player.
    pub vacation_days: Option<u32>,
    /// The community variant's definition its games play ([`crate::store::Store::variant_definition`]);
    /// `None` for a built-in.
    pub variant_key: Option<String>,
}

#[derive(Clone, Debug)]
pub struct NewTournament<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub name: &'a str,
    pub organiser: PlayerId,
    pub variant: &'a str,
    pub format: Format,
    pub rounds: u32,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub starts_at: Option<i64>,
    pub max_players: Option<u32>,
    pub bye_halves: u32,
    pub now: i64,
    pub vacation_days: Option<u32>,
    /// A community variant's definition, stored with the tournament so every round plays it.
    pub definition: Option<StoredDefinition<'a>>,
}

/// A player entered in a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub player: PlayerId,
    pub joined_at: i64,
    /// The first round they can be paired in; the rounds before count as half-point byes when
    /// they joined a Swiss late.
    pub first_round: u32,
    /// The last round they took part in before withdrawing; never paired after it.
    pub withdrawn_after: Option<u32>,
    pub withdraw_reason: Option<String>,
    /// The rating they were seeded by, fixed at the start or at a late entry.
    pub seed_rating: i64,
    /// Their display name.
    pub name: String,
}

/// What one pairing row is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PairingKind {
    Game,
    /// The pairing-allocated bye.
    Bye,
    /// A round missed by a late entry, scored half a point.
    HalfBye,
    /// Not paired (withdrawn, or left out by the organiser): no points.
    Absent,
}

impl PairingKind {
    pub fn name(self) -> &'static str {
        match self {
            PairingKind::Game => "game",
            PairingKind::Bye => "bye",
            PairingKind::HalfBye => "half-bye",
            PairingKind::Absent => "absent",
        }
    }

    pub fn parse(text: &str) -> PairingKind {
        match text {
            "game" => PairingKind::Game,
            "bye" => PairingKind::Bye,
            "half-bye" => PairingKind::HalfBye,
            _ => PairingKind::Absent,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairingRow {
    pub round: u32,
    pub board: u32,
    pub leg: u32,
    pub white: PlayerId,
    pub black: Option<PlayerId>,
    pub kind: PairingKind,
    pub game: Option<GameId>,
    /// A result the organiser set: `1-0`, `0-1`, `1/2-1/2`, or forfeits `+-`, `-+`, `--`.
    pub result: Option<String>,
    pub result_reason: Option<String>,
}

/// Where a pairing stands: round, board, and leg (knockout replays).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PairingAt {
    pub round: u32,
    pub board: u32,
    pub leg: u32,
}

impl PairingRow {
    pub fn at(&self) -> PairingAt {
        PairingAt { round: self.round, board: self.board, leg: self.leg }
    }
}

/// A pairing to write; a game is created for each [`PairingKind::Game`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewPairing {
    pub board: u32,
    pub leg: u32,
    pub white: PlayerId,
    pub black: Option<PlayerId>,
    pub kind: PairingKind,
    /// A result known without playing (a forfeit against a withdrawn player): no game is created.
    pub result: Option<&'static str>,
}

/// What every game of a tournament shares.
#[derive(Clone, Debug)]
pub struct GameTemplate<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub variant: &'a str,
    pub start_fen: &'a str,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub now: i64,
    /// A community variant's definition, stored with each game ([`NewGame::definition`]).
    pub definition: Option<StoredDefinition<'a>>,
}

impl<'a> GameTemplate<'a> {
    /// The game of one pairing.
    pub fn game(&self, white: PlayerId, black: PlayerId) -> NewGame<'a> {
        NewGame {
            platform: self.platform,
            channel: self.channel,
            variant: self.variant,
            start_fen: self.start_fen,
            white,
            black,
            days_per_move: self.days_per_move,
            rated: self.rated,
            now: self.now,
            bot: None,
            weekends_off: false,
            definition: self.definition,
        }
    }
}

/// How a result an organiser (or a withdrawal) sets on a pairing ends the pairing's game.
#[derive(Debug)]
pub struct GameEnding<'a> {
    /// The game's result: a forfeit's `+-`, `-+`, `--` as `1-0`, `0-1`, `0-0`.
    pub result: &'a str,
    pub reason: String,
    /// A win (or loss) that was not played out: the game is not rated.
    pub forfeit: bool,
}

impl<'a> GameEnding<'a> {
    /// How the reason of a game lost by forfeit begins.
    pub const FORFEIT: &'static str = "forfeit: ";
    /// How the reason of a result the organiser set begins.
    pub const ORGANISER: &'static str = "set by the organiser";

    pub fn of(result: &'a str, reason: &str) -> GameEnding<'a> {
        let forfeit = matches!(result, "+-" | "-+" | "--");
        GameEnding {
            result: match result {
                "+-" => "1-0",
                "-+" => "0-1",
                "--" => "0-0",
                other => other,
            },
            reason: if forfeit {
                format!("{}{reason}", GameEnding::FORFEIT)
            } else {
                format!("{}: {reason}", GameEnding::ORGANISER)
            },
            forfeit,
        }
    }
}

/// A finished rated game, for ratings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatedResult {
    pub game: GameId,
    pub variant: String,
    pub platform: String,
    pub channel: String,
    pub white: PlayerId,
    pub black: PlayerId,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    pub finished_at: i64,
}

/// A finished tournament game: its result and why, and its players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    pub game: GameId,
    pub result: String,
    pub reason: Option<String>,
    pub white: PlayerId,
    pub black: PlayerId,
}

/// A result to set on a pairing ([`TournamentStore::set_pairing_result`]).
#[derive(Copy, Clone, Debug)]
pub struct ResultSetting<'a> {
    /// In the tournament's notation: `1-0`, `0-1`, `1/2-1/2`, forfeits `+-`, `-+`, `--`.
    pub result: &'a str,
    pub reason: &'a str,
    pub now: i64,
    /// Set only if the result is still this one (`Some(None)`: none yet); `None` sets it anyway.
    pub expected: Option<Option<&'a str>>,
}

/// What became of a result set on a pairing ([`TournamentStore::set_pairing_result`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetResult {
    Set,
    NoPairing,
    /// The result was no longer the one expected: this one, set meanwhile by someone else.
    Changed(Option<String>),
}

/// `notices` with their `{forfeits}` said: each game the withdrawal forfeited, `(game, winner's
/// name, winner's user id)`, as recorded in the withdrawal's own transaction; the winners are
/// named to notify.
pub fn with_forfeits(notices: &[NewNotice], forfeits: &[(GameId, String, String)]) -> Vec<NewNotice> {
    let said: String =
        forfeits.iter().map(|(game, name, _)| format!(" {name} wins game #{game} by forfeit.")).collect();
    notices
        .iter()
        .map(|n| {
            let mut n = n.clone();
            if n.text.contains("{forfeits}") {
                n.text = n.text.replace("{forfeits}", &said);
                n.notify.extend(forfeits.iter().map(|(_, _, user)| user.clone()));
            }
            n
        })
        .collect()
}

/// A game's stored result in the tournament's notation: a forfeit as `+-`, `-+` or `--`.
pub fn tournament_result(result: &str, reason: Option<&str>) -> String {
    let forfeit = reason.is_some_and(|r| r.starts_with(GameEnding::FORFEIT));
    match (result, forfeit) {
        ("1-0", true) => "+-".into(),
        ("0-1", true) => "-+".into(),
        ("0-0", _) => "--".into(),
        (other, _) => other.into(),
    }
}

/// Why an entry was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Joined,
    AlreadyIn,
    Full,
    /// The tournament no longer takes entries.
    Closed,
}
