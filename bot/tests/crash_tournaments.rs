//! The kill -9 driver for tournaments (issue 27): the real `tessera local` process runs Swiss
//! tournaments one after another (an organiser creates one, six players join, the organiser
//! starts it and sets every game's result, each last result pairing the next round) and is
//! killed with SIGKILL at random moments, then restarted on the same data directory.
//!
//! What is checked, over everything the process printed (answers, and what a restart shows before
//! its first prompt): every round stored was announced, every result the organiser set was
//! announced, and every finished tournament's end was announced — each once, or twice when the
//! kill fell between printing a notice and marking it sent (the outbox's window); no round is left
//! unpaired after a restart; no notice is left unsent at the end.
//!
//! `cargo test -p tessera-bot --test suites crash_tournaments::` kills a few times; a long run:
//!
//!     TESSERA_KILLS=300 TESSERA_SEED=7 cargo test -p tessera-bot --test suites crash_tournaments:: -- --nocapture

use crate::local_bot;

use std::collections::BTreeMap;
use std::time::Duration;

use local_bot::{INTERNAL_ERROR, LocalBot, Rng, TempDir, count_from_env};
use tessera_core::model::TournamentStatus;
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::SqliteStore;

const PLAYERS: [&str; 6] = ["p1", "p2", "p3", "p4", "p5", "p6"];
const ANSWER_TIME: Duration = Duration::from_secs(60);
const RESULTS: [&str; 3] = ["1-0", "0-1", "1/2"];

/// How often each announcement was printed.
#[derive(Default, Debug)]
struct Heard {
    rounds: BTreeMap<(i64, u32), usize>,
    results: BTreeMap<i64, usize>,
    ends: BTreeMap<i64, usize>,
}

/// The number right after `prefix` in `text`.
fn number_after(text: &str, prefix: &str) -> Option<i64> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

impl Heard {
    fn read(&mut self, output: &str) {
        for line in output.lines() {
            if line.contains(" is paired. Good luck!")
                && let (Some(t), Some(r)) = (number_after(line, "] t"), number_after(line, ": round "))
            {
                *self.rounds.entry((t, r as u32)).or_default() += 1;
            }
            if (line.contains(" is set to ") || line.contains(" is corrected to "))
                && let Some(g) = number_after(line, ": game #")
            {
                *self.results.entry(g).or_default() += 1;
            }
            if line.contains(" is over.")
                && let Some(t) = number_after(line, "] t")
            {
                *self.ends.entry(t).or_default() += 1;
            }
        }
    }
}

/// The next lines to send, from the stored state: a tournament to create and fill, to start, or
/// the results of the current round's running games.
fn next_lines(store: &SqliteStore, rng: &mut Rng) -> Vec<String> {
    let live: Vec<_> = store
        .channel_tournaments("local", "main")
        .unwrap()
        .into_iter()
        .filter(|t| t.status.is_live())
        .collect();
    let mut lines = vec!["/as alice".to_string()];
    let Some(t) = live.last() else {
        lines.push("!t tournament create swiss chess rounds 3 name Kill Cup".into());
        return lines;
    };
    if t.status == TournamentStatus::Open {
        let joined = store.entrants(t.id).unwrap().len();
        if joined < PLAYERS.len() {
            for p in &PLAYERS[joined..] {
                lines.push(format!("/as {p}"));
                lines.push(format!("!t tournament join t{}", t.id));
            }
            lines.push("/as alice".into());
        }
        lines.push(format!("!t tournament start t{}", t.id));
        return lines;
    }
    for p in store.pairings(t.id).unwrap().iter().filter(|p| p.round == t.current_round) {
        let Some(game) = p.game else { continue };
        if store.game(game).unwrap().unwrap().result.is_none() {
            lines.push(format!("!t tournament result #{game} {}", RESULTS[rng.below(RESULTS.len())]));
        }
    }
    lines
}

