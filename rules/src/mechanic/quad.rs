//! Quad-Square Chess (David Howe): a 7x8 board where six 2x2 quad-squares hold up to two pieces.
//!
//! A quad's pieces are kept in the bitboards on its two lower cells (its *slots*); a quad as a
//! move's origin or destination is named by its lower-left cell (its *canonical* cell). Everything
//! else about the board (pieces, colours) is the ordinary position, so the rest of the engine (text,
//! records, games) works unchanged.
//!
//! The room's own generator replaces the board's: quads break the bitboard lines.

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
        king_attacked(pos, color)
    }

    fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
        legal_moves_into(pos, out)
    }

    fn pseudo_piece_actions(pos: &Position, emit: &mut dyn FnMut(Action)) {
        pseudo_actions(pos, pos.turn(), emit)
    }

    /// Q10: king and rook swap places.
    fn castling_targets(_pos: &Position, king: Square, rook: Square) -> (Square, Square) {
        (rook, king)
    }

    fn apply(pos: &mut Position, action: Action, fx: &mut TurnEffects) {
        fx.reset_clock |= apply(pos, action);
        normalise(pos);
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
        normalise(pos);
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
    QUADS.iter().find(|quad| quad.cells.contains(&sq))
}

pub fn quad_named(name: &str) -> Option<&'static Quad> {
    QUADS.iter().find(|quad| quad.name.eq_ignore_ascii_case(name))
}

