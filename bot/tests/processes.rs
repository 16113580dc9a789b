//! Several processes on one database (issue 17): the clock's reminders and losses on time happen
//! once across processes and pass to another when the holder dies; a second process for one
//! Matrix account or one Discord shard refuses to start (a restart after `kill -9` takes its
//! account back once the dead process's lease is overdue, and SIGTERM gives it back); and `kill -9` of one of two processes playing games leaves every acknowledged move
//! stored, the other carrying on. Each on SQLite (one file, several connections) and on
//! PostgreSQL (a throwaway server, `support/postgres.rs`; skipped, saying so, when PostgreSQL is
//! not installed and `TESSERA_REQUIRE_POSTGRES` is not 1).

#[path = "support/load.rs"]
mod load;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/talk.rs"]
mod talk;

use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use tessera_bot::clock::Clock;
use tessera_bot::config::Shards;
use tessera_bot::lease::Standing;
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_store::AnyStore;
use tessera_store::database::Database;

use talk::{PLATFORM, T0, say_at};

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

fn sqlite(case: &str) -> Database {
    Database::Sqlite(talk::temp_db("processes", case))
}

/// What a database address is for a child process.
fn address(db: &Database) -> String {
    match db {
        Database::Sqlite(path) => path.display().to_string(),
        Database::Postgres(address) => address.expose().to_string(),
    }
}

postgres::on_both_databases! {
    Database, sqlite, |address: String| Database::parse(&address);
    clocks_of_two_processes_act_once_and_hand_over_when_one_dies,
    one_process_per_matrix_account_and_per_discord_shard,
    a_second_process_for_the_same_matrix_account_refuses_to_start,
    kill_nine_of_one_of_two_processes_loses_no_acknowledged_move,
}

/// A process of the bot: its own service and connection, its clock serving the test platform.
struct Process {
    service: Arc<Service<AnyStore>>,
    clock: Clock,
    /// Kept open so notices can be handed over; they are counted from `tick`'s return.
    _inbox: tessera_bot::router::Inbox,
}

impl Process {
    fn start(db: &Database, lease: Duration) -> Process {
        let service = Arc::new(Service::new(tessera_store::open(db).unwrap()));
        let mut clock = Clock::new().lease_for(lease);
        let _inbox = clock.serve(PLATFORM);
        Process { service, clock, _inbox }
    }

    fn tick(&self, now: i64) -> usize {
        self.clock.tick(&self.service, now)
    }
}

/// Both processes tick at the same moment; the notices each handed over.
fn tick_together(a: &Process, b: &Process, now: i64) -> [usize; 2] {
    let barrier = Barrier::new(2);
    let run = |p: &Process| {
        barrier.wait();
        p.tick(now)
    };
    std::thread::scope(|scope| {
        let (x, y) = (scope.spawn(|| run(a)), scope.spawn(|| run(b)));
        [x.join().unwrap(), y.join().unwrap()]
    })
}

fn clocks_of_two_processes_act_once_and_hand_over_when_one_dies(db: &Database) {
    const LEASE: Duration = Duration::from_secs(6);
    let a = Process::start(db, LEASE);
    let b = Process::start(db, LEASE);
    say_at(&a.service, "one", "alice", false, "!t challenge @bob chess white 1d", T0);
    say_at(&a.service, "one", "bob", false, "!t accept", T0);
    // Half a day before the deadline: one reminder, from one of them.
    let reminded = tick_together(&a, &b, T0 + 13 * HOUR);
    assert_eq!(reminded.iter().sum::<usize>(), 1, "one reminder: {reminded:?}");
    // Past it: one loss on time, from the same process (it holds the clock).
    let lost = tick_together(&a, &b, T0 + 2 * DAY);
    assert_eq!(lost.iter().sum::<usize>(), 1, "one loss on time: {lost:?}");
    assert_eq!(reminded.iter().position(|&n| n == 1), lost.iter().position(|&n| n == 1));
    let game = a.service.store().last_channel_game(PLATFORM, "one").unwrap().unwrap();
    assert_eq!((game.result.as_deref(), game.result_reason.as_deref()), (Some("0-1"), Some("time")));

    // The holder dies (no goodbye); a new game's clock runs out meanwhile.
    let (holder, other) = if reminded[0] == 1 { (a, b) } else { (b, a) };
    say_at(&other.service, "two", "carol", false, "!t challenge @dave chess white 1d", T0 + 2 * DAY);
    say_at(&other.service, "two", "dave", false, "!t accept", T0 + 2 * DAY);
    drop(holder);
    let died = Instant::now();
    assert_eq!(other.tick(T0 + 5 * DAY), 0, "the dead holder's lease still runs");
    std::thread::sleep(LEASE.saturating_sub(died.elapsed()) + Duration::from_millis(200));
    assert_eq!(other.tick(T0 + 5 * DAY), 1, "its lease ran out: the other took the clock over");
    let game = other.service.store().last_channel_game(PLATFORM, "two").unwrap().unwrap();
    assert_eq!(game.result_reason.as_deref(), Some("time"));
    assert_eq!(other.service.store().lease("clock:test").unwrap().unwrap().generation, 2);
}

