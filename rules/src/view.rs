//! What a picture of a position shows, and nothing else: the render model.
//!
//! Pictures are drawn from a [`BoardView`], never from a position, so renderers need no rules and
//! every variant's oddities (holes, quads, tiles, the chip, a shrunk board) arrive as plain data.

use crate::mechanic::{Mechanic, dispatch};
use crate::moves::{Action, Move};
use crate::position::Position;
use crate::types::{Color, Piece, Square};
use crate::variant::Variant;

/// What stands at one cell of the board's grid.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// An ordinary square (or tile) a piece can stand on.
    Square,
    /// No square: nothing stands here and lines stop (or, in Tiled Squares, void that lines cross).
    Hole,
    /// Tiled Squares: an anti-tile.
    AntiTile,
    /// Part of a quad-square; the quad itself is in [`BoardView::quads`].
    Quad,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CellView {
    pub kind: CellKind,
    /// Who owns the square or tile, where squares are owned.
    pub owner: Option<Color>,
    pub piece: Option<Piece>,
}

/// A quad-square: its lower-left cell (file, rank) and the pieces on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuadView {
    pub name: &'static str,
    pub file: u8,
    pub rank: u8,
    pub pieces: Vec<Piece>,
}

/// Squares in hand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hand {
    Count(u8),
    Unlimited,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    pub variant: Variant,
    pub files: u8,
    pub ranks: u8,
    /// `files * ranks` cells, a1 first, rank by rank.
    pub cells: Vec<CellView>,
    pub quads: Vec<QuadView>,
    /// Whether squares and tiles are drawn as tiles (Tiled Squares) rather than squares.
    pub tiles: bool,
    pub chip: Option<(u8, u8)>,
    /// Squares in hand for White and Black, where the variant has reserves.
    pub hands: Option<[Hand; 2]>,
    /// Cells the last move touched (origin, destination, placed or moved squares).
    pub last_move: Vec<(u8, u8)>,
    /// The cell of a king in check.
    pub check: Option<(u8, u8)>,
    /// Squares the side to move may not move this turn (the one the opponent just moved).
    pub locked: Vec<(u8, u8)>,
    pub turn: Color,
}

impl BoardView {
    pub fn cell(&self, file: u8, rank: u8) -> &CellView {
        &self.cells[rank as usize * self.files as usize + file as usize]
    }

    /// The view of `pos`; `last` is the move that led to it from `before`, to highlight.
    pub fn new(pos: &Position, last: Option<(&Position, &Move)>) -> BoardView {
        let (files, ranks) = pos.size();
        let mut cells = Vec::with_capacity(files as usize * ranks as usize);
        for rank in 0..ranks {
            for file in 0..files {
                let sq = Square::from_coords(file, rank);
                let kind = if pos.squares().contains(sq) { CellKind::Square } else { CellKind::Hole };
                cells.push(CellView { kind, owner: None, piece: pos.piece_at(sq) });
            }
        }
        let coords = |sq: Square| (sq.file(), sq.rank());
        let check = pos.king(pos.turn()).filter(|_| pos.is_check()).map(|k| coords(pos.location(k)));
        let last_move = match last {
            Some((before, mv)) if before.size() == pos.size() => touched_cells(before, mv),
            // After a shrink the touched cells are renamed towards a1; those on a vanished line
            // are gone.
            Some((before, mv)) => {
                let (files, ranks) = before.vanishing_lines(mv);
                let renamed = |(f, r): (u8, u8)| {
                    (!files.contains(&f) && !ranks.contains(&r)).then(|| {
                        (
                            f - files.iter().filter(|&&x| x < f).count() as u8,
                            r - ranks.iter().filter(|&&x| x < r).count() as u8,
                        )
                    })
                };
                touched_cells(before, mv).into_iter().filter_map(renamed).collect()
            }
            None => Vec::new(),
        };
        let mut view = BoardView {
            variant: pos.variant(),
            files,
            ranks,
            cells,
            quads: Vec::new(),
            tiles: false,
            chip: None,
            hands: None,
            last_move,
            check,
            locked: Vec::new(),
            turn: pos.turn(),
        };
        // The board's room adds what it alone has: owners, hands, quads, tiles, the chip.
        dispatch!(pos.room, M => M::decorate(pos, &mut view));
        view
    }
}

