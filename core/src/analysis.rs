//! Analysis after the game (issue 32): the engine's evaluation of every position of a finished
//! game, and the turns where it dropped most, judged as Lichess judges them.
//!
//! Pure: evaluations in, judgements out. The search itself runs on the practice worker's thread
//! ([`crate::service::Service::analysis_run`]) and in `tessera analyse`, both through
//! [`analyse_game`].
//!
//! Judgement, as Lichess's `Advice` does it: each evaluation becomes White's winning chances on
//! −1…+1, `2 / (1 + exp(−0.00368208 · cp)) − 1`, with cp capped at ±1000 and a mate counting as
//! ±1; a turn whose mover loses at least 0.1 / 0.2 / 0.3 of them is an inaccuracy / mistake /
//! blunder. On the 0–100 win% scale (`50 + 50 · chances`) those are drops of 5, 10 and 15
//! points. Where a mate appears or disappears, Lichess's mate rules decide instead (a mate let
//! slip into a still winning position is only an inaccuracy, walking into one is a blunder).

use std::time::Duration;

use tessera_engine::{Limits, Score, Searcher};
use tessera_rules::{Color, Game, Move, Outcome, Position, Variant, notation};

/// What one position is worth, from White's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, White's advantage positive.
    Cp(i32),
    /// Mate in this many turns: White mates when positive, Black when negative (never 0).
    Mate(i32),
    /// The game is over on the board and this side has won (a mate given, a king taken).
    Won(Color),
}

impl Eval {
    /// A search's score (for the side to move) as White sees it.
    pub fn from_score(score: Score, to_move: Color) -> Eval {
        let sign = if to_move == Color::White { 1 } else { -1 };
        match score {
            Score::Cp(cp) => Eval::Cp(cp * sign),
            // Mate 0 for the side to move is the engine's "mated now".
            Score::Mate(0) => Eval::Won(to_move.other()),
            Score::Mate(n) => Eval::Mate(n * sign),
        }
    }

    /// White's winning chances, −1 (Black wins) to +1.
    pub fn chances(self) -> f64 {
        match self {
            Eval::Cp(cp) => winning_chances(cp),
            Eval::Mate(n) => f64::from(n.signum()),
            Eval::Won(c) => white_sign(c),
        }
    }

    /// White's win% (0–100), as the graph's reader knows it.
    pub fn win_percent(self) -> f64 {
        50.0 + 50.0 * self.chances()
    }

    /// The value drawn: centipawns capped at ±[`GRAPH_CAP`], a mate at the edge.
    pub fn graph_cp(self) -> i32 {
        match self {
            Eval::Cp(cp) => cp.clamp(-GRAPH_CAP, GRAPH_CAP),
            Eval::Mate(n) => GRAPH_CAP * n.signum(),
            Eval::Won(c) => GRAPH_CAP * white_sign(c) as i32,
        }
    }

    /// How it is stored and printed: `cp 35`, `mate -3`, `won white`.
    pub fn text(self) -> String {
        match self {
            Eval::Cp(cp) => format!("cp {cp}"),
            Eval::Mate(n) => format!("mate {n}"),
            Eval::Won(c) => format!("won {}", c.name()),
        }
    }

    pub fn parse(text: &str) -> Option<Eval> {
        let (kind, value) = text.split_once(' ')?;
        match kind {
            "cp" => value.parse().ok().map(Eval::Cp),
            "mate" => value.parse().ok().filter(|n| *n != 0).map(Eval::Mate),
            "won" => match value {
                "white" => Some(Eval::Won(Color::White)),
                "black" => Some(Eval::Won(Color::Black)),
                _ => None,
            },
            _ => None,
        }
    }

    /// As a chess player reads it: `+1.35`, `-0.20`, `#3`, `#-2`, `1-0`.
    pub fn short(self) -> String {
        match self {
            Eval::Cp(cp) => format!("{}{:.2}", if cp >= 0 { "+" } else { "-" }, f64::from(cp.abs()) / 100.0),
            Eval::Mate(n) => format!("#{n}"),
            Eval::Won(Color::White) => "1-0".into(),
            Eval::Won(Color::Black) => "0-1".into(),
        }
    }

    /// As the side `color` reads it: `+1.35` (good for them), `mate in 3`, `mated in 2`.
    pub fn short_for(self, color: Color) -> String {
        let sign = white_sign(color) as i32;
        match self {
            Eval::Cp(cp) => Eval::Cp(cp * sign).short(),
            Eval::Mate(n) if n * sign > 0 => format!("mate in {}", n.abs()),
            Eval::Mate(n) => format!("mated in {}", n.abs()),
            Eval::Won(c) if c == color => "won".into(),
            Eval::Won(_) => "lost".into(),
        }
    }

