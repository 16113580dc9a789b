//! The statements whose text both databases accept, written once: `?N` parameters, which
//! [`crate::postgres`] gives PostgreSQL as `$N`. Each store keeps inline only what its
//! dialect alone says (row locks, `RETURNING`, casts). Each constant's comment lists its
//! parameters in order.

// Players, settings, challenges, games.

/// The columns a challenge is read by ([`crate::rows::challenge_row`]).
pub const CHALLENGE_COLUMNS: &str = "id, platform, channel, challenger, challenged, variant, color, days_per_move, created_at, rated, weekends_off";

pub const GAME_COLUMNS: &str = "id, platform, channel, variant, start_fen, white, black, result, result_reason, \
     days_per_move, last_move_at, reminded, draw_offer, takeback_offer, rated, created_at, bot_player, bot_level, \
     weekends_off, thread, variant_key";

pub const TOURNAMENT_COLUMNS: &str = "id, platform, channel, name, organiser, variant, format, rounds, days_per_move, \
     rated, starts_at, max_players, bye_halves, status, current_round, created_at, vacation_days, variant_key";

/// `(key, text)`: a community variant's definition, kept once however many games use it.
pub const INSERT_VARIANT_DEFINITION: &str =
    "INSERT INTO variant_definitions (key, text) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING";

/// `(key)`.
pub const VARIANT_DEFINITION: &str = "SELECT text FROM variant_definitions WHERE key = ?1";

/// `(player)`.
pub const PLAYER_BY_ID: &str = "SELECT id, platform, user_id, name FROM players WHERE id = ?1";

/// `(player, key)`.
pub const SETTING: &str = "SELECT value FROM player_settings WHERE player_id = ?1 AND key = ?2";

/// `(player, key, value)`.
pub const SET_SETTING: &str = "INSERT INTO player_settings (player_id, key, value) VALUES (?1, ?2, ?3)
         ON CONFLICT (player_id, key) DO UPDATE SET value = excluded.value";

/// `(platform, channel, key)`.
pub const CHANNEL_SETTING: &str =
    "SELECT value FROM channel_settings WHERE platform = ?1 AND channel = ?2 AND key = ?3";

/// `(platform, channel, key, value)`.
pub const SET_CHANNEL_SETTING: &str =
    "INSERT INTO channel_settings (platform, channel, key, value) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (platform, channel, key) DO UPDATE SET value = excluded.value";

/// `(player, game)`.
pub const PENDING_TURN: &str = "SELECT ply, text FROM pending_turns WHERE player_id = ?1 AND game_id = ?2";

/// `(player, game, ply, text)`.
pub const SET_PENDING_TURN: &str =
    "INSERT INTO pending_turns (player_id, game_id, ply, text) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (player_id, game_id) DO UPDATE SET ply = excluded.ply, text = excluded.text";

/// `(player, game)`.
pub const CLEAR_PENDING_TURN: &str = "DELETE FROM pending_turns WHERE player_id = ?1 AND game_id = ?2";

/// `(challenge, status)`: only an open one.
pub const CLOSE_CHALLENGE: &str = "UPDATE challenges SET status = ?2 WHERE id = ?1 AND status = 'open'";

/// `(challenge)`: only an open one.
pub const ACCEPT_CHALLENGE: &str =
    "UPDATE challenges SET status = 'accepted' WHERE id = ?1 AND status = 'open'";

/// `(game)`: its moves' texts, in order.
pub const MOVES: &str = "SELECT text FROM moves WHERE game_id = ?1 ORDER BY ply";

/// `(game, ply, text, played_at)`.
pub const INSERT_MOVE: &str = "INSERT INTO moves (game_id, ply, text, played_at) VALUES (?1, ?2, ?3, ?4)";

/// `(game, result, reason, now)`: only a running game.
pub const FINISH: &str =
    "UPDATE games SET result = ?2, result_reason = ?3, draw_offer = NULL, takeback_offer = NULL,
         finished_at = ?4 WHERE id = ?1 AND result IS NULL";

/// `(game, offered_by, now)`: only the draw still offered by that player.
pub const ACCEPT_DRAW: &str =
    "UPDATE games SET result = '1/2-1/2', result_reason = 'agreement', draw_offer = NULL,
         takeback_offer = NULL, finished_at = ?3 WHERE id = ?1 AND result IS NULL AND draw_offer = ?2";