/// The cells a move touched, for the last-move highlight.
fn touched_cells(before: &Position, mv: &Move) -> Vec<(u8, u8)> {
    let mut cells = Vec::new();
    let mut add = |sq: Square| {
        let sq = before.location(sq);
        let c = (sq.file(), sq.rank());
        if !cells.contains(&c) {
            cells.push(c);
        }
    };
    for action in mv.actions() {
        match action {
            Action::Normal { from, to, .. }
            | Action::EnPassant { from, to }
            | Action::Shift { from, to, .. }
            | Action::Sacrifice { from, to, .. } => {
                add(from);
                add(to);
            }
            Action::Castle { king, rook } => {
                let (king_to, rook_to) = before.castling_targets(king, rook);
                add(king);
                add(king_to);
                add(rook);
                add(rook_to);
            }
            Action::Place { to } | Action::DropAnti { to } => add(to),
            Action::RemoveTile { at } => add(at),
            // The chip is drawn where it stands; it needs no highlight.
            Action::Chip { .. } => {}
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation;

    #[test]
    fn views_of_every_start() {
        for &v in Variant::ALL {
            let view = BoardView::new(&Position::start(v), None);
            assert_eq!(view.cells.len(), view.files as usize * view.ranks as usize, "{v}");
            let pieces = view.cells.iter().filter(|c| c.piece.is_some()).count()
                + view.quads.iter().map(|q| q.pieces.len()).sum::<usize>();
            assert_eq!(pieces, Position::start(v).occupied().count() as usize, "{v}");
        }
    }

    #[test]
    fn last_move_and_check() {
        let pos = Position::start(Variant::CHESS);
        let mv = notation::parse_move(&pos, "e4").unwrap();
        let after = pos.played(&mv);
        let view = BoardView::new(&after, Some((&pos, &mv)));
        assert_eq!(view.last_move, [(4, 1), (4, 3)]);
        assert_eq!(view.check, None);
        let check = Position::from_fen(Variant::CHESS, "4k3/8/8/8/8/8/8/4RK2 b - - 0 1").unwrap();
        assert_eq!(BoardView::new(&check, None).check, Some((4, 7)));
    }

    #[test]
    fn the_last_move_is_marked_where_a_shrink_renamed_it() {
        // Rh1-h5 empties the first rank: it vanishes and h5 is renamed h4; h1 is gone.
        let pos = Position::from_fen(Variant::SHRINK, "4k3/8/8/8/8/8/1K6/7R w - - 0 1").unwrap();
        let mv = notation::parse_move(&pos, "Rh1-h5").unwrap();
        assert_eq!(pos.vanishing_lines(&mv), (vec![], vec![0]));
        let after = pos.played(&mv);
        assert_eq!(after.size(), (8, 7));
        assert_eq!(BoardView::new(&after, Some((&pos, &mv))).last_move, [(7, 3)]);
    }

    #[test]
    fn the_square_just_moved_is_shown_locked() {
        let mut pos = Position::start(Variant::HANS38_NEUTRAL);
        for text in ["@@f3", "@@f6", "Ng1-f3", "Ng8-f6", "@@e3", "@e3-d5"] {
            let mv = notation::parse_move(&pos, text).unwrap();
            pos = pos.played(&mv);
        }
        // Black may not move d5, which White just moved there.
        assert_eq!(BoardView::new(&pos, None).locked, [(3, 4)]);
        assert!(BoardView::new(&Position::start(Variant::CHESS), None).locked.is_empty());
    }

    #[test]
    fn holes_owners_and_hands() {
        let view = BoardView::new(&Position::start(Variant::HANS38), None);
        assert_eq!(view.cell(4, 3).kind, CellKind::Hole);
        assert_eq!(view.cell(0, 0).owner, Some(Color::White));
        assert_eq!(view.hands, Some([Hand::Count(3), Hand::Count(3)]));
        let view = BoardView::new(&Position::start(Variant::QUAD_SQUARE), None);
        assert_eq!(view.files, 7);
        assert_eq!(view.quads.len(), 6);
        assert_eq!(view.cell(1, 3).kind, CellKind::Quad);
    }
}
