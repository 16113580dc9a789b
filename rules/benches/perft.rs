//! Perft speed in nodes per second, Tessera beside cozy-chess on the same positions in the same run.
//! Both count leaves in bulk at the last level. Run: `cargo bench -p tessera-rules --bench perft`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tessera_rules::{Position, Variant, perft};

const CASES: [(&str, &str, u32); 3] = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut next = board.clone();
            next.play_unchecked(mv);
            nodes += cozy_perft(&next, depth - 1);
        }
        false
    });
    nodes
}

/// Best of several runs lasting at least `min` in total.
fn measure(min: Duration, mut f: impl FnMut() -> u64) -> (u64, Duration) {
    let mut best = Duration::MAX;
    let mut nodes = 0;
    let started = Instant::now();
    let mut runs = 0;
    while runs < 3 || started.elapsed() < min {
        let t = Instant::now();
        nodes = black_box(f());
        best = best.min(t.elapsed());
        runs += 1;
    }
    (nodes, best)
}

fn main() {
    let min = Duration::from_secs(2);
    println!(
        "{:<10} {:>5} {:>12} {:>14} {:>14} {:>7} {:>14}",
        "position", "depth", "nodes", "tessera Mn/s", "cozy Mn/s", "ratio", "budgeted Mn/s"
    );
    for (name, fen, depth) in CASES {
        let pos = Position::from_fen(Variant::CHESS, fen).unwrap();
        let board: cozy_chess::Board = fen.parse().unwrap();
        let (ours, t_ours) = measure(min, || perft(&pos, depth));
        let (theirs, t_theirs) = measure(min, || cozy_perft(&board, depth));
        assert_eq!(ours, theirs, "{name}: the two libraries disagree");
        // What `tessera perft` runs: the count with a node budget.
        let within = || tessera_rules::perft::perft_within(&pos, depth, u64::MAX).map_or(0, |c| c.nodes);
        let (bounded, t_bounded) = measure(min, within);
        assert_eq!(bounded, ours, "{name}: the budgeted count differs");
        let mnps = |n: u64, t: Duration| n as f64 / t.as_secs_f64() / 1e6;
        let (a, b, c) = (mnps(ours, t_ours), mnps(theirs, t_theirs), mnps(bounded, t_bounded));
        println!("{name:<10} {depth:>5} {ours:>12} {a:>14.1} {b:>14.1} {:>7.2} {c:>14.1}", a / b);
    }
    variants();
}

/// Every variant from its start, the general board's speed (chess takes the plain board above).
fn variants() {
    println!("\n{:<26} {:>5} {:>12} {:>14}", "variant (start)", "depth", "nodes", "tessera Mn/s");
    for (variant, depth) in [
        (Variant::HANS38, 4),
        (Variant::HANS38_NEUTRAL, 3),
        (Variant::HANS38_POSTAL, 4),
        (Variant::INFINITE_RESERVES, 2),
        (Variant::MOVING_OCCUPIED_SQUARES, 2),
        (Variant::QUAD_SQUARE, 4),
        (Variant::TILED_SQUARES, 3),
        (Variant::BLUE_CHIP, 3),
        (Variant::SHRINK, 4),
    ] {
        let pos = Position::start(variant);
        let (nodes, t) = measure(Duration::from_secs(1), || perft(&pos, depth));
        let mnps = nodes as f64 / t.as_secs_f64() / 1e6;
        println!("{:<26} {depth:>5} {nodes:>12} {mnps:>14.2}", variant.name());
    }
    examples();
}

/// The community examples of `docs/examples/`, registered from their files: what a board other
/// than 8×8 (Hans38 on seven files) and a file's switches cost beside the built-ins above.
fn examples() {
    println!("\n{:<26} {:>5} {:>12} {:>14}", "example (start)", "depth", "nodes", "tessera Mn/s");
    // Hans38 on seven files, and the same file on eight: what the narrower board costs a node.
    let seven = include_str!("../../docs/examples/hans38-seven.toml");
    let eight = seven
        .replace("name = \"hans38-seven\"", "name = \"bench-hans38-eight\"")
        .replace("aliases = [\"hans38-7x8\", \"narrow-hans38\"]\n", "")
        .replace("files = 7", "files = 8")
        .replace(
            "rnbqkbr/ppppppp/*******/*******/*******/*******/PPPPPPP/RNBQKBR",
            "rnbqkbnr/pppppppp/********/********/********/********/PPPPPPPP/RNBQKBNR",
        );
    for (text, depth) in [
        (seven, 4),
        (eight.as_str(), 4),
        (include_str!("../../docs/examples/tiled-squares-laid.toml"), 3),
        (include_str!("../../docs/examples/shrink-stalemate-loses.toml"), 4),
    ] {
        let def = tessera_rules::variant_file::read_variant_file(text).expect("the examples read");
        let variant = Variant::register(def).expect("the examples register");
        let pos = Position::start(variant);
        let (nodes, t) = measure(Duration::from_secs(1), || perft(&pos, depth));
        let mnps = nodes as f64 / t.as_secs_f64() / 1e6;
        println!("{:<26} {depth:>5} {nodes:>12} {mnps:>14.2}", variant.name());
    }
}
