//! Board pictures for Tessera: a [`BoardView`] in, PNG (or an animated GIF of a game) out; and
//! tournament pictures ([`tables`]): standings, crosstables and brackets from plain data.
//!
//! Renders only from the board view of `tessera-rules`, never from move generation. Piece art and
//! glyphs are vector paths built once ([`art::Art::get`]) and scaled per image, so any size is crisp.

mod animation;
pub mod art;
pub mod diagram;
mod font;
pub mod tables;
pub mod theme;

use std::fmt;

use tessera_rules::view::{BoardView, CellKind, Hand};
use tessera_rules::{Color, Piece};
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform};

pub use animation::{MAX_GIF_FRAMES, render_gif};
pub use tables::{
    Bracket, BracketMatch, BracketRound, BracketSide, BracketSlot, Crosstable, CrosstablePlayer, GameResult,
    StandingsRow, StandingsTable, TableOptions, format_points, render_bracket, render_bracket_png,
    render_crosstable, render_crosstable_png, render_standings, render_standings_png,
};
pub use theme::{Rgba, Theme, ThemeName};

use art::Art;

/// Smallest and largest board widths we draw, in pixels.
pub const MIN_SIZE: u32 = 64;
pub const MAX_SIZE: u32 = 2048;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Width of the picture in pixels (the board and its frame).
    pub size: u32,
    /// Draw the board from Black's side.
    pub flip: bool,
    pub theme: ThemeName,
    pub coordinates: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { size: 512, flip: false, theme: ThemeName::default(), coordinates: true }
    }
}

#[derive(Debug)]
pub enum RenderError {
    Size(u32),
    Encode(String),
    /// A tournament picture asked to hold more than it can: `count` of `what`, at most `max`.
    TooLarge {
        what: &'static str,
        count: usize,
        max: usize,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::Size(s) => {
                write!(f, "a board picture is {MIN_SIZE} to {MAX_SIZE} pixels wide, not {s}")
            }
            RenderError::Encode(e) => write!(f, "could not encode the picture: {e}"),
            RenderError::TooLarge { what, count, max } => {
                write!(f, "too many {what} for one picture: {count}, at most {max}")
            }
        }
    }
}

impl std::error::Error for RenderError {}

/// Where things go on the picture.
struct Layout {
    width: u32,
    height: u32,
    square: f32,
    x0: f32,
    y0: f32,
    margin: f32,
    hand_bar: f32,
    files: u8,
    ranks: u8,
    flip: bool,
}

impl Layout {
    fn new(view: &BoardView, opts: &RenderOptions) -> Layout {
        let size = opts.size as f32;
        let margin = (size * 0.06).round();
        let cells = view.files.max(view.ranks) as f32;
        let square = ((size - 2.0 * margin) / cells).floor();
        let hand_bar = if view.hands.is_some() { (square * 0.55).round() } else { 0.0 };
        let board_w = square * view.files as f32;
        let x0 = margin + ((size - 2.0 * margin - board_w) / 2.0).floor();
        let y0 = margin + hand_bar;
        // Below the board: the file labels, then (where there are reserves) White's hand.
        let height = (y0 + square * view.ranks as f32 + margin + hand_bar * 1.2) as u32;
        Layout {
            width: opts.size,
            height,
            square,
            x0,
            y0,
            margin,
            hand_bar,
            files: view.files,
            ranks: view.ranks,
            flip: opts.flip,
        }
    }

    /// Top-left corner of a cell on the picture.
    fn cell(&self, file: u8, rank: u8) -> (f32, f32) {
        let (col, row) =
            if self.flip { (self.files - 1 - file, rank) } else { (file, self.ranks - 1 - rank) };
        (self.x0 + col as f32 * self.square, self.y0 + row as f32 * self.square)
    }

    /// The rectangle of a `w` x `h` block of cells whose lower-left (from White) cell is given.
    fn block(&self, file: u8, rank: u8, w: u8, h: u8) -> Rect {
        let corners = [self.cell(file, rank), self.cell(file + w - 1, rank + h - 1)];
        let left = corners[0].0.min(corners[1].0);
        let top = corners[0].1.min(corners[1].1);
        Rect::from_xywh(left, top, self.square * w as f32, self.square * h as f32).expect("cells have size")
    }
}

fn paint(c: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c.0, c.1, c.2, c.3);
    p.anti_alias = true;
    p
}

fn inset(r: Rect, by: f32) -> Rect {
    Rect::from_ltrb(r.left() + by, r.top() + by, r.right() - by, r.bottom() - by).unwrap_or(r)
}

