//! The kill -9 driver (issue 13, "never lose a move"): the real `tessera local` process plays
//! several games at once in different channels and is killed with SIGKILL at random moments (a
//! seeded generator: the same seed makes the same run), then restarted on the same data
//! directory, and play goes on from the stored games. A move, challenge, acceptance or
//! resignation counts as acknowledged once the bot's answer to it is on its standard output.
//! After every batch of lines the database must hold every acknowledged move at its ply and every
//! acknowledged challenge, game and resignation, only moves that were sent for their ply, no ply
//! twice, and games that replay through the rules.
//!
//! `cargo test -p tessera-bot --test suites crash::` kills a few times; a long run sets the number of
//! kills (and optionally the seed):
//!
//!     TESSERA_KILLS=2000 TESSERA_SEED=7 cargo test -p tessera-bot --test suites crash:: -- --nocapture

use crate::local_bot;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use local_bot::{INTERNAL_ERROR, LocalBot, Rng, TempDir, count_from_env};
use tessera_core::model::GameRow;
use tessera_core::store::Store;
use tessera_rules::{Color, Game, Position, Variant, notation};
use tessera_store::SqliteStore;

const CHANNELS: usize = 4;
/// Variants whose turns are one action each, so a random legal turn is one short word.
const VARIANTS: [&str; 4] = ["chess", "hans38", "blue-chip", "shrink"];
/// A game this long is resigned, so that new games start now and then.
const LONGEST: usize = 160;
const ANSWER_TIME: Duration = Duration::from_secs(60);

/// One channel and its two players (the challenger plays White).
struct Table {
    channel: String,
    white: String,
    black: String,
}

/// What a line sent to the bot was, to judge its answer.
enum Sent {
    Move {
        game: i64,
        ply: usize,
        text: String,
        player: String,
    },
    Resign {
        game: i64,
        player: String,
    },
    Challenge {
        challenger: String,
    },
    Accept,
    /// A conditional line: if the opponent plays `expected` as move `ply + 1`, `answer` follows.
    Conditional {
        game: i64,
        ply: usize,
        expected: String,
        answer: String,
    },
    Vacation {
        player: String,
        on: bool,
    },
}

#[derive(Default)]
struct Tally {
    kills: usize,
    /// (game, ply) -> the move's text, for every acknowledged move.
    acked_moves: BTreeMap<(i64, usize), String>,
    /// Every move sent: (game, ply, text).
    sent_moves: BTreeSet<(i64, usize, String)>,
    acked_challenges: BTreeSet<i64>,
    acked_games: BTreeSet<i64>,
    acked_resignations: BTreeSet<i64>,
    lost_moves: Vec<String>,
    missing: Vec<String>,
    /// Acknowledged conditional lines: game -> (ply, expected, answer).
    acked_lines: BTreeMap<i64, (usize, String, String)>,
    /// Acknowledged vacations begun, and ended, by player.
    acked_vacations: BTreeMap<String, (usize, usize)>,
}

/// The stored games, replayed: each kept with its replay, extended move by move as it grows.
#[derive(Default)]
struct Replays(HashMap<i64, (Vec<String>, Game)>);

impl Replays {
    fn of(&mut self, row: &GameRow) -> Result<&Game, String> {
        let cached = self.0.get(&row.id).is_some_and(|(moves, _)| row.moves.starts_with(moves));
        if !cached {
            let variant: Variant =
                row.variant.parse().map_err(|_| format!("game #{}: unknown variant", row.id))?;
            let start =
                Position::from_fen(variant, &row.start_fen).map_err(|e| format!("game #{}: {e}", row.id))?;
            self.0.insert(row.id, (Vec::new(), Game::new(start)));
        }
        let (moves, game) = self.0.get_mut(&row.id).expect("just made");
        for (i, text) in row.moves.iter().enumerate().skip(moves.len()) {
            game.play_text(text).map_err(|e| format!("game #{} move {} ({text}): {e}", row.id, i + 1))?;
            moves.push(text.clone());
        }
        Ok(game)
    }
}

