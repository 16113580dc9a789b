//! `tessera migrate`: a community filled through the real service on SQLite, copied into a real
//! PostgreSQL server (a throwaway cluster, `support/postgres.rs`; skipped, saying so, when
//! PostgreSQL is not installed), then read back through the store: the same games, moves,
//! tournaments, ratings and settings; fresh ids after the copied ones; a second run refused; a
//! forced run idempotent; a failure anywhere leaving the target as it was. And the command itself.

use crate::postgres;
use crate::talk;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use tessera_core::model::NewGame;
use tessera_core::model::PairingKind;
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::PgStore;
use tessera_store::SqliteStore;
use tessera_store::database::Database;
use tessera_store::migrate::{Report, TargetNotEmpty, migrate};

use talk::{PLATFORM, T0};

/// Every table of the schema but the migrations' and the leases', in the order the copy takes them
/// (each after those it refers to).
const TABLES: [&str; 21] = [
    "channel_settings",
    "handled_messages",
    "outbox",
    "players",
    "challenges",
    "digests_sent",
    "player_settings",
    "publications",
    "vacations",
    "variant_definitions",
    "games",
    "analyses",
    "analysis_plies",
    "conditional_lines",
    "game_notes",
    "game_watchers",
    "moves",
    "pending_turns",
    "tournaments",
    "tournament_pairings",
    "tournament_players",
];

/// What `who` writes in `channel`; the replies' text, which must not be empty.
fn says(service: &Service<SqliteStore>, channel: &str, who: &str, text: &str) -> String {
    let replies = talk::say_at(service, channel, who, false, text, T0);
    assert!(!replies.is_empty(), "{who}: {text} got no reply");
    talk::text(&replies)
}

