//! Quad-Square Chess (David Howe): a 7x8 board where six 2x2 quad-squares hold up to two pieces.
//!
//! A quad's pieces are kept in the bitboards on its two lower cells (its *slots*); a quad as a
//! move's origin or destination is named by its lower-left cell (its *canonical* cell). Everything
//! else about the board (pieces, colours) is the ordinary position, so the rest of the engine (text,
//! records, games) works unchanged.
//!
//! The room's own generator replaces the board's: quads break the bitboard lines. It lives in
//! `board.rs`, made from the geometry written here; `reference.rs` keeps the first,
//! location-by-location generator as the tests' oracle.

mod board;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use board::Pieces;

use super::{Mechanic, TurnEffects};
use crate::moves::{Action, Move};
use crate::notation::ParsedPieceMove;
use crate::position::Position;
use crate::setup::Setup;
use crate::text::PositionError;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::view::{BoardView, CellKind, QuadView};

/// Quad-Square Chess's board.
pub(crate) struct QuadSquares;

impl Mechanic for QuadSquares {
    fn location(sq: Square) -> Square {
        location(sq)
    }

    fn location_name(sq: Square) -> String {
        location_name(sq)
    }

    fn straight_lines() -> bool {
        false
    }

    fn king_attacked(pos: &Position, color: Color) -> bool {
        Pieces::of(pos).king_attacked(board::tables(), color)
    }

    fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        board::legal_actions(pos, &mut |action| {
            out.push(Move::single(action));
            false
        });
    }

    fn has_legal_moves(pos: &Position) -> bool {
        let mut any = false;
        board::legal_actions(pos, &mut |_| {
            any = true;
            true
        });
        any
    }

    fn pseudo_piece_actions(pos: &Position, emit: &mut dyn FnMut(Action)) {
        board::pseudo_actions(pos, pos.turn(), emit)
    }

    /// Q10: king and rook swap places.
    fn castling_targets(_pos: &Position, king: Square, rook: Square) -> (Square, Square) {
        (rook, king)
    }

    fn apply(pos: &mut Position, action: Action, fx: &mut TurnEffects) {
        let us = pos.turn();
        let mut pieces = Pieces::of(pos);
        fx.reset_clock |= pieces.apply(board::tables(), us, action);
        pos.by_role = pieces.by_role;
        pos.by_color = pieces.by_color;
        pos.castling &= !castling_lost(us, action);
    }

    /// One castling a side, with the rook on its start quad (S1, S3) and the king on its first
    /// rank; written `Q`/`q` (`K`/`k` read alike).
    fn read_castling(setup: &Setup, text: &str) -> Option<Result<Bitboard, PositionError>> {
        let mut castling = Bitboard::EMPTY;
        for c in text.chars() {
            let color = match c {
                'K' | 'Q' => Color::White,
                'k' | 'q' => Color::Black,
                _ => {
                    return Some(Err(PositionError(format!(
                        "'{c}' is not a castling right here (use Q, q or -)"
                    ))));
                }
            };
            let quad_cell = castling_rook_of(color).first().expect("one castling quad a side");
            let rook_there = quad_at(quad_cell).is_some_and(|q| {
                q.cells[..2].iter().any(|&c| setup.piece_at(c) == Some(Piece::new(color, Role::Rook)))
            });
            let king = (setup.by_color[color.index()] & setup.by_role[Role::King.index()]).first();
            let king_home = king.is_some_and(|k| k.rank() == color.first_rank(8) && quad_at(k).is_none());
            if !rook_there || !king_home {
                return Some(Err(PositionError(format!(
                    "castling right '{c}' needs the {color} rook on its start quad and the king on its first rank"
                ))));
            }
            castling |= quad_cell.bb();
        }
        Some(Ok(castling))
    }

    fn castling_text(pos: &Position) -> Option<String> {
        let mut out = String::new();
        for (color, letter) in [(Color::White, 'Q'), (Color::Black, 'q')] {
            if (pos.castling & castling_rook_of(color)).any() {
                out.push(letter);
            }
        }
        Some(if out.is_empty() { "-".to_string() } else { out })
    }

    /// A quad's pieces are written on its two lower cells; the upper two stay empty.
    fn check_setup(setup: &Setup, _variant: crate::Variant) -> Result<(), PositionError> {
        for q in &QUADS {
            if q.cells[2..].iter().any(|&c| setup.occupied().contains(c)) {
                return Err(PositionError(format!(
                    "write the pieces on {} on its two lower cells ({} and {})",
                    q.name, q.cells[0], q.cells[1]
                )));
            }
        }
        Ok(())
    }

    fn settle(pos: &mut Position) {
        let mut pieces = Pieces::of(pos);
        for quad in &QUADS {
            pieces.normalise(board::tables(), quad.cells[0]);
        }
        pos.by_role = pieces.by_role;
        pos.by_color = pieces.by_color;
    }

    fn decorate(pos: &Position, view: &mut BoardView) {
        for sq in quad_cells() {
            let cell = &mut view.cells[sq.rank() as usize * view.files as usize + sq.file() as usize];
            cell.kind = CellKind::Quad;
            cell.piece = None;
            cell.owner = None;
        }
        view.quads = QUADS
            .iter()
            .map(|q| QuadView {
                name: q.name,
                file: q.cells[0].file(),
                rank: q.cells[0].rank(),
                pieces: occupants(pos, q.cells[0]).into_iter().map(|(_, p)| p).collect(),
            })
            .collect();
    }

    /// With quads, disambiguating by file or rank reads badly: name both ends, as the author does.
    fn long_notation_only() -> bool {
        true
    }

    fn one_castling() -> bool {
        true
    }

    fn action_text(_pos: &Position, action: Action) -> Option<String> {
        match action {
            Action::Sacrifice { from, to, .. } => {
                Some(format!("B{}x{}", location_name(from), location_name(to)))
            }
            // A single castling, written O-O (Q10).
            Action::Castle { .. } => Some("O-O".to_string()),
            _ => None,
        }
    }

    /// A pawn goes without its letter, unless it shares a quad with a piece (not a pawn) of its
    /// side that could make the same move: then `PM1xb6`, as `RM1xb6` names the rook.
    fn pawn_letter(pos: &Position, from: Square) -> bool {
        occupants(pos, from).iter().any(|(_, p)| p.color == pos.turn() && p.role != Role::Pawn)
    }

    fn why_not_piece_move(pos: &Position, p: &ParsedPieceMove) -> Option<String> {
        why_move_impossible(pos, p)
    }

    fn why_no_castling(pos: &Position, _long: bool) -> Option<String> {
        let us = pos.turn();
        Some(if (pos.castling_rooks() & castling_rook_of(us)).is_empty() {
            "you can no longer castle: the king or the rook has moved".into()
        } else if pos.is_check() {
            "you cannot castle out of check".into()
        } else {
            "castling needs every location between king and rook empty and unattacked, the rook alone on its \
             quad-square, and the king safe there"
                .into()
        })
    }
}

/// What is wrong about the locations of a move (Q4, Q6).
fn why_move_impossible(pos: &Position, p: &ParsedPieceMove) -> Option<String> {
    let us = pos.turn();
    if let Some(origin) = p.origin() {
        let from = location(origin);
        let name = location_name(from);
        let ours: Vec<Piece> =
            occupants(pos, from).into_iter().map(|(_, pc)| pc).filter(|pc| pc.color == us).collect();
        let wanted = p.role;
        let mover = ours.iter().find(|pc| wanted.is_none_or(|r| r == pc.role));
        match (mover, wanted) {
            (None, Some(role)) => return Some(format!("there is no {} of yours on {name}", role.name())),
            (None, None) => return Some(format!("there is no piece of yours on {name}")),
            (Some(mover), _) => {
                let rook_beside =
                    occupants(pos, from).iter().any(|(_, pc)| pc.color != us && pc.role == Role::Rook);
                if quad_at(from).is_some() && rook_beside && !(mover.role == Role::Bishop && p.capture) {
                    return Some(format!(
                        "the {} on {name} is pinned by the rook sharing its quad-square and cannot leave",
                        mover.role.name()
                    ));
                }
            }
        }
    }
    let to = location(p.to);
    let there = occupants(pos, to);
    if quad_at(to).is_some() && there.len() == 2 && there.iter().all(|(_, pc)| pc.color == us) {
        return Some(format!("{} already holds two of your pieces", location_name(to)));
    }
    None
}

