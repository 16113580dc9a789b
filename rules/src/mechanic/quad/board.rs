//! Quad-Square Chess's move generator, built for speed: every location's leaps and slide lines
//! are worked out once from the geometry in `mod.rs`, pieces are read as bitboards of locations,
//! and a move is proved legal without being played wherever it cannot change what attacks the
//! king (the old location-by-location generator stays beside it in `reference.rs`, the oracle
//! the tests hold this one to).
//!
//! A location is named by its canonical cell (a quad's lower-left). A quad keeps its pieces on
//! its two lower cells, the first filled first (`normalise`), so a quad is occupied exactly when
//! its canonical cell is, and a bitboard of cells becomes one of locations by moving each quad's
//! second slot onto its first.

use std::sync::LazyLock;

use super::{
    Arrival, DIAGONAL, KING, ORTHOGONAL, PromotionKind, QUADS, cells_of, find_location as location,
    knight_targets, leap, on_board, promotion_kind,
};
use crate::moves::Action;
use crate::position::Position;
use crate::types::{Bitboard, Color, Piece, Role, Square};

/// No quad.
const NONE: u8 = u8::MAX;

/// A slide line out of a location: the locations it enters, in order, each once.
#[derive(Copy, Clone, Default)]
struct Ray {
    locs: [u8; 8],
    len: u8,
}

impl Ray {
    #[inline]
    fn locs(&self) -> &[u8] {
        &self.locs[..usize::from(self.len)]
    }
}

/// The lines of one kind (orthogonal or diagonal) out of a location: from a quad, two a
/// direction orthogonally and three diagonally (its corners' diagonals and the one through it).
#[derive(Copy, Clone, Default)]
struct Rays {
    rays: [Ray; 12],
    len: u8,
}

impl Rays {
    #[inline]
    fn iter(&self) -> impl Iterator<Item = &Ray> {
        self.rays[..usize::from(self.len)].iter()
    }
}

/// Everything the generator looks up, indexed by cell (a quad's entries under each of its cells
/// where that is convenient, under its canonical cell otherwise).
pub(super) struct Tables {
    /// The location of each cell.
    location: [u8; 64],
    /// The quad of each cell, as an index into `QUADS`, or `NONE`.
    quad: [u8; 64],
    /// Each quad's second slot (its lower-right cell).
    second_slots: u64,
    /// Canonical cells of every quad, and of the central two.
    quads: u64,
    central: u64,
    knight: [u64; 64],
    king: [u64; 64],
    pawn_step: [[u64; 64]; 2],
    pawn_capture: [[u64; 64]; 2],
    /// Where a knight or a pawn must stand to reach a location (the knight's move is not
    /// symmetric, Q8); the king's is.
    knight_from: [u64; 64],
    pawn_capture_from: [[u64; 64]; 2],
    orthogonal: [Rays; 64],
    diagonal: [Rays; 64],
}

static TABLES: LazyLock<Box<Tables>> = LazyLock::new(Tables::build);

#[inline]
pub(super) fn tables() -> &'static Tables {
    &TABLES
}

fn bits(locs: impl IntoIterator<Item = Square>) -> u64 {
    locs.into_iter().fold(0, |bb, sq| bb | sq.bb().0)
}

impl Tables {
    fn build() -> Box<Tables> {
        let mut t = Box::new(Tables {
            location: [0; 64],
            quad: [NONE; 64],
            second_slots: 0,
            quads: 0,
            central: 0,
            knight: [0; 64],
            king: [0; 64],
            pawn_step: [[0; 64]; 2],
            pawn_capture: [[0; 64]; 2],
            knight_from: [0; 64],
            pawn_capture_from: [[0; 64]; 2],
            orthogonal: [Rays::default(); 64],
            diagonal: [Rays::default(); 64],
        });
        for i in 0..64u8 {
            t.location[usize::from(i)] = i;
        }
        for (index, quad) in QUADS.iter().enumerate() {
            for cell in quad.cells {
                t.quad[cell.index()] = index as u8;
                t.location[cell.index()] = quad.cells[0].index() as u8;
            }
            t.second_slots |= quad.cells[1].bb().0;
            t.quads |= quad.cells[0].bb().0;
            if quad.central {
                t.central |= quad.cells[0].bb().0;
            }
        }
        for i in 0..64u8 {
            let from = Square::new(i);
            if !on_board(from) || location(from) != from {
                continue;
            }
            let at = from.index();
            t.knight[at] = bits(knight_targets(from));
            t.king[at] = bits(leap(from, &KING));
            for color in Color::ALL {
                let fw = color.forward();
                t.pawn_step[color.index()][at] = bits(leap(from, &[(0, fw)]));
                t.pawn_capture[color.index()][at] = bits(leap(from, &[(-1, fw), (1, fw)]));
            }
            t.orthogonal[at] = rays(from, &ORTHOGONAL);
            t.diagonal[at] = rays(from, &DIAGONAL);
        }
        for from in 0..64 {
            for to in Bitboard(t.knight[from]) {
                t.knight_from[to.index()] |= 1 << from;
            }
            for color in 0..2 {
                for to in Bitboard(t.pawn_capture[color][from]) {
                    t.pawn_capture_from[color][to.index()] |= 1 << from;
                }
            }
        }
        t
    }

