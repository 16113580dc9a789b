//! The stroke font for text in pictures: the coordinate glyphs of [`crate::art`] grown into a whole
//! alphabet (Latin letters with their accents, digits, punctuation, `½`), drawn as strokes in the same
//! 10x15 box and spaced from their ink. A character the font lacks is drawn as an empty box, never
//! skipped, so a name in another script still shows that something is there.
//!
//! Design box: capitals and ascenders from y = 1, lower case from y = 6, the baseline at y = 14,
//! descenders to y = 18, accents on capitals up to y = -3.

use std::sync::OnceLock;

use tiny_skia::{LineCap, LineJoin, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::art::Art;
use crate::theme::Rgba;

/// Stroke width of regular text, in design units (the board coordinates use the same).
const REGULAR: f32 = 1.7;
/// Stroke width of bold text.
const BOLD: f32 = 2.5;
/// Space either side of a glyph's ink (its path's bounds), in design units.
const BEARING: f32 = 1.75;
/// Digits and the signs drawn in number columns share one width, so columns of numbers line up.
const TABULAR: f32 = 10.0;
const SPACE: f32 = 4.6;

/// How a run of text is drawn: `size` is the height of the 10x15 design box in pixels.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Style {
    pub size: f32,
    pub bold: bool,
}

impl Style {
    pub fn regular(size: f32) -> Style {
        Style { size, bold: false }
    }

    pub fn bold(size: f32) -> Style {
        Style { size, bold: true }
    }

    fn scale(self) -> f32 {
        self.size / 15.0
    }

    fn stroke(self) -> f32 {
        if self.bold { BOLD } else { REGULAR }
    }
}

#[derive(Debug)]
struct Glyph {
    c: char,
    path: Option<Path>,
    /// Advance at the regular weight, in design units.
    advance: f32,
}

#[derive(Debug)]
pub(crate) struct Font {
    /// Sorted by character.
    glyphs: Vec<Glyph>,
    missing: Glyph,
}

/// What a character turns into when laid out.
enum Item<'a> {
    Glyph(&'a Glyph),
    /// Control characters, joiners, variation selectors and stray combining marks take no room.
    Nothing,
}

