//! Whole tournaments through the command layer, on a temporary database: a round robin of 5, a
//! Swiss of 20 over 5 rounds with a late entry and a withdrawal, a knockout of 6 with replayed
//! draws; who may do what; a round paired exactly once however many processes race for it; and
//! ratings from rated games. Each on SQLite and on PostgreSQL (a throwaway server,
//! `support/postgres.rs`; skipped, saying so, when PostgreSQL is not installed).

use crate::postgres;
use crate::talk;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Barrier};

use tessera_core::model::{PairingKind, PairingRow, TournamentStatus};
use tessera_core::service::{Reply, Service};
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::AnyStore;
use tessera_store::database::Database;

use talk::T0;

fn temp_db(name: &str) -> Database {
    Database::Sqlite(talk::temp_db("tn", name))
}

postgres::on_both_databases! {
    Database, temp_db, |address: String| Database::parse(&address);
    a_round_robin_of_five,
    a_swiss_of_twenty_with_a_late_entry_and_a_withdrawal,
    a_knockout_of_six_replays_draws,
    a_drawn_knockout_game_set_by_the_organiser_keeps_its_result,
    administration_needs_the_organiser_or_a_moderator,
    a_round_is_paired_once_however_many_processes_race,
    two_losses_on_time_in_a_row_withdraw_a_player,
    ratings_come_from_rated_games,
}

struct Club {
    service: Service<AnyStore>,
    channel: String,
    now: std::cell::Cell<i64>,
}

impl Club {
    fn new(db: &Database) -> Club {
        Club {
            service: Service::new(tessera_store::open(db).unwrap()),
            channel: "club".into(),
            now: T0.into(),
        }
    }

    fn say_as(&self, who: &str, admin: bool, text: &str) -> Vec<Reply> {
        self.now.set(self.now.get() + 60);
        talk::say_at(&self.service, &self.channel, who, admin, text, self.now.get())
    }

    fn say(&self, who: &str, text: &str) -> Vec<Reply> {
        self.say_as(who, false, text)
    }

    /// All replies' text, joined.
    fn says(&self, who: &str, text: &str) -> String {
        let replies = self.say(who, text);
        assert!(!replies.is_empty(), "{who}: {text} got no reply");
        talk::text(&replies)
    }

    fn store(&self) -> &AnyStore {
        self.service.store()
    }

    fn name(&self, id: i64) -> String {
        self.store().player_by_id(id).unwrap().unwrap().user_id
    }

    fn tournament_id(&self, created: &str) -> i64 {
        let after = created.split("Tournament t").nth(1).expect(created);
        after.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    }

    /// The games of the round now being played that are still running.
    fn running(&self, t: i64) -> Vec<PairingRow> {
        let round = self.store().tournament(t).unwrap().unwrap().current_round;
        self.store()
            .pairings(t)
            .unwrap()
            .into_iter()
            .filter(|p| p.round == round && p.result.is_none())
            .filter(|p| p.game.is_some_and(|g| self.store().game(g).unwrap().unwrap().result.is_none()))
            .collect()
    }

    /// Ends a game: 0 White wins (Black resigns), 1 Black wins, 2 a draw by agreement.
    fn decide(&self, p: &PairingRow, how: u64) -> String {
        let game = p.game.unwrap();
        let (white, black) = (self.name(p.white), self.name(p.black.unwrap()));
        match how % 3 {
            0 => self.says(&black, &format!("!t resign #{game}")),
            1 => self.says(&white, &format!("!t resign #{game}")),
            _ => {
                assert!(self.says(&white, &format!("!t draw #{game}")).contains("offers a draw"));
                self.says(&black, &format!("!t draw accept #{game}"))
            }
        }
    }
}

fn is_png(image: &Option<Vec<u8>>) -> bool {
    image.as_ref().is_some_and(|png| png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000)
}

/// A tiny deterministic generator for results.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn pairs_of(store: &AnyStore, t: i64) -> Vec<(i64, i64)> {
    store
        .pairings(t)
        .unwrap()
        .iter()
        .filter(|p| p.kind == PairingKind::Game)
        .filter_map(|p| Some((p.white, p.black?)))
        .collect()
}

