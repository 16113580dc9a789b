//! Tournament pictures: a standings table (Swiss), a crosstable (round robin) and a bracket
//! (knockout), drawn with the board pictures' theme colours and stroke font.
//!
//! Like the board pictures these take plain data and give image bytes: the callers compute ranks,
//! points and tie-breaks; nothing here knows the pairing rules. Every picture is sized by its
//! content and capped: a standings table shows at most [`MAX_STANDINGS_ROWS`] rows at a time (page
//! with [`TableOptions::first_row`]), a crosstable at most [`MAX_CROSSTABLE_PLAYERS`] players, a
//! bracket at most [`MAX_BRACKET_PLAYERS`], and long names are cut short with "…". Characters the
//! font lacks (Chinese, Japanese, emoji, …) are drawn as empty boxes.

use tiny_skia::{FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::font::{Font, Style};
use crate::theme::{Rgba, Theme, ThemeName};
use crate::{RenderError, encode_png};

/// Most rows one standings picture shows.
pub const MAX_STANDINGS_ROWS: usize = 100;
/// Most players a crosstable holds (the Berger tables go to 16).
pub const MAX_CROSSTABLE_PLAYERS: usize = 16;
/// Most players a bracket holds (32 first-round matches).
pub const MAX_BRACKET_PLAYERS: usize = 64;
/// Most tie-break columns a table holds.
pub const MAX_TIE_BREAKS: usize = 8;
/// No picture is larger than this many pixels (the caps above keep every table well below it).
const MAX_PIXELS: usize = 1 << 25;
/// Smallest and largest text size, in pixels.
pub const MIN_TEXT_SIZE: u32 = 14;
pub const MAX_TEXT_SIZE: u32 = 40;

/// How tournament pictures are drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableOptions {
    pub theme: ThemeName,
    /// Height of the text in pixels: capital letters are nearly this tall, titles a third taller.
    /// Kept within [`MIN_TEXT_SIZE`]..=[`MAX_TEXT_SIZE`]; 20 reads well on a phone.
    pub text_size: u32,
    /// Standings only: the first row shown, counted from 0 (the leader), to page through a big Swiss.
    pub first_row: usize,
    /// Standings only: how many rows to show at most (kept within 1..=[`MAX_STANDINGS_ROWS`]); the rows
    /// below are summed up as "… and N more".
    pub max_rows: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { theme: ThemeName::default(), text_size: 20, first_row: 0, max_rows: 40 }
    }
}

/// The standings of a Swiss tournament, players in rank order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StandingsTable {
    /// The tournament's name.
    pub title: String,
    /// The variant's name, as players know it.
    pub variant: String,
    /// Rounds finished (0 before the first ends) and the rounds planned (0 when unknown).
    pub round: u32,
    pub rounds: u32,
    /// Short names of the tie-break columns in the order they count, e.g. `["BH-C1", "BH", "SB", "DE"]`.
    pub tie_breaks: Vec<String>,
    pub rows: Vec<StandingsRow>,
}

/// One player's line in a standings table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StandingsRow {
    /// The place shown (players tied on everything may share one).
    pub rank: u32,
    pub name: String,
    /// The player's rating, if any; provisional ratings are shown with a question mark (`1500?`).
    pub rating: Option<u32>,
    pub provisional: bool,
    /// Points: whole and half points are shown as `3½`.
    pub points: f64,
    /// One value per column of [`StandingsTable::tie_breaks`]; missing or non-finite values are blank.
    pub tie_breaks: Vec<f64>,
    /// Withdrawn players are greyed and marked.
    pub withdrawn: bool,
}

/// A round robin's crosstable: rows and columns are the players in rank order, numbered 1..N.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Crosstable {
    pub title: String,
    pub variant: String,
    /// Rounds finished and rounds in all (0 when unknown).
    pub round: u32,
    pub rounds: u32,
    /// A double round robin: every pair plays twice, and each cell holds both results.
    pub double: bool,
    /// Short names of the tie-break columns, e.g. `["SB", "DE", "Wins", "Koya"]`.
    pub tie_breaks: Vec<String>,
    pub players: Vec<CrosstablePlayer>,
}

/// One player's row of a crosstable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrosstablePlayer {
    pub name: String,
    pub rating: Option<u32>,
    pub provisional: bool,
    pub points: f64,
    /// One value per column of [`Crosstable::tie_breaks`]; missing or non-finite values are blank.
    pub tie_breaks: Vec<f64>,
    pub withdrawn: bool,
    /// `results[j]`: this player's games against the player of row `j`, in the order they are
    /// scheduled — one for a single round robin, two for a double (more are ignored). Missing
    /// entries are blank; the entry against the player themself is ignored (the diagonal is greyed).
    pub results: Vec<Vec<GameResult>>,
}

/// One game's result from a player's side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum GameResult {
    /// Not played yet: blank.
    #[default]
    Pending,
    Win,
    Draw,
    Loss,
    /// Won or lost by forfeit: `+` and `−`.
    ForfeitWin,
    ForfeitLoss,
}

impl GameResult {
    /// The sign in a crosstable cell: `1`, `½`, `0`, `+`, `−`, or nothing.
    pub fn sign(self) -> &'static str {
        match self {
            GameResult::Pending => "",
            GameResult::Win => "1",
            GameResult::Draw => "½",
            GameResult::Loss => "0",
            GameResult::ForfeitWin => "+",
            GameResult::ForfeitLoss => "−",
        }
    }
}

