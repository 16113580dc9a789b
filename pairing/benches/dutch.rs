//! Time to pair one Swiss round: round 5 of a simulated open, for 50, 500 and 4,000 players.
//! Run: `cargo bench -p tessera-pairing --bench dutch`.
//!
//! The four rounds before are paired by a quick stand-in (by score, then start number, no repeated game,
//! no two absolute colour preferences alike) so that building the input takes milliseconds, not the
//! time of four real pairings; only round 5 is paired by the Dutch system, and that is what is timed.

use std::collections::HashSet;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use tessera_pairing::{Colour, Player, ResultCode, RoundEntry, Tournament, pair_next_round};

/// A player's colour preference from their colours so far: `(absolute, preferred colour)`.
fn preference(colours: &[Colour]) -> (bool, Option<Colour>) {
    let whites = colours.iter().filter(|&&c| c == Colour::White).count() as i64;
    let blacks = colours.len() as i64 - whites;
    let repeated = colours.len() >= 2 && colours[colours.len() - 1] == colours[colours.len() - 2];
    let preferred = match whites.cmp(&blacks) {
        std::cmp::Ordering::Greater => Some(Colour::Black),
        std::cmp::Ordering::Less => Some(Colour::White),
        std::cmp::Ordering::Equal => colours.last().map(|c| c.invert()),
    };
    ((whites - blacks).abs() > 1 || repeated, preferred)
}

/// An open of `n` players after `rounds` rounds with random results; a player the stand-in cannot pair
/// takes a half-point bye.
fn open(n: u32, rounds: usize) -> Tournament {
    let players =
        (1..=n).map(|id| Player { id, rating: 2800 - (id % 2000) as u16, ..Player::default() }).collect();
    let mut t =
        Tournament { total_rounds: 9, initial_colour: Some(Colour::White), players, ..Tournament::default() };
    let n = n as usize;
    let mut seed = 42u64;
    let mut score = vec![0u32; n];
    let mut met: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let mut colours: Vec<Vec<Colour>> = vec![Vec::new(); n];
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&p| (std::cmp::Reverse(score[p]), p));
        let mut entries: Vec<Option<RoundEntry>> = vec![None; n];
        for (i, &a) in order.iter().enumerate() {
            if entries[a].is_some() {
                continue;
            }
            let (a_absolute, a_prefers) = preference(&colours[a]);
            let Some(&b) = order[i + 1..].iter().find(|&&b| {
                let (b_absolute, b_prefers) = preference(&colours[b]);
                entries[b].is_none()
                    && !met[a].contains(&b)
                    && !(a_absolute && b_absolute && a_prefers == b_prefers)
            }) else {
                continue;
            };
            let (_, b_prefers) = preference(&colours[b]);
            let a_white = match (a_prefers, b_prefers) {
                (Some(Colour::White), _) | (_, Some(Colour::Black)) => true,
                (Some(Colour::Black), _) => false,
                _ => i % 4 == 0,
            };
            let (white, black) = if a_white { (a, b) } else { (b, a) };
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (result, reverse, points) = match (seed >> 33) % 3 {
                0 => (ResultCode::Win, ResultCode::Loss, (2, 0)),
                1 => (ResultCode::Loss, ResultCode::Win, (0, 2)),
                _ => (ResultCode::Draw, ResultCode::Draw, (1, 1)),
            };
            score[white] += points.0;
            score[black] += points.1;
            met[white].insert(black);
            met[black].insert(white);
            colours[white].push(Colour::White);
            colours[black].push(Colour::Black);
            entries[white] = Some(RoundEntry::game(black as u32 + 1, Colour::White, result));
            entries[black] = Some(RoundEntry::game(white as u32 + 1, Colour::Black, reverse));
        }
        for (p, entry) in entries.into_iter().enumerate() {
            let entry = entry.unwrap_or_else(|| {
                score[p] += 1;
                RoundEntry::unpaired(ResultCode::HalfBye)
            });
            t.players[p].rounds.push(entry);
        }
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dutch");
    group.sample_size(10);
    for n in [50, 500, 4000] {
        let t = open(n, 4);
        if n > 500 {
            // Each run takes seconds: ten of them, no more.
            group.sampling_mode(SamplingMode::Flat);
            group.warm_up_time(Duration::from_millis(1));
            group.measurement_time(Duration::from_secs(1));
        }
        group.bench_function(format!("{n} players, round 5"), |b| b.iter(|| pair_next_round(&t)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
