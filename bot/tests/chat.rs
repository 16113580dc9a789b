//! Playing in a chat channel (issue 14): near-misses get a hint, ordinary chat gets nothing, and a
//! move finds its game among several.

use crate::talk;

use tessera_core::service::{Reply, Service};
use tessera_store::SqliteStore;

use talk::{T0, say, text};

/// What a channel moderator writes.
fn as_moderator(service: &Service<SqliteStore>, text: &str) -> Vec<Reply> {
    talk::say_at(service, "room", "mod", true, text, T0)
}

fn game(variant: &str) -> Service<SqliteStore> {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    say(&service, "alice", &format!("!t challenge @bob {variant} white"));
    say(&service, "bob", "!t accept");
    service
}

#[test]
fn near_misses_get_a_hint_and_chat_gets_nothing() {
    let service = game("chess");
    let hint = say(&service, "alice", "ng1f3");
    assert!(text(&hint).contains("piece letters are capitals: `Ng1f3`"), "{hint:?}");
    assert!(hint[0].private, "a hint is for the player alone");
    let hint = text(&say(&service, "alice", "Be7 good luck!"));
    assert!(hint.contains("to play Be7, send it on its own"), "{hint}");
    let hint = text(&say(&service, "alice", "nf3"));
    assert!(hint.contains("piece letters are capitals: `Nf3`"), "{hint}");
    for chat in ["ok", "hi bob", "I think e4 was a mistake", "good game everyone", "brb"] {
        assert!(say(&service, "alice", chat).is_empty(), "{chat:?} is chat");
    }
    // Whoever does not have the move gets no hint: they are chatting.
    assert!(say(&service, "bob", "ng8f6").is_empty());
    // Nothing was played by any of it.
    assert!(text(&say(&service, "alice", "!t history")).contains("\n\n*"));
    // In Hans38, a square action written wrongly after a move is explained, not taken as chat.
    let service = game("hans38");
    let hint = text(&say(&service, "alice", "e4 @f3"));
    assert!(hint.contains("nothing was played") && !hint.contains("send it on its own"), "{hint}");
}

#[test]
fn a_move_finds_its_game_among_several() {
    let service = game("chess");
    say(&service, "bob", "!t challenge @alice hans38 black");
    say(&service, "alice", "!t accept");
    say(&service, "bob", "!t challenge @alice chess black");
    say(&service, "alice", "!t accept");
    // Alice has the move in all three: `@@e3 #2`, `#1 d4` and `e4 #3` name the game.
    let played = text(&say(&service, "alice", "@@e3 #2"));
    assert!(played.contains("alice played @@e3"), "{played}");
    assert!(text(&say(&service, "alice", "#1 d4")).contains("alice played d4"));
    assert!(text(&say(&service, "alice", "e4 #3")).contains("alice played e4"));
    // Bob has the move in all three. e5 fits both chess games (e5 is a hole in Hans38), so he is
    // asked which, in his own way of writing it.
    let asked = text(&say(&service, "bob", "e5"));
    assert!(asked.contains("Add the number, like `e5 #1`"), "{asked}");
    let asked = text(&say(&service, "bob", "!t move e5"));
    assert!(asked.contains("like `!t move e5 #1`"), "{asked}");
    // Placing a square fits only the Hans38 game, and goes there.
    let played = text(&say(&service, "bob", "@@f6"));
    assert!(played.contains("bob played @@f6") && played.contains("#2"), "{played}");
    assert!(text(&say(&service, "bob", "d5 #1")).contains("bob played d5"));
    // Only game #3 is left where he has the move: a plain move goes there.
    assert!(text(&say(&service, "bob", "Nf6")).contains("bob played Nf6"));
    let told = text(&say(&service, "bob", "Nc6"));
    assert!(told.contains("it is not your move in any of your games here (#1, #2, #3)"), "{told}");
}