fn a_round_robin_of_five(db: &Database) {
    let club = Club::new(db);
    let created = club.says("alice", "!t tournament create round-robin hans38 3d casual name Spring Robin");
    assert!(created.contains("Spring Robin") && created.contains("round robin"), "{created}");
    let t = club.tournament_id(&created);
    let players = ["alice", "bob", "carol", "dave", "eve"];
    for p in players {
        assert!(club.says(p, "!t tournament join").contains(&format!("{p} joins t{t}")));
    }
    assert!(club.say("bob", "!t tournament join")[0].text.contains("already in"));
    // Only the organiser starts it.
    assert!(club.say("bob", "!t tournament start")[0].text.contains("only the organiser"));
    let started = club.says("alice", "!t tournament start");
    assert!(started.contains("round 1 of 5 is paired"), "{started}");
    let mut seed = 7;
    let mut rounds_seen = 1;
    loop {
        let running = club.running(t);
        if running.is_empty() {
            break;
        }
        let mut last = String::new();
        for p in &running {
            last = club.decide(p, next(&mut seed));
        }
        if last.contains("is paired") {
            rounds_seen += 1;
        }
        if last.contains("is over") {
            assert!(last.contains("wins with"), "{last}");
            break;
        }
    }
    assert_eq!(rounds_seen, 5);
    let row = club.store().tournament(t).unwrap().unwrap();
    assert_eq!((row.status, row.current_round, row.rounds), (TournamentStatus::Finished, 5, 5));
    // Everyone met everyone exactly once; each sat out one round.
    let pairs = pairs_of(club.store(), t);
    assert_eq!(pairs.len(), 10);
    let met: HashSet<(i64, i64)> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    assert_eq!(met.len(), 10);
    let free: Vec<i64> = club
        .store()
        .pairings(t)
        .unwrap()
        .iter()
        .filter(|p| p.kind == PairingKind::Absent)
        .map(|p| p.white)
        .collect();
    assert_eq!(free.iter().collect::<HashSet<_>>().len(), 5);
    let standings = club.says("carol", "!t tournament standings");
    for p in players {
        assert!(standings.contains(p), "{standings}");
    }
    assert!(standings.contains("SB") && standings.contains("KS"), "{standings}");
    assert!(is_png(&club.say("carol", "!t tournament standings")[0].image), "a crosstable picture");
    // Points add up to one per game.
    let total: f64 = standings
        .lines()
        .filter(|l| players.iter().any(|p| l.contains(p)))
        .map(|l| {
            let pts = l.split_whitespace().nth(3).unwrap();
            let half = pts.ends_with('½');
            pts.trim_end_matches('½').parse::<f64>().unwrap_or(0.0) + if half { 0.5 } else { 0.0 }
        })
        .sum();
    assert_eq!(total, 10.0, "{standings}");
}

