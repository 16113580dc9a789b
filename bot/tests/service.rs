//! The command layer end to end on a temporary database: whole games of every variant, bad input,
//! restart and continue, racing moves, clocks.

use std::path::PathBuf;
use std::sync::Arc;

use tessera_core::commands::Command;
use tessera_core::service::{Actions, Incoming, Notice, Reply, Service, Suggestion, User, suggest_variants};
use tessera_core::store::Store;
use tessera_store::SqliteStore;

const T0: i64 = 1_800_000_000;

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-svc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.sqlite")
}

struct Table<S: Store> {
    service: Service<S>,
    channel: String,
    now: i64,
}

impl<S: Store> Table<S> {
    fn say(&self, who: &str, text: &str) -> Vec<Reply> {
        let author = User::new(who, who);
        let mentions: Vec<User> =
            text.split_whitespace().filter_map(|w| w.strip_prefix('@')).map(|n| User::new(n, n)).collect();
        let msg = Incoming {
            platform: "test",
            channel: &self.channel,
            author: &author,
            is_admin: false,
            text,
            mentions: &mentions,
            now: self.now,
            thread: None,
        };
        self.service.handle(&msg)
    }

    /// The single reply's text.
    fn says(&self, who: &str, text: &str) -> String {
        let replies = self.say(who, text);
        assert_eq!(replies.len(), 1, "{who}: {text} -> {replies:?}");
        replies[0].text.clone()
    }

    fn start(&self, variant: &str) -> i64 {
        let reply = self.says("alice", &format!("!t challenge @bob {variant} white"));
        assert!(reply.contains("challenges bob"), "{reply}");
        let reply = self.says("bob", "!t accept");
        assert!(reply.starts_with("Game #"), "{reply}");
        reply["Game #".len()..].split_whitespace().next().unwrap().parse().unwrap()
    }

    /// Plays the turns alternately from White, each written plainly in the channel.
    fn play(&self, turns: &[&str]) -> String {
        let mut last = String::new();
        for (i, turn) in turns.iter().enumerate() {
            let who = if i % 2 == 0 { "alice" } else { "bob" };
            last = self.says(who, turn);
            // A turn that loses by rule is asked about first; these games mean to play it.
            if last.starts_with("Not played yet") {
                last = self.says(who, "!t confirm");
            }
            assert!(last.contains(" played "), "{who}: {turn} -> {last}");
        }
        last
    }
}

fn table(path: &std::path::Path, channel: &str) -> Table<SqliteStore> {
    Table { service: Service::new(SqliteStore::open(path).unwrap()), channel: channel.into(), now: T0 }
}

#[test]
fn whole_games_of_every_variant() {
    let db = temp_db("variants");
    let decided: &[(&str, &[&str], &str)] = &[
        ("chess", &["f3", "e5", "g4", "Qh4#"], "(0-1)"),
        ("hans38", &["@@a6", "a7-a6", "@@b6", "b7-b6", "@@c6", "c7-c6"], "Black wins by stalemate"),
        ("hans38-postal", &["@@a5", "@@f6"], "Black wins by stalemate"),
        ("blue-chip", &[], ""),
    ];
    for (i, &(variant, turns, end)) in decided.iter().enumerate() {
        let t = table(&db, &format!("room{i}"));
        let id = t.start(variant);
        if variant == "blue-chip" {
            // Black opens with the chip, then a fool's mate with the chip kept out of the way.
            assert!(t.says("bob", "[h6]").contains("bob played [h6]"));
            for (who, m) in [("alice", "f2-f3[h5]"), ("bob", "e7-e5[a3]"), ("alice", "g2-g4[a6]")] {
                assert!(t.says(who, m).contains(" played "));
            }
            let last = t.says("bob", "Qd8-h4[b3]");
            assert!(last.contains("Black wins by checkmate (0-1)"), "{last}");
        } else {
            let last = t.play(turns);
            assert!(last.contains(end), "{variant}: {last}");
        }
        assert!(t.says("alice", &format!("!t move a2-a3 #{id}")).contains("is over"));
    }
    // The rest: a few turns each, then a resignation, an agreed draw, or a claim.
    let played: &[(&str, &[&str])] = &[
        ("hans38-postal-plus", &["@@f3", "@@f6", "Ng1-f3 @g1-g3 @@e4", "Ng8-f6 @@e5"]),
        ("hans38-neutral", &["@@f3", "@@f6", "Ng1-f3", "Ng8-f6"]),
        ("hans38-neutral-postal", &["@@f3", "@@f6", "Ng1-f3 @@e4", "Ng8-f6 @@e5"]),
        ("hans38-neutral-postal-plus", &["@@f3", "@@f6", "Ng1-f3 @@e4 @g1-g3", "Ng8-f6 @@e5"]),
        ("infinite-reserves", &["@@f3", "@@f6", "Ng1-f3 @@e4", "Ng8-f6 @@e5", "Nf3xe5 @@d4", "Nf6xe4 @@d5"]),
        ("moving-occupied-squares", &["@@f3", "@@f6", "Ng1-f3 @@e4 @b2-b3", "Ng8-f6 @@e5"]),
        ("quad-square", &["c3-M1", "b6-M1", "NS2-M2", "d6-d5", "NM2xc6+", "Qe8xc6"]),
        ("tiled-squares", &["@@e4", "@@e5", "e2-e4", "@!d5", "Ke1-e2", "e7-e5"]),
        // The fool's mate fails here: f3-f4 empties the third rank and the board closes the diagonal.
        ("shrink", &["f3", "e5", "g4", "Qh4+", "f4"]),
    ];
    for (i, &(variant, turns)) in played.iter().enumerate() {
        let t = table(&db, &format!("other{i}"));
        t.start(variant);
        t.play(turns);
        match i % 3 {
            0 => assert!(t.says("alice", "!t resign").contains("Black wins by resignation (0-1)")),
            1 => {
                assert!(t.says("alice", "!t draw").contains("offers a draw"));
                assert!(t.says("bob", "!t draw accept").contains("drawn by agreement"));
            }
            _ => assert!(t.says("bob", "!t resign").contains("White wins by resignation (1-0)")),
        }
        let history = t.says("bob", "!t history");
        let record = history.split("\n\n").nth(1).unwrap();
        let replayed = tessera_rules::replay(variant.parse().unwrap(), record).unwrap();
        assert_eq!(replayed.game.moves().len(), turns.len(), "{variant}: the export replays");
    }
}

