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
    /// The game's clock will stop at weekends ([`GameRow::weekends_off`]).
    pub weekends_off: bool,
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
    /// The clock stops on Saturday and Sunday in the time zone of the player to move.
    pub weekends_off: bool,
    /// The platform's id of the game's own thread in `channel` (a Discord thread's channel, a
    /// Matrix thread's root event), where its moves and notices are posted; empty once making
    /// one failed (the game stays in the channel), `None` while it has none.
    pub thread: Option<String>,
    /// The community variant's definition the game started under ([`crate::store::Store::variant_definition`]);
    /// `None` for a built-in, whose rules are compiled in.
    pub variant_key: Option<String>,
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
    /// A conditional line was given or removed since the mover read them: read them again.
    LinesChanged,
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
    pub weekends_off: bool,
    /// A community variant's file, stored with the game (once per text) so the game keeps its
    /// rules whatever later happens to the file; `None` for a built-in.
    pub definition: Option<StoredDefinition<'a>>,
}

/// A community variant's definition as a game keeps it: the key ([`tessera_rules::Variant::key`]) and
/// the file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredDefinition<'a> {
    pub key: &'a str,
    pub text: &'a str,
}

impl StoredDefinition<'static> {
    /// What a game of `variant` stores: nothing for a built-in.
    pub fn of(variant: tessera_rules::Variant) -> Option<StoredDefinition<'static>> {
        variant.source().map(|text| StoredDefinition { key: variant.key(), text })
    }
}

/// A conditional line ([`crate::store::Store::conditional_lines`]): the turns a player has
/// planned, the opponent's first, alternating, in the game's stored notation. Alive while the game
/// has exactly `from_ply` moves (and so the opponent is to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionalLine {
    pub id: i64,
    pub player: PlayerId,
    pub from_ply: usize,
    pub turns: Vec<String>,
}

/// What a move's commit does to the game's conditional lines, checked and written in the move's
/// transaction ([`crate::store::Store::append_turns`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinesAfter {
    /// The ids of the game's lines as the mover read them: another line given meanwhile makes the
    /// commit answer [`Append::LinesChanged`], changing nothing.
    pub seen: Vec<i64>,
    /// The lines that live on, shortened: (id, the game's move count after the commit, the turns
    /// still to come). Every other line of the game is dropped.
    pub kept: Vec<(i64, usize, Vec<String>)>,
}

/// A vacation ([`crate::store::Store::vacations`]): from `start` to `end`, unix seconds (`end` is
/// when it was ended, if it was ended early).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Vacation {
    pub player: PlayerId,
    pub start: i64,
    pub end: i64,
}

/// What [`crate::store::Store::start_vacation`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VacationStart {
    Started,
    /// One is running already, until then.
    AlreadyOn {
        until: i64,
    },
    /// It would pass the allowance: this many seconds of it are used already.
    OverAllowance {
        used: i64,
    },
}
