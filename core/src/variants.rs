//! Community variants: the files in `DATA_DIR/variants/`, registered at start, and the definition a
//! stored game keeps (so an edited or removed file never changes a game that started under it).

use std::path::{Path, PathBuf};

use tessera_rules::Variant;
use tessera_rules::variant_file::MAX_FILE_BYTES;

use crate::store::Store;

/// What loading a directory of variant files did.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Each file registered, with its variant, in the order of the files' names.
    pub registered: Vec<(PathBuf, Variant)>,
    /// Each file refused, with what is wrong (the reader's line and field) and what would be right.
    pub refused: Vec<(PathBuf, String)>,
}

/// Registers every `*.toml` file in `dir` as a community variant, in the order of the file names;
/// a file that does not read, or names a variant already registered, is refused with the reason
/// and the others load. A missing directory loads nothing. Loading the same files again in one
/// process gives the variants registered the first time.
pub fn load_dir(dir: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return loaded,
        Err(e) => {
            loaded.refused.push((dir.to_path_buf(), format!("the directory does not read: {e}")));
            return loaded;
        }
    };
    files.sort();
    for path in files {
        match load_file(&path) {
            Ok(v) => loaded.registered.push((path, v)),
            Err(e) => loaded.refused.push((path, e)),
        }
    }
    loaded
}

/// Reads one variant file and registers it: the reason when it is refused. The file's name must
/// be the variant's (`NAME.toml`), so whoever looks for a variant's file finds it.
pub fn load_file(path: &Path) -> Result<Variant, String> {
    let text = read_file(path)?;
    let def = tessera_rules::variant_file::read_variant_file(&text).map_err(|e| e.to_string())?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if stem != def.name {
        let name = &def.name;
        return Err(format!(
            "the file is named {stem}.toml but defines the variant {name}: name it {name}.toml"
        ));
    }
    Variant::register_read(def, &text)
}