/// What the database holds now, checked against everything acknowledged so far.
struct Stored {
    /// The running game of each channel.
    running: BTreeMap<String, GameRow>,
    /// Channels with an open challenge (a kill came between the challenge and its acceptance).
    open: BTreeSet<String>,
    moves: usize,
}

fn verify(db: &std::path::Path, tally: &mut Tally, replays: &mut Replays) -> Stored {
    let store = SqliteStore::open(db).expect("the database opens after a kill");
    let raw = rusqlite::Connection::open(db).unwrap();
    let ids: Vec<i64> = raw
        .prepare("SELECT id FROM games ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let games: BTreeMap<i64, GameRow> =
        ids.into_iter().map(|id| (id, store.game(id).unwrap().unwrap())).collect();
    for (&(game, ply), text) in &tally.acked_moves {
        let stored = games.get(&game).and_then(|r| r.moves.get(ply - 1));
        if stored != Some(text) {
            tally.lost_moves.push(format!("game #{game} ply {ply}: {text} acknowledged, stored {stored:?}"));
        }
    }
    for &game in &tally.acked_games {
        if !games.contains_key(&game) {
            tally.missing.push(format!("game #{game} acknowledged as begun, not stored"));
        }
    }
    for &game in &tally.acked_resignations {
        if games.get(&game).and_then(|g| g.result_reason.as_deref()) != Some("resignation") {
            tally.missing.push(format!("game #{game}: a resignation was acknowledged, not stored"));
        }
    }
    for &c in &tally.acked_challenges {
        let n: i64 =
            raw.query_row("SELECT COUNT(*) FROM challenges WHERE id = ?1", [c], |r| r.get(0)).unwrap();
        if n != 1 {
            tally.missing.push(format!("challenge {c} acknowledged, not stored"));
        }
    }
    // A line acknowledged before the turn it expected: that turn came with its answer, in one
    // transaction, whatever the kill interrupted.
    for (&game, (ply, expected, answer)) in &tally.acked_lines {
        let moves = games.get(&game).map(|g| g.moves.as_slice()).unwrap_or_default();
        if moves.get(*ply) == Some(expected) && moves.get(ply + 1) != Some(answer) {
            tally.missing.push(format!(
                "game #{game}: {expected} came as move {} but not the planned answer {answer} ({:?})",
                ply + 1,
                moves.get(ply + 1)
            ));
        }
    }
    for (player, &(begun, ended)) in &tally.acked_vacations {
        let (stored, over): (i64, i64) = raw
            .query_row(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE ends_at - started_at < 86400) FROM vacations v
                 JOIN players p ON p.id = v.player_id WHERE p.user_id = ?1",
                [player],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        if (stored as usize) < begun || (over as usize) < ended {
            tally.missing.push(format!(
                "{player}: {begun} vacations begun and {ended} ended were acknowledged; stored {stored}, ended {over}"
            ));
        }
    }
    // Plies run 1..n in every game: nothing stored twice, nothing skipped.
    let mut stmt = raw
        .prepare("SELECT game_id, COUNT(*), COUNT(DISTINCT ply), MAX(ply) FROM moves GROUP BY game_id")
        .unwrap();
    let counts = stmt
        .query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, i64>(3)?))
        })
        .unwrap();
    for row in counts {
        let (game, n, distinct, max) = row.unwrap();
        assert!(n == distinct && n == max, "game #{game}: {n} moves, {distinct} plies, last ply {max}");
    }
    let mut running = BTreeMap::new();
    let mut moves = 0;
    for (id, row) in games {
        for (i, text) in row.moves.iter().enumerate() {
            assert!(
                tally.sent_moves.contains(&(id, i + 1, text.clone())),
                "game #{id} ply {}: {text} is stored but was never sent for that ply",
                i + 1
            );
        }
        if let Err(e) = replays.of(&row) {
            panic!("a stored game does not replay: {e}");
        }
        moves += row.moves.len();
        if row.result.is_none() {
            running.insert(row.channel.clone(), row);
        }
    }
    let open = raw
        .prepare("SELECT DISTINCT channel FROM challenges WHERE status = 'open'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    Stored { running, open, moves }
}