#[test]
fn small_things() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    // Variant names with spaces, as the docs write them.
    let rules = text(&say(&service, "ann", "!t rules neutral squares"));
    assert!(rules.to_lowercase().contains("neutral"), "{rules}");
    assert!(!rules.contains("unknown"), "{rules}");
    // A player named without @ is explained as such, not as an unknown variant.
    let told = text(&say(&service, "ann", "!t challenge bob"));
    assert!(told.contains("mention them with @, like `!t challenge @bob chess`"), "{told}");
    assert!(!told.contains("choose one of"), "{told}");
    // A player's own list of games says where each one is.
    say(&service, "ann", "!t challenge @bob chess white");
    say(&service, "bob", "!t accept");
    let mine = text(&say(&service, "ann", "!t games mine"));
    assert!(mine.contains("ann (white) vs bob (black)") && mine.contains(", in #room"), "{mine}");
    assert!(!text(&say(&service, "ann", "!t games")).contains(", in #room"), "the channel's own list");
}

#[test]
fn moves_are_grouped_by_piece_and_narrowed_by_how_they_begin() {
    let service = game("chess");
    let all = text(&say(&service, "alice", "!t moves"));
    assert!(all.starts_with("20 legal turns for white in game #1:"), "{all}");
    assert!(all.contains("\nNb1: Na3 Nc3\nNg1: Nf3 Nh3\npawns: a3 a4 b3"), "{all}");
    assert_eq!(
        text(&say(&service, "alice", "!t moves Nf")),
        "1 legal turn for white in game #1 beginning Nf:\nNg1: Nf3"
    );
    assert_eq!(
        text(&say(&service, "alice", "!t moves g1f")),
        "1 legal turn for white in game #1 beginning g1f:\nNg1: Nf3",
        "the long form too"
    );
    let none = text(&say(&service, "alice", "!t moves Q"));
    assert!(none.contains("no legal turn in game #1 beginning Q"), "{none}");
    // Thousands of compound turns: counted by how they begin, within one screen, and narrowed.
    let service = game("moving-occupied-squares");
    let all = text(&say(&service, "alice", "!t moves"));
    assert!(all.starts_with("1862 legal turns for white in game #1: how they begin"), "{all}");
    assert!(all.contains("@@e4 (42)") && all.chars().count() < 2000, "{all}");
    let narrow = text(&say(&service, "alice", "!t moves @@e4 @e4"));
    assert!(narrow.starts_with("19 legal turns for white in game #1 beginning @@e4 @e4:"), "{narrow}");
    assert!(narrow.contains("placing a square: @@e4 @e4-c3 · @@e4 @e4-c4 · "), "{narrow}");
}

