//! What a command is once read: the values the service acts on, whatever the text or the slash
//! form that gave them.

use std::fmt;

use tessera_rules::Variant;

use crate::model::Format;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

impl ColorChoice {
    pub fn name(self) -> &'static str {
        match self {
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
            ColorChoice::Random => "random",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Offer, or accept when the opponent has offered.
    Offer,
    Accept,
    Decline,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Mine,
    Channel,
}

/// A game named by number (`#12`), or the one game the context points to.
pub type GameRef = Option<i64>;

/// A tournament named by number (`t3`), or the one running in the channel.
pub type TournamentRef = Option<i64>;

/// How a tournament is set up: `!t tournament create swiss hans38 rounds 5 3d rated limit 32`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentSettings {
    pub format: Format,
    pub variant: Variant,
    /// Swiss: the number of rounds (round robin and knockout follow from the entries).
    pub rounds: Option<u32>,
    pub days: Option<u32>,
    pub rated: bool,
    pub max_players: Option<u32>,
    /// Seconds from now until it starts by itself.
    pub starts_in: Option<i64>,
    /// Points for a pairing-allocated bye, in halves.
    pub bye_halves: u32,
    pub name: Option<String>,
    /// Days of vacation a player may take in its games: `None` as each player's allowance, 0 none.
    pub vacation_days: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TournamentCommand {
    Create(TournamentSettings),
    /// The channel's tournaments, a page at a time.
    List(Option<u32>),
    Join(TournamentRef),
    Leave(TournamentRef),
    Start(TournamentRef),
    Standings(TournamentRef),
    Pairings(TournamentRef, Option<u32>),
    /// Withdraw yourself (`me`, or nothing said), or (organiser) the player mentioned or named.
    Withdraw(TournamentRef, Option<String>),
    /// The organiser sets a game's result: `1-0`, `0-1`, `1/2-1/2`, or forfeits `+-`, `-+`, `--`.
    Result {
        tournament: TournamentRef,
        game: i64,
        result: String,
        reason: String,
        /// A result already set is changed only when the organiser says `correct`: of two
        /// settings at once, the second is refused rather than taken for a correction.
        correct: bool,
    },
    Pause(TournamentRef),
    Resume(TournamentRef),
    Cancel(TournamentRef),
    /// The tournament as FIDE TRF-16, for an arbiter's own program.
    Export(TournamentRef),
    /// (Organiser) a page on the web for the tournament (`true`), or none any more (`false`).
    Publish(TournamentRef, bool),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Variants,
    Rules(Variant),
    Challenge {
        variant: Variant,
        color: ColorChoice,
        days: Option<u32>,
        /// `noweekend`: Saturday and Sunday do not count on the clock.
        weekends_off: bool,
        rated: bool,
        /// The practice opponent's strength, 1 to 5, for a challenge to the bot itself.
        level: Option<u8>,
    },
    /// Challenge the opponent of an earlier game (the platform user id given, else the one
    /// mentioned, else the latest) to the same variant and clock, colours swapped.
    Rematch(Option<String>),
    Accept(GameRef),
    Decline(GameRef),
    Cancel(GameRef),
    Move {
        game: GameRef,
        text: String,
    },
    Board {
        game: GameRef,
        flip: bool,
    },
    /// Legal turns, only those beginning like `start` when given (`Be2`, `@`).
    Moves {
        game: GameRef,
        start: Option<String>,
    },
    /// Play the turn the bot asked the author to confirm.
    Confirm(GameRef),
    /// Show the author's settings, or change one (`confirm off`, `board mine`).
    Settings(Option<String>),
    /// Show the channel's settings, or (moderators) change one (`gifs off`).
    Channel(Option<String>),
    Resign(GameRef),
    Draw(Offer, GameRef),
    Claim(GameRef),
    Takeback(Offer, GameRef),
    Games(Scope),
    History(GameRef),
    Tournament(TournamentCommand),
    /// A player's ratings (the one mentioned, else the author), in one variant or all.
    Rating(Option<Variant>),
    Leaderboard(Option<Variant>),
    /// A player's ratings, results and recent games.
    Profile,
    /// Show the author's conditional turns in a game, `clear` them, or plan a line.
    Conditional {
        game: GameRef,
        line: Option<String>,
    },
    /// Start a vacation (`5d`), end it (`off`), or show the allowance.
    Vacation(Option<String>),
    // Issue 30: play over days.
    /// The author's games on this platform where it is their move, least time left first.
    Waiting,
    /// The author's private note on a game: shown (`None`), replaced, or cleared (`clear`).
    Note {
        game: GameRef,
        text: Option<String>,
    },
    /// A direct message on every turn of a game (`true`), or no more (`false`).
    Watch(GameRef, bool),
    /// Finished games, newest first: of the player mentioned (else the author), of one variant
    /// when given, a page at a time.
    Archive {
        variant: Option<Variant>,
        page: Option<u32>,
    },
    /// (A player) a page on the web for a game (`true`), or none any more (`false`).
    Share(GameRef, bool),
    // Issue 32: analysis after the game, and the practice hint.
    /// A finished game's analysis: the stored one, or queued.
    Analyse(GameRef),
    /// In a practice game, the engine's turn for its player, privately.
    Hint(GameRef),
}

/// What a message is: a command, a plain message that might be a move, or too long to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Command(Command),
    /// Text not addressed to the bot: a move if it reads as one in a game channel, else chat.
    Plain(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError(pub String);

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