    /// For `color`, the mate it gives (positive) or gets (negative), if any.
    fn mate_for(self, color: Color) -> Option<i32> {
        let sign = white_sign(color) as i32;
        match self {
            Eval::Mate(n) => Some(n * sign),
            Eval::Won(c) if c == color => Some(1),
            Eval::Won(_) => Some(-1),
            Eval::Cp(_) => None,
        }
    }

    /// Centipawns for `color`, capped as Lichess caps them, when no mate is in sight.
    fn cp_for(self, color: Color) -> Option<i32> {
        match self {
            Eval::Cp(cp) => Some(cp.clamp(-CP_CAP, CP_CAP) * white_sign(color) as i32),
            _ => None,
        }
    }
}

/// Centipawns beyond which the winning chances no longer grow (Lichess's ceiling).
const CP_CAP: i32 = 1000;

/// The graph's edge: ±10 pawns.
pub const GRAPH_CAP: i32 = 1000;

fn white_sign(c: Color) -> f64 {
    if c == Color::White { 1.0 } else { -1.0 }
}

/// White's winning chances at `cp` centipawns: Lichess's logistic, cp capped at ±1000.
pub fn winning_chances(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-CP_CAP, CP_CAP));
    2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0
}

/// How bad a turn was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Inaccuracy, Class::Mistake, Class::Blunder];

    pub fn name(self) -> &'static str {
        match self {
            Class::Inaccuracy => "inaccuracy",
            Class::Mistake => "mistake",
            Class::Blunder => "blunder",
        }
    }

    /// The mark a record puts after the turn.
    pub fn glyph(self) -> &'static str {
        match self {
            Class::Inaccuracy => "?!",
            Class::Mistake => "?",
            Class::Blunder => "??",
        }
    }

    /// The loss of winning chances (on −1…+1) from which a turn is of this class.
    pub fn threshold(self) -> f64 {
        match self {
            Class::Inaccuracy => 0.1,
            Class::Mistake => 0.2,
            Class::Blunder => 0.3,
        }
    }

    fn by_loss(loss: f64) -> Option<Class> {
        // A hair below each threshold still counts: evaluations are whole centipawns.
        Class::ALL.into_iter().rev().find(|c| loss >= c.threshold() - 1e-9)
    }
}

/// The judgement of the turn from `before` to `after` by `mover`: its class, if it is one, and
/// the winning chances it gave away (0 when it gained).
pub fn judge(mover: Color, before: Eval, after: Eval) -> (Option<Class>, f64) {
    let sign = white_sign(mover);
    let loss = ((before.chances() - after.chances()) * sign).max(0.0);
    let class = match (before.mate_for(mover), after.mate_for(mover)) {
        (None, None) => Class::by_loss(loss),
        // Walking into a mate: forgiven only where the game was lost anyway.
        (None, Some(n)) if n < 0 => Some(match before.cp_for(mover) {
            Some(cp) if cp < -999 => Class::Inaccuracy,
            Some(cp) if cp < -700 => Class::Mistake,
            _ => Class::Blunder,
        }),
        // Letting a mate slip: the less is left of the win, the worse.
        (Some(n), None) if n > 0 => Some(match after.cp_for(mover) {
            Some(cp) if cp > 999 => Class::Inaccuracy,
            Some(cp) if cp > 700 => Class::Mistake,
            _ => Class::Blunder,
        }),
        (Some(a), Some(b)) if a > 0 && b < 0 => Some(Class::Blunder),
        _ => None,
    };
    (class, loss)
}

/// One position's evaluation as stored: the position after `ply` plies (0: the start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyEval {
    pub ply: usize,
    pub eval: Eval,
    /// The engine's best turn from this position, in the record's notation; `None` where the
    /// game was over.
    pub best: Option<String>,
    /// The depth its search completed (0 where the game was over).
    pub depth: u32,
}

/// One turn of the game as the analysis judges it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The ply number, 1-based.
    pub ply: usize,
    pub mover: Color,
    /// The turn played, in the record's notation.
    pub played: String,
    /// The position's worth after it.
    pub eval: Eval,
    pub class: Option<Class>,
    /// Winning chances (−1…+1 scale) it gave away.
    pub loss: f64,
    /// The engine's turn in its place, where it differs from the one played.
    pub better: Option<String>,
}

