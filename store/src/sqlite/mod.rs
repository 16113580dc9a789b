//! The store on SQLite: everything in one file (WAL, numbered migrations), for one machine.
//! What only SQLite has is tested here; everything a store does is checked on both stores by the
//! conformance suite (`bot/tests/store.rs`).

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

use tessera_core::model::*;
use tessera_core::outbox::{NewNotice, OutboxRow};
use tessera_core::store::Store;

use crate::rows;
use crate::sql::{self, CHALLENGE_COLUMNS, GAME_COLUMNS};

pub(crate) mod tournaments;

/// Numbered migrations, applied in order, each once. PostgreSQL has its own SQL for each number
/// (`migrations/postgres/`), so a version means the same schema on both.
pub(crate) const MIGRATIONS: &[(u32, &str)] = &[
    (1, include_str!("../../migrations/001_init.sql")),
    (2, include_str!("../../migrations/002_tournaments_ratings.sql")),
    (3, include_str!("../../migrations/003_settings.sql")),
    (4, include_str!("../../migrations/004_practice_opponent.sql")),
    (5, include_str!("../../migrations/005_leases.sql")),
    (6, include_str!("../../migrations/006_outbox.sql")),
    (7, include_str!("../../migrations/007_correspondence.sql")),
    (8, include_str!("../../migrations/008_notes_watchers.sql")),
    (9, include_str!("../../migrations/009_threads.sql")),
    (10, include_str!("../../migrations/010_publications.sql")),
    (11, include_str!("../../migrations/011_analyses.sql")),
    (12, include_str!("../../migrations/012_variant_definitions.sql")),
];

/// The schema version from which players' names are stored cleaned ([`tessera_core::names::clean_or`]):
/// a database older than it has its names cleaned once, when it is brought up to date.
pub(crate) const NAMES_CLEANED_FROM: u32 = 6;

pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SqliteStore")
    }
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<SqliteStore> {
        // A directory made here is the bot's own: private. One that exists is left as it is.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            crate::private_files::private_dir(dir)?;
        }
        let conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        // Games and who played them are the players' business: the owner's alone.
        crate::private_files::restrict(path, 0o600)?;
        Self::with_connection(conn)
    }

    pub fn in_memory() -> Result<SqliteStore> {
        Self::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(mut conn: Connection) -> Result<SqliteStore> {
        // Before anything else: processes starting together on a new file wait for each other.
        conn.busy_timeout(BUSY_TIMEOUT).context("setting the busy timeout")?;
        switch_to_wal(&conn)?;
        // Every commit reaches the disk before a move is acknowledged, power cut included.
        conn.pragma_update(None, "synchronous", "FULL").context("setting synchronous")?;
        conn.pragma_update(None, "foreign_keys", "ON").context("setting foreign keys")?;
        // The version check and the migrations in one immediate transaction: of two processes
        // starting at once, one migrates and the other then finds the schema current.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .context("beginning the migrations")?;
        let has_versions: bool = tx.query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
            [],
            |r| r.get(0),
        )?;
        let tables: u32 =
            tx.query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))?;
        if !has_versions && tables > 0 {
            bail!(
                "this database is not Tessera's (it has tables but no schema_version); it was left untouched"
            );
        }
        tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")?;
        let current: u32 =
            tx.query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get(0))?;
        let latest = MIGRATIONS.last().map_or(0, |m| m.0);
        if current > latest {
            bail!(
                "this database has schema version {current}, newer than this Tessera knows ({latest}); \
                 it was left untouched: run a newer Tessera"
            );
        }
        for &(version, sql) in MIGRATIONS {
            if version > current {
                tx.execute_batch(sql).with_context(|| format!("migration {version}"))?;
                tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [version])?;
            }
        }
        if current < NAMES_CLEANED_FROM {
            // Names are cleaned where they enter the store; those stored before are cleaned once
            // here, so every reader (entrant lists included) sees the same name.
            let stored: Vec<(PlayerId, String, String)> = {
                let mut stmt = tx.prepare("SELECT id, user_id, name FROM players")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for (id, user_id, name) in stored {
                let clean = tessera_core::names::clean_or(&name, &user_id);
                if clean != name {
                    tx.execute("UPDATE players SET name = ?2 WHERE id = ?1", params![id, clean])?;
                }
            }
        }
        tx.commit()?;
        Ok(SqliteStore { conn: Mutex::new(conn) })
    }

    pub(crate) fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written: transactions roll back.
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `statement`; if it changed its one row, stores `notices` with it, in one transaction.
    fn change_announced(
        &self,
        statement: &str,
        params: impl rusqlite::Params,
        notices: &[NewNotice],
        now: i64,
    ) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if tx.execute(statement, params)? != 1 {
            return Ok(false);
        }
        insert_notices(&tx, notices, now)?;
        tx.commit()?;
        Ok(true)
    }
}

