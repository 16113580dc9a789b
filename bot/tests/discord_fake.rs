//! The Discord adapter at the wire, against a FAKE Discord server on 127.0.0.1: it speaks Discord's
//! real protocol (REST `GET /gateway/bot`, `/users/@me`, `PUT /applications/{id}/commands`,
//! `POST /interactions/{id}/{token}/callback`, follow-up webhooks, `POST /channels/{id}/messages`
//! with multipart uploads; gateway websocket HELLO, IDENTIFY, READY, heartbeats, MESSAGE_CREATE and
//! INTERACTION_CREATE dispatches) well enough for serenity, which is pointed at it through its HTTP
//! builder's proxy setting. Whole games are played through it, by messages and by slash commands and
//! buttons, and the bot's real requests, uploaded PNGs included, are checked.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tessera_bot::config::Shards;
use tessera_rules::Variant;

use crate::fake;

use fake::*;

#[test]
fn the_process_connects_the_shards_it_is_given() {
    // By default Discord's recommendation (the fake says one shard), all here.
    let dir = std::env::temp_dir().join(format!("tessera-discord-shards-{}", std::process::id()));
    // Each bot its own directory: the first still runs while the second starts.
    let (_fake, identify, _, _) = sharded_bot_on_fake(&dir.join("auto"), false, Shards::Auto);
    assert_eq!(identify["d"]["shard"], json!([0, 1]));
    // `discord_shards = 2-3/4`: shards 2 and 3 of 4, each its own connection.
    let (fake, first, _, _) = sharded_bot_on_fake(&dir.join("range"), false, "2-3/4".parse().unwrap());
    let second = fake.identified.recv_timeout(Duration::from_secs(60)).expect("the second shard identifies");
    let mut shards = vec![first["d"]["shard"].clone(), second["d"]["shard"].clone()];
    shards.sort_by_key(|s| s[0].as_u64());
    assert_eq!(shards, [json!([2, 4]), json!([3, 4])]);
    assert!(fake.identified.recv_timeout(Duration::from_secs(2)).is_err(), "no other shard");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_clock_posts_a_loss_on_time_in_the_games_channel() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-clock-{}", std::process::id()));
    let (fake, _, clock, service) = clocked_bot_on_fake(&dir, false);
    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    fake.to_gateway
        .send((
            "MESSAGE_CREATE",
            message(201, alice.clone(), "!t challenge <@2> chess white 1d", vec![bob.clone()]),
        ))
        .unwrap();
    fake.wait_for("alice challenges bob");
    fake.to_gateway.send(("MESSAGE_CREATE", message(202, bob, "!t accept", vec![]))).unwrap();
    fake.wait_for("begins");
    // Three days later White has not moved: one tick settles it and Discord is told.
    assert_eq!(clock.tick(&service, tessera_core::service::unix_now() + 3 * 86_400), 1);
    let lost = fake.wait_for("ran out of time");
    assert_eq!(lost.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_whole_game_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-{}", std::process::id()));
    let (fake, identify) = bot_on_fake(&dir, false);
    assert_eq!(identify["d"]["token"], "Bot fake-token");
    let intents = identify["d"]["intents"].as_u64().unwrap();
    assert_ne!(intents & (1 << 15), 0, "the message content intent is asked for");

    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let mut id = 100;
    let mut say = |who: &Value, text: &str, mentions: Vec<Value>| {
        id += 1;
        fake.to_gateway.send(("MESSAGE_CREATE", message(id, who.clone(), text, mentions))).unwrap();
    };
    say(&alice, "!t challenge <@2> chess white", vec![bob.clone()]);
    fake.wait_for("alice challenges bob");
    say(&bob, "!t accept", vec![]);
    let begins = fake.wait_for("begins");
    assert!(begins.shows(Variant::CHESS, &[]), "the board is uploaded as an attachment");
    assert_eq!(begins.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    let game = ["f3", "e5", "g4", "Qh4#"];
    for (ply, who) in [&alice, &bob, &alice].into_iter().enumerate() {
        say(who, game[ply], vec![]);
        let played = fake.wait_for(&format!("played {}", game[ply]));
        assert!(played.shows(Variant::CHESS, &game[..=ply]), "the board after {:?}", &game[..=ply]);
    }
    say(&alice, "e4", vec![]);
    fake.wait_for("it is bob's turn");
    say(&bob, "Qh4#", vec![]);
    let end = fake.wait_for("Black wins by checkmate");
    assert!(end.shows(Variant::CHESS, &game));
    assert!(!end.shows(Variant::CHESS, &game[..3]), "a different board is told apart");
    assert!(end.buttons().is_empty(), "a finished game offers no buttons");
    // Mentioning the bot first addresses it, as `!t` does.
    say(&bob, &format!("<@{BOT_ID}> history"), vec![user(BOT_ID, "tessera", true)]);
    assert!(fake.wait_for("[Event").text().contains("1. f3 e5 2. g4 Qh4# 0-1"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A slash command's data, with options as `(name, type, value)`.
fn slash(name: &str, options: &[(&str, u8, Value)], resolved: Value) -> Value {
    let options: Vec<Value> =
        options.iter().map(|(n, t, v)| json!({"name": n, "type": t, "value": v})).collect();
    json!({"id": "7001", "name": name, "type": 1, "options": options, "resolved": resolved})
}

/// An autocomplete request: `focused` is being typed.
fn typing(name: &str, focused: (&str, u8, &str)) -> Value {
    let (n, t, v) = focused;
    json!({"id": "7001", "name": name, "type": 1, "options": [{"name": n, "type": t, "value": v, "focused": true}]})
}

fn press(custom_id: &str) -> Value {
    json!({"custom_id": custom_id, "component_type": 2})
}

fn choices(answer: &Posted) -> Vec<Value> {
    let json = answer.json();
    assert_eq!(json["type"], 8, "an autocomplete result: {json}");
    json["data"]["choices"].as_array().unwrap().clone()
}

#[test]
fn slash_commands_buttons_and_autocomplete_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-slash-{}", std::process::id()));
    let (fake, _) = bot_on_fake(&dir, false);

    // The commands are registered globally, for the application READY named.
    let registered = fake.wait_until("the slash commands", |p| p.path.ends_with("/commands"));
    assert_eq!(registered.path, format!("/api/v10/applications/{BOT_ID}/commands"));
    let commands = registered.json();
    let command =
        |name: &str| commands.as_array().unwrap().iter().find(|c| c["name"] == name).cloned().unwrap();
    let option = |c: &Value, name: &str| {
        c["options"].as_array().unwrap().iter().find(|o| o["name"] == name).cloned().unwrap()
    };
    assert_eq!(
        option(&command("challenge"), "opponent")["type"],
        6,
        "opponents come from Discord's member picker"
    );
    assert_eq!(option(&command("challenge"), "variant")["autocomplete"], true);
    assert_eq!(option(&command("move"), "move")["autocomplete"], true);
    assert_eq!(option(&command("move"), "game")["autocomplete"], true);

    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let carol = user("3", "carol", false);
    let mut next = 200u64;
    let mut id = || {
        next += 1;
        next
    };

    let variants =
        choices(&fake.interact(id(), &alice, 4, typing("challenge", ("variant", 3, "quad")), None));
    assert_eq!(variants.len(), 1);
    assert_eq!(variants[0]["value"], "quad-square");

    // Another bot cannot play (Tessera itself can: see a_practice_game_through_a_fake_discord).
    let robot = user("4", "robot", true);
    let at_bot = slash("challenge", &[("opponent", 6, json!("4"))], json!({"users": {"4": robot}}));
    let refused = fake.interact(id(), &alice, 2, at_bot, None);
    assert!(refused.ephemeral() && refused.text().contains("is a bot"), "{}", refused.text());

    let challenge = slash(
        "challenge",
        &[("opponent", 6, json!("2")), ("variant", 3, json!("chess")), ("color", 3, json!("white"))],
        json!({"users": {"2": bob}}),
    );
    let challenged = fake.interact(id(), &alice, 2, challenge, None);
    assert_eq!(challenged.json()["type"], 4);
    assert!(challenged.text().contains("alice challenges bob to chess"), "{}", challenged.text());
    // The one challenged is pinged, and nobody else can be.
    assert!(challenged.json()["data"]["content"].as_str().unwrap().starts_with("<@2> alice challenges"));
    assert_eq!(challenged.json()["data"]["allowed_mentions"]["users"], json!(["2"]));
    assert!(!challenged.ephemeral());
    assert_eq!(challenged.buttons(), ["tessera:accept:1", "tessera:decline:1"]);
    let challenge_message = message(9100, user(BOT_ID, "tessera", true), "challenge", vec![]);

    // Only the one challenged can take it up; a stranger is told so, privately.
    let stranger = fake.interact(id(), &carol, 3, press("tessera:accept:1"), Some(challenge_message.clone()));
    assert!(
        stranger.ephemeral() && stranger.text().contains("only the one challenged"),
        "{}",
        stranger.text()
    );
    // Taking it up spends the challenge's buttons (the message is updated) and the game follows.
    let accept = id();
    let pressed = fake.interact(accept, &bob, 3, press(&challenged.buttons()[0]), Some(challenge_message));
    assert_eq!(pressed.json()["type"], 7, "UPDATE_MESSAGE: {}", pressed.text());
    assert_eq!(pressed.json()["data"]["components"], json!([]));
    assert!(pressed.json()["data"].get("content").is_none(), "the challenge text stays");
    let begins = fake.follow_up(accept, "Game #1 begins");
    assert!(begins.shows(Variant::CHESS, &[]), "the board is uploaded with the answer");
    assert_eq!(
        begins.buttons(),
        ["tessera:resign:1", "tessera:draw:1", "tessera:flip:1", "tessera:conditional:1"]
    );

    // Autocomplete lists legal moves for the player to move only.
    let knights = choices(&fake.interact(id(), &alice, 4, typing("move", ("move", 3, "N")), None));
    let values: Vec<&str> = knights.iter().map(|c| c["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["Na3", "Nc3", "Nf3", "Nh3"]);
    assert!(choices(&fake.interact(id(), &bob, 4, typing("move", ("move", 3, "")), None)).is_empty());
    let games = choices(&fake.interact(id(), &bob, 4, typing("move", ("game", 4, "")), None));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["value"], 1);
    assert!(games[0]["name"].as_str().unwrap().contains("vs alice"), "{games:?}");

    let played = fake.interact(id(), &alice, 2, slash("move", &[("move", 3, json!("Nf3"))], json!({})), None);
    assert!(played.text().contains("alice played Nf3"), "{}", played.text());
    assert!(played.shows(Variant::CHESS, &["Nf3"]));
    // "Conditional…" opens a form; what is written there is planned, and only alice reads the answer.
    let board_message = message(9101, user(BOT_ID, "tessera", true), "alice played Nf3", vec![]);
    let form = fake.interact(id(), &alice, 3, press("tessera:conditional:1"), Some(board_message));
    assert_eq!(form.json()["type"], 9, "MODAL: {}", form.text());
    assert_eq!(form.json()["data"]["custom_id"], "tessera-form:conditional:1");
    let line = json!({"custom_id": "tessera-form:conditional:1", "components": [{"type": 1, "components": [
        {"type": 4, "custom_id": "value", "value": "d5 Nc3"}]}]});
    let saved = fake.interact(id(), &alice, 5, line, None);
    assert!(
        saved.ephemeral() && saved.text().contains("if they play d5, you answer Nc3"),
        "{}",
        saved.text()
    );
    // bob's answer comes too late for Discord: the move is committed, so it is posted in the channel.
    let late = id();
    let e5 = slash("move", &[("move", 3, json!("e5"))], json!({}));
    fake.interact_with_token(late, "expired", &bob, 2, e5, None);
    let in_channel = format!("/api/v10/channels/{CHANNEL}/messages");
    let posted =
        fake.wait_until("e5 in the channel", |p| p.path == in_channel && p.text().contains("bob played e5"));
    assert!(posted.shows(Variant::CHESS, &["Nf3", "e5"]));
    let early = fake.interact(id(), &bob, 2, slash("move", &[("move", 3, json!("e4"))], json!({})), None);
    assert!(early.ephemeral() && early.text().contains("it is alice's turn"), "{}", early.text());
    assert_eq!(early.json()["data"]["allowed_mentions"]["users"], json!([]), "errors ping nobody");
    assert!(!early.has_png());

    // Plain-text moves still work beside the slash commands, with buttons under the board.
    fake.to_gateway.send(("MESSAGE_CREATE", message(id(), alice.clone(), "d4", vec![]))).unwrap();
    let reply = fake.wait_for("alice played d4");
    assert!(reply.shows(Variant::CHESS, &["Nf3", "e5", "d4"]));
    assert!(reply.json()["content"].as_str().unwrap().starts_with("<@2> alice played d4"), "bob is pinged");
    assert_eq!(reply.json()["allowed_mentions"]["users"], json!(["2"]));
    assert_eq!(
        reply.buttons(),
        ["tessera:resign:1", "tessera:draw:1", "tessera:flip:1", "tessera:conditional:1"]
    );
    let board_message = message(9200, user(BOT_ID, "tessera", true), "board", vec![]);

    let flipped = fake.interact(id(), &bob, 3, press("tessera:flip:1"), Some(board_message.clone()));
    assert!(flipped.ephemeral() && flipped.has_png(), "a flipped board is for the one who asked");

    let offered = fake.interact(id(), &alice, 3, press("tessera:draw:1"), Some(board_message.clone()));
    assert!(offered.text().contains("alice offers a draw"), "{}", offered.text());
    assert_eq!(offered.buttons(), ["tessera:draw-yes:1", "tessera:draw-no:1"]);
    let decline = id();
    let pressed = fake.interact(decline, &bob, 3, press("tessera:draw-no:1"), Some(board_message.clone()));
    assert_eq!(pressed.json()["type"], 7, "the offer's buttons are spent");
    fake.follow_up(decline, "bob declines the draw");

    // Resigning asks first, and only a player; only a player's confirmation ends the game.
    let stranger = fake.interact(id(), &carol, 3, press("tessera:resign:1"), Some(board_message.clone()));
    assert!(stranger.ephemeral() && stranger.text().contains("only the players"), "{}", stranger.text());
    assert!(stranger.buttons().is_empty());
    let asked = fake.interact(id(), &bob, 3, press("tessera:resign:1"), Some(board_message.clone()));
    assert!(asked.ephemeral() && asked.text().contains("Resign game #1?"), "{}", asked.text());
    assert_eq!(asked.buttons(), ["tessera:resign-yes:1"]);
    let meddler = fake.interact(id(), &carol, 3, press("tessera:resign-yes:1"), Some(board_message.clone()));
    assert!(meddler.ephemeral() && meddler.text().contains("only the players"), "{}", meddler.text());
    let confirm = id();
    let pressed = fake.interact(confirm, &bob, 3, press("tessera:resign-yes:1"), Some(board_message));
    assert_eq!(pressed.json()["type"], 7, "the prompt's button is spent");
    let resigned = fake.follow_up(confirm, "bob resigns game #1. White wins by resignation");
    assert_eq!(resigned.json()["flags"].as_u64().unwrap_or(0) & 64, 0, "everyone hears of it");
    assert_eq!(resigned.json()["allowed_mentions"]["users"], json!(["1"]), "alice is pinged");

    let over = fake.interact(id(), &alice, 2, slash("move", &[("move", 3, json!("e4"))], json!({})), None);
    assert!(over.ephemeral(), "{}", over.text());
    let unknown = fake.interact(id(), &alice, 2, slash("frobnicate", &[], json!({})), None);
    assert!(unknown.ephemeral() && unknown.text().contains("/help"), "{}", unknown.text());
    // A rematch: the last opponent is suggested, and the new challenge swaps colours.
    let suggested = choices(&fake.interact(id(), &bob, 4, typing("rematch", ("opponent", 3, "")), None));
    assert_eq!(suggested.len(), 1);
    assert_eq!(suggested[0]["value"], "1");
    assert!(suggested[0]["name"].as_str().unwrap().starts_with("alice (last: #1 chess, you had black)"));
    let rematch =
        fake.interact(id(), &bob, 2, slash("rematch", &[("opponent", 3, json!("1"))], json!({})), None);
    assert!(rematch.text().contains("bob challenges alice to chess (bob plays white"), "{}", rematch.text());
    assert_eq!(rematch.buttons(), ["tessera:accept:2", "tessera:decline:2"]);
    let record = fake.interact(id(), &alice, 2, slash("history", &[("game", 4, json!(1))], json!({})), None);
    assert!(record.text().contains("1. Nf3 e5 2. d4 1-0"), "{}", record.text());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn without_the_message_content_intent_slash_commands_still_work() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-intents-{}", std::process::id()));
    let (fake, first) = bot_on_fake(&dir, true);
    assert_ne!(first["d"]["intents"].as_u64().unwrap() & (1 << 15), 0);
    let second = fake.identified.recv_timeout(Duration::from_secs(30)).expect("the bot connects again");
    assert_eq!(second["d"]["intents"].as_u64().unwrap() & (1 << 15), 0, "without Message Content");
    let bob = user("2", "bob", false);
    let challenge = slash("challenge", &[("opponent", 6, json!("2"))], json!({"users": {"2": bob}}));
    let mut ally = user("1", "alice", false);
    ally["nick"] = json!("Ally");
    let answered = fake.interact(300, &ally, 2, challenge, None);
    assert!(
        answered.text().contains("Ally challenges bob to chess"),
        "the server nickname: {}",
        answered.text()
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A `/tournament <sub>` command's data, with the subcommand's options as `(name, type, value)`.
fn tournament_slash(sub: &str, options: &[(&str, u8, Value)]) -> Value {
    let options: Vec<Value> =
        options.iter().map(|(n, t, v)| json!({"name": n, "type": t, "value": v})).collect();
    json!({"id": "7002", "name": "tournament", "type": 1,
           "options": [{"name": sub, "type": 1, "options": options}], "resolved": {}})
}

#[test]
fn a_round_robin_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-tn-{}", std::process::id()));
    let (fake, _) = bot_on_fake(&dir, false);
    let registered = fake.wait_until("the slash commands", |p| p.path.ends_with("/commands"));
    let commands = registered.json();
    let tournament =
        commands.as_array().unwrap().iter().find(|c| c["name"] == "tournament").cloned().unwrap();
    let subs: Vec<&str> =
        tournament["options"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    for sub in ["create", "join", "leave", "start", "standings", "pairings", "withdraw", "result", "cancel"] {
        assert!(subs.contains(&sub), "/tournament {sub}");
    }

    let players = [user("1", "alice", false), user("2", "bob", false), user("3", "carol", false)];
    let mut next = 500u64;
    let mut id = || {
        next += 1;
        next
    };
    let create = tournament_slash(
        "create",
        &[
            ("format", 3, json!("round-robin")),
            ("variant", 3, json!("chess")),
            ("name", 3, json!("Discord Robin")),
        ],
    );
    let created = fake.interact(id(), &players[0], 2, create, None);
    assert!(created.text().contains("Tournament t1, Discord Robin"), "{}", created.text());
    assert_eq!(created.buttons(), ["tessera:t-join:1", "tessera:t-leave:1"]);
    let post = message(9200, user(BOT_ID, "tessera", true), "tournament", vec![]);
    for p in &players {
        let joined = fake.interact(id(), p, 3, press("tessera:t-join:1"), Some(post.clone()));
        assert!(joined.text().contains("joins t1"), "{}", joined.text());
    }
    // The tournament is found by autocomplete, and only the organiser starts it.
    let found =
        choices(&fake.interact(id(), &players[1], 4, typing("tournament", ("tournament", 4, "robin")), None));
    assert_eq!(found.len(), 1);
    let refused = fake.interact(id(), &players[1], 2, tournament_slash("start", &[]), None);
    assert!(refused.ephemeral() && refused.text().contains("organiser"), "{}", refused.text());
    let mut news = fake.interact(id(), &players[0], 2, tournament_slash("start", &[]), None).text();
    // Three rounds: in each, Black resigns the one game; the round after is paired at once.
    for round in 1..=3 {
        assert!(news.contains(&format!("round {round} of 3 is paired")), "{news}");
        let game: i64 = news.split("game #").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        let black_name =
            news.split(" (white) vs ").nth(1).unwrap().split(" (black)").next().unwrap().to_string();
        let black = players.iter().find(|p| p["username"] == black_name.as_str()).unwrap();
        let resign =
            fake.interact(id(), black, 2, slash("resign", &[("game", 4, json!(game))], json!({})), None);
        assert!(resign.text().contains("resigns"), "{}", resign.text());
        let wanted = if round < 3 { format!("round {} of 3 is paired", round + 1) } else { "is over".into() };
        news = fake.wait_for(&wanted).text();
    }
    assert!(news.contains("wins with"), "{news}");
    // Each player was also told privately of each of their games.
    let dm = fake.wait_until("a direct message", |p| {
        p.path.starts_with("/api/v10/channels/800") && p.text().contains("your game #")
    });
    assert!(dm.text().contains("you play"), "{}", dm.text());
    let standings = fake.interact(id(), &players[2], 2, tournament_slash("standings", &[]), None);
    assert!(standings.has_png(), "the crosstable is uploaded");
    assert!(standings.text().contains("Discord Robin"));
    // A server manager administers by message too: the bot reads their roles' permissions.
    let in_channel = |needle: &str| {
        let channel = format!("/channels/{CHANNEL}/messages");
        fake.wait_until(needle, |p| p.path.ends_with(&channel) && p.text().contains(needle))
    };
    let text = "!t tournament cancel t1";
    fake.to_gateway.send(("MESSAGE_CREATE", server_message(id(), players[1].clone(), text, &[]))).unwrap();
    in_channel("only the organiser");
    fake.to_gateway
        .send(("MESSAGE_CREATE", server_message(id(), players[2].clone(), text, &["600"])))
        .unwrap();
    in_channel("t1 is already over");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_practice_game_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-practice-{}", std::process::id()));
    let (fake, _, clock, service) = clocked_bot_on_fake(&dir, false);
    let worker = tessera_bot::practice::Worker::start(Arc::clone(&service), clock.router()).unwrap();
    let alice = user("1", "alice", false);
    let tessera = user(BOT_ID, "tessera", true);
    // Addressed by mentioning the bot, which is also the one challenged.
    let text = format!("<@{BOT_ID}> challenge <@{BOT_ID}> chess white level 1");
    fake.to_gateway
        .send(("MESSAGE_CREATE", message(301, alice.clone(), &text, vec![tessera.clone()])))
        .unwrap();
    let begins = fake.wait_for("practice against me at level 1");
    assert!(begins.has_png(), "the board comes with the start");
    fake.to_gateway.send(("MESSAGE_CREATE", message(302, alice.clone(), "e4", vec![]))).unwrap();
    fake.wait_for("alice played e4");
    // The bot's answer arrives on its own, in the game's channel, with the board and a ping.
    let answer = fake.wait_for("tessera played");
    assert_eq!(answer.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    assert!(answer.has_png(), "the board after the bot's move is uploaded");
    assert!(answer.text().contains("alice, your move"), "{}", answer.text());
    assert_eq!(tessera_core::store::Store::game(service.store(), 1).unwrap().unwrap().moves.len(), 2);
    // The slash form takes the bot as the opponent, and refuses a level out of range.
    let too_strong = slash(
        "challenge",
        &[("opponent", 6, json!(BOT_ID)), ("level", 4, json!(9))],
        json!({"users": {BOT_ID: tessera.clone()}}),
    );
    let refused = fake.interact(401, &alice, 2, too_strong, None);
    assert!(refused.ephemeral() && refused.text().contains("from 1 to 5"), "{}", refused.text());
    let by_slash = slash(
        "challenge",
        &[("opponent", 6, json!(BOT_ID)), ("color", 3, json!("black")), ("level", 4, json!(2))],
        json!({"users": {BOT_ID: tessera}}),
    );
    let started = fake.interact(402, &alice, 2, by_slash, None);
    assert!(started.text().contains("at level 2"), "{}", started.text());
    let first = fake.wait_until("the bot's first move in game 2", |p| {
        p.text().contains("tessera played") && p.text().contains("Game #2")
    });
    assert!(first.has_png());
    worker.stop();
    std::fs::remove_dir_all(&dir).ok();
}

/// A channel message's text as the bot sent it.
fn content(p: &Posted) -> String {
    p.json()["content"].as_str().unwrap_or_default().to_string()
}

/// The text as Discord shows it, for text checked by [`assert_no_markup`]: backslash escapes
/// taken off.
fn unescaped(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(n) if c == '\\' && n.is_ascii_punctuation() => out.push(chars.next().unwrap()),
            _ => out.push(c),
        }
    }
    out
}

/// The prose of `content` (outside ``` blocks and `code`), checked: every character Discord reads
/// as Markdown is escaped, so everything shows as written. Returns the prose as shown.
fn assert_no_markup(content: &str) -> String {
    let body = content
        .trim_start_matches(|c: char| c == '<' || c == '@' || c.is_ascii_digit() || c == '>' || c == ' ');
    let parts: Vec<&str> = body.split("```").collect();
    assert!(parts.len() % 2 == 1, "every ``` block is closed: {content}");
    let mut shown = String::new();
    for prose in parts.iter().step_by(2) {
        let spans: Vec<&str> = prose.split('`').collect();
        assert!(spans.len() % 2 == 1, "every code span is closed: {content}");
        for text in spans.iter().step_by(2) {
            let chars: Vec<char> = text.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                let escaped = i > 0 && chars[i - 1] == '\\' && (i < 2 || chars[i - 2] != '\\');
                if "*_~|[]<>".contains(c) {
                    assert!(escaped, "{c:?} at {i} is markup in {text:?}");
                }
            }
            shown.push_str(&unescaped(text));
        }
    }
    shown
}

#[test]
fn hostile_names_show_as_written_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-names-{}", std::process::id()));
    let (fake, _) = bot_on_fake(&dir, false);
    let markdown = "**x** [y](http://e) ||z|| <b>h</b>";
    // As shown: cut to 32 characters.
    let shown_name = "**x** [y](http://e) ||z|| <b>h<…";
    let alice = user("1", markdown, false);
    let bob = user("2", "```end\u{202e}evil", false);
    let carol = user("3", "t\u{435}ssera", false);
    let dave = user("4", &format!("{}\u{200b}", "W".repeat(10_000)), false);
    let mut id = 9700;
    let mut say = |who: &Value, text: &str, mentions: Vec<Value>| {
        id += 1;
        fake.to_gateway.send(("MESSAGE_CREATE", message(id, who.clone(), text, mentions))).unwrap();
    };
    let from_channel = |needle: &str| {
        let channel = format!("/channels/{CHANNEL}/messages");
        content(&fake.wait_until(needle, |p| p.path.ends_with(&channel) && content(p).contains(needle)))
    };

    // Markdown in a name is shown, not obeyed: no bold, link, spoiler or tag.
    say(&alice, "!t challenge <@2> chess", vec![bob.clone()]);
    let challenge = from_channel("challenges");
    assert!(challenge.starts_with("<@2> "), "bob is pinged: {challenge}");
    assert!(challenge.contains(r"\*\*x\*\* \[y\](http://e) \|\|z\|\| \<b\>h\<… challenges"), "{challenge}");
    let shown = assert_no_markup(&challenge);
    assert!(shown.contains(&format!("{shown_name} challenges ˋˋˋendevil to chess")), "{shown}");

    // The standings' code block stays one block whatever the names hold.
    say(&alice, "!t tournament create swiss chess rounds 3 name Hostile Open", vec![]);
    from_channel("Tournament t1, Hostile Open");
    for who in [&alice, &bob, &carol, &dave] {
        say(who, "!t tournament join t1", vec![]);
    }
    from_channel("4 players now");
    say(&carol, "!t tournament standings t1", vec![]);
    let entered = from_channel("4 entered");
    let shown = assert_no_markup(&entered);
    let long = format!("{}…", "W".repeat(31));
    for name in [shown_name, "ˋˋˋendevil", "t\u{435}ssera (Latin+Cyrillic)", &long] {
        assert!(shown.contains(name), "{name} in {shown}");
    }
    assert!(
        !entered.contains('\u{202e}')
            && !entered.contains('\u{200b}')
            && !entered.contains("WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW")
    );
    say(&alice, "!t tournament start t1", vec![]);
    let paired = from_channel("round 1 of 3 is paired");
    assert_no_markup(&paired);
    say(&carol, "!t tournament standings t1", vec![]);
    let standings = from_channel("round 1 of 3 in play");
    assert_eq!(standings.matches("```").count(), 2, "one block: {standings}");
    let block = standings.split("```").nth(1).unwrap();
    assert_eq!(block.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).count(), 4, "{block}");
    // Inside the block nothing is escaped: code shows as it is.
    assert!(block.contains("**x** [y](http://e)"), "{block}");
    assert!(block.contains("ˋˋˋendevil") && block.contains("tеssera (Latin+Cyri…"), "{block}");
    assert_no_markup(&standings);
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 30 at the wire: `/waiting` answers privately, a player who asked for it gets a direct
/// message on the opponent's move, and the daily digest goes by direct message alone.
#[test]
fn waiting_and_direct_messages_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-waiting-{}", std::process::id()));
    let (fake, _, clock, service) = clocked_bot_on_fake(&dir, false);
    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let say = |id: u64, who: &Value, text: &str, mentions: Vec<Value>| {
        fake.to_gateway.send(("MESSAGE_CREATE", message(id, who.clone(), text, mentions))).unwrap();
    };
    say(301, &alice, "!t challenge <@2> chess white 2d", vec![bob.clone()]);
    fake.wait_for("alice challenges bob");
    say(302, &bob, "!t accept", vec![]);
    fake.wait_for("begins");
    say(303, &bob, "!t settings ping dm", vec![]);
    fake.wait_for("Saved: ping dm.");
    say(304, &alice, "e4", vec![]);
    // Bob's direct message channel is 8002 in the fake.
    let dm = fake.wait_for("Your move in game #1 (chess): alice played e4");
    assert_eq!(dm.path, "/api/v10/channels/8002/messages");

    let waiting = fake.interact(310, &bob, 2, slash("waiting", &[], json!({})), None);
    let listed = waiting.json()["data"]["content"].as_str().unwrap_or_default().to_string();
    assert!(
        listed.starts_with("Your move in 1 game, least time left first:\n#1 chess against alice: "),
        "{listed}"
    );
    assert!(listed.ends_with(&format!(" left, in <#{CHANNEL}>")), "{listed}");

    say(311, &bob, "!t settings digest on", vec![]);
    fake.wait_for("Saved: digest on.");
    clock.tick(&service, tessera_core::service::unix_now());
    let digest = fake.wait_for("Your daily digest: your move in 1 game.");
    assert_eq!(digest.path, "/api/v10/channels/8002/messages", "by direct message alone");
    std::fs::remove_dir_all(&dir).ok();
}

/// A message in `channel` (a thread is a channel of its own).
fn message_in(channel: &str, id: u64, author: Value, content: &str, mentions: Vec<Value>) -> Value {
    let mut m = message(id, author, content, mentions);
    m["channel_id"] = json!(channel);
    m
}

/// The id the fake gave the message the bot posted as `posted` (its place in the log).
fn message_id(fake: &FakeDiscord, posted: &Posted) -> u64 {
    let log = fake.posted.lock().unwrap();
    9001 + log.iter().position(|p| p.path == posted.path && p.body == posted.body).unwrap() as u64
}

#[test]
fn a_game_in_a_threads_channel_is_played_in_its_own_thread_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-threads-{}", std::process::id()));
    let (fake, _, clock, service) = clocked_bot_on_fake(&dir, false);
    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let carol = user("3", "carol", false);
    let mut next = 300u64;
    let mut id = || {
        next += 1;
        next
    };
    // A moderator (role 600 manages the server) turns threads on for the channel.
    fake.to_gateway
        .send(("MESSAGE_CREATE", server_message(id(), alice.clone(), "!t channel threads on", &["600"])))
        .unwrap();
    fake.wait_for("Saved for this channel: threads on");

    let say_in = |channel: &str, n: u64, who: &Value, text: &str, mentions: Vec<Value>| {
        fake.to_gateway
            .send(("MESSAGE_CREATE", message_in(channel, n, who.clone(), text, mentions)))
            .unwrap();
    };
    say_in(CHANNEL, id(), &alice, "!t challenge <@2> chess white 1d", vec![bob.clone()]);
    fake.wait_for("alice challenges bob");
    say_in(CHANNEL, id(), &bob, "!t accept", vec![]);
    // The game is announced in the channel, and its thread started from that message.
    let begins = fake.wait_for("Game #1 begins");
    assert_eq!(begins.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    let announced = message_id(&fake, &begins);
    let made = fake.wait_until("a thread", |p| p.path.ends_with("/threads"));
    assert_eq!(made.method, "POST");
    assert_eq!(made.path, format!("/api/v10/channels/{CHANNEL}/messages/{announced}/threads"));
    assert_eq!(made.json()["name"], "Game #1 chess: alice vs bob");
    assert_eq!(made.json()["auto_archive_duration"], 10080, "a week: moves come days apart");
    let thread = FIRST_THREAD.to_string();
    let in_thread = format!("/api/v10/channels/{thread}/messages");
    let recorded = || service.store().game(1).unwrap().unwrap().thread;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while recorded().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(recorded().as_deref(), Some(thread.as_str()));

    // A move written in the channel finds its game; the board goes to the thread.
    say_in(CHANNEL, id(), &alice, "e4", vec![]);
    let e4 = fake.wait_for("alice played e4");
    assert_eq!(e4.path, in_thread);
    assert!(e4.has_png(), "the board, in the thread");
    // A move written in the thread (its own channel on Discord) is the game's, answered there.
    say_in(&thread, id(), &bob, "e5", vec![]);
    let e5 = fake.wait_for("bob played e5");
    assert_eq!(e5.path, in_thread);
    assert!(e5.has_png());
    // A spectator's words in the thread are left alone; an error is answered where it was written.
    say_in(&thread, id(), &carol, "Nf3 looks good", vec![]);
    say_in(CHANNEL, id(), &bob, "!t move Nc6", vec![]);
    let early = fake.wait_for("it is alice's turn");
    assert_eq!(early.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    // The clock's notice goes to the thread too.
    assert_eq!(clock.tick(&service, tessera_core::service::unix_now() + 3 * 86_400), 1);
    let lost = fake.wait_for("ran out of time");
    assert_eq!(lost.path, in_thread);
    let said = fake.posted.lock().unwrap().iter().filter(|p| p.text().contains("Nf3 looks good")).count();
    assert_eq!(said, 0, "nothing of the spectator's is copied anywhere");
    let threads = fake.posted.lock().unwrap().iter().filter(|p| p.path.ends_with("/threads")).count();
    assert_eq!(threads, 1, "one thread for the game");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_game_whose_thread_cannot_be_made_is_played_in_the_channel_through_a_fake_discord() {
    let dir = std::env::temp_dir().join(format!("tessera-discord-nothreads-{}", std::process::id()));
    let (fake, _, _, service) = clocked_bot_on_fake(&dir, false);
    fake.trouble.lock().unwrap().no_threads.insert(CHANNEL.to_string());
    service.store().set_channel_setting("discord", CHANNEL, "threads", "on").unwrap();
    let alice = user("1", "alice", false);
    let bob = user("2", "bob", false);
    let challenge = slash(
        "challenge",
        &[("opponent", 6, json!("2")), ("color", 3, json!("white"))],
        json!({"users": {"2": bob}}),
    );
    let challenged = fake.interact(1, &alice, 2, challenge, None);
    assert!(challenged.text().contains("alice challenges bob"), "{}", challenged.text());
    // Accepted by its button: the thread would start from the challenge message.
    let challenge_message = message(9100, user(BOT_ID, "tessera", true), "challenge", vec![]);
    fake.interact(2, &bob, 3, press(&challenged.buttons()[0]), Some(challenge_message));
    fake.follow_up(2, "Game #1 begins");
    let refused = fake.wait_until("a thread asked for", |p| p.path.ends_with("/threads"));
    assert_eq!(refused.path, format!("/api/v10/channels/{CHANNEL}/messages/9100/threads"));
    assert_eq!(refused.status, 403);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while service.store().game(1).unwrap().unwrap().thread.is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(service.store().game(1).unwrap().unwrap().thread.as_deref(), Some(""), "tried, once");
    // The game goes on in the channel.
    fake.to_gateway.send(("MESSAGE_CREATE", message(3, alice.clone(), "e4", vec![]))).unwrap();
    let e4 = fake.wait_for("alice played e4");
    assert_eq!(e4.path, format!("/api/v10/channels/{CHANNEL}/messages"));
    fake.to_gateway.send(("MESSAGE_CREATE", message(4, bob.clone(), "e5", vec![]))).unwrap();
    fake.wait_for("bob played e5");
    let tries = fake.posted.lock().unwrap().iter().filter(|p| p.path.ends_with("/threads")).count();
    assert_eq!(tries, 1, "no second try");
    std::fs::remove_dir_all(&dir).ok();
}
