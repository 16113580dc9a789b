//! Iterative-deepening principal-variation alpha-beta with a transposition table, killer and
//! history move ordering, late-move reductions, check extensions and a capture quiescence.

use std::time::Instant;

use tessera_rules::variant::StalemateRule;
use tessera_rules::{Action, Game, Move, Position, Role};

use crate::eval;
use crate::tt::{Bound, Table};
use crate::turns::{self, Width};
use crate::{Choice, Limits, Score};

pub(crate) const MATE: i32 = 30_000;
const INF: i32 = 32_000;
/// Scores beyond this are mates, counted in plies from the root.
const MATE_BOUND: i32 = MATE - 1_000;
const MAX_PLY: usize = 96;
/// The most legal turns the root searches all of.
const ROOT_ALL_UP_TO: usize = 3_000;
/// What a turn that undoes the mover's own recent square or king moves costs it: enough that a
/// square is not carried back and forth (`@e3-g3`, `@g3-e3`) or round in a circle for want of a
/// plan, little enough that a reversal the position needs (a line to block again) is still found.
const AIMLESS: i32 = 40;
/// How many of the mover's own earlier turns a trail is followed back through.
const TRAIL_TURNS: usize = 4;
/// What a draw by repetition or the 50-move count costs the side the search is for (and gains
/// the other): a player who means to win does not take a draw while it stands about even, so
/// of two engines shuffling squares one of them deviates instead of repeating.
const CONTEMPT: i32 = 25;
/// What a quiet turn is taken to change the evaluation by at most, a ply: the margin of the
/// selective search's cuts near the horizon.
const FUTILITY: i32 = 90;
/// The history scores' bound: a turn's score moves towards it by what each cut teaches.
const HISTORY_MAX: i32 = 16_384;
/// The first window of an iteration, either side of the last one's score.
const ASPIRATION: i32 = 30;

/// What the caller asks beyond the limits: a level's weakening, and the pruning switch.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Style {
    /// Up to this many centipawns of repeatable noise on every evaluation (weaker levels).
    pub noise: i32,
    pub seed: u64,
    /// Whether compound turns are pruned to the square actions that matter.
    pub prune: bool,
}

/// The search's long-lived memory: the table and the ordering statistics.
#[derive(Debug)]
pub(crate) struct Memory {
    pub table: Table,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
}

impl Memory {
    pub fn new(table_bits: u32) -> Memory {
        Memory { table: Table::new(table_bits), killers: vec![[None; 2]; MAX_PLY], history: vec![0; 64 * 64] }
    }

    /// A new game: nothing learnt of the last one applies.
    pub fn forget(&mut self) {
        self.table.clear();
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
    }
}

struct Run<'a> {
    memory: &'a mut Memory,
    style: Style,
    /// Keys of the game's earlier positions, then of the positions on the current path.
    path: Vec<u64>,
    deadline: Option<Instant>,
    /// How often the clock is read, as a mask of node counts: every node where one node can
    /// cost milliseconds (compound turns), more rarely elsewhere.
    clock_mask: u64,
    stopped: bool,
    nodes: u64,
    root_moves: Vec<Move>,
    root_best: Option<(Move, i32)>,
    /// The game's last turns, then the turns on the current path: for aimless turns.
    line: Vec<Move>,
    /// Move lists by ply, reused so that a node allocates nothing.
    buffers: Vec<Vec<Move>>,
    /// Whether the search may cut nodes on the evaluation's word (`selective`).
    selective: bool,
}

/// Whether a variant's search is selective: null moves, cuts near the horizon by the evaluation,
/// reductions by a turn's number and history, captures that lose material left out of the
/// quiescence. Where one action is a turn and the board does not move under the pieces (FIDE
/// chess, Quad-Square, Shrink): there the evaluation of a position is a fair guess at the
/// positions a quiet turn leads to. The Betza family, Blue Chip and Tiled Squares search every
/// turn to its depth as before: a square moved can change every line on the board, and their
/// ladders were measured so.
fn selective(pos: &Position) -> bool {
    pos.rules().only_pieces_move()
}

/// A late quiet turn's reduction, in plies: more the deeper the node and the later the turn.
fn late_reduction(depth: i32, index: usize) -> i32 {
    let r = 0.75 + (depth as f64).ln() * (index as f64).ln() / 2.25;
    r as i32
}

/// Whether the side to move has a piece besides pawns and king: without one, passing may be the
/// only thing it cannot afford (zugzwang), and the null move would be wrong.
fn has_pieces(pos: &Position) -> bool {
    let us = pos.by_color(pos.turn());
    (us & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King)).any()
}

