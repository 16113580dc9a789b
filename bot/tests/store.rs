//! One conformance suite for every store: each case runs against SQLite (a file of its own) and
//! against a real PostgreSQL server that the test starts on 127.0.0.1 (`support/postgres.rs`), a
//! fresh database per case. Without PostgreSQL installed the PostgreSQL run says it was skipped
//! and why; with `TESSERA_REQUIRE_POSTGRES=1` (`.ci/run`) it fails instead.
//!
//! Each case gets a [`Db`]: `open` is another connection to the case's database, so racing
//! writers are separate connections, as separate processes would be.

use crate::postgres;
use crate::talk;
#[path = "store/tournaments.rs"]
mod tournaments;

use std::sync::{Arc, Barrier};

use tessera_core::model::Publication;
use tessera_core::model::{
    Append, BotOpponent, Challenge, GameId, LinesAfter, NewGame, PlayerId, Vacation, VacationStart,
};
use tessera_core::model::{
    Entry, Format, GameTemplate, NewPairing, NewTournament, PairingAt, PairingKind, ResultSetting, SetResult,
    TournamentId, TournamentStatus,
};
use tessera_core::outbox::{CLAIM_MS, Claim, NewNotice};
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_store::PgStore;
use tessera_store::{AnyStore, SqliteStore};

/// A case's database.
trait Db: Sync {
    /// A new connection to it (a new store).
    fn open(&self) -> AnyStore;
}

struct SqliteDb {
    /// The database file, alone in its directory.
    path: std::path::PathBuf,
}

/// A case's own SQLite database.
fn sqlite(case: &str) -> SqliteDb {
    SqliteDb { path: talk::temp_db("conformance", case) }
}

impl Db for SqliteDb {
    fn open(&self) -> AnyStore {
        Box::new(SqliteStore::open(&self.path).unwrap())
    }
}

impl Drop for SqliteDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.path.parent().unwrap());
    }
}

struct PgDb {
    address: String,
}

impl Db for PgDb {
    fn open(&self) -> AnyStore {
        Box::new(PgStore::connect(&self.address).unwrap())
    }
}

postgres::on_both_databases! {
    dyn Db, sqlite, |address| PgDb { address };
    players_are_created_once_and_renamed,
    settings_are_kept_per_player_and_per_channel,
    a_pending_turn_is_replaced_and_cleared,
    challenges_are_listed_while_open_and_closed_once,
    a_challenge_is_accepted_once,
    games_are_found_by_channel_player_clock_and_bot,
    moves_append_in_order_and_races_lose_cleanly,
    a_move_after_others_needs_exactly_them,
    games_end_once_and_a_draw_needs_its_offer,
    takebacks_remove_the_last_moves,
    a_move_clears_offers_and_the_reminder,
    tournaments_are_listed_and_change_status_only_from_the_given_ones,
    entries_respect_the_status_and_the_limit,
    a_round_is_paired_once_with_its_games_and_seeds,
    a_knockout_leg_is_added_once,
    an_organisers_result_ends_the_game_and_a_forfeit_is_unrated,
    a_notice_is_stored_with_its_change_claimed_once_and_sent_once,
    a_player_withdrawn_while_a_round_is_worked_out_is_not_paired,
    a_withdrawal_forfeits_the_running_game,
    rated_results_come_in_finishing_order,
    racing_moves_for_one_turn_exactly_one_commits,
    racing_accepts_and_pairings_exactly_one_wins,
    openers_race_safely_and_reopening_keeps_everything,
    the_service_plays_a_game_on_this_store,
    a_reminder_and_a_loss_on_time_happen_once_and_not_after_a_move,
    a_lease_has_one_holder_until_it_expires_or_is_given_up,
    racing_for_a_lease_exactly_one_gets_it,
    conditional_lines_live_and_die_with_the_moves,
    a_vacation_starts_within_the_allowance_once_and_ends_early,
    // Issue 30: notes, spectators, the daily digest, the archive.
    a_note_is_kept_per_player_and_game_replaced_and_cleared,
    spectators_are_added_once_and_taken_off,
    a_digest_is_due_until_marked_and_marked_once_with_its_notice,
    finished_games_are_listed_newest_first_filtered_and_paged,
    a_games_thread_is_set_once_and_finds_the_game,
    // Issue 31: pages on the web.
    a_publication_has_one_live_address_until_withdrawn,
    // Issue 32: analysis after the game.
    an_analysis_is_asked_once_within_its_bounds_and_finished_once_with_its_notice,
    racing_askers_never_pass_the_bounds,
}

use talk::{T0, say};
use tournaments::*;

/// `sslmode=require` speaks TLS and checks the server: its certificate must chain to a trusted CA
/// (here the test's own, given as `SSL_CERT_FILE`) and name the host connected to.
#[test]
fn postgres_over_tls_checks_the_servers_certificate() {
    let Some(cluster) = postgres::Cluster::start_tls_or_skip("store::postgres_over_tls") else { return };
    let plain = cluster.database("tls");
    let db = plain.rsplit('/').next().unwrap();
    let port = cluster.port();
    let tessera = |address: &str, ca: Option<&std::path::Path>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"));
        command.env_clear().env("TESSERA_DATABASE", address).args(["tournament", "export", "7"]);
        if let Some(ca) = ca {
            command.env("SSL_CERT_FILE", ca);
        }
        let out = command.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let ca = cluster.tls_ca();
    // Connected, schema made, and the tournament looked for: the connection worked.
    let secure = format!("postgres://tessera@localhost:{port}/{db}?sslmode=require");
    let said = tessera(&secure, Some(&ca));
    assert!(said.contains("there is no tournament t7"), "{said}");
    // A certificate from a CA nobody trusts, or for another name, is refused.
    let said = tessera(&secure, None);
    assert!(said.contains("certificate") && !said.contains("no tournament"), "{said}");
    let other_name = format!("postgres://tessera@127.0.0.1:{port}/{db}?sslmode=require");
    let said = tessera(&other_name, Some(&ca));
    assert!(said.contains("certificate") && !said.contains("no tournament"), "{said}");
    // Without sslmode=require the connection stays plain, as before.
    assert!(tessera(&plain, None).contains("there is no tournament t7"));
}

fn two_players(s: &dyn Store) -> (PlayerId, PlayerId) {
    (s.player("l", "a", "Alice").unwrap().id, s.player("l", "b", "Bob").unwrap().id)
}