fn a_swiss_of_twenty_with_a_late_entry_and_a_withdrawal(db: &Database) {
    let club = Club::new(db);
    let created = club.says("org", "!t tournament create swiss chess rounds 5 casual");
    let t = club.tournament_id(&created);
    let players: Vec<String> = (1..=20).map(|i| format!("p{i:02}")).collect();
    for p in &players {
        club.says(p, &format!("!t tournament join t{t}"));
    }
    let started = club.says("org", "!t tournament start");
    assert!(started.contains("round 1 of 5 is paired"), "{started}");
    assert_eq!(club.running(t).len(), 10);
    let mut seed = 11;
    // Round 1 played out; then a late entry.
    for p in club.running(t) {
        club.decide(&p, next(&mut seed));
    }
    assert_eq!(club.store().tournament(t).unwrap().unwrap().current_round, 2);
    let joined = club.says("late", "!t tournament join");
    assert!(joined.contains("late joins") && joined.contains("half a point"), "{joined}");
    let late_id = club.store().player("test", "late", "late").unwrap().id;
    // Round 2: the late entry is paired from round 3 on (round 2 already runs).
    for p in club.running(t) {
        club.decide(&p, next(&mut seed));
    }
    // Round 3: someone withdraws mid-game; the opponent wins by forfeit.
    let running = club.running(t);
    let victim = running[0].clone();
    let quitter = victim.white;
    let quitter_name = club.name(quitter);
    let w = club.says(&quitter_name, "!t tournament withdraw");
    assert!(w.contains("withdrawn") && w.contains("by forfeit"), "{w}");
    // The game's own board says how it ended: by forfeit, not by resignation.
    let board = club.says("p01", &format!("!t history #{}", victim.game.unwrap()));
    assert!(board.contains("[Result \"0-1\"]") && board.contains("[Termination \"abandoned\"]"), "{board}");
    let shown = club.says("p01", &format!("!t board #{}", victim.game.unwrap()));
    assert!(shown.contains("wins by forfeit"), "{shown}");
    for p in club.running(t) {
        club.decide(&p, next(&mut seed));
    }
    // Late joining is closed past half the rounds.
    assert!(club.say("later", "!t tournament join")[0].text.contains("entries are closed"));
    for _ in 0..3 {
        for p in club.running(t) {
            club.decide(&p, next(&mut seed));
        }
    }
    let row = club.store().tournament(t).unwrap().unwrap();
    assert_eq!((row.status, row.current_round), (TournamentStatus::Finished, 5));
    let pairings = club.store().pairings(t).unwrap();
    // No pairing repeats; the withdrawn player is never paired after round 3; the late entry
    // plays from round 3; every round pairs everyone present exactly once.
    let pairs = pairs_of(club.store(), t);
    let met: HashSet<(i64, i64)> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    assert_eq!(met.len(), pairs.len(), "a pairing repeats");
    for round in 1..=5u32 {
        let mut seen: HashMap<i64, usize> = HashMap::new();
        for p in pairings.iter().filter(|p| p.round == round) {
            *seen.entry(p.white).or_default() += 1;
            if let Some(b) = p.black {
                *seen.entry(b).or_default() += 1;
            }
        }
        assert!(seen.values().all(|&n| n == 1), "round {round}: someone paired twice");
        assert_eq!(seen.contains_key(&quitter), round <= 3, "round {round}");
        assert_eq!(seen.contains_key(&late_id), round >= 3, "round {round}");
        let expected = 20 - usize::from(round > 3) + usize::from(round >= 3);
        assert_eq!(seen.len(), expected, "round {round}");
    }
    let byes = pairings.iter().filter(|p| p.kind == PairingKind::Bye).map(|p| p.white).collect::<Vec<_>>();
    assert_eq!(byes.iter().collect::<HashSet<_>>().len(), byes.len(), "nobody gets two byes");
    let standings = club.says("p01", "!t tournament standings");
    assert!(standings.contains("BH-C1") && standings.contains("(withdrawn)"), "{standings}");
    assert!(is_png(&club.say("p01", "!t tournament standings")[0].image), "a standings picture");
    // The TRF export, too long to show, comes as a file that reads back in the pairer.
    let export = club.say("p01", "!t tournament export").remove(0);
    assert!(export.text.contains("is attached as tournament-"), "{}", export.text);
    let [trf] = &export.files[..] else { panic!("one file: {:?}", export.files.len()) };
    assert!(trf.name.ends_with(".trf"), "{}", trf.name);
    let back = tessera_pairing::read_trf(&trf.bytes).unwrap();
    assert_eq!(back.players.len(), 21);
    assert_eq!(back.total_rounds, 5);
}

fn a_knockout_of_six_replays_draws(db: &Database) {
    let club = Club::new(db);
    let t = club.tournament_id(&club.says("org", "!t tournament create knockout shrink casual"));
    for i in 1..=6 {
        club.says(&format!("k{i}"), "!t tournament join");
    }
    let started = club.says("org", "!t tournament start");
    assert!(started.contains("round 1 of 3") && started.contains("Bye:"), "{started}");
    // Round 1: every game drawn first, so each is replayed with colours reversed.
    let first: Vec<PairingRow> = club.running(t);
    assert_eq!(first.len(), 2);
    let mut replay_news = String::new();
    for p in &first {
        replay_news.push_str(&club.decide(p, 2));
    }
    assert!(replay_news.contains("replayed with colours reversed"), "{replay_news}");
    let replays = club.running(t);
    assert_eq!(replays.len(), 2);
    for (r, f) in replays.iter().zip(&first) {
        assert_eq!((r.white, r.black, r.leg), (f.black.unwrap(), Some(f.white), 1));
    }
    let mut seed = 5;
    for _ in 0..10 {
        let running = club.running(t);
        if running.is_empty() {
            break;
        }
        for p in running {
            // Decisive from now on.
            club.decide(&p, next(&mut seed) % 2);
        }
    }
    let row = club.store().tournament(t).unwrap().unwrap();
    assert_eq!((row.status, row.current_round), (TournamentStatus::Finished, 3));
    let bracket = club.says("org", "!t tournament standings");
    assert!(bracket.contains("Round 3") && bracket.contains("→"), "{bracket}");
    assert!(is_png(&club.say("org", "!t tournament standings")[0].image), "a bracket picture");
}