/// Moves a history score towards the bound by `bonus` (negative: towards the other bound), less the
/// nearer it already is, so that recent lessons outweigh old ones.
fn credit(score: &mut i32, bonus: i32) {
    *score += bonus - *score * bonus.abs() / HISTORY_MAX;
}

/// Searches the game's position within `limits`.
pub(crate) fn run(memory: &mut Memory, game: &Game, limits: Limits, style: Style) -> Option<Choice> {
    if game.outcome().is_some() {
        return None;
    }
    let start = Instant::now();
    let pos = game.position();
    memory.table.age();
    // The game's earlier positions; the root's own key joins when the search enters it.
    let earlier = &game.positions()[..game.positions().len() - 1];
    let mut path = Vec::with_capacity(earlier.len() + MAX_PLY);
    path.extend(earlier.iter().map(Position::key));
    // The root sees every legal turn unless there are thousands (a Moving Occupied Squares
    // middlegame): there a turn missed cannot be made up for by any depth, and the opening turns
    // of the Postal family are won or lost by one square action.
    let mut root_moves = Vec::new();
    pos.legal_moves_into(&mut root_moves);
    if style.prune && root_moves.len() > ROOT_ALL_UP_TO {
        let mut pruned = Vec::new();
        turns::candidates(pos, Width::ROOT, &mut pruned);
        if !pruned.is_empty() {
            root_moves = pruned;
        }
    }
    let first = *root_moves.first()?;
    let mut run = Run {
        memory,
        style,
        path,
        deadline: limits.movetime.map(|t| start + t),
        clock_mask: if turns::compound(pos) || pos.has_named_locations() { 0 } else { 127 },
        stopped: false,
        nodes: 0,
        root_moves,
        root_best: None,
        line: game.moves()[game.moves().len().saturating_sub(2 * TRAIL_TURNS)..].to_vec(),
        buffers: Vec::new(),
        selective: selective(pos),
    };
    let max_depth = limits.depth.unwrap_or(MAX_PLY as u32 / 2).clamp(1, MAX_PLY as u32 / 2);
    let mut best = (first, 0);
    let mut depth_done = 0;
    for depth in 1..=max_depth {
        run.root_best = None;
        let score = run.root_search(pos, depth as i32, best.1);
        if run.stopped {
            // The last iteration's choice is searched first; a turn that became the root's best
            // after it was proved better, so an unfinished iteration's best is kept even so.
            if let Some(found) = run.root_best {
                best = found;
            }
            break;
        }
        best = (run.root_best.map_or(first, |b| b.0), score);
        depth_done = depth;
        // The best turn first in the next iteration.
        if let Some(i) = run.root_moves.iter().position(|m| *m == best.0) {
            run.root_moves[..=i].rotate_right(1);
        }
        if score.abs() > MATE_BOUND || run.root_moves.len() == 1 {
            break;
        }
        // Another iteration costs several times this one: not begun when it cannot end in time.
        // A selective search begins it with 40% of the time left: its first turn is the last
        // iteration's best, so even an unfinished iteration can only find a better one.
        if let Some(t) = limits.movetime
            && if run.selective { start.elapsed() * 5 > t * 3 } else { start.elapsed() * 3 > t }
        {
            break;
        }
    }
    let elapsed = start.elapsed().as_secs_f64().max(1e-6);
    Some(Choice {
        mv: best.0,
        depth: depth_done.max(1),
        nodes: run.nodes,
        nps: (run.nodes as f64 / elapsed) as u64,
        score: to_score(best.1),
    })
}

fn to_score(score: i32) -> Score {
    if score > MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        Score::Mate(-((MATE + score + 1) / 2))
    } else {
        Score::Cp(score)
    }
}

/// The score of a side to move without a legal turn: mated, or stalemated by the variant's rule.
fn no_turn_score(pos: &Position, ply: usize) -> i32 {
    let lost = -MATE + ply as i32;
    if pos.is_check() {
        return lost;
    }
    match pos.variant().stalemate() {
        StalemateRule::Draw => 0,
        StalemateRule::Loss => lost,
    }
}

/// A draw by repetition or the 50-move count, for the side to move at `ply`: the root's side
/// moves at even plies.
fn draw_score(ply: usize) -> i32 {
    if ply.is_multiple_of(2) { -CONTEMPT } else { CONTEMPT }
}

/// Mate scores are stored relative to the node, so they stay true wherever the node is met.
fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

