//! Play over days: the games waiting for a player (`!t waiting`, the daily digest, a direct
//! message on the opponent's move), private notes, spectators, and the archive of finished games.
//!
//! A private game is one against the bot itself (a practice game): the only kind that can be
//! played in a direct conversation, which holds the player and the bot alone. The core does not
//! see whether a channel is a direct conversation; every game between two people is played where
//! both are, in a server's channel or a room. Private games take no spectators, and their record
//! is shown elsewhere only to their player.

use super::listings::row_turn;
use super::*;
use crate::command_table::MAX_NOTE_CHARS;

/// Finished games on one page of `!t archive`.
const ARCHIVE_PAGE: usize = 10;

/// Games one list of games waiting shows (the rest are counted).
const WAITING_SHOWN: usize = 30;

impl<S: Store> Service<S> {
    /// The player's running games on their platform where it is their move, least time left
    /// first, games without a clock last (oldest first among equals).
    fn games_waiting(&self, player: &Player) -> Result<Vec<Loaded>, String> {
        let mut rows: Vec<GameRow> = self
            .store
            .player_games(player.id)
            .map_err(internal)?
            .into_iter()
            .filter(|r| r.platform == player.platform)
            .filter(|r| {
                row_turn(r).is_some_and(|turn| {
                    if turn == Color::White { r.white == player.id } else { r.black == player.id }
                })
            })
            .collect();
        rows.sort_by_key(|r| (self.deadline_of(r).unwrap_or(i64::MAX), r.id));
        // A game that cannot be rebuilt is left out here; `!t games mine` names it.
        Ok(rows
            .into_iter()
            .filter_map(|r| self.load(r).ok())
            .filter(|l| l.game.outcome().is_none())
            .collect())
    }

    /// One line per game waiting: its number, variant, opponent, time left and channel.
    fn waiting_lines(&self, games: &[Loaded], now: i64) -> Vec<String> {
        let mut lines: Vec<String> = games
            .iter()
            .take(WAITING_SHOWN)
            .map(|l| {
                let opponent = l.player(l.game.position().turn().other());
                let left = match l.deadline {
                    Some(at) if at > now => format!("{} left", time_left(at - now)),
                    Some(_) => "out of time".to_string(),
                    None => "no clock".to_string(),
                };
                format!(
                    "#{} {} against {}: {left}, in {}",
                    l.row.id,
                    l.variant(),
                    opponent.name,
                    channel_name(&l.row.platform, &l.row.channel)
                )
            })
            .collect();
        if games.len() > WAITING_SHOWN {
            lines.push(format!("… and {} more", games.len() - WAITING_SHOWN));
        }
        lines
    }