/// The game a reply starts ("Game #12 begins").
fn game_id(reply: &str) -> i64 {
    let after = reply.split("Game #").nth(1).unwrap_or_else(|| panic!("no game in: {reply}"));
    after.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

/// The games of a small community, by what they show.
#[derive(Debug)]
struct Community {
    /// Alice beat Bob in a rated game of three moves.
    finished: i64,
    /// Carol and Dave's game on a clock, a draw offered.
    running: i64,
    /// Alice's turn there waits for her confirmation.
    postal: i64,
    /// Alice against the bot itself.
    practice: i64,
    /// Bob and Carol's game of a community variant, its definition stored with it.
    community: i64,
}

/// Players, an open challenge, a finished rated game with moves, a running game on a clock with a
/// draw offered, a turn awaiting confirmation, a rated Swiss with round 1 paired and one of its
/// games decided, players' and a channel's settings, and a practice game against the bot: all
/// through the service, as chat makes them.
fn fill(path: &Path) -> Community {
    let service = Service::new(SqliteStore::open(path).unwrap());
    service.set_bot_account(PLATFORM, "tessera");
    assert!(says(&service, "lobby", "alice", "!t challenge @carol chess").contains("challenges carol"));

    let reply = says(&service, "rated", "alice", "!t challenge @bob chess white rated");
    assert!(reply.contains("rated"), "{reply}");
    let finished = game_id(&says(&service, "rated", "bob", "!t accept"));
    for (who, turn) in [("alice", "e4"), ("bob", "e5"), ("alice", "Nf3")] {
        assert!(says(&service, "rated", who, turn).contains(" played "));
    }
    says(&service, "rated", "bob", "!t resign");

    says(&service, "clock", "carol", "!t challenge @dave chess white 3d");
    let running = game_id(&says(&service, "clock", "dave", "!t accept"));
    says(&service, "clock", "carol", "d4");
    says(&service, "clock", "dave", "d5");
    assert!(says(&service, "clock", "carol", "!t draw").contains("offers a draw"));

    says(&service, "postal", "alice", "!t challenge @bob hans38-postal white");
    let postal = game_id(&says(&service, "postal", "bob", "!t accept"));
    assert!(says(&service, "postal", "alice", "@@e4").starts_with("Not played yet"));

    let created = says(&service, "club", "erin", "!t tournament create swiss chess rounds 3 name Spring");
    assert!(created.contains("Spring"), "{created}");
    for p in ["alice", "bob", "carol", "dave", "erin"] {
        says(&service, "club", p, "!t tournament join");
    }
    assert!(says(&service, "club", "erin", "!t tournament start").contains("round 1 of 3 is paired"));
    let board =
        service.store().pairings(1).unwrap().into_iter().find(|p| p.kind == PairingKind::Game).unwrap();
    let loser = service.store().player_by_id(board.black.unwrap()).unwrap().unwrap().user_id;
    says(&service, "club", &loser, &format!("!t resign #{}", board.game.unwrap()));
    // Pages on the web: their addresses move with the community.
    assert!(says(&service, "club", "erin", "!t tournament publish").contains("/t/"));
    assert!(says(&service, "rated", "alice", &format!("!t share #{finished}")).contains("/g/"));

    says(&service, "rated", "alice", "!t settings confirm off");
    says(&service, "rated", "bob", "!t settings board mine");
    let saved = talk::text(&talk::say_at(&service, "club", "mod", true, "!t channel gifs off", T0));
    assert!(saved.contains("gifs off"), "{saved}");

    let practice = game_id(&says(&service, "practice", "alice", "!t challenge @tessera chess white level 1"));
    says(&service, "practice", "alice", "e4");

    let (_, hans38) = tessera_rules::variant_file::BUILT_IN_FILES[tessera_rules::Variant::HANS38.index()];
    let five = hans38
        .replace("name = \"hans38\"", "name = \"migrate-five\"")
        .replace("aliases = [\"hans38-chess\", \"limited-squares\"]", "aliases = []")
        .replace("reserve = 3", "reserve = 5")
        .replace("hand:3/3", "hand:5/5");
    tessera_rules::Variant::register_file(&five).unwrap();
    says(&service, "five", "bob", "!t challenge @carol migrate-five white");
    let community = game_id(&says(&service, "five", "carol", "!t accept"));
    assert!(says(&service, "five", "bob", "@@e4").contains(" played "));
    Community { finished, running, postal, practice, community }
}

/// Rows in a table of the SQLite file.
fn count(path: &Path, table: &str) -> u64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

/// Rows per table in the SQLite file, as a migration should report them.
fn sqlite_counts(path: &Path) -> Vec<(String, u64)> {
    TABLES.iter().map(|t| (t.to_string(), count(path, t))).collect()
}

fn counts(report: &Report) -> Vec<(String, u64)> {
    report.tables.iter().map(|t| (t.table.clone(), t.rows)).collect()
}

/// Every row of every table and every sequence's state, as text: what "unchanged" compares.
fn dump(address: &str) -> BTreeMap<String, Vec<String>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(address, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let mut out = BTreeMap::new();
        let tables = client
            .query("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()", &[])
            .await
            .unwrap();
        for t in tables {
            let t: String = t.get(0);
            let rows = client.query(&format!("SELECT x::text FROM {t} x ORDER BY 1"), &[]).await.unwrap();
            out.insert(t, rows.iter().map(|r| r.get(0)).collect());
        }
        let sequences = client
            .query("SELECT sequencename::text FROM pg_sequences WHERE schemaname = current_schema()", &[])
            .await
            .unwrap();
        for s in sequences {
            let s: String = s.get(0);
            let state =
                client.query_one(&format!("SELECT last_value, is_called FROM {s}"), &[]).await.unwrap();
            let state = format!("{} {}", state.get::<_, i64>(0), state.get::<_, bool>(1));
            out.insert(format!("sequence {s}"), vec![state]);
        }
        out
    })
}

/// The largest of the ids in use from 1 on: the one before the first free one.
fn ids_in_use(store: &dyn Store, exists: impl Fn(&dyn Store, i64) -> bool) -> i64 {
    (1..).find(|&id| !exists(store, id)).unwrap() - 1
}

