//! Players, challenges and games as the store keeps them.

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
    /// The platform's id of the game's own thread in `channel` (a Discord thread's channel, a
    /// Matrix thread's root event), where its moves and notices are posted; empty once making
    /// one failed (the game stays in the channel), `None` while it has none.
    pub thread: Option<String>,
}

impl GameRow {
    /// The game's thread, where it has one to post in.
    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref().filter(|t| !t.is_empty())
    }
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
    pub fn from_columns(player: Option<PlayerId>, level: Option<u8>) -> Option<BotOpponent> {
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
pub fn may_append(stored: &[String], finished: bool, ply: usize, before: Option<&[String]>) -> bool {
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
