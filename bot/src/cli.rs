//! The scriptable commands: `variants`, `perft`, `replay`, `bestmove`, `analyse`, `migrate`. Their `--json` output is
//! stable.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};
use tessera_bot::config::Config;
use tessera_core::service::Service;
use tessera_render::{RenderOptions, ThemeName};
use tessera_rules::variant::Reserve;
use tessera_rules::view::{BoardView, CellKind};
use tessera_rules::{Color, Game, Position, ReplayError, Variant, notation};
use tessera_store::database::Database;

/// Prints a line to standard output; a closed pipe (`tessera ... | head`) ends the command quietly.
macro_rules! say {
    () => { say!("") };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            return Err(e.into());
        }
    }};
}

#[derive(Debug, Parser)]
#[command(
    name = "tessera",
    version,
    about = "Chess variants whose board changes during play, for Discord and Matrix"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Configuration file of `key = value` lines (default: DATA_DIR/config, or $TESSERA_CONFIG).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Where games and pictures are kept (default: $TESSERA_DATA_DIR, else ~/.local/share/tessera).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the variants, one a line, name first.
    Variants {
        /// Print `docs/variants.md` instead, as the built-in variants' files make it.
        #[arg(long)]
        markdown: bool,
    },
    /// Play in the terminal as if in a chat channel (what `tessera` does without chat credentials).
    Local,
    /// Serve the web pages of published tournaments and shared games from the bot's database.
    Web {
        /// The address and port to listen on (default: `web_listen`, else 127.0.0.1:8080).
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
    },
    /// Count the leaf nodes of the move tree to DEPTH.
    Perft {
        #[arg(long, default_value = "chess")]
        variant: VariantArg,
        /// Start from this position instead of the variant's start.
        #[arg(long)]
        fen: Option<String>,
        /// Also print the count below each legal move.
        #[arg(long)]
        divide: bool,
        #[arg(long)]
        json: bool,
        /// Give up past this many leaf nodes, so a depth too deep ends instead of running for days.
        #[arg(long, default_value_t = 10_000_000_000)]
        max_nodes: u64,
        depth: u32,
    },
    /// Replay a game record and print the final position and the result.
    Replay {
        /// The variant; defaults to the record's Variant header, else chess.
        #[arg(long)]
        variant: Option<VariantArg>,
        #[arg(long)]
        json: bool,
        /// The record file, or - for standard input.
        file: PathBuf,
    },
    /// The practice opponent's choice of turn: printed in the notation `replay` reads, then the
    /// search's depth, nodes, nodes per second and score (side to move's view).
    Bestmove {
        #[command(flatten)]
        from: PositionArgs,
        /// Think at most this many milliseconds (default 1000 unless --depth is given).
        #[arg(long)]
        movetime: Option<u64>,
        /// Search to this depth in plies.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=48))]
        depth: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Draw a position (or a whole game) as a PNG, or an animated GIF.
    Render {
        /// With --moves: the final position is drawn with its last move.
        #[command(flatten)]
        from: PositionArgs,
        /// Picture width in pixels.
        #[arg(long, default_value_t = 512)]
        size: u32,
        /// Draw the board from Black's side.
        #[arg(long)]
        flip: bool,
        #[arg(long, default_value = "walnut")]
        theme: ThemeName,
        /// Leave out the file and rank labels.
        #[arg(long)]
        no_coordinates: bool,
        /// White's name, shown below (or above) the board; default: a record's `[White]` tag.
        #[arg(long)]
        white: Option<String>,
        /// Black's name; default: a record's `[Black]` tag.
        #[arg(long)]
        black: Option<String>,
        /// With --moves: an animated GIF of the whole game instead of a PNG.
        #[arg(long, requires = "moves")]
        gif: bool,
        #[arg(long)]
        json: bool,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Pair the next round of a Swiss given as FIDE TRF-16, by the FIDE Dutch system: the number
    /// of pairs, then `WHITE BLACK` per board (`ID 0` for the bye), as endorsed programs print it.
    /// Exits 1 with "no valid pairing" when none exists. Files over 8 MiB or with more than 4,000
    /// players are refused.
    Pair {
        #[arg(long)]
        json: bool,
        /// The TRF file, or - for standard input.
        file: PathBuf,
    },
    /// Copy the SQLite database into PostgreSQL, every row read back and checked.
    ///
    /// Players, challenges, games and moves, tournaments and settings, keeping every id, in one
    /// transaction: a failure leaves the target as it was. A target that already holds rows is
    /// refused unless --force.
    Migrate {
        /// The PostgreSQL database: postgres://user:password@host:port/db (never printed).
        #[arg(long, value_name = "ADDRESS", required_unless_present = "to_file", conflicts_with = "to_file")]
        to: Option<String>,
        /// A file holding the address instead (keeps a password off the command line).
        #[arg(long, value_name = "FILE")]
        to_file: Option<PathBuf>,
        /// The SQLite file to copy (default: the configured database, DATA_DIR/tessera.sqlite).
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Copy into a database that holds rows: each row is written over the one with its key,
        /// so a second run changes nothing.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// Community variants: files in DATA_DIR/variants/, one variant each.
    Variant {
        #[command(subcommand)]
        action: VariantAction,
    },
    /// Tournaments kept in the bot's database.
    Tournament {
        #[command(subcommand)]
        action: TournamentAction,
    },
    /// Analyse a game record as `!t analyse` does: every position searched, printed per ply with
    /// its evaluation (White's view), the engine's best turn there and the class of the turn
    /// played (inaccuracy, mistake, blunder: a loss of 5, 10, 15 points of win%, as Lichess).
    #[command(alias = "analyze")]
    Analyse {
        /// Default: the record's `[Variant]` tag, else chess.
        #[arg(long)]
        variant: Option<VariantArg>,
        /// The game record (file or -), as `tessera replay` reads it.
        #[arg(long)]
        moves: PathBuf,
        /// Milliseconds a position (default 250, as the bot analyses; none with --depth alone).
        #[arg(long)]
        movetime: Option<u64>,
        /// Search each position to this depth: the same answer on any machine.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=48))]
        depth: Option<u32>,
        #[arg(long)]
        json: bool,
    },
}

/// Where `render` and `bestmove` take their position from.
#[derive(Debug, clap::Args)]
struct PositionArgs {
    /// Default: a record's `[Variant]` tag, else chess.
    #[arg(long)]
    variant: Option<VariantArg>,
    /// The position; defaults to the variant's start.
    #[arg(long, conflicts_with = "moves")]
    fen: Option<String>,
    /// A game record (file or -): the position after its moves, its repetitions known.
    #[arg(long)]
    moves: Option<PathBuf>,
}

/// A game read from [`PositionArgs`], with the record's text when there was one.
struct Loaded {
    variant: Variant,
    game: Game,
    record: Option<String>,
}

impl PositionArgs {
    fn load(&self) -> Result<Loaded> {
        let record = self.moves.as_ref().map(read_input).transpose()?;
        let variant = match (&self.variant, &record) {
            (Some(v), _) => v.variant()?,
            (None, Some(text)) => record_variant(text)?,
            (None, None) => Variant::CHESS,
        };
        let game = match (&self.fen, &record) {
            (Some(f), _) => Game::new(Position::from_fen(variant, f).context("--fen")?),
            (None, Some(text)) => {
                tessera_rules::replay(variant, text).map_err(|e| anyhow::anyhow!("{e}"))?.game
            }
            (None, None) => Game::from_variant(variant),
        };
        Ok(Loaded { variant, game, record })
    }
}

#[derive(Debug, Subcommand)]
enum VariantAction {
    /// Read a variant file and try it before use: what is wrong, with line and field; else perft
    /// from the start, random games to their end (each record replayed), and the start drawn.
    /// Exits 1 when the file is refused or a game goes wrong.
    Check {
        /// Count perft from the start to this depth (a depth past --max-nodes leaves is skipped).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=8))]
        depth: u32,
        #[arg(long, default_value_t = 100_000_000)]
        max_nodes: u64,
        /// Random games to play to their end.
        #[arg(long, default_value_t = 500)]
        games: u32,
        /// A random game not ended after this many turns stops there.
        #[arg(long, default_value_t = 5000)]
        max_plies: usize,
        /// Where to write the start picture (default: NAME.png in the current directory).
        #[arg(long)]
        picture: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// The variant file.
        file: PathBuf,
    },
}

/// A variant as typed on the command line, read once the community variants are loaded (clap
/// reads the arguments before the data directory is known).
#[derive(Clone, Debug)]
struct VariantArg(String);

impl std::str::FromStr for VariantArg {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<VariantArg, Self::Err> {
        Ok(VariantArg(s.to_string()))
    }
}

impl VariantArg {
    fn variant(&self) -> Result<Variant> {
        self.0.parse::<Variant>().map_err(|e| anyhow::anyhow!("--variant: {e}"))
    }
}

#[derive(Debug, Subcommand)]
enum TournamentAction {
    /// Write a tournament as FIDE TRF-16, for an arbiter to check with their own program.
    Export {
        /// The tournament's number (`t3` in chat is 3).
        id: i64,
    },
}

pub fn run(cli: Cli) -> Result<ExitCode> {
    if let Some(Command::Variant {
        action: VariantAction::Check { depth, max_nodes, games, max_plies, picture, json, file },
    }) = &cli.command
    {
        let opts = tessera_core::variants::CheckOptions {
            depth: *depth,
            max_nodes: *max_nodes,
            games: *games,
            max_plies: *max_plies,
            ..Default::default()
        };
        return run_variant_check(file, opts, picture.as_deref(), *json);
    }
    // The community variants, before anything reads a variant's name (the commands that never do
    // leave them unread). The bot logs what it refused; a command line tool says it on standard
    // error.
    let bot = matches!(cli.command, None | Some(Command::Local));
    let reads_variants = !matches!(
        cli.command,
        Some(Command::Pair { .. } | Command::Migrate { .. } | Command::Tournament { .. })
    );
    let dir = tessera_bot::config::data_dir(cli.data_dir.as_deref()).join("variants");
    let loaded = if reads_variants { tessera_core::variants::load_dir(&dir) } else { Default::default() };
    for (path, reason) in &loaded.refused {
        if bot {
            tracing::warn!(file = %path.display(), "variant file refused: {reason}");
        } else {
            eprintln!("warning: {} is not loaded: {reason}", path.display());
        }
    }
    if bot {
        for (path, v) in &loaded.registered {
            tracing::info!(file = %path.display(), "community variant {v} loaded");
        }
    }
    match cli.command {
        Some(Command::Variant { .. }) => unreachable!("answered above"),
        Some(Command::Pair { json, file }) => run_pair(&file, json),
        Some(Command::Tournament { action: TournamentAction::Export { id } }) => {
            let cfg = Config::load(cli.config.as_deref(), cli.data_dir.as_deref())?;
            let service = Service::new(tessera_store::open(&cfg.database)?);
            match service.export_trf(id) {
                Ok(trf) => {
                    use std::io::Write as _;
                    std::io::stdout().lock().write_all(trf.as_bytes())?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => bail!("{e}"),
            }
        }
        Some(Command::Migrate { to, to_file, from, force, json }) => {
            let outcome =
                migrate_source(from, cli.config.as_deref(), cli.data_dir.as_deref()).and_then(|from| {
                    tessera_store::migrate::migrate(&from, &migrate_target(to, to_file)?, force)
                });
            report_migration(outcome, json)
        }
        Some(Command::Variants { markdown: true }) => {
            say!("{}", tessera_rules::variant::variants_markdown().trim_end());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Variants { markdown: false }) => {
            let variants = Variant::all();
            let width = variants.iter().map(|v| v.name().len()).max().unwrap_or(0);
            for v in variants {
                let community = if v.is_built_in() { "" } else { "  (community variant)" };
                say!("{:<width$}  {}{community}", v.name(), v.summary());
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Perft { variant, fen, divide, json, max_nodes, depth }) => {
            run_perft(variant.variant()?, fen, divide, json, max_nodes, depth)
        }
        Some(Command::Replay { variant, json, file }) => {
            run_replay(variant.map(|v| v.variant()).transpose()?, json, &file)
        }
        Some(Command::Bestmove { from, movetime, depth, json }) => run_bestmove(&from, movetime, depth, json),
        Some(Command::Analyse { variant, moves, movetime, depth, json }) => {
            run_analyse(variant.map(|v| v.variant()).transpose()?, &moves, movetime, depth, json)
        }
        Some(Command::Render {
            from,
            size,
            flip,
            theme,
            no_coordinates,
            white,
            black,
            gif,
            json,
            output,
        }) => {
            // Names given here; any left out come from the record's tags in run_render.
            let caption = (white.is_some() || black.is_some()).then(|| tessera_render::Caption {
                names: [white.unwrap_or_default(), black.unwrap_or_default()],
                ..Default::default()
            });
            let opts = RenderOptions { size, flip, theme, coordinates: !no_coordinates, caption };
            run_render(&from, opts, gif, json, &output)
        }
        Some(Command::Web { listen }) => {
            let cfg = Config::load(cli.config.as_deref(), cli.data_dir.as_deref())?;
            let service = configured_service(&cfg)?;
            let listen =
                listen.or(cfg.web_listen).unwrap_or(std::net::SocketAddr::from(([127, 0, 0, 1], 8080)));
            tessera_bot::web::run_alone(service, listen, tessera_bot::web::options(&cfg))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Local) | None => run_bot(cli.config.as_deref(), cli.data_dir.as_deref()),
    }
}

/// The bot: the chat adapters when credentials are configured, else the local terminal mode.
fn run_bot(config: Option<&std::path::Path>, data_dir: Option<&std::path::Path>) -> Result<ExitCode> {
    let cfg = Config::load(config, data_dir)?;
    // The data directory holds the games, the Matrix keys and maybe secrets: made for the bot's
    // user only. One that exists (perhaps given by hand) keeps its mode; what is inside is private.
    if !cfg.data_dir.exists() {
        tessera_store::private_files::private_dir(&cfg.data_dir)?;
    }
    let service = configured_service(&cfg)?;
    let matrix = cfg.matrix();
    if matrix.is_some() || cfg.discord_token.is_some() {
        return tessera_bot::chat::run(&cfg, service, matrix);
    }
    let service = std::sync::Arc::new(service);
    // The pages beside the terminal, when asked for; stopped when the local mode ends.
    let _web = match cfg.web_listen {
        Some(listen) => {
            Some(tessera_bot::web::Beside::start(service.clone(), listen, tessera_bot::web::options(&cfg))?)
        }
        None => None,
    };
    tessera_bot::local::run(&*service, cfg.data_dir.join("boards"))?;
    Ok(ExitCode::SUCCESS)
}

/// The service on the configured database, drawing boards as configured.
fn configured_service(cfg: &Config) -> Result<Service<tessera_store::AnyStore>> {
    let store = tessera_store::open(&cfg.database)?;
    let mut service = Service::new(store);
    service.render.size = cfg.board_size.clamp(tessera_render::MIN_SIZE, tessera_render::MAX_SIZE);
    service.render.theme = cfg.theme.parse().map_err(anyhow::Error::msg)?;
    service.web_base_url = cfg.web_base_url.clone();
    tracing::info!(database = %cfg.database.describe(), "games are kept here");
    Ok(service)
}

/// The SQLite file `migrate` copies: `--from`, else the configured database if it is SQLite.
fn migrate_source(
    from: Option<PathBuf>,
    config: Option<&std::path::Path>,
    data_dir: Option<&std::path::Path>,
) -> Result<PathBuf> {
    if let Some(from) = from {
        return Ok(from);
    }
    let cfg = Config::load(config, data_dir)?;
    match cfg.database {
        Database::Sqlite(path) => Ok(path),
        Database::Postgres(_) => bail!(
            "the configured database is already PostgreSQL ({}): give --from FILE, the SQLite file to copy",
            cfg.database.describe()
        ),
    }
}

/// The PostgreSQL database `migrate` fills, from `--to` or `--to-file`. Never echoed: even a
/// mistyped address may hold a password.
fn migrate_target(to: Option<String>, to_file: Option<PathBuf>) -> Result<Database> {
    let address = match (to, to_file) {
        (Some(to), _) => to,
        (None, Some(file)) => std::fs::read_to_string(&file)
            .with_context(|| format!("reading the address from {}", file.display()))?
            .trim()
            .to_string(),
        (None, None) => bail!("give the PostgreSQL database to fill: --to postgres://user@host/db"),
    };
    match Database::parse(&address) {
        target @ Database::Postgres(_) => Ok(target),
        Database::Sqlite(_) => {
            bail!("--to takes a PostgreSQL address, postgres://user:password@host:port/db (or postgresql://)")
        }
    }
}

/// Prints what `migrate` did (each table's rows), or why it did nothing; exits 1 on any failure.
fn report_migration(outcome: Result<tessera_store::migrate::Report>, json: bool) -> Result<ExitCode> {
    let report = match outcome {
        Ok(report) => report,
        Err(e) => {
            if json {
                say!("{}", json!({ "verified": false, "error": format!("{e:#}") }));
            }
            eprintln!("error: {e:#}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if json {
        let tables: Vec<Value> = report
            .tables
            .iter()
            .map(|t| json!({ "table": t.table, "rows": t.rows, "other_rows": t.other_rows }))
            .collect();
        say!("{}", json!({ "from": report.from, "to": report.to, "tables": tables, "verified": true }));
        return Ok(ExitCode::SUCCESS);
    }
    say!("Copied {} into {}:", report.from, report.to);
    let width = report.tables.iter().map(|t| t.table.len()).max().unwrap_or(0);
    for t in &report.tables {
        if t.other_rows > 0 {
            say!(
                "  {:<width$}  {:>8}  (and {} rows SQLite does not have, left as they were)",
                t.table,
                t.rows,
                t.other_rows
            );
        } else {
            say!("  {:<width$}  {:>8}", t.table, t.rows);
        }
    }
    say!("Verified: every row reads back as SQLite has it; new rows get ids after the copied ones.");
    Ok(ExitCode::SUCCESS)
}

fn run_pair(file: &std::path::Path, json: bool) -> Result<ExitCode> {
    // At most one byte past the cap is read: `read_trf` refuses what is over it, so an endless
    // input (`/dev/zero`, a pipe that never ends) costs 8 MiB and stops there.
    let limit = tessera_pairing::MAX_TRF_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes).context("reading standard input")?;
    } else {
        std::fs::File::open(file)
            .and_then(|f| f.take(limit).read_to_end(&mut bytes))
            .with_context(|| format!("reading {}", file.display()))?;
    }
    let tournament =
        tessera_pairing::read_trf(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    match tessera_pairing::pair_next_round(&tournament) {
        Ok(pairings) => {
            if json {
                let boards: Vec<Value> = pairings.boards.iter().map(|(w, b)| json!([w, b])).collect();
                say!(
                    "{}",
                    json!({ "pairs": boards.len() + usize::from(pairings.bye.is_some()), "boards": boards, "bye": pairings.bye })
                );
            } else {
                use std::io::Write as _;
                std::io::stdout().lock().write_all(pairings.to_text().as_bytes())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(tessera_pairing::PairError::NoValidPairing) => {
            if json {
                say!("{}", json!({ "error": "no valid pairing" }));
            } else {
                say!("no valid pairing");
            }
            Ok(ExitCode::from(1))
        }
        Err(e) => bail!("{}: {e}", file.display()),
    }
}

fn run_perft(
    variant: Variant,
    fen: Option<String>,
    divide: bool,
    json: bool,
    max_nodes: u64,
    depth: u32,
) -> Result<ExitCode> {
    if depth > 12 {
        bail!("depth {depth} would run for days; use 12 or less");
    }
    let pos = match &fen {
        Some(f) => Position::from_fen(variant, f).context("--fen")?,
        None => Position::start(variant),
    };
    let started = Instant::now();
    let too_many = || {
        anyhow::anyhow!(
            "perft {depth} counts more than {max_nodes} nodes here; use a smaller depth or --max-nodes"
        )
    };
    // FIDE chess is counted on the plain board (the library's fast generator), every other
    // variant on the general one; the budget counts leaves the same way on both.
    let mut split: Vec<(String, u64)> = Vec::new();
    let mut by = tessera_rules::perft::generator(&pos);
    let nodes = if divide && depth > 0 {
        let mut left = max_nodes;
        for mv in pos.legal_moves() {
            let below = depth - 1;
            let n = tessera_rules::perft::perft_within(&pos.played(&mv), below, left).ok_or_else(too_many)?;
            left -= n.nodes;
            by = n.by;
            split.push((notation::uci(&pos, &mv), n.nodes));
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        let n = tessera_rules::perft::perft_within(&pos, depth, max_nodes).ok_or_else(too_many)?;
        by = n.by;
        n.nodes
    };
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let mut out = json!({
            "variant": variant.name(),
            "fen": pos.fen(),
            "depth": depth,
            "nodes": nodes,
        });
        if divide {
            out["divide"] = Value::Object(split.into_iter().map(|(m, n)| (m, json!(n))).collect());
        }
        say!("{out}");
    } else {
        for (m, n) in &split {
            say!("{m}: {n}");
        }
        if divide {
            say!("");
        }
        say!("{nodes}");
        eprintln!(
            "{:.3} s, {:.1} M nodes/s ({} board)",
            seconds,
            nodes as f64 / seconds.max(1e-9) / 1e6,
            by.name()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_render(
    from: &PositionArgs,
    mut opts: RenderOptions,
    gif: bool,
    json: bool,
    output: &PathBuf,
) -> Result<ExitCode> {
    let Loaded { variant, game, record } = from.load()?;
    let result = record.as_deref().and_then(|text| record_result(text, game.outcome()));
    let views = game.views();
    let final_pos = game.position();
    // Names from the options, else the record's tags: then the picture is captioned as the bot's are.
    let tags = |tag: &str| {
        let record = tessera_rules::parse_record(record.as_deref()?).ok()?;
        record.header(tag).filter(|n| !n.is_empty() && *n != "?").map(str::to_string)
    };
    let given = opts.caption.take().map(|c| c.names).unwrap_or_default();
    let name = |i: usize, tag: &str| Some(given[i].clone()).filter(|n| !n.is_empty()).or_else(|| tags(tag));
    if let (Some(w), Some(b)) = (name(0, "White"), name(1, "Black")) {
        // A GIF shows the names only: its frames share one size, and the result comes at the end.
        let result = if gif { None } else { result };
        opts.caption = Some(tessera_render::Caption { names: [w, b], clocks: [None, None], result });
    }
    let bytes = if gif {
        tessera_render::render_gif(&views, &opts, 80)?
    } else {
        tessera_render::render_png(views.last().expect("at least one view"), &opts)?
    };
    std::fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    if json {
        say!(
            "{}",
            json!({
                "variant": variant.name(),
                "fen": final_pos.fen(),
                "output": output.display().to_string(),
                "format": if gif { "gif" } else { "png" },
                "bytes": bytes.len(),
                "frames": if gif { views.len() } else { 1 },
            })
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn read_input(file: &PathBuf) -> Result<String> {
    let mut text = String::new();
    if file.as_os_str() == "-" {
        std::io::stdin().take(16 << 20).read_to_string(&mut text).context("reading standard input")?;
    } else {
        text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    }
    Ok(text)
}

/// How a recorded game ended: as the board decides it, else as its `[Result]` tag says.
fn record_result(
    text: &str,
    outcome: Option<tessera_rules::Outcome>,
) -> Option<(Option<tessera_rules::Color>, String)> {
    use tessera_rules::{Color, Outcome};
    if let Some(o) = outcome {
        let winner = match o {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        };
        return Some((winner, o.to_string()));
    }
    let record = tessera_rules::parse_record(text).ok()?;
    match record.header("Result")? {
        "1-0" => Some((Some(Color::White), "White wins".into())),
        "0-1" => Some((Some(Color::Black), "Black wins".into())),
        "1/2-1/2" => Some((None, "Draw".into())),
        _ => None,
    }
}

/// The variant a record names in its `[Variant]` tag; chess when it names none.
fn record_variant(text: &str) -> Result<Variant> {
    let record = tessera_rules::parse_record(text)?;
    Ok(match record.header("Variant") {
        Some(name) => name.parse()?,
        None => Variant::CHESS,
    })
}

fn run_bestmove(
    from: &PositionArgs,
    movetime: Option<u64>,
    depth: Option<u32>,
    json: bool,
) -> Result<ExitCode> {
    let Loaded { variant, game, .. } = from.load()?;
    let movetime = match (movetime, depth) {
        (Some(ms), _) => Some(std::time::Duration::from_millis(ms.max(1))),
        (None, Some(_)) => None,
        (None, None) => Some(std::time::Duration::from_millis(1000)),
    };
    let limits = tessera_engine::Limits { depth, movetime };
    let pos = game.position();
    let Some(choice) = tessera_engine::best_move(&game, limits) else {
        let outcome = game.outcome().map(|o| o.to_string()).unwrap_or_else(|| "no legal turn".into());
        if json {
            say!(
                "{}",
                json!({ "move": null, "variant": variant.name(), "fen": pos.fen(), "ended": outcome })
            );
        } else {
            eprintln!("no turn to choose: {outcome}");
        }
        return Ok(ExitCode::FAILURE);
    };
    let text = notation::lan(pos, &choice.mv);
    let (score_json, score_text) = match choice.score {
        tessera_engine::Score::Cp(cp) => (json!({ "cp": cp }), format!("cp {cp}")),
        tessera_engine::Score::Mate(n) => (json!({ "mate": n }), format!("mate {n}")),
    };
    if json {
        say!(
            "{}",
            json!({
                "move": text,
                "depth": choice.depth,
                "nodes": choice.nodes,
                "nps": choice.nps,
                "score": score_json,
                "variant": variant.name(),
                "fen": pos.fen(),
            })
        );
    } else {
        say!("{text}");
        say!("depth {} nodes {} nps {} score {score_text}", choice.depth, choice.nodes, choice.nps);
    }
    Ok(ExitCode::SUCCESS)
}

fn run_analyse(
    variant: Option<Variant>,
    moves: &PathBuf,
    movetime: Option<u64>,
    depth: Option<u32>,
    json: bool,
) -> Result<ExitCode> {
    use tessera_core::analysis::{self, Eval, Tally};
    let text = read_input(moves)?;
    let variant = match variant {
        Some(v) => v,
        None => record_variant(&text)?,
    };
    let game = tessera_rules::replay(variant, &text).map_err(|e| anyhow::anyhow!("{e}"))?.game;
    let limits = match (movetime, depth) {
        (None, Some(d)) => tessera_engine::Limits { depth: Some(d), movetime: None },
        (ms, d) => tessera_engine::Limits {
            depth: d.or(Some(analysis::POSITION_MAX_DEPTH)),
            movetime: Some(
                ms.map_or(analysis::POSITION_MOVETIME, |ms| std::time::Duration::from_millis(ms.max(1))),
            ),
        },
    };
    let start = game.start();
    let played = analysis::written_turns(start, game.moves());
    let evals = analysis::analyse_game(start, game.moves(), limits, || true).unwrap_or_default();
    let judged = analysis::judge_all(start.turn(), &played, &evals);
    let positions = analysis::positions(start, game.moves());
    let eval_json = |e: Eval| match e {
        Eval::Cp(cp) => json!({ "cp": cp }),
        Eval::Mate(n) => json!({ "mate": n }),
        Eval::Won(c) => json!({ "won": c.name() }),
    };
    let tally_json = |t: Tally| {
        json!({
            "inaccuracies": t.inaccuracies,
            "mistakes": t.mistakes,
            "blunders": t.blunders,
            "average_loss": (t.average_loss * 100.0).round() / 100.0,
        })
    };
    if json {
        let plies: Vec<Value> = evals
            .iter()
            .map(|e| {
                let mut out = json!({
                    "ply": e.ply,
                    "eval": eval_json(e.eval),
                    "best": e.best,
                    "depth": e.depth,
                });
                if let Some(j) = e.ply.checked_sub(1).and_then(|i| judged.get(i)) {
                    out["move"] = json!(j.played);
                    out["mover"] = json!(j.mover.name());
                    out["class"] = json!(j.class.map(|c| c.name()));
                    out["loss"] = json!((j.loss * 50.0 * 100.0).round() / 100.0);
                    out["better"] = json!(j.better);
                }
                out
            })
            .collect();
        say!(
            "{}",
            json!({
                "variant": variant.name(),
                "movetime_ms": limits.movetime.map(|t| t.as_millis() as u64),
                "depth": limits.depth,
                "plies": plies,
                "white": tally_json(Tally::of(&judged, Color::White)),
                "black": tally_json(Tally::of(&judged, Color::Black)),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    for e in &evals {
        let best = e.best.as_deref().map_or(String::new(), |b| format!("next best {b} (depth {})", e.depth));
        match e.ply.checked_sub(1).and_then(|i| judged.get(i)) {
            None => say!("{:<18} {:>7}  {best}", "start", e.eval.short()),
            Some(j) => {
                let mark = j.class.map_or("", |c| c.glyph());
                let turn = format!("{} {}{mark}", analysis::turn_label(&positions[j.ply - 1]), j.played);
                let verdict = match (j.class, &j.better) {
                    (Some(c), Some(b)) => format!("  {}, better {b}", c.name()),
                    _ => String::new(),
                };
                say!("{turn:<18} {:>7}  {best}{verdict}", e.eval.short())
            }
        }
    }
    for color in [Color::White, Color::Black] {
        let t = Tally::of(&judged, color);
        say!(
            "{color}: {} inaccuracies, {} mistakes, {} blunders, average loss {:.1}%",
            t.inaccuracies,
            t.mistakes,
            t.blunders,
            t.average_loss
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_replay(variant: Option<Variant>, json: bool, file: &PathBuf) -> Result<ExitCode> {
    let text = read_input(file)?;
    let variant = match variant {
        Some(v) => v,
        None => record_variant(&text)?,
    };
    match tessera_rules::replay(variant, &text) {
        Ok(replay) => {
            let pos = replay.game.position();
            let result = replay.result();
            if json {
                say!("{}", position_json(variant, pos, replay.game.moves().len(), result.as_deref()));
            } else {
                say!("{}", pos.fen());
                say!("{}", result.as_deref().unwrap_or("*"));
                if let Some(outcome) = replay.outcome() {
                    eprintln!("{outcome}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            if json {
                let mut out = json!({ "variant": variant.name(), "error": error.to_string() });
                if let ReplayError::Move { ply, text, error } = &error {
                    out["ply"] = json!(ply);
                    out["move"] = json!(text);
                    out["reason"] = json!(error.to_string());
                }
                say!("{out}");
            } else {
                eprintln!("{error}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The stable JSON view of a position. Where the board itself changes, every location is listed
/// with its square state; otherwise only occupied squares.
pub fn position_json(variant: Variant, pos: &Position, ply: usize, result: Option<&str>) -> Value {
    let rules = pos.rules();
    let changing_board = rules.square_actions;
    // The picture's model knows every board's oddities as plain data: quads, tiles, owners.
    let view = BoardView::new(pos, None);
    let mut board = Map::new();
    let listed = if changing_board { pos.board_mask() } else { pos.occupied() };
    // Pieces on a quad-square are listed under the quad's name (Q1).
    for quad in &view.quads {
        let pieces: Vec<String> = quad.pieces.iter().map(|p| p.char().to_string()).collect();
        if !pieces.is_empty() {
            board.insert(quad.name.to_string(), json!({ "pieces": pieces }));
        }
    }
    for sq in listed {
        let cell = view.cell(sq.file(), sq.rank());
        if cell.kind == CellKind::Quad {
            continue;
        }
        let mut entry = Map::new();
        if changing_board {
            let state = match cell.kind {
                CellKind::Square if view.tiles => "tile",
                CellKind::Square => "normal",
                CellKind::AntiTile => "anti-tile",
                CellKind::Hole | CellKind::Quad => "hole",
            };
            entry.insert("square".into(), json!(state));
            if let Some(owner) = cell.owner {
                entry.insert("owner".into(), json!(owner.name()));
            }
        }
        if let Some(piece) = pos.piece_at(sq) {
            entry.insert("piece".into(), json!(piece.char().to_string()));
        }
        board.insert(sq.to_string(), Value::Object(entry));
    }
    let mut out = json!({
        "variant": variant.name(),
        "ply": ply,
        "turn": pos.turn().name(),
        "result": result,
        "fen": pos.fen(),
        "board": board,
    });
    match rules.reserve {
        Reserve::None => {}
        Reserve::Finite(_) => {
            let hand = |c: Color| pos.reserve(c).unwrap_or(0);
            out["reserves"] = json!({ "white": hand(Color::White), "black": hand(Color::Black) });
        }
        Reserve::Infinite => out["reserves"] = json!({ "white": "infinite", "black": "infinite" }),
    }
    if pos.can_shrink() {
        let (files, ranks) = pos.size();
        out["size"] = json!({ "files": files, "ranks": ranks });
    }
    if pos.has_chip() {
        out["chip"] = json!(pos.chip().map(|c| c.to_string()));
    }
    if changing_board {
        out["locked"] = json!(pos.locked().into_iter().map(|sq| sq.to_string()).collect::<Vec<_>>());
    }
    out
}

/// `tessera variant check FILE`: the file read and tried ([`tessera_core::variants::check`]), the
/// start picture written, and a report; exit 1 when anything is wrong.
fn run_variant_check(
    file: &std::path::Path,
    opts: tessera_core::variants::CheckOptions,
    picture: Option<&std::path::Path>,
    json: bool,
) -> Result<ExitCode> {
    let started = Instant::now();
    let report = match tessera_core::variants::read_file(file) {
        Ok(text) => tessera_core::variants::check(&text, opts),
        Err(message) => tessera_core::variants::CheckReport {
            refused: Some(tessera_core::variants::Refusal { line: None, field: None, message }),
            ..Default::default()
        },
    };
    let written = match (&report.picture, report.variant) {
        (Some(png), Some(v)) => {
            let path = picture.map_or_else(|| PathBuf::from(format!("{}.png", v.name())), PathBuf::from);
            std::fs::write(&path, png).with_context(|| format!("writing the picture {}", path.display()))?;
            Some(path)
        }
        _ => None,
    };
    let g = &report.games;
    if json {
        let refused = report
            .refused
            .as_ref()
            .map(|r| json!({ "line": r.line, "field": r.field, "message": r.message }));
        let variant = report.variant.map(|v| {
            json!({
                "name": v.name(),
                "aliases": v.aliases(),
                "title": v.title(),
                "start": v.start_fen(),
                "key": v.key(),
            })
        });
        let endings: Map<String, Value> = g.endings.iter().map(|(k, n)| (k.clone(), json!(n))).collect();
        say!(
            "{}",
            json!({
                "file": file.display().to_string(),
                "ok": report.ok(),
                "refused": refused,
                "variant": variant,
                "perft": report.perft,
                "perft_stopped_at": report.perft_stopped_at,
                "games": {
                    "played": g.played,
                    "ended": endings,
                    "at_limit": g.at_limit,
                    "plies": g.plies,
                    "failures": g.failures,
                },
                "problems": report.problems,
                "picture": written.as_ref().map(|p| p.display().to_string()),
                "seconds": (started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
            })
        );
    } else if let Some(r) = &report.refused {
        let line = r.line.map_or(String::new(), |l| format!("line {l}, "));
        let field = r.field.as_ref().map_or(String::new(), |f| format!("{f}: "));
        say!("{}: refused: {line}{field}{}", file.display(), r.message);
    } else if let Some(v) = report.variant {
        say!("{}: reads as {} ({})", file.display(), v.name(), v.title());
        let counts: Vec<String> =
            report.perft.iter().enumerate().map(|(d, n)| format!("depth {} {n}", d + 1)).collect();
        let stopped = report
            .perft_stopped_at
            .map_or(String::new(), |d| format!("; depth {d} passes {} leaves, not counted", opts.max_nodes));
        say!("perft from the start: {}{stopped}", counts.join(", "));
        let endings: Vec<String> = g.endings.iter().map(|(k, n)| format!("{n} {k}")).collect();
        say!(
            "random games: {} played, {} plies; ended by the rules: {}; stopped at {} plies: {}",
            g.played,
            g.plies,
            if endings.is_empty() { "none".into() } else { endings.join(", ") },
            opts.max_plies,
            g.at_limit
        );
        for f in g.failures.iter().chain(&report.problems) {
            say!("FAILED: {f}");
        }
        if g.failures.is_empty() {
            say!("every game's record replays to the same position and result");
        }
        if let Some(p) = &written {
            say!("start picture: {}", p.display());
        }
        say!("{}", if report.ok() { "ok" } else { "not ok" });
    }
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
