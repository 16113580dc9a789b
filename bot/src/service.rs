//! The game service: a chat message in, replies out. No network and no platform here; adapters
//! turn platform events into [`Incoming`] and send the [`Reply`]s back.
//!
//! Every move is committed to the store before it is acknowledged; every game is rebuilt from its
//! stored moves, so a restart loses nothing.

use anyhow::Result;
use tessera_render::{Caption, RenderOptions};
use tessera_rules::view::BoardView;
use tessera_rules::{
    Color, DrawReason, Game, Move, Outcome, Position, Role, Square, Variant, WinReason, notation,
};

use crate::commands::{self, ColorChoice, Command, GameRef, Offer, Parsed, Scope};
use crate::outbox::{NewNotice, NoticeKind};
use crate::store::{Append, BotOpponent, Challenge, GameId, GameRow, NewGame, Player, Store};
use crate::turn_list::{self, key_begins, long_begins_like, move_key};

#[path = "service_tournaments.rs"]
mod tournaments;

#[path = "service_outbox.rs"]
mod outbox_notices;
#[path = "service_practice.rs"]
mod practice_games;
pub use practice_games::PracticeMove;
use practice_games::think_time;

/// A person on a chat platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
}

impl User {
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> User {
        User { id: id.into(), name: name.into() }
    }
}

/// Seconds since the Unix epoch: the clock every adapter stamps [`Incoming::now`] with.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// One chat message addressed to the service.
#[derive(Clone, Debug)]
pub struct Incoming<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub author: &'a User,
    /// The platform says the author may administer this channel.
    pub is_admin: bool,
    pub text: &'a str,
    /// Users the message mentions, resolved by the adapter, in order.
    pub mentions: &'a [User],
    /// Seconds since the Unix epoch.
    pub now: i64,
}

/// What the bot says back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// A PNG of the board.
    pub image: Option<Vec<u8>>,
    /// A finished game as an animated GIF.
    pub animation: Option<Vec<u8>>,
    /// A text diagram of the board, for terminals.
    pub diagram: Option<String>,
    /// Only the author needs to see it (errors), where the platform can do that.
    pub private: bool,
    /// What the reply is about, for platforms that put buttons under it.
    pub actions: Option<Actions>,
    /// Platform user ids of the people the reply concerns who did not write the message (the
    /// player to move, the one challenged): platforms that can, notify them.
    pub notify: Vec<String>,
    /// Private messages to send besides, where the platform can: (platform user id, text).
    pub direct: Vec<(String, String)>,
    /// The stored notice this reply posts ([`crate::outbox`]): the adapter marks it sent
    /// ([`Service::notice_sent`]) once the platform took the reply.
    pub outbox: Option<i64>,
}

/// The one-click answers a reply invites. Platforms without buttons ignore them: the reply's text
/// already names the commands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Actions {
    /// An open challenge (its number): accept or decline; the challenger's decline withdraws it.
    Challenge(i64),
    /// A game in play: resign, offer a draw, flip the board.
    Game(i64),
    /// A turn in this game waits for its player's confirmation.
    Confirm(i64),
    /// A draw offer in this game waits for an answer.
    DrawOffer(i64),
    /// A takeback request in this game waits for an answer.
    TakebackOffer(i64),
    /// A tournament taking entries: join or leave.
    Tournament(i64),
}

/// One autocomplete suggestion: what the user sees, and what it fills in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub label: String,
    pub value: String,
}

impl Reply {
    fn text(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), ..Reply::default() }
    }

    fn error(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), private: true, ..Reply::default() }
    }

    fn notifying(mut self, player: &Player) -> Reply {
        self.notify.push(player.user_id.clone());
        self
    }

    /// The reply within [`MAX_REPLY_CHARS`]: a longer text keeps its first whole lines and says
    /// how many were left out.
    fn capped(mut self) -> Reply {
        if self.text.chars().count() <= MAX_REPLY_CHARS {
            return self;
        }
        let lines: Vec<&str> = self.text.lines().collect();
        let mut kept = String::new();
        let mut shown = 0;
        for line in &lines {
            if kept.chars().count() + line.chars().count() + 1 > MAX_REPLY_CHARS - 200 {
                break;
            }
            kept.push_str(line);
            kept.push('\n');
            shown += 1;
        }
        if shown == 0 {
            // One enormous line: cut inside it, at a character.
            kept = self.text.chars().take(MAX_REPLY_CHARS - 200).collect();
            kept.push_str("…\n");
        }
        let left = lines.len().saturating_sub(shown.max(1));
        kept.push_str(&format!(
            "… {left} more lines are not shown here; ask for a narrower answer (a game number, a round)."
        ));
        self.text = kept;
        self
    }
}

/// Longest reply text the bot sends at once (four Discord messages); longer answers are cut.
pub const MAX_REPLY_CHARS: usize = 8000;

/// A message the service sends on its own (reminders, losses on time, the practice opponent's
/// moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notice {
    pub platform: String,
    pub channel: String,
    pub text: String,
    /// Platform user ids of the players it concerns.
    pub notify: Vec<String>,
    /// The board after a move, as a [`Reply`] carries it.
    pub image: Option<Vec<u8>>,
    pub animation: Option<Vec<u8>>,
    pub diagram: Option<String>,
    pub actions: Option<Actions>,
    /// Private messages besides: (platform user id, text).
    pub direct: Vec<(String, String)>,
    /// The stored notice it is ([`crate::outbox`]): marked sent once posted.
    pub outbox: Option<i64>,
    /// The claim it is posted under ([`Service::may_post`]).
    pub claim_holder: Option<String>,
}

impl Notice {
    /// A reply to post in a game's channel though nobody wrote there.
    fn posting(platform: &str, channel: &str, reply: Reply) -> Notice {
        let Reply { text, image, animation, diagram, actions, notify, direct, outbox, .. } = reply.capped();
        Notice {
            platform: platform.into(),
            channel: channel.into(),
            text,
            notify,
            image,
            animation,
            diagram,
            actions,
            direct,
            outbox,
            claim_holder: None,
        }
    }

    /// The notice as the reply an adapter posts.
    pub fn into_reply(self) -> Reply {
        let Notice { text, notify, image, animation, diagram, actions, direct, outbox, .. } = self;
        Reply { text, notify, image, animation, diagram, actions, direct, outbox, ..Reply::default() }
    }
}

const DAY: i64 = 86_400;

/// An unanswered challenge lapses after a week.
const CHALLENGE_LIFE: i64 = 7 * DAY;
/// Open challenges one player may have in a channel, and a channel may have in all.
const MAX_OPEN_CHALLENGES_EACH: usize = 10;
const MAX_OPEN_CHALLENGES_CHANNEL: usize = 100;

pub struct Service<S: Store> {
    store: S,
    pub render: RenderOptions,
    /// Per-user limit on commands; chat mode sets one (the local terminal has a single typist).
    pub rate_limit: Option<crate::rate_limit::RateLimit>,
    /// Running games as of their last move, so a move replays nothing (the store stays the truth).
    games: crate::game_cache::GameCache,
    /// The bot's own user id on each platform, as the adapter learnt it: a challenge to it is a
    /// practice game (issue 16).
    accounts: std::sync::RwLock<std::collections::HashMap<String, String>>,
    /// Games where the bot is to move, for the practice worker ([`crate::practice`]).
    practice: crate::practice::Queue,
    /// Tournaments to move on (pair, finish), for the pairing worker.
    tournaments: crate::practice::Queue,
    /// Chat mode pairs rounds on a worker thread ([`crate::practice::Worker::pairing`]) and answers
    /// at once; the local mode and tests pair within the answer.
    pub pair_on_worker: bool,
    /// This process's name in the outbox's claims.
    holder: String,
    claims: std::sync::atomic::AtomicU64,
    /// Woken when notices wait to be posted.
    pub outbox_ready: std::sync::Arc<tokio::sync::Notify>,
}

impl<S: Store> std::fmt::Debug for Service<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Service")
    }
}

/// A stored game brought back to life.
struct Loaded {
    row: GameRow,
    game: Game,
    white: Player,
    black: Player,
}

impl Loaded {
    fn player(&self, color: Color) -> &Player {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn color_of(&self, player: &Player) -> Option<Color> {
        if player.id == self.white.id {
            Some(Color::White)
        } else if player.id == self.black.id {
            Some(Color::Black)
        } else {
            None
        }
    }

    fn variant(&self) -> Variant {
        self.game.position().variant()
    }

    fn title(&self) -> String {
        format!(
            "#{} {}: {} (white) vs {} (black)",
            self.row.id,
            self.variant(),
            self.white.name,
            self.black.name
        )
    }
}

/// Replies, or what to tell the author instead.
type Replies = Result<Vec<Reply>, String>;

impl<S: Store> Service<S> {
    pub fn new(store: S) -> Service<S> {
        Service {
            store,
            render: RenderOptions::default(),
            rate_limit: None,
            games: Default::default(),
            accounts: Default::default(),
            practice: Default::default(),
            tournaments: Default::default(),
            pair_on_worker: false,
            holder: crate::lease::new_holder(),
            claims: Default::default(),
            outbox_ready: Default::default(),
        }
    }

    /// Tells the service its own user id on `platform`: mentioning it challenges the bot itself.
    pub fn set_bot_account(&self, platform: &str, user_id: &str) {
        let mut accounts = self.accounts.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        accounts.insert(platform.to_string(), user_id.to_string());
    }

    /// Whether `user_id` is the bot's own account on `platform`.
    pub fn is_bot_account(&self, platform: &str, user_id: &str) -> bool {
        let accounts = self.accounts.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        accounts.get(platform).is_some_and(|id| id == user_id)
    }

