//! Matches that measure the practice opponent's strength (issue 16): level 5 against a random mover and a
//! one-ply greedy player in every variant, each level against the next, and in FIDE chess level 5 against
//! Stockfish at a few skill levels.
//!
//! Run: `cargo bench -p tessera-engine --bench matches`. The knobs are environment variables, described in
//! `docs/opponent.md` ("Measuring strength") and in [`Config::from_env`]. Progress goes to stderr; the
//! tables to stdout; the same with every game's seed and record to `target/matches.json`.
//!
//! Nothing here is taken on trust: a player that returns no move while the game is on, or a move that is
//! not legal, is a failure of its pairing (the game counts as its loss, is listed, and the run exits 1).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tessera_engine::{Level, Limits, Searcher};
use tessera_rules::{
    Color, DrawReason, Game, Move, Outcome, Position, Role, StalemateRule, Variant, notation,
};

// ---------------------------------------------------------------------------------------------------------
// Configuration

const PAIRING_KINDS: [&str; 5] = ["random", "greedy", "ladder", "pruning", "stockfish"];

#[derive(Clone, Debug)]
struct Config {
    variants: Vec<Variant>,
    games: u32,
    /// The cap on every level's movetime, if any.
    movetime: Option<Duration>,
    /// Every level's movetime is multiplied by this.
    time_scale: f64,
    pairings: Vec<&'static str>,
    threads: usize,
    max_plies: usize,
    seed: u64,
    stockfish: Option<PathBuf>,
    sf_skills: Vec<u32>,
    sf_elos: Vec<u32>,
    /// Stockfish's time per move; `None`: the same as the engine's.
    sf_movetime: Option<Duration>,
    /// The ladder's steps, by the weaker level: `k` plays level k+1 against level k.
    ladder: Vec<u32>,
    out: PathBuf,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    match env(name) {
        None => default,
        Some(text) => text.parse().unwrap_or_else(|_| die(&format!("{name}={text:?}: not a number"))),
    }
}

fn env_list(name: &str) -> Option<Vec<String>> {
    env(name).map(|s| s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect())
}

fn die(msg: &str) -> ! {
    eprintln!("matches: {msg}");
    std::process::exit(2)
}

