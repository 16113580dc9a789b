//! A position: pieces, the board's present squares, and the state that decides the legal moves.

use crate::attacks;
use crate::moves::{Action, Move};
use crate::quad;
use crate::types::{Bitboard, ByColor, Color, Piece, Role, Square};
use crate::variant::{DeadMaterial, Reserve, Rules, TurnRule, Variant};

/// A validated position of any square-grid variant. Build one from text with
/// [`Position::from_fen`](crate::text) or from [`Variant::start_fen`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) variant: Variant,
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    /// Locations that hold a square (or tile) a piece can stand on.
    pub(crate) squares: Bitboard,
    pub(crate) width: u8,
    pub(crate) height: u8,
    pub(crate) turn: Color,
    /// Rooks that keep the right to castle, by their square.
    pub(crate) castling: Bitboard,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// Who owns each square, where squares are owned (L10). An occupied square is its occupant's.
    pub(crate) owners: [Bitboard; 2],
    /// Squares in hand, where reserves are finite.
    pub(crate) reserves: [u8; 2],
    /// Squares the side to move may not move: the one the opponent moved last turn, and in
    /// Infinite Reserves also the one they placed (L5).
    pub(crate) locked: Bitboard,
    /// Pawns that have been carried by their square and so may not double-step (L13).
    pub(crate) carried: Bitboard,
    /// Blue Chip: the square the side to move may not move onto.
    pub(crate) chip: Option<Square>,
    /// Tiled Squares: anti-tiles, which block every piece but the knight (T4).
    pub(crate) anti: Bitboard,
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
            let placement_done =
                rules.turn != TurnRule::InfiniteReserves || placed || self.pos.holes().is_empty();
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

