//! The grammar a command is declared in: what an option holds ([`Kind`]), an option and a command
//! ([`OptionSpec`], [`CommandSpec`]), a button ([`ButtonSpec`]), and the neutral [`Args`] that text
//! and slash forms both fill, checked against the declaration. The declarations themselves are
//! the table, [`crate::command_table`].

use tessera_rules::Variant;

use crate::command::{Command, CommandError, GameRef};

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

/// What an option's suggestions are while it is typed (Discord's autocomplete), answered by
/// [`crate::service::Service::suggest`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Suggest {
    Variants,
    /// Players the author played.
    Opponents,
    /// Legal moves in the game named by the command's `game` option (or the one here).
    Moves,
    /// The author's games here.
    Games,
    /// Challenges to the author.
    ChallengesToMe,
    /// The author's own challenges.
    MyChallenges,
    Tournaments,
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
    /// What it suggests while typed (Discord's autocomplete), if anything.
    pub suggest: Option<Suggest>,
    /// How `!t help` writes it; empty leaves it out of the usage line.
    pub hint: &'static str,
}

impl OptionSpec {
    pub(crate) const fn required(mut self) -> Self {
        self.required = true;
        self
    }
    pub(crate) const fn after(mut self, keywords: &'static [&'static str]) -> Self {
        self.keywords = keywords;
        self
    }
    /// Whether Discord offers suggestions while it is typed.
    pub fn autocomplete(&self) -> bool {
        self.suggest.is_some()
    }

    pub(crate) const fn suggests(mut self, what: Suggest) -> Self {
        self.suggest = Some(what);
        self
    }

    /// Whether a text word is this option's value on its own (not after a keyword).
    pub(crate) fn claims(&self, lower: &str) -> bool {
        match self.kind {
            Kind::Tournament => tournament_number(lower).is_some(),
            Kind::Flag { on, off } => on.contains(&lower) || off.contains(&lower),
            Kind::Days => lower.strip_suffix('d').is_some_and(|n| !n.is_empty() && n.parse::<u32>().is_ok()),
            Kind::Choice { read, .. } => self.keywords.is_empty() && read(lower).is_some(),
            _ => false,
        }
    }

    /// How error messages name it.
    pub(crate) fn label(&self) -> String {
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
    Correspondence,
    LookingUp,
    Ratings,
    Tournaments,
}

impl Section {
    pub(crate) const ALL: [Section; 6] = [
        Section::Challenges,
        Section::Playing,
        Section::Correspondence,
        Section::LookingUp,
        Section::Ratings,
        Section::Tournaments,
    ];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Section::Challenges => "Challenges",
            Section::Playing => "Playing",
            Section::Correspondence => "Playing over days",
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

    pub(crate) fn missing(&self, o: &OptionSpec) -> CommandError {
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
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
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
    pub(crate) fn variant(&self, name: &str) -> Option<Variant> {
        self.word(name).and_then(|w| w.parse().ok())
    }
    pub(crate) fn small(&self, name: &str) -> Option<u32> {
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

pub(crate) fn or_list(words: &[&str]) -> String {
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
    /// It answers the message it is on (a challenge, an offer, the resignation prompt): once it
    /// succeeds, that message's buttons are spent.
    pub settles: bool,
    /// Its answer is for the one who pressed it alone (a flipped board).
    pub private: bool,
    /// It asks for this option of its command first, in a form (Discord: a modal), then runs.
    pub asks: Option<&'static str>,
}

/// The one-click answers a reply invites. Platforms without buttons ignore them: the reply's text
/// already names the commands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Actions {
    /// An open challenge (its number): accept or decline; the challenger's decline withdraws it.
    Challenge(i64),
    /// A game in play: resign, offer a draw, flip the board.
    Game(i64),
    /// A turn in this game waits for its player's confirmation.
    Confirm(i64),
    /// A draw offer in this game waits for an answer.
    DrawOffer(i64),
    /// A takeback request in this game waits for an answer.
    TakebackOffer(i64),
    /// A tournament taking entries: join or leave.
    Tournament(i64),
}

impl Actions {
    /// The buttons under a reply with these actions, in order, and the number they act on.
    pub fn buttons(self) -> (i64, &'static [&'static str]) {
        match self {
            Actions::Challenge(id) => (id, &["accept", "decline"]),
            Actions::Game(id) => (id, &["resign", "draw", "flip", "conditional"]),
            Actions::Confirm(id) => (id, &["confirm"]),
            Actions::DrawOffer(id) => (id, &["draw-yes", "draw-no"]),
            Actions::TakebackOffer(id) => (id, &["takeback-yes", "takeback-no"]),
            Actions::Tournament(id) => (id, &["t-join", "t-leave"]),
        }
    }
}

/// A command's words as its [`Args`].
pub fn read_text(spec: &'static CommandSpec, words: &[String], game: GameRef) -> Result<Args, CommandError> {
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

pub(crate) fn option(spec: &'static CommandSpec, name: &str) -> &'static OptionSpec {
    spec.option(name).unwrap_or_else(|| panic!("{} has no option {name} for its stray words", spec.path()))
}