/// Draws a view. The picture is `opts.size` wide and as tall as the board needs.
pub fn render(view: &BoardView, opts: &RenderOptions) -> Result<Pixmap, RenderError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&opts.size) {
        return Err(RenderError::Size(opts.size));
    }
    let theme = opts.theme.theme();
    let layout = Layout::new(view, opts);
    let mut pm = Pixmap::new(layout.width, layout.height).ok_or(RenderError::Size(opts.size))?;
    let bg = theme.background;
    pm.fill(tiny_skia::Color::from_rgba8(bg.0, bg.1, bg.2, 255));
    let q = layout.square;

    for rank in 0..view.ranks {
        for file in 0..view.files {
            let cell = view.cell(file, rank);
            let rect = layout.block(file, rank, 1, 1);
            match cell.kind {
                CellKind::Square => {
                    let light = (file + rank) % 2 == 1;
                    let colour = if light { theme.light } else { theme.dark };
                    // Where squares come and go, a hairline gap shows each one as a piece of board.
                    let r = if view.hands.is_some() || view.tiles {
                        inset(rect, (q * 0.015).max(0.5))
                    } else {
                        rect
                    };
                    pm.fill_rect(r, &paint(colour), Transform::identity(), None);
                    if let Some(owner) = cell.owner {
                        owner_ring(&mut pm, &theme, rect, owner, q);
                    }
                }
                CellKind::Hole => hole(&mut pm, &theme, rect, q),
                CellKind::AntiTile => anti_tile(&mut pm, &theme, rect, q),
                CellKind::Quad => {}
            }
        }
    }
    for quad in &view.quads {
        let rect = layout.block(quad.file, quad.rank, 2, 2);
        pm.fill_rect(rect, &paint(theme.quad), Transform::identity(), None);
        let edge = Stroke { width: (q * 0.05).max(1.0), ..Stroke::default() };
        pm.stroke_path(
            &PathBuilder::from_rect(inset(rect, edge.width / 2.0)),
            &paint(theme.quad_edge),
            &edge,
            Transform::identity(),
            None,
        );
    }
    for &(file, rank) in &view.last_move {
        let rect = quad_or_cell(view, &layout, file, rank);
        pm.fill_rect(rect, &paint(theme.last_move), Transform::identity(), None);
    }
    // Each quad-square's name (S1…S4, M1, M2) small in its corner: moves are written with them.
    for quad in &view.quads {
        let r = layout.block(quad.file, quad.rank, 2, 2);
        let style = font::Style::bold(q * 0.24);
        font::Font::get().draw(
            &mut pm,
            quad.name,
            r.x() + q * 0.08,
            r.y() + q * 0.08,
            style,
            theme.coordinates,
        );
    }
    if let Some((file, rank)) = view.check {
        let r = quad_or_cell(view, &layout, file, rank);
        let circle = PathBuilder::from_circle(r.x() + r.width() / 2.0, r.y() + r.height() / 2.0, q * 0.48);
        if let Some(c) = circle {
            pm.fill_path(&c, &paint(theme.check), FillRule::Winding, Transform::identity(), None);
        }
    }
    // A locked square: a small padlock in its corner, so the player sees what may not move.
    for &(file, rank) in &view.locked {
        padlock(&mut pm, &theme, layout.block(file, rank, 1, 1), q);
    }
    if let Some((file, rank)) = view.chip {
        chip(&mut pm, &theme, layout.block(file, rank, 1, 1), q);
    }
    for rank in 0..view.ranks {
        for file in 0..view.files {
            if let Some(p) = view.cell(file, rank).piece {
                let (x, y) = layout.cell(file, rank);
                draw_piece(&mut pm, &theme, p, x, y, q);
            }
        }
    }
    for quad in &view.quads {
        let r = layout.block(quad.file, quad.rank, 2, 2);
        match quad.pieces.as_slice() {
            [one] => draw_piece(&mut pm, &theme, *one, r.x() + q * 0.35, r.y() + q * 0.35, q * 1.3),
            [a, b] => {
                // Two pieces side by side, each the size of a normal square's piece.
                draw_piece(&mut pm, &theme, *a, r.x() + q * 0.02, r.y() + q * 0.5, q * 0.98);
                draw_piece(&mut pm, &theme, *b, r.x() + q * 1.0, r.y() + q * 0.5, q * 0.98);
            }
            _ => {}
        }
    }
    if opts.coordinates {
        coordinates(&mut pm, &theme, &layout);
    }
    if let Some(hands) = view.hands {
        draw_hands(&mut pm, &theme, &layout, hands);
    }
    Ok(pm)
}

