//! A game as an animated GIF, encoded the way lila-gif does it: one palette for the whole game (no
//! quantising per frame), and each frame only the rectangle that changed since the one before,
//! with the pixels inside it that did not change left transparent so they compress to nothing.
//! A move changes two or three squares, so most frames are a few hundred bytes.

use std::collections::HashMap;

use color_quant::NeuQuant;
use tiny_skia::{Pixmap, PixmapPaint, Transform};

use crate::{RenderError, RenderOptions, render};
use tessera_rules::view::BoardView;

/// The most positions an animated GIF shows (a long game's GIF would otherwise run to gigabytes
/// of work).
pub const MAX_GIF_FRAMES: usize = 1000;

/// Palette entries for colours; the last index of 256 is the transparent "unchanged" pixel.
const COLOURS: usize = 255;
const UNCHANGED: u8 = 255;

/// An animated GIF of a game: one frame per position, `delay_cs` hundredths of a second each,
/// the last shown three times as long. Frames are drawn one at a time as they are encoded, so
/// memory stays a few frames' worth however long the game.
pub fn render_gif(views: &[BoardView], opts: &RenderOptions, delay_cs: u16) -> Result<Vec<u8>, RenderError> {
    if views.len() > MAX_GIF_FRAMES {
        return Err(RenderError::TooLarge { what: "GIF frames", count: views.len(), max: MAX_GIF_FRAMES });
    }
    let Some(first) = views.first() else {
        return Err(RenderError::Encode("a GIF needs at least one position".into()));
    };
    // A game's first position has its largest board (boards only shrink): its size is the canvas's.
    let first = render(first, opts)?;
    let (width, height) = (first.width(), first.height());
    let canvas = |view: &BoardView| -> Result<Pixmap, RenderError> {
        let frame = render(view, opts)?;
        if (frame.width(), frame.height()) == (width, height) {
            return Ok(frame);
        }
        let bg = opts.theme.theme().background;
        let mut canvas = Pixmap::new(width, height).ok_or(RenderError::Size(width))?;
        canvas.fill(tiny_skia::Color::from_rgba8(bg.0, bg.1, bg.2, 255));
        canvas.draw_pixmap(0, 0, frame.as_ref(), &PixmapPaint::default(), Transform::identity(), None);
        Ok(canvas)
    };
    let palette =
        Palette::learn(&[&first, &canvas(&views[views.len() / 2])?, &canvas(&views[views.len() - 1])?]);
    let (w16, h16) = (to_u16(width)?, to_u16(height)?);
    let mut out = Vec::new();
    {
        let err = |e: gif::EncodingError| RenderError::Encode(e.to_string());
        let mut enc = gif::Encoder::new(&mut out, w16, h16, &palette.rgb).map_err(err)?;
        enc.set_repeat(gif::Repeat::Infinite).map_err(err)?;
        let mut shown: Vec<u8> = Vec::new();
        for (i, view) in views.iter().enumerate() {
            let pixels = if i == 0 { palette.indices(&first) } else { palette.indices(&canvas(view)?) };
            let delay = if i + 1 == views.len() { delay_cs.saturating_mul(3) } else { delay_cs };
            let frame = if shown.is_empty() {
                whole_frame(w16, h16, &pixels)
            } else {
                changed_frame(width as usize, &shown, &pixels)
            };
            enc.write_frame(&gif::Frame { delay, ..frame }).map_err(err)?;
            shown = pixels;
        }
    }
    Ok(out)
}

fn to_u16(n: u32) -> Result<u16, RenderError> {
    u16::try_from(n).map_err(|_| RenderError::Size(n))
}

fn whole_frame(width: u16, height: u16, pixels: &[u8]) -> gif::Frame<'static> {
    gif::Frame { width, height, buffer: pixels.to_vec().into(), ..gif::Frame::default() }
}

/// The smallest rectangle holding every pixel that differs from `shown`, the unchanged pixels in
/// it transparent. A position identical to the last (a repeated board) is one transparent pixel.
fn changed_frame(width: usize, shown: &[u8], pixels: &[u8]) -> gif::Frame<'static> {
    let (mut left, mut top, mut right, mut bottom) = (usize::MAX, usize::MAX, 0, 0);
    for (i, (a, b)) in shown.iter().zip(pixels).enumerate() {
        if a != b {
            let (x, y) = (i % width, i / width);
            left = left.min(x);
            right = right.max(x);
            top = top.min(y);
            bottom = bottom.max(y);
        }
    }
    if left == usize::MAX {
        (left, top, right, bottom) = (0, 0, 0, 0);
    }
    let mut buffer = Vec::with_capacity((right - left + 1) * (bottom - top + 1));
    for y in top..=bottom {
        let row = y * width;
        for x in left..=right {
            let (was, now) = (shown[row + x], pixels[row + x]);
            buffer.push(if was == now { UNCHANGED } else { now });
        }
    }
    gif::Frame {
        left: left as u16,
        top: top as u16,
        width: (right - left + 1) as u16,
        height: (bottom - top + 1) as u16,
        transparent: Some(UNCHANGED),
        dispose: gif::DisposalMethod::Keep,
        buffer: buffer.into(),
        ..gif::Frame::default()
    }
}

