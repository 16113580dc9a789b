//! Chat text to commands. Platform-neutral: mentions arrive already resolved by the adapter.

pub use crate::command::*;
use crate::command_spec::{
    Args, ButtonSpec, CommandSpec, GroupSpec, Kind, Raw, Section, Suggest, or_list, read_text,
    tournament_number,
};
use crate::command_table::{BUTTONS, COMMANDS, TOURNAMENT};

/// Longest command the bot reads; a longer one is refused unread.
pub const MAX_MESSAGE: usize = 2000;

/// Longest plain message that may be a move: the longest turn (a piece move, a square move and a
/// placement, with a promotion) is far shorter. Longer plain messages are chat.
pub const MAX_PLAIN_MOVE: usize = 80;

/// Prefixes that address the bot.
pub const PREFIXES: [&str; 2] = ["!tessera", "!t"];

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
    spec_of(&split(command).0)
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
                // Two games in one command (a note that names another game): which is meant is
                // not guessed.
                Ok(id) if id > 0 && game.is_some_and(|g| g != id) => {
                    problem = err(format!(
                        "this names two games (#{} and {w}); name one, like `!t board #12`",
                        game.unwrap_or_default()
                    ))
                }
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
    from_words(&words, game, text.split_whitespace().any(is_mention))
}

pub fn button_spec(id: &str) -> Option<&'static ButtonSpec> {
    BUTTONS.iter().find(|b| b.id == id)
}

/// The command a button stands for, on game or tournament `number`.
pub fn button_command(b: &ButtonSpec, number: i64) -> Result<Command, CommandError> {
    button_command_with(b, number, None)
}

/// As [`button_command`], with what the presser wrote in the button's form ([`ButtonSpec::asks`]).
pub fn button_command_with(
    b: &ButtonSpec,
    number: i64,
    asked: Option<&str>,
) -> Result<Command, CommandError> {
    let spec = by_path(b.command).ok_or_else(|| CommandError(format!("no command {}", b.command)))?;
    let mut args = Args::default();
    let target = spec
        .options
        .iter()
        .find(|o| matches!(o.kind, Kind::Game | Kind::Tournament))
        .ok_or_else(|| CommandError(format!("{} names no game or tournament", b.command)))?;
    args.give(spec, target, Raw::Number(number))?;
    for (name, word) in b.fixed {
        let o =
            spec.option(name).ok_or_else(|| CommandError(format!("{} has no option {name}", b.command)))?;
        args.give(spec, o, Raw::Word(word))?;
    }
    if let (Some(name), Some(text)) = (b.asks, asked.map(str::trim).filter(|t| !t.is_empty())) {
        let o =
            spec.option(name).ok_or_else(|| CommandError(format!("{} has no option {name}", b.command)))?;
        args.give(spec, o, Raw::Word(text))?;
    }
    args.complete(spec, false)?;
    (spec.build)(&args)
}

/// A command by its path: `board`, `tournament join`.
pub fn by_path(path: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.path() == path)
}

/// What option `option` of the command at `path` suggests while typed, as the table declares it.
/// A client that names only the group (`tournament`, not `tournament join`) gets the suggestion
/// any of the group's commands declares for an option of that name.
pub fn suggestion(path: &str, option: &str) -> Option<Suggest> {
    if let Some(spec) = by_path(path) {
        return spec.option(option)?.suggest;
    }
    COMMANDS
        .iter()
        .filter(|c| c.group.is_some_and(|g| g.name == path))
        .find_map(|c| c.option(option)?.suggest)
}

/// A top-level command or group by a name or alias, in lower case.
fn named(word: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.group.is_none() && (c.name == word || c.aliases.contains(&word)))
}

fn subcommand(group: &GroupSpec, word: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| {
        c.group.is_some_and(|g| g.name == group.name) && (c.name == word || c.aliases.contains(&word))
    })
}

/// The command a message's words name (none: help), and the words after its name.
fn lookup(words: &[String]) -> Result<(&'static CommandSpec, Vec<String>), CommandError> {
    let first = words.first().map_or_else(|| "help".to_string(), |w| w.to_ascii_lowercase());
    if TOURNAMENT.name != first && !TOURNAMENT.aliases.contains(&first.as_str()) {
        let spec = named(&first).ok_or_else(|| {
            CommandError(format!(
                "I don't know \"{}\". Try `!t help`",
                first.chars().take(24).collect::<String>()
            ))
        })?;
        return Ok((spec, words.get(1..).unwrap_or_default().to_vec()));
    }
    // The subcommand is the first word that is not a tournament number (`t3 join` reads too).
    let mut rest = words[1..].to_vec();
    let at = rest.iter().position(|w| tournament_number(w).is_none());
    let sub = at.map_or_else(|| TOURNAMENT.default.to_string(), |i| rest.remove(i).to_ascii_lowercase());
    let spec = subcommand(&TOURNAMENT, &sub).ok_or_else(|| {
        let names: Vec<&str> = COMMANDS.iter().filter(|c| c.group.is_some()).map(|c| c.name).collect();
        CommandError(format!(
            "\"{}\" is not a tournament command; say {}",
            sub.chars().take(24).collect::<String>(),
            or_list(&names)
        ))
    })?;
    Ok((spec, rest))
}

