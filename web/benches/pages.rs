//! What a spectator waits for: a published Swiss of 4,000 players (three rounds paired, two of
//! them finished, the third half played) and a game of 120 plies, answered by the router as a
//! browser asks. "Cold" is a page's first visitor since the server started (a new router each
//! time: its data is read from the store and built); "warm" is every visitor after, who finds the
//! data kept (or, a second later, served while it is rebuilt in the background). Each is printed as p50
//! and p95 over its own samples, then measured by criterion. The tournament's PGN (every game
//! replayed) is measured the same way: cold is its build, warm the kept text.
//! Run: `cargo bench -p tessera-web --bench pages`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use criterion::Criterion;
use tessera_core::model::{Format, GameTemplate, NewPairing, NewTournament, PairingKind, TournamentStatus};
use tessera_core::public::Publication;
use tessera_core::service::Service;
use tessera_core::store::{Store, TournamentStore};
use tessera_rules::{Game, Position, Variant, notation};
use tessera_store::SqliteStore;
use tessera_web::{WebOptions, router};
use tower::ServiceExt;

const PLAYERS: usize = 4_000;
const T0: i64 = 1_800_000_000;
const TOKEN: &str = "benchtournament";
const GAME_PLIES: usize = 120;

/// A legal game of `plies` plies that has not ended, picked by a fixed generator.
fn long_game(plies: usize) -> Vec<String> {
    for seed in 1u64.. {
        let mut rng = seed;
        let mut game = Game::from_variant(Variant::CHESS);
        let mut texts = Vec::with_capacity(plies);
        while texts.len() < plies && game.outcome().is_none() {
            let moves = game.position().legal_moves();
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let mv = moves[(rng >> 33) as usize % moves.len()];
            texts.push(notation::san(game.position(), &mv));
            game.play(mv).unwrap();
        }
        if texts.len() == plies && game.outcome().is_none() {
            return texts;
        }
    }
    unreachable!()
}

/// The tournament, built through the store: the service, the tournament's and the long game's numbers.
fn club() -> (Arc<Service<SqliteStore>>, i64, i64) {
    let store = SqliteStore::in_memory().unwrap();
    let org = store.player("bench", "org", "Organiser").unwrap();
    let t = store
        .create_tournament(&NewTournament {
            platform: "bench",
            channel: "club",
            name: "The Big Swiss",
            organiser: org.id,
            variant: "chess",
            format: Format::Swiss,
            rounds: 9,
            days_per_move: Some(3),
            rated: false,
            starts_at: None,
            max_players: None,
            bye_halves: 2,
            now: T0,
            vacation_days: None,
            definition: None,
        })
        .unwrap();
    let mut players = Vec::with_capacity(PLAYERS);
    for i in 0..PLAYERS {
        let p = store.player("bench", &format!("p{i}"), &format!("Player number {i}")).unwrap();
        let rating = 2_400 - (i as i64 % 1_000);
        store.add_entrant(t, p.id, 1, rating, &[TournamentStatus::Open], T0).unwrap();
        players.push((p.id, rating));
    }
    let start_fen = Position::start(Variant::CHESS).fen();
    let template = GameTemplate {
        platform: "bench",
        channel: "club",
        variant: "chess",
        start_fen: &start_fen,
        days_per_move: Some(3),
        rated: false,
        now: T0,
        definition: None,
    };
    let half = PLAYERS / 2;
    for round in 1..=3u32 {
        // Top half against bottom half, shifted a board a round: no pair meets twice.
        let pairings: Vec<NewPairing> = (0..half)
            .map(|b| {
                let (top, bottom) = (players[b].0, players[half + (b + round as usize - 1) % half].0);
                let (white, black) =
                    if (b + round as usize).is_multiple_of(2) { (top, bottom) } else { (bottom, top) };
                NewPairing {
                    board: b as u32 + 1,
                    leg: 0,
                    white,
                    black: Some(black),
                    kind: PairingKind::Game,
                    result: None,
                }
            })
            .collect();
        assert!(store.pair_round(t, round, &players, &pairings, &template, &[]).unwrap());
        let games: Vec<_> = store.pairings(t).unwrap().into_iter().filter(|p| p.round == round).collect();
        let to_finish = if round < 3 { games.len() } else { games.len() / 2 };
        for (i, p) in games.iter().take(to_finish).enumerate() {
            let result = ["1-0", "0-1", "1/2-1/2"][i % 3];
            store.finish(p.game.unwrap(), result, "resignation", T0 + 3_600).unwrap();
        }
    }
    // The long game: the last board of round 3, still being played.
    let long = store.pairings(t).unwrap().into_iter().rfind(|p| p.round == 3).unwrap().game.unwrap();
    for (i, text) in long_game(GAME_PLIES).iter().enumerate() {
        store.append_move(long, i + 1, text, None, T0 + 60 * i as i64).unwrap();
    }
    store.publish(Publication::Tournament(t), TOKEN, org.id, T0).unwrap();
    (Arc::new(Service::new(store)), t, long)
}