/// Quad-Square Chess names its quad-squares `S1`–`S4`, `M1`, `M2`; read each as its lower-left cell.
pub(crate) fn names_as_cells(text: &str) -> String {
    let mut out = text.to_string();
    for quad in &QUADS {
        out = out.replace(quad.name, &quad.cells[0].to_string());
        out = out.replace(&quad.name.to_lowercase(), &quad.cells[0].to_string());
    }
    out
}

/// A quad-square: its name and its four cells, lower-left first, then lower-right.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Quad {
    pub name: &'static str,
    pub cells: [Square; 4],
    /// M1 and M2 may not be passed through (Q3).
    pub central: bool,
}

const fn q(name: &'static str, file: u8, rank: u8, central: bool) -> Quad {
    Quad {
        name,
        cells: [
            Square::from_coords(file, rank),
            Square::from_coords(file + 1, rank),
            Square::from_coords(file, rank + 1),
            Square::from_coords(file + 1, rank + 1),
        ],
        central,
    }
}

/// S1 a1-b2, S2 f1-g2, S3 a7-b8, S4 f7-g8, M1 b4-c5, M2 e4-f5 (Q1).
pub const QUADS: [Quad; 6] = [
    q("S1", 0, 0, false),
    q("S2", 5, 0, false),
    q("S3", 0, 6, false),
    q("S4", 5, 6, false),
    q("M1", 1, 3, true),
    q("M2", 4, 3, true),
];

/// The board: files a-g.
pub const WIDTH: u8 = 7;

pub fn quad_at(sq: Square) -> Option<&'static Quad> {
    board::tables().quad_of(sq).map(|index| &QUADS[index])
}

/// [`quad_at`] worked out from `QUADS`: what the tables are made of.
fn find_quad(sq: Square) -> Option<&'static Quad> {
    QUADS.iter().find(|quad| quad.cells.contains(&sq))
}

pub fn quad_named(name: &str) -> Option<&'static Quad> {
    QUADS.iter().find(|quad| quad.name.eq_ignore_ascii_case(name))
}

/// The location a cell belongs to: its quad's canonical cell, or itself.
pub fn location(sq: Square) -> Square {
    board::tables().location_of(sq)
}

/// [`location`] worked out from `QUADS`: what the tables are made of.
fn find_location(sq: Square) -> Square {
    find_quad(sq).map_or(sq, |quad| quad.cells[0])
}

/// The name players use for a location: `M1` for a quad, `e4` for a square.
pub fn location_name(sq: Square) -> String {
    quad_at(sq).map_or_else(|| sq.to_string(), |quad| quad.name.to_string())
}

/// Every cell that is part of a quad.
pub fn quad_cells() -> Bitboard {
    QUADS.iter().flat_map(|quad| quad.cells).fold(Bitboard::EMPTY, |bb, sq| bb.with(sq))
}

/// Cells of the same location as `sq`.
fn cells_of(sq: Square) -> Vec<Square> {
    find_quad(sq).map_or_else(|| vec![sq], |quad| quad.cells.to_vec())
}

/// The pieces standing at a location, with the cell each is kept on.
pub fn occupants(pos: &Position, loc: Square) -> Vec<(Square, Piece)> {
    match quad_at(loc) {
        Some(quad) => quad.cells[..2].iter().filter_map(|&c| pos.piece_at(c).map(|p| (c, p))).collect(),
        None => pos.piece_at(loc).map(|p| vec![(loc, p)]).unwrap_or_default(),
    }
}

