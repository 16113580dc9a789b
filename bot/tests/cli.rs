//! The scriptable CLI, run as a user would run it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn tessera(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        // A data directory of nobody's: the community variants of whoever runs the tests stay out.
        .env("TESSERA_DATA_DIR", std::env::temp_dir().join("tessera-cli-tests-no-data"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn variants_one_a_line_name_first() {
    let out = tessera(&["variants"], None);
    assert!(out.status.success());
    let text = stdout(&out);
    let names: Vec<&str> = text.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert!(names.contains(&"chess"), "{text}");
    // The summaries start in one column, two spaces after the longest name.
    let column: Vec<usize> = text
        .lines()
        .map(|l| {
            l.find(|c: char| c.is_whitespace()).unwrap()
                + l[l.find(' ').unwrap()..].find(|c: char| !c.is_whitespace()).unwrap()
        })
        .collect();
    assert!(column.windows(2).all(|w| w[0] == w[1]), "{text}");
}

#[test]
fn variants_markdown_is_docs_variants_md() {
    let out = tessera(&["variants", "--markdown"], None);
    assert!(out.status.success());
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/variants.md");
    let doc = std::fs::read_to_string(&file).unwrap();
    assert!(
        stdout(&out) == doc,
        "regenerate {}: tessera variants --markdown > docs/variants.md",
        file.display()
    );
}

#[test]
fn perft_plain_divide_and_json() {
    let out = tessera(&["perft", "--variant", "chess", "3"], None);
    assert!(out.status.success());
    assert_eq!(stdout(&out).trim(), "8902");

    let out = tessera(&["perft", "--divide", "2"], None);
    let text = stdout(&out);
    assert!(text.lines().any(|l| l == "e2e4: 20"), "{text}");
    assert_eq!(text.lines().last(), Some("400"));

    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = tessera(&["perft", "--fen", kiwipete, "--json", "--divide", "2"], None);
    let v = json(&out);
    assert_eq!(v["nodes"], 2039);
    assert_eq!(v["depth"], 2);
    assert_eq!(v["divide"]["e1g1"], 43);
    assert_eq!(v["fen"], kiwipete);
}

/// FIDE chess is counted on the plain board (the library's fast generator), which the command
/// names on standard error; every other variant on the general board. The counts are the
/// published ones, and the node budget holds on either board.
#[test]
fn perft_counts_fide_chess_on_the_plain_board() {
    let out = tessera(&["perft", "--json", "5"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["nodes"], 4_865_609);
    let out = tessera(&["perft", "5"], None);
    assert_eq!(stdout(&out).trim(), "4865609");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(plain board)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = tessera(&["perft", "--fen", kiwipete, "--json", "4"], None);
    assert_eq!(json(&out)["nodes"], 4_085_603);
    let out = tessera(&["perft", "--fen", kiwipete, "--json", "--divide", "3"], None);
    let v = json(&out);
    assert_eq!(v["nodes"], 97_862);
    assert_eq!(v["divide"]["e1g1"], 2059);
    assert_eq!(v["divide"].as_object().unwrap().len(), 48);
    let out = tessera(&["perft", "--fen", kiwipete, "--divide", "3"], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("(plain board)"));
    // Exactly the count fits the budget; one node less is refused, whole or divided.
    assert!(tessera(&["perft", "--max-nodes", "4865609", "5"], None).status.success());
    for args in
        [&["perft", "--max-nodes", "4865608", "5"][..], &["perft", "--max-nodes", "4865608", "--divide", "5"]]
    {
        let out = tessera(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("more than 4865608 nodes"), "{args:?}");
        assert!(stdout(&out).lines().all(|l| l != "4865609"), "{args:?}");
    }
    let out = tessera(&["perft", "--variant", "hans38", "2"], None);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(general board)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn perft_divide_writes_each_shrink_promotion() {
    // The rook leaves the first rank and the black pawn lands on a1: each piece White may choose
    // is a move of its own, written with the choice.
    let fen = "4k3/8/8/8/8/4K3/p7/7R w - - 0 1";
    let out = tessera(&["perft", "--variant", "shrink", "--fen", fen, "--divide", "1"], None);
    let text = stdout(&out);
    let h3: Vec<&str> = text.lines().filter(|l| l.starts_with("h1h3")).collect();
    assert_eq!(h3, ["h1h3[a1=Q]: 1", "h1h3[a1=R]: 1", "h1h3[a1=B]: 1", "h1h3[a1=N]: 1"], "{text}");
    let out = tessera(&["perft", "--variant", "shrink", "--fen", fen, "--divide", "--json", "1"], None);
    let v = json(&out);
    assert_eq!(v["divide"].as_object().unwrap().len() as u64, v["nodes"].as_u64().unwrap());
    assert_eq!(v["divide"]["h1h3[a1=B]"], 1);
}

#[test]
fn perft_and_gif_are_bounded() {
    // A depth that would run for days ends at the node budget, saying so.
    let out = tessera(&["perft", "--max-nodes", "100000", "12"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 100000 nodes"));
    let out = tessera(&["perft", "--max-nodes", "8902", "--divide", "3"], None);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().last(), Some("8902"));
}

#[test]
fn perft_rejects_bad_positions() {
    let out = tessera(&["perft", "--fen", "not a fen", "2"], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--fen"), "{err}");
    let out = tessera(&["perft", "--variant", "nonsense", "2"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant"));
}

const SCHOLARS_MATE: &str =
    "[Event \"Casual\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6?? {oops} 4. Qxf7# 1-0\n";

#[test]
fn replay_plain_and_json() {
    let out = tessera(&["replay", "--variant", "chess", "-"], Some(SCHOLARS_MATE));
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, ["r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4", "1-0"]);

    let out = tessera(&["replay", "--json", "-"], Some(SCHOLARS_MATE));
    let v = json(&out);
    assert_eq!(v["variant"], "chess");
    assert_eq!(v["ply"], 7);
    assert_eq!(v["turn"], "black");
    assert_eq!(v["result"], "1-0");
    assert_eq!(v["board"]["f7"]["piece"], "Q");
    assert_eq!(v["board"]["e8"]["piece"], "k");
    assert_eq!(v["board"].as_object().unwrap().len(), 31);
    assert!(v["board"]["e2"].is_null());
}

#[test]
fn replay_of_an_unfinished_game_has_no_result() {
    let out = tessera(&["replay", "--json", "-"], Some("1. d4 d5 2. c4"));
    let v = json(&out);
    assert_eq!(v["result"], Value::Null);
    assert_eq!(v["ply"], 3);
    assert_eq!(v["fen"], "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2");
}

#[test]
fn replay_stops_at_the_first_illegal_move() {
    let out =
        tessera(&["replay", "-"], Some("1. e4 e5 2. Nf3 Nf6 3. Ng5 Ke7 4. Nxf7 Kxf7 5. Bc4+ Ke7 6. Qh5 Qe9"));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ply 12") && err.contains("Qe9"), "{err}");

    let out = tessera(&["replay", "--json", "-"], Some("1. e4 e5 2. Ke3"));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["ply"], 3);
    assert_eq!(v["move"], "Ke3");
    assert!(v["reason"].as_str().unwrap().contains("e3"));
}

#[test]
fn replay_from_a_file() {
    let path = std::env::temp_dir().join(format!("tessera-cli-{}.pgn", std::process::id()));
    std::fs::write(&path, SCHOLARS_MATE).unwrap();
    let out = tessera(&["replay", path.to_str().unwrap()], None);
    std::fs::remove_file(&path).ok();
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().nth(1), Some("1-0"));
    let out = tessera(&["replay", "/nonexistent/game.pgn"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/game.pgn"));
}

#[test]
fn replay_json_for_a_changing_board() {
    let record = "[Variant \"Hans38\"]\n1. @@a6 a7-a6 2. @@b6 b7-b6 3. @@c6 c7-c6";
    let out = tessera(&["replay", "--json", "-"], Some(record));
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["variant"], "hans38");
    assert_eq!(v["result"], "0-1", "White is stalemated, and stalemate loses");
    let board = v["board"].as_object().unwrap();
    assert_eq!(board.len(), 64, "every location is listed");
    assert_eq!(board["a6"], serde_json::json!({"square": "normal", "owner": "black", "piece": "p"}));
    assert_eq!(board["a7"], serde_json::json!({"square": "normal", "owner": "black"}));
    assert_eq!(board["e4"], serde_json::json!({"square": "hole"}));
    assert_eq!(board["e1"]["owner"], "white");
    assert_eq!(v["reserves"], serde_json::json!({"white": 0, "black": 3}));
    assert_eq!(v["locked"], serde_json::json!([]));

    let out =
        tessera(&["replay", "--variant", "hans38-neutral", "--json", "-"], Some("1. @@f3 @@f6 2. Ng1-f3"));
    let v = json(&out);
    assert!(v["board"]["f6"].get("owner").is_none());
    assert_eq!(v["locked"], serde_json::json!([]));
    assert_eq!(v["board"]["g1"], serde_json::json!({"square": "normal"}));

    let out = tessera(&["replay", "--variant", "infinite-reserves", "--json", "-"], Some("1. @@f3"));
    assert_eq!(json(&out)["reserves"]["white"], "infinite");
    assert_eq!(json(&out)["locked"], serde_json::json!(["f3"]));
}

#[test]
fn every_variant_has_a_perft_from_its_start() {
    let out = tessera(&["variants"], None);
    for line in stdout(&out).lines() {
        let name = line.split_whitespace().next().unwrap();
        let out = tessera(&["perft", "--variant", name, "--json", "1"], None);
        assert!(out.status.success(), "{name}");
        assert!(json(&out)["nodes"].as_u64().unwrap() > 0, "{name}");
    }
}

#[test]
fn replay_json_lists_quad_pieces_under_the_quad() {
    let out =
        tessera(&["replay", "--variant", "quad-square", "--json", "-"], Some("1. c3-M1 c6-M1 2. Bc1-d2"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["board"]["M1"], serde_json::json!({"pieces": ["P", "p"]}));
    assert_eq!(v["board"]["S1"], serde_json::json!({"pieces": ["R"]}));
    assert_eq!(v["board"]["d2"], serde_json::json!({"piece": "B"}));
    assert!(v["board"].get("b4").is_none() && v["board"].get("a1").is_none());
    assert_eq!(v["turn"], "black");
}

#[test]
fn output_into_a_closed_pipe_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["perft", "--divide", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn replay_json_gives_the_chip() {
    let out = tessera(&["replay", "--variant", "blue-chip", "--json", "-"], Some("[e5] 1. e2-e4[d5]"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["chip"], "d5");
    assert_eq!(v["ply"], 2);
    assert_eq!(v["board"]["e4"], serde_json::json!({"piece": "P"}));
}

#[test]
fn replay_json_gives_tile_states_and_owners() {
    let out =
        tessera(&["replay", "--variant", "tiled-squares", "--json", "-"], Some("1. @@e4 @!e5 2. e2-e4"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["board"]["e4"], serde_json::json!({"square": "tile", "owner": "white", "piece": "P"}));
    assert_eq!(v["board"]["e5"], serde_json::json!({"square": "anti-tile"}));
    assert_eq!(v["board"]["e2"], serde_json::json!({"square": "tile", "owner": "white"}));
    assert_eq!(v["board"]["d4"], serde_json::json!({"square": "hole"}));
}

#[test]
fn replay_json_gives_the_shrunk_size() {
    let out = tessera(&["replay", "--variant", "shrink", "--json", "-"], Some("1. Nf3 Nf6 2. Ng5"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["size"], serde_json::json!({"files": 8, "ranks": 7}));
    assert_eq!(v["board"]["g4"]["piece"], "N", "the knight's square renamed after rank 3 went");
}

#[test]
fn render_writes_png_and_gif() {
    let dir = std::env::temp_dir().join(format!("tessera-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("board.png");
    let out = tessera(
        &["render", "--variant", "hans38", "--size", "300", "--json", "-o", png.to_str().unwrap()],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["format"], "png");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    assert_eq!(v["bytes"], bytes.len());
    // Width is the asked size, read from the IHDR chunk.
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 300);

    let gif = dir.join("game.gif");
    let out = tessera(
        &[
            "render",
            "--moves",
            "-",
            "--gif",
            "--flip",
            "--theme",
            "slate",
            "--json",
            "-o",
            gif.to_str().unwrap(),
        ],
        Some("1. e4 e5 2. Nf3"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["frames"], 4);
    assert_eq!(&std::fs::read(&gif).unwrap()[..6], b"GIF89a");

    let out = tessera(&["render", "--size", "5", "-o", png.to_str().unwrap()], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 to 2048"));
    let out = tessera(&["render", "--theme", "neon", "-o", png.to_str().unwrap()], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("walnut or slate"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pair_reads_trf_and_prints_the_dutch_pairings() {
    use tessera_pairing::{Colour, Player, ResultCode, RoundEntry, Tournament, write_trf};
    // Four players after round 1 (1 beat 3, 4 drew 2): round 2 pairs the leaders apart.
    let entry = |o, c, r| RoundEntry::game(o, c, r);
    let players = vec![
        Player {
            id: 1,
            name: "Dvořák".into(),
            rating: 2000,
            rounds: vec![entry(3, Colour::White, ResultCode::Win)],
            ..Player::default()
        },
        Player {
            id: 2,
            name: "Bo".into(),
            rating: 1900,
            rounds: vec![entry(4, Colour::Black, ResultCode::Draw)],
            ..Player::default()
        },
        Player {
            id: 3,
            name: "Cy".into(),
            rating: 1800,
            rounds: vec![entry(1, Colour::Black, ResultCode::Loss)],
            ..Player::default()
        },
        Player {
            id: 4,
            name: "Di".into(),
            rating: 1700,
            rounds: vec![entry(2, Colour::White, ResultCode::Draw)],
            ..Player::default()
        },
    ];
    let t = Tournament { total_rounds: 3, players, ..Tournament::default() };
    let expected = tessera_pairing::pair_next_round(&t).unwrap().to_text();
    let out = tessera(&["pair", "-"], Some(&write_trf(&t)));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out), expected);
    assert!(expected.starts_with("2\n"));
    let out = tessera(&["pair", "--json", "-"], Some(&write_trf(&t)));
    assert_eq!(json(&out)["pairs"], 2);

    // Two players who have met: nobody left to pair them with.
    let met = Tournament {
        total_rounds: 2,
        players: vec![
            Player {
                id: 1,
                name: "A".into(),
                rounds: vec![entry(2, Colour::White, ResultCode::Win)],
                ..Player::default()
            },
            Player {
                id: 2,
                name: "B".into(),
                rounds: vec![entry(1, Colour::Black, ResultCode::Loss)],
                ..Player::default()
            },
        ],
        ..Tournament::default()
    };
    let out = tessera(&["pair", "-"], Some(&write_trf(&met)));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out).trim(), "no valid pairing");
    // A broken file says where.
    let out = tessera(&["pair", "-"], Some("012 Test\n001 garbage"));
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}

/// `tessera pair` with input that must be refused: it exits with an error status and one line
/// saying why, at once.
fn refused_pair(args: &[&str], stdin: Option<&str>) -> String {
    let started = std::time::Instant::now();
    let out = tessera(args, stdin);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(took < std::time::Duration::from_secs(20), "{args:?} took {took:?}");
    stderr.trim_end().to_string()
}

#[test]
fn pair_refuses_endless_oversize_binary_and_crowded_input() {
    // An endless file: read to the cap and refused (before, it grew without limit).
    let zero = refused_pair(&["pair", "/dev/zero"], None);
    assert_eq!(zero, "error: /dev/zero: larger than 8 MiB, the most a TRF file may be");
    // A file one byte over the cap, by path and on standard input.
    let dir = std::env::temp_dir().join(format!("tessera-cli-pair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.trf");
    let mut text = String::from("012 Big\nXXR 3\n");
    text.push_str(&" ".repeat(tessera_pairing::MAX_TRF_BYTES + 1 - text.len()));
    std::fs::write(&big, &text).unwrap();
    let by_path = refused_pair(&["pair", big.to_str().unwrap()], None);
    assert!(by_path.ends_with("big.trf: larger than 8 MiB, the most a TRF file may be"), "{by_path}");
    let piped = refused_pair(&["pair", "-"], Some(&text));
    assert_eq!(piped, "error: -: larger than 8 MiB, the most a TRF file may be");
    // 4,001 players: refused, naming the limit.
    let line = |id: usize| format!("001 {id:>4}    {:<33} 1500\n", format!("Player {id}"));
    let crowded: String = (1..=4001).map(line).chain(["XXR 5\n".to_string()]).collect();
    let many = refused_pair(&["pair", "-"], Some(&crowded));
    assert_eq!(many, "error: -: line 4001: more than 4000 players, the most a tournament may have");
    // Binary and non-UTF-8 input.
    let binary = refused_pair(&["pair", "-"], Some("\0\u{1}\u{2}PNG"));
    assert_eq!(binary, "error: -: line 1: binary data (a NUL byte), not a TRF text file");
    let latin1 = dir.join("latin1.trf");
    std::fs::write(&latin1, b"012 Test\n001    1    Dvo\xf8\xe1k\n").unwrap();
    let not_text = refused_pair(&["pair", latin1.to_str().unwrap()], None);
    assert!(not_text.ends_with("latin1.trf: line 2: not UTF-8 text; a TRF file is text"), "{not_text}");
    // Missing file.
    let missing = refused_pair(&["pair", dir.join("none.trf").to_str().unwrap()], None);
    assert!(missing.contains("none.trf") && missing.contains("No such file"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tournament_export_writes_trf_from_the_database() {
    use tessera_core::service::{Incoming, Service, User};
    use tessera_store::SqliteStore;
    let dir = std::env::temp_dir().join(format!("tessera-cli-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    {
        let service = Service::new(SqliteStore::open(&dir.join("tessera.sqlite")).unwrap());
        let say = |who: &str, text: &str| {
            let author = User::new(who, who);
            let msg = Incoming {
                platform: "local",
                channel: "main",
                author: &author,
                is_admin: false,
                text,
                mentions: &[],
                now: 1_800_000_000,
                thread: None,
            };
            service.handle(&msg)
        };
        say("org", "!t tournament create swiss chess rounds 3");
        for p in ["ann", "ben", "cat"] {
            say(p, "!t tournament join");
        }
        say("org", "!t tournament start");
    }
    let out = tessera(&["--data-dir", dir.to_str().unwrap(), "tournament", "export", "1"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let back = tessera_pairing::read_trf(&out.stdout).unwrap();
    assert_eq!(back.players.len(), 3);
    assert_eq!(back.total_rounds, 3);
    let out = tessera(&["--data-dir", dir.to_str().unwrap(), "tournament", "export", "9"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tournament t9"));
}

/// The chat bot's log at the most detailed level, with Discord unreachable: it says what it is
/// doing and why it stops, and never writes the token. (The Synapse test checks the same for
/// Matrix's password and access token.)
#[test]
fn the_log_never_shows_the_discord_token() {
    let dir = std::env::temp_dir().join(format!("tessera-cli-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let token = "MTE5.very-secret-discord-token.xyz";
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["--data-dir", dir.to_str().unwrap()])
        .env("TESSERA_DISCORD_TOKEN", token)
        .env("RUST_LOG", "trace")
        // Nowhere to connect to: every request fails at once.
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("games are kept here"), "{log}");
    assert!(log.contains("TRACE") || log.contains("DEBUG"), "the level comes from RUST_LOG: {log}");
    assert!(!log.contains(token) && !log.contains("very-secret"), "the token is in the log");
    std::fs::remove_dir_all(&dir).ok();
}

/// A FIDE chess game's PGN is SAN with a `Termination` tag, and reads back: a mate ends
/// "normal", a loss on time "time forfeit", a resignation "normal".
#[test]
fn the_bots_fide_pgn_is_san_with_its_termination() {
    use tessera_core::service::{Incoming, Service, User};
    use tessera_store::SqliteStore;
    let dir = std::env::temp_dir().join(format!("tessera-cli-san-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let service = Service::new(SqliteStore::open(&dir.join("g.sqlite")).unwrap());
    const NOW: i64 = 1_795_400_000;
    let say = |channel: &str, who: &str, text: &str| {
        let author = User::new(who, who);
        let other = if who == "ann" { "bob" } else { "ann" };
        let mentions = [User::new(other, other)];
        let msg = Incoming {
            platform: "local",
            channel,
            author: &author,
            is_admin: false,
            text,
            mentions: &mentions,
            now: NOW,
            thread: None,
        };
        service.handle(&msg).into_iter().map(|r| r.text).collect::<Vec<_>>().join("\n")
    };
    let termination = |pgn: &str| {
        pgn.lines().find_map(|l| l.strip_prefix("[Termination \"")?.strip_suffix("\"]").map(str::to_string))
    };
    // Scholar's mate, played in long notation, is written in SAN.
    say("mate", "ann", "!t challenge @bob chess white");
    say("mate", "bob", "!t accept");
    let moves = ["e2-e4", "e7-e5", "Qd1-h5", "Nb8-c6", "Bf1-c4", "Ng8-f6", "Qh5xf7"];
    for (i, mv) in moves.iter().enumerate() {
        say("mate", if i % 2 == 0 { "ann" } else { "bob" }, mv);
    }
    let pgn = say("mate", "ann", "!t history");
    assert!(pgn.ends_with("\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"), "{pgn}");
    assert_eq!(termination(&pgn).as_deref(), Some("normal"), "{pgn}");
    let out = tessera(&["replay", "--json", "-"], Some(&pgn));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((json(&out)["ply"].as_u64(), json(&out)["result"].as_str()), (Some(7), Some("1-0")));
    // A loss on time.
    say("clock", "ann", "!t challenge @bob chess white 1d");
    say("clock", "bob", "!t accept");
    say("clock", "ann", "Nf3");
    service.tick(NOW + 3 * 86_400).unwrap();
    let pgn = say("clock", "ann", "!t history");
    assert_eq!(termination(&pgn).as_deref(), Some("time forfeit"), "{pgn}");
    assert!(pgn.contains("[Result \"1-0\"]") && pgn.ends_with("\n\n1. Nf3 1-0"), "{pgn}");
    // A resignation.
    say("resign", "ann", "!t challenge @bob chess white");
    say("resign", "bob", "!t accept");
    say("resign", "ann", "d4");
    say("resign", "bob", "!t resign");
    let pgn = say("resign", "ann", "!t history");
    assert_eq!(termination(&pgn).as_deref(), Some("normal"), "{pgn}");
    assert!(pgn.ends_with("\n\n1. d4 1-0"), "{pgn}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `!t history` writes PGN with the Seven Tag Roster and the variant, which `replay` and
/// `render --moves` read back without being told the variant.
#[test]
fn the_bots_pgn_reads_back() {
    use tessera_core::service::{Incoming, Service, User};
    use tessera_store::SqliteStore;
    let dir = std::env::temp_dir().join(format!("tessera-cli-pgn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let service = Service::new(SqliteStore::open(&dir.join("g.sqlite")).unwrap());
    let say = |who: &str, text: &str| {
        let author = User::new(who, who);
        let mentions = [User::new("bob \"the rook\"", "bob \"the rook\"")];
        let msg = Incoming {
            platform: "local",
            channel: "main",
            author: &author,
            is_admin: false,
            text,
            mentions: &mentions,
            now: 1_795_400_000,
            thread: None,
        };
        service.handle(&msg).into_iter().map(|r| r.text).collect::<Vec<_>>().join("\n")
    };
    say("ann", "!t challenge @bob hans38 white");
    say("bob \"the rook\"", "!t accept");
    for (who, mv) in [("ann", "@@f3"), ("bob \"the rook\"", "@@f6"), ("ann", "Ng1-f3")] {
        say(who, mv);
    }
    let pgn = say("ann", "!t history");
    let tags: Vec<&str> = pgn.lines().take_while(|l| l.starts_with('[')).collect();
    assert_eq!(
        tags,
        [
            "[Event \"Tessera game #1\"]",
            "[Site \"Tessera, local\"]",
            "[Date \"2026.11.23\"]",
            "[Round \"-\"]",
            "[White \"ann\"]",
            "[Black \"bob \\\"the rook\\\"\"]",
            "[Result \"*\"]",
            "[Variant \"hans38\"]",
            "[Termination \"unterminated\"]",
        ],
        "{pgn}"
    );
    let out = tessera(&["replay", "--json", "-"], Some(&pgn));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["variant"], "hans38");
    assert_eq!(json(&out)["ply"], 3);
    let png = dir.join("b.png");
    let out = tessera(&["render", "--moves", "-", "--json", "-o", png.to_str().unwrap()], Some(&pgn));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["variant"], "hans38");
    // The record's White and Black tags caption the picture as the bot does: the same picture as
    // naming the players on the command line, and taller than the bare board.
    let named = dir.join("named.png");
    let moves_only = dir.join("moves.txt");
    std::fs::write(&moves_only, pgn.split("\n\n").nth(1).unwrap()).unwrap();
    let by_hand = [
        "render",
        "--variant",
        "hans38",
        "--moves",
        moves_only.to_str().unwrap(),
        "--white",
        "ann",
        "--black",
        "bob \"the rook\"",
        "-o",
        named.to_str().unwrap(),
    ];
    assert!(tessera(&by_hand, None).status.success());
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&named).unwrap());
    let bare = dir.join("bare.png");
    let out = tessera(
        &[
            "render",
            "--variant",
            "hans38",
            "--moves",
            moves_only.to_str().unwrap(),
            "-o",
            bare.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success());
    let height = |p: &std::path::Path| {
        let bytes = std::fs::read(p).unwrap();
        u32::from_be_bytes(bytes[20..24].try_into().unwrap())
    };
    assert!(height(&png) > height(&bare), "names above and below the board");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bestmove_prints_a_legal_turn_replay_reads_in_every_variant() {
    for &variant in tessera_rules::Variant::ALL {
        let out = tessera(&["bestmove", "--variant", variant.name(), "--movetime", "100", "--json"], None);
        assert!(out.status.success(), "{variant:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v = json(&out);
        for key in ["move", "depth", "nodes", "nps", "score"] {
            assert!(v.get(key).is_some(), "{variant:?}: no {key} in {v}");
        }
        assert!(v["depth"].as_u64().unwrap() >= 1 && v["nodes"].as_u64().unwrap() >= 1, "{v}");
        let score = &v["score"];
        assert!(score["cp"].is_i64() || score["mate"].is_i64(), "{v}");
        // The turn is one `replay` accepts from the start.
        let record = format!("1. {}", v["move"].as_str().unwrap());
        let replay = tessera(&["replay", "--variant", variant.name(), "--json", "-"], Some(&record));
        assert!(replay.status.success(), "{variant:?}: {record}: {}", stdout(&replay));
        assert_eq!(json(&replay)["ply"], 1, "{variant:?}");
    }
}

#[test]
fn bestmove_plain_from_a_record_and_a_position() {
    // From a record: the scholar's mate is there to take.
    let record = "[Variant \"chess\"]\n1. e2-e4 e7-e5 2. Qd1-h5 Nb8-c6 3. Bf1-c4 Ng8-f6\n";
    let out = tessera(&["bestmove", "--moves", "-", "--depth", "3"], Some(record));
    assert!(out.status.success());
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Qh5xf7#"), "{text}");
    let info = lines.next().unwrap();
    assert!(
        info.starts_with("depth ") && info.contains(" nodes ") && info.ends_with("score mate 1"),
        "{info}"
    );

    // A finished game has no turn to choose: said, and a failing exit.
    let out = tessera(&["bestmove", "--fen", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "--json"], None);
    assert!(!out.status.success());
    assert_eq!(json(&out)["move"], Value::Null);

    // A bad position is refused with the reason.
    let out = tessera(&["bestmove", "--fen", "8/8 w - - 0 1"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fen"));
}

#[test]
fn analyse_prints_each_ply_with_its_evaluation_best_turn_and_class() {
    // Black hangs its queen, and White does not take it.
    let record = "1. e4 e5 2. Nf3 Qg5 3. a3 *\n";
    let out =
        tessera(&["analyse", "--variant", "chess", "--moves", "-", "--depth", "4", "--json"], Some(record));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!((v["variant"].as_str(), v["depth"].as_u64()), (Some("chess"), Some(4)));
    assert_eq!(v["movetime_ms"], Value::Null);
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 6, "the start and five plies");
    assert_eq!(plies[0]["ply"], 0);
    assert!(plies[0].get("move").is_none(), "the start has no turn played");
    assert_eq!(plies[4]["move"], "Qg5");
    assert_eq!((plies[4]["mover"].as_str(), plies[4]["class"].as_str()), (Some("black"), Some("blunder")));
    assert_eq!(plies[4]["best"], "Nxg5", "White's best: take the queen");
    assert!(plies[4]["eval"]["cp"].as_i64().unwrap() > 500, "{}", plies[4]);
    assert_eq!((plies[5]["move"].as_str(), plies[5]["class"].as_str()), (Some("a3"), Some("blunder")));
    assert_eq!(plies[5]["better"], "Nxg5");
    assert!(plies[5]["loss"].as_f64().unwrap() >= 15.0, "{}", plies[5]);
    assert!(plies.iter().all(|p| p["depth"] == 4), "{plies:?}");
    assert_eq!((v["white"]["blunders"].as_u64(), v["black"]["blunders"].as_u64()), (Some(1), Some(1)));

    // Without --json: a line a ply, then each side's counts.
    let out = tessera(&["analyze", "--moves", "-", "--depth", "4"], Some(record));
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert!(lines[0].starts_with("start"), "{text}");
    assert!(lines[5].starts_with("3. a3??") && lines[5].ends_with("blunder, better Nxg5"), "{text}");
    assert!(lines[7].starts_with("black: 0 inaccuracies, 0 mistakes, 1 blunders"), "{text}");

    // A record that does not replay is refused with the reason.
    let out = tessera(&["analyse", "--moves", "-"], Some("1. e4 e4\n"));
    assert!(!out.status.success());
}
