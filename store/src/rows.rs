//! The records both databases return, read once. Each driver's row answers the three column
//! types the schema uses ([`Columns`]: whole numbers, text, flags); the records are built from
//! them here, so a column added to a table is read in one place for both stores.

use anyhow::{Context, Result};
use tessera_core::model::{
    BotOpponent, Challenge, ConditionalLine, Entrant, FinishedGame, Format, GameRow, Lease, PairingKind,
    PairingRow, Player, RatedResult, TournamentRow, TournamentStatus, Vacation,
};
use tessera_core::outbox::{NoticeKind, OutboxRow, notify_list};

/// A row as a driver hands it, by column position.
pub(crate) trait Columns {
    fn int(&self, i: usize) -> Result<Option<i64>>;
    fn text(&self, i: usize) -> Result<Option<String>>;
    fn flag(&self, i: usize) -> Result<bool>;
}

impl Columns for rusqlite::Row<'_> {
    fn int(&self, i: usize) -> Result<Option<i64>> {
        Ok(self.get(i)?)
    }
    fn text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.get(i)?)
    }
    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.get(i)?)
    }
}

/// PostgreSQL keeps every number as BIGINT and every flag as BOOLEAN.
impl Columns for tokio_postgres::Row {
    fn int(&self, i: usize) -> Result<Option<i64>> {
        Ok(self.try_get(i)?)
    }
    fn text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.try_get(i)?)
    }
    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.try_get(i)?)
    }
}

fn number(r: &impl Columns, i: usize) -> Result<i64> {
    r.int(i)?.with_context(|| format!("column {i} is NULL, where a number belongs"))
}

fn string(r: &impl Columns, i: usize) -> Result<String> {
    r.text(i)?.with_context(|| format!("column {i} is NULL, where text belongs"))
}

pub(crate) fn small_opt(r: &impl Columns, i: usize) -> Result<Option<u32>> {
    r.int(i)?
        .map(|v| u32::try_from(v).with_context(|| format!("column {i} holds {v}, out of range for u32")))
        .transpose()
}

pub(crate) fn small(r: &impl Columns, i: usize) -> Result<u32> {
    small_opt(r, i)?.with_context(|| format!("column {i} is NULL, where a number belongs"))
}

fn level_opt(r: &impl Columns, i: usize) -> Result<Option<u8>> {
    small_opt(r, i)?
        .map(|v| u8::try_from(v).with_context(|| format!("column {i} holds the level {v}, out of range")))
        .transpose()
}

/// A `games` row selected as [`crate::sql::GAME_COLUMNS`], with its moves (read by the caller:
/// each store fetches them its own way).
pub(crate) fn game_row(r: &impl Columns, moves: Vec<String>) -> Result<GameRow> {
    Ok(GameRow {
        id: number(r, 0)?,
        platform: string(r, 1)?,
        channel: string(r, 2)?,
        variant: string(r, 3)?,
        start_fen: string(r, 4)?,
        white: number(r, 5)?,
        black: number(r, 6)?,
        result: r.text(7)?,
        result_reason: r.text(8)?,
        days_per_move: small_opt(r, 9)?,
        last_move_at: number(r, 10)?,
        reminded: r.flag(11)?,
        draw_offer: r.int(12)?,
        takeback_offer: r.int(13)?,
        rated: r.flag(14)?,
        created_at: number(r, 15)?,
        bot: BotOpponent::from_columns(r.int(16)?, level_opt(r, 17)?),
        weekends_off: r.flag(18)?,
        thread: r.text(19)?,
        variant_key: r.text(20)?,
        moves,
    })
}

/// A `challenges` row selected as [`crate::sql::CHALLENGE_COLUMNS`].
pub(crate) fn challenge_row(r: &impl Columns) -> Result<Challenge> {
    Ok(Challenge {
        id: number(r, 0)?,
        platform: string(r, 1)?,
        channel: string(r, 2)?,
        challenger: number(r, 3)?,
        challenged: number(r, 4)?,
        variant: string(r, 5)?,
        color: string(r, 6)?,
        days_per_move: small_opt(r, 7)?,
        created_at: number(r, 8)?,
        rated: r.flag(9)?,
        weekends_off: r.flag(10)?,
    })
}

/// A `leases` row: `name, holder, expires_at, generation`.
pub(crate) fn lease_row(r: &impl Columns) -> Result<Lease> {
    Ok(Lease {
        name: string(r, 0)?,
        holder: string(r, 1)?,
        expires_at: number(r, 2)?,
        generation: number(r, 3)?,
    })
}

/// A `tournaments` row selected as [`crate::sql::TOURNAMENT_COLUMNS`].
pub(crate) fn tournament_row(r: &impl Columns) -> Result<TournamentRow> {
    Ok(TournamentRow {
        id: number(r, 0)?,
        platform: string(r, 1)?,
        channel: string(r, 2)?,
        name: string(r, 3)?,
        organiser: number(r, 4)?,
        variant: string(r, 5)?,
        format: Format::parse(&string(r, 6)?).unwrap_or(Format::Swiss),
        rounds: small(r, 7)?,
        days_per_move: small_opt(r, 8)?,
        rated: r.flag(9)?,
        starts_at: r.int(10)?,
        max_players: small_opt(r, 11)?,
        bye_halves: small(r, 12)?,
        status: TournamentStatus::parse(&string(r, 13)?),
        current_round: small(r, 14)?,
        created_at: number(r, 15)?,
        vacation_days: small_opt(r, 16)?,
        variant_key: r.text(17)?,
    })
}