/// How long a connection waits for another's write before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Switches the file to WAL. Processes opening a new file together can find the switch locked,
/// and SQLite then says "database is locked" at once instead of waiting out the busy timeout
/// (each holds a read lock while it asks, and waiting could deadlock): the wait is here.
fn switch_to_wal(conn: &Connection) -> Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Ok(()) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(anyhow::Error::new(e).context("switching to WAL")),
        }
    }
}

/// A game's stored moves, and whether it has ended, read in the caller's transaction: what every
/// change to its moves or conditional lines is checked against.
fn game_state(conn: &Connection, game: GameId) -> Result<(Vec<String>, bool)> {
    let stored = {
        let mut stmt = conn.prepare_cached(sql::MOVES)?;
        stmt.query_map([game], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?
    };
    let finished: Option<String> =
        conn.query_row("SELECT result FROM games WHERE id = ?1", [game], |r| r.get(0))?;
    Ok((stored, finished.is_some()))
}

/// The ids of a game's conditional lines, oldest first, in the caller's transaction.
fn line_ids(conn: &Connection, game: GameId) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(sql::CONDITIONAL_LINES)?;
    Ok(stmt.query_map([game], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?)
}

/// Stores a new game (in `conn`'s transaction, if it has one); its id.
pub(crate) fn insert_game(conn: &Connection, g: &NewGame) -> Result<GameId> {
    if let Some(d) = g.definition {
        conn.execute(sql::INSERT_VARIANT_DEFINITION, params![d.key, d.text])?;
    }
    conn.execute(
        "INSERT INTO games (platform, channel, variant, start_fen, white, black, days_per_move, created_at,
         last_move_at, reminded, rated, bot_player, bot_level, weekends_off, variant_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, 0, ?9, ?10, ?11, ?12, ?13)",
        params![
            g.platform,
            g.channel,
            g.variant,
            g.start_fen,
            g.white,
            g.black,
            g.days_per_move,
            g.now,
            g.rated,
            g.bot.map(|b| b.player),
            g.bot.map(|b| b.level),
            g.weekends_off,
            g.definition.map(|d| d.key)
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Stores `notices` inside the caller's transaction (see [`tessera_core::outbox`]). A `{game}` in a
/// notice's text becomes `game`, where the change created one.
pub(crate) fn insert_notices_for(
    conn: &Connection,
    notices: &[NewNotice],
    now: i64,
    game: Option<GameId>,
) -> Result<()> {
    for n in notices {
        let (text, subject) = n.for_game(game);
        conn.execute(
            sql::INSERT_NOTICE,
            params![
                n.platform,
                n.channel,
                n.kind.name(),
                subject,
                n.round,
                text,
                n.notify_column(),
                now,
                n.claim.as_ref().map(|c| c.holder.as_str()),
                n.claim.as_ref().map(|c| c.until_ms)
            ],
        )?;
    }
    Ok(())
}

pub(crate) fn insert_notices(conn: &Connection, notices: &[NewNotice], now: i64) -> Result<()> {
    insert_notices_for(conn, notices, now, None)
}

fn held_notices(conn: &Connection, holder: &str) -> Result<Vec<OutboxRow>> {
    let mut stmt = conn.prepare(sql::HELD_NOTICES)?;
    read_all(&mut stmt, [holder], |r| rows::notice_row(r))
}

fn game_row(conn: &Connection, row: &rusqlite::Row) -> Result<GameRow> {
    let id: GameId = row.get(0)?;
    let mut stmt = conn.prepare_cached(sql::MOVES)?;
    let moves = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
    rows::game_row(row, moves)
}

/// Every row `stmt` returns for `params`, each read by `read`.
pub(crate) fn read_all<T>(
    stmt: &mut rusqlite::Statement,
    params: impl rusqlite::Params,
    read: impl Fn(&rusqlite::Row) -> Result<T>,
) -> Result<Vec<T>> {
    let mut rows = stmt.query(params)?;
    let mut all = Vec::new();
    while let Some(row) = rows.next()? {
        all.push(read(row)?);
    }
    Ok(all)
}

/// The first row `sql` returns for `params`, if any, read by `read`.
pub(crate) fn read_one<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl Fn(&rusqlite::Row) -> Result<T>,
) -> Result<Option<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    rows.next()?.map(read).transpose()
}

fn games(conn: &Connection, filter: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<GameRow>> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE {filter} ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    read_all(&mut stmt, args, |row| game_row(conn, row))
}

impl Store for SqliteStore {
    fn player(&self, platform: &str, user_id: &str, name: &str) -> Result<Player> {
        let name = &tessera_core::names::clean_or(name, user_id);
        let conn = self.conn();
        conn.execute(
            "INSERT INTO players (platform, user_id, name) VALUES (?1, ?2, ?3)
             ON CONFLICT (platform, user_id) DO UPDATE SET name = excluded.name",
            params![platform, user_id, name],
        )?;
        let id = conn.query_row(
            "SELECT id FROM players WHERE platform = ?1 AND user_id = ?2",
            params![platform, user_id],
            |r| r.get(0),
        )?;
        Ok(Player { id, platform: platform.into(), user_id: user_id.into(), name: name.into() })
    }

    fn player_by_id(&self, id: PlayerId) -> Result<Option<Player>> {
        let conn = self.conn();
        read_one(&conn, sql::PLAYER_BY_ID, [id], |r| rows::player_row(r))
    }

    fn setting(&self, player: PlayerId, key: &str) -> Result<Option<String>> {
        let conn = self.conn();
        Ok(conn.query_row(sql::SETTING, params![player, key], |r| r.get(0)).optional()?)
    }

    fn set_setting(&self, player: PlayerId, key: &str, value: &str) -> Result<()> {
        self.conn().execute(sql::SET_SETTING, params![player, key, value])?;
        Ok(())
    }

    fn channel_setting(&self, platform: &str, channel: &str, key: &str) -> Result<Option<String>> {
        let conn = self.conn();
        Ok(conn.query_row(sql::CHANNEL_SETTING, params![platform, channel, key], |r| r.get(0)).optional()?)
    }

    fn set_channel_setting(&self, platform: &str, channel: &str, key: &str, value: &str) -> Result<()> {
        self.conn().execute(sql::SET_CHANNEL_SETTING, params![platform, channel, key, value])?;
        Ok(())
    }

    fn pending_turn(&self, player: PlayerId, game: GameId) -> Result<Option<(usize, String)>> {
        let conn = self.conn();
        Ok(conn
            .query_row(sql::PENDING_TURN, params![player, game], |r| {
                Ok((r.get::<_, i64>(0)? as usize, r.get(1)?))
            })
            .optional()?)
    }

    fn set_pending_turn(&self, player: PlayerId, game: GameId, turn: Option<(usize, &str)>) -> Result<()> {
        let conn = self.conn();
        match turn {
            Some((ply, text)) => {
                conn.execute(sql::SET_PENDING_TURN, params![player, game, ply as i64, text])?
            }
            None => conn.execute(sql::CLEAR_PENDING_TURN, params![player, game])?,
        };
        Ok(())
    }

    fn create_challenge(&self, c: &Challenge) -> Result<ChallengeId> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO challenges (platform, channel, challenger, challenged, variant, color, days_per_move,
             created_at, status, rated, weekends_off) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'open', ?9, ?10)",
            params![
                c.platform,
                c.channel,
                c.challenger,
                c.challenged,
                c.variant,
                c.color,
                c.days_per_move,
                c.created_at,
                c.rated,
                c.weekends_off
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn open_challenges(&self, platform: &str, channel: &str, player: PlayerId) -> Result<Vec<Challenge>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND platform = ?1 AND channel = ?2
             AND (challenger = ?3 OR challenged = ?3) ORDER BY id"
        ))?;
        read_all(&mut stmt, params![platform, channel, player], |r| rows::challenge_row(r))
    }

    fn open_challenges_since(&self, platform: &str, channel: &str, since: i64) -> Result<Vec<Challenge>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND platform = ?1 AND channel = ?2
             AND created_at > ?3 ORDER BY id"
        ))?;
        read_all(&mut stmt, params![platform, channel, since], |r| rows::challenge_row(r))
    }

    fn close_challenge(&self, id: ChallengeId, status: &str) -> Result<bool> {
        let conn = self.conn();
        let n = conn.execute(sql::CLOSE_CHALLENGE, params![id, status])?;
        Ok(n == 1)
    }

    fn create_game(&self, g: &NewGame) -> Result<GameId> {
        insert_game(&self.conn(), g)
    }

    fn accept_challenge(
        &self,
        challenge: ChallengeId,
        g: &NewGame,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let closed = tx.execute(sql::ACCEPT_CHALLENGE, [challenge])?;
        if closed != 1 {
            return Ok(None);
        }
        let id = insert_game(&tx, g)?;
        insert_notices_for(&tx, notices, g.now, Some(id))?;
        tx.commit()?;
        Ok(Some(id))
    }

    fn game(&self, id: GameId) -> Result<Option<GameRow>> {
        let conn = self.conn();
        Ok(games(&conn, "id = ?1", &[&id])?.into_iter().next())
    }

    fn variant_definition(&self, key: &str) -> Result<Option<String>> {
        read_one(&self.conn(), sql::VARIANT_DEFINITION, [key], |r| Ok(r.get(0)?))
    }

    fn channel_games(&self, platform: &str, channel: &str) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        games(&conn, "result IS NULL AND platform = ?1 AND channel = ?2", &[&platform, &channel])
    }

    fn last_channel_game(&self, platform: &str, channel: &str) -> Result<Option<GameRow>> {
        let conn = self.conn();
        let all = games(&conn, "platform = ?1 AND channel = ?2", &[&platform, &channel])?;
        Ok(all.into_iter().last())
    }

    fn player_games(&self, player: PlayerId) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        games(&conn, "result IS NULL AND (white = ?1 OR black = ?1)", &[&player])
    }

    fn recent_games(&self, player: PlayerId, limit: usize) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut rows = games(
            &conn,
            "id IN (SELECT id FROM games WHERE white = ?1 OR black = ?1 ORDER BY id DESC LIMIT ?2)",
            &[&player, &limit],
        )?;
        rows.reverse();
        Ok(rows)
    }

    fn clocked_games(&self) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        games(&conn, "result IS NULL AND days_per_move IS NOT NULL", &[])
    }

    fn bot_games(&self) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        games(&conn, "result IS NULL AND bot_level IS NOT NULL", &[])
    }

    fn append_checked(
        &self,
        game: GameId,
        ply: usize,
        before: Option<&[String]>,
        text: &str,
        result: Option<(&str, &str)>,
        now: i64,
    ) -> Result<Append> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (stored, finished) = game_state(&tx, game)?;
        if !may_append(&stored, finished, ply, before) {
            return Ok(Append::Conflict);
        }
        tx.execute(sql::INSERT_MOVE, params![game, ply as i64, text, now])?;
        tx.execute(
            "UPDATE games SET last_move_at = ?2, reminded = 0, draw_offer = NULL, takeback_offer = NULL,
             result = ?3, result_reason = ?4, finished_at = CASE WHEN ?3 IS NULL THEN NULL ELSE ?2 END
             WHERE id = ?1",
            params![game, now, result.map(|r| r.0), result.map(|r| r.1)],
        )?;
        tx.commit()?;
        Ok(Append::Stored)
    }

    fn finish(&self, game: GameId, result: &str, reason: &str, now: i64) -> Result<bool> {
        let conn = self.conn();
        let n = conn.execute(sql::FINISH, params![game, result, reason, now])?;
        Ok(n == 1)
    }

    fn accept_draw(&self, game: GameId, offered_by: PlayerId, now: i64) -> Result<bool> {
        let conn = self.conn();
        let n = conn.execute(sql::ACCEPT_DRAW, params![game, offered_by, now])?;
        Ok(n == 1)
    }

    fn set_draw_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        self.conn().execute(sql::SET_DRAW_OFFER, params![game, by])?;
        Ok(())
    }

    fn set_takeback_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        self.conn().execute(sql::SET_TAKEBACK_OFFER, params![game, by])?;
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
        let mut conn = self.conn();
        // Immediate: a deferred transaction that reads then writes can fail with "database is
        // locked" against another writer instead of waiting its turn.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let stored: i64 = tx.query_row(sql::MOVE_COUNT, [game], |r| r.get(0))?;
        let stands: bool = tx.query_row(
            "SELECT result IS NULL AND takeback_offer IS ?2 FROM games WHERE id = ?1",
            params![game, asked_by],
            |r| r.get(0),
        )?;
        // A move that got in first (it withdrew the request) must not be the one undone.
        if !stands || stored as usize != moves || count > moves {
            return Ok(false);
        }
        tx.execute(sql::DELETE_MOVES_AFTER, params![game, (moves - count) as i64])?;
        // The game left every conditional line: they were planned from a later move.
        tx.execute(sql::DROP_CONDITIONAL_LINES, [game])?;
        tx.execute(
            "UPDATE games SET takeback_offer = NULL, draw_offer = NULL, last_move_at = ?2, reminded = 0 WHERE id = ?1",
            params![game, now],
        )?;
        tx.commit()?;
        Ok(true)
    }

    fn mark_reminded(&self, game: GameId, last_move_at: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(
            sql::MARK_REMINDED,
            params![game, last_move_at],
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
        self.change_announced(sql::TIME_OUT, params![game, last_move_at, result, now], notices, now)
    }

    fn outbox_claim(
        &self,
        platform: Option<&str>,
        holder: &str,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<OutboxRow>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "UPDATE outbox SET claimed_by = ?2, claimed_until = ?3 WHERE id IN (SELECT id FROM outbox
             WHERE (?1 IS NULL OR platform = ?1) AND sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?4)
             ORDER BY id LIMIT ?5)",
            params![platform, holder, now_ms + tessera_core::outbox::CLAIM_MS, now_ms, limit as i64],
        )?;
        let held = held_notices(&tx, holder)?;
        tx.commit()?;
        Ok(held)
    }

    fn outbox_held(&self, holder: &str) -> Result<Vec<OutboxRow>> {
        held_notices(&self.conn(), holder)
    }

    fn outbox_sent(&self, notice: i64, now: i64) -> Result<bool> {
        Ok(self.conn().execute(sql::NOTICE_SENT, params![notice, now])? == 1)
    }

    fn outbox_renew(&self, notice: i64, holder: &str, until_ms: i64) -> Result<bool> {
        Ok(self.conn().execute(sql::RENEW_NOTICE, params![notice, holder, until_ms])? == 1)
    }

    fn outbox_holders(&self, platform: &str) -> Result<Vec<String>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(sql::NOTICE_HOLDERS)?;
        let rows = stmt.query_map([platform], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
    }

    fn outbox_release(&self, holder: &str) -> Result<u64> {
        Ok(self.conn().execute(sql::RELEASE_NOTICES, [holder])? as u64)
    }

    fn mark_handled(&self, platform: &str, message: &str, now: i64) -> Result<bool> {
        Ok(self.conn().execute(sql::MARK_HANDLED, params![platform, message, now])? == 1)
    }

    fn was_handled(&self, platform: &str, message: &str) -> Result<bool> {
        Ok(self.conn().query_row(sql::WAS_HANDLED, params![platform, message], |r| r.get(0))?)
    }

    fn take_lease(
        &self,
        name: &str,
        holder: &str,
        replacing: Option<&str>,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<bool> {
        let taken = params![name, holder, now_ms + ttl_ms, now_ms, replacing];
        Ok(self.conn().execute(sql::TAKE_LEASE, taken)? == 1)
    }

    fn lease(&self, name: &str) -> Result<Option<Lease>> {
        read_one(&self.conn(), sql::LEASE, [name], |r| rows::lease_row(r))
    }

    fn live_leases(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
        let conn = self.conn();
        let mut statement = conn.prepare(sql::LIVE_LEASES)?;
        read_all(&mut statement, params![prefix, now_ms], |r| rows::lease_row(r))
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<bool> {
        Ok(self.conn().execute(sql::RELEASE_LEASE, params![name, holder])? == 1)
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
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (stored, finished) = game_state(&tx, game)?;
        if turns.is_empty() || !may_append(&stored, finished, before.len() + 1, Some(before)) {
            return Ok(Append::Conflict);
        }
        let present = line_ids(&tx, game)?;
        if present != lines.seen {
            return Ok(Append::LinesChanged);
        }
        for (i, text) in turns.iter().enumerate() {
            tx.execute(sql::INSERT_MOVE, params![game, (before.len() + 1 + i) as i64, text, now])?;
        }
        tx.execute(
            "UPDATE games SET last_move_at = ?2, reminded = 0, draw_offer = NULL, takeback_offer = NULL,
             result = ?3, result_reason = ?4, finished_at = CASE WHEN ?3 IS NULL THEN NULL ELSE ?2 END
             WHERE id = ?1",
            params![game, now, result.map(|r| r.0), result.map(|r| r.1)],
        )?;
        for id in present.iter().filter(|id| !lines.kept.iter().any(|k| k.0 == **id)) {
            tx.execute("DELETE FROM conditional_lines WHERE id = ?1", [id])?;
        }
        for (id, from_ply, rest) in &lines.kept {
            tx.execute(sql::SHORTEN_CONDITIONAL_LINE, params![id, *from_ply as i64, rest.join("\n")])?;
        }
        tx.commit()?;
        Ok(Append::Stored)
    }

    fn conditional_lines(&self, game: GameId) -> Result<Vec<ConditionalLine>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::CONDITIONAL_LINES)?;
        let rows = stmt.query_map([game], |r| Ok(rows::conditional_line(r)))?;
        rows.map(|r| r?).collect()
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
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (stored, finished) = game_state(&tx, game)?;
        let present = line_ids(&tx, game)?;
        if finished || stored != before || present != seen {
            return Ok(false);
        }
        for id in drop {
            tx.execute(sql::DELETE_CONDITIONAL_LINE, params![id, game, player])?;
        }
        for turns in add {
            tx.execute(
                sql::INSERT_CONDITIONAL_LINE,
                params![game, player, before.len() as i64, turns.join("\n"), now],
            )?;
        }
        tx.commit()?;
        Ok(true)
    }

    fn vacations(&self, players: &[PlayerId], since: i64) -> Result<Vec<Vacation>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::VACATIONS)?;
        let mut all = Vec::new();
        for player in players {
            for row in stmt.query_map(params![player, since], |r| Ok(rows::vacation(r)))? {
                all.push(row??);
            }
        }
        all.sort_by_key(|v| v.start);
        Ok(all)
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
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let running: Option<i64> =
            tx.query_row(sql::RUNNING_VACATION, params![player, start], |r| r.get(0)).optional()?;
        if let Some(until) = running {
            return Ok(VacationStart::AlreadyOn { until });
        }
        let used: i64 = tx.query_row(sql::VACATION_USED, params![player, window_start], |r| r.get(0))?;
        if used + (end - start) > allowance {
            return Ok(VacationStart::OverAllowance { used });
        }
        tx.execute(sql::INSERT_VACATION, params![player, start, end])?;
        insert_notices(&tx, notices, start)?;
        tx.commit()?;
        Ok(VacationStart::Started)
    }

    fn end_vacation(&self, player: PlayerId, now: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(sql::END_VACATION, params![player, now], notices, now)
    }

    fn note(&self, player: PlayerId, game: GameId) -> Result<Option<String>> {
        let conn = self.conn();
        Ok(conn.query_row(sql::NOTE, params![player, game], |r| r.get(0)).optional()?)
    }

    fn set_note(&self, player: PlayerId, game: GameId, text: Option<&str>, now: i64) -> Result<()> {
        let conn = self.conn();
        match text {
            Some(text) => conn.execute(sql::SET_NOTE, params![player, game, text, now])?,
            None => conn.execute(sql::CLEAR_NOTE, params![player, game])?,
        };
        Ok(())
    }

    fn watch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        Ok(self.conn().execute(sql::WATCH, params![game, player])? == 1)
    }

    fn unwatch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        Ok(self.conn().execute(sql::UNWATCH, params![game, player])? == 1)
    }

    fn watchers(&self, game: GameId) -> Result<Vec<PlayerId>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::WATCHERS)?;
        read_all(&mut stmt, params![game], |r| Ok(r.get(0)?))
    }

    fn digests_due(&self, day: i64) -> Result<Vec<PlayerId>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::DIGESTS_DUE)?;
        read_all(&mut stmt, params![day], |r| Ok(r.get(0)?))
    }

    fn mark_digest(&self, player: PlayerId, day: i64, notices: &[NewNotice]) -> Result<bool> {
        self.change_announced(
            sql::MARK_DIGEST,
            params![player, day],
            notices,
            tessera_core::service::unix_now(),
        )
    }

    fn finished_games_of(
        &self,
        player: PlayerId,
        opponent: Option<PlayerId>,
        variant: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<GameRow>> {
        let conn = self.conn();
        let (offset, limit) = (i64::try_from(offset)?, i64::try_from(limit)?);
        let mut rows =
            games(&conn, sql::FINISHED_GAMES_OF, &[&player, &opponent, &variant, &limit, &offset])?;
        rows.reverse();
        Ok(rows)
    }

    fn set_game_thread(&self, game: GameId, thread: &str) -> Result<bool> {
        Ok(self.conn().execute(sql::SET_GAME_THREAD, params![game, thread])? == 1)
    }

    fn thread_game(&self, platform: &str, thread: &str) -> Result<Option<GameRow>> {
        let conn = self.conn();
        Ok(games(&conn, "platform = ?1 AND thread = ?2", &[&platform, &thread])?.into_iter().next())
    }
    fn publish(&self, what: Publication, token: &str, by: PlayerId, now: i64) -> Result<String> {
        let (kind, target) = what.parts();
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(sql::PUBLISH, params![token, kind, target, by, now])?;
        let live: String = tx.query_row(sql::ADDRESS_OF, params![kind, target], |r| r.get(0))?;
        tx.commit()?;
        Ok(live)
    }

    fn unpublish(&self, what: Publication) -> Result<bool> {
        let (kind, target) = what.parts();
        Ok(self.conn().execute(sql::UNPUBLISH, params![kind, target])? == 1)
    }

    fn publication(&self, token: &str) -> Result<Option<Publication>> {
        let conn = self.conn();
        let row: Option<(String, i64)> =
            conn.query_row(sql::PUBLICATION, params![token], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        Ok(row.and_then(|(kind, id)| Publication::from_parts(&kind, id)))
    }

    fn address_of(&self, what: Publication) -> Result<Option<String>> {
        let (kind, target) = what.parts();
        Ok(self.conn().query_row(sql::ADDRESS_OF, params![kind, target], |r| r.get(0)).optional()?)
    }

    fn ask_analysis(&self, a: &NewAnalysis, bounds: AnalysisBounds) -> Result<AnalysisAsked> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let existing = {
            let mut stmt = tx.prepare_cached(sql::ANALYSIS)?;
            let mut found = read_all(&mut stmt, [a.game], |r| rows::analysis_row(r))?;
            found.pop()
        };
        if let Some(row) = existing {
            return Ok(AnalysisAsked::Exists(row));
        }
        let count = |statement: &str, p: &[&dyn rusqlite::ToSql]| -> Result<usize> {
            let n: i64 = tx.query_row(statement, p, |r| r.get(0))?;
            Ok(usize::try_from(n).unwrap_or(0))
        };
        let mine = count(sql::WAITING_OF, &[&a.requester])?;
        if mine >= bounds.per_requester {
            return Ok(AnalysisAsked::RequesterFull(mine));
        }
        let all = count(sql::WAITING_COUNT, &[])?;
        if all >= bounds.overall {
            return Ok(AnalysisAsked::QueueFull(all));
        }
        tx.execute(sql::ASK_ANALYSIS, params![a.game, a.requester, a.platform, a.channel, a.now])?;
        tx.commit()?;
        Ok(AnalysisAsked::Queued { place: all + 1 })
    }

    fn analysis(&self, game: GameId) -> Result<Option<AnalysisRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::ANALYSIS)?;
        Ok(read_all(&mut stmt, [game], |r| rows::analysis_row(r))?.pop())
    }

    fn waiting_analyses(&self) -> Result<Vec<AnalysisRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::WAITING_ANALYSES)?;
        read_all(&mut stmt, [], |r| rows::analysis_row(r))
    }

    fn analysis_evals(&self, game: GameId) -> Result<Vec<tessera_core::analysis::PlyEval>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql::ANALYSIS_PLIES)?;
        read_all(&mut stmt, [game], |r| rows::ply_eval(r))
    }

    fn finish_analysis(
        &self,
        game: GameId,
        evals: &[tessera_core::analysis::PlyEval],
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if tx.execute(sql::FINISH_ANALYSIS, params![game, now])? != 1 {
            return Ok(false);
        }
        {
            let mut stmt = tx.prepare_cached(sql::INSERT_ANALYSIS_PLY)?;
            for e in evals {
                stmt.execute(params![game, e.ply as i64, e.eval.text(), e.best, e.depth])?;
            }
        }
        insert_notices(&tx, notices, now)?;
        tx.commit()?;
        Ok(true)
    }
}