impl Font {
    pub fn get() -> &'static Font {
        static FONT: OnceLock<Font> = OnceLock::new();
        FONT.get_or_init(Font::build)
    }

    /// Whether `c` has a glyph of its own (rather than the box for a missing one).
    #[cfg(test)]
    pub fn has(&self, c: char) -> bool {
        self.find(c).is_some()
    }

    fn find(&self, c: char) -> Option<&Glyph> {
        self.glyphs.binary_search_by_key(&c, |g| g.c).ok().map(|i| &self.glyphs[i])
    }

    /// The glyphs of `text` in order. A base letter followed by a combining accent becomes the
    /// accented letter where the font has it.
    fn items<'a>(&'a self, text: &str) -> Vec<Item<'a>> {
        let mut out: Vec<Item<'a>> = Vec::with_capacity(text.len());
        let mut prev: Option<char> = None;
        for c in text.chars() {
            if let Some(accent) = combining_accent(c) {
                if let Some(composed) = prev.and_then(|p| compose(p, accent)).and_then(|c| self.find(c)) {
                    // Replace the base letter, drawn just before, by the accented one.
                    if let Some(last) = out.iter_mut().rev().find(|i| matches!(i, Item::Glyph(_))) {
                        *last = Item::Glyph(composed);
                    }
                }
                prev = None;
                continue;
            }
            prev = Some(c);
            if invisible(c) {
                out.push(Item::Nothing);
            } else {
                out.push(Item::Glyph(self.find(c).unwrap_or(&self.missing)));
            }
        }
        out
    }

    /// The width of `text` in pixels.
    pub fn width(&self, text: &str, style: Style) -> f32 {
        let extra = style.stroke() - REGULAR;
        let units: f32 = self
            .items(text)
            .iter()
            .map(|i| match i {
                Item::Glyph(g) => g.advance + if g.path.is_some() { extra } else { 0.0 },
                Item::Nothing => 0.0,
            })
            .sum();
        units * style.scale()
    }

    /// `text`, cut short with "…" where it is wider than `max` pixels.
    pub fn fit(&self, text: &str, max: f32, style: Style) -> String {
        if self.width(text, style) <= max {
            return text.to_string();
        }
        let ellipsis = self.width("…", style);
        let mut out = String::new();
        let mut width = 0.0;
        for (i, c) in text.char_indices() {
            // Measure the whole character (with any accent that follows it) as one.
            let end = text[i + c.len_utf8()..]
                .char_indices()
                .find(|(_, n)| combining_accent(*n).is_none())
                .map_or(text.len(), |(j, _)| i + c.len_utf8() + j);
            if combining_accent(c).is_some() {
                continue;
            }
            let w = self.width(&text[i..end], style);
            if width + w + ellipsis > max {
                break;
            }
            width += w;
            out.push_str(&text[i..end]);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('…');
        out
    }

    /// Draws `text` with the top of its design box at `y` and its left edge at `x`.
    pub fn draw(&self, pm: &mut Pixmap, text: &str, x: f32, y: f32, style: Style, colour: Rgba) {
        let s = style.scale();
        let extra = style.stroke() - REGULAR;
        let mut paint = Paint::default();
        paint.set_color_rgba8(colour.0, colour.1, colour.2, colour.3);
        paint.anti_alias = true;
        let stroke = Stroke {
            width: style.stroke(),
            line_cap: LineCap::Round,
            line_join: LineJoin::Round,
            ..Stroke::default()
        };
        let mut pen = x;
        for item in self.items(text) {
            let Item::Glyph(g) = item else { continue };
            if let Some(path) = &g.path {
                let t = Transform::from_scale(s, s).post_translate(pen + extra * s / 2.0, y);
                pm.stroke_path(path, &paint, &stroke, t, None);
                pen += (g.advance + extra) * s;
            } else {
                pen += g.advance * s;
            }
        }
    }

    fn build() -> Font {
        let mut glyphs: Vec<Glyph> = Vec::new();
        for c in "abcdefgh12345678".chars() {
            let path = Art::get().glyph(c).expect("the coordinate glyphs").clone();
            glyphs.push(spaced(c, path, c.is_ascii_digit()));
        }
        for &(c, def) in GLYPHS {
            let tabular = c.is_ascii_digit() || "+−–=".contains(c);
            glyphs.push(spaced(c, parse(def), tabular));
        }
        glyphs.push(Glyph { c: ' ', path: None, advance: SPACE });
        glyphs.push(Glyph { c: '\u{a0}', path: None, advance: SPACE });
        let mut accented = Vec::new();
        for (c, base, accent) in decompositions() {
            let base = match base {
                'i' => 'ı',
                'j' => 'ȷ',
                b => b,
            };
            let Some(path) = base_path(&glyphs, base) else { continue };
            accented.push(spaced(c, with_accent(&path, base, accent), false));
        }
        glyphs.extend(accented);
        glyphs.sort_by_key(|g| g.c);
        glyphs.dedup_by_key(|g| g.c);
        Font { glyphs, missing: spaced('\u{fffd}', parse("M1 2 L8 2 L8 14 L1 14 Z"), false) }
    }
}

/// The design path of an already built glyph, back at its drawn position (ink starting at x = 0
/// plus the bearing is fine: accents are placed from the ink's bounds).
fn base_path(glyphs: &[Glyph], c: char) -> Option<Path> {
    glyphs.iter().find(|g| g.c == c).and_then(|g| g.path.clone())
}

/// A glyph placed `BEARING` after the pen and as wide as its ink plus both bearings; tabular ones
/// keep their drawn position in a box `TABULAR` wide (centred when wider ink would not fit).
fn spaced(c: char, path: Path, tabular: bool) -> Glyph {
    let ink = path.compute_tight_bounds().unwrap_or_else(|| path.bounds());
    if tabular {
        let shift = if ink.left() < 0.5 || ink.right() > TABULAR - 0.5 {
            (TABULAR - ink.width()) / 2.0 - ink.left()
        } else {
            0.0
        };
        let path = path.transform(Transform::from_translate(shift, 0.0)).expect("finite glyph");
        return Glyph { c, path: Some(path), advance: TABULAR };
    }
    let path = path.transform(Transform::from_translate(BEARING - ink.left(), 0.0)).expect("finite glyph");
    Glyph { c, path: Some(path), advance: ink.width() + 2.0 * BEARING }
}

/// Characters that take no room: controls, zero-width spaces and joiners, direction marks,
/// variation selectors.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}')
        || matches!(c, '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{e0100}'..='\u{e01ef}')
        || matches!(c, '\u{300}'..='\u{36f}')
}