fn quad_or_cell(view: &BoardView, layout: &Layout, file: u8, rank: u8) -> Rect {
    match view.quads.iter().find(|qd| qd.file == file && qd.rank == rank) {
        Some(_) => layout.block(file, rank, 2, 2),
        None => layout.block(file, rank, 1, 1),
    }
}

/// A location without a square: the frame shows through, with a dashed outline so it reads as
/// "no square here" rather than as a dark square.
fn hole(pm: &mut Pixmap, theme: &Theme, rect: Rect, q: f32) {
    let r = inset(rect, q * 0.14);
    let dash = StrokeDash::new(vec![q * 0.08, q * 0.07], 0.0);
    let stroke = Stroke { width: (q * 0.025).max(1.0), dash, ..Stroke::default() };
    pm.stroke_path(&PathBuilder::from_rect(r), &paint(theme.hole_mark), &stroke, Transform::identity(), None);
}

fn padlock(pm: &mut Pixmap, theme: &Theme, rect: Rect, q: f32) {
    let (w, x, y) = (q * 0.2, rect.right() - q * 0.3, rect.top() + q * 0.16);
    let stroke = Stroke { width: (q * 0.035).max(1.0), ..Stroke::default() };
    let mut shackle = PathBuilder::new();
    shackle.move_to(x + w * 0.2, y + w * 0.5);
    shackle.line_to(x + w * 0.2, y + w * 0.25);
    shackle.cubic_to(x + w * 0.2, y - w * 0.15, x + w * 0.8, y - w * 0.15, x + w * 0.8, y + w * 0.25);
    shackle.line_to(x + w * 0.8, y + w * 0.5);
    if let Some(path) = shackle.finish() {
        pm.stroke_path(&path, &paint(theme.hole_mark), &stroke, Transform::identity(), None);
    }
    if let Some(body) = Rect::from_xywh(x, y + w * 0.5, w, w * 0.7) {
        pm.fill_rect(body, &paint(theme.hole_mark), Transform::identity(), None);
    }
}

fn anti_tile(pm: &mut Pixmap, theme: &Theme, rect: Rect, q: f32) {
    let r = inset(rect, (q * 0.015).max(0.5));
    pm.fill_rect(r, &paint(theme.anti_tile), Transform::identity(), None);
    let m = inset(rect, q * 0.25);
    let mut pb = PathBuilder::new();
    pb.move_to(m.left(), m.top());
    pb.line_to(m.right(), m.bottom());
    pb.move_to(m.right(), m.top());
    pb.line_to(m.left(), m.bottom());
    if let Some(x) = pb.finish() {
        let stroke =
            Stroke { width: (q * 0.07).max(1.0), line_cap: tiny_skia::LineCap::Round, ..Stroke::default() };
        pm.stroke_path(&x, &paint(theme.anti_mark), &stroke, Transform::identity(), None);
    }
}

/// The owner's colour as a ring inside the square, outlined so it shows on light and dark alike.
fn owner_ring(pm: &mut Pixmap, theme: &Theme, rect: Rect, owner: Color, q: f32) {
    let (ring, line) = match owner {
        Color::White => (theme.white_piece, theme.white_line),
        Color::Black => (theme.black_piece, theme.black_line),
    };
    let width = (q * 0.07).max(1.5);
    let r = inset(rect, q * 0.05 + width / 2.0);
    pm.stroke_path(
        &PathBuilder::from_rect(r),
        &paint(ring),
        &Stroke { width, ..Stroke::default() },
        Transform::identity(),
        None,
    );
    let thin = Stroke { width: (q * 0.012).max(0.75), ..Stroke::default() };
    pm.stroke_path(
        &PathBuilder::from_rect(inset(r, width / 2.0)),
        &paint(line),
        &thin,
        Transform::identity(),
        None,
    );
    pm.stroke_path(
        &PathBuilder::from_rect(inset(r, -width / 2.0)),
        &paint(line),
        &thin,
        Transform::identity(),
        None,
    );
}

fn chip(pm: &mut Pixmap, theme: &Theme, rect: Rect, q: f32) {
    let (cx, cy) = (rect.x() + q / 2.0, rect.y() + q / 2.0);
    if let Some(disc) = PathBuilder::from_circle(cx, cy, q * 0.32) {
        pm.fill_path(&disc, &paint(theme.chip), FillRule::Winding, Transform::identity(), None);
        let ring = Stroke { width: (q * 0.05).max(1.0), ..Stroke::default() };
        pm.stroke_path(&disc, &paint(Rgba::rgb(240, 246, 255)), &ring, Transform::identity(), None);
    }
}