/// Every turn judged: `evals` holds the positions 0..=N of a game whose plies are `played`,
/// White's turn first when `first` is White. Positions missing from `evals` end the list.
pub fn judge_all(first: Color, played: &[String], evals: &[PlyEval]) -> Vec<Judged> {
    let mut out = Vec::new();
    let mut mover = first;
    for (i, text) in played.iter().enumerate() {
        let (Some(before), Some(after)) = (evals.get(i), evals.get(i + 1)) else { break };
        let (class, loss) = judge(mover, before.eval, after.eval);
        let better = before.best.clone().filter(|b| !same_turn(b, text));
        out.push(Judged {
            ply: i + 1,
            mover,
            played: text.clone(),
            eval: after.eval,
            class: class.filter(|_| better.is_some()),
            loss,
            better,
        });
        mover = mover.other();
    }
    out
}

/// Whether two written turns are the same, check marks aside.
fn same_turn(a: &str, b: &str) -> bool {
    a.trim_end_matches(['+', '#']) == b.trim_end_matches(['+', '#'])
}

/// One side's totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// The average win% (0–100) given away a turn.
    pub average_loss: f64,
}

impl Tally {
    pub fn of(judged: &[Judged], color: Color) -> Tally {
        let own: Vec<&Judged> = judged.iter().filter(|j| j.mover == color).collect();
        let count = |c: Class| own.iter().filter(|j| j.class == Some(c)).count();
        let average_loss = if own.is_empty() {
            0.0
        } else {
            own.iter().map(|j| j.loss * 50.0).sum::<f64>() / own.len() as f64
        };
        Tally {
            inaccuracies: count(Class::Inaccuracy),
            mistakes: count(Class::Mistake),
            blunders: count(Class::Blunder),
            average_loss,
        }
    }
}

/// The budget of one position's search in an analysis: a fixed time, and a depth it need not
/// pass (an easy position is done sooner).
pub const POSITION_MOVETIME: Duration = Duration::from_millis(250);
pub const POSITION_MAX_DEPTH: u32 = 24;

/// What one position's search is allowed.
pub fn position_limits() -> Limits {
    Limits { depth: Some(POSITION_MAX_DEPTH), movetime: Some(POSITION_MOVETIME) }
}

/// A turn in the record's notation: SAN for FIDE chess, the variants' long notation otherwise.
pub fn record_turn(pos: &Position, mv: &Move) -> String {
    if pos.variant() == Variant::CHESS { notation::san(pos, mv) } else { notation::lan(pos, mv) }
}

/// Evaluates one position of `game` (the position now) with `searcher`.
pub fn evaluate(searcher: &mut Searcher, game: &Game, ply: usize, limits: Limits) -> PlyEval {
    let pos = game.position();
    match game.outcome() {
        Some(Outcome::Win { winner, .. }) => {
            return PlyEval { ply, eval: Eval::Won(winner), best: None, depth: 0 };
        }
        Some(Outcome::Draw { .. }) => return PlyEval { ply, eval: Eval::Cp(0), best: None, depth: 0 },
        None => {}
    }
    match searcher.best_move(game, limits) {
        Some(choice) => PlyEval {
            ply,
            eval: Eval::from_score(choice.score, pos.turn()),
            best: Some(record_turn(pos, &choice.mv)),
            depth: choice.depth,
        },
        // No turn to choose though the game goes on: nothing better to say than level.
        None => PlyEval { ply, eval: Eval::Cp(0), best: None, depth: 0 },
    }
}

/// Every position of a game played from `start` through `moves`, each searched within `limits`
/// by one searcher made for this analysis. `go_on` is asked before each position: false stops
/// the analysis (`None`), so the caller can do more urgent work in between or give up.
pub fn analyse_game(
    start: &Position,
    moves: &[Move],
    limits: Limits,
    mut go_on: impl FnMut() -> bool,
) -> Option<Vec<PlyEval>> {
    let mut searcher = Searcher::new();
    let mut game = Game::new(start.clone());
    let mut evals = Vec::with_capacity(moves.len() + 1);
    for ply in 0..=moves.len() {
        if !go_on() {
            return None;
        }
        evals.push(evaluate(&mut searcher, &game, ply, limits));
        if let Some(mv) = moves.get(ply)
            && game.play(*mv).is_err()
        {
            break;
        }
    }
    Some(evals)
}

/// The turns played, in the record's notation, from `start`.
pub fn written_turns(start: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|mv| {
            let text = record_turn(&pos, mv);
            pos = pos.played(mv);
            text
        })
        .collect()
}

/// A turn's number as a record writes it before the turn played from `pos`: `12.` for White,
/// `12...` for Black.
pub fn turn_label(pos: &Position) -> String {
    let dots = if pos.turn() == Color::White { "." } else { "..." };
    format!("{}{dots}", pos.fullmoves())
}

