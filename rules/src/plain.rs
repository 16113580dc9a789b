//! The plain board: FIDE chess on the whole 8x8 grid, with no holes, owners, quads, chip or tiles
//! (and the variants of its room, whose pawns may lack the double step or some promotions).
//! A small copyable position, legal moves generated directly from check and pin masks (no
//! make-and-test), sliders by magic lookup, and leaves counted in bulk. Perft and the legal moves
//! of a chess game take this road; every other board takes the general one in `position.rs`, and
//! the tests hold the two to the same answers.

use crate::attacks;
use crate::magic::Tables;
use crate::mechanic::Room;
use crate::moves::{Action, Move};
use crate::position::Position;
use crate::types::{Color, Role, Square};

const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;

/// A move on the plain board: `from`, `to`, and what kind it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct PlainMove {
    from: u8,
    to: u8,
    kind: Kind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Normal,
    Promotion(Role),
    EnPassant,
    /// `to` is the castling rook's square, as in [`Action::Castle`].
    Castle,
}

/// Where moves go: counted (at the last level of a perft) or listed.
trait Sink {
    /// Every square of `targets` as a destination from `from`, each a promotion where `promotion`.
    fn targets(&mut self, from: u8, targets: u64, promotion: bool);
    /// Pawn moves by the set: each square of `targets` reached from `by` squares before it.
    fn shifted(&mut self, targets: u64, by: i8, promotion: bool);
    fn one(&mut self, mv: PlainMove);
}

/// Moves counted; `promotions` is how many pieces a pawn may become, 4 where `FIDE` (chess's
/// moves, counted by the code chess always took).
struct Count<const FIDE: bool> {
    n: u64,
    promotions: u64,
}

impl<const FIDE: bool> Count<FIDE> {
    fn new(board: &Board) -> Count<FIDE> {
        Count { n: 0, promotions: if FIDE { 4 } else { u64::from(board.promotions.count_ones()) } }
    }
}

impl<const FIDE: bool> Sink for Count<FIDE> {
    #[inline]
    fn targets(&mut self, _: u8, targets: u64, promotion: bool) {
        let promotions = if FIDE { 4 } else { self.promotions };
        self.n += u64::from(targets.count_ones()) * if promotion { promotions } else { 1 };
    }

    #[inline]
    fn shifted(&mut self, targets: u64, _: i8, promotion: bool) {
        self.targets(0, targets, promotion);
    }

    #[inline]
    fn one(&mut self, _: PlainMove) {
        self.n += 1;
    }
}

/// A fixed list: a chess position has at most 218 legal moves.
struct List {
    moves: [PlainMove; 256],
    len: usize,
    /// The pieces a pawn may become, a bitmask over [`Role::PROMOTIONS`].
    promotions: u8,
}

impl List {
    fn new(board: &Board) -> List {
        List {
            moves: [PlainMove { from: 0, to: 0, kind: Kind::Normal }; 256],
            len: 0,
            promotions: board.promotions,
        }
    }

    fn as_slice(&self) -> &[PlainMove] {
        &self.moves[..self.len]
    }
}

impl Sink for List {
    #[inline]
    fn targets(&mut self, from: u8, mut targets: u64, promotion: bool) {
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            if promotion {
                for (i, role) in Role::PROMOTIONS.into_iter().enumerate() {
                    if self.promotions & (1 << i) != 0 {
                        self.one(PlainMove { from, to, kind: Kind::Promotion(role) });
                    }
                }
            } else {
                self.one(PlainMove { from, to, kind: Kind::Normal });
            }
        }
    }

    #[inline]
    fn shifted(&mut self, mut targets: u64, by: i8, promotion: bool) {
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            self.targets((to as i8 - by) as u8, bit(to), promotion);
        }
    }

    #[inline]
    fn one(&mut self, mv: PlainMove) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Board {
    roles: [u64; 6],
    colors: [u64; 2],
    turn: Color,
    /// Rooks that keep the right to castle.
    castling: u64,
    /// The en-passant target square, or 64.
    ep: u8,
    /// The pieces a pawn may become, a bitmask over [`Role::PROMOTIONS`] (all four in chess).
    promotions: u8,
    /// Whether pawns may step two squares from their start rank.
    double_step: bool,
}