/// A knockout bracket.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bracket {
    pub title: String,
    pub variant: String,
    /// The rounds so far, first round first. The winners of round `r`'s matches `2i` and `2i + 1`
    /// meet in round `r + 1`'s match `i`. The picture always shows every round up to the final:
    /// rounds or matches not given yet are drawn empty; matches beyond those a round can have are
    /// left out.
    pub rounds: Vec<BracketRound>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BracketRound {
    /// The heading, e.g. "Quarter-finals"; when empty: "Final", "Semi-finals", "Quarter-finals",
    /// "Round of 16", … by the round's place in the bracket.
    pub name: String,
    pub matches: Vec<BracketMatch>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BracketMatch {
    pub top: BracketSlot,
    pub bottom: BracketSlot,
    /// Who went through; a player facing a bye goes through even when this is `None`.
    pub winner: Option<BracketSide>,
    /// The match score, e.g. `1½–½` after a replayed draw. When it has a dash the part before goes
    /// beside the top name and the part after beside the bottom one; otherwise it is written once.
    pub score: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum BracketSlot {
    /// Not known yet (the match feeding this place is not over): drawn empty.
    #[default]
    Pending,
    /// No opponent: the other player goes through.
    Bye,
    Player {
        seed: Option<u32>,
        name: String,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BracketSide {
    Top,
    Bottom,
}

/// Points as players write them: `3`, `3½`, `½`, `0`; anything finer (a Sonneborn-Berger of
/// 10.75) with up to two decimals; nothing for a non-finite number.
pub fn format_points(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let sign = if value < 0.0 { "−" } else { "" };
    let v = value.abs();
    let halves = (v * 2.0).round();
    if (v * 2.0 - halves).abs() < 1e-9 && halves < 1e15 {
        let whole = (halves / 2.0).floor() as u64;
        let half = halves as u64 % 2 == 1;
        return match (whole, half) {
            (0, true) => format!("{sign}½"),
            (0, false) => "0".to_string(),
            (w, true) => format!("{sign}{w}½"),
            (w, false) => format!("{sign}{w}"),
        };
    }
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "0" { "0".to_string() } else { format!("{sign}{text}") }
}

fn rating_text(rating: Option<u32>, provisional: bool) -> String {
    match rating {
        Some(r) if provisional => format!("{r}?"),
        Some(r) => r.to_string(),
        None => String::new(),
    }
}

/// "after round 3 of 7", or what there is of it.
fn progress(round: u32, rounds: u32) -> String {
    match (round, rounds) {
        (0, 0) => String::new(),
        (0, m) => format!("before round 1 of {m}"),
        (n, 0) => format!("after round {n}"),
        (n, m) => format!("after round {n} of {m}"),
    }
}

fn subtitle(parts: &[&str]) -> String {
    parts.iter().filter(|p| !p.trim().is_empty()).copied().collect::<Vec<_>>().join(" · ")
}

/// Colours of the tables, from a board theme.
#[derive(Debug)]
struct Palette {
    background: Rgba,
    text: Rgba,
    muted: Rgba,
    stripe: Rgba,
    rule: Rgba,
    header: Rgba,
    header_text: Rgba,
    highlight: Rgba,
    highlight_text: Rgba,
    diagonal: Rgba,
    line: Rgba,
}

fn mix(a: Rgba, b: Rgba, t: f32) -> Rgba {
    let m = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * t).round() as u8;
    Rgba::rgb(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

impl Palette {
    fn new(theme: &Theme) -> Palette {
        let (bg, text) = (theme.background, theme.coordinates);
        let dark_background = (bg.0 as u32 * 3 + bg.1 as u32 * 6 + bg.2 as u32) / 10 < 128;
        // The heading band and the winners in the board's own colours: light squares on a dark
        // frame, the dark edge and quad colour on a light one.
        let (header, header_text, highlight, highlight_text) = if dark_background {
            (theme.light, theme.black_piece, theme.light, theme.black_piece)
        } else {
            (theme.quad_edge, theme.white_piece, theme.quad, theme.black_piece)
        };
        Palette {
            background: bg,
            text,
            muted: mix(bg, text, 0.55),
            stripe: mix(bg, text, 0.07),
            rule: mix(bg, text, 0.2),
            header,
            header_text,
            highlight,
            highlight_text,
            diagonal: mix(bg, text, 0.3),
            line: mix(bg, theme.dark, 0.8),
        }
    }
}

fn paint(c: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c.0, c.1, c.2, c.3);
    p.anti_alias = true;
    p
}

fn fill(pm: &mut Pixmap, x: f32, y: f32, w: f32, h: f32, colour: Rgba) {
    if let Some(r) = Rect::from_xywh(x, y, w, h) {
        pm.fill_rect(r, &paint(colour), Transform::identity(), None);
    }
}

fn rounded(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.quad_to(x + w, y, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.quad_to(x + w, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.quad_to(x, y + h, x, y + h - r);
    pb.line_to(x, y + r);
    pb.quad_to(x, y, x + r, y);
    pb.close();
    pb.finish()
}

/// Sizes derived from the text size.
#[derive(Copy, Clone, Debug)]
struct Metrics {
    /// Text size (the font's design box), pixels.
    text: f32,
    row: f32,
    pad: f32,
    gap: f32,
    title: f32,
}

impl Metrics {
    fn new(opts: &TableOptions) -> Metrics {
        let t = opts.text_size.clamp(MIN_TEXT_SIZE, MAX_TEXT_SIZE) as f32;
        Metrics {
            text: t,
            row: (t * 1.55).round(),
            pad: (t * 0.8).round(),
            gap: (t * 0.9).round(),
            title: (t * 1.3).round(),
        }
    }

    /// The top of the text box that centres capitals and digits in a band from `top`, `height` tall.
    fn text_top(&self, top: f32, height: f32, size: f32) -> f32 {
        (top + height / 2.0 - size * 7.5 / 15.0).round()
    }
}

/// The title block: the name in large bold, then a muted line. Returns its height.
fn title_height(m: &Metrics) -> f32 {
    (m.pad + m.title * 1.45 + m.text * 1.6).round()
}

fn title_width(font: &Font, m: &Metrics, title: &str, sub: &str) -> f32 {
    font.width(title, Style::bold(m.title)).max(font.width(sub, Style::regular(m.text)))
}

fn draw_title(pm: &mut Pixmap, font: &Font, m: &Metrics, p: &Palette, title: &str, sub: &str, width: f32) {
    let max = width - 2.0 * m.pad;
    let title = font.fit(title, max, Style::bold(m.title));
    font.draw(pm, &title, m.pad, m.pad, Style::bold(m.title), p.text);
    let sub = font.fit(sub, max, Style::regular(m.text));
    font.draw(pm, &sub, m.pad, (m.pad + m.title * 1.45).round(), Style::regular(m.text), p.muted);
}

fn new_pixmap(width: f32, height: f32, p: &Palette) -> Result<Pixmap, RenderError> {
    let (w, h) = (width.ceil().max(1.0) as u32, height.ceil().max(1.0) as u32);
    let too_large = RenderError::TooLarge { what: "pixels", count: w as usize * h as usize, max: MAX_PIXELS };
    if w as usize * h as usize > MAX_PIXELS {
        return Err(too_large);
    }
    let mut pm = Pixmap::new(w, h).ok_or(too_large)?;
    let bg = p.background;
    pm.fill(tiny_skia::Color::from_rgba8(bg.0, bg.1, bg.2, 255));
    Ok(pm)
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Align {
    Left,
    Right,
    Centre,
}

/// A column of a table: its heading, how its cells sit, its widest allowed width.
#[derive(Debug)]
struct Column {
    header: String,
    align: Align,
    bold: bool,
    min: f32,
    max: f32,
    /// Worked out from the cells.
    width: f32,
    /// Result columns of a crosstable: each cell split into this many equal slots.
    slots: usize,
}

impl Column {
    fn new(header: &str, align: Align, max: f32) -> Column {
        Column { header: header.to_string(), align, bold: false, min: 0.0, max, width: 0.0, slots: 1 }
    }
}

/// One row of a table: a text per column (slots of a result cell separated by '\t'), the note
/// after the name, whether the row is greyed, and cells to shade as the diagonal.
#[derive(Debug, Default)]
struct Row {
    cells: Vec<String>,
    note: Option<(usize, String)>,
    muted: bool,
    diagonal: Option<usize>,
}

/// A table under a title: heading band, rows with alternate shading, then muted footer lines.
#[derive(Debug)]
struct Grid {
    title: String,
    sub: String,
    columns: Vec<Column>,
    rows: Vec<Row>,
    footer: Vec<String>,
    /// Hairlines between the columns of this range, and after its last (crosstable results).
    rules: Option<std::ops::Range<usize>>,
}

impl Grid {
    fn draw(mut self, opts: &TableOptions) -> Result<Pixmap, RenderError> {
        let font = Font::get();
        let m = Metrics::new(opts);
        let theme = opts.theme.theme();
        let p = Palette::new(&theme);
        let body = Style::regular(m.text);
        let head = Style::bold(m.text);
        let note_style = Style::regular((m.text * 0.8).round());
        // Column widths: the widest heading or cell, within the column's cap.
        for (i, col) in self.columns.iter_mut().enumerate() {
            let mut w = font.width(&col.header, head);
            for row in &self.rows {
                let text = row.cells.get(i).map_or("", String::as_str);
                let style = if col.bold { head } else { body };
                let mut cw = if col.slots > 1 {
                    text.split('\t').map(|s| font.width(s, style)).fold(0.0, f32::max) * col.slots as f32
                        + m.gap * 0.5 * (col.slots - 1) as f32
                } else {
                    font.width(text, style)
                };
                if let Some((c, note)) = &row.note
                    && *c == i
                {
                    cw += font.width(" ", body) + font.width(note, note_style);
                }
                w = w.max(cw);
            }
            col.width = w.min(col.max).max(col.min).ceil();
        }
        let table_w: f32 = self.columns.iter().map(|c| c.width + m.gap).sum::<f32>() + m.gap;
        let footer_w = self.footer.iter().map(|f| font.width(f, body)).fold(0.0, f32::max) + m.gap;
        let heading_w = title_width(font, &m, &self.title, &self.sub);
        let width = (table_w.max(footer_w).max(heading_w.min(m.text * 36.0)) + 2.0 * m.pad).ceil();
        let top = title_height(&m);
        let rows_h = m.row * (self.rows.len() + 1) as f32;
        let height = top + rows_h + m.row * self.footer.len() as f32 + m.pad;
        let mut pm = new_pixmap(width, height, &p)?;
        draw_title(&mut pm, font, &m, &p, &self.title, &self.sub, width);

        // x of each column's left edge (cells are padded by half a gap each side).
        let x0 = m.pad;
        let mut xs = Vec::with_capacity(self.columns.len());
        let mut x = x0 + m.gap;
        for c in &self.columns {
            xs.push(x);
            x += c.width + m.gap;
        }
        let table_right = x;

        // Heading band.
        fill(&mut pm, x0, top, table_right - x0, m.row, p.header);
        let ty = m.text_top(top, m.row, m.text);
        for (c, &x) in self.columns.iter().zip(&xs) {
            let text = font.fit(&c.header, c.width, head);
            let w = font.width(&text, head);
            font.draw(&mut pm, &text, aligned(c.align, x, c.width, w), ty, head, p.header_text);
        }
        // Rows.
        for (r, row) in self.rows.iter().enumerate() {
            let y = top + m.row * (r + 1) as f32;
            if r % 2 == 1 {
                fill(&mut pm, x0, y, table_right - x0, m.row, p.stripe);
            }
            if let Some(d) = row.diagonal
                && let Some(&dx) = xs.get(d)
            {
                fill(&mut pm, dx - m.gap / 2.0, y, self.columns[d].width + m.gap, m.row, p.diagonal);
            }
            let ty = m.text_top(y, m.row, m.text);
            let colour = if row.muted { p.muted } else { p.text };
            for (i, (c, &x)) in self.columns.iter().zip(&xs).enumerate() {
                let Some(text) = row.cells.get(i) else { continue };
                let style = if c.bold && !row.muted { head } else { body };
                if c.slots > 1 {
                    let slot_w = (c.width - m.gap * 0.5 * (c.slots - 1) as f32) / c.slots as f32;
                    for (s, part) in text.split('\t').take(c.slots).enumerate() {
                        let sx = x + s as f32 * (slot_w + m.gap * 0.5);
                        let w = font.width(part, style);
                        font.draw(&mut pm, part, aligned(Align::Centre, sx, slot_w, w), ty, style, colour);
                    }
                    continue;
                }
                match &row.note {
                    Some((n, note)) if *n == i => {
                        let nw = font.width(" ", body) + font.width(note, note_style);
                        let text = font.fit(text, (c.width - nw).max(0.0), style);
                        font.draw(&mut pm, &text, x, ty, style, colour);
                        let nx = x + font.width(&text, style) + font.width(" ", body);
                        let ny = m.text_top(y, m.row, note_style.size);
                        font.draw(&mut pm, note, nx, ny, note_style, p.muted);
                    }
                    _ => {
                        let text = font.fit(text, c.width, style);
                        let w = font.width(&text, style);
                        font.draw(&mut pm, &text, aligned(c.align, x, c.width, w), ty, style, colour);
                    }
                }
            }
        }
        // Hairlines between result columns, and the table's bottom edge.
        let body_top = top + m.row;
        let body_bottom = top + rows_h;
        if let Some(range) = &self.rules {
            for i in range.start..=range.end.min(xs.len()) {
                let x = if i < xs.len() { xs[i] - m.gap / 2.0 } else { table_right - m.gap / 2.0 };
                fill(&mut pm, x.round(), body_top, 1.0, body_bottom - body_top, p.rule);
            }
        }
        fill(&mut pm, x0, body_bottom, table_right - x0, 1.0, p.rule);
        for (i, line) in self.footer.iter().enumerate() {
            let y = body_bottom + m.row * i as f32;
            let text = font.fit(line, width - 2.0 * m.pad - m.gap, body);
            font.draw(&mut pm, &text, x0 + m.gap, m.text_top(y, m.row, m.text), body, p.muted);
        }
        Ok(pm)
    }
}

fn aligned(align: Align, x: f32, width: f32, text: f32) -> f32 {
    match align {
        Align::Left => x,
        Align::Right => x + width - text,
        Align::Centre => x + ((width - text) / 2.0).round(),
    }
}

fn check_tie_breaks(names: &[String]) -> Result<(), RenderError> {
    if names.len() > MAX_TIE_BREAKS {
        return Err(RenderError::TooLarge {
            what: "tie-break columns",
            count: names.len(),
            max: MAX_TIE_BREAKS,
        });
    }
    Ok(())
}

/// Draws a Swiss standings table: the title, then Rank, Player, Rating, Pts and the tie-breaks, one
/// row per player from `opts.first_row`, at most `opts.max_rows` of them.
pub fn render_standings(table: &StandingsTable, opts: &TableOptions) -> Result<Pixmap, RenderError> {
    check_tie_breaks(&table.tie_breaks)?;
    let t = Metrics::new(opts).text;
    let total = table.rows.len();
    let first = opts.first_row.min(total);
    let shown = opts.max_rows.clamp(1, MAX_STANDINGS_ROWS);
    let last = first.saturating_add(shown).min(total);
    let any_rating = table.rows.iter().any(|r| r.rating.is_some());

    let mut columns =
        vec![Column::new("Rank", Align::Right, t * 3.5), Column::new("Player", Align::Left, t * 14.0)];
    if any_rating {
        columns.push(Column::new("Rating", Align::Right, t * 4.0));
    }
    columns.push(Column { bold: true, ..Column::new("Pts", Align::Right, t * 4.0) });
    for tb in &table.tie_breaks {
        columns.push(Column::new(tb, Align::Right, t * 4.0));
    }
    let rows = table.rows[first..last]
        .iter()
        .map(|r| {
            let mut cells = vec![r.rank.to_string(), r.name.clone()];
            if any_rating {
                cells.push(rating_text(r.rating, r.provisional));
            }
            cells.push(format_points(r.points));
            for i in 0..table.tie_breaks.len() {
                cells.push(r.tie_breaks.get(i).map_or(String::new(), |&v| format_points(v)));
            }
            Row {
                cells,
                note: r.withdrawn.then(|| (1, "withdrawn".to_string())),
                muted: r.withdrawn,
                diagonal: None,
            }
        })
        .collect();
    let mut footer = Vec::new();
    if total == 0 {
        footer.push("no players yet".to_string());
    } else if last < total {
        footer.push(format!("… and {} more", total - last));
    }
    let places = if first > 0 || last < total {
        format!("places {}–{} of {total}", first + 1, last)
    } else {
        String::new()
    };
    Grid {
        title: table.title.clone(),
        sub: subtitle(&[&table.variant, &progress(table.round, table.rounds), &places]),
        columns,
        rows,
        footer,
        rules: None,
    }
    .draw(opts)
}

/// [`render_standings`], as PNG.
pub fn render_standings_png(table: &StandingsTable, opts: &TableOptions) -> Result<Vec<u8>, RenderError> {
    encode_png(&render_standings(table, opts)?)
}

/// Draws a round robin's crosstable: #, Player, Rating, a result column per player (the diagonal
/// greyed), Pts and the tie-breaks.
pub fn render_crosstable(table: &Crosstable, opts: &TableOptions) -> Result<Pixmap, RenderError> {
    check_tie_breaks(&table.tie_breaks)?;
    let n = table.players.len();
    if n > MAX_CROSSTABLE_PLAYERS {
        return Err(RenderError::TooLarge {
            what: "crosstable players",
            count: n,
            max: MAX_CROSSTABLE_PLAYERS,
        });
    }
    let m = Metrics::new(opts);
    let t = m.text;
    let any_rating = table.players.iter().any(|p| p.rating.is_some());
    let games = if table.double { 2 } else { 1 };

    let mut columns =
        vec![Column::new("#", Align::Right, t * 2.0), Column::new("Player", Align::Left, t * 11.0)];
    if any_rating {
        columns.push(Column::new("Rating", Align::Right, t * 4.0));
    }
    let first_result = columns.len();
    // Every result column is as wide as the widest cell could be, and at least square.
    let font = Font::get();
    let cell = (font.width("½", Style::regular(t)) * games as f32 + m.gap * 0.5 * (games - 1) as f32)
        .max(font.width(&n.to_string(), Style::bold(t)))
        .max(m.row - m.gap)
        .ceil();
    for j in 0..n {
        let header = (j + 1).to_string();
        columns.push(Column { slots: games, min: cell, ..Column::new(&header, Align::Centre, cell) });
    }
    columns.push(Column { bold: true, ..Column::new("Pts", Align::Right, t * 4.0) });
    for tb in &table.tie_breaks {
        columns.push(Column::new(tb, Align::Right, t * 4.0));
    }
    let mut forfeits = false;
    let rows = table
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut cells = vec![(i + 1).to_string(), p.name.clone()];
            if any_rating {
                cells.push(rating_text(p.rating, p.provisional));
            }
            for j in 0..n {
                let results = if i == j { &[][..] } else { p.results.get(j).map_or(&[][..], Vec::as_slice) };
                forfeits |=
                    results.iter().any(|r| matches!(r, GameResult::ForfeitWin | GameResult::ForfeitLoss));
                let signs: Vec<&str> = (0..games).map(|g| results.get(g).map_or("", |r| r.sign())).collect();
                cells.push(signs.join("\t"));
            }
            cells.push(format_points(p.points));
            for k in 0..table.tie_breaks.len() {
                cells.push(p.tie_breaks.get(k).map_or(String::new(), |&v| format_points(v)));
            }
            Row {
                cells,
                note: p.withdrawn.then(|| (1, "withdrawn".to_string())),
                muted: p.withdrawn,
                diagonal: Some(first_result + i),
            }
        })
        .collect();
    let mut footer = Vec::new();
    if n == 0 {
        footer.push("no players yet".to_string());
    }
    if forfeits {
        footer.push("+ won by forfeit · − lost by forfeit".to_string());
    }
    let kind = if table.double { "double round robin" } else { "round robin" };
    Grid {
        title: table.title.clone(),
        sub: subtitle(&[&table.variant, kind, &progress(table.round, table.rounds)]),
        columns,
        rows,
        footer,
        rules: (n > 0).then_some(first_result..first_result + n),
    }
    .draw(opts)
}

/// [`render_crosstable`], as PNG.
pub fn render_crosstable_png(table: &Crosstable, opts: &TableOptions) -> Result<Vec<u8>, RenderError> {
    encode_png(&render_crosstable(table, opts)?)
}

/// The name of a round `left` rounds from the end (0 = the final) with `matches` matches.
fn round_name(left: usize, matches: usize) -> String {
    match left {
        0 => "Final".to_string(),
        1 => "Semi-finals".to_string(),
        2 => "Quarter-finals".to_string(),
        _ => format!("Round of {}", matches * 2),
    }
}

/// Who goes through: the declared winner, or a player facing a bye.
fn advancing(m: &BracketMatch) -> Option<BracketSide> {
    m.winner.or(match (&m.top, &m.bottom) {
        (BracketSlot::Player { .. }, BracketSlot::Bye) => Some(BracketSide::Top),
        (BracketSlot::Bye, BracketSlot::Player { .. }) => Some(BracketSide::Bottom),
        _ => None,
    })
}

/// Every match of every round, as given, with the places still pending filled by whoever went
/// through the match feeding them.
fn fill_in(bracket: &Bracket, counts: &[usize]) -> Vec<Vec<BracketMatch>> {
    let mut grid: Vec<Vec<BracketMatch>> = Vec::with_capacity(counts.len());
    for (r, &n) in counts.iter().enumerate() {
        let given = bracket.rounds.get(r).map_or(&[][..], |round| round.matches.as_slice());
        let mut matches: Vec<BracketMatch> =
            (0..n).map(|i| given.get(i).cloned().unwrap_or_default()).collect();
        if let Some(prev) = grid.last() {
            let through = |k: usize| {
                let m: &BracketMatch = prev.get(k)?;
                match advancing(m)? {
                    BracketSide::Top => Some(m.top.clone()),
                    BracketSide::Bottom => Some(m.bottom.clone()),
                }
            };
            for (i, m) in matches.iter_mut().enumerate() {
                if m.top == BracketSlot::Pending
                    && let Some(slot) = through(2 * i)
                {
                    m.top = slot;
                }
                if m.bottom == BracketSlot::Pending
                    && let Some(slot) = through(2 * i + 1)
                {
                    m.bottom = slot;
                }
            }
        }
        grid.push(matches);
    }
    grid
}

/// Splits a match score at its dash: the top player's part and the bottom's.
fn split_score(score: &str) -> Option<(&str, &str)> {
    let score = score.trim();
    let (i, dash) = score.char_indices().skip(1).find(|(_, c)| matches!(c, '–' | '-' | '—' | ':'))?;
    Some((score[..i].trim(), score[i + dash.len_utf8()..].trim()))
}

/// Draws a knockout bracket: a column per round, a box per match with both players (seed, name,
/// score), the one who went through highlighted, lines joining each match to the next round's,
/// and the winner after the final.
pub fn render_bracket(bracket: &Bracket, opts: &TableOptions) -> Result<Pixmap, RenderError> {
    let font = Font::get();
    let m = Metrics::new(opts);
    let p = Palette::new(&opts.theme.theme());
    let t = m.text;
    let first = bracket.rounds.first().map_or(0, |r| r.matches.len());
    if first * 2 > MAX_BRACKET_PLAYERS {
        return Err(RenderError::TooLarge {
            what: "bracket players",
            count: first * 2,
            max: MAX_BRACKET_PLAYERS,
        });
    }
    // Matches per round down to the final.
    let mut counts = vec![first.max(1)];
    while *counts.last().expect("one round") > 1 {
        let prev = *counts.last().expect("one round");
        counts.push(prev.div_ceil(2));
    }
    let rounds = counts.len();
    let grid = fill_in(bracket, &counts);
    let get = |r: usize, i: usize| grid.get(r).and_then(|round| round.get(i));

    let body = Style::regular(t);
    let bold = Style::bold(t);
    let small = Style::regular((t * 0.8).round());
    let all_matches = || (0..rounds).flat_map(|r| (0..counts[r]).filter_map(move |i| get(r, i)));
    let slots = || all_matches().flat_map(|mt| [&mt.top, &mt.bottom]);
    let seed_w = slots()
        .filter_map(|s| match s {
            BracketSlot::Player { seed: Some(n), .. } => Some(font.width(&n.to_string(), small)),
            _ => None,
        })
        .fold(0.0, f32::max)
        .min(font.width("9999", small));
    let name_w = slots()
        .map(|s| match s {
            BracketSlot::Player { name, .. } => font.width(name, bold),
            _ => 0.0,
        })
        .fold(t * 6.0, f32::max)
        .min(t * 10.0);
    let score_w = all_matches()
        .map(|mt| match split_score(&mt.score) {
            Some((a, b)) => font.width(a, body).max(font.width(b, body)),
            None => font.width(mt.score.trim(), body),
        })
        .fold(0.0, f32::max)
        .min(t * 5.0);
    let inner = (t * 0.45).round();
    let seed_col = if seed_w > 0.0 { seed_w + inner } else { 0.0 };
    let score_col = if score_w > 0.0 { score_w + 2.0 * inner } else { 0.0 };
    let box_w = (inner + seed_col + name_w + score_col + inner).ceil();
    let row_h = (t * 1.45).round();
    let box_h = 2.0 * row_h;
    let vgap = (t * 0.8).round();
    let col_gap = (t * 2.0).round();
    let champion = get(rounds - 1, 0).and_then(|f| {
        let side = advancing(f)?;
        match if side == BracketSide::Top { &f.top } else { &f.bottom } {
            BracketSlot::Player { name, .. } => Some(name.clone()),
            _ => None,
        }
    });

    let columns = rounds + usize::from(champion.is_some());
    let top = title_height(&m);
    let heads = top + m.row;
    let heading_w = title_width(font, &m, &bracket.title, &bracket.variant).min(t * 36.0);
    let grid_w = columns as f32 * (box_w + col_gap) - col_gap;
    let width = (grid_w.max(heading_w) + 2.0 * m.pad).ceil();
    let height = (heads + counts[0] as f32 * (box_h + vgap) - vgap + m.pad).ceil();
    let mut pm = new_pixmap(width, height, &p)?;
    let sub = subtitle(&[&bracket.variant, "knockout"]);
    draw_title(&mut pm, font, &m, &p, &bracket.title, &sub, width);

    // Box centres, round by round.
    let mut centres: Vec<Vec<f32>> =
        vec![(0..counts[0]).map(|i| heads + i as f32 * (box_h + vgap) + box_h / 2.0).collect()];
    for r in 1..rounds {
        let prev = &centres[r - 1];
        let ys = (0..counts[r])
            .map(|i| {
                let a = prev[2 * i];
                let b = prev.get(2 * i + 1).copied().unwrap_or(a);
                ((a + b) / 2.0).round()
            })
            .collect();
        centres.push(ys);
    }
    let col_x = |r: usize| m.pad + r as f32 * (box_w + col_gap);
    let line_w = (t * 0.1).max(1.5);
    let stroke =
        Stroke { width: line_w, line_cap: LineCap::Butt, line_join: LineJoin::Miter, ..Stroke::default() };

    // Headings.
    let headings = counts.iter().enumerate().map(|(r, &n)| {
        match bracket.rounds.get(r).map(|x| x.name.trim()).filter(|n| !n.is_empty()) {
            Some(name) => name.to_string(),
            None => round_name(rounds - 1 - r, n),
        }
    });
    let headings: Vec<String> = headings.chain(champion.as_ref().map(|_| "Winner".to_string())).collect();
    for (r, name) in headings.iter().enumerate() {
        let name = font.fit(name, box_w, bold);
        let w = font.width(&name, bold);
        font.draw(&mut pm, &name, col_x(r) + (box_w - w) / 2.0, m.text_top(top, m.row, t), bold, p.muted);
    }
    // Lines from each match to the next round's (and from the final to the winner).
    for (r, column) in centres.iter().enumerate() {
        for (i, &y) in column.iter().enumerate() {
            let (next_x, next_y) = if r + 1 < rounds {
                (col_x(r + 1), centres[r + 1][i / 2])
            } else if champion.is_some() {
                (col_x(r + 1), y)
            } else {
                continue;
            };
            let from = col_x(r) + box_w;
            let mid = (from + col_gap / 2.0).round();
            let mut pb = PathBuilder::new();
            pb.move_to(from, y);
            pb.line_to(mid, y);
            pb.line_to(mid, next_y);
            pb.line_to(next_x, next_y);
            let went_through = get(r, i).and_then(advancing).is_some();
            let colour = if went_through { p.line } else { p.rule };
            if let Some(path) = pb.finish() {
                pm.stroke_path(&path, &paint(colour), &stroke, Transform::identity(), None);
            }
        }
    }
    // Boxes.
    let radius = (t * 0.25).round();
    for (r, column) in centres.iter().enumerate() {
        for (i, &cy) in column.iter().enumerate() {
            let Some(mt) = get(r, i) else { continue };
            let (x, y) = (col_x(r), cy - box_h / 2.0);
            let outline = rounded(x, y, box_w, box_h, radius);
            if let Some(path) = &outline {
                pm.fill_path(path, &paint(p.stripe), FillRule::Winding, Transform::identity(), None);
            }
            let through = advancing(mt);
            let score = split_score(&mt.score);
            for (k, (slot, side)) in
                [(&mt.top, BracketSide::Top), (&mt.bottom, BracketSide::Bottom)].into_iter().enumerate()
            {
                let ry = y + k as f32 * row_h;
                let won = through == Some(side);
                let lost = through.is_some() && !won;
                if won {
                    let band = if k == 0 {
                        rounded(x, ry, box_w, row_h + radius, radius)
                    } else {
                        rounded(x, ry - radius, box_w, row_h + radius, radius)
                    };
                    let clip = Rect::from_xywh(x, ry, box_w, row_h);
                    if let (Some(band), Some(clip)) = (band, clip) {
                        let mut mask = tiny_skia::Mask::new(pm.width(), pm.height());
                        if let Some(mask) = mask.as_mut() {
                            mask.fill_path(
                                &PathBuilder::from_rect(clip),
                                FillRule::Winding,
                                false,
                                Transform::identity(),
                            );
                        }
                        pm.fill_path(
                            &band,
                            &paint(p.highlight),
                            FillRule::Winding,
                            Transform::identity(),
                            mask.as_ref(),
                        );
                    }
                }
                let colour = if won {
                    p.highlight_text
                } else if lost {
                    p.muted
                } else {
                    p.text
                };
                let ty = m.text_top(ry, row_h, t);
                let mut nx = x + inner;
                match slot {
                    BracketSlot::Player { seed, name } => {
                        if let Some(seed) = seed {
                            let s = font.fit(&seed.to_string(), seed_w, small);
                            let sw = font.width(&s, small);
                            let sy = m.text_top(ry, row_h, small.size);
                            font.draw(
                                &mut pm,
                                &s,
                                nx + seed_w - sw,
                                sy,
                                small,
                                if won { colour } else { p.muted },
                            );
                        }
                        nx += seed_col;
                        let style = if won { bold } else { body };
                        let name = font.fit(name, name_w, style);
                        font.draw(&mut pm, &name, nx, ty, style, colour);
                    }
                    BracketSlot::Bye => {
                        font.draw(&mut pm, "bye", nx + seed_col, ty, body, p.muted);
                    }
                    BracketSlot::Pending => {}
                }
                if let Some((a, b)) = score {
                    let part = font.fit(if k == 0 { a } else { b }, score_w, body);
                    let w = font.width(&part, body);
                    font.draw(&mut pm, &part, x + box_w - inner - w, ty, body, colour);
                }
            }
            if score.is_none() && !mt.score.trim().is_empty() {
                // A score that cannot be split goes beside whoever went through (or the top name).
                let (row, colour) = match through {
                    Some(BracketSide::Bottom) => (1.0, p.highlight_text),
                    Some(BracketSide::Top) => (0.0, p.highlight_text),
                    None => (0.0, p.text),
                };
                let s = font.fit(mt.score.trim(), score_w, body);
                let w = font.width(&s, body);
                let ty = m.text_top(y + row * row_h, row_h, t);
                font.draw(&mut pm, &s, x + box_w - inner - w, ty, body, colour);
            }
            fill(&mut pm, x + 1.0, (y + row_h).round(), box_w - 2.0, 1.0, p.rule);
            if let Some(path) = &outline {
                let edge = Stroke { width: 1.0, ..Stroke::default() };
                pm.stroke_path(path, &paint(p.rule), &edge, Transform::identity(), None);
            }
        }
    }
    if let Some(name) = champion {
        let x = col_x(rounds);
        let cy = centres[rounds - 1][0];
        let (y, h) = (cy - row_h / 2.0, row_h);
        if let Some(path) = rounded(x, y, box_w, h, radius) {
            pm.fill_path(&path, &paint(p.highlight), FillRule::Winding, Transform::identity(), None);
        }
        let name = font.fit(&name, box_w - 2.0 * inner, bold);
        font.draw(&mut pm, &name, x + inner, m.text_top(y, h, t), bold, p.highlight_text);
    }
    Ok(pm)
}

/// [`render_bracket`], as PNG.
pub fn render_bracket_png(bracket: &Bracket, opts: &TableOptions) -> Result<Vec<u8>, RenderError> {
    encode_png(&render_bracket(bracket, opts)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swiss(players: usize) -> StandingsTable {
        let names = ["Alice Carroll", "Bob", "Dvořák", "李小龙", "Zoë Ångström-Łukasiewicz", "Carol"];
        StandingsTable {
            title: "Tessera Spring Swiss".to_string(),
            variant: "Hans 38".to_string(),
            round: 5,
            rounds: 7,
            tie_breaks: ["BH-C1", "BH", "SB", "DE"].map(String::from).to_vec(),
            rows: (0..players)
                .map(|i| StandingsRow {
                    rank: i as u32 + 1,
                    name: format!("{} {}", names[i % names.len()], i + 1),
                    rating: (i % 7 != 3).then_some(2400u32.saturating_sub(i as u32)),
                    provisional: i % 5 == 2,
                    points: (5.0 - i as f64 * 0.5).max(0.0),
                    tie_breaks: vec![12.5 - i as f64 * 0.5, 14.0, 10.75, if i < 2 { 1.0 } else { 0.0 }],
                    withdrawn: i == 4,
                })
                .collect(),
        }
    }

    fn round_robin(players: usize, double: bool) -> Crosstable {
        let result = |i: usize, j: usize, g: usize| match (i + j + g) % 5 {
            _ if i == 1 && j == 3 => GameResult::ForfeitWin,
            _ if i == 3 && j == 1 => GameResult::ForfeitLoss,
            0 | 3 => {
                if i < j {
                    GameResult::Win
                } else {
                    GameResult::Loss
                }
            }
            1 => GameResult::Draw,
            2 => {
                if i < j {
                    GameResult::Loss
                } else {
                    GameResult::Win
                }
            }
            _ => GameResult::Pending,
        };
        Crosstable {
            title: "Club Championship".to_string(),
            variant: "Chess".to_string(),
            round: 3,
            rounds: if double { 2 * (players as u32 - 1) } else { players as u32 - 1 },
            double,
            tie_breaks: ["SB", "DE", "Wins", "Koya"].map(String::from).to_vec(),
            players: (0..players)
                .map(|i| CrosstablePlayer {
                    name: ["Magnus", "Hikaru", "Dvořák", "Ju Wenjun 居文君", "Alireza"][i % 5].to_string(),
                    rating: Some(2800 - 20 * i as u32),
                    provisional: i == 2,
                    points: 6.5 - i as f64 * 0.5,
                    tie_breaks: vec![20.25 - i as f64, 1.0, 4.0, 2.5],
                    withdrawn: i + 1 == players && players > 3,
                    results: (0..players)
                        .map(|j| (0..if double { 2 } else { 1 }).map(|g| result(i, j, g)).collect())
                        .collect(),
                })
                .collect(),
        }
    }

    fn knockout(players: usize, played_rounds: usize) -> Bracket {
        let size = players.next_power_of_two().max(2);
        let seeds: Vec<Option<usize>> = {
            // Standard seeding: 1 v size, 2 v size-1, ... nested; good enough for pictures.
            let mut order = vec![1usize];
            while order.len() < size {
                let n = order.len() * 2;
                order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
            }
            order.into_iter().map(|s| (s <= players).then_some(s)).collect()
        };
        let name =
            |s: usize| format!("{} {}", ["Anand", "Kramnik", "Topalov", "Ding Liren", "Nepo"][s % 5], s);
        let mut rounds = Vec::new();
        let mut slots: Vec<BracketSlot> = seeds
            .iter()
            .map(|s| match s {
                Some(s) => BracketSlot::Player { seed: Some(*s as u32), name: name(*s) },
                None => BracketSlot::Bye,
            })
            .collect();
        for r in 0..played_rounds.min(size.trailing_zeros() as usize) {
            let mut matches = Vec::new();
            let mut next = Vec::new();
            for pair in slots.chunks(2) {
                let seed = |s: &BracketSlot| match s {
                    BracketSlot::Player { seed, .. } => seed.unwrap_or(999),
                    _ => 999,
                };
                let winner =
                    if seed(&pair[0]) <= seed(&pair[1]) { BracketSide::Top } else { BracketSide::Bottom };
                let bye = matches!(pair[1], BracketSlot::Bye);
                matches.push(BracketMatch {
                    top: pair[0].clone(),
                    bottom: pair[1].clone(),
                    winner: (!bye).then_some(winner),
                    score: if bye {
                        String::new()
                    } else if r % 2 == 0 {
                        "1½–½".to_string()
                    } else {
                        "1–0".to_string()
                    },
                });
                next.push(if winner == BracketSide::Top { pair[0].clone() } else { pair[1].clone() });
            }
            rounds.push(BracketRound { name: String::new(), matches });
            slots = next;
        }
        if played_rounds < size.trailing_zeros() as usize {
            let matches = slots
                .chunks(2)
                .map(|p| BracketMatch { top: p[0].clone(), bottom: p[1].clone(), ..BracketMatch::default() })
                .collect();
            rounds.push(BracketRound { name: String::new(), matches });
        }
        Bracket { title: "Blitz Knockout".to_string(), variant: "Shrink".to_string(), rounds }
    }

    fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
        // Pictures are palette PNGs: read them as the RGB they stand for.
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        assert_eq!(info.color_type, png::ColorType::Rgb, "expanded from the palette");
        (info.width, info.height, buf)
    }

    fn pixel(pm: &Pixmap, x: f32, y: f32) -> Rgba {
        let p = pm.pixel(x as u32, y as u32).unwrap();
        Rgba::rgb(p.red(), p.green(), p.blue())
    }

    /// The height a table of `rows` rows and `footer` footer lines must have.
    fn table_height(opts: &TableOptions, rows: usize, footer: usize) -> u32 {
        let m = Metrics::new(opts);
        (title_height(&m) + m.row * (rows + 1) as f32 + m.row * footer as f32 + m.pad).ceil() as u32
    }

    /// `TESSERA_TABLE_SAMPLES=DIR cargo test -p tessera-render tables` writes the sample pictures.
    fn keep(name: &str, png: &[u8]) {
        if let Some(dir) = std::env::var_os("TESSERA_TABLE_SAMPLES") {
            std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), png).unwrap();
        }
    }

    #[test]
    fn points_are_written_with_halves() {
        assert_eq!(format_points(3.5), "3½");
        assert_eq!(format_points(0.5), "½");
        assert_eq!(format_points(0.0), "0");
        assert_eq!(format_points(-0.0), "0");
        assert_eq!(format_points(12.0), "12");
        assert_eq!(format_points(-1.5), "−1½");
        assert_eq!(format_points(10.75), "10.75");
        assert_eq!(format_points(1.0 / 3.0), "0.33");
        assert_eq!(format_points(f64::NAN), "");
        assert_eq!(format_points(f64::INFINITY), "");
        assert!(!format_points(1e300).is_empty());
    }

    #[test]
    fn standings_are_sized_by_their_rows() {
        let opts = TableOptions::default();
        for n in [1, 3, 12] {
            let png = render_standings_png(&swiss(n), &opts).unwrap();
            let (w, h, _) = decode(&png);
            assert_eq!(h, table_height(&opts, n, 0), "{n} players");
            assert!((500..1000).contains(&w), "{n} players: {w} px wide");
            keep(&format!("standings-{n}"), &png);
        }
        let slate = TableOptions { theme: ThemeName::Slate, ..opts.clone() };
        keep("standings-slate", &render_standings_png(&swiss(8), &slate).unwrap());
    }

    #[test]
    fn a_big_swiss_is_shown_a_page_at_a_time() {
        let big = swiss(4000);
        let opts = TableOptions::default();
        let (w, h, _) = decode(&render_standings_png(&big, &opts).unwrap());
        assert_eq!(h, table_height(&opts, opts.max_rows, 1), "40 rows and '… and 3960 more'");
        assert!(w < 1000);
        // Asking for more than the cap gets the cap.
        let all = TableOptions { max_rows: usize::MAX, ..opts.clone() };
        let (_, h, _) = decode(&render_standings_png(&big, &all).unwrap());
        assert_eq!(h, table_height(&all, MAX_STANDINGS_ROWS, 1));
        // The last page has no "more" line; a page past the end is an empty table.
        let last = TableOptions { first_row: 3990, ..opts.clone() };
        let png = render_standings_png(&big, &last).unwrap();
        assert_eq!(decode(&png).1, table_height(&last, 10, 0));
        keep("standings-4000-last-page", &png);
        let past = TableOptions { first_row: usize::MAX, max_rows: 0, ..opts.clone() };
        assert_eq!(decode(&render_standings_png(&big, &past).unwrap()).1, table_height(&past, 0, 0));
        keep("standings-4000", &render_standings_png(&big, &TableOptions { first_row: 40, ..opts }).unwrap());
    }

    #[test]
    fn crosstables_are_sized_by_their_players() {
        let opts = TableOptions::default();
        let mut widths = Vec::new();
        for (n, double) in [(1, false), (3, false), (6, false), (4, true), (16, false), (16, true)] {
            let png = render_crosstable_png(&round_robin(n, double), &opts).unwrap();
            let (w, h, _) = decode(&png);
            let forfeits = usize::from(n > 3);
            assert_eq!(h, table_height(&opts, n, forfeits), "{n} players");
            assert!(w < 2200, "{n} players: {w} px wide");
            widths.push(w);
            keep(&format!("crosstable-{n}{}", if double { "-double" } else { "" }), &png);
        }
        assert!(widths[4] > widths[2] && widths[5] > widths[4], "{widths:?}");
        // Halfway through a double round robin the cells keep room for the second leg.
        let mut half = round_robin(4, true);
        for p in &mut half.players {
            p.results.iter_mut().for_each(|r| r.truncate(1));
        }
        let full = decode(&render_crosstable_png(&round_robin(4, true), &opts).unwrap()).0;
        assert_eq!(decode(&render_crosstable_png(&half, &opts).unwrap()).0, full);
        let err = render_crosstable_png(&round_robin(17, false), &opts).unwrap_err();
        assert!(err.to_string().contains("at most 16"), "{err}");
    }

    #[test]
    fn the_crosstable_diagonal_is_greyed_and_results_are_drawn() {
        let opts = TableOptions::default();
        let table = round_robin(4, false);
        let pm = render_crosstable(&table, &opts).unwrap();
        let m = Metrics::new(&opts);
        let p = Palette::new(&opts.theme.theme());
        // Find the columns as the grid lays them out: the diagonal cell of row i has the
        // diagonal colour at its corner, the cell beside it does not.
        let top = title_height(&m) + m.row;
        let diag: Vec<f32> =
            (0..pm.width()).map(|x| x as f32).filter(|&x| pixel(&pm, x, top + 2.0) == p.diagonal).collect();
        assert!(!diag.is_empty(), "row 1's diagonal cell is grey");
        let row2: Vec<f32> = (0..pm.width())
            .map(|x| x as f32)
            .filter(|&x| pixel(&pm, x, top + m.row + 2.0) == p.diagonal)
            .collect();
        assert!(row2[0] > diag[diag.len() - 1], "row 2's diagonal cell is right of row 1's");
    }

    #[test]
    fn brackets_are_sized_by_their_first_round() {
        let opts = TableOptions::default();
        let m = Metrics::new(&opts);
        let row_h = (m.text * 1.45).round();
        let vgap = (m.text * 0.8).round();
        for (players, played) in [(2, 0), (2, 1), (3, 1), (6, 3), (12, 1), (16, 4), (64, 2), (64, 6)] {
            let png = render_bracket_png(&knockout(players, played), &opts).unwrap();
            let (w, h, _) = decode(&png);
            let first = players.next_power_of_two() / 2;
            let want = title_height(&m) + m.row + first as f32 * (2.0 * row_h + vgap) - vgap + m.pad;
            assert_eq!(h, want.ceil() as u32, "{players} players");
            let rounds = players.next_power_of_two().trailing_zeros();
            assert!(w > 200 * rounds && w < 450 * (rounds + 1), "{players} players: {w} px wide");
            keep(&format!("bracket-{players}-after-{played}"), &png);
        }
        let mut too_big = knockout(64, 0);
        too_big.rounds[0].matches.push(BracketMatch::default());
        let err = render_bracket_png(&too_big, &opts).unwrap_err();
        assert!(err.to_string().contains("at most 64"), "{err}");
    }

    #[test]
    fn the_bracket_highlights_who_went_through() {
        let opts = TableOptions::default();
        let p = Palette::new(&opts.theme.theme());
        let b = Bracket {
            title: "Final".to_string(),
            variant: "Chess".to_string(),
            rounds: vec![BracketRound {
                name: String::new(),
                matches: vec![BracketMatch {
                    top: BracketSlot::Player { seed: Some(1), name: "Ann".to_string() },
                    bottom: BracketSlot::Player { seed: Some(2), name: "Ben".to_string() },
                    winner: Some(BracketSide::Bottom),
                    score: "1½–2½".to_string(),
                }],
            }],
        };
        let pm = render_bracket(&b, &opts).unwrap();
        let m = Metrics::new(&opts);
        let row_h = (m.text * 1.45).round();
        let y = title_height(&m) + m.row;
        let x = m.pad + 3.0;
        assert_eq!(pixel(&pm, x, y + row_h / 2.0), p.stripe, "the loser's row is plain");
        assert_eq!(pixel(&pm, x, y + row_h * 1.5), p.highlight, "the winner's row is highlighted");
        // The winner's box after the final.
        assert!(pm.width() as f32 > 2.0 * (m.text * 6.0));
    }

    #[test]
    fn pending_places_are_filled_by_who_went_through() {
        let b = knockout(8, 2);
        assert_eq!(b.rounds.len(), 3, "the final is given with both places pending");
        let b = Bracket { rounds: b.rounds[..2].to_vec(), ..b };
        let grid = fill_in(&b, &[4, 2, 1]);
        let name = |s: &BracketSlot| match s {
            BracketSlot::Player { name, .. } => name.clone(),
            other => format!("{other:?}"),
        };
        assert_eq!(
            (name(&grid[2][0].top), name(&grid[2][0].bottom)),
            ("Kramnik 1".into(), "Topalov 2".into())
        );
        // A bye sends its player on even without a declared winner; an undecided match sends nobody.
        let mut b = knockout(3, 0);
        b.rounds[0].matches[1].winner = None;
        let grid = fill_in(&b, &[2, 1]);
        assert_eq!(name(&grid[1][0].top), "Kramnik 1");
        assert_eq!(grid[1][0].bottom, BracketSlot::Pending);
    }

    #[test]
    fn hostile_input_draws_without_panicking() {
        let opts = TableOptions::default();
        let long = "W".repeat(200);
        let names = [
            long.clone(),
            "Dvořák".to_string(),
            "Dvor\u{30c}a\u{301}k".to_string(),
            "李小龙 王".to_string(),
            "😀👨‍👩‍👧 Ω".to_string(),
            "שלום عربي".to_string(),
            "\u{0}\u{7}\n\t\r\u{200b}\u{feff}\u{301}".to_string(),
            "\u{fffd}\u{10ffff}".to_string(),
            String::new(),
            " ".repeat(300),
            "…".repeat(100),
        ];
        let mut table = swiss(names.len());
        table.title = "T".repeat(500);
        table.variant = "李".repeat(500);
        table.round = u32::MAX;
        table.rounds = 3;
        table.tie_breaks = vec![String::new(), "X".repeat(100), "😀".to_string()];
        for (row, name) in table.rows.iter_mut().zip(&names) {
            row.name = name.clone();
            row.rank = u32::MAX;
            row.rating = Some(u32::MAX);
            row.points = f64::NAN;
            row.tie_breaks = vec![f64::INFINITY, -1e300, 1e300, 4.0, 5.0];
        }
        let png = render_standings_png(&table, &opts).unwrap();
        let (w, _, _) = decode(&png);
        assert!(w < 1600, "long names and titles are cut, not widening the picture ({w} px)");
        keep("standings-hostile", &png);

        let mut cross = round_robin(names.len(), true);
        cross.title = long.clone();
        for (p, name) in cross.players.iter_mut().zip(&names) {
            p.name = name.clone();
            p.results.push(vec![GameResult::Win; 9]);
            p.results[0] = vec![GameResult::Draw; 5];
        }
        let png = render_crosstable_png(&cross, &opts).unwrap();
        assert!(decode(&png).0 < 2200);
        keep("crosstable-hostile", &png);

        let mut bracket = knockout(names.len(), 1);
        let slots = bracket
            .rounds
            .iter_mut()
            .flat_map(|r| r.matches.iter_mut())
            .flat_map(|m| [&mut m.top, &mut m.bottom]);
        for (slot, name) in slots.zip(names.iter().cycle()) {
            *slot = BracketSlot::Player { seed: Some(u32::MAX), name: name.clone() };
        }
        bracket.rounds[0].matches[0].score = "9".repeat(300);
        bracket.rounds[0].matches[1].score = "—".to_string();
        bracket.rounds[0].name = "R".repeat(300);
        bracket.rounds.push(BracketRound { name: String::new(), matches: vec![BracketMatch::default(); 40] });
        bracket.rounds.extend(std::iter::repeat_n(BracketRound::default(), 10));
        let png = render_bracket_png(&bracket, &opts).unwrap();
        keep("bracket-hostile", &png);

        // Empty everything.
        let (_, h, _) = decode(&render_standings_png(&StandingsTable::default(), &opts).unwrap());
        assert_eq!(h, table_height(&opts, 0, 1), "a line says there are no players");
        render_crosstable_png(&Crosstable::default(), &opts).unwrap();
        render_bracket_png(&Bracket::default(), &opts).unwrap();
        render_bracket_png(&Bracket { rounds: vec![BracketRound::default()], ..Bracket::default() }, &opts)
            .unwrap();
        // Text sizes out of range are brought into it.
        for text_size in [0, 1, 13, 41, u32::MAX] {
            let o = TableOptions { text_size, ..opts.clone() };
            render_standings_png(&swiss(3), &o).unwrap();
            render_crosstable_png(&round_robin(3, false), &o).unwrap();
            render_bracket_png(&knockout(4, 1), &o).unwrap();
        }
        let mut many = swiss(2);
        many.tie_breaks = vec!["TB".to_string(); MAX_TIE_BREAKS + 1];
        assert!(render_standings_png(&many, &opts).is_err());
    }

    #[test]
    fn a_missing_glyph_is_drawn_as_a_box() {
        let opts = TableOptions::default();
        let ink = |name: &str| {
            let mut t = swiss(1);
            t.rows[0].name = name.to_string();
            let pm = render_standings(&t, &opts).unwrap();
            pm.data().iter().map(|&b| b as u64).sum::<u64>()
        };
        assert!(ink("李") > ink(""), "an unknown character leaves a mark");
        assert!(ink("李李") > ink("李"));
    }

    #[test]
    fn the_same_table_gives_the_same_bytes() {
        let opts = TableOptions::default();
        let s = swiss(30);
        assert_eq!(render_standings_png(&s, &opts).unwrap(), render_standings_png(&s, &opts).unwrap());
        let c = round_robin(10, true);
        assert_eq!(render_crosstable_png(&c, &opts).unwrap(), render_crosstable_png(&c, &opts).unwrap());
        let b = knockout(20, 2);
        assert_eq!(render_bracket_png(&b, &opts).unwrap(), render_bracket_png(&b, &opts).unwrap());
    }

    #[test]
    fn text_is_large_enough_for_a_phone() {
        // Capitals span 13 of the font's 15 units: at the default size they are over 14 px tall.
        let m = Metrics::new(&TableOptions::default());
        assert!(m.text * 13.0 / 15.0 >= 14.0);
        assert!(Metrics::new(&TableOptions { text_size: 0, ..TableOptions::default() }).text >= 14.0);
    }
}