#[test]
fn moves_speak_each_variant_s_own_forms() {
    // Quad-Square: groups are headed by the location the player names (the knight stands on S2,
    // not f1), and no square action is offered where there is none.
    let service = game("quad-square");
    let all = text(&say(&service, "alice", "!t moves"));
    assert!(all.contains("\nNS2: NS2-M2 NS2-d2 NS2-g4\n"), "{all}");
    assert!(all.contains("\nRS1: RS1-S2 ") && !all.contains("Nf1:") && !all.contains("Ra1:"), "{all}");
    assert_eq!(
        text(&say(&service, "alice", "!t moves NS2")),
        "3 legal turns for white in game #1 beginning NS2:\nNS2: NS2-M2 NS2-d2 NS2-g4"
    );
    // Blue Chip: every turn after the first is a piece move and the chip; no `@`.
    let service = game("blue-chip");
    say(&service, "bob", "[e5]");
    let all = text(&say(&service, "alice", "!t moves"));
    assert!(all.ends_with("Narrow them by how they begin, like `!t moves Nb1`."), "{all}");
    assert!(!all.contains("`!t moves @`"), "{all}");
    // Hans38-like games do have square actions: `@` is offered there.
    let service = game("moving-occupied-squares");
    assert!(text(&say(&service, "alice", "!t moves")).contains("`!t moves @`"));
    // Tiled Squares: tile drops, anti-tile drops and removals by name, found by location too.
    let service = game("tiled-squares");
    let all = text(&say(&service, "alice", "!t moves"));
    assert!(
        all.contains("\ndropping a tile: @@a3 ") && all.contains("\ndropping an anti-tile: @!a3 "),
        "{all}"
    );
    assert!(!all.contains("placing a square"), "{all}");
    assert_eq!(
        text(&say(&service, "alice", "!t moves @e4")),
        "2 legal turns for white in game #1 beginning @e4:\ndropping a tile: @@e4\ndropping an anti-tile: @!e4"
    );
    for turn in ["@@a3", "@@a6", "Nb1-a3", "@!h6"] {
        let who = if turn == "@@a6" || turn == "@!h6" { "bob" } else { "alice" };
        assert!(text(&say(&service, who, turn)).contains("played"), "{turn}");
    }
    assert_eq!(
        text(&say(&service, "alice", "!t moves @x")),
        "1 legal turn for white in game #1 beginning @x:\nremoving a tile: @xb1"
    );
    assert_eq!(
        text(&say(&service, "alice", "!t moves @b1")),
        "1 legal turn for white in game #1 beginning @b1:\nremoving a tile: @xb1"
    );
}

#[test]
fn the_quad_square_board_shows_its_quads() {
    let service = game("quad-square");
    say(&service, "alice", "NS2-M2");
    say(&service, "bob", "e6-M2");
    // Bob's view after his move is Alice's turn: from White's side by default.
    let board = say(&service, "alice", "!t board");
    let diagram = board.iter().find_map(|r| r.diagram.clone()).expect("a text diagram");
    let rows: Vec<&str> = diagram.lines().collect();
    // M2 holds White's knight and Black's pawn; S2 is empty.
    assert_eq!(rows[3], "5  . [ M1 ] . [ M2 ] .", "{diagram}");
    assert_eq!(rows[4], "4  . [    ] . [ Np ] .", "{diagram}");
    assert_eq!(rows[6], "2 [ S1 ] .  .  . [ S2 ]", "{diagram}");
    assert_eq!(rows[7], "1 [ R  ] B  K  Q [    ]", "{diagram}");
}

#[test]
fn a_turn_that_loses_by_rule_is_confirmed_first() {
    let service = game("hans38-postal");
    // 1. @@e4 leaves White no piece move after Black's answer: asked, not played.
    let asked = say(&service, "alice", "@@e4");
    assert!(text(&asked).starts_with("Not played yet: black can answer"), "{asked:?}");
    assert!(asked[0].private && asked[0].actions.is_some(), "a private question with a button");
    assert!(text(&say(&service, "alice", "!t history")).contains("\n\n*"), "nothing was played");
    assert!(text(&say(&service, "alice", "!t confirm")).contains("alice played @@e4"));
    assert!(text(&say(&service, "alice", "!t confirm")).contains("no turn of yours waiting"));
    // Confirmed in advance with a separate `!`, or never asked once turned off.
    let service = game("hans38-postal");
    assert!(text(&say(&service, "alice", "@@e4 !")).contains("alice played @@e4"));
    let service = game("hans38-postal");
    assert!(text(&say(&service, "alice", "!t settings confirm off")).contains("Saved: confirm off"));
    assert!(text(&say(&service, "alice", "!t move @@e4")).contains("alice played @@e4"));
    assert!(text(&say(&service, "alice", "!t settings")).contains("confirm off"));
    // A stale confirmation is refused: the game moved on.
    let service = game("hans38-postal");
    say(&service, "alice", "@@e4");
    assert!(text(&say(&service, "alice", "@@d4 !")).contains("alice played @@d4"));
    let stale = text(&say(&service, "alice", "!t confirm"));
    assert!(stale.contains("has moved on"), "{stale}");
}

