//! The [`Store`] and [`TournamentStore`] on PostgreSQL (`database = postgres://user@host/db`), for
//! bots on more than one machine sharing one database. The same tables as SQLite's, in the same
//! numbered migrations (`migrations/postgres/`), applied at start.
//!
//! The store's trait is synchronous: the service runs on plain threads (the adapters hand each
//! message to `spawn_blocking`, the clock ticks there too, the practice worker and the local mode
//! have threads of their own). So the client is async — tokio-postgres, pooled by deadpool-postgres
//! — and each call is `block_on` on a small runtime that belongs to the store: its one worker
//! drives the connections' I/O; the calling thread waits, as it waits for SQLite's disk. Never call
//! it from inside an async task (tokio refuses a `block_on` there, loudly); the chat runtime's
//! workers never wait on the database.
//!
//! Every write that must not happen twice is conditional and transactional, as in SQLite: a move is
//! appended under a lock on its game's row (`SELECT ... FOR UPDATE`), after reading the moves
//! again, so of two processes appending the same turn exactly one commits and the other is told
//! [`Append::Conflict`]. Transactions are READ COMMITTED: each statement sees what committed before
//! it, and a conditional `UPDATE` that waited for a row lock re-checks its condition on the row as
//! the other transaction left it.

use anyhow::{Context, Result, bail};
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;

use crate::sql::TOURNAMENT_COLUMNS;
use crate::sql::{self, CHALLENGE_COLUMNS};
use tessera_core::model::Publication;
use tessera_core::model::{AnalysisAsked, AnalysisBounds, AnalysisRow, NewAnalysis};
use tessera_core::model::{
    Append, Challenge, ChallengeId, ConditionalLine, GameId, GameRow, Lease, LinesAfter, NewGame, Player,
    PlayerId, Vacation, VacationStart, may_append,
};
use tessera_core::model::{
    Entrant, Entry, FinishedGame, GameEnding, GameTemplate, NewPairing, NewTournament, PairingAt,
    PairingKind, PairingRow, RatedResult, ResultSetting, SetResult, TournamentId, TournamentRow,
    TournamentStatus, tournament_result, with_forfeits,
};
use tessera_core::outbox::{NewNotice, OutboxRow};
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;

mod rows;
mod tournaments;

use rows::*;

/// PostgreSQL's SQL for each migration number of [`MIGRATIONS`].
const PG_MIGRATIONS: &[(u32, &str)] = &[
    (1, include_str!("../../migrations/postgres/001_init.sql")),
    (2, include_str!("../../migrations/postgres/002_tournaments_ratings.sql")),
    (3, include_str!("../../migrations/postgres/003_settings.sql")),
    (4, include_str!("../../migrations/postgres/004_practice_opponent.sql")),
    (5, include_str!("../../migrations/postgres/005_leases.sql")),
    (6, include_str!("../../migrations/postgres/006_outbox.sql")),
    (7, include_str!("../../migrations/postgres/007_correspondence.sql")),
    (8, include_str!("../../migrations/postgres/008_notes_watchers.sql")),
    (9, include_str!("../../migrations/postgres/009_threads.sql")),
    (10, include_str!("../../migrations/postgres/010_publications.sql")),
    (11, include_str!("../../migrations/postgres/011_analyses.sql")),
    (12, include_str!("../../migrations/postgres/012_variant_definitions.sql")),
];

/// Connections one process keeps open at most: as many threads as ever wait on the store at once
/// (message handlers, the clock, the practice worker), with room to spare.
const POOL_SIZE: usize = 16;
/// How long a call waits for a connection before it fails (the server down, the pool exhausted).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The advisory lock that the migrations hold: of processes starting together one migrates, the
/// others wait and find the schema current. ("tessera" in ASCII.)
const MIGRATION_LOCK: i64 = 0x0074_6573_7365_7261;

