//! Moves: a turn is one to three actions (a piece move, square moves, placements).

use crate::types::{Role, Square};

/// One thing a player does to the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A piece moves, maybe capturing (`capture` is the captured role) and maybe promoting.
    Normal {
        role: Role,
        from: Square,
        to: Square,
        capture: Option<Role>,
        promotion: Option<Role>,
    },
    /// A pawn captures en passant; the captured pawn stands beside `from` on `to`'s file.
    EnPassant { from: Square, to: Square },
    /// The king castles with the rook standing on `rook`.
    Castle { king: Square, rook: Square },
}

impl Action {
    /// Where the moving piece starts, for actions that move one.
    pub fn from(self) -> Square {
        match self {
            Action::Normal { from, .. } | Action::EnPassant { from, .. } => from,
            Action::Castle { king, .. } => king,
        }
    }

    pub fn is_capture(self) -> bool {
        match self {
            Action::Normal { capture, .. } => capture.is_some(),
            Action::EnPassant { .. } => true,
            Action::Castle { .. } => false,
        }
    }

    pub fn promotion(self) -> Option<Role> {
        match self {
            Action::Normal { promotion, .. } => promotion,
            _ => None,
        }
    }
}

/// A whole turn. Most turns are a single action.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    actions: [Option<Action>; 3],
}

impl Move {
    #[inline]
    pub fn single(action: Action) -> Move {
        Move {
            actions: [Some(action), None, None],
        }
    }

    /// The actions in the order they are made.
    pub fn actions(&self) -> impl Iterator<Item = Action> + '_ {
        self.actions.iter().map_while(|a| *a)
    }

    /// The first action of the turn.
    pub fn first(&self) -> Action {
        self.actions[0].expect("a move has at least one action")
    }
}

impl From<Action> for Move {
    fn from(action: Action) -> Move {
        Move::single(action)
    }
}