    /// The games waiting for the bot's turn.
    pub fn practice_queue(&self) -> &crate::practice::Queue {
        &self.practice
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    /// Handles one message. Never panics on user input; a failure is a short private reply. A bug
    /// that panics anyway is caught here, logged once, and answered: one message's failure never
    /// takes down the others, and the player is never left without a word.
    pub fn handle(&self, msg: &Incoming) -> Vec<Reply> {
        guarded(|| self.handle_unguarded(msg)).into_iter().map(Reply::capped).collect()
    }

    fn handle_unguarded(&self, msg: &Incoming) -> Vec<Reply> {
        // The bot's own words (the local mode could type them) are never commands or moves: it
        // plays only through its worker.
        if self.is_bot_account(msg.platform, &msg.author.id) {
            return Vec::new();
        }
        let parsed = match commands::parse(msg.text) {
            Ok(p) => p,
            Err(e) => return vec![Reply::error(e.to_string())],
        };
        // Only what is meant for the bot counts: commands and texts that read as a move.
        let for_the_bot = match &parsed {
            Parsed::Command(_) => true,
            Parsed::Plain(text) => {
                text.len() <= commands::MAX_PLAIN_MOVE && {
                    let (_, move_text) = game_tag(text);
                    let bare = move_text.trim_end().strip_suffix(" !").unwrap_or(&move_text);
                    notation::parse(bare).is_ok() || looks_like_a_move(bare)
                }
            }
        };
        if for_the_bot && let Some(refused) = self.rate_limited(msg) {
            return refused;
        }
        let result = match parsed {
            Parsed::Command(cmd) => self.command(msg, cmd),
            Parsed::Plain(text) => self.plain(msg, &text),
        };
        result.unwrap_or_else(|e| vec![Reply::error(e)])
    }

    /// Runs a command the platform has already parsed (slash commands, buttons); `msg.text` is
    /// not read.
    pub fn run(&self, msg: &Incoming, cmd: Command) -> Vec<Reply> {
        guarded(|| {
            if let Some(refused) = self.rate_limited(msg) {
                return refused;
            }
            // Its text form, for the examples that repeat the command (`!t resign #12`).
            let text = command_text(&cmd);
            self.command(&Incoming { text: &text, ..msg.clone() }, cmd)
                .unwrap_or_else(|e| vec![Reply::error(e)])
        })
        .into_iter()
        .map(Reply::capped)
        .collect()
    }

    /// The answer to a user over the rate limit (once per flood; then nothing), or `None` to go on.
    fn rate_limited(&self, msg: &Incoming) -> Option<Vec<Reply>> {
        use crate::rate_limit::Verdict;
        match self.rate_limit.as_ref()?.check(msg.platform, &msg.author.id, msg.now) {
            Verdict::Answer => None,
            Verdict::SlowDown(seconds) => Some(vec![Reply::error(format!(
                "you are sending me commands faster than I answer them; I will listen again in {seconds} s \
                 (nothing was changed)"
            ))]),
            Verdict::Ignore => Some(Vec::new()),
        }
    }

    /// Text not addressed to the bot: a move if it reads as one and the author has a game here;
    /// anything else is people talking, and gets no reply.
    fn plain(&self, msg: &Incoming, text: &str) -> Replies {
        if text.is_empty() || text.len() > commands::MAX_PLAIN_MOVE {
            return Ok(Vec::new());
        }
        let (game, move_text) = game_tag(text);
        // `@@e4 !`: the turn, confirmed in advance.
        let bare = move_text.trim_end().strip_suffix(" !").unwrap_or(&move_text).to_string();
        let parsed = notation::parse(&bare);
        if parsed.is_err() && !looks_like_a_move(&bare) {
            return Ok(Vec::new());
        }
        let me = self.me(msg)?;
        let here = self.store.channel_games(msg.platform, msg.channel).map_err(internal)?;
        let games_here = here.len();
        let all_mine: Vec<GameRow> =
            here.into_iter().filter(|g| g.white == me.id || g.black == me.id).collect();
        let mine: Vec<GameRow> = all_mine.into_iter().filter(|g| game.is_none_or(|id| g.id == id)).collect();
        if mine.is_empty() {
            return Ok(Vec::new());
        }
        // Games here where the author has the move, each with its position.
        let to_move: Vec<Loaded> = mine
            .iter()
            .filter_map(|row| self.load(row.clone()).ok())
            .filter(|l| l.game.outcome().is_none() && l.color_of(&me) == Some(l.game.position().turn()))
            .collect();
        let parsed = match parsed {
            Ok(p) => p,
            // Almost a move, from a player who has the move: a hint rather than silence.
            Err(e) if !to_move.is_empty() => {
                // The forms of the game's variant, when every game waiting for this player has one.
                let variant = to_move[0].game.position().variant();
                let same = to_move.iter().all(|l| l.game.position().variant() == variant);
                return Err(near_miss_hint(&bare, &e, same.then_some(variant)));
            }
            Err(_) => return Ok(Vec::new()),
        };
        if game.is_none() && mine.len() > 1 && to_move.is_empty() {
            let list: Vec<String> = mine.iter().map(|g| format!("#{}", g.id)).collect();
            return Err(format!("it is not your move in any of your games here ({})", list.join(", ")));
        }
        // With several games here, a move that fits only one of them goes to that one.
        let game = game.or_else(|| {
            match to_move.iter().filter(|l| parsed.resolve(l.game.position()).is_ok()).collect::<Vec<_>>()[..]
            {
                [only] if mine.len() > 1 => Some(only.row.id),
                _ => None,
            }
        });
        // The game is already loaded where the author has the move in it; anything else (not
        // their turn, no game or several) is answered as `!t move` would answer it.
        let target = game.or_else(|| (mine.len() == 1).then(|| mine[0].id));
        match to_move.into_iter().find(|l| Some(l.row.id) == target) {
            Some(loaded) => self.play_turn(msg, &me, loaded, &move_text, Some(parsed), Some(games_here)),
            None => self.make_move_as(msg, game, &move_text, &move_text),
        }
    }

    fn command(&self, msg: &Incoming, cmd: Command) -> Replies {
        match cmd {
            Command::Help => Ok(vec![Reply::text(crate::command_table::help())]),
            Command::Variants => Ok(vec![Reply::text(variants_text())]),
            Command::Rules(v) => {
                // With a picture of the start, its features drawn (holes, quads, hands, tiles).
                let image =
                    tessera_render::render_png(&BoardView::new(&Position::start(v), None), &self.render).ok();
                Ok(vec![Reply { image, ..Reply::text(v.help()) }])
            }
            Command::Challenge { variant, color, days, rated, level } => {
                self.challenge(msg, variant, color, days, rated, level)
            }
            Command::Rematch(opponent) => self.rematch(msg, opponent),
            Command::Accept(id) => self.accept(msg, id),
            Command::Decline(id) => self.close_challenge(msg, id, false),
            Command::Cancel(id) => self.close_challenge(msg, id, true),
            Command::Move { game, text } => self.make_move_as(msg, game, &text, &format!("!t move {text}")),
            Command::Board { game, flip } => self.board(msg, game, flip),
            Command::Moves { game, start } => self.legal_moves(msg, game, start.as_deref()),
            Command::Confirm(game) => self.confirm(msg, game),
            Command::Settings(change) => self.settings(msg, change.as_deref()),
            Command::Channel(change) => self.channel_settings(msg, change.as_deref()),
            Command::Resign(game) => self.resign(msg, game),
            Command::Draw(offer, game) => self.draw(msg, offer, game),
            Command::Claim(game) => self.claim(msg, game),
            Command::Takeback(offer, game) => self.takeback(msg, offer, game),
            Command::Games(scope) => self.games(msg, scope),
            Command::History(game) => self.history(msg, game),
            Command::Tournament(t) => self.tournament_command(msg, t),
            Command::Rating(variant) => self.rating(msg, variant),
            Command::Leaderboard(variant) => self.leaderboard(msg, variant),
            Command::Profile => self.profile(msg),
        }
    }

    fn me(&self, msg: &Incoming) -> Result<Player, String> {
        self.store.player(msg.platform, &msg.author.id, &msg.author.name).map_err(internal)
    }

    fn load(&self, row: GameRow) -> Result<Loaded, String> {
        let variant: Variant = row.variant.parse().map_err(|_| corrupt(&row, "unknown variant"))?;
        let (mut game, cached) = match self.games.get(row.id, &row.start_fen, &row.moves) {
            Some(hit) => hit,
            None => {
                let start = Position::from_fen(variant, &row.start_fen)
                    .map_err(|_| corrupt(&row, "bad start position"))?;
                (Game::new(start), 0)
            }
        };
        for (i, text) in row.moves.iter().enumerate().skip(cached) {
            game.play_text(text).map_err(|e| corrupt(&row, &format!("move {} ({text}): {e}", i + 1)))?;
        }
        if cached < row.moves.len() {
            self.games.put(row.id, &row.start_fen, &row.moves, &game);
        }
        if let Some(result) = &row.result {
            let reason = row.result_reason.as_deref().unwrap_or("");
            if game.outcome().is_none() {
                game.declare(declared_outcome(result, reason));
            }
        }
        let white =
            self.store.player_by_id(row.white).map_err(internal)?.ok_or_else(|| corrupt(&row, "no white"))?;
        let black =
            self.store.player_by_id(row.black).map_err(internal)?.ok_or_else(|| corrupt(&row, "no black"))?;
        Ok(Loaded { row, game, white, black })
    }

    /// The game a command is about: the one named, or the author's only game in this channel,
    /// or (for looking only) the channel's only game.
    fn find(&self, msg: &Incoming, id: GameRef, looking: bool) -> Result<Loaded, String> {
        self.find_as(msg, id, looking, &sent_command(msg.text))
    }

    /// As [`Self::find`]; when the author has several games here, the example of naming one is
    /// `usage #N`.
    fn find_as(&self, msg: &Incoming, id: GameRef, looking: bool, usage: &str) -> Result<Loaded, String> {
        if let Some(id) = id {
            let row = self.store.game(id).map_err(internal)?.filter(|g| g.platform == msg.platform);
            let Some(row) = row else { return Err(format!("there is no game #{id}")) };
            // A game is shown and played only in its own channel (a server's games stay there).
            if row.channel != msg.channel {
                return Err(format!(
                    "game #{id} is played in {}; look at it or move there",
                    channel_name(&row.platform, &row.channel)
                ));
            }
            return self.load(row);
        }
        let me = self.me(msg)?;
        let here = self.store.channel_games(msg.platform, msg.channel).map_err(internal)?;
        let mine: Vec<&GameRow> = here.iter().filter(|g| g.white == me.id || g.black == me.id).collect();
        let pick = match (mine.as_slice(), looking) {
            ([one], _) => Some((*one).clone()),
            ([], true) if here.len() == 1 => Some(here[0].clone()),
            // Looking back at a game that just ended.
            ([], true) if here.is_empty() => {
                self.store.last_channel_game(msg.platform, msg.channel).map_err(internal)?
            }
            ([], _) => None,
            (many, _) => {
                let list: Vec<String> = many.iter().map(|g| format!("#{} ({})", g.id, g.variant)).collect();
                return Err(format!(
                    "you have {} games in this channel: {}. Add the number, like `{usage} #{}`",
                    many.len(),
                    list.join(", "),
                    many[0].id
                ));
            }
        };
        match pick {
            Some(row) => self.load(row),
            None => {
                Err("you have no game running in this channel; start one with `!t challenge @someone`".into())
            }
        }
    }

    fn challenge(
        &self,
        msg: &Incoming,
        variant: Variant,
        color: ColorChoice,
        days: Option<u32>,
        rated: bool,
        level: Option<u8>,
    ) -> Replies {
        let Some(opponent) = msg.mentions.first() else {
            return Err(format!("name your opponent, like `!t challenge @alice {variant}`"));
        };
        if opponent.id == msg.author.id {
            return Err("you cannot challenge yourself; name someone else".into());
        }
        if self.is_bot_account(msg.platform, &opponent.id) {
            return self.practice_start(msg, opponent, variant, color, days, rated, level);
        }
        if level.is_some() {
            return Err(format!(
                "{} plays at their own level: `level` is only for a game against me (mention me as the \
                 opponent); leave it out to challenge {}",
                opponent.name, opponent.name
            ));
        }
        let me = self.me(msg)?;
        let them = self.store.player(msg.platform, &opponent.id, &opponent.name).map_err(internal)?;
        // Open challenges are bounded per player here and per channel (they lapse after a week).
        let open = self
            .store
            .open_challenges_since(msg.platform, msg.channel, msg.now - CHALLENGE_LIFE)
            .map_err(internal)?;
        if open.iter().filter(|c| c.challenger == me.id).count() >= MAX_OPEN_CHALLENGES_EACH {
            return Err(format!(
                "you have {MAX_OPEN_CHALLENGES_EACH} open challenges here; withdraw one with `!t cancel` first"
            ));
        }
        if open.len() >= MAX_OPEN_CHALLENGES_CHANNEL {
            return Err("this channel has too many open challenges; try again when some are answered".into());
        }
        let id = self
            .store
            .create_challenge(&Challenge {
                id: 0,
                platform: msg.platform.into(),
                channel: msg.channel.into(),
                challenger: me.id,
                challenged: them.id,
                variant: variant.name().into(),
                color: color.name().into(),
                days_per_move: days,
                created_at: msg.now,
                rated,
            })
            .map_err(internal)?;
        let clock = days
            .map_or("no clock".to_string(), |d| format!("{d} day{} per move", if d == 1 { "" } else { "s" }));
        let side = match color {
            ColorChoice::Random => "colours drawn at random".to_string(),
            c => format!("{} plays {}", me.name, c.name()),
        };
        let kind = if rated { "rated " } else { "" };
        let mut reply = Reply::text(format!(
            "{} challenges {} to {kind}{variant} ({side}, {clock}). {}: `!t accept` or `!t decline`. (challenge {id})",
            me.name, them.name, them.name
        ));
        reply.actions = Some(Actions::Challenge(id));
        Ok(vec![reply.notifying(&them)])
    }

    /// The author's recent games on this platform with the opponent of each, newest first.
    fn recent_opponents(&self, msg: &Incoming, me: &Player) -> Result<Vec<(GameRow, Player)>, String> {
        let mut out = Vec::new();
        for row in self.store.recent_games(me.id, 100).map_err(internal)? {
            if row.platform != msg.platform {
                continue;
            }
            let other = if row.white == me.id { row.black } else { row.white };
            if let Some(p) = self.store.player_by_id(other).map_err(internal)? {
                out.push((row, p));
            }
        }
        Ok(out)
    }

    fn rematch(&self, msg: &Incoming, opponent: Option<String>) -> Replies {
        let me = self.me(msg)?;
        let wanted = opponent.or_else(|| msg.mentions.first().map(|u| u.id.clone()));
        let recent = self.recent_opponents(msg, &me)?;
        // The latest game with them, this channel's before others.
        let pick = recent
            .into_iter()
            .filter(|(_, p)| wanted.as_ref().is_none_or(|w| &p.user_id == w))
            .min_by_key(|(g, _)| (g.channel != msg.channel, -g.id));
        let Some((game, them)) = pick else {
            return Err(match wanted {
                Some(_) => "you have not played them yet; challenge them with `!t challenge @name`".into(),
                None => {
                    "you have no earlier game to rematch; challenge someone with `!t challenge @name`".into()
                }
            });
        };
        let variant: Variant = game.variant.parse().map_err(|_| corrupt(&game, "unknown variant"))?;
        let color = if game.white == me.id { ColorChoice::Black } else { ColorChoice::White };
        let opponent = [User::new(them.user_id, them.name)];
        self.challenge(
            &Incoming { mentions: &opponent, ..msg.clone() },
            variant,
            color,
            game.days_per_move,
            game.rated,
            game.bot.map(|b| b.level),
        )
    }

    fn pick_challenge(
        &self,
        msg: &Incoming,
        me: &Player,
        id: GameRef,
        mine: bool,
    ) -> Result<Challenge, String> {
        let open = self.store.open_challenges(msg.platform, msg.channel, me.id).map_err(internal)?;
        let relevant: Vec<Challenge> = open
            .into_iter()
            .filter(|c| c.created_at > msg.now - CHALLENGE_LIFE)
            .collect::<Vec<_>>()
            .into_iter()
            .filter(|c| if mine { c.challenger == me.id } else { c.challenged == me.id })
            .collect();
        match id {
            Some(id) => relevant.into_iter().find(|c| c.id == id).ok_or_else(|| {
                if mine {
                    format!("you have no open challenge {id} here; only the challenger can withdraw one")
                } else {
                    format!(
                        "there is no open challenge {id} for you here; only the one challenged can answer it"
                    )
                }
            }),
            None => match relevant.len() {
                0 if mine => Err("you have no open challenge here".into()),
                0 => {
                    Err("nobody has challenged you here; challenge someone with `!t challenge @name`".into())
                }
                _ => Ok(relevant.into_iter().next_back().expect("one at least")),
            },
        }
    }

    fn accept(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        let c = self.pick_challenge(msg, &me, id, false)?;
        let challenger_white = match c.color.as_str() {
            "white" => true,
            "black" => false,
            // Random, from the clock and the ids: no extra dependency, fair enough for colours.
            _ => (msg.now ^ c.id ^ c.challenger).rem_euclid(2) == 0,
        };
        let (white, black) =
            if challenger_white { (c.challenger, c.challenged) } else { (c.challenged, c.challenger) };
        let variant: Variant =
            c.variant.parse().map_err(|_| "that challenge names an unknown variant".to_string())?;
        let start = Position::start(variant);
        // The challenge closes and the game begins in one transaction: never one without the other.
        let game = NewGame {
            platform: msg.platform,
            channel: msg.channel,
            variant: variant.name(),
            start_fen: &start.fen(),
            white,
            black,
            days_per_move: c.days_per_move,
            rated: c.rated,
            now: msg.now,
            bot: None,
        };
        let names = |id| {
            self.store.player_by_id(id).map_err(internal)?.ok_or_else(|| "a player has vanished".to_string())
        };
        let (white_player, black_player) = (names(white)?, names(black)?);
        let to_move = if start.turn() == Color::White { &white_player } else { &black_player };
        let mut clock = c.days_per_move.map_or(String::new(), |d| format!(", {d} days per move"));
        if c.rated {
            clock.push_str(", rated");
        }
        // The game's start is announced from the outbox, stored with the game: `{game}` is its
        // number, the board is drawn when it is posted.
        let text = format!(
            "Game #{{game}} begins: {variant}, {} (white) vs {} (black){clock}. {}, you have the move ({}).",
            white_player.name,
            black_player.name,
            to_move.name,
            start.turn()
        );
        let notify = if to_move.id != me.id { vec![to_move.user_id.clone()] } else { Vec::new() };
        let claim = self.new_claim();
        let notice =
            NewNotice { kind: NoticeKind::Game, ..NewNotice::text(msg.platform, msg.channel, text, notify) }
                .claimed(Some(&claim));
        if self.store.accept_challenge(c.id, &game, &[notice]).map_err(internal)?.is_none() {
            return Err("that challenge was just withdrawn or taken up".into());
        }
        Ok(self.held_replies(&claim))
    }

    fn close_challenge(&self, msg: &Incoming, id: GameRef, mine: bool) -> Replies {
        let me = self.me(msg)?;
        let (c, mine) = match self.pick_challenge(msg, &me, id, mine) {
            Ok(c) => (c, mine),
            // One Decline button serves both: from the challenger it withdraws the challenge.
            Err(e) if !mine && id.is_some() => {
                (self.pick_challenge(msg, &me, id, true).map_err(|_| e)?, true)
            }
            Err(e) => return Err(e),
        };
        let status = if mine { "cancelled" } else { "declined" };
        if !self.store.close_challenge(c.id, status).map_err(internal)? {
            return Err("that challenge is no longer open".into());
        }
        let other = if mine { c.challenged } else { c.challenger };
        let mut reply = Reply::text(format!("Challenge {} {status}.", c.id));
        if let Some(p) = self.store.player_by_id(other).map_err(internal)? {
            reply = reply.notifying(&p);
        }
        Ok(vec![reply])
    }

    /// Ends a game whose mover ran out of time, storing the notice that says so (posted with the
    /// final board and the game's GIF; both players are named to notify). `Some` if this call
    /// ended it: with `answer`, the notice as replies, held for the caller to post.
    fn settle_clock(&self, loaded: &Loaded, now: i64, answer: bool) -> Result<Option<Vec<Reply>>, String> {
        let Some(days) = loaded.row.days_per_move else { return Ok(None) };
        if loaded.row.result.is_some() || now < loaded.row.last_move_at + days as i64 * DAY {
            return Ok(None);
        }
        let loser = loaded.game.position().turn();
        let outcome = Outcome::Win { winner: loser.other(), reason: WinReason::Time };
        let text = format!(
            "Game #{}: {} ran out of time. {} ({}).",
            loaded.row.id,
            loaded.player(loser).name,
            outcome,
            outcome.result()
        );
        let notify = vec![loaded.player(loser).user_id.clone(), loaded.player(loser.other()).user_id.clone()];
        let claim = answer.then(|| self.new_claim());
        // The loss on time and the notice saying so, in one transaction: the final board and the
        // GIF are drawn when it is posted.
        let notice = NewNotice {
            kind: NoticeKind::Game,
            subject: Some(loaded.row.id),
            ..NewNotice::text(&loaded.row.platform, &loaded.row.channel, text, notify)
        }
        .claimed(claim.as_ref());
        if !self
            .store
            .time_out(loaded.row.id, loaded.row.last_move_at, outcome.result(), now, &[notice])
            .map_err(internal)?
        {
            // Someone else settled it a moment ago and said so, or a move came in meanwhile.
            return Ok(None);
        }
        self.games.forget(loaded.row.id);
        Ok(Some(claim.map(|c| self.held_replies(&c)).unwrap_or_default()))
    }

    /// Plays `text` in the author's game; `usage` is how they wrote it, for an example that
    /// names the game (`e5 #12`, `!t move e5 #12`).
    fn make_move_as(&self, msg: &Incoming, id: GameRef, text: &str, usage: &str) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find_as(msg, id, false, usage)?;
        self.play_turn(msg, &me, loaded, text, None, None)
    }

