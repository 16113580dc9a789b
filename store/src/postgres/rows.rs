//! Writes and rows both halves of the PostgreSQL store share: a game, the notices of a change.

use anyhow::Result;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use tessera_core::model::{GameId, NewGame};
use tessera_core::outbox::NewNotice;

use std::collections::HashMap;

use tessera_core::model::GameRow;

pub(super) use crate::rows::{
    challenge_row, entrant_row, finished_game_row, game_row, lease_row, notice_row, pairing_row, player_row,
    rated_result_row, small, small_opt, tournament_row,
};
use crate::sql;
use crate::sql::GAME_COLUMNS;

/// A statement's parameters.
pub(super) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// Stores a new game (in `c`'s transaction, if it is one); its id.
pub(super) async fn insert_game(c: &impl GenericClient, g: &NewGame<'_>) -> Result<GameId> {
    if let Some(d) = g.definition {
        execute(c, sql::INSERT_VARIANT_DEFINITION, &[&d.key, &d.text]).await?;
    }
    Ok(one(
        c,
        "INSERT INTO games (platform, channel, variant, start_fen, white, black, days_per_move, created_at,
         last_move_at, reminded, rated, bot_player, bot_level, weekends_off, variant_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, FALSE, $9, $10, $11, $12, $13) RETURNING id",
        &[
            &g.platform,
            &g.channel,
            &g.variant,
            &g.start_fen,
            &g.white,
            &g.black,
            &g.days_per_move.map(i64::from),
            &g.now,
            &g.rated,
            &g.bot.map(|b| b.player),
            &g.bot.map(|b| i64::from(b.level)),
            &g.weekends_off,
            &g.definition.map(|d| d.key),
        ],
    )
    .await?
    .try_get(0)?)
}

/// Stores `notices` inside the caller's transaction; a `{game}` in a text becomes `game`.
pub(super) async fn insert_notices(
    c: &impl GenericClient,
    notices: &[NewNotice],
    now: i64,
    game: Option<GameId>,
) -> Result<()> {
    for n in notices {
        let (text, subject) = n.for_game(game);
        let round = n.round.map(i64::from);
        let holder = n.claim.as_ref().map(|c| c.holder.as_str());
        let until = n.claim.as_ref().map(|c| c.until_ms);
        execute(
            c,
            sql::INSERT_NOTICE,
            &[
                &n.platform,
                &n.channel,
                &n.kind.name(),
                &subject,
                &round,
                &text,
                &n.notify_column(),
                &now,
                &holder,
                &until,
            ],
        )
        .await?;
    }
    Ok(())
}

pub(super) async fn execute(c: &impl GenericClient, sql: &str, params: Params<'_>) -> Result<u64> {
    let statement = c.prepare_cached(&dollars(sql)).await?;
    Ok(c.execute(&statement, params).await?)
}

pub(super) async fn rows(c: &impl GenericClient, sql: &str, params: Params<'_>) -> Result<Vec<Row>> {
    let statement = c.prepare_cached(&dollars(sql)).await?;
    Ok(c.query(&statement, params).await?)
}

pub(super) async fn row(c: &impl GenericClient, sql: &str, params: Params<'_>) -> Result<Option<Row>> {
    let statement = c.prepare_cached(&dollars(sql)).await?;
    Ok(c.query_opt(&statement, params).await?)
}

pub(super) async fn one(c: &impl GenericClient, sql: &str, params: Params<'_>) -> Result<Row> {
    let statement = c.prepare_cached(&dollars(sql)).await?;
    Ok(c.query_one(&statement, params).await?)
}

pub(super) fn ply(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Games matching `filter` (over `games`' columns), by id, each with its moves: two queries.
pub(super) async fn games(c: &impl GenericClient, filter: &str, params: Params<'_>) -> Result<Vec<GameRow>> {
    let found =
        rows(c, &format!("SELECT {GAME_COLUMNS} FROM games WHERE {filter} ORDER BY id"), params).await?;
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let ids = found.iter().map(|r| r.try_get(0)).collect::<Result<Vec<i64>, _>>()?;
    let mut moves: HashMap<GameId, Vec<String>> = HashMap::new();
    for m in rows(c, "SELECT game_id, text FROM moves WHERE game_id = ANY($1) ORDER BY game_id, ply", &[&ids])
        .await?
    {
        moves.entry(m.try_get(0)?).or_default().push(m.try_get(1)?);
    }
    found
        .iter()
        .map(|r| {
            let id: GameId = r.try_get(0)?;
            game_row(r, moves.remove(&id).unwrap_or_default())
        })
        .collect()
}

/// PostgreSQL's parameters for a statement written with `?N`, as [`crate::sql`]'s shared
/// ones are: every statement goes through here, so either form may be passed.
pub(super) fn dollars(sql: &str) -> std::borrow::Cow<'_, str> {
    if sql.contains('?') { sql.replace('?', "$").into() } else { sql.into() }
}