/// `(game, by)`.
pub const SET_DRAW_OFFER: &str = "UPDATE games SET draw_offer = ?2 WHERE id = ?1";

/// `(game, by)`.
pub const SET_TAKEBACK_OFFER: &str = "UPDATE games SET takeback_offer = ?2 WHERE id = ?1";

/// `(game)`.
pub const MOVE_COUNT: &str = "SELECT COUNT(*) FROM moves WHERE game_id = ?1";

/// `(game, ply)`: the moves after that ply.
pub const DELETE_MOVES_AFTER: &str = "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2";

// The clock and the leases: each changes a row only for the one caller whose condition still
// holds, so processes racing on it cannot both succeed.

/// `(game, last_move_at)`: the reminder, if no move came since the clock was read.
pub const MARK_REMINDED: &str = "UPDATE games SET reminded = TRUE
     WHERE id = ?1 AND last_move_at = ?2 AND reminded = FALSE AND result IS NULL";
/// `(game, last_move_at, result, now)`: the loss on time, if no move came since the clock was
/// read (a move appended meanwhile has moved `last_move_at`).
pub const TIME_OUT: &str = "UPDATE games SET result = ?3, result_reason = 'time', draw_offer = NULL,
     takeback_offer = NULL, finished_at = ?4 WHERE id = ?1 AND last_move_at = ?2 AND result IS NULL";
/// `(name, holder, expires_at, now, replacing)`: takes or renews a lease in one statement.
pub const TAKE_LEASE: &str = "INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
         generation = leases.generation + CASE WHEN leases.holder = excluded.holder THEN 0 ELSE 1 END
     WHERE leases.holder = excluded.holder OR leases.expires_at <= ?4 OR leases.holder = ?5";
/// `(name)`, read by [`super::lease_row`]'s columns.
pub const LEASE: &str = "SELECT name, holder, expires_at, generation FROM leases WHERE name = ?1";
/// `(prefix, now)`: the leases running past `now` whose names begin with `prefix` (compared as
/// text, so `_` and `%` are plain characters).
pub const LIVE_LEASES: &str = "SELECT name, holder, expires_at, generation FROM leases
     WHERE substr(name, 1, length(?1)) = ?1 AND expires_at > ?2 ORDER BY name";
/// `(name, holder)`.
pub const RELEASE_LEASE: &str = "DELETE FROM leases WHERE name = ?1 AND holder = ?2";
// Tournaments.

/// `(tournament, round, board, leg, white, black, kind, game, result, reason)`.
pub const INSERT_PAIRING: &str =
    "INSERT INTO tournament_pairings (tournament_id, round, board, leg, white, black, kind, game_id, result,
         result_reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

/// `(tournament, player)`.
pub const IS_ENTRANT: &str =
    "SELECT COUNT(*) > 0 FROM tournament_players WHERE tournament_id = ?1 AND player_id = ?2";

/// `(tournament)`.
pub const ENTRANT_COUNT: &str = "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?1";

/// `(tournament, player, joined_at, first_round, seed_rating)`.
pub const INSERT_ENTRANT: &str =
    "INSERT INTO tournament_players (tournament_id, player_id, joined_at, first_round, seed_rating)
         VALUES (?1, ?2, ?3, ?4, ?5)";

/// `(tournament, player)`: only while the tournament is open.
pub const REMOVE_ENTRANT: &str = "DELETE FROM tournament_players WHERE tournament_id = ?1 AND player_id = ?2
         AND (SELECT status FROM tournaments WHERE id = ?1) = 'open'";

/// `(tournament)`: entrants with their names, in order of joining.
pub const ENTRANTS: &str =
    "SELECT tp.player_id, tp.joined_at, tp.first_round, tp.withdrawn_after, tp.withdraw_reason,
         tp.seed_rating, p.name
         FROM tournament_players tp JOIN players p ON p.id = tp.player_id
         WHERE tp.tournament_id = ?1 ORDER BY tp.joined_at, tp.player_id";

