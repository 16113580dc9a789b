//! Driving `tessera-load` processes (scripted players, `bot/src/bin/tessera-load.rs`) for the load
//! benchmark and the failure test: the games they play, what each process says it had
//! acknowledged, and the check afterwards that the database holds exactly those moves.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use tessera_core::model::{GameId, NewGame};
use tessera_core::store::Store;
use tessera_rules::{Game, Position, Variant, notation};

/// Makes `count` games on the platform `load`, each in its channel `load-N` between two players
/// of its own who have turned confirmations off, the variants in turn: the first and last game
/// numbers.
pub fn setup(store: &dyn Store, count: usize) -> (GameId, GameId) {
    let mut ids = Vec::with_capacity(count);
    for i in 0..count {
        let variant = Variant::ALL[i % Variant::ALL.len()];
        let white = store.player("load", &format!("w{i}"), &format!("white{i}")).unwrap().id;
        let black = store.player("load", &format!("b{i}"), &format!("black{i}")).unwrap().id;
        // Players who know what they are doing: a turn that loses by rule is played, not questioned.
        for p in [white, black] {
            store.set_setting(p, "confirm", "off").unwrap();
        }
        let fen = Position::start(variant).fen();
        let channel = format!("load-{i}");
        let game = NewGame {
            platform: "load",
            channel: &channel,
            variant: variant.name(),
            start_fen: &fen,
            white,
            black,
            days_per_move: None,
            rated: false,
            now: tessera_core::service::unix_now(),
            bot: None,
            weekends_off: false,
            definition: None,
        };
        ids.push(store.create_game(&game).unwrap());
    }
    let (first, last) = (ids[0], ids[count - 1]);
    assert_eq!(last - first + 1, count as GameId, "the games are numbered in a row");
    (first, last)
}

/// What one process said.
#[derive(Debug, Default)]
pub struct Said {
    /// Per game, the acknowledged moves: (ply, text).
    pub acks: BTreeMap<GameId, Vec<(usize, String)>>,
    pub refused: Vec<String>,
    /// Moves sent a second time (`--echo`) and refused, as they must be.
    pub echoes_refused: usize,
    /// Moves sent a second time and played again: each a defect.
    pub doubled: Vec<String>,
    /// The `done` summary, when the process got that far.
    pub done: Option<serde_json::Value>,
}

impl Said {
    pub fn moves(&self) -> usize {
        self.acks.values().map(Vec::len).sum()
    }
}

/// A running `tessera-load` and what it has said so far.
pub struct Player {
    pub child: Child,
    pub said: Arc<Mutex<Said>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Player {
    /// Starts `tessera-load` (at `exe`) on `database` for `games`, its part `part` of `parts`,
    /// with its other arguments (`--plies`, `--threads`, `--echo`, …) from `more`.
    pub fn spawn(
        exe: &str,
        database: &str,
        games: (GameId, GameId),
        (part, parts): (usize, usize),
        more: &[&str],
    ) -> Player {
        let mut child = Command::new(exe)
            .args(more)
            .args(["--database", database])
            .args(["--games", &format!("{}-{}", games.0, games.1)])
            .args(["--part", &format!("{part}/{parts}")])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tessera-load starts");
        let said = Arc::new(Mutex::new(Said::default()));
        let out = child.stdout.take().unwrap();
        let into = Arc::clone(&said);
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let mut said = into.lock().unwrap();
                if let Some(rest) = line.strip_prefix("ack ") {
                    let mut parts = rest.splitn(3, ' ');
                    let game: GameId = parts.next().unwrap().parse().unwrap();
                    let ply: usize = parts.next().unwrap().parse().unwrap();
                    said.acks.entry(game).or_default().push((ply, parts.next().unwrap().to_string()));
                } else if let Some(rest) = line.strip_prefix("refused ") {
                    said.refused.push(rest.to_string());
                } else if line.starts_with("echo-refused ") {
                    said.echoes_refused += 1;
                } else if let Some(rest) = line.strip_prefix("doubled ") {
                    said.doubled.push(rest.to_string());
                } else if let Some(rest) = line.strip_prefix("done ") {
                    said.done = Some(serde_json::from_str(rest).unwrap());
                }
            }
        });
        Player { child, said, reader: Some(reader) }
    }

    pub fn acknowledged(&self) -> usize {
        self.said.lock().unwrap().moves()
    }

    /// Waits for the process to end and its output to be read.
    pub fn wait(mut self) -> (std::process::ExitStatus, Said) {
        let status = self.child.wait().unwrap();
        self.reader.take().unwrap().join().unwrap();
        let said = std::mem::take(&mut *self.said.lock().unwrap());
        (status, said)
    }
}

/// Checks the database against what the players were told, game by game: every stored game
/// replays through the rules; every acknowledged move is stored at its ply (none lost); and no
/// move is stored twice or beyond those acknowledged, but for at most `unacknowledged` moves a
/// game (a process killed between its commit and its acknowledgement). Returns the stored moves.
pub fn check(
    store: &dyn Store,
    games: (GameId, GameId),
    said: &[&Said],
    unacknowledged: usize,
) -> Result<usize, String> {
    let mut stored_moves = 0;
    for id in games.0..=games.1 {
        let row = store.game(id).map_err(|e| e.to_string())?.ok_or(format!("game {id} is missing"))?;
        let variant: Variant = row.variant.parse().map_err(|_| format!("game {id}: unknown variant"))?;
        let mut game = Game::new(Position::from_fen(variant, &row.start_fen).map_err(|e| e.to_string())?);
        let mut stored = Vec::new();
        for text in &row.moves {
            let before = game.position().clone();
            let mv =
                game.play_text(text).map_err(|e| format!("game {id}: stored {text} does not replay: {e}"))?;
            stored.push((before, mv));
        }
        let mut acked: Vec<(usize, String)> =
            said.iter().flat_map(|s| s.acks.get(&id).cloned().unwrap_or_default()).collect();
        acked.sort_by_key(|a| a.0);
        for pair in acked.windows(2) {
            if pair[0].0 == pair[1].0 {
                return Err(format!("game {id}: ply {} acknowledged twice", pair[0].0));
            }
        }
        for (ply, text) in &acked {
            let Some((before, mv)) = stored.get(ply - 1) else {
                return Err(format!("game {id}: the acknowledged {text} (ply {ply}) is lost"));
            };
            let meant = notation::parse_move(before, text).map_err(|e| format!("game {id}: {text}: {e}"))?;
            if meant != *mv {
                return Err(format!(
                    "game {id}: ply {ply} was acknowledged as {text} but {} is stored",
                    row.moves[ply - 1]
                ));
            }
        }
        if stored.len() > acked.len() + unacknowledged {
            return Err(format!(
                "game {id}: {} moves stored but {} acknowledged: moves doubled",
                stored.len(),
                acked.len()
            ));
        }
        stored_moves += stored.len();
    }
    Ok(stored_moves)
}

/// The `q` quantile of `sorted` microseconds, in milliseconds.
pub fn quantile_ms(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0
}
