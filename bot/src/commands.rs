//! Chat text to commands. Platform-neutral: mentions arrive already resolved by the adapter.

use std::fmt;

use tessera_rules::Variant;

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
    List,
    Join(TournamentRef),
    Leave(TournamentRef),
    Start(TournamentRef),
    Standings(TournamentRef),
    Pairings(TournamentRef, Option<u32>),
    /// Withdraw yourself, or (organiser) the player mentioned.
    Withdraw(TournamentRef),
    /// The organiser sets a game's result: `1-0`, `0-1`, `1/2-1/2`, or forfeits `+-`, `-+`, `--`.
    Result {
        tournament: TournamentRef,
        game: i64,
        result: String,
        reason: String,
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
    Rules(Option<Variant>),
    Challenge {
        variant: Variant,
        color: ColorChoice,
        days: Option<u32>,
        rated: bool,
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
    Moves(GameRef),
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
    let trimmed = text.trim();
    // Only the start decides whether the bot is addressed; long chat is not its business.
    let head: String = trimmed.chars().take(16).collect::<String>().to_ascii_lowercase();
    let Some(prefix) = PREFIXES.iter().find(|p| {
        head.strip_prefix(**p).is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace))
    }) else {
        return Ok(Parsed::Plain(trimmed.to_string()));
    };
    let chars = text.chars().count();
    if chars > MAX_MESSAGE {
        return err(format!(
            "that message is {chars} characters long; I read at most {MAX_MESSAGE}. Commands are short, like `!t move e4`"
        ));
    }
    parse_command(trimmed[prefix.len()..].trim()).map(Parsed::Command)
}

/// Whether a word mentions a user (`@bob`, Discord's `<@123>`) rather than writing a square action
/// (`@@e4`, `@g1-g3`, `@!e4`, `@xe4`).
pub fn is_mention(word: &str) -> bool {
    if word.starts_with("<@") && word.ends_with('>') {
        return true;
    }
    let Some(rest) = word.strip_prefix('@') else { return false };
    let b = rest.as_bytes();
    let square_at =
        |i: usize| b.len() > i + 1 && (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]);
    !(rest.is_empty()
        || rest.starts_with(['@', '!'])
        || square_at(0)
        || (b.first() == Some(&b'x') && square_at(1)))
}

/// A tournament number written `t3` (or `T3`).
fn tournament_number(word: &str) -> Option<i64> {
    let digits = word.strip_prefix(['t', 'T'])?;
    digits.parse::<i64>().ok().filter(|n| *n > 0 && digits.chars().all(|c| c.is_ascii_digit()))
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
    let Some(name) = words.first().map(|w| w.to_ascii_lowercase()) else { return Ok(Command::Help) };
    let args = &words[1..];
    let offer = |args: &[String]| -> Result<Offer, CommandError> {
        match args.first().map(|a| a.to_ascii_lowercase()).as_deref() {
            None | Some("offer") => Ok(Offer::Offer),
            Some("accept" | "yes") => Ok(Offer::Accept),
            Some("decline" | "no") => Ok(Offer::Decline),
            Some(other) => err(format!("\"{other}\": say offer, accept or decline")),
        }
    };
    Ok(match name.as_str() {
        "help" | "?" => Command::Help,
        "variants" => Command::Variants,
        "rules" => Command::Rules(match args.first() {
            Some(v) => Some(v.parse::<Variant>().map_err(|e| CommandError(e.to_string()))?),
            None => None,
        }),
        "challenge" | "play" => parse_challenge(args)?,
        "rematch" | "revenge" => Command::Rematch(None),
        "accept" => Command::Accept(game),
        "decline" => Command::Decline(game),
        "cancel" | "withdraw" => Command::Cancel(game),
        "move" | "m" => {
            if args.is_empty() {
                return err("say which move, like `!t move e2-e4`");
            }
            Command::Move { game, text: args.join(" ") }
        }
        "board" | "show" => {
            Command::Board { game, flip: args.iter().any(|a| a.eq_ignore_ascii_case("flip")) }
        }
        "moves" | "legal" => Command::Moves(game),
        "resign" => Command::Resign(game),
        "draw" => Command::Draw(offer(args)?, game),
        "claim" => Command::Claim(game),
        "takeback" | "undo" => Command::Takeback(offer(args)?, game),
        "games" => Command::Games(match args.first().map(|a| a.to_ascii_lowercase()).as_deref() {
            Some("mine") | Some("my") => Scope::Mine,
            _ => Scope::Channel,
        }),
        "history" | "pgn" | "record" => Command::History(game),
        "tournament" | "tourney" | "tour" | "tn" => Command::Tournament(parse_tournament(args, game)?),
        "tournaments" => Command::Tournament(TournamentCommand::List),
        "rating" | "ratings" | "elo" => Command::Rating(optional_variant(args)?),
        "leaderboard" | "top" | "ladder" => Command::Leaderboard(optional_variant(args)?),
        "profile" | "stats" => Command::Profile,
        other => {
            return err(format!(
                "I don't know \"{}\". Try `!t help`",
                other.chars().take(24).collect::<String>()
            ));
        }
    })
}