#[test]
fn bad_input_gets_a_reason_and_changes_nothing() {
    let db = temp_db("bad");
    let t = table(&db, "main");
    let id = t.start("chess");
    let before = t.service.store().game(id).unwrap().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("bob", "!t move e5", "it is alice's turn"),
        ("carol", "!t move e4 #1", "you are not playing"),
        ("alice", "!t move e5", "no pawn of yours can move to e5"),
        ("alice", "!t move Nz9", "cannot read"),
        ("alice", "!t frobnicate", "!t help"),
        ("carol", "!t resign #1", "only the players"),
        ("alice", "!t board #99", "no game #99"),
        ("alice", "!t challenge", "name your opponent"),
        ("alice", "!t challenge @alice", "cannot challenge yourself"),
        ("alice", "!t draw accept", "has not offered a draw"),
        ("alice", "!t takeback", "no move to take back"),
        ("alice", "!t claim", "nothing to claim"),
    ];
    for &(who, text, expected) in cases {
        let replies = t.say(who, text);
        assert_eq!(replies.len(), 1, "{text}");
        assert!(replies[0].text.contains(expected), "{text}: {}", replies[0].text);
        assert!(replies[0].private, "{text}: errors go to the author only");
    }
    let long = format!("!t move {}", "e4 ".repeat(3334));
    let replies = t.say("alice", &long);
    assert!(replies[0].text.contains("at most 2000") && replies[0].text.len() < 200);
    // A long message not addressed to the bot is chat, even from a player with a game here.
    assert!(t.say("alice", &"e4 ".repeat(3334)).is_empty());
    assert!(t.say("alice", &"so long ".repeat(400)).is_empty());
    // Chat that is not a move gets no reply at all.
    assert!(t.say("alice", "good luck, have fun").is_empty());
    assert!(t.say("carol", "e4").is_empty(), "a bystander's move-like text is just chat");
    assert_eq!(t.service.store().game(id).unwrap().unwrap(), before, "nothing changed");
}

#[test]
fn a_restart_continues_every_game_exactly() {
    let db = temp_db("restart");
    let id = {
        let t = table(&db, "main");
        let id = t.start("hans38");
        t.play(&["@@e4", "@@e5", "@@d4"]);
        id
    };
    let t = table(&db, "main");
    let board = t.say("alice", "!t board");
    assert!(board[0].text.contains("bob to move"), "{}", board[0].text);
    assert!(board[0].image.as_ref().is_some_and(|png| &png[1..4] == b"PNG"));
    assert!(t.says("bob", "@@d5").contains("bob played @@d5"));
    let row = t.service.store().game(id).unwrap().unwrap();
    assert_eq!(row.moves, ["@@e4", "@@e5", "@@d4", "@@d5"]);
}

#[test]
fn racing_moves_exactly_one_wins() {
    let db = temp_db("race");
    let id = table(&db, "main").start("chess");
    // Two bot processes (two services on the same file), the same player sending two moves at once.
    let a = Arc::new(table(&db, "main"));
    let b = Arc::new(table(&db, "main"));
    let ha = {
        let a = Arc::clone(&a);
        std::thread::spawn(move || a.say("alice", "e4"))
    };
    let hb = {
        let b = Arc::clone(&b);
        std::thread::spawn(move || b.say("alice", "d4"))
    };
    let (ra, rb) = (ha.join().unwrap(), hb.join().unwrap());
    let texts = [ra[0].text.clone(), rb[0].text.clone()];
    let winners = texts.iter().filter(|t| t.contains("alice played")).count();
    assert_eq!(winners, 1, "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("position changed") || t.contains("it is bob's turn")),
        "{texts:?}"
    );
    assert_eq!(a.service.store().game(id).unwrap().unwrap().moves.len(), 1);
}

#[test]
fn clocks_remind_then_end_the_game() {
    let db = temp_db("clock");
    let mut t = table(&db, "main");
    let reply = t.says("alice", "!t challenge @bob chess white 1d");
    assert!(reply.contains("1 day per move"), "{reply}");
    t.says("bob", "!t accept");
    t.play(&["e4"]);
    t.now += 13 * 3600;
    let notices = t.service.tick(t.now).unwrap();
    assert_eq!(notices.len(), 1);
    assert!(notices[0].text.contains("bob, it is your move"), "{:?}", notices);
    assert_eq!(notices[0].notify, ["bob"], "the reminder is for the one to move");
    assert!(t.service.tick(t.now + 60).unwrap().is_empty(), "one reminder");
    t.now += 12 * 3600;
    let notices = t.service.tick(t.now).unwrap();
    assert!(notices[0].text.contains("bob ran out of time"), "{:?}", notices);
    assert_eq!(notices[0].notify, ["bob", "alice"], "both hear how the game ended");
    assert!(t.says("bob", "!t move e5").contains("no game running"));
    assert!(t.says("bob", "!t history #1").contains("[Result \"1-0\"]"));
}

#[test]
fn takeback_and_draw_claims() {
    let db = temp_db("takeback");
    let t = table(&db, "main");
    t.start("chess");
    t.play(&["e4", "e5"]);
    assert!(t.says("bob", "!t takeback").contains("asks to take back"));
    let reply = t.says("alice", "!t takeback accept");
    assert!(reply.contains("1 move undone") && reply.contains("bob to move"), "{reply}");
    // Knights out and back twice: threefold repetition, claimed by the player to move.
    for (who, m) in [
        ("bob", "Nf6"),
        ("alice", "Nf3"),
        ("bob", "Ng8"),
        ("alice", "Ng1"),
        ("bob", "Nf6"),
        ("alice", "Nf3"),
        ("bob", "Ng8"),
    ] {
        assert!(t.says(who, m).contains(" played "));
    }
    let last = t.says("alice", "Ng1");
    assert!(last.contains("You may claim a draw"), "{last}");
    assert!(t.says("bob", "!t claim").contains("drawn by threefold repetition"));
}

