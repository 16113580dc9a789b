//! What a player waits for: one move through the game service on a file database (parse, rebuild
//! the game from its stored moves, check, commit with fsync, draw the PNG), through a 120-ply game
//! in every variant; and one autocomplete answer at the end of each game. Beside each variant's
//! moves, the picture alone: the same 512 px board each move's answer draws, drawn again after the
//! move (untimed for the move), so the rest of a move's cost can be told from it. Autocomplete is
//! asked twice: first and again, as the next keystroke asks. The bot writes each position's turns
//! for autocomplete off the move's thread as soon as the move is committed (on Discord, the
//! platform that suggests turns): so does the bench, between moves, and reports the longest such
//! writing ("ahead max": work in the background, which nobody waits for unless they type within
//! that time).
//! Run: `cargo bench -p tessera-bot --bench service`. With `TESSERA_BENCH_CONDITIONAL=50`, before each
//! move the waiting player holds 50 conditional lines in the game (none expecting the move, so the
//! move checks all 50 and drops them in its transaction): the move path with a full tree.
//! `TESSERA_BENCH_SLOW=50` names each move slower than 50 ms.

use std::time::{Duration, Instant};

use tessera_core::service::{Incoming, Service, User};
use tessera_core::store::Store;
use tessera_render::{Caption, render_png};
use tessera_rules::{Color, Game, Position, Variant, notation, view::BoardView};
use tessera_store::SqliteStore;