/// The accent a combining character adds, in the codes of [`ACCENTED`].
fn combining_accent(c: char) -> Option<char> {
    Some(match c {
        '\u{300}' => '`',
        '\u{301}' => '\'',
        '\u{302}' => '^',
        '\u{303}' => '~',
        '\u{304}' => '-',
        '\u{306}' => 'u',
        '\u{307}' => '.',
        '\u{308}' => ':',
        '\u{30a}' => 'o',
        '\u{30b}' => '"',
        '\u{30c}' => 'v',
        '\u{326}' | '\u{327}' => ',',
        '\u{328}' => ';',
        _ => return None,
    })
}

fn compose(base: char, accent: char) -> Option<char> {
    decompositions().find(|&(_, b, a)| b == base && (a == accent || (accent == 'v' && a == '|'))).map(|t| t.0)
}

/// Accented letters as (letter, base, accent): ` grave, ' acute, ^ circumflex, ~ tilde, : diaeresis,
/// o ring, - macron, u breve, . dot above, " double acute, v caron, | caron written as an apostrophe
/// (ď ľ ť Ľ), , cedilla or comma below, ; ogonek.
const ACCENTED: &str = "ÀA`ÁA'ÂA^ÃA~ÄA:ÅAoÇC,ÈE`ÉE'ÊE^ËE:ÌI`ÍI'ÎI^ÏI:ÑN~ÒO`ÓO'ÔO^ÕO~ÖO:ÙU`ÚU'ÛU^ÜU:ÝY'\
àa`áa'âa^ãa~äa:åaoçc,èe`ée'êe^ëe:ìi`íi'îi^ïi:ñn~òo`óo'ôo^õo~öo:ùu`úu'ûu^üu:ýy'ÿy:\
ĀA-āa-ĂAuăauĄA;ąa;ĆC'ćc'ĈC^ĉc^ĊC.ċc.ČCvčcvĎDvďd|ĒE-ēe-ĔEuĕeuĖE.ėe.ĘE;ęe;ĚEvěev\
ĜG^ĝg^ĞGuğguĠG.ġg.ĢG,ģg,ĤH^ĥh^ĨI~ĩi~ĪI-īi-ĬIuĭiuĮI;įi;İI.ĴJ^ĵj^ĶK,ķk,ĹL'ĺl'ĻL,ļl,ĽL|ľl|\
ŃN'ńn'ŅN,ņn,ŇNvňnvŌO-ōo-ŎOuŏouŐO\"őo\"ŔR'ŕr'ŖR,ŗr,ŘRvřrvŚS'śs'ŜS^ŝs^ŞS,şs,ŠSvšsvŢT,ţt,ŤTvťt|\
ŨU~ũu~ŪU-ūu-ŬUuŭuuŮUoůuoŰU\"űu\"ŲU;ųu;ŴW^ŵw^ŶY^ŷy^ŸY:ŹZ'źz'ŻZ.żz.ŽZvžzvȘS,șs,ȚT,țt,\
ǍAvǎavǏIvǐivǑOvǒovǓUvǔuvǦGvǧgvǨKvǩkvǴG'ǵg'";

fn decompositions() -> impl Iterator<Item = (char, char, char)> {
    let chars: Vec<char> = ACCENTED.chars().collect();
    let triples: Vec<(char, char, char)> = chars.chunks_exact(3).map(|t| (t[0], t[1], t[2])).collect();
    triples.into_iter()
}

