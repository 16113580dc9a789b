//! The tournaments' half of the PostgreSQL store.

use super::*;

async fn insert_pairing(
    tx: &deadpool_postgres::Transaction<'_>,
    t: TournamentId,
    round: u32,
    p: &NewPairing,
    game: Option<GameId>,
) -> Result<()> {
    execute(
        tx,
        sql::INSERT_PAIRING,
        &[
            &t,
            &i64::from(round),
            &i64::from(p.board),
            &i64::from(p.leg),
            &p.white,
            &p.black,
            &p.kind.name(),
            &game,
            &p.result,
            &p.result.map(|_| "withdrawal"),
        ],
    )
    .await?;
    Ok(())
}

/// Sets a pairing's result inside `tx` (see [`TournamentStore::set_pairing_result`]).
async fn record_result(
    tx: &deadpool_postgres::Transaction<'_>,
    t: TournamentId,
    at: PairingAt,
    result: &str,
    reason: &str,
    now: i64,
    expected: Option<Option<&str>>,
) -> Result<SetResult> {
    let (round, board, leg) = (i64::from(at.round), i64::from(at.board), i64::from(at.leg));
    // The pairing's row locked: of two settings, the second reads the first's result.
    let Some(found) = row(
        tx,
        "SELECT game_id, result FROM tournament_pairings
         WHERE tournament_id = $1 AND round = $2 AND board = $3 AND leg = $4 FOR UPDATE",
        &[&t, &round, &board, &leg],
    )
    .await?
    else {
        return Ok(SetResult::NoPairing);
    };
    let game: Option<GameId> = found.try_get(0)?;
    let current = match game {
        Some(game) => {
            let r =
                one(tx, "SELECT result, result_reason FROM games WHERE id = $1 FOR UPDATE", &[&game]).await?;
            let (result, reason): (Option<String>, Option<String>) = (r.try_get(0)?, r.try_get(1)?);
            result.map(|r| tournament_result(&r, reason.as_deref()))
        }
        None => found.try_get(1)?,
    };
    if let Some(expected) = expected
        && current.as_deref() != expected
    {
        return Ok(SetResult::Changed(current));
    }
    match game {
        Some(game) => {
            let end = GameEnding::of(result, reason);
            execute(tx, sql::SET_GAME_RESULT, &[&game, &end.result, &end.reason, &now, &end.forfeit, &t])
                .await?;
        }
        None => {
            execute(
                tx,
                "UPDATE tournament_pairings SET result = $5, result_reason = $6
                 WHERE tournament_id = $1 AND round = $2 AND board = $3 AND leg = $4",
                &[&t, &round, &board, &leg, &result, &reason],
            )
            .await?;
        }
    }
    Ok(SetResult::Set)
}