    /// Plays `text` in a loaded game for `me`: checks, commits, answers with the board. Everything
    /// is worked out once: the game is not read back after the commit but carried forward.
    /// `parsed` (the text read, if it was already) and `games_here` (how many games run in this
    /// channel) are passed where already known.
    fn play_turn(
        &self,
        msg: &Incoming,
        me: &Player,
        loaded: Loaded,
        text: &str,
        parsed: Option<notation::ParsedMove>,
        games_here: Option<usize>,
    ) -> Replies {
        if let Some(mut replies) = self.settle_clock(&loaded, msg.now, true)? {
            replies.iter_mut().for_each(|r| r.notify.retain(|id| id != &msg.author.id));
            self.tournament_after_game(&mut replies, loaded.row.id, msg.now);
            return Ok(replies);
        }
        let Some(my_color) = loaded.color_of(me) else {
            return Err(format!("you are not playing in game #{}", loaded.row.id));
        };
        if let Some(outcome) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {outcome} ({})", loaded.row.id, outcome.result()));
        }
        let pos = loaded.game.position().clone();
        if pos.turn() != my_color {
            return Err(format!(
                "it is {}'s turn ({}), not yours",
                loaded.player(pos.turn()).name,
                pos.turn()
            ));
        }
        // A separate `!` at the end: the player confirms the turn in advance.
        let (text, confirmed) = match text.trim_end().strip_suffix(" !") {
            Some(t) => (t.trim_end(), true),
            None => (text, false),
        };
        let parsed = match parsed {
            Some(parsed) => parsed,
            None => notation::parse(text).map_err(|e| e.in_variant(pos.variant()))?,
        };
        let mv = parsed.resolve(&pos).map_err(|e| e.to_string())?;
        let mut game = loaded.game.clone();
        game.play(mv).map_err(|e| e.to_string())?;
        let ply = loaded.row.moves.len() + 1;
        if !confirmed
            && self.setting_for(me, msg.platform, msg.channel, &SETTINGS[0]) != "off"
            && let Some(danger) = turn_danger(&pos, &mv)
        {
            let id = loaded.row.id;
            self.store.set_pending_turn(me.id, id, Some((ply - 1, text))).map_err(internal)?;
            return Ok(vec![Reply {
                text: format!(
                    "Not played yet: {danger}. To play {} anyway: `!t confirm` (or send it again with ` !` at the \
                     end); `!t settings confirm off` stops these questions.",
                    notation::san(&pos, &mv)
                ),
                private: true,
                actions: Some(Actions::Confirm(id)),
                ..Reply::default()
            }]);
        }
        let id = loaded.row.id;
        match self.commit_turn(
            msg,
            me,
            loaded,
            game,
            &pos,
            &mv,
            Some(&parsed.shrink_promotions),
            games_here,
        )? {
            Some(replies) => Ok(replies),
            None => {
                let now = self.find(msg, Some(id), true)?;
                let mut r = self.board_reply(&now, None, false, msg.now);
                r.text = format!(
                    "The position changed before your move arrived; {}. Here is the board now.",
                    status_line(&now, msg.now)
                );
                Ok(vec![r])
            }
        }
    }

