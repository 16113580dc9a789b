//! A text diagram of a board, for terminals and logs.

use tessera_rules::view::{BoardView, QuadView};
use tessera_rules::{Color, Position, Square};

/// Draws the board from `side`'s point of view: pieces as FEN letters, `.` an empty square (`+`/`-`
/// when White/Black owns it), a space a location without a square, `x` an anti-tile, `o` the chip.
///
/// A board with quad-squares (Quad-Square Chess) is drawn three characters a cell, each quad as
/// one bracketed 2x2 block: its name on the upper row, the one or two pieces on it below.
pub fn text_diagram(pos: &Position, side: Color) -> String {
    let (width, height) = pos.size();
    let ranks: Vec<u8> = match side {
        Color::White => (0..height).rev().collect(),
        Color::Black => (0..height).collect(),
    };
    let files: Vec<u8> = match side {
        Color::White => (0..width).collect(),
        Color::Black => (0..width).rev().collect(),
    };
    if pos.variant().rules().quad_squares {
        return quad_diagram(pos, &BoardView::new(pos, None).quads, &files, &ranks);
    }
    let mut out = String::new();
    let mut seen = [false; 5];
    for &rank in &ranks {
        out.push_str(&format!("{} ", rank + 1));
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            let c = mark(pos, sq);
            if let Some(i) = "+- xo".find(c).filter(|_| pos.board_mask().contains(sq)) {
                seen[i] = true;
            }
            out.push(' ');
            out.push(c);
        }
        out.push('\n');
    }
    out.push_str("  ");
    for &file in &files {
        out.push(' ');
        out.push((b'a' + file) as char);
    }
    out.push('\n');
    // The marks that are not pieces, explained where they appear.
    const MEANING: [&str; 5] =
        ["+ White's empty square", "- Black's empty square", "blank: no square", "x anti-tile", "o the chip"];
    let legend: Vec<&str> = MEANING.iter().zip(seen).filter(|(_, s)| *s).map(|(m, _)| *m).collect();
    if !legend.is_empty() {
        out.push_str(&format!("   ({})\n", legend.join(" · ")));
    }
    out
}

/// What a location without a quad shows: its piece, else what it is.
fn mark(pos: &Position, sq: Square) -> char {
    match pos.piece_at(sq) {
        Some(p) => p.char(),
        None if pos.chip() == Some(sq) => 'o',
        None if pos.anti_tiles().contains(sq) => 'x',
        None if pos.squares().contains(sq) => match pos.owner(sq) {
            Some(Color::White) => '+',
            Some(Color::Black) => '-',
            None => '.',
        },
        None => ' ',
    }
}

/// The quad a cell belongs to.
fn quad_of(quads: &[QuadView], file: u8, rank: u8) -> Option<&QuadView> {
    quads.iter().find(|q| (q.file..q.file + 2).contains(&file) && (q.rank..q.rank + 2).contains(&rank))
}