#[inline]
fn bit(sq: u8) -> u64 {
    1u64 << sq
}

#[inline]
fn sq(i: u8) -> Square {
    Square::new(i)
}

impl Board {
    /// The plain board of `pos`, if it is one: a position of the plain room (chess, or a variant
    /// of its board that switches castling, the double step or promotions) on the whole 8×8 grid,
    /// with a king of each colour.
    pub(crate) fn of(pos: &Position) -> Option<Board> {
        if pos.room != Room::Plain || pos.size() != (8, 8) || pos.squares().0 != !0 {
            return None;
        }
        let rules = pos.rules();
        let board = Board {
            roles: Role::ALL.map(|r| pos.by_role(r).0),
            colors: Color::ALL.map(|c| pos.by_color(c).0),
            turn: pos.turn(),
            castling: pos.castling_rooks().0,
            ep: pos.ep_square().map_or(64, |s| s.index() as u8),
            promotions: rules.promotions.bits(),
            double_step: rules.double_step,
        };
        let kings = board.roles[Role::King.index()];
        let one_each = Color::ALL.iter().all(|c| (kings & board.colors[c.index()]).count_ones() == 1);
        one_each.then_some(board)
    }

    #[inline]
    fn role_at(&self, sq: u8) -> Role {
        let b = bit(sq);
        Role::ALL.into_iter().find(|r| self.roles[r.index()] & b != 0).unwrap_or(Role::Pawn)
    }

    #[inline]
    fn pieces(&self, color: Color, role: Role) -> u64 {
        self.colors[color.index()] & self.roles[role.index()]
    }

    /// The pieces of `by` attacking `target`, with `occupied` as the blockers.
    #[inline]
    fn attackers(&self, t: &Tables, target: u8, by: Color, occupied: u64) -> u64 {
        let s = sq(target);
        let theirs = self.colors[by.index()];
        let rq = self.roles[Role::Rook.index()] | self.roles[Role::Queen.index()];
        let bq = self.roles[Role::Bishop.index()] | self.roles[Role::Queen.index()];
        theirs
            & ((attacks::knight(s).0 & self.roles[Role::Knight.index()])
                | (attacks::king(s).0 & self.roles[Role::King.index()])
                | (attacks::pawn(by.other(), s).0 & self.roles[Role::Pawn.index()])
                | (t.rook(target as usize, occupied) & rq)
                | (t.bishop(target as usize, occupied) & bq))
    }

    /// Every square `by` attacks, with `occupied` as the blockers.
    fn attacked_by(&self, t: &Tables, by: Color, occupied: u64) -> u64 {
        let theirs = self.colors[by.index()];
        let pawns = theirs & self.roles[Role::Pawn.index()];
        let (west, east) = (pawns & !0x0101_0101_0101_0101, pawns & !0x8080_8080_8080_8080);
        let mut attacked =
            if by == Color::White { (west << 7) | (east << 9) } else { (west >> 9) | (east >> 7) };
        let mut each = |mut set: u64, f: &dyn Fn(usize) -> u64| {
            while set != 0 {
                let s = set.trailing_zeros() as usize;
                set &= set - 1;
                attacked |= f(s);
            }
        };
        each(theirs & self.roles[Role::Knight.index()], &|s| attacks::knight(Square::new(s as u8)).0);
        each(theirs & self.roles[Role::King.index()], &|s| attacks::king(Square::new(s as u8)).0);
        let rq = self.roles[Role::Rook.index()] | self.roles[Role::Queen.index()];
        let bq = self.roles[Role::Bishop.index()] | self.roles[Role::Queen.index()];
        each(theirs & rq, &|s| t.rook(s, occupied));
        each(theirs & bq, &|s| t.bishop(s, occupied));
        attacked
    }