/// `base` (a design path, ink anywhere) with `accent` over or under it.
fn with_accent(path: &Path, base: char, accent: char) -> Path {
    let ink = path.compute_tight_bounds().unwrap_or_else(|| path.bounds());
    let cx = (ink.left() + ink.right()) / 2.0;
    // The accent's lowest point, above the capital or the x-height; on capitals accents are
    // flatter so that they stay within the line.
    let (z, k) = if base.is_uppercase() { (-1.1, 0.75) } else { (3.9, 1.0) };
    let up = |d: f32| z - d * k;
    let mut pb = PathBuilder::new();
    pb.push_path(path);
    match accent {
        '`' => {
            pb.move_to(cx + 0.9, up(0.0));
            pb.line_to(cx - 1.1, up(2.4));
        }
        '\'' => {
            pb.move_to(cx - 0.9, up(0.0));
            pb.line_to(cx + 1.1, up(2.4));
        }
        '"' => {
            for dx in [-1.3, 1.3] {
                pb.move_to(cx + dx - 0.8, up(0.0));
                pb.line_to(cx + dx + 0.8, up(2.4));
            }
        }
        '^' => {
            pb.move_to(cx - 2.0, up(0.0));
            pb.line_to(cx, up(2.2));
            pb.line_to(cx + 2.0, up(0.0));
        }
        'v' => {
            pb.move_to(cx - 2.0, up(2.2));
            pb.line_to(cx, up(0.0));
            pb.line_to(cx + 2.0, up(2.2));
        }
        '~' => {
            pb.move_to(cx - 2.4, up(0.5));
            pb.cubic_to(cx - 1.6, up(2.6), cx - 0.6, up(1.6), cx, up(1.1));
            pb.cubic_to(cx + 0.6, up(0.6), cx + 1.6, up(-0.4), cx + 2.4, up(1.7));
        }
        ':' => {
            dot(&mut pb, cx - 1.6, up(1.0));
            dot(&mut pb, cx + 1.6, up(1.0));
        }
        '.' => dot(&mut pb, cx, up(1.0)),
        'o' => pb.push_circle(cx, up(1.2), 1.1 * k),
        '-' => {
            pb.move_to(cx - 2.2, up(1.0));
            pb.line_to(cx + 2.2, up(1.0));
        }
        'u' => {
            pb.move_to(cx - 2.0, up(2.3));
            pb.cubic_to(cx - 2.0, up(-0.3), cx + 2.0, up(-0.3), cx + 2.0, up(2.3));
        }
        '|' => {
            let x = ink.right() + 1.6;
            let top = ink.top();
            pb.move_to(x, top);
            pb.line_to(x, top + 1.2);
            pb.cubic_to(x, top + 2.4, x - 0.4, top + 3.2, x - 1.2, top + 3.6);
        }
        ',' => {
            pb.move_to(cx, 14.0);
            pb.line_to(cx - 0.4, 15.3);
            pb.cubic_to(cx + 1.9, 15.1, cx + 1.9, 17.7, cx - 1.6, 17.5);
        }
        ';' => {
            let x = ink.right() - 1.0;
            pb.move_to(x, 14.0);
            pb.cubic_to(x - 2.2, 15.0, x - 2.2, 17.7, x + 1.3, 17.4);
        }
        _ => {}
    }
    pb.finish().expect("an accented glyph is not empty")
}

/// A dot: a stroke so short its round caps make a disc (a stroked tiny circle would show a hole).
fn dot(pb: &mut PathBuilder, x: f32, y: f32) {
    pb.move_to(x, y - 0.05);
    pb.line_to(x, y + 0.05);
}

/// A path in the glyph language: `M x y`, `L x y`, `Q x1 y1 x y`, `C x1 y1 x2 y2 x y`, `Z`,
/// `O cx cy rx ry` (an oval), `D x y` (a dot).
fn parse(def: &str) -> Path {
    let mut pb = PathBuilder::new();
    // Commands are single capitals, each followed by its numbers.
    let mut rest = def.trim();
    while let Some(cmd) = rest.chars().next() {
        let end = rest[1..].find(|c: char| c.is_ascii_uppercase()).map_or(rest.len(), |i| i + 1);
        let v: Vec<f32> = rest[1..end]
            .split_whitespace()
            .map(|t| t.parse().unwrap_or_else(|_| panic!("bad number {t} in glyph path {def}")))
            .collect();
        rest = rest[end..].trim_start();
        let want = match cmd {
            'M' | 'L' | 'D' => 2,
            'Q' | 'O' => 4,
            'C' => 6,
            'Z' => 0,
            _ => panic!("unknown glyph command {cmd} in {def}"),
        };
        assert_eq!(v.len(), want, "{cmd} takes {want} numbers in glyph path {def}");
        match cmd {
            'M' => pb.move_to(v[0], v[1]),
            'L' => pb.line_to(v[0], v[1]),
            'Q' => pb.quad_to(v[0], v[1], v[2], v[3]),
            'C' => pb.cubic_to(v[0], v[1], v[2], v[3], v[4], v[5]),
            'O' => {
                pb.push_oval(Rect::from_xywh(v[0] - v[2], v[1] - v[3], 2.0 * v[2], 2.0 * v[3]).expect("oval"))
            }
            'D' => dot(&mut pb, v[0], v[1]),
            _ => pb.close(),
        }
    }
    pb.finish().unwrap_or_else(|| panic!("empty glyph path {def}"))
}

