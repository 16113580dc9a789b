//! Tournament pairing for Tessera: pure functions, no I/O beyond the bytes a caller hands over.
//!
//! * **Swiss, FIDE (Dutch) system** — [`pair_next_round`] pairs the next round of a [`Tournament`] by
//!   FIDE Handbook C.04.3 as applied from 1 July 2025 (with the basic rules C.04.1 and the general handling
//!   rules C.04.2): the pairings FIDE-endorsed programs produce, found by weighted matching.
//! * **TRF-16** — [`read_trf`] reads FIDE's tournament report file as endorsed programs do, [`write_trf`]
//!   writes one it reads back equal.
//! * **Round robin** — [`berger::round`] and [`berger::schedule`]: the FIDE Berger tables (C.05 Annex 1).
//! * **Knockout** — [`knockout::first_round`] and [`knockout::seed_order`]: seeded brackets, byes to the
//!   top seeds.
//!
//! Pairing a tournament, and reading it back from the TRF text an arbiter would check:
//!
//! ```
//! use tessera_pairing::{Player, Tournament, pair_next_round, read_trf, write_trf};
//!
//! let players = ["Alice", "Bob", "Carol"]
//!     .iter()
//!     .enumerate()
//!     .map(|(i, name)| Player { id: i as u32 + 1, name: name.to_string(), ..Player::default() })
//!     .collect();
//! let tournament = Tournament { total_rounds: 3, players, ..Tournament::default() };
//! let trf = write_trf(&tournament);
//! assert_eq!(read_trf(trf.as_bytes()).unwrap(), tournament);
//!
//! let pairings = pair_next_round(&tournament).unwrap();
//! assert_eq!(pairings.boards, vec![(1, 2)]);
//! assert_eq!(pairings.bye, Some(3));
//! assert_eq!(pairings.to_text(), "2\n1 2\n3 0\n");
//! ```

// The matching and the criteria walk parallel arrays by vertex number; indexed loops say that best.
#![allow(clippy::needless_range_loop)]

pub mod berger;
mod dutch;
pub mod knockout;
mod matching;
mod tournament;
mod trf;
mod wide;

use std::fmt;

pub use tournament::{
    Colour, InvalidTournament, Player, PointSystem, Points, ResultCode, RoundEntry, Tournament,
};
pub use trf::{MAX_PLAYERS, MAX_TRF_BYTES, TrfError, TrfErrorKind, read_trf, write_trf};

/// One round's pairings.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pairings {
    /// `(white, black)` start numbers, board 1 first.
    pub boards: Vec<(u32, u32)>,
    /// The player given the pairing-allocated bye, if the number to pair is odd.
    pub bye: Option<u32>,
}

impl Pairings {
    /// The text endorsed pairing programs print with `-p`: the number of pairs (the bye counts as one),
    /// then `WHITE BLACK` per board, then `ID 0` for the bye. Lines end in `\n`.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.boards.len() + usize::from(self.bye.is_some()));
        for (white, black) in &self.boards {
            out.push_str(&format!("{white} {black}\n"));
        }
        if let Some(bye) = self.bye {
            out.push_str(&format!("{bye} 0\n"));
        }
        out
    }
}

/// Why a round could not be paired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairError {
    /// No pairing satisfies the absolute criteria (no repeated game, no two players with the same
    /// absolute colour preference, at most one bye and only to an eligible player).
    NoValidPairing,
    /// The tournament cannot be paired as it stands (bad start numbers, inconsistent games, all rounds
    /// played, ...).
    Invalid(InvalidTournament),
}

impl fmt::Display for PairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairError::NoValidPairing => write!(f, "no valid pairing"),
            PairError::Invalid(problem) => write!(f, "{problem}"),
        }
    }
}

impl std::error::Error for PairError {}

/// Pairs the next round of a Swiss tournament by the FIDE (Dutch) system, C.04.3 (2025).
///
/// The round paired is the one after the last played round ([`Tournament::played_rounds`]). Everyone is
/// paired except players whose entry for that round already says they are out (`H`, `F`, `Z`, `-`, or a
/// blank `0000 - -`/`0000 - Z`), and players not yet in the tournament. Start numbers are the pairing
/// numbers. Colours follow the allocation rules; with no history the higher-ranked player of each board
/// gets [`Tournament::initial_colour`] on odd ranks and the other colour on even ones.
///
/// # Errors
/// [`PairError::NoValidPairing`] when the absolute criteria cannot all be met, and
/// [`PairError::Invalid`] when the tournament is inconsistent or finished.
pub fn pair_next_round(tournament: &Tournament) -> Result<Pairings, PairError> {
    dutch::pair(tournament)
}