/// What the two stores say, read through the store's trait and the service: equal, and not empty.
fn same_through_the_store(path: &Path, address: &str, c: &Community) {
    let (sqlite, pg) = (SqliteStore::open(path).unwrap(), PgStore::connect(address).unwrap());
    let (sqlite, pg) = (&sqlite, &pg);
    let games = ids_in_use(sqlite, |s, id| s.game(id).unwrap().is_some());
    assert!(games >= 7, "{games} games");
    for id in 1..=games + 1 {
        assert_eq!(pg.game(id).unwrap(), sqlite.game(id).unwrap(), "game {id}");
    }
    let finished = pg.game(c.finished).unwrap().unwrap();
    assert_eq!((finished.moves.len(), finished.result.as_deref(), finished.rated), (3, Some("1-0"), true));
    let running = pg.game(c.running).unwrap().unwrap();
    assert!(running.draw_offer.is_some() && running.days_per_move == Some(3) && running.result.is_none());
    assert!(pg.game(c.practice).unwrap().unwrap().bot.is_some_and(|b| b.level == 1));
    let key =
        pg.game(c.community).unwrap().unwrap().variant_key.expect("a community game keeps its definition");
    assert!(key.starts_with("migrate-five@"), "{key}");
    let text = pg.variant_definition(&key).unwrap().expect("the definition moved with the game");
    assert_eq!(Some(text), sqlite.variant_definition(&key).unwrap());
    let players = ids_in_use(sqlite, |s, id| s.player_by_id(id).unwrap().is_some());
    for id in 1..=players + 1 {
        assert_eq!(pg.player_by_id(id).unwrap(), sqlite.player_by_id(id).unwrap(), "player {id}");
    }
    let alice = sqlite.player(PLATFORM, "alice", "alice").unwrap().id;
    let bob = sqlite.player(PLATFORM, "bob", "bob").unwrap().id;
    let open = sqlite.open_challenges(PLATFORM, "lobby", alice).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(pg.open_challenges(PLATFORM, "lobby", alice).unwrap(), open);
    assert_eq!(pg.bot_games().unwrap(), sqlite.bot_games().unwrap());
    assert_eq!(pg.clocked_games().unwrap(), sqlite.clocked_games().unwrap());
    let pending = sqlite.pending_turn(alice, c.postal).unwrap();
    assert!(pending.is_some());
    assert_eq!(pg.pending_turn(alice, c.postal).unwrap(), pending);
    assert_eq!(pg.setting(alice, "confirm").unwrap().as_deref(), Some("off"));
    assert_eq!(pg.setting(bob, "board").unwrap().as_deref(), Some("mine"));
    assert_eq!(pg.channel_setting(PLATFORM, "club", "gifs").unwrap().as_deref(), Some("off"));

    let t = sqlite.tournament(1).unwrap().unwrap();
    assert_eq!(t.current_round, 1);
    assert_eq!(pg.tournament(1).unwrap().unwrap(), t);
    assert_eq!(pg.entrants(1).unwrap(), sqlite.entrants(1).unwrap());
    assert_eq!(pg.pairings(1).unwrap(), sqlite.pairings(1).unwrap());
    assert_eq!(pg.finished_games(1).unwrap().len(), 1);
    assert_eq!(pg.finished_games(1).unwrap(), sqlite.finished_games(1).unwrap());
    let rated = sqlite.rated_results().unwrap();
    assert_eq!(rated.len(), 2, "the rated challenge and the decided tournament game");
    assert_eq!(pg.rated_results().unwrap(), rated);

    // What players see: standings and ratings, computed on each store from what it holds.
    let on_sqlite = Service::new(SqliteStore::open(path).unwrap());
    let on_pg = Service::new(PgStore::connect(address).unwrap());
    for (channel, ask) in [
        ("club", "!t tournament standings"),
        ("rated", "!t rating @alice"),
        ("rated", "!t rating @bob chess"),
        ("rated", "!t leaderboard chess"),
        ("rated", "!t profile @alice"),
    ] {
        let a = talk::text(&talk::say_at(&on_sqlite, channel, "carol", false, ask, T0));
        let b = talk::text(&talk::say_at(&on_pg, channel, "carol", false, ask, T0));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{ask}");
    }
}

/// Every case on one server: the cluster's directory is the process's, so one at a time.
#[test]
fn on_postgres() {
    let Some(cluster) = postgres::Cluster::start_or_skip("migrate::on_postgres") else { return };
    for (name, case) in [
        (
            "a_community_moves_whole_and_a_second_run_is_refused_or_idempotent",
            whole as fn(&postgres::Cluster),
        ),
        ("a_copy_that_fails_anywhere_leaves_the_target_as_it_was", fails),
        ("the_command_copies_the_configured_database_and_says_so_in_json", command),
        ("an_old_database_is_brought_up_to_date_first", old_schema),
    ] {
        case(&cluster);
        println!("postgres: {name} ... ok");
    }
}