fn one_process_per_matrix_account_and_per_discord_shard(db: &Database) {
    let service = Arc::new(Service::new(tessera_store::open(db).unwrap()));
    let shards = |s: &str| {
        let Ok(Shards::Range { first, last, total }) = s.parse() else { panic!("{s}") };
        tessera_bot::discord::shard_leases(first, last, total)
            .into_iter()
            .map(|n| (n, format!("Discord {s}")))
            .collect()
    };
    let first = Standing::take(service.clone(), shards("0-3/8")).unwrap();
    // Shards of another total would overlap these: refused, naming the total to give.
    let other_total = tessera_bot::discord::check_shard_total(service.store(), 4).unwrap_err().to_string();
    assert!(other_total.contains("FIRST-LAST/8"), "{other_total}");
    tessera_bot::discord::check_shard_total(service.store(), 8).unwrap();
    let overlap = Standing::take(service.clone(), shards("3-5/8")).unwrap_err().to_string();
    assert!(overlap.contains("Discord 3-5/8") && overlap.contains(first.holder()), "{overlap}");
    let last = Standing::take(service.clone(), shards("6-7/8")).unwrap();
    // Shards 4 and 5 are taken on the way to 6, which is busy: the refusal gives them back.
    assert!(Standing::take(service.clone(), shards("4-6/8")).is_err());
    let middle = Standing::take(service.clone(), shards("4-5/8")).unwrap();
    // One process per Matrix account, however its user was written.
    let matrix = |user: &str| tessera_bot::config::MatrixConfig {
        homeserver: "https://matrix.example.org:8448/".into(),
        user: user.into(),
        password: Default::default(),
        store_dir: Default::default(),
        store_passphrase: None,
        invites_from: Default::default(),
    };
    let account = tessera_bot::matrix::account_lease(&matrix("@tessera:matrix.example.org"));
    assert_eq!(account, tessera_bot::matrix::account_lease(&matrix("tessera")));
    let bot = Standing::take(service.clone(), vec![(account.clone(), "the Matrix account".into())]).unwrap();
    assert!(Standing::take(service.clone(), vec![(account, "the Matrix account".into())]).is_err());
    // Given back when a process stops: a new one takes everything at once.
    drop((first, last, middle, bot));
    drop(Standing::take(service.clone(), shards("0-7/8")).unwrap());
}

/// A homeserver that accepts connections and never answers: a process logging in waits there,
/// holding its lease.
fn silent_homeserver() -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        listener.set_nonblocking(true).unwrap();
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until {
            match listener.accept() {
                Ok((stream, _)) => open.push(stream),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    });
    (address, held)
}

