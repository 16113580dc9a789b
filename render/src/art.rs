//! Tessera's own vector art: the six pieces and a small stroke font for coordinates, drawn for this
//! project as paths in a 100x100 (pieces) or 10x15 (glyphs) box and scaled to any size.
//!
//! Everything here is built once ([`Art::get`]) and transformed per image.

use std::sync::OnceLock;

use tessera_rules::Role;
use tiny_skia::{Path, PathBuilder};

/// One piece: the filled silhouette and the detail lines drawn over it.
#[derive(Debug)]
pub struct PieceArt {
    pub body: Path,
    pub details: Option<Path>,
}

#[derive(Debug)]
pub struct Art {
    pieces: [PieceArt; 6],
    glyphs: Vec<(char, Path)>,
}

impl Art {
    pub fn get() -> &'static Art {
        static ART: OnceLock<Art> = OnceLock::new();
        ART.get_or_init(Art::build)
    }

    pub fn piece(&self, role: Role) -> &PieceArt {
        &self.pieces[role.index()]
    }

    pub fn glyph(&self, c: char) -> Option<&Path> {
        self.glyphs.iter().find(|(g, _)| *g == c).map(|(_, p)| p)
    }

    fn build() -> Art {
        Art {
            pieces: [pawn(), knight(), bishop(), rook(), queen(), king()],
            glyphs: "abcdefgh12345678∞".chars().map(|c| (c, glyph(c))).collect(),
        }
    }
}

fn finish(pb: PathBuilder) -> Path {
    pb.finish().expect("piece art paths are not empty")
}

/// The plinth every piece stands on.
fn base(pb: &mut PathBuilder, top: f32) {
    pb.move_to(22.0, 88.0);
    pb.line_to(78.0, 88.0);
    pb.line_to(78.0, top + 4.0);
    pb.quad_to(78.0, top, 74.0, top);
    pb.line_to(26.0, top);
    pb.quad_to(22.0, top, 22.0, top + 4.0);
    pb.close();
}

fn pawn() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    pb.move_to(34.0, 76.0);
    pb.cubic_to(34.0, 62.0, 40.0, 52.0, 44.0, 46.0);
    pb.line_to(56.0, 46.0);
    pb.cubic_to(60.0, 52.0, 66.0, 62.0, 66.0, 76.0);
    pb.close();
    pb.push_rect(tiny_skia::Rect::from_xywh(38.0, 42.0, 24.0, 6.0).expect("valid rect"));
    pb.push_circle(50.0, 30.0, 14.0);
    let mut d = PathBuilder::new();
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

fn rook() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    pb.move_to(30.0, 76.0);
    pb.line_to(33.0, 40.0);
    pb.line_to(67.0, 40.0);
    pb.line_to(70.0, 76.0);
    pb.close();
    pb.move_to(26.0, 40.0);
    pb.line_to(26.0, 16.0);
    pb.line_to(36.0, 16.0);
    pb.line_to(36.0, 24.0);
    pb.line_to(45.0, 24.0);
    pb.line_to(45.0, 16.0);
    pb.line_to(55.0, 16.0);
    pb.line_to(55.0, 24.0);
    pb.line_to(64.0, 24.0);
    pb.line_to(64.0, 16.0);
    pb.line_to(74.0, 16.0);
    pb.line_to(74.0, 40.0);
    pb.close();
    let mut d = PathBuilder::new();
    d.move_to(30.0, 40.0);
    d.line_to(70.0, 40.0);
    d.move_to(31.0, 70.0);
    d.line_to(69.0, 70.0);
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

fn knight() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    // A horse's head looking left: mane down the back, muzzle to the left.
    pb.move_to(30.0, 76.0);
    pb.cubic_to(30.0, 66.0, 38.0, 60.0, 44.0, 52.0);
    pb.cubic_to(40.0, 50.0, 34.0, 54.0, 28.0, 58.0);
    pb.cubic_to(22.0, 60.0, 16.0, 56.0, 18.0, 48.0);
    pb.cubic_to(22.0, 38.0, 30.0, 28.0, 40.0, 20.0);
    pb.line_to(42.0, 10.0);
    pb.line_to(50.0, 17.0);
    pb.cubic_to(66.0, 20.0, 76.0, 38.0, 74.0, 58.0);
    pb.line_to(72.0, 76.0);
    pb.close();
    let mut d = PathBuilder::new();
    d.push_circle(40.0, 31.0, 2.5);
    d.move_to(24.0, 49.0);
    d.line_to(28.0, 47.0);
    d.move_to(54.0, 24.0);
    d.cubic_to(62.0, 34.0, 64.0, 48.0, 62.0, 66.0);
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

