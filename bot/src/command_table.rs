//! Every command, declared once. The text parser, Discord's slash commands and buttons, and
//! `!t help` are all read off [`COMMANDS`] and [`BUTTONS`], so they cannot tell different stories.
//!
//! Text and slash forms both fill a neutral [`Args`] (named, validated values); each command's
//! `build` turns `Args` into the [`Command`], so a rule and its error message are written once.

use tessera_rules::Variant;

use crate::commands::{
    ColorChoice, Command, CommandError, GameRef, Offer, Scope, TournamentCommand, TournamentSettings,
};
use crate::tournament_store::Format;

/// What an option holds, and so how it is written in text and which slash type it has.
#[derive(Copy, Clone, Debug)]
pub enum Kind {
    /// A game by number: `#12` in text (anywhere in the message).
    Game,
    /// A tournament by number: `t3` in text.
    Tournament,
    /// A user: a mention in text, which the adapter resolves; `person` refuses bots.
    User {
        person: bool,
    },
    /// Someone the author played: a mention in text, a platform user id (autocompleted) in slash
    /// form.
    Opponent,
    Variant,
    /// A whole number; `max: None` is unbounded.
    Number {
        min: i64,
        max: Option<i64>,
    },
    /// Days per move, 1 to 30: `3d` on its own, or a number after a keyword (`days 3`).
    Days,
    /// When something starts: `in 30m`, `in 2h`, `in 3d` in text, whole hours in slash form. Held
    /// in seconds.
    Delay,
    /// Yes or no: `on` words say yes, `off` words no.
    Flag {
        on: &'static [&'static str],
        off: &'static [&'static str],
    },
    /// One of a few values; `read` maps what a player types (lower case) to a value.
    Choice {
        choices: &'static [Choice],
        read: fn(&str) -> Option<&'static str>,
    },
    /// Free text, cut to `max` characters.
    Text {
        max: usize,
    },
}

/// A value of a [`Kind::Choice`]: how slash menus label it, and what it stands for.
#[derive(Copy, Clone, Debug)]
pub struct Choice {
    pub label: &'static str,
    pub value: &'static str,
}

#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    /// The slash option's name (kept stable: clients cache it) and the [`Args`] key.
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    /// The slash option's description.
    pub about: &'static str,
    /// Words that introduce it in text (`rounds 5`, `name Winter Cup`); a [`Kind::Text`] after a
    /// keyword takes the rest of the line. Without keywords an option is a word of its own kind,
    /// or takes the command's stray words (see [`Strays`]).
    pub keywords: &'static [&'static str],
    pub autocomplete: bool,
    /// How `!t help` writes it; empty leaves it out of the usage line.
    pub hint: &'static str,
}

const fn opt(name: &'static str, kind: Kind, about: &'static str, hint: &'static str) -> OptionSpec {
    OptionSpec { name, kind, required: false, about, keywords: &[], autocomplete: false, hint }
}

impl OptionSpec {
    const fn required(mut self) -> Self {
        self.required = true;
        self
    }
    const fn after(mut self, keywords: &'static [&'static str]) -> Self {
        self.keywords = keywords;
        self
    }
    const fn autocomplete(mut self) -> Self {
        self.autocomplete = true;
        self
    }

    /// Whether a text word is this option's value on its own (not after a keyword).
    fn claims(&self, lower: &str) -> bool {
        match self.kind {
            Kind::Tournament => tournament_number(lower).is_some(),
            Kind::Flag { on, off } => on.contains(&lower) || off.contains(&lower),
            Kind::Days => lower.strip_suffix('d').is_some_and(|n| !n.is_empty() && n.parse::<u32>().is_ok()),
            Kind::Choice { read, .. } => self.keywords.is_empty() && read(lower).is_some(),
            _ => false,
        }
    }

    /// How error messages name it.
    fn label(&self) -> String {
        match self.kind {
            Kind::Days => "days per move".into(),
            _ => self.name.replace('_', " "),
        }
    }
}

/// What text words no option claims are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Strays {
    /// Ignored.
    Ignore,
    /// Each one is read as this option (the last wins); one that is not is an error.
    Each(&'static str),
    /// The first is read as this option unless it was given already; the rest are ignored.
    First(&'static str),
    /// Joined, in order, into this text option.
    Join(&'static str),
}

/// Where `!t help` lists a command.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Section {
    Challenges,
    Playing,
    LookingUp,
    Ratings,
    Tournaments,
}

impl Section {
    const ALL: [Section; 5] =
        [Section::Challenges, Section::Playing, Section::LookingUp, Section::Ratings, Section::Tournaments];

    fn title(self) -> &'static str {
        match self {
            Section::Challenges => "Challenges",
            Section::Playing => "Playing",
            Section::LookingUp => "Looking things up",
            Section::Ratings => "Ratings",
            Section::Tournaments => "Tournaments",
        }
    }
}