fn bot_process(db: &Database, data: &std::path::Path, homeserver: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TESSERA_DATA_DIR", data)
        .env("TESSERA_DATABASE", address(db))
        .env("TESSERA_MATRIX_HOMESERVER", homeserver)
        .env("TESSERA_MATRIX_USER", "@tessera:example.org")
        .env("TESSERA_MATRIX_PASSWORD", "not-a-real-password")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for_holder(store: &dyn Store, name: &str, not: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(lease) = store.lease(name).unwrap()
            && Some(lease.holder.as_str()) != not
        {
            return lease.holder;
        }
        assert!(Instant::now() < deadline, "nobody took {name}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn a_second_process_for_the_same_matrix_account_refuses_to_start(db: &Database) {
    const LEASE: &str = "matrix:@tessera:example.org";
    let (homeserver, _held) = silent_homeserver();
    // One directory per database: the SQLite and PostgreSQL runs of this case overlap.
    let kind = if matches!(db, Database::Sqlite(_)) { "sqlite" } else { "postgres" };
    let tmp = std::env::temp_dir().join(format!("tessera-processes-matrix-{kind}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let store = tessera_store::open(db).unwrap();
    let mut first = bot_process(db, &tmp.join("first"), &homeserver);
    let holder = wait_for_holder(&store, LEASE, None);
    assert!(holder.contains(&format!(":{}:", first.id())), "{holder}");
    // The second, with a data directory of its own (another machine, say), refuses at once.
    let second = bot_process(db, &tmp.join("second"), &homeserver).wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "the second process must not run: {said}");
    assert!(said.contains("the Matrix account @tessera:example.org is already run by"), "{said}");
    assert!(!said.contains("not-a-real-password"), "no secret is printed");
    assert_eq!(store.lease(LEASE).unwrap().unwrap().holder, holder, "the first keeps it");
    // The first is killed without a word; its restart on this machine takes the lease as soon as
    // the dead holder is overdue on its renewals.
    first.kill().unwrap();
    first.wait().unwrap();
    let mut third = bot_process(db, &tmp.join("first"), &homeserver);
    let took = wait_for_holder(&store, LEASE, Some(&holder));
    assert!(took.contains(&format!(":{}:", third.id())), "{took}");
    assert!(third.try_wait().unwrap().is_none(), "the restart runs");
    // Stopped as a supervisor stops it: it gives the account back on its way out.
    let term = Command::new("kill").args(["-TERM", &third.id().to_string()]).status().unwrap();
    assert!(term.success());
    let stopped = third.wait_with_output().unwrap();
    assert!(stopped.status.success(), "{}", String::from_utf8_lossy(&stopped.stderr));
    assert_eq!(store.lease(LEASE).unwrap(), None, "the lease was given back");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Two processes play 24 games between them; one is killed with SIGKILL mid-game. The other
/// finishes its games; every move either had acknowledged is stored; a restart of the killed one
/// finishes its games from where the database says they are.
fn kill_nine_of_one_of_two_processes_loses_no_acknowledged_move(db: &Database) {
    const GAMES: usize = 24;
    const PLIES: usize = 16;
    let exe = env!("CARGO_BIN_EXE_tessera-load");
    let store = tessera_store::open(db).unwrap();
    let games = load::setup(&*store, GAMES);
    let plies = PLIES.to_string();
    let spawn = |part| {
        load::Player::spawn(
            exe,
            &address(db),
            games,
            (part, 2),
            &["--plies", &plies, "--threads", "3", "--echo", "4"],
        )
    };
    let mut doomed = spawn(0);
    let survivor = spawn(1);
    let deadline = Instant::now() + Duration::from_secs(300);
    while doomed.acknowledged() < GAMES / 2 * PLIES / 3 {
        assert!(Instant::now() < deadline, "the doomed process made no progress");
        assert!(doomed.child.try_wait().unwrap().is_none(), "it ended before it could be killed");
        std::thread::sleep(Duration::from_millis(5));
    }
    doomed.child.kill().unwrap(); // SIGKILL
    let (status, killed) = doomed.wait();
    assert!(!status.success() && killed.done.is_none(), "it was killed mid-run");
    let (status, survived) = survivor.wait();
    assert!(status.success(), "the other carries on to its end");
    assert!(survived.refused.is_empty(), "{:?}", survived.refused);
    assert!(survived.doubled.is_empty() && killed.doubled.is_empty(), "a move sent twice was played twice");
    assert_eq!(survived.echoes_refused, survived.moves() / 4, "every fourth move sent again, and refused");
    assert_eq!(survived.moves(), GAMES / 2 * PLIES, "the other finished every one of its games");
    // Nothing either acknowledged is lost: at most one move a game committed but unsaid.
    load::check(&*store, games, &[&killed, &survived], 1).unwrap();
    // The killed one's games go on from the database, in a new process.
    let (status, resumed) = spawn(0).wait();
    assert!(status.success() && resumed.refused.is_empty(), "{:?}", resumed.refused);
    let stored = load::check(&*store, games, &[&killed, &survived, &resumed], 1).unwrap();
    assert_eq!(stored, GAMES * PLIES, "every game played to its end, none doubled");
}
