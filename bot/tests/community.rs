//! Community variants: files in DATA_DIR/variants/ loaded by the `tessera` binary, played in the
//! local mode, and a game keeping its rules after its file is edited or removed.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Hans38 with `reserve` squares in hand, as a community file.
fn hans38_with(name: &str, reserve: u8) -> String {
    let (_, text) = tessera_rules::variant_file::BUILT_IN_FILES[tessera_rules::Variant::HANS38.index()];
    text.replace("name = \"hans38\"", &format!("name = \"{name}\""))
        .replace("aliases = [\"hans38-chess\", \"limited-squares\"]", "aliases = []")
        .replace("reserve = 3", &format!("reserve = {reserve}"))
        .replace("hand:3/3", &format!("hand:{reserve}/{reserve}"))
        .replace("3 owned squares in hand", &format!("{reserve} owned squares in hand"))
}

fn tessera(data_dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("TESSERA_") {
            cmd.env_remove(key);
        }
    }
    let mut child = cmd
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("TESSERA_BOARD_SIZE", "64")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The bot's answers to `lines` typed in the local mode, one a line typed (a local command's
/// answer included).
fn local(data_dir: &Path, lines: &[&str]) -> Vec<String> {
    let out = tessera(data_dir, &["local"], &(lines.join("\n") + "\n"));
    let text = String::from_utf8(out.stdout).unwrap();
    // Each answer follows a prompt `NAME@#CHANNEL> `; the first prompt's text before it is the help.
    text.split("@#").skip(1).map(|a| a.split_once("> ").map_or("", |(_, rest)| rest).to_string()).collect()
}

fn data_dir(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-community-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("variants")).unwrap();
    dir
}