/// Draws a piece in the `size` x `size` box at (x, y).
fn draw_piece(pm: &mut Pixmap, theme: &Theme, piece: Piece, x: f32, y: f32, size: f32) {
    let art = Art::get().piece(piece.role);
    let (fill, line) = match piece.color {
        Color::White => (theme.white_piece, theme.white_line),
        Color::Black => (theme.black_piece, theme.black_line),
    };
    let t = Transform::from_scale(size / 100.0, size / 100.0).post_translate(x, y);
    let stroke = Stroke {
        width: 4.0,
        line_join: tiny_skia::LineJoin::Round,
        line_cap: tiny_skia::LineCap::Round,
        ..Stroke::default()
    };
    pm.fill_path(&art.body, &paint(fill), FillRule::Winding, t, None);
    pm.stroke_path(&art.body, &paint(line), &stroke, t, None);
    if let Some(d) = &art.details {
        let thin = Stroke { width: 3.0, ..stroke };
        pm.stroke_path(d, &paint(line), &thin, t, None);
    }
}

fn glyph(pm: &mut Pixmap, colour: Rgba, c: char, x: f32, y: f32, height: f32) {
    if let Some(path) = Art::get().glyph(c) {
        let s = height / 15.0;
        let t = Transform::from_scale(s, s).post_translate(x, y);
        let stroke = Stroke {
            width: 1.7,
            line_cap: tiny_skia::LineCap::Round,
            line_join: tiny_skia::LineJoin::Round,
            ..Stroke::default()
        };
        pm.stroke_path(path, &paint(colour), &stroke, t, None);
    }
}

fn coordinates(pm: &mut Pixmap, theme: &Theme, layout: &Layout) {
    let h = (layout.margin * 0.55).min(layout.square * 0.4);
    let w = h * 10.0 / 15.0;
    for file in 0..layout.files {
        let (x, _) = layout.cell(file, 0);
        let y = layout.y0 + layout.square * layout.ranks as f32 + (layout.margin - h) / 2.0;
        glyph(pm, theme.coordinates, (b'a' + file) as char, x + (layout.square - w) / 2.0, y, h);
    }
    for rank in 0..layout.ranks {
        let (_, y) = layout.cell(0, rank);
        let x = layout.x0 - layout.margin / 2.0 - w / 2.0;
        glyph(pm, theme.coordinates, (b'1' + rank) as char, x, y + (layout.square - h) / 2.0, h);
    }
}

/// Squares in hand: a row of small squares for each side, the side's own at its edge of the board.
fn draw_hands(pm: &mut Pixmap, theme: &Theme, layout: &Layout, hands: [Hand; 2]) {
    let bar = layout.hand_bar;
    let icon = bar * 0.62;
    for color in Color::ALL {
        let at_bottom = (color == Color::White) != layout.flip;
        let y = if at_bottom {
            layout.y0 + layout.square * layout.ranks as f32 + layout.margin + (bar - icon) / 2.0
        } else {
            layout.margin + (bar - icon) / 2.0 - bar * 0.15
        };
        let (fill, line) = match color {
            Color::White => (theme.white_piece, theme.white_line),
            Color::Black => (theme.black_piece, theme.black_line),
        };
        let mut x = layout.x0;
        // The side's colour first, then its squares.
        if let Some(disc) = PathBuilder::from_circle(x + icon / 2.0, y + icon / 2.0, icon * 0.42) {
            pm.fill_path(&disc, &paint(fill), FillRule::Winding, Transform::identity(), None);
            pm.stroke_path(
                &disc,
                &paint(line),
                &Stroke { width: (icon * 0.08).max(1.0), ..Stroke::default() },
                Transform::identity(),
                None,
            );
        }
        x += icon * 1.5;
        match hands[color.index()] {
            Hand::Count(n) => {
                for _ in 0..n {
                    let r = Rect::from_xywh(x, y, icon, icon).expect("icon has size");
                    pm.fill_rect(r, &paint(theme.light), Transform::identity(), None);
                    owner_ring(pm, theme, r, color, icon);
                    x += icon * 1.25;
                }
            }
            Hand::Unlimited => glyph(pm, theme.coordinates, '∞', x + icon * 0.1, y - icon * 0.1, icon * 1.4),
        }
    }
}