/// An `outbox` row selected by [`crate::sql::HELD_NOTICES`].
pub(crate) fn notice_row(r: &impl Columns) -> Result<OutboxRow> {
    Ok(OutboxRow {
        id: number(r, 0)?,
        platform: string(r, 1)?,
        channel: string(r, 2)?,
        kind: NoticeKind::parse(&string(r, 3)?),
        subject: r.int(4)?,
        round: small_opt(r, 5)?,
        text: string(r, 6)?,
        notify: notify_list(&string(r, 7)?),
        created_at: number(r, 8)?,
    })
}

/// A `players` row selected by [`crate::sql::PLAYER_BY_ID`]: `id, platform, user_id, name`.
pub(crate) fn player_row(r: &impl Columns) -> Result<Player> {
    Ok(Player { id: number(r, 0)?, platform: string(r, 1)?, user_id: string(r, 2)?, name: string(r, 3)? })
}

/// An entrant selected by [`crate::sql::ENTRANTS`].
pub(crate) fn entrant_row(r: &impl Columns) -> Result<Entrant> {
    Ok(Entrant {
        player: number(r, 0)?,
        joined_at: number(r, 1)?,
        first_round: small(r, 2)?,
        withdrawn_after: small_opt(r, 3)?,
        withdraw_reason: r.text(4)?,
        seed_rating: number(r, 5)?,
        name: string(r, 6)?,
    })
}

/// A pairing selected by [`crate::sql::PAIRINGS`].
pub(crate) fn pairing_row(r: &impl Columns) -> Result<PairingRow> {
    Ok(PairingRow {
        round: small(r, 0)?,
        board: small(r, 1)?,
        leg: small(r, 2)?,
        white: number(r, 3)?,
        black: r.int(4)?,
        kind: PairingKind::parse(&string(r, 5)?),
        game: r.int(6)?,
        result: r.text(7)?,
        result_reason: r.text(8)?,
    })
}

/// A finished game of a tournament, selected by [`crate::sql::FINISHED_GAMES`].
pub(crate) fn finished_game_row(r: &impl Columns) -> Result<FinishedGame> {
    Ok(FinishedGame {
        game: number(r, 0)?,
        result: string(r, 1)?,
        reason: r.text(2)?,
        white: number(r, 3)?,
        black: number(r, 4)?,
    })
}

/// A rated game: `id, variant, platform, channel, white, black, result, finished at`.
pub(crate) fn rated_result_row(r: &impl Columns) -> Result<RatedResult> {
    Ok(RatedResult {
        game: number(r, 0)?,
        variant: string(r, 1)?,
        platform: string(r, 2)?,
        channel: string(r, 3)?,
        white: number(r, 4)?,
        black: number(r, 5)?,
        result: string(r, 6)?,
        finished_at: number(r, 7)?,
    })
}

/// A `conditional_lines` row selected as [`crate::sql::CONDITIONAL_LINES`].
pub(crate) fn conditional_line(r: &impl Columns) -> Result<ConditionalLine> {
    let turns = string(r, 3)?;
    Ok(ConditionalLine {
        id: number(r, 0)?,
        player: number(r, 1)?,
        from_ply: usize::try_from(number(r, 2)?)?,
        turns: turns.lines().map(str::to_string).collect(),
    })
}

/// A `vacations` row selected as [`crate::sql::VACATIONS`].
pub(crate) fn vacation(r: &impl Columns) -> Result<Vacation> {
    Ok(Vacation { player: number(r, 0)?, start: number(r, 1)?, end: number(r, 2)? })
}

/// An `analyses` row selected as [`crate::sql::ANALYSIS_COLUMNS`].
pub(crate) fn analysis_row(r: &impl Columns) -> Result<tessera_core::model::AnalysisRow> {
    Ok(tessera_core::model::AnalysisRow {
        game: number(r, 0)?,
        requester: number(r, 1)?,
        platform: string(r, 2)?,
        channel: string(r, 3)?,
        requested_at: number(r, 4)?,
        finished_at: r.int(5)?,
    })
}

/// An `analysis_plies` row: ply, eval, best, depth.
pub(crate) fn ply_eval(r: &impl Columns) -> Result<tessera_core::analysis::PlyEval> {
    let text = string(r, 1)?;
    Ok(tessera_core::analysis::PlyEval {
        ply: usize::try_from(number(r, 0)?).context("a negative ply")?,
        eval: tessera_core::analysis::Eval::parse(&text)
            .with_context(|| format!("the evaluation {text:?} cannot be read"))?,
        best: r.text(2)?,
        depth: small(r, 3)?,
    })
}