/// The positions of a game, the start first: what [`turn_label`] numbers turns by.
pub fn positions(start: &Position, moves: &[Move]) -> Vec<Position> {
    let mut all = Vec::with_capacity(moves.len() + 1);
    all.push(start.clone());
    for mv in moves {
        let next = all[all.len() - 1].played(mv);
        all.push(next);
    }
    all
}

/// The picture's data: each position's winning chances, the judged turns marked at the position
/// they led to, move numbers under the axis (about eight), the levels ±3 and ±10 pawns.
pub fn chart(
    evals: &[PlyEval],
    judged: &[Judged],
    positions: &[Position],
) -> tessera_render::graph::EvalChart {
    use tessera_render::graph::{ChartMark, Severity};
    let points = evals.iter().map(|e| e.eval.chances() as f32).collect();
    let marks = judged
        .iter()
        .filter_map(|j| {
            let severity = match j.class? {
                Class::Inaccuracy => Severity::Inaccuracy,
                Class::Mistake => Severity::Mistake,
                Class::Blunder => Severity::Blunder,
            };
            Some(ChartMark { index: j.ply, severity })
        })
        .collect();
    let moves = positions.last().map_or(1, |p| p.fullmoves()).max(1);
    let step = [1, 2, 5, 10, 20, 50, 100, 200, 500].into_iter().find(|s| moves / s <= 8).unwrap_or(1000);
    let mut labels = Vec::new();
    for (i, pos) in positions.iter().enumerate() {
        let n = pos.fullmoves();
        if pos.turn() == Color::White && n % step == 0 && i < evals.len() {
            labels.push((i, n.to_string()));
        }
    }
    let levels = [300, -300, 1000, -1000]
        .into_iter()
        .map(|cp| (winning_chances(cp) as f32, format!("{:+}", cp / 100)))
        .collect();
    tessera_render::graph::EvalChart { points, marks, labels, levels }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(ply: usize, eval: Eval) -> PlyEval {
        PlyEval { ply, eval, best: Some(format!("best{ply}")), depth: 10 }
    }

    #[test]
    fn winning_chances_follow_lichess() {
        assert!(winning_chances(0).abs() < 1e-12);
        // 2 / (1 + e^-0.368208) - 1 at one pawn.
        assert!((winning_chances(100) - 0.182_01).abs() < 1e-4, "{}", winning_chances(100));
        assert!((winning_chances(-100) + winning_chances(100)).abs() < 1e-12);
        // Capped at ten pawns.
        assert_eq!(winning_chances(5000), winning_chances(1000));
        assert!((Eval::Cp(0).win_percent() - 50.0).abs() < 1e-12);
        assert_eq!(Eval::Mate(3).chances(), 1.0);
        assert_eq!(Eval::Mate(-1).chances(), -1.0);
        assert_eq!(Eval::Won(Color::Black).chances(), -1.0);
    }

    #[test]
    fn thresholds_class_the_drop_in_winning_chances() {
        // White from level: a drop to the cp whose chances are just under/over each threshold.
        let cp_at = |chances: f64| -> i32 {
            // Inverse of the logistic, rounded toward level.
            let x = ((1.0 + chances) / (1.0 - chances)).ln() / 0.003_682_08;
            x.trunc() as i32
        };
        let just_under = |t: f64| Eval::Cp(-cp_at(t) + 1);
        let at_least = |t: f64| Eval::Cp(-cp_at(t) - 2);
        assert_eq!(judge(Color::White, Eval::Cp(0), just_under(0.1)).0, None);
        assert_eq!(judge(Color::White, Eval::Cp(0), at_least(0.1)).0, Some(Class::Inaccuracy));
        assert_eq!(judge(Color::White, Eval::Cp(0), just_under(0.2)).0, Some(Class::Inaccuracy));
        assert_eq!(judge(Color::White, Eval::Cp(0), at_least(0.2)).0, Some(Class::Mistake));
        assert_eq!(judge(Color::White, Eval::Cp(0), just_under(0.3)).0, Some(Class::Mistake));
        assert_eq!(judge(Color::White, Eval::Cp(0), at_least(0.3)).0, Some(Class::Blunder));
        // Black's drop is White's gain.
        assert_eq!(judge(Color::Black, Eval::Cp(0), Eval::Cp(400)).0, Some(Class::Blunder));
        assert_eq!(judge(Color::White, Eval::Cp(0), Eval::Cp(400)), (None, 0.0));
        // Beyond ten pawns nothing more is lost: +15 to +11 is no mistake.
        assert_eq!(judge(Color::White, Eval::Cp(1500), Eval::Cp(1100)).0, None);
        // The same pawn matters most near level.
        assert_eq!(judge(Color::White, Eval::Cp(50), Eval::Cp(-50)).0, Some(Class::Inaccuracy));
        assert_eq!(judge(Color::White, Eval::Cp(800), Eval::Cp(700)).0, None);
    }

    #[test]
    fn mates_are_judged_by_lichess_rules() {
        // Walking into a mate from a level game: a blunder; from a lost one: less.
        assert_eq!(judge(Color::White, Eval::Cp(20), Eval::Mate(-3)).0, Some(Class::Blunder));
        assert_eq!(judge(Color::White, Eval::Cp(-800), Eval::Mate(-3)).0, Some(Class::Mistake));
        assert_eq!(judge(Color::White, Eval::Cp(-1200), Eval::Mate(-3)).0, Some(Class::Inaccuracy));
        // Letting a mate go: still winning big is an inaccuracy, level is a blunder.
        assert_eq!(judge(Color::Black, Eval::Mate(-2), Eval::Cp(-1500)).0, Some(Class::Inaccuracy));
        assert_eq!(judge(Color::Black, Eval::Mate(-2), Eval::Cp(-800)).0, Some(Class::Mistake));
        assert_eq!(judge(Color::Black, Eval::Mate(-2), Eval::Cp(0)).0, Some(Class::Blunder));
        // From giving mate to getting mated.
        assert_eq!(judge(Color::White, Eval::Mate(4), Eval::Mate(-2)).0, Some(Class::Blunder));
        // Mating: never a mistake.
        assert_eq!(judge(Color::White, Eval::Mate(1), Eval::Won(Color::White)).0, None);
        assert_eq!(judge(Color::White, Eval::Mate(3), Eval::Mate(2)).0, None);
    }

    #[test]
    fn a_series_is_judged_turn_by_turn_with_the_better_turn() {
        let evals = [
            ev(0, Eval::Cp(20)),
            ev(1, Eval::Cp(30)),   // White: fine
            ev(2, Eval::Cp(900)),  // Black: blunder (hangs the queen)
            ev(3, Eval::Cp(-300)), // White: blunder back
            ev(4, Eval::Cp(-250)), // Black: fine
            ev(5, Eval::Mate(-2)), // White: walks into mate from -2.5: blunder
        ];
        let played: Vec<String> = ["e4", "Qh4", "a3", "Nf6", "b3"].map(String::from).to_vec();
        let judged = judge_all(Color::White, &played, &evals);
        assert_eq!(judged.len(), 5);
        let classes: Vec<Option<Class>> = judged.iter().map(|j| j.class).collect();
        assert_eq!(classes, [None, Some(Class::Blunder), Some(Class::Blunder), None, Some(Class::Blunder)]);
        assert_eq!(judged[1].mover, Color::Black);
        assert_eq!(judged[1].better.as_deref(), Some("best1"));
        let white = Tally::of(&judged, Color::White);
        let black = Tally::of(&judged, Color::Black);
        assert_eq!((white.blunders, white.mistakes, white.inaccuracies), (2, 0, 0));
        assert_eq!((black.blunders, black.mistakes, black.inaccuracies), (1, 0, 0));
        assert!(white.average_loss > black.average_loss);
        // The engine's own turn is never a mistake, whatever the numbers say.
        let mut same = evals.to_vec();
        same[1].best = Some("Qh4+".into());
        assert_eq!(judge_all(Color::White, &played, &same)[1].class, None);
    }

    #[test]
    fn evaluations_read_back_as_written() {
        for e in [Eval::Cp(-35), Eval::Cp(0), Eval::Mate(3), Eval::Mate(-1), Eval::Won(Color::Black)] {
            assert_eq!(Eval::parse(&e.text()), Some(e));
        }
        assert_eq!(Eval::parse("mate 0"), None);
        assert_eq!(Eval::parse("cp"), None);
        assert_eq!(Eval::from_score(Score::Cp(50), Color::Black), Eval::Cp(-50));
        assert_eq!(Eval::from_score(Score::Mate(2), Color::Black), Eval::Mate(-2));
        assert_eq!(Eval::from_score(Score::Mate(0), Color::White), Eval::Won(Color::Black));
        assert_eq!(Eval::Cp(-1234).graph_cp(), -GRAPH_CAP);
        assert_eq!(Eval::Mate(-4).graph_cp(), -GRAPH_CAP);
        assert_eq!(Eval::Cp(135).short(), "+1.35");
        assert_eq!(Eval::Cp(-20).short(), "-0.20");
    }
}
