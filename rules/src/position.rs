//! The shared board: pieces, the board's present squares, check detection and the turn walker.
//!
//! Whatever a variant's board does beyond FIDE chess (holes and reserves, quad-squares, the chip,
//! tiles, shrinking) is asked of its room in `mechanic/` through the `Mechanic` hooks; this file
//! never looks inside a room (see `docs/engine.md`).

use crate::attacks;
use crate::mechanic::{Mechanic, Room, TurnEffects, dispatch};
use crate::moves::{Action, Move};
use crate::types::{Bitboard, ByColor, Color, Piece, Role, Square};
use crate::variant::{DeadMaterial, Rules, TurnRule, Variant};

/// A validated position of any square-grid variant. Build one from text with
/// [`Position::from_fen`](crate::text), from a [`Setup`](crate::setup::Setup) with
/// [`Position::from_setup`], or from [`Variant::start_fen`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) variant: Variant,
    /// The variant's rule switches, cached: move generation reads them without a registry lookup.
    pub(crate) rules: CachedRules,
    /// The variant's room, cached: the hooks ask it often.
    pub(crate) room: Room,
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    /// Locations that hold a square (or tile) a piece can stand on.
    pub(crate) squares: Bitboard,
    /// The board's size; only Shrink Chess's room changes it.
    pub(crate) width: u8,
    pub(crate) height: u8,
    pub(crate) turn: Color,
    /// Rooks that keep the right to castle, by their square.
    pub(crate) castling: Bitboard,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    // The rooms' state, each field owned by the room named. The board stores it so positions
    // stay one flat value that compares, hashes and clones cheaply.
    /// Squares room: who owns each square, where squares are owned (L10). An occupied square is
    /// its occupant's.
    pub(crate) owners: [Bitboard; 2],
    /// Squares room: squares in hand, where reserves are finite.
    pub(crate) reserves: [u8; 2],
    /// Squares room: squares the side to move may not move: the one the opponent moved last
    /// turn, and in Infinite Reserves also the one they placed (L5).
    pub(crate) locked: Bitboard,
    /// Squares room: pawns that have been carried by their square and so may not double-step (L13).
    pub(crate) carried: Bitboard,
    /// Chip room: the square the side to move may not move onto.
    pub(crate) chip: Option<Square>,
    /// Tiles room: anti-tiles, which block every piece but the knight (T4).
    pub(crate) anti: Bitboard,
}

/// A position's variant's rules, kept with it. They follow from the variant, which the position
/// compares and hashes, so they take no part in comparing or hashing positions themselves.
#[derive(Copy, Clone)]
pub(crate) struct CachedRules(pub(crate) &'static Rules);

impl PartialEq for CachedRules {
    fn eq(&self, _: &CachedRules) -> bool {
        true
    }
}

impl Eq for CachedRules {}

impl std::hash::Hash for CachedRules {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl std::fmt::Debug for CachedRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("..")
    }
}

/// A quick multiply-rotate hasher for [`Position::key`]: the search asks for a key at every node.
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        // A final avalanche so that nearby positions land far apart in a table.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 33;
        x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        x ^ (x >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517C_C1B7_2722_0A95);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A compound turn being built: the position after its actions so far (turn not yet closed).
struct TurnBuilder {
    pos: Position,
    mv: Option<Move>,
    effects: TurnEffects,
}

impl TurnBuilder {
    /// Visits this turn if it may end here, then every legal continuation by square actions.
    fn extend(
        &self,
        step: usize,
        shifted: bool,
        placed: bool,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let rules = self.pos.rules();
        if let Some(mv) = self.mv {
            // L12: the placement is required while a hole exists; L9: the king safe at the end.
            let placement_done = placed || !self.pos.placement_due();
            if placement_done && !self.pos.king_attacked(self.pos.turn) && !visit(mv) {
                return false;
            }
        }
        let (may_shift, may_place) = match rules.turn {
            TurnRule::Single | TurnRule::PieceThenChip => (false, false),
            TurnRule::Postal => (!shifted && !placed, !shifted && !placed),
            TurnRule::PostalPlus | TurnRule::InfiniteReserves => (!shifted, !placed),
        };
        if !may_shift && !may_place {
            return true;
        }
        let mut actions = Vec::with_capacity(64);
        self.pos.gen_square_actions(&mut |a| actions.push(a));
        for action in actions {
            let is_place = matches!(action, Action::Place { .. });
            if (is_place && !may_place) || (!is_place && !may_shift) || !filter(step, &self.pos, action) {
                continue;
            }
            let mut next = TurnBuilder {
                pos: self.pos.clone(),
                mv: Some(self.mv.map_or(Move::single(action), |m| m.then(action))),
                effects: self.effects,
            };
            next.pos.apply(action, &mut next.effects);
            if !next.extend(step + 1, shifted || !is_place, placed || is_place, filter, visit) {
                return false;
            }
        }
        true
    }
}