#[derive(Debug)]
pub struct CommandSpec {
    /// The text and slash name.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Written after a group's name: `!t tournament join`, `/tournament join`.
    pub group: Option<&'static GroupSpec>,
    /// One line: the slash description.
    pub summary: &'static str,
    /// Slash options in this order (Discord wants the required ones first).
    pub options: &'static [OptionSpec],
    pub strays: Strays,
    /// Also a slash command (or subcommand).
    pub slash: bool,
    /// The organiser or a moderator may run it (for some, on others' behalf): an adapter that has
    /// to ask its platform whether the author moderates asks only for these.
    pub moderated: bool,
    pub section: Section,
    /// What may follow the name in text: parsed by the tests, shown by error messages.
    pub example: &'static str,
    pub build: fn(&Args) -> Result<Command, CommandError>,
}

/// Commands written after a common first word.
#[derive(Debug)]
pub struct GroupSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// The subcommand meant when none is named.
    pub default: &'static str,
}

pub static TOURNAMENT: GroupSpec = GroupSpec {
    name: "tournament",
    aliases: &["tourney", "tour", "tn"],
    summary: "Community tournaments: Swiss, round robin, knockout",
    default: "list",
};

impl CommandSpec {
    /// How a player writes it: `tournament join`.
    pub fn path(&self) -> String {
        match self.group {
            Some(g) => format!("{} {}", g.name, self.name),
            None => self.name.to_string(),
        }
    }

    pub fn option(&self, name: &str) -> Option<&'static OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }

    /// The example, as a player would type it.
    pub fn example_text(&self) -> String {
        format!("!t {} {}", self.path(), self.example).trim_end().to_string()
    }

    /// The usage line `!t help` shows.
    pub fn usage(&self) -> String {
        let mut out = format!("!t {}", self.path());
        for o in self.options.iter().filter(|o| !o.hint.is_empty()) {
            out.push(' ');
            out.push_str(&if o.required { o.hint.to_string() } else { format!("[{}]", o.hint) });
        }
        out
    }

    fn missing(&self, o: &OptionSpec) -> CommandError {
        CommandError(format!("say the {}, like `{}`", o.label(), self.example_text()))
    }
}

/// What a player gave, before it is checked: a word from text or a slash string, a slash
/// integer, a slash boolean, or a slash user (the adapter keeps the user itself).
#[derive(Copy, Clone, Debug)]
pub enum Raw<'a> {
    Word(&'a str),
    Number(i64),
    Flag(bool),
    User,
}

/// A checked value. Choices and variants are held by their canonical names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Number(i64),
    Word(String),
    Flag(bool),
    /// A user was given; who it is travels beside the command.
    User,
}

/// A command's options as given, checked against their kinds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    values: Vec<(&'static str, Value)>,
}

impl Args {
    fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
    pub fn number(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }
    pub fn word(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Value::Word(w)) => Some(w),
            _ => None,
        }
    }
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(Value::Flag(b)) => Some(*b),
            _ => None,
        }
    }
    fn variant(&self, name: &str) -> Option<Variant> {
        self.word(name).and_then(|w| w.parse().ok())
    }
    fn small(&self, name: &str) -> Option<u32> {
        self.number(name).and_then(|n| u32::try_from(n).ok())
    }
    /// The values, in the order given (later ones replace earlier ones of the same name).
    pub fn values(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.values
            .iter()
            .enumerate()
            .filter(|(i, (n, _))| !self.values[i + 1..].iter().any(|(m, _)| m == n))
            .map(|(_, (n, v))| (*n, v))
    }

    /// Checks `raw` as `o`'s value and keeps it. Empty text counts as not given.
    pub fn give(&mut self, spec: &CommandSpec, o: &'static OptionSpec, raw: Raw) -> Result<(), CommandError> {
        let bad = |what: &str| CommandError(format!("{what}, like `{}`", spec.example_text()));
        let value = match (o.kind, raw) {
            (Kind::Game | Kind::Tournament | Kind::Number { .. } | Kind::Days, Raw::Number(n)) => {
                Value::Number(n)
            }
            (Kind::Game, Raw::Word(w)) => Value::Number(w.trim_start_matches('#').parse().map_err(|_| {
                CommandError(format!("\"{w}\" is not a game number; games are named like #12"))
            })?),
            (Kind::Tournament, Raw::Word(w)) => Value::Number(tournament_number(w).ok_or_else(|| {
                CommandError(format!("\"{w}\" is not a tournament; they are named like t3"))
            })?),
            (Kind::Number { .. }, Raw::Word(w)) => Value::Number(w.parse().unwrap_or(UNREADABLE)),
            (Kind::Days, Raw::Word(w)) => {
                Value::Number(w.strip_suffix(['d', 'D']).unwrap_or(w).parse().unwrap_or(UNREADABLE))
            }
            (Kind::Delay, Raw::Number(hours)) => {
                Value::Number(if (1..=MAX_DELAY_HOURS).contains(&hours) { hours * 3600 } else { UNREADABLE })
            }
            (Kind::Delay, Raw::Word(w)) => {
                Value::Number(delay_seconds(&w.to_ascii_lowercase()).unwrap_or(UNREADABLE))
            }
            (Kind::Flag { .. }, Raw::Flag(b)) => Value::Flag(b),
            (Kind::Flag { on, off }, Raw::Word(w)) => {
                let w = w.to_ascii_lowercase();
                match (on.contains(&w.as_str()), off.contains(&w.as_str())) {
                    (true, _) => Value::Flag(true),
                    (_, true) => Value::Flag(false),
                    _ => return Err(CommandError(format!("\"{w}\": say {}", or_list(&[on, off].concat())))),
                }
            }
            (Kind::Choice { choices, read }, Raw::Word(w)) => match read(&w.trim().to_ascii_lowercase()) {
                Some(v) => Value::Word(v.to_string()),
                None => {
                    let values: Vec<&str> = choices.iter().map(|c| c.value).collect();
                    let w: String = w.chars().take(24).collect();
                    return Err(CommandError(format!("\"{w}\": say {}", or_list(&values))));
                }
            },
            (Kind::Variant, Raw::Word(w)) => Value::Word(
                w.trim().parse::<Variant>().map_err(|e| CommandError(e.to_string()))?.name().to_string(),
            ),
            (Kind::Text { max }, Raw::Word(w)) => {
                let w = w.trim();
                if w.is_empty() {
                    return Ok(());
                }
                Value::Word(w.chars().take(max).collect())
            }
            (Kind::Opponent, Raw::Word(w)) => Value::Word(w.trim().to_string()),
            (Kind::User { .. }, Raw::User) => Value::User,
            (_, raw) => return Err(CommandError(format!("the {} option does not take {raw:?}", o.name))),
        };
        if let Value::Number(n) = value {
            let (min, max) = match o.kind {
                Kind::Game | Kind::Tournament => (1, None),
                Kind::Number { min, max } => (min, max),
                Kind::Days => (1, Some(30)),
                Kind::Delay => (60, Some(MAX_DELAY_HOURS * 3600)),
                _ => (i64::MIN, None),
            };
            if n < min || max.is_some_and(|m| n > m) {
                return Err(match (o.kind, max) {
                    (Kind::Delay, _) => bad("say when it starts in minutes, hours or days"),
                    (_, Some(max)) => bad(&format!("{} is a number from {min} to {max}", o.label())),
                    (_, None) => bad(&format!("{} is a number from {min} up", o.label())),
                });
            }
        }
        self.values.push((o.name, value));
        Ok(())
    }

    /// Required options all given (`users_too`: slash form, where users are options too; in text
    /// the service finds them among the mentions).
    pub fn complete(&self, spec: &CommandSpec, users_too: bool) -> Result<(), CommandError> {
        for o in spec.options.iter().filter(|o| o.required) {
            if !self.has(o.name) && (users_too || !matches!(o.kind, Kind::User { .. })) {
                return Err(spec.missing(o));
            }
        }
        Ok(())
    }
}