/// What only SQLite has: files, WAL. Everything a store does is checked on every store by the
/// conformance suite, `bot/tests/store.rs`.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stored_before_cleaning_are_cleaned_once_when_the_schema_is_brought_up() {
        // A database as the version before left it: a name with a bidi override, unmarked look-alikes.
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE schema_version (version INTEGER NOT NULL)").unwrap();
        for &(version, sql) in MIGRATIONS.iter().filter(|m| m.0 < NAMES_CLEANED_FROM) {
            conn.execute_batch(sql).unwrap();
            conn.execute("INSERT INTO schema_version (version) VALUES (?1)", [version]).unwrap();
        }
        for (user, name) in [("1", "\u{202e}alice"), ("2", "t\u{435}ssera"), ("3", "bob")] {
            conn.execute("INSERT INTO players (platform, user_id, name) VALUES ('l', ?1, ?2)", [user, name])
                .unwrap();
        }
        let store = SqliteStore::with_connection(conn).unwrap();
        let shown: Vec<String> = (1..=3).map(|id| store.player_by_id(id).unwrap().unwrap().name).collect();
        assert_eq!(shown, ["alice", "t\u{435}ssera (Latin+Cyrillic)", "bob"]);
        // Stored so, not only shown so: the entrant lists read the column directly.
        let stored: String =
            store.conn().query_row("SELECT name FROM players WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, "alice");
    }

    fn new_game(store: &SqliteStore, a: PlayerId, b: PlayerId) -> GameId {
        store
            .create_game(&NewGame {
                platform: "local",
                channel: "main",
                variant: "chess",
                start_fen: "start",
                white: a,
                black: b,
                days_per_move: Some(3),
                rated: false,
                now: 100,
                bot: None,
                weekends_off: false,
                definition: None,
            })
            .unwrap()
    }

    #[test]
    fn reopening_a_file_keeps_everything() {
        let dir = std::env::temp_dir().join(format!("tessera-store-{}", std::process::id()));
        let path = dir.join("games.sqlite");
        let _ = std::fs::remove_dir_all(&dir);
        let g = {
            let store = SqliteStore::open(&path).unwrap();
            let (a, b) = (store.player("l", "a", "a").unwrap().id, store.player("l", "b", "b").unwrap().id);
            let g = new_game(&store, a, b);
            store.append_move(g, 1, "e2-e4", None, 200).unwrap();
            g
        };
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.game(g).unwrap().unwrap().moves, ["e2-e4"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn connections_opening_a_new_file_together_all_switch_it_to_wal() {
        // Found by the race driver (bot/tests/races.rs): processes starting together on a new
        // data directory failed now and then with "switching to WAL: database is locked" (two
        // connections asking at once each hold a read lock, so SQLite answers at once).
        let dir = std::env::temp_dir().join(format!("tessera-store-wal-{}", std::process::id()));
        for round in 0..30 {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("games.sqlite");
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(6));
            let openers: Vec<_> = (0..6)
                .map(|_| {
                    let (path, barrier) = (path.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        SqliteStore::open(&path).map(drop).map_err(|e| format!("{e:#}"))
                    })
                })
                .collect();
            for o in openers {
                o.join().unwrap().unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