/// What one turn's actions leave for the end of the turn.
#[derive(Default, Clone, Copy, Debug)]
struct TurnEffects {
    reset_clock: bool,
    double_step: Option<Square>,
    /// Squares this turn locks for the opponent's next turn: those moved, and those placed
    /// where placements lock too (L5).
    touched: Bitboard,
    /// A piece moved by its own powers this turn.
    piece_moved: bool,
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
        self.variant.rules()
    }

    /// Squares in hand; `None` where the supply is unlimited or there is none.
    pub fn reserve(&self, color: Color) -> Option<u8> {
        match self.rules().reserve {
            Reserve::Finite(_) => Some(self.reserves[color.index()]),
            Reserve::None | Reserve::Infinite => None,
        }
    }

    /// Who owns the square at `sq`, where squares are owned.
    pub fn owner(&self, sq: Square) -> Option<Color> {
        Color::ALL.into_iter().find(|c| self.owners[c.index()].contains(sq))
    }

    pub fn owned_by(&self, color: Color) -> Bitboard {
        self.owners[color.index()]
    }

    /// Squares the side to move may not move this turn.
    pub fn locked(&self) -> Bitboard {
        self.locked
    }

    /// Blue Chip: the square closed to the side to move, once the chip is on the board.
    pub fn chip(&self) -> Option<Square> {
        self.chip
    }

    /// Pawns that were carried by their square (and may not double-step).
    pub fn carried_pawns(&self) -> Bitboard {
        self.carried
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
        if self.rules().quad_squares { quad::location(sq) } else { sq }
    }

    /// How players name a location: `M1` for a quad-square, else the square.
    pub fn location_name(&self, sq: Square) -> String {
        if self.rules().quad_squares { quad::location_name(sq) } else { sq.to_string() }
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

    /// Locations that stop sliding pieces besides pieces themselves: holes and everything off the board.
    #[inline]
    pub fn walls(&self) -> Bitboard {
        if self.rules().tiles {
            // Void is passed over; only anti-tiles (and the board's edge) stop a line (T4).
            self.anti | !self.board_mask()
        } else {
            !self.squares
        }
    }

    /// What players call the things pieces stand on: tiles in Tiled Squares, squares elsewhere.
    pub fn square_word(&self) -> &'static str {
        if self.rules().tiles { "tile" } else { "square" }
    }

    /// Tiled Squares: the anti-tiles.
    pub fn anti_tiles(&self) -> Bitboard {
        self.anti
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
    fn blockers(&self) -> Bitboard {
        self.occupied() | self.walls()
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
    pub fn king_attacked(&self, color: Color) -> bool {
        if self.rules().quad_squares {
            return quad::king_attacked(self, color);
        }
        match self.king(color) {
            Some(k) => self.attackers(k, color.other(), self.blockers()).any(),
            None => false,
        }
    }

    /// Own pieces that are the only thing between the own king and an enemy slider.
    fn pinned(&self, king: Square) -> Bitboard {
        let us = self.turn;
        let them = self.by_color(us.other());
        let snipers = them
            & ((attacks::rook(king, Bitboard::EMPTY)
                & (self.by_role(Role::Rook) | self.by_role(Role::Queen)))
                | (attacks::bishop(king, Bitboard::EMPTY)
                    & (self.by_role(Role::Bishop) | self.by_role(Role::Queen))));
        let blockers = self.blockers();
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
        if self.rules().quad_squares {
            return quad::legal_moves_into(self, out);
        }
        if self.rules().turn == TurnRule::Single {
            self.single_piece_moves(out);
            if self.rules().square_actions {
                self.gen_square_actions(&mut |action| {
                    let mv = Move::single(action);
                    if !self.played(&mv).king_attacked(self.turn) {
                        out.push(mv);
                    }
                });
            }
        } else {
            self.for_each_turn(&mut |_, _, _| true, &mut |mv| {
                out.push(mv);
                true
            });
        }
    }

    /// Legal one-action piece moves, proved legal cheaply where the geometry allows.
    fn single_piece_moves(&self, out: &mut Vec<Move>) {
        if self.rules().shrink {
            return self.shrink_piece_moves(out);
        }
        let us = self.turn;
        let them = us.other();
        let king = self.king(us);
        let in_check = self.is_check();
        let pinned = king.map_or(Bitboard::EMPTY, |k| self.pinned(k));
        let blockers_without_king = self.blockers() & !king.map_or(Bitboard::EMPTY, |k| k.bb());
        let keeps_geometry = self.variant.piece_moves_keep_geometry();
        self.gen_piece_actions(&mut |action| {
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

    /// Shrink Chess: every move is played out (the board may close up), and a move whose shrink
    /// promotes pawns comes once for each choice of pieces (S6): every pawn separately, each to any
    /// piece that leaves the mover's king out of check.
    fn shrink_piece_moves(&self, out: &mut Vec<Move>) {
        self.gen_piece_actions(&mut |action| {
            let mv = Move::single(action);
            let Some(options) = self.shrink_options_of(&mv) else { return };
            // Every combination, as a mixed-radix count over the pawns' allowed pieces.
            let mut digits = vec![0usize; options.len()];
            loop {
                let choice =
                    options.iter().zip(&digits).enumerate().fold(0u32, |acc, (i, ((_, allowed), &d))| {
                        acc | promotion_index(allowed[d]) << (2 * i)
                    });
                out.push(mv.with_shrink_choice(choice));
                let Some(i) =
                    digits.iter().zip(&options).position(|(&d, (_, allowed))| d + 1 < allowed.len())
                else {
                    break;
                };
                digits[i] += 1;
                digits[..i].iter_mut().for_each(|d| *d = 0);
            }
        });
    }

    /// Shrink Chess (S6): for each pawn the move's shrink promotes, in the order of their squares
    /// after the shrink, that square and the pieces (of Q, R, B, N, in that order) it may become
    /// without leaving the mover's king in check. `None` when the move is illegal whatever is
    /// chosen: the king is in check from elsewhere, or some pawn has no safe piece. The choice
    /// already in `mv` does not matter.
    fn shrink_options_of(&self, mv: &Move) -> Option<Vec<(Square, Vec<Role>)>> {
        let us = self.turn;
        let mut after = self.clone();
        let promoted = after.play_reporting(&mv.with_shrink_choice(0));
        let Some(king) = after.king(us) else {
            return Some(promoted.into_iter().map(|sq| (sq, Role::PROMOTIONS.to_vec())).collect());
        };
        let blockers = after.blockers();
        let promoted_bb = promoted.iter().fold(Bitboard::EMPTY, |bb, &sq| bb.with(sq));
        // Pieces that stay what they were check the king whatever the pawns become: a promoted
        // piece's kind changes only its own attacks, since every one of them blocks alike.
        if (after.attackers(king, us.other(), blockers) & !promoted_bb).any() {
            return None;
        }
        let mut options = Vec::with_capacity(promoted.len());
        for sq in promoted {
            let color = after.piece_at(sq).map_or(us, |p| p.color);
            let allowed: Vec<Role> = Role::PROMOTIONS
                .into_iter()
                .filter(|&role| {
                    if color == us {
                        return true;
                    }
                    let mut probe = after.clone();
                    probe.take(sq);
                    probe.put(sq, Piece::new(color, role));
                    !probe.attackers(king, us.other(), blockers).contains(sq)
                })
                .collect();
            if allowed.is_empty() {
                return None;
            }
            options.push((sq, allowed));
        }
        Some(options)
    }

    /// Shrink Chess (S6): the pieces each pawn this move promotes by shrinking may become, by its
    /// square after the shrink; empty when the move promotes none or is illegal whatever is chosen.
    pub fn shrink_promotion_options(&self, mv: &Move) -> Vec<(Square, Vec<Role>)> {
        if !self.rules().shrink {
            return Vec::new();
        }
        self.shrink_options_of(mv).unwrap_or_default()
    }

    /// Shrink Chess (S6): `mv` with the pawns its shrink promotes given the pieces `named` says
    /// (by square after the shrink), and every other one the default: a queen, or where a queen
    /// would leave the mover's king in check, the first of rook, bishop, knight that does not.
    /// `None` if a named square is not promoted or a named piece is not allowed there.
    pub fn with_shrink_promotions(&self, mv: &Move, named: &[(Square, Role)]) -> Option<Move> {
        let options = self.shrink_promotion_options(mv);
        if named.iter().any(|(sq, _)| !options.iter().any(|(p, _)| p == sq)) {
            return None;
        }
        let mut choice = 0u32;
        for (i, (sq, allowed)) in options.iter().enumerate() {
            let role = match named.iter().find(|(s, _)| s == sq) {
                Some(&(_, role)) if allowed.contains(&role) => role,
                Some(_) => return None,
                None => *allowed.first()?,
            };
            choice |= promotion_index(role) << (2 * i);
        }
        Some(mv.with_shrink_choice(choice))
    }

    /// Whether the side to move has at least one legal turn.
    pub fn has_legal_moves(&self) -> bool {
        if let Some(board) = crate::plain::Board::of(self) {
            return board.has_moves();
        }
        match self.rules().turn {
            TurnRule::Single => !self.legal_moves().is_empty(),
            // A chip placement is always possible: what counts is a legal piece move (B4).
            TurnRule::PieceThenChip if self.chip.is_some() => {
                let mut moves = Vec::new();
                self.single_piece_moves(&mut moves);
                !moves.is_empty()
            }
            // Most positions have a turn of a piece move and at most a placement: look for one of
            // those first, then (rarely) at square moves too.
            _ => {
                let short = |step: usize, _: &Position, action: Action| {
                    step == 0 || matches!(action, Action::Place { .. })
                };
                !self.for_each_turn(&mut { short }, &mut |_| false)
                    || !self.for_each_turn(&mut |_, _, _| true, &mut |_| false)
            }
        }
    }

    /// Walks the legal turns whose `i`-th action passes `filter(i, position before it, action)`,
    /// calling `visit` with each; stops early, returning false, when `visit` returns false.
    pub(crate) fn for_each_turn(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let rules = self.rules();
        if rules.turn == TurnRule::Single {
            let mut actions = Vec::new();
            self.gen_piece_actions(&mut |a| actions.push(a));
            self.gen_square_actions(&mut |a| actions.push(a));
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
        if rules.turn == TurnRule::PieceThenChip {
            return self.for_each_chip_turn(filter, visit);
        }
        if !self.for_each_piece_turn(filter, visit) {
            return false;
        }
        // L9: on a player's first turn, a turn without a piece move when no piece can move.
        if self.fullmoves == 1 && !self.has_piece_turn() {
            let start = TurnBuilder { pos: self.clone(), mv: None, effects: TurnEffects::default() };
            return start.extend(0, false, false, filter, visit);
        }
        true
    }

    /// Blue Chip turns: the chip alone at the start (B1), then a piece move and the chip (B2).
    fn for_each_chip_turn(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let Some(chip) = self.chip else {
            for to in self.squares & !self.occupied() {
                let action = Action::Chip { to };
                if filter(0, self, action) && !visit(Move::single(action)) {
                    return false;
                }
            }
            return true;
        };
        let mut piece_moves = Vec::new();
        self.single_piece_moves(&mut piece_moves);
        for mv in piece_moves {
            let action = mv.first();
            if !filter(0, self, action) {
                continue;
            }
            let mut after = self.clone();
            after.apply_action(action);
            // Any empty square but the chip's own; the one just vacated is allowed.
            for to in after.squares & !after.occupied() & !chip.bb() {
                let place = Action::Chip { to };
                if filter(1, &after, place) && !visit(mv.then(place)) {
                    return false;
                }
            }
        }
        true
    }

    fn for_each_piece_turn(
        &self,
        filter: &mut dyn FnMut(usize, &Position, Action) -> bool,
        visit: &mut dyn FnMut(Move) -> bool,
    ) -> bool {
        let mut actions = Vec::new();
        self.gen_piece_actions(&mut |a| actions.push(a));
        for action in actions {
            if !filter(0, self, action) {
                continue;
            }
            let mut pos = self.clone();
            let mut effects = TurnEffects::default();
            pos.apply(action, &mut effects);
            let built = TurnBuilder { pos, mv: Some(Move::single(action)), effects };
            if !built.extend(1, false, false, filter, visit) {
                return false;
            }
        }
        true
    }

    /// Whether some legal turn includes a piece move (compound turns, L9).
    fn has_piece_turn(&self) -> bool {
        !self.for_each_piece_turn(&mut |_, _, _| true, &mut |_| false)
    }

    /// Pseudo-legal piece actions: every move by the piece rules, before the own-king check.
    pub(crate) fn gen_piece_actions(&self, emit: &mut dyn FnMut(Action)) {
        if self.rules().quad_squares {
            return quad::pseudo_actions(self, self.turn, emit);
        }
        let us = self.turn;
        let ours = self.by_color(us);
        let theirs = self.by_color(us.other());
        let blockers = self.blockers();
        // B3: the chip's square is closed to the side to move (it is always empty).
        let chip = self.chip.map_or(Bitboard::EMPTY, |c| c.bb());
        let targets = self.squares & !ours & !chip;
        // T5: the king steps anywhere without a friendly piece, laying a tile.
        let king_targets = if self.rules().tiles { self.board_mask() & !ours } else { targets };
        let last_rank = us.last_rank(self.height);

        // Role by role, so no piece has to be looked up.
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
            for from in ours & self.by_role(role) {
                self.emit_piece_moves(role, from, blockers, king_targets, targets, theirs, emit);
            }
        }

        for from in self.pieces(us, Role::Pawn) {
            let mut emit_pawn = |to: Square, capture: Option<Role>| {
                if to.rank() == last_rank {
                    for promo in Role::PROMOTIONS {
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
            // T4: a double step crosses void but not an anti-tile.
            let passable =
                if self.rules().tiles { self.board_mask() & !self.anti & !self.occupied() } else { free };
            if let Some(one) = from.offset(0, us.forward())
                && passable.contains(one)
            {
                if free.contains(one) && !chip.contains(one) {
                    emit_pawn(one, None);
                }
                // Pawns may double-step across the chip (B3).
                if self.double_step_rank(us) == Some(from.rank())
                    && !self.carried.contains(from)
                    && let Some(two) = one.offset(0, us.forward())
                    && free.contains(two)
                    && !chip.contains(two)
                {
                    emit_pawn(two, None);
                }
            }
            if let Some(ep) = self.ep
                && self.squares.contains(ep)
                && !chip.contains(ep)
                && attacks::pawn(us, from).contains(ep)
            {
                emit(Action::EnPassant { from, to: ep });
            }
        }

        self.gen_castling(emit);
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
        // S5: only while all eight ranks remain.
        if self.rules().shrink && self.height != 8 {
            return None;
        }
        Some(match color {
            Color::White => 1,
            Color::Black => self.height.checked_sub(2)?,
        })
    }

    fn gen_castling(&self, emit: &mut dyn FnMut(Action)) {
        let us = self.turn;
        let Some(king) = self.king(us) else { return };
        let back = us.first_rank(self.height);
        if king.rank() != back {
            return;
        }
        let rooks = self.castling & self.pieces(us, Role::Rook) & Bitboard::rank(back);
        if rooks.is_empty() || self.is_check() {
            return;
        }
        for rook in rooks {
            // S4: only with two or three empty squares between king and rook.
            if self.rules().shrink && !(3..=4).contains(&king.file().abs_diff(rook.file())) {
                continue;
            }
            let (king_to, rook_to) = self.castling_targets(king, rook);
            // B3: castling is closed only when the chip stands where the king or rook lands.
            if self.chip.is_some_and(|c| c == king_to || c == rook_to) {
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
            let blockers = (self.occupied() & !king.bb() & !rook.bb()) | self.walls();
            let king_path = attacks::between(king, king_to) | king_to.bb();
            if king_path.into_iter().any(|sq| self.attackers(sq, us.other(), blockers).any()) {
                continue;
            }
            emit(Action::Castle { king, rook });
        }
    }

    /// Where king and rook end up when castling: FIDE's g/c and f/d files.
    pub fn castling_targets(&self, king: Square, rook: Square) -> (Square, Square) {
        if self.rules().quad_squares {
            // Q10: king and rook swap places.
            return (rook, king);
        }
        let rank = king.rank();
        if self.rules().shrink {
            // S4: the king moves two squares toward the rook, which lands on the square it crossed.
            let step: i8 = if rook.file() > king.file() { 1 } else { -1 };
            let file = |n: i8| (king.file() as i8 + n * step) as u8;
            return (Square::from_coords(file(2), rank), Square::from_coords(file(1), rank));
        }
        if rook.file() > king.file() {
            (Square::from_coords(6, rank), Square::from_coords(5, rank))
        } else {
            (Square::from_coords(2, rank), Square::from_coords(3, rank))
        }
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

    /// Plays a move that must come from [`Position::legal_moves`].
    pub fn play_unchecked(&mut self, mv: &Move) {
        self.play_reporting(mv);
    }

    /// Plays a move; returns where pawns a shrink promoted now stand (Shrink Chess, S6).
    fn play_reporting(&mut self, mv: &Move) -> Vec<Square> {
        let before = self.occupied();
        let mut effects = TurnEffects::default();
        for action in mv.actions() {
            self.apply(action, &mut effects);
        }
        let promoted = if self.rules().shrink { self.shrink(before, mv, &mut effects) } else { Vec::new() };
        self.finish_turn(effects);
        promoted
    }

    /// Shrink Chess (S1, S2, S6): removes every rank and file the move emptied, closes the board up
    /// towards a1, and promotes the pawns now on their last rank as the move says.
    fn shrink(&mut self, before: Bitboard, mv: &Move, fx: &mut TurnEffects) -> Vec<Square> {
        let (keep_files, keep_ranks) = self.lines_kept(before);
        if keep_files.len() as u8 != self.width || keep_ranks.len() as u8 != self.height {
            let place = |sq: Square| -> Option<Square> {
                let f = keep_files.iter().position(|&f| f == sq.file())?;
                let r = keep_ranks.iter().position(|&r| r == sq.rank())?;
                Some(Square::from_coords(f as u8, r as u8))
            };
            let remap =
                |bb: Bitboard| bb.into_iter().filter_map(place).fold(Bitboard::EMPTY, |acc, s| acc.with(s));
            for role in &mut self.by_role {
                *role = remap(*role);
            }
            for color in &mut self.by_color {
                *color = remap(*color);
            }
            self.castling = remap(self.castling);
            // S5: the en passant square moves with the board, and is lost with its line.
            fx.double_step = fx.double_step.and_then(place);
            self.width = keep_files.len() as u8;
            self.height = keep_ranks.len() as u8;
            self.squares = self.board_mask();
        }
        // S6: pawns on their last rank promote, whoever moved; on their own first rank they stay.
        let last = (self.pieces(Color::White, Role::Pawn) & Bitboard::rank(self.height - 1))
            | (self.pieces(Color::Black, Role::Pawn) & Bitboard::rank(0));
        let promoted: Vec<Square> = last.into_iter().collect();
        for (i, &sq) in promoted.iter().enumerate() {
            if let Some(pawn) = self.take(sq) {
                self.put(sq, Piece::new(pawn.color, mv.shrink_promotion(i)));
            }
        }
        promoted
    }

    /// The files and ranks that keep a piece, or never had one, now that the pieces stood on
    /// `before` (S1: a line the move emptied vanishes).
    fn lines_kept(&self, before: Bitboard) -> (Vec<u8>, Vec<u8>) {
        let after = self.occupied();
        let emptied = |line: Bitboard| (before & line).any() && (after & line).is_empty();
        let keep_files = (0..self.width).filter(|&f| !emptied(Bitboard::file(f))).collect();
        let keep_ranks = (0..self.height).filter(|&r| !emptied(Bitboard::rank(r))).collect();
        (keep_files, keep_ranks)
    }

    /// Shrink Chess: the files and ranks (0-based, on this board) that `mv` empties and so makes
    /// vanish. Empty for other variants.
    pub fn vanishing_lines(&self, mv: &Move) -> (Vec<u8>, Vec<u8>) {
        if !self.rules().shrink {
            return (Vec::new(), Vec::new());
        }
        let before = self.occupied();
        let mut moved = self.clone();
        let mut effects = TurnEffects::default();
        for action in mv.actions() {
            moved.apply(action, &mut effects);
        }
        let (files, ranks) = moved.lines_kept(before);
        (
            (0..self.width).filter(|f| !files.contains(f)).collect(),
            (0..self.height).filter(|r| !ranks.contains(r)).collect(),
        )
    }

    /// Shrink Chess: where the pawns this move promotes by shrinking stand afterwards, with the
    /// piece each becomes.
    pub fn shrink_promotions(&self, mv: &Move) -> Vec<(Square, Role)> {
        let mut after = self.clone();
        let promoted = after.play_reporting(mv);
        promoted.iter().enumerate().map(|(i, &sq)| (sq, mv.shrink_promotion(i))).collect()
    }

    /// Makes one action of the side to move, leaving the turn open.
    fn apply(&mut self, action: Action, fx: &mut TurnEffects) {
        let us = self.turn;
        let rules = self.rules();
        fx.piece_moved |= action.is_piece_move();
        if rules.quad_squares {
            fx.reset_clock |= quad::apply(self, action);
            quad::normalise(self);
            return;
        }
        // L12: from the fourth turn on, the square a moving piece leaves is removed.
        let removes = rules.removal_from_turn.is_some_and(|n| self.fullmoves >= n);
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
                    // T5: the king lays a tile where there was none, or on an anti-tile.
                    self.squares |= to.bb();
                    self.anti &= !to.bb();
                }
                self.castling &= !from.bb() & !to.bb();
                self.carried &= !from.bb() & !to.bb();
                fx.reset_clock |= self.occupy_square(to);
                if removes {
                    self.remove_square(from);
                }
            }
            Action::EnPassant { from, to } => {
                self.take(Square::from_coords(to.file(), from.rank()));
                self.take(from);
                self.put(to, Piece::new(us, Role::Pawn));
                fx.reset_clock = true;
                self.occupy_square(to);
                if removes {
                    self.remove_square(from);
                }
            }
            Action::Castle { king, rook } => {
                let (king_to, rook_to) = self.castling_targets(king, rook);
                self.take(king);
                self.take(rook);
                self.put(king_to, Piece::new(us, Role::King));
                self.put(rook_to, Piece::new(us, Role::Rook));
                self.castling &= !Bitboard::rank(us.first_rank(self.height));
                fx.reset_clock |= self.occupy_square(king_to) | self.occupy_square(rook_to);
                // L12: only the king's square goes.
                if removes && !self.occupied().contains(king) {
                    self.remove_square(king);
                }
            }
            Action::Place { to } => {
                self.squares |= to.bb();
                if rules.owned_squares {
                    self.owners[us.index()] |= to.bb();
                }
                if let Reserve::Finite(_) = rules.reserve {
                    self.reserves[us.index()] = self.reserves[us.index()].saturating_sub(1);
                }
                fx.reset_clock |= rules.placement_resets_clock;
                if rules.placement_locks {
                    fx.touched |= to.bb();
                }
            }
            Action::Sacrifice { .. } => unreachable!("only Quad-Square Chess has sacrifices"),
            Action::Chip { to } => self.chip = Some(to),
            Action::DropAnti { to } => {
                self.anti |= to.bb();
                fx.reset_clock = true;
            }
            Action::RemoveTile { at } => self.remove_square(at),
            Action::Shift { from, to, promotion } => {
                let both = from.bb() | to.bb();
                self.squares ^= both;
                for owned in &mut self.owners {
                    if owned.contains(from) {
                        *owned ^= both;
                    }
                }
                if let Some(piece) = self.take(from) {
                    self.put(to, Piece::new(piece.color, promotion.unwrap_or(piece.role)));
                    self.castling &= !from.bb();
                    // L13: a carried pawn has moved.
                    let was_pawn = piece.role == Role::Pawn && promotion.is_none();
                    self.carried =
                        (self.carried & !from.bb()) | if was_pawn { to.bb() } else { Bitboard::EMPTY };
                }
                fx.touched |= to.bb();
            }
        }
    }

    /// Makes one action without closing the turn, for walking through a compound turn.
    pub(crate) fn apply_action(&mut self, action: Action) {
        self.apply(action, &mut TurnEffects::default());
    }

    /// Gives the square at `sq` to the side to move, where squares are owned (L10).
    /// Returns whether that captured an enemy square.
    fn occupy_square(&mut self, sq: Square) -> bool {
        if !self.rules().owned_squares {
            return false;
        }
        let (us, them) = (self.turn.index(), self.turn.other().index());
        let captured = self.owners[them].contains(sq);
        self.owners[them] &= !sq.bb();
        self.owners[us] |= sq.bb();
        captured
    }

    fn remove_square(&mut self, sq: Square) {
        self.squares &= !sq.bb();
        self.owners[0] &= !sq.bb();
        self.owners[1] &= !sq.bb();
    }

    /// Closes the turn: counters, side to move, locks, en passant.
    fn finish_turn(&mut self, fx: TurnEffects) {
        let us = self.turn;
        // Black's opening chip placement (B1) comes before White's first move: no move is counted.
        let chip_only = self.rules().chip && !fx.piece_moved;
        if !chip_only {
            self.halfmoves = if fx.reset_clock { 0 } else { self.halfmoves + 1 };
            if us == Color::Black {
                self.fullmoves += 1;
            }
        }
        self.turn = us.other();
        // Locks guard against moving back a square the opponent just moved (L5); tiles never move.
        // A square placed and then moved on in the same turn is locked only where it went.
        self.locked = if self.rules().tiles { Bitboard::EMPTY } else { fx.touched & self.squares };
        self.ep = None;
        if let Some(ep) = fx.double_step
            && self.squares.contains(ep)
            && self.ep_capture_possible(ep)
        {
            self.ep = Some(ep);
        }
    }

    /// Whether the side to move could capture en passant onto `ep`. We record an en passant
    /// square only then, as most chess software writes FEN. Where a turn has several actions,
    /// a pawn standing ready is enough: later actions of that turn could still shield the king.
    fn ep_capture_possible(&self, ep: Square) -> bool {
        let us = self.turn;
        let capturers = attacks::pawn(us.other(), ep) & self.pieces(us, Role::Pawn);
        if self.rules().turn.is_postal() {
            return capturers.any();
        }
        if self.chip == Some(ep) {
            return false;
        }
        capturers.into_iter().any(|from| {
            let mv = Move::single(Action::EnPassant { from, to: ep });
            !self.played(&mv).king_attacked(us)
        })
    }

    /// Pseudo-legal square actions of the side to move: square moves and placements.
    pub(crate) fn gen_square_actions(&self, emit: &mut dyn FnMut(Action)) {
        let rules = self.rules();
        if !rules.square_actions {
            return;
        }
        let us = self.turn;
        let holes = self.holes();
        let mine = if rules.owned_squares { self.owners[us.index()] } else { Bitboard::FULL };
        if rules.tiles {
            // T2: a tile or an anti-tile on void, or one of our own empty tiles taken away.
            let void = self.holes() & !self.anti;
            for to in void {
                emit(Action::Place { to });
            }
            for to in void {
                emit(Action::DropAnti { to });
            }
            for at in self.squares & self.owners[us.index()] & !self.occupied() {
                emit(Action::RemoveTile { at });
            }
            return;
        }
        // L5, L6, L10, L11: an empty square, ours where owned, not locked, leaps up to two steps.
        for from in self.squares & !self.occupied() & !self.locked & mine {
            for to in attacks::two_step(from) & holes {
                emit(Action::Shift { from, to, promotion: None });
            }
        }
        // L13: a square under a friendly piece other than the king moves one step, carrying it.
        if rules.carry {
            let last_rank = us.last_rank(self.height);
            for from in self.by_color(us) & !self.by_role(Role::King) & !self.locked {
                let pawn = self.pieces(us, Role::Pawn).contains(from);
                for to in attacks::king(from) & holes {
                    if pawn && to.rank() == last_rank {
                        for promo in Role::PROMOTIONS {
                            emit(Action::Shift { from, to, promotion: Some(promo) });
                        }
                    } else {
                        emit(Action::Shift { from, to, promotion: None });
                    }
                }
            }
        }
        let in_hand = match rules.reserve {
            Reserve::None => false,
            Reserve::Finite(_) => self.reserves[us.index()] > 0,
            Reserve::Infinite => true,
        };
        if in_hand {
            for to in holes {
                emit(Action::Place { to });
            }
        }
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

/// A promotion piece's index in [`Role::PROMOTIONS`], as [`Move`] stores shrink choices.
fn promotion_index(role: Role) -> u32 {
    Role::PROMOTIONS.iter().position(|&r| r == role).unwrap_or(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(fen: &str) -> usize {
        Position::from_fen(Variant::Chess, fen).unwrap().legal_moves().len()
    }

    #[test]
    fn start_position_has_twenty_moves() {
        assert_eq!(Position::start(Variant::Chess).legal_moves().len(), 20);
    }

    #[test]
    fn pinned_piece_moves_only_along_the_pin() {
        // The e-file rook is pinned by the queen on e8: it may slide on the file only.
        let pos = Position::from_fen(Variant::Chess, "4q2k/8/8/8/8/8/4R3/4K3 w - - 0 1").unwrap();
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
        let pos = Position::from_fen(Variant::Chess, "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1").unwrap();
        let moves = pos.legal_moves();
        assert!(!moves.iter().any(|m| matches!(m.first(), Action::EnPassant { .. })));
        // Five king moves and e5-e6.
        assert_eq!(moves.len(), 6);
        assert_eq!(count("8/8/8/K2pP3/8/8/8/7k w - d6 0 1"), 7);
    }

    #[test]
    fn castling_through_check_is_illegal() {
        // The bishop on a6 covers f1, so only the long castle is possible.
        let pos = Position::from_fen(Variant::Chess, "4k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        let castles =
            pos.legal_moves().into_iter().filter(|m| matches!(m.first(), Action::Castle { .. })).count();
        assert_eq!(castles, 1);
    }

    #[test]
    fn insufficient_material_cases() {
        let dead = |fen| Position::from_fen(Variant::Chess, fen).unwrap().insufficient_material();
        assert!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3KN3/8/8 w - - 0 1"));
        assert!(dead("8/8/3bk3/8/8/3KB3/8/8 w - - 0 1"), "bishops on the same colour");
        assert!(!dead("8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1"), "bishops on opposite colours");
        assert!(!dead("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/8/3K4/P7/8 w - - 0 1"));
    }

    #[test]
    fn ep_square_recorded_only_when_capturable() {
        let pos = Position::start(Variant::Chess);
        let e4 = pos.legal_moves().into_iter().find(|m| m.first().from() == Square::parse("e2").unwrap());
        let after = pos.played(&e4.unwrap());
        // Either e3 or e4 was found; neither allows an en passant reply in the start position.
        assert_eq!(after.ep_square(), None);
    }
}