/// A number that did not read: below every option's minimum, so the range check reports it.
const UNREADABLE: i64 = i64::MIN;

/// Slash form: `/tournament starts_in_hours` goes up to 60 days.
pub const MAX_DELAY_HOURS: i64 = 24 * 60;

/// `30m`, `2h`, `3d` in seconds.
fn delay_seconds(spec: &str) -> Option<i64> {
    let cut = spec.char_indices().last().map_or(0, |(i, _)| i);
    let (n, unit) = spec.split_at(cut);
    let n: i64 = n.parse().ok()?;
    let seconds = match unit {
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => return None,
    };
    (n > 0).then_some(seconds)
}

fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A tournament number written `t3` (or `T3`).
pub fn tournament_number(word: &str) -> Option<i64> {
    let digits = word.strip_prefix(['t', 'T'])?;
    digits.parse::<i64>().ok().filter(|n| *n > 0 && digits.chars().all(|c| c.is_ascii_digit()))
}

// The option kinds' vocabularies.

const COLORS: &[Choice] = &[
    Choice { label: "white", value: "white" },
    Choice { label: "black", value: "black" },
    Choice { label: "random", value: "random" },
];
fn read_color(w: &str) -> Option<&'static str> {
    Some(match w {
        "white" | "w" => "white",
        "black" | "b" => "black",
        "random" => "random",
        _ => return None,
    })
}

const OFFER_ANSWERS: &[Choice] = &[
    Choice { label: "offer", value: "offer" },
    Choice { label: "accept", value: "accept" },
    Choice { label: "decline", value: "decline" },
];
fn read_offer(w: &str) -> Option<&'static str> {
    Some(match w {
        "offer" => "offer",
        "accept" | "yes" => "accept",
        "decline" | "no" => "decline",
        _ => return None,
    })
}

const SCOPES: &[Choice] =
    &[Choice { label: "this channel", value: "channel" }, Choice { label: "mine", value: "mine" }];
fn read_scope(w: &str) -> Option<&'static str> {
    Some(match w {
        "mine" | "my" => "mine",
        "channel" | "here" => "channel",
        _ => return None,
    })
}

const FORMATS: &[Choice] = &[
    Choice { label: "Swiss (FIDE Dutch)", value: "swiss" },
    Choice { label: "Round robin", value: "round-robin" },
    Choice { label: "Double round robin", value: "double-round-robin" },
    Choice { label: "Knockout", value: "knockout" },
];
fn read_format(w: &str) -> Option<&'static str> {
    Format::parse(w).map(Format::name)
}

const BYES: &[Choice] = &[
    Choice { label: "1", value: "1" },
    Choice { label: "½", value: "1/2" },
    Choice { label: "0", value: "0" },
];
fn read_bye(w: &str) -> Option<&'static str> {
    Some(match w {
        "1" => "1",
        "1/2" | "½" | "0.5" => "1/2",
        "0" => "0",
        _ => return None,
    })
}

