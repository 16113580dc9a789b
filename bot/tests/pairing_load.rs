//! How the bot answers while a large round is paired (issue 27): a Swiss of `TESSERA_PLAYERS`
//! (4,000 unless set) entrants whose round 2 falls due with the last result of round 1. In chat
//! mode that result is answered at once and the round is paired on the pairing worker; meanwhile
//! two players play a casual game in another channel, and each move's answer time is measured.
//!
//! A measurement, not a check of speed: it asserts only what the bot did (the result answered
//! before the round was paired, every move answered, the round paired once and announced), and
//! prints the times. Run it explicitly:
//!
//!     TESSERA_PLAYERS=4000 cargo test -p tessera-bot --test suites pairing_load:: -- --ignored --nocapture

use crate::talk;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tessera_core::model::{PairingAt, ResultSetting, TournamentStatus};
use tessera_core::service::Service;
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::SqliteStore;

use talk::{PLATFORM, T0};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
#[ignore = "a measurement; run it explicitly"]
fn moves_are_answered_while_a_large_round_is_paired() {
    let players: usize = std::env::var("TESSERA_PLAYERS").ok().and_then(|n| n.parse().ok()).unwrap_or(4000);
    let path = talk::temp_db("pairing-load", "swiss");
    let mut service = Service::new(SqliteStore::open(&path).unwrap());
    service.pair_on_worker = true;
    let service = Arc::new(service);
    let say =
        |channel: &str, who: &str, text: &str| talk::say_at(&*service, channel, who, false, text, T0 + 600);
    let created = talk::text(&say("hall", "org", "!t tournament create swiss chess rounds 5 casual"));
    let t: i64 = created.split("Tournament t").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    let store = service.store();
    let open = [TournamentStatus::Open];
    for i in 0..players {
        let p = store.player(PLATFORM, &format!("u{i}"), &format!("player {i}")).unwrap();
        store.add_entrant(t, p.id, 1, 1500, &open, T0).unwrap();
    }
    let clock = Instant::now();
    assert!(talk::text(&say("hall", "org", "!t tournament start")).contains("round 1 is being paired"));
    assert!(service.pairing_step());
    let round1 = clock.elapsed();
    // Every game of round 1 but one ends; the last result is sent as the organiser would.
    let pairings: Vec<_> = store.pairings(t).unwrap().into_iter().filter(|p| p.game.is_some()).collect();
    let (last, rest) = pairings.split_last().unwrap();
    for p in rest {
        let at = PairingAt { round: p.round, board: p.board, leg: p.leg };
        let setting = ResultSetting { result: "1-0", reason: "load", now: T0, expected: None };
        store.set_pairing_result(t, at, &setting, &[]).unwrap();
    }
    // A casual game in another channel, played throughout.
    say("cafe", "ann", "!t challenge @ben chess white");
    say("cafe", "ben", "!t accept");
    let clock = Instant::now();
    let answered =
        talk::text(&say("hall", "org", &format!("!t tournament result #{} 1-0", last.game.unwrap())));
    let result_answer = clock.elapsed();
    assert!(answered.contains("round 2 is being paired"), "{answered}");
    assert_eq!(
        store.tournament(t).unwrap().unwrap().current_round,
        1,
        "answered before the round was paired"
    );
    let done = Arc::new(AtomicBool::new(false));
    let worker = {
        let (service, done) = (Arc::clone(&service), Arc::clone(&done));
        std::thread::spawn(move || {
            let clock = Instant::now();
            service.pairing_step();
            done.store(true, Ordering::SeqCst);
            clock.elapsed()
        })
    };
    let mut latencies = Vec::new();
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut ply = 0;
    while !done.load(Ordering::SeqCst) || latencies.is_empty() {
        if ply == 12 {
            // Before the position could repeat a fifth time: a new game.
            say("cafe", "ann", "!t resign");
            say("cafe", "ann", "!t challenge @ben chess white");
            say("cafe", "ben", "!t accept");
            ply = 0;
        }
        let who = if ply % 2 == 0 { "ann" } else { "ben" };
        let clock = Instant::now();
        let reply = talk::text(&say("cafe", who, moves[ply % 4]));
        latencies.push(clock.elapsed());
        assert!(reply.contains("played"), "{reply}");
        ply += 1;
    }
    let round2 = worker.join().unwrap();
    assert_eq!(store.tournament(t).unwrap().unwrap().current_round, 2, "paired once");
    // The outbox hands out a batch at a time, oldest first: round 1's thousands of notices (its
    // games begun, each player's word) come before round 2's announcement. Post them all.
    let mut announced = false;
    loop {
        let notices = service.outbox_due(Some(&[PLATFORM]));
        if notices.is_empty() {
            break;
        }
        announced |= notices.iter().any(|n| n.text.contains("round 2 of 5 is paired"));
        for id in notices.iter().filter_map(|n| n.outbox) {
            service.notice_sent(id);
        }
    }
    assert!(announced);
    latencies.sort();
    println!(
        "{players} players: round 1 paired in {round1:.1?}; the last result of round 1 answered in {result_answer:.1?}; \
         round 2 paired on the worker in {round2:.1?}, meanwhile {} moves answered in another channel: \
         median {:.1?}, 99th percentile {:.1?}, slowest {:.1?}",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1]
    );
}