#[test]
fn a_turn_that_leaves_out_an_action_is_confirmed_first() {
    let service = game("hans38-postal-plus");
    let asked = text(&say(&service, "alice", "@@a3"));
    assert!(asked.contains("this turn could take one more action, as `@@a3 @a3-"), "{asked}");
    let full = text(&say(&service, "alice", "@@a3 @a3-a4"));
    assert!(!full.contains("one more action"), "a full turn is not asked to be longer: {full}");
    // Plain chess never asks.
    let service = game("chess");
    assert!(text(&say(&service, "alice", "e4")).contains("alice played e4"));
    let bad = text(&say(&service, "alice", "!t settings board sideways"));
    assert!(bad.contains("board mine"), "{bad}");
}

#[test]
fn each_player_chooses_how_boards_face() {
    let diagram_top =
        |r: &[Reply]| r.iter().find_map(|r| r.diagram.clone()).unwrap().lines().next().unwrap().to_string();
    let service = game("chess");
    // By default the board faces the side to move: after White's move, from Black's side.
    assert!(diagram_top(&say(&service, "alice", "e4")).starts_with("1 "));
    assert!(text(&say(&service, "bob", "!t settings board white")).contains("Saved: board white"));
    assert!(
        diagram_top(&say(&service, "bob", "!t board")).starts_with("8 "),
        "bob always sees it from White"
    );
    assert!(text(&say(&service, "alice", "!t settings board mine")).contains("Saved: board mine"));
    assert!(diagram_top(&say(&service, "alice", "!t board")).starts_with("8 "), "alice's own side is White");
    // The picture after Bob's move is for Alice, who has the move and wants her own side.
    assert!(diagram_top(&say(&service, "bob", "e5")).starts_with("8 "));
}

#[test]
fn each_player_chooses_the_pictures_theme_and_labels_with_the_channels_as_default() {
    let image = |r: &[Reply]| r.iter().find_map(|r| r.image.clone()).expect("a picture");
    let service = game("chess");
    let plain = image(&say(&service, "alice", "!t board"));
    assert!(text(&say(&service, "alice", "!t settings")).contains("theme walnut"));
    assert!(text(&say(&service, "alice", "!t settings theme slate")).contains("Saved: theme slate"));
    let slate = image(&say(&service, "alice", "!t board"));
    assert_ne!(plain, slate, "the picture changes with the theme");
    assert!(text(&say(&service, "alice", "!t settings coordinates off")).contains("Saved: coordinates off"));
    assert_ne!(slate, image(&say(&service, "alice", "!t board")));
    // Wrong values change nothing and say what is right.
    let wrong = text(&say(&service, "alice", "!t settings theme neon"));
    assert!(wrong.contains("`!t settings theme walnut` or `!t settings theme slate`"), "{wrong}");
    let unknown = text(&say(&service, "alice", "!t settings colour red"));
    assert!(
        unknown.contains("there is no setting \"colour\"") && unknown.contains("`theme walnut|slate`"),
        "{unknown}"
    );
    // Bob has chosen nothing: the channel's default (set by a moderator) is his.
    let bob_before = image(&say(&service, "bob", "!t board"));
    assert!(
        text(&as_moderator(&service, "!t channel theme slate"))
            .contains("Saved for this channel: theme slate")
    );
    assert!(text(&as_moderator(&service, "!t channel")).contains("theme slate"));
    assert_ne!(bob_before, image(&say(&service, "bob", "!t board")));
    assert!(text(&say(&service, "bob", "!t settings")).contains("theme slate"));
}

