//! Analyses after the game (issue 32): who asked for one, where its answer goes, and whether it
//! is done. The evaluations themselves are [`crate::analysis::PlyEval`]s.

use crate::model::{GameId, PlayerId};

/// An analysis asked for: one per game, answered once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisRow {
    pub game: GameId,
    pub requester: PlayerId,
    /// Where the answer is posted: where it was asked.
    pub platform: String,
    pub channel: String,
    pub requested_at: i64,
    /// When its evaluations were stored; `None` while it waits or runs.
    pub finished_at: Option<i64>,
}

impl AnalysisRow {
    pub fn is_done(&self) -> bool {
        self.finished_at.is_some()
    }
}

/// An analysis to ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAnalysis<'a> {
    pub game: GameId,
    pub requester: PlayerId,
    pub platform: &'a str,
    pub channel: &'a str,
    pub now: i64,
}

/// The bounds of the analysis queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AnalysisBounds {
    /// Analyses one player may have waiting.
    pub per_requester: usize,
    /// Analyses waiting in all.
    pub overall: usize,
}

/// What asking for an analysis did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalysisAsked {
    /// Queued now, at this place in the queue (1: next).
    Queued { place: usize },
    /// The game already has one (waiting or done); nothing changed.
    Exists(AnalysisRow),
    /// The requester has this many waiting already; nothing changed.
    RequesterFull(usize),
    /// The queue holds this many; nothing changed.
    QueueFull(usize),
}