fn optional_variant(args: &[String]) -> Result<Option<Variant>, CommandError> {
    match args.first() {
        Some(v) => Ok(Some(v.parse::<Variant>().map_err(|e| CommandError(e.to_string()))?)),
        None => Ok(None),
    }
}

/// `3`, `3d`, `days 3`: days per move, 1 to 30.
fn days_word(word: &str) -> Option<Result<u32, CommandError>> {
    let n = word.strip_suffix('d')?.parse::<u32>().ok()?;
    Some(if (1..=30).contains(&n) { Ok(n) } else { err("days per move is a number from 1 to 30, like `3d`") })
}

fn number_after(
    args: &[String],
    i: usize,
    what: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, CommandError> {
    args.get(i + 1).and_then(|n| n.parse::<u32>().ok()).filter(|n| range.contains(n)).ok_or_else(|| {
        CommandError(format!(
            "{what} is a number from {} to {}, like `{what} {}`",
            range.start(),
            range.end(),
            range.start().max(&2)
        ))
    })
}

fn parse_tournament(args: &[String], game: GameRef) -> Result<TournamentCommand, CommandError> {
    let mut tournament: TournamentRef = None;
    let mut rest: Vec<&String> = Vec::new();
    for a in args {
        match tournament_number(a) {
            Some(n) => tournament = Some(n),
            None => rest.push(a),
        }
    }
    let Some(sub) = rest.first().map(|w| w.to_ascii_lowercase()) else {
        return Ok(TournamentCommand::List);
    };
    let rest: Vec<String> = rest[1..].iter().map(|s| s.to_string()).collect();
    Ok(match sub.as_str() {
        "create" | "new" => TournamentCommand::Create(parse_tournament_settings(&rest)?),
        "list" | "all" => TournamentCommand::List,
        "join" | "enter" => TournamentCommand::Join(tournament),
        "leave" => TournamentCommand::Leave(tournament),
        "start" | "begin" => TournamentCommand::Start(tournament),
        "standings" | "table" | "results" => TournamentCommand::Standings(tournament),
        "pairings" | "round" => {
            let round = match rest.first() {
                Some(r) => Some(r.parse::<u32>().ok().filter(|r| *r > 0).ok_or_else(|| {
                    CommandError(format!("\"{r}\" is not a round; say `!t tournament pairings 2`"))
                })?),
                None => None,
            };
            TournamentCommand::Pairings(tournament, round)
        }
        "withdraw" | "retire" => TournamentCommand::Withdraw(tournament),
        "result" | "set" => {
            let Some(game) = game else {
                return err("name the game and the result, like `!t tournament result #12 1-0 no show`");
            };
            let Some(result) = rest.first().and_then(|r| result_word(r)) else {
                return err(
                    "say the result: 1-0, 0-1, 1/2, or a forfeit +- (White wins), -+ (Black wins), -- (both lose)",
                );
            };
            let reason = rest[1..].join(" ");
            let reason = if reason.trim().is_empty() { "set by the organiser".to_string() } else { reason };
            TournamentCommand::Result { tournament, game, result: result.to_string(), reason }
        }
        "pause" => TournamentCommand::Pause(tournament),
        "resume" | "continue" => TournamentCommand::Resume(tournament),
        "cancel" | "abort" => TournamentCommand::Cancel(tournament),
        "export" | "trf" => TournamentCommand::Export(tournament),
        other => {
            return err(format!(
                "\"{}\" is not a tournament command; say create, join, leave, start, standings, pairings, withdraw, result, pause, resume, cancel or export",
                other.chars().take(24).collect::<String>()
            ));
        }
    })
}

fn result_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "1-0" => "1-0",
        "0-1" => "0-1",
        "1/2" | "1/2-1/2" | "½" | "½-½" | "draw" | "=" => "1/2-1/2",
        "+-" | "+/-" | "1-0f" => "+-",
        "-+" | "-/+" | "0-1f" => "-+",
        "--" | "-/-" | "0-0" => "--",
        _ => return None,
    })
}