    /// Commits `mv`, which turns `pos` into `game`, as `me`'s turn in `loaded`, and answers with
    /// the board: the one path of a person's move and the practice opponent's. `None`, with
    /// nothing changed, when the game moved on or ended since `loaded` was read. `named`: the
    /// promotions the player wrote (a Shrink note names the ones they did not), `None` for the bot.
    #[allow(clippy::too_many_arguments)]
    fn commit_turn(
        &self,
        msg: &Incoming,
        me: &Player,
        loaded: Loaded,
        game: Game,
        pos: &Position,
        mv: &Move,
        named: Option<&[(Square, Role)]>,
        games_here: Option<usize>,
    ) -> Result<Option<Vec<Reply>>, String> {
        // Only the player to move moves: callers have checked that `me` is that player.
        let my_color = pos.turn();
        let (san_unmarked, stored_text) = notation::san_and_lan_unmarked(pos, mv);
        let outcome = game.outcome();
        let result = outcome.map(|o| (o.result(), reason_word(o)));
        // On exactly the moves the mover saw: a takeback and another move since (the bot's search
        // takes seconds) leave as many moves but another position.
        let appended =
            self.store.append_move_after(loaded.row.id, &loaded.row.moves, &stored_text, result, msg.now);
        match appended.map_err(internal)? {
            Append::Stored => {}
            Append::Conflict => return Ok(None),
        }
        // Committed: now it may be acknowledged. The stored row now reads as `after`'s.
        let after = {
            let Loaded { mut row, white, black, .. } = loaded;
            row.moves.push(stored_text);
            row.last_move_at = msg.now;
            row.reminded = false;
            (row.draw_offer, row.takeback_offer) = (None, None);
            (row.result, row.result_reason) = result.map(|(r, why)| (r.to_string(), why.to_string())).unzip();
            match outcome {
                Some(_) => self.games.forget(row.id),
                None => self.games.put(row.id, &row.start_fen, &row.moves, &game),
            }
            Loaded { row, game, white, black }
        };
        let id = after.row.id;
        let mark = match outcome {
            Some(Outcome::Win { reason: WinReason::Checkmate, .. }) => "#",
            _ if after.game.position().is_check() => "+",
            _ => "",
        };
        let mut text = format!("{} played {san_unmarked}{mark}.", me.name);
        // With several games in the channel, say which one it went to: the players and everyone
        // reading tell them apart (the bot's moves, posted unasked, most of all).
        let games_here = match games_here {
            Some(n) => n,
            None => {
                self.store.channel_games(msg.platform, msg.channel).map_err(internal)?.len()
                    + usize::from(outcome.is_some())
            }
        };
        if games_here > 1 {
            text = format!("Game #{id}: {text}");
        }
        text.push_str(&shrink_note(pos, mv, after.game.position()));
        if let Some(named) = named {
            text.push_str(&shrink_promotion_note(pos, mv, named));
        }
        match outcome {
            Some(o) => text.push_str(&format!(" {o} ({}).", o.result())),
            None => {
                let next = after.game.position().turn();
                match after.row.bot.filter(|b| b.player == after.player(next).id) {
                    Some(b) => text.push_str(&format!(
                        " {} is thinking (level {}, {} at most).",
                        after.player(next).name,
                        b.level,
                        think_time(b.level)
                    )),
                    None => {
                        text.push_str(&format!(" {}, your move ({next}).", after.player(next).name));
                        // A draw is claimed by the player to move; the bot does not claim.
                        if let Some(reason) = after.game.claimable_draw() {
                            text.push_str(&format!(
                                " You may claim a draw ({}): `!t claim`.",
                                draw_name(reason)
                            ));
                        }
                    }
                }
            }
        }
        let mut reply = self.board_reply(&after, Some((pos, mv)), false, msg.now);
        reply.text = text;
        let other = after.player(my_color.other());
        // The bot needs no ping to move: its worker is told below.
        if after.row.bot.is_none_or(|b| b.player != other.id) {
            reply = reply.notifying(other);
        }
        let mut replies = vec![reply];
        if outcome.is_some() {
            self.after_game(&mut replies, id, msg.now);
        } else if after.row.bot.is_some_and(|b| b.player != me.id) {
            // Committed and acknowledged: the bot's answer is the worker's, off this thread.
            self.practice.push(id);
        }
        Ok(Some(replies))
    }

    /// The board as the player to move prefers to see it (`!t settings board`).
    fn board_reply(
        &self,
        loaded: &Loaded,
        last: Option<(&Position, &tessera_rules::Move)>,
        flip: bool,
        now: i64,
    ) -> Reply {
        self.board_reply_for(loaded, last, flip, None, now)
    }

    /// The board as `viewer` (else the player to move) prefers to see it: from their own side,
    /// from the side to move (the default), or always from White; `flip` turns it round.
    fn board_reply_for(
        &self,
        loaded: &Loaded,
        last: Option<(&Position, &tessera_rules::Move)>,
        flip: bool,
        viewer: Option<&Player>,
        now: i64,
    ) -> Reply {
        let pos = loaded.game.position();
        let view = match last {
            Some(l) => BoardView::new(pos, Some(l)),
            None => self.last_move_view(loaded),
        };
        // A practice game is always seen as its person sees it: never from the bot's side while
        // it thinks.
        let person = loaded.row.bot.and_then(|b| {
            [Color::White, Color::Black].into_iter().find(|&c| loaded.player(c).id != b.player)
        });
        let who = match person {
            Some(c) => loaded.player(c),
            None => viewer.unwrap_or_else(|| loaded.player(pos.turn())),
        };
        let (platform, channel) = (&loaded.row.platform, &loaded.row.channel);
        let side = match (self.setting_for(who, platform, channel, &SETTINGS[1]).as_str(), person) {
            ("white", _) => Color::White,
            (_, Some(c)) => c,
            ("mine", None) => loaded.color_of(who).unwrap_or(pos.turn()),
            _ => pos.turn(),
        };
        let from_black = (side == Color::Black) != flip;
        let theme =
            self.setting_for(who, platform, channel, &SETTINGS[2]).parse().unwrap_or(self.render.theme);
        let coordinates = self.setting_for(who, platform, channel, &SETTINGS[3]) == "on";
        let opts = RenderOptions {
            flip: from_black,
            theme,
            coordinates,
            caption: Some(caption(loaded, now)),
            ..self.render.clone()
        };
        let image = tessera_render::render_png(&view, &opts).ok();
        let diagram =
            tessera_render::diagram::text_diagram(pos, if from_black { Color::Black } else { Color::White });
        let actions = loaded.game.outcome().is_none().then_some(Actions::Game(loaded.row.id));
        Reply { text: status_line(loaded, now), image, diagram: Some(diagram), actions, ..Reply::default() }
    }

    fn last_move_view(&self, loaded: &Loaded) -> BoardView {
        let moves = loaded.game.moves();
        let pos = loaded.game.position();
        match moves.last() {
            Some(mv) => {
                let mut before = loaded.game.start().clone();
                for m in &moves[..moves.len() - 1] {
                    before.play_unchecked(m);
                }
                BoardView::new(pos, Some((&before, mv)))
            }
            None => BoardView::new(pos, None),
        }
    }

    fn board(&self, msg: &Incoming, id: GameRef, flip: bool) -> Replies {
        let loaded = self.find(msg, id, true)?;
        if let Some(mut replies) = self.settle_clock(&loaded, msg.now, true)? {
            // It shows the final board.
            replies.iter_mut().for_each(|r| r.notify.retain(|id| id != &msg.author.id));
            self.tournament_after_game(&mut replies, loaded.row.id, msg.now);
            return Ok(replies);
        }
        let mut replies = Vec::new();
        let me = self.me(msg).ok();
        replies.push(self.board_reply_for(&loaded, None, flip, me.as_ref(), msg.now));
        Ok(replies)
    }

