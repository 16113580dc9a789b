//! The Discord adapter where Discord is hard on it, against the fake Discord (`support/fake_discord.rs`):
//! an interaction's three-second deadline with slow commands, rate limits and server errors, missing
//! permissions, a reply to a deleted message, a round of 150 players, secrets asked in public, and
//! exports sent as files.

use std::time::Duration;

use serde_json::{Value, json};
use tessera_bot::discord::DiscordOptions;
use tessera_core::service::{Incoming, Notice, User, unix_now};
use tessera_rules::Variant;

use crate::fake;

use fake::*;

fn slash(name: &str, options: &[(&str, u8, Value)]) -> Value {
    let options: Vec<Value> =
        options.iter().map(|(n, t, v)| json!({"name": n, "type": t, "value": v})).collect();
    json!({"id": "7001", "name": name, "type": 1, "options": options, "resolved": {}})
}

fn press(custom_id: &str) -> Value {
    json!({"custom_id": custom_id, "component_type": 2})
}

fn dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tessera-discord-{name}-{}", std::process::id()))
}

/// The requests the bot made that `wanted` picks, in order.
fn all(fake: &FakeDiscord, wanted: impl Fn(&Posted) -> bool) -> Vec<Posted> {
    fake.posted.lock().unwrap().iter().filter(|p| wanted(p)).cloned().collect()
}

const IN_CHANNEL: &str = "/api/v10/channels/500/messages";

/// alice (White) and bob play `variant`, begun by typed commands.
fn begin(fake: &FakeDiscord, variant: &str, first_id: u64) {
    let (alice, bob) = (user("1", "alice", false), user("2", "bob", false));
    let challenge = format!("!t challenge <@2> {variant} white");
    fake.to_gateway
        .send(("MESSAGE_CREATE", message(first_id, alice, &challenge, vec![bob.clone()])))
        .unwrap();
    fake.wait_for("alice challenges bob");
    fake.to_gateway.send(("MESSAGE_CREATE", message(first_id + 1, bob, "!t accept", vec![]))).unwrap();
    fake.wait_until("the game's start", |p| p.status == 200 && p.text().contains("begins"));
}