impl Config {
    /// Every knob, read once:
    ///
    /// - `TESSERA_MATCH_VARIANTS`: comma list of variant names (default: all);
    /// - `TESSERA_MATCH_GAMES`: games per pairing (default 100);
    /// - `TESSERA_MATCH_MOVETIME_MS`: a cap on every level's movetime (default: each level's own budget);
    /// - `TESSERA_MATCH_TIME_SCALE`: every level's movetime times this (default 1), which keeps the
    ///   levels' proportions where a cap would make them all alike;
    /// - `TESSERA_MATCH_PAIRINGS`: subset of `random,greedy,ladder,pruning,stockfish` (default: all);
    /// - `TESSERA_MATCH_THREADS`: games played at once (default 1);
    /// - `TESSERA_MATCH_MAX_PLIES`: turns before a game is stopped and scored a draw (default 3,000: far
    ///   enough that games end by the rules; Hans38 Neutral's run past 1,100 plies, and one stopped
    ///   unfinished would be counted as drawn);
    /// - `TESSERA_MATCH_SEED`: the seed every game's seed derives from (default 1);
    /// - `TESSERA_STOCKFISH`: Stockfish's path (default: `stockfish` on the PATH, then `/usr/games/stockfish`);
    /// - `TESSERA_MATCH_SF_SKILLS`: Stockfish `Skill Level`s (default `0,3,6,10`);
    /// - `TESSERA_MATCH_SF_ELOS`: Stockfish `UCI_Elo`s, played as well (default none; 1350 at least);
    /// - `TESSERA_MATCH_SF_MOVETIME_MS`: Stockfish's time per move (default: the engine's);
    /// - `TESSERA_MATCH_LADDER`: the ladder's steps by the weaker level (default `1,2,3,4`), to
    ///   spend a run's time on the steps in question;
    /// - `TESSERA_MATCH_OUT`: where the JSON goes (default `$CARGO_TARGET_DIR/matches.json`, else `target/`).
    fn from_env() -> Config {
        let variants = match env_list("TESSERA_MATCH_VARIANTS") {
            None => Variant::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|n| {
                    n.parse::<Variant>().unwrap_or_else(|e| die(&format!("TESSERA_MATCH_VARIANTS: {e}")))
                })
                .collect(),
        };
        let pairings = match env_list("TESSERA_MATCH_PAIRINGS") {
            None => PAIRING_KINDS.to_vec(),
            Some(names) => names
                .iter()
                .map(|n| {
                    let n = n.to_ascii_lowercase();
                    *PAIRING_KINDS.iter().find(|k| **k == n).unwrap_or_else(|| {
                        die(&format!("TESSERA_MATCH_PAIRINGS: unknown {n:?}; choose from {PAIRING_KINDS:?}"))
                    })
                })
                .collect(),
        };
        let nums = |name: &str, default: Vec<u32>| -> Vec<u32> {
            env_list(name).map_or(default, |l| {
                l.iter()
                    .map(|t| t.parse().unwrap_or_else(|_| die(&format!("{name}: {t:?} is not a number"))))
                    .collect()
            })
        };
        let ms = |name: &str| env(name).map(|_| Duration::from_millis(env_num(name, 0u64)));
        let stockfish = match env("TESSERA_STOCKFISH") {
            Some(p) => Some(PathBuf::from(p)),
            None => find_on_path("stockfish").or_else(|| {
                let p = PathBuf::from("/usr/games/stockfish");
                p.is_file().then_some(p)
            }),
        };
        let out = env("TESSERA_MATCH_OUT").map(PathBuf::from).unwrap_or_else(|| {
            let target = env("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("target"));
            target.join("matches.json")
        });
        let config = Config {
            variants,
            games: env_num("TESSERA_MATCH_GAMES", 100),
            movetime: ms("TESSERA_MATCH_MOVETIME_MS"),
            time_scale: env("TESSERA_MATCH_TIME_SCALE").map_or(1.0, |t| {
                t.parse::<f64>()
                    .ok()
                    .filter(|x| *x > 0.0 && *x <= 1.0)
                    .unwrap_or_else(|| die("TESSERA_MATCH_TIME_SCALE: a number above 0, at most 1"))
            }),
            pairings,
            threads: env_num("TESSERA_MATCH_THREADS", 1usize).max(1),
            max_plies: env_num("TESSERA_MATCH_MAX_PLIES", 3_000),
            seed: env_num("TESSERA_MATCH_SEED", 1),
            stockfish,
            sf_skills: nums("TESSERA_MATCH_SF_SKILLS", vec![0, 3, 6, 10]),
            sf_elos: nums("TESSERA_MATCH_SF_ELOS", vec![]),
            sf_movetime: ms("TESSERA_MATCH_SF_MOVETIME_MS"),
            ladder: nums("TESSERA_MATCH_LADDER", vec![1, 2, 3, 4]),
            out,
        };
        if config.games == 0 {
            die("TESSERA_MATCH_GAMES must be at least 1");
        }
        if let Some(k) = config.ladder.iter().find(|k| !(1..=4).contains(*k)) {
            die(&format!("TESSERA_MATCH_LADDER: {k} is not a step (1 to 4: level k+1 against level k)"));
        }
        config
    }

    /// What `level` may use for one turn in these matches.
    fn limits(&self, level: Level) -> Limits {
        let own = level.limits();
        let scaled = own.movetime.map(|t| t.mul_f64(self.time_scale).max(Duration::from_millis(1)));
        let movetime = match (scaled, self.movetime) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Limits { depth: own.depth, movetime }
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file()))
}

// ---------------------------------------------------------------------------------------------------------
// Randomness: SplitMix64, enough for choosing moves and seeds.

#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A seed from the run's seed and the names that place a game, so that a game keeps its seed however
/// the variants and pairings run are filtered.
fn derive_seed(base: u64, parts: &[&str], index: u32) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325 ^ base;
    for byte in parts.iter().flat_map(|p| p.bytes().chain([0xFF])).chain(index.to_le_bytes()) {
        h = (h ^ byte as u64).wrapping_mul(0x0000_0100_0000_01B3);
    }
    Rng(h).next()
}