    /// The legal turns, grouped by what begins them (see [`turn_list`]).
    fn legal_moves(&self, msg: &Incoming, id: GameRef, start: Option<&str>) -> Replies {
        let loaded = self.find(msg, id, true)?;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {o}", loaded.row.id));
        }
        Ok(vec![Reply::text(turn_list::legal_turns(loaded.game.position(), loaded.row.id, start)?)])
    }

    /// A player's setting, else the default the channel's moderators chose, else none.
    fn preference(&self, player: &Player, platform: &str, channel: &str, key: &str) -> Option<String> {
        let own = self.store.setting(player.id, key).ok().flatten();
        own.or_else(|| self.store.channel_setting(platform, channel, key).ok().flatten())
    }

    /// Plays the turn the author was asked to confirm, if the game has not moved on since.
    fn confirm(&self, msg: &Incoming, id: GameRef) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        let game = loaded.row.id;
        let Some((ply, text)) = self.store.pending_turn(me.id, game).map_err(internal)? else {
            return Err(format!("there is no turn of yours waiting for confirmation in game #{game}"));
        };
        self.store.set_pending_turn(me.id, game, None).map_err(internal)?;
        if ply != loaded.row.moves.len() {
            return Err(format!("game #{game} has moved on since; send your turn again"));
        }
        self.make_move_as(msg, Some(game), &format!("{text} !"), &format!("!t move {text}"))
    }

    /// A setting's value for this player here: their own choice, else the channel's, else the default.
    fn setting_for(&self, player: &Player, platform: &str, channel: &str, setting: &Setting) -> String {
        self.preference(player, platform, channel, setting.key)
            .unwrap_or_else(|| self.setting_default(setting))
    }

    fn setting_default(&self, setting: &Setting) -> String {
        match setting.key {
            // The theme and labels the bot was configured with.
            "theme" => self.render.theme.name().to_string(),
            "coordinates" => if self.render.coordinates { "on" } else { "off" }.to_string(),
            _ => setting.values[0].to_string(),
        }
    }

    /// Shows the author's settings, or changes one.
    fn settings(&self, msg: &Incoming, change: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        let words: Vec<String> =
            change.unwrap_or_default().split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            let listed: Vec<String> = SETTINGS
                .iter()
                .map(|s| {
                    format!("{} {} ({})", s.key, self.setting_for(&me, msg.platform, msg.channel, s), s.what)
                })
                .collect();
            return Ok(vec![Reply::text(format!(
                "Your settings: {}. Change one like `!t settings board mine`.",
                listed.join("; ")
            ))]);
        }
        let (setting, value) = parse_setting(&words, SETTINGS, "!t settings")?;
        self.store.set_setting(me.id, setting.key, &value).map_err(internal)?;
        Ok(vec![Reply::text(format!("Saved: {} {value}.", setting.key))])
    }

    /// Shows the channel's settings, or lets a moderator change one.
    fn channel_settings(&self, msg: &Incoming, change: Option<&str>) -> Replies {
        let words: Vec<String> =
            change.unwrap_or_default().split_whitespace().map(str::to_lowercase).collect();
        let get = |setting: &Setting| -> Result<String, String> {
            let v = self.store.channel_setting(msg.platform, msg.channel, setting.key).map_err(internal)?;
            Ok(v.unwrap_or_else(|| self.setting_default(setting)))
        };
        if words.is_empty() {
            let gifs = get(&CHANNEL_SETTINGS[0])?;
            let defaults: Vec<String> = SETTINGS
                .iter()
                .map(|s| Ok(format!("{} {}", s.key, get(s)?)))
                .collect::<Result<_, String>>()?;
            return Ok(vec![Reply::text(format!(
                "This channel: gifs {gifs} (a finished game is posted as an animated GIF); for players who have \
                 not chosen: {}. Moderators change them like `!t channel gifs off` or `!t channel board white`.",
                defaults.join(", ")
            ))]);
        }
        let (setting, value) = parse_setting(&words, &CHANNEL_SETTINGS, "!t channel")?;
        if !msg.is_admin {
            return Err("only the channel's moderators can change its settings".into());
        }
        self.store.set_channel_setting(msg.platform, msg.channel, setting.key, &value).map_err(internal)?;
        Ok(vec![Reply::text(format!("Saved for this channel: {} {value}.", setting.key))])
    }

    fn participant(&self, msg: &Incoming, id: GameRef) -> Result<(Player, Loaded, Color), String> {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        let color = loaded
            .color_of(&me)
            .ok_or_else(|| format!("only the players of game #{} can do that", loaded.row.id))?;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {o} ({})", loaded.row.id, o.result()));
        }
        Ok((me, loaded, color))
    }

    /// Why the author may not act in a game (resign, offer a draw) now, if they may not: for
    /// platforms that ask for confirmation first.
    pub fn refusal_to_act(&self, msg: &Incoming, id: GameRef) -> Option<String> {
        self.participant(msg, id).err()
    }

    fn resign(&self, msg: &Incoming, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        let outcome = Outcome::Win { winner: color.other(), reason: WinReason::Resignation };
        if !self.store.finish(loaded.row.id, outcome.result(), "resignation", msg.now).map_err(internal)? {
            return Err(format!("game #{} has just ended", loaded.row.id));
        }
        let reply = Reply::text(format!(
            "{} resigns game #{}. {outcome} ({}).",
            me.name,
            loaded.row.id,
            outcome.result()
        ));
        let mut replies = vec![reply.notifying(loaded.player(color.other()))];
        self.after_game(&mut replies, loaded.row.id, msg.now);
        Ok(replies)
    }

    fn draw(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        if loaded.row.bot.is_some() {
            return Err(format!(
                "I neither offer nor accept draws in a practice game: play on (on your move, `!t claim` a \
                 repetition or the 50-move rule), or `!t resign #{}`",
                loaded.row.id
            ));
        }
        let opponent = loaded.player(color.other());
        let pending = loaded.row.draw_offer;
        match offer {
            Offer::Offer | Offer::Accept if pending == Some(opponent.id) => {
                // The offer must still stand when the game ends: a move withdraws it.
                if !self.store.accept_draw(loaded.row.id, opponent.id, msg.now).map_err(internal)? {
                    return Err(format!(
                        "{}'s draw offer no longer stands (a move withdrew it, or the game ended)",
                        opponent.name
                    ));
                }
                let reply = Reply::text(format!("Game #{} is drawn by agreement (1/2-1/2).", loaded.row.id));
                let mut replies = vec![reply.notifying(opponent)];
                self.after_game(&mut replies, loaded.row.id, msg.now);
                Ok(replies)
            }
            Offer::Accept => {
                Err(format!("{} has not offered a draw; offer one with `!t draw`", opponent.name))
            }
            Offer::Offer if pending == Some(me.id) => Err("you have already offered a draw".into()),
            Offer::Offer => {
                self.store.set_draw_offer(loaded.row.id, Some(me.id)).map_err(internal)?;
                let mut reply = Reply::text(format!(
                    "{} offers a draw in game #{}. {}: `!t draw accept` or `!t draw decline`.",
                    me.name, loaded.row.id, opponent.name
                ));
                reply.actions = Some(Actions::DrawOffer(loaded.row.id));
                Ok(vec![reply.notifying(opponent)])
            }
            Offer::Decline if pending == Some(opponent.id) => {
                self.store.set_draw_offer(loaded.row.id, None).map_err(internal)?;
                let reply =
                    Reply::text(format!("{} declines the draw; game #{} goes on.", me.name, loaded.row.id));
                Ok(vec![reply.notifying(opponent)])
            }
            Offer::Decline => Err("there is no draw offer to decline".into()),
        }
    }

    fn claim(&self, msg: &Incoming, id: GameRef) -> Replies {
        let (_, loaded, color) = self.participant(msg, id)?;
        let opponent = loaded.player(color.other());
        if loaded.game.position().turn() != color {
            return Err("a draw is claimed by the player to move".into());
        }
        let Some(reason) = loaded.game.claimable_draw() else {
            return Err("there is nothing to claim: a draw needs a threefold repetition or 50 moves without a capture or pawn move".into());
        };
        if !self.store.finish(loaded.row.id, "1/2-1/2", draw_name(reason), msg.now).map_err(internal)? {
            return Err(format!("game #{} has just ended", loaded.row.id));
        }
        let reply =
            Reply::text(format!("Game #{} is drawn by {} (1/2-1/2).", loaded.row.id, draw_name(reason)));
        let mut replies = vec![reply.notifying(opponent)];
        self.after_game(&mut replies, loaded.row.id, msg.now);
        Ok(replies)
    }

    fn takeback(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        if loaded.row.bot.is_some() {
            return self.practice_takeback(msg, offer, Some(loaded.row.id));
        }
        if loaded.row.rated || self.store.tournament_of_game(loaded.row.id).map_err(internal)?.is_some() {
            return Err(format!(
                "game #{} is rated or part of a tournament: moves cannot be taken back",
                loaded.row.id
            ));
        }
        let opponent = loaded.player(color.other());
        let pending = loaded.row.takeback_offer;
        match offer {
            Offer::Offer | Offer::Accept if pending == Some(opponent.id) => {
                // Undo the asker's last move: one ply if it was the last move, two if the other has replied.
                let asker_color = color.other();
                let to_move = loaded.game.position().turn();
                let count = if to_move == asker_color { 2 } else { 1 };
                let count = count.min(loaded.row.moves.len());
                if count == 0 {
                    return Err("there is no move to take back".into());
                }
                // Only on the moves it was agreed on: a move that got in first withdrew the request.
                let moves = loaded.row.moves.len();
                if !self
                    .store
                    .take_back(loaded.row.id, moves, count, opponent.id, msg.now)
                    .map_err(internal)?
                {
                    return Err(format!(
                        "{}'s takeback request no longer stands (a move withdrew it, or the game ended)",
                        opponent.name
                    ));
                }
                let now = self.find(msg, Some(loaded.row.id), true)?;
                let mut r = self.board_reply(&now, None, false, msg.now);
                r.text = format!(
                    "Takeback agreed: {count} move{} undone. {}",
                    if count == 1 { "" } else { "s" },
                    status_line(&now, msg.now)
                );
                Ok(vec![r.notifying(opponent)])
            }
            Offer::Accept => Err(format!("{} has not asked for a takeback", opponent.name)),
            Offer::Offer if pending == Some(me.id) => {
                Err(format!("you have already asked; {} has not answered yet", opponent.name))
            }
            // Only your own last move can be taken back: you must have made one.
            Offer::Offer if !has_moved(&loaded, color) => {
                Err("there is no move to take back: you have not moved yet".into())
            }
            Offer::Offer => {
                self.store.set_takeback_offer(loaded.row.id, Some(me.id)).map_err(internal)?;
                let mut reply = Reply::text(format!(
                    "{} asks to take back their last move in game #{}. {}: `!t takeback accept` or `!t takeback decline`.",
                    me.name, loaded.row.id, opponent.name
                ));
                reply.actions = Some(Actions::TakebackOffer(loaded.row.id));
                Ok(vec![reply.notifying(opponent)])
            }
            Offer::Decline if pending == Some(opponent.id) => {
                self.store.set_takeback_offer(loaded.row.id, None).map_err(internal)?;
                Ok(vec![Reply::text(format!("{} declines the takeback.", me.name)).notifying(opponent)])
            }
            Offer::Decline => Err("there is no takeback request to decline".into()),
        }
    }

    fn games(&self, msg: &Incoming, scope: Scope) -> Replies {
        let me = self.me(msg)?;
        let rows = match scope {
            Scope::Mine => self
                .store
                .player_games(me.id)
                .map_err(internal)?
                .into_iter()
                .filter(|g| g.platform == msg.platform)
                .collect(),
            Scope::Channel => self.store.channel_games(msg.platform, msg.channel).map_err(internal)?,
        };
        if rows.is_empty() {
            return Ok(vec![Reply::text("No games running. Start one with `!t challenge @someone hans38`.")]);
        }
        // A bounded answer however many games there are.
        const SHOWN: usize = 30;
        let total = rows.len();
        let mut rows: Vec<GameRow> = rows.into_iter().rev().collect();
        if scope == Scope::Mine {
            // The games waiting for the author first, the least time left first (a game without a
            // clock after those with one); then the others, newest first. Read off the rows: only
            // the games shown are replayed.
            rows.sort_by_key(|row| match row_turn(row) {
                Some(turn) if (turn == Color::White) == (row.white == me.id) => (
                    0,
                    row.days_per_move.map_or(i64::MAX, |d| row.last_move_at + i64::from(d) * DAY),
                    -row.id,
                ),
                _ => (1, 0, -row.id),
            });
        }
        let loaded = rows.into_iter().take(SHOWN).map(|row| self.load(row));
        let mut lines = Vec::new();
        let mut heading = None;
        for l in loaded {
            match l {
                Ok(l) if scope == Scope::Mine => {
                    let turn = l.game.position().turn();
                    let mine = l.color_of(&me) == Some(turn);
                    let head = if mine { "Your move:" } else { "Their move:" };
                    if heading != Some(head) {
                        lines.push(head.to_string());
                        heading = Some(head);
                    }
                    let whose = if mine {
                        "your move".to_string()
                    } else {
                        format!("{} to move", l.player(turn).name)
                    };
                    // A player's own list says where each game is played (it is acted on there).
                    lines.push(format!(
                        "{}, move {}, {whose} ({turn}){}, in {}",
                        l.title(),
                        l.game.position().fullmoves(),
                        clock_left(&l, msg.now),
                        channel_name(&l.row.platform, &l.row.channel)
                    ))
                }
                Ok(l) => lines.push(format!("{}, {}", l.title(), status_line(&l, msg.now))),
                Err(e) => lines.push(e),
            }
        }
        if total > SHOWN {
            lines.push(format!(
                "… and {} more games; name one with its number, like `!t board #12`",
                total - SHOWN
            ));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    fn history(&self, msg: &Incoming, id: GameRef) -> Replies {
        let loaded = self.find(msg, id, true)?;
        let round = match self.store.tournament_of_game(loaded.row.id).map_err(internal)? {
            Some((t, round)) => {
                let name = self.store.tournament(t).map_err(internal)?.map(|t| t.name).unwrap_or_default();
                (format!("{name} (t{t})"), round.to_string())
            }
            None => (format!("Tessera game #{}", loaded.row.id), "-".to_string()),
        };
        Ok(vec![Reply::text(pgn(&loaded, &round.0, &round.1))])
    }

    /// Legal turns for the author's game (the one named, or their game here), for autocomplete:
    /// the ones whose SAN or long form starts with what is typed (case, `x`, `-` and spaces
    /// ignored; `g1f3` finds Ng1-f3), written without check marks (finding mates among tens of
    /// thousands of compound turns would take too long). Empty when it is not the author's turn:
    /// nothing they could send would be legal.
    pub fn suggest_moves(&self, msg: &Incoming, game: GameRef, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(loaded) = self.find(msg, game, false) else { return Vec::new() };
        let pos = loaded.game.position();
        if loaded.game.outcome().is_some() || loaded.color_of(&me) != Some(pos.turn()) {
            return Vec::new();
        }
        let typed = move_key(typed);
        let moves = pos.legal_moves();
        let mut writer = notation::TurnWriter::new(pos);
        // The long form is written only where the short one does not match already.
        let mut found: Vec<(u8, String, &Move)> = moves
            .iter()
            .filter_map(|mv| {
                let san = writer.san(mv);
                if key_begins(&san, &typed) {
                    return Some((0, san, mv));
                }
                long_begins_like(&writer.lan(mv), &typed).then_some((1, san, mv))
            })
            .collect();
        let order = |(ra, a, _): &(u8, String, &Move), (rb, b, _): &(u8, String, &Move)| {
            (ra, a.len(), a).cmp(&(rb, b.len(), b))
        };
        // Only the first few are shown: pick them before sorting (twice as many, for duplicates).
        let keep = limit.saturating_mul(2).max(1);
        if found.len() > keep {
            found.select_nth_unstable_by(keep - 1, order);
            found.truncate(keep);
        }
        found.sort_by(order);
        found.dedup_by(|a, b| a.1 == b.1);
        found
            .into_iter()
            .take(limit)
            .map(|(_, san, mv)| {
                let lan = writer.lan(mv);
                let label = if san == lan { san.clone() } else { format!("{san}  ({lan})") };
                Suggestion { label, value: san }
            })
            .collect()
    }

    /// The author's running games on this platform, this channel's first, for autocomplete; the
    /// value is the game's number.
    pub fn suggest_games(&self, msg: &Incoming, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(rows) = self.store.player_games(me.id) else { return Vec::new() };
        // Only this channel's: a game is played in its own channel.
        let mut rows: Vec<GameRow> =
            rows.into_iter().filter(|g| g.platform == msg.platform && g.channel == msg.channel).collect();
        rows.sort_by_key(|g| -g.id);
        let typed = typed.trim().trim_start_matches('#').to_lowercase();
        // Labels come from the rows alone: replaying every game on each keystroke would be slow.
        rows.into_iter()
            .filter_map(|row| {
                let color = if row.white == me.id { Color::White } else { Color::Black };
                let variant: Variant = row.variant.parse().ok()?;
                let start = Position::from_fen(variant, &row.start_fen).ok()?;
                // Each stored move is one whole turn, so the side to move follows from their number.
                let turn = if row.moves.len() % 2 == 0 { start.turn() } else { start.turn().other() };
                let opponent =
                    self.store.player_by_id(if color == Color::White { row.black } else { row.white });
                let opponent = opponent.ok()??;
                let whose = if turn == color { "your move" } else { "their move" };
                let elsewhere = if row.channel == msg.channel { "" } else { ", another channel" };
                let label =
                    format!("#{} {variant} vs {} ({color}), {whose}{elsewhere}", row.id, opponent.name);
                label.to_lowercase().contains(&typed).then(|| Suggestion { label, value: row.id.to_string() })
            })
            .take(limit)
            .collect()
    }

    /// The people the author played lately on this platform, for a rematch; the value is their
    /// platform user id.
    pub fn suggest_opponents(&self, msg: &Incoming, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(recent) = self.recent_opponents(msg, &me) else { return Vec::new() };
        let typed = typed.trim().to_lowercase();
        let mut seen = std::collections::HashSet::new();
        recent
            .into_iter()
            .filter(|(_, p)| seen.insert(p.id) && p.name.to_lowercase().contains(&typed))
            .map(|(g, p)| {
                let mine = if g.white == me.id { "white" } else { "black" };
                let label = format!("{} (last: #{} {}, you had {mine})", p.name, g.id, g.variant);
                Suggestion { label, value: p.user_id }
            })
            .take(limit)
            .collect()
    }

    /// Open challenges here that the author can answer (`mine` false) or withdraw (`mine` true).
    pub fn suggest_challenges(
        &self,
        msg: &Incoming,
        mine: bool,
        typed: &str,
        limit: usize,
    ) -> Vec<Suggestion> {
        let Ok(me) = self.me(msg) else { return Vec::new() };
        let Ok(open) = self.store.open_challenges(msg.platform, msg.channel, me.id) else {
            return Vec::new();
        };
        let typed = typed.trim().to_lowercase();
        open.into_iter()
            .rev()
            .filter(|c| if mine { c.challenger == me.id } else { c.challenged == me.id })
            .filter_map(|c| {
                let other = if mine { c.challenged } else { c.challenger };
                let name = self.store.player_by_id(other).ok()??.name;
                let label = if mine {
                    format!("{}: your challenge to {name}, {}", c.id, c.variant)
                } else {
                    format!("{}: {name} challenges you to {}", c.id, c.variant)
                };
                label.to_lowercase().contains(&typed).then(|| Suggestion { label, value: c.id.to_string() })
            })
            .take(limit)
            .collect()
    }

    /// Reminders and losses on time on every platform. The bot's process runs one
    /// [`crate::clock::Clock`], which ticks only the platforms it can announce on.
    pub fn tick(&self, now: i64) -> Result<Vec<Notice>> {
        self.tick_for(now, None)
    }

    /// Reminders and losses on time, and tournaments moving on, for the games and tournaments of
    /// `platforms` (all when `None`). A game on a platform not running here is left for a process
    /// that can tell its players: its clock is only a deadline in the database until then.
    /// Returns the notices waiting to be posted on those platforms, claimed for this caller.
    pub fn tick_for(&self, now: i64, platforms: Option<&[&str]>) -> Result<Vec<Notice>> {
        let served = |p: &str| platforms.is_none_or(|ps| ps.contains(&p));
        for row in self.store.clocked_games()?.into_iter().filter(|r| served(&r.platform)) {
            let Ok(loaded) = self.load(row) else { continue };
            let Some(days) = loaded.row.days_per_move else { continue };
            let deadline = loaded.row.last_move_at + days as i64 * DAY;
            let mover = loaded.player(loaded.game.position().turn());
            // One game's failure is logged and skipped: the other games' clocks still run. Each
            // notice is stored with its change and posted from the outbox after the tick.
            match self.settle_clock(&loaded, now, false) {
                Ok(Some(_)) => continue,
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(game = loaded.row.id, "the clock could not be settled: {e:#}");
                    continue;
                }
            }
            if !loaded.row.reminded && now >= deadline - (days as i64 * DAY / 2).min(DAY) {
                let hours = ((deadline - now) / 3600).max(1);
                let text = format!(
                    "{}, it is your move in game #{} ({}); about {hours} hours left.",
                    mover.name,
                    loaded.row.id,
                    loaded.variant()
                );
                let notice = NewNotice::text(
                    &loaded.row.platform,
                    &loaded.row.channel,
                    text,
                    vec![mover.user_id.clone()],
                );
                // False: another process reminded them, or the mover moved meanwhile.
                if let Err(e) = self.store.mark_reminded(loaded.row.id, loaded.row.last_move_at, &[notice]) {
                    tracing::error!(game = loaded.row.id, "could not be marked reminded: {e:#}");
                }
            }
        }
        // Tournaments: rounds whose games just ended on time, starts that are due, and any round
        // a crash left unpaired.
        if let Err(e) = self.tournament_tick(now, &served) {
            tracing::error!("the tournaments' tick failed: {e:#}");
        }
        Ok(self.outbox_due(platforms))
    }
}

