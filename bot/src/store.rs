//! Storage behind a trait: players, challenges and games (variant, start position, every move).
//! A game is rebuilt by replaying its moves through the rules; nothing derived is stored.
//!
//! [`SqliteStore`] keeps everything in one SQLite file (WAL, numbered migrations);
//! [`crate::postgres_store::PgStore`] keeps it in a PostgreSQL database, for bots on more than one
//! machine. The configuration's `database` chooses ([`open`]); the rest of the bot sees a [`Store`].
//! Both pass one conformance suite (`bot/tests/store.rs`).

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

use crate::outbox::{NewNotice, NoticeKind, OutboxRow};
use crate::tournament_store::TournamentStore;

pub type PlayerId = i64;
pub type GameId = i64;
pub type ChallengeId = i64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub id: PlayerId,
    pub platform: String,
    pub user_id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub id: ChallengeId,
    pub platform: String,
    pub channel: String,
    pub challenger: PlayerId,
    pub challenged: PlayerId,
    pub variant: String,
    /// The challenger's colour: "white", "black" or "random".
    pub color: String,
    pub days_per_move: Option<u32>,
    pub created_at: i64,
    /// The game will count for ratings.
    pub rated: bool,
}

/// A game as stored. Its position comes from replaying `moves` from `start_fen`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: GameId,
    pub platform: String,
    pub channel: String,
    pub variant: String,
    pub start_fen: String,
    pub white: PlayerId,
    pub black: PlayerId,
    pub moves: Vec<String>,
    /// "1-0", "0-1", "1/2-1/2" once finished.
    pub result: Option<String>,
    pub result_reason: Option<String>,
    pub days_per_move: Option<u32>,
    pub last_move_at: i64,
    pub reminded: bool,
    pub draw_offer: Option<PlayerId>,
    pub takeback_offer: Option<PlayerId>,
    pub rated: bool,
    pub created_at: i64,
    /// A game against the bot itself: its player and level.
    pub bot: Option<BotOpponent>,
}

/// The bot as one side of a practice game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BotOpponent {
    pub player: PlayerId,
    /// 1 to 5, as `tessera_engine::Level` takes it.
    pub level: u8,
}

impl BotOpponent {
    /// From a game's `bot_player` and `bot_level` columns: a bot game has both.
    pub(crate) fn from_columns(player: Option<PlayerId>, level: Option<u8>) -> Option<BotOpponent> {
        Some(BotOpponent { player: player?, level: level? })
    }
}

/// What happened to a move handed to [`Store::append_move`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Append {
    Stored,
    /// Someone else's move got there first: the game has moved on.
    Conflict,
}

/// Whether move `ply` may follow the game's `stored` moves: the game still runs, the move is the
/// next one, and (when `before` is given) the moves are exactly those the mover saw.
pub(crate) fn may_append(stored: &[String], finished: bool, ply: usize, before: Option<&[String]>) -> bool {
    !finished && stored.len() + 1 == ply && before.is_none_or(|b| b == stored)
}

/// Who holds a lease ([`Store::take_lease`]) and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub name: String,
    pub holder: String,
    /// Unix milliseconds.
    pub expires_at: i64,
    /// How many times the lease has changed hands (1 for its first holder).
    pub generation: i64,
}

#[derive(Clone, Debug)]
pub struct NewGame<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub variant: &'a str,
    pub start_fen: &'a str,
    pub white: PlayerId,
    pub black: PlayerId,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub now: i64,
    pub bot: Option<BotOpponent>,
}

pub trait Store: Send + Sync + TournamentStore {
    /// The player for a platform user, created on first sight; the display name is kept current,
    /// cleaned by [`crate::names::clean_or`] (the name the player is shown by everywhere).
    fn player(&self, platform: &str, user_id: &str, name: &str) -> Result<Player>;
    fn player_by_id(&self, id: PlayerId) -> Result<Option<Player>>;

