//! The evaluation of a game over its plies, as a picture (issue 32): pure data in, PNG bytes out.
//!
//! Drawn as Lichess draws it: White's winning chances (−1…+1) against the ply, the area between
//! the curve and the middle line light where White stands better and dark where Black does, the
//! judged turns marked with a dot of their class's colour. Everything sits on an opaque card of
//! its own, so the picture reads the same in a dark or a light chat, and its text is sized for a
//! phone, which shows a chat picture about 350 points wide.

use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::font::{Font, Style};
use crate::theme::Rgba;
use crate::{RenderError, encode_png};

/// How bad a marked turn was, from the least to the worst.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Inaccuracy,
    Mistake,
    Blunder,
}

/// A turn marked on the curve: after `index` positions (the point of the position it led to).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ChartMark {
    pub index: usize,
    pub severity: Severity,
}

/// What the picture shows.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EvalChart {
    /// White's winning chances in each position, the start first, each within −1…+1 (an edge
    /// is a mate).
    pub points: Vec<f32>,
    pub marks: Vec<ChartMark>,
    /// Labels under the axis: at a point's index, its text (move numbers).
    pub labels: Vec<(usize, String)>,
    /// Labels at the left, at a height (winning chances) with its text (`+3`, `-3`).
    pub levels: Vec<(f32, String)>,
}

/// The picture's size: wide and low, as an evaluation graph is, and twice a phone's points.
pub const CHART_WIDTH: u32 = 800;
pub const CHART_HEIGHT: u32 = 320;

/// At most this many points are drawn (a longer game is refused: no game gets near it).
pub const MAX_POINTS: usize = 5000;

const CARD: Rgba = Rgba(0x9a, 0x95, 0x8c, 255);
const PLOT: Rgba = Rgba(0xc9, 0xc4, 0xba, 255);
const WHITE_AREA: Rgba = Rgba(0xf6, 0xf3, 0xec, 255);
const BLACK_AREA: Rgba = Rgba(0x2e, 0x2b, 0x28, 255);
const LINE: Rgba = Rgba(0x5a, 0x55, 0x4e, 255);
const TEXT: Rgba = Rgba(0x1c, 0x1a, 0x18, 255);
/// Okabe and Ito's bluish green: apart from every mark's colour.
const CURVE: Rgba = Rgba(0x00, 0x9e, 0x73, 255);
/// Okabe and Ito's colours, told apart by colour-blind readers too: sky blue, orange, vermilion.
fn severity_colour(s: Severity) -> Rgba {
    match s {
        Severity::Inaccuracy => Rgba(0x56, 0xb4, 0xe9, 255),
        Severity::Mistake => Rgba(0xe6, 0x9f, 0x00, 255),
        Severity::Blunder => Rgba(0xd5, 0x5e, 0x00, 255),
    }
}

fn paint(c: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c.0, c.1, c.2, c.3);
    p.anti_alias = true;
    p
}