fn new_game_in(channel: &str, white: PlayerId, black: PlayerId) -> NewGame<'_> {
    NewGame {
        platform: "local",
        channel,
        variant: "chess",
        start_fen: "start",
        white,
        black,
        days_per_move: Some(3),
        rated: false,
        now: 100,
        bot: None,
        weekends_off: false,
        definition: None,
    }
}

fn new_game(s: &dyn Store, a: PlayerId, b: PlayerId) -> GameId {
    s.create_game(&new_game_in("main", a, b)).unwrap()
}

fn challenge(platform: &str, channel: &str, by: PlayerId, to: PlayerId, at: i64) -> Challenge {
    Challenge {
        id: 0,
        platform: platform.into(),
        channel: channel.into(),
        challenger: by,
        challenged: to,
        variant: "chess".into(),
        color: "random".into(),
        days_per_move: None,
        created_at: at,
        rated: true,
        weekends_off: false,
    }
}

fn players_are_created_once_and_renamed(db: &dyn Db) {
    let store = db.open();
    let a = store.player("discord", "42", "Alice").unwrap();
    let again = store.player("discord", "42", "Alice B").unwrap();
    assert_eq!(a.id, again.id);
    assert_eq!(store.player_by_id(a.id).unwrap().unwrap().name, "Alice B");
    let other = store.player("matrix", "42", "Alice").unwrap();
    assert_ne!(other.id, a.id);
    assert_eq!(store.player_by_id(other.id + 1000).unwrap(), None);
    let found = store.player_by_id(other.id).unwrap().unwrap();
    assert_eq!((found.platform.as_str(), found.user_id.as_str()), ("matrix", "42"));
    // Names are stored as they are shown: cleaned, cut, look-alikes marked, an empty one replaced.
    let hostile = store.player("discord", "43", &format!("\u{202e}```{}", "W".repeat(10_000))).unwrap();
    let shown = format!("ˋˋˋ{}…", "W".repeat(28));
    assert_eq!(hostile.name, shown);
    assert_eq!(store.player_by_id(hostile.id).unwrap().unwrap().name, shown);
    assert_eq!(store.player("matrix", "@zed:x.org", "\u{200b}\u{3164}").unwrap().name, "zed");
    let look_alike = store.player("discord", "44", "t\u{435}ssera").unwrap();
    assert_eq!(store.player_by_id(look_alike.id).unwrap().unwrap().name, "t\u{435}ssera (Latin+Cyrillic)");
}

fn settings_are_kept_per_player_and_per_channel(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    assert_eq!(store.setting(a, "confirm").unwrap(), None);
    store.set_setting(a, "confirm", "on").unwrap();
    store.set_setting(a, "confirm", "off").unwrap();
    store.set_setting(a, "flip", "yes").unwrap();
    assert_eq!(store.setting(a, "confirm").unwrap().as_deref(), Some("off"));
    assert_eq!(store.setting(a, "flip").unwrap().as_deref(), Some("yes"));
    assert_eq!(store.setting(b, "confirm").unwrap(), None);
    assert_eq!(store.channel_setting("l", "room", "gif").unwrap(), None);
    store.set_channel_setting("l", "room", "gif", "off").unwrap();
    store.set_channel_setting("l", "room", "gif", "on").unwrap();
    assert_eq!(store.channel_setting("l", "room", "gif").unwrap().as_deref(), Some("on"));
    assert_eq!(store.channel_setting("l", "other", "gif").unwrap(), None);
    assert_eq!(store.channel_setting("m", "room", "gif").unwrap(), None);
}

fn a_pending_turn_is_replaced_and_cleared(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert_eq!(store.pending_turn(a, g).unwrap(), None);
    store.set_pending_turn(a, g, Some((0, "e4"))).unwrap();
    store.set_pending_turn(a, g, Some((2, "Nf3"))).unwrap();
    assert_eq!(store.pending_turn(a, g).unwrap(), Some((2, "Nf3".to_string())));
    assert_eq!(store.pending_turn(b, g).unwrap(), None);
    store.set_pending_turn(a, g, None).unwrap();
    assert_eq!(store.pending_turn(a, g).unwrap(), None);
}

fn challenges_are_listed_while_open_and_closed_once(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    let first = store.create_challenge(&challenge("l", "room", a, b, 10)).unwrap();
    let second = store.create_challenge(&challenge("l", "room", c, a, 20)).unwrap();
    let elsewhere = store.create_challenge(&challenge("l", "hall", a, b, 30)).unwrap();
    let open: Vec<_> = store.open_challenges("l", "room", a).unwrap().iter().map(|c| c.id).collect();
    assert_eq!(open, [first, second], "oldest first, as challenger or challenged");
    assert_eq!(store.open_challenges("l", "room", b).unwrap().len(), 1);
    let stored = &store.open_challenges("l", "hall", b).unwrap()[0];
    assert_eq!(stored, &Challenge { id: elsewhere, ..challenge("l", "hall", a, b, 30) });
    let since: Vec<_> = store.open_challenges_since("l", "room", 10).unwrap().iter().map(|c| c.id).collect();
    assert_eq!(since, [second]);
    assert!(store.close_challenge(first, "declined").unwrap());
    assert!(!store.close_challenge(first, "withdrawn").unwrap(), "closed once");
    assert_eq!(store.open_challenges("l", "room", b).unwrap(), []);
}

fn a_challenge_is_accepted_once(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let id = store.create_challenge(&challenge("l", "room", a, b, 10)).unwrap();
    let mut g = new_game_in("room", b, a);
    g.rated = true;
    g.days_per_move = None;
    let game = store.accept_challenge(id, &g, &[]).unwrap().expect("accepted");
    assert_eq!(store.accept_challenge(id, &g, &[]).unwrap(), None, "accepted once");
    assert!(!store.close_challenge(id, "declined").unwrap());
    let row = store.game(game).unwrap().unwrap();
    assert_eq!((row.white, row.black, row.rated, row.days_per_move), (b, a, true, None));
    assert_eq!(store.channel_games("local", "room").unwrap().len(), 1, "and nothing else");
}