#[test]
fn slow_commands_and_presses_are_deferred_within_the_deadline_then_answered_in_place() {
    // Every interaction's work takes 700 ms; Discord (the fake) takes a first answer for 400 ms
    // only. Without deferring, every answer here would be refused.
    let options = DiscordOptions {
        defer_after: Duration::from_millis(100),
        slow_interactions: Some(Duration::from_millis(700)),
        ..DiscordOptions::default()
    };
    let (fake, _, _, _) = bot_on_fake_with(&dir("slow"), false, options);
    fake.trouble.lock().unwrap().deadline = Some(Duration::from_millis(400));
    begin(&fake, "chess", 100);
    let (alice, carol) = (user("1", "alice", false), user("3", "carol", false));

    // A public answer: "thinking…" at once, then the board in its place.
    let callback = fake.interact(601, &alice, 2, slash("board", &[]), None);
    assert_eq!((callback.status, callback.json()["type"].as_u64()), (204, Some(5)), "deferred in time");
    let original = "/api/v10/webhooks/1000/token-601/messages/@original";
    let edit = fake.wait_until("the deferred answer", |p| p.path == original && p.method == "PATCH");
    assert!(edit.shows(Variant::CHESS, &[]), "the board replaces the thinking");
    assert!(edit.text().contains("alice to move"), "{}", edit.text());

    // A private answer: the public "thinking…" goes, the answer follows for the asker alone.
    let callback = fake.interact(602, &carol, 2, slash("move", &[("move", 3, json!("e4"))]), None);
    assert_eq!((callback.status, callback.json()["type"].as_u64()), (204, Some(5)));
    let original = "/api/v10/webhooks/1000/token-602/messages/@original";
    fake.wait_until("the thinking removed", |p| p.path == original && p.method == "DELETE");
    let refused = fake.follow_up(602, "you have no game running");
    assert!(refused.json()["flags"].as_u64().unwrap_or(0) & 64 != 0, "ephemeral: {}", refused.text());

    // A slow press is acknowledged without a message; its private answer follows up.
    let board = message(9100, user(BOT_ID, "tessera", true), "board", vec![]);
    let callback = fake.interact(603, &alice, 3, press("tessera:flip:1"), Some(board.clone()));
    assert_eq!((callback.status, callback.json()["type"].as_u64()), (204, Some(6)));
    let flipped =
        fake.wait_until("the flipped board", |p| p.path == "/api/v10/webhooks/1000/token-603" && p.has_png());
    assert!(flipped.json()["flags"].as_u64().unwrap_or(0) & 64 != 0, "for the presser alone");

    // A slow press that settles its message: acknowledged, the message's buttons cleared in place,
    // the news followed up for all.
    let bob = user("2", "bob", false);
    let challenge = "!t challenge <@1> chess white";
    fake.to_gateway.send(("MESSAGE_CREATE", message(110, bob, challenge, vec![alice.clone()]))).unwrap();
    fake.wait_for("bob challenges alice");
    let challenge = message(9101, user(BOT_ID, "tessera", true), "challenge", vec![]);
    let callback = fake.interact(604, &alice, 3, press("tessera:accept:2"), Some(challenge));
    assert_eq!((callback.status, callback.json()["type"].as_u64()), (204, Some(6)));
    let original = "/api/v10/webhooks/1000/token-604/messages/@original";
    let cleared = fake.wait_until("the buttons cleared", |p| p.path == original && p.method == "PATCH");
    assert_eq!(cleared.json()["components"], json!([]));
    let begins = fake.follow_up(604, "begins");
    assert!(begins.json()["flags"].as_u64().unwrap_or(0) & 64 == 0, "the news is public");
    // Every first answer reached Discord in time.
    let late = all(&fake, |p| p.path.ends_with("/callback") && p.status != 204);
    assert!(late.is_empty(), "{late:?}");
    std::fs::remove_dir_all(dir("slow")).ok();
}

#[test]
fn a_quick_command_is_answered_at_once_without_deferring() {
    let (fake, _, _, _) = bot_on_fake_with(&dir("quick"), false, DiscordOptions::default());
    begin(&fake, "chess", 100);
    let callback = fake.interact(601, &user("1", "alice", false), 2, slash("board", &[]), None);
    assert_eq!(callback.json()["type"].as_u64(), Some(4), "answered directly: {}", callback.text());
    assert!(callback.shows(Variant::CHESS, &[]));
    std::fs::remove_dir_all(dir("quick")).ok();
}

#[test]
fn rate_limits_and_server_errors_are_waited_out_and_refusals_are_not_tried_again() {
    let (fake, _, _, _) = bot_on_fake_with(&dir("retry"), false, DiscordOptions::default());
    let (alice, bob) = (user("1", "alice", false), user("2", "bob", false));
    fake.trouble.lock().unwrap().fail_next = vec![429, 500, 502];
    let text = "!t challenge <@2> chess white";
    fake.to_gateway.send(("MESSAGE_CREATE", message(100, alice.clone(), text, vec![bob.clone()]))).unwrap();
    fake.wait_until("the challenge, at last", |p| {
        p.status == 200 && p.text().contains("alice challenges bob")
    });
    let tries: Vec<u16> =
        all(&fake, |p| p.text().contains("alice challenges bob")).iter().map(|p| p.status).collect();
    assert_eq!(tries, [429, 500, 502, 200], "each failure tried again, the answer posted once");

    // A refusal (400) is final: one try, nothing posted twice.
    fake.trouble.lock().unwrap().fail_next = vec![400];
    fake.to_gateway.send(("MESSAGE_CREATE", message(101, bob, "!t accept", vec![]))).unwrap();
    fake.wait_until("the refused answer", |p| p.status == 400);
    std::thread::sleep(Duration::from_secs(2));
    let tries: Vec<u16> = all(&fake, |p| p.text().contains("begins")).iter().map(|p| p.status).collect();
    assert_eq!(tries, [400]);
    std::fs::remove_dir_all(dir("retry")).ok();
}