/// The picture as an 8-bit RGB PNG.
pub fn encode_png(pm: &Pixmap) -> Result<Vec<u8>, RenderError> {
    // Pictures are opaque, so premultiplied RGBA is plain RGBA; drop the alpha to save a quarter.
    let rgb: Vec<u8> = pm.data().chunks_exact(4).flat_map(|px| [px[0], px[1], px[2]]).collect();
    let mut out = Vec::with_capacity(rgb.len() / 8);
    {
        let mut enc = png::Encoder::new(&mut out, pm.width(), pm.height());
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Balanced);
        enc.set_filter(png::Filter::Paeth);
        let mut writer = enc.write_header().map_err(|e| RenderError::Encode(e.to_string()))?;
        writer.write_image_data(&rgb).map_err(|e| RenderError::Encode(e.to_string()))?;
    }
    Ok(out)
}

/// Draws a view and encodes it as PNG.
pub fn render_png(view: &BoardView, opts: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    encode_png(&render(view, opts)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::{Position, Variant};

    #[test]
    fn every_start_renders_at_several_sizes() {
        for &v in Variant::ALL {
            let view = BoardView::new(&Position::start(v), None);
            for size in [64, 256, 777] {
                let pm = render(&view, &RenderOptions { size, ..RenderOptions::default() }).unwrap();
                assert_eq!(pm.width(), size);
                let png = encode_png(&pm).unwrap();
                assert_eq!(&png[1..4], b"PNG");
            }
        }
    }

    #[test]
    fn quad_squares_are_labelled_with_their_names() {
        let view = BoardView::new(&Position::start(Variant::QuadSquare), None);
        let opts = RenderOptions::default();
        let pm = render(&view, &opts).unwrap();
        let layout = Layout::new(&view, &opts);
        let fill = opts.theme.theme().quad;
        for quad in &view.quads {
            // The name's corner holds pixels of another colour than the quad's own.
            let r = layout.block(quad.file, quad.rank, 2, 2);
            let q = layout.square;
            let mut inked = 0;
            for y in (r.y() + q * 0.08) as u32..(r.y() + q * 0.32) as u32 {
                for x in (r.x() + q * 0.08) as u32..(r.x() + q * 0.5) as u32 {
                    let p = pm.pixel(x, y).unwrap();
                    inked += usize::from((p.red(), p.green(), p.blue()) != (fill.0, fill.1, fill.2));
                }
            }
            assert!(inked > 20, "{}: {inked} pixels of its name", quad.name);
        }
    }

    #[test]
    fn a_locked_square_carries_a_padlock() {
        let mut pos = Position::start(Variant::Hans38Neutral);
        for text in ["@@f3", "@@f6", "Ng1-f3", "Ng8-f6", "@@e3", "@e3-d5"] {
            pos = pos.played(&tessera_rules::notation::parse_move(&pos, text).unwrap());
        }
        let opts = RenderOptions::default();
        let locked = BoardView::new(&pos, None);
        let mut unlocked = locked.clone();
        unlocked.locked.clear();
        let (a, b) = (render(&locked, &opts).unwrap(), render(&unlocked, &opts).unwrap());
        // The two pictures differ only in d5's corner.
        let layout = Layout::new(&locked, &opts);
        let d5 = layout.block(3, 4, 1, 1);
        let mut inside = 0;
        for y in 0..a.height() {
            for x in 0..a.width() {
                if a.pixel(x, y) != b.pixel(x, y) {
                    let (fx, fy) = (x as f32, y as f32);
                    let within =
                        (d5.left()..=d5.right()).contains(&fx) && (d5.top()..=d5.bottom()).contains(&fy);
                    assert!(within, "a change outside d5 at ({x}, {y})");
                    inside += 1;
                }
            }
        }
        assert!(inside > 30, "{inside} pixels of padlock");
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        let view = BoardView::new(&Position::start(Variant::Chess), None);
        let err = render(&view, &RenderOptions { size: 10, ..RenderOptions::default() }).unwrap_err();
        assert!(err.to_string().contains("64 to 2048"));
    }

    #[test]
    fn flipping_mirrors_the_board() {
        let view = BoardView::new(&Position::start(Variant::Chess), None);
        let a = render(&view, &RenderOptions { coordinates: false, ..RenderOptions::default() }).unwrap();
        let b = render(&view, &RenderOptions { coordinates: false, flip: true, ..RenderOptions::default() })
            .unwrap();
        // White's king square (e1) seen from White is bottom row; from Black it is top row.
        assert_ne!(a.data(), b.data());
        let px = |pm: &Pixmap, x: u32, y: u32| pm.pixel(x, y).map(|p| (p.red(), p.green(), p.blue()));
        let layout = Layout::new(&view, &RenderOptions::default());
        let (x, y) = layout.cell(4, 0);
        let centre = ((x + layout.square / 2.0) as u32, (y + layout.square * 0.7) as u32);
        assert_eq!(px(&a, centre.0, centre.1), Some((250, 250, 248)), "a white piece on e1");
    }
}
