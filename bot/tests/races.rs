//! The race driver (issue 13, "never lose a move"): racers with their own connections to ONE
//! database (real `tessera local` processes fed the same lines at once, and threads each with
//! their own `Service` and `SqliteStore`) compete on the same turn of a game: the same move sent
//! twice or more, different moves, resignation against a move, a draw or takeback accepted
//! against a move, a challenge accepted twice, and many processes starting together on a fresh
//! data directory. After each race exactly the winners' changes must be stored (one move for the
//! ply at most, the game replaying through the rules) and nobody may get the generic failure
//! reply. A seeded generator picks the races: the same seed makes the same races.
//!
//! The same races run on SQLite and on PostgreSQL (a throwaway server, `support/postgres.rs`;
//! skipped, saying so, when PostgreSQL is not installed and `TESSERA_REQUIRE_POSTGRES` is not 1).
//!
//! `cargo test -p tessera-bot --test suites races::` runs a few dozen on each; a long run sets how many:
//!
//!     TESSERA_RACES=2000 TESSERA_SEED=7 cargo test -p tessera-bot --test suites races:: -- --nocapture

use crate::local_bot;
use crate::postgres;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use local_bot::{INTERNAL_ERROR, LocalBot, Rng, TempDir, count_from_env};
use tessera_core::model::GameRow;
use tessera_core::service::{Incoming, Service, User, unix_now};
use tessera_core::store::Store;
use tessera_rules::{Game, Position, Variant, notation};
use tessera_store::database::Database;

const ANSWER_TIME: Duration = Duration::from_secs(60);
const PROCESSES: usize = 3;
const THREADS: usize = 2;

/// A thread with its own service and database connection, answering as the terminal would.
struct ThreadRacer {
    to: mpsc::Sender<(String, String, String)>,
    from: mpsc::Receiver<String>,
}

impl ThreadRacer {
    fn spawn(db: Database) -> ThreadRacer {
        let (to, inbox) = mpsc::channel::<(String, String, String)>();
        let (outbox, from) = mpsc::channel();
        std::thread::spawn(move || {
            let service = Service::new(tessera_store::open(&db).unwrap());
            for (channel, who, text) in inbox {
                let author = User::new(who.to_lowercase(), who.as_str());
                let mentions = tessera_bot::local::mentions(&text);
                let msg = Incoming {
                    platform: tessera_bot::local::PLATFORM,
                    channel: &channel,
                    author: &author,
                    is_admin: true,
                    text: &text,
                    mentions: &mentions,
                    now: unix_now(),
                    thread: None,
                };
                let replies = service.handle(&msg);
                let answer: Vec<String> = replies.iter().map(|r| format!("[tessera] {}", r.text)).collect();
                if outbox.send(answer.join("\n")).is_err() {
                    return;
                }
            }
        });
        ThreadRacer { to, from }
    }
}

enum Racer {
    Process { bot: LocalBot, line: usize },
    Thread { racer: ThreadRacer, channel: String, who: String },
}

impl Racer {
    /// Where the next line goes and who says it (not yet sent).
    fn prepare(&mut self, channel: &str, who: &str) {
        match self {
            Racer::Process { bot, .. } => {
                bot.send(&[format!("/channel {channel}"), format!("/as {who}")]);
                bot.wait_all(ANSWER_TIME);
            }
            Racer::Thread { channel: c, who: w, .. } => {
                *c = channel.to_string();
                *w = who.to_string();
            }
        }
    }

    fn fire(&mut self, text: &str) {
        match self {
            Racer::Process { bot, line } => *line = bot.send(&[text.to_string()]),
            Racer::Thread { racer, channel, who } => {
                racer.to.send((channel.clone(), who.clone(), text.to_string())).unwrap()
            }
        }
    }

    fn answer(&mut self) -> String {
        match self {
            Racer::Process { bot, line } => bot.wait(*line, ANSWER_TIME).expect("the racer answers"),
            Racer::Thread { racer, .. } => racer.from.recv_timeout(ANSWER_TIME).expect("the racer answers"),
        }
    }