fn games_are_found_by_channel_player_clock_and_bot(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    let g1 = store.create_game(&new_game_in("room", a, b)).unwrap();
    let g2 = store.create_game(&NewGame { days_per_move: None, ..new_game_in("room", b, c) }).unwrap();
    let g3 = store
        .create_game(&NewGame {
            bot: Some(BotOpponent { player: c, level: 3 }),
            days_per_move: None,
            start_fen: "8/8/8/8/8/8/8/K6k w - - 0 1",
            variant: "atomic",
            ..new_game_in("hall", a, c)
        })
        .unwrap();
    let row = store.game(g3).unwrap().unwrap();
    assert_eq!(row.bot, Some(BotOpponent { player: c, level: 3 }));
    assert_eq!((row.variant.as_str(), row.start_fen.as_str()), ("atomic", "8/8/8/8/8/8/8/K6k w - - 0 1"));
    assert_eq!((row.platform.as_str(), row.channel.as_str()), ("local", "hall"));
    assert_eq!(
        (row.result, row.reminded, row.draw_offer, row.created_at, row.last_move_at),
        (None, false, None, 100, 100)
    );
    assert_eq!(row.moves, Vec::<String>::new());
    assert_eq!(store.game(g3 + 100).unwrap(), None);
    let ids = |rows: Vec<tessera_core::model::GameRow>| rows.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.channel_games("local", "room").unwrap()), [g1, g2]);
    assert_eq!(ids(store.player_games(a).unwrap()), [g1, g3]);
    assert_eq!(ids(store.clocked_games().unwrap()), [g1]);
    assert_eq!(ids(store.bot_games().unwrap()), [g3]);
    assert_eq!(ids(store.recent_games(b, 1).unwrap()), [g2], "the newest");
    assert_eq!(ids(store.recent_games(a, 10).unwrap()), [g3, g1], "newest first");
    store.append_move(g1, 1, "e2-e4", None, 200).unwrap();
    store.append_move(g2, 1, "d2-d4", None, 200).unwrap();
    store.append_move(g1, 2, "e7-e5", None, 201).unwrap();
    let rows = store.channel_games("local", "room").unwrap();
    assert_eq!(
        (rows[0].moves.as_slice(), rows[1].moves.as_slice()),
        (&["e2-e4".to_string(), "e7-e5".into()][..], &["d2-d4".to_string()][..])
    );
    assert!(store.finish(g2, "1-0", "resignation", 300).unwrap());
    assert_eq!(ids(store.channel_games("local", "room").unwrap()), [g1], "unfinished only");
    assert_eq!(store.last_channel_game("local", "room").unwrap().unwrap().id, g2, "finished or not");
    assert_eq!(store.last_channel_game("local", "nowhere").unwrap(), None);
    assert!(store.finish(g3, "0-1", "resignation", 300).unwrap());
    assert_eq!(ids(store.bot_games().unwrap()), Vec::<GameId>::new());
    assert_eq!(ids(store.recent_games(c, 5).unwrap()), [g3, g2], "finished ones too");
}

fn moves_append_in_order_and_races_lose_cleanly(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert_eq!(store.append_move(g, 1, "e2-e4", None, 200).unwrap(), Append::Stored);
    // A second move for the same ply (a race) is refused, and nothing changes.
    assert_eq!(store.append_move(g, 1, "d2-d4", None, 201).unwrap(), Append::Conflict);
    assert_eq!(store.append_move(g, 3, "d2-d4", None, 201).unwrap(), Append::Conflict);
    assert_eq!(store.game(g).unwrap().unwrap().moves, ["e2-e4"]);
    store.append_move(g, 2, "e7-e5", Some(("0-1", "checkmate")), 300).unwrap();
    let row = store.game(g).unwrap().unwrap();
    assert_eq!(
        (row.result.as_deref(), row.result_reason.as_deref(), row.last_move_at),
        (Some("0-1"), Some("checkmate"), 300)
    );
    assert_eq!(store.append_move(g, 3, "a2-a3", None, 301).unwrap(), Append::Conflict, "the game is over");
    assert_eq!(store.player_games(a).unwrap(), []);
}

fn a_move_after_others_needs_exactly_them(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert_eq!(store.append_move_after(g, &[], "e2-e4", None, 200).unwrap(), Append::Stored);
    let before = ["d2-d4".to_string()];
    assert_eq!(
        store.append_move_after(g, &before, "d7-d5", None, 201).unwrap(),
        Append::Conflict,
        "other moves"
    );
    let before = ["e2-e4".to_string()];
    assert_eq!(store.append_move_after(g, &before, "e7-e5", None, 201).unwrap(), Append::Stored);
    assert_eq!(store.append_move_after(g, &before, "c7-c5", None, 202).unwrap(), Append::Conflict, "stale");
    assert_eq!(store.game(g).unwrap().unwrap().moves, ["e2-e4", "e7-e5"]);
}

fn games_end_once_and_a_draw_needs_its_offer(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert!(!store.accept_draw(g, a, 150).unwrap(), "nobody offered");
    store.set_draw_offer(g, Some(a)).unwrap();
    assert_eq!(store.game(g).unwrap().unwrap().draw_offer, Some(a));
    assert!(!store.accept_draw(g, b, 150).unwrap(), "not b's offer");
    assert!(store.accept_draw(g, a, 150).unwrap());
    let row = store.game(g).unwrap().unwrap();
    assert_eq!(
        (row.result.as_deref(), row.result_reason.as_deref(), row.draw_offer),
        (Some("1/2-1/2"), Some("agreement"), None)
    );
    assert!(!store.finish(g, "1-0", "resignation", 160).unwrap(), "ended once");
    let h = new_game(&*store, a, b);
    store.set_takeback_offer(h, Some(b)).unwrap();
    assert!(store.finish(h, "0-1", "time", 170).unwrap());
    let row = store.game(h).unwrap().unwrap();
    assert_eq!((row.result.as_deref(), row.takeback_offer), (Some("0-1"), None));
    store.set_draw_offer(h, Some(a)).unwrap();
    assert!(!store.accept_draw(h, a, 180).unwrap(), "over already");
}

fn takebacks_remove_the_last_moves(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    for (i, m) in ["e2-e4", "e7-e5", "g1-f3"].iter().enumerate() {
        store.append_move(g, i + 1, m, None, 200).unwrap();
    }
    // Only a request that still stands, on the moves it was agreed on.
    assert!(!store.take_back(g, 3, 2, a, 300).unwrap(), "nobody asked");
    store.set_takeback_offer(g, Some(a)).unwrap();
    assert!(!store.take_back(g, 2, 2, a, 300).unwrap(), "a move came in since");
    assert!(!store.take_back(g, 3, 2, b, 300).unwrap(), "not the one who asked");
    assert!(!store.take_back(g, 3, 4, a, 300).unwrap(), "more than were played");
    assert!(store.take_back(g, 3, 2, a, 300).unwrap());
    let row = store.game(g).unwrap().unwrap();
    assert_eq!(
        (row.moves.as_slice(), row.takeback_offer, row.last_move_at),
        (&["e2-e4".to_string()][..], None, 300)
    );
    assert!(!store.take_back(g, 1, 1, a, 300).unwrap(), "agreed once, done once");
    assert_eq!(
        store.append_move(g, 2, "c7-c5", None, 310).unwrap(),
        Append::Stored,
        "play goes on from there"
    );
}

