//! A text diagram of a board, for terminals and logs.

use tessera_rules::{Color, Position, Square};

/// Draws the board from `side`'s point of view: pieces as FEN letters, `.` an empty square (`+`/`-`
/// when White/Black owns it), a space a location without a square, `x` an anti-tile, `o` the chip.
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
    let mut out = String::new();
    let mut seen = [false; 5];
    for &rank in &ranks {
        out.push_str(&format!("{} ", rank + 1));
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            let c = match pos.piece_at(sq) {
                Some(p) => p.char(),
                None if pos.chip() == Some(sq) => 'o',
                None if pos.anti_tiles().contains(sq) => 'x',
                None if pos.squares().contains(sq) => match pos.owner(sq) {
                    Some(Color::White) => '+',
                    Some(Color::Black) => '-',
                    None => '.',
                },
                None => ' ',
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_rules::Variant;

    #[test]
    fn start_position_diagram() {
        let d = text_diagram(&Position::start(Variant::Chess), Color::White);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8  r n b q k b n r");
        assert_eq!(lines[7], "1  R N B Q K B N R");
        assert_eq!(lines[8], "   a b c d e f g h");
        let flipped = text_diagram(&Position::start(Variant::Chess), Color::Black);
        assert_eq!(flipped.lines().next(), Some("1  R N B K Q B N R"));
    }

    #[test]
    fn squares_owners_tiles_and_the_chip() {
        let hans =
            Position::from_fen(Variant::Hans38, "4k3/8/8/8/4+3/4*3/4-3/4K3 w - - 0 1 hand:0/0").unwrap();
        let d = text_diagram(&hans, Color::White);
        let rows: Vec<&str> = d.lines().collect();
        assert_eq!(rows[4], "4  . . . . + . . .");
        assert_eq!(rows[5], "3  . . . .   . . .");
        assert_eq!(rows[6], "2  . . . . - . . .");
        let tiled = Position::from_fen(Variant::TiledSquares, "4k3/8/8/8/4!3/8/8/4K3 w - - 0 1").unwrap();
        assert!(text_diagram(&tiled, Color::White).lines().nth(4).unwrap().contains('x'));
        let chip = Position::from_fen(Variant::BlueChip, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 chip:e4").unwrap();
        assert_eq!(text_diagram(&chip, Color::White).lines().nth(4), Some("4  . . . . o . . ."));
        // The marks are explained below the board, only those that appear.
        assert_eq!(
            d.lines().last(),
            Some("   (+ White's empty square · - Black's empty square · blank: no square)")
        );
        assert_eq!(text_diagram(&chip, Color::White).lines().last(), Some("   (o the chip)"));
        assert!(text_diagram(&Position::start(Variant::Chess), Color::White).ends_with("a b c d e f g h\n"));
    }
}