    /// Says one thing and waits for the answer.
    fn say(&mut self, channel: &str, who: &str, text: &str) -> String {
        self.prepare(channel, who);
        self.fire(text);
        self.answer()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    SameMove,
    DifferentMoves,
    ResignVsMove,
    DrawAcceptVsMove,
    /// The player who just moved asked to take it back; the one to move accepts, and moves.
    TakebackVsMove,
    /// The player to move asked to take back their last move; the other accepts as they move.
    TakebackVsOwnMove,
    AcceptTwice,
    FirstStart,
}

const KINDS: [Kind; 8] = [
    Kind::SameMove,
    Kind::DifferentMoves,
    Kind::ResignVsMove,
    Kind::DrawAcceptVsMove,
    Kind::TakebackVsMove,
    Kind::TakebackVsOwnMove,
    Kind::AcceptTwice,
    Kind::FirstStart,
];

#[derive(Default)]
struct Tally {
    races: usize,
    by_kind: BTreeMap<Kind, usize>,
    /// Races where more than one competing change was acknowledged or stored.
    double_commits: Vec<String>,
    /// Any other broken invariant: a stored state that does not match the answers.
    inconsistent: Vec<String>,
    internal_errors: Vec<String>,
    /// How the mixed races ended: (kind, what won) -> count, to show both sides do win.
    winners: BTreeMap<(Kind, &'static str), usize>,
}

fn lan(game: &Game, mv: &tessera_rules::Move) -> String {
    notation::lan(game.position(), mv).trim_end_matches(['+', '#']).to_string()
}

/// Legal moves that do not end the game, in a seeded random order.
fn quiet_moves(game: &Game, rng: &mut Rng) -> Vec<String> {
    let mut moves = game.position().legal_moves();
    let mut out = Vec::new();
    while !moves.is_empty() {
        let mv = moves.swap_remove(rng.below(moves.len()));
        let mut next = game.clone();
        next.play(mv).unwrap();
        if next.outcome().is_none() {
            out.push(lan(game, &mv));
        }
    }
    out
}

/// A move's text without capture and step marks: `Bc1xh6` sent for a capture is stored as
/// `Bc1-h6` when a takeback that got in first left nothing to take there (the bot reads the `x`
/// leniently).
fn unmarked(text: &str) -> String {
    text.replace(['x', '-'], "")
}

fn replays(row: &GameRow) -> Result<(), String> {
    let variant: Variant = row.variant.parse().map_err(|_| "unknown variant".to_string())?;
    let mut game = Game::new(Position::from_fen(variant, &row.start_fen).map_err(|e| e.to_string())?);
    for text in &row.moves {
        game.play_text(text).map_err(|e| format!("{text}: {e}"))?;
    }
    Ok(())
}

/// Many processes start at once on a data directory (and a PostgreSQL database) that does not
/// exist yet, and each at once makes a challenge: all start, all answer, and the database holds
/// every challenge.
fn first_start(tmp: &Path, n: usize, race: usize, tally: &mut Tally, cluster: Option<&postgres::Cluster>) {
    let data = tmp.join(format!("fresh-{race}"));
    let address = cluster.map(|c| c.database(&format!("fresh{race}")));
    // A log each: lines written at once by several processes to one file can interleave.
    let logs: Vec<PathBuf> = (0..n).map(|i| tmp.join(format!("fresh-{race}-{i}.log"))).collect();
    let mut bots: Vec<LocalBot> =
        logs.iter().map(|log| LocalBot::spawn_on(&data, log, address.as_deref())).collect();
    for (i, bot) in bots.iter_mut().enumerate() {
        bot.send(&[format!("/as starter{i}"), format!("!t challenge @other{i} chess")]);
    }
    for (i, bot) in bots.iter_mut().enumerate() {
        let answer = bot.wait(1, ANSWER_TIME).unwrap_or_else(|| {
            panic!(
                "a process starting on a fresh directory did not answer: {}",
                std::fs::read_to_string(&logs[i]).unwrap_or_default()
            )
        });
        if answer.contains(INTERNAL_ERROR) {
            tally.internal_errors.push(format!("race {race} (first start): {answer}"));
        } else if !answer.contains(&format!("starter{i} challenges other{i}")) {
            tally.inconsistent.push(format!("race {race} (first start): {answer}"));
        }
    }
    for bot in bots {
        bot.quit();
    }
    // Every challenge is there, and each migration was applied once (on PostgreSQL the advisory
    // lock makes the other starters wait and find the schema current).
    let (challenges, migrations) = match &address {
        Some(address) => {
            let store = tessera_store::open(&Database::parse(address)).unwrap();
            let open = store.open_challenges_since(tessera_bot::local::PLATFORM, "main", 0).unwrap();
            let versions = postgres_counts(
                address,
                &[
                    "SELECT COUNT(*) FROM schema_version",
                    "SELECT COUNT(DISTINCT version) FROM schema_version",
                ],
            );
            (open.len() as i64, Some((versions[0], versions[1])))
        }
        None => {
            let raw = rusqlite::Connection::open(data.join("tessera.sqlite")).unwrap();
            let count = |sql: &str| -> i64 { raw.query_row(sql, [], |r| r.get(0)).unwrap() };
            let versions = (
                count("SELECT COUNT(*) FROM schema_version"),
                count("SELECT COUNT(DISTINCT version) FROM schema_version"),
            );
            (count("SELECT COUNT(*) FROM challenges"), Some(versions))
        }
    };
    if challenges != n as i64 || migrations.is_some_and(|(versions, distinct)| versions != distinct) {
        let migrations = migrations
            .map(|(versions, distinct)| format!(", {versions} migrations for {distinct} versions"))
            .unwrap_or_default();
        tally
            .inconsistent
            .push(format!("race {race} (first start): {challenges} challenges stored of {n}{migrations}"));
    }
    for log in &logs {
        let errors = std::fs::read_to_string(log).unwrap_or_default();
        for line in errors.lines().filter(|l| !l.contains(" INFO tessera::cli: games are kept here ")) {
            tally.internal_errors.push(format!("race {race} (first start) standard error: {line}"));
        }
        std::fs::remove_file(log).ok();
    }
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn racing_changes_to_one_turn_commit_once() {
    run_races(&TempDir::new("races"), None);
}

#[test]
fn racing_changes_to_one_turn_commit_once_on_postgres() {
    let Some(cluster) =
        postgres::Cluster::start_or_skip("races::racing_changes_to_one_turn_commit_once_on_postgres")
    else {
        return;
    };
    run_races(&TempDir::new("races-pg"), Some(&cluster));
}

/// The races, on SQLite in `tmp` or on a new database of `cluster`.
fn run_races(tmp: &TempDir, cluster: Option<&postgres::Cluster>) {
    let races = count_from_env("TESSERA_RACES", 40);
    let seed = count_from_env("TESSERA_SEED", 13) as u64;
    let mut rng = Rng(seed);
    let data = tmp.0.join("data");
    let address = cluster.map(|c| c.database("races"));
    let db = match &address {
        Some(address) => Database::parse(address),
        None => Database::Sqlite(data.join("tessera.sqlite")),
    };
    let logs: Vec<PathBuf> = (0..PROCESSES).map(|i| tmp.0.join(format!("stderr-{i}.log"))).collect();
    let mut racers: Vec<Racer> = Vec::new();
    for log in &logs {
        let mut bot = LocalBot::spawn_on(&data, log, address.as_deref());
        bot.ready(ANSWER_TIME);
        racers.push(Racer::Process { bot, line: 0 });
    }
    for _ in 0..THREADS {
        racers.push(Racer::Thread {
            racer: ThreadRacer::spawn(db.clone()),
            channel: String::new(),
            who: String::new(),
        });
    }
    let store = tessera_store::open(&db).unwrap();
    let mut tally = Tally::default();
    let started = Instant::now();
    for race in 0..races {
        let kind = KINDS[rng.below(KINDS.len())];
        tally.races += 1;
        *tally.by_kind.entry(kind).or_default() += 1;
        if kind == Kind::FirstStart {
            first_start(&tmp.0, 2 + rng.below(4), race, &mut tally, cluster);
            continue;
        }
        // Racers in a seeded random order; the first sets the game up.
        let mut order: Vec<usize> = (0..racers.len()).collect();
        let mut pick: Vec<usize> = Vec::new();
        while !order.is_empty() {
            pick.push(order.swap_remove(rng.below(order.len())));
        }
        let channel = format!("r{race}");
        let (white, black) = ("alice", "bob");
        let setup = pick[0];
        let challenged = racers[setup].say(&channel, white, &format!("!t challenge @{black} chess white"));
        assert!(challenged.contains("challenges bob"), "{challenged}");
        // Who says what, all at once: (racer, player, text).
        let mut lines: Vec<(usize, &str, String)> = Vec::new();
        let mut game = Game::new(Position::start(Variant::CHESS));
        if kind == Kind::AcceptTwice {
            for &r in &pick[..2 + rng.below(pick.len() - 1)] {
                lines.push((r, black, "!t accept".into()));
            }
        } else {
            let begun = racers[setup].say(&channel, black, "!t accept");
            assert!(begun.contains("begins"), "{begun}");
            // A few moves first: two at least, so that both players have one to take back.
            for _ in 0..2 + rng.below(5) {
                let text = quiet_moves(&game, &mut rng).swap_remove(0);
                let who = if game.moves().len().is_multiple_of(2) { white } else { black };
                let answer = racers[setup].say(&channel, who, &format!("!t move {text} !"));
                assert!(answer.contains(&format!("{who} played")), "{answer}");
                game.play_text(&text).unwrap();
            }
        }
        let ply = game.moves().len();
        let (mover, other) = if ply.is_multiple_of(2) { (white, black) } else { (black, white) };
        let moves = quiet_moves(&game, &mut rng);
        let offer = |racers: &mut Vec<Racer>, who: &str, text: &str, expect: &str| {
            let answer = racers[setup].say(&channel, who, text);
            assert!(answer.contains(expect), "{answer}");
        };
        match kind {
            Kind::SameMove => {
                for &r in &pick[..2 + rng.below(pick.len() - 1)] {
                    lines.push((r, mover, format!("!t move {} !", moves[0])));
                }
            }
            Kind::DifferentMoves => {
                for (i, &r) in pick[..(2 + rng.below(pick.len() - 1)).min(moves.len())].iter().enumerate() {
                    lines.push((r, mover, format!("!t move {} !", moves[i])));
                }
            }
            Kind::ResignVsMove => {
                lines.push((pick[0], mover, format!("!t move {} !", moves[0])));
                let resigner = if rng.below(2) == 0 { mover } else { other };
                lines.push((pick[1], resigner, "!t resign".into()));
                if rng.below(2) == 0 {
                    lines.push((pick[2], if resigner == mover { other } else { mover }, "!t resign".into()));
                }
            }
            Kind::DrawAcceptVsMove => {
                offer(&mut racers, other, "!t draw", "offers a draw");
                lines.push((pick[0], mover, "!t draw accept".into()));
                lines.push((pick[1], mover, format!("!t move {} !", moves[0])));
                if rng.below(2) == 0 {
                    lines.push((pick[2], mover, format!("!t move {} !", moves[moves.len() - 1])));
                }
            }
            Kind::TakebackVsMove => {
                offer(&mut racers, other, "!t takeback", "asks to take back");
                lines.push((pick[0], mover, "!t takeback accept".into()));
                lines.push((pick[1], mover, format!("!t move {} !", moves[0])));
            }
            Kind::TakebackVsOwnMove => {
                offer(&mut racers, mover, "!t takeback", "asks to take back");
                lines.push((pick[0], other, "!t takeback accept".into()));
                lines.push((pick[1], mover, format!("!t move {} !", moves[0])));
            }
            Kind::AcceptTwice | Kind::FirstStart => {}
        }
        // The race: everyone is placed, then every line goes out at once.
        for (r, who, _) in &lines {
            racers[*r].prepare(&channel, who);
        }
        for (r, _, text) in &lines {
            racers[*r].fire(text);
        }
        let answers: Vec<(String, String)> =
            lines.iter().map(|(r, _, text)| (text.clone(), racers[*r].answer())).collect();
        for (text, answer) in &answers {
            if answer.contains(INTERNAL_ERROR) {
                tally.internal_errors.push(format!("race {race} ({kind:?}) {text}: {answer}"));
            }
        }
        let won = |what: &str| answers.iter().filter(|(_, a)| a.contains(what)).count();
        let moved: Vec<&str> = answers
            .iter()
            .filter(|(_, a)| a.contains(&format!("{mover} played")))
            .map(|(t, _)| t.trim_start_matches("!t move ").trim_end_matches(" !"))
            .collect();
        let row = store.last_channel_game("local", &channel).unwrap();
        let mut fail = |double: bool, why: String| {
            let what = format!("race {race} ({kind:?}): {why}; answers: {answers:#?}; stored: {row:#?}");
            if double { tally.double_commits.push(what) } else { tally.inconsistent.push(what) }
        };
        if let Some(Err(e)) = row.as_ref().map(replays) {
            fail(false, format!("the stored game does not replay: {e}"));
        }
        let stored_moves = row.as_ref().map_or(0, |r| r.moves.len());
        let reason = row.as_ref().and_then(|r| r.result_reason.clone());
        // What the moves that won must have left: the one move stored after the ones before.
        let check_move = |fail: &mut dyn FnMut(bool, String), base: usize| {
            if moved.len() > 1 {
                fail(true, format!("{} moves acknowledged for one turn", moved.len()));
            }
            let expected = base + moved.len();
            if stored_moves != expected {
                // More stored than acknowledged is a second commit; fewer, a lost move.
                fail(stored_moves > expected, format!("{stored_moves} moves stored, {expected} expected"));
            } else if let (Some(m), Some(r)) = (moved.first(), &row)
                && r.moves.last().map(|s| unmarked(s)) != Some(unmarked(m))
            {
                fail(false, format!("{m} acknowledged, {:?} stored", r.moves.last()));
            }
        };
        match kind {
            Kind::SameMove | Kind::DifferentMoves => {
                if moved.is_empty() {
                    fail(false, "no racer's move was played".into());
                }
                check_move(&mut fail, ply);
            }
            Kind::ResignVsMove => {
                let resigned = won("resigns game");
                if resigned != 1 {
                    fail(resigned > 1, format!("{resigned} resignations acknowledged"));
                }
                if reason.as_deref() != Some("resignation") {
                    fail(false, format!("the game ended by {reason:?}"));
                }
                check_move(&mut fail, ply);
                let key = if moved.is_empty() { "resignation" } else { "move, then resignation" };
                *tally.winners.entry((kind, key)).or_default() += 1;
            }
            Kind::DrawAcceptVsMove => {
                let drawn = won("drawn by agreement");
                if drawn + moved.len() != 1 {
                    fail(
                        drawn + moved.len() > 1,
                        format!("{drawn} draws and {} moves acknowledged", moved.len()),
                    );
                }
                if (drawn == 1) != (reason.as_deref() == Some("agreement")) {
                    fail(false, format!("draw acknowledged {drawn} times, the game ended by {reason:?}"));
                }
                check_move(&mut fail, ply);
                *tally.winners.entry((kind, if drawn == 1 { "draw" } else { "move" })).or_default() += 1;
            }
            Kind::TakebackVsMove | Kind::TakebackVsOwnMove => {
                let taken = won("Takeback agreed");
                // The one who asked may move again once the takeback is done: both then stand.
                let both = kind == Kind::TakebackVsOwnMove && taken == 1 && moved.len() == 1;
                if taken + moved.len() != 1 && !both {
                    fail(
                        taken + moved.len() > 1,
                        format!("{taken} takebacks and {} moves acknowledged", moved.len()),
                    );
                }
                let undone = if kind == Kind::TakebackVsMove { 1 } else { 2 };
                check_move(&mut fail, if taken == 1 { ply - undone } else { ply });
                let key = match (taken, moved.len()) {
                    (1, 1) => "takeback, then move",
                    (1, _) => "takeback",
                    _ => "move",
                };
                *tally.winners.entry((kind, key)).or_default() += 1;
            }
            Kind::AcceptTwice => {
                let begun = won("begins");
                // Every game of the channel: just begun, none has finished.
                let games = store.channel_games("local", &channel).unwrap().len();
                if begun != 1 || games != 1 {
                    fail(begun > 1 || games > 1, format!("{begun} games begun, {games} stored"));
                }
            }
            Kind::FirstStart => unreachable!(),
        }
    }
    for racer in racers {
        if let Racer::Process { bot, .. } = racer {
            bot.quit();
        }
    }
    for log in &logs {
        let errors = std::fs::read_to_string(log).unwrap_or_default();
        for line in errors.lines().filter(|l| !l.contains(" INFO tessera::cli: games are kept here ")) {
            tally.internal_errors.push(format!("standard error: {line}"));
        }
    }
    println!(
        "races: {}, double commits: {}, other broken invariants: {}, internal errors: {}; seed {seed}, {:.1} s",
        tally.races,
        tally.double_commits.len(),
        tally.inconsistent.len(),
        tally.internal_errors.len(),
        started.elapsed().as_secs_f64()
    );
    println!("by kind: {:?}", tally.by_kind);
    println!("winners: {:?}", tally.winners);
    assert!(tally.double_commits.is_empty(), "double commits: {:#?}", tally.double_commits);
    assert!(tally.inconsistent.is_empty(), "broken invariants: {:#?}", tally.inconsistent);
    assert!(tally.internal_errors.is_empty(), "internal errors: {:#?}", tally.internal_errors);
}

/// Each `SELECT COUNT(...)` of `queries`, read on the PostgreSQL database at `address` directly.
fn postgres_counts(address: &str, queries: &[&str]) -> Vec<i64> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(address, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        let mut counts = Vec::new();
        for query in queries {
            counts.push(client.query_one(*query, &[]).await.unwrap().get(0));
        }
        counts
    })
}