pub struct PgStore {
    pool: Pool,
    /// Drives the connections; `None` only while dropping.
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgStore")
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // The last holder of the service may be an async task; a runtime dropped there would
        // panic. Nothing is in flight when the store goes: no call is running.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The TLS for `sslmode=require`: the server's certificate must chain to one of Mozilla's roots or
/// the system's (`SSL_CERT_FILE` or `SSL_CERT_DIR` name others, a private CA) and name the host.
fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let system = rustls_native_certs::load_native_certs();
    for e in &system.errors {
        tracing::warn!("reading the system's CA certificates: {e}");
    }
    roots.add_parsable_certificates(system.certs);
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .context("setting up TLS")?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

impl PgStore {
    /// Connects to the server at `address` (`postgres://user:password@host:port/db`, or
    /// tokio-postgres's `key=value` form) and brings its schema up to date.
    pub fn connect(address: &str) -> Result<PgStore> {
        let config: tokio_postgres::Config = address.parse().context("reading the PostgreSQL address")?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("tessera-postgres")
            .enable_all()
            .build()
            .context("starting the PostgreSQL client's runtime")?;
        // Fast recycling: a connection back in the pool is reused as it is. A transaction left by
        // an error is rolled back when it is dropped, before the connection is used again.
        let recycling = ManagerConfig { recycling_method: RecyclingMethod::Fast };
        // TLS only when asked for, and then always verified: `prefer` (the default) would have
        // to accept any certificate to mean what libpq means by it.
        let manager = if config.get_ssl_mode() == tokio_postgres::config::SslMode::Require {
            Manager::from_config(config, tls()?, recycling)
        } else {
            Manager::from_config(config, tokio_postgres::NoTls, recycling)
        };
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .context("making the connection pool")?;
        let store = PgStore { pool, runtime: Some(runtime) };
        store.run(async |c| migrate(c).await)?;
        Ok(store)
    }

    /// Runs `f` with a pooled connection, waiting for it on this thread. (`migrate` copies a
    /// whole database in one of its transactions through it.)
    pub(crate) fn run<T>(
        &self,
        f: impl AsyncFnOnce(&mut deadpool_postgres::Client) -> Result<T>,
    ) -> Result<T> {
        let runtime = self.runtime.as_ref().context("the store is closing")?;
        runtime.block_on(async {
            let mut client = self.pool.get().await.context("connecting to PostgreSQL")?;
            f(&mut client).await
        })
    }

    fn execute(&self, sql: &str, params: Params) -> Result<u64> {
        self.run(async |c| execute(&*c, sql, params).await)
    }

    fn rows(&self, sql: &str, params: Params) -> Result<Vec<Row>> {
        self.run(async |c| rows(&*c, sql, params).await)
    }

    fn row(&self, sql: &str, params: Params) -> Result<Option<Row>> {
        self.run(async |c| row(&*c, sql, params).await)
    }

    fn one(&self, sql: &str, params: Params) -> Result<Row> {
        self.run(async |c| one(&*c, sql, params).await)
    }

    fn games(&self, filter: &str, params: Params) -> Result<Vec<GameRow>> {
        self.run(async |c| games(&*c, filter, params).await)
    }

    /// Runs `statement`; if it changed its one row, stores `notices` with it, in one transaction.
    fn change_announced(
        &self,
        statement: &str,
        params: Params,
        notices: &[NewNotice],
        now: i64,
    ) -> Result<bool> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            if execute(&tx, statement, params).await? != 1 {
                return Ok(false);
            }
            insert_notices(&tx, notices, now, None).await?;
            tx.commit().await?;
            Ok(true)
        })
    }
}

/// A game's stored moves, and whether it has ended, under the game's row lock, which every change
/// to its moves or conditional lines takes first.
async fn game_state(tx: &deadpool_postgres::Transaction<'_>, game: GameId) -> Result<(Vec<String>, bool)> {
    let finished: Option<String> =
        one(tx, "SELECT result FROM games WHERE id = $1 FOR UPDATE", &[&game]).await?.try_get(0)?;
    let stored =
        rows(tx, sql::MOVES, &[&game]).await?.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?;
    Ok((stored, finished.is_some()))
}

/// The ids of a game's conditional lines, oldest first, in the caller's transaction.
async fn line_ids(tx: &deadpool_postgres::Transaction<'_>, game: GameId) -> Result<Vec<i64>> {
    Ok(rows(tx, sql::CONDITIONAL_LINES, &[&game])
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?)
}