fn bishop() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    pb.move_to(34.0, 76.0);
    pb.line_to(38.0, 62.0);
    pb.line_to(62.0, 62.0);
    pb.line_to(66.0, 76.0);
    pb.close();
    pb.move_to(50.0, 18.0);
    pb.cubic_to(66.0, 28.0, 70.0, 46.0, 62.0, 58.0);
    pb.line_to(38.0, 58.0);
    pb.cubic_to(30.0, 46.0, 34.0, 28.0, 50.0, 18.0);
    pb.close();
    pb.push_rect(tiny_skia::Rect::from_xywh(36.0, 56.0, 28.0, 7.0).expect("valid rect"));
    pb.push_circle(50.0, 13.0, 6.0);
    let mut d = PathBuilder::new();
    d.move_to(57.0, 29.0);
    d.line_to(47.0, 43.0);
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

fn queen() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    pb.move_to(26.0, 76.0);
    pb.line_to(16.0, 30.0);
    pb.line_to(30.0, 52.0);
    pb.line_to(33.0, 22.0);
    pb.line_to(43.0, 48.0);
    pb.line_to(50.0, 16.0);
    pb.line_to(57.0, 48.0);
    pb.line_to(67.0, 22.0);
    pb.line_to(70.0, 52.0);
    pb.line_to(84.0, 30.0);
    pb.line_to(74.0, 76.0);
    pb.close();
    for (x, y) in [(16.0, 28.0), (33.0, 19.0), (50.0, 12.0), (67.0, 19.0), (84.0, 28.0)] {
        pb.push_circle(x, y, 5.0);
    }
    let mut d = PathBuilder::new();
    d.move_to(28.0, 66.0);
    d.line_to(72.0, 66.0);
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

fn king() -> PieceArt {
    let mut pb = PathBuilder::new();
    base(&mut pb, 76.0);
    pb.move_to(26.0, 76.0);
    pb.cubic_to(14.0, 56.0, 20.0, 36.0, 36.0, 38.0);
    pb.cubic_to(43.0, 39.0, 48.0, 44.0, 50.0, 50.0);
    pb.cubic_to(52.0, 44.0, 57.0, 39.0, 64.0, 38.0);
    pb.cubic_to(80.0, 36.0, 86.0, 56.0, 74.0, 76.0);
    pb.close();
    pb.push_rect(tiny_skia::Rect::from_xywh(46.0, 6.0, 8.0, 30.0).expect("valid rect"));
    pb.push_rect(tiny_skia::Rect::from_xywh(38.0, 13.0, 24.0, 8.0).expect("valid rect"));
    let mut d = PathBuilder::new();
    d.move_to(28.0, 66.0);
    d.line_to(72.0, 66.0);
    d.move_to(50.0, 50.0);
    d.line_to(50.0, 66.0);
    d.move_to(26.0, 80.0);
    d.line_to(74.0, 80.0);
    PieceArt { body: finish(pb), details: d.finish() }
}