/// The organiser sets a knockout game drawn: the pairings show that game's draw and its replay
/// being played, then each game's own result once the replay ends.
fn a_drawn_knockout_game_set_by_the_organiser_keeps_its_result(db: &Database) {
    let club = Club::new(db);
    let t = club.tournament_id(&club.says("org", "!t tournament create knockout casual"));
    for i in 1..=4 {
        club.says(&format!("k{i}"), "!t tournament join");
    }
    club.says("org", "!t tournament start");
    let first = club.running(t);
    assert_eq!(first.len(), 2);
    let drawn = &first[0];
    let game = drawn.game.unwrap();
    let set = club.says("org", &format!("!t tournament result #{game} 1/2 agreed by phone"));
    assert!(set.contains("replayed with colours reversed"), "{set}");
    let replay = club
        .store()
        .pairings(t)
        .unwrap()
        .into_iter()
        .find(|p| p.board == drawn.board && p.leg == 1)
        .expect("a replay");
    let (a, b) = (club.name(drawn.white), club.name(drawn.black.unwrap()));
    let line = |text: &str, prefix: &str| -> String {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in {text}"))
            .to_string()
    };
    let board = format!("Board {}: ", drawn.board);
    let again = format!("Board {} (replay 1): ", drawn.board);
    let pairings = club.says("org", "!t tournament pairings");
    assert_eq!(line(&pairings, &board), format!("{board}#{game} {a} – {b}: ½-½"), "{pairings}");
    let replay_game = replay.game.unwrap();
    assert_eq!(line(&pairings, &again), format!("{again}#{replay_game} {b} – {a}: playing"), "{pairings}");
    // The replay ends: White (the player who had Black in the drawn game) wins.
    club.decide(&replay, 0);
    let pairings = club.says("org", "!t tournament pairings 1");
    assert_eq!(line(&pairings, &board), format!("{board}#{game} {a} – {b}: ½-½"), "{pairings}");
    assert_eq!(line(&pairings, &again), format!("{again}#{replay_game} {b} – {a}: 1-0"), "{pairings}");
}

fn administration_needs_the_organiser_or_a_moderator(db: &Database) {
    let club = Club::new(db);
    let t = club.tournament_id(&club.says("org", "!t tournament create swiss hans38 rounds 3"));
    for p in ["a", "b", "c", "d"] {
        club.says(p, "!t tournament join");
    }
    for cmd in ["start", "pause", "cancel", "withdraw @b"] {
        let r = club.say("a", &format!("!t tournament {cmd}"));
        assert!(
            r[0].private && (r[0].text.contains("organiser") || r[0].text.contains("moderator")),
            "{cmd}: {r:?}"
        );
    }
    // A moderator of the room may.
    let started = club.say_as("mod", true, "!t tournament start");
    assert!(started[0].text.contains("round 1 of 3"));
    // Each player of each game is also told privately, where the platform can.
    let direct = &started[0].direct;
    assert_eq!(direct.len(), 4, "{direct:?}");
    assert!(direct.iter().all(|(_, text)| text.contains("your game #") && text.contains("you play")));
    assert!(club.says("org", "!t tournament pause").contains("paused"));
    assert!(club.says("org", "!t tournament resume").contains("resumes"));
    // The organiser sets a forfeit, reason kept.
    let game = club.running(t)[0].game.unwrap();
    let set = club.says("org", &format!("!t tournament result #{game} +- no show"));
    assert!(set.contains("set to +-") && set.contains("no show"), "{set}");
    assert!(club.say("a", &format!("!t tournament result #{game} 1-0"))[0].text.contains("organiser"));
    let pairings = club.says("a", "!t tournament pairings");
    assert!(pairings.contains("forfeit"), "{pairings}");
    // Bad input says what would be right and changes nothing.
    for bad in [
        "!t tournament create swiss hans38",
        "!t tournament create knockout rounds 3",
        "!t tournament create swiss checkers rounds 3",
        "!t tournament frobnicate",
        "!t tournament result #1 maybe",
        "!t tournament pairings 99",
    ] {
        let r = club.say("a", bad);
        assert!(r.len() == 1 && r[0].private && !r[0].text.is_empty(), "{bad}: {r:?}");
    }
    assert_eq!(club.store().tournament(t).unwrap().unwrap().current_round, 1);
}