fn history_index(mv: &Move) -> usize {
    let first = mv.first();
    first.from().index() * 64 + first.to().index()
}

fn is_quiet(mv: &Move) -> bool {
    !mv.is_capture() && mv.actions().all(|a| a.promotion().is_none())
}

/// What `mv` costs as an aimless turn: one that takes a square back where the mover's own
/// recent turns brought it from (`@e3-g3`, then `@g3-e3`; or round a circle, `@e3-g3`, `@g3-g5`,
/// `@g5-e3`), or walks a piece back to where it stood (`Qd1-e2`, then `Qe2-d1`): a turn spent to
/// undo one. `line` holds the turns played before `mv`, the mover's own every second one from
/// the end. Captures and promotions are never aimless.
pub(crate) fn aimless(line: &[Move], mv: &Move) -> i32 {
    let own_earlier = line.iter().rev().skip(1).step_by(2).take(TRAIL_TURNS);
    let mut cost = 0;
    for action in mv.actions() {
        let (from, to, square) = match action {
            Action::Shift { from, to, promotion: None } => (from, to, true),
            Action::Normal { from, to, capture: None, promotion: None, .. } => (from, to, false),
            _ => continue,
        };
        // Follow the trail of what stands at `from` back through the mover's recent turns: each
        // step is the latest of them that brought a square (or a piece) there.
        let mut at = from;
        for earlier in own_earlier.clone() {
            let came = earlier.actions().find_map(|a| match a {
                Action::Shift { from, to, .. } if square && to == at => Some(from),
                Action::Normal { from, to, .. } if !square && to == at => Some(from),
                _ => None,
            });
            let Some(came) = came else { continue };
            if came == to {
                cost = cost.max(if square { AIMLESS } else { AIMLESS / 2 });
                break;
            }
            at = came;
        }
    }
    cost
}