    /// Every legal move into `sink`.
    /// `FIDE`: chess's moves (the double step, all four promotions), by the code chess always
    /// took; otherwise the board's switches are read.
    fn generate<S: Sink, const FIDE: bool>(&self, t: &Tables, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let ours = self.colors[us.index()];
        let theirs = self.colors[them.index()];
        let occupied = ours | theirs;
        let king = self.pieces(us, Role::King).trailing_zeros() as u8;
        let checkers = self.attackers(t, king, them, occupied);

        // The king steps where nothing attacks it once it has left its square.
        let without_king = occupied & !bit(king);
        let mut steps = attacks::king(sq(king)).0 & !ours;
        let safe = if steps.count_ones() > 2 {
            steps & !self.attacked_by(t, them, without_king)
        } else {
            let mut safe = 0;
            while steps != 0 {
                let to = steps.trailing_zeros() as u8;
                steps &= steps - 1;
                if self.attackers(t, to, them, without_king) == 0 {
                    safe |= bit(to);
                }
            }
            safe
        };
        sink.targets(king, safe, false);
        if checkers.count_ones() > 1 {
            return;
        }
        // Out of a single check: capture the checker or block its line.
        let target = if checkers != 0 {
            let checker = checkers.trailing_zeros() as u8;
            (attacks::between(sq(king), sq(checker)).0 | checkers) & !ours
        } else {
            !ours
        };

        // Pinned pieces: a lone piece of ours between the king and an enemy slider.
        let rq = self.roles[Role::Rook.index()] | self.roles[Role::Queen.index()];
        let bq = self.roles[Role::Bishop.index()] | self.roles[Role::Queen.index()];
        let mut snipers =
            theirs & ((t.rook(king as usize, theirs) & rq) | (t.bishop(king as usize, theirs) & bq));
        let mut pinned = 0;
        while snipers != 0 {
            let s = snipers.trailing_zeros() as u8;
            snipers &= snipers - 1;
            let between = attacks::between(sq(king), sq(s)).0 & occupied;
            if between.count_ones() == 1 {
                pinned |= between & ours;
            }
        }
        let allowed = |from: u8| -> u64 {
            if pinned & bit(from) != 0 { attacks::line(sq(king), sq(from)).0 } else { !0 }
        };

        let mut knights = self.pieces(us, Role::Knight) & !pinned;
        while knights != 0 {
            let from = knights.trailing_zeros() as u8;
            knights &= knights - 1;
            sink.targets(from, attacks::knight(sq(from)).0 & target, false);
        }
        let mut diagonal = ours & bq;
        while diagonal != 0 {
            let from = diagonal.trailing_zeros() as u8;
            diagonal &= diagonal - 1;
            sink.targets(from, t.bishop(from as usize, occupied) & target & allowed(from), false);
        }
        let mut straight = ours & rq;
        while straight != 0 {
            let from = straight.trailing_zeros() as u8;
            straight &= straight - 1;
            sink.targets(from, t.rook(from as usize, occupied) & target & allowed(from), false);
        }

        let (last, third) = if us == Color::White { (RANK_8, 0xff << 16) } else { (RANK_1, 0xff << 40) };
        // Without the double step no pawn goes on from the third rank.
        let third = if FIDE { third } else { third & 0u64.wrapping_sub(u64::from(self.double_step)) };
        let all_pawns = self.pieces(us, Role::Pawn);
        // Free pawns by the set, shifted forward: straight, then towards each side.
        let ahead = |b: u64| if us == Color::White { b << 8 } else { b >> 8 };
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        let free = all_pawns & !pinned;
        let one = ahead(free) & !occupied;
        let two = ahead(one & third) & !occupied & target;
        let one = one & target;
        let (west, east) = (free & !0x0101_0101_0101_0101, free & !0x8080_8080_8080_8080);
        let west_takes = ahead(west >> 1) & theirs & target;
        let east_takes = ahead(east << 1) & theirs & target;
        for (set, by) in [(one, forward), (west_takes, forward - 1), (east_takes, forward + 1)] {
            sink.shifted(set & !last, by, false);
            sink.shifted(set & last, by, true);
        }
        sink.shifted(two, 2 * forward, false);
        // Pinned pawns one by one, along their pin.
        let mut pawns = all_pawns & pinned;
        while pawns != 0 {
            let from = pawns.trailing_zeros() as u8;
            pawns &= pawns - 1;
            let one = ahead(bit(from)) & !occupied;
            let two = ahead(one & third) & !occupied;
            let takes = attacks::pawn(us, sq(from)).0 & theirs;
            let to = (one | two | takes) & target & allowed(from);
            sink.targets(from, to & !last, false);
            sink.targets(from, to & last, true);
        }

        if self.ep < 64 {
            let ep = self.ep;
            let captured = if us == Color::White { ep - 8 } else { ep + 8 };
            let mut takers = attacks::pawn(them, sq(ep)).0 & self.pieces(us, Role::Pawn);
            while takers != 0 {
                let from = takers.trailing_zeros() as u8;
                takers &= takers - 1;
                // Rare enough to test by playing it: the two pawns leave, one arrives.
                let after = (occupied & !bit(from) & !bit(captured)) | bit(ep);
                let mut board = *self;
                board.colors[them.index()] &= !bit(captured);
                board.roles[Role::Pawn.index()] &= !bit(captured);
                if board.attackers(t, king, them, after) == 0 {
                    sink.one(PlainMove { from, to: ep, kind: Kind::EnPassant });
                }
            }
        }

        if checkers == 0 {
            self.castle(t, king, sink);
        }
    }

