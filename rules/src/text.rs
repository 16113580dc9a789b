//! Tessera's text position format: FEN for plain chess, extended for boards that change.
//! The format is documented in `docs/position-format.md`; parsing validates, formatting round-trips.

use std::fmt;

use crate::position::Position;
use crate::quad;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::variant::{Reserve, Variant};

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
    /// Parses and validates a position of `variant`.
    pub fn from_fen(variant: Variant, text: &str) -> Result<Position, PositionError> {
        if text.len() > MAX_LEN {
            return err(format!("a position text is at most {MAX_LEN} characters"));
        }
        let (extensions, fields): (Vec<&str>, Vec<&str>) =
            text.split_whitespace().partition(|f| f.contains(':'));
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
        let (width, height) = if variant.rules().shrink {
            // A shrunk board is as large as its placement says (S2).
            shrunk_size(fields[0])?
        } else {
            (variant.rules().width, 8u8)
        };
        let mut pos = Position {
            variant,
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            squares: Bitboard::EMPTY,
            width,
            height,
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            owners: [Bitboard::EMPTY; 2],
            reserves: [0; 2],
            locked: Bitboard::EMPTY,
            carried: Bitboard::EMPTY,
            chip: None,
            anti: Bitboard::EMPTY,
        };
        parse_placement(&mut pos, fields[0])?;
        if pos.rules().quad_squares {
            check_quad_placement(&pos)?;
            quad::normalise(&mut pos);
        }
        if pos.rules().owned_squares {
            // An occupied square is its occupant's (L10).
            for color in Color::ALL {
                pos.owners[color.index()] |= pos.by_color(color);
            }
        }
        parse_extensions(&mut pos, &extensions)?;

        pos.turn = match fields.get(1).copied().unwrap_or("w") {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return err(format!("side to move must be \"w\" or \"b\", not \"{other}\"")),
        };
        parse_castling(&mut pos, fields.get(2).copied().unwrap_or("-"))?;
        pos.ep = match fields.get(3).copied().unwrap_or("-") {
            "-" => None,
            s => Some(Square::parse(s).ok_or_else(|| PositionError(format!("\"{s}\" is not a square")))?),
        };
        pos.halfmoves = parse_counter(fields.get(4).copied(), 0, "halfmove clock")?;
        pos.fullmoves = parse_counter(fields.get(5).copied(), 1, "fullmove number")?;
        if pos.fullmoves == 0 {
            return err("the fullmove number starts at 1");
        }
        validate(&pos)?;
        Ok(pos)
    }

    /// The position in Tessera's text format.
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..self.height).rev() {
            let mut empty = 0;
            for file in 0..self.width {
                let sq = Square::from_coords(file, rank);
                let token = match self.piece_at(sq) {
                    Some(piece) => Some(piece.char()),
                    None if self.anti.contains(sq) => Some('!'),
                    None if !self.squares.contains(sq) => Some('*'),
                    None => match self.owner(sq) {
                        Some(Color::White) => Some('+'),
                        Some(Color::Black) => Some('-'),
                        None => None,
                    },
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
        out.push_str(&castling_text(self));
        out.push(' ');
        match self.ep {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        if let Reserve::Finite(_) = self.rules().reserve {
            out.push_str(&format!(" hand:{}/{}", self.reserves[0], self.reserves[1]));
        }
        if let Some(chip) = self.chip {
            out.push_str(&format!(" chip:{chip}"));
        }
        for (key, squares) in [("lock", self.locked), ("carried", self.carried)] {
            if squares.any() {
                let names: Vec<String> = squares.into_iter().map(|sq| sq.to_string()).collect();
                out.push_str(&format!(" {key}:{}", names.join(",")));
            }
        }
        out
    }
}

/// `hand:W/B` squares in reserve, `lock:e4,f5` locked squares, `carried:c2` carried pawns.
fn parse_extensions(pos: &mut Position, extensions: &[&str]) -> Result<(), PositionError> {
    let variant = pos.variant;
    let mut hand_seen = false;
    for field in extensions {
        let (key, value) = field.split_once(':').expect("extension fields contain ':'");
        match key {
            "hand" if matches!(pos.rules().reserve, Reserve::Finite(_)) => {
                let parsed =
                    value.split_once('/').and_then(|(w, b)| Some([w.parse().ok()?, b.parse().ok()?]));
                pos.reserves = parsed.ok_or_else(|| {
                    PositionError(format!(
                        "hand:{value} should give White's and Black's squares in reserve, e.g. hand:3/2"
                    ))
                })?;
                hand_seen = true;
            }
            "lock" if pos.rules().square_actions => pos.locked = parse_squares(value, key)?,
            "carried" if pos.rules().carry => pos.carried = parse_squares(value, key)?,
            "chip" if pos.rules().chip => {
                let sq = Square::parse(value).ok_or_else(|| {
                    PositionError(format!("chip:{value} should name a square, like chip:e5"))
                })?;
                if pos.occupied().contains(sq) {
                    return err(format!("the chip stands on an empty square, and {sq} is occupied"));
                }
                pos.chip = Some(sq);
            }
            _ => return err(format!("\"{field}\" is not part of a {variant} position")),
        }
    }
    if let Reserve::Finite(n) = pos.rules().reserve {
        if !hand_seen {
            return err(format!("a {variant} position gives the squares in reserve, e.g. hand:{n}/{n}"));
        }
        if pos.reserves.iter().any(|&r| r > n) {
            return err(format!("nobody has more than {n} squares in reserve in {variant}"));
        }
    }
    if (pos.locked & !pos.squares).any() {
        return err("a locked location must hold a square");
    }
    // L5: one turn moves at most one square, and places at most one.
    let most_locked = if pos.rules().placement_locks { 2 } else { 1 };
    if pos.locked.count() > most_locked {
        return err(if most_locked == 1 {
            format!("lock: names one square in {variant}: the square the opponent moved last turn")
        } else {
            format!("lock: names at most two squares in {variant}: those the opponent placed and moved")
        });
    }
    if (pos.carried & !pos.by_role(Role::Pawn)).any() {
        return err("only pawns are marked as carried");
    }
    Ok(())
}

fn parse_squares(value: &str, key: &str) -> Result<Bitboard, PositionError> {
    let mut bb = Bitboard::EMPTY;
    for name in value.split(',') {
        let sq =
            Square::parse(name).ok_or_else(|| PositionError(format!("{key}: \"{name}\" is not a square")))?;
        bb |= sq.bb();
    }
    Ok(bb)
}

/// The board size a Shrink Chess placement describes: its ranks, and the files of its first rank.
fn shrunk_size(placement: &str) -> Result<(u8, u8), PositionError> {
    let rows: Vec<&str> = placement.split('/').collect();
    let width: u32 = rows[0].chars().map(|c| c.to_digit(10).unwrap_or(1)).sum();
    if !(1..=8).contains(&rows.len()) || !(1..=8).contains(&width) {
        return err("a shrunk board has 1 to 8 ranks of 1 to 8 files");
    }
    Ok((width as u8, rows.len() as u8))
}

fn parse_counter(field: Option<&str>, default: u32, what: &str) -> Result<u32, PositionError> {
    match field {
        None => Ok(default),
        Some(s) => {
            s.parse().map_err(|_| PositionError(format!("the {what} must be a whole number, not \"{s}\"")))
        }
    }
}

fn parse_placement(pos: &mut Position, text: &str) -> Result<(), PositionError> {
    let variant = pos.variant;
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != pos.height as usize {
        return err(format!("the board needs {} ranks separated by '/', found {}", pos.height, rows.len()));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = pos.height - 1 - i as u8;
        let mut file = 0u8;
        for c in row.chars() {
            let cells = match c {
                '1'..='8' => c as u8 - b'0',
                _ => 1,
            };
            if file + cells > pos.width {
                return err(format!("rank {} is longer than {} files", rank + 1, pos.width));
            }
            match c {
                '1'..='8' => {
                    for f in file..file + cells {
                        pos.squares |= Square::from_coords(f, rank).bb();
                    }
                }
                '*' if pos.rules().square_actions => {}
                '!' if pos.rules().tiles => pos.anti |= Square::from_coords(file, rank).bb(),
                '*' => {
                    return err(format!("{variant} has no holes: '*' on rank {} is not allowed", rank + 1));
                }
                '+' | '-' if pos.rules().owned_squares => {
                    let sq = Square::from_coords(file, rank);
                    pos.squares |= sq.bb();
                    let owner = if c == '+' { Color::White } else { Color::Black };
                    pos.owners[owner.index()] |= sq.bb();
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
                    let sq = Square::from_coords(file, rank);
                    pos.squares |= sq.bb();
                    pos.put(sq, piece);
                }
            }
            file += cells;
        }
        if file != pos.width {
            return err(format!("rank {} has {} files, expected {}", rank + 1, file, pos.width));
        }
    }
    Ok(())
}

/// `KQkq` name the outermost rook on each wing; a file letter (X-FEN) names any other rook.
fn parse_castling(pos: &mut Position, text: &str) -> Result<(), PositionError> {
    if text == "-" {
        return Ok(());
    }
    if pos.rules().quad_squares {
        return parse_quad_castling(pos, text);
    }
    for c in text.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let rank = color.first_rank(pos.height);
        let rooks = pos.pieces(color, Role::Rook) & Bitboard::rank(rank);
        let Some(king) = pos.pieces(color, Role::King).into_iter().find(|k| k.rank() == rank) else {
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
            Some(r) => pos.castling |= r.bb(),
            None => return err(format!("castling right '{c}' has no {color} rook to castle with")),
        }
    }
    Ok(())
}

fn castling_text(pos: &Position) -> String {
    let mut out = String::new();
    if pos.rules().quad_squares {
        for (color, letter) in [(Color::White, 'Q'), (Color::Black, 'q')] {
            if (pos.castling & quad::castling_rook_of(color)).any() {
                out.push(letter);
            }
        }
        return if out.is_empty() { "-".to_string() } else { out };
    }
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

/// Quad-Square Chess: one castling a side, with the rook on its start quad (S1, S3) and the king on
/// its first rank; written `Q`/`q` (`K`/`k` read alike).
fn parse_quad_castling(pos: &mut Position, text: &str) -> Result<(), PositionError> {
    for c in text.chars() {
        let color = match c {
            'K' | 'Q' => Color::White,
            'k' | 'q' => Color::Black,
            _ => return err(format!("'{c}' is not a castling right here (use Q, q or -)")),
        };
        let quad_cell = quad::castling_rook_of(color).first().expect("one castling quad a side");
        let rook_there =
            quad::occupants(pos, quad_cell).iter().any(|(_, p)| *p == Piece::new(color, Role::Rook));
        let king_home =
            pos.king(color).is_some_and(|k| k.rank() == color.first_rank(8) && quad::quad_at(k).is_none());
        if !rook_there || !king_home {
            return err(format!(
                "castling right '{c}' needs the {color} rook on its start quad and the king on its first rank"
            ));
        }
        pos.castling |= quad_cell.bb();
    }
    Ok(())
}

/// A quad's pieces are written on its two lower cells; the upper two stay empty.
fn check_quad_placement(pos: &Position) -> Result<(), PositionError> {
    for q in &quad::QUADS {
        if q.cells[2..].iter().any(|&c| pos.occupied().contains(c)) {
            return err(format!(
                "write the pieces on {} on its two lower cells ({} and {})",
                q.name, q.cells[0], q.cells[1]
            ));
        }
    }
    Ok(())
}

fn validate(pos: &Position) -> Result<(), PositionError> {
    for color in Color::ALL {
        let kings = pos.pieces(color, Role::King).count();
        if kings != 1 {
            return err(format!("{color} must have exactly one king, found {kings}"));
        }
    }
    for color in Color::ALL {
        let pawns = pos.pieces(color, Role::Pawn);
        let last = Bitboard::rank(color.last_rank(pos.height));
        // A pawn can reach its own first rank only by being carried (L13).
        // A pawn reaches its own first rank only by being carried (L13) or shrunk there (S6).
        let first = if pos.rules().carry || pos.rules().shrink {
            Bitboard::EMPTY
        } else {
            Bitboard::rank(color.first_rank(pos.height))
        };
        if (pawns & (last | first)).any() {
            return err("pawns cannot stand on the first or last rank");
        }
    }
    let them = pos.turn.other();
    if pos.king_attacked(them) {
        return err(format!("{them} is in check but it is not {them}'s turn"));
    }
    if let Some(ep) = pos.ep {
        let us = pos.turn;
        let pushed = ep.offset(0, -us.forward());
        let origin = ep.offset(0, us.forward());
        let plausible = ep.rank() == them.first_rank(pos.height).abs_diff(2)
            && !pos.occupied().contains(ep)
            && pushed.is_some_and(|sq| pos.pieces(them, Role::Pawn).contains(sq))
            && origin.is_some_and(|sq| !pos.occupied().contains(sq));
        if !plausible {
            return err(format!("en passant square {ep} does not follow a double step by {them}"));
        }
    }
    Ok(())
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
            let pos = Position::from_fen(Variant::Chess, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(pos.fen(), fen);
        }
    }

    #[test]
    fn missing_counters_default() {
        let pos = Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/8/4K3 w -").unwrap();
        assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    }

    #[test]
    fn rejects_bad_texts_with_reasons() {
        let bad = |fen: &str| Position::from_fen(Variant::Chess, fen).unwrap_err().to_string();
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
        let e = Position::from_fen(Variant::Chess, "4k2R/8/8/8/8/8/8/4K3 w - - 0 1").unwrap_err();
        assert!(e.to_string().contains("black is in check"), "{e}");
    }
}