fn a_move_clears_offers_and_the_reminder(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert!(store.mark_reminded(g, 100, &[]).unwrap());
    store.set_draw_offer(g, Some(b)).unwrap();
    store.set_takeback_offer(g, Some(b)).unwrap();
    let row = store.game(g).unwrap().unwrap();
    assert_eq!((row.reminded, row.draw_offer, row.takeback_offer), (true, Some(b), Some(b)));
    store.append_move(g, 1, "e2-e4", None, 250).unwrap();
    let row = store.game(g).unwrap().unwrap();
    assert_eq!(
        (row.reminded, row.draw_offer, row.takeback_offer, row.last_move_at),
        (false, None, None, 250)
    );
    store.set_draw_offer(g, Some(a)).unwrap();
    store.set_draw_offer(g, None).unwrap();
    assert_eq!(store.game(g).unwrap().unwrap().draw_offer, None);
}

/// Threads with a connection each append the same turn at once, round after round: exactly one
/// commits each round, and the game has exactly the winners' moves.
fn racing_moves_for_one_turn_exactly_one_commits(db: &dyn Db) {
    const RACERS: usize = 4;
    const ROUNDS: usize = 15;
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    let barrier = Barrier::new(RACERS);
    let winners: Vec<Vec<(usize, String)>> = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..RACERS)
            .map(|r| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let store = db.open();
                    let mut won = Vec::new();
                    for ply in 1..=ROUNDS {
                        barrier.wait();
                        let text = format!("m{ply}-r{r}");
                        let outcome = if r % 2 == 0 {
                            store.append_move(g, ply, &text, None, T0 + ply as i64).unwrap()
                        } else {
                            let before = store.game(g).unwrap().unwrap().moves;
                            if before.len() + 1 != ply {
                                Append::Conflict
                            } else {
                                store.append_move_after(g, &before, &text, None, T0 + ply as i64).unwrap()
                            }
                        };
                        if outcome == Append::Stored {
                            won.push((ply, text));
                        }
                        barrier.wait();
                    }
                    won
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut all: Vec<(usize, String)> = winners.into_iter().flatten().collect();
    all.sort();
    assert_eq!(
        all.iter().map(|w| w.0).collect::<Vec<_>>(),
        (1..=ROUNDS).collect::<Vec<_>>(),
        "one winner a turn: {all:?}"
    );
    let moves = store.game(g).unwrap().unwrap().moves;
    assert_eq!(moves, all.into_iter().map(|w| w.1).collect::<Vec<_>>());
}

/// Threads with a connection each accept one challenge, and pair one round, at once.
fn racing_accepts_and_pairings_exactly_one_wins(db: &dyn Db) {
    const RACERS: usize = 4;
    let store = db.open();
    let (a, b) = two_players(&*store);
    let challenges: Vec<_> =
        (0..5).map(|i| store.create_challenge(&challenge("l", "room", a, b, i)).unwrap()).collect();
    let (t, p) = tournament_with(&*store, Format::RoundRobin, 4);
    let barrier = Barrier::new(RACERS);
    let (accepted, paired) = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..RACERS)
            .map(|_| {
                let (barrier, challenges, p) = (&barrier, &challenges, &p);
                scope.spawn(move || {
                    let store = db.open();
                    let mut accepted = 0;
                    for &c in challenges {
                        barrier.wait();
                        accepted += usize::from(
                            store.accept_challenge(c, &new_game_in("room", b, a), &[]).unwrap().is_some(),
                        );
                    }
                    barrier.wait();
                    let round = [game_pairing(1, p[0], p[3]), game_pairing(2, p[1], p[2])];
                    let paired = store.pair_round(t, 1, &[], &round, &TEMPLATE, &[]).unwrap();
                    (accepted, usize::from(paired))
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).fold((0, 0), |s, r| (s.0 + r.0, s.1 + r.1))
    });
    assert_eq!(accepted, challenges.len(), "each challenge accepted exactly once");
    assert_eq!(store.channel_games("local", "room").unwrap().len(), challenges.len(), "one game each");
    assert_eq!(paired, 1, "the round paired once");
    assert_eq!(store.pairings(t).unwrap().len(), 2);
    assert_eq!(store.channel_games("l", "club").unwrap().len(), 2, "and its games made once");
}

fn openers_race_safely_and_reopening_keeps_everything(db: &dyn Db) {
    // Processes starting together on a new database: one migrates, the others wait for it, all
    // open, and each writes at once.
    let opened = |n: usize| -> Vec<(AnyStore, PlayerId)> {
        std::thread::scope(|scope| {
            let barrier = Arc::new(Barrier::new(n));
            let openers: Vec<_> = (0..n)
                .map(|i| {
                    let barrier = barrier.clone();
                    scope.spawn(move || {
                        barrier.wait();
                        let store = db.open();
                        let starter = store.player("l", &format!("starter{i}"), "S").unwrap().id;
                        (store, starter)
                    })
                })
                .collect();
            openers.into_iter().map(|o| o.join().unwrap()).collect()
        })
    };
    let first = opened(4);
    let (a, b) = two_players(&*first[0].0);
    let g = new_game(&*first[1].0, a, b);
    first[2].0.append_move(g, 1, "e2-e4", None, 200).unwrap();
    let starters: Vec<PlayerId> = first.iter().map(|s| s.1).collect();
    drop(first);
    for (store, _) in &opened(3) {
        assert_eq!(store.game(g).unwrap().unwrap().moves, ["e2-e4"]);
        for (i, &id) in starters.iter().enumerate() {
            assert_eq!(store.player_by_id(id).unwrap().unwrap().user_id, format!("starter{i}"));
        }
    }
}

/// The service does not care which store it has: a challenge, a game to mate, ratings after it.
fn the_service_plays_a_game_on_this_store(db: &dyn Db) {
    let service = Service::new(db.open());
    say(&service, "alice", "!t challenge @bob chess white rated");
    say(&service, "bob", "!t accept");
    for (who, m) in [("alice", "f3"), ("bob", "e5"), ("alice", "g4"), ("bob", "Qh4#")] {
        let replies = say(&service, who, m);
        assert!(!replies.is_empty(), "{who}: {m} got no reply");
    }
    let store = service.store();
    let game = store.last_channel_game("test", "room").unwrap().expect("a game");
    assert_eq!(game.moves.len(), 4, "{:?}", game.moves);
    assert_eq!(game.result.as_deref(), Some("0-1"));
    // A fresh service on another connection sees the same.
    let again = Service::new(db.open());
    assert_eq!(again.store().game(game.id).unwrap().unwrap().moves, game.moves);
}