/// Shrink Chess: which ranks and files the move made vanish, the board's new size, and that every
/// piece beyond a vanished line was renamed towards a1, once, with one of them for an example (the
/// moved piece where it is one).
fn shrink_note(before: &Position, mv: &tessera_rules::Move, after: &Position) -> String {
    use tessera_rules::Action;
    let (files, ranks) = before.vanishing_lines(mv);
    if files.is_empty() && ranks.is_empty() {
        return String::new();
    }
    let ordinal = |n: u8| match n {
        1 => "1st".to_string(),
        2 => "2nd".to_string(),
        3 => "3rd".to_string(),
        n => format!("{n}th"),
    };
    let mut gone: Vec<String> = files.iter().map(|&f| format!("the {}-file", (b'a' + f) as char)).collect();
    gone.extend(ranks.iter().map(|&r| format!("the {} rank", ordinal(r + 1))));
    let verb = if gone.len() == 1 { "vanished" } else { "vanish" };
    let (w, h) = after.size();
    let mut note = format!(" {} {verb}: the board is now {w}×{h}", gone.join(" and "));
    // Where each piece now standing stood before the board closed up.
    let (bw, bh) = before.size();
    let kept_files: Vec<u8> = (0..bw).filter(|f| !files.contains(f)).collect();
    let kept_ranks: Vec<u8> = (0..bh).filter(|r| !ranks.contains(r)).collect();
    let renamed: Vec<(Square, Square)> = after
        .occupied()
        .into_iter()
        .filter_map(|now| {
            let was = Square::from_coords(
                *kept_files.get(now.file() as usize)?,
                *kept_ranks.get(now.rank() as usize)?,
            );
            (was != now).then_some((was, now))
        })
        .collect();
    let moved_to = match mv.first() {
        Action::Normal { to, .. } | Action::EnPassant { to, .. } => Some(to),
        _ => None,
    };
    // An example the reader knows: the moved piece, else one that stood there before the move
    // (not a pawn a shrink promoted), the mover's strongest first.
    let mover = before.turn();
    let rank_of = |sq: Square| {
        let piece = after.piece_at(sq);
        let order = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::King, Role::Pawn];
        let strength = piece.map_or(9, |p| order.iter().position(|&r| r == p.role).unwrap_or(9));
        (piece.is_some_and(|p| p.color != mover), strength)
    };
    let example = renamed.iter().find(|(was, _)| Some(*was) == moved_to).or_else(|| {
        renamed
            .iter()
            .filter(|&&(was, now)| {
                before.piece_at(was).is_some() && before.piece_at(was) == after.piece_at(now)
            })
            .min_by_key(|&&(_, now)| rank_of(now))
    });
    if let Some(&(was, now)) = example {
        let beyond = match (files.len(), ranks.len()) {
            (0, 1) => "the ranks above it moved down one",
            (0, _) => "the ranks above them moved down",
            (1, 0) => "the files right of it moved left one",
            (_, 0) => "the files right of them moved left",
            _ => "the lines beyond them moved towards a1",
        };
        let role = after.piece_at(now).map_or("piece", |p| p.role.name());
        note.push_str(&format!(
            ", and {beyond}: every piece there was renamed (the {role} on {was} is now on {now})"
        ));
    }
    note.push('.');
    note
}

