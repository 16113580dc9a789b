//! Chat text to commands. Platform-neutral: mentions arrive already resolved by the adapter.

use std::fmt;

use tessera_rules::Variant;

use crate::command_table::{self, CommandSpec};
use crate::tournament_store::Format;

/// Longest command the bot reads; a longer one is refused unread.
pub const MAX_MESSAGE: usize = 2000;

/// Longest plain message that may be a move: the longest turn (a piece move, a square move and a
/// placement, with a promotion) is far shorter. Longer plain messages are chat.
pub const MAX_PLAIN_MOVE: usize = 80;

/// Prefixes that address the bot.
pub const PREFIXES: [&str; 2] = ["!tessera", "!t"];

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

fn err<T>(msg: impl Into<String>) -> Result<T, CommandError> {
    Err(CommandError(msg.into()))
}

pub fn parse(text: &str) -> Result<Parsed, CommandError> {
    let Some(command) = addressed(text) else { return Ok(Parsed::Plain(text.trim().to_string())) };
    let chars = text.chars().count();
    if chars > MAX_MESSAGE {
        return err(format!(
            "that message is {chars} characters long; I read at most {MAX_MESSAGE}. Commands are short, like `!t move e4`"
        ));
    }
    parse_command(command).map(Parsed::Command)
}

/// What follows the prefix of a message addressed to the bot.
fn addressed(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    // Only the start decides whether the bot is addressed; long chat is not its business.
    let head: String = trimmed.chars().take(16).collect::<String>().to_ascii_lowercase();
    let prefix = PREFIXES.iter().find(|p| {
        head.strip_prefix(**p).is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace))
    })?;
    Some(trimmed[prefix.len()..].trim())
}

/// The declaration of the command a message addresses to the bot, before its options are read.
pub fn addressed_command(text: &str) -> Option<&'static CommandSpec> {
    let command = addressed(text).filter(|_| text.chars().count() <= MAX_MESSAGE)?;
    command_table::spec_of(&split(command).0)
}

/// Whether a word mentions a user (`@bob`, Discord's `<@123>`) rather than writing a square action
/// (`@@e4`, `@g1-g3`, `@!e4`, `@xe4`) or how one begins (`@x`, as in `!t moves @x`).
pub fn is_mention(word: &str) -> bool {
    if word.starts_with("<@") && word.ends_with('>') {
        return true;
    }
    let Some(rest) = word.strip_prefix('@') else { return false };
    let b = rest.as_bytes();
    let square_at =
        |i: usize| b.len() > i + 1 && (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]);
    !(rest.is_empty()
        || rest.eq_ignore_ascii_case("x")
        || rest.starts_with(['@', '!'])
        || square_at(0)
        || (b.first() == Some(&b'x') && square_at(1)))
}

/// The words of a command, without mentions (the adapter resolves those) and without `#id`.
fn split(text: &str) -> (Vec<String>, GameRef, Result<(), CommandError>) {
    let mut words = Vec::new();
    let mut game = None;
    let mut problem = Ok(());
    for w in text.split_whitespace() {
        if is_mention(w) {
            continue;
        }
        if let Some(n) = w.strip_prefix('#') {
            match n.parse::<i64>() {
                Ok(id) if id > 0 => game = Some(id),
                _ => problem = err(format!("\"{w}\" is not a game number; games are named like #12")),
            }
            continue;
        }
        words.push(w.to_string());
    }
    (words, game, problem)
}

fn parse_command(text: &str) -> Result<Command, CommandError> {
    let (words, game, problem) = split(text);
    problem?;
    command_table::from_words(&words, game, text.split_whitespace().any(is_mention))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str) -> Command {
        match parse(text).unwrap() {
            Parsed::Command(c) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn commands_read() {
        assert_eq!(cmd("!t"), Command::Help);
        assert_eq!(
            cmd("!tessera challenge @bob hans38 white 3d"),
            Command::Challenge {
                variant: Variant::Hans38,
                color: ColorChoice::White,
                days: Some(3),
                rated: false,
                level: None
            }
        );
        assert_eq!(
            cmd("!t play <@123> quad-square days 7 rated"),
            Command::Challenge {
                variant: Variant::QuadSquare,
                color: ColorChoice::Random,
                days: Some(7),
                rated: true,
                level: None
            }
        );
        assert_eq!(
            cmd("!t move Ng1-f3 @@e4 #4"),
            Command::Move { game: Some(4), text: "Ng1-f3 @@e4".into() }
        );
        assert_eq!(cmd("!T board flip"), Command::Board { game: None, flip: true });
        assert_eq!(cmd("!t draw"), Command::Draw(Offer::Offer, None));
        assert_eq!(cmd("!t takeback accept #2"), Command::Takeback(Offer::Accept, Some(2)));
        assert_eq!(cmd("!t games mine"), Command::Games(Scope::Mine));
        assert_eq!(cmd("!t rematch @bob"), Command::Rematch(None));
        assert_eq!(parse("e4").unwrap(), Parsed::Plain("e4".into()));
        assert_eq!(parse("!tea time").unwrap(), Parsed::Plain("!tea time".into()));
    }

    #[test]
    fn mentions_and_square_actions_are_told_apart() {
        for m in ["@bob", "@Alice_2", "<@123456>"] {
            assert!(is_mention(m), "{m}");
        }
        for a in ["@@e4", "@g1-g3", "@e4e6", "@!e4", "@xe4", "@", "@x"] {
            assert!(!is_mention(a), "{a}");
        }
    }

    #[test]
    fn bad_commands_say_what_would_be_right() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert!(e("!t frobnicate").contains("!t help"));
        assert!(e("!t challenge @bob checkers").contains("unknown variant"));
        assert!(e("!t challenge @bob days 99").contains("1 to 30"));
        assert!(e("!t challenge @tessera level 9").contains("level is a number from 1 to 5"));
        assert!(e("!t challenge @tessera level x").contains("level is a number from 1 to 5"));
        assert!(e("!t board #x").contains("#12"));
        assert!(e("!t move").contains("!t move e2-e4"));
        assert!(e("!t draw maybe").contains("offer, accept or decline"));
        let long = format!("!t move {}", "e4 ".repeat(4000));
        assert!(e(&long).contains("at most 2000"));
        assert!(e(&long).len() < 200);
        // Long chat is not addressed to the bot: it is not refused, just not read as a command.
        let chat = "a long story ".repeat(400);
        assert_eq!(parse(&chat), Ok(Parsed::Plain(chat.trim().to_string())));
    }
}