const RESULTS: &[Choice] = &[
    Choice { label: "1-0", value: "1-0" },
    Choice { label: "0-1", value: "0-1" },
    Choice { label: "½-½", value: "1/2-1/2" },
    Choice { label: "White wins by forfeit (+-)", value: "+-" },
    Choice { label: "Black wins by forfeit (-+)", value: "-+" },
    Choice { label: "Both lose by forfeit (--)", value: "--" },
];
fn read_result(w: &str) -> Option<&'static str> {
    Some(match w {
        "1-0" => "1-0",
        "0-1" => "0-1",
        "1/2" | "1/2-1/2" | "½" | "½-½" | "draw" | "=" => "1/2-1/2",
        "+-" | "+/-" | "1-0f" => "+-",
        "-+" | "-/+" | "0-1f" => "-+",
        "--" | "-/-" | "0-0" => "--",
        _ => return None,
    })
}

const CORRECTION: Kind = Kind::Flag { on: &["correct", "correction", "fix"], off: &[] };
const TOURNAMENT_PAGE: OptionSpec =
    opt("page", Kind::Number { min: 1, max: Some(10_000) }, "Which page of the list", "page");
const RATED: Kind = Kind::Flag { on: &["rated"], off: &["casual", "unrated"] };

const GAME: OptionSpec =
    opt("game", Kind::Game, "Which game (when you have several here)", "").autocomplete();
const CHALLENGE: OptionSpec = opt("challenge", Kind::Game, "Which challenge", "").autocomplete();
const TOURNAMENT_NUMBER: OptionSpec =
    opt("tournament", Kind::Tournament, "Which tournament (default: the one here)", "").autocomplete();
const TOURNAMENT_ONLY: &[OptionSpec] = &[TOURNAMENT_NUMBER];
const GAME_ONLY: &[OptionSpec] = &[GAME];

fn offer(a: &Args) -> Offer {
    match a.word("action") {
        Some("accept") => Offer::Accept,
        Some("decline") => Offer::Decline,
        _ => Offer::Offer,
    }
}

fn game(a: &Args) -> GameRef {
    a.number("game")
}

fn tournament(a: &Args) -> Option<i64> {
    a.number("tournament")
}

fn tournament_cmd(cmd: TournamentCommand) -> Result<Command, CommandError> {
    Ok(Command::Tournament(cmd))
}

const fn game_command(
    name: &'static str,
    aliases: &'static [&'static str],
    section: Section,
    summary: &'static str,
    build: fn(&Args) -> Result<Command, CommandError>,
) -> CommandSpec {
    CommandSpec {
        name,
        aliases,
        group: None,
        summary,
        options: GAME_ONLY,
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section,
        example: "#12",
        build,
    }
}

const fn moderated(mut spec: CommandSpec) -> CommandSpec {
    spec.moderated = true;
    spec
}

const fn tournament_command(
    name: &'static str,
    aliases: &'static [&'static str],
    summary: &'static str,
    build: fn(&Args) -> Result<Command, CommandError>,
) -> CommandSpec {
    CommandSpec {
        name,
        aliases,
        group: Some(&TOURNAMENT),
        summary,
        options: TOURNAMENT_ONLY,
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Tournaments,
        example: "t3",
        build,
    }
}