/// Why a turn deserves a second thought before it is played, if it does: it leaves out an action
/// the turn could still take, or the opponent can answer it so that the mover has no legal turn,
/// which loses where stalemate does (L8).
fn turn_danger(pos: &Position, mv: &Move) -> Option<String> {
    if let Some(longer) = pos.longer_turn(mv) {
        return Some(format!(
            "this turn could take one more action, as `{}` does",
            notation::san(pos, &longer)
        ));
    }
    if let Some((after, answer)) = pos.stalemating_answer(mv) {
        return Some(format!(
            "{} can answer {} and leave you no legal turn, which loses",
            pos.turn().other(),
            notation::san(&after, &answer)
        ));
    }
    None
}

/// A channel as its platform shows a link to it: Discord's `<#id>` becomes the channel's name, a
/// Matrix room is a matrix.to link; elsewhere the channel's own name.
fn channel_name(platform: &str, channel: &str) -> String {
    match platform {
        "discord" if channel.bytes().all(|b| b.is_ascii_digit()) => format!("<#{channel}>"),
        "matrix" => format!("https://matrix.to/#/{channel}"),
        _ => format!("#{channel}"),
    }
}

/// The command a message sent, as the example of naming a game repeats it (`!t moves` → `!t moves
/// #16`): its words as written, the longest cut to the command's name. A message that is no text
/// command (a slash command, a button) gets the board's.
fn sent_command(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.first() {
        Some(first) if commands::PREFIXES.contains(&first.to_lowercase().as_str()) && words.len() > 1 => {
            let all = words.join(" ");
            if all.chars().count() <= 40 { all } else { words[..2].join(" ") }
        }
        _ => "!t board".into(),
    }
}

/// How a command that acts on one game is written in text, without the game's number.
fn command_text(cmd: &Command) -> String {
    let offer = |o: &Offer| match o {
        Offer::Offer => "",
        Offer::Accept => " accept",
        Offer::Decline => " decline",
    };
    match cmd {
        Command::Move { text, .. } => format!("!t move {text}"),
        Command::Moves { start: Some(start), .. } => format!("!t moves {start}"),
        Command::Moves { .. } => "!t moves".into(),
        Command::Confirm(_) => "!t confirm".into(),
        Command::Resign(_) => "!t resign".into(),
        Command::Draw(o, _) => format!("!t draw{}", offer(o)),
        Command::Claim(_) => "!t claim".into(),
        Command::Takeback(o, _) => format!("!t takeback{}", offer(o)),
        Command::History(_) => "!t history".into(),
        Command::Board { flip: true, .. } => "!t board flip".into(),
        _ => "!t board".into(),
    }
}

/// A plain message's game number, written before or after the move (`e5 #2`, `#2 e5`), and the
/// move without it.
fn game_tag(text: &str) -> (GameRef, String) {
    let mut game = None;
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| match w.strip_prefix('#').and_then(|n| n.parse::<i64>().ok()).filter(|n| *n > 0) {
            Some(n) if game.is_none() => {
                game = Some(n);
                false
            }
            _ => true,
        })
        .collect();
    (game, words.join(" "))
}

/// Chat that is almost a move: a first word that is a move (`Be7 good luck!`), or squares written
/// with a lower-case piece letter (`ng1f3`), or a square action (`@f3`). Everyday chat (`ok`,
/// `I think e4 was a mistake`) is not.
fn looks_like_a_move(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(first) = words.first().filter(|_| words.len() <= 4) else { return false };
    let first = first.trim_end_matches(['!', '?', '.', ',']);
    let bytes = first.as_bytes();
    let squares_from = |i: usize| {
        bytes.len() > i + 1 && (b'a'..=b'h').contains(&bytes[i]) && (b'1'..=b'8').contains(&bytes[i + 1])
    };
    let piece_then_square = bytes.first().is_some_and(|c| b"kqrbnpKQRBNP".contains(c))
        && (squares_from(1) || (bytes.get(1) == Some(&b'x') && squares_from(2)));
    first.starts_with('@')
        || piece_then_square
        || (squares_from(0) && first.len() >= 4)
        || notation::parse(first).is_ok()
}

/// What to tell a player whose message almost reads as a move.
fn near_miss_hint(text: &str, error: &notation::ParseError, variant: Option<Variant>) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let first = words.first().copied().unwrap_or_default().trim_end_matches(['!', '?', '.', ',']);
    // `Be7 good luck!`: a move, then chat (words that are no part of a turn).
    let chat_after = words.len() > 1 && words[1..].iter().all(|w| !w.starts_with('@') && !w.starts_with('['));
    if chat_after && notation::parse(first).is_ok() {
        return format!(
            "to play {first}, send it on its own (or `!t move {first}`); a move with other words is read as chat, \
             so nothing was played"
        );
    }
    // `ng1f3`: piece letters are capitals (a lower-case b is the b-file).
    let mut chars = text.chars();
    if let Some(c) = chars.next().filter(|c| "kqrn".contains(*c)) {
        let capital = format!("{}{}", c.to_ascii_uppercase(), chars.as_str());
        if notation::parse(&capital).is_ok() {
            return format!("piece letters are capitals: `{capital}`; nothing was played");
        }
    }
    let error = variant.map_or_else(|| error.to_string(), |v| error.in_variant(v));
    format!("{error}; nothing was played")
}

/// The game as PGN: the Seven Tag Roster (Event, Site, Date, Round, White, Black, Result), then
/// `Variant`, `Termination`, and `SetUp`/`FEN` for a game that did not begin at the variant's
/// start; the moves in lines under 80 characters, SAN for FIDE chess.
fn pgn(l: &Loaded, event: &str, round: &str) -> String {
    let tag = |name: &str, value: &str| {
        // PGN escapes a quote and a backslash inside a tag value; a line break would end the tag.
        let value: String = value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ");
        format!("[{name} \"{value}\"]\n")
    };
    let result = l.game.outcome().map_or("*", |o| o.result());
    let mut text = tag("Event", event);
    text.push_str(&tag("Site", &format!("Tessera, {}", l.row.platform)));
    text.push_str(&tag("Date", &pgn_date(l.row.created_at)));
    text.push_str(&tag("Round", round));
    text.push_str(&tag("White", &l.white.name));
    text.push_str(&tag("Black", &l.black.name));
    text.push_str(&tag("Result", result));
    text.push_str(&tag("Variant", l.variant().name()));
    // Results an organiser set: decided off the board, or a game not played (a double forfeit too).
    let termination = match l.row.result_reason.as_deref() {
        Some(r) if r.starts_with("set by the organiser") => "adjudication",
        Some(r) if r.starts_with("forfeit") => "abandoned",
        _ => tessera_rules::record::termination(l.game.outcome()),
    };
    text.push_str(&tag("Termination", termination));
    if l.game.start() != &Position::start(l.variant()) {
        text.push_str(&tag("SetUp", "1"));
        text.push_str(&tag("FEN", &l.game.start().fen()));
    }
    let moves = tessera_rules::record::wrap(&l.game.record(), 79);
    text.push_str(&format!("\n{moves}"));
    if !moves.trim_end().ends_with(result) {
        text.push_str(&format!(" {result}"));
    }
    text
}

/// A Unix time as PGN's `YYYY.MM.DD` (UTC), by the days-from-civil algorithm.
fn pgn_date(unix: i64) -> String {
    let days = unix.div_euclid(DAY) + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// Whether `color` has made a move in the game (each stored move is one whole turn).
fn has_moved(loaded: &Loaded, color: Color) -> bool {
    let first = loaded.game.start().turn();
    let plies = loaded.game.moves().len();
    if color == first { plies >= 1 } else { plies >= 2 }
}

/// A setting a player chooses for themselves (`!t settings`), and a channel's moderators choose
/// for those who have not (`!t channel`). The first value is the default, except where the bot's
/// configuration gives one (theme, coordinates).
#[derive(Clone, Copy)]
struct Setting {
    key: &'static str,
    values: &'static [&'static str],
    what: &'static str,
}

const SETTINGS: &[Setting] = &[
    Setting {
        key: "confirm",
        values: &["on", "off"],
        what: "ask before a turn that loses by rule or leaves out an action",
    },
    Setting {
        key: "board",
        values: &["turn", "mine", "white"],
        what: "mine: from your side; turn: from the side to move; white: always from White",
    },
    Setting { key: "theme", values: &["walnut", "slate"], what: "the pictures' colours" },
    Setting { key: "coordinates", values: &["on", "off"], what: "file and rank labels round the board" },
];

/// The channel's own settings first, then the players' defaults.
const CHANNEL_SETTINGS: [Setting; 5] = [
    Setting { key: "gifs", values: &["on", "off"], what: "a finished game is posted as an animated GIF" },
    SETTINGS[0],
    SETTINGS[1],
    SETTINGS[2],
    SETTINGS[3],
];

