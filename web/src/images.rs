//! Board pictures, cached by what they show: the key is a hash of the board view and the drawing
//! options, so the same position reached in many games, or asked by many visitors, is drawn once;
//! the key is also the picture's `ETag`. A takeback changes what ply N shows, and so its key.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use tessera_render::RenderOptions;
use tessera_rules::view::BoardView;

/// Most pictures kept, and most bytes (a 512-pixel board is some 20–40 kB).
const MAX_IMAGES: usize = 2_000;
const MAX_BYTES: usize = 64 << 20;

/// The content key of `view` drawn with `opts`. The view has no `Hash` of its own; its debug form
/// lists every field, so it stands for the content.
pub fn key(view: &BoardView, opts: &RenderOptions) -> u64 {
    let mut h = DefaultHasher::new();
    format!("{view:?}").hash(&mut h);
    format!("{opts:?}").hash(&mut h);
    h.finish()
}

/// A least-recently-used cache of PNGs by key.
#[derive(Debug, Default)]
pub struct Images {
    inner: Mutex<Lru>,
}

#[derive(Debug, Default)]
struct Lru {
    entries: HashMap<u64, (Arc<[u8]>, u64)>,
    /// A counter of uses: each entry holds the count of its last use.
    clock: u64,
    bytes: usize,
}

impl Images {
    pub fn get(&self, key: u64) -> Option<Arc<[u8]>> {
        let mut lru = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        lru.clock += 1;
        let clock = lru.clock;
        let (png, used) = lru.entries.get_mut(&key)?;
        *used = clock;
        Some(png.clone())
    }

    pub fn put(&self, key: u64, png: Arc<[u8]>) {
        let mut lru = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        lru.clock += 1;
        let clock = lru.clock;
        lru.bytes += png.len();
        if let Some((old, _)) = lru.entries.insert(key, (png, clock)) {
            lru.bytes -= old.len();
        }
        while lru.entries.len() > MAX_IMAGES || lru.bytes > MAX_BYTES {
            // A scan of at most a few thousand entries, only when full: cheaper than drawing.
            let Some(oldest) = lru.entries.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| *k) else {
                break;
            };
            if let Some((png, _)) = lru.entries.remove(&oldest) {
                lru.bytes -= png.len();
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_goes_first() {
        let images = Images::default();
        for k in 0..MAX_IMAGES as u64 {
            images.put(k, Arc::from(vec![1u8; 10]));
        }
        assert!(images.get(0).is_some());
        images.put(u64::MAX, Arc::from(vec![2u8; 10]));
        assert_eq!(images.len(), MAX_IMAGES);
        assert!(images.get(0).is_some(), "used just now");
        assert!(images.get(1).is_none(), "the oldest unused");
        assert!(images.get(u64::MAX).is_some());
    }

    #[test]
    fn the_key_follows_the_content() {
        let pos = tessera_rules::Position::start(tessera_rules::Variant::CHESS);
        let view = BoardView::new(&pos, None);
        let opts = RenderOptions::default();
        assert_eq!(key(&view, &opts), key(&view.clone(), &opts.clone()));
        let flipped = RenderOptions { flip: true, ..opts.clone() };
        assert_ne!(key(&view, &opts), key(&view, &flipped));
        let mut moved = view.clone();
        moved.last_move.push((4, 1));
        assert_ne!(key(&view, &opts), key(&moved, &opts));
    }
}
