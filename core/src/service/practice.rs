//! Games against the bot itself (issue 16): starting one, the bot's own turns, and what differs
//! from a game between people.
//!
//! Decisions, each for a reason:
//! - Never rated, never clocked: a fixed-strength opponent that anyone can replay would feed
//!   farmed points into the people's rating pool, and practice should carry no rating fear; the
//!   bot answers in seconds, so a clock would only ever run against the person.
//! - No draws by agreement: the bot neither offers nor accepts one (it would need an opinion of
//!   the position it cannot yet give); draws by rule happen as always, and the person may claim
//!   one on their move.
//! - A takeback needs no answer: it undoes the person's last move, and the bot's reply if it has
//!   given one, so it is the person's move again.
//!
//! The search runs on the practice worker's one thread ([`crate::practice`]); its move is
//! committed through [`Service::commit_turn`], the path of a person's move, and only if the game
//! is still exactly as the bot saw it.

use std::time::Instant;

use tessera_engine::Level;

use super::*;

/// The level a challenge to the bot gets when it names none: in the middle, a fair first game.
pub const DEFAULT_LEVEL: u8 = 3;

/// Running games against the bot one player may have on a platform: each is a turn on the one
/// worker thread, so one player cannot fill its queue for everyone else.
pub const MAX_GAMES_EACH: usize = 5;

thread_local! {
    /// One search (and its fixed-size table) per thread that thinks for the bot: the worker's
    /// later turns profit from what its earlier ones learnt, and memory stays one table a thread.
    static SEARCHER: std::cell::RefCell<tessera_engine::Searcher> = std::cell::RefCell::new(tessera_engine::Searcher::new());
}

/// The bot's chosen turn in a game, not yet committed: for the position after `moves`.
#[derive(Clone, Debug)]
pub struct PracticeMove {
    game: GameId,
    moves: Vec<String>,
    mv: Move,
}

/// How long a level thinks at most, as players read it.
pub(super) fn think_time(level: u8) -> String {
    let ms = Level::new(level).map_or(0, |l| l.movetime().as_millis());
    if ms < 1000 { format!("{ms} ms") } else { format!("{:.1} s", ms as f64 / 1000.0) }
}

