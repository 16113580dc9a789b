//! Shrink Chess (Pepijn van Erp's rules, S1–S6): a rank or file a move empties is removed and the
//! board closes up towards a1; pawns the shrink brings to their last rank promote, as the move names.

use super::{Mechanic, Room, TurnEffects};
use crate::moves::{Action, Move};
use crate::notation::ParsedMove;
use crate::position::Position;
use crate::text::PositionError;
use crate::types::{Bitboard, Color, Piece, Role, Square};
use crate::variant::Variant;

pub(crate) struct Shrink;

impl Mechanic for Shrink {
    fn piece_moves(pos: &Position, out: &mut Vec<Move>) {
        pos.shrink_piece_moves(out)
    }

    /// S5: pawns double-step only while all eight ranks remain.
    #[inline]
    fn double_steps(pos: &Position) -> bool {
        pos.height == 8
    }

    /// S4: the king moves two squares toward the rook, which lands on the square it crossed.
    fn castling_targets(_pos: &Position, king: Square, rook: Square) -> (Square, Square) {
        let rank = king.rank();
        let step: i8 = if rook.file() > king.file() { 1 } else { -1 };
        // Kept on the grid: beside a corner the squares do not exist, and `may_castle` refuses
        // such a castling anyway (the rook is then too near).
        let file = |n: i8| (king.file() as i8 + n * step).clamp(0, 7) as u8;
        (Square::from_coords(file(2), rank), Square::from_coords(file(1), rank))
    }

    /// S4: only with two or three empty squares between king and rook.
    fn may_castle(_pos: &Position, king: Square, rook: Square, _targets: (Square, Square)) -> bool {
        (3..=4).contains(&king.file().abs_diff(rook.file()))
    }

    fn after_actions(pos: &mut Position, before: Bitboard, mv: &Move, fx: &mut TurnEffects) -> Vec<Square> {
        pos.shrink(before, mv, fx)
    }

    /// A shrunk board is as large as its placement says (S2): its ranks, and the files of its
    /// first rank.
    fn board_size(variant: Variant, placement: &str) -> Result<(u8, u8), PositionError> {
        let rows: Vec<&str> = placement.split('/').collect();
        let width: u32 = rows[0].chars().map(|c| c.to_digit(10).unwrap_or(1)).sum();
        let (width, height) = (width.min(255) as u8, rows.len().min(255) as u8);
        match Self::why_not_size(variant, width, height) {
            Some(why) => Err(PositionError(why)),
            None => Ok((width, height)),
        }
    }

    fn why_not_size(_variant: Variant, width: u8, height: u8) -> Option<String> {
        (!(1..=8).contains(&width) || !(1..=8).contains(&height)).then(|| {
            format!("a shrunk board has 1 to 8 ranks of 1 to 8 files, not {height} ranks of {width} files")
        })
    }

    /// A pawn reaches its own first rank by being shrunk there (S6).
    fn pawns_on_first_rank(_variant: Variant) -> bool {
        true
    }

    fn why_castling_closed(_pos: &Position, king: Square, rook: Square) -> Option<String> {
        (!(3..=4).contains(&king.file().abs_diff(rook.file())))
            .then(|| "castling here needs two or three empty squares between king and rook".into())
    }

    fn why_extras(pos: &Position, parsed: &ParsedMove, made: &[Action]) -> Option<String> {
        why_promotion_illegal(pos, parsed, made)
    }

    fn keep_named(pos: &Position, parsed: &ParsedMove, found: &mut Vec<Move>) {
        found.retain(|mv| pos.with_shrink_promotions(mv, &parsed.shrink_promotions) == Some(*mv));
    }

    /// The pieces a move's shrink promotes pawns to, `[a1=B,h7=Q]`, or nothing.
    fn turn_suffix(pos: &Position, mv: &Move) -> String {
        let promoted = pos.shrink_promotions(mv);
        if promoted.is_empty() {
            return String::new();
        }
        let list: Vec<String> = promoted.iter().map(|(sq, role)| format!("{sq}={}", role.upper())).collect();
        format!("[{}]", list.join(","))
    }
}