/// A random legal turn that does not end the game (so games last), else any legal turn.
/// Counts each "Game #N begins" in `output`.
fn count_starts(starts: &mut BTreeMap<i64, usize>, output: &str) {
    for piece in output.split("[tessera] Game #").skip(1) {
        let mut words = piece.splitn(2, ' ');
        if let (Some(n), Some(rest)) = (words.next(), words.next())
            && rest.starts_with("begins:")
            && let Ok(game) = n.parse()
        {
            *starts.entry(game).or_default() += 1;
        }
    }
}

fn pick_move(game: &Game, rng: &mut Rng) -> String {
    let pos = game.position();
    let mut moves = pos.legal_moves();
    assert!(!moves.is_empty(), "a running game has a legal move");
    loop {
        let mv = moves.swap_remove(rng.below(moves.len()));
        let mut next = game.clone();
        next.play(mv).unwrap();
        if next.outcome().is_none() || moves.is_empty() {
            return notation::lan(pos, &mv).trim_end_matches(['+', '#']).to_string();
        }
    }
}

/// The answer to line `k`: complete, or what the killed process had printed of it.
fn answer_to<'a>(bot: &'a LocalBot, tail: Option<&'a str>, k: usize) -> &'a str {
    match bot.answers.get(k) {
        Some(a) => a,
        None if k == bot.answers.len() => tail.unwrap_or(""),
        None => "",
    }
}

