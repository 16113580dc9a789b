//! Anything a player types gets an answer and never a panic: arbitrary Unicode and bytes as
//! commands and as plain messages, in a channel with a game of every variant running.
//! `TESSERA_FUZZ_CASES` raises the number of cases for a long run.

use proptest::prelude::*;
use tessera_core::commands;
use tessera_core::service::{Incoming, Service, User};
use tessera_rules::Variant;
use tessera_store::SqliteStore;

fn config() -> ProptestConfig {
    let cases = std::env::var("TESSERA_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("!t".to_string()),
        Just("!t tournament".to_string()),
        Just("create swiss".to_string()),
        Just("rounds".to_string()),
        Just("in".to_string()),
        Just("#1".to_string()),
        Just("t1".to_string()),
        Just("@bob".to_string()),
        Just("e4".to_string()),
        Just("@@e4".to_string()),
        Just("ça".to_string()),
        Just("你好".to_string()),
        Just("😀".to_string()),
        Just("Ｋ".to_string()),
        Just("\u{feff}".to_string()),
        "\\PC{0,8}",
        any::<String>(),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|p| p.join(" "))
}

fn say(service: &Service<SqliteStore>, who: &str, channel: &str, text: &str) -> usize {
    let author = User::new(who, who);
    let mentions = [User::new("bob", "bob")];
    let msg = Incoming {
        platform: "test",
        channel,
        author: &author,
        is_admin: false,
        text,
        mentions: &mentions,
        now: 1_800_000_000,
        thread: None,
    };
    service.handle(&msg).len()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_is_answered_or_ignored_never_a_panic(text in text(), v in 0..Variant::ALL.len()) {
        let service = Service::new(SqliteStore::in_memory().unwrap());
        let channel = "room";
        say(&service, "alice", channel, &format!("!t challenge @bob {}", Variant::ALL[v]));
        say(&service, "bob", channel, "!t accept");
        let _ = commands::parse(&text);
        // As a plain message (a move, or chat) and as a command.
        say(&service, "alice", channel, &text);
        say(&service, "bob", channel, &text);
        say(&service, "alice", channel, &format!("!t {text}"));
        say(&service, "alice", channel, &format!("!t move {text}"));
        // Addressed to the bot, it always gets an answer.
        let addressed = format!("!t tournament {text}");
        prop_assert!(say(&service, "alice", channel, &addressed) > 0, "no answer to {:?}", addressed);
    }
}