    /// `!t waiting`: every game of the author's on this platform where it is their move.
    pub(super) fn waiting(&self, msg: &Incoming) -> Replies {
        let me = self.me(msg)?;
        let games = self.games_waiting(&me)?;
        if games.is_empty() {
            return Ok(vec![Reply::text("No game is waiting for your move.")]);
        }
        let mut lines = vec![format!("Your move in {}, least time left first:", count(games.len(), "game"))];
        lines.extend(self.waiting_lines(&games, msg.now));
        // Posted as `!t games mine` is: channels elsewhere are named only as links.
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    /// The daily digest: each player who asked for it (`!t settings digest on`) gets, once a day
    /// (UTC; the first tick of the day), a direct message listing their games waiting. The mark
    /// "day D written" and the digest's notice are one transaction, so of two processes ticking
    /// at once one writes it. A day nothing waits is marked with no digest.
    pub(super) fn digest_tick(&self, now: i64, served: &dyn Fn(&str) -> bool) -> Result<()> {
        let day = now.div_euclid(DAY);
        for id in self.store.digests_due(day)? {
            let Some(player) = self.store.player_by_id(id)? else { continue };
            // Left for a process that runs the player's platform: it stays due until then.
            if !served(&player.platform) {
                continue;
            }
            let games = match self.games_waiting(&player) {
                Ok(games) => games,
                Err(e) => {
                    tracing::error!(player = id, "the digest's games could not be read: {e}");
                    continue;
                }
            };
            let notices: Vec<NewNotice> = match games.first() {
                Some(first) => {
                    let mut lines =
                        vec![format!("Your daily digest: your move in {}.", count(games.len(), "game"))];
                    lines.extend(self.waiting_lines(&games, now));
                    lines.push("(`!t settings digest off` stops these messages.)".into());
                    vec![NewNotice::direct(
                        &player.platform,
                        &first.row.channel,
                        &player.user_id,
                        lines.join("\n"),
                    )]
                }
                None => Vec::new(),
            };
            if let Err(e) = self.store.mark_digest(id, day, &notices) {
                tracing::error!(player = id, "the digest could not be written: {e:#}");
            }
        }
        Ok(())
    }

    /// Private words after a committed turn (`mover` played `played`; `after` is the game now):
    /// to the player to move, when they asked for a direct message on their opponent's move
    /// (`!t settings ping dm`), and to the game's spectators. Sent with the turn's answer, after
    /// the commit: not stored in the outbox, whose notices the move's transaction does not take.
    pub(super) fn turn_words(
        &self,
        after: &Loaded,
        mover: &Player,
        played: &str,
        now: i64,
    ) -> Vec<(String, String)> {
        let id = after.row.id;
        let mut words = Vec::new();
        let status = status_line(after, now);
        if after.game.outcome().is_none() {
            let next = after.player(after.game.position().turn());
            let is_bot = after.row.bot.is_some_and(|b| b.player == next.id);
            // After a conditional answer the mover is to move again, and is reading the reply.
            if !is_bot
                && next.id != mover.id
                && self.store.setting(next.id, "ping").ok().flatten().as_deref() == Some("dm")
            {
                words.push((
                    next.user_id.clone(),
                    format!(
                        "Your move in game #{id} ({}): {} played {played}; {status}. Play it in {}.",
                        after.variant(),
                        mover.name,
                        channel_name(&after.row.platform, &after.row.channel)
                    ),
                ));
            }
        }
        let watchers = self.store.watchers(id).unwrap_or_else(|e| {
            tracing::error!(game = id, "the game's spectators could not be read: {e:#}");
            Vec::new()
        });
        for watcher in watchers.into_iter().filter(|w| *w != after.white.id && *w != after.black.id) {
            if let Ok(Some(p)) = self.store.player_by_id(watcher) {
                words.push((
                    p.user_id,
                    format!(
                        "{}: {} played {played}; {status}. (`!t unwatch #{id}` stops these messages.)",
                        after.title(),
                        mover.name
                    ),
                ));
            }
        }
        words
    }

    /// A game of this platform by number, from any of its channels; without a number, the one
    /// the channel points to (as `!t board` finds it).
    pub(super) fn game_on_platform(&self, msg: &Incoming, id: GameRef) -> Result<Loaded, String> {
        let Some(id) = id else { return self.find(msg, None, true) };
        match self.store.game(id).map_err(internal)?.filter(|g| g.platform == msg.platform) {
            Some(row) => self.load(row),
            None => Err(format!("there is no game #{id}")),
        }
    }

    /// `!t note #12 [text|clear]`: the author's private note on a game of theirs.
    pub(super) fn note(&self, msg: &Incoming, id: GameRef, text: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.game_on_platform(msg, id)?;
        let game = loaded.row.id;
        if loaded.color_of(&me).is_none() {
            return Err(format!("notes are kept by a game's players, and you do not play in game #{game}"));
        }
        match text.map(str::trim) {
            None | Some("") => {
                let note = self.store.note(me.id, game).map_err(internal)?;
                let text = match note {
                    Some(note) => format!("Your note on game #{game}:\n{note}"),
                    None => format!(
                        "You have no note on game #{game}; write one like `!t note #{game} his knight wants d5`."
                    ),
                };
                // Only ever to its author: by direct message where a typed command cannot be
                // answered privately in place.
                Ok(vec![Reply { secret: true, private: true, ..Reply::text(text) }])
            }
            Some(clear) if clear.eq_ignore_ascii_case("clear") => {
                self.store.set_note(me.id, game, None, msg.now).map_err(internal)?;
                // The confirmations show nothing of the note.
                Ok(vec![Reply::text(format!("Your note on game #{game} is cleared."))])
            }
            Some(note) => {
                let chars = note.chars().count();
                if chars > MAX_NOTE_CHARS {
                    return Err(format!(
                        "a note holds at most {MAX_NOTE_CHARS} characters and this one has {chars}; nothing was saved"
                    ));
                }
                self.store.set_note(me.id, game, Some(note), msg.now).map_err(internal)?;
                Ok(vec![Reply::text(format!(
                    "Noted on game #{game}, for you alone: `!t note #{game}` shows it, `!t note #{game} clear` \
                     removes it."
                ))])
            }
        }
    }

    /// `!t watch #12` / `!t unwatch #12`: a direct message on every turn of a game, or no more.
    pub(super) fn watch(&self, msg: &Incoming, id: GameRef, on: bool) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.game_on_platform(msg, id)?;
        let game = loaded.row.id;
        if !on {
            let was = self.store.unwatch(game, me.id).map_err(internal)?;
            let text = if was {
                format!("You no longer watch game #{game}.")
            } else {
                format!("You were not watching game #{game}.")
            };
            return Ok(vec![Reply::text(text)]);
        }
        if loaded.row.bot.is_some() {
            return Err(format!(
                "game #{game} is a practice game against me, which is private: it takes no spectators"
            ));
        }
        if loaded.color_of(&me).is_some() {
            return Err(format!("you play in game #{game}: its moves reach you already"));
        }
        if loaded.game.outcome().is_some() {
            return Err(format!("game #{game} is over; `!t history #{game}` shows its record"));
        }
        let added = self.store.watch(game, me.id).map_err(internal)?;
        let text = if added {
            format!(
                "You watch game #{game} ({}): I will send you a direct message on every turn. \
                 `!t unwatch #{game}` stops them.",
                loaded.title()
            )
        } else {
            format!("You already watch game #{game}.")
        };
        Ok(vec![Reply::text(text)])
    }

