//! The game service: a chat message in, replies out. No network and no platform here; adapters
//! turn platform events into [`Incoming`] and send the [`Reply`]s back.
//!
//! Every move is committed to the store before it is acknowledged; every game is rebuilt from its
//! stored moves, so a restart loses nothing.

use anyhow::Result;
use tessera_render::RenderOptions;
use tessera_rules::view::BoardView;
use tessera_rules::{
    Color, DrawReason, Game, Move, Outcome, Position, Role, Square, Variant, WinReason, notation,
};

use crate::commands::{self, ColorChoice, Command, GameRef, Offer, Parsed, Scope};
use crate::store::{Append, Challenge, GameRow, NewGame, Player, Store};

#[path = "service_tournaments.rs"]
mod tournaments;

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
}

/// The one-click answers a reply invites. Platforms without buttons ignore them: the reply's text
/// already names the commands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Actions {
    /// An open challenge (its number): accept or decline; the challenger's decline withdraws it.
    Challenge(i64),
    /// A game in play: resign, offer a draw, flip the board.
    Game(i64),
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
}

/// A message the service sends on its own (reminders, losses on time).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub platform: String,
    pub channel: String,
    pub text: String,
    /// Platform user ids of the players it concerns.
    pub notify: Vec<String>,
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
        Service { store, render: RenderOptions::default() }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    /// Handles one message. Never panics on user input; a failure is a short private reply. A bug
    /// that panics anyway is caught here, logged once, and answered: one message's failure never
    /// takes down the others, and the player is never left without a word.
    pub fn handle(&self, msg: &Incoming) -> Vec<Reply> {
        guarded(|| self.handle_unguarded(msg))
    }

    fn handle_unguarded(&self, msg: &Incoming) -> Vec<Reply> {
        let parsed = match commands::parse(msg.text) {
            Ok(p) => p,
            Err(e) => return vec![Reply::error(e.to_string())],
        };
        let result = match parsed {
            Parsed::Command(cmd) => self.command(msg, cmd),
            Parsed::Plain(text) => self.plain(msg, &text),
        };
        result.unwrap_or_else(|e| vec![Reply::error(e)])
    }

    /// Runs a command the platform has already parsed (slash commands, buttons); `msg.text` is
    /// not read.
    pub fn run(&self, msg: &Incoming, cmd: Command) -> Vec<Reply> {
        guarded(|| self.command(msg, cmd).unwrap_or_else(|e| vec![Reply::error(e)]))
    }

    /// Text not addressed to the bot: a move if it reads as one and the author has a game here;
    /// anything else is people talking, and gets no reply.
    fn plain(&self, msg: &Incoming, text: &str) -> Replies {
        if text.is_empty() || text.len() > commands::MAX_PLAIN_MOVE || notation::parse(text).is_err() {
            return Ok(Vec::new());
        }
        let me = self.me(msg)?;
        let mine: Vec<GameRow> = self
            .store
            .channel_games(msg.platform, msg.channel)
            .map_err(internal)?
            .into_iter()
            .filter(|g| g.white == me.id || g.black == me.id)
            .collect();
        if mine.is_empty() {
            return Ok(Vec::new());
        }
        self.make_move(msg, None, text)
    }

    fn command(&self, msg: &Incoming, cmd: Command) -> Replies {
        match cmd {
            Command::Help => Ok(vec![Reply::text(HELP)]),
            Command::Variants => Ok(vec![Reply::text(variants_text())]),
            Command::Rules(v) => Ok(vec![Reply::text(rules_text(v))]),
            Command::Challenge { variant, color, days, rated } => {
                self.challenge(msg, variant, color, days, rated)
            }
            Command::Rematch(opponent) => self.rematch(msg, opponent),
            Command::Accept(id) => self.accept(msg, id),
            Command::Decline(id) => self.close_challenge(msg, id, false),
            Command::Cancel(id) => self.close_challenge(msg, id, true),
            Command::Move { game, text } => self.make_move(msg, game, &text),
            Command::Board { game, flip } => self.board(msg, game, flip),
            Command::Moves(game) => self.legal_moves(msg, game),
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
        let start =
            Position::from_fen(variant, &row.start_fen).map_err(|_| corrupt(&row, "bad start position"))?;
        let mut game = Game::new(start);
        for (i, text) in row.moves.iter().enumerate() {
            game.play_text(text).map_err(|e| corrupt(&row, &format!("move {} ({text}): {e}", i + 1)))?;
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
        if let Some(id) = id {
            let row = self.store.game(id).map_err(internal)?.filter(|g| g.platform == msg.platform);
            let Some(row) = row else { return Err(format!("there is no game #{id}")) };
            // A game is shown and played only in its own channel (a server's games stay there).
            if row.channel != msg.channel {
                return Err(format!("game #{id} is played in another channel; look at it or move there"));
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
                    "you have {} games in this channel: {}. Add the number, like `!t board #{}`",
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
    ) -> Replies {
        let Some(opponent) = msg.mentions.first() else {
            return Err(format!("name your opponent, like `!t challenge @alice {variant}`"));
        };
        if opponent.id == msg.author.id {
            return Err("you cannot challenge yourself; name someone else".into());
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
        };
        let Some(game_id) = self.store.accept_challenge(c.id, &game).map_err(internal)? else {
            return Err("that challenge was just withdrawn or taken up".into());
        };
        let loaded = self.find(msg, Some(game_id), true)?;
        let to_move = loaded.player(start.turn());
        let mut reply = self.board_reply(&loaded, None, false);
        let mut clock = c.days_per_move.map_or(String::new(), |d| format!(", {d} days per move"));
        if c.rated {
            clock.push_str(", rated");
        }
        reply.text = format!(
            "Game #{game_id} begins: {variant}, {} (white) vs {} (black){clock}. {}, you have the move ({}).",
            loaded.white.name,
            loaded.black.name,
            to_move.name,
            start.turn()
        );
        if to_move.id != me.id {
            reply.notify.push(to_move.user_id.clone());
        }
        Ok(vec![reply])
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

    /// Ends a game whose mover ran out of time; says so.
    fn settle_clock(&self, loaded: &Loaded, now: i64) -> Result<Option<String>, String> {
        let Some(days) = loaded.row.days_per_move else { return Ok(None) };
        if loaded.row.result.is_some() || now < loaded.row.last_move_at + days as i64 * DAY {
            return Ok(None);
        }
        let loser = loaded.game.position().turn();
        let outcome = Outcome::Win { winner: loser.other(), reason: WinReason::Time };
        if !self.store.finish(loaded.row.id, outcome.result(), "time", now).map_err(internal)? {
            // Someone else settled it a moment ago and said so.
            return Ok(None);
        }
        Ok(Some(format!(
            "Game #{}: {} ran out of time. {} ({}).",
            loaded.row.id,
            loaded.player(loser).name,
            outcome,
            outcome.result()
        )))
    }

    fn make_move(&self, msg: &Incoming, id: GameRef, text: &str) -> Replies {
        let me = self.me(msg)?;
        let loaded = self.find(msg, id, false)?;
        if let Some(timeout) = self.settle_clock(&loaded, msg.now)? {
            let mut replies = vec![Reply::text(timeout)];
            replies.extend(self.after_game(loaded.row.id, msg.now));
            return Ok(replies);
        }
        let Some(my_color) = loaded.color_of(&me) else {
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
        let parsed = notation::parse(text).map_err(|e| e.to_string())?;
        let mv = parsed.resolve(&pos).map_err(|e| e.to_string())?;
        let mut game = loaded.game.clone();
        game.play(mv).map_err(|e| e.to_string())?;
        let written = notation::lan(&pos, &mv);
        let stored_text = written.trim_end_matches(['+', '#']).to_string();
        let outcome = game.outcome();
        let result = outcome.map(|o| (o.result(), reason_word(o)));
        let ply = loaded.row.moves.len() + 1;
        match self.store.append_move(loaded.row.id, ply, &stored_text, result, msg.now).map_err(internal)? {
            Append::Stored => {}
            Append::Conflict => {
                let now = self.find(msg, Some(loaded.row.id), true)?;
                let mut r = self.board_reply(&now, None, false);
                r.text = format!(
                    "The position changed before your move arrived; {}. Here is the board now.",
                    status_line(&now)
                );
                return Ok(vec![r]);
            }
        }
        // Committed: now it may be acknowledged.
        let after = self.find(msg, Some(loaded.row.id), true)?;
        let mut text = format!("{} played {}.", me.name, notation::san(&pos, &mv));
        text.push_str(&shrink_promotion_note(&pos, &mv, &parsed.shrink_promotions));
        match outcome {
            Some(o) => text.push_str(&format!(" {o} ({}).", o.result())),
            None => {
                let next = after.game.position().turn();
                text.push_str(&format!(" {}, your move ({next}).", after.player(next).name));
                if let Some(reason) = after.game.claimable_draw() {
                    text.push_str(&format!(" You may claim a draw ({}): `!t claim`.", draw_name(reason)));
                }
            }
        }
        let mut reply = self.board_reply(&after, Some((&pos, &mv)), false);
        reply.text = text;
        let mut replies = vec![reply.notifying(after.player(my_color.other()))];
        if outcome.is_some() {
            replies.extend(self.after_game(loaded.row.id, msg.now));
        }
        Ok(replies)
    }

    fn board_reply(
        &self,
        loaded: &Loaded,
        last: Option<(&Position, &tessera_rules::Move)>,
        flip: bool,
    ) -> Reply {
        let pos = loaded.game.position();
        let view = match last {
            Some(l) => BoardView::new(pos, Some(l)),
            None => self.last_move_view(loaded),
        };
        // Seen from the side to move, unless asked otherwise.
        let from_black = (pos.turn() == Color::Black) != flip;
        let opts = RenderOptions { flip: from_black, ..self.render.clone() };
        let image = tessera_render::render_png(&view, &opts).ok();
        let diagram =
            tessera_render::diagram::text_diagram(pos, if from_black { Color::Black } else { Color::White });
        let actions = loaded.game.outcome().is_none().then_some(Actions::Game(loaded.row.id));
        Reply { text: status_line(loaded), image, diagram: Some(diagram), actions, ..Reply::default() }
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
        let mut replies = Vec::new();
        if let Some(timeout) = self.settle_clock(&loaded, msg.now)? {
            replies.push(Reply::text(timeout));
            replies.extend(self.after_game(loaded.row.id, msg.now));
        }
        replies.push(self.board_reply(&loaded, None, flip));
        Ok(replies)
    }

    fn legal_moves(&self, msg: &Incoming, id: GameRef) -> Replies {
        let loaded = self.find(msg, id, true)?;
        if let Some(o) = loaded.game.outcome() {
            return Err(format!("game #{} is over: {o}", loaded.row.id));
        }
        let pos = loaded.game.position();
        let moves = pos.legal_moves();
        const SHOWN: usize = 120;
        if moves.len() > SHOWN && moves.iter().any(|m| m.actions().count() > 1) {
            return Ok(vec![Reply::text(compound_turns_summary(pos, &moves, loaded.row.id))]);
        }
        let mut list: Vec<String> = moves.iter().take(SHOWN).map(|m| notation::san(pos, m)).collect();
        list.sort();
        let more = if moves.len() > SHOWN {
            format!(" … and {} more", moves.len() - SHOWN)
        } else {
            String::new()
        };
        Ok(vec![Reply::text(format!(
            "{} legal move{} for {} in game #{}: {}{more}",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" },
            pos.turn(),
            loaded.row.id,
            list.join(" ")
        ))])
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
        replies.extend(self.after_game(loaded.row.id, msg.now));
        Ok(replies)
    }

    fn draw(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
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
                replies.extend(self.after_game(loaded.row.id, msg.now));
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
        replies.extend(self.after_game(loaded.row.id, msg.now));
        Ok(replies)
    }

    fn takeback(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
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
                let mut r = self.board_reply(&now, None, false);
                r.text = format!(
                    "Takeback agreed: {count} move{} undone. {}",
                    if count == 1 { "" } else { "s" },
                    status_line(&now)
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
        let rows = match scope {
            Scope::Mine => {
                let me = self.me(msg)?;
                self.store
                    .player_games(me.id)
                    .map_err(internal)?
                    .into_iter()
                    .filter(|g| g.platform == msg.platform)
                    .collect()
            }
            Scope::Channel => self.store.channel_games(msg.platform, msg.channel).map_err(internal)?,
        };
        if rows.is_empty() {
            return Ok(vec![Reply::text("No games running. Start one with `!t challenge @someone hans38`.")]);
        }
        // A bounded answer however many games there are: the newest first.
        const SHOWN: usize = 30;
        let total = rows.len();
        let mut lines = Vec::new();
        for row in rows.into_iter().rev().take(SHOWN) {
            match self.load(row) {
                Ok(l) => lines.push(format!("{}, {}", l.title(), status_line(&l))),
                Err(e) => lines.push(e),
            }
        }
        if total > SHOWN {
            lines.push(format!(
                "… and {} older games; name one with its number, like `!t board #12`",
                total - SHOWN
            ));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    fn history(&self, msg: &Incoming, id: GameRef) -> Replies {
        let loaded = self.find(msg, id, true)?;
        let mut text = format!(
            "[Event \"Tessera game #{}\"]\n[Variant \"{}\"]\n[White \"{}\"]\n[Black \"{}\"]\n",
            loaded.row.id,
            loaded.variant(),
            loaded.white.name,
            loaded.black.name
        );
        if loaded.game.start() != &Position::start(loaded.variant()) {
            text.push_str(&format!("[FEN \"{}\"]\n", loaded.game.start().fen()));
        }
        let result = loaded.game.outcome().map_or("*", |o| o.result());
        text.push_str(&format!("[Result \"{result}\"]\n\n{}", loaded.game.record()));
        Ok(vec![Reply::text(text)])
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
        let key = |s: &str| -> String {
            s.chars()
                .filter(|c| !matches!(c, 'x' | 'X' | '-' | '+' | '#' | ' '))
                .collect::<String>()
                .to_lowercase()
        };
        let typed = key(typed);
        let mut found: Vec<(u8, Suggestion)> = pos
            .legal_moves()
            .iter()
            .filter_map(|mv| {
                let (san, lan) = notation::san_and_lan_unmarked(pos, mv);
                let rank = if key(&san).starts_with(&typed) {
                    0
                } else if key(&lan).starts_with(&typed)
                    || key(lan.trim_start_matches(['K', 'Q', 'R', 'B', 'N'])).starts_with(&typed)
                {
                    1
                } else {
                    return None;
                };
                let label = if san == lan { san.clone() } else { format!("{san}  ({lan})") };
                Some((rank, Suggestion { label, value: san }))
            })
            .collect();
        found.sort_by(|(ra, a), (rb, b)| (ra, a.value.len(), &a.value).cmp(&(rb, b.value.len(), &b.value)));
        found.dedup_by(|a, b| a.1.value == b.1.value);
        found.into_iter().take(limit).map(|(_, s)| s).collect()
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

    /// Reminders and losses on time, for the adapters to post. Call it every few minutes.
    pub fn tick(&self, now: i64) -> Result<Vec<Notice>> {
        let mut notices = Vec::new();
        for row in self.store.clocked_games()? {
            let (platform, channel) = (row.platform.clone(), row.channel.clone());
            let Ok(loaded) = self.load(row) else { continue };
            let Some(days) = loaded.row.days_per_move else { continue };
            let deadline = loaded.row.last_move_at + days as i64 * DAY;
            let mover = loaded.player(loaded.game.position().turn());
            let mut notify = vec![mover.user_id.clone()];
            // One game's failure is logged and skipped: the other games' clocks still run.
            let settled = match self.settle_clock(&loaded, now) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("the clock of game #{} could not be settled: {e}", loaded.row.id);
                    continue;
                }
            };
            let text = if let Some(timeout) = settled {
                notify.push(loaded.player(loaded.game.position().turn().other()).user_id.clone());
                Some(timeout)
            } else if !loaded.row.reminded && now >= deadline - (days as i64 * DAY / 2).min(DAY) {
                if let Err(e) = self.store.mark_reminded(loaded.row.id) {
                    eprintln!("game #{} could not be marked reminded: {e:#}", loaded.row.id);
                    continue;
                }
                let hours = ((deadline - now) / 3600).max(1);
                Some(format!(
                    "{}, it is your move in game #{} ({}); about {hours} hours left.",
                    mover.name,
                    loaded.row.id,
                    loaded.variant()
                ))
            } else {
                None
            };
            if let Some(text) = text {
                notices.push(Notice { platform, channel, text, notify });
            }
        }
        // Tournaments: rounds whose games just ended on time, starts that are due, and any round
        // a crash left unpaired.
        match self.tournament_tick(now) {
            Ok(more) => notices.extend(more),
            Err(e) => eprintln!("the tournaments' tick failed: {e:#}"),
        }
        Ok(notices)
    }
}

/// Whether `color` has made a move in the game (each stored move is one whole turn).
fn has_moved(loaded: &Loaded, color: Color) -> bool {
    let first = loaded.game.start().turn();
    let plies = loaded.game.moves().len();
    if color == first { plies >= 1 } else { plies >= 2 }
}

/// Turns of several actions run to tens of thousands: list how they begin, with how many turns
/// each beginning has, and one whole turn as an example.
fn compound_turns_summary(pos: &Position, moves: &[tessera_rules::Move], game: i64) -> String {
    // Counted by first action; only the distinct beginnings are written out.
    let mut counts: std::collections::HashMap<tessera_rules::Action, usize> =
        std::collections::HashMap::new();
    for mv in moves {
        *counts.entry(mv.first()).or_default() += 1;
    }
    let mut starts: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(first, n)| (notation::san_and_lan_unmarked(pos, &tessera_rules::Move::single(first)).0, n))
        .collect();
    starts.sort();
    let example = moves.iter().find(|m| m.actions().count() > 1).unwrap_or(&moves[0]);
    const SHOWN: usize = 80;
    let mut list: Vec<String> =
        starts.iter().take(SHOWN).map(|(first, n)| format!("{first} ({n})")).collect();
    if starts.len() > SHOWN {
        list.push(format!("… and {} more", starts.len() - SHOWN));
    }
    format!(
        "{} legal turns for {} in game #{game}. They begin with: {}. Write the whole turn, like `{}`.",
        moves.len(),
        pos.turn(),
        list.join(" "),
        notation::san_and_lan_unmarked(pos, example).0
    )
}

fn status_line(l: &Loaded) -> String {
    match l.game.outcome() {
        Some(o) => format!("game over: {o} ({})", o.result()),
        None => {
            let turn = l.game.position().turn();
            format!("move {}, {} to move ({turn})", l.game.position().fullmoves(), l.player(turn).name)
        }
    }
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
/// transaction the panic interrupted, so nothing half-done is kept.
fn guarded(handle: impl FnOnce() -> Vec<Reply>) -> Vec<Reply> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(handle)) {
        Ok(replies) => replies,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!("a message's handling failed: {what}");
            vec![Reply::error("something went wrong on my side and nothing was changed; please try again")]
        }
    }
}

fn internal(e: anyhow::Error) -> String {
    // The details go to the operator's log, not to the channel.
    eprintln!("storage error: {e:#}");
    "something went wrong on my side and nothing was changed; please try again".into()
}

fn corrupt(row: &GameRow, what: &str) -> String {
    eprintln!("game #{} cannot be rebuilt: {what}", row.id);
    format!("game #{} cannot be loaded (its stored record is damaged); an operator has to look at it", row.id)
}

const HELP: &str = "Tessera plays chess variants whose board changes. Commands start with `!t`:
`!t challenge @name [variant] [white|black] [3d]` · `!t accept` · `!t decline` · `!t cancel` · `!t rematch [@name]`
`!t move e2-e4` (or just write the move in the game's channel) · `!t board [flip]` · `!t moves`
`!t resign` · `!t draw [accept|decline]` · `!t claim` · `!t takeback [accept|decline]`
`!t games [mine]` · `!t history` · `!t variants` · `!t rules [variant]`. Name a game with #12 when you have several.
Ratings: add `rated` to a challenge · `!t rating [@name] [variant]` · `!t leaderboard [variant]` · `!t profile [@name]`
Tournaments: `!t tournament create swiss|round-robin|double-round-robin|knockout [variant] [rounds 5] [3d] [rated|casual] [limit 32] [bye 1|1/2|0] [in 2h] [name ...]`
`!t tournament join|leave|start|standings|pairings [round]|withdraw [@name]|pause|resume|cancel|export` · `!t tournament result #12 1-0|0-1|1/2|+-|-+|-- [reason]` · `!t tournaments`. Name a tournament with t3.
On Discord each is also a slash command (`/challenge`, `/move` suggests your legal moves), with buttons.";

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

fn rules_text(v: Option<Variant>) -> String {
    let Some(v) = v else {
        return "Say which variant, like `!t rules hans38`; `!t variants` lists them.".into();
    };
    let notes = match v {
        Variant::Chess => "FIDE rules.",
        Variant::Hans38
        | Variant::Hans38Postal
        | Variant::Hans38PostalPlus
        | Variant::Hans38Neutral
        | Variant::Hans38NeutralPostal
        | Variant::Hans38NeutralPostalPlus => {
            "Only ranks 1, 2, 7, 8 hold squares. Sliders need squares all along; knights leap holes. A turn moves a piece, moves an empty square of yours up to two steps (`@g1-g3`), or places one from hand (`@@e4`). The square your opponent just moved stays put this turn (one they only placed may move). Stalemate loses."
        }
        Variant::InfiniteReserves | Variant::MovingOccupiedSquares => {
            "Each turn: a piece move, then a placement (`@@e4`), and optionally a square move (`@g1-g3`), written together: `Ng1-f3 @@e4`. The squares your opponent just placed or moved stay put this turn. From the fourth turn the square a piece leaves vanishes. Stalemate loses."
        }
        Variant::QuadSquare => {
            "7x8 board with quad-squares S1–S4, M1, M2 holding up to two pieces. Move with quad names (`c3-M1`, `M1xd6`); name the piece you take on a quad (`Qd3xM1(N)`). Bishops may sacrifice (`Bd3xM1`), rooks pin pieces sharing their quad, castling swaps king and rook."
        }
        Variant::TiledSquares => {
            "Ranks 3–6 start empty. A turn moves a piece, drops a tile (`@@e4`) or an anti-tile (`@!e4`), or removes an empty tile of yours (`@xe4`). Pieces land on tiles; the king lays tiles as it walks."
        }
        Variant::BlueChip => {
            "Black starts by placing the chip (`[e5]`). Then every move places the chip where your opponent may not move next: `e2-e4[d5]`."
        }
        Variant::Shrink => {
            "A rank or file that a move empties disappears and the board closes up towards a1. Promotions by a shrink: `Rh1-h3[a1=N]`."
        }
    };
    format!("{}: {}. {notes}", v.name(), v.summary())
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
