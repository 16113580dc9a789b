//! Reliability under failure and races (issue 13): one transaction per change, offers that must
//! still stand, racing resignations answered plainly, takebacks of your own move only, and
//! databases opened safely by many processes at once.

use crate::talk;

use std::sync::{Arc, Barrier};

use tessera_core::service::{Incoming, Reply, Service, User};
use tessera_core::store::Store;
use tessera_store::SqliteStore;

use talk::{T0, say, text};

fn temp_db(name: &str) -> std::path::PathBuf {
    talk::temp_db("rel", name)
}

#[test]
fn accepting_a_challenge_is_one_transaction() {
    let path = temp_db("accept");
    let service = Service::new(SqliteStore::open(&path).unwrap());
    say(&service, "alice", "!t challenge @bob chess white");
    // Creating the game fails (as on a full disk): the challenge must stay open.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "CREATE TRIGGER no_room BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
    )
    .unwrap();
    let failed = say(&service, "bob", "!t accept");
    assert!(failed[0].private && text(&failed).contains("nothing was changed"), "{failed:?}");
    raw.execute_batch("DROP TRIGGER no_room").unwrap();
    let accepted = text(&say(&service, "bob", "!t accept"));
    assert!(accepted.contains("Game #1 begins"), "{accepted}");
    assert!(text(&say(&service, "bob", "!t accept")).contains("nobody has challenged you"));
}

#[test]
fn a_draw_offer_withdrawn_by_a_move_cannot_be_accepted() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    say(&service, "alice", "!t challenge @bob chess white");
    say(&service, "bob", "!t accept");
    assert!(text(&say(&service, "alice", "!t draw")).contains("offers a draw"));
    let alice = service.store().player("test", "alice", "alice").unwrap();
    // Bob's accept read the offer, then Bob's own move withdrew it before the accept's commit.
    say(&service, "alice", "e4");
    assert!(text(&say(&service, "bob", "e5")).contains("played"));
    assert!(!service.store().accept_draw(1, alice.id, T0).unwrap(), "a withdrawn offer stands no more");
    assert!(service.store().game(1).unwrap().unwrap().result.is_none());
}

#[test]
fn a_takeback_request_withdrawn_by_a_move_cannot_undo_that_move() {
    // Found by the race driver (tests/races.rs): Bob's acceptance read Alice's request to take
    // back two moves, then Alice's next move got in before the acceptance's commit; the takeback
    // then undid Alice's new, acknowledged move and Bob's reply instead.
    let service = Service::new(SqliteStore::in_memory().unwrap());
    say(&service, "alice", "!t challenge @bob chess white");
    say(&service, "bob", "!t accept");
    say(&service, "alice", "e4");
    say(&service, "bob", "e5");
    assert!(text(&say(&service, "alice", "!t takeback")).contains("asks to take back"));
    let alice = service.store().player("test", "alice", "alice").unwrap();
    assert!(text(&say(&service, "alice", "Nf3")).contains("alice played Nf3"));
    // Bob's acceptance, as it was read before the move: two moves, two to undo, Alice asking.
    assert!(!service.store().take_back(1, 2, 2, alice.id, T0).unwrap(), "the request no longer stands");
    assert_eq!(service.store().game(1).unwrap().unwrap().moves, ["e2-e4", "e7-e5", "Ng1-f3"]);
    let late = say(&service, "bob", "!t takeback accept");
    assert!(late[0].private && text(&late).contains("has not asked"), "{late:?}");
}

#[test]
fn racing_resignations_are_answered_plainly() {
    let path = temp_db("resign");
    {
        let service = Service::new(SqliteStore::open(&path).unwrap());
        say(&service, "alice", "!t challenge @bob chess white");
        say(&service, "bob", "!t accept");
    }
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = ["alice", "bob"]
        .into_iter()
        .map(|who| {
            let (path, barrier) = (path.clone(), barrier.clone());
            std::thread::spawn(move || {
                let service = Service::new(SqliteStore::open(&path).unwrap());
                barrier.wait();
                text(&say(&service, who, "!t resign"))
            })
        })
        .collect();
    let answers: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(answers.iter().filter(|a| a.contains("resigns")).count(), 1, "{answers:?}");
    assert!(answers.iter().all(|a| !a.contains("something went wrong")), "{answers:?}");
}

#[test]
fn only_your_own_last_move_is_taken_back_and_asked_for_once() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    say(&service, "alice", "!t challenge @bob chess white");
    say(&service, "bob", "!t accept");
    say(&service, "alice", "e4");
    // Bob has not moved: nothing of his to take back.
    let refused = say(&service, "bob", "!t takeback");
    assert!(refused[0].private && text(&refused).contains("not moved yet"), "{refused:?}");
    let asked = text(&say(&service, "alice", "!t takeback"));
    assert!(asked.contains("asks to take back"), "{asked}");
    let again = say(&service, "alice", "!t takeback");
    assert!(again[0].private && text(&again).contains("already asked"), "{again:?}");
    assert!(again[0].notify.is_empty(), "no second ping");
    assert!(text(&say(&service, "bob", "!t takeback accept")).contains("1 move undone"));
}