// ---------------------------------------------------------------------------------------------------------
// Players

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Strength {
    Skill(u32),
    Elo(u32),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum PlayerKind {
    Random,
    Greedy,
    Engine(Level),
    /// The engine looking at every compound turn: what the pruning of square actions costs.
    Unpruned(Level),
    Stockfish(Strength),
}

impl PlayerKind {
    fn label(self) -> String {
        match self {
            PlayerKind::Random => "random".into(),
            PlayerKind::Greedy => "greedy".into(),
            PlayerKind::Engine(level) => format!("L{}", level.number()),
            PlayerKind::Unpruned(level) => format!("L{}-unpruned", level.number()),
            PlayerKind::Stockfish(Strength::Skill(k)) => format!("stockfish-skill{k}"),
            PlayerKind::Stockfish(Strength::Elo(e)) => format!("stockfish-elo{e}"),
        }
    }
}

/// A player during one game.
enum Player {
    Random(Rng),
    Greedy(Rng),
    Engine { level: Level, limits: Limits, rng: Rng, prune: bool },
    Stockfish(Stockfish),
}

/// What a player's turn cost, for the engine's budget check.
struct Think {
    elapsed: Duration,
    depth: u32,
}

impl Player {
    fn new(
        kind: PlayerKind,
        config: &Config,
        engine_movetime: Duration,
        seed: u64,
    ) -> Result<Player, String> {
        Ok(match kind {
            PlayerKind::Random => Player::Random(Rng(seed)),
            PlayerKind::Greedy => Player::Greedy(Rng(seed)),
            PlayerKind::Engine(level) => {
                Player::Engine { level, limits: config.limits(level), rng: Rng(seed), prune: true }
            }
            PlayerKind::Unpruned(level) => {
                Player::Engine { level, limits: config.limits(level), rng: Rng(seed), prune: false }
            }
            PlayerKind::Stockfish(strength) => {
                let path = config.stockfish.as_ref().ok_or("Stockfish not found")?;
                let movetime = config.sf_movetime.unwrap_or(engine_movetime);
                Player::Stockfish(Stockfish::start(path, strength, movetime)?)
            }
        })
    }

    /// This player's turn; `Err` when it has none to give or gives one that is not legal.
    fn choose(&mut self, game: &Game, legal: &[Move]) -> Result<(Move, Option<Think>), String> {
        match self {
            Player::Random(rng) => Ok((legal[rng.below(legal.len())], None)),
            Player::Greedy(rng) => Ok((greedy(game.position(), legal, rng), None)),
            Player::Engine { level, limits, rng, prune } => {
                let seed = rng.next();
                let started = Instant::now();
                let mut searcher = Searcher::new();
                searcher.set_pruning(*prune);
                let choice = searcher.play_limited(game, *level, seed, *limits);
                let elapsed = started.elapsed();
                let choice = choice.ok_or_else(|| {
                    format!("L{} returned no move with the game on (move seed {seed:#x})", level.number())
                })?;
                if !legal.contains(&choice.mv) {
                    return Err(format!(
                        "L{} returned an illegal move {} (move seed {seed:#x})",
                        level.number(),
                        notation::uci(game.position(), &choice.mv)
                    ));
                }
                Ok((choice.mv, Some(Think { elapsed, depth: choice.depth })))
            }
            Player::Stockfish(sf) => sf.choose(game, legal).map(|mv| (mv, None)),
        }
    }
}

/// Material on the board for `color` minus its opponent's, in pawns (P1 N3 B3 R5 Q9).
fn balance(pos: &Position, color: Color) -> i32 {
    const VALUES: [i32; 6] = [1, 3, 3, 5, 9, 0];
    debug_assert_eq!(Role::ALL[0], Role::Pawn);
    let m = pos.material();
    let sum = |c: Color| m.get(c).iter().zip(VALUES).map(|(&n, v)| n as i32 * v).sum::<i32>();
    sum(color) - sum(color.other())
}

/// The one-ply greedy player: a turn that wins on the spot if there is one, else a turn leaving the best
/// material balance; ties broken at random.
fn greedy(pos: &Position, legal: &[Move], rng: &mut Rng) -> Move {
    let us = pos.turn();
    let mut best = i32::MIN;
    let mut ties: Vec<Move> = Vec::new();
    let mut winning: Vec<Move> = Vec::new();
    for mv in legal {
        let after = pos.played(mv);
        if !after.has_legal_moves()
            && (after.is_check() || after.variant().stalemate() == StalemateRule::Loss)
        {
            winning.push(*mv);
            continue;
        }
        let b = balance(&after, us);
        if b > best {
            best = b;
            ties.clear();
        }
        if b == best {
            ties.push(*mv);
        }
    }
    let pool = if winning.is_empty() { &ties } else { &winning };
    pool[rng.below(pool.len())]
}

// ---------------------------------------------------------------------------------------------------------
// Stockfish over UCI

struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    movetime: Duration,
}

