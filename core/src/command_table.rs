//! Every command, declared once. The text parser, Discord's slash commands and buttons, and
//! `!t help` are all read off [`COMMANDS`] and [`BUTTONS`], so they cannot tell different stories.
//! Each option says here what it suggests while typed ([`Suggest`]); each button, which command it
//! presses, whether it settles the message it is on, and for whom its answer is.
//!
//! Text and slash forms both fill a neutral [`Args`] (named, validated values); each command's
//! `build` turns `Args` into the [`Command`], so a rule and its error message are written once.

use tessera_rules::Variant;

use crate::command::{
    ColorChoice, Command, CommandError, GameRef, Offer, Scope, TournamentCommand, TournamentSettings,
};
use crate::command_spec::*;
use crate::model::Format;

const fn opt(name: &'static str, kind: Kind, about: &'static str, hint: &'static str) -> OptionSpec {
    OptionSpec { name, kind, required: false, about, keywords: &[], suggest: None, hint }
}

pub static TOURNAMENT: GroupSpec = GroupSpec {
    name: "tournament",
    aliases: &["tourney", "tour", "tn"],
    summary: "Community tournaments: Swiss, round robin, knockout",
    default: "list",
};

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
    opt("game", Kind::Game, "Which game (when you have several here)", "").suggests(Suggest::Games);
const CHALLENGE: OptionSpec =
    opt("challenge", Kind::Game, "Which challenge", "").suggests(Suggest::ChallengesToMe);
const MY_CHALLENGE: OptionSpec =
    opt("challenge", Kind::Game, "Which challenge", "").suggests(Suggest::MyChallenges);
const TOURNAMENT_NUMBER: OptionSpec =
    opt("tournament", Kind::Tournament, "Which tournament (default: the one here)", "")
        .suggests(Suggest::Tournaments);
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

/// Longest private note on a game (`!t note`), in characters.
pub const MAX_NOTE_CHARS: usize = 1000;