impl Position {
    /// The start position of a variant.
    pub fn start(variant: Variant) -> Position {
        Position::from_fen(variant, variant.start_fen()).expect("start positions are valid")
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn turn(&self) -> Color {
        self.turn
    }

    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    pub fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    #[inline]
    pub fn rules(&self) -> &'static Rules {
        self.rules.0
    }

    /// The part of the turn number that changes the legal turns: the first turn under the
    /// Postal rules (L9), the turns before squares start vanishing (L12); otherwise 0.
    pub fn turn_number_phase(&self) -> u32 {
        let rules = self.rules();
        match rules.removal_from_turn {
            Some(n) if self.fullmoves < n => self.fullmoves,
            _ if rules.turn.is_postal() && self.fullmoves == 1 => 1,
            _ => 0,
        }
    }

    /// The location a cell belongs to: a quad-square's canonical cell, otherwise the cell itself.
    pub fn location(&self, sq: Square) -> Square {
        dispatch!(self.room, M => M::location(sq))
    }

    /// How players name a location: `M1` for a quad-square, else the square.
    pub fn location_name(&self, sq: Square) -> String {
        dispatch!(self.room, M => M::location_name(sq))
    }

    /// Whether locations are named otherwise than their cells (Quad-Square Chess's `M1`, `S3`).
    pub fn has_named_locations(&self) -> bool {
        dispatch!(self.room, M => !M::straight_lines())
    }

    /// Locations inside the board that hold no square.
    #[inline]
    pub fn holes(&self) -> Bitboard {
        self.board_mask() & !self.squares
    }

    /// Board width and height in locations (8x8 for most variants).
    pub fn size(&self) -> (u8, u8) {
        (self.width, self.height)
    }

    /// All locations inside the board's outline, square or not.
    #[inline]
    pub fn board_mask(&self) -> Bitboard {
        Bitboard::rect(self.width, self.height)
    }

