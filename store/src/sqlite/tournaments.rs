//! Storage of tournaments: their settings, entrants and the pairings of each round. Standings are
//! not stored; they follow from the pairings and the games' results.
//!
//! The guard against pairing a round twice is `current_round`: [`TournamentStore::pair_round`]
//! moves it from `round - 1` to `round` in the same transaction that writes the round's pairings
//! and creates its games, so of two processes racing to pair a round exactly one succeeds.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use crate::sql::{self, TOURNAMENT_COLUMNS};
use tessera_core::model::*;
use tessera_core::outbox::NewNotice;
use tessera_core::store::TournamentStore;

use super::{SqliteStore, insert_game, insert_notices, insert_notices_for, read_all, read_one};
use crate::rows;

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
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        if let Some(d) = t.definition {
            tx.execute(sql::INSERT_VARIANT_DEFINITION, params![d.key, d.text])?;
        }
        tx.execute(
            "INSERT INTO tournaments (platform, channel, name, organiser, variant, format, rounds, days_per_move,
             rated, starts_at, max_players, bye_halves, status, current_round, created_at, vacation_days,
             variant_key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'open', 0, ?13, ?14, ?15)",
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
                t.now,
                t.vacation_days,
                t.definition.map(|d| d.key)
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>> {
        let conn = self.conn();
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?1");
        read_one(&conn, &sql, [id], |r| rows::tournament_row(r))
    }

    fn channel_tournaments(&self, platform: &str, channel: &str) -> Result<Vec<TournamentRow>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE platform = ?1 AND channel = ?2 ORDER BY id"
        );
        let mut stmt = conn.prepare(&sql)?;
        read_all(&mut stmt, params![platform, channel], |r| rows::tournament_row(r))
    }

    fn live_tournaments(&self) -> Result<Vec<TournamentRow>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN ('open', 'running', 'paused') ORDER BY id"
        );
        let mut stmt = conn.prepare(&sql)?;
        read_all(&mut stmt, [], |r| rows::tournament_row(r))
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
        read_all(&mut stmt, [t], |r| rows::entrant_row(r))
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
        insert_notices(&tx, notices, tessera_core::service::unix_now())?;
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
        read_all(&mut stmt, [t], |r| rows::pairing_row(r))
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
        read_all(&mut stmt, [t], |r| rows::finished_game_row(r))
    }

    fn round_last_move(&self, t: TournamentId, round: u32) -> Result<Option<i64>> {
        Ok(self.conn().query_row(sql::ROUND_LAST_MOVE, params![t, round], |r| r.get(0))?)
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
        read_all(&mut stmt, [], |r| rows::rated_result_row(r))
    }
}