    /// The index into `QUADS` of a cell's quad.
    #[inline]
    pub(super) fn quad_of(&self, sq: Square) -> Option<usize> {
        let index = self.quad[sq.index()];
        (index != NONE).then_some(usize::from(index))
    }

    #[inline]
    pub(super) fn location_of(&self, sq: Square) -> Square {
        self.loc(sq)
    }

    /// A cell's location.
    #[inline]
    fn loc(&self, sq: Square) -> Square {
        Square::new(self.location[sq.index()])
    }

    #[inline]
    fn is_quad(&self, loc: Square) -> bool {
        self.quads & loc.bb().0 != 0
    }

    /// The locations of the pieces on `cells`.
    #[inline]
    fn locations(&self, cells: Bitboard) -> u64 {
        (cells.0 & !self.second_slots) | ((cells.0 & self.second_slots) >> 1)
    }

    /// Where a slider on `from` arrives along `rays`, stopping at the first occupied location or
    /// central quad, which it enters (Q2, Q3).
    #[inline]
    fn slide(&self, rays: &Rays, occupied: u64) -> u64 {
        let stops = occupied | self.central;
        let mut reached = 0;
        for ray in rays.iter() {
            for &loc in ray.locs() {
                reached |= 1 << loc;
                if stops & (1 << loc) != 0 {
                    break;
                }
            }
        }
        reached
    }
}

/// The slide lines out of `from` along `dirs`, from every cell of the location, each line a
/// sequence of distinct locations (a line through the mover's own quad simply goes on).
fn rays(from: Square, dirs: &[(i8, i8)]) -> Rays {
    let origin = location(from);
    let mut out = Rays::default();
    for &(df, dr) in dirs {
        for &cell in &cells_of(from) {
            let mut ray = Ray::default();
            let mut cur = cell;
            while let Some(next) = cur.offset(df, dr).filter(|&s| on_board(s)) {
                cur = next;
                let loc = location(cur);
                if loc == origin || (ray.len > 0 && ray.locs[usize::from(ray.len) - 1] == loc.index() as u8) {
                    continue;
                }
                ray.locs[usize::from(ray.len)] = loc.index() as u8;
                ray.len += 1;
            }
            let known = out.rays[..usize::from(out.len)].iter().any(|r| r.locs() == ray.locs());
            if ray.len > 0 && !known {
                out.rays[usize::from(out.len)] = ray;
                out.len += 1;
            }
        }
    }
    out
}

/// The pieces as bitboards: what attacks and moves are read from, and what a move changes.
#[derive(Copy, Clone)]
pub(super) struct Pieces {
    pub(super) by_role: [Bitboard; 6],
    pub(super) by_color: [Bitboard; 2],
}

impl Pieces {
    #[inline]
    pub(super) fn of(pos: &Position) -> Pieces {
        Pieces { by_role: pos.by_role, by_color: pos.by_color }
    }

