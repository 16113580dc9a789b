//! Sprites: every mark drawn many times on a board (a piece, an owner's ring, a hole, a glyph) is
//! rasterised once per theme and size and then copied into place, as lila-gif keeps a sheet of
//! pre-drawn pieces. Filling vector paths for 32 pieces cost most of a picture's time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tiny_skia::Pixmap;

use crate::theme::ThemeName;
use tessera_rules::{Color, Piece};

/// What a sprite shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Mark {
    Piece(Piece),
    OwnerRing(Color),
    /// A square in a side's hand, below or above the board.
    HandSquare(Color),
    Hole,
    AntiTile,
    Padlock,
    Chip,
    Glyph(char),
    /// A board square: light or dark, with or without the hairline gap round it.
    Square {
        light: bool,
        gap: bool,
    },
    /// A run of caption text, by a hash of its words, weight and colour.
    Text(u64),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    theme: ThemeName,
    mark: Mark,
    /// Width and height in pixels.
    size: (u32, u32),
}

/// The cache's bound, in pixels (4 bytes each): enough for every mark at a few board sizes.
const BUDGET: usize = 16 << 20;

/// A drawn mark, and whether it covers its whole box (then it is copied rather than blended).
pub(crate) struct Sprite {
    pixels: Pixmap,
    opaque: bool,
}

#[derive(Default)]
struct Cache {
    sprites: HashMap<Key, Arc<Sprite>>,
    pixels: usize,
}

/// The sprite of `mark` at `w` x `h` pixels, drawn by `draw` onto a transparent pixmap the first time.
pub(crate) fn get(
    theme: ThemeName,
    mark: Mark,
    w: u32,
    h: u32,
    draw: impl FnOnce(&mut Pixmap),
) -> Option<Arc<Sprite>> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let key = Key { theme, mark, size: (w, h) };
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(s) = cache.lock().unwrap_or_else(|e| e.into_inner()).sprites.get(&key) {
        return Some(s.clone());
    }
    let mut pixels = Pixmap::new(w, h)?;
    draw(&mut pixels);
    let opaque = pixels.data().chunks_exact(4).all(|p| p[3] == 255);
    let sprite = Arc::new(Sprite { pixels, opaque });
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    // Past the budget (many sizes asked for), start again rather than track what is used least.
    if cache.pixels + (w * h) as usize > BUDGET {
        cache.sprites.clear();
        cache.pixels = 0;
    }
    cache.pixels += (w * h) as usize;
    cache.sprites.insert(key, sprite.clone());
    Some(sprite)
}

/// Source-over of one premultiplied RGBA pixel (little-endian, alpha in the top byte) on another.
/// Two channels at a time in one word, each `d * (255 - a) / 255` rounded exactly.
fn over(src: u32, dst: u32) -> u32 {
    let keep = 255 - (src >> 24);
    let lanes = |x: u32| {
        let t = (x & 0x00ff_00ff) * keep + 0x0080_0080;
        ((t + ((t >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
    };
    src + (lanes(dst) | lanes(dst >> 8) << 8)
}

/// Draws `sprite` over `dst` with its top-left corner at (x, y), clipped to `dst`.
pub(crate) fn blit(dst: &mut Pixmap, sprite: &Sprite, x: i32, y: i32) {
    let (opaque, sprite) = (sprite.opaque, &sprite.pixels);
    let (dw, dh) = (dst.width() as i32, dst.height() as i32);
    let (sw, sh) = (sprite.width() as i32, sprite.height() as i32);
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = ((x + sw).min(dw), (y + sh).min(dh));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let src = sprite.data();
    let out = dst.data_mut();
    for row in y0..y1 {
        let s = ((row - y) * sw + (x0 - x)) as usize * 4;
        let d = (row * dw + x0) as usize * 4;
        let n = (x1 - x0) as usize * 4;
        if opaque {
            out[d..d + n].copy_from_slice(&src[s..s + n]);
            continue;
        }
        for (sp, dp) in src[s..s + n].chunks_exact(4).zip(out[d..d + n].chunks_exact_mut(4)) {
            let sv = u32::from_le_bytes([sp[0], sp[1], sp[2], sp[3]]);
            match sv >> 24 {
                0 => {}
                255 => dp.copy_from_slice(sp),
                _ => {
                    let dv = u32::from_le_bytes([dp[0], dp[1], dp[2], dp[3]]);
                    dp.copy_from_slice(&over(sv, dv).to_le_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blitting_is_source_over_and_clipped() {
        let mut dst = Pixmap::new(4, 4).unwrap();
        dst.fill(tiny_skia::Color::from_rgba8(200, 100, 0, 255));
        let mut pixels = Pixmap::new(3, 3).unwrap();
        // Half-transparent black (premultiplied: all channels but alpha are 0).
        pixels.fill(tiny_skia::Color::from_rgba8(0, 0, 0, 128));
        blit(&mut dst, &Sprite { pixels, opaque: false }, 2, -1);
        let px = |x, y| dst.pixel(x, y).map(|p| (p.red(), p.green(), p.blue(), p.alpha()));
        assert_eq!(px(0, 0), Some((200, 100, 0, 255)), "outside the sprite");
        assert_eq!(px(2, 0), Some((100, 50, 0, 255)), "half covered");
        assert_eq!(px(3, 1), Some((100, 50, 0, 255)));
        assert_eq!(px(3, 2), Some((200, 100, 0, 255)), "below the sprite's clipped bottom row");
    }
}