/// `(tournament, player, after_round, reason)`: only one not yet withdrawn.
pub const WITHDRAW_ENTRANT: &str = "UPDATE tournament_players SET withdrawn_after = ?3, withdraw_reason = ?4
         WHERE tournament_id = ?1 AND player_id = ?2 AND withdrawn_after IS NULL";

/// `(tournament, round, player)`: the player's pairings of the round whose games run on.
pub const UNFINISHED_PAIRINGS_OF: &str =
    "SELECT p.board, p.leg, p.white, p.black, p.game_id FROM tournament_pairings p
         JOIN games g ON g.id = p.game_id
         WHERE p.tournament_id = ?1 AND p.round = ?2 AND (p.white = ?3 OR p.black = ?3)
         AND p.result IS NULL AND g.result IS NULL";

/// `(tournament, player)`: withdrawn from it.
pub const IS_WITHDRAWN: &str = "SELECT COUNT(*) > 0 FROM tournament_players
         WHERE tournament_id = ?1 AND player_id = ?2 AND withdrawn_after IS NOT NULL";

/// `(game)`: its result and why.
pub const GAME_RESULT: &str = "SELECT result, result_reason FROM games WHERE id = ?1";

/// `(game, result, reason, now, forfeit, tournament)`: ends a tournament game or corrects its
/// result; a forfeit is not rated, a played result is as its tournament is.
pub const SET_GAME_RESULT: &str = "UPDATE games SET result = ?2, result_reason = ?3, draw_offer = NULL,
         takeback_offer = NULL, finished_at = COALESCE(finished_at, ?4),
         rated = CASE WHEN ?5 THEN FALSE ELSE (SELECT rated FROM tournaments WHERE id = ?6) END
         WHERE id = ?1";

/// `(tournament, status)`.
pub const SET_TOURNAMENT_STATUS: &str = "UPDATE tournaments SET status = ?2 WHERE id = ?1";

/// `(tournament, rounds)`.
pub const SET_TOURNAMENT_ROUNDS: &str = "UPDATE tournaments SET rounds = ?2 WHERE id = ?1";

/// `(tournament, player, rating)`.
pub const SET_SEED_RATING: &str =
    "UPDATE tournament_players SET seed_rating = ?3 WHERE tournament_id = ?1 AND player_id = ?2";

/// `(tournament, round, board, leg)`.
pub const PAIRING_EXISTS: &str =
    "SELECT COUNT(*) > 0 FROM tournament_pairings WHERE tournament_id = ?1 AND round = ?2 AND board = ?3
         AND leg = ?4";

/// `(tournament)`: every pairing, in order.
pub const PAIRINGS: &str =
    "SELECT round, board, leg, white, black, kind, game_id, result, result_reason FROM tournament_pairings
         WHERE tournament_id = ?1 ORDER BY round, board, leg";

/// `(tournament)`: its finished games.
pub const FINISHED_GAMES: &str =
    "SELECT g.id, g.result, g.result_reason, g.white, g.black FROM tournament_pairings p
         JOIN games g ON g.id = p.game_id WHERE p.tournament_id = ?1 AND g.result IS NOT NULL";

/// `(tournament, round)`.
pub const ROUND_LAST_MOVE: &str = "SELECT MAX(g.last_move_at) FROM tournament_pairings p
     JOIN games g ON g.id = p.game_id WHERE p.tournament_id = ?1 AND p.round = ?2 AND g.result IS NULL";

/// `(game)`.
pub const TOURNAMENT_OF_GAME: &str =
    "SELECT tournament_id, round FROM tournament_pairings WHERE game_id = ?1";

// The outbox ([`tessera_core::outbox`]).

/// `(platform, channel, kind, subject, round, body, notify, created_at, claimed_by, claimed_until)`.
pub const INSERT_NOTICE: &str = "INSERT INTO outbox (platform, channel, kind, subject, round, body, notify,
         created_at, claimed_by, claimed_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

/// `(holder)`: the unsent notices it holds, oldest first.
pub const HELD_NOTICES: &str = "SELECT id, platform, channel, kind, subject, round, body, notify, created_at
         FROM outbox WHERE claimed_by = ?1 AND sent_at IS NULL ORDER BY id";

/// `(notice, now)`: once.
pub const NOTICE_SENT: &str = "UPDATE outbox SET sent_at = ?2 WHERE id = ?1 AND sent_at IS NULL";

