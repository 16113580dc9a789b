//! Golden pictures: one telling position of every variant, drawn at 320 px and compared with the
//! picture kept in `tests/golden/`. Small differences (antialiasing on another machine) pass; a moved
//! piece, a changed colour or a missing mark does not. `TESSERA_BLESS=1` writes new goldens.

use std::path::PathBuf;

use tessera_render::{RenderOptions, ThemeName, encode_png, render};
use tessera_rules::view::BoardView;
use tessera_rules::{Variant, replay};

/// Records that reach a position showing what each variant draws.
const CASES: &[(Variant, &str, &str)] = &[
    (Variant::Chess, "chess-check", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"),
    (Variant::Hans38, "hans38-owned-squares", "1. @@e4 @@e5 2. @@d4 @@d5 3. @e4-e3 @d5-d6"),
    (Variant::Hans38Neutral, "hans38-neutral", "1. @@f3 @@f6 2. Ng1-f3 Ng8-f6"),
    (Variant::InfiniteReserves, "infinite-reserves", "1. @@f3 @@f6 2. Ng1-f3 @@e4 Ng8-f6 @@e5"),
    (Variant::MovingOccupiedSquares, "moving-occupied", "1. @@f3 @@f6 2. Ng1-f3 @@e4 @b2-b3"),
    (Variant::QuadSquare, "quad-square", "1. c3-M1 c6-M1 2. NS2-M2 d6-d5"),
    (Variant::TiledSquares, "tiled-squares", "1. @@e4 @!e5 2. e2-e4 @@d5 3. Ke1-e2"),
    (Variant::BlueChip, "blue-chip", "[e5] 1. e2-e4[d5] e7-e5[f3]"),
    (Variant::Shrink, "shrink", "1. Nf3 Nf6 2. Ng5"),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, buf)
}

fn picture(variant: Variant, record: &str, flip: bool) -> Vec<u8> {
    let game = replay(variant, record).unwrap_or_else(|e| panic!("{variant}: {e}")).game;
    let mut before = game.start().clone();
    let mut view = BoardView::new(&before, None);
    for mv in game.moves() {
        let after = before.played(mv);
        view = BoardView::new(&after, Some((&before, mv)));
        before = after;
    }
    let opts = RenderOptions { size: 320, flip, theme: ThemeName::Walnut, coordinates: true };
    encode_png(&render(&view, &opts).unwrap()).unwrap()
}

#[test]
fn pictures_match_their_goldens() {
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let mut failures = Vec::new();
    for &(variant, name, record) in CASES {
        for flip in [false, true] {
            let file = golden_dir().join(format!("{name}{}.png", if flip { "-flipped" } else { "" }));
            let got = picture(variant, record, flip);
            if bless {
                std::fs::write(&file, &got).unwrap();
                continue;
            }
            let want = std::fs::read(&file)
                .unwrap_or_else(|_| panic!("{} is missing: run with TESSERA_BLESS=1", file.display()));
            let (gw, gh, g) = decode(&got);
            let (ww, wh, w) = decode(&want);
            if (gw, gh) != (ww, wh) {
                failures.push(format!("{name}: size {gw}x{gh}, golden {ww}x{wh}"));
                continue;
            }
            // A pixel differs when a channel is off by more than 48; allow 0.3% such pixels.
            let differing = g
                .chunks(3)
                .zip(w.chunks(3))
                .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 48))
                .count();
            let allowed = (gw * gh) as usize * 3 / 1000;
            if differing > allowed {
                let out = std::env::temp_dir().join(format!("tessera-{name}-{flip}.png"));
                std::fs::write(&out, &got).unwrap();
                failures.push(format!(
                    "{name} (flip {flip}): {differing} pixels differ (allowed {allowed}); see {}",
                    out.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_comparison_catches_a_real_change() {
    let (_, _, a) = decode(&picture(Variant::Chess, "1. e4", false));
    let (_, _, b) = decode(&picture(Variant::Chess, "1. d4", false));
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