#[test]
fn databases_open_safely_and_foreign_ones_are_refused() {
    // Many processes starting at once on a new data directory all get the same, current schema.
    let path = temp_db("first-start");
    let barrier = Arc::new(Barrier::new(24));
    let handles: Vec<_> = (0..24)
        .map(|_| {
            let (path, barrier) = (path.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                SqliteStore::open(&path).map(|_| ()).map_err(|e| e.to_string())
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
    // Someone else's database is left alone.
    let foreign = temp_db("foreign");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE invoices (id INTEGER)")
        .unwrap();
    let err = SqliteStore::open(&foreign).unwrap_err().to_string();
    assert!(err.contains("not Tessera's"), "{err}");
    let tables: i64 = rusqlite::Connection::open(&foreign)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1, "nothing was added to it");
    // A newer Tessera's database is refused too.
    let newer = temp_db("newer");
    drop(SqliteStore::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("INSERT INTO schema_version VALUES (999)")
        .unwrap();
    let err = SqliteStore::open(&newer).unwrap_err().to_string();
    assert!(err.contains("newer than this Tessera"), "{err}");
}

#[test]
fn a_game_is_shown_and_played_only_in_its_own_channel() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    say(&service, "alice", "!t challenge @bob chess white");
    say(&service, "bob", "!t accept");
    let elsewhere = |who: &str, text: &str| talk::say_in(&service, "another-server-channel", who, text);
    for (who, text) in [("carol", "!t board #1"), ("carol", "!t history #1"), ("alice", "!t move e4 #1")] {
        let r = elsewhere(who, text);
        assert!(r[0].private && r[0].text.contains("game #1 is played in #room"), "{text}: {r:?}");
    }
    assert!(service.store().game(1).unwrap().unwrap().moves.is_empty(), "nothing was played");
    // The player's own list still says where their games are.
    assert!(text(&elsewhere("alice", "!t games mine")).contains("#1"));
    assert!(text(&say(&service, "alice", "!t move e4 #1")).contains("played"));
}

#[cfg(unix)]
#[test]
fn the_data_directory_and_database_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("tessera-rel-{}-private", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("data/tessera.sqlite");
    drop(SqliteStore::open(&db).unwrap());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.join("data")), 0o700);
    assert_eq!(mode(&db), 0o600);
}

#[test]
fn open_challenges_are_bounded_and_lapse() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    for i in 0..10 {
        let r = text(&say(&service, "alice", &format!("!t challenge @p{i} chess")));
        assert!(r.contains("challenges"), "{r}");
    }
    let refused = say(&service, "alice", "!t challenge @p10 chess");
    assert!(refused[0].private && text(&refused).contains("10 open challenges"), "{refused:?}");
    // A week later the challenges have lapsed: nobody can take them up, and new ones are allowed.
    let later = |who: &str, text: &str| talk::say_at(&service, "room", who, false, text, T0 + 8 * 86_400);
    assert!(text(&later("p0", "!t accept")).contains("nobody has challenged you"));
    assert!(text(&later("alice", "!t challenge @p10 chess")).contains("challenges p10"));
}

#[test]
fn a_channel_with_many_games_lists_a_bounded_page() {
    let service = Service::new(SqliteStore::in_memory().unwrap());
    for i in 0..40 {
        let p = format!("p{i}");
        say(&service, "alice", &format!("!t challenge @{p} chess"));
        say(&service, &p, "!t accept");
    }
    let list = text(&say(&service, "bob", "!t games"));
    assert_eq!(list.lines().count(), 31, "{list}");
    assert!(list.contains("and 10 more games"), "{list}");
    assert!(list.contains("#40") && !list.contains("#1 "), "newest first");
}

#[test]
fn one_games_failure_does_not_stop_the_others_clocks() {
    let path = temp_db("tick");
    let service = Service::new(SqliteStore::open(&path).unwrap());
    for (a, b) in [("alice", "bob"), ("carol", "dave")] {
        say(&service, a, &format!("!t challenge @{b} chess white 1d"));
        say(&service, b, "!t accept");
    }
    // Game 1 cannot be written (a damaged page, say); game 2's loss on time still happens.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "CREATE TRIGGER stuck BEFORE UPDATE ON games WHEN OLD.id = 1 BEGIN SELECT RAISE(ABORT, 'io'); END;",
    )
    .unwrap();
    let notices = service.tick(T0 + 3 * 86_400).unwrap();
    assert!(
        notices.iter().any(|n| n.text.contains("Game #2") && n.text.contains("ran out of time")),
        "{notices:?}"
    );
    assert!(service.store().game(1).unwrap().unwrap().result.is_none());
    assert!(service.store().game(2).unwrap().unwrap().result.is_some());
}