fn whole(cluster: &postgres::Cluster) {
    let path = talk::temp_db("migrate", "whole");
    let community = fill(&path);
    let address = cluster.database("whole");
    let target = Database::parse(&address);

    // A lease on each side: which process does the clock's work is each database's own business.
    let sqlite = SqliteStore::open(&path).unwrap();
    assert!(sqlite.take_lease("clock:test", "sqlite-host:1:1", None, T0 * 1000, 60_000).unwrap());
    let pg = PgStore::connect(&address).unwrap();
    assert!(pg.take_lease("clock:test", "pg-host:2:2", None, T0 * 1000, 60_000).unwrap());

    let report = migrate(&path, &target, false).unwrap();
    assert_eq!(counts(&report), sqlite_counts(&path), "every table, each after those it refers to");
    assert_eq!(pg.lease("clock:test").unwrap().unwrap().holder, "pg-host:2:2");
    assert!(report.tables.iter().all(|t| t.other_rows == 0));
    assert_eq!((report.from.as_str(), report.to.as_str()), (path.to_str().unwrap(), address.as_str()));

    same_through_the_store(&path, &address, &community);

    // Again, unforced: refused, naming what is there, and nothing changes.
    let before = dump(&address);
    let refused = migrate(&path, &target, false).unwrap_err();
    let not_empty = refused.downcast_ref::<TargetNotEmpty>().unwrap_or_else(|| panic!("{refused:#}"));
    assert!(not_empty.tables.contains(&("games".to_string(), 7)), "{not_empty:?}");
    assert!(refused.to_string().contains("--force"), "{refused}");
    assert_eq!(dump(&address), before);

    // Forced: the same rows, the same target.
    let again = migrate(&path, &target, true).unwrap();
    assert_eq!(again, report);
    assert_eq!(dump(&address), before, "a forced second run changes nothing");

    // New rows on PostgreSQL get ids after the copied ones. (Players' ids move on anyway: each
    // message upserts its author, and an upsert takes a number even when the player exists.)
    let games = ids_in_use(&sqlite, |s, id| s.game(id).unwrap().is_some());
    let players = ids_in_use(&sqlite, |s, id| s.player_by_id(id).unwrap().is_some());
    let newcomer = pg.player(PLATFORM, "newcomer", "newcomer").unwrap().id;
    assert!(newcomer > players, "{newcomer}");
    let game = NewGame {
        platform: PLATFORM,
        channel: "after",
        variant: "chess",
        start_fen: "start",
        white: newcomer,
        black: 1,
        days_per_move: None,
        rated: false,
        now: T0,
        bot: None,
        weekends_off: false,
        definition: None,
    };
    assert_eq!(pg.create_game(&game).unwrap(), games + 1);
    let mut challenge = pg.open_challenges(PLATFORM, "lobby", 1).unwrap().remove(0);
    challenge.channel = "after".into();
    assert_eq!(pg.create_challenge(&challenge).unwrap(), count(&path, "challenges") as i64 + 1);
    let on_pg = Service::new(PgStore::connect(&address).unwrap());
    let created =
        talk::text(&talk::say_in(&on_pg, "club2", "erin", "!t tournament create swiss chess rounds 2"));
    assert!(created.contains("Tournament t2"), "{created}");

    // The SQLite side moves on (a rename, a move); a forced run brings that over and keeps the
    // rows only PostgreSQL has, counting them.
    sqlite.player(PLATFORM, "alice", "Alice Liddell").unwrap();
    let service = Service::new(SqliteStore::open(&path).unwrap());
    assert!(says(&service, "clock", "carol", "Nf3").contains(" played "));
    let third = migrate(&path, &target, true).unwrap();
    let other: BTreeMap<&str, u64> = third.tables.iter().map(|t| (t.table.as_str(), t.other_rows)).collect();
    let other = (other["players"], other["games"], other["challenges"], other["tournaments"], other["moves"]);
    assert_eq!(other, (1, 1, 1, 1, 0));
    assert_eq!(counts(&third), sqlite_counts(&path));
    assert_eq!(pg.game(community.running).unwrap(), sqlite.game(community.running).unwrap());
    assert_eq!(pg.game(community.running).unwrap().unwrap().moves.len(), 3);
    assert_eq!(pg.player_by_id(1).unwrap(), sqlite.player_by_id(1).unwrap());
    assert_eq!(pg.player_by_id(newcomer).unwrap().unwrap().user_id, "newcomer");
    assert_eq!(pg.create_game(&game).unwrap(), games + 2, "still past every id, the target's own too");
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

fn fails(cluster: &postgres::Cluster) {
    let path = talk::temp_db("migrate", "fails");
    fill(&path);
    let address = cluster.database("fails");
    let target = Database::parse(&address);
    migrate(&path, &target, false).unwrap();
    let before = dump(&address);
    let sqlite = SqliteStore::open(&path).unwrap();
    let alice = sqlite.player(PLATFORM, "alice", "alice").unwrap().id;
    // Changed first (players are copied before games), so a rollback is what keeps it out.
    sqlite.player(PLATFORM, "alice", "Alice Liddell").unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();

    // A value SQLite holds that PostgreSQL's column cannot: named by table, row and column.
    raw.execute("UPDATE games SET rated = 7 WHERE id = 2", []).unwrap();
    let e = format!("{:#}", migrate(&path, &target, true).unwrap_err());
    assert!(e.contains("nothing was copied") && e.contains("the games row with id 2, column rated"), "{e}");
    assert!(e.contains("the integer 7") && e.contains("boolean"), "{e}");
    assert_eq!(dump(&address), before);
    raw.execute("UPDATE games SET rated = 0 WHERE id = 2", []).unwrap();

    // A row PostgreSQL refuses (a move of a game that does not exist), after other tables were
    // written.
    raw.pragma_update(None, "foreign_keys", "OFF").unwrap();
    raw.execute("INSERT INTO moves (game_id, ply, text, played_at) VALUES (999, 1, 'e4', 0)", []).unwrap();
    let e = format!("{:#}", migrate(&path, &target, true).unwrap_err());
    assert!(e.contains("copying moves") && e.contains("999"), "{e}");
    assert_eq!(dump(&address), before);
    raw.execute("DELETE FROM moves WHERE game_id = 999", []).unwrap();
    let pg = PgStore::connect(&address).unwrap();
    assert_eq!(pg.player_by_id(alice).unwrap().unwrap().name, "alice");

    // A target whose own rows clash with the copy's (another player holds Alice's account).
    let other = cluster.database("clash");
    let clash = PgStore::connect(&other).unwrap();
    for n in 0..alice {
        clash.player(PLATFORM, &format!("someone{n}"), "someone").unwrap();
    }
    clash.player(PLATFORM, "alice", "alice").unwrap();
    let before = dump(&other);
    let e = migrate(&path, &Database::parse(&other), false).unwrap_err();
    assert!(e.is::<TargetNotEmpty>(), "{e:#}");
    let e = format!("{:#}", migrate(&path, &Database::parse(&other), true).unwrap_err());
    assert!(e.contains("copying players") && e.contains("duplicate key"), "{e}");
    assert_eq!(dump(&other), before);

    // And a server that is not there: a short error, no password.
    let e = format!(
        "{:#}",
        migrate(&path, &Database::parse("postgres://u:hunter2@127.0.0.1:1/db"), false).unwrap_err()
    );
    assert!(e.contains("postgres://u@127.0.0.1:1/db") && !e.contains("hunter2"), "{e}");
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// A file the bot left at schema version 3 (before practice games) is migrated by opening it,
/// then copied: its games read back with no bot opponent.
fn old_schema(cluster: &postgres::Cluster) {
    let path = talk::temp_db("migrate", "old");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(concat!(
        include_str!("../../store/migrations/001_init.sql"),
        include_str!("../../store/migrations/002_tournaments_ratings.sql"),
        include_str!("../../store/migrations/003_settings.sql"),
        "CREATE TABLE schema_version (version INTEGER NOT NULL);
         INSERT INTO schema_version VALUES (1), (2), (3);
         INSERT INTO players (id, platform, user_id, name) VALUES (7, 'test', 'ann', 'Ann'), (9, 'test', 'ben', 'Ben');
         INSERT INTO games (id, platform, channel, variant, start_fen, white, black, created_at, last_move_at, rated)
             VALUES (41, 'test', 'room', 'chess', 'start', 7, 9, 100, 200, 1);
         INSERT INTO moves (game_id, ply, text, played_at) VALUES (41, 1, 'e2-e4', 200);"
    ))
    .unwrap();
    drop(conn);
    let address = cluster.database("old");
    let report = migrate(&path, &Database::parse(&address), false).unwrap();
    assert_eq!(counts(&report), sqlite_counts(&path));
    let pg = PgStore::connect(&address).unwrap();
    let game = pg.game(41).unwrap().unwrap();
    assert_eq!((game.white, game.black, game.rated, game.bot), (7, 9, true, None));
    assert_eq!(game.moves, ["e2-e4"]);
    assert_eq!(pg.game(41).unwrap(), SqliteStore::open(&path).unwrap().game(41).unwrap());
    assert_eq!(pg.player("test", "cy", "Cy").unwrap().id, 10, "after the largest id, not the count");
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// The `tessera` binary with `args`, the environment's own Tessera settings left out. Whatever
/// it says, the test addresses' password is never in it.
fn tessera(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    for key in ["TESSERA_DATABASE", "TESSERA_DATABASE_FILE", "TESSERA_CONFIG", "TESSERA_DATA_DIR"] {
        command.env_remove(key);
    }
    let out = command.args(args).envs(env.iter().copied()).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(!said.contains("hunter2"), "{args:?} showed the password: {said}");
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), stderr(out)))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn command(cluster: &postgres::Cluster) {
    let dir = talk::temp_db("migrate", "cli").parent().unwrap().to_path_buf();
    let file = dir.join("tessera.sqlite");
    fill(&file);
    let address = cluster.database("cli");
    // The test server trusts everyone: the password is only there to be kept out of sight.
    let secret = address.replace("tessera@", "tessera:hunter2@");
    let data_dir = dir.to_str().unwrap();

    let out = tessera(&["--data-dir", data_dir, "migrate", "--to", &secret, "--json"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["from"], file.to_str().unwrap());
    assert_eq!(v["to"], address.as_str());
    assert_eq!(v["verified"], true);
    let tables: Vec<(String, u64)> = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["table"].as_str().unwrap().to_string(), t["rows"].as_u64().unwrap()))
        .collect();
    assert_eq!(tables, sqlite_counts(&file));
    let pg = PgStore::connect(&address).unwrap();
    let sqlite = SqliteStore::open(&file).unwrap();
    assert_eq!(pg.game(1).unwrap(), sqlite.game(1).unwrap());
    assert!(pg.game(1).unwrap().is_some());

    // Again: refused, exit 1, saying what would do.
    let out = tessera(&["--data-dir", data_dir, "migrate", "--to", &secret, "--json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let refused = json(&out);
    assert_eq!(refused["verified"], false);
    assert!(refused["error"].as_str().unwrap().contains("already holds rows"), "{refused}");
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));

    // Forced, with the address from a file and the source named: the same copy, told as text.
    let address_file = dir.join("address");
    std::fs::write(&address_file, format!("{secret}\n")).unwrap();
    let from = file.to_str().unwrap();
    let to_file = address_file.to_str().unwrap();
    let out = tessera(&["migrate", "--from", from, "--to-file", to_file, "--force", "--json"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["tables"], v["tables"]);
    let out = tessera(&["migrate", "--from", from, "--to-file", to_file, "--force"], &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success() && text.contains("Verified"), "{text}{}", stderr(&out));
    assert!(text.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["games", "7"]), "{text}");

    // The configured database already PostgreSQL and no --from: refused.
    let out =
        tessera(&["--data-dir", data_dir, "migrate", "--to", &secret], &[("TESSERA_DATABASE", &secret)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("already PostgreSQL") && stderr(&out).contains("--from"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_command_refuses_bad_input_with_a_short_message() {
    let dir = talk::temp_db("migrate", "bad").parent().unwrap().to_path_buf();
    let missing = dir.join("nothing.sqlite");
    let missing = missing.to_str().unwrap();
    for (args, says) in [
        (
            vec!["migrate", "--from", missing, "--to", "postgres://u:hunter2@127.0.0.1:1/db"],
            "no SQLite database at",
        ),
        (
            vec!["migrate", "--from", missing, "--to", "mysql://u:hunter2@host/db"],
            "--to takes a PostgreSQL address",
        ),
        (vec!["migrate", "--from", missing, "--to-file", missing], "reading the address from"),
    ] {
        let out = tessera(&args, &[]);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(says) && !err.contains("panicked"), "{args:?}: {err}");
        assert!(err.lines().count() <= 2, "{err}");
    }
    // Missing --to is the argument parser's to say.
    let out = tessera(&["migrate", "--from", missing], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--to"), "{}", stderr(&out));
    assert!(!Path::new(missing).exists(), "nothing was made at the missing path");
    std::fs::remove_dir_all(&dir).ok();
}
