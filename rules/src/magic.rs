//! Magic bitboards: a slider's attacks from one table lookup for any set of blockers (pieces,
//! holes, anti-tiles, the cells outside a shrunk board alike). The relevant blockers are multiplied
//! by a magic number whose top bits index that square's slice of one shared table. The numbers were
//! found by the usual search for sparse random candidates (seeded, so they are reproducible) and are
//! checked against the ray method in the tests; the table is filled once, on first use.

use std::sync::OnceLock;

#[derive(Clone, Copy, Default)]
struct Entry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

pub(crate) struct Tables {
    rook: [Entry; 64],
    bishop: [Entry; 64],
    attacks: Vec<u64>,
}

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Attacks along `dirs` from `sq`, each ray up to and including its first blocker.
fn slow_attacks(sq: usize, blockers: u64, dirs: &[(i8, i8)]) -> u64 {
    let mut attacks = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8 + df, (sq / 8) as i8 + dr);
        while (0..8).contains(&f) && (0..8).contains(&r) {
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if blockers & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    attacks
}

/// The blockers that matter: each ray without its last cell (a blocker there changes nothing).
fn relevant(sq: usize, dirs: &[(i8, i8)]) -> u64 {
    let mut mask = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8 + df, (sq / 8) as i8 + dr);
        while (0..8).contains(&(f + df)) && (0..8).contains(&(r + dr)) {
            mask |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
    }
    mask
}

impl Tables {
    pub(crate) fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(Tables::build)
    }

    fn build() -> Tables {
        let mut attacks = Vec::with_capacity(107_648);
        let mut fill = |sq: usize, magic: u64, dirs: &[(i8, i8)]| {
            let mask = relevant(sq, dirs);
            let bits = mask.count_ones();
            let entry = Entry { mask, magic, shift: 64 - bits, offset: attacks.len() };
            attacks.resize(attacks.len() + (1 << bits), 0);
            // Every subset of the mask (Carry-Rippler enumeration).
            let mut subset = 0u64;
            loop {
                let index = entry.offset + (subset.wrapping_mul(magic) >> entry.shift) as usize;
                attacks[index] = slow_attacks(sq, subset, dirs);
                subset = subset.wrapping_sub(mask) & mask;
                if subset == 0 {
                    break;
                }
            }
            entry
        };
        let mut rook = [Entry::default(); 64];
        let mut bishop = [Entry::default(); 64];
        for sq in 0..64 {
            rook[sq] = fill(sq, ROOK_MAGICS[sq], &ROOK_DIRS);
            bishop[sq] = fill(sq, BISHOP_MAGICS[sq], &BISHOP_DIRS);
        }
        Tables { rook, bishop, attacks }
    }

    #[inline]
    pub(crate) fn rook(&self, sq: usize, blockers: u64) -> u64 {
        let e = &self.rook[sq];
        self.attacks[e.offset + ((blockers & e.mask).wrapping_mul(e.magic) >> e.shift) as usize]
    }

    #[inline]
    pub(crate) fn bishop(&self, sq: usize, blockers: u64) -> u64 {
        let e = &self.bishop[sq];
        self.attacks[e.offset + ((blockers & e.mask).wrapping_mul(e.magic) >> e.shift) as usize]
    }
}

#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010, 0x00c0002001401000, 0x2100110008402002, 0x0880080081041000,
    0x0200020020041008, 0x2300040008010012, 0x0c00283004008201, 0x0180010000407a80,
    0x0168800080400020, 0x0010400040201000, 0x1001002001001048, 0x1001002408100100,
    0x0801000408010012, 0x4001000209000400, 0x08a20004c8020001, 0x2002801145002280,
    0x0080860021004200, 0x001000c009402002, 0x00b0002004002800, 0x100a808010020800,
    0x8101010008000410, 0x0244008002000480, 0x0000040010810208, 0x2000020000448534,
    0x4104400480008033, 0x0000810100204000, 0x0440430900200010, 0x4600240900100100,
    0x0060080080040080, 0x0001000300080400, 0x0004084400011002, 0x0023040200008041,
    0x0580050043002080, 0x0400804002802008, 0x0001002001004010, 0x1000200901001000,
    0x4410800801800c00, 0xa012003806001004, 0x0020100104008802, 0x0004808402000041,
    0x0010400170898000, 0x0080500020004004, 0x1040408012020020, 0x8010040008004040,
    0x2001080100110004, 0x0000020004008080, 0x0021010810040002, 0x0800008c43020024,
    0x0000800021005100, 0x0070201040008080, 0x0000d04282006a00, 0x0010014400080240,
    0x0001080110050100, 0x0012000810240600, 0x0402000801040200, 0x028100108a004100,
    0x0050800300102045, 0x8208210040120882, 0x8010600101183441, 0x020b000910006045,
    0x0241001002480005, 0x0081000400880241, 0x0000009008024124, 0x0048122980410402,
];
#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013, 0x8010a40085821200, 0x0008008430840822, 0x0808048108040000,
    0x1304042100008104, 0x5001012010204023, 0x81048801b8200420, 0x200a008084012000,
    0x0040102001042084, 0x840a505042428020, 0x0000700102202920, 0x44101c0c10800002,
    0x0040040422000000, 0x0180020802090202, 0x4020020811041202, 0x000104308c042000,
    0x4140661002424400, 0x0028012008010460, 0x0188062102002a00, 0x0014004840102008,
    0x0105000290400002, 0x8001022200410400, 0x104a041918013446, 0x008a000082008238,
    0x04a0060008100430, 0x0008220008820801, 0x2508041208005010, 0x4008080200202020,
    0x2441001013004000, 0x0030008060407000, 0x4008108000420800, 0x0012021050290100,
    0x0210080482200500, 0xcc01112048100480, 0x0020402806500440, 0x00048e0080580080,
    0x0040102020020080, 0x0028010440080807, 0x4601041108008800, 0x8040810e04104200,
    0x901210110400088a, 0xa003080212081050, 0x00c1004048401004, 0x900000a014400800,
    0x0008021040405401, 0x4020008206002090, 0x0004190424030100, 0x0424008a02026250,
    0x8004088250900040, 0x1c00430088a04200, 0x0001020094040001, 0x8040210020880061,
    0x2010040450442032, 0x0800840850044001, 0x0004040802140004, 0x0004080a04222020,
    0x8088802110022000, 0x1081a10416114400, 0x0205010a24060820, 0x0000000720411080,
    0x1008000208430400, 0x580c026028810840, 0x802020441020a110, 0x12c0022401020018,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_agree_with_the_rays_for_every_square_and_many_blockers() {
        let t = Tables::get();
        let mut seed = 0x1234_5678_9abc_def0u64;
        for sq in 0..64 {
            for _ in 0..500 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let blockers = seed & (seed >> 3);
                assert_eq!(t.rook(sq, blockers), slow_attacks(sq, blockers, &ROOK_DIRS), "rook {sq}");
                assert_eq!(t.bishop(sq, blockers), slow_attacks(sq, blockers, &BISHOP_DIRS), "bishop {sq}");
            }
        }
    }
}