/// Quad-Square Chess's diagram: every cell ` x `, a quad `[ S1 ]` above `[ Nq ]` (its pieces), so
/// a piece on a quad stands on the quad, not on one of its cells.
fn quad_diagram(pos: &Position, quads: &[QuadView], files: &[u8], ranks: &[u8]) -> String {
    let mut out = String::new();
    for (row, &rank) in ranks.iter().enumerate() {
        let mut line = format!("{} ", rank + 1);
        let mut column = 0;
        while column < files.len() {
            let file = files[column];
            let Some(quad) = quad_of(quads, file, rank) else {
                line.push_str(&format!(" {} ", mark(pos, Square::from_coords(file, rank))));
                column += 1;
                continue;
            };
            // The quad's upper row on the screen carries its name, the lower one its pieces.
            let upper = row == 0 || quad_of(quads, file, ranks[row - 1]) != Some(quad);
            let inside =
                if upper { quad.name.to_string() } else { quad.pieces.iter().map(|p| p.char()).collect() };
            line.push_str(&format!("[{inside:^4}]"));
            column += 2;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("  ");
    for &file in files {
        out.push_str(&format!(" {} ", (b'a' + file) as char));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out.push_str("   ([ ] a quad-square: its name, and below it the one or two pieces on it)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::Variant;

    #[test]
    fn start_position_diagram() {
        let d = text_diagram(&Position::start(Variant::CHESS), Color::White);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8  r n b q k b n r");
        assert_eq!(lines[7], "1  R N B Q K B N R");
        assert_eq!(lines[8], "   a b c d e f g h");
        let flipped = text_diagram(&Position::start(Variant::CHESS), Color::Black);
        assert_eq!(flipped.lines().next(), Some("1  R N B K Q B N R"));
    }

    #[test]
    fn squares_owners_tiles_and_the_chip() {
        let hans =
            Position::from_fen(Variant::HANS38, "4k3/8/8/8/4+3/4*3/4-3/4K3 w - - 0 1 hand:0/0").unwrap();
        let d = text_diagram(&hans, Color::White);
        let rows: Vec<&str> = d.lines().collect();
        assert_eq!(rows[4], "4  . . . . + . . .");
        assert_eq!(rows[5], "3  . . . .   . . .");
        assert_eq!(rows[6], "2  . . . . - . . .");
        let tiled = Position::from_fen(Variant::TILED_SQUARES, "4k3/8/8/8/4!3/8/8/4K3 w - - 0 1").unwrap();
        assert!(text_diagram(&tiled, Color::White).lines().nth(4).unwrap().contains('x'));
        let chip = Position::from_fen(Variant::BLUE_CHIP, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 chip:e4").unwrap();
        assert_eq!(text_diagram(&chip, Color::White).lines().nth(4), Some("4  . . . . o . . ."));
        // The marks are explained below the board, only those that appear.
        assert_eq!(
            d.lines().last(),
            Some("   (+ White's empty square · - Black's empty square · blank: no square)")
        );
        assert_eq!(text_diagram(&chip, Color::White).lines().last(), Some("   (o the chip)"));
        assert!(text_diagram(&Position::start(Variant::CHESS), Color::White).ends_with("a b c d e f g h\n"));
    }

    #[test]
    fn quads_are_blocks_with_their_name_and_pieces() {
        let start = text_diagram(&Position::start(Variant::QUAD_SQUARE), Color::White);
        let rows: Vec<&str> = start.lines().collect();
        // The knight on S2 stands on S2, drawn inside its block, not on f1.
        assert_eq!(rows[0], "8 [ S3 ] b  k  q [ S4 ]");
        assert_eq!(rows[1], "7 [ r  ] .  .  . [ n  ]");
        assert_eq!(rows[3], "5  . [ M1 ] . [ M2 ] .");
        assert_eq!(rows[4], "4  . [    ] . [    ] .");
        assert_eq!(rows[6], "2 [ S1 ] .  .  . [ S2 ]");
        assert_eq!(rows[7], "1 [ R  ] B  K  Q [ N  ]");
        assert_eq!(rows[8], "   a  b  c  d  e  f  g");
        assert!(rows[9].contains("quad-square"), "{start}");

        // S1 and S3 empty, M2 and S4 one piece each, M1 two white pieces, S2 a knight of each side.
        let pos = Position::from_fen(Variant::QUAD_SQUARE, "3k3/5r1/7/7/1RB1P2/7/7/2K2Nn w - - 0 1").unwrap();
        let white = text_diagram(&pos, Color::White);
        let expected = [
            "8 [ S3 ] .  k  . [ S4 ]",
            "7 [    ] .  .  . [ r  ]",
            "6  .  .  .  .  .  .  .",
            "5  . [ M1 ] . [ M2 ] .",
            "4  . [ BR ] . [ P  ] .",
            "3  .  .  .  .  .  .  .",
            "2 [ S1 ] .  .  . [ S2 ]",
            "1 [    ] K  .  . [ Nn ]",
            "   a  b  c  d  e  f  g",
        ];
        assert_eq!(white.lines().take(9).collect::<Vec<_>>(), expected, "{white}");
        // From Black's side the blocks turn round with the board; the name stays on top.
        let black = text_diagram(&pos, Color::Black);
        let expected = [
            "1 [ S2 ] .  .  K [ S1 ]",
            "2 [ Nn ] .  .  . [    ]",
            "3  .  .  .  .  .  .  .",
            "4  . [ M2 ] . [ M1 ] .",
            "5  . [ P  ] . [ BR ] .",
            "6  .  .  .  .  .  .  .",
            "7 [ S4 ] .  .  . [ S3 ]",
            "8 [ r  ] .  k  . [    ]",
            "   g  f  e  d  c  b  a",
        ];
        assert_eq!(black.lines().take(9).collect::<Vec<_>>(), expected, "{black}");
        // Other boards keep their two-character cells and have no quad legend.
        assert!(!text_diagram(&Position::start(Variant::CHESS), Color::White).contains("quad"));
    }
}
