//! Scripted players for the load benchmark and the failure test (issue 17): one process of a bot
//! deployment, playing its share of games through the game service exactly as chat messages would
//! arrive, on a shared database.
//!
//! `tessera-load --database ADDR --games 1-1000 --part 0/2 --plies 20 --threads 8` plays the games
//! whose number modulo 2 is 0 (a process owns its channels, as a Discord shard does): each thread
//! takes its games in turn, one move per game per pass, so every game is in play at once. A move is
//! a legal turn picked by a generator seeded from the game and ply, that does not end the game.
//! It starts from whatever the database holds, so a process started after another died carries
//! on where the moves stop.
//!
//! Output, one line each, flushed as it happens (a process killed mid-run leaves every line it
//! wrote): `ack GAME PLY TEXT` for each move the service acknowledged (a board posted in the
//! channel), `refused GAME PLY TEXT: REPLY` for any other answer, with `--echo N` also
//! `echo-refused GAME PLY TEXT` (or `doubled …`, a defect) for the moves sent twice, and at the end
//! `done {"moves":…,"refused":…,"seconds":…,"latencies_us":[…]}`.

use std::io::Write as _;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use tessera_core::model::GameId;
use tessera_core::service::{Incoming, Service, User, unix_now};
use tessera_core::store::Store;
use tessera_rules::{Game, Position, notation};
use tessera_store::AnyStore;
use tessera_store::database::Database;

#[derive(Debug, Parser)]
struct Args {
    /// The database: an SQLite file, or `postgres://…`.
    #[arg(long)]
    database: String,
    /// The games to play among: `FIRST-LAST` by number.
    #[arg(long)]
    games: String,
    /// This process's share: `K/P` plays the games whose number modulo P is K.
    #[arg(long, default_value = "0/1")]
    part: String,
    /// Stop each game after this many plies in all.
    #[arg(long, default_value_t = 20)]
    plies: usize,
    #[arg(long, default_value_t = 8)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The pictures' size in pixels (the service draws one after every move).
    #[arg(long, default_value_t = 512)]
    board_size: u32,
    /// Sends every Nth acknowledged move again at once, as a message delivered twice or a
    /// double click would: it must be refused (0: never).
    #[arg(long, default_value_t = 0)]
    echo: usize,
}

fn pair(text: &str, sep: char, what: &str) -> Result<(u64, u64)> {
    let (a, b) = text.split_once(sep).with_context(|| format!("{what}: expected A{sep}B, not {text}"))?;
    Ok((a.trim().parse().context(what.to_string())?, b.trim().parse().context(what.to_string())?))
}

/// One game as this process plays it.
struct Playing {
    id: GameId,
    channel: String,
    /// Platform user ids and names, White then Black.
    players: [User; 2],
    game: Game,
}

/// A stable 64-bit mix (splitmix64): the same game, ply and seed always pick the same move.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A legal turn that does not end the game, where there is one, and how the player types it.
fn pick(game: &Game, seed: u64, id: GameId, ply: usize) -> Option<(tessera_rules::Move, String)> {
    let position = game.position();
    let moves = position.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let start = mix(seed ^ mix(id as u64) ^ mix(ply as u64 + 1)) as usize % moves.len();
    let goes_on = |mv: &tessera_rules::Move| {
        let mut next = game.clone();
        next.play(*mv).is_ok() && next.outcome().is_none()
    };
    let mv = (0..moves.len()).map(|i| moves[(start + i) % moves.len()]).find(goes_on)?;
    Some((mv, notation::san(position, &mv)))
}