#[test]
fn garbage_never_panics_and_changes_nothing() {
    let db = temp_db("garbage");
    let t = table(&db, "main");
    let id = t.start("hans38-postal-plus");
    let before = t.service.store().game(id).unwrap().unwrap();
    let pieces = [
        "!t",
        "!tessera",
        "move",
        "board",
        "#",
        "#0",
        "#-1",
        "#99999999999999999999",
        "@",
        "@@",
        "[",
        "]",
        "=Q",
        "e2",
        "e4",
        "Ng1-f3",
        "@@e4",
        "@g1-g3",
        "draw",
        "accept",
        "takeback",
        "challenge",
        "@bob",
        "days",
        "0",
        "31",
        "\u{0}",
        "é",
        "∞",
        "💥",
        "O-O-O-O",
        "x",
        ":",
        "(N)",
        "S1",
        "M2",
    ];
    let mut seed: u64 = 0x1234_5678;
    for _ in 0..600 {
        let mut text = String::new();
        for _ in 0..(seed % 6) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            text.push(' ');
        }
        // Carol is not playing: nothing she writes may change the game.
        let _ = t.say("carol", &text);
    }
    assert_eq!(t.service.store().game(id).unwrap().unwrap(), before);
}

#[test]
fn a_damaged_game_row_gets_a_clear_reply_and_nothing_else_breaks() {
    let db = temp_db("corrupt");
    let t = table(&db, "main");
    let id = t.start("chess");
    t.play(&["e4"]);
    // Someone edits the database by hand and leaves an impossible move behind.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE moves SET text = 'Ke1-e5' WHERE game_id = ?1 AND ply = 1", [id]).unwrap();
    let reply = t.says("bob", "!t board");
    assert!(reply.contains(&format!("game #{id} cannot be loaded")), "{reply}");
    assert!(t.says("bob", "e5").contains("cannot be loaded"));
    // Other games are not affected.
    let other = table(&db, "elsewhere");
    other.start("hans38");
    assert!(other.says("alice", "@@e4").contains("alice played @@e4"));
}

impl<S: Store> Table<S> {
    fn incoming<'a>(&'a self, author: &'a User) -> Incoming<'a> {
        Incoming {
            platform: "test",
            channel: &self.channel,
            author,
            is_admin: false,
            text: "",
            mentions: &[],
            now: self.now,
            thread: None,
        }
    }

    fn run(&self, who: &str, cmd: Command) -> Vec<Reply> {
        let author = User::new(who, who);
        self.service.run(&self.incoming(&author), cmd)
    }

    fn values(&self, who: &str, f: impl Fn(&Service<S>, &Incoming) -> Vec<Suggestion>) -> Vec<String> {
        let author = User::new(who, who);
        f(&self.service, &self.incoming(&author)).into_iter().map(|s| s.value).collect()
    }
}

#[test]
fn replies_carry_the_buttons_they_invite() {
    let t = table(&temp_db("actions"), "room");
    let challenge = t.say("alice", "!t challenge @bob chess white");
    let Some(Actions::Challenge(cid)) = challenge[0].actions else { panic!("{challenge:?}") };
    let begins = t.run("bob", Command::Accept(Some(cid)));
    assert!(begins[0].text.starts_with("Game #1 begins"), "{begins:?}");
    assert_eq!(begins[0].actions, Some(Actions::Game(1)));
    assert_eq!(t.say("alice", "e4")[0].actions, Some(Actions::Game(1)));
    assert_eq!(t.say("alice", "!t draw")[0].actions, Some(Actions::DrawOffer(1)));
    assert_eq!(t.say("alice", "!t takeback")[0].actions, Some(Actions::TakebackOffer(1)));
    // Errors invite nothing; a finished game offers no buttons.
    let refused = t.run("alice", Command::Move { game: Some(1), text: "e5".into() });
    assert!(refused[0].private && refused[0].actions.is_none(), "{refused:?}");
    let resigned = t.run("bob", Command::Resign(Some(1)));
    assert!(resigned[0].text.contains("bob resigns"), "{resigned:?}");
    let board = t.run("bob", Command::Board { game: Some(1), flip: true });
    assert!(board[0].image.is_some() && board[0].actions.is_none(), "{board:?}");
}

#[test]
fn the_decline_button_withdraws_for_the_challenger_and_strangers_are_told_why() {
    let t = table(&temp_db("decline"), "room");
    t.says("alice", "!t challenge @bob hans38");
    let stranger = t.run("carol", Command::Accept(Some(1)));
    assert!(stranger[0].private && stranger[0].text.contains("only the one challenged"), "{stranger:?}");
    let own = t.run("alice", Command::Accept(Some(1)));
    assert!(own[0].private, "{own:?}");
    let withdrawn = t.run("alice", Command::Decline(Some(1)));
    assert_eq!(withdrawn[0].text, "Challenge 1 cancelled.");
    assert!(t.run("bob", Command::Accept(Some(1)))[0].private, "a withdrawn challenge cannot be accepted");
}

