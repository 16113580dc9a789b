//! A thread per game (issue 30): in a channel with `threads on`, each new game gets a thread of
//! its own, started from the message that announces it (or the challenge it answers, where the
//! adapter has that message at hand); the game's moves, pictures and notices
//! are posted there, and a move typed in the thread (or, as before, in the channel) finds its
//! game. The adapters make the threads and post in them; what goes where is decided here.

use super::*;

/// The channel setting that gives each new game its own thread.
pub(super) const THREADS: &str = "threads";

impl<S: Store> Service<S> {
    /// The game whose thread a message was written in, when the platform gives a thread a
    /// channel of its own (Discord): the message is then the game's channel's, in that thread.
    /// A message the platform already placed in a thread (Matrix) is where it says.
    pub(super) fn thread_home(&self, msg: &Incoming) -> Option<GameRow> {
        if msg.thread.is_some() {
            return None;
        }
        match self.store.thread_game(msg.platform, msg.channel) {
            Ok(row) => row,
            Err(e) => {
                tracing::error!(channel = msg.channel, "could not look for a game's thread: {e:#}");
                None
            }
        }
    }

    /// Runs `f` on the message as placed: in its game's channel and thread when it was written
    /// in a thread with a channel of its own ([`Self::thread_home`]).
    pub(super) fn placed<T>(&self, msg: &Incoming, f: impl FnOnce(&Incoming) -> T) -> T {
        match self.thread_home(msg) {
            Some(row) => f(&Incoming { channel: &row.channel, thread: Some(msg.channel), ..msg.clone() }),
            None => f(msg),
        }
    }

    /// The game's thread, where it has one to post in.
    pub(super) fn game_thread(&self, game: GameId) -> Option<String> {
        match self.store.game(game) {
            Ok(row) => row?.thread().map(str::to_string),
            Err(e) => {
                tracing::error!(game, "could not read a game's thread: {e:#}");
                None
            }
        }
    }

    /// Sends the public replies announcing a change to a game to that game's thread, where it has
    /// one. Errors, private answers and answers to looking (a board asked for) stay where the
    /// command was typed.
    pub(super) fn to_threads(&self, replies: &mut [Reply]) {
        let mut known: Vec<(GameId, Option<String>)> = Vec::new();
        for reply in replies.iter_mut().filter(|r| !r.private && !r.secret && r.thread.is_none()) {
            let Some(game) = reply.game else { continue };
            let thread = match known.iter().find(|(g, _)| *g == game) {
                Some((_, t)) => t.clone(),
                None => {
                    let t = self.game_thread(game);
                    known.push((game, t.clone()));
                    t
                }
            };
            reply.thread = thread;
        }
    }

    /// The thread a game just begun wants: in a channel with threads on, for a running game that
    /// has none yet and no move (a game is given its thread when it begins, never later).
    pub(super) fn thread_opening(&self, loaded: &Loaded) -> Option<ThreadOpening> {
        let row = &loaded.row;
        if row.thread.is_some() || !row.moves.is_empty() || loaded.game.outcome().is_some() {
            return None;
        }
        let on = self.store.channel_setting(&row.platform, &row.channel, THREADS).ok().flatten();
        if on.as_deref() != Some("on") {
            return None;
        }
        let name =
            format!("Game #{} {}: {} vs {}", row.id, loaded.variant(), loaded.white.name, loaded.black.name);
        // Discord's limit for a thread's name.
        Some(ThreadOpening { game: row.id, name: name.chars().take(100).collect() })
    }

    /// Records the thread an adapter made for a game (`None`: it could not, and the game goes on
    /// in its channel with no further try). True if it is the game's thread now; false when the
    /// game had one already (another process made it first: the caller removes its own, where
    /// it can) or is gone.
    pub fn thread_made(&self, game: GameId, thread: Option<&str>) -> bool {
        match self.store.set_game_thread(game, thread.unwrap_or_default()) {
            Ok(set) => set,
            Err(e) => {
                tracing::error!(game, "could not record a game's thread: {e:#}");
                false
            }
        }
    }
}