/// `KEY VALUE` as one of `table`'s settings, or what would be right.
fn parse_setting<'t>(
    words: &[String],
    table: &'t [Setting],
    command: &str,
) -> Result<(&'t Setting, String), String> {
    let names =
        || table.iter().map(|s| format!("`{} {}`", s.key, s.values.join("|"))).collect::<Vec<_>>().join(", ");
    let Some(setting) = table.iter().find(|s| s.key == words[0]) else {
        return Err(format!("there is no setting \"{}\"; the settings are {}", words[0], names()));
    };
    match words {
        [_, v] if setting.values.contains(&v.as_str()) => Ok((setting, v.clone())),
        _ => Err(format!(
            "say {}",
            setting
                .values
                .iter()
                .map(|v| format!("`{command} {} {v}`", setting.key))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

/// What the picture shows around the board: the names, the clock of the side to move where the
/// game has one, and the result of a finished game.
fn caption(l: &Loaded, now: i64) -> Caption {
    let result = l.game.outcome().map(|o| {
        let winner = match o {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        };
        (winner, o.to_string())
    });
    let mut clocks = [None, None];
    if let (None, Some(days)) = (&result, l.row.days_per_move) {
        let turn = l.game.position().turn();
        clocks[turn.index()] = Some(time_left(l.row.last_move_at + days as i64 * DAY - now));
    }
    Caption { names: [l.white.name.clone(), l.black.name.clone()], clocks, result }
}

/// Time left on a correspondence clock, to the unit that matters: "2d 4h", "5h 12m", "12m".
fn time_left(seconds: i64) -> String {
    let minutes = seconds.max(0) / 60;
    let (d, h, m) = (minutes / (24 * 60), minutes / 60 % 24, minutes % 60);
    match (d, h) {
        (0, 0) => format!("{m}m"),
        (0, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

/// The side to move in a stored game, from the number of its moves (each is one whole turn).
fn row_turn(row: &GameRow) -> Option<Color> {
    let variant: Variant = row.variant.parse().ok()?;
    let first = Position::from_fen(variant, &row.start_fen).ok()?.turn();
    Some(if row.moves.len().is_multiple_of(2) { first } else { first.other() })
}

/// Where a game stands: its result, or whose move it is and, on a clock, how long they have left.
fn status_line(l: &Loaded, now: i64) -> String {
    match l.game.outcome() {
        Some(o) => format!("game over: {o} ({})", o.result()),
        None => {
            let turn = l.game.position().turn();
            let mut line =
                format!("move {}, {} to move ({turn})", l.game.position().fullmoves(), l.player(turn).name);
            line.push_str(&clock_left(l, now));
            line
        }
    }
}

/// The time the player to move has left in a running game on a clock (", 2d 5h left"); empty
/// without a clock.
fn clock_left(l: &Loaded, now: i64) -> String {
    match deadline(l) {
        Some(at) if at > now => format!(", {} left", time_left(at - now)),
        Some(_) => ", out of time".into(),
        None => String::new(),
    }
}

/// When the player to move runs out of time, for a running game on a clock.
fn deadline(l: &Loaded) -> Option<i64> {
    let days = l.row.days_per_move.filter(|_| l.game.outcome().is_none())?;
    Some(l.row.last_move_at + days as i64 * DAY)
}

fn reason_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win { reason: WinReason::Checkmate, .. } => "checkmate",
        Outcome::Win { reason: WinReason::Stalemate, .. } => "stalemate",
        Outcome::Win { reason: WinReason::Resignation, .. } => "resignation",
        Outcome::Win { reason: WinReason::Time, .. } => "time",
        Outcome::Win { reason: WinReason::Forfeit, .. } => "forfeit",
        Outcome::Draw { reason } => draw_name(reason),
    }
}

fn draw_name(reason: DrawReason) -> &'static str {
    match reason {
        DrawReason::Stalemate => "stalemate",
        DrawReason::InsufficientMaterial => "insufficient material",
        DrawReason::FivefoldRepetition => "fivefold repetition",
        DrawReason::SeventyFiveMoves => "the 75-move rule",
        DrawReason::ThreefoldRepetition => "threefold repetition",
        DrawReason::FiftyMoves => "the 50-move rule",
        DrawReason::Agreement => "agreement",
    }
}

/// The outcome a stored result stands for, where the board alone does not decide it.
fn declared_outcome(result: &str, reason: &str) -> Outcome {
    let win = |winner| Outcome::Win {
        winner,
        reason: match reason {
            "time" => WinReason::Time,
            r if r.starts_with("forfeit") => WinReason::Forfeit,
            _ => WinReason::Resignation,
        },
    };
    match result {
        "1-0" => win(Color::White),
        "0-1" => win(Color::Black),
        _ => Outcome::Draw {
            reason: match reason {
                "threefold repetition" => DrawReason::ThreefoldRepetition,
                "the 50-move rule" => DrawReason::FiftyMoves,
                _ => DrawReason::Agreement,
            },
        },
    }
}

/// Runs one message's handling; a panic becomes a short private apology. SQLite rolls back any
/// transaction the panic interrupted, so nothing half-done is kept. The panic itself is logged
/// once, by the panic hook ([`crate::logging::init`]).
fn guarded(handle: impl FnOnce() -> Vec<Reply>) -> Vec<Reply> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(handle)).unwrap_or_else(|_| {
        vec![Reply::error("something went wrong on my side and nothing was changed; please try again")]
    })
}

fn internal(e: anyhow::Error) -> String {
    // The details go to the operator's log, not to the channel.
    tracing::error!("storage error: {e:#}");
    "something went wrong on my side and nothing was changed; please try again".into()
}

fn corrupt(row: &GameRow, what: &str) -> String {
    tracing::error!(game = row.id, "the stored game cannot be rebuilt: {what}");
    format!("game #{} cannot be loaded (its stored record is damaged); an operator has to look at it", row.id)
}

/// Variants whose name or description contains what is typed, for autocomplete.
pub fn suggest_variants(typed: &str, limit: usize) -> Vec<Suggestion> {
    let typed = typed.trim().to_lowercase();
    Variant::ALL
        .iter()
        .filter(|v| v.name().contains(&typed) || v.summary().to_lowercase().contains(&typed))
        .map(|v| {
            let mut label = format!("{} — {}", v.name(), v.summary());
            if label.chars().count() > 100 {
                label = label.chars().take(99).collect::<String>() + "…";
            }
            Suggestion { label, value: v.name().to_string() }
        })
        .take(limit)
        .collect()
}

fn variants_text() -> String {
    let mut out = String::from("Variants:\n");
    for v in Variant::ALL {
        out.push_str(&format!("`{}` — {}\n", v.name(), v.summary()));
    }
    out
}

/// Shrink Chess: what the reply says of each pawn the move's shrink promoted without the player
/// naming a piece (S6): a queen, or the first piece that would not leave their king in check.
fn shrink_promotion_note(pos: &Position, mv: &Move, named: &[(Square, Role)]) -> String {
    let mut text = String::new();
    for (sq, role) in pos.shrink_promotions(mv).iter().filter(|(s, _)| !named.iter().any(|(n, _)| n == s)) {
        let why = if *role == Role::Queen {
            String::new()
        } else {
            let unsafe_pieces: Vec<&str> =
                Role::PROMOTIONS.iter().take_while(|r| *r != role).map(|r| r.name()).collect();
            format!(", and a {} there would leave your king in check", unsafe_pieces.join(" or "))
        };
        text.push_str(&format!(
            " The pawn on {sq} became a {} (no piece was named{why}; write [{sq}=N] to choose).",
            role.name()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shrink_says_what_vanished_and_where_the_piece_went() {
        let pos = Position::from_fen(Variant::Shrink, "4k3/8/8/8/8/8/1K6/7R w - - 0 1").unwrap();
        let mv = notation::parse_move(&pos, "Rh1-h5").unwrap();
        assert_eq!(
            shrink_note(&pos, &mv, &pos.played(&mv)),
            " the 1st rank vanished: the board is now 8×7, and the ranks above it moved down one: every piece \
             there was renamed (the rook on h5 is now on h4)."
        );
        // A file: everything right of it is renamed.
        let pos = Position::from_fen(Variant::Shrink, "4k3/8/8/8/8/8/7K/R7 w - - 0 1").unwrap();
        let mv = notation::parse_move(&pos, "Ra1-h1").unwrap();
        let note = shrink_note(&pos, &mv, &pos.played(&mv));
        assert!(note.starts_with(" the a-file vanish"), "{note}");
        assert!(
            note.contains("the files right of it moved left one: every piece there was renamed"),
            "{note}"
        );
        // The top rank: nothing lies beyond it, so nothing is renamed.
        let pos = Position::from_fen(Variant::Shrink, "7r/8/8/8/k7/8/8/K7 b - - 0 1").unwrap();
        let mv = notation::parse_move(&pos, "Rh8-h5").unwrap();
        assert_eq!(shrink_note(&pos, &mv, &pos.played(&mv)), " the 8th rank vanished: the board is now 8×7.");
        // A move that renames others, not itself: the note names one of them, once.
        let pos = Position::from_fen(Variant::Shrink, "3qk3/8/8/8/8/2R5/8/4K3 w - - 0 1").unwrap();
        let mv = notation::parse_move(&pos, "Rc3-c1").unwrap();
        let note = shrink_note(&pos, &mv, &pos.played(&mv));
        assert_eq!(
            note,
            " the 3rd rank vanished: the board is now 8×7, and the ranks above it moved down one: every piece \
             there was renamed (the queen on d8 is now on d7)."
        );
        let start = Position::start(Variant::Shrink);
        let quiet = notation::parse_move(&start, "Nc3").unwrap();
        assert_eq!(shrink_note(&start, &quiet, &start.played(&quiet)), "");
    }

    #[test]
    fn pgn_dates_are_utc_calendar_days() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
        assert_eq!(pgn_date(1_795_478_399), "2026.11.23");
        assert_eq!(pgn_date(-86_400), "1969.12.31");
    }

    #[test]
    fn a_long_reply_is_cut_at_a_line_and_says_so() {
        let short = Reply::text("a\nb");
        assert_eq!(short.clone().capped(), short);
        let long: String = (0..3000).map(|i| format!("board {i}: ann – bob\n")).collect();
        let capped = Reply { notify: vec!["ann".into()], ..Reply::text(long) }.capped();
        assert!(capped.text.chars().count() <= MAX_REPLY_CHARS);
        assert!(capped.text.starts_with("board 0: ann – bob\nboard 1:"));
        let shown = capped.text.lines().filter(|l| l.starts_with("board ")).count();
        assert!(capped.text.ends_with(&format!(
            "… {} more lines are not shown here; ask for a narrower answer (a game number, a round).",
            3000 - shown
        )));
        assert_eq!(capped.notify, ["ann"], "only the text changes");
        // One unbroken line of any script is cut at a character, never inside one.
        let wall = Reply::text("ж".repeat(20_000)).capped();
        assert!(wall.text.chars().count() <= MAX_REPLY_CHARS && wall.text.starts_with("жж"));
    }

    #[test]
    fn the_reply_names_a_shrink_promotion_nobody_chose() {
        let shrink = |fen: &str, text: &str| {
            let pos = Position::from_fen(Variant::Shrink, fen).unwrap();
            let parsed = notation::parse(text).unwrap();
            let mv = parsed.resolve(&pos).unwrap();
            shrink_promotion_note(&pos, &mv, &parsed.shrink_promotions)
        };
        // A queen on a1 would check White's king on e1 after the shrink; so would a rook.
        let note = shrink("4k3/8/8/8/8/8/p3K3/7R w - - 0 1", "Rh1-h5");
        assert_eq!(
            note,
            " The pawn on a1 became a bishop (no piece was named, and a queen or rook there would \
             leave your king in check; write [a1=N] to choose)."
        );
        assert_eq!(
            shrink("4k3/8/8/8/8/4K3/p7/7R w - - 0 1", "Rh3"),
            " The pawn on a1 became a queen (no piece was named; write [a1=N] to choose)."
        );
        assert_eq!(shrink("4k3/8/8/8/8/4K3/p7/7R w - - 0 1", "Rh1-h3[a1=N]"), "");
    }
}
