//! The load benchmark (issue 17): 1,000 games in play at once, moved by scripted players through
//! the game service (`tessera-load`, one OS process per bot process, each owning its share of the
//! channels as a Discord shard would), on PostgreSQL with 1, 2 and 4 processes and on SQLite with
//! one. Reported: moves per second over the whole run, the p50 and p99 of one move's latency (the
//! service's answer: parse, rebuild the game, check, commit, draw the picture), and the check
//! afterwards that every stored game replays and holds exactly the acknowledged moves. Every
//! tenth move is sent twice, as a message delivered twice would be: the second must be refused.
//!
//! Both databases sync every commit to disk (SQLite `synchronous = FULL`; PostgreSQL started
//! with `fsync` and `synchronous_commit` on), on this machine, as a bot would run.
//!
//!     cargo bench -p tessera-bot --bench load
//!
//! Knobs: `TESSERA_LOAD_GAMES` (1000), `TESSERA_LOAD_PLIES` (plies per game, 20),
//! `TESSERA_LOAD_THREADS` (worker threads per process, 8), `TESSERA_LOAD_RUNS`
//! (`sqlite:1,postgres:1,postgres:2,postgres:4`), `TESSERA_LOAD_BOARD` (picture size, 512).

#[path = "../tests/support/load.rs"]
mod load;
#[path = "../tests/support/postgres.rs"]
mod postgres;

use std::time::Instant;

use tessera_store::database::Database;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let games = knob("TESSERA_LOAD_GAMES", 1000);
    let plies = knob("TESSERA_LOAD_PLIES", 20);
    let threads = knob("TESSERA_LOAD_THREADS", 8);
    let board = knob("TESSERA_LOAD_BOARD", 512);
    let runs =
        std::env::var("TESSERA_LOAD_RUNS").unwrap_or("sqlite:1,postgres:1,postgres:2,postgres:4".into());
    let cluster =
        if runs.contains("postgres") { postgres::Cluster::start_durable_or_skip("bench load") } else { None };
    let tmp = std::env::temp_dir().join(format!("tessera-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    println!(
        "{games} games in play at once, {plies} plies each, {threads} threads a process, {board}px pictures"
    );
    println!(
        "| database | processes | moves | seconds | moves/s | p50 ms | p99 ms | max ms | lost or doubled |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for run in runs.split(',') {
        let (kind, processes) = run.split_once(':').expect("runs are KIND:PROCESSES");
        let processes: usize = processes.parse().expect("a number of processes");
        let address = match kind {
            "sqlite" => tmp.join(format!("{run}.sqlite").replace(':', "-")).display().to_string(),
            "postgres" => match &cluster {
                Some(c) => c.database(&format!("load{processes}")),
                None => continue,
            },
            other => panic!("unknown database kind {other}"),
        };
        let store = tessera_store::open(&Database::parse(&address)).unwrap();
        let range = load::setup(&*store, games);
        let started = Instant::now();
        let players: Vec<load::Player> = (0..processes)
            .map(|part| {
                let (plies, threads, board) = (plies.to_string(), threads.to_string(), board.to_string());
                let more = ["--plies", &plies, "--threads", &threads, "--board-size", &board, "--echo", "10"];
                load::Player::spawn(
                    env!("CARGO_BIN_EXE_tessera-load"),
                    &address,
                    range,
                    (part, processes),
                    &more,
                )
            })
            .collect();
        let mut said = Vec::new();
        for p in players {
            let (status, s) = p.wait();
            assert!(status.success(), "a load process failed");
            said.push(s);
        }
        let seconds = started.elapsed().as_secs_f64();
        let mut latencies: Vec<u64> = said
            .iter()
            .flat_map(|s| s.done.as_ref().unwrap()["latencies_us"].as_array().unwrap().clone())
            .map(|v| v.as_u64().unwrap())
            .collect();
        latencies.sort_unstable();
        let acknowledged: usize = said.iter().map(load::Said::moves).sum();
        let refused: usize = said.iter().map(|s| s.refused.len()).sum();
        let echoes: usize = said.iter().map(|s| s.echoes_refused).sum();
        let doubled: usize = said.iter().map(|s| s.doubled.len()).sum();
        let said_refs: Vec<&load::Said> = said.iter().collect();
        let verdict = match load::check(&*store, range, &said_refs, 0) {
            Ok(stored) if stored == acknowledged && refused == 0 && doubled == 0 => {
                format!("none ({echoes} moves sent twice, each second one refused)")
            }
            Ok(stored) => {
                format!("{stored} stored, {acknowledged} acknowledged, {refused} refused, {doubled} doubled")
            }
            Err(e) => e,
        };
        println!(
            "| {kind} | {processes} | {acknowledged} | {seconds:.1} | {:.0} | {:.1} | {:.1} | {:.1} | {verdict} |",
            acknowledged as f64 / seconds,
            load::quantile_ms(&latencies, 0.5),
            load::quantile_ms(&latencies, 0.99),
            load::quantile_ms(&latencies, 1.0),
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
