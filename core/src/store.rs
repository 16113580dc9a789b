//! The ports the service stores through: players, challenges and games ([`Store`]), tournaments
//! ([`TournamentStore`]). A game is rebuilt by replaying its moves through the rules; nothing
//! derived is stored. The implementations (SQLite, PostgreSQL) live in the `tessera-store` crate
//! and pass one conformance suite (`bot/tests/store.rs`); the service sees only these traits.

use anyhow::Result;

use crate::model::*;
use crate::outbox::{NewNotice, OutboxRow};

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
    /// The text of the community variant definition stored under `key` with a game
    /// ([`NewGame::definition`], [`GameRow::variant_key`]).
    fn variant_definition(&self, key: &str) -> Result<Option<String>>;
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
        Ok(crate::process::local_ms())
    }
    /// Gives the lease up if `holder` holds it: the next process need not wait for it to expire.
    fn release_lease(&self, name: &str, holder: &str) -> Result<bool>;

    /// Stores `turns` as moves `before.len() + 1, ...` of the game, the last with `result` if it
    /// ended the game, on condition that the game runs and has exactly the moves `before` and that
    /// its conditional lines are exactly `lines.seen`; in the same transaction the lines in
    /// `lines.kept` are shortened and every other line of the game is dropped. Clears draw and
    /// takeback offers. A conditional answer is stored so, with the turn it answers: once.
    fn append_turns(
        &self,
        game: GameId,
        before: &[String],
        turns: &[&str],
        result: Option<(&str, &str)>,
        lines: &LinesAfter,
        now: i64,
    ) -> Result<Append>;
    /// The game's conditional lines, every player's, oldest first. Only the service reads them:
    /// each player is shown their own alone.
    fn conditional_lines(&self, game: GameId) -> Result<Vec<ConditionalLine>>;
    /// Adds `player`'s lines `add` (each the turns from now on) and drops their lines `drop`, if
    /// the game still runs with exactly the moves `before` and the game's lines are still exactly
    /// `seen`; false, changing nothing, otherwise.
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
    ) -> Result<bool>;

    /// The vacations of `players` that end after `since`, by start.
    fn vacations(&self, players: &[PlayerId], since: i64) -> Result<Vec<Vacation>>;
    /// Starts a vacation of `player` from `start` to `end` unless one runs at `start`, or those
    /// begun since `window_start` and this one would last longer than `allowance` seconds in all;
    /// `notices` (the opponents told) are stored with it.
    fn start_vacation(
        &self,
        player: PlayerId,
        start: i64,
        end: i64,
        window_start: i64,
        allowance: i64,
        notices: &[NewNotice],
    ) -> Result<VacationStart>;
    /// Ends `player`'s running vacation at `now`, with `notices`; false if none ran.
    fn end_vacation(&self, player: PlayerId, now: i64, notices: &[NewNotice]) -> Result<bool>;
    // Issue 30: notes, spectators, the daily digest, the archive.

    /// The player's private note on a game.
    fn note(&self, player: PlayerId, game: GameId) -> Result<Option<String>>;
    /// Replaces the player's note on a game (`None` clears it).
    fn set_note(&self, player: PlayerId, game: GameId, text: Option<&str>, now: i64) -> Result<()>;
    /// Adds a spectator to a game: false if they were watching it already.
    fn watch(&self, game: GameId, player: PlayerId) -> Result<bool>;
    /// Takes a spectator off a game: false if they were not watching it.
    fn unwatch(&self, game: GameId, player: PlayerId) -> Result<bool>;
    /// A game's spectators, in the order they came.
    fn watchers(&self, game: GameId) -> Result<Vec<PlayerId>>;
    /// The players who asked for the daily digest (their setting `digest` is `on`) and whose
    /// digest of `day` is not marked yet ([`Store::mark_digest`]).
    fn digests_due(&self, day: i64) -> Result<Vec<PlayerId>>;
    /// Marks `player`'s digest of `day` (days since the epoch) written, storing its `notices` with
    /// the mark in one transaction: true for the one caller that marked it.
    fn mark_digest(&self, player: PlayerId, day: i64, notices: &[NewNotice]) -> Result<bool>;
    /// A player's finished games, newest first, only those against `opponent` and of `variant`
    /// when given: `limit` of them after skipping `offset`.
    fn finished_games_of(
        &self,
        player: PlayerId,
        opponent: Option<PlayerId>,
        variant: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<GameRow>>;
    // Threads (issue 30).
    /// Records the game's thread (empty: making one failed), once: false, and nothing changed,
    /// when the game already has one (another process made it first) or does not exist.
    fn set_game_thread(&self, game: GameId, thread: &str) -> Result<bool>;
    /// The game whose thread on `platform` this is, finished or not.
    fn thread_game(&self, platform: &str, thread: &str) -> Result<Option<GameRow>>;
    // Pages on the web (issue 31).
    /// Publishes `what` at `token` unless it already has an address: the live address either way.
    fn publish(&self, what: Publication, token: &str, by: PlayerId, now: i64) -> Result<String>;
    /// Withdraws `what`'s address: false when it had none.
    fn unpublish(&self, what: Publication) -> Result<bool>;
    /// What a live address shows.
    fn publication(&self, token: &str) -> Result<Option<Publication>>;
    /// `what`'s live address.
    fn address_of(&self, what: Publication) -> Result<Option<String>>;
    // Analysis after the game (issue 32).
    /// Queues an analysis of `a.game` in one transaction with its checks: none exists for the
    /// game yet, the requester has fewer than `bounds.per_requester` waiting and the queue fewer
    /// than `bounds.overall`. The place is counted among the waiting, oldest first.
    fn ask_analysis(&self, a: &NewAnalysis, bounds: AnalysisBounds) -> Result<AnalysisAsked>;
    /// The game's analysis, waiting or done.
    fn analysis(&self, game: GameId) -> Result<Option<AnalysisRow>>;
    /// The analyses waiting (not done), oldest first.
    fn waiting_analyses(&self) -> Result<Vec<AnalysisRow>>;
    /// A done analysis's evaluations, by ply; empty while it waits.
    fn analysis_evals(&self, game: GameId) -> Result<Vec<crate::analysis::PlyEval>>;
    /// Stores the evaluations of a waiting analysis and marks it done, with `notices` (its
    /// answer), in one transaction: false, changing nothing, when it is not waiting (done by
    /// another process, or never asked).
    fn finish_analysis(
        &self,
        game: GameId,
        evals: &[crate::analysis::PlyEval],
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool>;
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
    /// The latest last move of the round's games still played: `None` when none is.
    fn round_last_move(&self, t: TournamentId, round: u32) -> Result<Option<i64>>;
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
    fn variant_definition(&self, key: &str) -> Result<Option<String>> {
        (**self).variant_definition(key)
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
    fn append_turns(
        &self,
        game: GameId,
        before: &[String],
        turns: &[&str],
        result: Option<(&str, &str)>,
        lines: &LinesAfter,
        now: i64,
    ) -> Result<Append> {
        (**self).append_turns(game, before, turns, result, lines, now)
    }
    fn conditional_lines(&self, game: GameId) -> Result<Vec<ConditionalLine>> {
        (**self).conditional_lines(game)
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
        (**self).change_conditional_lines(game, player, before, seen, add, drop, now)
    }
    fn vacations(&self, players: &[PlayerId], since: i64) -> Result<Vec<Vacation>> {
        (**self).vacations(players, since)
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
        (**self).start_vacation(player, start, end, window_start, allowance, notices)
    }
    fn end_vacation(&self, player: PlayerId, now: i64, notices: &[NewNotice]) -> Result<bool> {
        (**self).end_vacation(player, now, notices)
    }

    fn note(&self, player: PlayerId, game: GameId) -> Result<Option<String>> {
        (**self).note(player, game)
    }
    fn set_note(&self, player: PlayerId, game: GameId, text: Option<&str>, now: i64) -> Result<()> {
        (**self).set_note(player, game, text, now)
    }
    fn watch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        (**self).watch(game, player)
    }
    fn unwatch(&self, game: GameId, player: PlayerId) -> Result<bool> {
        (**self).unwatch(game, player)
    }
    fn watchers(&self, game: GameId) -> Result<Vec<PlayerId>> {
        (**self).watchers(game)
    }
    fn digests_due(&self, day: i64) -> Result<Vec<PlayerId>> {
        (**self).digests_due(day)
    }
    fn mark_digest(&self, player: PlayerId, day: i64, notices: &[NewNotice]) -> Result<bool> {
        (**self).mark_digest(player, day, notices)
    }
    fn finished_games_of(
        &self,
        player: PlayerId,
        opponent: Option<PlayerId>,
        variant: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<GameRow>> {
        (**self).finished_games_of(player, opponent, variant, offset, limit)
    }

    fn set_game_thread(&self, game: GameId, thread: &str) -> Result<bool> {
        (**self).set_game_thread(game, thread)
    }
    fn thread_game(&self, platform: &str, thread: &str) -> Result<Option<GameRow>> {
        (**self).thread_game(platform, thread)
    }
    fn publish(&self, what: Publication, token: &str, by: PlayerId, now: i64) -> Result<String> {
        (**self).publish(what, token, by, now)
    }
    fn unpublish(&self, what: Publication) -> Result<bool> {
        (**self).unpublish(what)
    }
    fn publication(&self, token: &str) -> Result<Option<Publication>> {
        (**self).publication(token)
    }
    fn address_of(&self, what: Publication) -> Result<Option<String>> {
        (**self).address_of(what)
    }
    fn ask_analysis(&self, a: &NewAnalysis, bounds: AnalysisBounds) -> Result<AnalysisAsked> {
        (**self).ask_analysis(a, bounds)
    }
    fn analysis(&self, game: GameId) -> Result<Option<AnalysisRow>> {
        (**self).analysis(game)
    }
    fn waiting_analyses(&self) -> Result<Vec<AnalysisRow>> {
        (**self).waiting_analyses()
    }
    fn analysis_evals(&self, game: GameId) -> Result<Vec<crate::analysis::PlyEval>> {
        (**self).analysis_evals(game)
    }
    fn finish_analysis(
        &self,
        game: GameId,
        evals: &[crate::analysis::PlyEval],
        now: i64,
        notices: &[NewNotice],
    ) -> Result<bool> {
        (**self).finish_analysis(game, evals, now, notices)
    }
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
    fn round_last_move(&self, t: TournamentId, round: u32) -> Result<Option<i64>> {
        (**self).round_last_move(t, round)
    }
}