/// `(holder)`: the claims of a process known to be dead, given up.
pub const RELEASE_NOTICES: &str =
    "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?1 AND sent_at IS NULL";

/// `(notice, holder, until)`: only the holder's claim, on a notice not sent yet.
pub const RENEW_NOTICE: &str =
    "UPDATE outbox SET claimed_until = ?3 WHERE id = ?1 AND claimed_by = ?2 AND sent_at IS NULL";

/// `(platform)`.
pub const NOTICE_HOLDERS: &str = "SELECT DISTINCT claimed_by FROM outbox
         WHERE platform = ?1 AND sent_at IS NULL AND claimed_by IS NOT NULL";

/// `(platform, message)`.
pub const MARK_HANDLED: &str =
    "INSERT INTO handled_messages (platform, message_id, handled_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (platform, message_id) DO NOTHING";

/// `(platform, message)`.
pub const WAS_HANDLED: &str =
    "SELECT COUNT(*) > 0 FROM handled_messages WHERE platform = ?1 AND message_id = ?2";

// Conditional turns and vacations (issue 30).

/// `(game)`: the game's conditional lines, oldest first ([`crate::rows::conditional_line`]).
pub const CONDITIONAL_LINES: &str =
    "SELECT id, player_id, from_ply, turns FROM conditional_lines WHERE game_id = ?1 ORDER BY id";

/// `(game, player, from_ply, turns, created_at)`.
pub const INSERT_CONDITIONAL_LINE: &str = "INSERT INTO conditional_lines (game_id, player_id, from_ply, turns, created_at) VALUES (?1, ?2, ?3, ?4, ?5)";

/// `(line, game, player)`.
pub const DELETE_CONDITIONAL_LINE: &str =
    "DELETE FROM conditional_lines WHERE id = ?1 AND game_id = ?2 AND player_id = ?3";

/// `(line, from_ply, turns)`.
pub const SHORTEN_CONDITIONAL_LINE: &str =
    "UPDATE conditional_lines SET from_ply = ?2, turns = ?3 WHERE id = ?1";

/// `(game)`.
pub const DROP_CONDITIONAL_LINES: &str = "DELETE FROM conditional_lines WHERE game_id = ?1";

/// `(player, since)`: the player's vacations that end after `since`, by start.
pub const VACATIONS: &str = "SELECT player_id, started_at, ends_at FROM vacations WHERE player_id = ?1 AND ends_at > ?2 ORDER BY started_at";

/// `(player, at)`: when the vacation running at `at` ends.
pub const RUNNING_VACATION: &str =
    "SELECT ends_at FROM vacations WHERE player_id = ?1 AND started_at <= ?2 AND ends_at > ?2";

/// `(player, since)`: seconds of vacation begun since `since`.
pub const VACATION_USED: &str = "SELECT CAST(COALESCE(SUM(ends_at - started_at), 0) AS BIGINT) FROM vacations
         WHERE player_id = ?1 AND started_at >= ?2";

/// `(player, started_at, ends_at)`.
pub const INSERT_VACATION: &str =
    "INSERT INTO vacations (player_id, started_at, ends_at) VALUES (?1, ?2, ?3)";

/// `(player, now)`: ends the running vacation now.
pub const END_VACATION: &str =
    "UPDATE vacations SET ends_at = ?2 WHERE player_id = ?1 AND started_at <= ?2 AND ends_at > ?2";
// Issue 30: notes, spectators, the daily digest, the archive.

/// `(player, game)`.
pub const NOTE: &str = "SELECT text FROM game_notes WHERE player_id = ?1 AND game_id = ?2";
/// `(player, game, text, now)`.
pub const SET_NOTE: &str =
    "INSERT INTO game_notes (player_id, game_id, text, updated_at) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (player_id, game_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at";