/// A promotion piece's index in [`Role::PROMOTIONS`], as [`Move`] stores shrink choices.
fn promotion_index(role: Role) -> u32 {
    Role::PROMOTIONS.iter().position(|&r| r == role).unwrap_or(0) as u32
}

/// For a move that is legal with some promotions, what is wrong with the promotions written: a
/// square the shrink promotes nothing on, or a piece that would leave the mover's king in check.
fn why_promotion_illegal(pos: &Position, parsed: &ParsedMove, made: &[Action]) -> Option<String> {
    use crate::notation::{join_and, join_or};
    let mv = Move::from_actions(made)?;
    if pos.shrink_promotions(&mv).is_empty() {
        return (!parsed.shrink_promotions.is_empty()).then(|| {
            "this move promotes no pawn by shrinking; leave out the [square=piece] part".to_string()
        });
    }
    // Empty here: illegal whatever the pawns become, which the king check after explains.
    let options = pos.shrink_promotion_options(&mv);
    for (sq, role) in &parsed.shrink_promotions {
        let Some((_, allowed)) = options.iter().find(|(p, _)| p == sq) else {
            let squares: Vec<String> = options.iter().map(|(p, _)| p.to_string()).collect();
            return Some(format!(
                "the shrink promotes no pawn on {sq}; it promotes the pawn{} on {}",
                if squares.len() == 1 { "" } else { "s" },
                join_and(&squares)
            ));
        };
        let promotions = pos.rules().promotions;
        if !promotions.contains(*role) {
            return Some(format!(
                "in {} a pawn promotes only to {}, not to a {}",
                pos.variant(),
                promotions.names(),
                role.name()
            ));
        }
        if !allowed.contains(role) {
            let names: Vec<String> = allowed.iter().map(|r| r.name().to_string()).collect();
            return Some(format!(
                "a {} on {sq} would leave your king in check; the pawn there may become a {}",
                role.name(),
                join_or(&names)
            ));
        }
    }
    None
}

impl Position {
    /// Whether the board shrinks as lines empty (Shrink Chess), so its size can change.
    pub fn can_shrink(&self) -> bool {
        self.room == Room::Shrink
    }

    /// Shrink Chess: every move is played out (the board may close up), and a move whose shrink
    /// promotes pawns comes once for each choice of pieces (S6): every pawn separately, each to any
    /// piece that leaves the mover's king out of check.
    fn shrink_piece_moves(&self, out: &mut Vec<Move>) {
        self.board_piece_actions::<Shrink>(&mut |action| {
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
    /// after the shrink, that square and the pieces (of the variant's Q, R, B, N, in that order) it
    /// may become without leaving the mover's king in check. `None` when the move is illegal whatever is
    /// chosen: the king is in check from elsewhere, or some pawn has no safe piece. The choice
    /// already in `mv` does not matter.
    fn shrink_options_of(&self, mv: &Move) -> Option<Vec<(Square, Vec<Role>)>> {
        let us = self.turn;
        let mut after = self.clone();
        let promoted = after.play_reporting(&mv.with_shrink_choice(0));
        let promotions = self.rules().promotions;
        let Some(king) = after.king(us) else {
            return Some(promoted.into_iter().map(|sq| (sq, promotions.roles().collect())).collect());
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
            let allowed: Vec<Role> = promotions
                .roles()
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
        if !self.can_shrink() {
            return Vec::new();
        }
        self.shrink_options_of(mv).unwrap_or_default()
    }

    /// Shrink Chess (S6): `mv` with the pawns its shrink promotes given the pieces `named` says
    /// (by square after the shrink), and every other one the default: the first of queen, rook,
    /// bishop, knight that the variant allows and that leaves the mover's king out of check.
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
        if !self.can_shrink() {
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
}
