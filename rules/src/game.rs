//! A game: a start position, the moves played, and how it ended.

use std::fmt;

use crate::moves::{Action, Move};
use crate::notation::{self, MoveError, ResolveError};
use crate::position::Position;
use crate::types::Color;
use crate::variant::{StalemateRule, Variant};
use crate::view::BoardView;

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw { reason: DrawReason },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    Checkmate,
    /// The loser had no legal turn and was not in check, where stalemate loses (L8).
    Stalemate,
    Resignation,
    Time,
    /// A game not played out: a tournament withdrawal or a no-show the organiser recorded.
    Forfeit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    Stalemate,
    InsufficientMaterial,
    /// Automatic (G3).
    FivefoldRepetition,
    /// Automatic (G3): after 75 moves in chess, one and a half times the variant's move count in
    /// a variant that sets its own (`ending.move-limit`).
    SeventyFiveMoves,
    /// Claimed by the player to move (G3).
    ThreefoldRepetition,
    /// Claimed by the player to move (G3): after 50 moves in chess, after the variant's move count
    /// in one that sets its own.
    FiftyMoves,
    Agreement,
}

impl Outcome {
    /// PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self {
            Outcome::Win { winner: Color::White, .. } => "1-0",
            Outcome::Win { winner: Color::Black, .. } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Win { winner, reason } => {
                let how = match reason {
                    WinReason::Checkmate => "by checkmate",
                    WinReason::Stalemate => "by stalemate (stalemate loses in this variant)",
                    WinReason::Resignation => "by resignation",
                    WinReason::Time => "on time",
                    WinReason::Forfeit => "by forfeit",
                };
                let name = if winner == Color::White { "White" } else { "Black" };
                write!(f, "{name} wins {how}")
            }
            Outcome::Draw { reason } => {
                let how = match reason {
                    DrawReason::Stalemate => "stalemate",
                    DrawReason::InsufficientMaterial => "insufficient material",
                    DrawReason::FivefoldRepetition => "fivefold repetition",
                    DrawReason::SeventyFiveMoves => "the 75-move rule",
                    DrawReason::ThreefoldRepetition => "threefold repetition (claimed)",
                    DrawReason::FiftyMoves => "the 50-move rule (claimed)",
                    DrawReason::Agreement => "agreement",
                };
                write!(f, "Draw by {how}")
            }
        }
    }
}

/// Why a move could not be added to a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game ended before this move.
    GameOver(Outcome),
    Move(MoveError),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::GameOver(outcome) => write!(f, "the game is over: {outcome}"),
            PlayError::Move(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PlayError {}

/// A game in progress or finished. Stored as start position plus moves; everything else is derived.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    /// Every position reached, the start first, each with its counters cleared for repetition checks.
    history: Vec<Position>,
    current: Position,
    /// An ending decided outside the board: resignation, agreement, time.
    declared: Option<Outcome>,
    /// The ending the rules decide on the current position, worked out once per move: deciding
    /// it means looking for a legal turn, which in the compound-turn variants is not cheap.
    ended: Option<Outcome>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let key = repetition_key(&start);
        let mut game = Game {
            current: start.clone(),
            start,
            moves: Vec::new(),
            history: vec![key],
            declared: None,
            ended: None,
        };
        game.ended = game.board_outcome();
        game
    }

    pub fn from_variant(variant: Variant) -> Game {
        Game::new(Position::start(variant))
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn position(&self) -> &Position {
        &self.current
    }

    /// The game's board views: its start, then each position after a move with that move marked
    /// (the frames of its animation).
    pub fn views(&self) -> Vec<BoardView> {
        let mut pos = self.start().clone();
        let mut views = vec![BoardView::new(&pos, None)];
        for mv in self.moves() {
            let next = pos.played(mv);
            views.push(BoardView::new(&next, Some((&pos, mv))));
            pos = next;
        }
        views
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position reached, the start first and the current one last, as repetitions compare
    /// them (move counters cleared): for a search that must know which positions would repeat.
    pub fn positions(&self) -> &[Position] {
        &self.history
    }

    /// Plays a legal move of the current position.
    pub fn play(&mut self, mv: Move) -> Result<(), PlayError> {
        if let Some(outcome) = self.outcome() {
            return Err(PlayError::GameOver(outcome));
        }
        self.current.play_unchecked(&mv);
        self.moves.push(mv);
        self.history.push(repetition_key(&self.current));
        self.ended = self.board_outcome();
        Ok(())
    }

    /// Reads, resolves and plays a move; on error the game is unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, PlayError> {
        if let Some(outcome) = self.outcome() {
            return Err(PlayError::GameOver(outcome));
        }
        let mv = notation::parse_move(&self.current, text).map_err(PlayError::Move)?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Ends the game for a reason outside the board (resignation, agreement, time, a claim).
    pub fn declare(&mut self, outcome: Outcome) {
        if self.outcome().is_none() {
            self.declared = Some(outcome);
        }
    }

    /// How the game ended, if it has: by rule on the board first, then by declaration.
    pub fn outcome(&self) -> Option<Outcome> {
        self.ended.or(self.declared)
    }

    /// Endings the rules apply by themselves (G3, G4, L8).
    fn board_outcome(&self) -> Option<Outcome> {
        let pos = &self.current;
        let us = pos.turn();
        if !pos.has_legal_moves() {
            return Some(if pos.is_check() {
                Outcome::Win { winner: us.other(), reason: WinReason::Checkmate }
            } else {
                match pos.variant().stalemate() {
                    StalemateRule::Draw => Outcome::Draw { reason: DrawReason::Stalemate },
                    StalemateRule::Loss => Outcome::Win { winner: us.other(), reason: WinReason::Stalemate },
                }
            });
        }
        if pos.insufficient_material() {
            return Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial });
        }
        if self.repetitions() >= 5 {
            return Some(Outcome::Draw { reason: DrawReason::FivefoldRepetition });
        }
        // 150 half-moves in chess; the variant's count scaled alike, or never (G3).
        if pos.rules().automatic_plies().is_some_and(|plies| pos.halfmoves() >= plies) {
            return Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves });
        }
        None
    }

    /// How often the current position has occurred, counting this time.
    pub fn repetitions(&self) -> usize {
        let now = self.history.last().expect("history starts with the start position");
        self.history.iter().filter(|p| *p == now).count()
    }

    /// A draw the player to move may claim now (G3), if any.
    pub fn claimable_draw(&self) -> Option<DrawReason> {
        if self.outcome().is_some() {
            None
        } else if self.repetitions() >= 3 {
            Some(DrawReason::ThreefoldRepetition)
        } else if self.current.rules().claim_plies().is_some_and(|plies| self.current.halfmoves() >= plies) {
            Some(DrawReason::FiftyMoves)
        } else {
            None
        }
    }

    /// The moves in the record format `tessera replay` reads, numbered, one turn after another,
    /// ending with the result: SAN for FIDE chess, the variants' long notation otherwise (see
    /// [`crate::record`]).
    pub fn record(&self) -> String {
        crate::record::write_moves(self)
    }
}