    /// Castling with each rook that keeps the right: FIDE's g/c and f/d files, everything crossed
    /// empty, and no square the king crosses or lands on attacked.
    fn castle<S: Sink>(&self, t: &Tables, king: u8, sink: &mut S) {
        let us = self.turn;
        let back = if us == Color::White { RANK_1 } else { RANK_8 };
        if bit(king) & back == 0 {
            return;
        }
        let mut rooks = self.castling & self.pieces(us, Role::Rook) & back;
        let occupied = self.colors[0] | self.colors[1];
        while rooks != 0 {
            let rook = rooks.trailing_zeros() as u8;
            rooks &= rooks - 1;
            let rank = king & !7;
            let (king_to, rook_to) = if rook > king { (rank + 6, rank + 5) } else { (rank + 2, rank + 3) };
            let span = attacks::between(sq(king), sq(king_to)).0
                | attacks::between(sq(rook), sq(rook_to)).0
                | bit(king_to)
                | bit(rook_to);
            let others = occupied & !bit(king) & !bit(rook);
            if span & others != 0 {
                continue;
            }
            let mut path = attacks::between(sq(king), sq(king_to)).0 | bit(king_to);
            let mut safe = true;
            while path != 0 && safe {
                let s = path.trailing_zeros() as u8;
                path &= path - 1;
                safe = self.attackers(t, s, us.other(), others) == 0;
            }
            if safe {
                sink.one(PlainMove { from: king, to: rook, kind: Kind::Castle });
            }
        }
    }