#[test]
fn every_round_and_result_is_announced_once_or_twice_across_kills() {
    let kills_wanted = count_from_env("TESSERA_KILLS", 6);
    let mut rng = Rng(count_from_env("TESSERA_SEED", 27) as u64);
    let dir = TempDir::new("crash-tournaments");
    let (data, log) = (dir.0.join("data"), dir.0.join("bot.log"));
    let db = data.join("tessera.sqlite");
    let mut heard = Heard::default();
    let mut kills = 0;
    let mut bot = LocalBot::spawn(&data, &log);
    bot.ready(ANSWER_TIME);
    let store = || SqliteStore::open(&db).unwrap();
    let mut batches = 0;
    while kills < kills_wanted || batches < 8 {
        batches += 1;
        let lines = next_lines(&store(), &mut rng);
        let first = bot.send(&lines);
        if kills < kills_wanted && rng.below(2) == 0 {
            // Somewhere in the batch: a few milliseconds in, mid-write or mid-commit.
            std::thread::sleep(Duration::from_millis(rng.below(40) as u64));
            let partial = bot.kill();
            kills += 1;
            for answer in &bot.answers[first.min(bot.answers.len())..] {
                heard.read(answer);
            }
            heard.read(&partial);
            bot = LocalBot::spawn(&data, &log);
            bot.ready(ANSWER_TIME);
            heard.read(&bot.preamble);
            // Nothing is left unpaired after a restart.
            for t in store().channel_tournaments("local", "main").unwrap() {
                if t.status == TournamentStatus::Running {
                    let running = store()
                        .pairings(t.id)
                        .unwrap()
                        .iter()
                        .filter(|p| p.round == t.current_round)
                        .filter(|p| {
                            p.game.is_some_and(|g| store().game(g).unwrap().unwrap().result.is_none())
                        })
                        .count();
                    assert!(
                        running > 0,
                        "t{} round {} is complete but unpaired after a restart",
                        t.id,
                        t.current_round
                    );
                }
            }
            continue;
        }
        let answers = bot.wait_all(ANSWER_TIME).to_vec();
        for answer in &answers[first..] {
            assert!(!answer.contains(INTERNAL_ERROR), "{answer}");
            heard.read(answer);
        }
    }
    bot.quit();
    // Every stored round, organiser's result and end, announced once or twice.
    let store = store();
    let mut rounds = 0;
    for t in store.channel_tournaments("local", "main").unwrap() {
        for r in 1..=t.current_round {
            rounds += 1;
            let n = heard.rounds.get(&(t.id, r)).copied().unwrap_or(0);
            assert!((1..=2).contains(&n), "t{} round {r} announced {n} times", t.id);
        }
        if t.status == TournamentStatus::Finished {
            let n = heard.ends.get(&t.id).copied().unwrap_or(0);
            assert!((1..=2).contains(&n), "the end of t{} announced {n} times", t.id);
        }
        for p in store.pairings(t.id).unwrap() {
            let Some(game) = p.game else { continue };
            let row = store.game(game).unwrap().unwrap();
            if row.result_reason.as_deref().is_some_and(|r| r.starts_with("set by the organiser")) {
                let n = heard.results.get(&game).copied().unwrap_or(0);
                assert!((1..=2).contains(&n), "the result of game #{game} announced {n} times");
            }
        }
    }
    assert!(
        store.outbox_claim(None, "checker", i64::MAX / 2, 1000).unwrap().is_empty(),
        "a notice left unsent"
    );
    let twice = heard
        .rounds
        .values()
        .chain(heard.results.values())
        .chain(heard.ends.values())
        .filter(|&&n| n == 2)
        .count();
    println!(
        "{kills} kills, {batches} batches: {rounds} rounds, {} results, {} ends announced; {twice} announced twice (killed between printing and marking)",
        heard.results.len(),
        heard.ends.len()
    );
    assert!(rounds >= 3, "the run got somewhere: {rounds} rounds");
}
