//! Golden pictures: one telling position of every variant, drawn at 320 px, and one tournament
//! picture of each kind (standings, crosstable, bracket), compared with the pictures kept in
//! `tests/golden/`. Small differences (antialiasing on another machine) pass; a moved
//! piece, a changed colour or a missing mark does not. `TESSERA_BLESS=1` writes new goldens.

use std::path::PathBuf;

use tessera_render::{
    Bracket, BracketMatch, BracketRound, BracketSide, BracketSlot, Caption, Crosstable, CrosstablePlayer,
    GameResult, RenderOptions, StandingsRow, StandingsTable, TableOptions, ThemeName, encode_png, render,
    render_bracket_png, render_crosstable_png, render_standings_png,
};
use tessera_rules::view::BoardView;
use tessera_rules::{Color, Variant, replay};

/// Records that reach a position showing what each variant draws.
const CASES: &[(Variant, &str, &str)] = &[
    (Variant::CHESS, "chess-check", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"),
    (Variant::HANS38, "hans38-owned-squares", "1. @@e4 @@e5 2. @@d4 @@d5 3. @e4-e3 @d5-d6"),
    (Variant::HANS38_NEUTRAL, "hans38-neutral", "1. @@f3 @@f6 2. Ng1-f3 Ng8-f6"),
    (Variant::INFINITE_RESERVES, "infinite-reserves", "1. @@f3 @@f6 2. Ng1-f3 @@e4 Ng8-f6 @@e5"),
    (Variant::MOVING_OCCUPIED_SQUARES, "moving-occupied", "1. @@f3 @@f6 2. Ng1-f3 @@e4 @b2-b3"),
    (Variant::QUAD_SQUARE, "quad-square", "1. c3-M1 c6-M1 2. NS2-M2 d6-d5"),
    (Variant::TILED_SQUARES, "tiled-squares", "1. @@e4 @!e5 2. e2-e4 @@d5 3. Ke1-e2"),
    (Variant::BLUE_CHIP, "blue-chip", "[e5] 1. e2-e4[d5] e7-e5[f3]"),
    (Variant::SHRINK, "shrink", "1. Nf3 Nf6 2. Ng5"),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // Pictures are palette PNGs: read them as the RGB they stand for.
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgb, "expanded from the palette");
    (info.width, info.height, buf)
}

fn picture(variant: Variant, record: &str, flip: bool) -> Vec<u8> {
    picture_with(variant, record, RenderOptions { size: 320, flip, ..RenderOptions::default() })
}

fn picture_with(variant: Variant, record: &str, opts: RenderOptions) -> Vec<u8> {
    let game = replay(variant, record).unwrap_or_else(|e| panic!("{variant}: {e}")).game;
    let mut before = game.start().clone();
    let mut view = BoardView::new(&before, None);
    for mv in game.moves() {
        let after = before.played(mv);
        view = BoardView::new(&after, Some((&before, mv)));
        before = after;
    }
    encode_png(&render(&view, &opts).unwrap()).unwrap()
}

/// Compares a picture with its golden (or writes the golden when blessing); says what differs.
fn compare(name: &str, got: &[u8], bless: bool) -> Option<String> {
    let file = golden_dir().join(format!("{name}.png"));
    if bless {
        std::fs::write(&file, got).unwrap();
        return None;
    }
    let want = std::fs::read(&file)
        .unwrap_or_else(|_| panic!("{} is missing: run with TESSERA_BLESS=1", file.display()));
    let (gw, gh, g) = decode(got);
    let (ww, wh, w) = decode(&want);
    if (gw, gh) != (ww, wh) {
        return Some(format!("{name}: size {gw}x{gh}, golden {ww}x{wh}"));
    }
    // A pixel differs when a channel is off by more than 48; allow 0.3% such pixels.
    let differing = g
        .chunks(3)
        .zip(w.chunks(3))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 48))
        .count();
    let allowed = (gw * gh) as usize * 3 / 1000;
    if differing > allowed {
        let out = std::env::temp_dir().join(format!("tessera-{name}.png"));
        std::fs::write(&out, got).unwrap();
        return Some(format!("{name}: {differing} pixels differ (allowed {allowed}); see {}", out.display()));
    }
    None
}