#[test]
fn autocomplete_offers_legal_moves_games_challenges_and_variants() {
    let t = table(&temp_db("suggest"), "room");
    t.says("alice", "!t challenge @bob quad-square");
    let open = t.values("bob", |s, m| s.suggest_challenges(m, false, "", 25));
    assert_eq!(open, ["1"]);
    assert!(t.values("bob", |s, m| s.suggest_challenges(m, true, "", 25)).is_empty());
    assert_eq!(t.values("alice", |s, m| s.suggest_challenges(m, true, "quad", 25)), ["1"]);
    t.say("bob", "!t decline");
    t.start("chess");

    // All 20 opening moves, and those a prefix picks, in SAN or in long form.
    let all = t.values("alice", |s, m| s.suggest_moves(m, None, "", 100));
    assert_eq!(all.len(), 20, "{all:?}");
    assert_eq!(t.values("alice", |s, m| s.suggest_moves(m, None, "N", 25)), ["Na3", "Nc3", "Nf3", "Nh3"]);
    assert_eq!(t.values("alice", |s, m| s.suggest_moves(m, None, "g1-f", 25)), ["Nf3"]);
    assert_eq!(t.values("alice", |s, m| s.suggest_moves(m, None, "e2e4", 25)), ["e4"]);
    assert_eq!(t.values("alice", |s, m| s.suggest_moves(m, None, "e", 2)), ["e3", "e4"]);
    assert!(t.values("bob", |s, m| s.suggest_moves(m, None, "", 25)).is_empty(), "not bob's turn");
    assert!(t.values("carol", |s, m| s.suggest_moves(m, None, "", 25)).is_empty(), "not a player");
    t.say("alice", "e4");
    let replies = t.values("bob", |s, m| s.suggest_moves(m, Some(1), "", 100));
    assert_eq!(replies.len(), 20);

    let author = User::new("bob", "bob");
    let games = t.service.suggest_games(&t.incoming(&author), "", 25);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].value, "1");
    assert!(games[0].label.contains("vs alice") && games[0].label.contains("your move"), "{games:?}");

    let variants: Vec<String> = suggest_variants("hans", 25).into_iter().map(|s| s.value).collect();
    assert!(variants.len() >= 6 && variants.iter().all(|v| v.starts_with("hans38")), "{variants:?}");
    // Every variant, the built-ins first (other suites of this process may have registered
    // community variants: they follow).
    let all: Vec<String> = suggest_variants("", 25).into_iter().map(|s| s.value).collect();
    assert_eq!(all.len(), tessera_rules::Variant::all().len().min(25));
    let built_in: Vec<&str> = tessera_rules::Variant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(all[..built_in.len()], built_in[..]);
    assert!(suggest_variants("", 25).iter().all(|s| s.label.chars().count() <= 100));
    assert!(suggest_variants("checkers", 25).is_empty());
}

#[test]
fn a_committed_turn_has_the_next_positions_turns_written_ahead_where_asked() {
    // A turn of the player to move: the first autocomplete offers, played whole.
    fn first_turn(t: &Table<SqliteStore>, who: &str) -> String {
        t.values(who, |s, m| s.suggest_moves(m, None, "", 1)).remove(0)
    }
    fn plays(t: &Table<SqliteStore>, who: &str, turn: &str) {
        let said = t.says(who, &format!("{turn} !"));
        assert!(said.contains(&format!("{who} played")), "{turn}: {said}");
    }
    // Off by default (no platform suggests turns): nothing is queued.
    let t = table(&temp_db("ahead-off"), "room");
    t.start("moving-occupied-squares");
    plays(&t, "alice", &first_turn(&t, "alice"));
    assert!(t.service.turns_ahead_queue().is_empty());

    let mut t = table(&temp_db("ahead"), "room");
    t.service.write_turns_ahead = true;
    t.start("moving-occupied-squares");
    let written = t.values("alice", |s, m| s.suggest_moves(m, None, "@", 25));
    assert!(!written.is_empty(), "square moves begin with @");
    let turn = first_turn(&t, "alice");
    plays(&t, "alice", &turn);
    assert_eq!(t.service.turns_ahead_queue().len(), 1, "bob's position, once alice's turn is committed");
    assert!(t.service.write_turns_step());
    assert!(t.service.turns_ahead_queue().is_empty());
    // What is served from the written turns is what writing them at the keystroke gives.
    let cold = table(&temp_db("ahead-cold"), "room");
    cold.start("moving-occupied-squares");
    assert_eq!(written, cold.values("alice", |s, m| s.suggest_moves(m, None, "@", 25)));
    plays(&cold, "alice", &turn);
    assert_eq!(
        t.values("bob", |s, m| s.suggest_moves(m, None, "@", 25)),
        cold.values("bob", |s, m| s.suggest_moves(m, None, "@", 25))
    );
    // A game that ended meanwhile is skipped, and the worker goes on.
    plays(&t, "bob", &first_turn(&t, "bob"));
    t.says("alice", "!t resign");
    assert!(t.service.write_turns_step());
    assert!(t.service.turns_ahead_queue().is_empty());
    // Closing the queue ends the worker's loop.
    t.service.turns_ahead_queue().close();
    assert!(!t.service.write_turns_step());
}

#[test]
fn replies_name_whom_to_notify() {
    let t = table(&temp_db("notify"), "room");
    let challenge = t.say("alice", "!t challenge @bob chess black");
    assert_eq!(challenge[0].notify, ["bob"]);
    let begins = t.say("bob", "!t accept");
    assert!(begins[0].notify.is_empty(), "bob accepted and has the move himself: {begins:?}");
    assert_eq!(t.say("bob", "e4")[0].notify, ["alice"], "a move notifies the one to move next");
    assert!(t.say("bob", "d4")[0].notify.is_empty(), "an error concerns only its author");
    assert_eq!(t.say("alice", "!t draw")[0].notify, ["bob"]);
    assert_eq!(t.say("bob", "!t draw decline")[0].notify, ["alice"]);
    assert_eq!(t.say("alice", "!t resign")[0].notify, ["bob"]);
    t.say("carol", "!t challenge @dave");
    assert_eq!(t.say("carol", "!t cancel")[0].notify, ["dave"]);
}

#[test]
fn rematch_swaps_colours_and_keeps_variant_and_clock() {
    let t = table(&temp_db("rematch"), "room");
    assert!(t.say("alice", "!t rematch")[0].text.contains("no earlier game"));
    t.says("alice", "!t challenge @bob hans38 white 3d");
    t.says("bob", "!t accept");
    t.says("alice", "!t resign");
    let again = t.says("bob", "!t rematch");
    assert!(again.contains("bob challenges alice to hans38 (bob plays white, 3 days per move)"), "{again}");
    let begins = t.says("alice", "!t accept");
    assert!(begins.contains("hans38, bob (white) vs alice (black), 3 days per move"), "{begins}");

    // Several opponents: the one named, else the latest; suggestions list each once, newest first.
    t.says("carol", "!t challenge @alice chess black");
    t.says("alice", "!t accept");
    let named = t.says("alice", "!t rematch @bob");
    assert!(named.contains("alice challenges bob to hans38 (alice plays white"), "{named}");
    let latest = t.says("alice", "!t rematch");
    assert!(latest.contains("alice challenges carol to chess (alice plays black"), "{latest}");
    let author = User::new("alice", "alice");
    let opponents = t.service.suggest_opponents(&t.incoming(&author), "", 25);
    let values: Vec<&str> = opponents.iter().map(|s| s.value.as_str()).collect();
    assert_eq!(values, ["carol", "bob"]);
    assert!(
        opponents[0].label.contains("chess") && opponents[0].label.contains("you had white"),
        "{opponents:?}"
    );
    let picked = t.run("alice", Command::Rematch(Some("carol".into())));
    assert!(picked[0].text.contains("alice challenges carol"), "{picked:?}");
    let stranger = t.run("alice", Command::Rematch(Some("dave".into())));
    assert!(stranger[0].private && stranger[0].text.contains("not played them"), "{stranger:?}");
}

