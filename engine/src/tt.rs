//! The transposition table: what earlier searches learnt of a position, by its key.
//!
//! Fixed size, allocated once per [`Searcher`](crate::Searcher), so memory stays bounded however
//! long a game runs: an entry is replaced when a search of the same or greater depth, or of a
//! newer search, lands on its slot.

use tessera_rules::Move;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The score is at least this (the search failed high).
    Lower,
    /// The score is at most this (no turn raised alpha).
    Upper,
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    generation: u8,
}

#[derive(Debug)]
pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    generation: u8,
}

impl Table {
    /// A table of `2^bits` entries.
    pub fn new(bits: u32) -> Table {
        let size = 1usize << bits;
        Table { slots: vec![None; size], mask: size - 1, generation: 0 }
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Option<Entry>>()
    }

    /// A new search begins: older entries give way first.
    pub fn age(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask].filter(|e| e.key == key)
    }

    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i16, bound: Bound) {
        let slot = &mut self.slots[key as usize & self.mask];
        let replace = match slot {
            None => true,
            Some(old) => old.key == key || old.generation != self.generation || old.depth <= depth,
        };
        if replace {
            // Keep a known best turn when the new result (a fail-low) has none.
            let mv = mv.or_else(|| slot.filter(|old| old.key == key).and_then(|old| old.mv));
            *slot = Some(Entry { key, mv, score, depth, bound, generation: self.generation });
        }
    }
}