fn parse_tournament_settings(args: &[String]) -> Result<TournamentSettings, CommandError> {
    let mut settings = TournamentSettings {
        format: Format::Swiss,
        variant: Variant::Chess,
        rounds: None,
        days: None,
        rated: true,
        max_players: None,
        starts_in: None,
        bye_halves: 2,
        name: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_ascii_lowercase();
        match a.as_str() {
            "rounds" | "round" => {
                settings.rounds = Some(number_after(args, i, "rounds", 1..=30)?);
                i += 1;
            }
            "days" | "day" => {
                settings.days = Some(number_after(args, i, "days", 1..=30)?);
                i += 1;
            }
            "limit" | "max" | "players" => {
                settings.max_players = Some(number_after(args, i, "limit", 2..=4000)?);
                i += 1;
            }
            "rated" => settings.rated = true,
            "casual" | "unrated" => settings.rated = false,
            "bye" => {
                settings.bye_halves = match args.get(i + 1).map(String::as_str) {
                    Some("1") => 2,
                    Some("1/2" | "½" | "0.5") => 1,
                    Some("0") => 0,
                    _ => return err("a bye is worth 1, 1/2 or 0 points, like `bye 1`"),
                };
                i += 1;
            }
            "in" => {
                let spec = args.get(i + 1).map(|s| s.to_ascii_lowercase()).unwrap_or_default();
                let cut = spec.char_indices().last().map_or(0, |(i, _)| i);
                let (n, unit) = spec.split_at(cut);
                let seconds = match (n.parse::<i64>(), unit) {
                    (Ok(n), "m") if (1..=60 * 24 * 60).contains(&n) => n * 60,
                    (Ok(n), "h") if (1..=24 * 60).contains(&n) => n * 3600,
                    (Ok(n), "d") if (1..=60).contains(&n) => n * 86_400,
                    _ => return err("say when it starts like `in 30m`, `in 2h` or `in 3d`"),
                };
                settings.starts_in = Some(seconds);
                i += 1;
            }
            "name" | "called" => {
                let name = args[i + 1..].join(" ");
                if name.trim().is_empty() {
                    return err("give the name after `name`, like `name Winter Cup`");
                }
                settings.name = Some(name.chars().take(80).collect());
                break;
            }
            _ => {
                if let Some(format) = Format::parse(&a) {
                    settings.format = format;
                } else if let Some(days) = days_word(&a) {
                    settings.days = Some(days?);
                } else {
                    settings.variant = a.parse::<Variant>().map_err(|_| {
                        CommandError(format!(
                            "\"{}\" is neither a format (swiss, round-robin, double-round-robin, knockout) nor a variant; \
                             `!t variants` lists the variants",
                            a.chars().take(24).collect::<String>()
                        ))
                    })?;
                }
            }
        }
        i += 1;
    }
    if settings.format == Format::Swiss && settings.rounds.is_none() {
        return err("a Swiss needs its number of rounds, like `!t tournament create swiss hans38 rounds 5`");
    }
    if settings.format != Format::Swiss && settings.rounds.is_some() {
        return err(
            "only a Swiss takes a number of rounds; round robin and knockout follow from the players",
        );
    }
    Ok(settings)
}

fn parse_challenge(args: &[String]) -> Result<Command, CommandError> {
    let mut variant = Variant::Chess;
    let mut color = ColorChoice::Random;
    let mut days = None;
    let mut rated = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_ascii_lowercase();
        match a.as_str() {
            "rated" => rated = true,
            "casual" | "unrated" => rated = false,
            "white" | "w" => color = ColorChoice::White,
            "black" | "b" => color = ColorChoice::Black,
            "random" => color = ColorChoice::Random,
            "days" | "day" => {
                let n = args.get(i + 1).and_then(|n| n.parse::<u32>().ok());
                days = Some(n.filter(|n| (1..=30).contains(n)).ok_or_else(|| {
                    CommandError("days per move is a number from 1 to 30, like `days 3`".into())
                })?);
                i += 1;
            }
            _ if a.ends_with('d') && a[..a.len() - 1].parse::<u32>().is_ok() => {
                let n: u32 = a[..a.len() - 1].parse().unwrap_or(0);
                if !(1..=30).contains(&n) {
                    return err("days per move is a number from 1 to 30, like `3d`");
                }
                days = Some(n);
            }
            _ => variant = a.parse::<Variant>().map_err(|e| CommandError(e.to_string()))?,
        }
        i += 1;
    }
    Ok(Command::Challenge { variant, color, days, rated })
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
                rated: false
            }
        );
        assert_eq!(
            cmd("!t play <@123> quad-square days 7 rated"),
            Command::Challenge {
                variant: Variant::QuadSquare,
                color: ColorChoice::Random,
                days: Some(7),
                rated: true
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
        for a in ["@@e4", "@g1-g3", "@e4e6", "@!e4", "@xe4", "@"] {
            assert!(!is_mention(a), "{a}");
        }
    }

    #[test]
    fn bad_commands_say_what_would_be_right() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert!(e("!t frobnicate").contains("!t help"));
        assert!(e("!t challenge @bob checkers").contains("unknown variant"));
        assert!(e("!t challenge @bob days 99").contains("1 to 30"));
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