/// A variant file's text: refused unread when it is larger than a variant file can be, and when
/// it is not UTF-8.
pub fn read_file(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("the file does not read: {e}"))?;
    if meta.is_dir() {
        return Err("that is a directory: give a variant file (NAME.toml)".into());
    }
    let size = meta.len();
    if size > MAX_FILE_BYTES as u64 {
        return Err(format!("the file has {size} bytes; a variant file has at most {MAX_FILE_BYTES}"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("the file does not read: {e}"))?;
    String::from_utf8(bytes)
        .map_err(|e| format!("the file is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

/// The variant a stored game (or tournament) plays: by its name for a built-in, else by the
/// definition stored under `key`, registered unlisted if this process has not seen it (the file
/// changed or went, or another process started the game).
pub fn stored_variant<S: Store + ?Sized>(
    store: &S,
    name: &str,
    key: Option<&str>,
) -> Result<Variant, String> {
    let Some(key) = key else {
        return name.parse().map_err(|_| format!("unknown variant {name}"));
    };
    if let Some(v) = Variant::by_key(key) {
        return Ok(v);
    }
    let text = store
        .variant_definition(key)
        .map_err(|e| format!("the definition of {name} does not read: {e}"))?
        .ok_or_else(|| format!("the definition of {name} ({key}) is missing"))?;
    Variant::pinned(&text).map_err(|e| format!("the stored definition of {name} does not read: {e}"))
}

/// How thoroughly [`check`] tries a variant file.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Perft is counted to this depth from the start...
    pub depth: u32,
    /// ...unless a depth would count more leaves than this: then it stops at the depth before.
    pub max_nodes: u64,
    /// Random games played from the start.
    pub games: u32,
    /// A random game not ended by the rules after this many turns stops there (and counts apart).
    pub max_plies: usize,
    /// The start picture's width in pixels.
    pub picture_size: u32,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions { depth: 3, max_nodes: 100_000_000, games: 500, max_plies: 5000, picture_size: 512 }
    }
}

/// What [`check`] found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// The variant, when the file reads and registers.
    pub variant: Option<Variant>,
    /// Why the file was refused: the line and field where the reader knows them, and the message.
    pub refused: Option<Refusal>,
    /// Leaf counts by depth, from 1.
    pub perft: Vec<u64>,
    /// The depth perft did not count because it would pass [`CheckOptions::max_nodes`].
    pub perft_stopped_at: Option<u32>,
    pub games: GamesReport,
    /// The start position drawn as a PNG.
    pub picture: Option<Vec<u8>>,
    /// What is wrong beyond the games: the help's example not a legal turn, the start not drawn.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

/// The random games [`check`] played.
#[derive(Debug, Default)]
pub struct GamesReport {
    pub played: u32,
    /// How the games the rules ended ended (`checkmate (win)`, `the 75-move rule (draw)`, ...),
    /// with how many.
    pub endings: std::collections::BTreeMap<String, u32>,
    /// Games stopped at [`CheckOptions::max_plies`] without an ending.
    pub at_limit: u32,
    /// Turns played in all the games.
    pub plies: u64,
    /// What went wrong: a panic, or a record that does not replay to the same game. Each says the
    /// game's seed, so it can be played again.
    pub failures: Vec<String>,
}

impl CheckReport {
    /// The file reads, registers, counts, plays and replays without a fault.
    pub fn ok(&self) -> bool {
        self.refused.is_none()
            && self.variant.is_some()
            && self.games.failures.is_empty()
            && self.problems.is_empty()
            && self.picture.is_some()
    }
}

/// Reads and tries a variant file as `tessera variant check` does: read and registered (refused
/// with the reader's line and field), perft from the start, random games to their end (no panic,
/// every record replaying to the same position and result), and the start drawn.
pub fn check(text: &str, opts: CheckOptions) -> CheckReport {
    let mut report = CheckReport::default();
    let def = match tessera_rules::variant_file::read_variant_file(text) {
        Ok(def) => def,
        Err(e) => {
            report.refused = Some(Refusal { line: e.line, field: e.field, message: e.message });
            return report;
        }
    };
    let variant = match Variant::register_read(def, text) {
        Ok(v) => v,
        Err(message) => {
            report.refused = Some(Refusal { line: None, field: None, message });
            return report;
        }
    };
    report.variant = Some(variant);
    let start = tessera_rules::Position::start(variant);
    for depth in 1..=opts.depth {
        match tessera_rules::perft::perft_within(&start, depth, opts.max_nodes) {
            Some(count) => report.perft.push(count.nodes),
            None => {
                report.perft_stopped_at = Some(depth);
                break;
            }
        }
    }
    report.games = random_games(variant, opts);
    // `!t rules` shows the example as a turn: a wrong one would teach the wrong game.
    if let Err(e) = example_plays(variant) {
        report.problems.push(e);
    }
    let view = tessera_rules::view::BoardView::new(&start, None);
    let render = tessera_render::RenderOptions { size: opts.picture_size, ..Default::default() };
    match tessera_render::render_png(&view, &render) {
        Ok(png) => report.picture = Some(png),
        Err(e) => report.problems.push(format!("the start does not draw: {e}")),
    }
    report
}

/// The help's example is a legal turn at the start, or, where the opening turn is a special one
/// (Blue Chip's chip alone), after some opening turn.
fn example_plays(variant: Variant) -> Result<(), String> {
    let example = variant.info().help.example;
    let start = tessera_rules::Game::from_variant(variant);
    let Err(e) = start.clone().play_text(example) else { return Ok(()) };
    let after_one = start.position().legal_moves().into_iter().any(|first| {
        let mut game = start.clone();
        game.play(first).is_ok() && game.play_text(example).is_ok()
    });
    if after_one { Ok(()) } else { Err(format!("help.example `{example}` is not a legal first turn: {e}")) }
}

/// `opts.games` random games from the start, one after another (the core spawns no threads).
fn random_games(variant: Variant, opts: CheckOptions) -> GamesReport {
    let mut report = GamesReport::default();
    for seed in 0..opts.games {
        random_game(variant, u64::from(seed), opts.max_plies, &mut report);
    }
    report
}

/// One random game (a capture half the time where there is one, else a turn chosen uniformly
/// among the legal ones, by a generator seeded with `seed`), then its record replayed; a panic
/// anywhere is caught and reported.
fn random_game(variant: Variant, seed: u64, max_plies: usize, report: &mut GamesReport) {
    let played = std::panic::catch_unwind(|| {
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
        let mut game = tessera_rules::Game::from_variant(variant);
        let mut moves = Vec::new();
        // xorshift64*: enough to spread the choice, and the same game for the same seed.
        let mut next = || {
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            (rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize
        };
        while game.outcome().is_none() && game.moves().len() < max_plies {
            game.position().legal_moves_into(&mut moves);
            // Half the time a capture where there is one: purely random play in the families where
            // taking an empty square resets the move count can go on for thousands of turns, and
            // the check is of games played to their end.
            let captures = moves.iter().filter(|m| m.is_capture()).count();
            let mv = if captures > 0 && next() % 2 == 0 {
                moves.iter().filter(|m| m.is_capture()).nth(next() % captures).cloned()
            } else {
                let pick = next() % moves.len().max(1);
                moves.get(pick).cloned()
            };
            let Some(mv) = mv else { break };
            if let Err(e) = game.play(mv) {
                return Err(format!("a legal turn was refused at ply {}: {e}", game.moves().len() + 1));
            }
        }
        let record = game.record();
        let replayed = tessera_rules::replay(variant, &record)
            .map_err(|e| format!("its record does not replay: {e}\n{record}"))?;
        if replayed.game.position().fen() != game.position().fen()
            || replayed.game.outcome() != game.outcome()
        {
            return Err(format!("its record replays to another game\n{record}"));
        }
        Ok((game.moves().len(), game.outcome()))
    });
    report.played += 1;
    match played {
        Ok(Ok((plies, outcome))) => {
            report.plies += plies as u64;
            match outcome {
                Some(o) => *report.endings.entry(ending_name(o)).or_default() += 1,
                None => report.at_limit += 1,
            }
        }
        Ok(Err(e)) => report.failures.push(format!("random game {seed}: {e}")),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            report.failures.push(format!("random game {seed}: panicked: {what}"));
        }
    }
}

/// An ending without its winner's colour, so the counts gather by kind: the word the bot's replies
/// use, and whether it won or drew (a stalemate does either, by the variant).
fn ending_name(outcome: tessera_rules::Outcome) -> String {
    let kind = if matches!(outcome, tessera_rules::Outcome::Draw { .. }) { "draw" } else { "win" };
    format!("{} ({kind})", crate::service::reason_word(outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hans38 under another name: what the checker counts must be what the built-in counts.
    fn renamed_hans38(name: &str) -> String {
        let (_, text) = tessera_rules::variant_file::BUILT_IN_FILES[Variant::HANS38.index()];
        text.replace("name = \"hans38\"", &format!("name = \"{name}\""))
            .replace("aliases = [\"hans38-chess\", \"limited-squares\"]", "aliases = []")
    }

    #[test]
    fn a_good_file_counts_plays_replays_and_draws_its_start() {
        let opts =
            CheckOptions { depth: 2, games: 12, max_plies: 300, picture_size: 128, ..Default::default() };
        let report = check(&renamed_hans38("check-test-hans"), opts);
        assert!(report.refused.is_none(), "{:?}", report.refused);
        assert!(report.ok(), "{:?}", report.games.failures);
        let start = tessera_rules::Position::start(Variant::HANS38);
        let expected: Vec<u64> = (1..=2).map(|d| tessera_rules::perft(&start, d)).collect();
        assert_eq!(report.perft, expected);
        assert_eq!(report.games.played, 12);
        let ended: u32 = report.games.endings.values().sum();
        assert_eq!(ended + report.games.at_limit, 12);
        assert!(report.games.plies > 0);
        assert!(report.picture.as_ref().is_some_and(|png| png.starts_with(b"\x89PNG")));
        // The same text again is the same variant, not a clash with itself.
        assert_eq!(check(&renamed_hans38("check-test-hans"), opts).variant, report.variant);
    }

    #[test]
    fn an_example_that_is_not_a_legal_first_turn_fails_the_check() {
        let opts = CheckOptions { depth: 1, games: 2, max_plies: 20, picture_size: 64, ..Default::default() };
        let wrong = renamed_hans38("check-test-example").replace("example = \"@@e4\"", "example = \"e2-e4\"");
        let report = check(&wrong, opts);
        assert!(!report.ok());
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].starts_with("help.example `e2-e4` is not a legal first turn: "));
        // Every built-in's example plays (Blue Chip's after its opening chip).
        for v in Variant::ALL {
            assert_eq!(example_plays(*v), Ok(()), "{v}");
        }
    }

    #[test]
    fn a_perft_depth_past_the_budget_is_not_counted() {
        let opts = CheckOptions { depth: 3, max_nodes: 10_000, games: 1, max_plies: 10, picture_size: 64 };
        let report = check(&renamed_hans38("check-test-budget"), opts);
        assert_eq!(report.perft.len(), 2, "{:?}", report.perft);
        assert_eq!(report.perft_stopped_at, Some(3));
        assert!(report.ok());
    }

    #[test]
    fn a_bad_file_is_refused_with_line_and_field_and_nothing_is_registered() {
        let bad = renamed_hans38("check-test-bad").replace("reserve = 3", "reserve = \"lots\"");
        let report = check(&bad, CheckOptions::default());
        let refused = report.refused.clone().expect("refused");
        assert_eq!(refused.field.as_deref(), Some("squares.reserve"));
        assert_eq!(refused.line, bad.lines().position(|l| l.starts_with("reserve")).map(|i| i + 1));
        assert!(!report.ok() && report.variant.is_none() && report.picture.is_none());
        assert!("check-test-bad".parse::<Variant>().is_err());
        // A built-in's name cannot be taken.
        let taken = check(&renamed_hans38("hans38"), CheckOptions::default());
        assert!(taken.refused.is_some_and(|r| r.message.contains("already a name")));
    }

    #[test]
    fn a_directory_loads_its_good_files_and_says_why_it_refused_the_others() {
        let dir = std::env::temp_dir().join(format!("tessera-variants-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("load-test-good.toml"), renamed_hans38("load-test-good")).unwrap();
        std::fs::write(dir.join("misnamed.toml"), renamed_hans38("load-test-other")).unwrap();
        std::fs::write(dir.join("broken.toml"), "name = \"x\"\nroom = 3\n").unwrap();
        std::fs::write(dir.join("huge.toml"), vec![b'#'; MAX_FILE_BYTES + 1]).unwrap();
        std::fs::write(dir.join("binary.toml"), [0xff, 0xfe, 0x00]).unwrap();
        std::fs::write(dir.join("notes.txt"), "not a variant").unwrap();
        std::fs::create_dir_all(dir.join("folder.toml")).unwrap();
        let loaded = load_dir(&dir);
        let names: Vec<&str> = loaded.registered.iter().map(|(_, v)| v.name()).collect();
        assert_eq!(names, ["load-test-good"]);
        assert!("load-test-good".parse::<Variant>().is_ok());
        assert!("load-test-other".parse::<Variant>().is_err(), "a misnamed file is not loaded");
        let refused: Vec<(String, &str)> = loaded
            .refused
            .iter()
            .map(|(p, why)| (p.file_name().unwrap().to_string_lossy().into_owned(), why.as_str()))
            .collect();
        assert_eq!(refused.len(), 5, "{refused:?}");
        let why = |file: &str| refused.iter().find(|(f, _)| f == file).map(|(_, w)| *w).unwrap_or("");
        assert!(why("folder.toml").contains("directory"), "{refused:?}");
        assert!(why("binary.toml").contains("not UTF-8"), "{refused:?}");
        assert!(why("broken.toml").starts_with("line 2"), "{refused:?}");
        assert!(why("huge.toml").contains("at most"), "{refused:?}");
        assert!(why("misnamed.toml").contains("name it load-test-other.toml"), "{refused:?}");
        // Loading again (a second service in one process) gives the same variants.
        let again = load_dir(&dir);
        assert_eq!(again.registered.iter().map(|(_, v)| *v).collect::<Vec<_>>(), [loaded.registered[0].1]);
        assert!(load_dir(&dir.join("absent")).registered.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