    /// A player's setting, if they made one.
    fn setting(&self, player: PlayerId, key: &str) -> Result<Option<String>>;
    fn set_setting(&self, player: PlayerId, key: &str, value: &str) -> Result<()>;
    /// A channel's setting, if its moderators made one.
    fn channel_setting(&self, platform: &str, channel: &str, key: &str) -> Result<Option<String>>;
    fn set_channel_setting(&self, platform: &str, channel: &str, key: &str, value: &str) -> Result<()>;
    /// The turn a player was asked to confirm in a game, with the ply it was asked at.
    fn pending_turn(&self, player: PlayerId, game: GameId) -> Result<Option<(usize, String)>>;
    /// Replaces the player's pending turn in the game (`None` clears it).
    fn set_pending_turn(&self, player: PlayerId, game: GameId, turn: Option<(usize, &str)>) -> Result<()>;

    fn create_challenge(&self, c: &Challenge) -> Result<ChallengeId>;
    /// Open challenges in a channel that involve the player, oldest first.
    fn open_challenges(&self, platform: &str, channel: &str, player: PlayerId) -> Result<Vec<Challenge>>;
    /// Closes an open challenge; false if it was no longer open.
    fn close_challenge(&self, id: ChallengeId, status: &str) -> Result<bool>;
    /// Every open challenge in a channel made after `since`, oldest first.
    fn open_challenges_since(&self, platform: &str, channel: &str, since: i64) -> Result<Vec<Challenge>>;