#[test]
fn compound_turns_are_listed_by_how_they_begin() {
    let t = table(&temp_db("moves"), "room");
    t.start("infinite-reserves");
    let listed = t.says("alice", "!t moves");
    assert!(listed.starts_with("476 legal turns for white in game #1: how they begin"), "{listed}");
    let counts: usize =
        listed.split(['(', ')']).skip(1).step_by(2).filter_map(|n| n.parse::<usize>().ok()).sum();
    assert_eq!(counts, 476, "every turn is counted under its first action: {listed}");
    let example = listed.rsplit_once("for example: `").unwrap().1.split('`').next().unwrap();
    let played = t.says("alice", &format!("{example} !"));
    assert!(played.contains("alice played"), "the example is a legal turn: {example}: {played}");
    // Plain chess still lists every move.
    let t = table(&temp_db("moves-chess"), "room");
    t.start("chess");
    assert!(t.says("alice", "!t moves").starts_with("20 legal turns for white in game #1:\nNb1: Na3 Nc3"));
}

#[test]
fn the_clock_shows_wherever_a_clocked_game_is_shown() {
    let db = temp_db("clock-shown");
    let mut t = table(&db, "main");
    t.says("alice", "!t challenge @bob chess white 3d");
    t.says("bob", "!t accept");
    t.play(&["e4"]);
    t.now += 19 * 3600;
    let left = "move 1, bob to move (black), 2d 5h left";
    let board = t.say("bob", "!t board");
    assert!(board[0].text.contains(left), "{board:?}");
    let listed = t.says("alice", "!t games");
    assert!(listed.contains(left), "{listed}");
    let mine = t.says("alice", "!t games mine");
    assert!(mine.contains(left), "{mine}");
    let theirs = t.says("bob", "!t games mine");
    assert!(theirs.contains("move 1, your move (black), 2d 5h left"), "{theirs}");
    // A game without a clock says nothing of time.
    let t = table(&db, "unclocked");
    t.start("chess");
    let board = t.says("alice", "!t board");
    assert!(board.ends_with("alice to move (white)"), "{board}");
}

#[test]
fn my_games_list_those_waiting_for_me_first_least_time_left_first_and_say_where() {
    let db = temp_db("mine-first");
    let room = table(&db, "room");
    let other = table(&db, "other");
    let game = |t: &Table<SqliteStore>, challenger: &str, text: &str, accepter: &str| {
        assert!(t.says(challenger, text).contains("challenges"));
        assert!(t.says(accepter, "!t accept").starts_with("Game #"));
    };
    game(&room, "alice", "!t challenge @bob chess white", "bob");
    game(&other, "alice", "!t challenge @bob chess white 3d", "bob");
    game(&room, "alice", "!t challenge @bob chess white 1d", "bob");
    game(&room, "bob", "!t challenge @alice chess white 2d", "alice");
    assert_eq!(
        room.says("alice", "!t games mine"),
        "Your move:\n\
         #3 chess: alice (white) vs bob (black), move 1, your move (white), 1d 0h left, in #room\n\
         #2 chess: alice (white) vs bob (black), move 1, your move (white), 3d 0h left, in #other\n\
         #1 chess: alice (white) vs bob (black), move 1, your move (white), in #room\n\
         Their move:\n\
         #4 chess: bob (white) vs alice (black), move 1, bob to move (white), 2d 0h left, in #room"
    );
}

#[test]
fn a_loss_on_time_posts_the_final_board_and_the_gif() {
    let db = temp_db("timeout-board");
    let mut t = table(&db, "main");
    t.says("alice", "!t challenge @bob chess white 1d");
    t.says("bob", "!t accept");
    t.play(&["e4", "e5", "Nf3"]);
    t.now += 25 * 3600;
    let notices = t.service.tick(t.now).unwrap();
    assert_eq!(notices.len(), 1, "{notices:?}");
    let lost = &notices[0];
    assert!(lost.text.contains("bob ran out of time. White wins on time (1-0)"), "{}", lost.text);
    assert!(lost.image.as_ref().is_some_and(|png| png.starts_with(b"\x89PNG")), "the final board");
    assert!(lost.animation.as_ref().is_some_and(|gif| gif.starts_with(b"GIF8")), "the game as a GIF");
    assert!(lost.diagram.as_ref().is_some_and(|d| d.contains('N')), "{:?}", lost.diagram);
    assert!(lost.actions.is_none(), "a finished game offers no buttons");
    assert_eq!(lost.notify, ["bob", "alice"]);
    // Found out by a command instead of the clock: the same board and GIF, in the reply.
    let mut t = table(&db, "second");
    t.says("alice", "!t challenge @bob chess white 1d");
    t.says("bob", "!t accept");
    t.play(&["d4"]);
    t.now += 25 * 3600;
    let replies = t.say("alice", "!t board");
    assert!(replies[0].text.contains("bob ran out of time"), "{replies:?}");
    assert!(replies[0].image.is_some() && replies[0].animation.is_some(), "{:?}", replies[0].text);
    assert_eq!(replies[0].notify, ["bob"], "the author is not pinged about their own command");
}

#[test]
fn the_profile_says_won_lost_or_drawn_from_its_owners_side() {
    let t = table(&temp_db("profile"), "room");
    t.start("chess");
    t.says("alice", "!t resign");
    t.start("hans38");
    t.says("bob", "!t draw");
    t.says("alice", "!t draw accept");
    t.start("chess");
    let alice = t.says("alice", "!t profile");
    assert!(alice.contains("#1 chess vs bob (you had white): lost"), "{alice}");
    assert!(alice.contains("#2 hans38 vs bob (you had white): drawn"), "{alice}");
    assert!(alice.contains("#3 chess vs bob (you had white): in play"), "{alice}");
    let bob = t.says("bob", "!t profile");
    assert!(bob.contains("#1 chess vs alice (you had black): won"), "{bob}");
    let seen = t.says("alice", "!t profile @bob");
    assert!(seen.contains("#1 chess vs alice (bob had black): won"), "{seen}");
}