    /// Locations that hold a square.
    #[inline]
    pub fn squares(&self) -> Bitboard {
        self.squares
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else if self.by_color[1].contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let role = Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq))?;
        Some(Piece { color, role })
    }

    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// Locations that stop sliding pieces besides pieces themselves: holes and everything off the
    /// board (in Tiled Squares, anti-tiles and the edge).
    #[inline]
    pub fn walls(&self) -> Bitboard {
        dispatch!(self.room, M => M::walls(self))
    }

    /// What players call the things pieces stand on: tiles in Tiled Squares, squares elsewhere.
    pub fn square_word(&self) -> &'static str {
        dispatch!(self.room, M => M::square_word())
    }

    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] |= sq.bb();
        self.by_role[piece.role.index()] |= sq.bb();
    }

    pub(crate) fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.by_color[piece.color.index()] ^= sq.bb();
        self.by_role[piece.role.index()] ^= sq.bb();
        Some(piece)
    }

    /// Pieces of `by` that attack `sq`, with `blockers` stopping sliders.
    pub fn attackers(&self, sq: Square, by: Color, blockers: Bitboard) -> Bitboard {
        let them = self.by_color(by);
        let rq = self.by_role(Role::Rook) | self.by_role(Role::Queen);
        let bq = self.by_role(Role::Bishop) | self.by_role(Role::Queen);
        them & ((attacks::pawn(by.other(), sq) & self.by_role(Role::Pawn))
            | (attacks::knight(sq) & self.by_role(Role::Knight))
            | (attacks::king(sq) & self.by_role(Role::King))
            | (attacks::rook(sq, blockers) & rq)
            | (attacks::bishop(sq, blockers) & bq))
    }

    #[inline]
    pub(crate) fn blockers(&self) -> Bitboard {
        self.occupied() | self.walls()
    }

    #[inline]
    fn blockers_with<M: Mechanic>(&self) -> Bitboard {
        self.occupied() | M::walls(self)
    }

    /// Enemy pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        match self.king(self.turn) {
            Some(k) => self.attackers(k, self.turn.other(), self.blockers()),
            None => Bitboard::EMPTY,
        }
    }

    pub fn is_check(&self) -> bool {
        self.king_attacked(self.turn)
    }

    /// Whether `color`'s king stands attacked.
    #[inline]
    pub fn king_attacked(&self, color: Color) -> bool {
        dispatch!(self.room, M => M::king_attacked(self, color))
    }

    /// Whether `color`'s king is attacked by the pieces' FIDE powers on this board.
    #[inline]
    pub(crate) fn board_king_attacked<M: Mechanic>(&self, color: Color) -> bool {
        match self.king(color) {
            Some(k) => self.attackers(k, color.other(), self.blockers_with::<M>()).any(),
            None => false,
        }
    }

    /// Own pieces that are the only thing between the own king and an enemy slider.
    fn pinned<M: Mechanic>(&self, king: Square) -> Bitboard {
        let us = self.turn;
        let them = self.by_color(us.other());
        let snipers = them
            & ((attacks::rook(king, Bitboard::EMPTY)
                & (self.by_role(Role::Rook) | self.by_role(Role::Queen)))
                | (attacks::bishop(king, Bitboard::EMPTY)
                    & (self.by_role(Role::Bishop) | self.by_role(Role::Queen))));
        let blockers = self.blockers_with::<M>();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(king, sniper) & blockers;
            if !between.more_than_one() {
                pinned |= between & self.by_color(us);
            }
        }
        pinned
    }

    /// All legal turns.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(64);
        self.legal_moves_into(&mut moves);
        moves
    }

    /// All legal turns, appended to `out` (cleared first), reusing its allocation.
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        match crate::plain::Board::of(self) {
            Some(board) => {
                out.clear();
                board.legal_moves_into(out);
            }
            None => self.general_legal_moves_into(out),
        }
    }

    /// [`Position::legal_moves_into`] by the general generator, whatever the board.
    pub(crate) fn general_legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        dispatch!(self.room, M => M::legal_moves_into(self, out))
    }

    /// The board's legal turns: one action proved or played out, or compound turns walked.
    pub(crate) fn walk_legal_moves_into<M: Mechanic>(&self, out: &mut Vec<Move>) {
        if self.rules().turn == TurnRule::Single {
            M::piece_moves(self, out);
            M::square_actions(self, &mut |action| {
                let mv = Move::single(action);
                if !self.played(&mv).king_attacked(self.turn) {
                    out.push(mv);
                }
            });
        } else {
            M::for_each_turn(self, &mut |_, _, _| true, &mut |mv| {
                out.push(mv);
                true
            });
        }
    }

    /// Legal one-action piece moves, proved legal cheaply where the geometry allows.
    pub(crate) fn proven_piece_moves<M: Mechanic>(&self, out: &mut Vec<Move>) {
        let us = self.turn;
        let them = us.other();
        let king = self.king(us);
        let in_check = M::king_attacked(self, us);
        let pinned = king.map_or(Bitboard::EMPTY, |k| self.pinned::<M>(k));
        let blockers_without_king = self.blockers_with::<M>() & !king.map_or(Bitboard::EMPTY, |k| k.bb());
        let keeps_geometry = self.rules().piece_moves_keep_geometry();
        M::pseudo_piece_actions(self, &mut |action| {
            let mv = Move::single(action);
            // Cheap proofs of legality, sound only while a piece move leaves the squares where they
            // are; anything else is played out and the king looked at.
            let proven = if !keeps_geometry {
                None
            } else {
                match action {
                    Action::Normal { role: Role::King, to, .. } => {
                        Some(self.attackers(to, them, blockers_without_king).is_empty())
                    }
                    Action::Normal { from, to, .. } if !in_check => Some(
                        !pinned.contains(from) || king.is_some_and(|k| attacks::line(k, from).contains(to)),
                    ),
                    _ => None,
                }
            };
            if proven.unwrap_or_else(|| !self.played(&mv).king_attacked(us)) {
                out.push(mv);
            }
        });
    }

    /// Whether the side to move has at least one legal turn.
    pub fn has_legal_moves(&self) -> bool {
        if let Some(board) = crate::plain::Board::of(self) {
            return board.has_moves();
        }
        dispatch!(self.room, M => M::has_legal_moves(self))
    }

    /// Whether an open turn still owes a placement before it may end: in Infinite Reserves while
    /// a hole exists (L12).
    pub(crate) fn placement_due(&self) -> bool {
        self.rules().turn == TurnRule::InfiniteReserves && !self.holes().is_empty()
    }

    pub(crate) fn walk_has_legal_moves<M: Mechanic>(&self) -> bool {
        match self.rules().turn {
            TurnRule::Single => !self.legal_moves().is_empty(),
            // Rooms with compound turns look for the usual short turn first (the squares room).
            _ => !M::for_each_turn(self, &mut |_, _, _| true, &mut |_| false),
        }
    }

    /// A 64-bit hash of everything that makes the position, counters aside: pieces, squares and
    /// their owners, reserves, locks, carried pawns, the chip, tiles, the board's size, castling,
    /// en passant, the side to move and the part of the turn number that changes the rules.
    /// Positions with equal keys are, but for hash collisions, the same for every rule.
    pub fn key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = KeyHasher(0x9E37_79B9_7F4A_7C15);
        self.variant.hash(&mut hasher);
        self.by_role.hash(&mut hasher);
        self.by_color.hash(&mut hasher);
        self.squares.hash(&mut hasher);
        hasher.write_u64(u64::from(self.width) | (u64::from(self.height) << 8));
        self.turn.hash(&mut hasher);
        self.castling.hash(&mut hasher);
        self.ep.hash(&mut hasher);
        hasher.write_u64(u64::from(self.turn_number_phase()));
        self.owners.hash(&mut hasher);
        self.reserves.hash(&mut hasher);
        self.locked.hash(&mut hasher);
        self.carried.hash(&mut hasher);
        self.chip.hash(&mut hasher);
        self.anti.hash(&mut hasher);
        hasher.finish()
    }

    /// Walks the legal turns whose `i`-th action passes `filter(i, position before it, action)`,
    /// calling `visit` with each; stops early, returning false, when `visit` returns false.
    ///
    /// A turn's actions come in the order they are made; a turn that may end is visited before
    /// its longer continuations. For searches that look at a chosen few of the many compound
    /// turns (the practice opponent prunes square actions this way).
    pub fn for_each_turn(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        dispatch!(self.room, M => M::for_each_turn(self, filter, visit))
    }

    /// The turn walker: one action, or a piece move followed by square actions (L9).
    pub(crate) fn walk_turns<M: Mechanic>(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let rules = self.rules();
        if rules.turn == TurnRule::Single {
            let mut actions = Vec::new();
            M::pseudo_piece_actions(self, &mut |a| actions.push(a));
            M::square_actions(self, &mut |a| actions.push(a));
            for action in actions {
                if filter(0, self, action) {
                    let mv = Move::single(action);
                    if !self.played(&mv).king_attacked(self.turn) && !visit(mv) {
                        return false;
                    }
                }
            }
            return true;
        }
        if !self.for_each_piece_turn::<M>(filter, visit) {
            return false;
        }
        // L9: on a player's first turn, a turn without a piece move when no piece can move.
        if self.fullmoves == 1 && !self.has_piece_turn::<M>() {
            let start = TurnBuilder { pos: self.clone(), mv: None, effects: TurnEffects::default() };
            return start.extend(0, false, false, filter, visit);
        }
        true
    }

    fn for_each_piece_turn<M: Mechanic>(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let mut actions = Vec::new();
        M::pseudo_piece_actions(self, &mut |a| actions.push(a));
        for action in actions {
            if !filter(0, self, action) {
                continue;
            }
            let mut pos = self.clone();
            let mut effects = TurnEffects::default();
            pos.apply_with::<M>(action, &mut effects);
            let built = TurnBuilder { pos, mv: Some(Move::single(action)), effects };
            if !built.extend(1, false, false, filter, visit) {
                return false;
            }
        }
        true
    }

    /// Whether some legal turn includes a piece move (compound turns, L9).
    fn has_piece_turn<M: Mechanic>(&self) -> bool {
        !self.for_each_piece_turn::<M>(&mut |_, _, _| true, &mut |_| false)
    }

    /// Pseudo-legal piece actions: every move by the piece rules, before the own-king check.
    pub(crate) fn gen_piece_actions(&self, emit: &mut dyn FnMut(Action)) {
        dispatch!(self.room, M => M::pseudo_piece_actions(self, emit))
    }

    /// The board's pseudo-legal piece actions: FIDE's moves on the squares there are.
    pub(crate) fn board_piece_actions<M: Mechanic>(&self, emit: &mut dyn FnMut(Action)) {
        let us = self.turn;
        let ours = self.by_color(us);
        let theirs = self.by_color(us.other());
        let blockers = self.blockers_with::<M>();
        let closed = M::closed(self);
        let targets = self.squares & !ours & !closed;
        let king_targets = M::king_targets(self, targets);
        let last_rank = us.last_rank(self.height);

        // Role by role, so no piece has to be looked up.
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
            for from in ours & self.by_role(role) {
                self.emit_piece_moves(role, from, blockers, king_targets, targets, theirs, emit);
            }
        }

        let rules = self.rules();
        let double_rank = self.double_step_rank_with(us, rules.double_step && M::double_steps(self));
        let promotions = rules.promotions;
        for from in self.pieces(us, Role::Pawn) {
            let mut emit_pawn = |to: Square, capture: Option<Role>| {
                if to.rank() == last_rank {
                    for promo in promotions.roles() {
                        emit(Action::Normal { role: Role::Pawn, from, to, capture, promotion: Some(promo) });
                    }
                } else {
                    emit(Action::Normal { role: Role::Pawn, from, to, capture, promotion: None });
                }
            };
            for to in attacks::pawn(us, from) & theirs & self.squares {
                emit_pawn(to, Some(self.role_at(to)));
            }
            let free = self.squares & !self.occupied();
            let passable = M::pawn_passable(self);
            if let Some(one) = from.offset(0, us.forward())
                && passable.contains(one)
            {
                if free.contains(one) && !closed.contains(one) {
                    emit_pawn(one, None);
                }
                // Pawns may double-step across a closed square (B3).
                if double_rank == Some(from.rank())
                    && !self.carried.contains(from)
                    && let Some(two) = one.offset(0, us.forward())
                    && free.contains(two)
                    && !closed.contains(two)
                {
                    emit_pawn(two, None);
                }
            }
            if let Some(ep) = self.ep
                && self.squares.contains(ep)
                && !closed.contains(ep)
                && attacks::pawn(us, from).contains(ep)
            {
                emit(Action::EnPassant { from, to: ep });
            }
        }

        self.gen_castling::<M>(emit);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn emit_piece_moves(
        &self,
        role: Role,
        from: Square,
        blockers: Bitboard,
        king_targets: Bitboard,
        targets: Bitboard,
        theirs: Bitboard,
        emit: &mut dyn FnMut(Action),
    ) {
        let (reach, targets) = match role {
            Role::Knight => (attacks::knight(from), targets),
            Role::Bishop => (attacks::bishop(from, blockers), targets),
            Role::Rook => (attacks::rook(from, blockers), targets),
            Role::Queen => (attacks::queen(from, blockers), targets),
            Role::King => (attacks::king(from), king_targets),
            Role::Pawn => unreachable!("pawns are generated on their own"),
        };
        for to in reach & targets {
            let capture = theirs.contains(to).then(|| self.role_at(to));
            emit(Action::Normal { role, from, to, capture, promotion: None });
        }
    }

    /// The rank from which a pawn of `color` may make a double step.
    pub(crate) fn double_step_rank(&self, color: Color) -> Option<u8> {
        let allowed = self.rules().double_step && dispatch!(self.room, M => M::double_steps(self));
        self.double_step_rank_with(color, allowed)
    }

    #[inline]
    fn double_step_rank_with(&self, color: Color, allowed: bool) -> Option<u8> {
        if !allowed {
            return None;
        }
        Some(match color {
            Color::White => 1,
            Color::Black => self.height.checked_sub(2)?,
        })
    }

    fn gen_castling<M: Mechanic>(&self, emit: &mut dyn FnMut(Action)) {
        // Without castling a position has no rights (its reader refuses them); read the switch
        // anyway, once a turn, so a position can never castle where the variant has no castling.
        if !self.rules().castling {
            return;
        }
        let us = self.turn;
        let Some(king) = self.king(us) else { return };
        let back = us.first_rank(self.height);
        if king.rank() != back {
            return;
        }
        let rooks = self.castling & self.pieces(us, Role::Rook) & Bitboard::rank(back);
        if rooks.is_empty() || M::king_attacked(self, us) {
            return;
        }
        for rook in rooks {
            let (king_to, rook_to) = M::castling_targets(self, king, rook);
            if !M::may_castle(self, king, rook, (king_to, rook_to)) {
                continue;
            }
            // Everything the king and rook cross or land on must be an empty square.
            let span = attacks::between(king, king_to)
                | attacks::between(rook, rook_to)
                | king_to.bb()
                | rook_to.bb();
            let span = span & !king.bb() & !rook.bb();
            if (span & self.occupied()).any() || (span & !self.squares).any() {
                continue;
            }
            let blockers = (self.occupied() & !king.bb() & !rook.bb()) | M::walls(self);
            let king_path = attacks::between(king, king_to) | king_to.bb();
            if king_path.into_iter().any(|sq| self.attackers(sq, us.other(), blockers).any()) {
                continue;
            }
            emit(Action::Castle { king, rook });
        }
    }

    /// Where king and rook end up when castling: FIDE's g/c and f/d files, unless the board says
    /// otherwise.
    pub fn castling_targets(&self, king: Square, rook: Square) -> (Square, Square) {
        dispatch!(self.room, M => M::castling_targets(self, king, rook))
    }

    #[inline]
    pub(crate) fn role_at(&self, sq: Square) -> Role {
        let bb = sq.bb();
        for role in Role::ALL {
            if (self.by_role[role.index()] & bb).any() {
                return role;
            }
        }
        Role::Pawn
    }

    /// The position after a legal move.
    pub fn played(&self, mv: &Move) -> Position {
        let mut next = self.clone();
        next.play_unchecked(mv);
        next
    }

    /// The position after the side to move passes (a search's null move): the same board, the
    /// other side to move, no en passant. Only where a pass leaves nothing else behind: `None` in
    /// check, in the rooms whose state moves with the turns (the Betza family's locks and counted
    /// squares, Blue Chip's chip, Tiled Squares' tiles) and where a turn has several actions.
    pub fn passed(&self) -> Option<Position> {
        if !self.rules().only_pieces_move() || self.is_check() {
            return None;
        }
        let mut next = self.clone();
        next.turn = self.turn.other();
        next.ep = None;
        next.halfmoves += 1;
        Some(next)
    }

    /// Plays a move that must come from [`Position::legal_moves`].
    pub fn play_unchecked(&mut self, mv: &Move) {
        self.play_reporting(mv);
    }

    /// Plays a move; returns where pawns the board promoted by itself now stand (Shrink Chess, S6).
    pub(crate) fn play_reporting(&mut self, mv: &Move) -> Vec<Square> {
        dispatch!(self.room, M => self.play_with::<M>(mv))
    }

    fn play_with<M: Mechanic>(&mut self, mv: &Move) -> Vec<Square> {
        let before = self.occupied();
        let mut effects = TurnEffects::default();
        for action in mv.actions() {
            self.apply_with::<M>(action, &mut effects);
        }
        let promoted = M::after_actions(self, before, mv, &mut effects);
        self.finish_turn::<M>(effects);
        promoted
    }

    /// Makes one action of the side to move, leaving the turn open.
    pub(crate) fn apply(&mut self, action: Action, fx: &mut TurnEffects) {
        dispatch!(self.room, M => self.apply_with::<M>(action, fx))
    }

    #[inline]
    fn apply_with<M: Mechanic>(&mut self, action: Action, fx: &mut TurnEffects) {
        fx.piece_moved |= action.is_piece_move();
        M::apply(self, action, fx);
    }

    /// Makes one action without closing the turn, for walking through a compound turn.
    pub(crate) fn apply_action(&mut self, action: Action) {
        self.apply(action, &mut TurnEffects::default());
    }

    /// The board's part of an action: pieces moving by their own powers. Everything else is the
    /// room's, and the room hears where pieces went.
    #[inline]
    pub(crate) fn apply_piece_action<M: Mechanic>(&mut self, action: Action, fx: &mut TurnEffects) {
        let us = self.turn;
        match action {
            Action::Normal { role, from, to, capture, promotion } => {
                if capture.is_some() {
                    self.take(to);
                    fx.reset_clock = true;
                }
                self.take(from);
                self.put(to, Piece::new(us, promotion.unwrap_or(role)));
                if role == Role::Pawn {
                    fx.reset_clock = true;
                    if from.rank().abs_diff(to.rank()) == 2 {
                        fx.double_step =
                            Some(Square::from_coords(from.file(), (from.rank() + to.rank()) / 2));
                    }
                }
                if role == Role::King {
                    self.castling &= !Bitboard::rank(us.first_rank(self.height));
                }
                self.castling &= !from.bb() & !to.bb();
                M::stepped(self, role, from, to);
                fx.reset_clock |= M::arrived(self, to);
                M::departed(self, from);
            }
            Action::EnPassant { from, to } => {
                self.take(Square::from_coords(to.file(), from.rank()));
                self.take(from);
                self.put(to, Piece::new(us, Role::Pawn));
                fx.reset_clock = true;
                M::stepped(self, Role::Pawn, from, to);
                M::arrived(self, to);
                M::departed(self, from);
            }
            Action::Castle { king, rook } => {
                let (king_to, rook_to) = M::castling_targets(self, king, rook);
                self.take(king);
                self.take(rook);
                self.put(king_to, Piece::new(us, Role::King));
                self.put(rook_to, Piece::new(us, Role::Rook));
                self.castling &= !Bitboard::rank(us.first_rank(self.height));
                fx.reset_clock |= M::arrived(self, king_to) | M::arrived(self, rook_to);
                // L12: only the king's square goes.
                if !self.occupied().contains(king) {
                    M::departed(self, king);
                }
            }
            _ => M::apply_own(self, action, fx),
        }
    }

    /// Closes the turn: counters, side to move, locks, en passant.
    fn finish_turn<M: Mechanic>(&mut self, fx: TurnEffects) {
        let us = self.turn;
        if M::counts_turn(&fx) {
            self.halfmoves = if fx.reset_clock { 0 } else { self.halfmoves + 1 };
            if us == Color::Black {
                self.fullmoves += 1;
            }
        }
        self.turn = us.other();
        self.locked = M::locks(self, &fx);
        self.ep = None;
        if let Some(ep) = fx.double_step
            && self.squares.contains(ep)
            && self.ep_capture_possible::<M>(ep)
        {
            self.ep = Some(ep);
        }
    }

    /// Whether the side to move could capture en passant onto `ep`. We record an en passant
    /// square only then, as most chess software writes FEN. Where a turn has several actions,
    /// a pawn standing ready is enough: later actions of that turn could still shield the king.
    fn ep_capture_possible<M: Mechanic>(&self, ep: Square) -> bool {
        let us = self.turn;
        let capturers = attacks::pawn(us.other(), ep) & self.pieces(us, Role::Pawn);
        if self.rules().turn.is_postal() {
            return capturers.any();
        }
        if M::closed(self).contains(ep) {
            return false;
        }
        capturers.into_iter().any(|from| {
            let mv = Move::single(Action::EnPassant { from, to: ep });
            !self.played(&mv).king_attacked(us)
        })
    }

    /// Pseudo-legal actions on the board itself: square moves, placements, tiles.
    pub(crate) fn gen_square_actions(&self, emit: &mut dyn FnMut(Action)) {
        dispatch!(self.room, M => M::square_actions(self, emit))
    }

    /// The pieces of one side, for material checks.
    pub fn material(&self) -> ByColor<[u32; 6]> {
        let count = |c: Color| Role::ALL.map(|r| self.pieces(c, r).count());
        ByColor::new(count(Color::White), count(Color::Black))
    }

    /// Whether the material on the board draws by this variant's rule (G4): in FIDE chess the
    /// dead positions every arbiter recognises (FIDE 9.6.2: bare kings, a lone minor piece,
    /// bishops all on one colour of square); in Blue Chip only bare kings; elsewhere never.
    pub fn insufficient_material(&self) -> bool {
        let kings_only = self.occupied() == self.by_role(Role::King);
        match self.rules().dead_material {
            DeadMaterial::PlaysOn => return false,
            DeadMaterial::BareKings => return kings_only,
            DeadMaterial::Fide => {}
        }
        let heavy = self.by_role(Role::Pawn) | self.by_role(Role::Rook) | self.by_role(Role::Queen);
        if heavy.any() {
            return false;
        }
        let knights = self.by_role(Role::Knight);
        let bishops = self.by_role(Role::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true;
        }
        const DARK: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);
        knights.is_empty() && ((bishops & DARK).is_empty() || (bishops & !DARK).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(fen: &str) -> usize {
        Position::from_fen(Variant::CHESS, fen).unwrap().legal_moves().len()
    }

    #[test]
    fn start_position_has_twenty_moves() {
        assert_eq!(Position::start(Variant::CHESS).legal_moves().len(), 20);
    }

    #[test]
    fn pinned_piece_moves_only_along_the_pin() {
        // The e-file rook is pinned by the queen on e8: it may slide on the file only.
        let pos = Position::from_fen(Variant::CHESS, "4q2k/8/8/8/8/8/4R3/4K3 w - - 0 1").unwrap();
        let rook_moves: Vec<_> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.first().from() == Square::parse("e2").unwrap())
            .collect();
        assert_eq!(rook_moves.len(), 6);
    }

    #[test]
    fn en_passant_that_exposes_the_king_is_illegal() {
        // Capturing en passant would clear the fifth rank between the king and the rook.
        let pos = Position::from_fen(Variant::CHESS, "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1").unwrap();
        let moves = pos.legal_moves();
        assert!(!moves.iter().any(|m| matches!(m.first(), Action::EnPassant { .. })));
        // Five king moves and e5-e6.
        assert_eq!(moves.len(), 6);
        assert_eq!(count("8/8/8/K2pP3/8/8/8/7k w - d6 0 1"), 7);
    }

    #[test]
    fn castling_through_check_is_illegal() {
        // The bishop on a6 covers f1, so only the long castle is possible.
        let pos = Position::from_fen(Variant::CHESS, "4k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        let castles =
            pos.legal_moves().into_iter().filter(|m| matches!(m.first(), Action::Castle { .. })).count();
        assert_eq!(castles, 1);
    }

    #[test]
    fn insufficient_material_cases() {
        let dead = |fen| Position::from_fen(Variant::CHESS, fen).unwrap().insufficient_material();
        assert!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3KN3/8/8 w - - 0 1"));
        assert!(dead("8/8/3bk3/8/8/3KB3/8/8 w - - 0 1"), "bishops on the same colour");
        assert!(!dead("8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1"), "bishops on opposite colours");
        assert!(!dead("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/8/3K4/P7/8 w - - 0 1"));
    }

    /// A pass hands the turn over and changes nothing else; where the board's state moves with
    /// the turns, or in check, there is none.
    #[test]
    fn a_pass_only_where_it_leaves_nothing_behind() {
        let pos = Position::from_fen(Variant::CHESS, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
        let passed = pos.passed().unwrap();
        assert_eq!(passed.turn(), Color::Black);
        assert_eq!(passed.ep_square(), None);
        assert_eq!(passed.occupied(), pos.occupied());
        assert!(
            Position::from_fen(Variant::CHESS, "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap().passed().is_none()
        );
        assert!(Position::start(Variant::HANS38).passed().is_none());
        assert!(Position::start(Variant::QUAD_SQUARE).passed().is_some());
        assert!(Position::start(Variant::TILED_SQUARES).passed().is_none());
    }

    #[test]
    fn ep_square_recorded_only_when_capturable() {
        let pos = Position::start(Variant::CHESS);
        let e4 = pos.legal_moves().into_iter().find(|m| m.first().from() == Square::parse("e2").unwrap());
        let after = pos.played(&e4.unwrap());
        // Either e3 or e4 was found; neither allows an en passant reply in the start position.
        assert_eq!(after.ep_square(), None);
    }
}