/// The position as far as repetition is concerned: counters cleared, and an en passant square
/// only when a capture there is possible (FIDE 9.2.3).
fn repetition_key(pos: &Position) -> Position {
    let mut key = pos.clone();
    key.halfmoves = 0;
    key.fullmoves = pos.turn_number_phase();
    if key.ep.is_some() && !pos.legal_moves().iter().any(|m| matches!(m.first(), Action::EnPassant { .. })) {
        key.ep = None;
    }
    key
}

impl From<ResolveError> for PlayError {
    fn from(e: ResolveError) -> Self {
        PlayError::Move(MoveError::Resolve(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_after(fen: &str, moves: &[&str]) -> Game {
        let mut game = Game::new(Position::from_fen(Variant::CHESS, fen).unwrap());
        for m in moves {
            game.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        game
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn fools_mate() {
        let game = game_after(START, &["f3", "e5", "g4", "Qh4"]);
        assert_eq!(game.outcome(), Some(Outcome::Win { winner: Color::Black, reason: WinReason::Checkmate }));
        let mut g = game.clone();
        assert!(matches!(g.play_text("a3"), Err(PlayError::GameOver(_))));
        assert_eq!(g.record(), "1. f3 e5 2. g4 Qh4# 0-1");
    }

    #[test]
    fn stalemate_is_a_draw_in_chess() {
        let game = game_after("7k/8/6Q1/8/8/8/8/K7 w - - 0 1", &["Qf7"]);
        assert_eq!(game.outcome(), Some(Outcome::Draw { reason: DrawReason::Stalemate }));
    }

    #[test]
    fn repetition_claim_then_automatic_fivefold() {
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let mut game = Game::from_variant(Variant::CHESS);
        for m in shuffle {
            game.play_text(m).unwrap();
        }
        assert_eq!(game.repetitions(), 2);
        assert_eq!(game.claimable_draw(), None);
        for m in shuffle {
            game.play_text(m).unwrap();
        }
        assert_eq!(game.claimable_draw(), Some(DrawReason::ThreefoldRepetition));
        assert_eq!(game.outcome(), None);
        for m in shuffle.iter().chain(shuffle.iter()) {
            game.play_text(m).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw { reason: DrawReason::FivefoldRepetition }));
    }

    #[test]
    fn castling_rights_are_part_of_the_repetition() {
        // Moving the rook out and back loses the right: the position is not the same as before.
        let mut game = game_after("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1", &["Rh2", "Ke7", "Rh1", "Ke8"]);
        assert_eq!(game.repetitions(), 1);
        for m in ["Rh2", "Ke7", "Rh1", "Ke8"] {
            game.play_text(m).unwrap();
        }
        assert_eq!(game.repetitions(), 2);
    }

    #[test]
    fn fifty_and_seventy_five_move_rules() {
        let game = game_after("4k3/8/8/8/8/8/8/R3K3 w - - 99 80", &["Ra2"]);
        assert_eq!(game.claimable_draw(), Some(DrawReason::FiftyMoves));
        let game = game_after("4k3/8/8/8/8/8/8/R3K3 w - - 149 80", &["Ra2"]);
        assert_eq!(game.outcome(), Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves }));
        // Mate on the 150th half-move stands over the 75-move rule.
        let game = game_after("7k/R7/6K1/8/8/8/8/8 w - - 149 80", &["Ra8"]);
        assert_eq!(game.outcome(), Some(Outcome::Win { winner: Color::White, reason: WinReason::Checkmate }));
    }

    #[test]
    fn insufficient_material_ends_the_game() {
        let game = game_after("4k3/8/8/8/8/8/4r3/4KB2 w - - 0 1", &["Kxe2"]);
        assert_eq!(game.outcome(), Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial }));
    }

    #[test]
    fn failed_move_changes_nothing() {
        let mut game = Game::from_variant(Variant::CHESS);
        assert!(game.play_text("e5").is_err());
        assert!(game.play_text("garbage").is_err());
        assert!(game.moves().is_empty());
        assert_eq!(game.position(), &Position::start(Variant::CHESS));
    }
}