impl Run<'_> {
    /// One iteration at the root: in a selective search a narrow window around the last
    /// iteration's score first, widened on the side it fails until the score falls within.
    fn root_search(&mut self, pos: &Position, depth: i32, last: i32) -> i32 {
        if !self.selective || depth < 5 || last.abs() > MATE_BOUND {
            return self.search(pos, depth, -INF, INF, 0);
        }
        let mut delta = ASPIRATION;
        let (mut alpha, mut beta) = ((last - delta).max(-INF), (last + delta).min(INF));
        loop {
            let score = self.search(pos, depth, alpha, beta, 0);
            if self.stopped {
                return score;
            }
            delta *= 2;
            if score <= alpha {
                alpha = if delta > 500 { -INF } else { (score - delta).max(-INF) };
            } else if score >= beta {
                beta = if delta > 500 { INF } else { (score + delta).min(INF) };
            } else {
                return score;
            }
        }
    }

    fn out_of_time(&mut self) -> bool {
        if !self.stopped
            && self.nodes & self.clock_mask == 0
            && let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The turns searched below the root, or `Err` with the score of a side that has none.
    fn inner_turns(&self, pos: &Position, ply: usize, moves: &mut Vec<Move>) -> Result<(), i32> {
        let width = if self.style.prune { Width::INNER } else { Width::All };
        turns::candidates(pos, width, moves);
        if moves.is_empty() {
            // Pruning may have left nothing while a legal turn exists: then every turn.
            if !pos.has_legal_moves() {
                return Err(no_turn_score(pos, ply));
            }
            pos.legal_moves_into(moves);
        }
        Ok(())
    }

    /// Returns a ply's move list for reuse.
    fn give_back(&mut self, ply: usize, moves: Vec<Move>) {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        self.buffers[ply] = moves;
    }

    fn evaluate(&self, pos: &Position, key: u64) -> i32 {
        let score = eval::evaluate(pos);
        if self.style.noise == 0 {
            return score;
        }
        let spread = 2 * self.style.noise as u64 + 1;
        score + (splitmix(key ^ self.style.seed) % spread) as i32 - self.style.noise
    }

    fn repeated(&self, key: u64) -> bool {
        self.path.contains(&key)
    }

    fn order(&self, pos: &Position, moves: &mut [Move], tt_move: Option<Move>, ply: usize) {
        let killers = self.memory.killers[ply];
        moves.sort_by_cached_key(|mv| {
            let score = if Some(*mv) == tt_move {
                1_000_000
            } else if let Some(victim) = turns::victim(pos, mv) {
                let attacker = match mv.piece_action() {
                    Some(Action::Normal { role, .. }) => eval::value(pos, role),
                    _ => eval::PAWN,
                };
                200_000 + 10 * eval::value(pos, victim) - attacker / 10
            } else if mv.actions().any(|a| a.promotion() == Some(Role::Queen)) {
                190_000
            } else if killers[0] == Some(*mv) {
                180_000
            } else if killers[1] == Some(*mv) {
                179_000
            } else {
                self.memory.history[history_index(mv)].min(170_000)
            };
            -score
        });
    }

    fn search(&mut self, pos: &Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let root = ply == 0;
        let pv = beta - alpha > 1;
        let key = pos.key();
        if !root {
            if pos.insufficient_material() {
                return 0;
            }
            // A draw the opponent could claim (100 half-moves in chess), by the variant's count.
            if self.repeated(key) || pos.rules().claim_plies().is_some_and(|plies| pos.halfmoves() >= plies) {
                return draw_score(ply);
            }
            // No mate found further on can beat one already found nearer.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = pos.is_check();
        let mut depth = if in_check && ply < MAX_PLY / 2 { depth + 1 } else { depth };
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        let entry = self.memory.table.probe(key);
        let tt_move = entry.and_then(|e| e.mv);
        // A selective search takes no cut from the table on the principal variation, so that the
        // line it reports is searched, not remembered.
        if let Some(e) = entry
            && !root
            && !(pv && self.selective)
            && i32::from(e.depth) >= depth
        {
            let score = from_table(e.score, ply);
            match e.bound {
                Bound::Exact => return score,
                Bound::Lower if score >= beta => return score,
                Bound::Upper if score <= alpha => return score,
                _ => {}
            }
        }

        // In the selective search the position as it stands is a fair guess at what a quiet turn
        // keeps: off the principal variation, a node far above beta is cut, and one far below
        // alpha near the horizon looks at its captures and checks only.
        let cuttable = self.selective && !root && !in_check && !pv;
        let stand = if cuttable { self.evaluate(pos, key) } else { 0 };
        if cuttable && beta.abs() < MATE_BOUND {
            if depth <= 6 && stand - FUTILITY * depth >= beta {
                return stand;
            }
            // Null move: if passing still holds beta after a shallower search, a turn will.
            if depth >= 3
                && stand >= beta
                && has_pieces(pos)
                && let Some(passed) = pos.passed()
            {
                let reduction = 3 + depth / 4;
                self.path.push(key);
                let line = std::mem::take(&mut self.line);
                let score = -self.search(&passed, depth - 1 - reduction, -beta, -beta + 1, ply + 1);
                self.line = line;
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score > MATE_BOUND { beta } else { score };
                }
            }
        }
        // Without a turn from the table to try first, a shallower look costs less than a wrong
        // first turn.
        if self.selective && !root && depth >= 4 && tt_move.is_none() {
            depth -= 1;
        }

        let mut moves = self.buffers.get_mut(ply).map(std::mem::take).unwrap_or_default();
        if root {
            moves.clone_from(&self.root_moves);
        } else if let Err(score) = self.inner_turns(pos, ply, &mut moves) {
            self.give_back(ply, moves);
            return score;
        }
        if root {
            // The root keeps the order the last iteration left; the table's turn first.
            if let Some(i) = tt_move.and_then(|t| moves.iter().position(|m| *m == t)) {
                moves[..=i].rotate_right(1);
            }
        } else {
            self.order(pos, &mut moves, tt_move, ply);
        }

        self.path.push(key);
        let alpha_before = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut quiets_tried = 0;
        for (i, mv) in moves.iter().enumerate() {
            let quiet = is_quiet(mv);
            // Near the horizon, neither late quiet turns nor quiet turns that cannot lift a node
            // far below alpha unless they check are searched (once a turn has been, so a node is
            // never left empty).
            let prunable = cuttable && quiet && best > -MATE_BOUND;
            if prunable && depth <= 3 && quiets_tried >= 3 + 3 * depth as usize {
                continue;
            }
            let child = pos.played(mv);
            if prunable && depth <= 2 && stand + FUTILITY * (depth + 1) <= alpha && !child.is_check() {
                continue;
            }
            // An aimless turn is searched with the window moved by its cost, so that its score
            // less the cost is exact within (alpha, beta).
            let cost = if in_check { 0 } else { aimless(&self.line, mv) };
            let (a, b) = (alpha + cost, beta + cost);
            self.line.push(*mv);
            let mut score;
            if i == 0 {
                score = -self.search(&child, depth - 1, -b, -a, ply + 1);
            } else {
                let reduce = if depth >= 3 && i >= 3 && quiet && !in_check && !child.is_check() {
                    if self.selective {
                        let killer = self.memory.killers[ply].contains(&Some(*mv));
                        let mut r = late_reduction(depth, i) + i32::from(cost > 0);
                        r -= i32::from(pv) + i32::from(killer);
                        let h = self.memory.history[history_index(mv)];
                        r -= (h / 4_000).clamp(-2, 2);
                        r.clamp(0, depth - 2)
                    } else {
                        1 + i32::from(i >= 12) + i32::from(cost > 0)
                    }
                } else {
                    0
                };
                score = -self.search(&child, (depth - 1 - reduce).max(0), -a - 1, -a, ply + 1);
                if score > a && reduce > 0 && !self.stopped {
                    score = -self.search(&child, depth - 1, -a - 1, -a, ply + 1);
                }
                if score > a && score < b && !self.stopped {
                    score = -self.search(&child, depth - 1, -b, -a, ply + 1);
                }
            }
            self.line.pop();
            score -= cost;
            if self.stopped {
                break;
            }
            if quiet {
                quiets_tried += 1;
            }
            if score > best {
                best = score;
                best_move = Some(*mv);
                // At the root, a turn that failed low (an aspiration window's) is no choice.
                if root && (score > alpha || i == 0) {
                    self.root_best = Some((*mv, score));
                }
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if quiet {
                    let killers = &mut self.memory.killers[ply];
                    if killers[0] != Some(*mv) {
                        killers[1] = killers[0];
                        killers[0] = Some(*mv);
                    }
                    if self.selective {
                        let bonus = (depth * depth).min(400);
                        credit(&mut self.memory.history[history_index(mv)], bonus);
                        // The quiet turns tried before it did not cut: less likely next time.
                        for earlier in moves[..i].iter().filter(|m| is_quiet(m)) {
                            credit(&mut self.memory.history[history_index(earlier)], -bonus);
                        }
                    } else {
                        let h = &mut self.memory.history[history_index(mv)];
                        *h = (*h + depth * depth).min(160_000);
                    }
                }
                break;
            }
        }
        self.path.pop();
        self.give_back(ply, moves);
        if self.stopped {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_before {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.memory.table.store(key, best_move, to_table(best, ply), depth as i16, bound);
        best
    }

    fn quiesce(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize, qply: usize) -> i32 {
        let mut moves = self.buffers.get_mut(ply).map(std::mem::take).unwrap_or_default();
        let score = self.quiesce_with(pos, alpha, beta, ply, qply, &mut moves);
        self.give_back(ply, moves);
        score
    }

    fn quiesce_with(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: usize,
        moves: &mut Vec<Move>,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        if pos.insufficient_material() {
            return 0;
        }
        let key = pos.key();
        // In check near the horizon: every (pruned) answer, so a mate there is seen as one.
        if qply < 2 && pos.is_check() {
            if let Err(score) = self.inner_turns(pos, ply, moves) {
                return score;
            }
            self.order(pos, moves, None, ply.min(MAX_PLY - 1));
            let mut best = -INF;
            for mv in moves.iter() {
                let score = -self.quiesce(&pos.played(mv), -beta, -alpha, ply + 1, qply + 1);
                if self.stopped {
                    return 0;
                }
                best = best.max(score);
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
            return best;
        }
        // At the horizon, a side left without a legal turn is seen as mated or stalemated: in
        // the Betza family that is how most games are lost, and it is cheap to ask.
        if qply == 0 && !pos.has_legal_moves() {
            return no_turn_score(pos, ply);
        }
        let stand = self.evaluate(pos, key);
        if stand >= beta || ply >= MAX_PLY - 1 {
            return stand;
        }
        alpha = alpha.max(stand);
        turns::captures(pos, moves);
        self.order(pos, moves, None, ply.min(MAX_PLY - 1));
        let mut best = stand;
        for mv in moves.iter() {
            // A capture that cannot lift the score near alpha is not worth looking at.
            let gain = turns::victim(pos, mv).map_or(0, |v| eval::value(pos, v));
            if stand + gain + 200 < alpha {
                continue;
            }
            // Nor one that loses material once the square's defenders have had their say.
            if self.selective && turns::exchange(pos, mv).is_some_and(|g| g < 0) {
                continue;
            }
            let score = -self.quiesce(&pos.played(mv), -beta, -alpha, ply + 1, qply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }
}

/// A well-mixed 64-bit function of its input: the levels' repeatable noise.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