/// Every command, in the order of `!t help` and of the slash command list.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "challenge",
        aliases: &["play"],
        group: None,
        summary: "Challenge someone to a game",
        options: &[
            opt("opponent", Kind::User { person: true }, "Who you want to play", "@name").required(),
            opt("variant", Kind::Variant, "Which variant (default: chess)", "variant")
                .suggests(Suggest::Variants),
            opt(
                "color",
                Kind::Choice { choices: COLORS, read: read_color },
                "Your colour (default: random)",
                "white|black",
            ),
            opt("days", Kind::Days, "Days per move (default: no clock)", "3d").after(&["days", "day"]),
            opt(
                "noweekend",
                Kind::Flag { on: &["noweekend", "noweekends", "weekdays"], off: &["weekends"] },
                "Saturday and Sunday (in your time zone, `!t settings tz`) don't count on the clock",
                "noweekend",
            ),
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
        example: "@bob hans38 white 3d noweekend rated",
        build: |a| {
            Ok(Command::Challenge {
                variant: a.variant("variant").unwrap_or(Variant::CHESS),
                color: match a.word("color") {
                    Some("white") => ColorChoice::White,
                    Some("black") => ColorChoice::Black,
                    _ => ColorChoice::Random,
                },
                days: a.small("days"),
                weekends_off: a.flag("noweekend").unwrap_or(false),
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
            .suggests(Suggest::Opponents)],
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
        options: &[MY_CHALLENGE],
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
            .suggests(Suggest::Moves),
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
        summary: "The channel's settings (moderators): GIFs of finished games, a thread per game, defaults for players",
        options: &[opt(
            "change",
            Kind::Text { max: 40 },
            "A setting and its value, like gifs off or threads on",
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
        options: &[opt("variant", Kind::Variant, "Which variant", "variant")
            .required()
            .suggests(Suggest::Variants)],
        strays: Strays::Join("variant"),
        slash: true,
        moderated: false,
        section: Section::LookingUp,
        example: "hans38",
        build: |a| Ok(Command::Rules(a.variant("variant").unwrap_or(Variant::CHESS))),
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
            opt("variant", Kind::Variant, "Which variant (default: all)", "variant")
                .suggests(Suggest::Variants),
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
            .suggests(Suggest::Variants)],
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
        name: "conditional",
        aliases: &["cond", "conditionals", "premove"],
        group: None,
        summary: "Plan answers to your opponent's next turns, privately: if they play e5, I play Nf3",
        options: &[
            GAME,
            opt(
                "line",
                Kind::Text { max: 1000 },
                "Turns in order, theirs first (e5 Nf3 Nc6 Bb5); clear removes your lines; nothing shows them",
                "e5 Nf3 Nc6 Bb5",
            ),
        ],
        strays: Strays::Join("line"),
        slash: true,
        moderated: false,
        section: Section::Correspondence,
        example: "#12 e5 Nf3 Nc6 Bb5",
        build: |a| Ok(Command::Conditional { game: game(a), line: a.word("line").map(str::to_string) }),
    },
    CommandSpec {
        name: "vacation",
        aliases: &["holiday", "away"],
        group: None,
        summary: "Stop the clocks of all your games for some days, or end your vacation early",
        options: &[opt(
            "length",
            Kind::Text { max: 20 },
            "How long, like 5d; off ends it; nothing shows your allowance",
            "5d",
        )],
        strays: Strays::Join("length"),
        slash: true,
        moderated: false,
        section: Section::Correspondence,
        example: "5d",
        build: |a| Ok(Command::Vacation(a.word("length").map(str::to_string))),
    },
    CommandSpec {
        name: "waiting",
        aliases: &["mymove", "todo"],
        group: None,
        summary: "Your games everywhere here where it is your move, least time left first",
        options: &[],
        strays: Strays::Ignore,
        slash: true,
        moderated: false,
        section: Section::Correspondence,
        example: "",
        build: |_| Ok(Command::Waiting),
    },
    CommandSpec {
        name: "note",
        aliases: &["notes"],
        group: None,
        summary: "Your private note on a game: show it, write it, or `clear` it",
        options: &[
            GAME,
            opt(
                "text",
                // One more than a note may hold, so a longer one is refused rather than cut.
                Kind::Text { max: MAX_NOTE_CHARS + 1 },
                "The note (`clear` removes it; nothing shows it)",
                "text|clear",
            ),
        ],
        strays: Strays::Join("text"),
        slash: true,
        moderated: false,
        section: Section::Correspondence,
        example: "#12 his knight wants d5",
        build: |a| Ok(Command::Note { game: game(a), text: a.word("text").map(str::to_string) }),
    },
    game_command(
        "watch",
        &["follow", "spectate"],
        Section::Correspondence,
        "A direct message on every turn of a game",
        |a| Ok(Command::Watch(game(a), true)),
    ),
    game_command(
        "unwatch",
        &["unfollow"],
        Section::Correspondence,
        "No more direct messages about a game you watch",
        |a| Ok(Command::Watch(game(a), false)),
    ),
    game_command("share", &[], Section::LookingUp, "A public web page for a game of yours", |a| {
        Ok(Command::Share(game(a), true))
    }),
    game_command("unshare", &[], Section::LookingUp, "Take a game's web page down", |a| {
        Ok(Command::Share(game(a), false))
    }),
    CommandSpec {
        name: "archive",
        aliases: &["finished", "past"],
        group: None,
        summary: "Finished games, newest first: yours or someone's, of one variant",
        options: &[
            opt("player", Kind::User { person: false }, "Whose (default: yours)", "@name"),
            opt("variant", Kind::Variant, "Which variant (default: all)", "variant")
                .suggests(Suggest::Variants),
            opt("page", Kind::Number { min: 1, max: Some(10_000) }, "Which page of the list", "page N")
                .after(&["page", "p"]),
        ],
        strays: Strays::Join("variant"),
        slash: true,
        moderated: false,
        section: Section::Correspondence,
        example: "@bob hans38 page 2",
        build: |a| Ok(Command::Archive { variant: a.variant("variant"), page: a.small("page") }),
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
            opt("variant", Kind::Variant, "Which variant (default: chess)", "variant")
                .suggests(Suggest::Variants),
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
            opt(
                "vacation",
                Kind::Number { min: 0, max: Some(365) },
                "Most vacation days a player may take in its games; 0 for none (default: their allowance)",
                "vacation 10",
            )
            .after(&["vacation", "vacations"]),
            opt("name", Kind::Text { max: 80 }, "Its name", "name ...").after(&["name", "called"]),
        ],
        strays: Strays::Each("variant"),
        slash: true,
        moderated: false,
        section: Section::Tournaments,
        example: "swiss hans38 rounds 5 3d rated limit 32 bye 1/2 vacation 10 in 2h name Winter Cup",
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
                variant: a.variant("variant").unwrap_or(Variant::CHESS),
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
                vacation_days: a.small("vacation"),
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
            opt("game", Kind::Game, "Which game", "#12").required().suggests(Suggest::Games),
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
                reason: a.word("reason").unwrap_or(crate::model::GameEnding::ORGANISER).to_string(),
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
    moderated(tournament_command(
        "publish",
        &["web"],
        "A public web page for the tournament (organiser)",
        |a| tournament_cmd(TournamentCommand::Publish(tournament(a), true)),
    )),
    moderated(tournament_command("unpublish", &[], "Take the tournament's web page down (organiser)", |a| {
        tournament_cmd(TournamentCommand::Publish(tournament(a), false))
    })),
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
    // Issue 32: analysis after the game, and the practice hint.
    game_command(
        "analyse",
        &["analyze", "analysis"],
        Section::LookingUp,
        "The engine's look at a finished game: its evaluation graph and the turns that mattered",
        |a| Ok(Command::Analyse(game(a))),
    ),
    game_command(
        "hint",
        &[],
        Section::Playing,
        "In a practice game against me: my turn for you, privately",
        |a| Ok(Command::Hint(game(a))),
    ),
];

const fn button(id: &'static str, label: &'static str, tone: Tone, command: &'static str) -> ButtonSpec {
    ButtonSpec {
        id,
        label,
        tone,
        command,
        fixed: &[],
        confirm: None,
        settles: false,
        private: false,
        asks: None,
    }
}

/// A button that answers the message it is on (a challenge, an offer, the resignation prompt):
/// once it succeeds, that message's buttons are spent.
const fn answer(
    id: &'static str,
    label: &'static str,
    tone: Tone,
    command: &'static str,
    fixed: &'static [(&'static str, &'static str)],
) -> ButtonSpec {
    ButtonSpec { fixed, settles: true, ..button(id, label, tone, command) }
}

const ACCEPT: &[(&str, &str)] = &[("action", "accept")];
const DECLINE: &[(&str, &str)] = &[("action", "decline")];

pub static BUTTONS: &[ButtonSpec] = &[
    answer("accept", "Accept", Tone::Go, "accept", &[]),
    answer("decline", "Decline", Tone::Neutral, "decline", &[]),
    ButtonSpec {
        confirm: Some(("resign-yes", "Resign game")),
        ..button("resign", "Resign", Tone::Danger, "resign")
    },
    answer("resign-yes", "Yes, resign", Tone::Danger, "resign", &[]),
    button("draw", "Offer draw", Tone::Neutral, "draw"),
    answer("draw-yes", "Accept draw", Tone::Go, "draw", ACCEPT),
    answer("draw-no", "Decline", Tone::Neutral, "draw", DECLINE),
    answer("takeback-yes", "Allow takeback", Tone::Go, "takeback", ACCEPT),
    answer("takeback-no", "Refuse", Tone::Neutral, "takeback", DECLINE),
    ButtonSpec {
        fixed: &[("flip", "flip")],
        private: true,
        ..button("flip", "Flip board", Tone::Neutral, "board")
    },
    button("confirm", "Play it anyway", Tone::Danger, "confirm"),
    // Planned privately: the form's answer is the presser's alone.
    ButtonSpec {
        asks: Some("line"),
        private: true,
        ..button("conditional", "Conditional…", Tone::Neutral, "conditional")
    },
    button("t-join", "Join", Tone::Go, "tournament join"),
    button("t-leave", "Leave", Tone::Neutral, "tournament leave"),
];