/// Every command, in the order of `!t help` and of the slash command list.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "challenge",
        aliases: &["play"],
        group: None,
        summary: "Challenge someone to a game",
        options: &[
            opt("opponent", Kind::User { person: true }, "Who you want to play", "@name").required(),
            opt("variant", Kind::Variant, "Which variant (default: chess)", "variant").autocomplete(),
            opt(
                "color",
                Kind::Choice { choices: COLORS, read: read_color },
                "Your colour (default: random)",
                "white|black",
            ),
            opt("days", Kind::Days, "Days per move (default: no clock)", "3d").after(&["days", "day"]),
            opt("rated", RATED, "Counts for ratings (default: no)", "rated"),
            opt(
                "level",
                Kind::Number { min: 1, max: Some(5) },
                "Against me (the bot): how strong I play, 1 to 5 (default: 3)",
                "level 1-5",
            )
            .after(&["level", "lvl"]),
        ],
        strays: Strays::Each("variant"),
        slash: true,
        moderated: false,
        section: Section::Challenges,
        // What a challenge to a person may say: `level` is only for a game against the bot, which
        // is never rated nor clocked, so no one challenge takes every option.
        example: "@bob hans38 white 3d rated",
        build: |a| {
            Ok(Command::Challenge {
                variant: a.variant("variant").unwrap_or(Variant::Chess),
                color: match a.word("color") {
                    Some("white") => ColorChoice::White,
                    Some("black") => ColorChoice::Black,
                    _ => ColorChoice::Random,
                },
                days: a.small("days"),
                rated: a.flag("rated").unwrap_or(false),
                level: a.number("level").and_then(|n| u8::try_from(n).ok()),
            })
        },
    },
    CommandSpec {
        name: "rematch",
        aliases: &["revenge"],
        group: None,
        summary: "Challenge someone you played to the same game again, colours swapped",
        options: &[opt("opponent", Kind::Opponent, "Whom (default: your last opponent here)", "@name")
            .autocomplete()],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Challenges,
        example: "",
        build: |a| Ok(Command::Rematch(a.word("opponent").map(str::to_string))),
    },
    CommandSpec {
        name: "accept",
        aliases: &[],
        group: None,
        summary: "Accept a challenge",
        options: &[CHALLENGE],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Challenges,
        example: "#12",
        build: |a| Ok(Command::Accept(a.number("challenge"))),
    },
    CommandSpec {
        name: "decline",
        aliases: &[],
        group: None,
        summary: "Decline a challenge",
        options: &[CHALLENGE],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Challenges,
        example: "#12",
        build: |a| Ok(Command::Decline(a.number("challenge"))),
    },
    CommandSpec {
        name: "cancel",
        aliases: &["withdraw"],
        group: None,
        summary: "Withdraw your challenge",
        options: &[CHALLENGE],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Challenges,
        example: "#12",
        build: |a| Ok(Command::Cancel(a.number("challenge"))),
    },
    CommandSpec {
        name: "move",
        aliases: &["m"],
        group: None,
        summary: "Play a move",
        options: &[
            opt(
                "move",
                Kind::Text { max: 200 },
                "The move, like e4, Nf3 or @@e4 (suggestions are legal)",
                "e2-e4",
            )
            .required()
            .autocomplete(),
            GAME,
        ],
        strays: Strays::Join("move"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "e2-e4 #12",
        build: |a| Ok(Command::Move { game: game(a), text: a.word("move").unwrap_or_default().to_string() }),
    },
    CommandSpec {
        name: "board",
        aliases: &["show"],
        group: None,
        summary: "Show a game's board",
        options: &[
            GAME,
            opt("flip", Kind::Flag { on: &["flip"], off: &[] }, "Seen from the other side", "flip"),
        ],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "flip #12",
        build: |a| Ok(Command::Board { game: game(a), flip: a.flag("flip").unwrap_or(false) }),
    },
    CommandSpec {
        name: "moves",
        aliases: &["legal"],
        group: None,
        summary: "List your legal turns, by piece; narrow them by how they begin",
        options: &[
            GAME,
            opt("start", Kind::Text { max: 40 }, "Only turns beginning like this, e.g. Be2 or @", "Be2"),
        ],
        strays: Strays::Join("start"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "Be2 #12",
        build: |a| Ok(Command::Moves { game: game(a), start: a.word("start").map(str::to_string) }),
    },
    game_command("confirm", &[], Section::Playing, "Play the turn I asked you to confirm", |a| {
        Ok(Command::Confirm(game(a)))
    }),
    CommandSpec {
        name: "settings",
        aliases: &["setting", "prefs"],
        group: None,
        summary: "Your settings: confirm risky turns, which side boards face, theme, coordinates",
        options: &[opt(
            "change",
            Kind::Text { max: 40 },
            "A setting and its value, like confirm off or board mine",
            "board mine",
        )],
        strays: Strays::Join("change"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "confirm off",
        build: |a| Ok(Command::Settings(a.word("change").map(str::to_string))),
    },
    moderated(CommandSpec {
        name: "channel",
        aliases: &[],
        group: None,
        summary: "The channel's settings (moderators): GIFs of finished games, defaults for players",
        options: &[opt(
            "change",
            Kind::Text { max: 40 },
            "A setting and its value, like gifs off",
            "gifs off",
        )],
        strays: Strays::Join("change"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "gifs off",
        build: |a| Ok(Command::Channel(a.word("change").map(str::to_string))),
    }),
    game_command("resign", &[], Section::Playing, "Resign a game", |a| Ok(Command::Resign(game(a)))),
    CommandSpec {
        name: "draw",
        aliases: &[],
        group: None,
        summary: "Offer, accept or decline a draw",
        options: &[
            opt(
                "action",
                Kind::Choice { choices: OFFER_ANSWERS, read: read_offer },
                "What to do (default: offer)",
                "accept|decline",
            ),
            GAME,
        ],
        strays: Strays::First("action"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "accept #12",
        build: |a| Ok(Command::Draw(offer(a), game(a))),
    },
    game_command("claim", &[], Section::Playing, "Claim a draw by repetition or the 50-move rule", |a| {
        Ok(Command::Claim(game(a)))
    }),
    CommandSpec {
        name: "takeback",
        aliases: &["undo"],
        group: None,
        summary: "Ask to take back your last move, or answer such a request",
        options: &[
            opt(
                "action",
                Kind::Choice { choices: OFFER_ANSWERS, read: read_offer },
                "What to do (default: ask)",
                "accept|decline",
            ),
            GAME,
        ],
        strays: Strays::First("action"),
        slash: true,
        moderated: false,
        section: Section::Playing,
        example: "decline #12",
        build: |a| Ok(Command::Takeback(offer(a), game(a))),
    },
    CommandSpec {
        name: "games",
        aliases: &[],
        group: None,
        summary: "List running games",
        options: &[opt(
            "scope",
            Kind::Choice { choices: SCOPES, read: read_scope },
            "Whose games (default: this channel's)",
            "mine",
        )],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::LookingUp,
        example: "mine",
        build: |a| {
            Ok(Command::Games(if a.word("scope") == Some("mine") { Scope::Mine } else { Scope::Channel }))
        },
    },
    game_command("history", &["pgn", "record"], Section::LookingUp, "A game's record", |a| {
        Ok(Command::History(game(a)))
    }),
    CommandSpec {
        name: "variants",
        aliases: &[],
        group: None,
        summary: "The variants Tessera plays",
        options: &[],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::LookingUp,
        example: "",
        build: |_| Ok(Command::Variants),
    },
    CommandSpec {
        name: "rules",
        aliases: &[],
        group: None,
        summary: "A variant's rules in brief",
        options: &[opt("variant", Kind::Variant, "Which variant", "variant").required().autocomplete()],
        strays: Strays::Join("variant"),
        slash: true,
        moderated: false,
        section: Section::LookingUp,
        example: "hans38",
        build: |a| Ok(Command::Rules(a.variant("variant").unwrap_or(Variant::Chess))),
    },
    CommandSpec {
        name: "help",
        aliases: &["?"],
        group: None,
        summary: "How to play on Tessera",
        options: &[],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::LookingUp,
        example: "",
        build: |_| Ok(Command::Help),
    },
    CommandSpec {
        name: "rating",
        aliases: &["ratings", "elo"],
        group: None,
        summary: "A player's ratings",
        options: &[
            opt("player", Kind::User { person: false }, "Whose (default: yours)", "@name"),
            opt("variant", Kind::Variant, "Which variant (default: all)", "variant").autocomplete(),
        ],
        strays: Strays::Join("variant"),
        slash: true,
        moderated: false,
        section: Section::Ratings,
        example: "@bob hans38",
        build: |a| Ok(Command::Rating(a.variant("variant"))),
    },
    CommandSpec {
        name: "leaderboard",
        aliases: &["top", "ladder"],
        group: None,
        summary: "The best rated players here",
        options: &[opt("variant", Kind::Variant, "Which variant (default: the most played here)", "variant")
            .autocomplete()],
        strays: Strays::Join("variant"),
        slash: true,
        moderated: false,
        section: Section::Ratings,
        example: "hans38",
        build: |a| Ok(Command::Leaderboard(a.variant("variant"))),
    },
    CommandSpec {
        name: "profile",
        aliases: &["stats"],
        group: None,
        summary: "A player's ratings, results and recent games",
        options: &[opt("player", Kind::User { person: false }, "Whose (default: yours)", "@name")],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Ratings,
        example: "@bob",
        build: |_| Ok(Command::Profile),
    },
    CommandSpec {
        name: "create",
        aliases: &["new"],
        group: Some(&TOURNAMENT),
        summary: "Create a tournament in this channel",
        options: &[
            opt(
                "format",
                Kind::Choice { choices: FORMATS, read: read_format },
                "How it is paired",
                "swiss|round-robin|double-round-robin|knockout",
            )
            .required(),
            opt("variant", Kind::Variant, "Which variant (default: chess)", "variant").autocomplete(),
            opt("rounds", Kind::Number { min: 1, max: Some(30) }, "Swiss: how many rounds", "rounds 5")
                .after(&["rounds", "round"]),
            opt("days", Kind::Days, "Days per move (default: no clock)", "3d").after(&["days", "day"]),
            opt("rated", RATED, "Counts for ratings (default: yes)", "rated|casual"),
            opt(
                "limit",
                Kind::Number { min: 2, max: Some(tessera_pairing::MAX_PLAYERS as i64) },
                "Most players (default: no limit)",
                "limit 32",
            )
            .after(&["limit", "max", "players"]),
            opt("starts_in_hours", Kind::Delay, "Starts by itself after this many hours", "in 2h")
                .after(&["in"]),
            opt(
                "bye",
                Kind::Choice { choices: BYES, read: read_bye },
                "Points for a bye (default: 1)",
                "bye 1|1/2|0",
            )
            .after(&["bye"]),
            opt("name", Kind::Text { max: 80 }, "Its name", "name ...").after(&["name", "called"]),
        ],
        strays: Strays::Each("variant"),
        slash: true,
        moderated: false,
        section: Section::Tournaments,
        example: "swiss hans38 rounds 5 3d rated limit 32 bye 1/2 in 2h name Winter Cup",
        build: |a| {
            let format = a.word("format").and_then(Format::parse).unwrap_or(Format::Swiss);
            let rounds = a.small("rounds");
            if format == Format::Swiss && rounds.is_none() {
                return Err(CommandError(
                    "a Swiss needs its number of rounds, like `!t tournament create swiss hans38 rounds 5`"
                        .into(),
                ));
            }
            if format != Format::Swiss && rounds.is_some() {
                return Err(CommandError(
                    "only a Swiss takes a number of rounds; round robin and knockout follow from the players"
                        .into(),
                ));
            }
            tournament_cmd(TournamentCommand::Create(TournamentSettings {
                format,
                variant: a.variant("variant").unwrap_or(Variant::Chess),
                rounds,
                days: a.small("days"),
                rated: a.flag("rated").unwrap_or(true),
                max_players: a.small("limit"),
                starts_in: a.number("starts_in_hours"),
                bye_halves: match a.word("bye") {
                    Some("1/2") => 1,
                    Some("0") => 0,
                    _ => 2,
                },
                name: a.word("name").map(str::to_string),
            }))
        },
    },
    CommandSpec {
        name: "list",
        aliases: &["all"],
        group: Some(&TOURNAMENT),
        summary: "The tournaments in this channel",
        options: &[TOURNAMENT_PAGE],
        strays: Strays::First("page"),
        slash: true,
        moderated: false,
        section: Section::Tournaments,
        example: "2",
        build: |a| tournament_cmd(TournamentCommand::List(a.small("page"))),
    },
    tournament_command("join", &["enter"], "Enter a tournament", |a| {
        tournament_cmd(TournamentCommand::Join(tournament(a)))
    }),
    tournament_command("leave", &[], "Leave a tournament before it starts", |a| {
        tournament_cmd(TournamentCommand::Leave(tournament(a)))
    }),
    moderated(tournament_command("start", &["begin"], "Start a tournament (organiser)", |a| {
        tournament_cmd(TournamentCommand::Start(tournament(a)))
    })),
    tournament_command("standings", &["table", "results"], "The standings, as text and a picture", |a| {
        tournament_cmd(TournamentCommand::Standings(tournament(a)))
    }),
    CommandSpec {
        name: "pairings",
        aliases: &["round"],
        group: Some(&TOURNAMENT),
        summary: "A round's pairings (default: the current round)",
        options: &[
            TOURNAMENT_NUMBER,
            opt("round", Kind::Number { min: 1, max: None }, "Which round", "round"),
        ],
        strays: Strays::First("round"),
        slash: true,
        moderated: false,
        section: Section::Tournaments,
        example: "t3 2",
        build: |a| tournament_cmd(TournamentCommand::Pairings(tournament(a), a.small("round"))),
    },
    CommandSpec {
        name: "withdraw",
        aliases: &["retire"],
        group: Some(&TOURNAMENT),
        summary: "Withdraw from a tournament (organiser: withdraw a player)",
        options: &[
            TOURNAMENT_NUMBER,
            opt("player", Kind::User { person: false }, "Whom (organiser only; default: you)", "@name"),
            opt("name", Kind::Text { max: 100 }, "An entrant's name, or `me`", "me"),
        ],
        strays: Strays::Join("name"),
        slash: true,
        moderated: true,
        section: Section::Tournaments,
        example: "t3 bob",
        build: |a| {
            tournament_cmd(TournamentCommand::Withdraw(tournament(a), a.word("name").map(str::to_string)))
        },
    },
    CommandSpec {
        name: "result",
        aliases: &["set"],
        group: Some(&TOURNAMENT),
        summary: "Set a game's result (organiser)",
        options: &[
            opt("game", Kind::Game, "Which game", "#12").required().autocomplete(),
            opt(
                "result",
                Kind::Choice { choices: RESULTS, read: read_result },
                "The result",
                "1-0|0-1|1/2|+-|-+|--",
            )
            .required(),
            opt("correct", CORRECTION, "Change a result already set", "correct"),
            opt("reason", Kind::Text { max: 200 }, "Why (kept with the result)", "reason"),
            TOURNAMENT_NUMBER,
        ],
        strays: Strays::Join("reason"),
        slash: true,
        moderated: true,
        section: Section::Tournaments,
        example: "t3 #12 +- correct no show",
        build: |a| {
            tournament_cmd(TournamentCommand::Result {
                tournament: tournament(a),
                game: game(a).unwrap_or_default(),
                result: a.word("result").unwrap_or_default().to_string(),
                reason: a.word("reason").unwrap_or("set by the organiser").to_string(),
                correct: a.flag("correct").unwrap_or(false),
            })
        },
    },
    moderated(tournament_command("pause", &[], "Pause pairing new rounds (organiser)", |a| {
        tournament_cmd(TournamentCommand::Pause(tournament(a)))
    })),
    moderated(tournament_command("resume", &["continue"], "Resume a paused tournament (organiser)", |a| {
        tournament_cmd(TournamentCommand::Resume(tournament(a)))
    })),
    moderated(tournament_command("cancel", &["abort"], "Cancel a tournament (organiser)", |a| {
        tournament_cmd(TournamentCommand::Cancel(tournament(a)))
    })),
    tournament_command("export", &["trf"], "The tournament as FIDE TRF-16", |a| {
        tournament_cmd(TournamentCommand::Export(tournament(a)))
    }),
    CommandSpec {
        name: "tournaments",
        aliases: &[],
        group: None,
        summary: "The tournaments in this channel",
        options: &[TOURNAMENT_PAGE],
        strays: Strays::First("page"),
        slash: false,
        moderated: false,
        section: Section::Tournaments,
        example: "",
        build: |a| tournament_cmd(TournamentCommand::List(a.small("page"))),
    },
];

/// How a button looks: Discord colours it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tone {
    Go,
    Neutral,
    Danger,
}

/// A one-click command under a reply. Its id (`tessera:<id>:<number>`) is stored in posted
/// messages, so it never changes; the number fills the command's game or tournament option.
#[derive(Debug)]
pub struct ButtonSpec {
    pub id: &'static str,
    pub label: &'static str,
    pub tone: Tone,
    /// The command's path: `draw`, `tournament join`.
    pub command: &'static str,
    /// Further options, as a player would write them.
    pub fixed: &'static [(&'static str, &'static str)],
    /// Asked first, privately, with this button to go ahead: the question before ` #<number>?`.
    pub confirm: Option<(&'static str, &'static str)>,
}

const fn button(id: &'static str, label: &'static str, tone: Tone, command: &'static str) -> ButtonSpec {
    ButtonSpec { id, label, tone, command, fixed: &[], confirm: None }
}

pub static BUTTONS: &[ButtonSpec] = &[
    button("accept", "Accept", Tone::Go, "accept"),
    button("decline", "Decline", Tone::Neutral, "decline"),
    ButtonSpec {
        confirm: Some(("resign-yes", "Resign game")),
        ..button("resign", "Resign", Tone::Danger, "resign")
    },
    button("resign-yes", "Yes, resign", Tone::Danger, "resign"),
    button("draw", "Offer draw", Tone::Neutral, "draw"),
    ButtonSpec { fixed: &[("action", "accept")], ..button("draw-yes", "Accept draw", Tone::Go, "draw") },
    ButtonSpec { fixed: &[("action", "decline")], ..button("draw-no", "Decline", Tone::Neutral, "draw") },
    ButtonSpec {
        fixed: &[("action", "accept")],
        ..button("takeback-yes", "Allow takeback", Tone::Go, "takeback")
    },
    ButtonSpec {
        fixed: &[("action", "decline")],
        ..button("takeback-no", "Refuse", Tone::Neutral, "takeback")
    },
    ButtonSpec { fixed: &[("flip", "flip")], ..button("flip", "Flip board", Tone::Neutral, "board") },
    button("confirm", "Play it anyway", Tone::Danger, "confirm"),
    button("t-join", "Join", Tone::Go, "tournament join"),
    button("t-leave", "Leave", Tone::Neutral, "tournament leave"),
];

pub fn button_spec(id: &str) -> Option<&'static ButtonSpec> {
    BUTTONS.iter().find(|b| b.id == id)
}

/// The command a button stands for, on game or tournament `number`.
pub fn button_command(b: &ButtonSpec, number: i64) -> Result<Command, CommandError> {
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
    args.complete(spec, false)?;
    (spec.build)(&args)
}

/// A command by its path: `board`, `tournament join`.
pub fn by_path(path: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.path() == path)
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

/// A command's words as its [`Args`].
pub(crate) fn read_text(
    spec: &'static CommandSpec,
    words: &[String],
    game: GameRef,
) -> Result<Args, CommandError> {
    let mut args = Args::default();
    if let (Some(n), Some(o)) = (game, spec.options.iter().find(|o| matches!(o.kind, Kind::Game))) {
        args.give(spec, o, Raw::Number(n))?;
    }
    let mut joined: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i].as_str();
        let lower = word.to_ascii_lowercase();
        i += 1;
        if let Some(o) = spec.options.iter().find(|o| o.keywords.contains(&lower.as_str())) {
            if let Kind::Text { .. } = o.kind {
                let rest = words[i..].join(" ");
                if rest.trim().is_empty() {
                    return Err(spec.missing(o));
                }
                args.give(spec, o, Raw::Word(&rest))?;
                break;
            }
            args.give(spec, o, Raw::Word(words.get(i).map_or("", String::as_str)))?;
            i += 1;
        } else if let Some(o) = spec.options.iter().find(|o| o.claims(&lower)) {
            // An option read from the first stray word keeps the first value it is given.
            if spec.strays != Strays::First(o.name) || !args.has(o.name) {
                args.give(spec, o, Raw::Word(&lower))?;
            }
        } else {
            match spec.strays {
                Strays::Ignore => {}
                Strays::Each(name) => args.give(spec, option(spec, name), Raw::Word(word))?,
                Strays::First(name) if !args.has(name) => {
                    args.give(spec, option(spec, name), Raw::Word(word))?
                }
                Strays::First(_) => {}
                Strays::Join(_) => joined.push(word),
            }
        }
    }
    if let (Strays::Join(name), false) = (spec.strays, joined.is_empty()) {
        let o = option(spec, name);
        let whole = joined.join(" ");
        // A variant's name may have spaces (`neutral squares`); failing that, its first word is
        // the variant and the rest is talk (`rules hans38 please`).
        if matches!(o.kind, Kind::Variant)
            && whole.parse::<Variant>().is_err()
            && joined[0].parse::<Variant>().is_ok()
        {
            args.give(spec, o, Raw::Word(joined[0]))?;
        } else {
            args.give(spec, o, Raw::Word(&whole))?;
        }
    }
    Ok(args)
}

fn option(spec: &'static CommandSpec, name: &str) -> &'static OptionSpec {
    spec.option(name).unwrap_or_else(|| panic!("{} has no option {name} for its stray words", spec.path()))
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
    use crate::commands::{Parsed, parse};

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
                variant: Variant::QuadSquare,
                rounds: None,
                days: Some(2),
                rated: false,
                max_players: Some(8),
                starts_in: Some(1800),
                bye_halves: 0,
                // `#3` names a game wherever it stands, so it is not part of the name.
                name: Some("Cup t5".into()),
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
        assert_eq!(read("!t rules hans38 please"), Command::Rules(Variant::Hans38));
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