#[test]
fn pictures_match_their_goldens() {
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let mut failures = Vec::new();
    for &(variant, name, record) in CASES {
        for flip in [false, true] {
            let name = format!("{name}{}", if flip { "-flipped" } else { "" });
            failures.extend(compare(&name, &picture(variant, record, flip), bless));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// As the bot posts them: the names on their sides, the mover marked and the clock, then a
/// finished game's banner; in both themes.
#[test]
fn captioned_pictures_match_their_goldens() {
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let names = || ["alice".to_string(), "Bartholomew Ñúñez".to_string()];
    let playing = Caption { names: names(), clocks: [None, Some("2d 23h".into())], result: None };
    let mate = (Some(Color::Black), "Black wins by checkmate".to_string());
    let over = Caption { names: names(), clocks: [None, None], result: Some(mate) };
    let mut failures = Vec::new();
    for (name, theme, caption, record) in [
        ("named-hans38", ThemeName::Walnut, playing.clone(), "1. @@e4 @@e5 2. @@d4"),
        ("named-hans38-slate", ThemeName::Slate, playing, "1. @@e4 @@e5 2. @@d4"),
        ("named-mate", ThemeName::Walnut, over.clone(), "1. f3 e5 2. g4 Qh4#"),
        ("named-mate-slate", ThemeName::Slate, over, "1. f3 e5 2. g4 Qh4#"),
    ] {
        let variant = if name.contains("hans38") { Variant::HANS38 } else { Variant::CHESS };
        let opts = RenderOptions { size: 320, theme, caption: Some(caption), ..RenderOptions::default() };
        failures.extend(compare(name, &picture_with(variant, record, opts), bless));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn standings() -> StandingsTable {
    let row = |rank: u32, name: &str, rating: Option<u32>, points: f64, tb: [f64; 4]| StandingsRow {
        rank,
        name: name.to_string(),
        rating,
        provisional: rating == Some(1500),
        points,
        tie_breaks: tb.to_vec(),
        withdrawn: false,
    };
    let mut rows = vec![
        row(1, "Antonín Dvořák", Some(1874), 3.5, [6.0, 7.5, 8.25, 0.0]),
        row(2, "Clara Schumann", Some(1790), 3.0, [6.5, 8.0, 7.0, 1.0]),
        row(3, "李小龙", Some(1500), 3.0, [5.5, 6.5, 6.0, 0.0]),
        row(4, "Edvard Hagerup Grieg of Bergen, Norway", None, 2.0, [4.0, 5.0, 3.5, 0.0]),
        row(5, "Zoë", Some(1402), 1.5, [4.5, 5.5, 1.75, 0.0]),
        row(6, "Bob", Some(1650), 0.5, [3.0, 3.5, 0.25, 0.0]),
    ];
    rows[4].withdrawn = true;
    StandingsTable {
        title: "Tessera Spring Swiss".to_string(),
        variant: "Hans 38".to_string(),
        round: 4,
        rounds: 7,
        tie_breaks: ["BH-C1", "BH", "SB", "DE"].map(String::from).to_vec(),
        rows,
    }
}

fn crosstable() -> Crosstable {
    use GameResult::{Draw as D, ForfeitLoss as FL, ForfeitWin as FW, Loss as L, Pending as P, Win as W};
    let grid = [[P, D, W, FW], [D, P, W, P], [L, L, P, D], [FL, P, D, P]];
    let names = ["Magnus", "Dvořák", "Ju Wenjun 居文君", "Alireza"];
    Crosstable {
        title: "Club Championship".to_string(),
        variant: "Chess".to_string(),
        round: 2,
        rounds: 3,
        double: false,
        tie_breaks: ["SB", "DE", "Wins", "Koya"].map(String::from).to_vec(),
        players: (0..4)
            .map(|i| CrosstablePlayer {
                name: names[i].to_string(),
                rating: Some(2000 - 50 * i as u32),
                provisional: false,
                points: [2.5, 1.5, 0.5, 0.5][i],
                tie_breaks: vec![[2.75, 1.25, 0.5, 0.25][i], 0.0, [2.0, 1.0, 0.0, 0.0][i], 0.5],
                withdrawn: i == 3,
                results: grid[i].iter().map(|&r| vec![r]).collect(),
            })
            .collect(),
    }
}

fn bracket() -> Bracket {
    let p = |seed: u32, name: &str| BracketSlot::Player { seed: Some(seed), name: name.to_string() };
    let m = |top, bottom, winner, score: &str| BracketMatch { top, bottom, winner, score: score.to_string() };
    use BracketSide::{Bottom, Top};
    Bracket {
        title: "Blitz Knockout".to_string(),
        variant: "Shrink".to_string(),
        rounds: vec![
            BracketRound {
                name: String::new(),
                matches: vec![
                    m(p(1, "Clara"), BracketSlot::Bye, None, ""),
                    m(p(4, "Dvořák"), p(5, "Edvard"), Some(Bottom), "½–1½"),
                    m(p(2, "Bob"), BracketSlot::Bye, None, ""),
                    m(p(3, "李小龙"), p(6, "Zoë"), Some(Top), "1–0"),
                ],
            },
            BracketRound {
                name: String::new(),
                matches: vec![
                    m(p(1, "Clara"), p(5, "Edvard"), Some(Top), "1½–½"),
                    m(p(2, "Bob"), p(3, "李小龙"), None, ""),
                ],
            },
        ],
    }
}

/// One tournament picture of each kind, at the default text size.
#[test]
fn tables_match_their_goldens() {
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let opts = TableOptions::default();
    let pictures = [
        ("table-standings", render_standings_png(&standings(), &opts).unwrap()),
        ("table-crosstable", render_crosstable_png(&crosstable(), &opts).unwrap()),
        ("table-bracket", render_bracket_png(&bracket(), &opts).unwrap()),
    ];
    let failures: Vec<String> = pictures.iter().filter_map(|(name, png)| compare(name, png, bless)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_comparison_catches_a_real_change() {
    let (_, _, a) = decode(&picture(Variant::CHESS, "1. e4", false));
    let (_, _, b) = decode(&picture(Variant::CHESS, "1. d4", false));
    let differing = a
        .chunks(3)
        .zip(b.chunks(3))
        .filter(|(x, y)| x.iter().zip(*y).any(|(p, q)| p.abs_diff(*q) > 48))
        .count();
    assert!(
        differing > a.len() / 3 * 3 / 1000,
        "a moved pawn must fail the golden comparison ({differing} pixels)"
    );
}