/// A challenge accepted on `platform`, with one day a move.
fn clocked_game(service: &Service<SqliteStore>, platform: &'static str, players: (&str, &str)) {
    for (who, text) in
        [(players.0, format!("!t challenge @{} chess white 1d", players.1)), (players.1, "!t accept".into())]
    {
        let author = User::new(who, who);
        let mentions = [User::new(players.1, players.1)];
        let msg = Incoming {
            platform,
            channel: "room",
            author: &author,
            is_admin: false,
            text: &text,
            mentions: &mentions,
            now: T0,
            thread: None,
        };
        service.handle(&msg);
    }
}

#[test]
fn one_clock_routes_each_platforms_notices_to_it() {
    use tessera_bot::clock::Clock;
    let service = Service::new(SqliteStore::open(&temp_db("clock")).unwrap());
    clocked_game(&service, "discord", ("alice", "bob"));
    clocked_game(&service, "matrix", ("carol", "dave"));
    clocked_game(&service, "irc", ("erin", "frank"));
    let mut clock = Clock::new();
    let mut discord = clock.serve("discord");
    let mut matrix = clock.serve("matrix");
    assert_eq!(clock.tick(&service, T0 + 3 * 86_400), 2);
    let d = discord.try_recv().unwrap();
    let m = matrix.try_recv().unwrap();
    assert!(d.text.contains("Game #1") && d.text.contains("ran out of time"), "{d:?}");
    assert!(m.text.contains("Game #2") && m.text.contains("ran out of time"), "{m:?}");
    assert!(discord.try_recv().is_err() && matrix.try_recv().is_err(), "one notice each");
    // No adapter here tells game #3's players: its clock is left for a process that can.
    assert!(service.store().game(3).unwrap().unwrap().result.is_none());
    assert_eq!(clock.platforms(), ["discord", "matrix"]);
}

#[test]
fn a_flood_of_commands_is_answered_once_then_ignored() {
    let mut service = Service::new(SqliteStore::open(&temp_db("flood")).unwrap());
    service.rate_limit = Some(tessera_core::rate_limit::RateLimit::new(5, 3));
    let answers: Vec<Vec<Reply>> = (0..40).map(|_| say(&service, "mallory", "!t variants")).collect();
    assert!(answers[..5].iter().all(|r| text(r).contains("hans38")), "a burst is answered");
    assert!(text(&answers[5]).contains("faster than I answer"), "{:?}", answers[5]);
    assert!(answers[5][0].private, "the slow-down note is for the flooder alone");
    assert!(answers[6..].iter().all(Vec::is_empty), "then silence, so the bot is not made to spam");
    // Others are answered meanwhile, and chatter is not counted against anyone.
    assert!(text(&say(&service, "alice", "!t variants")).contains("hans38"));
    for _ in 0..50 {
        assert!(say(&service, "bob", "nice game everyone").is_empty());
    }
    assert!(text(&say(&service, "bob", "!t variants")).contains("hans38"));
    // A flood changes nothing: the challenges beyond the limit were never made.
    let mut service = Service::new(SqliteStore::open(&temp_db("flood2")).unwrap());
    service.rate_limit = Some(tessera_core::rate_limit::RateLimit::new(3, 3));
    for i in 0..20 {
        say(&service, "mallory", &format!("!t challenge @victim{i} chess"));
    }
    let me = service.store().player("test", "mallory", "mallory").unwrap();
    assert_eq!(service.store().open_challenges("test", "room", me.id).unwrap().len(), 3);
}

/// Each process keeps its games in memory between moves; the database stays the truth. Two
/// services on one file: each sees the other's moves and takebacks, and a stale memory never
/// plays a move into the wrong position.
#[test]
fn a_game_kept_in_memory_follows_moves_and_takebacks_made_elsewhere() {
    let path = temp_db("cache");
    let one = Service::new(SqliteStore::open(&path).unwrap());
    let two = Service::new(SqliteStore::open(&path).unwrap());
    say(&one, "alice", "!t challenge @bob chess white");
    say(&one, "bob", "!t accept");
    assert!(text(&say(&one, "alice", "e4")).contains("alice played e4"));
    // Bob answers through the other process; the first still remembers the game after e4.
    assert!(text(&say(&two, "bob", "e5")).contains("bob played e5"));
    assert!(text(&say(&one, "alice", "Nf3")).contains("alice played Nf3"));
    assert!(text(&say(&two, "bob", "Nc6")).contains("bob played Nc6"));
    // Alice takes Nf3 back (and Bob's answer with it) through the second process, Bob agreeing.
    say(&two, "alice", "!t takeback");
    let agreed = text(&say(&two, "bob", "!t takeback"));
    assert!(agreed.contains("Takeback agreed: 2 moves undone"), "{agreed}");
    // The first process must not play from its memory of the longer game.
    let history = text(&say(&one, "alice", "!t history"));
    assert!(history.contains("1. e4 e5") && !history.contains("Nf3"), "{history}");
    assert!(text(&say(&one, "alice", "Bc4")).contains("alice played Bc4"));
    assert!(text(&say(&two, "bob", "Nf6")).contains("bob played Nf6"));
    let history = text(&say(&one, "bob", "!t history"));
    assert!(history.ends_with("2. Bc4 Nf6 *"), "{history}");
}
