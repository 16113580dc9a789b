//! Storage of tournaments: their settings, entrants and the pairings of each round. Standings are
//! not stored; they follow from the pairings and the games' results.
//!
//! The guard against pairing a round twice is `current_round`: [`TournamentStore::pair_round`]
//! moves it from `round - 1` to `round` in the same transaction that writes the round's pairings
//! and creates its games, so of two processes racing to pair a round exactly one succeeds.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use crate::outbox::NewNotice;
use crate::store::{
    GameId, NewGame, PlayerId, SqliteStore, insert_game, insert_notices, insert_notices_for, sql,
};

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

    pub(crate) fn parse(text: &str) -> TournamentStatus {
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
    pub(crate) fn name(self) -> &'static str {
        match self {
            PairingKind::Game => "game",
            PairingKind::Bye => "bye",
            PairingKind::HalfBye => "half-bye",
            PairingKind::Absent => "absent",
        }
    }

    pub(crate) fn parse(text: &str) -> PairingKind {
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
}

impl<'a> GameTemplate<'a> {
    /// The game of one pairing.
    pub(crate) fn game(&self, white: PlayerId, black: PlayerId) -> NewGame<'a> {
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
        }
    }
}

/// How a result an organiser (or a withdrawal) sets on a pairing ends the pairing's game.
#[derive(Debug)]
pub(crate) struct GameEnding<'a> {
    /// The game's result: a forfeit's `+-`, `-+`, `--` as `1-0`, `0-1`, `0-0`.
    pub result: &'a str,
    pub reason: String,
    /// A win (or loss) that was not played out: the game is not rated.
    pub forfeit: bool,
}

impl<'a> GameEnding<'a> {
    /// How the reason of a game lost by forfeit begins.
    pub(crate) const FORFEIT: &'static str = "forfeit: ";

