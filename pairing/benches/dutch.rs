//! Time to pair one Swiss round: a simulated open after four rounds, for 50, 500 and 4,000 players.
//! Run: `cargo bench -p tessera-pairing --bench dutch`.

use criterion::{Criterion, criterion_group, criterion_main};
use tessera_pairing::{Colour, Pairings, Player, ResultCode, RoundEntry, Tournament, pair_next_round};

fn record(t: &mut Tournament, round: usize, pairings: &Pairings, seed: &mut u64) {
    for (&(white, black), board) in pairings.boards.iter().zip(0u64..) {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407 + board);
        let (result, reverse) = match (*seed >> 33) % 3 {
            0 => (ResultCode::Win, ResultCode::Loss),
            1 => (ResultCode::Loss, ResultCode::Win),
            _ => (ResultCode::Draw, ResultCode::Draw),
        };
        t.players[white as usize - 1].rounds.push(RoundEntry::game(black, Colour::White, result));
        t.players[black as usize - 1].rounds.push(RoundEntry::game(white, Colour::Black, reverse));
    }
    if let Some(bye) = pairings.bye {
        t.players[bye as usize - 1].rounds.push(RoundEntry::unpaired(ResultCode::PairingBye));
    }
    debug_assert!(t.players.iter().all(|p| p.rounds.len() == round));
}

/// An open of `n` players after `rounds` rounds paired by the engine itself.
fn open(n: u32, rounds: usize) -> Tournament {
    let players =
        (1..=n).map(|id| Player { id, rating: 2800 - (id % 2000) as u16, ..Player::default() }).collect();
    let mut t =
        Tournament { total_rounds: 9, initial_colour: Some(Colour::White), players, ..Tournament::default() };
    let mut seed = 42;
    for round in 1..=rounds {
        let pairings = pair_next_round(&t).expect("a pairing");
        record(&mut t, round, &pairings, &mut seed);
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dutch");
    group.sample_size(10);
    for n in [50, 500, 4000] {
        let rounds = if n > 500 { 0 } else { 4 };
        let t = open(n, rounds);
        group
            .bench_function(format!("{n} players, round {}", rounds + 1), |b| b.iter(|| pair_next_round(&t)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