/// Draws the chart.
pub fn render_chart(chart: &EvalChart) -> Result<Pixmap, RenderError> {
    if chart.points.len() > MAX_POINTS {
        return Err(RenderError::Size(chart.points.len() as u32));
    }
    let (w, h) = (CHART_WIDTH as f32, CHART_HEIGHT as f32);
    let mut pm = Pixmap::new(CHART_WIDTH, CHART_HEIGHT).ok_or(RenderError::Size(CHART_WIDTH))?;
    pm.fill(tiny_skia::Color::from_rgba8(CARD.0, CARD.1, CARD.2, 255));
    let font = Font::get();
    let label_style = Style::bold(20.0);
    // The plot: room at the left for the levels' labels, below for the move numbers.
    let left = 56.0;
    let (right, top, bottom) = (w - 16.0, 14.0, h - 40.0);
    let plot = Rect::from_ltrb(left, top, right, bottom).ok_or(RenderError::Size(CHART_WIDTH))?;
    pm.fill_rect(plot, &paint(PLOT), Transform::identity(), None);
    let mid = (top + bottom) / 2.0;
    let half = (bottom - top) / 2.0;
    let n = chart.points.len();
    let x_of = |i: usize| if n <= 1 { left } else { left + (right - left) * i as f32 / (n - 1) as f32 };
    let y_of = |v: f32| mid - v.clamp(-1.0, 1.0) * half;
    // Between the curve and the middle line: light where White leads, dark where Black does.
    for (colour, side) in [(WHITE_AREA, 1.0f32), (BLACK_AREA, -1.0f32)] {
        let mut pb = PathBuilder::new();
        pb.move_to(x_of(0), mid);
        for (i, v) in chart.points.iter().enumerate() {
            pb.line_to(x_of(i), y_of((v * side).max(0.0) * side));
        }
        if n == 1 {
            pb.line_to(right, y_of((chart.points[0] * side).max(0.0) * side));
        }
        pb.line_to(if n <= 1 { right } else { x_of(n - 1) }, mid);
        pb.close();
        if let Some(path) = pb.finish() {
            pm.fill_path(&path, &paint(colour), FillRule::Winding, Transform::identity(), None);
        }
    }
    // The middle line and the levels.
    let thin = Stroke { width: 2.0, ..Stroke::default() };
    let mut line = PathBuilder::new();
    line.move_to(left, mid);
    line.line_to(right, mid);
    if let Some(path) = line.finish() {
        pm.stroke_path(&path, &paint(LINE), &thin, Transform::identity(), None);
    }
    let zero = font.width("0", label_style);
    font.draw(&mut pm, "0", left - 8.0 - zero, mid - label_style.size / 2.0, label_style, TEXT);
    for (v, text) in &chart.levels {
        let y = y_of(*v);
        let mut tick = PathBuilder::new();
        tick.move_to(left, y);
        tick.line_to(right, y);
        if let Some(path) = tick.finish() {
            let dashed =
                Stroke { width: 1.0, dash: tiny_skia::StrokeDash::new(vec![6.0, 6.0], 0.0), ..thin.clone() };
            pm.stroke_path(&path, &paint(LINE), &dashed, Transform::identity(), None);
        }
        let tw = font.width(text, label_style);
        font.draw(&mut pm, text, left - 8.0 - tw, y - label_style.size / 2.0, label_style, TEXT);
    }
    // The curve itself, over both areas.
    if n >= 2 {
        let mut pb = PathBuilder::new();
        pb.move_to(x_of(0), y_of(chart.points[0]));
        for (i, v) in chart.points.iter().enumerate().skip(1) {
            pb.line_to(x_of(i), y_of(*v));
        }
        if let Some(path) = pb.finish() {
            let curve = Stroke { width: 3.0, ..Stroke::default() };
            pm.stroke_path(&path, &paint(CURVE), &curve, Transform::identity(), None);
        }
    }
    // The frame.
    let mut frame = PathBuilder::new();
    frame.push_rect(plot);
    if let Some(path) = frame.finish() {
        pm.stroke_path(&path, &paint(LINE), &thin, Transform::identity(), None);
    }
    // The marks, the worst drawn last (on top).
    let mut marks = chart.marks.clone();
    marks.sort_by_key(|m| m.severity);
    for m in marks.iter().filter(|m| m.index < n) {
        let (x, y) = (x_of(m.index), y_of(chart.points[m.index]));
        let r = match m.severity {
            Severity::Inaccuracy => 6.0,
            Severity::Mistake => 7.5,
            Severity::Blunder => 9.0,
        };
        if let Some(ring) = PathBuilder::from_circle(x, y, r + 2.5) {
            pm.fill_path(&ring, &paint(TEXT), FillRule::Winding, Transform::identity(), None);
        }
        if let Some(dot) = PathBuilder::from_circle(x, y, r) {
            pm.fill_path(
                &dot,
                &paint(severity_colour(m.severity)),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
    // The move numbers.
    for (i, text) in chart.labels.iter().filter(|(i, _)| *i < n.max(1)) {
        let tw = font.width(text, label_style);
        let x = (x_of(*i) - tw / 2.0).clamp(0.0, w - tw);
        font.draw(&mut pm, text, x, bottom + 10.0, label_style, TEXT);
    }
    Ok(pm)
}

/// Draws the chart and encodes it as PNG.
pub fn render_chart_png(chart: &EvalChart) -> Result<Vec<u8>, RenderError> {
    encode_png(&render_chart(chart)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> EvalChart {
        EvalChart {
            points: vec![0.05, 0.1, -0.2, 0.9, 1.0, -1.0],
            marks: vec![ChartMark { index: 5, severity: Severity::Blunder }],
            labels: vec![(0, "1".into()), (4, "3".into())],
            levels: vec![(0.5, "+3".into()), (-0.5, "-3".into())],
        }
    }

    #[test]
    fn the_chart_is_a_png_of_its_size() {
        let png = render_chart_png(&chart()).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        assert_eq!((info.width, info.height), (CHART_WIDTH, CHART_HEIGHT));
        // An empty game still draws its frame.
        assert!(render_chart_png(&EvalChart::default()).is_ok());
        let too_long = EvalChart { points: vec![0.0; MAX_POINTS + 1], ..EvalChart::default() };
        assert!(render_chart(&too_long).is_err());
    }

    #[test]
    fn white_leads_light_above_the_middle_black_dark_below_and_marks_show_on_top() {
        let pm = render_chart(&chart()).unwrap();
        let at = |x: f32, y: f32| {
            let p = pm.pixel(x as u32, y as u32).unwrap();
            (p.red(), p.green(), p.blue())
        };
        let (left, right, top, bottom) = (56.0, CHART_WIDTH as f32 - 16.0, 14.0, CHART_HEIGHT as f32 - 40.0);
        let mid = (top + bottom) / 2.0;
        let x_of = |i: f32| left + (right - left) * i / 5.0;
        // Point 4 is White mating: light just above the middle; point 2 Black better: dark just below.
        assert_eq!(at(x_of(4.0), mid - 20.0), (WHITE_AREA.0, WHITE_AREA.1, WHITE_AREA.2));
        assert_eq!(at(x_of(4.0), mid + 20.0), (PLOT.0, PLOT.1, PLOT.2));
        assert_eq!(at(x_of(2.0), mid + 10.0), (BLACK_AREA.0, BLACK_AREA.1, BLACK_AREA.2));
        // The blunder's dot at the last point, at the bottom edge (Black mates).
        let b = severity_colour(Severity::Blunder);
        assert_eq!(at(x_of(5.0) - 4.0, bottom - 4.0), (b.0, b.1, b.2));
    }
}