impl TournamentStore for PgStore {
    fn create_tournament(&self, t: &NewTournament) -> Result<TournamentId> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            if let Some(d) = t.definition {
                execute(&tx, sql::INSERT_VARIANT_DEFINITION, &[&d.key, &d.text]).await?;
            }
            let r = one(
                &tx,
                "INSERT INTO tournaments (platform, channel, name, organiser, variant, format, rounds,
                 days_per_move, rated, starts_at, max_players, bye_halves, status, current_round, created_at,
                 vacation_days, variant_key)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'open', 0, $13, $14, $15) RETURNING id",
                &[
                &t.platform,
                &t.channel,
                &t.name,
                &t.organiser,
                &t.variant,
                &t.format.name(),
                &i64::from(t.rounds),
                &t.days_per_move.map(i64::from),
                &t.rated,
                &t.starts_at,
                &t.max_players.map(i64::from),
                &i64::from(t.bye_halves),
                &t.now,
                &t.vacation_days.map(i64::from),
                &t.definition.map(|d| d.key),
            ],
            )
            .await?;
            let id = r.try_get(0)?;
            tx.commit().await?;
            Ok(id)
        })
    }

    fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>> {
        self.row(&format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1"), &[&id])?
            .as_ref()
            .map(tournament_row)
            .transpose()
    }

    fn channel_tournaments(&self, platform: &str, channel: &str) -> Result<Vec<TournamentRow>> {
        self.rows(
            &format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE platform = $1 AND channel = $2 ORDER BY id"),
            &[&platform, &channel],
        )?
        .iter()
        .map(tournament_row)
        .collect()
    }

    fn live_tournaments(&self) -> Result<Vec<TournamentRow>> {
        self.rows(
            &format!(
                "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN ('open', 'running', 'paused')
                 ORDER BY id"
            ),
            &[],
        )?
        .iter()
        .map(tournament_row)
        .collect()
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
        self.run(async |c| {
            let tx = c.transaction().await?;
            // The tournament's row held: entries take turns, so a limit is never overrun.
            let r = one(&tx, "SELECT status, max_players FROM tournaments WHERE id = $1 FOR UPDATE", &[&t])
                .await?;
            let (status, max): (String, Option<u32>) = (r.try_get(0)?, small_opt(&r, 1)?);
            if !statuses.contains(&TournamentStatus::parse(&status)) {
                return Ok(Entry::Closed);
            }
            let already: bool = one(&tx, sql::IS_ENTRANT, &[&t, &player]).await?.try_get(0)?;
            if already {
                return Ok(Entry::AlreadyIn);
            }
            let count: i64 = one(&tx, sql::ENTRANT_COUNT, &[&t]).await?.try_get(0)?;
            if max.is_some_and(|m| count >= i64::from(m)) {
                return Ok(Entry::Full);
            }
            execute(&tx, sql::INSERT_ENTRANT, &[&t, &player, &now, &i64::from(first_round), &seed_rating])
                .await?;
            tx.commit().await?;
            Ok(Entry::Joined)
        })
    }

    fn remove_entrant(&self, t: TournamentId, player: PlayerId) -> Result<bool> {
        let n = self.execute(sql::REMOVE_ENTRANT, &[&t, &player])?;
        Ok(n == 1)
    }

    fn entrants(&self, t: TournamentId) -> Result<Vec<Entrant>> {
        self.rows(sql::ENTRANTS, &[&t])?.iter().map(entrant_row).collect()
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
        self.run(async |c| {
            let tx = c.transaction().await?;
            let round = i64::from(after_round);
            let n = execute(&tx, sql::WITHDRAW_ENTRANT, &[&t, &player, &round, &reason]).await?;
            if n != 1 {
                return Ok(None);
            }
            // Their game of this round, if it is still being played, is lost by forfeit.
            let running = rows(&tx, sql::UNFINISHED_PAIRINGS_OF, &[&t, &round, &player]).await?;
            let mut forfeits = Vec::new();
            for r in &running {
                let (white, black, game): (PlayerId, PlayerId, GameId) =
                    (r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
                let at = PairingAt { round: after_round, board: small(r, 0)?, leg: small(r, 1)? };
                let (result, winner) = if white == player { ("-+", black) } else { ("+-", white) };
                // Only a game still without a result: one that ended meanwhile keeps its ending.
                if record_result(&tx, t, at, result, "withdrawal", now, Some(None)).await? == SetResult::Set {
                    forfeits.push((game, winner));
                }
            }
            let mut told = Vec::new();
            for &(game, winner) in &forfeits {
                let r = one(&tx, sql::PLAYER_BY_ID, &[&winner]).await?;
                told.push((game, r.try_get(3)?, r.try_get(2)?));
            }
            insert_notices(&tx, &with_forfeits(notices, &told), now, None).await?;
            tx.commit().await?;
            Ok(Some(forfeits))
        })
    }

    fn set_tournament_status(
        &self,
        t: TournamentId,
        from: &[TournamentStatus],
        to: TournamentStatus,
        notices: &[NewNotice],
    ) -> Result<bool> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            let status: Option<String> =
                row(&tx, "SELECT status FROM tournaments WHERE id = $1 FOR UPDATE", &[&t])
                    .await?
                    .map(|r| r.try_get(0))
                    .transpose()?;
            if !status.is_some_and(|s| from.contains(&TournamentStatus::parse(&s))) {
                return Ok(false);
            }
            execute(&tx, sql::SET_TOURNAMENT_STATUS, &[&t, &to.name()]).await?;
            insert_notices(&tx, notices, tessera_core::service::unix_now(), None).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn set_tournament_rounds(&self, t: TournamentId, rounds: u32) -> Result<()> {
        self.execute(sql::SET_TOURNAMENT_ROUNDS, &[&t, &i64::from(rounds)])?;
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
        self.run(async |c| {
            let tx = c.transaction().await?;
            // Of two processes pairing the same round, the second waits for the first's row lock,
            // then finds `current_round` moved on and pairs nothing.
            let moved = execute(
                &tx,
                "UPDATE tournaments SET current_round = $2,
                 status = CASE status WHEN 'open' THEN 'running' ELSE status END
                 WHERE id = $1 AND current_round = $2::BIGINT - 1 AND status IN ('open', 'running')",
                &[&t, &i64::from(round)],
            )
            .await?;
            if moved != 1 {
                return Ok(false);
            }
            // A player withdrawn while the round was being worked out is not paired: the caller
            // works it out again.
            for p in pairings.iter().filter(|p| p.kind == PairingKind::Game && p.result.is_none()) {
                for player in [Some(p.white), p.black].into_iter().flatten() {
                    if one(&tx, sql::IS_WITHDRAWN, &[&t, &player]).await?.try_get::<_, bool>(0)? {
                        return Ok(false);
                    }
                }
            }
            for (player, rating) in seeds {
                execute(&tx, sql::SET_SEED_RATING, &[&t, player, rating]).await?;
            }
            for p in pairings {
                let game_id = match (p.kind, p.black, p.result) {
                    (PairingKind::Game, Some(black), None) => {
                        Some(insert_game(&tx, &game.game(p.white, black)).await?)
                    }
                    _ => None,
                };
                insert_pairing(&tx, t, round, p, game_id).await?;
            }
            insert_notices(&tx, notices, game.now, None).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn add_leg(
        &self,
        t: TournamentId,
        round: u32,
        pairing: &NewPairing,
        game: &GameTemplate,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // The tournament's row held: of two adding the same leg, the second finds it there.
            execute(&tx, "SELECT id FROM tournaments WHERE id = $1 FOR UPDATE", &[&t]).await?;
            let exists: bool = one(
                &tx,
                sql::PAIRING_EXISTS,
                &[&t, &i64::from(round), &i64::from(pairing.board), &i64::from(pairing.leg)],
            )
            .await?
            .try_get(0)?;
            let Some(black) = pairing.black.filter(|_| !exists) else { return Ok(None) };
            let id = insert_game(&tx, &game.game(pairing.white, black)).await?;
            insert_pairing(&tx, t, round, pairing, Some(id)).await?;
            insert_notices(&tx, notices, game.now, Some(id)).await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    fn pairings(&self, t: TournamentId) -> Result<Vec<PairingRow>> {
        self.rows(sql::PAIRINGS, &[&t])?.iter().map(pairing_row).collect()
    }

    fn set_pairing_result(
        &self,
        t: TournamentId,
        at: PairingAt,
        setting: &ResultSetting,
        notices: &[NewNotice],
    ) -> Result<SetResult> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            let ResultSetting { result, reason, now, expected } = *setting;
            let outcome = record_result(&tx, t, at, result, reason, now, expected).await?;
            if outcome == SetResult::Set {
                insert_notices(&tx, notices, now, None).await?;
                tx.commit().await?;
            }
            Ok(outcome)
        })
    }

    fn finished_games(&self, t: TournamentId) -> Result<Vec<FinishedGame>> {
        self.rows(sql::FINISHED_GAMES, &[&t])?.iter().map(finished_game_row).collect()
    }

    fn round_last_move(&self, t: TournamentId, round: u32) -> Result<Option<i64>> {
        Ok(self.one(sql::ROUND_LAST_MOVE, &[&t, &i64::from(round)])?.try_get(0)?)
    }

    fn tournament_of_game(&self, game: GameId) -> Result<Option<(TournamentId, u32)>> {
        self.row(sql::TOURNAMENT_OF_GAME, &[&game])?.map(|r| Ok((r.try_get(0)?, small(&r, 1)?))).transpose()
    }

    fn rated_results(&self) -> Result<Vec<RatedResult>> {
        // Games against the bot are created unrated; the filter keeps them out even if one were not.
        self.rows(
            "SELECT id, variant, platform, channel, white, black, result, COALESCE(finished_at, last_move_at)
             FROM games WHERE rated AND bot_level IS NULL AND result IN ('1-0', '0-1', '1/2-1/2')
             ORDER BY COALESCE(finished_at, last_move_at), id",
            &[],
        )?
        .iter()
        .map(rated_result_row)
        .collect()
    }
}