    #[inline]
    fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    #[inline]
    fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bb = sq.bb();
        let color = if (self.by_color[0] & bb).any() {
            Color::White
        } else if (self.by_color[1] & bb).any() {
            Color::Black
        } else {
            return None;
        };
        let role = Role::ALL.into_iter().find(|r| (self.by_role[r.index()] & bb).any())?;
        Some(Piece::new(color, role))
    }

    /// The role of the piece on an occupied cell.
    #[inline]
    fn role_at(&self, sq: Square) -> Role {
        let bb = sq.bb();
        Role::ALL.into_iter().find(|r| (self.by_role[r.index()] & bb).any()).unwrap_or(Role::Pawn)
    }

    #[inline]
    fn put(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] |= sq.bb();
        self.by_role[piece.role.index()] |= sq.bb();
    }

    #[inline]
    fn take(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] ^= sq.bb();
        self.by_role[piece.role.index()] ^= sq.bb();
    }

    /// The two slots of a location: a quad's lower cells, or the square and nothing.
    #[inline]
    fn slots(&self, t: &Tables, loc: Square) -> [Option<Piece>; 2] {
        if t.is_quad(loc) {
            [self.piece_at(loc), self.piece_at(Square::new(loc.index() as u8 + 1))]
        } else {
            [self.piece_at(loc), None]
        }
    }

    /// Removes `piece` from location `loc` (from whichever slot holds it).
    fn remove(&mut self, t: &Tables, loc: Square, piece: Piece) {
        let second = Square::new(loc.index() as u8 + 1);
        if self.piece_at(loc) == Some(piece) {
            self.take(loc, piece);
        } else if t.is_quad(loc) && self.piece_at(second) == Some(piece) {
            self.take(second, piece);
        }
    }

    /// Puts `piece` on location `loc`: a quad's first free slot, or the square.
    fn add(&mut self, t: &Tables, loc: Square, piece: Piece) {
        let second = Square::new(loc.index() as u8 + 1);
        if t.is_quad(loc) && self.occupied().contains(loc) {
            self.put(second, piece);
        } else {
            self.put(loc, piece);
        }
    }

    /// Puts a quad's pieces in their fixed order: the first slot filled first, then by colour
    /// and role, so equal positions compare equal.
    pub(super) fn normalise(&mut self, t: &Tables, loc: Square) {
        if !t.is_quad(loc) {
            return;
        }
        let second = Square::new(loc.index() as u8 + 1);
        let [a, b] = [self.piece_at(loc), self.piece_at(second)];
        let key = |p: Piece| (p.color as u8, p.role as u8);
        let swap = match (a, b) {
            (None, Some(_)) => true,
            (Some(pa), Some(pb)) => key(pa) > key(pb),
            _ => false,
        };
        if swap {
            if let Some(pa) = a {
                self.take(loc, pa);
            }
            if let Some(pb) = b {
                self.take(second, pb);
                self.put(loc, pb);
            }
            if let Some(pa) = a {
                self.put(second, pa);
            }
        }
    }

    /// Makes `action` of `us`. Returns whether it resets the move counter.
    pub(super) fn apply(&mut self, t: &Tables, us: Color, action: Action) -> bool {
        let them = us.other();
        match action {
            Action::Normal { role, from, to, capture, promotion } => {
                self.remove(t, from, Piece::new(us, role));
                if let Some(victim) = capture {
                    self.remove(t, to, Piece::new(them, victim));
                }
                self.normalise(t, to);
                self.add(t, to, Piece::new(us, promotion.unwrap_or(role)));
                self.normalise(t, from);
                self.normalise(t, to);
                role == Role::Pawn || capture.is_some()
            }
            Action::Sacrifice { from, to, victim } => {
                self.remove(t, from, Piece::new(us, Role::Bishop));
                self.remove(t, to, Piece::new(them, victim));
                self.normalise(t, from);
                self.normalise(t, to);
                true
            }
            Action::Castle { king, rook } => {
                self.remove(t, king, Piece::new(us, Role::King));
                self.remove(t, rook, Piece::new(us, Role::Rook));
                self.normalise(t, rook);
                self.add(t, rook, Piece::new(us, Role::King));
                self.add(t, king, Piece::new(us, Role::Rook));
                self.normalise(t, rook);
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

    /// Locations holding a piece of `side` that shares its quad with an enemy rook, and so may
    /// not move (Q6).
    #[inline]
    fn rook_held(&self, t: &Tables, side: Color) -> u64 {
        t.locations(self.by_color[side.index()])
            & t.locations(self.pieces(side.other(), Role::Rook))
            & t.quads
    }

    /// Q7: whether `side`'s king could be taken by an enemy move under Q4–Q6.
    pub(super) fn king_attacked(&self, t: &Tables, side: Color) -> bool {
        let Some(king_cell) = self.pieces(side, Role::King).first() else { return false };
        let king = t.loc(king_cell);
        let k = king.index();
        let them = side.other();
        let free = !self.rook_held(t, them);
        let occupied = t.locations(self.occupied());
        let theirs = |role: Role| t.locations(self.pieces(them, role)) & free;
        let diagonal = t.slide(&t.diagonal[k], occupied);
        let [first, second] = self.slots(t, king);
        if t.is_quad(king) {
            let other =
                if first.is_some_and(|p| p.role == Role::King && p.color == side) { second } else { first };
            match other {
                // A king alone on a quad is shared, not taken: only a bishop arriving takes it,
                // and is lost with it (Q4, Q5).
                None => return diagonal & theirs(Role::Bishop) != 0,
                // A bishop sharing the king's quad may take it where it stands.
                Some(p) if p.color == them && p.role == Role::Bishop => return true,
                Some(_) => {}
            }
        }
        let orthogonal = t.slide(&t.orthogonal[k], occupied);
        let queens = theirs(Role::Queen);
        (t.knight_from[k] & theirs(Role::Knight)) != 0
            || (t.king[k] & theirs(Role::King)) != 0
            || (t.pawn_capture_from[them.index()][k] & theirs(Role::Pawn)) != 0
            || (orthogonal & (theirs(Role::Rook) | queens)) != 0
            || (diagonal & (theirs(Role::Bishop) | queens)) != 0
    }
}

/// Pseudo-legal actions of `side`: every move by the piece rules of Q2–Q10, before king safety,
/// in the order the reference generator gives them (pieces by cell, then destinations).
pub(super) fn pseudo_actions(pos: &Position, side: Color, emit: &mut dyn FnMut(Action)) {
    let t = tables();
    let pieces = Pieces::of(pos);
    piece_actions(t, &pieces, side, emit);
    castling_actions(t, pos.castling_rooks(), &pieces, side, emit);
}

/// Every action but castling.
fn piece_actions<E: FnMut(Action) + ?Sized>(t: &Tables, pieces: &Pieces, side: Color, emit: &mut E) {
    let occupied = t.locations(pieces.occupied());
    let held = pieces.rook_held(t, side);
    let theirs = pieces.by_color[side.other().index()].0;
    for cell in pieces.by_color[side.index()] {
        let role = pieces.role_at(cell);
        let from = t.loc(cell);
        let quad = from != cell || t.is_quad(from);
        // Two pieces of one role on one quad move alike: generate once.
        if from != cell && pieces.by_color[side.index()].contains(from) && pieces.role_at(from) == role {
            continue;
        }
        if role == Role::Bishop && quad {
            // Q5: a bishop sharing a quad with an enemy may remove both without moving.
            for slot in [from, Square::new(from.index() as u8 + 1)] {
                if theirs & slot.bb().0 != 0 {
                    emit(Action::Sacrifice { from, to: from, victim: pieces.role_at(slot) });
                }
            }
        }
        if held & from.bb().0 != 0 {
            continue;
        }
        let at = from.index();
        let targets = match role {
            Role::Knight => t.knight[at],
            Role::King => t.king[at],
            Role::Bishop => t.slide(&t.diagonal[at], occupied),
            Role::Rook => t.slide(&t.orthogonal[at], occupied),
            Role::Queen => t.slide(&t.orthogonal[at], occupied) | t.slide(&t.diagonal[at], occupied),
            Role::Pawn => {
                let steps = t.pawn_step[side.index()][at];
                let captures = t.pawn_capture[side.index()][at];
                for to in Bitboard(steps | captures) {
                    if steps & to.bb().0 != 0 {
                        arrive(t, pieces, side, role, from, to, Arrival::Step, emit);
                    }
                    if captures & to.bb().0 != 0 {
                        arrive(t, pieces, side, role, from, to, Arrival::Capture, emit);
                    }
                }
                continue;
            }
        };
        for to in Bitboard(targets) {
            arrive(t, pieces, side, role, from, to, Arrival::Any, emit);
        }
    }
}

/// The actions of a piece of `role` arriving at `to` (Q4, Q5, Q9). Occupants are read from the
/// colour bitboards; a role is looked up only for an enemy that may be taken.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn arrive<E: FnMut(Action) + ?Sized>(
    t: &Tables,
    pieces: &Pieces,
    side: Color,
    role: Role,
    from: Square,
    to: Square,
    arrival: Arrival,
    emit: &mut E,
) {
    let bit = to.bb().0;
    let occupied = pieces.occupied().0;
    let theirs = pieces.by_color[side.other().index()].0;
    let one = |emit: &mut E, capture: Option<Role>| emit_move(emit, side, role, from, to, capture);
    if t.quads & bit == 0 {
        if occupied & bit == 0 {
            if arrival != Arrival::Capture {
                one(emit, None);
            }
        } else if theirs & bit != 0 && arrival != Arrival::Step {
            one(emit, Some(pieces.role_at(to)));
        }
        return;
    }
    let second = Square::new(to.index() as u8 + 1);
    if occupied & second.bb().0 == 0 {
        // Room for one more: the piece moves in beside whatever is there.
        if role == Role::Bishop && theirs & bit != 0 {
            emit(Action::Sacrifice { from, to, victim: pieces.role_at(to) });
        }
        if arrival != Arrival::Capture {
            one(emit, None);
        }
    } else if arrival != Arrival::Step {
        // A full quad: of two enemies the mover picks; of one enemy and one friend the enemy goes.
        let first = (theirs & bit != 0).then(|| pieces.role_at(to));
        let other = (theirs & second.bb().0 != 0).then(|| pieces.role_at(second));
        match (first, other) {
            (Some(a), Some(b)) if a == b => one(emit, Some(a)),
            (Some(a), Some(b)) => {
                one(emit, Some(a));
                one(emit, Some(b));
            }
            (Some(v), None) | (None, Some(v)) => one(emit, Some(v)),
            (None, None) => {}
        }
    }
}

/// A piece's move, as each promotion where a pawn must or may promote (Q9).
#[inline(always)]
fn emit_move<E: FnMut(Action) + ?Sized>(
    emit: &mut E,
    side: Color,
    role: Role,
    from: Square,
    to: Square,
    capture: Option<Role>,
) {
    if role == Role::Pawn {
        let kind = promotion_kind(side, to);
        if !matches!(kind, PromotionKind::None) {
            for promo in Role::PROMOTIONS {
                emit(Action::Normal { role, from, to, capture, promotion: Some(promo) });
            }
        }
        if matches!(kind, PromotionKind::Required) {
            return;
        }
    }
    emit(Action::Normal { role, from, to, capture, promotion: None });
}

/// Q10: king and rook swap places.
fn castling_actions<E: FnMut(Action) + ?Sized>(
    t: &Tables,
    rights: Bitboard,
    pieces: &Pieces,
    side: Color,
    emit: &mut E,
) {
    let Some(king) = pieces.pieces(side, Role::King).first() else { return };
    if t.is_quad(t.loc(king)) || king.rank() != side.first_rank(8) {
        return;
    }
    for rook_loc in rights {
        if !t.is_quad(rook_loc) || pieces.slots(t, rook_loc) != [Some(Piece::new(side, Role::Rook)), None] {
            continue;
        }
        let quad = &QUADS[usize::from(t.quad[rook_loc.index()])];
        // Locations between the king and the quad on the king's rank.
        let rank = king.rank();
        let near = quad.cells.iter().filter(|c| c.rank() == rank).map(|c| c.file());
        let (Some(nearest_low), Some(nearest_high)) = (near.clone().min(), near.max()) else { continue };
        let (lo, hi) = if nearest_low < king.file() {
            (nearest_high + 1, king.file())
        } else {
            (king.file() + 1, nearest_low)
        };
        let between = || (lo..hi).map(|f| Square::from_coords(f, rank));
        if between().any(|s| t.quad[s.index()] != NONE || pieces.occupied().contains(s)) {
            continue;
        }
        if pieces.king_attacked(t, side)
            || between().any(|s| king_would_be_attacked(t, pieces, side, king, s))
        {
            continue;
        }
        emit(Action::Castle { king, rook: rook_loc });
    }
}

/// Whether `side`'s king, moved from `king` to the empty square `to`, could be taken there.
fn king_would_be_attacked(t: &Tables, pieces: &Pieces, side: Color, king: Square, to: Square) -> bool {
    let mut probe = *pieces;
    let piece = Piece::new(side, Role::King);
    probe.take(king, piece);
    probe.put(to, piece);
    probe.king_attacked(t, side)
}

/// Visits the legal turns of the side to move, one action each, until `visit` returns true.
pub(super) fn legal_actions(pos: &Position, visit: &mut dyn FnMut(Action) -> bool) {
    legal_actions_of(tables(), &Pieces::of(pos), pos.turn(), pos.castling_rooks(), visit)
}

/// [`legal_actions`] of `us` on `pieces`, with the castling rights left in `castling`.
fn legal_actions_of<V: FnMut(Action) -> bool + ?Sized>(
    t: &Tables,
    pieces: &Pieces,
    us: Color,
    castling: Bitboard,
    visit: &mut V,
) {
    let pieces = *pieces;
    // Without a king nothing is ever in check.
    let king = pieces.pieces(us, Role::King).first().map(|cell| t.loc(cell));
    let in_check = king.is_some() && pieces.king_attacked(t, us);
    let sensitive = king.map_or(0, |king| pieces.shields(t, us, king));
    let mut done = false;
    let mut check = |action: Action| {
        if done {
            return;
        }
        let legal = match king {
            None => true,
            Some(king) => {
                let proven = !in_check
                    && match action {
                        Action::Normal { role, from, to, .. } => {
                            role != Role::King && to != king && sensitive & from.bb().0 == 0
                        }
                        _ => false,
                    };
                proven || {
                    let mut after = pieces;
                    after.apply(t, us, action);
                    !after.king_attacked(t, us)
                }
            }
        };
        if legal && visit(action) {
            done = true;
        }
    };
    piece_actions(t, &pieces, us, &mut check);
    castling_actions(t, castling, &pieces, us, &mut check);
}

impl Pieces {
    /// Where a piece of `us` leaving could let an attack through to the king on `king`: a
    /// location held by that piece alone, first along a line out of the king, with an enemy
    /// piece that slides along such lines at the line's next stop; and quads where a rook of
    /// `us` holds an enemy piece (Q6), which that rook's leaving sets free. A piece move from
    /// anywhere else, not onto the king's quad and not by the king, leaves every attack on the
    /// king as it was: leapers and pawns do not care what stands between, a piece arriving only
    /// blocks a line, a capture only removes an attacker. Everything else is played out.
    fn shields(&self, t: &Tables, us: Color, king: Square) -> u64 {
        let them = us.other();
        let occupied = t.locations(self.occupied());
        let pairs = (self.occupied().0 & t.second_slots) >> 1;
        let alone = t.locations(self.by_color[us.index()]) & !pairs;
        let queens = t.locations(self.pieces(them, Role::Queen));
        let straight = t.locations(self.pieces(them, Role::Rook)) | queens;
        let diagonal = t.locations(self.pieces(them, Role::Bishop)) | queens;
        let k = king.index();
        t.shields(&t.orthogonal[k], occupied, alone, straight)
            | t.shields(&t.diagonal[k], occupied, alone, diagonal)
            | self.rook_held(t, them)
    }
}

impl Tables {
    /// Along each of `rays`: the first stop, when it is in `alone` and not a central quad
    /// (which stops a line however empty), and the next stop holds one of `sliders`.
    #[inline]
    fn shields(&self, rays: &Rays, occupied: u64, alone: u64, sliders: u64) -> u64 {
        let stops = occupied | self.central;
        let mut found = 0;
        for ray in rays.iter() {
            let mut first = None;
            for &loc in ray.locs() {
                let bit = 1u64 << loc;
                if stops & bit == 0 {
                    continue;
                }
                match first {
                    None if alone & bit != 0 && self.central & bit == 0 => first = Some(bit),
                    None => break,
                    Some(shield) => {
                        if sliders & bit != 0 {
                            found |= shield;
                        }
                        break;
                    }
                }
            }
        }
        found
    }
}

/// Perft on the quad board: the pieces, the side to move and the castling rights are all a
/// turn depends on, so the count runs on them alone, leaves counted in bulk. Gives up (`None`)
/// once more than `budget` leaves are counted.
pub(super) fn perft(pos: &Position, depth: u32, budget: &mut u64) -> Option<u64> {
    fn count(
        t: &Tables,
        pieces: &Pieces,
        us: Color,
        castling: Bitboard,
        depth: u32,
        left: &mut u64,
    ) -> Option<u64> {
        if depth == 1 {
            let mut n = 0u64;
            legal_actions_of(t, pieces, us, castling, &mut |_| {
                n += 1;
                false
            });
            *left = left.checked_sub(n)?;
            return Some(n);
        }
        let mut moves = Vec::with_capacity(64);
        legal_actions_of(t, pieces, us, castling, &mut |action| {
            moves.push(action);
            false
        });
        let mut nodes = 0;
        for &action in &moves {
            let mut next = *pieces;
            next.apply(t, us, action);
            let rights = castling & !super::castling_lost(us, action);
            nodes += count(t, &next, us.other(), rights, depth - 1, left)?;
        }
        Some(nodes)
    }
    if depth == 0 {
        *budget = budget.checked_sub(1)?;
        return Some(1);
    }
    count(tables(), &Pieces::of(pos), pos.turn(), pos.castling_rooks(), depth, budget)
}