    pub(crate) fn of(result: &'a str, reason: &str) -> GameEnding<'a> {
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
                format!("set by the organiser: {reason}")
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
pub(crate) fn with_forfeits(notices: &[NewNotice], forfeits: &[(GameId, String, String)]) -> Vec<NewNotice> {
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
pub(crate) fn tournament_result(result: &str, reason: Option<&str>) -> String {
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

pub trait TournamentStore {
    fn create_tournament(&self, t: &NewTournament) -> Result<TournamentId>;
    fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>>;
    /// A channel's tournaments, oldest first.
    fn channel_tournaments(&self, platform: &str, channel: &str) -> Result<Vec<TournamentRow>>;
    /// Tournaments still to be played, everywhere.
    fn live_tournaments(&self) -> Result<Vec<TournamentRow>>;
    /// Enters a player, in one transaction with the checks: the status is one of `statuses`, the
    /// player limit is not reached.
    fn add_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        first_round: u32,
        seed_rating: i64,
        statuses: &[TournamentStatus],
        now: i64,
    ) -> Result<Entry>;
    /// Takes a player out before the start; false if they were not in or it has started.
    fn remove_entrant(&self, t: TournamentId, player: PlayerId) -> Result<bool>;
    fn entrants(&self, t: TournamentId) -> Result<Vec<Entrant>>;
    /// Withdraws a player after `after_round`, and in the same transaction loses by forfeit their
    /// game of that round still being played. `None` if they were not in or already withdrawn;
    /// else the forfeited games, with the opponent who wins each.
    fn withdraw_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        after_round: u32,
        reason: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<Option<Vec<(GameId, PlayerId)>>>;
    /// Moves the status from one of `from` to `to`, storing `notices` with it; false if it was in
    /// none of them.
    fn set_tournament_status(
        &self,
        t: TournamentId,
        from: &[TournamentStatus],
        to: TournamentStatus,
        notices: &[NewNotice],
    ) -> Result<bool>;
    fn set_tournament_rounds(&self, t: TournamentId, rounds: u32) -> Result<()>;
    /// Writes round `round`'s pairings and creates its games, in one transaction that also moves
    /// `current_round` from `round - 1` to `round`, the status from open to running, and fixes the
    /// `seeds` (the players' seed ratings, given at the start). Returns false, changing nothing,
    /// if the round was already paired (by another process, say). `notices` (the round's
    /// announcement) are stored with it.
    fn pair_round(
        &self,
        t: TournamentId,
        round: u32,
        seeds: &[(PlayerId, i64)],
        pairings: &[NewPairing],
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<bool>;
    /// Knockout: adds a replay game to a match; `None` if that leg exists already. A `{game}` in a
    /// notice's text becomes the new game's number.
    fn add_leg(
        &self,
        t: TournamentId,
        round: u32,
        pairing: &NewPairing,
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>>;
    fn pairings(&self, t: TournamentId) -> Result<Vec<PairingRow>>;
    /// Sets the result of a pairing, with `notices`, in one transaction. A pairing with a game
    /// keeps its result in the game alone (the game's record, the standings, the TRF and the
    /// ratings all read it there): the game ends, or its result is corrected. With `expected`,
    /// only if the result is still that one (in the tournament's notation, `None` for none yet):
    /// of two racing settings, the second finds the first's result and changes nothing.
    fn set_pairing_result(
        &self,
        t: TournamentId,
        at: PairingAt,
        setting: &ResultSetting,
        notices: &[NewNotice],
    ) -> Result<SetResult>;
    /// The tournament's finished games, by one query: what standings are made of.
    fn finished_games(&self, t: TournamentId) -> Result<Vec<FinishedGame>>;
    /// The tournament a game belongs to, with its round.
    fn tournament_of_game(&self, game: GameId) -> Result<Option<(TournamentId, u32)>>;
    /// Finished rated games, in the order they finished.
    fn rated_results(&self) -> Result<Vec<RatedResult>>;
}

impl<T: TournamentStore + ?Sized> TournamentStore for Box<T> {
    fn create_tournament(&self, t: &NewTournament) -> Result<TournamentId> {
        (**self).create_tournament(t)
    }
    fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>> {
        (**self).tournament(id)
    }
    fn channel_tournaments(&self, platform: &str, channel: &str) -> Result<Vec<TournamentRow>> {
        (**self).channel_tournaments(platform, channel)
    }
    fn live_tournaments(&self) -> Result<Vec<TournamentRow>> {
        (**self).live_tournaments()
    }
    fn add_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        first_round: u32,
        seed_rating: i64,
        statuses: &[TournamentStatus],
        now: i64,
    ) -> Result<Entry> {
        (**self).add_entrant(t, player, first_round, seed_rating, statuses, now)
    }
    fn remove_entrant(&self, t: TournamentId, player: PlayerId) -> Result<bool> {
        (**self).remove_entrant(t, player)
    }
    fn entrants(&self, t: TournamentId) -> Result<Vec<Entrant>> {
        (**self).entrants(t)
    }
    fn withdraw_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        after_round: u32,
        reason: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<Option<Vec<(GameId, PlayerId)>>> {
        (**self).withdraw_entrant(t, player, after_round, reason, now, notices)
    }
    fn set_tournament_status(
        &self,
        t: TournamentId,
        from: &[TournamentStatus],
        to: TournamentStatus,
        notices: &[NewNotice],
    ) -> Result<bool> {
        (**self).set_tournament_status(t, from, to, notices)
    }
    fn set_tournament_rounds(&self, t: TournamentId, rounds: u32) -> Result<()> {
        (**self).set_tournament_rounds(t, rounds)
    }
    fn pair_round(
        &self,
        t: TournamentId,
        round: u32,
        seeds: &[(PlayerId, i64)],
        pairings: &[NewPairing],
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<bool> {
        (**self).pair_round(t, round, seeds, pairings, game, notices)
    }
    fn add_leg(
        &self,
        t: TournamentId,
        round: u32,
        pairing: &NewPairing,
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        (**self).add_leg(t, round, pairing, game, notices)
    }
    fn pairings(&self, t: TournamentId) -> Result<Vec<PairingRow>> {
        (**self).pairings(t)
    }
    fn set_pairing_result(
        &self,
        t: TournamentId,
        at: PairingAt,
        setting: &ResultSetting,
        notices: &[NewNotice],
    ) -> Result<SetResult> {
        (**self).set_pairing_result(t, at, setting, notices)
    }
    fn finished_games(&self, t: TournamentId) -> Result<Vec<FinishedGame>> {
        (**self).finished_games(t)
    }
    fn tournament_of_game(&self, game: GameId) -> Result<Option<(TournamentId, u32)>> {
        (**self).tournament_of_game(game)
    }
    fn rated_results(&self) -> Result<Vec<RatedResult>> {
        (**self).rated_results()
    }
}

pub(crate) const TOURNAMENT_COLUMNS: &str = "id, platform, channel, name, organiser, variant, format, rounds, days_per_move, \
     rated, starts_at, max_players, bye_halves, status, current_round, created_at";

fn tournament_row(r: &rusqlite::Row) -> rusqlite::Result<TournamentRow> {
    let format: String = r.get(6)?;
    let status: String = r.get(13)?;
    Ok(TournamentRow {
        id: r.get(0)?,
        platform: r.get(1)?,
        channel: r.get(2)?,
        name: r.get(3)?,
        organiser: r.get(4)?,
        variant: r.get(5)?,
        format: Format::parse(&format).unwrap_or(Format::Swiss),
        rounds: r.get(7)?,
        days_per_move: r.get(8)?,
        rated: r.get(9)?,
        starts_at: r.get(10)?,
        max_players: r.get(11)?,
        bye_halves: r.get(12)?,
        status: TournamentStatus::parse(&status),
        current_round: r.get(14)?,
        created_at: r.get(15)?,
    })
}

fn insert_pairing(
    tx: &rusqlite::Transaction,
    t: TournamentId,
    round: u32,
    p: &NewPairing,
    game: Option<GameId>,
) -> Result<()> {
    tx.execute(
        sql::INSERT_PAIRING,
        params![
            t,
            round,
            p.board,
            p.leg,
            p.white,
            p.black,
            p.kind.name(),
            game,
            p.result,
            p.result.map(|_| "withdrawal")
        ],
    )?;
    Ok(())
}

/// Sets a pairing's result inside `tx` (see [`TournamentStore::set_pairing_result`]).
fn record_result(
    tx: &rusqlite::Transaction,
    t: TournamentId,
    at: PairingAt,
    result: &str,
    reason: &str,
    now: i64,
    expected: Option<Option<&str>>,
) -> Result<SetResult> {
    let PairingAt { round, board, leg } = at;
    let found: Option<(Option<GameId>, Option<String>)> = tx
        .query_row(
            "SELECT game_id, result FROM tournament_pairings WHERE tournament_id = ?1 AND round = ?2
             AND board = ?3 AND leg = ?4",
            params![t, round, board, leg],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((game, pairing_result)) = found else { return Ok(SetResult::NoPairing) };
    let current = match game {
        Some(game) => {
            let (result, reason): (Option<String>, Option<String>) =
                tx.query_row(sql::GAME_RESULT, [game], |r| Ok((r.get(0)?, r.get(1)?)))?;
            result.map(|r| tournament_result(&r, reason.as_deref()))
        }
        None => pairing_result,
    };
    if let Some(expected) = expected
        && current.as_deref() != expected
    {
        return Ok(SetResult::Changed(current));
    }
    match game {
        Some(game) => {
            let end = GameEnding::of(result, reason);
            tx.execute(sql::SET_GAME_RESULT, params![game, end.result, end.reason, now, end.forfeit, t])?;
        }
        None => {
            tx.execute(
                "UPDATE tournament_pairings SET result = ?5, result_reason = ?6
                 WHERE tournament_id = ?1 AND round = ?2 AND board = ?3 AND leg = ?4",
                params![t, round, board, leg, result, reason],
            )?;
        }
    }
    Ok(SetResult::Set)
}

impl TournamentStore for SqliteStore {
    fn create_tournament(&self, t: &NewTournament) -> Result<TournamentId> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO tournaments (platform, channel, name, organiser, variant, format, rounds, days_per_move,
             rated, starts_at, max_players, bye_halves, status, current_round, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'open', 0, ?13)",
            params![
                t.platform,
                t.channel,
                t.name,
                t.organiser,
                t.variant,
                t.format.name(),
                t.rounds,
                t.days_per_move,
                t.rated,
                t.starts_at,
                t.max_players,
                t.bye_halves,
                t.now
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>> {
        let conn = self.conn();
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?1");
        Ok(conn.query_row(&sql, [id], tournament_row).optional()?)
    }

    fn channel_tournaments(&self, platform: &str, channel: &str) -> Result<Vec<TournamentRow>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE platform = ?1 AND channel = ?2 ORDER BY id"
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map(params![platform, channel], tournament_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn live_tournaments(&self) -> Result<Vec<TournamentRow>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN ('open', 'running', 'paused') ORDER BY id"
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map([], tournament_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn add_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        first_round: u32,
        seed_rating: i64,
        statuses: &[TournamentStatus],
        now: i64,
    ) -> Result<Entry> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (status, max): (String, Option<u32>) =
            tx.query_row("SELECT status, max_players FROM tournaments WHERE id = ?1", [t], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        if !statuses.contains(&TournamentStatus::parse(&status)) {
            return Ok(Entry::Closed);
        }
        let already: bool = tx.query_row(sql::IS_ENTRANT, params![t, player], |r| r.get(0))?;
        if already {
            return Ok(Entry::AlreadyIn);
        }
        let count: u32 = tx.query_row(sql::ENTRANT_COUNT, [t], |r| r.get(0))?;
        if max.is_some_and(|m| count >= m) {
            return Ok(Entry::Full);
        }
        tx.execute(sql::INSERT_ENTRANT, params![t, player, now, first_round, seed_rating])?;
        tx.commit()?;
        Ok(Entry::Joined)
    }

    fn remove_entrant(&self, t: TournamentId, player: PlayerId) -> Result<bool> {
        let conn = self.conn();
        let n = conn.execute(sql::REMOVE_ENTRANT, params![t, player])?;
        Ok(n == 1)
    }

    fn entrants(&self, t: TournamentId) -> Result<Vec<Entrant>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(sql::ENTRANTS)?;
        let rows = stmt.query_map([t], |r| {
            Ok(Entrant {
                player: r.get(0)?,
                joined_at: r.get(1)?,
                first_round: r.get(2)?,
                withdrawn_after: r.get(3)?,
                withdraw_reason: r.get(4)?,
                seed_rating: r.get(5)?,
                name: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn withdraw_entrant(
        &self,
        t: TournamentId,
        player: PlayerId,
        after_round: u32,
        reason: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<Option<Vec<(GameId, PlayerId)>>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let n = tx.execute(sql::WITHDRAW_ENTRANT, params![t, player, after_round, reason])?;
        if n != 1 {
            return Ok(None);
        }
        // Their game of this round, if it is still being played, is lost by forfeit.
        let running: Vec<(u32, u32, PlayerId, PlayerId, GameId)> = {
            let mut stmt = tx.prepare(sql::UNFINISHED_PAIRINGS_OF)?;
            let rows = stmt.query_map(params![t, after_round, player], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()?
        };
        let mut forfeits = Vec::new();
        for (board, leg, white, black, game) in running {
            let (result, winner) = if white == player { ("-+", black) } else { ("+-", white) };
            // Only a game still without a result: one that ended meanwhile keeps its ending.
            let at = PairingAt { round: after_round, board, leg };
            if record_result(&tx, t, at, result, "withdrawal", now, Some(None))? == SetResult::Set {
                forfeits.push((game, winner));
            }
        }
        let mut told = Vec::new();
        for &(game, winner) in &forfeits {
            let (user, name): (String, String) =
                tx.query_row(sql::PLAYER_BY_ID, [winner], |r| Ok((r.get(2)?, r.get(3)?)))?;
            told.push((game, name, user));
        }
        insert_notices(&tx, &with_forfeits(notices, &told), now)?;
        tx.commit()?;
        Ok(Some(forfeits))
    }

    fn set_tournament_status(
        &self,
        t: TournamentId,
        from: &[TournamentStatus],
        to: TournamentStatus,
        notices: &[NewNotice],
    ) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let status: Option<String> =
            tx.query_row("SELECT status FROM tournaments WHERE id = ?1", [t], |r| r.get(0)).optional()?;
        if !status.is_some_and(|s| from.contains(&TournamentStatus::parse(&s))) {
            return Ok(false);
        }
        tx.execute(sql::SET_TOURNAMENT_STATUS, params![t, to.name()])?;
        insert_notices(&tx, notices, crate::service::unix_now())?;
        tx.commit()?;
        Ok(true)
    }

    fn set_tournament_rounds(&self, t: TournamentId, rounds: u32) -> Result<()> {
        self.conn().execute(sql::SET_TOURNAMENT_ROUNDS, params![t, rounds])?;
        Ok(())
    }

    fn pair_round(
        &self,
        t: TournamentId,
        round: u32,
        seeds: &[(PlayerId, i64)],
        pairings: &[NewPairing],
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let moved = tx.execute(
            "UPDATE tournaments SET current_round = ?2,
             status = CASE status WHEN 'open' THEN 'running' ELSE status END
             WHERE id = ?1 AND current_round = ?2 - 1 AND status IN ('open', 'running')",
            params![t, round],
        )?;
        if moved != 1 {
            return Ok(false);
        }
        // A player withdrawn while the round was being worked out is not paired: the caller
        // works it out again.
        for p in pairings.iter().filter(|p| p.kind == PairingKind::Game && p.result.is_none()) {
            for player in [Some(p.white), p.black].into_iter().flatten() {
                if tx.query_row(sql::IS_WITHDRAWN, params![t, player], |r| r.get::<_, bool>(0))? {
                    return Ok(false);
                }
            }
        }
        for (player, rating) in seeds {
            tx.execute(sql::SET_SEED_RATING, params![t, player, rating])?;
        }
        for p in pairings {
            let game_id = match (p.kind, p.black, p.result) {
                (PairingKind::Game, Some(black), None) => Some(insert_game(&tx, &game.game(p.white, black))?),
                _ => None,
            };
            insert_pairing(&tx, t, round, p, game_id)?;
        }
        insert_notices(&tx, notices, game.now)?;
        tx.commit()?;
        Ok(true)
    }

    fn add_leg(
        &self,
        t: TournamentId,
        round: u32,
        pairing: &NewPairing,
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let exists: bool =
            tx.query_row(sql::PAIRING_EXISTS, params![t, round, pairing.board, pairing.leg], |r| r.get(0))?;
        let Some(black) = pairing.black.filter(|_| !exists) else { return Ok(None) };
        let id = insert_game(&tx, &game.game(pairing.white, black))?;
        insert_pairing(&tx, t, round, pairing, Some(id))?;
        insert_notices_for(&tx, notices, game.now, Some(id))?;
        tx.commit()?;
        Ok(Some(id))
    }

    fn pairings(&self, t: TournamentId) -> Result<Vec<PairingRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(sql::PAIRINGS)?;
        let rows = stmt.query_map([t], |r| {
            let kind: String = r.get(5)?;
            Ok(PairingRow {
                round: r.get(0)?,
                board: r.get(1)?,
                leg: r.get(2)?,
                white: r.get(3)?,
                black: r.get(4)?,
                kind: PairingKind::parse(&kind),
                game: r.get(6)?,
                result: r.get(7)?,
                result_reason: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn set_pairing_result(
        &self,
        t: TournamentId,
        at: PairingAt,
        setting: &ResultSetting,
        notices: &[NewNotice],
    ) -> Result<SetResult> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let ResultSetting { result, reason, now, expected } = *setting;
        let outcome = record_result(&tx, t, at, result, reason, now, expected)?;
        if outcome == SetResult::Set {
            insert_notices(&tx, notices, now)?;
            tx.commit()?;
        }
        Ok(outcome)
    }

    fn finished_games(&self, t: TournamentId) -> Result<Vec<FinishedGame>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(sql::FINISHED_GAMES)?;
        let rows = stmt.query_map([t], |r| {
            Ok(FinishedGame {
                game: r.get(0)?,
                result: r.get(1)?,
                reason: r.get(2)?,
                white: r.get(3)?,
                black: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn tournament_of_game(&self, game: GameId) -> Result<Option<(TournamentId, u32)>> {
        let conn = self.conn();
        Ok(conn.query_row(sql::TOURNAMENT_OF_GAME, [game], |r| Ok((r.get(0)?, r.get(1)?))).optional()?)
    }

    fn rated_results(&self) -> Result<Vec<RatedResult>> {
        let conn = self.conn();
        // Games against the bot are created unrated; the filter keeps them out even if one were not.
        let mut stmt = conn.prepare(
            "SELECT id, variant, platform, channel, white, black, result, COALESCE(finished_at, last_move_at)
             FROM games WHERE rated = 1 AND bot_level IS NULL AND result IN ('1-0', '0-1', '1/2-1/2')
             ORDER BY COALESCE(finished_at, last_move_at), id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(RatedResult {
                game: r.get(0)?,
                variant: r.get(1)?,
                platform: r.get(2)?,
                channel: r.get(3)?,
                white: r.get(4)?,
                black: r.get(5)?,
                result: r.get(6)?,
                finished_at: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
