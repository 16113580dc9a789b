//! Tessera's text position format: FEN for plain chess, extended for boards that change.
//! The format is documented in `docs/position-format.md`; parsing validates, formatting round-trips.

use std::fmt;

use crate::mechanic::{Mechanic, Room, dispatch};
use crate::position::Position;
use crate::setup::Setup;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::variant::Variant;

/// Why a position text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError(pub String);

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PositionError {}

fn err<T>(msg: impl Into<String>) -> Result<T, PositionError> {
    Err(PositionError(msg.into()))
}

/// Longest position text we read; anything longer is not a position.
const MAX_LEN: usize = 1024;

impl Position {
    /// Parses and validates a position of `variant`: the text is read into a [`Setup`], which
    /// [`Position::from_setup`] checks.
    pub fn from_fen(variant: Variant, text: &str) -> Result<Position, PositionError> {
        Position::from_setup(variant, read_setup(variant, text)?)
    }

    /// The position in Tessera's text format.
    pub fn fen(&self) -> String {
        dispatch!(self.room, M => self.fen_with::<M>())
    }

    fn fen_with<M: Mechanic>(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..self.height).rev() {
            let mut empty = 0;
            for file in 0..self.width {
                let sq = Square::from_coords(file, rank);
                let token = match self.piece_at(sq) {
                    Some(piece) => Some(piece.char()),
                    None => M::cell_mark(self, sq),
                };
                match token {
                    Some(c) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(if self.turn == Color::White { 'w' } else { 'b' });
        out.push(' ');
        out.push_str(&M::castling_text(self).unwrap_or_else(|| castling_text(self)));
        out.push(' ');
        match self.ep {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        M::write_extensions(self, &mut out);
        out
    }
}

/// Reads a position text into a [`Setup`]: everything the text says, checked only as text.
pub fn read_setup(variant: Variant, text: &str) -> Result<Setup, PositionError> {
    dispatch!(Room::of_variant(variant), M => read_setup_with::<M>(variant, text))
}

fn read_setup_with<M: Mechanic>(variant: Variant, text: &str) -> Result<Setup, PositionError> {
    if text.len() > MAX_LEN {
        return err(format!("a position text is at most {MAX_LEN} characters"));
    }
    let (extensions, fields): (Vec<&str>, Vec<&str>) = text.split_whitespace().partition(|f| f.contains(':'));
    if fields.is_empty() {
        return err(format!(
            "the position text is empty; write a placement and side to move at least, like {}",
            Position::start(variant).fen()
        ));
    }
    if extensions.len() > 8 {
        return err(format!(
            "{} extension fields; a position has at most one each of hand:, lock:, carried: and chip:",
            extensions.len()
        ));
    }
    if fields.len() > 6 {
        return err(format!(
            "too many fields: expected placement, side to move, castling, en passant, halfmove and fullmove \
             counters, got {}",
            fields.len()
        ));
    }
    let (width, height) = M::board_size(variant, fields[0])?;
    let mut setup = Setup::empty(width, height);
    parse_placement::<M>(&mut setup, variant, fields[0])?;
    for field in &extensions {
        let (key, value) = field.split_once(':').expect("extension fields contain ':'");
        match M::read_extension(&mut setup, variant, key, value) {
            Some(read) => read?,
            None => return err(format!("\"{field}\" is not part of a {variant} position")),
        }
    }
    setup.turn = match fields.get(1).copied().unwrap_or("w") {
        "w" | "W" => Color::White,
        "b" | "B" => Color::Black,
        other => return err(format!("side to move must be \"w\" or \"b\", not \"{other}\"")),
    };
    let castling = fields.get(2).copied().unwrap_or("-");
    if castling != "-" {
        setup.castling = match M::read_castling(&setup, castling) {
            Some(read) => read?,
            None => parse_castling(&setup, castling)?,
        };
    }
    setup.ep = match fields.get(3).copied().unwrap_or("-") {
        "-" => None,
        s => Some(Square::parse(s).ok_or_else(|| PositionError(format!("\"{s}\" is not a square")))?),
    };
    setup.halfmoves = parse_counter(fields.get(4).copied(), 0, "halfmove clock")?;
    setup.fullmoves = parse_counter(fields.get(5).copied(), 1, "fullmove number")?;
    Ok(setup)
}

fn parse_counter(field: Option<&str>, default: u32, what: &str) -> Result<u32, PositionError> {
    match field {
        None => Ok(default),
        Some(s) => {
            s.parse().map_err(|_| PositionError(format!("the {what} must be a whole number, not \"{s}\"")))
        }
    }
}

fn parse_placement<M: Mechanic>(
    setup: &mut Setup,
    variant: Variant,
    text: &str,
) -> Result<(), PositionError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != setup.height as usize {
        return err(format!("the board needs {} ranks separated by '/', found {}", setup.height, rows.len()));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = setup.height - 1 - i as u8;
        let mut file = 0u8;
        for c in row.chars() {
            let cells = match c {
                '1'..='8' => c as u8 - b'0',
                _ => 1,
            };
            if file + cells > setup.width {
                return err(format!("rank {} is longer than {} files", rank + 1, setup.width));
            }
            let sq = Square::from_coords(file, rank);
            match c {
                '1'..='8' => {
                    for f in file..file + cells {
                        setup.squares |= Square::from_coords(f, rank).bb();
                    }
                }
                _ if M::read_mark(setup, variant, c, sq) => {}
                '*' => {
                    return err(format!("{variant} has no holes: '*' on rank {} is not allowed", rank + 1));
                }
                '+' | '-' => {
                    return err(format!(
                        "squares have no owners in {variant}: '{c}' on rank {} is not allowed",
                        rank + 1
                    ));
                }
                _ => {
                    let piece = Piece::from_char(c).ok_or_else(|| {
                        PositionError(format!(
                            "'{c}' on rank {} is not a piece letter (PNBRQK, pnbrqk)",
                            rank + 1
                        ))
                    })?;
                    setup.squares |= sq.bb();
                    setup.put(sq, piece);
                }
            }
            file += cells;
        }
        if file != setup.width {
            return err(format!("rank {} has {} files, expected {}", rank + 1, file, setup.width));
        }
    }
    Ok(())
}

/// `KQkq` name the outermost rook on each wing; a file letter (X-FEN) names any other rook.
fn parse_castling(setup: &Setup, text: &str) -> Result<Bitboard, PositionError> {
    let mut castling = Bitboard::EMPTY;
    for c in text.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let rank = color.first_rank(setup.height);
        let rooks = setup.pieces(color, Role::Rook) & Bitboard::rank(rank);
        let Some(king) = setup.pieces(color, Role::King).into_iter().find(|k| k.rank() == rank) else {
            return err(format!("castling right '{c}' needs the {color} king on its first rank"));
        };
        let rook = match c.to_ascii_lowercase() {
            'k' => rooks.into_iter().filter(|r| r.file() > king.file()).last(),
            'q' => rooks.into_iter().find(|r| r.file() < king.file()),
            f @ 'a'..='h' => Some(Square::from_coords(f as u8 - b'a', rank)).filter(|sq| rooks.contains(*sq)),
            _ => {
                return err(format!("'{c}' is not a castling right (use KQkq, file letters, or -)"));
            }
        };
        match rook {
            Some(r) => castling |= r.bb(),
            None => return err(format!("castling right '{c}' has no {color} rook to castle with")),
        }
    }
    Ok(castling)
}

fn castling_text(pos: &Position) -> String {
    let mut out = String::new();
    for color in Color::ALL {
        let rank = color.first_rank(pos.height);
        let rooks = pos.castling & Bitboard::rank(rank);
        let Some(king) = pos.king(color) else { continue };
        let all_rooks = pos.pieces(color, Role::Rook) & Bitboard::rank(rank);
        let outer_k = all_rooks.into_iter().filter(|r| r.file() > king.file()).last();
        let outer_q = all_rooks.into_iter().find(|r| r.file() < king.file());
        let mut letters: Vec<(u8, char)> = Vec::new();
        for rook in rooks {
            let c = if Some(rook) == outer_k {
                'k'
            } else if Some(rook) == outer_q {
                'q'
            } else {
                rook.file_char()
            };
            letters.push((rook.file(), c));
        }
        // FEN order: king side first, then queen side.
        letters.sort_by_key(|&(file, c)| (c != 'k', std::cmp::Reverse(file)));
        for (_, c) in letters {
            out.push(if color == Color::White { c.to_ascii_uppercase() } else { c });
        }
    }
    if out.is_empty() { "-".to_string() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/R1R1K2R w KC - 3 40",
            "4k3/8/8/8/8/8/8/4K3 b - - 99 120",
        ] {
            let pos = Position::from_fen(Variant::CHESS, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(pos.fen(), fen);
        }
    }

    #[test]
    fn missing_counters_default() {
        let pos = Position::from_fen(Variant::CHESS, "4k3/8/8/8/8/8/8/4K3 w -").unwrap();
        assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    }

    #[test]
    fn rejects_bad_texts_with_reasons() {
        let bad = |fen: &str| Position::from_fen(Variant::CHESS, fen).unwrap_err().to_string();
        assert!(bad("").contains("empty"));
        assert!(bad("").contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"), "an example to copy");
        let crowded = format!("4k3/8/8/8/8/8/8/4K3 w - - 0 1 {}", "lock:e4 ".repeat(9));
        assert!(bad(&crowded).contains("9 extension fields") && bad(&crowded).contains("hand:, lock:"));
        assert!(bad("8/8/8/8/8/8/8/8 w - - 0 1").contains("exactly one king"));
        assert!(bad("4k3/8/8/8/8/8/8 w - - 0 1").contains("8 ranks"));
        assert!(bad("4k3/9/8/8/8/8/8/4K3 w - - 0 1").contains("piece letter"));
        assert!(bad("4k3/8/8/8/8/8/8/4K2 w - - 0 1").contains("7 files"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 x - - 0 1").contains("side to move"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w K - 0 1").contains("no white rook"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w - e3 0 1").contains("en passant"));
        assert!(bad("P3k3/8/8/8/8/8/8/4K3 w - - 0 1").contains("pawns"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w - - x 1").contains("halfmove"));
    }

    #[test]
    fn side_not_to_move_in_check_is_rejected() {
        let e = Position::from_fen(Variant::CHESS, "4k2R/8/8/8/8/8/8/4K3 w - - 0 1").unwrap_err();
        assert!(e.to_string().contains("black is in check"), "{e}");
    }
}