// Issue 30: play over days.

#[test]
fn waiting_lists_my_turns_everywhere_least_time_left_first() {
    let db = temp_db("waiting");
    let mut room = table(&db, "room");
    let other = table(&db, "other");
    let game = |t: &Table<SqliteStore>, challenger: &str, text: &str, accepter: &str| {
        assert!(t.says(challenger, text).contains("challenges"));
        assert!(t.says(accepter, "!t accept").starts_with("Game #"));
    };
    assert_eq!(room.says("alice", "!t waiting"), "No game is waiting for your move.");
    game(&room, "alice", "!t challenge @bob chess white", "bob");
    game(&other, "alice", "!t challenge @carol hans38 white 3d", "carol");
    game(&room, "alice", "!t challenge @bob chess white 1d", "bob");
    // Bob's move in #4: not waiting for alice.
    game(&room, "bob", "!t challenge @alice chess white 2d", "alice");
    room.now += 3600;
    let replies = room.say("alice", "!t waiting");
    assert_eq!(replies.len(), 1);
    assert_eq!(
        replies[0].text,
        "Your move in 3 games, least time left first:\n\
         #3 chess against bob: 23h 0m left, in #room\n\
         #2 hans38 against carol: 2d 23h left, in #other\n\
         #1 chess against bob: no clock, in #room"
    );
    assert!(room.says("bob", "!t waiting").starts_with("Your move in 1 game,"));
    // The slash form is the same command.
    assert!(tessera_core::commands::by_path("waiting").is_some_and(|c| c.slash));
}

#[test]
fn the_daily_digest_goes_by_direct_message_once_a_day() {
    let db = temp_db("digest");
    let mut t = table(&db, "room");
    assert_eq!(t.says("alice", "!t settings digest on"), "Saved: digest on.");
    assert!(t.says("alice", "!t settings digest maybe").contains("`!t settings digest on`"));
    assert!(t.says("alice", "!t settings").contains("digest on"));
    t.start("chess");
    t.play(&["e4", "e5"]);
    let digests = |notices: &[Notice]| {
        notices.iter().filter(|n| Notice::clone(n).into_reply().only_direct()).cloned().collect::<Vec<_>>()
    };
    let notices = t.service.tick(t.now).unwrap();
    let sent = digests(&notices);
    assert_eq!(sent.len(), 1, "{notices:?}");
    assert_eq!(sent[0].direct.len(), 1);
    let (to, text) = &sent[0].direct[0];
    assert_eq!(to, "alice");
    assert!(text.starts_with("Your daily digest: your move in 1 game."), "{text}");
    assert!(text.contains("#1 chess against bob: no clock, in #room"), "{text}");
    assert!(sent[0].text.is_empty() && sent[0].notify.is_empty(), "nothing posted in the channel");
    t.service.notice_sent(sent[0].outbox.unwrap());
    // Bob did not ask for one; alice gets hers once a day.
    t.now += 3600;
    assert!(digests(&t.service.tick(t.now).unwrap()).is_empty(), "once a day");
    t.now += 86_400;
    let next = digests(&t.service.tick(t.now).unwrap());
    assert_eq!(next.len(), 1, "the next day");
    t.service.notice_sent(next[0].outbox.unwrap());
    // A day with no game waiting sends nothing, and off stops them.
    t.play(&["Nf3"]);
    t.now += 86_400;
    assert!(digests(&t.service.tick(t.now).unwrap()).is_empty());
    t.says("alice", "!t settings digest off");
    t.says("bob", "!t move Nc6");
    t.now += 86_400;
    assert!(digests(&t.service.tick(t.now).unwrap()).is_empty());
}

#[test]
fn the_player_to_move_and_spectators_get_direct_words_after_a_move() {
    let db = temp_db("ping");
    let t = table(&db, "room");
    let id = t.start("chess");
    let words = |replies: &[Reply]| replies[0].direct.clone();
    // By default the opponent's move pings in the channel only.
    assert!(words(&t.say("alice", "e4")).is_empty());
    assert_eq!(t.says("alice", "!t settings ping dm"), "Saved: ping dm.");
    assert!(t.says("carol", &format!("!t watch #{id}")).starts_with(&format!("You watch game #{id}")));
    assert_eq!(t.says("carol", &format!("!t watch #{id}")), format!("You already watch game #{id}."));
    let sent = words(&t.say("bob", "e5"));
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0].0, "alice");
    assert!(
        sent[0].1.starts_with(&format!("Your move in game #{id} (chess): bob played e5;")),
        "{}",
        sent[0].1
    );
    assert!(sent[0].1.ends_with("Play it in #room."), "{}", sent[0].1);
    assert_eq!(sent[1].0, "carol");
    assert!(sent[1].1.contains("bob played e5") && sent[1].1.contains("unwatch"), "{}", sent[1].1);
    // Alice's move: bob did not ask for a ping; carol still watches.
    let sent = words(&t.say("alice", "Nf3"));
    assert_eq!(sent.iter().map(|w| w.0.as_str()).collect::<Vec<_>>(), ["carol"]);
    assert_eq!(t.says("carol", &format!("!t unwatch #{id}")), format!("You no longer watch game #{id}."));
    assert_eq!(words(&t.say("bob", "Nc6")).len(), 1, "alice's ping only");
    // A player does not watch their own game; a finished game is not watched.
    assert!(t.says("bob", &format!("!t watch #{id}")).contains("you play in game"));
    t.says("bob", "!t resign");
    assert!(t.says("carol", &format!("!t watch #{id}")).contains("is over"));
}

#[test]
fn a_practice_game_is_private_and_takes_no_spectators() {
    let db = temp_db("private");
    let t = table(&db, "room");
    t.service.set_bot_account("test", "tessera");
    let reply = t.says("alice", "!t challenge @tessera chess white");
    let id: i64 = reply
        .split('#')
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap()
        .parse()
        .unwrap();
    let refused = t.says("carol", &format!("!t watch #{id}"));
    assert!(refused.contains("private"), "{reply} / {refused}");
}