/// The location a cell belongs to: its quad's canonical cell, or itself.
pub fn location(sq: Square) -> Square {
    quad_at(sq).map_or(sq, |quad| quad.cells[0])
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
    quad_at(sq).map_or_else(|| vec![sq], |quad| quad.cells.to_vec())
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

/// Locations a slider reaches from `from` along `dirs` (Q2, Q3).
fn slide(pos: &Position, from: Square, dirs: &[(i8, i8)]) -> Vec<Square> {
    let origin = location(from);
    let mut reached = Vec::new();
    for &cell in &cells_of(from) {
        for &(df, dr) in dirs {
            let mut cur = cell;
            let mut entered: Option<Square> = None;
            while let Some(next) = cur.offset(df, dr).filter(|&s| on_board(s)) {
                cur = next;
                let loc = location(cur);
                if loc == origin {
                    // A line through the mover's own quad simply continues.
                    continue;
                }
                if entered == Some(loc) {
                    continue;
                }
                reached.push(loc);
                match quad_at(cur) {
                    Some(quad) => {
                        entered = Some(loc);
                        if quad.central || !occupants(pos, loc).is_empty() {
                            break;
                        }
                    }
                    None => {
                        entered = None;
                        if pos.occupied().contains(cur) {
                            break;
                        }
                    }
                }
            }
        }
    }
    reached
}

/// Locations a leaper reaches: one jump from any cell of its location.
fn leap(from: Square, deltas: &[(i8, i8)]) -> Vec<Square> {
    let origin = location(from);
    cells_of(from)
        .into_iter()
        .flat_map(|cell| deltas.iter().filter_map(move |&(df, dr)| cell.offset(df, dr)))
        .filter(|&s| on_board(s))
        .map(location)
        .filter(|&loc| loc != origin)
        .collect()
}

/// Q8, location by location: from a cell of its location the knight steps one cell orthogonally
/// into another location, then one cell diagonally onward (on in the same direction, and one to
/// either side) into a third location, neither its own nor the one it stepped through, and lands
/// there. It leaps: nothing on the way matters. The move need not be symmetric (e3 reaches S2
/// through f3, S2 never reaches e3), so an attack is always one of the attacker's own moves.
fn knight_targets(from: Square) -> Vec<Square> {
    let origin = location(from);
    let mut out = Vec::new();
    for cell in cells_of(from) {
        for (df, dr) in ORTHOGONAL {
            let Some(step) = cell.offset(df, dr).filter(|&s| on_board(s)) else { continue };
            let through = location(step);
            if through == origin {
                continue;
            }
            // The diagonal onward: the step's direction, plus one to either side of it.
            let sides = if df == 0 { [(-1, dr), (1, dr)] } else { [(df, -1), (df, 1)] };
            for (sf, sr) in sides {
                let Some(land) = step.offset(sf, sr).filter(|&s| on_board(s)) else { continue };
                let to = location(land);
                if to != origin && to != through && !out.contains(&to) {
                    out.push(to);
                }
            }
        }
    }
    out
}

/// Whether a piece of `side` at `loc` is held by an enemy rook sharing its quad (Q6).
fn pinned_by_rook(pos: &Position, loc: Square, side: Color) -> bool {
    quad_at(loc).is_some()
        && occupants(pos, loc).iter().any(|(_, p)| p.color == side.other() && p.role == Role::Rook)
}

/// Pseudo-legal actions of `side`: every move by the piece rules of Q2–Q10, before king safety.
pub(crate) fn pseudo_actions(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    piece_actions(pos, side, emit);
    castling(pos, side, emit);
}

/// Every action but castling, which never captures: what attacks are made of.
fn piece_actions(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    let mut seen_locations = Vec::new();
    for cell in pos.by_color(side) {
        let Some(piece) = pos.piece_at(cell) else { continue };
        let from = location(cell);
        // Two pieces of one role on one quad move alike: generate once.
        if seen_locations.contains(&(from, piece.role)) {
            continue;
        }
        seen_locations.push((from, piece.role));

        if piece.role == Role::Bishop && quad_at(from).is_some() {
            // Q5: a bishop sharing a quad with an enemy may remove both without moving.
            for (_, other) in occupants(pos, from) {
                if other.color != side {
                    emit(Action::Sacrifice { from, to: from, victim: other.role });
                }
            }
        }
        if pinned_by_rook(pos, from, side) {
            continue;
        }

        let mut targets: Vec<(Square, Arrival)> = match piece.role {
            Role::Knight => knight_targets(cell).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::King => leap(cell, &KING).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Bishop => slide(pos, cell, &DIAGONAL).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Rook => slide(pos, cell, &ORTHOGONAL).into_iter().map(|l| (l, Arrival::Any)).collect(),
            Role::Queen => {
                let mut t = slide(pos, cell, &ORTHOGONAL);
                t.extend(slide(pos, cell, &DIAGONAL));
                t.into_iter().map(|l| (l, Arrival::Any)).collect()
            }
            Role::Pawn => {
                let fw = side.forward();
                let mut t: Vec<(Square, Arrival)> =
                    leap(cell, &[(0, fw)]).into_iter().map(|l| (l, Arrival::Step)).collect();
                t.extend(leap(cell, &[(-1, fw), (1, fw)]).into_iter().map(|l| (l, Arrival::Capture)));
                t
            }
        };
        targets.sort_by_key(|&(l, a)| (l, a as u8));
        targets.dedup();
        for (to, arrival) in targets {
            arrive(pos, side, piece.role, from, to, arrival, emit);
        }
    }
}

/// The actions of a piece of `role` arriving at `to` (Q4, Q5, Q9).
fn arrive(
    pos: &Position,
    side: Color,
    role: Role,
    from: Square,
    to: Square,
    arrival: Arrival,
    emit: &mut dyn FnMut(Action),
) {
    let there = occupants(pos, to);
    let enemies: Vec<Role> = there.iter().filter(|(_, p)| p.color != side).map(|(_, p)| p.role).collect();
    let mut moves: Vec<Option<Role>> = Vec::new();
    if quad_at(to).is_some() {
        match there.len() {
            0 | 1 if arrival != Arrival::Capture => moves.push(None),
            2 => {
                // Both enemies: the mover picks; one enemy and one friend: the enemy goes.
                let mut victims = enemies.clone();
                victims.dedup();
                if arrival != Arrival::Step {
                    moves.extend(victims.into_iter().map(Some));
                }
            }
            _ => {}
        }
        if role == Role::Bishop && there.len() == 1 && enemies.len() == 1 {
            emit(Action::Sacrifice { from, to, victim: enemies[0] });
        }
    } else {
        match (there.first(), arrival) {
            (None, Arrival::Any | Arrival::Step) => moves.push(None),
            (Some((_, p)), Arrival::Any | Arrival::Capture) if p.color != side => moves.push(Some(p.role)),
            _ => {}
        }
    }
    for capture in moves {
        if role == Role::Pawn {
            match promotion_kind(side, to) {
                PromotionKind::Required => {
                    for promo in Role::PROMOTIONS {
                        emit(Action::Normal { role, from, to, capture, promotion: Some(promo) });
                    }
                    continue;
                }
                PromotionKind::Optional => {
                    for promo in Role::PROMOTIONS {
                        emit(Action::Normal { role, from, to, capture, promotion: Some(promo) });
                    }
                }
                PromotionKind::None => {}
            }
        }
        emit(Action::Normal { role, from, to, capture, promotion: None });
    }
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

/// Q10: king and rook swap places.
fn castling(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    let Some(king) = pos.king(side) else { return };
    for rook_loc in pos.castling_rooks() {
        let Some(quad) = quad_at(rook_loc) else { continue };
        let there = occupants(pos, rook_loc);
        let is_our_lone_rook = there.len() == 1 && there[0].1 == Piece::new(side, Role::Rook);
        if !is_our_lone_rook || quad_at(king).is_some() || king.rank() != side.first_rank(8) {
            continue;
        }
        // Locations between the king and the quad on the king's rank.
        let rank = king.rank();
        let near = quad.cells.iter().filter(|c| c.rank() == rank).map(|c| c.file()).collect::<Vec<_>>();
        if near.is_empty() {
            continue;
        }
        let (lo, hi) = if near[0] < king.file() {
            (near.iter().max().unwrap() + 1, king.file())
        } else {
            (king.file() + 1, *near.iter().min().unwrap())
        };
        let between: Vec<Square> = (lo..hi).map(|f| Square::from_coords(f, rank)).collect();
        if between.iter().any(|&s| quad_at(s).is_some() || pos.occupied().contains(s)) {
            continue;
        }
        if king_attacked(pos, side) || between.iter().any(|&s| square_attacked_for_king(pos, side, king, s)) {
            continue;
        }
        emit(Action::Castle { king, rook: rook_loc });
    }
}

/// Whether `side`'s king, moved from `king` to the empty square `to`, could be captured there.
fn square_attacked_for_king(pos: &Position, side: Color, king: Square, to: Square) -> bool {
    let mut probe = pos.clone();
    probe.take(king);
    probe.put(to, Piece::new(side, Role::King));
    king_attacked(&probe, side)
}

/// Q7: a king is in check when an enemy move could capture it under Q4–Q6.
pub fn king_attacked(pos: &Position, side: Color) -> bool {
    if pos.king(side).is_none() {
        return false;
    }
    let mut attacked = false;
    piece_actions(pos, side.other(), &mut |action| match action {
        Action::Normal { capture: Some(Role::King), .. } | Action::Sacrifice { victim: Role::King, .. } => {
            attacked = true
        }
        _ => {}
    });
    attacked
}

pub(crate) fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    let side = pos.turn();
    pseudo_actions(pos, side, &mut |action| {
        let mv = Move::single(action);
        if !king_attacked(&pos.played(&mv), side) {
            out.push(mv);
        }
    });
}

/// Removes the piece of `piece`'s kind from location `loc`; returns the cell it was kept on.
fn remove_from(pos: &mut Position, loc: Square, piece: Piece) -> Option<Square> {
    let cell = occupants(pos, loc).into_iter().find(|(_, p)| *p == piece).map(|(c, _)| c)?;
    pos.take(cell);
    Some(cell)
}

/// Puts a piece on a location: a quad's first free slot, or the square.
fn add_to(pos: &mut Position, loc: Square, piece: Piece) {
    let cell = match quad_at(loc) {
        Some(quad) => {
            quad.cells[..2].iter().copied().find(|&c| pos.piece_at(c).is_none()).unwrap_or(quad.cells[0])
        }
        None => loc,
    };
    pos.put(cell, piece);
}

/// Makes one action of the side to move. Returns whether it resets the move counter.
pub(crate) fn apply(pos: &mut Position, action: Action) -> bool {
    let us = pos.turn();
    let them = us.other();
    match action {
        Action::Normal { role, from, to, capture, promotion } => {
            remove_from(pos, from, Piece::new(us, role));
            if let Some(victim) = capture {
                remove_from(pos, to, Piece::new(them, victim));
                if victim == Role::Rook {
                    pos.castling &= !to.bb();
                }
            }
            add_to(pos, to, Piece::new(us, promotion.unwrap_or(role)));
            match role {
                Role::King => pos.castling &= !castling_rook_of(us),
                Role::Rook => pos.castling &= !from.bb(),
                _ => {}
            }
            role == Role::Pawn || capture.is_some()
        }
        Action::Sacrifice { from, to, victim } => {
            remove_from(pos, from, Piece::new(us, Role::Bishop));
            remove_from(pos, to, Piece::new(them, victim));
            if victim == Role::Rook {
                pos.castling &= !to.bb();
            }
            true
        }
        Action::Castle { king, rook } => {
            remove_from(pos, king, Piece::new(us, Role::King));
            remove_from(pos, rook, Piece::new(us, Role::Rook));
            add_to(pos, rook, Piece::new(us, Role::King));
            add_to(pos, king, Piece::new(us, Role::Rook));
            pos.castling &= !castling_rook_of(us);
            false
        }
        Action::EnPassant { .. }
        | Action::Place { .. }
        | Action::Shift { .. }
        | Action::Chip { .. }
        | Action::DropAnti { .. }
        | Action::RemoveTile { .. } => {
            unreachable!("Quad-Square Chess has no en passant and no square actions")
        }
    }
}

/// The castling location of each side: its rook's start quad, S1 or S3.
pub fn castling_rook_of(side: Color) -> Bitboard {
    match side {
        Color::White => QUADS[0].cells[0].bb(),
        Color::Black => QUADS[2].cells[0].bb(),
    }
}

/// Puts the pieces a quad holds in a fixed order, so equal positions compare equal.
pub(crate) fn normalise(pos: &mut Position) {
    for quad in &QUADS {
        let [a, b] = [quad.cells[0], quad.cells[1]];
        let (pa, pb) = (pos.piece_at(a), pos.piece_at(b));
        let key = |p: Option<Piece>| p.map(|p| (p.color as u8, p.role as u8));
        let swap = match (pa, pb) {
            (None, Some(_)) => true,
            (Some(_), Some(_)) => key(pa) > key(pb),
            _ => false,
        };
        if swap {
            pos.take(a);
            pos.take(b);
            if let Some(p) = pb {
                pos.put(a, p);
            }
            if let Some(p) = pa {
                pos.put(b, p);
            }
        }
    }
}