#[test]
fn each_variants_rules_say_how_a_turn_is_built_with_an_example_turn_that_plays() {
    for &v in tessera_rules::Variant::ALL {
        let service = Service::new(SqliteStore::in_memory().unwrap());
        let rules = say(&service, "ann", &format!("!t rules {}", v.name()));
        let help = text(&rules);
        assert!(rules[0].image.is_some(), "{v}: a picture of the start");
        assert!(help.contains("Turn: ") && help.contains("Ends: "), "{v}: {help}");
        assert!(help.len() < 1000, "{v}: short: {} characters", help.len());
        // The example is a legal first turn of the side that begins.
        let example = help.split("Example: `").nth(1).unwrap().split('`').next().unwrap();
        say(&service, "ann", &format!("!t challenge @bob {} white", v.name()));
        say(&service, "bob", "!t accept");
        let first = if v == tessera_rules::Variant::BLUE_CHIP { "bob" } else { "ann" };
        let played = if v == tessera_rules::Variant::BLUE_CHIP {
            say(&service, "bob", "[e5] !");
            text(&say(&service, "ann", &format!("{example} !")))
        } else {
            text(&say(&service, first, &format!("{example} !")))
        };
        assert!(played.contains(" played "), "{v}: the example `{example}`: {played}");
    }
    // Each variant's text is its own: no two alike.
    let texts: std::collections::HashSet<String> = tessera_rules::Variant::ALL
        .iter()
        .map(|v| {
            text(&say(
                &Service::new(SqliteStore::in_memory().unwrap()),
                "ann",
                &format!("!t rules {}", v.name()),
            ))
        })
        .collect();
    assert_eq!(texts.len(), tessera_rules::Variant::ALL.len());
}

#[test]
fn a_finished_game_comes_with_its_gif_unless_the_channel_says_no() {
    let service = game("chess");
    for (who, mv) in [("alice", "f3"), ("bob", "e5"), ("alice", "g4")] {
        assert!(say(&service, who, mv)[0].animation.is_none(), "only a finished game");
    }
    let mate = say(&service, "bob", "Qh4#");
    assert!(text(&mate).contains("Black wins by checkmate"));
    let gif = mate[0].animation.as_ref().expect("the game as a GIF");
    assert_eq!(&gif[..6], b"GIF89a");
    // Five positions, each a frame.
    let mut frames = 0;
    let mut decoder = gif::DecodeOptions::new().read_info(gif.as_slice()).unwrap();
    while decoder.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, 5);
    // Only a moderator turns them off, for their channel.
    let service = game("chess");
    assert!(text(&say(&service, "alice", "!t channel gifs off")).contains("only the channel's moderators"));
    assert!(
        text(&as_moderator(&service, "!t channel gifs off")).contains("Saved for this channel: gifs off")
    );
    assert!(text(&say(&service, "alice", "!t channel")).contains("gifs off"));
    say(&service, "alice", "e4");
    let resigned = say(&service, "alice", "!t resign");
    assert!(text(&resigned).contains("resign") && resigned[0].animation.is_none(), "{resigned:?}");
}

#[test]
fn a_channels_defaults_hold_for_players_who_chose_nothing() {
    let service = game("hans38-postal");
    let saved = text(&as_moderator(&service, "!t channel confirm off"));
    assert!(saved.contains("Saved for this channel: confirm off"), "{saved}");
    assert!(text(&say(&service, "alice", "@@e4")).contains("alice played @@e4"), "not asked here");
    // A player's own choice wins over the channel's.
    let service = game("hans38-postal");
    as_moderator(&service, "!t channel confirm off");
    say(&service, "alice", "!t settings confirm on");
    assert!(text(&say(&service, "alice", "@@e4")).starts_with("Not played yet"));
}