/// A deterministic random game of `plies` legal turns (shorter if it ends), as SAN texts.
fn random_game(variant: Variant, plies: usize, mut seed: u64) -> Vec<String> {
    let mut game = Game::new(Position::start(variant));
    let mut texts = Vec::new();
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let pos = game.position().clone();
        let moves = pos.legal_moves();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if moves.is_empty() {
            break;
        }
        // A random turn that does not end the game, where there is one: long games are the point.
        let start = seed as usize % moves.len();
        let goes_on = |mv: &tessera_rules::Move| {
            let mut g = game.clone();
            g.play(*mv).is_ok() && g.outcome().is_none()
        };
        let pick = (0..moves.len()).map(|i| &moves[(start + i) % moves.len()]).find(|m| goes_on(m));
        let mv = *pick.unwrap_or(&moves[start]);
        texts.push(notation::san(&pos, &mv));
        game.play(mv).expect("a legal move plays");
    }
    texts
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn main() {
    let dir = std::env::temp_dir().join(format!("tessera-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut service = Service::new(SqliteStore::open(&dir.join("bench.sqlite")).expect("a database"));
    service.write_turns_ahead = true;
    let players = [User::new("w", "white"), User::new("b", "black")];
    println!(
        "{:<26} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "variant",
        "plies",
        "asked",
        "move p50",
        "move p95",
        "move max",
        "pic p50",
        "pic p95",
        "ahead max",
        "suggest",
        "again"
    );
    // `TESSERA_BENCH_VARIANTS=quad-square,shrink` measures only those.
    let only = std::env::var("TESSERA_BENCH_VARIANTS").unwrap_or_default();
    let lines: usize =
        std::env::var("TESSERA_BENCH_CONDITIONAL").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    // `TESSERA_BENCH_SLOW=50` names every message that took longer than 50 ms.
    let slow: Option<f64> = std::env::var("TESSERA_BENCH_SLOW").ok().and_then(|n| n.parse().ok());
    let wanted = |v: Variant| only.is_empty() || only.split(',').any(|name| name.trim() == v.name());
    for (n, &variant) in Variant::ALL.iter().enumerate().filter(|(_, v)| wanted(**v)) {
        let channel = format!("bench-{n}");
        let say = |who: &User, text: &str, mentions: &[User]| {
            let msg = Incoming {
                platform: "bench",
                channel: &channel,
                author: who,
                is_admin: false,
                text,
                mentions,
                now: 0,
                thread: None,
            };
            service.handle(&msg)
        };
        say(&players[0], &format!("!t challenge @b {} white", variant.name()), &players[1..]);
        say(&players[1], "!t accept", &[]);
        let game = random_game(variant, 120, 0x9E37_79B9_7F4A_7C15 ^ n as u64);
        // Every message a player sends counts: the move, and `!t confirm` where the bot asks
        // first (a turn that could take one more action, or allows a stalemating answer).
        let mut times = Vec::new();
        let mut pictures = Vec::new();
        let mut asked = 0;
        let mut ahead = Duration::ZERO;
        // Blue Chip begins with Black placing the chip.
        let first = usize::from(Position::start(variant).turn() == tessera_rules::Color::Black);
        let store = service.store();
        let id = store.channel_games("bench", &channel).expect("the games")[0].id;
        let mut replayed = Game::new(Position::start(variant));
        for (ply, text) in game.iter().enumerate() {
            let player = &players[(ply + first) % 2];
            if lines > 0 {
                plant_lines(store, id, &players[(ply + first + 1) % 2], &replayed, text, lines);
            }
            let before = replayed.position().clone();
            let mv = replayed.play_text(text).expect("the game replays");
            let played = format!("{} played ", player.name);
            let t = Instant::now();
            let mut replies = say(player, text, &[]);
            times.push(t.elapsed());
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if slow.is_some_and(|limit| ms > limit) {
                println!("  slow: {} ply {} `{text}` {ms:.1} ms", variant.name(), ply + 1);
            }
            if replies.iter().any(|r| r.text.starts_with("Not played yet")) {
                asked += 1;
                let t = Instant::now();
                replies = say(player, "!t confirm", &[]);
                times.push(t.elapsed());
            }
            assert!(replies.iter().any(|r| r.text.contains(&played)), "{text}: {replies:?}");
            // What the turn-writing worker does after the commit (not part of the move's time).
            let t = Instant::now();
            while !service.turns_ahead_queue().is_empty() {
                service.write_turns_step();
            }
            ahead = ahead.max(t.elapsed());
            // The answer's picture, as the service draws it by default: from the side to move.
            let after = replayed.position();
            let opts = tessera_render::RenderOptions {
                flip: after.turn() == Color::Black,
                caption: Some(Caption {
                    names: [players[0].name.clone(), players[1].name.clone()],
                    clocks: [None, None],
                    result: None,
                }),
                ..service.render.clone()
            };
            let t = Instant::now();
            let png = render_png(&BoardView::new(after, Some((&before, &mv))), &opts);
            pictures.push(t.elapsed());
            assert!(png.is_ok());
        }
        let mover = &players[(game.len() + first) % 2];
        let msg = Incoming {
            platform: "bench",
            channel: &channel,
            author: mover,
            is_admin: false,
            text: "",
            mentions: &[],
            now: 0,
            thread: None,
        };
        let t = Instant::now();
        let suggested = service.suggest_moves(&msg, None, "", 25);
        let suggest = t.elapsed();
        // The next keystroke: the first letter of the first suggestion.
        let typed: String = suggested.first().map(|s| s.value.chars().take(1).collect()).unwrap_or_default();
        let t = Instant::now();
        let again = service.suggest_moves(&msg, None, &typed, 25);
        let again_time = t.elapsed();
        assert!(!again.is_empty(), "{}: {typed} begins a turn", variant.name());
        let mut sorted = times.clone();
        sorted.sort();
        pictures.sort();
        println!(
            "{:<26} {:>5} {:>5} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
            variant.name(),
            game.len(),
            asked,
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.95),
            percentile(&sorted, 1.0),
            percentile(&pictures, 0.5),
            percentile(&pictures, 0.95),
            ahead.as_secs_f64() * 1e3,
            suggest.as_secs_f64() * 1e3,
            again_time.as_secs_f64() * 1e3
        );
        assert!(!suggested.is_empty(), "{}: the player to move has turns to suggest", variant.name());
    }
    // The games autocomplete lists all five running games of the same two players.
    let msg = Incoming {
        platform: "bench",
        channel: "bench-0",
        author: &players[0],
        is_admin: false,
        text: "",
        mentions: &[],
        now: 0,
        thread: None,
    };
    let t = Instant::now();
    let listed = service.suggest_games(&msg, "", 25);
    println!(
        "games autocomplete over {} running games: {:.2} ms",
        listed.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Gives the waiting player `n` conditional lines in game `id`, each expecting a turn other than
/// `next` (the one about to be played) and answering it, straight into the store (untimed).
fn plant_lines(store: &impl Store, id: i64, waiting: &User, game: &Game, next: &str, n: usize) {
    let pos = game.position();
    let player = store.player("bench", &waiting.id, &waiting.name).expect("the player").id;
    let stored = store.game(id).expect("the game").expect("it exists");
    let seen: Vec<i64> = store.conditional_lines(id).expect("the lines").iter().map(|l| l.id).collect();
    let next = notation::parse(next).ok().and_then(|p| p.resolve(pos).ok());
    // Not the coming turn, nor one the same in effect (a compound turn's actions in another order):
    // the lines are checked and dropped, none played.
    let reached = next.map(|m| pos.played(&m));
    let others: Vec<_> = pos.legal_moves().into_iter().filter(|m| Some(pos.played(m)) != reached).collect();
    if others.is_empty() {
        return;
    }
    let planted: Vec<Vec<String>> = (0..n)
        .map(|i| {
            let expected = others[i % others.len()];
            let after = pos.played(&expected);
            let answers = after.legal_moves();
            let mut line = vec![notation::san_and_lan_unmarked(pos, &expected).1];
            if let Some(answer) = answers.get(i / others.len() % answers.len().max(1)) {
                line.push(notation::san_and_lan_unmarked(&after, answer).1);
            }
            line
        })
        .collect();
    assert!(
        store.change_conditional_lines(id, player, &stored.moves, &seen, &planted, &[], 0).expect("planted"),
        "the lines are planted on the game as it stands"
    );
}