/// The command in a message's words (mentions and `#12` already taken out; `game` is that number).
/// `mentioned`: the message named someone with a mention.
pub fn from_words(words: &[String], game: GameRef, mentioned: bool) -> Result<Command, CommandError> {
    let (spec, rest) = lookup(words)?;
    let args = read_text(spec, &rest, game).map_err(|e| {
        // `!t challenge bob`: a name without its @ is not an unknown variant.
        let names_someone = spec.options.iter().any(|o| matches!(o.kind, Kind::User { .. }));
        let word = e.0.strip_prefix("unknown variant \"").and_then(|r| r.split('"').next());
        match word.filter(|w| names_someone && !mentioned && !w.contains(' ')) {
            Some(word) => CommandError(format!(
                "\"{word}\" is not a variant; to name a player, mention them with @, like `!t {} @{word} chess`",
                spec.path()
            )),
            None => e,
        }
    })?;
    args.complete(spec, false)?;
    (spec.build)(&args)
}

/// Which command the words name, before its options are read.
pub fn spec_of(words: &[String]) -> Option<&'static CommandSpec> {
    lookup(words).ok().map(|(spec, _)| spec)
}

/// A slash command (`path`: `board`, `tournament join`) with its options.
pub fn from_slash(path: &str, given: &[(&str, Raw)]) -> Result<Command, CommandError> {
    let spec = by_path(path)
        .filter(|c| c.slash)
        .ok_or_else(|| CommandError(format!("I have no command /{path} any more; `/help` lists mine")))?;
    let mut args = Args::default();
    for (name, raw) in given {
        let o = spec.option(name).ok_or_else(|| CommandError(format!("/{path} has no option {name}")))?;
        args.give(spec, o, *raw)?;
    }
    args.complete(spec, true)?;
    (spec.build)(&args)
}