/// The clock's writes are conditional: of two processes reminding or timing out the same game,
/// one does it; and a move that came in after the clock was read cancels both.
fn a_reminder_and_a_loss_on_time_happen_once_and_not_after_a_move(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    assert!(!store.mark_reminded(g, 99, &[]).unwrap(), "a clock read before another move reminds nobody");
    assert!(store.mark_reminded(g, 100, &[]).unwrap());
    assert!(!store.mark_reminded(g, 100, &[]).unwrap(), "reminded once");
    store.append_move(g, 1, "e2-e4", None, 250).unwrap();
    assert!(!store.time_out(g, 100, "1-0", 400, &[]).unwrap(), "White moved: that clock no longer runs");
    assert_eq!(store.game(g).unwrap().unwrap().result, None);
    assert!(store.mark_reminded(g, 250, &[]).unwrap(), "the new clock reminds again");
    assert!(store.time_out(g, 250, "1-0", 400, &[]).unwrap());
    assert!(!store.time_out(g, 250, "1-0", 401, &[]).unwrap(), "lost on time once");
    let row = store.game(g).unwrap().unwrap();
    assert_eq!((row.result.as_deref(), row.result_reason.as_deref()), (Some("1-0"), Some("time")));
    assert!(!store.mark_reminded(g, 250, &[]).unwrap(), "a finished game is not reminded");
    assert_eq!(store.append_move(g, 2, "e7-e5", None, 402).unwrap(), Append::Conflict);
}

fn a_lease_has_one_holder_until_it_expires_or_is_given_up(db: &dyn Db) {
    let store = db.open();
    let other = db.open();
    assert_eq!(store.lease("clock:test").unwrap(), None);
    assert!(store.take_lease("clock:test", "p1", None, 1_000, 500).unwrap());
    assert!(!other.take_lease("clock:test", "p2", None, 1_200, 500).unwrap(), "held until 1500");
    assert!(store.take_lease("clock:test", "p1", None, 1_400, 500).unwrap(), "renewed by its holder");
    let lease = other.lease("clock:test").unwrap().unwrap();
    assert_eq!((lease.holder.as_str(), lease.expires_at, lease.generation), ("p1", 1_900, 1));
    assert!(!other.take_lease("clock:test", "p2", None, 1_899, 500).unwrap());
    assert!(other.take_lease("clock:test", "p2", None, 1_900, 500).unwrap(), "expired: anyone's");
    assert_eq!(store.lease("clock:test").unwrap().unwrap().generation, 2, "one hand-over");
    assert!(!store.take_lease("clock:test", "p1", None, 1_950, 500).unwrap(), "the old holder lost it");
    // Another lease is another thing.
    assert!(store.take_lease("matrix:@bot:example.org", "p1", None, 1_950, 500).unwrap());
    // A holder known dead is replaced at once; naming a holder that does not hold it takes nothing.
    assert!(!store.take_lease("clock:test", "p3", Some("p1"), 2_000, 500).unwrap());
    assert!(store.take_lease("clock:test", "p3", Some("p2"), 2_000, 500).unwrap());
    // Given up: taken at once by the next, and only its holder can give it up.
    assert!(!store.release_lease("clock:test", "p2").unwrap());
    assert!(store.release_lease("clock:test", "p3").unwrap());
    assert_eq!(store.lease("clock:test").unwrap(), None);
    assert!(other.take_lease("clock:test", "p2", None, 2_001, 500).unwrap());
    // Listed by the start of their names while they run (`_` and `%` are plain characters).
    assert!(store.take_lease("clock_%", "p4", None, 2_001, 500).unwrap());
    let live = |prefix: &str, now: i64| -> Vec<String> {
        store.live_leases(prefix, now).unwrap().into_iter().map(|l| l.name).collect()
    };
    assert_eq!(live("clock:", 2_100), ["clock:test"]);
    assert_eq!(live("clock", 2_100), ["clock:test", "clock_%"]);
    assert_eq!(live("matrix:", 2_100), ["matrix:@bot:example.org"]);
    assert!(live("clock:", 2_501).is_empty(), "run out");
    // The database's clock, which times the leases, is a real clock.
    let skew = store.clock_ms().unwrap() - tessera_core::process::local_ms();
    assert!(skew.abs() < 60_000, "{skew} ms from this machine's");
}