/// `(player, game)`.
pub const CLEAR_NOTE: &str = "DELETE FROM game_notes WHERE player_id = ?1 AND game_id = ?2";
/// `(game, player)`: one row the first time.
pub const WATCH: &str = "INSERT INTO game_watchers (game_id, player_id) VALUES (?1, ?2) ON CONFLICT (game_id, player_id) DO NOTHING";
/// `(game, player)`.
pub const UNWATCH: &str = "DELETE FROM game_watchers WHERE game_id = ?1 AND player_id = ?2";
/// `(game)`.
pub const WATCHERS: &str = "SELECT player_id FROM game_watchers WHERE game_id = ?1 ORDER BY player_id";
/// `(day)`: the players with `digest on` not yet marked for the day.
pub const DIGESTS_DUE: &str =
    "SELECT s.player_id FROM player_settings s WHERE s.key = 'digest' AND s.value = 'on'
     AND NOT EXISTS (SELECT 1 FROM digests_sent d WHERE d.player_id = s.player_id AND d.day = ?1)
     ORDER BY s.player_id";
/// `(player, day)`: one row the first time.
pub const MARK_DIGEST: &str =
    "INSERT INTO digests_sent (player_id, day) VALUES (?1, ?2) ON CONFLICT (player_id, day) DO NOTHING";
/// `(player, opponent or NULL, variant or NULL, limit, offset)`: the ids of a player's finished
/// games, newest first. The casts give PostgreSQL the types of parameters that may be NULL.
pub const FINISHED_GAMES_OF: &str = "id IN (SELECT id FROM games WHERE result IS NOT NULL
     AND (white = ?1 OR black = ?1) AND (CAST(?2 AS BIGINT) IS NULL OR white = ?2 OR black = ?2)
     AND (CAST(?3 AS TEXT) IS NULL OR variant = ?3) ORDER BY id DESC LIMIT ?4 OFFSET ?5)";
/// A game's thread, recorded once (`?1` the game, `?2` the thread).
pub const SET_GAME_THREAD: &str = "UPDATE games SET thread = ?2 WHERE id = ?1 AND thread IS NULL";

// Pages on the web (issue 31).

/// `(token, kind, target, by, now)`: nothing when the target already has an address.
pub const PUBLISH: &str = "INSERT INTO publications (token, kind, target, created_by, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (kind, target) DO NOTHING";
/// `(kind, target)`.
pub const ADDRESS_OF: &str = "SELECT token FROM publications WHERE kind = ?1 AND target = ?2";
/// `(kind, target)`.
pub const UNPUBLISH: &str = "DELETE FROM publications WHERE kind = ?1 AND target = ?2";
/// `(token)`.
pub const PUBLICATION: &str = "SELECT kind, target FROM publications WHERE token = ?1";

// Analysis after the game (issue 32).

/// The columns an analysis is read by: game, requester, platform, channel, requested_at,
/// finished_at.
pub const ANALYSIS_COLUMNS: &str = "game_id, requester, platform, channel, requested_at, finished_at";
/// `(game)`.
pub const ANALYSIS: &str = "SELECT game_id, requester, platform, channel, requested_at, finished_at FROM analyses WHERE game_id = ?1";
/// The waiting analyses, oldest first.
pub const WAITING_ANALYSES: &str = "SELECT game_id, requester, platform, channel, requested_at, finished_at
     FROM analyses WHERE finished_at IS NULL ORDER BY requested_at, game_id";
/// `(requester)`: how many of theirs wait.
pub const WAITING_OF: &str = "SELECT COUNT(*) FROM analyses WHERE finished_at IS NULL AND requester = ?1";
/// How many wait in all.
pub const WAITING_COUNT: &str = "SELECT COUNT(*) FROM analyses WHERE finished_at IS NULL";
/// `(game, requester, platform, channel, now)`.
pub const ASK_ANALYSIS: &str =
    "INSERT INTO analyses (game_id, requester, platform, channel, requested_at) VALUES (?1, ?2, ?3, ?4, ?5)";
/// `(game, now)`: one row when it was waiting.
pub const FINISH_ANALYSIS: &str =
    "UPDATE analyses SET finished_at = ?2 WHERE game_id = ?1 AND finished_at IS NULL";
/// `(game, ply, eval, best, depth)`.
pub const INSERT_ANALYSIS_PLY: &str =
    "INSERT INTO analysis_plies (game_id, ply, eval, best, depth) VALUES (?1, ?2, ?3, ?4, ?5)";
/// `(game)`.
pub const ANALYSIS_PLIES: &str =
    "SELECT ply, eval, best, depth FROM analysis_plies WHERE game_id = ?1 ORDER BY ply";