#[test]
fn without_attach_files_the_words_still_go_with_the_board_as_text() {
    let (fake, _, _, _) = bot_on_fake_with(&dir("files"), false, DiscordOptions::default());
    fake.trouble.lock().unwrap().no_attachments.insert(CHANNEL.into());
    begin(&fake, "chess", 100);
    let tries = all(&fake, |p| p.path == IN_CHANNEL && p.text().contains("begins"));
    assert_eq!(tries.iter().map(|p| p.status).collect::<Vec<_>>(), [403, 200]);
    assert!(tries[0].has_png() && !tries[1].has_png());
    let text = tries[1].json()["content"].as_str().unwrap().to_string();
    assert!(text.contains("Attach Files") && text.contains("```"), "the board as text: {text}");
    std::fs::remove_dir_all(dir("files")).ok();
}

#[test]
fn an_answer_to_a_deleted_message_is_posted_all_the_same() {
    let (fake, _, _, _) = bot_on_fake_with(&dir("deleted"), false, DiscordOptions::default());
    // A private answer replies to its message; the message was deleted meanwhile.
    let carol = user("3", "carol", false);
    fake.to_gateway.send(("MESSAGE_CREATE", message(DELETED_MESSAGE, carol, "!t resign", vec![]))).unwrap();
    let answer = fake.wait_until("the answer", |p| p.path == IN_CHANNEL);
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["message_reference"]["fail_if_not_exists"], json!(false));
    std::fs::remove_dir_all(dir("deleted")).ok();
}

/// A notice for the fake's channel, concerning alice and bob.
fn notice(text: &str) -> Notice {
    Notice {
        platform: "discord".into(),
        channel: CHANNEL.into(),
        text: text.into(),
        notify: vec!["1".into(), "2".into()],
        ..Notice::default()
    }
}

#[test]
fn a_channel_that_keeps_refusing_gets_no_more_notices_and_the_players_are_told() {
    let (fake, _, clock, service) = bot_on_fake_with(&dir("forbidden"), false, DiscordOptions::default());
    fake.trouble.lock().unwrap().forbidden.insert(CHANNEL.into());
    let router = clock.router();
    for n in 1..=3 {
        router.deliver(vec![notice(&format!("reminder {n}"))]);
        fake.wait_until("a refused notice", |p| {
            p.status == 403 && p.text().contains(&format!("reminder {n}"))
        });
    }
    // Refused three times in a row: the third notice goes to the players instead, and so does
    // the next, which is not tried in the channel at all.
    for n in [3, 4] {
        if n == 4 {
            router.deliver(vec![notice("reminder 4")]);
        }
        for dm in ["/api/v10/channels/8001/messages", "/api/v10/channels/8002/messages"] {
            let told = fake.wait_until("the players told", |p| {
                p.path == dm && p.text().contains(&format!("reminder {n}"))
            });
            assert!(told.text().contains("I can no longer post in the channel"), "{}", told.text());
        }
    }
    assert!(service.posting_stopped("discord", CHANNEL));
    assert_eq!(all(&fake, |p| p.path == IN_CHANNEL && p.text().contains("reminder 4")).len(), 0);
    // The permission given back: a command answered there, and notices go there again.
    fake.trouble.lock().unwrap().forbidden.clear();
    fake.to_gateway
        .send(("MESSAGE_CREATE", message(300, user("1", "alice", false), "!t games", vec![])))
        .unwrap();
    fake.wait_until("an answer in the channel", |p| p.path == IN_CHANNEL && p.status == 200);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!service.posting_stopped("discord", CHANNEL));
    router.deliver(vec![notice("reminder 5")]);
    fake.wait_until("the notice in the channel", |p| {
        p.path == IN_CHANNEL && p.status == 200 && p.text().contains("reminder 5")
    });
    std::fs::remove_dir_all(dir("forbidden")).ok();
}

