//! Time and bytes per board picture, for every variant's start at 512 px (and a game GIF), and per
//! tournament picture (a 100-row standings page, a 16-player crosstable, a 64-player bracket).
//! Run: `cargo bench -p tessera-render --bench render`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tessera_render::{
    Bracket, BracketMatch, BracketRound, BracketSlot, Caption, Crosstable, CrosstablePlayer, GameResult,
    RenderOptions, StandingsRow, StandingsTable, TableOptions, encode_png, render, render_bracket_png,
    render_crosstable_png, render_gif, render_standings_png,
};
use tessera_rules::view::BoardView;
use tessera_rules::{Position, Variant, replay};

fn best_of(runs: u32, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

fn main() {
    let plain = RenderOptions::default();
    // What the bot posts: the players' names around the board, the side to move's clock.
    let caption = Caption {
        names: ["alice".into(), "Bartholomew".into()],
        clocks: [Some("2d 23h".into()), Some("3 days".into())],
        result: None,
    };
    let opts = RenderOptions { caption: Some(caption), ..plain.clone() };
    // Warm the art cache so the first variant is not charged for it.
    let _ = render(&BoardView::new(&Position::start(Variant::CHESS), None), &opts);
    println!(
        "{:<26} {:>10} {:>10} {:>10} {:>10}",
        "variant (512 px, named)", "draw ms", "png ms", "total ms", "png bytes"
    );
    for &v in Variant::ALL {
        let view = BoardView::new(&Position::start(v), None);
        let draw = best_of(100, || {
            black_box(render(&view, &opts).unwrap());
        });
        let pm = render(&view, &opts).unwrap();
        let encode = best_of(100, || {
            black_box(encode_png(&pm).unwrap());
        });
        let bytes = encode_png(&pm).unwrap().len();
        println!(
            "{:<26} {:>10.2} {:>10.2} {:>10.2} {:>10}",
            v.name(),
            draw.as_secs_f64() * 1e3,
            encode.as_secs_f64() * 1e3,
            (draw + encode).as_secs_f64() * 1e3,
            bytes
        );
    }
    let game = replay(Variant::CHESS, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7").unwrap().game;
    let views = game.views();
    let t = Instant::now();
    let gif = render_gif(&views, &RenderOptions { size: 320, ..plain.clone() }, 80).unwrap();
    println!(
        "gif of {} positions at 320 px: {:.0} ms, {} bytes",
        views.len(),
        t.elapsed().as_secs_f64() * 1e3,
        gif.len()
    );
    hans38_gif();
    tables();
}

/// A 48-position Hans38 game (47 turns chosen by a fixed pseudo-random walk) as a 512 px GIF.
fn hans38_gif() {
    let mut pos = Position::start(Variant::HANS38);
    let mut views = vec![BoardView::new(&pos, None)];
    let mut seed: u64 = 0x5eed;
    while views.len() < 48 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = &moves[(seed >> 33) as usize % moves.len()];
        let next = pos.played(mv);
        views.push(BoardView::new(&next, Some((&pos, mv))));
        pos = next;
    }
    let t = Instant::now();
    let gif = render_gif(&views, &RenderOptions::default(), 80).unwrap();
    println!(
        "hans38 gif of {} positions at 512 px: {:.0} ms, {} bytes",
        views.len(),
        t.elapsed().as_secs_f64() * 1e3,
        gif.len()
    );
    let t = Instant::now();
    let before = gif_quantised_per_frame(&views, &RenderOptions::default());
    println!(
        "  the same, encoded as before (whole frames, a palette per frame): {:.0} ms, {} bytes",
        t.elapsed().as_secs_f64() * 1e3,
        before
    );
}

/// How GIFs were encoded before (kept here to measure against): every frame whole, quantised on
/// its own. Returns the size in bytes.
fn gif_quantised_per_frame(views: &[BoardView], opts: &RenderOptions) -> usize {
    let first = render(&views[0], opts).unwrap();
    let (w, h) = (first.width() as u16, first.height() as u16);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &[]).unwrap();
        for view in views {
            let frame = render(view, opts).unwrap();
            let mut canvas = tiny_skia::Pixmap::new(w.into(), h.into()).unwrap();
            canvas.draw_pixmap(
                0,
                0,
                frame.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                tiny_skia::Transform::identity(),
                None,
            );
            let mut rgba = canvas.data().to_vec();
            enc.write_frame(&gif::Frame::from_rgba_speed(w, h, &mut rgba, 10)).unwrap();
        }
    }
    out.len()
}

/// A 4,000-player Swiss (one page of 100 rows), a double round robin of 16, a 64-player bracket.
fn tables() {
    let opts = TableOptions { max_rows: 100, ..TableOptions::default() };
    let swiss = StandingsTable {
        title: "Bench Swiss".to_string(),
        variant: "Chess".to_string(),
        round: 9,
        rounds: 11,
        tie_breaks: ["BH-C1", "BH", "SB", "DE"].map(String::from).to_vec(),
        rows: (0..4000)
            .map(|i| StandingsRow {
                rank: i + 1,
                name: format!("Player number {i}"),
                rating: Some(2800 - i / 2),
                points: 9.0 - i as f64 / 500.0,
                tie_breaks: vec![40.5, 44.0, 38.25, 0.0],
                ..StandingsRow::default()
            })
            .collect(),
    };
    let cross = Crosstable {
        title: "Bench round robin".to_string(),
        variant: "Chess".to_string(),
        double: true,
        tie_breaks: ["SB", "DE", "Wins", "Koya"].map(String::from).to_vec(),
        players: (0..16)
            .map(|i| CrosstablePlayer {
                name: format!("Player {i}"),
                rating: Some(2500),
                points: 15.0 - i as f64,
                tie_breaks: vec![100.25, 0.0, 7.0, 3.5],
                results: (0..16).map(|j| vec![[GameResult::Win, GameResult::Draw][(i + j) % 2]; 2]).collect(),
                ..CrosstablePlayer::default()
            })
            .collect(),
        ..Crosstable::default()
    };
    let player = |s: u32| BracketSlot::Player { seed: Some(s), name: format!("Player {s}") };
    let bracket = Bracket {
        title: "Bench knockout".to_string(),
        variant: "Chess".to_string(),
        rounds: vec![BracketRound {
            name: String::new(),
            matches: (0..32)
                .map(|i| BracketMatch {
                    top: player(i + 1),
                    bottom: player(64 - i),
                    ..BracketMatch::default()
                })
                .collect(),
        }],
    };
    println!("{:<26} {:>10} {:>10}", "tournament picture", "ms", "png bytes");
    let row = |name: &str, f: &dyn Fn() -> Vec<u8>| {
        let time = best_of(10, || {
            black_box(f());
        });
        println!("{:<26} {:>10.2} {:>10}", name, time.as_secs_f64() * 1e3, f().len());
    };
    row("standings, 100 of 4000", &|| render_standings_png(&swiss, &opts).unwrap());
    row("crosstable, 16 double", &|| render_crosstable_png(&cross, &opts).unwrap());
    row("bracket, 64 players", &|| render_bracket_png(&bracket, &opts).unwrap());
}
