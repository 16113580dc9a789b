//! Attack tables on the 8x8 grid, built at compile time.
//!
//! Sliders use the classical ray method: the first blocker on a ray is found with one bit scan,
//! so any set of locations (pieces, holes, anti-tiles, cells outside a shrunk board) blocks at
//! the same cost.

use crate::magic::Tables;
use crate::types::{Bitboard, Color, Square};

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] =
    leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [u64; 64] =
    leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static WHITE_PAWN: [u64; 64] = leaper_table(&[(-1, 1), (1, 1)]);
static BLACK_PAWN: [u64; 64] = leaper_table(&[(-1, -1), (1, -1)]);

/// Ray directions; the first four grow the square index, the last four shrink it.
const DIRS: [(i8, i8); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

const fn ray_tables() -> [[u64; 64]; 8] {
    let mut rays = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
            loop {
                f += DIRS[d].0;
                r += DIRS[d].1;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                rays[d][sq] |= 1 << (r * 8 + f);
            }
            sq += 1;
        }
        d += 1;
    }
    rays
}

const RAYS: [[u64; 64]; 8] = ray_tables();

const fn between_table() -> [[u64; 64]; 64] {
    let mut table = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let mut b = 0;
            while b < 64 {
                if RAYS[d][a] & (1 << b) != 0 {
                    // Locations on the ray from a that lie before b.
                    table[a][b] = RAYS[d][a] & !RAYS[d][b] & !(1 << b);
                }
                b += 1;
            }
            d += 1;
        }
        a += 1;
    }
    table
}

static BETWEEN: [[u64; 64]; 64] = between_table();

#[inline]
#[cfg(test)]
fn ray(dir: usize, sq: Square, blockers: Bitboard) -> u64 {
    let ray = RAYS[dir][sq.index()];
    let hit = ray & blockers.0;
    if hit == 0 {
        return ray;
    }
    let first = if dir < 4 { hit.trailing_zeros() } else { 63 - hit.leading_zeros() };
    ray & !RAYS[dir][first as usize]
}

#[inline]
pub fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

#[inline]
pub fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

#[inline]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    Bitboard(match color {
        Color::White => WHITE_PAWN[sq.index()],
        Color::Black => BLACK_PAWN[sq.index()],
    })
}

/// Rook rays up to and including the first blocker on each (a magic lookup).
#[inline]
pub fn rook(sq: Square, blockers: Bitboard) -> Bitboard {
    Bitboard(Tables::get().rook(sq.index(), blockers.0))
}

#[inline]
pub fn bishop(sq: Square, blockers: Bitboard) -> Bitboard {
    Bitboard(Tables::get().bishop(sq.index(), blockers.0))
}

/// The rays one at a time, as the magic tables are checked against.
#[cfg(test)]
fn rook_by_rays(sq: Square, blockers: Bitboard) -> Bitboard {
    Bitboard(ray(0, sq, blockers) | ray(1, sq, blockers) | ray(4, sq, blockers) | ray(5, sq, blockers))
}

#[cfg(test)]
fn bishop_by_rays(sq: Square, blockers: Bitboard) -> Bitboard {
    Bitboard(ray(2, sq, blockers) | ray(3, sq, blockers) | ray(6, sq, blockers) | ray(7, sq, blockers))
}

#[inline]
pub fn queen(sq: Square, blockers: Bitboard) -> Bitboard {
    rook(sq, blockers) | bishop(sq, blockers)
}

/// Locations strictly between two squares on a line, empty if they share none.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

const fn line_table() -> [[u64; 64]; 64] {
    let mut table = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let mut b = 0;
            while b < 64 {
                if RAYS[d][a] & (1 << b) != 0 {
                    table[a][b] = RAYS[d][a] | RAYS[(d + 4) % 8][a] | (1 << a);
                }
                b += 1;
            }
            d += 1;
        }
        a += 1;
    }
    table
}

static LINE: [[u64; 64]; 64] = line_table();

/// Whole line through two squares (both included), empty if they share none.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index()][b.index()])
}

#[rustfmt::skip]
static TWO_STEP: [u64; 64] = leaper_table(&[
    (-2, -2), (-1, -2), (0, -2), (1, -2), (2, -2),
    (-2, -1), (-1, -1), (0, -1), (1, -1), (2, -1),
    (-2, 0), (-1, 0), (1, 0), (2, 0),
    (-2, 1), (-1, 1), (0, 1), (1, 1), (2, 1),
    (-2, 2), (-1, 2), (0, 2), (1, 2), (2, 2),
]);

/// Everything within two steps in each direction: the King, Knight, Dabbaba and Alfil moves (L6).
#[inline]
pub fn two_step(sq: Square) -> Bitboard {
    Bitboard(TWO_STEP[sq.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn leapers() {
        assert_eq!(knight(sq("a1")).count(), 2);
        assert_eq!(knight(sq("e4")).count(), 8);
        assert_eq!(king(sq("h8")).count(), 3);
        assert_eq!(pawn(Color::White, sq("a2")), sq("b3").bb());
        assert_eq!(pawn(Color::Black, sq("e5")), sq("d4").bb() | sq("f4").bb());
        assert_eq!(two_step(sq("e4")).count(), 24);
        assert_eq!(two_step(sq("a1")).count(), 8);
    }

    #[test]
    fn sliders_stop_at_blockers() {
        let blockers = sq("e6").bb() | sq("c4").bb();
        let r = rook(sq("e4"), blockers);
        assert!(r.contains(sq("e6")) && !r.contains(sq("e7")));
        assert!(r.contains(sq("c4")) && !r.contains(sq("b4")));
        assert!(r.contains(sq("h4")) && r.contains(sq("e1")));
        assert_eq!(rook(sq("a1"), Bitboard::EMPTY).count(), 14);
        assert_eq!(bishop(sq("d4"), Bitboard::EMPTY).count(), 13);
    }

    #[test]
    fn magic_lookups_are_the_rays() {
        let mut seed = 0x0dd_ba11_u64;
        for i in 0..64u8 {
            for _ in 0..200 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let blockers = Bitboard(seed & seed.rotate_left(17));
                let s = Square::new(i);
                assert_eq!(rook(s, blockers), rook_by_rays(s, blockers));
                assert_eq!(bishop(s, blockers), bishop_by_rays(s, blockers));
            }
        }
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(sq("a1"), sq("a4")), sq("a2").bb() | sq("a3").bb());
        assert_eq!(between(sq("a4"), sq("a1")), sq("a2").bb() | sq("a3").bb());
        assert_eq!(between(sq("c1"), sq("f4")), sq("d2").bb() | sq("e3").bb());
        assert_eq!(between(sq("a1"), sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("a1"), sq("c3")).count(), 8);
        assert_eq!(line(sq("c3"), sq("a1")), line(sq("a1"), sq("h8")));
        assert_eq!(line(sq("b1"), sq("b7")).count(), 8);
        assert_eq!(line(sq("a1"), sq("b3")), Bitboard::EMPTY);
    }
}
