//! Talking to a [`Service`] as chat users do, for the tests: messages on the platform `test`, each
//! `@name` in a message's text a mention; and a fresh database file for a test.
#![allow(dead_code)]

use std::path::PathBuf;

use tessera_core::service::{Incoming, Reply, Service, User};
use tessera_core::store::Store;

/// The tests' "now", unless a test moves the clock itself.
pub const T0: i64 = 1_800_000_000;
/// The platform every message is on.
pub const PLATFORM: &str = "test";

/// What `who` (a moderator if `admin`) writes in `channel` at `now`: the service's replies.
pub fn say_at<S: Store>(
    service: &Service<S>,
    channel: &str,
    who: &str,
    admin: bool,
    text: &str,
    now: i64,
) -> Vec<Reply> {
    let author = User::new(who, who);
    let mentions: Vec<User> =
        text.split_whitespace().filter_map(|w| w.strip_prefix('@')).map(|n| User::new(n, n)).collect();
    service.handle(&Incoming {
        platform: PLATFORM,
        channel,
        author: &author,
        is_admin: admin,
        text,
        mentions: &mentions,
        now,
        thread: None,
    })
}

/// What `who` writes in `channel` at [`T0`].
pub fn say_in<S: Store>(service: &Service<S>, channel: &str, who: &str, text: &str) -> Vec<Reply> {
    say_at(service, channel, who, false, text, T0)
}

/// What `who` writes in the channel `room` at [`T0`].
pub fn say<S: Store>(service: &Service<S>, who: &str, text: &str) -> Vec<Reply> {
    say_in(service, "room", who, text)
}

/// All replies' text, joined.
pub fn text(replies: &[Reply]) -> String {
    replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// A database file in a new, empty directory of its own, `tessera-{suite}-{process}-{name}`
/// under the system's temporary directory.
pub fn temp_db(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.sqlite")
}
