//! Time and bytes per board picture, for every variant's start at 512 px (and a game GIF).
//! Run: `cargo bench -p tessera-render --bench render`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tessera_render::{RenderOptions, encode_png, render, render_gif};
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
    let opts = RenderOptions::default();
    // Warm the art cache so the first variant is not charged for it.
    let _ = render(&BoardView::new(&Position::start(Variant::Chess), None), &opts);
    println!("{:<26} {:>10} {:>10} {:>10}", "variant (512 px)", "draw ms", "png ms", "png bytes");
    for &v in Variant::ALL {
        let view = BoardView::new(&Position::start(v), None);
        let draw = best_of(30, || {
            black_box(render(&view, &opts).unwrap());
        });
        let pm = render(&view, &opts).unwrap();
        let encode = best_of(30, || {
            black_box(encode_png(&pm).unwrap());
        });
        let bytes = encode_png(&pm).unwrap().len();
        println!(
            "{:<26} {:>10.2} {:>10.2} {:>10}",
            v.name(),
            draw.as_secs_f64() * 1e3,
            encode.as_secs_f64() * 1e3,
            bytes
        );
    }
    let game = replay(Variant::Chess, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7").unwrap().game;
    let mut pos = game.start().clone();
    let mut views = vec![BoardView::new(&pos, None)];
    for mv in game.moves() {
        let next = pos.played(mv);
        views.push(BoardView::new(&next, Some((&pos, mv))));
        pos = next;
    }
    let t = Instant::now();
    let gif = render_gif(&views, &RenderOptions { size: 320, ..opts }, 80).unwrap();
    println!(
        "gif of {} positions at 320 px: {:.0} ms, {} bytes",
        views.len(),
        t.elapsed().as_secs_f64() * 1e3,
        gif.len()
    );
}