impl<S: Store> Service<S> {
    /// `!t challenge @bot`: the game begins at once, the bot playing at `level` (default
    /// [`DEFAULT_LEVEL`]); if the bot has the first move, its worker is told.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn practice_start(
        &self,
        msg: &Incoming,
        bot: &User,
        variant: Variant,
        color: ColorChoice,
        days: Option<u32>,
        rated: bool,
        level: Option<u8>,
    ) -> Replies {
        if rated {
            return Err(
                "games against me are practice and never rated (a bot anyone can replay would skew the \
                 players' ratings); leave out `rated`"
                    .into(),
            );
        }
        if days.is_some() {
            return Err(
                "games against me have no clock (I answer within seconds, you take your time); leave out \
                 the days"
                    .into(),
            );
        }
        let level = match level {
            None => DEFAULT_LEVEL,
            Some(n) => Level::new(n)
                .ok_or_else(|| {
                    format!("level {n} does not exist: say `level 1` (gentle) to `level 5` (my best)")
                })?
                .number(),
        };
        let me = self.me(msg)?;
        let running = self.store.player_games(me.id).map_err(internal)?;
        if running.iter().filter(|g| g.platform == msg.platform && g.bot.is_some()).count() >= MAX_GAMES_EACH
        {
            return Err(format!(
                "you already have {MAX_GAMES_EACH} games against me running; finish one (or `!t resign #N`) \
                 first"
            ));
        }
        let them = self.store.player(msg.platform, &bot.id, &bot.name).map_err(internal)?;
        let me_white = match color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            // As an accepted challenge draws them: no extra dependency, fair enough for colours.
            ColorChoice::Random => (msg.now ^ me.id ^ running.len() as i64).rem_euclid(2) == 0,
        };
        let (white, black) = if me_white { (me.id, them.id) } else { (them.id, me.id) };
        let start = Position::start(variant);
        let game = NewGame {
            platform: msg.platform,
            channel: msg.channel,
            variant: variant.name(),
            start_fen: &start.fen(),
            white,
            black,
            days_per_move: None,
            rated: false,
            now: msg.now,
            bot: Some(BotOpponent { player: them.id, level }),
            weekends_off: false,
            definition: StoredDefinition::of(variant),
        };
        let id = self.store.create_game(&game).map_err(internal)?;
        let loaded = self.find(msg, Some(id), true)?;
        let turn = start.turn();
        let bot_to_move = loaded.player(turn).id == them.id;
        let next = if bot_to_move {
            format!("{} has the move ({turn}) and is thinking.", them.name)
        } else {
            format!("{}, you have the move ({turn}).", me.name)
        };
        let mut reply = self.board_reply(&loaded, None, false, msg.now);
        reply.text = format!(
            "Game #{id} begins: {variant}, {} (white) vs {} (black), practice against me at level {level} of 5 \
             ({} a move at most; not rated). {next}",
            loaded.white.name,
            loaded.black.name,
            think_time(level)
        );
        let mut replies = vec![reply];
        self.after_commit(&mut replies, id, Committed::GoesOn { bot_to_move }, msg.now);
        Ok(replies)
    }

    /// Queues every running game against the bot on `platforms` (all when `None`) where the bot is
    /// to move: at start, a restart resumes what it was thinking about. With `waiting_since`, only
    /// the games waiting since then or longer (the clock's holder takes up turns a dead process
    /// left). Returns how many.
    pub fn practice_resume(&self, platforms: Option<&[&str]>, waiting_since: Option<i64>) -> Result<usize> {
        let mut queued = 0;
        for row in self.store.bot_games()? {
            if platforms.is_some_and(|ps| !ps.contains(&row.platform.as_str()))
                || waiting_since.is_some_and(|t| row.last_move_at > t)
            {
                continue;
            }
            let Some(bot) = row.bot else { continue };
            let Some(turn) = super::listings::row_turn(&row) else { continue };
            let to_move = if turn == Color::White { row.white } else { row.black };
            if to_move == bot.player {
                self.practice.push(crate::queue::Job::Turn(row.id));
                queued += 1;
            }
        }
        Ok(queued)
    }

    /// The bot's turn in `game`: thinks, then commits and announces it, as the worker does. Nothing
    /// when the game is over or not the bot's to move. A panic is caught and said in the channel:
    /// the worker goes on with the other games.
    pub fn practice_turn(&self, game: GameId, now: i64) -> Vec<Notice> {
        let started = Instant::now();
        let turn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let thought = self.practice_think(game, now)?;
            Some(self.practice_commit(thought, now + started.elapsed().as_secs() as i64))
        }));
        match turn {
            Ok(notices) => notices.unwrap_or_default(),
            Err(_) => {
                tracing::error!(game, "the bot's turn panicked");
                let Ok(Some(row)) = self.store.game(game) else { return Vec::new() };
                let text = format!(
                    "Game #{game}: something went wrong on my side and I could not play my turn; nothing was \
                     changed. I try again when I restart, or end the game with `!t resign #{game}`."
                );
                vec![Notice { platform: row.platform, channel: row.channel, text, ..Notice::default() }]
            }
        }
    }

    /// The bot's choice in `game` (the search: up to its level's time), or `None` when it is not
    /// the bot's to move. `now` and the position seed the level's randomness.
    pub fn practice_think(&self, game: GameId, now: i64) -> Option<PracticeMove> {
        let row = match self.store.game(game) {
            Ok(row) => row?,
            Err(e) => {
                tracing::error!(game, "the bot could not read its game: {e:#}");
                return None;
            }
        };
        let bot = row.bot.filter(|_| row.result.is_none())?;
        let loaded = self.load(row).ok()?;
        let turn = loaded.game.position().turn();
        if loaded.game.outcome().is_some() || loaded.player(turn).id != bot.player {
            return None;
        }
        let level = Level::new(bot.level).or(Level::new(DEFAULT_LEVEL))?;
        let ply = loaded.row.moves.len() as u64;
        let seed = (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (ply << 32) ^ now as u64;
        let choice = SEARCHER.with(|searcher| searcher.borrow_mut().play(&loaded.game, level, seed))?;
        tracing::debug!(game, depth = choice.depth, nodes = choice.nodes, "the bot chose its turn");
        Some(PracticeMove { game, moves: loaded.row.moves, mv: choice.mv })
    }

    /// Commits the bot's choice, if the game is still exactly as the bot saw it (the person may
    /// have resigned or taken back meanwhile: then the choice is dropped), and announces it in
    /// the game's channel as any opponent's move is.
    pub fn practice_commit(&self, thought: PracticeMove, now: i64) -> Vec<Notice> {
        let Ok(Some(row)) = self.store.game(thought.game) else { return Vec::new() };
        let Some(bot) = row.bot else { return Vec::new() };
        if row.result.is_some() || row.moves != thought.moves {
            tracing::debug!(
                game = thought.game,
                "the game moved on while the bot thought; its turn is dropped"
            );
            return Vec::new();
        }
        let Ok(loaded) = self.load(row) else { return Vec::new() };
        let before = loaded.game.position().clone();
        let me = loaded.player(before.turn()).clone();
        if me.id != bot.player || loaded.game.outcome().is_some() {
            return Vec::new();
        }
        let mut game = loaded.game.clone();
        if let Err(e) = game.play(thought.mv) {
            tracing::error!(game = thought.game, "the bot chose an illegal turn: {e}");
            return Vec::new();
        }
        let (platform, channel) = (loaded.row.platform.clone(), loaded.row.channel.clone());
        let author = User::new(me.user_id.clone(), me.name.clone());
        let msg = Incoming {
            platform: &platform,
            channel: &channel,
            author: &author,
            is_admin: false,
            text: "",
            mentions: &[],
            now,
            thread: None,
        };
        match self.commit_turn(&msg, &me, loaded, game, &before, &thought.mv, None, None) {
            Ok(Some(mut replies)) => {
                self.to_threads(&mut replies);
                replies.into_iter().map(|r| Notice::posting(&platform, &channel, r)).collect()
            }
            Ok(None) => {
                tracing::debug!(
                    game = thought.game,
                    "the game moved on as the bot played; its turn is dropped"
                );
                Vec::new()
            }
            Err(e) => {
                tracing::error!(game = thought.game, "the bot's turn could not be committed: {e}");
                Vec::new()
            }
        }
    }

    /// `!t takeback` against the bot: granted at once. Undoes the person's last move, and the
    /// bot's answer if it has given one, so it is the person's move again; a search under way
    /// finds the game changed and is dropped.
    pub(super) fn practice_takeback(&self, msg: &Incoming, offer: Offer, id: GameRef) -> Replies {
        let (me, loaded, color) = self.participant(msg, id)?;
        let game = loaded.row.id;
        if offer != Offer::Offer {
            return Err("I never ask for takebacks; `!t takeback` takes back your last move at once".into());
        }
        if !has_moved(&loaded, color) {
            return Err("there is no move to take back: you have not moved yet".into());
        }
        let moves = loaded.row.moves.len();
        let count = if loaded.game.position().turn() == color { 2 } else { 1 };
        // Asked and granted in one go, on the moves the person saw: a move of the bot's that got in
        // first withdraws the request, as it would a person's.
        self.store.set_takeback_offer(game, Some(me.id)).map_err(internal)?;
        if !self.store.take_back(game, moves, count.min(moves), me.id, msg.now).map_err(internal)? {
            self.store.set_takeback_offer(game, None).map_err(internal)?;
            return Err(format!(
                "game #{game} moved on as you asked (I had just played); look at the board and ask again"
            ));
        }
        let now = self.find(msg, Some(game), true)?;
        let mut r = self.board_reply(&now, None, false, msg.now);
        let what = if count == 2 { "your last move and my answer are" } else { "your last move is" };
        r.text = format!("Taken back: {what} undone. {}", status_line(&now, msg.now));
        Ok(vec![r.of_game(game)])
    }
}