async fn migrate(c: &mut deadpool_postgres::Client) -> Result<()> {
    let tx = c.transaction().await.context("beginning the migrations")?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.context("waiting to migrate")?;
    let counts = tx
        .query_one(
            "SELECT COUNT(*) FILTER (WHERE tablename = 'schema_version') > 0, COUNT(*)
             FROM pg_tables WHERE schemaname = current_schema()",
            &[],
        )
        .await?;
    let (has_versions, tables): (bool, i64) = (counts.try_get(0)?, counts.try_get(1)?);
    if !has_versions && tables > 0 {
        bail!("this database is not Tessera's (it has tables but no schema_version); it was left untouched");
    }
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)").await?;
    let current: i64 =
        tx.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[]).await?.try_get(0)?;
    let latest = PG_MIGRATIONS.last().map_or(0, |m| i64::from(m.0));
    if current > latest {
        bail!(
            "this database has schema version {current}, newer than this Tessera knows ({latest}); \
             it was left untouched: run a newer Tessera"
        );
    }
    for &(version, sql) in PG_MIGRATIONS {
        let version = i64::from(version);
        if version > current {
            tx.batch_execute(sql).await.with_context(|| format!("migration {version}"))?;
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&version]).await?;
        }
    }
    if current < i64::from(crate::sqlite::NAMES_CLEANED_FROM) {
        // Names stored before they were cleaned where they enter: cleaned once, here.
        for r in tx.query("SELECT id, user_id, name FROM players", &[]).await? {
            let (id, user_id, name): (PlayerId, String, String) =
                (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
            let clean = tessera_core::names::clean_or(&name, &user_id);
            if clean != name {
                tx.execute("UPDATE players SET name = $2 WHERE id = $1", &[&id, &clean]).await?;
            }
        }
    }
    tx.commit().await.context("committing the migrations")?;
    Ok(())
}

impl Store for PgStore {
    fn player(&self, platform: &str, user_id: &str, name: &str) -> Result<Player> {
        let name = &tessera_core::names::clean_or(name, user_id);
        let r = self.one(
            "INSERT INTO players (platform, user_id, name) VALUES ($1, $2, $3)
             ON CONFLICT (platform, user_id) DO UPDATE SET name = excluded.name RETURNING id",
            &[&platform, &user_id, &name],
        )?;
        Ok(Player {
            id: r.try_get(0)?,
            platform: platform.into(),
            user_id: user_id.into(),
            name: name.into(),
        })
    }

    fn player_by_id(&self, id: PlayerId) -> Result<Option<Player>> {
        self.row(sql::PLAYER_BY_ID, &[&id])?.as_ref().map(player_row).transpose()
    }

    fn setting(&self, player: PlayerId, key: &str) -> Result<Option<String>> {
        self.row(sql::SETTING, &[&player, &key])?.map(|r| Ok(r.try_get(0)?)).transpose()
    }

    fn set_setting(&self, player: PlayerId, key: &str, value: &str) -> Result<()> {
        self.execute(sql::SET_SETTING, &[&player, &key, &value])?;
        Ok(())
    }

    fn channel_setting(&self, platform: &str, channel: &str, key: &str) -> Result<Option<String>> {
        self.row(sql::CHANNEL_SETTING, &[&platform, &channel, &key])?.map(|r| Ok(r.try_get(0)?)).transpose()
    }

    fn set_channel_setting(&self, platform: &str, channel: &str, key: &str, value: &str) -> Result<()> {
        self.execute(sql::SET_CHANNEL_SETTING, &[&platform, &channel, &key, &value])?;
        Ok(())
    }

    fn pending_turn(&self, player: PlayerId, game: GameId) -> Result<Option<(usize, String)>> {
        self.row(sql::PENDING_TURN, &[&player, &game])?
            .map(|r| Ok((usize::try_from(r.try_get::<_, i64>(0)?)?, r.try_get(1)?)))
            .transpose()
    }

    fn set_pending_turn(&self, player: PlayerId, game: GameId, turn: Option<(usize, &str)>) -> Result<()> {
        match turn {
            Some((n, text)) => self.execute(sql::SET_PENDING_TURN, &[&player, &game, &ply(n), &text])?,
            None => self.execute(sql::CLEAR_PENDING_TURN, &[&player, &game])?,
        };
        Ok(())
    }