impl Stockfish {
    fn start(path: &PathBuf, strength: Strength, movetime: Duration) -> Result<Stockfish, String> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut sf = Stockfish { child, stdin, lines, movetime };
        sf.send("uci")?;
        sf.wait_for("uciok", Duration::from_secs(10))?;
        sf.send("setoption name Threads value 1")?;
        sf.send("setoption name Hash value 16")?;
        match strength {
            Strength::Skill(k) => sf.send(&format!("setoption name Skill Level value {k}"))?,
            Strength::Elo(e) => {
                sf.send("setoption name UCI_LimitStrength value true")?;
                sf.send(&format!("setoption name UCI_Elo value {e}"))?;
            }
        }
        sf.send("ucinewgame")?;
        sf.send("isready")?;
        sf.wait_for("readyok", Duration::from_secs(10))?;
        Ok(sf)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|e| format!("Stockfish: {e}"))
    }

    /// The first line starting with `prefix`.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Ok(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("Stockfish: no {prefix:?} in {timeout:?}"));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("Stockfish exited before {prefix:?}"));
                }
            }
        }
    }

    fn choose(&mut self, game: &Game, legal: &[Move]) -> Result<Move, String> {
        if game.start() != &Position::start(Variant::CHESS) {
            return Err("Stockfish plays FIDE chess from the start position only".into());
        }
        let mut pos = game.start().clone();
        let mut text = String::from("position startpos moves");
        for mv in game.moves() {
            text.push(' ');
            text.push_str(&notation::uci(&pos, mv));
            pos.play_unchecked(mv);
        }
        self.send(&text)?;
        self.send(&format!("go movetime {}", self.movetime.as_millis().max(1)))?;
        let line = self.wait_for("bestmove", self.movetime + Duration::from_secs(10))?;
        let best = line.split_whitespace().nth(1).unwrap_or("");
        let pos = game.position();
        legal
            .iter()
            .find(|mv| notation::uci(pos, mv) == best)
            .copied()
            .ok_or_else(|| format!("Stockfish's {line:?} is not a legal move here"))
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------------------
// Pairings and games

#[derive(Copy, Clone, Debug, PartialEq)]
enum Target {
    /// The first player's score must be at least this fraction.
    AtLeast(f64),
    /// The first player's score must be above this fraction.
    Above(f64),
    /// A measurement only.
    None,
}

impl Target {
    fn met(self, score: f64) -> Option<bool> {
        match self {
            Target::AtLeast(t) => Some(score >= t - 1e-9),
            Target::Above(t) => Some(score > t + 1e-9),
            Target::None => None,
        }
    }

    fn text(self) -> String {
        match self {
            Target::AtLeast(t) => format!(">= {:.0}%", t * 100.0),
            Target::Above(t) => format!("> {:.0}%", t * 100.0),
            Target::None => "-".into(),
        }
    }
}

#[derive(Clone, Debug)]
struct Pairing {
    variant: Variant,
    kind: &'static str,
    first: PlayerKind,
    second: PlayerKind,
    target: Target,
    /// Why the pairing is not played, if it is not.
    skipped: Option<String>,
}

impl Pairing {
    fn label(&self) -> String {
        format!("{} vs {}", self.first.label(), self.second.label())
    }

    /// The movetime the engine side uses: the first player's, the ladder's stronger level.
    fn engine_movetime(&self, config: &Config) -> Duration {
        let level = match (self.first, self.second) {
            (PlayerKind::Engine(l), _) | (_, PlayerKind::Engine(l)) => l,
            _ => Level::STRONGEST,
        };
        config.limits(level).movetime.unwrap_or(level.movetime())
    }
}

fn pairings(config: &Config) -> Vec<Pairing> {
    let level = |n| PlayerKind::Engine(Level::new(n).expect("levels 1 to 5"));
    let mut out = Vec::new();
    for &variant in &config.variants {
        let mut add = |kind, first, second, target, skipped: Option<String>| {
            out.push(Pairing { variant, kind, first, second, target, skipped })
        };
        for &kind in &config.pairings {
            match kind {
                "random" => add(kind, level(5), PlayerKind::Random, Target::AtLeast(0.99), None),
                "greedy" => add(kind, level(5), PlayerKind::Greedy, Target::AtLeast(0.90), None),
                "ladder" => {
                    for &k in &config.ladder {
                        let k = k as u8;
                        add(kind, level(k + 1), level(k), Target::Above(0.60), None);
                    }
                }
                // Pruned against unpruned at the same level and time, where turns are compound.
                "pruning" if tessera_engine::prunes(variant) => {
                    add(kind, level(5), PlayerKind::Unpruned(Level::STRONGEST), Target::AtLeast(0.5), None);
                }
                "stockfish" if variant == Variant::CHESS => {
                    let skipped = config.stockfish.is_none().then(|| {
                        "Stockfish not found (set TESSERA_STOCKFISH or install stockfish)".to_string()
                    });
                    let strengths = config
                        .sf_skills
                        .iter()
                        .map(|&k| Strength::Skill(k))
                        .chain(config.sf_elos.iter().map(|&e| Strength::Elo(e)));
                    for s in strengths {
                        add(kind, level(5), PlayerKind::Stockfish(s), Target::None, skipped.clone());
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
enum End {
    Rules(Outcome),
    Claimed(DrawReason),
    Adjudicated,
    /// A player failed to give a legal move: it loses the game.
    Failure {
        by: Color,
        what: String,
    },
}

#[derive(Clone, Debug)]
struct GameResult {
    index: u32,
    seed: u64,
    first_white: bool,
    /// 1, 0.5 or 0 for the first player.
    points: f64,
    end: End,
    plies: usize,
    record: String,
    /// The first player's engine turns: (time, depth).
    first_thinks: Vec<(Duration, u32)>,
    /// The engine turns of either side, by level number, for the budget table.
    engine_thinks: Vec<(u8, Duration)>,
    wall: Duration,
}

impl GameResult {
    fn reason(&self) -> String {
        match &self.end {
            End::Rules(o) => o.to_string(),
            End::Claimed(r) => Outcome::Draw { reason: *r }.to_string(),
            End::Adjudicated => "Draw by adjudication (ply cap)".into(),
            End::Failure { by, what } => format!("{} failed: {what}", by.name()),
        }
    }
}

fn play_game(config: &Config, pairing: &Pairing, index: u32) -> GameResult {
    let started = Instant::now();
    let seed = derive_seed(config.seed, &[pairing.variant.name(), &pairing.label()], index);
    let first_white = index.is_multiple_of(2);
    let mut rng = Rng(seed);
    let movetime = pairing.engine_movetime(config);
    let (white_kind, black_kind) =
        if first_white { (pairing.first, pairing.second) } else { (pairing.second, pairing.first) };
    let first_color = if first_white { Color::White } else { Color::Black };
    let mut game = Game::from_variant(pairing.variant);
    let mut first_thinks = Vec::new();
    let mut engine_thinks = Vec::new();
    let result = |game: &Game, end: End, first_thinks, engine_thinks| {
        let points = match &end {
            End::Rules(Outcome::Win { winner, .. }) => (*winner == first_color) as u8 as f64,
            End::Rules(Outcome::Draw { .. }) | End::Claimed(_) | End::Adjudicated => 0.5,
            End::Failure { by, .. } => (*by != first_color) as u8 as f64,
        };
        GameResult {
            index,
            seed,
            first_white,
            points,
            end,
            plies: game.moves().len(),
            record: game.record(),
            first_thinks,
            engine_thinks,
            wall: started.elapsed(),
        }
    };
    let white_seed = rng.next();
    let black_seed = rng.next();
    let players = (
        Player::new(white_kind, config, movetime, white_seed),
        Player::new(black_kind, config, movetime, black_seed),
    );
    let mut players = match players {
        (Ok(w), Ok(b)) => [w, b],
        (Err(e), _) => {
            return result(&game, End::Failure { by: Color::White, what: e }, first_thinks, engine_thinks);
        }
        (_, Err(e)) => {
            return result(&game, End::Failure { by: Color::Black, what: e }, first_thinks, engine_thinks);
        }
    };
    let end = loop {
        if let Some(outcome) = game.outcome() {
            break End::Rules(outcome);
        }
        if let Some(reason) = game.claimable_draw() {
            break End::Claimed(reason);
        }
        if game.moves().len() >= config.max_plies {
            break End::Adjudicated;
        }
        let turn = game.position().turn();
        let legal = game.position().legal_moves();
        if legal.is_empty() {
            // The rules end a game with no legal turn; if they did not, that is the rules' failure.
            break End::Failure { by: turn, what: "no legal turn, yet the game goes on".into() };
        }
        let kind = if turn == Color::White { white_kind } else { black_kind };
        match players[turn.index()].choose(&game, &legal) {
            Ok((mv, think)) => {
                if let (Some(t), PlayerKind::Engine(level)) = (&think, kind) {
                    engine_thinks.push((level.number(), t.elapsed));
                    if turn == first_color {
                        first_thinks.push((t.elapsed, t.depth));
                    }
                }
                if let Err(e) = game.play(mv) {
                    break End::Failure { by: turn, what: format!("{}: {e}", kind.label()) };
                }
            }
            Err(what) => break End::Failure { by: turn, what },
        }
    };
    drop(players);
    result(&game, end, first_thinks, engine_thinks)
}

// ---------------------------------------------------------------------------------------------------------
// Statistics

fn elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// An Elo difference written for a table: `+inf`/`-inf` at a whole score.
fn elo_text(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf".into() } else { "-inf".into() }
    } else if x.round() == 0.0 {
        "0".into()
    } else {
        format!("{x:+.0}")
    }
}

/// The score's 95% interval: the normal approximation over the games' results (wins, draws and
/// losses as they fell); at a whole score, where that has no spread, the Wilson interval instead.
fn interval(points: &[f64]) -> (f64, f64) {
    let n = points.len() as f64;
    let s = points.iter().sum::<f64>() / n;
    let var = points.iter().map(|p| (p - s).powi(2)).sum::<f64>() / n;
    let z = 1.96;
    if var > 0.0 {
        let half = z * (var / n).sqrt();
        ((s - half).max(0.0), (s + half).min(1.0))
    } else {
        let denom = 1.0 + z * z / n;
        let centre = (s + z * z / (2.0 * n)) / denom;
        let half = z * (s * (1.0 - s) / n + z * z / (4.0 * n * n)).sqrt() / denom;
        ((centre - half).max(0.0), (centre + half).min(1.0))
    }
}

/// The likelihood of superiority: how likely the first player is the stronger, from its wins and
/// losses (draws say nothing either way), `0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))`.
fn los(wins: usize, losses: usize) -> f64 {
    if wins + losses == 0 {
        return 0.5;
    }
    let x = (wins as f64 - losses as f64) / (2.0 * (wins + losses) as f64).sqrt();
    0.5 * (1.0 + erf(x))
}

/// The error function, to 1.5e-7 (Abramowitz and Stegun 7.1.26).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

#[derive(Clone, Debug)]
struct Summary {
    games: usize,
    wins: usize,
    draws: usize,
    losses: usize,
    adjudicated: usize,
    failures: usize,
    score: f64,
    elo: f64,
    elo_low: f64,
    elo_high: f64,
    /// The likelihood of superiority, from wins and losses.
    los: f64,
    pass: Option<bool>,
    avg_plies: f64,
    /// The first player's engine turns: count, mean and max time, mean depth.
    moves: usize,
    avg_ms: f64,
    max_ms: f64,
    avg_depth: f64,
}

fn summarise(pairing: &Pairing, results: &[GameResult]) -> Summary {
    let n = results.len();
    let points: Vec<f64> = results.iter().map(|r| r.points).collect();
    let score = points.iter().sum::<f64>() / n as f64;
    let (low, high) = interval(&points);
    let failures = results.iter().filter(|r| matches!(r.end, End::Failure { .. })).count();
    let thinks: Vec<(Duration, u32)> = results.iter().flat_map(|r| r.first_thinks.iter().copied()).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let moves = thinks.len();
    let met = pairing.target.met(score);
    let wins = points.iter().filter(|&&p| p == 1.0).count();
    let losses = points.iter().filter(|&&p| p == 0.0).count();
    Summary {
        games: n,
        wins,
        draws: points.iter().filter(|&&p| p == 0.5).count(),
        losses,
        los: los(wins, losses),
        adjudicated: results.iter().filter(|r| matches!(r.end, End::Adjudicated)).count(),
        failures,
        score,
        elo: elo(score),
        elo_low: elo(low),
        elo_high: elo(high),
        pass: if failures > 0 { Some(false) } else { met },
        avg_plies: results.iter().map(|r| r.plies as f64).sum::<f64>() / n as f64,
        moves,
        avg_ms: if moves == 0 { 0.0 } else { thinks.iter().map(|t| ms(t.0)).sum::<f64>() / moves as f64 },
        max_ms: thinks.iter().map(|t| ms(t.0)).fold(0.0, f64::max),
        avg_depth: if moves == 0 {
            0.0
        } else {
            thinks.iter().map(|t| t.1 as f64).sum::<f64>() / moves as f64
        },
    }
}

/// A turn over its budget: more than the movetime by over 10% and 20 ms.
fn over_budget(elapsed: Duration, limit: Duration) -> bool {
    elapsed > limit + (limit / 10).max(Duration::from_millis(20))
}

// ---------------------------------------------------------------------------------------------------------
// Output

/// A number for the JSON: `null` where it is infinite (a whole score's Elo) or undefined.
fn json_num(x: f64) -> Value {
    if x.is_finite() { json!((x * 1e4).round() / 1e4) } else { Value::Null }
}

fn pass_text(s: &Summary) -> &'static str {
    match s.pass {
        Some(true) => "pass",
        Some(false) if s.failures > 0 => "FAIL (illegal/missing move)",
        Some(false) => "FAIL",
        None => "-",
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported (use the knobs).
    let config = Config::from_env();
    let all = pairings(&config);
    let played: Vec<usize> = (0..all.len()).filter(|&i| all[i].skipped.is_none()).collect();
    let total = played.len() * config.games as usize;

    eprintln!(
        "matches: {} variant(s), pairings {:?}, {} game(s) each, {} thread(s), ply cap {}, seed {}",
        config.variants.len(),
        config.pairings,
        config.games,
        config.threads,
        config.max_plies,
        config.seed
    );
    for level in (1..=5).filter_map(Level::new) {
        eprintln!("  L{} movetime {:?}", level.number(), config.limits(level).movetime);
    }
    match &config.stockfish {
        Some(p) => eprintln!("  Stockfish: {}", p.display()),
        None => eprintln!("  Stockfish: not found"),
    }
    for p in all.iter().filter(|p| p.skipped.is_some()) {
        eprintln!("  skipped {} {}: {}", p.variant.name(), p.label(), p.skipped.as_deref().unwrap_or(""));
    }

    let jobs: VecDeque<(usize, u32)> =
        played.iter().flat_map(|&p| (0..config.games).map(move |g| (p, g))).collect();
    let jobs = Arc::new(Mutex::new(jobs));
    let results: Arc<Mutex<Vec<Vec<GameResult>>>> = Arc::new(Mutex::new(vec![Vec::new(); all.len()]));
    let done = Arc::new(Mutex::new(0usize));
    let run_started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.min(total.max(1)) {
            scope.spawn(|| {
                loop {
                    let Some((p, g)) = jobs.lock().unwrap().pop_front() else { break };
                    let pairing = &all[p];
                    let r = play_game(&config, pairing, g);
                    let mut done = done.lock().unwrap();
                    *done += 1;
                    let first_side = if r.first_white { "white" } else { "black" };
                    eprintln!(
                        "[{}/{}] {} {} game {} (seed {:#018x}, {} {}): {} after {} plies ({:.1}s): {}",
                        *done,
                        total,
                        pairing.variant.name(),
                        pairing.label(),
                        g + 1,
                        r.seed,
                        pairing.first.label(),
                        first_side,
                        match r.points {
                            1.0 => "win",
                            0.0 => "loss",
                            _ => "draw",
                        },
                        r.plies,
                        r.wall.as_secs_f64(),
                        r.reason()
                    );
                    if matches!(r.end, End::Failure { .. }) {
                        eprintln!("  record: {}", r.record);
                    }
                    drop(done);
                    results.lock().unwrap()[p].push(r);
                }
            });
        }
    });
    let mut results = Arc::try_unwrap(results).expect("workers done").into_inner().unwrap();
    for r in &mut results {
        r.sort_by_key(|g| g.index);
    }

    // Tables, one per pairing kind.
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Tessera engine matches\n\nseed {}, {} game(s) per pairing, ply cap {}, movetime scale {}, movetime cap {}, wall {:.0}s\n",
        config.seed,
        config.games,
        config.max_plies,
        config.time_scale,
        config.movetime.map_or("none (each level's own)".to_string(), |d| format!("{} ms", d.as_millis())),
        run_started.elapsed().as_secs_f64()
    );
    let mut summaries: Vec<Option<Summary>> = vec![None; all.len()];
    for (i, p) in all.iter().enumerate() {
        if p.skipped.is_none() {
            summaries[i] = Some(summarise(p, &results[i]));
        }
    }
    for kind in PAIRING_KINDS {
        let rows: Vec<usize> = (0..all.len()).filter(|&i| all[i].kind == kind).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "## {kind}\n");
        let _ = writeln!(
            md,
            "| variant | pairing | games | W | D | L | adj. | fail. | score | Elo (95%) | LOS | target | result | plies | ms/move avg | ms/move max | limit ms | depth |"
        );
        let _ = writeln!(md, "|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|--:|--:|--:|--:|--:|");
        for i in rows {
            let p = &all[i];
            let Some(s) = &summaries[i] else {
                let _ = writeln!(
                    md,
                    "| {} | {} | 0 | | | | | | | | | {} | skipped: {} | | | | | |",
                    p.variant.name(),
                    p.label(),
                    p.target.text(),
                    p.skipped.as_deref().unwrap_or("")
                );
                continue;
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1}% | {} ({} .. {}) | {:.0}% | {} | {} | {:.0} | {:.0} | {:.0} | {} | {:.1} |",
                p.variant.name(),
                p.label(),
                s.games,
                s.wins,
                s.draws,
                s.losses,
                s.adjudicated,
                s.failures,
                s.score * 100.0,
                elo_text(s.elo),
                elo_text(s.elo_low),
                elo_text(s.elo_high),
                s.los * 100.0,
                p.target.text(),
                pass_text(s),
                s.avg_plies,
                s.avg_ms,
                s.max_ms,
                p.engine_movetime(&config).as_millis(),
                s.avg_depth
            );
        }
        md.push('\n');
    }

    // The budget check per level, over every engine turn of the run.
    let mut budget = String::new();
    let _ = writeln!(budget, "## budget per level\n");
    let _ = writeln!(budget, "| level | turns | limit ms | avg ms | max ms | over budget |");
    let _ = writeln!(budget, "|---|--:|--:|--:|--:|--:|");
    let mut budget_json = Vec::new();
    for level in (1..=5).filter_map(Level::new) {
        let times: Vec<Duration> = results
            .iter()
            .flatten()
            .flat_map(|r| r.engine_thinks.iter())
            .filter(|t| t.0 == level.number())
            .map(|t| t.1)
            .collect();
        if times.is_empty() {
            continue;
        }
        let limit = config.limits(level).movetime.unwrap_or(level.movetime());
        let avg = times.iter().map(|d| d.as_secs_f64() * 1000.0).sum::<f64>() / times.len() as f64;
        let max = times.iter().max().copied().unwrap_or_default().as_secs_f64() * 1000.0;
        let over = times.iter().filter(|&&d| over_budget(d, limit)).count();
        let _ = writeln!(
            budget,
            "| L{} | {} | {} | {avg:.0} | {max:.0} | {over} |",
            level.number(),
            times.len(),
            limit.as_millis()
        );
        budget_json.push(json!({
            "level": level.number(),
            "turns": times.len(),
            "limit_ms": limit.as_millis() as u64,
            "avg_ms": json_num(avg),
            "max_ms": json_num(max),
            "over_budget": over,
        }));
    }
    if !budget_json.is_empty() {
        md.push_str(&budget);
        md.push_str("\n(over budget: a turn longer than its limit by more than 10% and 20 ms)\n");
    }
    println!("{md}");

    // JSON: the same, and every game.
    let pairings: Vec<Value> = all
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut out = json!({
                "variant": p.variant.name(),
                "kind": p.kind,
                "first": p.first.label(),
                "second": p.second.label(),
                "target": p.target.text(),
                "limit_ms": p.engine_movetime(&config).as_millis() as u64,
            });
            match &summaries[i] {
                None => out["skipped"] = json!(p.skipped.as_deref().unwrap_or("")),
                Some(s) => {
                    let games: Vec<Value> = results[i]
                        .iter()
                        .map(|r| {
                            json!({
                                "game": r.index + 1,
                                "seed": format!("{:#018x}", r.seed),
                                "first_white": r.first_white,
                                "points": r.points,
                                "end": r.reason(),
                                "failure": matches!(r.end, End::Failure { .. }),
                                "plies": r.plies,
                                "record": r.record,
                            })
                        })
                        .collect();
                    let fields = json!({
                        "games": s.games,
                        "wins": s.wins,
                        "draws": s.draws,
                        "losses": s.losses,
                        "adjudicated": s.adjudicated,
                        "failures": s.failures,
                        "score": json_num(s.score),
                        "elo": json_num(s.elo),
                        "elo_low": json_num(s.elo_low),
                        "elo_high": json_num(s.elo_high),
                        "los": json_num(s.los),
                        "pass": s.pass,
                        "avg_plies": json_num(s.avg_plies),
                        "engine_moves": s.moves,
                        "avg_ms": json_num(s.avg_ms),
                        "max_ms": json_num(s.max_ms),
                        "avg_depth": json_num(s.avg_depth),
                        "games_played": games,
                    });
                    if let (Value::Object(out), Value::Object(fields)) = (&mut out, fields) {
                        out.extend(fields);
                    }
                }
            }
            out
        })
        .collect();
    let json = json!({
        "seed": config.seed,
        "games_per_pairing": config.games,
        "max_plies": config.max_plies,
        "movetime_scale": config.time_scale,
        "movetime_cap_ms": config.movetime.map(|d| d.as_millis() as u64),
        "threads": config.threads,
        "stockfish": config.stockfish.as_ref().map(|p| p.display().to_string()),
        "budget": budget_json,
        "pairings": pairings,
    });
    let json = format!("{json}\n");
    if let Some(dir) = config.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&config.out, json) {
        Ok(()) => eprintln!("matches: wrote {}", config.out.display()),
        Err(e) => eprintln!("matches: cannot write {}: {e}", config.out.display()),
    }

    let failures: usize = summaries.iter().flatten().map(|s| s.failures).sum();
    if failures > 0 {
        eprintln!("matches: {failures} game(s) ended by a player's illegal or missing move; see above");
        std::process::exit(1);
    }
}