/// `!t help`, from the table.
pub fn help() -> String {
    let mut out = String::from(
        "Tessera plays chess variants whose board changes. Commands start with `!t`; in a game's channel \
         a move can also be written alone. Name a game with #12 and a tournament with t3 when there are several. \
         To practise, challenge me: I answer at once, at `level` 1-5 (3 unless chosen), never rated.",
    );
    for section in Section::ALL {
        let usages: Vec<String> =
            COMMANDS.iter().filter(|c| c.section == section).map(|c| format!("`{}`", c.usage())).collect();
        out.push_str(&format!("\n{}: {}", section.title(), usages.join(" · ")));
    }
    out.push_str(
        "\nOn Discord they are slash commands too (`/challenge`, `/tournament join`; `/move` suggests your \
         legal moves), with buttons.",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::Variant;

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
                variant: Variant::HANS38,
                color: ColorChoice::White,
                days: Some(3),
                weekends_off: false,
                rated: false,
                level: None
            }
        );
        assert_eq!(
            cmd("!t play <@123> quad-square days 7 noweekend rated"),
            Command::Challenge {
                variant: Variant::QUAD_SQUARE,
                color: ColorChoice::Random,
                days: Some(7),
                weekends_off: true,
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
        assert_eq!(
            cmd("!t conditional #7 @@e5 Ng1-f3 @e2-e4"),
            Command::Conditional { game: Some(7), line: Some("@@e5 Ng1-f3 @e2-e4".into()) }
        );
        assert_eq!(cmd("!t cond #7"), Command::Conditional { game: Some(7), line: None });
        assert_eq!(cmd("!t vacation 5d"), Command::Vacation(Some("5d".into())));
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

#[cfg(test)]
mod table_tests {
    use super::*;
    use crate::command_spec::Strays;
    use crate::model::Format;
    use tessera_rules::Variant;

    fn read(text: &str) -> Command {
        match parse(text) {
            Ok(Parsed::Command(c)) => c,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn help_lists_every_command_with_its_options() {
        let help = help();
        for spec in COMMANDS {
            assert!(help.contains(&format!("`{}`", spec.usage())), "{} is missing from help", spec.path());
        }
        assert!(help.chars().count() <= 2000, "help fits one Discord message: {}", help.chars().count());
        assert_eq!(read("!t help"), Command::Help);
    }

    #[test]
    fn every_example_reads_under_every_name() {
        for spec in COMMANDS {
            let command = read(&spec.example_text());
            let mut names: Vec<String> = Vec::new();
            for name in std::iter::once(&spec.name).chain(spec.aliases) {
                match spec.group {
                    Some(g) => {
                        names.extend(std::iter::once(&g.name).chain(g.aliases).map(|g| format!("{g} {name}")))
                    }
                    None => names.push(name.to_string()),
                }
            }
            for name in names {
                assert_eq!(read(&format!("!t {name} {}", spec.example)), command, "{name}");
            }
        }
        assert_eq!(read("!t tournament"), read(&format!("!t tournament {}", TOURNAMENT.default)));
    }

    #[test]
    fn every_option_can_be_written() {
        for spec in COMMANDS {
            let mut keywords = Vec::new();
            for o in spec.options {
                if let Kind::Choice { choices, read } = o.kind {
                    for c in choices {
                        assert_eq!(read(c.value), Some(c.value), "{} {}", spec.path(), o.name);
                    }
                }
                for k in o.keywords {
                    assert!(!keywords.contains(k), "{}: keyword {k} twice", spec.path());
                    assert!(
                        !spec.options.iter().any(|other| other.claims(k)),
                        "{}: {k} is a value",
                        spec.path()
                    );
                    keywords.push(k);
                }
                // How else would text give it: a word of its own, a keyword, a mention, `#12`, the strays.
                let by_strays = matches!(spec.strays, Strays::Each(n) | Strays::First(n) | Strays::Join(n) if n == o.name);
                let own_word = matches!(o.kind, Kind::Tournament | Kind::Flag { .. } | Kind::Days)
                    || matches!(o.kind, Kind::Choice { .. }) && o.keywords.is_empty();
                let elsewhere = matches!(o.kind, Kind::Game | Kind::User { .. } | Kind::Opponent);
                assert!(
                    by_strays || own_word || elsewhere || !o.keywords.is_empty(),
                    "{} {}",
                    spec.path(),
                    o.name
                );
            }
            if let Strays::Each(n) | Strays::First(n) | Strays::Join(n) = spec.strays {
                assert!(spec.option(n).is_some(), "{}: strays go to {n}", spec.path());
            }
            let required: Vec<bool> = spec.options.iter().map(|o| o.required).collect();
            assert!(required.windows(2).all(|w| w[0] || !w[1]), "{}: required options first", spec.path());
        }
    }

    #[test]
    fn every_button_runs_what_its_text_form_runs() {
        for b in BUTTONS {
            if let Some((yes, _)) = b.confirm {
                let yes = button_spec(yes).unwrap_or_else(|| panic!("{} confirms with {yes}", b.id));
                assert!(yes.confirm.is_none() && yes.command == b.command, "{}", b.id);
                continue;
            }
            let spec = by_path(b.command).unwrap();
            let number = if spec.options.iter().any(|o| matches!(o.kind, Kind::Game)) { "#7" } else { "t7" };
            let words: Vec<&str> = b.fixed.iter().map(|(_, w)| *w).collect();
            let text = format!("!t {} {number} {}", b.command, words.join(" "));
            assert_eq!(button_command(b, 7), Ok(read(&text)), "{}", b.id);
        }
    }

    #[test]
    fn free_order_text_still_reads() {
        assert_eq!(
            read("!t tournament create knockout quad-square 2d casual max 8 bye 0 in 30m called Cup t5 #3"),
            Command::Tournament(TournamentCommand::Create(TournamentSettings {
                format: Format::Knockout,
                variant: Variant::QUAD_SQUARE,
                rounds: None,
                days: Some(2),
                rated: false,
                max_players: Some(8),
                starts_in: Some(1800),
                bye_halves: 0,
                // `#3` names a game wherever it stands, so it is not part of the name.
                name: Some("Cup t5".into()),
                vacation_days: None,
            }))
        );
        assert_eq!(
            read("!t tn t4 result #9 draw agreed after the clock failed"),
            Command::Tournament(TournamentCommand::Result {
                tournament: Some(4),
                game: 9,
                result: "1/2-1/2".into(),
                reason: "agreed after the clock failed".into(),
                correct: false,
            })
        );
        assert_eq!(read("!t draw accept no"), Command::Draw(Offer::Accept, None));
        assert_eq!(read("!t rules hans38 please"), Command::Rules(Variant::HANS38));
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert!(e("!t tournament create swiss").contains("number of rounds"));
        assert!(e("!t tournament create rr rounds 3").contains("only a Swiss"));
        assert!(e("!t tournament create swiss rounds 99").contains("1 to 30"));
        assert!(e("!t tournament create swiss rounds 3 in 2y").contains("when it starts"));
        assert!(e("!t tournament create swiss rounds 3 name").contains("name"));
        assert!(e("!t tournament result #3").contains("result"));
        assert!(e("!t tournament result 1-0").contains("game"));
        assert!(e("!t tournament frobnicate").contains("create, list, join"));
        assert!(e("!t tournament pairings x").contains("round"));
        assert!(e("!t rules").contains("!t rules hans38"));
    }
}
