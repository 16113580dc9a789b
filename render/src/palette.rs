//! An opaque picture as palette indices. Up to 256 colours it is exact; past that (antialiasing
//! between many colours) the 256 most used are kept and each rarer colour, a few edge pixels,
//! takes its nearest. Runs of one colour are looked up once, so a board costs a fraction of a
//! millisecond.

/// Slots for distinct colours; at three quarters full the picture is folded onto a coarser grid.
const TABLE: usize = 1 << 14;
const EMPTY: u32 = u32::MAX;

/// An open-addressed table from a colour (0x00RRGGBB) to the order in which it was first seen.
struct Table {
    keys: Vec<u32>,
    ids: Vec<u16>,
    len: usize,
}

impl Table {
    fn new() -> Table {
        Table { keys: vec![EMPTY; TABLE], ids: vec![0; TABLE], len: 0 }
    }

    /// The colour's id, a new one the first time; `None` once the table is too full to take more.
    fn id(&mut self, key: u32) -> Option<u16> {
        let mut i = (key.wrapping_mul(0x9E37_79B1) >> 18) as usize & (TABLE - 1);
        loop {
            let k = self.keys[i];
            if k == key {
                return Some(self.ids[i]);
            }
            if k == EMPTY {
                if self.len * 4 >= TABLE * 3 {
                    return None;
                }
                self.keys[i] = key;
                self.ids[i] = self.len as u16;
                self.len += 1;
                return Some(self.ids[i]);
            }
            i = (i + 1) & (TABLE - 1);
        }
    }
}

/// Each pixel's colour id (in order of first appearance), the colours by id and how often each is
/// used; `None` when there are too many colours for the table.
fn identify(data: &[u8], mask: u32) -> Option<(Vec<u16>, Vec<u32>, Vec<u32>)> {
    let mut table = Table::new();
    let mut ids = vec![0u16; data.len() / 4];
    let (mut colours, mut uses) = (Vec::new(), Vec::new());
    let (mut last, mut id, mut run) = (EMPTY, 0u16, 0u32);
    for (px, slot) in data.chunks_exact(4).zip(ids.iter_mut()) {
        // Little-endian RGBA: the alpha byte (always 255, the pictures are opaque) masked away.
        let c = u32::from_le_bytes([px[0], px[1], px[2], px[3]]) & mask;
        if c != last {
            // Uses are added a run at a time: one store per run rather than per pixel.
            if run > 0 {
                uses[usize::from(id)] += run;
            }
            (last, run) = (c, 0);
            id = table.id(c)?;
            if usize::from(id) == colours.len() {
                colours.push(c);
                uses.push(0);
            }
        }
        run += 1;
        *slot = id;
    }
    uses[usize::from(id)] += run;
    Some((ids, colours, uses))
}

fn distance(a: u32, b: u32) -> u32 {
    (0..3)
        .map(|k| {
            let d = ((a >> (8 * k)) & 0xff).abs_diff((b >> (8 * k)) & 0xff);
            d * d
        })
        .sum()
}

/// The palette (RGB triples) and one index per pixel of `data`, RGBA rows of an opaque picture.
pub(crate) fn index(data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    if data.len() < 4 {
        return (vec![0, 0, 0], Vec::new());
    }
    // More colours than the table holds (never a board) fold onto a 4-bit grid first: at most
    // 4,096 colours, which the table always takes.
    let (ids, colours, uses) = identify(data, 0x00ff_ffff)
        .or_else(|| identify(data, 0x00f0_f0f0))
        .expect("a 4-bit grid fits the table");
    let mut by_use: Vec<usize> = (0..colours.len()).collect();
    // Most used first; ties by colour, so the same picture always gets the same palette.
    by_use.sort_unstable_by(|&a, &b| uses[b].cmp(&uses[a]).then(colours[a].cmp(&colours[b])));
    let kept = by_use.len().min(256);
    // Indexed by a u16 id, so the lookups need no bounds checks.
    let mut remap = vec![0u8; 1 << 16].into_boxed_slice();
    for (i, &id) in by_use[..kept].iter().enumerate() {
        remap[id] = i as u8;
    }
    for &id in &by_use[kept..] {
        let nearest = (0..kept).min_by_key(|&i| distance(colours[id], colours[by_use[i]])).unwrap_or(0);
        remap[id] = nearest as u8;
    }
    let palette = by_use[..kept]
        .iter()
        .flat_map(|&id| {
            let c = colours[id];
            [c as u8, (c >> 8) as u8, (c >> 16) as u8]
        })
        .collect();
    let mut indices = vec![0u8; ids.len()];
    for (index, &id) in indices.iter_mut().zip(&ids) {
        *index = remap[usize::from(id)];
    }
    (palette, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(colours: &[[u8; 3]]) -> Vec<u8> {
        colours.iter().flat_map(|c| [c[0], c[1], c[2], 255]).collect()
    }

    #[test]
    fn few_colours_are_kept_exactly() {
        let data = pixels(&[[1, 2, 3], [1, 2, 3], [200, 0, 9], [1, 2, 3]]);
        let (palette, indices) = index(&data);
        assert_eq!(palette, vec![1, 2, 3, 200, 0, 9], "the most used first");
        assert_eq!(indices, vec![0, 0, 1, 0]);
    }

    #[test]
    fn past_256_colours_the_rare_ones_take_their_nearest() {
        // 256 common greys (two pixels each) and one rare colour next to grey 100.
        let mut colours: Vec<[u8; 3]> = (0..=255u8).flat_map(|g| [[g, g, g], [g, g, g]]).collect();
        colours.push([101, 100, 99]);
        let (palette, indices) = index(&pixels(&colours));
        assert_eq!(palette.len(), 256 * 3);
        let last = *indices.last().unwrap() as usize;
        assert_eq!(&palette[last * 3..last * 3 + 3], &[100, 100, 100]);
        for (i, c) in colours[..512].iter().enumerate() {
            let at = indices[i] as usize;
            assert_eq!(&palette[at * 3..at * 3 + 3], c, "pixel {i} is exact");
        }
    }
}