fn load(store: &AnyStore, id: GameId) -> Result<Option<Playing>> {
    let Some(row) = store.game(id)? else { return Ok(None) };
    if row.result.is_some() {
        return Ok(None);
    }
    let variant = tessera_core::variants::stored_variant(store, &row.variant, row.variant_key.as_deref())
        .map_err(|e| anyhow::anyhow!("game {id}: {e}"))?;
    let mut game = Game::new(Position::from_fen(variant, &row.start_fen)?);
    for text in &row.moves {
        game.play_text(text).map_err(|e| anyhow::anyhow!("game {id}: stored {text}: {e}"))?;
    }
    let user = |p| -> Result<User> {
        let p = store.player_by_id(p)?.with_context(|| format!("game {id}: a player is missing"))?;
        Ok(User::new(p.user_id, p.name))
    };
    Ok(Some(Playing {
        id,
        channel: row.channel.clone(),
        players: [user(row.white)?, user(row.black)?],
        game,
    }))
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() -> Result<()> {
    let args = Args::parse();
    let (first, last) = pair(&args.games, '-', "--games")?;
    let (part, parts) = pair(&args.part, '/', "--part")?;
    if parts == 0 || part >= parts || first > last {
        bail!("--part K/P needs K < P, and --games FIRST-LAST needs FIRST <= LAST");
    }
    let database = Database::parse(&args.database);
    let mine: Vec<GameId> = (first..=last).filter(|g| g % parts == part).map(|g| g as GameId).collect();
    let threads = args.threads.clamp(1, 256);
    let started = Instant::now();
    let (latencies, refused) = std::thread::scope(|scope| -> Result<(Vec<u64>, usize)> {
        let mut handles = Vec::new();
        for t in 0..threads {
            let share: Vec<GameId> = mine.iter().copied().skip(t).step_by(threads).collect();
            let (database, args) = (&database, &args);
            handles.push(scope.spawn(move || -> Result<(Vec<u64>, usize)> {
                // A connection per thread, as each of a process's workers would use the pool.
                let mut service = Service::new(tessera_store::open(database)?);
                service.render.size = args.board_size;
                let mut games = Vec::new();
                for id in share {
                    games.extend(load(service.store(), id)?);
                }
                let mut latencies = Vec::new();
                let mut refused = 0;
                let mut sent = 0usize;
                while !games.is_empty() {
                    games.retain_mut(|p| {
                        let ply = p.game.moves().len() + 1;
                        if ply > args.plies {
                            return false;
                        }
                        let Some((mv, text)) = pick(&p.game, args.seed, p.id, ply) else { return false };
                        let author =
                            &p.players[usize::from(p.game.position().turn() != tessera_rules::Color::White)];
                        let msg = Incoming {
                            platform: "load",
                            channel: &p.channel,
                            author,
                            is_admin: false,
                            text: &text,
                            mentions: &[],
                            now: unix_now(),
                            thread: None,
                        };
                        let asked = Instant::now();
                        let replies = service.handle(&msg);
                        latencies.push(asked.elapsed().as_micros() as u64);
                        let acknowledged = |replies: &[tessera_core::service::Reply]| {
                            replies.iter().any(|r| !r.private && r.image.is_some())
                        };
                        if acknowledged(&replies) {
                            say(&format!("ack {} {ply} {text}", p.id));
                            sent += 1;
                            if args.echo > 0 && sent.is_multiple_of(args.echo) {
                                let again = service.handle(&Incoming { now: unix_now(), ..msg });
                                let verdict = if acknowledged(&again) { "doubled" } else { "echo-refused" };
                                say(&format!("{verdict} {} {ply} {text}", p.id));
                            }
                            p.game.play(mv).is_ok()
                        } else {
                            let why: Vec<&str> = replies.iter().map(|r| r.text.as_str()).collect();
                            say(&format!(
                                "refused {} {ply} {text}: {}",
                                p.id,
                                why.join(" / ").replace('\n', " ")
                            ));
                            refused += 1;
                            false
                        }
                    });
                }
                Ok((latencies, refused))
            }));
        }
        let (mut latencies, mut refused) = (Vec::new(), 0);
        for h in handles {
            let (more, refusals) = h.join().map_err(|_| anyhow::anyhow!("a player thread panicked"))??;
            latencies.extend(more);
            refused += refusals;
        }
        Ok((latencies, refused))
    })?;
    let done = serde_json::json!({
        "moves": latencies.len() - refused,
        "refused": refused,
        "seconds": started.elapsed().as_secs_f64(),
        "latencies_us": latencies,
    });
    say(&format!("done {done}"));
    Ok(())
}