fn a_round_is_paired_once_however_many_processes_race(db: &Database) {
    let club = Club::new(db);
    let t = club.tournament_id(&club.says("org", "!t tournament create swiss chess rounds 3"));
    for p in ["a", "b", "c", "d", "e", "f"] {
        club.says(p, "!t tournament join");
    }
    club.says("org", "!t tournament start");
    // Round 1's games end without the service seeing it (a crash right after the commit, say).
    for p in club.running(t) {
        club.store().finish(p.game.unwrap(), "1-0", "resignation", T0 + 100).unwrap();
    }
    assert_eq!(club.store().tournament(t).unwrap().unwrap().current_round, 1);
    drop(club);
    // Four processes on the same database tick at once: exactly one pairs round 2 and says so.
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (db, barrier) = (db.clone(), barrier.clone());
            std::thread::spawn(move || {
                let service = Service::new(tessera_store::open(&db).unwrap());
                barrier.wait();
                service.tick(T0 + 200).unwrap()
            })
        })
        .collect();
    let notices: Vec<String> = handles.into_iter().flat_map(|h| h.join().unwrap()).map(|n| n.text).collect();
    let announced = notices.iter().filter(|n| n.contains("round 2 of 3 is paired")).count();
    assert_eq!(announced, 1, "{notices:?}");
    let store = tessera_store::open(db).unwrap();
    let round2 = store.pairings(t).unwrap().iter().filter(|p| p.round == 2).count();
    assert_eq!(round2, 3);
    assert_eq!(store.tournament(t).unwrap().unwrap().current_round, 2);
    // A restart finds nothing left to do.
    assert!(Service::new(store).tick(T0 + 300).unwrap().iter().all(|n| !n.text.contains("is paired")));
}

fn two_losses_on_time_in_a_row_withdraw_a_player(db: &Database) {
    let club = Club::new(db);
    let t = club.tournament_id(&club.says("org", "!t tournament create swiss chess rounds 4 1d"));
    for p in ["a", "b", "c", "d"] {
        club.says(p, "!t tournament join");
    }
    club.says("org", "!t tournament start");
    let slow = club.store().player("test", "a", "a").unwrap().id;
    let mut notices = Vec::new();
    for round in 1..=2 {
        // Everyone but a's opponent... a lets the clock run; the others finish at once.
        for p in club.running(t) {
            if p.white != slow && p.black != Some(slow) {
                club.decide(&p, 0);
            }
        }
        // a's game: a must be the one to move for a loss on time; if a is Black, White moves first.
        let mine = club.running(t).into_iter().find(|p| p.white == slow || p.black == Some(slow)).unwrap();
        if mine.black == Some(slow) {
            let white = club.name(mine.white);
            club.says(&white, &format!("!t move e2-e4 #{}", mine.game.unwrap()));
        }
        club.now.set(club.now.get() + 2 * 86_400);
        notices.extend(club.service.tick(club.now.get()).unwrap().into_iter().map(|n| n.text));
        assert_eq!(club.store().tournament(t).unwrap().unwrap().current_round, round + 1, "{notices:?}");
    }
    assert!(notices.iter().any(|n| n.contains("lost two games in a row on time")), "{notices:?}");
    let pairings = club.store().pairings(t).unwrap();
    assert!(pairings.iter().filter(|p| p.round == 3).all(|p| p.white != slow && p.black != Some(slow)));
}

fn ratings_come_from_rated_games(db: &Database) {
    let club = Club::new(db);
    assert!(club.says("alice", "!t rating").contains("no rated games yet"));
    for _ in 0..3 {
        let c = club.says("alice", "!t challenge @bob hans38 rated");
        assert!(c.contains("to rated hans38"), "{c}");
        assert!(club.says("bob", "!t accept").contains("rated"));
        club.says("bob", "!t resign");
    }
    // A casual game changes nothing.
    club.says("alice", "!t challenge @bob hans38");
    club.says("bob", "!t accept");
    club.says("alice", "!t resign");
    let alice = club.says("alice", "!t rating hans38");
    assert!(alice.contains("3 games: +3 =0 -0") && alice.contains('?'), "{alice}");
    let bob = club.says("alice", "!t rating @bob");
    assert!(bob.contains("bob: hans38 1"), "{bob}");
    let board = club.says("carol", "!t leaderboard hans38");
    let a = board.find("alice").unwrap();
    let b = board.find("bob").unwrap();
    assert!(a < b, "{board}");
    let profile = club.says("bob", "!t profile");
    assert!(
        profile.contains("hans38") && profile.contains("Recent games") && profile.contains("rated"),
        "{profile}"
    );
    // Rated games take no takebacks.
    club.says("alice", "!t challenge @bob chess rated");
    club.says("bob", "!t accept");
    let white = if club.says("alice", "!t board").contains("alice to move") { "alice" } else { "bob" };
    club.says(white, "e4");
    assert!(club.say(white, "!t takeback")[0].text.contains("cannot be taken back"));
}