#[test]
fn asked_which_game_the_example_repeats_the_command_sent() {
    let service = game("chess");
    say(&service, "bob", "!t challenge @alice hans38 black");
    say(&service, "alice", "!t accept");
    for sent in ["!t moves", "!t resign", "!t draw accept", "!t moves Nf", "!tessera board flip"] {
        let asked = say(&service, "alice", sent);
        assert!(asked[0].private, "{sent}: {asked:?}");
        assert!(text(&asked).contains(&format!("Add the number, like `{sent} #1`")), "{sent}: {asked:?}");
    }
    // A slash command or a button has no text: its text form stands for it.
    let author = tessera_core::service::User::new("alice", "alice");
    let msg = tessera_core::service::Incoming {
        platform: talk::PLATFORM,
        channel: "room",
        author: &author,
        is_admin: false,
        text: "",
        mentions: &[],
        now: T0,
        thread: None,
    };
    let asked = service.run(&msg, tessera_core::commands::Command::Resign(None));
    assert!(text(&asked).contains("like `!t resign #1`"), "{asked:?}");
}

#[test]
fn a_game_played_elsewhere_is_named_with_its_channel() {
    let service = game("chess");
    let told = text(&talk::say_in(&service, "lobby", "alice", "!t board #1"));
    assert_eq!(told, "game #1 is played in #room; look at it or move there");
}

