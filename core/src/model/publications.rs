//! Things made public on the web (issue 31): a tournament or a game, each at an unguessable
//! address until it is withdrawn.

use crate::model::{GameId, TournamentId};

/// What a public address shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Publication {
    Tournament(TournamentId),
    Game(GameId),
}

impl Publication {
    /// The kind as the store keeps it, and the id.
    pub fn parts(self) -> (&'static str, i64) {
        match self {
            Publication::Tournament(id) => ("tournament", id),
            Publication::Game(id) => ("game", id),
        }
    }

    /// From the store's kind and id; `None` for a kind this build does not know.
    pub fn from_parts(kind: &str, id: i64) -> Option<Publication> {
        match kind {
            "tournament" => Some(Publication::Tournament(id)),
            "game" => Some(Publication::Game(id)),
            _ => None,
        }
    }
}