async fn get(router: &Router, path: &str) -> usize {
    let response = router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    axum::body::to_bytes(response.into_body(), 64 << 20).await.unwrap().len()
}

/// p50 and p95 of `samples` runs of `run`, in milliseconds.
fn timed(samples: usize, mut run: impl FnMut()) -> (f64, f64) {
    let mut ms = Vec::with_capacity(samples);
    for _ in 0..samples {
        let started = Instant::now();
        run();
        ms.push(started.elapsed().as_secs_f64() * 1_000.0);
    }
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[(ms.len() * 95).div_ceil(100) - 1])
}

/// p50 and p95 of `samples` answers to `path`, in milliseconds, each by the router `new` makes.
fn percentiles(
    rt: &tokio::runtime::Runtime,
    new: impl Fn() -> Router,
    path: &str,
    samples: usize,
) -> (f64, f64, usize) {
    let mut ms = Vec::with_capacity(samples);
    let mut size = 0;
    for _ in 0..samples {
        let router = new();
        let started = Instant::now();
        size = rt.block_on(get(&router, path));
        ms.push(started.elapsed().as_secs_f64() * 1_000.0);
    }
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[(ms.len() * 95).div_ceil(100) - 1], size)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let started = Instant::now();
    let (service, t, long) = club();
    println!("built a Swiss of {PLAYERS} players in {:.1} s", started.elapsed().as_secs_f64());
    // What a cold page spends reading the store and building its data (the core's part).
    let (p50, p95) = timed(20, || drop(service.public_tournament(t).unwrap()));
    println!("tournament data alone (public_tournament): p50 {p50:.2} ms, p95 {p95:.2} ms");
    let (p50, p95) = timed(20, || drop(service.public_game(long).unwrap().unwrap()));
    println!("game data alone (public_game, {GAME_PLIES} plies): p50 {p50:.2} ms, p95 {p95:.2} ms");
    let (p50, p95) = timed(5, || drop(service.tournament_pgn(t).unwrap()));
    println!("tournament PGN alone (tournament_pgn): p50 {p50:.2} ms, p95 {p95:.2} ms");
    // Unlimited rate: the bench is one client asking as fast as it can.
    let unlimited =
        WebOptions { rate: tessera_web::Rate { burst: u32::MAX, per_second: 1e9 }, ..WebOptions::default() };
    let cold = || router(service.clone(), unlimited.clone());
    let warm = router(service.clone(), unlimited.clone());
    let pages = [
        ("tournament page", format!("/t/{TOKEN}")),
        ("tournament page 40 of standings", format!("/t/{TOKEN}?page=40&round=3&boards=20")),
        ("game page, 120 plies", format!("/t/{TOKEN}/g/{long}?ply=60")),
        ("board picture", format!("/t/{TOKEN}/g/{long}/ply/60.png")),
        // Every game replayed: built once per change of the tournament, then kept.
        ("tournament PGN", format!("/t/{TOKEN}/pgn")),
    ];
    for (what, path) in &pages {
        let (p50, p95, size) = percentiles(&rt, cold, path, 20);
        println!("{what} (cold): p50 {p50:.2} ms, p95 {p95:.2} ms ({size} bytes, 20 samples)");
        let (p50, p95, size) = percentiles(&rt, || warm.clone(), path, 300);
        println!("{what} (warm): p50 {p50:.2} ms, p95 {p95:.2} ms ({size} bytes, 300 samples)");
    }
    let mut c =
        Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5)).configure_from_args();
    for (what, path) in &pages {
        c.bench_function(&format!("{what} (cold)"), |b| {
            b.iter_batched(cold, |router| rt.block_on(get(&router, path)), criterion::BatchSize::PerIteration)
        });
        c.bench_function(&format!("{what} (warm)"), |b| b.iter(|| rt.block_on(get(&warm, path))));
    }
    c.final_summary();
}