    fn create_challenge(&self, c: &Challenge) -> Result<ChallengeId> {
        let r = self
            .one(
                "INSERT INTO challenges (platform, channel, challenger, challenged, variant, color, days_per_move,
                 created_at, status, rated, weekends_off) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9, $10)
                 RETURNING id",
                &[
                    &c.platform,
                    &c.channel,
                    &c.challenger,
                    &c.challenged,
                    &c.variant,
                    &c.color,
                    &c.days_per_move.map(i64::from),
                    &c.created_at,
                    &c.rated,
                    &c.weekends_off,
                ],
            )?;
        Ok(r.try_get(0)?)
    }

    fn open_challenges(&self, platform: &str, channel: &str, player: PlayerId) -> Result<Vec<Challenge>> {
        self.rows(
            &format!(
                "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND platform = $1
                 AND channel = $2 AND (challenger = $3 OR challenged = $3) ORDER BY id"
            ),
            &[&platform, &channel, &player],
        )?
        .iter()
        .map(challenge_row)
        .collect()
    }

    fn close_challenge(&self, id: ChallengeId, status: &str) -> Result<bool> {
        let n = self.execute(sql::CLOSE_CHALLENGE, &[&id, &status])?;
        Ok(n == 1)
    }

    fn open_challenges_since(&self, platform: &str, channel: &str, since: i64) -> Result<Vec<Challenge>> {
        self.rows(
            &format!(
                "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND platform = $1
                 AND channel = $2 AND created_at > $3 ORDER BY id"
            ),
            &[&platform, &channel, &since],
        )?
        .iter()
        .map(challenge_row)
        .collect()
    }

    fn create_game(&self, g: &NewGame) -> Result<GameId> {
        self.run(async |c| insert_game(&*c, g).await)
    }

    fn accept_challenge(
        &self,
        challenge: ChallengeId,
        g: &NewGame,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // Of two accepting at once, the second waits for the first's row lock, then finds the
            // challenge no longer open.
            let closed = execute(&tx, sql::ACCEPT_CHALLENGE, &[&challenge]).await?;
            if closed != 1 {
                return Ok(None);
            }
            let id = insert_game(&tx, g).await?;
            insert_notices(&tx, notices, g.now, Some(id)).await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }

    fn game(&self, id: GameId) -> Result<Option<GameRow>> {
        Ok(self.games("id = $1", &[&id])?.into_iter().next())
    }

    fn variant_definition(&self, key: &str) -> Result<Option<String>> {
        let row = self.row(sql::VARIANT_DEFINITION, &[&key])?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    fn channel_games(&self, platform: &str, channel: &str) -> Result<Vec<GameRow>> {
        self.games("result IS NULL AND platform = $1 AND channel = $2", &[&platform, &channel])
    }

    fn last_channel_game(&self, platform: &str, channel: &str) -> Result<Option<GameRow>> {
        Ok(self
            .games(
                "id = (SELECT MAX(id) FROM games WHERE platform = $1 AND channel = $2)",
                &[&platform, &channel],
            )?
            .pop())
    }

    fn player_games(&self, player: PlayerId) -> Result<Vec<GameRow>> {
        self.games("result IS NULL AND (white = $1 OR black = $1)", &[&player])
    }

    fn recent_games(&self, player: PlayerId, limit: usize) -> Result<Vec<GameRow>> {
        let mut found = self.games(
            "id IN (SELECT id FROM games WHERE white = $1 OR black = $1 ORDER BY id DESC LIMIT $2)",
            &[&player, &ply(limit)],
        )?;
        found.reverse();
        Ok(found)
    }

    fn clocked_games(&self) -> Result<Vec<GameRow>> {
        self.games("result IS NULL AND days_per_move IS NOT NULL", &[])
    }

    fn bot_games(&self) -> Result<Vec<GameRow>> {
        self.games("result IS NULL AND bot_level IS NOT NULL", &[])
    }

    /// The transaction holds the game's row: appends to one game take turns.
    fn append_checked(
        &self,
        game: GameId,
        ply_number: usize,
        before: Option<&[String]>,
        text: &str,
        result: Option<(&str, &str)>,
        now: i64,
    ) -> Result<Append> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            let (stored, finished) = game_state(&tx, game).await?;
            if !may_append(&stored, finished, ply_number, before) {
                return Ok(Append::Conflict);
            }
            let inserted = execute(
                &tx,
                sql::INSERT_MOVE,
                &[&game, &ply(ply_number), &text, &now],
            )
            .await;
            // Cannot happen while the row lock is held; were it to, it is still someone else's move.
            if let Err(e) = &inserted
                && e.downcast_ref::<tokio_postgres::Error>().and_then(|e| e.code()) == Some(&SqlState::UNIQUE_VIOLATION)
            {
                return Ok(Append::Conflict);
            }
            inserted?;
            execute(
                &tx,
                "UPDATE games SET last_move_at = $2, reminded = FALSE, draw_offer = NULL, takeback_offer = NULL,
                 result = $3::TEXT, result_reason = $4::TEXT,
                 finished_at = CASE WHEN $3::TEXT IS NULL THEN NULL ELSE $2::BIGINT END
                 WHERE id = $1",
                &[&game, &now, &result.map(|r| r.0), &result.map(|r| r.1)],
            )
            .await?;
            tx.commit().await?;
            Ok(Append::Stored)
        })
    }

    fn finish(&self, game: GameId, result: &str, reason: &str, now: i64) -> Result<bool> {
        let n = self.execute(sql::FINISH, &[&game, &result, &reason, &now])?;
        Ok(n == 1)
    }

    fn accept_draw(&self, game: GameId, offered_by: PlayerId, now: i64) -> Result<bool> {
        let n = self.execute(sql::ACCEPT_DRAW, &[&game, &offered_by, &now])?;
        Ok(n == 1)
    }

    fn set_draw_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        self.execute(sql::SET_DRAW_OFFER, &[&game, &by])?;
        Ok(())
    }

    fn set_takeback_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        self.execute(sql::SET_TAKEBACK_OFFER, &[&game, &by])?;
        Ok(())
    }

    fn take_back(
        &self,
        game: GameId,
        moves: usize,
        count: usize,
        asked_by: PlayerId,
        now: i64,
    ) -> Result<bool> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // The game's row first, as a move takes it: a move and a takeback take turns.
            let stands: bool = one(
                &tx,
                "SELECT result IS NULL AND takeback_offer IS NOT DISTINCT FROM $2::BIGINT FROM games
                 WHERE id = $1 FOR UPDATE",
                &[&game, &asked_by],
            )
            .await?
            .try_get(0)?;
            let stored: i64 =
                one(&tx, sql::MOVE_COUNT, &[&game]).await?.try_get(0)?;
            // A move that got in first (it withdrew the request) must not be the one undone.
            if !stands || stored != ply(moves) || count > moves {
                return Ok(false);
            }
            execute(&tx, sql::DELETE_MOVES_AFTER, &[&game, &ply(moves - count)]).await?;
            // The game left every conditional line: they were planned from a later move.
            execute(&tx, sql::DROP_CONDITIONAL_LINES, &[&game]).await?;
            execute(
                &tx,
                "UPDATE games SET takeback_offer = NULL, draw_offer = NULL, last_move_at = $2, reminded = FALSE
                 WHERE id = $1",
                &[&game, &now],
            )
            .await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn mark_reminded(&self, game: GameId, last_move_at: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(
            sql::MARK_REMINDED,
            &[&game, &last_move_at],
            notices,
            tessera_core::service::unix_now(),
        )
    }

    fn time_out(
        &self,
        game: GameId,
        last_move_at: i64,
        result: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool> {
        self.change_announced(sql::TIME_OUT, &[&game, &last_move_at, &result, &now], notices, now)
    }

    fn outbox_claim(
        &self,
        platform: Option<&str>,
        holder: &str,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<OutboxRow>> {
        let until = now_ms + tessera_core::outbox::CLAIM_MS;
        let limit = limit as i64;
        self.run(async |c| {
            // Rows another process is claiming are skipped, not waited for: each goes to one.
            execute(
                &*c,
                "UPDATE outbox SET claimed_by = $2, claimed_until = $3 WHERE id IN (SELECT id FROM outbox
                 WHERE ($1::TEXT IS NULL OR platform = $1) AND sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < $4)
                 ORDER BY id LIMIT $5 FOR UPDATE SKIP LOCKED)",
                &[&platform, &holder, &until, &now_ms, &limit],
            )
            .await?;
            rows(&*c, sql::HELD_NOTICES, &[&holder]).await?.iter().map(notice_row).collect()
        })
    }

    fn outbox_held(&self, holder: &str) -> Result<Vec<OutboxRow>> {
        self.rows(sql::HELD_NOTICES, &[&holder])?.iter().map(notice_row).collect()
    }

    fn outbox_sent(&self, notice: i64, now: i64) -> Result<bool> {
        Ok(self.execute(sql::NOTICE_SENT, &[&notice, &now])? == 1)
    }

    fn outbox_renew(&self, notice: i64, holder: &str, until_ms: i64) -> Result<bool> {
        Ok(self.execute(sql::RENEW_NOTICE, &[&notice, &holder, &until_ms])? == 1)
    }

    fn outbox_holders(&self, platform: &str) -> Result<Vec<String>> {
        self.rows(sql::NOTICE_HOLDERS, &[&platform])?.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    fn outbox_release(&self, holder: &str) -> Result<u64> {
        self.execute(sql::RELEASE_NOTICES, &[&holder])
    }

    fn mark_handled(&self, platform: &str, message: &str, now: i64) -> Result<bool> {
        Ok(self.execute(sql::MARK_HANDLED, &[&platform, &message, &now])? == 1)
    }

    fn was_handled(&self, platform: &str, message: &str) -> Result<bool> {
        Ok(self.one(sql::WAS_HANDLED, &[&platform, &message])?.try_get(0)?)
    }

    fn take_lease(
        &self,
        name: &str,
        holder: &str,
        replacing: Option<&str>,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<bool> {
        let taken: Params = &[&name, &holder, &(now_ms + ttl_ms), &now_ms, &replacing];
        Ok(self.execute(sql::TAKE_LEASE, taken)? == 1)
    }

    fn lease(&self, name: &str) -> Result<Option<Lease>> {
        self.row(sql::LEASE, &[&name])?.as_ref().map(lease_row).transpose()
    }

    fn live_leases(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
        self.rows(sql::LIVE_LEASES, &[&prefix, &now_ms])?.iter().map(lease_row).collect()
    }

    fn clock_ms(&self) -> Result<i64> {
        Ok(self.one("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT", &[])?.try_get(0)?)
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<bool> {
        Ok(self.execute(sql::RELEASE_LEASE, &[&name, &holder])? == 1)
    }

    fn append_turns(
        &self,
        game: GameId,
        before: &[String],
        turns: &[&str],
        result: Option<(&str, &str)>,
        lines: &LinesAfter,
        now: i64,
    ) -> Result<Append> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // The game's row lock: every change to its moves or its lines takes it first.
            let (stored, finished) = game_state(&tx, game).await?;
            if turns.is_empty() || !may_append(&stored, finished, before.len() + 1, Some(before)) {
                return Ok(Append::Conflict);
            }
            let present = line_ids(&tx, game).await?;
            if present != lines.seen {
                return Ok(Append::LinesChanged);
            }
            for (i, text) in turns.iter().enumerate() {
                execute(&tx, sql::INSERT_MOVE, &[&game, &ply(before.len() + 1 + i), text, &now]).await?;
            }
            execute(
                &tx,
                "UPDATE games SET last_move_at = $2, reminded = FALSE, draw_offer = NULL, takeback_offer = NULL,
                 result = $3::TEXT, result_reason = $4::TEXT,
                 finished_at = CASE WHEN $3::TEXT IS NULL THEN NULL ELSE $2::BIGINT END
                 WHERE id = $1",
                &[&game, &now, &result.map(|r| r.0), &result.map(|r| r.1)],
            )
            .await?;
            for id in present.iter().filter(|id| !lines.kept.iter().any(|k| k.0 == **id)) {
                execute(&tx, "DELETE FROM conditional_lines WHERE id = $1", &[id]).await?;
            }
            for (id, from_ply, rest) in &lines.kept {
                execute(&tx, sql::SHORTEN_CONDITIONAL_LINE, &[id, &ply(*from_ply), &rest.join("\n")]).await?;
            }
            tx.commit().await?;
            Ok(Append::Stored)
        })
    }

    fn conditional_lines(&self, game: GameId) -> Result<Vec<ConditionalLine>> {
        self.run(async |c| {
            rows(&*c, sql::CONDITIONAL_LINES, &[&game])
                .await?
                .iter()
                .map(crate::rows::conditional_line)
                .collect()
        })
    }

    #[allow(clippy::too_many_arguments)] // The view it was planned on, and the change.
    fn change_conditional_lines(
        &self,
        game: GameId,
        player: PlayerId,
        before: &[String],
        seen: &[i64],
        add: &[Vec<String>],
        drop: &[i64],
        now: i64,
    ) -> Result<bool> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            let (stored, finished) = game_state(&tx, game).await?;
            let present = line_ids(&tx, game).await?;
            if finished || stored != before || present != seen {
                return Ok(false);
            }
            for id in drop {
                execute(&tx, sql::DELETE_CONDITIONAL_LINE, &[id, &game, &player]).await?;
            }
            for turns in add {
                execute(
                    &tx,
                    sql::INSERT_CONDITIONAL_LINE,
                    &[&game, &player, &ply(before.len()), &turns.join("\n"), &now],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(true)
        })
    }

    fn vacations(&self, players: &[PlayerId], since: i64) -> Result<Vec<Vacation>> {
        self.run(async |c| {
            let mut all = Vec::new();
            for player in players {
                for row in rows(&*c, sql::VACATIONS, &[player, &since]).await? {
                    all.push(crate::rows::vacation(&row)?);
                }
            }
            all.sort_by_key(|v| v.start);
            Ok(all)
        })
    }

    fn start_vacation(
        &self,
        player: PlayerId,
        start: i64,
        end: i64,
        window_start: i64,
        allowance: i64,
        notices: &[NewNotice],
    ) -> Result<VacationStart> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // The player's row lock: two vacations asked at once are weighed one after the other.
            execute(&tx, "SELECT id FROM players WHERE id = $1 FOR UPDATE", &[&player]).await?;
            if let Some(row) = rows(&tx, sql::RUNNING_VACATION, &[&player, &start]).await?.first() {
                return Ok(VacationStart::AlreadyOn { until: row.try_get(0)? });
            }
            let used: i64 = one(&tx, sql::VACATION_USED, &[&player, &window_start]).await?.try_get(0)?;
            if used + (end - start) > allowance {
                return Ok(VacationStart::OverAllowance { used });
            }
            execute(&tx, sql::INSERT_VACATION, &[&player, &start, &end]).await?;
            insert_notices(&tx, notices, start, None).await?;
            tx.commit().await?;
            Ok(VacationStart::Started)
        })
    }

    fn end_vacation(&self, player: PlayerId, now: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(sql::END_VACATION, &[&player, &now], notices, now)
    }

    fn note(&self, player: PlayerId, game: GameId) -> Result<Option<String>> {
        self.row(sql::NOTE, &[&player, &game])?.map(|r| Ok(r.try_get(0)?)).transpose()
    }

    fn set_note(&self, player: PlayerId, game: GameId, text: Option<&str>, now: i64) -> Result<()> {
        match text {
            Some(text) => self.execute(sql::SET_NOTE, &[&player, &game, &text, &now])?,
            None => self.execute(sql::CLEAR_NOTE, &[&player, &game])?,
        };
        Ok(())
    }

    fn watch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        Ok(self.execute(sql::WATCH, &[&game, &player])? == 1)
    }

    fn unwatch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        Ok(self.execute(sql::UNWATCH, &[&game, &player])? == 1)
    }

    fn watchers(&self, game: GameId) -> Result<Vec<PlayerId>> {
        self.rows(sql::WATCHERS, &[&game])?.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    fn digests_due(&self, day: i64) -> Result<Vec<PlayerId>> {
        self.rows(sql::DIGESTS_DUE, &[&day])?.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    fn mark_digest(&self, player: PlayerId, day: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(sql::MARK_DIGEST, &[&player, &day], notices, tessera_core::service::unix_now())
    }

    fn finished_games_of(
        &self,
        player: PlayerId,
        opponent: Option<PlayerId>,
        variant: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<GameRow>> {
        let mut found =
            self.games(sql::FINISHED_GAMES_OF, &[&player, &opponent, &variant, &ply(limit), &ply(offset)])?;
        found.reverse();
        Ok(found)
    }

    fn set_game_thread(&self, game: GameId, thread: &str) -> Result<bool> {
        Ok(self.execute(sql::SET_GAME_THREAD, &[&game, &thread])? == 1)
    }

    fn thread_game(&self, platform: &str, thread: &str) -> Result<Option<GameRow>> {
        Ok(self.games("platform = $1 AND thread = $2", &[&platform, &thread])?.into_iter().next())
    }
    fn publish(&self, what: Publication, token: &str, by: PlayerId, now: i64) -> Result<String> {
        let (kind, target) = what.parts();
        // Each statement sees what was committed before it: after a conflict, the address another
        // process just gave. Withdrawn between the two (a race with `unpublish`): try again.
        for _ in 0..3 {
            self.execute(sql::PUBLISH, &[&token, &kind, &target, &by, &now])?;
            if let Some(row) = self.row(sql::ADDRESS_OF, &[&kind, &target])? {
                return Ok(row.try_get(0)?);
            }
        }
        anyhow::bail!("the address of {kind} {target} kept being withdrawn")
    }

    fn unpublish(&self, what: Publication) -> Result<bool> {
        let (kind, target) = what.parts();
        Ok(self.execute(sql::UNPUBLISH, &[&kind, &target])? == 1)
    }

    fn publication(&self, token: &str) -> Result<Option<Publication>> {
        let Some(row) = self.row(sql::PUBLICATION, &[&token])? else { return Ok(None) };
        let kind: String = row.try_get(0)?;
        Ok(Publication::from_parts(&kind, row.try_get(1)?))
    }

    fn address_of(&self, what: Publication) -> Result<Option<String>> {
        let (kind, target) = what.parts();
        Ok(self.row(sql::ADDRESS_OF, &[&kind, &target])?.map(|r| r.try_get(0)).transpose()?)
    }

    fn ask_analysis(&self, a: &NewAnalysis, bounds: AnalysisBounds) -> Result<AnalysisAsked> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            // One asker at a time: the counts and the insert are one decision.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ANALYSIS_LOCK]).await?;
            if let Some(r) = row(&tx, sql::ANALYSIS, &[&a.game]).await? {
                return Ok(AnalysisAsked::Exists(crate::rows::analysis_row(&r)?));
            }
            let mine: i64 = one(&tx, sql::WAITING_OF, &[&a.requester]).await?.try_get(0)?;
            let mine = usize::try_from(mine).unwrap_or(0);
            if mine >= bounds.per_requester {
                return Ok(AnalysisAsked::RequesterFull(mine));
            }
            let all: i64 = one(&tx, sql::WAITING_COUNT, &[]).await?.try_get(0)?;
            let all = usize::try_from(all).unwrap_or(0);
            if all >= bounds.overall {
                return Ok(AnalysisAsked::QueueFull(all));
            }
            execute(&tx, sql::ASK_ANALYSIS, &[&a.game, &a.requester, &a.platform, &a.channel, &a.now])
                .await?;
            tx.commit().await?;
            Ok(AnalysisAsked::Queued { place: all + 1 })
        })
    }

    fn analysis(&self, game: GameId) -> Result<Option<AnalysisRow>> {
        self.row(sql::ANALYSIS, &[&game])?.map(|r| crate::rows::analysis_row(&r)).transpose()
    }

    fn waiting_analyses(&self) -> Result<Vec<AnalysisRow>> {
        self.rows(sql::WAITING_ANALYSES, &[])?.iter().map(crate::rows::analysis_row).collect()
    }

    fn analysis_evals(&self, game: GameId) -> Result<Vec<tessera_core::analysis::PlyEval>> {
        self.rows(sql::ANALYSIS_PLIES, &[&game])?.iter().map(crate::rows::ply_eval).collect()
    }

    fn finish_analysis(
        &self,
        game: GameId,
        evals: &[tessera_core::analysis::PlyEval],
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool> {
        self.run(async |c| {
            let tx = c.transaction().await?;
            if execute(&tx, sql::FINISH_ANALYSIS, &[&game, &now]).await? != 1 {
                return Ok(false);
            }
            for e in evals {
                let (ply, depth, text) = (ply(e.ply), i64::from(e.depth), e.eval.text());
                execute(&tx, sql::INSERT_ANALYSIS_PLY, &[&game, &ply, &text, &e.best, &depth]).await?;
            }
            insert_notices(&tx, notices, now, None).await?;
            tx.commit().await?;
            Ok(true)
        })
    }
}

/// The advisory lock under which an analysis is asked for ("analyse" in ASCII).
const ANALYSIS_LOCK: i64 = 0x0061_6E61_6C79_7365;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sqlite_migration_has_its_postgres_form() {
        let numbers = |m: &[(u32, &str)]| m.iter().map(|m| m.0).collect::<Vec<_>>();
        assert_eq!(numbers(PG_MIGRATIONS), numbers(crate::sqlite::MIGRATIONS));
    }

    #[test]
    fn a_bad_address_is_refused_before_any_connection() {
        let e = PgStore::connect("postgres://host:notaport/db").unwrap_err();
        assert!(format!("{e:#}").contains("address"), "{e:#}");
    }
}