#[test]
fn no_acknowledged_move_is_lost_to_kill_9() {
    let kills_wanted = count_from_env("TESSERA_KILLS", 8);
    let seed = count_from_env("TESSERA_SEED", 13) as u64;
    let mut rng = Rng(seed);
    let tmp = TempDir::new("crash");
    let data = tmp.0.join("data");
    let db = data.join("tessera.sqlite");
    let log = tmp.0.join("stderr.log");
    let tables: Vec<Table> = (0..CHANNELS)
        .map(|i| Table { channel: format!("k{i}"), white: format!("white{i}"), black: format!("black{i}") })
        .collect();
    let mut tally = Tally::default();
    let mut replays = Replays::default();
    let mut bot = LocalBot::spawn(&data, &log);
    bot.ready(ANSWER_TIME);
    let mut stored = Stored { running: BTreeMap::new(), open: BTreeSet::new(), moves: 0 };
    // How long a batch takes to be answered, to aim the kills inside the work.
    let mut latency_us: u64 = 5_000;
    let mut batches = 0usize;
    let mut starts: BTreeMap<i64, usize> = BTreeMap::new();
    let mut until_kill = rng.below(8);
    let started = Instant::now();
    while tally.kills < kills_wanted {
        // A batch: a group of lines for each of some channels, written at once.
        let mut lines: Vec<String> = Vec::new();
        let mut what: Vec<(usize, Sent)> = Vec::new();
        let mut order: Vec<usize> = (0..CHANNELS).collect();
        for _ in 0..1 + rng.below(CHANNELS) {
            let t = &tables[order.swap_remove(rng.below(order.len()))];
            lines.push(format!("/channel {}", t.channel));
            let next = bot.sent() + lines.len() + 1;
            match stored.running.get(&t.channel) {
                Some(row) => {
                    let game = replays.of(row).unwrap();
                    let player = if game.position().turn() == Color::White {
                        t.white.clone()
                    } else {
                        t.black.clone()
                    };
                    let waiting = if player == t.white { t.black.clone() } else { t.white.clone() };
                    let planned = tally.acked_lines.get(&row.id).filter(|l| l.0 == row.moves.len()).cloned();
                    // Now and then the player not to move plans an answer to a turn the driver is
                    // likely to play next; or someone goes on, or comes back from, vacation.
                    let roll = rng.below(10);
                    if roll == 0 && planned.is_none() && row.moves.len() + 2 < LONGEST {
                        let expected = pick_move(game, &mut rng);
                        let mut then = game.clone();
                        then.play_text(&expected).unwrap();
                        if then.outcome().is_none() {
                            let answer = pick_move(&then, &mut rng);
                            let ply = row.moves.len();
                            tally.sent_moves.insert((row.id, ply + 1, expected.clone()));
                            tally.sent_moves.insert((row.id, ply + 2, answer.clone()));
                            // Given privately, in a direct conversation with the bot.
                            lines.push(format!("/channel dm-{waiting}"));
                            lines.push(format!("/as {waiting}"));
                            let at = bot.sent() + lines.len();
                            lines.push(format!("!t conditional #{} {expected} {answer} !", row.id));
                            what.push((at, Sent::Conditional { game: row.id, ply, expected, answer }));
                            continue;
                        }
                    }
                    if roll == 1 {
                        let on = rng.below(2) == 0;
                        lines.push(format!("/as {waiting}"));
                        lines.push(if on { "!t vacation 1d".into() } else { "!t vacation off".into() });
                        what.push((next, Sent::Vacation { player: waiting, on }));
                        continue;
                    }
                    lines.push(format!("/as {player}"));
                    if row.moves.len() >= LONGEST {
                        what.push((next, Sent::Resign { game: row.id, player }));
                        lines.push("!t resign".into());
                    } else {
                        // A planned turn is played most of the time, to set its answer off.
                        let text = match planned {
                            Some((_, expected, _)) if rng.below(4) > 0 => expected,
                            _ => pick_move(game, &mut rng),
                        };
                        let ply = row.moves.len() + 1;
                        tally.sent_moves.insert((row.id, ply, text.clone()));
                        // Confirmed in advance: a random turn may be one the bot would ask about.
                        lines.push(format!("!t move {text} !"));
                        what.push((next, Sent::Move { game: row.id, ply, text, player }));
                    }
                }
                // A challenge a kill left unanswered is accepted; else a new one is made.
                None if stored.open.contains(&t.channel) => {
                    lines.push(format!("/as {}", t.black));
                    lines.push("!t accept".into());
                    what.push((next, Sent::Accept));
                }
                None => {
                    let variant = VARIANTS[rng.below(VARIANTS.len())];
                    lines.push(format!("/as {}", t.white));
                    lines.push(format!("!t challenge @{} {variant} white", t.black));
                    what.push((next, Sent::Challenge { challenger: t.white.clone() }));
                    lines.push(format!("/as {}", t.black));
                    lines.push("!t accept".into());
                    what.push((next + 2, Sent::Accept));
                }
            }
        }
        let kill = until_kill == 0;
        let begun = Instant::now();
        let first = bot.send(&lines);
        let tail = if kill {
            // Anywhere from before the first line is read to after the last is answered.
            let delay = rng.next() % (latency_us * 3 / 2 + 1);
            std::thread::sleep(Duration::from_micros(delay));
            Some(bot.kill())
        } else {
            bot.wait_all(ANSWER_TIME);
            latency_us = (latency_us * 3 + begun.elapsed().as_micros() as u64) / 4;
            None
        };
        batches += 1;
        for answer in
            bot.answers[first.min(bot.answers.len())..].iter().map(String::as_str).chain(tail.as_deref())
        {
            count_starts(&mut starts, answer);
        }
        for (k, sent) in what {
            let answer = answer_to(&bot, tail.as_deref(), k);
            assert!(!answer.contains(INTERNAL_ERROR), "line {k} got an internal error: {answer}");
            let acked = match sent {
                Sent::Move { game, ply, text, player } => {
                    let acked = answer.contains(&format!("[tessera] {player} played "));
                    if acked {
                        tally.acked_moves.insert((game, ply), text);
                    }
                    acked
                }
                Sent::Resign { game, player } => {
                    let acked = answer.contains(&format!("[tessera] {player} resigns game #{game}."));
                    if acked {
                        tally.acked_resignations.insert(game);
                    }
                    acked
                }
                Sent::Challenge { challenger } => {
                    let key = format!("[tessera] {challenger} challenges ");
                    let id = answer
                        .find(&key)
                        .and_then(|at| answer[at..].split("(challenge ").nth(1))
                        .and_then(|s| s.split(')').next())
                        .and_then(|s| s.parse().ok());
                    id.map(|id| tally.acked_challenges.insert(id)).is_some()
                }
                Sent::Conditional { game, ply, expected, answer: planned } => {
                    let acked = answer.contains(&format!("Saved for game #{game}"));
                    if acked {
                        tally.acked_lines.insert(game, (ply, expected, planned));
                    }
                    acked
                }
                Sent::Vacation { player, on } => {
                    let acked = answer.contains(if on { "Enjoy your vacation" } else { "Welcome back" });
                    if acked {
                        let counts = tally.acked_vacations.entry(player).or_default();
                        if on { counts.0 += 1 } else { counts.1 += 1 }
                    }
                    // Whether one runs is not known here after a kill: the refusal is an answer too.
                    acked || answer.contains("on vacation already") || answer.contains("not on vacation")
                }
                Sent::Accept => {
                    let id = answer
                        .split("[tessera] Game #")
                        .nth(1)
                        .and_then(|rest| rest.split(' ').next())
                        .and_then(|s| s.parse().ok());
                    id.map(|id| tally.acked_games.insert(id)).is_some()
                }
            };
            // Without a kill every line is answered as the driver expects.
            assert!(acked || kill, "line {k} was not acknowledged: {answer}");
        }
        if kill {
            tally.kills += 1;
            until_kill = rng.below(8);
            // Restart first, so the bot itself recovers the database after the kill.
            bot = LocalBot::spawn(&data, &log);
            bot.ready(ANSWER_TIME);
            // What the killed process stored but never showed, shown now.
            count_starts(&mut starts, &bot.preamble);
        } else {
            until_kill -= 1;
        }
        stored = verify(&db, &mut tally, &mut replays);
        assert!(tally.lost_moves.is_empty(), "acknowledged moves lost: {:#?}", tally.lost_moves);
        assert!(tally.missing.is_empty(), "acknowledged, not stored: {:#?}", tally.missing);
    }
    bot.quit();
    // Every game stored was announced as begun: once, or twice when the kill fell between
    // printing the announcement and marking it sent.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let games: Vec<i64> = raw
        .prepare("SELECT id FROM games")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for game in &games {
        let n = starts.get(game).copied().unwrap_or(0);
        assert!((1..=2).contains(&n), "game #{game}'s start was announced {n} times");
    }
    let twice = starts.values().filter(|&&n| n == 2).count();
    println!("{} games begun, each announced ({twice} twice)", games.len());
    let errors = std::fs::read_to_string(&log).unwrap_or_default();
    let unexpected: Vec<&str> =
        errors.lines().filter(|l| !l.contains(" INFO tessera::cli: games are kept here ")).collect();
    assert!(unexpected.is_empty(), "the bot's standard error: {unexpected:#?}");
    println!(
        "kills: {}, acknowledged moves: {}, lost: {}; acknowledged challenges: {}, games begun: {}, \
         resignations: {}, missing: {}; batches: {batches}, stored moves: {}, seed {seed}, {:.1} s",
        tally.kills,
        tally.acked_moves.len(),
        tally.lost_moves.len(),
        tally.acked_challenges.len(),
        tally.acked_games.len(),
        tally.acked_resignations.len(),
        tally.missing.len(),
        stored.moves,
        started.elapsed().as_secs_f64()
    );
}