    /// `!t archive [@name] [variant] [page N]`: finished games, newest first, a page at a time.
    pub(super) fn archive(&self, msg: &Incoming, variant: Option<Variant>, page: Option<u32>) -> Replies {
        let whose = match msg.mentions.first() {
            Some(u) => self.store.player(msg.platform, &u.id, &u.name).map_err(internal)?,
            None => self.me(msg)?,
        };
        let page = page.unwrap_or(1).max(1) as usize;
        // One more than a page: whether there is a next page.
        let rows = self
            .store
            .finished_games_of(
                whose.id,
                None,
                variant.map(|v| v.name()),
                (page - 1) * ARCHIVE_PAGE,
                ARCHIVE_PAGE + 1,
            )
            .map_err(internal)?;
        let of = variant.map_or(String::new(), |v| format!(" of {v}"));
        if rows.is_empty() {
            let text = if page == 1 {
                format!("{} has no finished games{of} yet.", whose.name)
            } else {
                format!("{} has no finished games{of} on page {page}.", whose.name)
            };
            return Ok(vec![Reply::text(text)]);
        }
        let more = rows.len() > ARCHIVE_PAGE;
        let which = variant.map_or(String::new(), |v| format!(" ({v})"));
        let mut lines = vec![format!("Finished games of {}{which}, newest first (page {page}):", whose.name)];
        for row in rows.iter().take(ARCHIVE_PAGE) {
            let opponent_id = if row.white == whose.id { row.black } else { row.white };
            let opponent = self
                .store
                .player_by_id(opponent_id)
                .map_err(internal)?
                .map_or_else(|| "?".into(), |p| p.name);
            let result = row.result.as_deref().unwrap_or("*");
            let own = match (result, row.white == whose.id) {
                ("1-0", true) | ("0-1", false) => "won",
                ("1-0", false) | ("0-1", true) => "lost",
                ("1/2-1/2", _) => "drawn",
                _ => "no result",
            };
            lines.push(format!(
                "#{} {} {} against {}: {own} ({result}), {}",
                row.id,
                pgn_date(row.created_at),
                row.variant,
                opponent,
                row.result_reason.as_deref().unwrap_or("played out")
            ));
        }
        if more {
            let mention = msg.mentions.first().map_or(String::new(), |_| " @name".to_string());
            let variant = variant.map_or(String::new(), |v| format!(" {}", v.name()));
            lines.push(format!("More: `!t archive{mention}{variant} page {}`", page + 1));
        }
        lines.push("A game's record: `!t history #N`.".into());
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    /// A finished game named by number and played in another channel of this platform, for its
    /// own player's `!t history`: `None` for anything else, which is found as `!t board` finds
    /// it. The core cannot see who is in which channel, so a record leaves its channel only for
    /// the people who played it.
    pub(super) fn own_finished_game(&self, msg: &Incoming, id: GameRef) -> Result<Option<Loaded>, String> {
        let Some(id) = id else { return Ok(None) };
        let Some(row) = self.store.game(id).map_err(internal)? else { return Ok(None) };
        if row.platform != msg.platform || row.channel == msg.channel || row.result.is_none() {
            return Ok(None);
        }
        let me = self.me(msg)?;
        if row.white != me.id && row.black != me.id {
            return Ok(None);
        }
        self.load(row).map(Some)
    }
}

/// "1 game", "3 games".
fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}