    fn create_game(&self, g: &NewGame) -> Result<GameId>;
    /// Closes an open challenge as accepted and creates its game, in one transaction; `None`
    /// (and nothing changed) if the challenge was no longer open.
    /// The game's start announced by `notices` (a `{game}` in their text becomes its number),
    /// stored with it.
    fn accept_challenge(
        &self,
        challenge: ChallengeId,
        g: &NewGame,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>>;
    fn game(&self, id: GameId) -> Result<Option<GameRow>>;
    /// Unfinished games in a channel.
    fn channel_games(&self, platform: &str, channel: &str) -> Result<Vec<GameRow>>;
    /// The channel's most recent game, finished or not.
    fn last_channel_game(&self, platform: &str, channel: &str) -> Result<Option<GameRow>>;
    /// A player's unfinished games anywhere.
    fn player_games(&self, player: PlayerId) -> Result<Vec<GameRow>>;
    /// A player's last `limit` games, finished or not, newest first.
    fn recent_games(&self, player: PlayerId, limit: usize) -> Result<Vec<GameRow>>;
    /// Unfinished games on a clock.
    fn clocked_games(&self) -> Result<Vec<GameRow>>;
    /// Unfinished games against the bot itself.
    fn bot_games(&self) -> Result<Vec<GameRow>>;

    /// Stores move number `ply` (1-based) if the game has exactly `ply - 1` moves, with the result
    /// if the move ended the game, in one transaction. Clears draw and takeback offers.
    fn append_move(
        &self,
        game: GameId,
        ply: usize,
        text: &str,
        result: Option<(&str, &str)>,
        now: i64,
    ) -> Result<Append> {
        self.append_checked(game, ply, None, text, result, now)
    }
    /// As [`Store::append_move`], on condition that the game's moves are exactly `before`.
    fn append_move_after(
        &self,
        game: GameId,
        before: &[String],
        text: &str,
        result: Option<(&str, &str)>,
        now: i64,
    ) -> Result<Append> {
        self.append_checked(game, before.len() + 1, Some(before), text, result, now)
    }
    /// What both appends are: stores move `ply` as [`Store::append_move`] does, on condition too
    /// that the game's moves are exactly `before` when it is given.
    fn append_checked(
        &self,
        game: GameId,
        ply: usize,
        before: Option<&[String]>,
        text: &str,
        result: Option<(&str, &str)>,
        now: i64,
    ) -> Result<Append>;
    /// Ends a running game; false (nothing changed) if it had already ended.
    fn finish(&self, game: GameId, result: &str, reason: &str, now: i64) -> Result<bool>;
    /// Ends the game drawn by agreement if the draw offered by `offered_by` still stands (a move
    /// withdraws it); false, changing nothing, otherwise.
    fn accept_draw(&self, game: GameId, offered_by: PlayerId, now: i64) -> Result<bool>;
    fn set_draw_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()>;
    fn set_takeback_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()>;
    /// Removes the last `count` moves (an agreed takeback) if the takeback `asked_by` asked for
    /// still stands (a move withdraws it), the game is running and it still has `moves` moves;
    /// false, changing nothing, otherwise.
    fn take_back(
        &self,
        game: GameId,
        moves: usize,
        count: usize,
        asked_by: PlayerId,
        now: i64,
    ) -> Result<bool>;
    /// Marks the game reminded if it is still on the clock that was read (no move since
    /// `last_move_at`) and not reminded yet: true for the one caller that marked it.
    /// The reminder's `notices` are stored with the mark.
    fn mark_reminded(&self, game: GameId, last_move_at: i64, notices: &[NewNotice]) -> Result<bool>;
    /// Ends the game with `result` on time if it still runs on the clock that ran out (no move
    /// since `last_move_at`): true for the one caller that ended it, whose `notices` are stored
    /// with the result.
    fn time_out(
        &self,
        game: GameId,
        last_move_at: i64,
        result: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool>;

    /// Claims for `holder` (until `now_ms` + [`crate::outbox::CLAIM_MS`]) up to `limit` unsent
    /// notices of `platform` (of any with `None`) that nobody holds or whose claim ran out, and returns every unsent
    /// notice `holder` holds, oldest first. Of processes claiming at once, each notice goes to one.
    fn outbox_claim(
        &self,
        platform: Option<&str>,
        holder: &str,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<OutboxRow>>;
    /// The unsent notices `holder` holds (claimed when they were written), oldest first.
    fn outbox_held(&self, holder: &str) -> Result<Vec<OutboxRow>>;
    /// Marks a notice sent: true the first time.
    fn outbox_sent(&self, notice: i64, now: i64) -> Result<bool>;
    /// Renews `holder`'s claim on an unsent notice until `until_ms`: false if it holds it no more.
    fn outbox_renew(&self, notice: i64, holder: &str, until_ms: i64) -> Result<bool>;
    /// The holders of claims on `platform`'s unsent notices.
    fn outbox_holders(&self, platform: &str) -> Result<Vec<String>>;
    /// Lets go of `holder`'s claims on unsent notices (a process known to be dead).
    fn outbox_release(&self, holder: &str) -> Result<u64>;
    /// Records that the platform's message was answered; true the first time.
    fn mark_handled(&self, platform: &str, message: &str, now: i64) -> Result<bool>;
    fn was_handled(&self, platform: &str, message: &str) -> Result<bool>;

    /// Takes the lease `name` for `holder` until `now_ms + ttl_ms`, or renews it: true when
    /// `holder` holds it now. It is taken when free, expired, already `holder`'s, or held by
    /// `replacing` (a holder known to be dead); otherwise nothing changes.
    fn take_lease(
        &self,
        name: &str,
        holder: &str,
        replacing: Option<&str>,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<bool>;
    fn lease(&self, name: &str) -> Result<Option<Lease>>;
    /// The leases whose names start with `prefix` and that run past `now_ms`.
    fn live_leases(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>>;
    /// Unix milliseconds now by the database's clock, which times the leases: every process
    /// on one database then agrees when a lease runs out, whatever its machine's clock says.
    /// An SQLite file is one machine's: its clock.
    fn clock_ms(&self) -> Result<i64> {
        Ok(crate::lease::local_ms())
    }
    /// Gives the lease up if `holder` holds it: the next process need not wait for it to expire.
    fn release_lease(&self, name: &str, holder: &str) -> Result<bool>;
}

/// Any store, as the configuration chose it.
pub type AnyStore = Box<dyn Store>;

/// Opens the configured database: an SQLite file, or a PostgreSQL server.
pub fn open(database: &crate::config::Database) -> Result<AnyStore> {
    use crate::config::Database;
    Ok(match database {
        Database::Sqlite(path) => Box::new(SqliteStore::open(path)?),
        Database::Postgres(address) => Box::new(
            crate::postgres_store::PgStore::connect(address.expose())
                .with_context(|| format!("opening the database {}", database.describe()))?,
        ),
    })
}

impl<T: Store + ?Sized> Store for Box<T> {
    fn player(&self, platform: &str, user_id: &str, name: &str) -> Result<Player> {
        (**self).player(platform, user_id, name)
    }
    fn player_by_id(&self, id: PlayerId) -> Result<Option<Player>> {
        (**self).player_by_id(id)
    }
    fn setting(&self, player: PlayerId, key: &str) -> Result<Option<String>> {
        (**self).setting(player, key)
    }
    fn set_setting(&self, player: PlayerId, key: &str, value: &str) -> Result<()> {
        (**self).set_setting(player, key, value)
    }
    fn channel_setting(&self, platform: &str, channel: &str, key: &str) -> Result<Option<String>> {
        (**self).channel_setting(platform, channel, key)
    }
    fn set_channel_setting(&self, platform: &str, channel: &str, key: &str, value: &str) -> Result<()> {
        (**self).set_channel_setting(platform, channel, key, value)
    }
    fn pending_turn(&self, player: PlayerId, game: GameId) -> Result<Option<(usize, String)>> {
        (**self).pending_turn(player, game)
    }
    fn set_pending_turn(&self, player: PlayerId, game: GameId, turn: Option<(usize, &str)>) -> Result<()> {
        (**self).set_pending_turn(player, game, turn)
    }
    fn create_challenge(&self, c: &Challenge) -> Result<ChallengeId> {
        (**self).create_challenge(c)
    }
    fn open_challenges(&self, platform: &str, channel: &str, player: PlayerId) -> Result<Vec<Challenge>> {
        (**self).open_challenges(platform, channel, player)
    }
    fn close_challenge(&self, id: ChallengeId, status: &str) -> Result<bool> {
        (**self).close_challenge(id, status)
    }
    fn open_challenges_since(&self, platform: &str, channel: &str, since: i64) -> Result<Vec<Challenge>> {
        (**self).open_challenges_since(platform, channel, since)
    }
    fn create_game(&self, g: &NewGame) -> Result<GameId> {
        (**self).create_game(g)
    }
    fn accept_challenge(
        &self,
        challenge: ChallengeId,
        g: &NewGame,
        notices: &[NewNotice],
    ) -> Result<Option<GameId>> {
        (**self).accept_challenge(challenge, g, notices)
    }
    fn game(&self, id: GameId) -> Result<Option<GameRow>> {
        (**self).game(id)
    }
    fn channel_games(&self, platform: &str, channel: &str) -> Result<Vec<GameRow>> {
        (**self).channel_games(platform, channel)
    }
    fn last_channel_game(&self, platform: &str, channel: &str) -> Result<Option<GameRow>> {
        (**self).last_channel_game(platform, channel)
    }
    fn player_games(&self, player: PlayerId) -> Result<Vec<GameRow>> {
        (**self).player_games(player)
    }
    fn recent_games(&self, player: PlayerId, limit: usize) -> Result<Vec<GameRow>> {
        (**self).recent_games(player, limit)
    }
    fn clocked_games(&self) -> Result<Vec<GameRow>> {
        (**self).clocked_games()
    }
    fn bot_games(&self) -> Result<Vec<GameRow>> {
        (**self).bot_games()
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
        (**self).append_checked(game, ply, before, text, result, now)
    }
    fn finish(&self, game: GameId, result: &str, reason: &str, now: i64) -> Result<bool> {
        (**self).finish(game, result, reason, now)
    }
    fn accept_draw(&self, game: GameId, offered_by: PlayerId, now: i64) -> Result<bool> {
        (**self).accept_draw(game, offered_by, now)
    }
    fn set_draw_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        (**self).set_draw_offer(game, by)
    }
    fn set_takeback_offer(&self, game: GameId, by: Option<PlayerId>) -> Result<()> {
        (**self).set_takeback_offer(game, by)
    }
    fn take_back(
        &self,
        game: GameId,
        moves: usize,
        count: usize,
        asked_by: PlayerId,
        now: i64,
    ) -> Result<bool> {
        (**self).take_back(game, moves, count, asked_by, now)
    }
    fn mark_reminded(&self, game: GameId, last_move_at: i64, notices: &[NewNotice]) -> Result<bool> {
        (**self).mark_reminded(game, last_move_at, notices)
    }
    fn time_out(
        &self,
        game: GameId,
        last_move_at: i64,
        result: &str,
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool> {
        (**self).time_out(game, last_move_at, result, now, notices)
    }
    fn outbox_claim(
        &self,
        platform: Option<&str>,
        holder: &str,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<OutboxRow>> {
        (**self).outbox_claim(platform, holder, now_ms, limit)
    }
    fn outbox_held(&self, holder: &str) -> Result<Vec<OutboxRow>> {
        (**self).outbox_held(holder)
    }
    fn outbox_sent(&self, notice: i64, now: i64) -> Result<bool> {
        (**self).outbox_sent(notice, now)
    }
    fn outbox_renew(&self, notice: i64, holder: &str, until_ms: i64) -> Result<bool> {
        (**self).outbox_renew(notice, holder, until_ms)
    }
    fn outbox_holders(&self, platform: &str) -> Result<Vec<String>> {
        (**self).outbox_holders(platform)
    }
    fn outbox_release(&self, holder: &str) -> Result<u64> {
        (**self).outbox_release(holder)
    }
    fn mark_handled(&self, platform: &str, message: &str, now: i64) -> Result<bool> {
        (**self).mark_handled(platform, message, now)
    }
    fn was_handled(&self, platform: &str, message: &str) -> Result<bool> {
        (**self).was_handled(platform, message)
    }
    fn take_lease(
        &self,
        name: &str,
        holder: &str,
        replacing: Option<&str>,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<bool> {
        (**self).take_lease(name, holder, replacing, now_ms, ttl_ms)
    }
    fn lease(&self, name: &str) -> Result<Option<Lease>> {
        (**self).lease(name)
    }
    fn live_leases(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
        (**self).live_leases(prefix, now_ms)
    }
    fn clock_ms(&self) -> Result<i64> {
        (**self).clock_ms()
    }
    fn release_lease(&self, name: &str, holder: &str) -> Result<bool> {
        (**self).release_lease(name, holder)
    }
}

/// Numbered migrations, applied in order, each once. PostgreSQL has its own SQL for each number
/// (`migrations/postgres/`), so a version means the same schema on both.
pub(crate) const MIGRATIONS: &[(u32, &str)] = &[
    (1, include_str!("../migrations/001_init.sql")),
    (2, include_str!("../migrations/002_tournaments_ratings.sql")),
    (3, include_str!("../migrations/003_settings.sql")),
    (4, include_str!("../migrations/004_practice_opponent.sql")),
    (5, include_str!("../migrations/005_leases.sql")),
    (6, include_str!("../migrations/006_outbox.sql")),
];

/// The schema version from which players' names are stored cleaned ([`crate::names::clean_or`]):
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
                let clean = crate::names::clean_or(&name, &user_id);
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

pub(crate) const GAME_COLUMNS: &str = "id, platform, channel, variant, start_fen, white, black, result, result_reason, \
     days_per_move, last_move_at, reminded, draw_offer, takeback_offer, rated, created_at, bot_player, bot_level";

/// Stores a new game (in `conn`'s transaction, if it has one); its id.
pub(crate) fn insert_game(conn: &Connection, g: &NewGame) -> Result<GameId> {
    conn.execute(
        "INSERT INTO games (platform, channel, variant, start_fen, white, black, days_per_move, created_at,
         last_move_at, reminded, rated, bot_player, bot_level)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, 0, ?9, ?10, ?11)",
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
            g.bot.map(|b| b.level)
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Stores `notices` inside the caller's transaction (see [`crate::outbox`]). A `{game}` in a
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
    let rows = stmt.query_map([holder], |r| {
        let kind: String = r.get(3)?;
        let notify: String = r.get(7)?;
        Ok(OutboxRow {
            id: r.get(0)?,
            platform: r.get(1)?,
            channel: r.get(2)?,
            kind: NoticeKind::parse(&kind),
            subject: r.get(4)?,
            round: r.get(5)?,
            text: r.get(6)?,
            notify: crate::outbox::notify_list(&notify),
            created_at: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

fn game_row(conn: &Connection, row: &rusqlite::Row) -> rusqlite::Result<GameRow> {
    let id: GameId = row.get(0)?;
    let mut stmt = conn.prepare_cached(sql::MOVES)?;
    let moves = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(GameRow {
        id,
        platform: row.get(1)?,
        channel: row.get(2)?,
        variant: row.get(3)?,
        start_fen: row.get(4)?,
        white: row.get(5)?,
        black: row.get(6)?,
        result: row.get(7)?,
        result_reason: row.get(8)?,
        days_per_move: row.get(9)?,
        last_move_at: row.get(10)?,
        reminded: row.get(11)?,
        draw_offer: row.get(12)?,
        takeback_offer: row.get(13)?,
        rated: row.get(14)?,
        created_at: row.get(15)?,
        bot: BotOpponent::from_columns(row.get(16)?, row.get(17)?),
        moves,
    })
}

fn games(conn: &Connection, filter: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<GameRow>> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE {filter} ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(args, |row| game_row(conn, row))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

impl Store for SqliteStore {
    fn player(&self, platform: &str, user_id: &str, name: &str) -> Result<Player> {
        let name = &crate::names::clean_or(name, user_id);
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
        Ok(conn
            .query_row(sql::PLAYER_BY_ID, [id], |r| {
                let (user_id, name): (String, String) = (r.get(2)?, r.get(3)?);
                Ok(Player { id: r.get(0)?, platform: r.get(1)?, user_id, name })
            })
            .optional()?)
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
             created_at, status, rated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'open', ?9)",
            params![
                c.platform,
                c.channel,
                c.challenger,
                c.challenged,
                c.variant,
                c.color,
                c.days_per_move,
                c.created_at,
                c.rated
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn open_challenges(&self, platform: &str, channel: &str, player: PlayerId) -> Result<Vec<Challenge>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, platform, channel, challenger, challenged, variant, color, days_per_move, created_at, rated
             FROM challenges WHERE status = 'open' AND platform = ?1 AND channel = ?2
             AND (challenger = ?3 OR challenged = ?3) ORDER BY id",
        )?;
        let rows = stmt.query_map(params![platform, channel, player], challenge_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn open_challenges_since(&self, platform: &str, channel: &str, since: i64) -> Result<Vec<Challenge>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, platform, channel, challenger, challenged, variant, color, days_per_move, created_at, rated
             FROM challenges WHERE status = 'open' AND platform = ?1 AND channel = ?2 AND created_at > ?3
             ORDER BY id",
        )?;
        let rows = stmt.query_map(params![platform, channel, since], challenge_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
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
        let stored: Vec<String> = {
            let mut stmt = tx.prepare_cached(sql::MOVES)?;
            stmt.query_map([game], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?
        };
        let finished: Option<String> =
            tx.query_row("SELECT result FROM games WHERE id = ?1", [game], |r| r.get(0))?;
        if !may_append(&stored, finished.is_some(), ply, before) {
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
            crate::service::unix_now(),
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
            params![platform, holder, now_ms + crate::outbox::CLAIM_MS, now_ms, limit as i64],
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
        Ok(self.conn().query_row(sql::LEASE, [name], lease_row).optional()?)
    }

    fn live_leases(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
        let conn = self.conn();
        let mut statement = conn.prepare(sql::LIVE_LEASES)?;
        let leases = statement.query_map(params![prefix, now_ms], lease_row)?;
        Ok(leases.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<bool> {
        Ok(self.conn().execute(sql::RELEASE_LEASE, params![name, holder])? == 1)
    }
}

fn lease_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Lease> {
    Ok(Lease { name: r.get(0)?, holder: r.get(1)?, expires_at: r.get(2)?, generation: r.get(3)? })
}

pub(crate) mod sql;

/// A `challenges` row selected as `id, platform, channel, challenger, challenged, variant, color,
/// days_per_move, created_at, rated`.
fn challenge_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Challenge> {
    Ok(Challenge {
        id: r.get(0)?,
        platform: r.get(1)?,
        channel: r.get(2)?,
        challenger: r.get(3)?,
        challenged: r.get(4)?,
        variant: r.get(5)?,
        color: r.get(6)?,
        days_per_move: r.get(7)?,
        created_at: r.get(8)?,
        rated: r.get(9)?,
    })
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