    fn play(&self, mv: PlainMove) -> Board {
        let mut next = *self;
        let us = self.turn;
        let (from, to) = (bit(mv.from), bit(mv.to));
        next.ep = 64;
        match mv.kind {
            Kind::Castle => {
                let rank = mv.from & !7;
                let (king_to, rook_to) =
                    if mv.to > mv.from { (rank + 6, rank + 5) } else { (rank + 2, rank + 3) };
                let k = Role::King.index();
                let r = Role::Rook.index();
                next.roles[k] = next.roles[k] & !from | bit(king_to);
                next.roles[r] = next.roles[r] & !to | bit(rook_to);
                next.colors[us.index()] = next.colors[us.index()] & !from & !to | bit(king_to) | bit(rook_to);
                next.castling &= if us == Color::White { !RANK_1 } else { !RANK_8 };
            }
            Kind::EnPassant => {
                let captured = if us == Color::White { bit(mv.to - 8) } else { bit(mv.to + 8) };
                let p = Role::Pawn.index();
                next.roles[p] = next.roles[p] & !from & !captured | to;
                next.colors[us.index()] = next.colors[us.index()] & !from | to;
                next.colors[us.other().index()] &= !captured;
            }
            Kind::Normal | Kind::Promotion(_) => {
                let role = self.role_at(mv.from);
                if self.colors[us.other().index()] & to != 0 {
                    let victim = self.role_at(mv.to);
                    next.roles[victim.index()] &= !to;
                    next.colors[us.other().index()] &= !to;
                }
                next.roles[role.index()] &= !from;
                let lands = if let Kind::Promotion(r) = mv.kind { r } else { role };
                next.roles[lands.index()] |= to;
                next.colors[us.index()] = next.colors[us.index()] & !from | to;
                next.castling &= !from & !to;
                if role == Role::King {
                    next.castling &= if us == Color::White { !RANK_1 } else { !RANK_8 };
                }
                if role == Role::Pawn && mv.from.abs_diff(mv.to) == 16 {
                    next.ep = (mv.from + mv.to) / 2;
                }
            }
        }
        next.turn = us.other();
        next
    }

    /// Whether the pieces move as in chess: the double step and all four promotions (castling
    /// needs nothing: a board without it has no rights).
    #[inline]
    fn fide(&self) -> bool {
        self.double_step && self.promotions == 0b1111
    }

    fn perft(&self, t: &Tables, depth: u32) -> u64 {
        if self.fide() { self.perft_as::<true>(t, depth) } else { self.perft_as::<false>(t, depth) }
    }

    fn perft_as<const FIDE: bool>(&self, t: &Tables, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => {
                let mut count = Count::<FIDE>::new(self);
                self.generate::<_, FIDE>(t, &mut count);
                count.n
            }
            _ => {
                let mut list = List::new(self);
                self.generate::<_, FIDE>(t, &mut list);
                list.as_slice().iter().map(|&mv| self.play(mv).perft_as::<FIDE>(t, depth - 1)).sum()
            }
        }
    }

    /// [`Board::perft`] that gives up, returning `None`, once more than `left` leaves have been
    /// counted: the same budget, counted at the same levels, as the general board's.
    fn perft_within(&self, t: &Tables, depth: u32, left: &mut u64) -> Option<u64> {
        if self.fide() {
            self.perft_within_as::<true>(t, depth, left)
        } else {
            self.perft_within_as::<false>(t, depth, left)
        }
    }

    fn perft_within_as<const FIDE: bool>(&self, t: &Tables, depth: u32, left: &mut u64) -> Option<u64> {
        match depth {
            0 => {
                *left = left.checked_sub(1)?;
                Some(1)
            }
            1 => {
                let mut count = Count::<FIDE>::new(self);
                self.generate::<_, FIDE>(t, &mut count);
                *left = left.checked_sub(count.n)?;
                Some(count.n)
            }
            _ => {
                let mut list = List::new(self);
                self.generate::<_, FIDE>(t, &mut list);
                let mut nodes = 0;
                for &mv in list.as_slice() {
                    nodes += self.play(mv).perft_within_as::<FIDE>(t, depth - 1, left)?;
                }
                Some(nodes)
            }
        }
    }

    /// The move as the general position writes it.
    fn action(&self, mv: PlainMove) -> Action {
        let (from, to) = (sq(mv.from), sq(mv.to));
        match mv.kind {
            Kind::Castle => Action::Castle { king: from, rook: to },
            Kind::EnPassant => Action::EnPassant { from, to },
            Kind::Normal | Kind::Promotion(_) => Action::Normal {
                role: self.role_at(mv.from),
                from,
                to,
                capture: (self.colors[self.turn.other().index()] & bit(mv.to) != 0)
                    .then(|| self.role_at(mv.to)),
                promotion: if let Kind::Promotion(r) = mv.kind { Some(r) } else { None },
            },
        }
    }

    /// The legal moves, as [`Position::legal_moves`] gives them.
    pub(crate) fn legal_moves_into(&self, out: &mut Vec<Move>) {
        let mut list = List::new(self);
        if self.fide() {
            self.generate::<_, true>(Tables::get(), &mut list);
        } else {
            self.generate::<_, false>(Tables::get(), &mut list);
        }
        out.extend(list.as_slice().iter().map(|&mv| Move::single(self.action(mv))));
    }

    /// Whether the side to move has any legal move.
    pub(crate) fn has_moves(&self) -> bool {
        if self.fide() {
            let mut count = Count::<true>::new(self);
            self.generate::<_, true>(Tables::get(), &mut count);
            count.n > 0
        } else {
            let mut count = Count::<false>::new(self);
            self.generate::<_, false>(Tables::get(), &mut count);
            count.n > 0
        }
    }
}

