//! What a tournament player waits for when their game ends: the resignation, and the tournament
//! moving on (a snapshot of every round; at the round's last game, the next round paired, stored
//! and announced). A Swiss of 200 on a file database, each game 30 plies long.
//! Run: `cargo bench -p tessera-bot --bench tournament`.

use std::time::Instant;

use tessera_core::service::{Incoming, Service, User};
use tessera_core::store::Store;
use tessera_core::store::TournamentStore;
use tessera_store::SqliteStore;

const PLAYERS: usize = 200;
const T0: i64 = 1_800_000_000;

fn say(service: &Service<SqliteStore>, who: &str, text: &str) -> usize {
    let author = User::new(who, who);
    let msg = Incoming {
        platform: "bench",
        channel: "club",
        author: &author,
        is_admin: false,
        text,
        mentions: &[],
        now: T0,
        thread: None,
    };
    service.handle(&msg).len()
}

fn main() {
    let dir = std::env::temp_dir().join(format!("tessera-bench-tn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let service = Service::new(SqliteStore::open(&dir.join("t.sqlite")).unwrap());
    say(&service, "org", "!t tournament create swiss chess rounds 5 casual");
    for i in 0..PLAYERS {
        say(&service, &format!("p{i}"), "!t tournament join");
    }
    say(&service, "org", "!t tournament start");
    // Knights out and back between pawn moves: 30 legal plies that never repeat a position.
    let shuffle = [
        "h3", "h6", "Nf3", "Nf6", "Ng1", "Ng8", "h4", "h5", "Nf3", "Nf6", "Ng1", "Ng8", "a3", "a6", "Nf3",
        "Nf6", "Ng1", "Ng8", "a4", "a5", "Nf3", "Nf6", "Ng1", "Ng8", "b3", "b6", "Nf3", "Nf6", "Ng1", "Ng8",
    ];
    for round in 1..=4u32 {
        let store = service.store();
        let pairings: Vec<_> =
            store.pairings(1).unwrap().into_iter().filter(|p| p.round == round && p.game.is_some()).collect();
        for p in &pairings {
            let game = p.game.unwrap();
            for ply in 1..=30 {
                store.append_move(game, ply, shuffle[ply - 1], None, T0).unwrap();
            }
        }
        let mut mid = Vec::new();
        let mut last = 0.0;
        for (i, p) in pairings.iter().enumerate() {
            let loser = store.player_by_id(p.black.unwrap()).unwrap().unwrap().user_id;
            let started = Instant::now();
            let answered = say(&service, &loser, &format!("!t resign #{}", p.game.unwrap()));
            assert!(answered > 0);
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if i + 1 == pairings.len() { last = ms } else { mid.push(ms) }
        }
        mid.sort_by(|a, b| a.total_cmp(b));
        println!(
            "round {round}: a game ends mid-round p50 {:.1} ms, p95 {:.1} ms; the round's last game (pairs round {}) {:.0} ms",
            mid[mid.len() / 2],
            mid[mid.len() * 95 / 100],
            round + 1,
            last
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