/// What has to exist before a command's example can be sent, and who sends it.
struct World {
    author: &'static str,
    admin: bool,
    setup: Vec<(&'static str, String)>,
}

/// Every example the command table shows (`!t help`, and the errors that say "like …"), sent in a
/// world where what it names exists: none is refused.
#[test]
fn every_example_in_the_command_table_is_accepted_when_sent() {
    use tessera_core::command_table::COMMANDS;
    let step = |who: &'static str, text: &str| (who, text.to_string());
    // Twelve games of alice's (White) with bob, so that `#12` is one; her move in each.
    let twelve_games = || -> Vec<(&'static str, String)> {
        (0..12)
            .flat_map(|_| [step("alice", "!t challenge @bob chess white"), step("bob", "!t accept")])
            .collect()
    };
    // Eleven challenges withdrawn, then the twelfth open.
    let challenge_twelve = |from: &'static str, to: &str| -> Vec<(&'static str, String)> {
        let mut steps: Vec<_> = (0..11)
            .flat_map(|_| [step(from, &format!("!t challenge @{to} chess")), step(from, "!t cancel")])
            .collect();
        steps.push(step(from, &format!("!t challenge @{to} chess")));
        steps
    };
    // Tournaments t1 to t3, alice organising; bob, carol, dave and erin entered in t3.
    let three_tournaments = |start: bool| -> Vec<(&'static str, String)> {
        let mut steps: Vec<_> =
            (0..3).map(|_| step("alice", "!t tournament create swiss chess rounds 3")).collect();
        steps.extend(["bob", "carol", "dave", "erin"].map(|p| step(p, "!t tournament join t3")));
        if start {
            steps.push(step("alice", "!t tournament start t3"));
        }
        steps
    };
    let world = |path: &str| -> World {
        let mut w = World { author: "alice", admin: false, setup: Vec::new() };
        match path {
            "rematch" => {
                w.setup = vec![
                    step("alice", "!t challenge @bob chess"),
                    step("bob", "!t accept"),
                    step("alice", "!t resign"),
                ]
            }
            "accept" | "decline" => w.setup = challenge_twelve("bob", "alice"),
            "cancel" => w.setup = challenge_twelve("alice", "bob"),
            "move" | "board" | "resign" | "history" | "note" | "waiting" | "share" => {
                w.setup = twelve_games()
            }
            "unshare" => {
                w.setup = twelve_games();
                w.setup.push(step("alice", "!t share #12"));
            }
            "watch" | "unwatch" => {
                w.setup = twelve_games();
                w.setup.push(step("carol", "!t watch #12"));
                w.author = "carol";
            }
            "moves" => {
                w.setup = twelve_games();
                w.setup.extend([step("alice", "e4 #12"), step("bob", "e5 #12")]);
            }
            "draw" => {
                w.setup = twelve_games();
                w.setup.push(step("bob", "!t draw #12"));
            }
            "conditional" => {
                w.setup = twelve_games();
                w.setup.push(step("alice", "e4 #12"));
            }
            "takeback" => {
                w.setup = twelve_games();
                w.setup.extend([
                    step("alice", "e4 #12"),
                    step("bob", "e5 #12"),
                    step("bob", "!t takeback #12"),
                ]);
            }
            "claim" => {
                w.setup = twelve_games();
                for (who, m) in [("alice", "Nf3"), ("bob", "Nf6"), ("alice", "Ng1"), ("bob", "Ng8")].repeat(2)
                {
                    w.setup.push(step(who, &format!("{m} #12")));
                }
            }
            "confirm" => {
                w.setup = (0..12)
                    .flat_map(|_| {
                        [step("alice", "!t challenge @bob hans38-postal white"), step("bob", "!t accept")]
                    })
                    .collect();
                w.setup.push(step("alice", "@@e4 #12"));
            }
            "channel" => w.admin = true,
            "tournament join" => {
                w.setup = three_tournaments(false);
                w.author = "frank";
            }
            "tournament leave" => {
                w.setup = three_tournaments(false);
                w.author = "bob";
            }
            "tournament start" | "tournament cancel" => w.setup = three_tournaments(false),
            "tournament standings"
            | "tournament pause"
            | "tournament export"
            | "tournament withdraw"
            | "tournament publish" => w.setup = three_tournaments(true),
            "tournament unpublish" => {
                w.setup = three_tournaments(true);
                w.setup.push(step("alice", "!t tournament publish t3"));
            }
            "tournament resume" => {
                w.setup = three_tournaments(true);
                w.setup.push(step("alice", "!t tournament pause t3"));
            }
            "tournament pairings" => {
                w.setup = three_tournaments(true);
                // Round 1's two games end (set by the organiser); round 2 is paired.
                w.setup.extend(
                    [1, 2].map(|g| step("alice", &format!("!t tournament result t3 #{g} +- no show"))),
                );
            }
            "analyse" => {
                w.setup = twelve_games();
                w.setup.extend([step("alice", "e4 #12"), step("bob", "!t resign #12")]);
            }
            "hint" => {
                // Eleven games with bob, then alice's practice game against the bot: #12.
                w.setup = twelve_games()[..22].to_vec();
                w.setup.push(step("alice", "!t challenge @tessera chess white"));
            }
            "tournament result" => {
                // Eleven games first, so that t3's first game is #12.
                w.setup = twelve_games()[..22].to_vec();
                w.setup.extend(three_tournaments(true));
            }
            _ => {}
        }
        w
    };
    for spec in COMMANDS {
        let path = spec.path();
        let w = world(&path);
        let service = Service::new(SqliteStore::in_memory().unwrap());
        service.set_bot_account(talk::PLATFORM, "tessera");
        for (who, text) in &w.setup {
            let replies = say(&service, who, text);
            // The one question setting up asks is the turn `!t confirm` answers.
            let asked = replies.first().is_some_and(|r| r.text.starts_with("Not played yet"));
            assert!(
                asked || replies.iter().all(|r| !r.private),
                "{path}: setting up, {who}: {text} -> {replies:?}"
            );
        }
        let example = spec.example_text();
        // Conditional turns are given privately: in a direct message, where no game is played.
        let channel = if path == "conditional" { "dm-alice" } else { "room" };
        let replies = talk::say_at(&service, channel, w.author, w.admin, &example, T0);
        assert!(!replies.is_empty(), "{example}: no answer");
        // Conditional turns are answered privately whatever they say: look at the words.
        // So is a hint: its acknowledgement is the player's alone.
        let acknowledged =
            replies[0].text.starts_with("Saved") || replies[0].text.starts_with("Looking for a turn");
        let refused = replies[0].private && !acknowledged;
        assert!(!refused, "{example} is refused: {}", replies[0].text);
    }
}