#[test]
fn notes_are_private_bounded_and_cleared() {
    let db = temp_db("notes");
    let t = table(&db, "room");
    let id = t.start("chess");
    let note = |who: &str, text: &str| {
        let replies = t.say(who, text);
        assert_eq!(replies.len(), 1, "{replies:?}");
        replies[0].clone()
    };
    let empty = note("alice", &format!("!t note #{id}"));
    assert!(empty.text.starts_with(&format!("You have no note on game #{id}")), "{}", empty.text);
    let saved = note("alice", &format!("!t note #{id} his knight wants d5 — 騎士は d5"));
    assert!(!saved.text.contains("knight"), "the confirmation shows nothing of it: {saved:?}");
    assert!(saved.text.starts_with("Noted on game"), "{saved:?}");
    let shown = note("alice", &format!("!t note #{id}"));
    assert!(shown.secret, "a note is shown to its author alone");
    assert_eq!(shown.text, format!("Your note on game #{id}:\nhis knight wants d5 — 騎士は d5"));
    assert!(note("bob", &format!("!t note #{id}")).text.starts_with("You have no note"), "bob's are his own");
    assert!(note("carol", &format!("!t note #{id} mine")).text.contains("you do not play in game"));
    let long = format!("!t note #{id} {}", "é".repeat(1001));
    assert!(note("alice", &long).text.contains("at most 1000 characters"));
    assert!(note("alice", &format!("!t note #{id}")).text.contains("騎士"), "the long one changed nothing");
    // A second game number in the note is not guessed at.
    assert!(note("alice", &format!("!t note #{id} as in #99")).text.contains("names two games"));
    assert!(note("alice", &format!("!t note #{id} CLEAR")).text.contains("cleared"));
    assert!(note("alice", &format!("!t note #{id}")).text.starts_with("You have no note"));
}

#[test]
fn the_archive_lists_finished_games_and_their_players_get_the_record_anywhere() {
    let db = temp_db("archive");
    let room = table(&db, "room");
    let elsewhere = table(&db, "elsewhere");
    let mut ids = Vec::new();
    for i in 0..12 {
        let id = room.start(if i == 5 { "hans38" } else { "chess" });
        room.says(if i % 2 == 0 { "bob" } else { "alice" }, "!t resign");
        ids.push(id);
    }
    let running = room.start("chess");
    let first = room.says("alice", "!t archive");
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines[0], "Finished games of alice, newest first (page 1):");
    assert!(
        lines[1].starts_with(&format!("#{} ", ids[11])) && lines[1].contains("chess against bob: lost (0-1)"),
        "{first}"
    );
    assert!(lines[2].starts_with(&format!("#{} ", ids[10])) && lines[2].contains(": won (1-0)"), "{first}");
    assert_eq!(lines.len(), 1 + 10 + 2, "a page of ten, then the next page and how to see one: {first}");
    assert!(first.contains("`!t archive page 2`"), "{first}");
    assert!(!first.contains(&format!("#{running} ")), "a running game is not finished");
    let second = room.says("alice", "!t archive page 2");
    assert!(second.contains(&format!("#{} ", ids[0])) && !second.contains("More:"), "{second}");
    let hans = room.says("carol", "!t archive @bob hans38");
    assert!(hans.starts_with("Finished games of bob (hans38), newest first (page 1):\n"), "{hans}");
    assert!(hans.contains(&format!("#{} ", ids[5])), "{hans}");
    assert_eq!(hans.lines().count(), 3, "{hans}");
    assert_eq!(room.says("carol", "!t archive"), "carol has no finished games yet.");
    // The record of a finished game: its players from any channel, others only where it was played.
    let pgn = elsewhere.says("alice", &format!("!t history #{}", ids[0]));
    assert!(pgn.contains("[White \"alice\"]"), "{pgn}");
    assert!(elsewhere.says("carol", &format!("!t history #{}", ids[0])).contains("is played in #room"));
    assert!(elsewhere.says("alice", &format!("!t history #{running}")).contains("is played in #room"));
}

impl<S: Store> Table<S> {
    /// A message written in `channel`, in `thread` where the platform says (Matrix); a Discord
    /// thread comes as a channel of its own, with no thread.
    fn say_at(&self, who: &str, text: &str, channel: &str, thread: Option<&str>) -> Vec<Reply> {
        let author = User::new(who, who);
        let msg = Incoming { channel, thread, text, ..self.incoming(&author) };
        self.service.handle(&msg)
    }

    /// Starts a game between two players and returns the reply announcing it.
    fn begin(&self, white: &str, black: &str, how: &str) -> Reply {
        self.says(white, &format!("!t challenge @{black} chess white {how}"));
        let replies = self.say(black, "!t accept");
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(replies[0].text.starts_with("Game #"), "{replies:?}");
        replies[0].clone()
    }
}