#[test]
fn a_crowd_is_pinged_a_hundred_at_a_time_and_a_round_of_150_announced_whole() {
    let (fake, _, clock, service) = bot_on_fake_with(&dir("crowd"), false, DiscordOptions::default());
    // A notice pinging 150 players reaches all of them, at most 100 named per message (short ids:
    // 150 of them fit in 2,000 characters, so only the limit of 100 splits them).
    let ids: Vec<String> = (1000..1150u64).map(|i| i.to_string()).collect();
    clock.router().deliver(vec![Notice { notify: ids.clone(), ..notice("Round 3 starts now.") }]);
    fake.wait_until("the notice", |p| p.status == 200 && p.text().contains("Round 3 starts now."));
    let mut pinged: Vec<String> = Vec::new();
    for p in all(&fake, |p| p.path == IN_CHANNEL && p.status == 200) {
        let users = p.json()["allowed_mentions"]["users"].as_array().cloned().unwrap_or_default();
        assert!(users.len() <= 100, "{} pings in one message", users.len());
        pinged.extend(users.iter().map(|u| u.as_str().unwrap().to_string()));
    }
    pinged.sort();
    assert_eq!(pinged, ids);

    // A Swiss of 150: its first round is announced in whole and each player told privately.
    let organiser = User::new("1", "alice");
    let ask = |who: &User, text: &str| {
        let m = Incoming {
            platform: "discord",
            channel: CHANNEL,
            author: who,
            is_admin: false,
            text,
            mentions: &[],
            now: unix_now(),
            thread: None,
        };
        service.handle(&m)
    };
    ask(&organiser, "!t tournament create swiss chess casual rounds 3 name Crowd");
    for i in 1..=150u64 {
        ask(&User::new(i.to_string(), format!("p{i}")), "!t tournament join");
    }
    let start = json!({"id": "7002", "name": "tournament", "type": 1,
                       "options": [{"name": "start", "type": 1, "options": []}], "resolved": {}});
    fake.interact(700, &user("1", "p1", false), 2, start, None);
    let answer = || {
        all(&fake, |p| {
            p.path.contains("/interactions/700/") || p.path.starts_with("/api/v10/webhooks/1000/token-700")
        })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !answer().iter().any(|p| p.text().contains("Board 75: game #"))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let shown: String = answer().iter().map(|p| p.text()).collect();
    for board in 1..=75 {
        assert!(shown.contains(&format!("Board {board}: game #")), "board {board} of the announcement");
    }
    for p in answer() {
        let json = p.json();
        let users = json["data"]["allowed_mentions"]["users"]
            .as_array()
            .or(json["allowed_mentions"]["users"].as_array());
        assert!(users.is_none_or(|u| u.len() <= 100));
    }
    for i in [1u64, 75, 150] {
        let dm = format!("/api/v10/channels/{}/messages", 8000 + i);
        fake.wait_until("a player's own word", |p| p.path == dm && p.text().contains("your game #"));
    }
    std::fs::remove_dir_all(dir("crowd")).ok();
}

#[test]
fn a_secret_asked_in_public_is_answered_privately_and_exports_come_as_files() {
    let (fake, _, _, _) = bot_on_fake_with(&dir("secret"), false, DiscordOptions::default());
    begin(&fake, "hans38-postal", 100);
    // The turn could take one more action: the prompt names the better turn, so only alice reads it.
    fake.to_gateway
        .send(("MESSAGE_CREATE", message(102, user("1", "alice", false), "@@e4", vec![])))
        .unwrap();
    let dm = fake.wait_until("the prompt by direct message", |p| p.path == "/api/v10/channels/8001/messages");
    assert!(dm.text().contains("Not played yet"), "{}", dm.text());
    let note = fake.wait_for("I sent you my answer privately");
    assert_eq!(note.path, IN_CHANNEL);
    assert!(all(&fake, |p| p.path == IN_CHANNEL && p.text().contains("Not played yet")).is_empty());

    // The record comes as a PGN file too.
    fake.to_gateway
        .send(("MESSAGE_CREATE", message(103, user("2", "bob", false), "!t history", vec![])))
        .unwrap();
    let record = fake.wait_until("the record", |p| p.text().contains("filename=\"game-1.pgn\""));
    assert!(record.text().contains("[Variant \""), "{}", record.text());
    std::fs::remove_dir_all(dir("secret")).ok();
}
