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

pub use crate::command_spec::Actions;
use crate::command_spec::Suggest;
use crate::commands::{self, ColorChoice, Command, GameRef, Offer, Parsed, Scope};
use crate::model::{Append, BotOpponent, Challenge, GameId, GameRow, NewGame, Player, StoredDefinition};
use crate::outbox::{NewNotice, NoticeKind};
use crate::store::Store;
use crate::turn_list::{self, key_begins, long_begins_like, move_key};
use challenges::ClockTerms;

mod board;
mod challenges;
mod clock;
mod committed;
mod conditional;
mod listings;
mod lists;
mod messages;
mod offers;
mod settings;
mod suggestions;
mod tournaments;
mod turns;
pub(crate) use turns::reason_word;
mod vacation;

mod threads;

pub mod public;

use committed::Committed;
pub use messages::*;

mod outbox;
mod practice;

mod analysis;
pub use analysis::{ANALYSIS_BOUNDS, HINT_LIMITS};
pub use practice::PracticeMove;
use practice::think_time;

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
    practice: crate::queue::Queue<crate::queue::Job>,
    /// Tournaments to move on (pair, finish), for the pairing worker.
    tournaments: crate::queue::Queue,
    /// Chat mode pairs rounds on a worker thread ([`tessera_bot::practice::Worker::pairing`]) and answers
    /// at once; the local mode and tests pair within the answer.
    pub pair_on_worker: bool,
    /// This process's name in the outbox's claims.
    holder: String,
    claims: std::sync::atomic::AtomicU64,
    /// Rung when this process wrote notices that wait to be posted ([`Service::on_notices`]).
    bells: std::sync::Mutex<Vec<Bell>>,
    /// Where the bot's web pages are (`web_base_url`), for the links it posts.
    pub web_base_url: Option<String>,
    /// The ratings the web pages last showed, and when they were worked out.
    public_ratings: std::sync::Mutex<Option<(std::time::Instant, std::sync::Arc<crate::ratings::Ratings>)>>,
    /// What each position of an analysis may take ([`crate::analysis::position_limits`]; tests
    /// give a depth alone, so that their results do not depend on the machine's speed).
    pub analysis_limits: tessera_engine::Limits,
    /// What a hint may take ([`HINT_LIMITS`]).
    pub hint_limits: tessera_engine::Limits,
    /// The legal turns of the positions players are typing a move in, written for autocomplete.
    turn_texts: crate::turn_texts::TurnTexts,
    /// Whether each committed turn queues its game for [`Service::write_turns_step`], so the next
    /// player's first keystroke finds the position's turns written: on where a platform suggests
    /// turns as they are typed (Discord) and a worker takes the queue.
    pub write_turns_ahead: bool,
    /// Games whose position is to be written ahead, for that worker.
    turns_ahead: crate::queue::Queue,
}