fn game_number(reply: &Reply) -> i64 {
    reply.text["Game #".len()..].split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn a_game_in_a_threads_channel_is_played_in_its_thread_and_moves_find_it_there_and_in_the_channel() {
    let db = temp_db("threads");
    let mut t = table(&db, "room");
    // Off by default: a game begins with no thread wanted.
    let plain = t.begin("erin", "frank", "");
    assert_eq!(plain.open_thread, None, "{plain:?}");
    t.service.store().set_channel_setting("test", "room", "threads", "on").unwrap();
    let first = t.begin("alice", "bob", "1d");
    let g1 = game_number(&first);
    let opening = first.open_thread.clone().expect("a game begun with threads on wants one");
    assert_eq!(opening.game, g1);
    assert_eq!(opening.name, format!("Game #{g1} chess: alice vs bob"));
    assert_eq!((first.game, first.thread.as_deref()), (Some(g1), None), "announced in the channel");
    assert!(t.service.thread_made(g1, Some("th-1")));
    assert!(!t.service.thread_made(g1, Some("th-late")), "one thread a game");
    assert_eq!(t.service.store().game(g1).unwrap().unwrap().thread.as_deref(), Some("th-1"));

    // A move written in the channel finds its game and is announced in the game's thread.
    let e4 = t.say("alice", "e4");
    assert!(e4[0].text.contains("alice played e4"), "{e4:?}");
    assert_eq!(e4[0].thread.as_deref(), Some("th-1"));
    // An error is answered where it was written.
    let early = t.say("bob", "!t move Nf6 #1");
    assert!(early.iter().all(|r| r.thread.is_none()), "{early:?}");
    // Written in the thread (a Discord thread: a channel of its own), the move is the game's.
    let e5 = t.say_at("bob", "e5", "th-1", None);
    assert!(e5[0].text.contains("bob played e5"), "{e5:?}");
    assert_eq!(e5[0].thread.as_deref(), Some("th-1"));
    // Offers are the game's news too: made in the channel, answered in the thread, both shown there.
    let offer = t.say("alice", "!t draw");
    assert!(offer[0].text.contains("offers a draw"), "{offer:?}");
    assert_eq!(offer[0].thread.as_deref(), Some("th-1"));
    let declined = t.say_at("bob", "!t draw decline", "th-1", None);
    assert!(declined[0].text.contains("declines the draw"), "{declined:?}");
    assert_eq!(declined[0].thread.as_deref(), Some("th-1"));

    // A second game of the same players here, with its own thread.
    let second = t.begin("alice", "bob", "");
    let g2 = game_number(&second);
    assert!(second.open_thread.is_some());
    assert!(t.service.thread_made(g2, Some("th-2")));
    // alice has the move in both: in the channel a move that fits both is not guessed...
    let both = t.say("alice", "Nf3");
    assert!(both[0].private && !both[0].text.contains("played"), "{both:?}");
    // ...in a thread (as Matrix says it: the room and the thread's root) it is that thread's game.
    let nf3 = t.say_at("alice", "Nf3", "room", Some("th-2"));
    assert!(nf3[0].text.contains(&format!("#{g2}")) && nf3[0].text.contains("alice played Nf3"), "{nf3:?}");
    assert_eq!(nf3[0].thread.as_deref(), Some("th-2"));
    assert_eq!(t.service.store().game(g2).unwrap().unwrap().moves.len(), 1);
    assert!(t.service.store().game(g1).unwrap().unwrap().moves.len() == 2, "game 1 untouched");
    // A command written in a thread acts on the thread's game.
    let board = t.say_at("alice", "!t board", "th-1", None);
    assert_eq!(board[0].actions, Some(Actions::Game(g1)), "{board:?}");

    // Spectators: their talk in a thread is no move, even one that reads as one for their own
    // game; a command is answered where it was written, about the thread's game.
    let third = t.begin("carol", "dave", "");
    let g3 = game_number(&third);
    assert!(t.service.thread_made(g3, None), "no thread could be made: recorded as tried");
    assert!(t.say_at("carol", "e4", "th-1", None).is_empty(), "a spectator's words in a thread");
    assert!(t.say_at("carol", "nice move", "room", Some("th-1")).is_empty());
    assert_eq!(t.service.store().game(g3).unwrap().unwrap().moves.len(), 0);
    let looking = t.say_at("carol", "!t board", "th-1", None);
    assert_eq!(looking[0].actions, Some(Actions::Game(g1)), "{looking:?}");
    assert!(looking[0].thread.is_none() && looking[0].game.is_none(), "answered where written");
    // In the thread a command is about the thread's game: hers is named by number there.
    let resign = t.say_at("carol", "!t resign", "th-1", None);
    assert!(
        resign[0].private && resign[0].text.contains(&format!("only the players of game #{g1}")),
        "{resign:?}"
    );
    assert!(t.service.store().game(g3).unwrap().unwrap().result.is_none(), "her own game goes on");
    // Her own game, whose thread could not be made, goes on in the channel.
    let hers = t.say("carol", "e4");
    assert!(hers[0].text.contains("carol played e4"), "{hers:?}");
    assert_eq!(hers[0].thread, None);

    // Notices about a game go to its thread: a reminder, a loss on time.
    t.now += 13 * 3600;
    let notices = t.service.tick(t.now).unwrap();
    let reminder = notices.iter().find(|n| n.text.contains("it is your move in game #")).expect("a reminder");
    assert!(reminder.text.contains(&format!("game #{g1}")), "{reminder:?}");
    assert_eq!((reminder.game, reminder.thread.as_deref()), (Some(g1), Some("th-1")));
    t.now += 12 * 3600;
    let notices = t.service.tick(t.now).unwrap();
    let over = notices.iter().find(|n| n.text.contains("ran out of time")).expect("a loss on time");
    assert_eq!(over.thread.as_deref(), Some("th-1"));
    assert_eq!(over.open_thread, None, "a thread is opened when a game begins, never later");
}

#[test]
fn threads_is_a_channel_setting_for_moderators() {
    let db = temp_db("threads-setting");
    let t = table(&db, "room");
    let author = User::new("mod", "mod");
    let as_mod = |text: &str| {
        t.service.handle(&Incoming { text, is_admin: true, ..t.incoming(&author) })[0].text.clone()
    };
    assert!(as_mod("!t channel").contains("threads off"), "off by default");
    assert_eq!(as_mod("!t channel threads on"), "Saved for this channel: threads on.");
    assert!(as_mod("!t channel").contains("threads on"));
    assert!(
        as_mod("!t channel threads maybe").contains("`!t channel threads off` or `!t channel threads on`")
    );
    assert!(t.says("alice", "!t channel threads off").contains("only the channel's moderators"));
    assert_eq!(t.service.store().channel_setting("test", "room", "threads").unwrap().as_deref(), Some("on"));
    // Set from within a game's thread, it is the channel's setting.
    let game = t.begin("alice", "bob", "");
    assert!(t.service.thread_made(game_number(&game), Some("th-9")));
    let off = t.service.handle(&Incoming {
        text: "!t channel threads off",
        is_admin: true,
        channel: "th-9",
        ..t.incoming(&author)
    });
    assert_eq!(off[0].text, "Saved for this channel: threads off.");
    assert_eq!(t.service.store().channel_setting("test", "room", "threads").unwrap().as_deref(), Some("off"));
    assert_eq!(t.begin("alice", "bob", "").open_thread, None);
}