/// Every glyph beyond the coordinate ones, in the 10x15 design box.
const GLYPHS: &[(char, &str)] = &[
    // Lower case (a to h come from the board coordinates).
    ('i', "M3 6 L3 14 D3 2.8"),
    ('ı', "M3 6 L3 14"),
    ('j', "M4 6 L4 15.5 C4 17.6 2.6 18 1 17.4 D4 2.8"),
    ('ȷ', "M4 6 L4 15.5 C4 17.6 2.6 18 1 17.4"),
    ('k', "M2 1 L2 14 M7.5 6 L2 11 M4.4 9.2 L8 14"),
    ('l', "M3 1 L3 14"),
    ('m', "M2 6 L2 14 M2 9 C2 5.8 6.5 5.5 6.5 9 L6.5 14 M6.5 9 C6.5 5.8 11 5.5 11 9 L11 14"),
    ('n', "M2 6 L2 14 M2 9 C2 6 8 5 8 9 L8 14"),
    ('o', "O5 10 3 4"),
    ('p', "M2 6 L2 18 M2 9.5 C2 5.5 8 5.5 8 10 C8 14.5 2 14.5 2 10.5"),
    ('q', "M8 6 L8 18 M8 9.5 C8 5.5 2 5.5 2 10 C2 14.5 8 14.5 8 10.5"),
    ('r', "M2 6 L2 14 M2 10 C2 7 4.2 5.6 6.8 6.4"),
    ('s', "M7.4 7.3 C6.4 5.8 2.4 5.6 2.4 8 C2.4 10.1 7.6 9.6 7.6 12 C7.6 14.7 3 14.6 2 13"),
    ('t', "M4 2.5 L4 12.4 C4 14.1 5.5 14.3 7 13.6 M1.5 6 L7 6"),
    ('u', "M2 6 L2 11 C2 14.8 8 14.8 8 11 M8 6 L8 14"),
    ('v', "M1.5 6 L5 14 L8.5 6"),
    ('w', "M1 6 L3.6 14 L6 7.6 L8.4 14 L11 6"),
    ('x', "M2 6 L8 14 M8 6 L2 14"),
    ('y', "M1.5 6 L5.2 14 M8.5 6 L4.6 15.8 C4 17.3 3 17.8 1.6 17.5"),
    ('z', "M2 6 L8 6 L2 14 L8 14"),
    ('ß', "M2 14 L2 4.5 C2 0 8 0 8 3.8 C8 6.2 5 6.4 5 7.6 C5 8.8 9 9.2 9 11.6 C9 14.6 5.6 14.6 4.4 13.6"),
    ('ø', "O5 10 3 4 M1.5 14.8 L8.5 5.2"),
    ('ł', "M4 1 L4 14 M1.5 9.5 L6.5 6"),
    ('đ', "M8 1 L8 14 M8 9.5 C8 5.5 2 5.5 2 10 C2 14.5 8 14.5 8 10.5 M5.6 3 L10.4 3"),
    ('ħ', "M2 1 L2 14 M2 9 C2 6 8 5 8 9 L8 14 M0 3.5 L5 3.5"),
    (
        'æ',
        "M2.3 7 C4 5.4 6.5 5.8 6.5 8 L6.5 14 M6.5 10 C3 9.5 1.8 10.5 1.8 12 C1.8 14.4 5.5 14.5 6.5 12 \
           M6.5 10 L11.5 10 C11.5 5.5 6.5 5.5 6.5 10 C6.5 14.5 10 15 11.5 13",
    ),
    ('œ', "O4.3 10 2.8 4 M7.1 10 L12 10 C12 5.5 7.1 5.5 7.1 10 C7.1 14.5 10.5 15 12 13"),
    // Capitals.
    ('A', "M1.5 14 L5 1 L8.5 14 M2.8 9.5 L7.2 9.5"),
    ('B', "M2 7.5 L5.3 7.5 C8.9 7.5 8.9 14 5.3 14 L2 14 L2 1 L5 1 C8.3 1 8.3 7.5 5 7.5"),
    ('C', "M8.6 3.2 C7.2 0.3 1.8 0.2 1.8 7.5 C1.8 14.8 7.2 14.7 8.6 11.8"),
    ('D', "M2 1 L2 14 L4.5 14 C9.6 14 9.6 1 4.5 1 Z"),
    ('E', "M8 1 L2 1 L2 14 L8 14 M2 7.5 L7 7.5"),
    ('F', "M8 1 L2 1 L2 14 M2 7.5 L7 7.5"),
    ('G', "M8.6 3.2 C7.2 0.3 1.8 0.2 1.8 7.5 C1.8 14.8 8.6 14.8 8.6 10.5 L8.6 8.5 L5.5 8.5"),
    ('H', "M2 1 L2 14 M8 1 L8 14 M2 7.5 L8 7.5"),
    ('I', "M4 1 L4 14 M2 1 L6 1 M2 14 L6 14"),
    ('J', "M7 1 L7 10.5 C7 15 1.5 15 1.5 11"),
    ('K', "M2 1 L2 14 M8.5 1 L2 9 M4.3 6.6 L8.5 14"),
    ('L', "M2 1 L2 14 L8 14"),
    ('M', "M1.5 14 L1.5 1 L6 10.5 L10.5 1 L10.5 14"),
    ('N', "M2 14 L2 1 L8 14 L8 1"),
    ('O', "O5.2 7.5 3.6 6.5"),
    ('P', "M2 14 L2 1 L5 1 C9 1 9 8 5 8 L2 8"),
    ('Q', "O5.2 7.5 3.6 6.5 M5.8 10.8 L9 14.6"),
    ('R', "M2 14 L2 1 L5 1 C9 1 9 8 5 8 L2 8 M5.2 8 L8.5 14"),
    ('S', "M8 3.2 C6.8 0.4 2 0.3 2 4 C2 8 8.2 6.6 8.2 10.6 C8.2 14.9 2.6 14.8 1.6 11.8"),
    ('T', "M1 1 L9 1 M5 1 L5 14"),
    ('U', "M2 1 L2 10 C2 15 8 15 8 10 L8 1"),
    ('V', "M1 1 L5 14 L9 1"),
    ('W', "M0.5 1 L3.2 14 L6 4 L8.8 14 L11.5 1"),
    ('X', "M1.5 1 L8.5 14 M8.5 1 L1.5 14"),
    ('Y', "M1 1 L5 7.5 L9 1 M5 7.5 L5 14"),
    ('Z', "M2 1 L8.5 1 L1.5 14 L8.5 14"),
    ('Ø', "O5.2 7.5 3.6 6.5 M1.2 14.5 L9.2 0.5"),
    ('Ł', "M3 1 L3 14 L9 14 M0.8 9 L5.5 5.5"),
    ('Đ', "M2.5 1 L2.5 14 L5 14 C10.1 14 10.1 1 5 1 Z M0.5 7.5 L4.6 7.5"),
    ('Ð', "M2.5 1 L2.5 14 L5 14 C10.1 14 10.1 1 5 1 Z M0.5 7.5 L4.6 7.5"),
    ('ẞ', "M2 14 L2 4.5 C2 0 8.5 0 8.5 3 L5 7 C9 7 9.5 9 9.5 11 C9.5 14.6 5.6 14.6 4.4 13.6"),
    ('Æ', "M0.5 14 L6 1 L12 1 M6 1 L6 14 L12 14 M6 7.5 L11 7.5 M2.6 9.5 L6 9.5"),
    ('Œ', "M12 1 L7 1 L7 14 L12 14 M7 7.5 L11 7.5 M7 2.5 C5.5 0 1.5 0.5 1.5 7.5 C1.5 14.5 5.5 15 7 12.5"),
    // Digits 0 and 9 (1 to 8 come from the board coordinates).
    ('0', "O5 7.5 3 6.5"),
    ('9', "M2.5 14 C7 14 8 9 8 5 C8 0.5 2 0.5 2 5 C2 9 8 9 8 5"),
    ('½', "M1 2.8 L3 1 L3 7.6 M9.4 1 L3.4 14 M6.8 9.4 C6.8 7 11 7 11 9.6 C11 11.4 6.8 12 6.8 14 L11.2 14"),
    // Punctuation and signs.
    ('.', "D2 13.4"),
    (',', "M2.4 12.8 L2.4 14 C2.4 15.4 2 16.2 1 16.8"),
    (':', "D2 7.4 D2 13.4"),
    (';', "D2.4 7.4 M2.4 12.8 L2.4 14 C2.4 15.4 2 16.2 1 16.8"),
    ('…', "D2 13.4 D5.5 13.4 D9 13.4"),
    ('-', "M1.5 9 L6 9"),
    ('‐', "M1.5 9 L6 9"),
    ('‑', "M1.5 9 L6 9"),
    ('–', "M1 9 L9 9"),
    ('—', "M0.5 9 L13.5 9"),
    ('−', "M1.5 8.5 L8.5 8.5"),
    ('+', "M5 5 L5 12 M1.5 8.5 L8.5 8.5"),
    ('±', "M5 4 L5 10 M2 7 L8 7 M2 13 L8 13"),
    ('=', "M1.5 6.5 L8.5 6.5 M1.5 10.5 L8.5 10.5"),
    ('×', "M2.2 5.7 L7.8 11.3 M7.8 5.7 L2.2 11.3"),
    ('÷', "M1.5 8.5 L8.5 8.5 D5 5 D5 12"),
    ('<', "M8 4 L2 8.5 L8 13"),
    ('>', "M2 4 L8 8.5 L2 13"),
    ('(', "M5 0.5 C1.4 4 1.4 12.5 5 16"),
    (')', "M2 0.5 C5.6 4 5.6 12.5 2 16"),
    ('[', "M5 0.5 L2 0.5 L2 16 L5 16"),
    (']', "M2 0.5 L5 0.5 L5 16 L2 16"),
    ('{', "M6 0.5 C3 0.5 4.5 7.2 2 8.2 C4.5 9.2 3 16 6 16"),
    ('}', "M2 0.5 C5 0.5 3.5 7.2 6 8.2 C3.5 9.2 5 16 2 16"),
    ('/', "M7 0.5 L2 15.5"),
    ('\\', "M2 0.5 L7 15.5"),
    ('|', "M2 0 L2 17"),
    ('_', "M0.5 16 L9 16"),
    ('\'', "M2 1 L2 4.6"),
    ('"', "M2 1 L2 4.6 M4.8 1 L4.8 4.6"),
    ('`', "M1.5 1.5 L3.5 4"),
    ('´', "M1.5 4 L3.5 1.5"),
    ('^', "M1.5 5 L4.5 1.5 L7.5 5"),
    ('~', "M1.5 9.5 C2.5 7 4 7.4 5 8.5 C6 9.6 7.5 10 8.5 7.5"),
    ('‘', "M2.6 4.8 L2.6 3.6 C2.6 2.2 2.2 1.4 1.2 0.8"),
    ('’', "M1.6 0.8 L1.6 2 C1.6 3.4 1.2 4.2 0.2 4.8"),
    ('‚', "M1.6 12.8 L1.6 14 C1.6 15.4 1.2 16.2 0.2 16.8"),
    ('“', "M2.6 4.8 L2.6 3.6 C2.6 2.2 2.2 1.4 1.2 0.8 M5.4 4.8 L5.4 3.6 C5.4 2.2 5 1.4 4 0.8"),
    ('”', "M1.6 0.8 L1.6 2 C1.6 3.4 1.2 4.2 0.2 4.8 M4.4 0.8 L4.4 2 C4.4 3.4 4 4.2 3 4.8"),
    ('„', "M1.6 12.8 L1.6 14 C1.6 15.4 1.2 16.2 0.2 16.8 M4.4 12.8 L4.4 14 C4.4 15.4 4 16.2 3 16.8"),
    ('«', "M4.5 6 L1.5 9 L4.5 12 M8 6 L5 9 L8 12"),
    ('»', "M1.5 6 L4.5 9 L1.5 12 M5 6 L8 9 L5 12"),
    ('‹', "M4.5 6 L1.5 9 L4.5 12"),
    ('›', "M1.5 6 L4.5 9 L1.5 12"),
    ('?', "M2 4 C2 0 8 0 8 4 C8 6.6 5 7 5 10 D5 13.4"),
    ('¿', "M8 11 C8 15 2 15 2 11 C2 8.4 5 8 5 5 D5 1.6"),
    ('!', "M2 1 L2 10 D2 13.4"),
    ('¡', "M2 5 L2 14 D2 1.6"),
    ('#', "M3.8 2 L2.8 14 M7.6 2 L6.6 14 M1 5.6 L9 5.6 M0.6 10.2 L8.6 10.2"),
    (
        '&',
        "M9 14 L3.2 5.6 C1.8 3.6 2.6 1 4.6 1 C6.6 1 7.4 3.6 5.6 5.6 L2.8 8.6 C0.6 11 2 14 4.6 14 C6.8 14 8 12.4 8.8 10",
    ),
    (
        '@',
        "M8 6 L8 11 C8 12.6 10.6 12.6 10.6 9 C10.6 4 6.8 3 4.8 3.6 C1.8 4.6 0.8 8 1.4 10.6 C2.2 14.2 6 15 8.6 13.6 \
           M8 8.5 C8 5.8 3.8 5.8 3.8 9 C3.8 12.2 8 12 8 9.5",
    ),
    ('*', "M5 2 L5 8 M2.4 3.5 L7.6 6.5 M7.6 3.5 L2.4 6.5"),
    ('%', "O3 4 1.6 2.6 O8 11 1.6 2.6 M9 1.5 L2 13.5"),
    ('$', "M8 3.8 C6.8 1.4 2 1.3 2 4.6 C2 8.2 8.2 6.8 8.2 10.4 C8.2 14.2 2.6 14.1 1.6 11.4 M5 -0.2 L5 15.4"),
    ('€', "M9 3 C7.6 0.4 2.6 0.4 2.6 7.5 C2.6 14.6 7.6 14.6 9 12 M0.8 6 L6.8 6 M0.8 9 L6.8 9"),
    ('£', "M8.5 3 C7.5 0.3 3.5 0.3 3.5 4 L3.5 10.5 C3.5 12.5 2.5 13.5 1.5 14 L8.5 14 M1.5 7.5 L6.5 7.5"),
    ('°', "O4 3.5 2 2"),
    ('·', "D2 8.6"),
    ('•', "O3 8.6 1.3 1.3"),
    (
        '§',
        "M7.5 2 C6.5 0.5 2.5 0.5 2.5 3 C2.5 6 7.5 5.5 7.5 9 C7.5 11 5 11.5 4 11.5 \
           M6 3.5 C5 3.5 2.5 4 2.5 6 C2.5 9.5 7.5 9 7.5 12 C7.5 14.5 3.5 14.5 2.5 13",
    ),
    ('©', "O6 7.5 5 5 M8 5.4 C7 3.8 3.8 4 3.8 7.5 C3.8 11 7 11.2 8 9.6"),
    ('✓', "M1.5 8.5 L4.5 12.5 L10 3"),
    ('∞', "M5 7.5 C3 3.5 -1 4.5 -1 7.5 C-1 10.5 3 11.5 5 7.5 C7 3.5 11 4.5 11 7.5 C11 10.5 7 11.5 5 7.5"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Design units above the top of the box (accents on capitals) and down to the lowest descender.
    const ASCENT: f32 = 3.0;
    const DESCENT: f32 = 18.5;

    #[test]
    fn printable_ascii_and_the_score_signs_have_glyphs() {
        let font = Font::get();
        for c in (' '..='~').chain("½–−…·ØøŁłßÆæ".chars()) {
            assert!(font.has(c), "{c:?} has no glyph");
        }
        assert!(!font.has('中'));
        assert!(!font.has('😀'));
    }

    #[test]
    fn accented_letters_are_built_from_their_base_and_accent() {
        let font = Font::get();
        for (c, _, _) in decompositions() {
            assert!(font.has(c), "{c} has no glyph");
        }
        // A decomposed "ř" lays out as the precomposed one.
        let style = Style::regular(20.0);
        assert_eq!(font.width("Dvor\u{30c}a\u{301}k", style), font.width("Dvořák", style));
        assert!(font.width("Dvořák", style) > font.width("Dvo", style));
    }

    #[test]
    fn glyphs_stay_in_their_box() {
        let font = Font::get();
        for g in font.glyphs.iter().chain([&font.missing]) {
            let Some(path) = &g.path else { continue };
            let b = path.compute_tight_bounds().unwrap();
            assert!(b.left() >= 0.0 && b.right() <= g.advance + 0.01, "{:?} is wider than its advance", g.c);
            assert!(b.top() >= -ASCENT && b.bottom() <= DESCENT, "{:?} leaves the line: {b:?}", g.c);
        }
    }

    #[test]
    fn digits_and_score_signs_are_tabular() {
        let font = Font::get();
        let style = Style::regular(15.0);
        let w = font.width("0", style);
        for c in "123456789+−".chars() {
            assert_eq!(font.width(&c.to_string(), style), w, "{c}");
        }
    }

    #[test]
    fn fitting_cuts_with_an_ellipsis() {
        let font = Font::get();
        let style = Style::bold(20.0);
        let long = "Magnus Carlsen the Unbelievably Long Named Champion of the World";
        let fitted = font.fit(long, 200.0, style);
        assert!(fitted.ends_with('…'), "{fitted}");
        assert!(font.width(&fitted, style) <= 200.0);
        assert_eq!(font.fit("Short", 200.0, style), "Short");
        assert_eq!(font.fit(long, 1.0, style), "…");
        // Accents stay with their letters.
        let name = "Dvor\u{30c}a\u{301}k Dvor\u{30c}a\u{301}k";
        for max in [30.0, 50.0, 60.0, 70.0, 90.0, 120.0] {
            let cut = font.fit(name, max, style);
            let kept = cut.strip_suffix('…').unwrap();
            assert!(name.starts_with(kept), "{cut}");
            assert!(combining_accent(name[kept.len()..].chars().next().unwrap()).is_none(), "{cut}");
        }
    }
}