fn on_board(sq: Square) -> bool {
    sq.file() < WIDTH
}

const KING: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// How a piece may arrive at a location.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Arrival {
    /// Moving and capturing alike (every piece but the pawn).
    Any,
    /// A pawn's straight step: never a capture.
    Step,
    /// A pawn's diagonal: only a capture.
    Capture,
}

/// Locations a leaper reaches: one jump from any cell of its location.
fn leap(from: Square, deltas: &[(i8, i8)]) -> Vec<Square> {
    let origin = find_location(from);
    cells_of(from)
        .into_iter()
        .flat_map(|cell| deltas.iter().filter_map(move |&(df, dr)| cell.offset(df, dr)))
        .filter(|&s| on_board(s))
        .map(find_location)
        .filter(|&loc| loc != origin)
        .collect()
}

/// Q8, location by location: from a cell of its location the knight steps one cell orthogonally
/// into another location, then one cell diagonally onward (on in the same direction, and one to
/// either side) into a third location, neither its own nor the one it stepped through, and lands
/// there. It leaps: nothing on the way matters. The move need not be symmetric (e3 reaches S2
/// through f3, S2 never reaches e3), so an attack is always one of the attacker's own moves.
fn knight_targets(from: Square) -> Vec<Square> {
    let origin = find_location(from);
    let mut out = Vec::new();
    for cell in cells_of(from) {
        for (df, dr) in ORTHOGONAL {
            let Some(step) = cell.offset(df, dr).filter(|&s| on_board(s)) else { continue };
            let through = find_location(step);
            if through == origin {
                continue;
            }
            // The diagonal onward: the step's direction, plus one to either side of it.
            let sides = if df == 0 { [(-1, dr), (1, dr)] } else { [(df, -1), (df, 1)] };
            for (sf, sr) in sides {
                let Some(land) = step.offset(sf, sr).filter(|&s| on_board(s)) else { continue };
                let to = find_location(land);
                if to != origin && to != through && !out.contains(&to) {
                    out.push(to);
                }
            }
        }
    }
    out
}

enum PromotionKind {
    None,
    Optional,
    Required,
}

/// Q9: White must promote on c8, d8, e8 and may on S3, S4; Black likewise on c1, d1, e1 and S1, S2.
fn promotion_kind(side: Color, to: Square) -> PromotionKind {
    let last = side.last_rank(8);
    match quad_at(to) {
        Some(quad) if !quad.central && quad.cells.iter().any(|c| c.rank() == last) => PromotionKind::Optional,
        Some(_) => PromotionKind::None,
        None if to.rank() == last => PromotionKind::Required,
        None => PromotionKind::None,
    }
}

/// Perft of a Quad-Square position on the quad board's own fast road (`None` for any other
/// board); the inner `None`: more than `budget` leaves.
pub(crate) fn perft(pos: &Position, depth: u32, budget: u64) -> Option<Option<u64>> {
    (pos.room == super::Room::Quad).then(|| board::perft(pos, depth, &mut { budget }))
}

/// The castling rights an action ends: the king's moving ends its side's, a rook's leaving or
/// being taken ends its own.
fn castling_lost(us: Color, action: Action) -> Bitboard {
    match action {
        Action::Normal { role, from, to, capture, .. } => {
            let taken = if capture == Some(Role::Rook) { to.bb() } else { Bitboard::EMPTY };
            taken
                | match role {
                    Role::King => castling_rook_of(us),
                    Role::Rook => from.bb(),
                    _ => Bitboard::EMPTY,
                }
        }
        Action::Sacrifice { to, victim: Role::Rook, .. } => to.bb(),
        Action::Castle { .. } => castling_rook_of(us),
        _ => Bitboard::EMPTY,
    }
}

/// The castling location of each side: its rook's start quad, S1 or S3.
pub fn castling_rook_of(side: Color) -> Bitboard {
    match side {
        Color::White => QUADS[0].cells[0].bb(),
        Color::Black => QUADS[2].cells[0].bb(),
    }
}
