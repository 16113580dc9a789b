//! A text diagram of a board, for terminals and logs.

use tessera_rules::{Color, Position, Square};

/// Draws the board from `side`'s point of view: pieces as FEN letters, `.` an empty square,
/// a space a location without a square.
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
    for &rank in &ranks {
        out.push_str(&format!("{} ", rank + 1));
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            let c = match pos.piece_at(sq) {
                Some(p) => p.char(),
                None if pos.squares().contains(sq) => '.',
                None => ' ',
            };
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
}
