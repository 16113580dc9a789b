//! Board pictures for Tessera: a [`BoardView`] in, PNG (or an animated GIF of a game) out; and
//! tournament pictures ([`tables`]): standings, crosstables and brackets from plain data.
//!
//! Renders only from the board view of `tessera-rules`, never from move generation. Piece art and
//! glyphs are vector paths built once ([`art::Art::get`]) and scaled per image, so any size is crisp.

mod animation;
pub mod art;
pub mod diagram;
mod font;
pub mod graph;
mod palette;
mod sprites;
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
use sprites::Mark;

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
    /// The players' names, clocks and result, drawn above and below the board.
    pub caption: Option<Caption>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            size: 512,
            flip: false,
            theme: ThemeName::default(),
            coordinates: true,
            caption: None,
        }
    }
}

/// Who plays and how the game stands: each side's name on its own edge of the board (the side to
/// move marked), its clock where the game has one, and a banner with the result once it is over.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Caption {
    /// White's and Black's names.
    pub names: [String; 2],
    /// What each side's clock reads ("2d 4h"), where the game has a clock.
    pub clocks: [Option<String>; 2],
    /// A finished game: the winner (none for a draw) and how it ended ("White wins by checkmate").
    pub result: Option<(Option<Color>, String)>,
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
    /// Height of the result banner (0 while the game goes on or without a caption).
    banner: f32,
    /// Height of each player's name strip (0 without a caption).
    strip: f32,
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
        let strip = if opts.caption.is_some() { (size * 0.075).round().max(12.0) } else { 0.0 };
        let banner = match &opts.caption {
            Some(Caption { result: Some(_), .. }) => strip,
            _ => 0.0,
        };
        // With names above and below, the strips stand in for part of the frame.
        let gap = if strip > 0.0 { (margin * 0.4).round() } else { margin };
        let top = banner + strip;
        let y0 = top + gap + hand_bar;
        // Below the board: the file labels, then (where there are reserves) White's hand, then
        // the bottom player's name.
        let height = (y0 + square * view.ranks as f32 + margin + hand_bar * 1.2 + strip) as u32;
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
            banner,
            strip,
        }
    }

    fn board_width(&self) -> f32 {
        self.square * self.files as f32
    }

    fn board_bottom(&self) -> f32 {
        self.y0 + self.square * self.ranks as f32
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
    let cell_px = q as u32;
    let stamp = |pm: &mut Pixmap, mark: Mark, file: u8, rank: u8, draw: &dyn Fn(&mut Pixmap)| {
        if let Some(sprite) = sprites::get(opts.theme, mark, cell_px, cell_px, draw) {
            let (x, y) = layout.cell(file, rank);
            sprites::blit(pm, &sprite, x as i32, y as i32);
        }
    };
    let unit = Rect::from_xywh(0.0, 0.0, q, q).expect("a square has size");

    for rank in 0..view.ranks {
        for file in 0..view.files {
            let cell = view.cell(file, rank);
            match cell.kind {
                CellKind::Square => {
                    let light = (file + rank) % 2 == 1;
                    // Where squares come and go, a hairline gap shows each one as a piece of board.
                    let gap = view.hands.is_some() || view.tiles;
                    let draw = |s: &mut Pixmap| {
                        let colour = if light { theme.light } else { theme.dark };
                        // On the frame's colour, so the sprite is opaque and copied, not blended.
                        s.fill(tiny_skia::Color::from_rgba8(bg.0, bg.1, bg.2, 255));
                        let r = if gap { inset(unit, (q * 0.015).max(0.5)) } else { unit };
                        s.fill_rect(r, &paint(colour), Transform::identity(), None);
                    };
                    stamp(&mut pm, Mark::Square { light, gap }, file, rank, &draw);
                }
                CellKind::Hole => stamp(&mut pm, Mark::Hole, file, rank, &|s| hole(s, &theme, unit, q)),
                CellKind::AntiTile => {
                    stamp(&mut pm, Mark::AntiTile, file, rank, &|s| anti_tile(s, &theme, unit, q))
                }
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
    // Owners after the last-move highlight, so a square just placed still shows whose it is.
    for rank in 0..view.ranks {
        for file in 0..view.files {
            let cell = view.cell(file, rank);
            if let (CellKind::Square, Some(owner)) = (cell.kind, cell.owner) {
                stamp(&mut pm, Mark::OwnerRing(owner), file, rank, &|s| {
                    owner_ring(s, &theme, unit, owner, q)
                });
            }
        }
    }
    // Each quad-square's name (S1…S4, M1, M2) small in its corner: moves are written with them.
    for quad in &view.quads {
        let r = layout.block(quad.file, quad.rank, 2, 2);
        text_at(
            &mut pm,
            quad.name,
            r.x() + q * 0.08,
            r.y() + q * 0.08,
            font::Style::bold(q * 0.24),
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
        stamp(&mut pm, Mark::Padlock, file, rank, &|s| padlock(s, &theme, unit, q));
    }
    if let Some((file, rank)) = view.chip {
        stamp(&mut pm, Mark::Chip, file, rank, &|s| chip(s, &theme, unit, q));
    }
    for rank in 0..view.ranks {
        for file in 0..view.files {
            if let Some(p) = view.cell(file, rank).piece {
                stamp(&mut pm, Mark::Piece(p), file, rank, &|s| draw_piece(s, &theme, p, 0.0, 0.0, q));
            }
        }
    }
    for quad in &view.quads {
        let r = layout.block(quad.file, quad.rank, 2, 2);
        match quad.pieces.as_slice() {
            [one] => piece_at(&mut pm, opts.theme, &theme, *one, r.x() + q * 0.35, r.y() + q * 0.35, q * 1.3),
            [a, b] => {
                // Two pieces side by side, each the size of a normal square's piece.
                piece_at(&mut pm, opts.theme, &theme, *a, r.x() + q * 0.02, r.y() + q * 0.5, q * 0.98);
                piece_at(&mut pm, opts.theme, &theme, *b, r.x() + q * 1.0, r.y() + q * 0.5, q * 0.98);
            }
            _ => {}
        }
    }
    if opts.coordinates {
        coordinates(&mut pm, opts.theme, &theme, &layout);
    }
    if let Some(hands) = view.hands {
        draw_hands(&mut pm, opts.theme, &theme, &layout, hands);
    }
    if let Some(caption) = &opts.caption {
        draw_caption(&mut pm, &theme, &layout, caption, view.turn);
    }
    Ok(pm)
}

/// A piece of `size` pixels with its box's corner at (x, y), both rounded to whole pixels.
fn piece_at(pm: &mut Pixmap, name: ThemeName, theme: &Theme, piece: Piece, x: f32, y: f32, size: f32) {
    let px = size.round() as u32;
    let draw = |s: &mut Pixmap| draw_piece(s, theme, piece, 0.0, 0.0, px as f32);
    if let Some(sprite) = sprites::get(name, Mark::Piece(piece), px, px, draw) {
        sprites::blit(pm, &sprite, x.round() as i32, y.round() as i32);
    }
}

/// The players' names on their edges of the board, the side to move marked, and the banner of a
/// finished game.
fn draw_caption(pm: &mut Pixmap, theme: &Theme, layout: &Layout, caption: &Caption, turn: Color) {
    let font = font::Font::get();
    let h = layout.strip;
    let left = layout.x0;
    let right = layout.x0 + layout.board_width();
    if let Some((winner, text)) = &caption.result {
        let band = Rect::from_xywh(0.0, 0.0, layout.width as f32, layout.banner).expect("a banner has size");
        let fill = if winner.is_some() { theme.banner_win } else { theme.banner_draw };
        pm.fill_rect(band, &paint(fill), Transform::identity(), None);
        let style = font::Style::bold(h * 0.5);
        let text = font.fit(text, layout.width as f32 - 2.0 * layout.margin, style);
        let x = (layout.width as f32 - font.width(&text, style)) / 2.0;
        text_at(pm, &text, x, (layout.banner - style.size) / 2.0, style, theme.banner_text);
    }
    for color in Color::ALL {
        let at_bottom = (color == Color::White) != layout.flip;
        let y = if at_bottom { layout.height as f32 - h } else { layout.banner };
        let to_move = caption.result.is_none() && color == turn;
        if to_move {
            let r = Rect::from_xywh(left, y + h * 0.1, right - left, h * 0.8).expect("a strip has size");
            pm.fill_rect(r, &paint(theme.to_move), Transform::identity(), None);
        }
        let (fill, line) = match color {
            Color::White => (theme.white_piece, theme.white_line),
            Color::Black => (theme.black_piece, theme.black_line),
        };
        let pad = h * 0.25;
        if let Some(disc) = PathBuilder::from_circle(left + pad + h * 0.2, y + h / 2.0, h * 0.2) {
            pm.fill_path(&disc, &paint(fill), FillRule::Winding, Transform::identity(), None);
            let ring = Stroke { width: (h * 0.04).max(1.0), ..Stroke::default() };
            pm.stroke_path(&disc, &paint(line), &ring, Transform::identity(), None);
        }
        // At the right: the score of a finished game, else the clock.
        let score = caption.result.as_ref().map(|(winner, _)| match winner {
            None => "½".to_string(),
            Some(w) if *w == color => "1".to_string(),
            Some(_) => "0".to_string(),
        });
        let side_text = score.or_else(|| caption.clocks[color.index()].clone()).unwrap_or_default();
        let style = if to_move { font::Style::bold(h * 0.5) } else { font::Style::regular(h * 0.5) };
        let colour = if to_move || caption.result.is_some() { theme.caption } else { theme.caption_dim };
        let text_y = y + (h - style.size) / 2.0 + h * 0.04;
        let side_w = font.width(&side_text, style);
        if !side_text.is_empty() {
            text_at(pm, &side_text, right - pad - side_w, text_y, style, colour);
        }
        let name_x = left + pad + h * 0.6;
        let room = right - pad - side_w - pad - name_x;
        let name = font.fit(&caption.names[color.index()], room.max(0.0), style);
        text_at(pm, &name, name_x, text_y, style, colour);
    }
}

/// A line of text with its design box's corner at (x, y), both rounded to whole pixels; drawn once
/// per wording, size and colour and then copied, since names and clocks recur picture after picture.
fn text_at(pm: &mut Pixmap, text: &str, x: f32, y: f32, style: font::Style, colour: Rgba) {
    use std::hash::{Hash, Hasher};
    let font = font::Font::get();
    // Room for the strokes' round ends and for descenders and accents beyond the design box.
    let pad = (style.size * 0.3).ceil();
    let w = (font.width(text, style) + 2.0 * pad).ceil() as u32;
    let h = (style.size + 2.0 * pad).ceil() as u32;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (text, style.bold, colour.0, colour.1, colour.2, colour.3).hash(&mut hasher);
    let draw = |s: &mut Pixmap| font.draw(s, text, pad, pad, style, colour);
    // The theme is part of the colour already; one cache key for every theme.
    if let Some(sprite) = sprites::get(ThemeName::default(), Mark::Text(hasher.finish()), w, h, draw) {
        sprites::blit(pm, &sprite, (x - pad).round() as i32, (y - pad).round() as i32);
    }
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

/// The owner's colour as a frame inside the square, outlined in the opposite colour so it reads on
/// light and dark squares alike. Whole pixels wide and on whole pixels, so at 256 px it is still a
/// solid band of colour rather than an antialiased blur.
fn owner_ring(pm: &mut Pixmap, theme: &Theme, rect: Rect, owner: Color, q: f32) {
    let (ring, line) = match owner {
        Color::White => (theme.white_piece, theme.white_line),
        Color::Black => (theme.black_piece, theme.black_line),
    };
    let thin = (q * 0.015).round().max(1.0);
    let width = (q * 0.085).round().max(2.0);
    let edge = (q * 0.03).round().max(1.0);
    let (left, top) = (rect.left().round(), rect.top().round());
    let (right, bottom) = (rect.right().round(), rect.bottom().round());
    let mut band = |by: f32, t: f32, colour: Rgba| {
        let (l, tp, r, b) = (left + by, top + by, right - by, bottom - by);
        let mut p = paint(colour);
        p.anti_alias = false;
        for bar in [
            Rect::from_ltrb(l, tp, r, tp + t),
            Rect::from_ltrb(l, b - t, r, b),
            Rect::from_ltrb(l, tp + t, l + t, b - t),
            Rect::from_ltrb(r - t, tp + t, r, b - t),
        ]
        .into_iter()
        .flatten()
        {
            pm.fill_rect(bar, &p, Transform::identity(), None);
        }
    };
    band(edge, thin, line);
    band(edge + thin, width, ring);
    band(edge + thin + width, thin, line);
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

/// A coordinate glyph `height` pixels tall with its box's corner at (x, y), rounded to whole pixels.
fn glyph_at(pm: &mut Pixmap, name: ThemeName, colour: Rgba, c: char, x: f32, y: f32, height: f32) {
    // Room around the box for the stroke's round ends.
    let pad = (height * 0.1).ceil() + 1.0;
    let (w, h) = ((height * 10.0 / 15.0 + 2.0 * pad).ceil() as u32, (height + 2.0 * pad).ceil() as u32);
    let draw = |s: &mut Pixmap| glyph(s, colour, c, pad, pad, height);
    if let Some(sprite) = sprites::get(name, Mark::Glyph(c), w, h, draw) {
        sprites::blit(pm, &sprite, (x - pad).round() as i32, (y - pad).round() as i32);
    }
}

fn coordinates(pm: &mut Pixmap, name: ThemeName, theme: &Theme, layout: &Layout) {
    let h = (layout.margin * 0.55).min(layout.square * 0.4);
    let w = h * 10.0 / 15.0;
    for file in 0..layout.files {
        let (x, _) = layout.cell(file, 0);
        let y = layout.board_bottom() + (layout.margin - h) / 2.0;
        glyph_at(pm, name, theme.coordinates, (b'a' + file) as char, x + (layout.square - w) / 2.0, y, h);
    }
    for rank in 0..layout.ranks {
        let (_, y) = layout.cell(0, rank);
        let x = layout.x0 - layout.margin / 2.0 - w / 2.0;
        glyph_at(pm, name, theme.coordinates, (b'1' + rank) as char, x, y + (layout.square - h) / 2.0, h);
    }
}

/// Squares in hand: a row of small squares for each side, the side's own at its edge of the board.
fn draw_hands(pm: &mut Pixmap, name: ThemeName, theme: &Theme, layout: &Layout, hands: [Hand; 2]) {
    let bar = layout.hand_bar;
    let icon = (bar * 0.62).round();
    for color in Color::ALL {
        let at_bottom = (color == Color::White) != layout.flip;
        let y = if at_bottom {
            layout.board_bottom() + layout.margin + (bar - icon) / 2.0
        } else {
            layout.y0 - bar + (bar - icon) / 2.0 - bar * 0.15
        }
        .round();
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
        x += (icon * 1.5).round();
        match hands[color.index()] {
            Hand::Count(n) => {
                let unit = Rect::from_xywh(0.0, 0.0, icon, icon).expect("icon has size");
                let draw = |s: &mut Pixmap| {
                    s.fill_rect(unit, &paint(theme.light), Transform::identity(), None);
                    owner_ring(s, theme, unit, color, icon);
                };
                let px = icon as u32;
                if let Some(sprite) = sprites::get(name, Mark::HandSquare(color), px, px, draw) {
                    for _ in 0..n {
                        sprites::blit(pm, &sprite, x as i32, y as i32);
                        x += (icon * 1.25).round();
                    }
                }
            }
            Hand::Unlimited => glyph(pm, theme.coordinates, '∞', x + icon * 0.1, y - icon * 0.1, icon * 1.4),
        }
    }
}

/// The picture as an 8-bit indexed PNG: a board has a few hundred colours at most (its theme and
/// the antialiased edges between them), so a palette of 256 keeps it exact or all but exact, a
/// third of the bytes to compress; and the fastest zlib level is then both quick and small.
pub fn encode_png(pm: &Pixmap) -> Result<Vec<u8>, RenderError> {
    let (palette, indices) = palette::index(pm.data());
    let mut out = Vec::with_capacity(indices.len() / 8);
    {
        let mut enc = png::Encoder::new(&mut out, pm.width(), pm.height());
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(palette);
        enc.set_deflate_compression(png::DeflateCompression::Level(2));
        enc.set_filter(png::Filter::NoFilter);
        let mut writer = enc.write_header().map_err(|e| RenderError::Encode(e.to_string()))?;
        writer.write_image_data(&indices).map_err(|e| RenderError::Encode(e.to_string()))?;
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
        let view = BoardView::new(&Position::start(Variant::QUAD_SQUARE), None);
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
        let mut pos = Position::start(Variant::HANS38_NEUTRAL);
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

    fn named(result: Option<(Option<Color>, String)>) -> RenderOptions {
        let caption =
            Caption { names: ["alice".into(), "bob".into()], clocks: [Some("2d 4h".into()), None], result };
        RenderOptions { caption: Some(caption), ..RenderOptions::default() }
    }

    /// Pixels of `pm` in the band of rows `top..bottom` that are not the frame's colour.
    fn inked(pm: &Pixmap, top: f32, bottom: f32, theme: &Theme) -> usize {
        let bg = theme.background;
        let mut n = 0;
        for y in top as u32..(bottom as u32).min(pm.height()) {
            for x in 0..pm.width() {
                let p = pm.pixel(x, y).unwrap();
                n += usize::from((p.red(), p.green(), p.blue()) != (bg.0, bg.1, bg.2));
            }
        }
        n
    }

    #[test]
    fn names_stand_on_their_sides_edges_and_the_mover_is_marked() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
        let opts = named(None);
        let theme = opts.theme.theme();
        let pm = render(&view, &opts).unwrap();
        let layout = Layout::new(&view, &opts);
        let plain = render(&view, &RenderOptions::default()).unwrap();
        assert_eq!(
            pm.height() as f32,
            plain.height() as f32 + 2.0 * layout.strip - (layout.margin - (layout.margin * 0.4).round())
        );
        assert_eq!(layout.banner, 0.0, "no banner while the game goes on");
        // White (to move) at the bottom: its strip has the highlight behind its name.
        let strip_at = |y: f32| {
            let p = pm
                .pixel((layout.x0 + layout.board_width() / 2.0) as u32, (y + layout.strip / 2.0) as u32)
                .unwrap();
            (p.red(), p.green(), p.blue())
        };
        let tm = theme.to_move;
        assert_eq!(
            strip_at(pm.height() as f32 - layout.strip),
            (tm.0, tm.1, tm.2),
            "White's strip is marked"
        );
        let bg = theme.background;
        assert_eq!(strip_at(0.0), (bg.0, bg.1, bg.2), "Black's strip is not");
        assert!(inked(&pm, 0.0, layout.strip, &theme) > 200, "bob's name is written above");
        // Flipped, the names change edges: the top strip now carries the highlight.
        let flipped = render(&view, &RenderOptions { flip: true, ..opts.clone() }).unwrap();
        let p = flipped
            .pixel((layout.x0 + layout.board_width() / 2.0) as u32, (layout.strip / 2.0) as u32)
            .unwrap();
        assert_eq!((p.red(), p.green(), p.blue()), (tm.0, tm.1, tm.2));
    }

    #[test]
    fn long_and_hostile_names_are_cut_to_their_strip() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
        let clocks = ["2d 4h", "1d"];
        let with = |names: [String; 2]| {
            let caption = Caption { names, clocks: clocks.map(|c| Some(c.to_string())), result: None };
            let opts = RenderOptions { caption: Some(caption), ..RenderOptions::default() };
            (render(&view, &opts).unwrap(), Layout::new(&view, &opts))
        };
        let (empty, layout) = with([String::new(), String::new()]);
        let (h, right) = (layout.strip, layout.x0 + layout.board_width());
        let long = "W".repeat(10_000);
        for names in [
            [long.clone(), long.clone()],
            ["\u{202e}evil\u{200b}```**x**\n\t".repeat(500), "李".repeat(5000)],
            ["😀".repeat(3000), "e\u{301}".repeat(5000)],
        ] {
            let (pm, _) = with(names);
            assert_eq!((pm.width(), pm.height()), (empty.width(), empty.height()));
            assert_ne!(pm.data(), empty.data(), "the names are written");
            // White (bold, to move) at the bottom, Black above: past the room for each name (its
            // clock, the margin) the picture is as with no names at all.
            for (color, y0) in [(Color::White, pm.height() as f32 - h), (Color::Black, 0.0)] {
                let style = if color == Color::White {
                    font::Style::bold(h * 0.5)
                } else {
                    font::Style::regular(h * 0.5)
                };
                let clock_w = font::Font::get().width(clocks[color.index()], style);
                let from = (right - h * 0.25 - clock_w - h * 0.125) as u32;
                for y in y0 as u32..(y0 + h) as u32 {
                    for x in from..pm.width() {
                        assert_eq!(pm.pixel(x, y), empty.pixel(x, y), "{color:?} at ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn a_finished_game_has_a_banner_and_no_mover() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
        let theme = ThemeName::default().theme();
        for (winner, fill) in [(Some(Color::Black), theme.banner_win), (None, theme.banner_draw)] {
            let opts = named(Some((winner, "Black wins by resignation".into())));
            let pm = render(&view, &opts).unwrap();
            let layout = Layout::new(&view, &opts);
            assert_eq!(layout.banner, layout.strip);
            let corner = pm.pixel(2, 2).unwrap();
            assert_eq!((corner.red(), corner.green(), corner.blue()), (fill.0, fill.1, fill.2));
            // The banner's words: many pixels of its text colour in its middle.
            let t = theme.banner_text;
            let mut text = 0;
            for y in 0..layout.banner as u32 {
                for x in 0..pm.width() {
                    let p = pm.pixel(x, y).unwrap();
                    text += usize::from((p.red(), p.green(), p.blue()) == (t.0, t.1, t.2));
                }
            }
            assert!(text > 100, "{text} pixels of text");
            // Neither strip is marked as the side to move.
            let tm = theme.to_move;
            for y in [layout.banner + layout.strip / 2.0, pm.height() as f32 - layout.strip / 2.0] {
                let p = pm.pixel((layout.x0 + layout.board_width() / 2.0) as u32, y as u32).unwrap();
                assert_ne!((p.red(), p.green(), p.blue()), (tm.0, tm.1, tm.2));
            }
        }
    }

    #[test]
    fn ownership_reads_at_256_px() {
        // Hans38's start: every square owned. At 256 px each square's frame is at least 2 px of
        // its owner's colour, on light and dark squares alike.
        let view = BoardView::new(&Position::start(Variant::HANS38), None);
        let opts = RenderOptions { size: 256, ..RenderOptions::default() };
        let theme = opts.theme.theme();
        let pm = render(&view, &opts).unwrap();
        let layout = Layout::new(&view, &opts);
        let q = layout.square;
        let mut checked = 0;
        for rank in 0..8u8 {
            for file in 0..8u8 {
                let Some(owner) = view.cell(file, rank).owner else { continue };
                let want = if owner == Color::White { theme.white_piece } else { theme.black_piece };
                let r = layout.block(file, rank, 1, 1);
                let y = (r.y() + q * 0.5) as u32;
                let solid = (r.x() as u32..(r.x() + q * 0.3) as u32)
                    .filter(|&x| {
                        let p = pm.pixel(x, y).unwrap();
                        [p.red().abs_diff(want.0), p.green().abs_diff(want.1), p.blue().abs_diff(want.2)]
                            .iter()
                            .all(|d| *d < 24)
                    })
                    .count();
                let row: Vec<_> = (r.x() as u32..(r.x() + q * 0.3) as u32)
                    .map(|x| pm.pixel(x, y).map(|p| (p.red(), p.green(), p.blue())))
                    .collect();
                assert!(
                    solid >= 2,
                    "{}{}: {solid} px of its owner's frame: {row:?}",
                    (b'a' + file) as char,
                    rank + 1
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 32);
    }

    #[test]
    fn every_picture_stays_under_30_kb_at_512_px() {
        // A walk of 60 turns chosen by a fixed pseudo-random sequence through each variant, every
        // position drawn as the bot posts it (names, clock, and the banner at the end).
        for &v in Variant::ALL {
            let mut pos = Position::start(v);
            let mut last: Option<(Position, tessera_rules::Move)> = None;
            let mut seed: u64 = 0x5eed ^ v.index() as u64;
            let mut largest = 0;
            for ply in 0..60 {
                let moves = pos.legal_moves();
                let finished = moves.is_empty() || ply == 59;
                let opts = named(finished.then(|| (Some(Color::White), "White wins on time".into())));
                let view = BoardView::new(&pos, last.as_ref().map(|(p, m)| (p, m)));
                let png = render_png(&view, &opts).unwrap();
                largest = largest.max(png.len());
                if finished {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let mv = moves[(seed >> 33) as usize % moves.len()];
                let next = pos.played(&mv);
                last = Some((std::mem::replace(&mut pos, next), mv));
            }
            assert!(largest < 30_000, "{v}: a picture of {largest} bytes");
        }
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
        let err = render(&view, &RenderOptions { size: 10, ..RenderOptions::default() }).unwrap_err();
        assert!(err.to_string().contains("64 to 2048"));
    }

    #[test]
    fn flipping_mirrors_the_board() {
        let view = BoardView::new(&Position::start(Variant::CHESS), None);
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