/// What the service rings when notices wait to be posted: the runtime's delivery loop wakes.
pub type Bell = Box<dyn Fn() + Send + Sync>;

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
    /// When the player to move runs out of time ([`Service::deadline_of`]), for a running game on
    /// a clock.
    deadline: Option<i64>,
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
            holder: crate::process::new_holder(),
            claims: Default::default(),
            bells: Default::default(),
            web_base_url: None,
            public_ratings: Default::default(),
            analysis_limits: crate::analysis::position_limits(),
            hint_limits: HINT_LIMITS,
            turn_texts: Default::default(),
            write_turns_ahead: false,
            turns_ahead: Default::default(),
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

    /// Rings `bell` whenever this process writes notices that nobody posted yet, so a delivery
    /// loop posts them at once instead of at its next look.
    pub fn on_notices(&self, bell: impl Fn() + Send + Sync + 'static) {
        self.bells.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(Box::new(bell));
    }

    fn ring_bells(&self) {
        for bell in self.bells.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).iter() {
            bell();
        }
    }

    /// The practice worker's jobs: the bot's turns and hints, then analyses.
    pub fn practice_queue(&self) -> &crate::queue::Queue<crate::queue::Job> {
        &self.practice
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    /// Handles one message. Never panics on user input; a failure is a short private reply. A bug
    /// that panics anyway is caught here, logged once, and answered: one message's failure never
    /// takes down the others, and the player is never left without a word.
    pub fn handle(&self, msg: &Incoming) -> Vec<Reply> {
        guarded(|| {
            self.placed(msg, |msg| {
                let mut replies = self.handle_unguarded(msg);
                self.to_threads(&mut replies);
                replies
            })
        })
        .into_iter()
        .map(Reply::capped)
        .collect()
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
            self.placed(&Incoming { text: &text, ..msg.clone() }, |msg| {
                let mut replies = self.command(msg, cmd).unwrap_or_else(|e| vec![Reply::error(e)]);
                self.to_threads(&mut replies);
                replies
            })
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
        // In a running game's thread, plain text is about that game alone: a move of one of its
        // players, or a spectator's talk, which is no business of the bot's.
        let game = match (game, msg.thread.and_then(|t| here.iter().find(|g| g.thread() == Some(t)))) {
            (None, Some(g)) if g.white == me.id || g.black == me.id => Some(g.id),
            (None, Some(_)) => return Ok(Vec::new()),
            (game, _) => game,
        };
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
            Command::Help => Ok(vec![Reply::text(crate::commands::help())]),
            Command::Variants => Ok(vec![Reply::text(variants_text())]),
            Command::Rules(v) => {
                // With a picture of the start, its features drawn (holes, quads, hands, tiles).
                let image =
                    tessera_render::render_png(&BoardView::new(&Position::start(v), None), &self.render).ok();
                Ok(vec![Reply { image, ..Reply::text(v.help()) }])
            }
            Command::Challenge { variant, color, days, weekends_off, rated, level } => {
                self.challenge(msg, variant, color, ClockTerms { days, weekends_off }, rated, level)
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
            Command::Conditional { game, line } => Ok(self.conditional(msg, game, line.as_deref())),
            Command::Vacation(length) => self.vacation(msg, length.as_deref()),
            Command::Waiting => self.waiting(msg),
            Command::Note { game, text } => self.note(msg, game, text.as_deref()),
            Command::Watch(game, on) => self.watch(msg, game, on),
            Command::Share(game, on) => self.share(msg, game, on),
            Command::Archive { variant, page } => self.archive(msg, variant, page),
            Command::Analyse(game) => self.analyse(msg, game),
            Command::Hint(game) => self.hint(msg, game),
        }
    }

    fn me(&self, msg: &Incoming) -> Result<Player, String> {
        self.store.player(msg.platform, &msg.author.id, &msg.author.name).map_err(internal)
    }

    fn load(&self, row: GameRow) -> Result<Loaded, String> {
        self.load_keeping(row, true)
    }

    /// A game loaded for a look (a web page, an export): the cache helps but is not filled, so
    /// reading thousands of finished games does not push out the games being played.
    fn load_to_read(&self, row: GameRow) -> Result<Loaded, String> {
        self.load_keeping(row, false)
    }

    /// The variant a stored game plays: a community variant's by the definition the game
    /// started with, whatever has since happened to its file.
    fn game_variant(&self, row: &GameRow) -> Result<Variant, String> {
        crate::variants::stored_variant(&self.store, &row.variant, row.variant_key.as_deref())
    }

    /// The variant a tournament's games play: for a community variant, the definition the
    /// tournament was created with.
    fn tournament_variant(&self, t: &crate::model::TournamentRow) -> Result<Variant, String> {
        crate::variants::stored_variant(&self.store, &t.variant, t.variant_key.as_deref())
    }

    fn load_keeping(&self, row: GameRow, keep: bool) -> Result<Loaded, String> {
        let variant = self.game_variant(&row).map_err(|e| corrupt(&row, &e))?;
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
        if keep && cached < row.moves.len() {
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
        let deadline = if game.outcome().is_none() { self.deadline_of(&row) } else { None };
        Ok(Loaded { row, game, white, black, deadline })
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
        // In a game's thread, that game, for anyone: a player's other games are named by number
        // there (a spectator's `!t resign` in it must not resign a game of their own).
        if let Some(row) = msg.thread.and_then(|t| here.iter().find(|g| g.thread() == Some(t))) {
            return self.load(row.clone());
        }
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
        // Not typed: a slash command or the form (conditional turns tell the two apart).
        Command::Conditional { .. } => "/conditional".into(),
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
    // Issue 30: a player's own, never a channel's default (not in CHANNEL_SETTINGS).
    Setting {
        key: "digest",
        values: &["off", "on"],
        what: "a direct message once a day listing your games waiting for your move",
    },
    Setting {
        key: "ping",
        values: &["channel", "dm"],
        what: "channel: your opponent's move pings you in the game's channel; dm: a direct message too",
    },
];

/// The channel's own settings first, then the players' defaults.
const CHANNEL_SETTINGS: [Setting; 6] = [
    Setting { key: "gifs", values: &["on", "off"], what: "a finished game is posted as an animated GIF" },
    SETTINGS[0],
    SETTINGS[1],
    SETTINGS[2],
    SETTINGS[3],
    Setting {
        key: threads::THREADS,
        values: &["off", "on"],
        what: "each new game is played in a thread of its own",
    },
];

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
    match l.deadline {
        Some(at) if at > now => format!(", {} left", time_left(at - now)),
        Some(_) => ", out of time".into(),
        None => String::new(),
    }
}

/// A draw's reason as a player reads it: the move-count rules by the variant's own count (a
/// community variant may set another than 50). The stored reason stays [`draw_name`]'s.
fn draw_text(reason: DrawReason, variant: Variant) -> String {
    let moves = variant.rules().move_limit.map_or(50, u32::from);
    match reason {
        DrawReason::FiftyMoves => format!("the {moves}-move rule"),
        DrawReason::SeventyFiveMoves => format!("the {}-move rule", moves * 3 / 2),
        other => draw_name(other).to_string(),
    }
}

/// A draw's reason as the store keeps it (and [`declared_outcome`] reads it back).
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
/// once, by the panic hook ([`tessera_bot::logging::init`]).
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
    Variant::all()
        .into_iter()
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
    let (built_in, community): (Vec<Variant>, Vec<Variant>) =
        Variant::all().into_iter().partition(|v| v.is_built_in());
    for v in built_in {
        out.push_str(&format!("`{}` — {}\n", v.name(), v.summary()));
    }
    if !community.is_empty() {
        out.push_str("Community variants (defined by files on this server; `!t rules NAME` explains one):\n");
        for v in community {
            out.push_str(&format!("`{}` — {}\n", v.name(), v.summary()));
        }
    }
    out
}

/// Whether `color` has made a move in the game (each stored move is one whole turn).
fn has_moved(loaded: &Loaded, color: Color) -> bool {
    let first = loaded.game.start().turn();
    let plies = loaded.game.moves().len();
    if color == first { plies >= 1 } else { plies >= 2 }
}

#[cfg(test)]
mod tests;