/// One palette for the whole game, learnt from a few of its frames, and the index of each colour
/// remembered once looked up (a board has a few thousand distinct colours at most).
struct Palette {
    quant: NeuQuant,
    rgb: Vec<u8>,
    known: std::cell::RefCell<HashMap<[u8; 3], u8>>,
}

impl Palette {
    fn learn(samples: &[&Pixmap]) -> Palette {
        let pixels: Vec<u8> = samples.iter().flat_map(|p| p.data().iter().copied()).collect();
        let quant = NeuQuant::new(10, COLOURS, &pixels);
        let mut rgb = quant.color_map_rgb();
        // The transparent entry's colour is never shown.
        rgb.extend_from_slice(&[0, 0, 0]);
        Palette { quant, rgb, known: Default::default() }
    }

    fn indices(&self, frame: &Pixmap) -> Vec<u8> {
        let mut known = self.known.borrow_mut();
        frame
            .data()
            .chunks_exact(4)
            .map(|px| {
                // Pictures are opaque, so premultiplied RGBA is plain RGBA.
                let key = [px[0], px[1], px[2]];
                *known.entry(key).or_insert_with(|| self.quant.index_of(&[px[0], px[1], px[2], 255]) as u8)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::{Position, Variant, replay};

    fn views(variant: Variant, record: &str) -> Vec<BoardView> {
        replay(variant, record).unwrap().game.views()
    }

    /// Every frame, decoded and laid over the ones before as a viewer does, is the board drawn
    /// for that position, up to the palette's rounding.
    fn assert_frames_match(views: &[BoardView], opts: &RenderOptions) -> usize {
        let gif = render_gif(views, opts, 80).unwrap();
        let mut decoder = gif::DecodeOptions::new();
        decoder.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = decoder.read_info(gif.as_slice()).unwrap();
        let (w, h) = (decoder.width() as usize, decoder.height() as usize);
        let mut screen = vec![0u8; w * h * 4];
        let mut n = 0;
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            let (fl, ft, fw) = (frame.left as usize, frame.top as usize, frame.width as usize);
            for (i, px) in frame.buffer.chunks_exact(4).enumerate() {
                if px[3] == 0 {
                    continue; // transparent: the frame before shows through
                }
                let at = ((ft + i / fw) * w + fl + i % fw) * 4;
                screen[at..at + 4].copy_from_slice(px);
            }
            let drawn = render(&views[n], opts).unwrap();
            let mut far = 0;
            for (y, row) in screen.chunks_exact(w * 4).enumerate().take(drawn.height() as usize) {
                for (x, got) in row.chunks_exact(4).enumerate() {
                    let want = drawn.pixel(x as u32, y as u32).unwrap();
                    let d = (got[0] as i32 - want.red() as i32).abs()
                        + (got[1] as i32 - want.green() as i32).abs()
                        + (got[2] as i32 - want.blue() as i32).abs();
                    far += usize::from(d > 60);
                }
            }
            assert!(far * 1000 < w * h, "frame {n}: {far} pixels far from the drawn board");
            n += 1;
        }
        assert_eq!(n, views.len());
        gif.len()
    }

    #[test]
    fn frames_show_each_position_and_only_changes_are_sent() {
        let opts = RenderOptions { size: 256, ..RenderOptions::default() };
        let chess = views(Variant::CHESS, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7");
        let bytes = assert_frames_match(&chess, &opts);
        // The first frame is a whole board; a move adds far less than another whole board.
        let one = render_gif(&chess[..1], &opts, 80).unwrap().len();
        assert!(
            bytes < one + (chess.len() - 1) * one / 4,
            "{bytes} bytes for {} frames of {one}",
            chess.len()
        );
        // Boards that shrink keep the first frame's canvas, and squares that come and go show.
        assert_frames_match(&views(Variant::SHRINK, "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5"), &opts);
        assert_frames_match(&views(Variant::HANS38, "1. @@f3 @@f6 2. Ng1-f3 Ng8-f6"), &opts);
    }

    #[test]
    fn a_gif_longer_than_its_cap_is_refused_before_drawing() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
        let views = vec![view; MAX_GIF_FRAMES + 1];
        match render_gif(&views, &RenderOptions::default(), 80) {
            Err(RenderError::TooLarge { count, max, .. }) => assert_eq!((count, max), (1001, 1000)),
            other => panic!("{:?}", other.map(|b| b.len())),
        }
        // A repeated position is a frame of one transparent pixel.
        let opts = RenderOptions { size: 64, ..RenderOptions::default() };
        assert_frames_match(&views[..3], &opts);
        assert!(render_gif(&[], &opts, 80).is_err());
    }
}
