//! Moves: a turn is one to three actions (a piece move, a square move, a placement).

use crate::types::{Role, Square};

/// One thing a player does to the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A piece moves, maybe capturing (`capture` is the captured role) and maybe promoting.
    Normal { role: Role, from: Square, to: Square, capture: Option<Role>, promotion: Option<Role> },
    /// A pawn captures en passant; the captured pawn stands beside `from` on `to`'s file.
    EnPassant { from: Square, to: Square },
    /// The king castles with the rook standing on `rook`.
    Castle { king: Square, rook: Square },
    /// A square from reserve is placed where there was none (`@@f3`).
    Place { to: Square },
    /// A square moves to a location without one (`@g8-e6`), carrying the friendly piece on it
    /// where the variant allows (L13); `promotion` when that piece is a pawn reaching its last rank.
    Shift { from: Square, to: Square, promotion: Option<Role> },
    /// Quad-Square Chess: a bishop takes `victim` on the quad `to` and is lost with it (Q5);
    /// `from == to` when it shares that quad and does not move.
    Sacrifice { from: Square, to: Square, victim: Role },
    /// Blue Chip Chess: the chip is placed on an empty square (`[d5]`).
    Chip { to: Square },
    /// Tiled Squares: an anti-tile dropped on a void location (`@!e4`).
    DropAnti { to: Square },
    /// Tiled Squares: an empty tile of the mover's taken off the board (`@xe4`).
    RemoveTile { at: Square },
}

impl Action {
    /// Where the action starts: the moving piece's or square's location, or the placement.
    pub fn from(self) -> Square {
        match self {
            Action::Normal { from, .. }
            | Action::EnPassant { from, .. }
            | Action::Shift { from, .. }
            | Action::Sacrifice { from, .. } => from,
            Action::Castle { king, .. } => king,
            Action::Place { to } | Action::Chip { to } | Action::DropAnti { to } => to,
            Action::RemoveTile { at } => at,
        }
    }

    /// Where the action ends: the piece's or square's destination, the placement, the rook a
    /// king castles with, the tile taken away.
    pub fn to(self) -> Square {
        match self {
            Action::Normal { to, .. }
            | Action::EnPassant { to, .. }
            | Action::Shift { to, .. }
            | Action::Sacrifice { to, .. }
            | Action::Place { to }
            | Action::Chip { to }
            | Action::DropAnti { to } => to,
            Action::Castle { rook, .. } => rook,
            Action::RemoveTile { at } => at,
        }
    }

    /// Whether this action moves a piece by its own powers (as opposed to moving or placing squares).
    pub fn is_piece_move(self) -> bool {
        matches!(self, Action::Normal { .. } | Action::EnPassant { .. } | Action::Castle { .. })
    }

    pub fn is_capture(self) -> bool {
        match self {
            Action::Normal { capture, .. } => capture.is_some(),
            Action::EnPassant { .. } | Action::Sacrifice { .. } => true,
            _ => false,
        }
    }

    pub fn promotion(self) -> Option<Role> {
        match self {
            Action::Normal { promotion, .. } | Action::Shift { promotion, .. } => promotion,
            _ => None,
        }
    }
}

/// A whole turn: up to three actions, in the order they are made.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    actions: [Option<Action>; 3],
    /// Shrink Chess: the pieces chosen for pawns a shrink promotes, two bits each (an index into
    /// [`Role::PROMOTIONS`]) in the order of their squares after the shrink; 0 makes them all queens.
    shrink_choice: u32,
}

impl Move {
    #[inline]
    pub fn single(action: Action) -> Move {
        Move { actions: [Some(action), None, None], shrink_choice: 0 }
    }

    /// A turn of several actions; `None` if there are none or more than three.
    pub fn from_actions(actions: &[Action]) -> Option<Move> {
        if actions.is_empty() || actions.len() > 3 {
            return None;
        }
        let mut slots = [None; 3];
        for (slot, a) in slots.iter_mut().zip(actions) {
            *slot = Some(*a);
        }
        Some(Move { actions: slots, shrink_choice: 0 })
    }

    /// The same turn with one more action at the end.
    pub(crate) fn then(mut self, action: Action) -> Move {
        let slot = self.actions.iter_mut().find(|a| a.is_none()).expect("at most three actions a turn");
        *slot = Some(action);
        self
    }

    /// Shrink Chess: the piece chosen for the `i`-th pawn (in square order) a shrink promotes.
    pub fn shrink_promotion(&self, i: usize) -> Role {
        Role::PROMOTIONS[((self.shrink_choice >> (2 * i.min(15))) & 3) as usize]
    }

    pub(crate) fn with_shrink_choice(mut self, choice: u32) -> Move {
        self.shrink_choice = choice;
        self
    }

    /// The actions in the order they are made.
    pub fn actions(&self) -> impl Iterator<Item = Action> + '_ {
        self.actions.iter().map_while(|a| *a)
    }

    pub fn len(&self) -> usize {
        self.actions().count()
    }

    /// Whether any action of the turn takes a piece.
    pub fn is_capture(&self) -> bool {
        self.actions().any(|a| a.is_capture())
    }

    pub fn is_empty(&self) -> bool {
        self.actions[0].is_none()
    }

    /// The first action of the turn.
    pub fn first(&self) -> Action {
        self.actions[0].expect("a move has at least one action")
    }

    /// The turn's piece move, if it has one.
    pub fn piece_action(&self) -> Option<Action> {
        self.actions().find(|a| a.is_piece_move())
    }
}

impl From<Action> for Move {
    fn from(action: Action) -> Move {
        Move::single(action)
    }
}