/// Coordinates and the infinity sign, as strokes in a 10x15 box.
fn glyph(c: char) -> Path {
    let mut pb = PathBuilder::new();
    let bowl = |pb: &mut PathBuilder| {
        pb.move_to(8.0, 9.5);
        pb.cubic_to(8.0, 5.5, 2.0, 5.5, 2.0, 10.0);
        pb.cubic_to(2.0, 14.5, 8.0, 14.5, 8.0, 10.5);
    };
    match c {
        'a' => {
            pb.move_to(8.0, 6.0);
            pb.line_to(8.0, 14.0);
            bowl(&mut pb);
        }
        'b' => {
            pb.move_to(2.0, 1.0);
            pb.line_to(2.0, 14.0);
            pb.move_to(2.0, 9.5);
            pb.cubic_to(2.0, 5.5, 8.0, 5.5, 8.0, 10.0);
            pb.cubic_to(8.0, 14.5, 2.0, 14.5, 2.0, 10.5);
        }
        'c' => {
            pb.move_to(8.0, 7.0);
            pb.cubic_to(6.0, 5.0, 2.0, 6.0, 2.0, 10.0);
            pb.cubic_to(2.0, 14.0, 6.0, 15.0, 8.0, 13.0);
        }
        'd' => {
            pb.move_to(8.0, 1.0);
            pb.line_to(8.0, 14.0);
            bowl(&mut pb);
        }
        'e' => {
            pb.move_to(2.0, 10.0);
            pb.line_to(8.0, 10.0);
            pb.cubic_to(8.0, 5.5, 2.0, 5.0, 2.0, 10.0);
            pb.cubic_to(2.0, 14.5, 6.0, 15.0, 8.0, 13.0);
        }
        'f' => {
            pb.move_to(8.0, 1.5);
            pb.cubic_to(6.0, 0.5, 4.0, 1.0, 4.0, 4.0);
            pb.line_to(4.0, 14.0);
            pb.move_to(1.5, 6.0);
            pb.line_to(7.5, 6.0);
        }
        'g' => {
            pb.move_to(8.0, 6.0);
            pb.line_to(8.0, 15.0);
            pb.cubic_to(8.0, 18.0, 3.0, 18.0, 2.0, 16.0);
            bowl(&mut pb);
        }
        'h' => {
            pb.move_to(2.0, 1.0);
            pb.line_to(2.0, 14.0);
            pb.move_to(2.0, 9.0);
            pb.cubic_to(2.0, 6.0, 8.0, 5.0, 8.0, 9.0);
            pb.line_to(8.0, 14.0);
        }
        '1' => {
            pb.move_to(2.5, 3.5);
            pb.line_to(5.5, 1.0);
            pb.line_to(5.5, 14.0);
            pb.move_to(2.5, 14.0);
            pb.line_to(8.5, 14.0);
        }
        '2' => {
            pb.move_to(2.0, 4.0);
            pb.cubic_to(2.0, 0.0, 8.0, 0.0, 8.0, 4.0);
            pb.cubic_to(8.0, 7.0, 2.0, 10.0, 2.0, 14.0);
            pb.line_to(8.5, 14.0);
        }
        '3' => {
            pb.move_to(2.0, 2.5);
            pb.cubic_to(4.0, 0.0, 8.0, 0.5, 8.0, 4.0);
            pb.cubic_to(8.0, 6.0, 6.0, 7.0, 4.5, 7.0);
            pb.cubic_to(7.0, 7.0, 8.5, 8.5, 8.5, 10.5);
            pb.cubic_to(8.5, 14.5, 3.0, 15.0, 1.5, 12.0);
        }
        '4' => {
            pb.move_to(6.5, 14.0);
            pb.line_to(6.5, 1.0);
            pb.line_to(1.0, 10.0);
            pb.line_to(9.0, 10.0);
        }
        '5' => {
            pb.move_to(8.0, 1.0);
            pb.line_to(3.0, 1.0);
            pb.line_to(2.5, 7.0);
            pb.cubic_to(5.0, 5.0, 8.5, 6.0, 8.5, 10.0);
            pb.cubic_to(8.5, 14.5, 3.0, 15.0, 1.5, 12.0);
        }
        '6' => {
            pb.move_to(7.5, 1.0);
            pb.cubic_to(3.0, 1.0, 2.0, 6.0, 2.0, 10.0);
            pb.cubic_to(2.0, 14.5, 8.0, 14.5, 8.0, 10.0);
            pb.cubic_to(8.0, 6.0, 2.0, 6.0, 2.0, 10.0);
        }
        '7' => {
            pb.move_to(1.5, 1.0);
            pb.line_to(8.5, 1.0);
            pb.line_to(4.0, 14.0);
        }
        '8' => {
            pb.move_to(5.0, 7.0);
            pb.cubic_to(1.5, 7.0, 1.5, 1.0, 5.0, 1.0);
            pb.cubic_to(8.5, 1.0, 8.5, 7.0, 5.0, 7.0);
            pb.cubic_to(1.0, 7.0, 1.0, 14.0, 5.0, 14.0);
            pb.cubic_to(9.0, 14.0, 9.0, 7.0, 5.0, 7.0);
        }
        _ => {
            // The infinity sign: unlimited squares in hand.
            pb.move_to(5.0, 7.5);
            pb.cubic_to(3.0, 3.5, -1.0, 4.5, -1.0, 7.5);
            pb.cubic_to(-1.0, 10.5, 3.0, 11.5, 5.0, 7.5);
            pb.cubic_to(7.0, 3.5, 11.0, 4.5, 11.0, 7.5);
            pb.cubic_to(11.0, 10.5, 7.0, 11.5, 5.0, 7.5);
        }
    }
    pb.finish().expect("glyph paths are not empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_and_glyph_is_drawn_inside_its_box() {
        let art = Art::get();
        for role in Role::ALL {
            let b = art.piece(role).body.bounds();
            assert!(
                b.left() >= 10.0 && b.right() <= 90.0 && b.top() >= 0.0 && b.bottom() <= 90.0,
                "{role:?}"
            );
        }
        for c in "abcdefgh12345678∞".chars() {
            let b = art.glyph(c).unwrap().bounds();
            assert!(b.left() >= -1.5 && b.right() <= 11.5 && b.bottom() <= 18.5, "{c}");
        }
    }
}