#[test]
fn community_variants_are_listed_apart_and_a_bad_file_is_refused_with_its_line() {
    let dir = data_dir("listed");
    std::fs::write(dir.join("variants/hans38-five.toml"), hans38_with("hans38-five", 5)).unwrap();
    std::fs::write(dir.join("variants/broken.toml"), "name = \"broken\"\nroom = 3\n").unwrap();
    let out = tessera(&dir, &["variants"], "");
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 14, "13 built-ins and the community variant:\n{stdout}");
    assert!(lines[13].starts_with("hans38-five ") && lines[13].ends_with("(community variant)"), "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("broken.toml is not loaded: line 2, room:"), "{stderr}");

    // The chat lists it apart, explains it from its file, and plays it.
    let answers = local(
        &dir,
        &[
            "!t variants",
            "!t rules hans38 five",
            "!t challenge @bob hans38-five white",
            "/as bob",
            "!t accept",
        ],
    );
    assert!(
        answers[0].contains("Community variants") && answers[0].contains("`hans38-five` — "),
        "{answers:?}"
    );
    assert!(
        answers[1].starts_with("[tessera] **hans38-five**: holes between the armies; 5 owned"),
        "{answers:?}"
    );
    assert!(answers[4].contains("Game #1 begins: hans38-five"), "{answers:?}");
    // The log says which file was refused, and the bot ran on.
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The practice opponent plays a community variant, and its finished game is drawn as a GIF.
#[test]
fn the_practice_opponent_plays_a_community_variant_and_its_game_is_drawn() {
    let dir = data_dir("practice");
    std::fs::write(dir.join("variants/hans38-five.toml"), hans38_with("hans38-five", 5)).unwrap();
    let answers = local(&dir, &["!t challenge @tessera hans38-five white level 1", "@@e4", "!t resign"]);
    assert!(answers[0].contains("Game #1 begins: hans38-five, alice (white) vs tessera"), "{answers:?}");
    assert!(answers[1].contains("tessera played "), "{answers:?}");
    let gif = answers[2].split("the game as a GIF: ").nth(1).and_then(|r| r.split(')').next());
    let gif = std::fs::read(gif.unwrap_or_else(|| panic!("{answers:?}"))).unwrap();
    assert!(gif.starts_with(b"GIF89a"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tournament of a community variant pairs its later rounds by the definition it was created
/// with, after the file is gone.
#[test]
fn a_tournament_plays_on_after_its_variant_file_is_removed() {
    let dir = data_dir("tournament");
    let file = dir.join("variants/hans38-five.toml");
    std::fs::write(&file, hans38_with("hans38-five", 5)).unwrap();
    let mut lines = vec!["/as erin".to_string(), "!t tournament create swiss hans38-five rounds 2".into()];
    for p in ["alice", "bob", "carol", "dave"] {
        lines.extend([format!("/as {p}"), "!t tournament join".into()]);
    }
    lines.extend(["/as erin".into(), "!t tournament start".into()]);
    let first = local(&dir, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(first[1].contains("Tournament t1, hans38-five swiss"), "{first:?}");
    assert!(first[11].contains("round 1 of 2 is paired"), "{first:?}");

    std::fs::remove_file(&file).unwrap();
    let second = local(&dir, &["/as alice", "!t resign", "/as bob", "!t resign", "/as carol", "!t resign"]);
    let all = second.join("\n");
    assert!(all.contains("round 2 of 2 is paired"), "{all}");
    assert!(all.contains("Board 2: game #4"), "{all}");
    assert!(!all.contains("cannot be loaded") && !all.contains("went wrong"), "{all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A game keeps the definition it started with: after the file is edited (five squares in hand
/// become two) the game started under five still places its third, fourth and fifth; a new game
/// has two. After the file is removed, the game still loads and plays, and the variant is no
/// longer offered.
#[test]
fn a_game_keeps_its_rules_when_its_file_is_edited_or_removed() {
    let dir = data_dir("kept");
    let file = dir.join("variants/hans38-five.toml");
    std::fs::write(&file, hans38_with("hans38-five", 5)).unwrap();
    let first = local(
        &dir,
        &[
            "!t challenge @bob hans38-five white",
            "/as bob",
            "!t accept",
            "/as alice",
            "!t move @@e4",
            "/as bob",
            "!t move @@e5",
            "/as alice",
            "!t move @@d4",
        ],
    );
    assert!(first[8].contains("alice played @@d4"), "{first:?}");

    std::fs::write(&file, hans38_with("hans38-five", 2)).unwrap();
    let second = local(
        &dir,
        &[
            "/as bob",
            "!t move @@d5",
            "/as alice",
            "!t move @@c4",
            "/as bob",
            "!t move @@c5",
            "/as alice",
            "!t move @@f4",
            // A new game, in another channel, under the edited file: two squares in hand.
            "/channel two",
            "!t challenge @bob hans38-five white",
            "/as bob",
            "!t accept",
            "/as alice",
            "!t move @@e4",
            "/as bob",
            "!t move @@e5",
            "/as alice",
            "!t move @@d4",
            "/as bob",
            "!t move @@d5",
            "/as alice",
            "!t move @@c4",
        ],
    );
    assert!(second[3].contains("alice played @@c4"), "the third square: {second:?}");
    assert!(second[7].contains("alice played @@f4"), "the fourth square: {second:?}");
    assert!(second[11].contains("Game #2 begins: hans38-five"), "{second:?}");
    assert!(second[17].contains("alice played @@d4"), "{second:?}");
    assert!(!second[21].contains("alice played"), "the new game has two squares: {second:?}");
    assert!(second[21].contains("no squares left in reserve"), "the refusal says why: {second:?}");

    std::fs::remove_file(&file).unwrap();
    let third = local(&dir, &["!t variants", "/as bob", "!t move @@g5", "/as alice", "!t move @@g4"]);
    assert!(!third[0].contains("hans38-five"), "{third:?}");
    assert!(third[2].contains("bob played @@g5"), "{third:?}");
    assert!(third[4].contains("alice played @@g4"), "the fifth square of five: {third:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tessera variant check`: a good file's report (perft equal to the built-in it copies, games
/// played and replayed, the start picture written), and a bad file's line and field, in text and
/// JSON, with the exit code scripts read.
#[test]
fn variant_check_reports_in_text_and_json() {
    let dir = data_dir("check");
    let good = dir.join("hans38-five.toml");
    std::fs::write(&good, hans38_with("hans38-five", 3)).unwrap();
    let picture = dir.join("start.png");
    let args = ["variant", "check", "--games", "20", "--json", "--picture"];
    let out = tessera(&dir, &[&args[..], &[picture.to_str().unwrap(), good.to_str().unwrap()]].concat(), "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["variant"]["name"], "hans38-five");
    // Three squares in hand: the same game as Hans38, so the same counts.
    assert_eq!(report["perft"], serde_json::json!([32, 1004, 44212]));
    assert_eq!(report["games"]["played"], 20);
    assert_eq!(report["games"]["failures"], serde_json::json!([]));
    assert!(std::fs::read(&picture).unwrap().starts_with(b"\x89PNG"));

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, hans38_with("bad", 3).replace("ownership = \"owned\"", "ownership = \"mine\""))
        .unwrap();
    let out = tessera(&dir, &["variant", "check", bad.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = hans38_with("bad", 3).lines().position(|l| l.starts_with("ownership")).unwrap() + 1;
    assert!(text.contains(&format!("refused: line {line}, squares.ownership: ")), "{text}");
    let out = tessera(&dir, &["variant", "check", "--json", bad.to_str().unwrap()], "");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["ok"].clone(), report["refused"]["line"].clone()), (false.into(), line.into()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The three example community variants of `docs/examples/`: each loads from the data directory,
/// passes `tessera variant check`, counts its perft file's start position as the file says, and
/// is explained and played in the local mode, its rules' example the first turn.
#[test]
fn the_example_variants_load_check_and_play() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples");
    let mut names: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["hans38-seven", "shrink-stalemate-loses", "tiled-squares-laid"]);
    let dir = data_dir("examples");
    for name in &names {
        let file = examples.join(format!("{name}.toml"));
        std::fs::copy(&file, dir.join(format!("variants/{name}.toml"))).unwrap();

        let args = ["variant", "check", "--games", "10", "--depth", "2", "--json", "--picture"];
        let picture = dir.join(format!("{name}.png"));
        let out =
            tessera(&dir, &[&args[..], &[picture.to_str().unwrap(), file.to_str().unwrap()]].concat(), "");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["ok"], true, "{name}: {report}");

        // The perft file's first position is the start: its counts are the check's and perft's.
        let perft = std::fs::read_to_string(examples.join(format!("{name}.perft"))).unwrap();
        let counts: Vec<u64> = perft
            .lines()
            .skip_while(|l| !l.starts_with("epd "))
            .skip(1)
            .take_while(|l| l.starts_with("perft "))
            .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
            .collect();
        assert_eq!(report["perft"], serde_json::json!(counts[..2]), "{name}");
        let out = tessera(&dir, &["perft", "--variant", name, "--json", "3"], "");
        let perft3: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(perft3["nodes"], counts[2], "{name}");
    }
    let out = tessera(&dir, &["variants"], "");
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listed.lines().filter(|l| l.ends_with("(community variant)")).count(), 3, "{listed}");

    for name in &names {
        let text = std::fs::read_to_string(examples.join(format!("{name}.toml"))).unwrap();
        let example =
            text.lines().find_map(|l| l.strip_prefix("example = \"")).unwrap().trim_end_matches('"');
        let answers = local(
            &dir,
            &[
                &format!("/channel {name}"),
                &format!("!t rules {name}"),
                &format!("!t challenge @bob {name} white"),
                "/as bob",
                "!t accept",
                "/as alice",
                &format!("!t move {example}"),
            ],
        );
        assert!(answers[1].starts_with(&format!("[tessera] **{name}**")), "{answers:?}");
        // The file's own rules text follows the three lines.
        let rules = tessera_rules::variant_file::read_variant_file(&text).unwrap().help.rules;
        let opening: String = rules.chars().take(60).collect();
        assert!(!rules.is_empty() && answers[1].contains(&opening), "{name}: {answers:?}");
        assert!(answers[4].contains(&format!("begins: {name}")), "{answers:?}");
        // Played as typed (the reply writes it in the variant's notation: `e4` for `e2-e4`).
        assert!(answers[6].starts_with("[tessera] alice played "), "{name}: {answers:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