/// Perft on the plain board; `None` when `pos` is not one.
pub(crate) fn perft(pos: &Position, depth: u32) -> Option<u64> {
    Board::of(pos).map(|b| b.perft(Tables::get(), depth))
}

/// Perft within a budget of leaves on the plain board: `None` when `pos` is not one, else the
/// count, or `None` inside once the budget is spent.
pub(crate) fn perft_within(pos: &Position, depth: u32, budget: u64) -> Option<Option<u64>> {
    let mut left = budget;
    Board::of(pos).map(|b| b.perft_within(Tables::get(), depth, &mut left))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    use crate::perft::general;

    #[test]
    fn the_plain_board_counts_as_the_general_one() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3",
        ] {
            let pos = Position::from_fen(Variant::CHESS, fen).unwrap();
            for depth in 1..=3 {
                assert_eq!(perft(&pos, depth), Some(general(&pos, depth)), "{fen} at depth {depth}");
            }
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            Board::of(&pos).unwrap().legal_moves_into(&mut fast);
            pos.general_legal_moves_into(&mut slow);
            fast.sort_by_key(|m| format!("{m:?}"));
            slow.sort_by_key(|m| format!("{m:?}"));
            assert_eq!(fast, slow, "{fen}");
        }
    }

    #[test]
    fn random_games_give_the_same_moves_both_ways() {
        // 40 games of up to 120 plies by a fixed pseudo-random walk: at every position the plain
        // and the general generator list the same moves, and agree on whether there are any.
        let mut seed = 0x5eed_u64;
        let mut positions = 0;
        for _ in 0..40 {
            let mut pos = Position::start(Variant::CHESS);
            for _ in 0..120 {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                Board::of(&pos).unwrap().legal_moves_into(&mut fast);
                pos.general_legal_moves_into(&mut slow);
                fast.sort_by_key(|m| format!("{m:?}"));
                slow.sort_by_key(|m| format!("{m:?}"));
                assert_eq!(fast, slow, "{}", pos.fen());
                assert_eq!(Board::of(&pos).unwrap().has_moves(), !slow.is_empty());
                positions += 1;
                if slow.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                pos = pos.played(&slow[(seed >> 33) as usize % slow.len()]);
            }
        }
        assert!(positions > 3000, "{positions} positions compared");
    }

    #[test]
    fn other_boards_are_not_plain() {
        for &v in Variant::ALL {
            let plain = Board::of(&Position::start(v)).is_some();
            assert_eq!(plain, v == Variant::CHESS, "{v}");
        }
    }
}