/// Connections asking for a free lease, and then for an expired one, at the same moment.
fn racing_for_a_lease_exactly_one_gets_it(db: &dyn Db) {
    const RACERS: usize = 4;
    let barrier = Barrier::new(RACERS);
    for (round, now) in [(0, 10_000), (1, 20_000)] {
        let won: usize = std::thread::scope(|scope| {
            let racers: Vec<_> = (0..RACERS)
                .map(|r| {
                    let barrier = &barrier;
                    scope.spawn(move || {
                        let store = db.open();
                        barrier.wait();
                        let holder = format!("racer-{round}-{r}");
                        usize::from(store.take_lease("race", &holder, None, now, 5_000).unwrap())
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).sum()
        });
        assert_eq!(won, 1, "round {round}: one holder");
    }
    assert_eq!(db.open().lease("race").unwrap().unwrap().generation, 2);
}

fn conditional_lines_live_and_die_with_the_moves(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = store.create_game(&NewGame { weekends_off: true, ..new_game_in("main", a, b) }).unwrap();
    assert!(store.game(g).unwrap().unwrap().weekends_off, "the clock's weekend rule is kept");
    let lines = |s: &dyn Store| s.conditional_lines(g).unwrap();
    let e4 = vec!["e2-e4".to_string()];
    assert_eq!(
        store.append_turns(g, &[], &["e2-e4"], None, &LinesAfter::default(), 110).unwrap(),
        Append::Stored
    );
    let turns = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // Given on the moves it was planned on, and on the lines as they were read.
    assert!(
        !store.change_conditional_lines(g, a, &[], &[], &[turns(&["e7-e5", "g1-f3"])], &[], 120).unwrap()
    );
    assert!(
        store
            .change_conditional_lines(
                g,
                a,
                &e4,
                &[],
                &[turns(&["e7-e5", "g1-f3", "b8-c6", "f1-b5"])],
                &[],
                120
            )
            .unwrap()
    );
    let first = lines(&*store);
    assert_eq!(first.len(), 1);
    assert_eq!((first[0].player, first[0].from_ply), (a, 1));
    assert_eq!(first[0].turns, turns(&["e7-e5", "g1-f3", "b8-c6", "f1-b5"]));
    assert!(
        !store.change_conditional_lines(g, a, &e4, &[], &[turns(&["c7-c5", "b1-c3"])], &[], 121).unwrap(),
        "stale view"
    );
    let seen = vec![first[0].id];
    assert!(
        store.change_conditional_lines(g, a, &e4, &seen, &[turns(&["c7-c5", "b1-c3"])], &[], 121).unwrap()
    );
    let both = lines(&*store);
    assert_eq!(both.len(), 2);
    // A move whose mover read fewer lines than there are is refused, changing nothing.
    let keep = LinesAfter { seen: seen.clone(), kept: vec![(first[0].id, 3, turns(&["b8-c6", "f1-b5"]))] };
    assert_eq!(
        store.append_turns(g, &e4, &["e7-e5", "g1-f3"], None, &keep, 130).unwrap(),
        Append::LinesChanged
    );
    assert_eq!(store.game(g).unwrap().unwrap().moves, e4);
    // The turn and its answer in one: the answered line shortened, the other dropped.
    let keep = LinesAfter { seen: both.iter().map(|l| l.id).collect(), ..keep };
    assert_eq!(store.append_turns(g, &e4, &["e7-e5", "g1-f3"], None, &keep, 130).unwrap(), Append::Stored);
    let row = store.game(g).unwrap().unwrap();
    assert_eq!((row.moves.len(), row.last_move_at), (3, 130));
    let left = lines(&*store);
    assert_eq!(left.len(), 1);
    assert_eq!(
        (left[0].id, left[0].from_ply, left[0].turns.clone()),
        (first[0].id, 3, turns(&["b8-c6", "f1-b5"]))
    );
    // On moves that are not the game's, nothing.
    let seen: Vec<i64> = left.iter().map(|l| l.id).collect();
    let none = LinesAfter { seen: seen.clone(), kept: vec![] };
    assert_eq!(store.append_turns(g, &e4, &["d7-d5"], None, &none, 140).unwrap(), Append::Conflict);
    // Only the owner's lines are dropped by the owner.
    assert!(store.change_conditional_lines(g, b, &row.moves, &seen, &[], &seen, 141).unwrap());
    assert_eq!(lines(&*store).len(), 1, "b cannot drop a's line");
    assert!(store.change_conditional_lines(g, a, &row.moves, &seen, &[], &seen, 141).unwrap());
    assert!(lines(&*store).is_empty());
    // A takeback drops every line.
    assert!(
        store
            .change_conditional_lines(g, b, &row.moves, &[], &[turns(&["b1-c3", "g8-f6"])], &[], 150)
            .unwrap()
    );
    store.set_takeback_offer(g, Some(a)).unwrap();
    assert!(store.take_back(g, 3, 1, a, 160).unwrap());
    assert!(lines(&*store).is_empty(), "the game left them");
    // A finished game takes no lines.
    assert!(store.finish(g, "1-0", "resignation", 170).unwrap());
    let moves = store.game(g).unwrap().unwrap().moves;
    assert!(
        !store.change_conditional_lines(g, a, &moves, &[], &[turns(&["a7-a6", "a2-a3"])], &[], 180).unwrap()
    );
}

fn a_vacation_starts_within_the_allowance_once_and_ends_early(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let day = 86_400;
    let notice = NewNotice::text("local", "main", "a is on vacation", vec!["b".into()]);
    assert_eq!(
        store.start_vacation(a, 1000, 1000 + 3 * day, 0, 30 * day, &[notice]).unwrap(),
        VacationStart::Started
    );
    assert_eq!(
        store.start_vacation(a, 2000, 2000 + day, 0, 30 * day, &[]).unwrap(),
        VacationStart::AlreadyOn { until: 1000 + 3 * day }
    );
    assert_eq!(
        store.vacations(&[a, b], 0).unwrap(),
        [Vacation { player: a, start: 1000, end: 1000 + 3 * day }]
    );
    assert!(store.end_vacation(a, 1000 + day, &[]).unwrap());
    assert!(!store.end_vacation(a, 1000 + day + 5, &[]).unwrap(), "ended once");
    // One day used: 29 more fit, 30 do not.
    let now = 1000 + 2 * day;
    assert_eq!(
        store.start_vacation(a, now, now + 30 * day, 0, 30 * day, &[]).unwrap(),
        VacationStart::OverAllowance { used: day }
    );
    assert_eq!(
        store.start_vacation(a, now, now + 29 * day, 0, 30 * day, &[]).unwrap(),
        VacationStart::Started
    );
    assert_eq!(store.vacations(&[a], now + 29 * day).unwrap().len(), 0, "those over by then are left out");
    assert_eq!(store.vacations(&[b], 0).unwrap(), []);
    // The change's notice was stored with it.
    let held = store.outbox_claim(Some("local"), "h", 0, 10).unwrap();
    assert!(held.iter().any(|n| n.text == "a is on vacation"), "{held:?}");
}

fn a_note_is_kept_per_player_and_game_replaced_and_cleared(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    let h = new_game(&*store, a, b);
    assert_eq!(store.note(a, g).unwrap(), None);
    store.set_note(a, g, Some("his knight wants d5 — 騎士"), 10).unwrap();
    store.set_note(b, g, Some("Bob's own"), 11).unwrap();
    assert_eq!(store.note(a, g).unwrap().as_deref(), Some("his knight wants d5 — 騎士"));
    assert_eq!(store.note(b, g).unwrap().as_deref(), Some("Bob's own"), "each player has their own");
    assert_eq!(store.note(a, h).unwrap(), None, "and one per game");
    store.set_note(a, g, Some("trade queens"), 12).unwrap();
    assert_eq!(store.note(a, g).unwrap().as_deref(), Some("trade queens"), "replaced");
    store.set_note(a, g, None, 13).unwrap();
    assert_eq!(store.note(a, g).unwrap(), None, "cleared");
    assert_eq!(store.note(b, g).unwrap().as_deref(), Some("Bob's own"), "the other's stays");
    store.set_note(a, g, None, 14).unwrap();
}

fn spectators_are_added_once_and_taken_off(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    let d = store.player("l", "d", "Dan").unwrap().id;
    let g = new_game(&*store, a, b);
    assert!(store.watchers(g).unwrap().is_empty());
    assert!(store.watch(g, d).unwrap());
    assert!(store.watch(g, c).unwrap());
    assert!(!store.watch(g, c).unwrap(), "already watching");
    let mut watching = store.watchers(g).unwrap();
    watching.sort();
    let mut expected = vec![c, d];
    expected.sort();
    assert_eq!(watching, expected);
    assert!(store.unwatch(g, c).unwrap());
    assert!(!store.unwatch(g, c).unwrap(), "no longer watching");
    assert_eq!(store.watchers(g).unwrap(), vec![d]);
}

/// Of two processes writing the same player's digest for the same day, one does, and its notice
/// is stored with the mark (a direct-only notice); the next day it is due again.
fn a_digest_is_due_until_marked_and_marked_once_with_its_notice(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    store.set_setting(a, "digest", "on").unwrap();
    store.set_setting(b, "digest", "off").unwrap();
    store.set_setting(c, "ping", "dm").unwrap();
    assert_eq!(store.digests_due(500).unwrap(), vec![a]);
    let notice = NewNotice::direct("local", "main", "a", "Your daily digest");
    let barrier = Barrier::new(2);
    let racers: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let (barrier, notice) = (&barrier, notice.clone());
                scope.spawn(move || {
                    let store = db.open();
                    barrier.wait();
                    usize::from(store.mark_digest(a, 500, &[notice]).unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(racers, 1, "marked once");
    assert!(store.digests_due(500).unwrap().is_empty());
    assert_eq!(store.digests_due(501).unwrap(), vec![a], "due again the next day");
    let stored = store.outbox_claim(Some("local"), "me", 0, 10).unwrap();
    assert_eq!(stored.len(), 1, "one digest stored: {stored:?}");
    assert_eq!(stored[0].kind, tessera_core::outbox::NoticeKind::Direct);
    assert_eq!(
        (stored[0].text.as_str(), stored[0].notify.clone()),
        ("Your daily digest", vec!["a".to_string()])
    );
    assert!(store.mark_digest(a, 501, &[]).unwrap(), "a day with nothing waiting is marked with no notice");
    assert!(store.digests_due(501).unwrap().is_empty());
}

fn finished_games_are_listed_newest_first_filtered_and_paged(db: &dyn Db) {
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    let mut finished = Vec::new();
    for (i, (opponent, variant)) in
        [(b, "chess"), (c, "chess"), (b, "hans38"), (c, "chess")].into_iter().enumerate()
    {
        let g = store.create_game(&NewGame { variant, ..new_game_in("main", a, opponent) }).unwrap();
        assert!(store.finish(g, "1-0", "resignation", 200 + i as i64).unwrap());
        finished.push(g);
    }
    let running = new_game(&*store, a, b);
    let unrelated = new_game(&*store, b, c);
    assert!(store.finish(unrelated, "0-1", "resignation", 300).unwrap());
    let ids = |rows: Vec<tessera_core::model::GameRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let all = ids(store.finished_games_of(a, None, None, 0, 10).unwrap());
    assert_eq!(all, finished.iter().rev().copied().collect::<Vec<_>>(), "newest first, finished only");
    assert!(!all.contains(&running) && !all.contains(&unrelated));
    assert_eq!(
        ids(store.finished_games_of(a, Some(b), None, 0, 10).unwrap()),
        vec![finished[2], finished[0]]
    );
    assert_eq!(
        ids(store.finished_games_of(a, None, Some("chess"), 0, 10).unwrap()),
        vec![finished[3], finished[1], finished[0]]
    );
    assert_eq!(
        ids(store.finished_games_of(a, Some(c), Some("chess"), 0, 10).unwrap()),
        vec![finished[3], finished[1]]
    );
    assert_eq!(ids(store.finished_games_of(a, None, None, 0, 2).unwrap()), vec![finished[3], finished[2]]);
    assert_eq!(ids(store.finished_games_of(a, None, None, 2, 2).unwrap()), vec![finished[1], finished[0]]);
    assert!(store.finished_games_of(a, None, None, 4, 2).unwrap().is_empty());
    assert_eq!(store.finished_games_of(a, None, None, 0, 1).unwrap()[0].moves, Vec::<String>::new());
}

/// A game's thread is recorded once (of racing processes, exactly one), and a thread finds its
/// game on its platform only; a failed thread ('') is kept as tried and finds nothing.
fn a_games_thread_is_set_once_and_finds_the_game(db: &dyn Db) {
    const RACERS: usize = 4;
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    let other = new_game(&*store, a, b);
    assert_eq!(store.game(g).unwrap().unwrap().thread, None, "no thread until one is made");
    assert!(store.thread_game("local", "t-1").unwrap().is_none());
    let barrier = Barrier::new(RACERS);
    let won: Vec<bool> = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..RACERS)
            .map(|r| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let store = db.open();
                    barrier.wait();
                    store.set_game_thread(g, &format!("t-{r}")).unwrap()
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "one thread for the game: {won:?}");
    let winner = format!("t-{}", won.iter().position(|w| *w).unwrap());
    let row = store.game(g).unwrap().unwrap();
    assert_eq!(row.thread.as_deref(), Some(winner.as_str()));
    assert_eq!(row.thread(), Some(winner.as_str()));
    assert!(!store.set_game_thread(g, "t-late").unwrap(), "set once");
    assert_eq!(store.thread_game("local", &winner).unwrap().map(|r| r.id), Some(g));
    assert!(store.thread_game("discord", &winner).unwrap().is_none(), "per platform");
    // The thread is read with every game row (a channel's games, a player's).
    let here = store.channel_games("local", "main").unwrap();
    assert_eq!(here.iter().find(|r| r.id == g).unwrap().thread.as_deref(), Some(winner.as_str()));
    // A failed try: kept, so nothing tries again, and no thread to post in.
    assert!(store.set_game_thread(other, "").unwrap());
    let row = store.game(other).unwrap().unwrap();
    assert_eq!((row.thread.as_deref(), row.thread()), (Some(""), None));
    assert!(!store.set_game_thread(other, "t-9").unwrap());
    // A game that does not exist takes no thread.
    assert!(!store.set_game_thread(9999, "t-x").unwrap());
    // Finished, the game still finds its thread (a late word there is still about it).
    assert!(store.finish(g, "1-0", "resignation", T0).unwrap());
    assert_eq!(store.thread_game("local", &winner).unwrap().map(|r| r.id), Some(g));
}

/// A thing published has one live address (of racing publishers, every one gets the same); a
/// withdrawn address finds nothing, and publishing again gives a new one.
fn a_publication_has_one_live_address_until_withdrawn(db: &dyn Db) {
    const RACERS: usize = 4;
    let store = db.open();
    let (a, b) = two_players(&*store);
    let g = new_game(&*store, a, b);
    let what = Publication::Game(g);
    assert_eq!(store.address_of(what).unwrap(), None);
    assert_eq!(store.publication("nothing").unwrap(), None);
    assert!(!store.unpublish(what).unwrap(), "nothing to withdraw");
    let barrier = Barrier::new(RACERS);
    let got: Vec<String> = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..RACERS)
            .map(|r| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let store = db.open();
                    barrier.wait();
                    store.publish(what, &format!("token{r}"), a, T0).unwrap()
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert!(got.iter().all(|t| *t == got[0]), "one live address: {got:?}");
    assert!(got[0].starts_with("token"));
    assert_eq!(store.publication(&got[0]).unwrap(), Some(what));
    assert_eq!(store.address_of(what).unwrap().as_deref(), Some(got[0].as_str()));
    // A tournament with the same number is another thing.
    let t = Publication::Tournament(g);
    assert_eq!(store.publish(t, "tourney", b, T0).unwrap(), "tourney");
    assert_eq!(store.publication("tourney").unwrap(), Some(t));
    assert_eq!(store.publish(what, "again", a, T0).unwrap(), got[0], "published already");
    assert!(store.unpublish(what).unwrap());
    assert_eq!(store.publication(&got[0]).unwrap(), None, "a withdrawn address finds nothing");
    assert_eq!(store.address_of(what).unwrap(), None);
    assert_eq!(store.publish(what, "fresh", a, T0).unwrap(), "fresh", "a new address");
    assert_eq!(store.publication(&got[0]).unwrap(), None, "the old one stays dead");
    assert_eq!(store.publication("tourney").unwrap(), Some(t), "the tournament's untouched");
}

fn an_analysis_is_asked_once_within_its_bounds_and_finished_once_with_its_notice(db: &dyn Db) {
    use tessera_core::analysis::{Eval, PlyEval};
    use tessera_core::model::{AnalysisAsked, AnalysisBounds, NewAnalysis};
    let store = db.open();
    let (a, b) = two_players(&*store);
    let c = store.player("l", "c", "Carol").unwrap().id;
    let games: Vec<GameId> = (0..4).map(|_| new_game(&*store, a, b)).collect();
    let bounds = AnalysisBounds { per_requester: 2, overall: 3 };
    let ask = |game: GameId, requester: PlayerId, now: i64| {
        store
            .ask_analysis(&NewAnalysis { game, requester, platform: "local", channel: "side", now }, bounds)
            .unwrap()
    };
    assert_eq!(store.analysis(games[0]).unwrap(), None);
    assert_eq!(ask(games[0], a, 10), AnalysisAsked::Queued { place: 1 });
    assert_eq!(ask(games[1], a, 11), AnalysisAsked::Queued { place: 2 });
    assert_eq!(ask(games[2], a, 12), AnalysisAsked::RequesterFull(2));
    let AnalysisAsked::Exists(row) = ask(games[0], b, 13) else { panic!("the game has one") };
    assert_eq!(
        (row.requester, row.channel.as_str(), row.requested_at, row.finished_at),
        (a, "side", 10, None)
    );
    assert_eq!(ask(games[2], b, 14), AnalysisAsked::Queued { place: 3 });
    assert_eq!(ask(games[3], c, 15), AnalysisAsked::QueueFull(3));
    let waiting: Vec<GameId> = store.waiting_analyses().unwrap().iter().map(|r| r.game).collect();
    assert_eq!(waiting, games[..3]);

    let evals = vec![
        PlyEval { ply: 0, eval: Eval::Cp(25), best: Some("e4".into()), depth: 9 },
        PlyEval { ply: 1, eval: Eval::Mate(-3), best: Some("Qh4#".into()), depth: 12 },
        PlyEval { ply: 2, eval: Eval::Won(tessera_rules::Color::Black), best: None, depth: 0 },
    ];
    let notice = NewNotice {
        kind: tessera_core::outbox::NoticeKind::Analysis,
        subject: Some(games[0]),
        ..NewNotice::text("local", "side", "Analysis of game", vec!["a".into()])
    };
    assert!(store.analysis_evals(games[0]).unwrap().is_empty());
    assert!(store.finish_analysis(games[0], &evals, 50, std::slice::from_ref(&notice)).unwrap());
    assert!(
        !store.finish_analysis(games[0], &evals, 51, std::slice::from_ref(&notice)).unwrap(),
        "finished once"
    );
    assert!(!store.finish_analysis(games[3], &evals, 51, &[notice]).unwrap(), "never asked");
    assert_eq!(store.analysis_evals(games[0]).unwrap(), evals);
    assert_eq!(store.analysis(games[0]).unwrap().unwrap().finished_at, Some(50));
    assert!(store.analysis_evals(games[3]).unwrap().is_empty());
    let stored = store.outbox_claim(Some("local"), "me", 0, 10).unwrap();
    assert_eq!(stored.len(), 1, "one answer, stored with the evaluations: {stored:?}");
    assert_eq!(
        (stored[0].kind, stored[0].subject),
        (tessera_core::outbox::NoticeKind::Analysis, Some(games[0]))
    );
    // A done analysis no longer counts against the bounds.
    assert_eq!(store.waiting_analyses().unwrap().len(), 2);
    assert_eq!(ask(games[3], a, 60), AnalysisAsked::Queued { place: 3 });
    // Kept across connections.
    assert_eq!(db.open().analysis_evals(games[0]).unwrap(), evals);
}

fn racing_askers_never_pass_the_bounds(db: &dyn Db) {
    use tessera_core::model::{AnalysisAsked, AnalysisBounds, NewAnalysis};
    const RACERS: usize = 6;
    let store = db.open();
    let (a, b) = two_players(&*store);
    let games: Vec<GameId> = (0..RACERS).map(|_| new_game(&*store, a, b)).collect();
    let bounds = AnalysisBounds { per_requester: 2, overall: 50 };
    let barrier = Barrier::new(RACERS);
    let queued: usize = std::thread::scope(|scope| {
        let racers: Vec<_> = games
            .iter()
            .map(|&game| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let store = db.open();
                    barrier.wait();
                    let asked =
                        NewAnalysis { game, requester: a, platform: "local", channel: "main", now: T0 };
                    usize::from(matches!(
                        store.ask_analysis(&asked, bounds).unwrap(),
                        AnalysisAsked::Queued { .. }
                    ))
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).sum()
    });
    assert_eq!(queued, 2, "two of one player's requests, however they race");
    assert_eq!(store.waiting_analyses().unwrap().len(), 2);
}
