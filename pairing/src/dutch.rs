//! The FIDE (Dutch) system, C.04.3 as applied from 1 July 2025, by weighted matching.
//!
//! Every criterion of the rules becomes a bit field of one edge weight, the more important the higher,
//! so that a maximum weight matching of all players to pair is the pairing the criteria prefer:
//!
//! * absolute criteria (no second game against the same opponent; two players with the same absolute
//!   colour preference never meet, except topscorers in the last round): the edge is left out;
//! * completion and the pairing-allocated bye: one unit per pair plus one per matched player who may not
//!   get the bye (already had a PAB or another unplayed full point), so the one left over may have it;
//! * then, bracket by bracket from the top: the number of pairs in the bracket, the scores of those
//!   paired (fewest and lowest downfloaters), the same for the next bracket, the unplayed games of the
//!   bye assignee, the colour criteria (topscorer colour difference, three in a row, preferences, strong
//!   preferences), repeated floats one and two rounds back (how many, then their scores).
//!
//! What the weights cannot say — which MDPs to pair when only some can be, the order of exchanges and of
//! transpositions — is then fixed one player at a time, each time nudging the lowest bits and solving
//! again, in the order the rules' generation of candidates would find them.

use std::collections::HashMap;

use crate::matching::{Matcher, Store};
use crate::tournament::{Colour, PointSystem, Points, RoundEntry, Tournament};
use crate::wide::{Weight, Wide};
use crate::{PairError, Pairings};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Float {
    Down,
    Up,
    None,
}

/// A player to pair, with everything the criteria look at.
#[derive(Clone, Debug)]
struct Entrant {
    id: u32,
    rank: usize,
    score: Points,
    preference: Option<Colour>,
    imbalance: u32,
    /// The colour of the last two played games when they were the same.
    repeated: Option<Colour>,
    strong: bool,
    played_games: u32,
    eligible_for_bye: bool,
    floats: [Float; 3],
    /// Colours of played games, most recent last.
    colours: Vec<Colour>,
}

impl Entrant {
    fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }
    fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }
}

fn bits(value: usize) -> u32 {
    usize::BITS - value.leading_zeros()
}

struct Setup {
    players: Vec<Entrant>,
    /// `forbidden[a]` holds the vertices `a` has already played.
    forbidden: Vec<Vec<bool>>,
    played_rounds: usize,
    last_round: bool,
    topscorer_threshold: Points,
    initial: Colour,
}

impl Setup {
    fn compatible(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.players[a], &self.players[b]);
        !self.forbidden[a][b]
            && (!pa.absolute()
                || !pb.absolute()
                || pa.preference != pb.preference
                || (self.last_round
                    && (pa.score > self.topscorer_threshold || pb.score > self.topscorer_threshold)))
    }
}

/// Builds the pairing problem: who is paired this round, and their histories.
fn setup(tournament: &Tournament) -> Result<Setup, PairError> {
    tournament.validate().map_err(PairError::Invalid)?;
    let played = tournament.played_rounds();
    if played >= tournament.total_rounds as usize {
        return Err(PairError::Invalid(crate::tournament::InvalidTournament::Finished {
            rounds: tournament.total_rounds,
        }));
    }
    let points = &tournament.points;
    let entry =
        |p: usize, r: usize| tournament.players[p].rounds.get(r).copied().unwrap_or(RoundEntry::blank());
    let n_all = tournament.players.len();
    // Players who were ever in a pairing, or are in this one, hold ranks; the rest are not in the event.
    let valid: Vec<bool> = (0..n_all)
        .map(|p| {
            let player = &tournament.players[p];
            player.entered_rounds() <= played || player.rounds.iter().any(RoundEntry::participated_in_pairing)
        })
        .collect();
    let scores: Vec<Points> = tournament.players.iter().map(|p| tournament.score_after(p, played)).collect();
    let score_back = |p: usize, back: usize| -> Points {
        let mut score = scores[p];
        for r in played - back..played {
            score -= points.points(&entry(p, r));
        }
        score
    };
    let mut entrants = Vec::new();
    let mut vertex_of = vec![usize::MAX; n_all];
    let mut rank = 0;
    for p in 0..n_all {
        if !valid[p] {
            continue;
        }
        let this_rank = rank;
        rank += 1;
        if tournament.players[p].entered_rounds() > played {
            continue;
        }
        let mut colours = Vec::new();
        let mut eligible = true;
        for r in 0..played {
            let e = entry(p, r);
            if e.is_played() {
                colours.extend(e.colour);
            } else if points.points(&e) >= points.win || (e.participated_in_pairing() && e.opponent.is_none())
            {
                eligible = false;
            }
        }
        let whites = colours.iter().filter(|&&c| c == Colour::White).count() as u32;
        let blacks = colours.len() as u32 - whites;
        let last = colours.last().copied();
        let run = colours.iter().rev().take_while(|&&c| Some(c) == last).count();
        let lower = if whites > blacks { Colour::Black } else { Colour::White };
        let imbalance = whites.abs_diff(blacks);
        let preference = if imbalance > 1 {
            Some(lower)
        } else if run > 1 {
            last.map(Colour::invert)
        } else if imbalance > 0 {
            Some(lower)
        } else {
            last.map(Colour::invert)
        };
        let repeated = if run > 1 { last } else { None };
        let absolute = imbalance > 1 || repeated.is_some();
        let mut floats = [Float::None; 3];
        for (back, float) in floats.iter_mut().enumerate().skip(1) {
            if back > played {
                break;
            }
            let e = entry(p, played - back);
            *float = if !e.is_played() {
                if points.points(&e) > points.loss { Float::Down } else { Float::None }
            } else {
                let opponent = e.opponent.map_or(p, |o| o as usize - 1);
                let (mine, theirs) = (score_back(p, back), score_back(opponent, back));
                match mine.cmp(&theirs) {
                    std::cmp::Ordering::Greater => Float::Down,
                    std::cmp::Ordering::Less => Float::Up,
                    std::cmp::Ordering::Equal => Float::None,
                }
            };
        }
        vertex_of[p] = entrants.len();
        entrants.push(Entrant {
            id: p as u32 + 1,
            rank: this_rank,
            score: scores[p],
            preference,
            imbalance,
            repeated,
            strong: !absolute && imbalance != 0,
            played_games: colours.len() as u32,
            eligible_for_bye: eligible,
            floats,
            colours,
        });
    }
    // Sort by score, then rank; vertices are positions in this order.
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by_key(|&v| (std::cmp::Reverse(entrants[v].score), entrants[v].rank));
    let mut position = vec![0; entrants.len()];
    for (pos, &v) in order.iter().enumerate() {
        position[v] = pos;
    }
    let players: Vec<Entrant> = order.iter().map(|&v| entrants[v].clone()).collect();
    let n = players.len();
    let mut forbidden = vec![vec![false; n]; n];
    for (pos, player) in players.iter().enumerate() {
        let p = player.id as usize - 1;
        for r in 0..played {
            let e = entry(p, r);
            if let (true, Some(o)) = (e.is_played(), e.opponent) {
                let v = vertex_of[o as usize - 1];
                if v != usize::MAX {
                    forbidden[pos][position[v]] = true;
                    forbidden[position[v]][pos] = true;
                }
            }
        }
    }
    let initial = tournament
        .initial_colour
        .or_else(|| infer_initial_colour(tournament, &valid))
        .unwrap_or(Colour::White);
    Ok(Setup {
        players,
        forbidden,
        played_rounds: played,
        last_round: played + 1 >= tournament.total_rounds as usize,
        topscorer_threshold: (played as Points * points.win.max(points.draw)) / 2,
        initial,
    })
}

/// The colour the first-ranked player had in the first round where anyone had a colour, from the
/// first player (by start number) who was in that round's pairing, alternating by position.
fn infer_initial_colour(tournament: &Tournament, valid: &[bool]) -> Option<Colour> {
    let first_round = tournament
        .players
        .iter()
        .enumerate()
        .filter(|(p, _)| valid[*p])
        .filter_map(|(_, player)| player.rounds.iter().position(|e| e.colour.is_some()))
        .min()?;
    let mut position = 0;
    for player in &tournament.players {
        let took_part = player.rounds.iter().take(first_round + 1).any(RoundEntry::participated_in_pairing);
        if took_part {
            if let Some(colour) = player.rounds.get(first_round).and_then(|e| e.colour) {
                return Some(if position % 2 == 1 { colour.invert() } else { colour });
            }
            position += 1;
        }
    }
    None
}

const NONE: usize = usize::MAX;

/// The edge weights (times four) without an `n²` table of wide weights. An edge outside the bracket
/// being paired has a weight made of per-player parts (completion, the pairing-allocated bye), computed
/// when asked; a fixed pair has its own edge and no other; only the edges among the bracket's players
/// (and any player whose edges were set otherwise) are kept in a table.
struct Weights<W> {
    n: usize,
    /// The pairs who have played each other, a bit per ordered pair.
    played: Vec<u64>,
    /// Zero, or a code of the absolute colour preference: two players with the same code never meet.
    colour_code: Vec<u8>,
    /// An outside edge weighs `constant + part[a] + part[b]`, plus `top_unit` when the lower of the
    /// two is `high`.
    constant: W,
    part: Vec<W>,
    top_unit: W,
    high: Vec<bool>,
    /// The mate of a fixed player.
    fixed: Vec<usize>,
    max4: W,
    /// Position in `local` of each vertex, or `NONE`.
    local_of: Vec<usize>,
    local: Vec<usize>,
    /// Weights among `local`, by rows: the lowest 64 bits, and the rest from `palette` (the rest of
    /// a weight takes few values, so this keeps the table small).
    table_low: Vec<u64>,
    table_high: Vec<u32>,
    palette: Palette<W>,
    /// The palette index of zero.
    zero_high: u32,
    /// Edges set outside the table (never, as the pairing runs; kept so that nothing is lost).
    exceptions: HashMap<(usize, usize), W>,
}

impl<W: Weight> Weights<W> {
    fn new(setup: &Setup, max: W) -> Self {
        let n = setup.players.len();
        let mut played = vec![0u64; (n * n).div_ceil(64)];
        for a in 0..n {
            for b in 0..n {
                if setup.forbidden[a][b] {
                    let bit = a * n + b;
                    played[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        let colour_code = setup
            .players
            .iter()
            .map(|p| {
                let exempt = setup.last_round && p.score > setup.topscorer_threshold;
                match p.preference {
                    _ if exempt || !p.absolute() => 0,
                    Some(Colour::White) => 1,
                    Some(Colour::Black) => 2,
                    None => 3,
                }
            })
            .collect();
        Weights {
            n,
            played,
            colour_code,
            constant: W::zero(),
            part: vec![W::zero(); n],
            top_unit: W::zero(),
            high: vec![false; n],
            fixed: vec![NONE; n],
            max4: max.shl(2),
            local_of: vec![NONE; n],
            local: Vec::new(),
            table_low: Vec::new(),
            table_high: Vec::new(),
            palette: Palette { values: vec![W::zero()], index: HashMap::from([(W::zero(), 0)]) },
            zero_high: 0,
            exceptions: HashMap::new(),
        }
    }

    #[inline(always)]
    fn compatible(&self, a: usize, b: usize) -> bool {
        let bit = a * self.n + b;
        let code = self.colour_code[a];
        self.played[bit / 64] & (1 << (bit % 64)) == 0 && (code == 0 || code != self.colour_code[b])
    }

    /// The weight of an edge outside the table.
    #[inline(always)]
    fn outside(&self, a: usize, b: usize) -> W {
        if !self.exceptions.is_empty() {
            let key = (a.min(b), a.max(b));
            if let Some(&w) = self.exceptions.get(&key) {
                return w;
            }
        }
        if self.fixed[a] != NONE || self.fixed[b] != NONE {
            return if self.fixed[a] == b { self.max4 } else { W::zero() };
        }
        self.free(a, b)
    }

    /// The weight of an edge between two players neither fixed nor in the table.
    #[inline(always)]
    fn free(&self, a: usize, b: usize) -> W {
        if !self.compatible(a, b) {
            return W::zero();
        }
        let w = self.constant.wrapping_add(self.part[a]).wrapping_add(self.part[b]);
        if self.high[a.max(b)] { w.wrapping_add(self.top_unit) } else { w }
    }

    /// The per-player parts of the outside weights.
    fn clone_outside(&self) -> Outside<W> {
        Outside {
            constant: self.constant,
            part: self.part.clone(),
            top_unit: self.top_unit,
            high: self.high.clone(),
        }
    }

    /// [`Weights::free`] with other parts.
    fn free_with(&self, parts: &Outside<W>, a: usize, b: usize) -> W {
        if !self.compatible(a, b) {
            return W::zero();
        }
        let w = parts.constant.wrapping_add(parts.part[a]).wrapping_add(parts.part[b]);
        if parts.high[a.max(b)] { w.wrapping_add(parts.top_unit) } else { w }
    }

    #[inline]
    fn is_local(&self, a: usize, b: usize) -> bool {
        self.local_of[a] != NONE && self.local_of[b] != NONE
    }

    /// Fixes the pair `a`–`b`, whose edges have been set in the table or are told by `fixed`.
    fn fix(&mut self, a: usize, b: usize) {
        self.fixed[a] = b;
        self.fixed[b] = a;
        if !self.exceptions.is_empty() {
            self.exceptions.retain(|&(p, q), _| p != a && p != b && q != a && q != b);
        }
    }

    /// Keeps the edges among `vertices` in the table (the weights themselves do not change).
    fn localize(&mut self, vertices: &[usize]) {
        let mut keep = vec![false; self.n];
        for &v in vertices {
            keep[v] = true;
        }
        // A player leaving the table whose edges differ from what they would be outside stays.
        let m = self.local.len();
        for i in 0..m {
            for j in 0..i {
                let (x, y) = (self.local[i], self.local[j]);
                if !(keep[x] && keep[y]) && self.table_get(i * m + j) != self.outside(x, y) {
                    keep[x] = true;
                    keep[y] = true;
                }
            }
        }
        let local: Vec<usize> = (0..self.n).filter(|&v| keep[v]).collect();
        let k = local.len();
        let mut table_low = vec![0; k * k];
        let mut table_high = vec![0; k * k];
        for (i, &x) in local.iter().enumerate() {
            for (j, &y) in local.iter().enumerate().take(i) {
                let w = if self.is_local(x, y) {
                    self.table_get(self.local_of[x] * m + self.local_of[y])
                } else {
                    self.outside(x, y)
                };
                let high = self.palette.intern(w);
                table_low[i * k + j] = w.low();
                table_low[j * k + i] = w.low();
                table_high[i * k + j] = high;
                table_high[j * k + i] = high;
            }
        }
        let zero = self.palette.intern(W::zero());
        for i in 0..k {
            table_high[i * k + i] = zero;
        }
        for &v in &self.local {
            self.local_of[v] = NONE;
        }
        for (i, &v) in local.iter().enumerate() {
            self.local_of[v] = i;
        }
        self.local = local;
        self.table_low = table_low;
        self.table_high = table_high;
    }

    #[inline(always)]
    fn table_get(&self, at: usize) -> W {
        self.palette.values[self.table_high[at] as usize].with_low(self.table_low[at])
    }

    fn table_set(&mut self, at: usize, w: W) {
        self.table_high[at] = self.palette.intern(w);
        self.table_low[at] = w.low();
    }
}

/// The distinct values of weights without their lowest 64 bits.
struct Palette<W> {
    values: Vec<W>,
    index: HashMap<W, u32>,
}

impl<W: Weight> Palette<W> {
    /// The index of `w` without its lowest 64 bits.
    fn intern(&mut self, w: W) -> u32 {
        let high = w.with_low(0);
        *self.index.entry(high).or_insert_with(|| {
            self.values.push(high);
            (self.values.len() - 1) as u32
        })
    }
}

/// A row of [`Weights`]: its vertex, its dual, and the dual less the vertex's outside parts.
struct WeightsRow<W> {
    v: usize,
    yv: W,
    base: W,
    /// `local_of[v]`.
    local: usize,
    /// Whether an edge of `v` outside the table weighs `constant + part[v] + part[w]` when allowed.
    fast: bool,
    code: u8,
    /// The first bit of `v`'s row in `played`.
    played: usize,
}

/// The per-player parts of outside weights.
struct Outside<W> {
    constant: W,
    part: Vec<W>,
    top_unit: W,
    high: Vec<bool>,
}

impl<W: Weight> Store<W> for Weights<W> {
    #[inline(always)]
    fn get(&self, a: usize, b: usize) -> W {
        let (la, lb) = (self.local_of[a], self.local_of[b]);
        if la != NONE && lb != NONE {
            return self.table_get(la * self.local.len() + lb);
        }
        self.outside(a, b)
    }

    type Row = WeightsRow<W>;

    #[inline]
    fn row(&self, v: usize, yv: W) -> WeightsRow<W> {
        WeightsRow {
            v,
            yv,
            base: yv.wrapping_sub(self.constant).wrapping_sub(self.part[v]),
            local: self.local_of[v],
            fast: self.exceptions.is_empty() && self.fixed[v] == NONE && self.top_unit.is_zero(),
            code: self.colour_code[v],
            played: v * self.n,
        }
    }

    #[inline(always)]
    fn slack(&self, row: &WeightsRow<W>, w: usize, yw: W) -> Option<W> {
        let v = row.v;
        let (lv, lw) = (row.local, self.local_of[w]);
        if row.fast && lw == NONE && self.fixed[w] == NONE {
            let bit = row.played + w;
            let code = self.colour_code[w];
            if self.played[bit / 64] & (1 << (bit % 64)) != 0 || (code != 0 && code == row.code) {
                return None;
            }
            return Some(row.base.add_sub(yw, self.part[w]));
        }
        let weight = if lv != NONE && lw != NONE {
            let at = lv * self.local.len() + lw;
            let (low, high) = (self.table_low[at], self.table_high[at]);
            if low == 0 && high == self.zero_high {
                return None;
            }
            self.palette.values[high as usize].with_low(low)
        } else if self.exceptions.is_empty()
            && self.fixed[v] == NONE
            && self.fixed[w] == NONE
            && !self.high[v.max(w)]
        {
            if !self.compatible(v, w) {
                return None;
            }
            return Some(row.base.add_sub(yw, self.part[w]));
        } else {
            self.outside(v, w)
        };
        if weight.is_zero() { None } else { Some(row.yv.add_sub(yw, weight)) }
    }

    fn put(&mut self, a: usize, b: usize, w: W) {
        let (la, lb) = (self.local_of[a], self.local_of[b]);
        if la != NONE && lb != NONE {
            let m = self.local.len();
            self.table_set(la * m + lb, w);
            self.table_set(lb * m + la, w);
        } else {
            self.exceptions.insert((a.min(b), a.max(b)), w);
        }
    }
}

/// The edge weights of all vertices and the current optimum, kept between solves.
struct Graph<W: Weight> {
    n: usize,
    matcher: Matcher<W, Weights<W>>,
}

impl<W: Weight> Graph<W> {
    fn set(&mut self, a: usize, b: usize, w: W) {
        self.matcher.set(a, b, w);
    }
    fn solve(&mut self) {
        self.matcher.solve();
    }
    fn weights(&mut self) -> &mut Weights<W> {
        self.matcher.store_mut()
    }
    /// Fixes the pair `a`–`b`: their edge outweighs everything, their other edges go.
    fn finalize(&mut self, a: usize, b: usize) {
        let max4 = self.matcher.store().max4;
        let mut pair_done = false;
        for u in 0..self.n {
            if u != a {
                self.change(a, u, b, max4, &mut pair_done);
            }
            if u != b {
                self.change(b, u, a, max4, &mut pair_done);
            }
        }
        self.weights().fix(a, b);
        self.matcher.retire(a);
        self.matcher.retire(b);
    }
    /// One edge of [`Graph::finalize`], as `set` would make it: `x`'s edge to `u`, `x` to be fixed
    /// with `mate`.
    fn change(&mut self, x: usize, u: usize, mate: usize, max4: W, pair_done: &mut bool) {
        let pair = u == mate;
        let w = if pair { max4 } else { W::zero() };
        let old = if pair && *pair_done { max4 } else { self.matcher.store().get(x, u) };
        if old == w {
            return;
        }
        if self.matcher.store().is_local(x, u) {
            self.weights().put(x, u, w);
        }
        if pair {
            *pair_done = true;
        }
        self.matcher.note(x, u, w);
    }
}

/// Field widths of the edge weight.
struct Layout {
    /// Bits for a count within one scoregroup.
    group: u32,
    /// Bits for a set of per-scoregroup counts.
    groups: u32,
    /// Offset of each scoregroup's count, by vertex.
    shift: Vec<u32>,
    /// Total bits below the two-bit completion field.
    total: u32,
}

impl Layout {
    fn new(setup: &Setup) -> Layout {
        let players = &setup.players;
        let mut shift = vec![0; players.len()];
        let mut groups = 0;
        let mut largest = 0;
        let mut end = players.len();
        while end > 0 {
            let score = players[end - 1].score;
            let start = players[..end].iter().rposition(|p| p.score != score).map_or(0, |i| i + 1);
            for s in &mut shift[start..end] {
                *s = groups;
            }
            groups += bits(end - start);
            largest = largest.max(end - start);
            end = start;
        }
        let group = bits(largest).max(1);
        let mut total = 2 * group + 2 * groups + 2 * group + 4 * group + 3 * group + 1;
        if setup.played_rounds >= 1 {
            total += 2 * group + 2 * groups;
        }
        if setup.played_rounds >= 2 {
            total += 2 * group + 2 * groups;
        }
        Layout { group, groups: groups.max(1), shift, total }
    }
}

struct ByeState {
    score: Points,
    single_downfloater: bool,
    unplayed_rank: HashMap<u32, u64>,
}

struct Engine<'a, W: Weight> {
    setup: &'a Setup,
    layout: Layout,
    graph: Graph<W>,
}

impl<W: Weight> Engine<'_, W> {
    /// The weight of pairing `h` (higher) with `l` (lower), or zero when they may not meet.
    fn edge_weight(&self, h: usize, l: usize, in_current: bool, in_next: bool, bye: &ByeState) -> W {
        let s = self.setup;
        if !s.compatible(h, l) {
            return W::zero();
        }
        let (ph, pl) = (&s.players[h], &s.players[l]);
        let (g, gs) = (self.layout.group, self.layout.groups);
        let shift = &self.layout.shift;
        let candidate = |p: &Entrant| p.eligible_for_bye && p.score <= bye.score;
        let flag = |b: bool| W::from_u64(u64::from(b));
        let mut w = W::from_u64(1 + u64::from(!candidate(ph)) + u64::from(!candidate(pl)));
        w = w.shl(g).or(flag(in_current));
        w = w.shl(gs);
        if in_current {
            w = w.or(W::pow2(shift[h]));
        }
        w = w.shl(g).or(flag(in_next));
        w = w.shl(gs);
        if in_next {
            w = w.or(W::pow2(shift[h]));
        }
        w = w.shl(2 * g);
        if bye.single_downfloater {
            if ph.score == bye.score {
                w = w.or(W::from_u64(bye.unplayed_rank[&ph.played_games]));
            }
            if pl.score == bye.score {
                w = w.add_u64(bye.unplayed_rank[&pl.played_games]);
            }
        }
        // Colour criteria, only for pairs inside the bracket.
        let same = pl.preference == ph.preference;
        let c1 = !pl.absolute_imbalance() || !ph.absolute_imbalance() || !same;
        let c2 = !pl.absolute()
            || !ph.absolute()
            || !same
            || if pl.imbalance == ph.imbalance {
                pl.repeated.is_none() || pl.repeated != ph.repeated
            } else {
                let yielding = if pl.imbalance > ph.imbalance { ph } else { pl };
                yielding.repeated != pl.preference.map(Colour::invert)
            };
        let c3 = !same || pl.preference.is_none() || ph.preference.is_none();
        let c4 = (!pl.strong && !pl.absolute())
            || (!ph.strong && !ph.absolute())
            || (pl.absolute() && ph.absolute())
            || !same;
        for c in [c1, c2, c3, c4] {
            w = w.shl(g).or(flag(in_current && c));
        }
        let down = |p: &Entrant, back: usize| p.floats[back] == Float::Down;
        let up = |p: &Entrant, back: usize| p.floats[back] == Float::Up;
        let same_score = ph.score <= pl.score;
        let rounds: Vec<usize> = (1..=2).filter(|&b| s.played_rounds >= b).collect();
        for &back in &rounds {
            w = w.shl(g);
            if in_current {
                w = w.or(flag(down(pl, back))).add_u64(u64::from(same_score && down(ph, back)));
            }
            w = w.shl(g);
            if in_current {
                w = w.or(flag(same_score || !up(pl, back)));
            }
        }
        for &back in &rounds {
            w = w.shl(gs);
            if in_current {
                if down(pl, back) {
                    w = w.wrapping_add(W::pow2(shift[l]));
                }
                if down(ph, back) {
                    w = w.wrapping_add(W::pow2(shift[h]));
                }
            }
            w = w.shl(gs);
            if in_current && (same_score || !up(pl, back)) {
                w = w.or(W::pow2(shift[h]));
            }
        }
        // Room for the order of exchanges and transpositions.
        w.shl(3 * g + 1)
    }

    /// The weights of edges outside the bracket (times four), as [`Engine::edge_weight`] makes them.
    fn outside_weights(&mut self, bye: &ByeState) {
        let s = self.setup;
        let (g, gs) = (self.layout.group, self.layout.groups);
        let rounds = s.played_rounds.min(2) as u32;
        let bye_at = 4 * g + rounds * (2 * g + 2 * gs) + 3 * g + 1 + 2;
        let completion_at = bye_at + 4 * g + 2 * gs;
        let weights = self.graph.weights();
        weights.constant = W::pow2(completion_at);
        weights.top_unit = W::zero();
        for (v, p) in s.players.iter().enumerate() {
            let candidate = p.eligible_for_bye && p.score <= bye.score;
            let mut part = if candidate { W::zero() } else { W::pow2(completion_at) };
            if bye.single_downfloater && p.score == bye.score {
                part = part.wrapping_add(W::from_u64(bye.unplayed_rank[&p.played_games]).shl(bye_at));
            }
            weights.part[v] = part;
            weights.high[v] = false;
        }
    }

    /// Checks the outside weights against the rules' weights (debug builds, small cases).
    #[cfg(debug_assertions)]
    fn check_outside(&self, weight: impl Fn(&Self, usize, usize) -> W) {
        let n = self.setup.players.len();
        if n > 80 {
            return;
        }
        for l in 1..n {
            for h in 0..l {
                let expected = weight(self, h, l).shl(2);
                assert_eq!(self.graph.matcher.store().free(h, l), expected, "outside weight {h}-{l}");
            }
        }
    }

    fn mate(&self, v: usize) -> usize {
        self.graph.matcher.mate(v)
    }

    fn run(&mut self) -> Result<Vec<usize>, PairError> {
        let s = self.setup;
        let n = s.players.len();
        let (g, gs) = (self.layout.group, self.layout.groups);
        let top = s.players[0].score;
        let no_bye = ByeState { score: 0, single_downfloater: false, unplayed_rank: HashMap::new() };
        // First a matching that only asks whether a pairing exists, and at which score the bye falls.
        if n % 2 == 1 {
            let weights = self.graph.weights();
            weights.constant = W::pow2(gs + g + 2);
            for v in 0..n {
                let p = &s.players[v];
                weights.part[v] = W::from_u64(u64::from(!p.eligible_for_bye))
                    .shl(gs + g + 2)
                    .wrapping_add(W::from_u64(u64::from(self.layout.shift[v])).shl(g + 2));
                weights.high[v] = p.score >= top;
            }
            weights.top_unit = W::from_u64(4);
        } else {
            self.outside_weights(&no_bye);
        }
        #[cfg(debug_assertions)]
        self.check_outside(|engine, h, l| {
            if n.is_multiple_of(2) {
                return engine.edge_weight(h, l, false, false, &no_bye);
            }
            if !s.compatible(h, l) {
                return W::zero();
            }
            let (ph, pl) = (&s.players[h], &s.players[l]);
            let w = W::from_u64(1 + u64::from(!ph.eligible_for_bye) + u64::from(!pl.eligible_for_bye));
            w.shl(gs)
                .or(W::from_u64(u64::from(engine.layout.shift[l] + engine.layout.shift[h])))
                .shl(g)
                .or(W::from_u64(u64::from(pl.score >= top)))
        });
        self.graph.solve();
        let unmatched: Vec<usize> = (0..n).filter(|&v| self.mate(v) == v).collect();
        if unmatched.len() > 1 || unmatched.iter().any(|&v| !s.players[v].eligible_for_bye) {
            return Err(PairError::NoValidPairing);
        }
        let mut bye = no_bye;
        if let Some(&v) = unmatched.first() {
            bye.score = s.players[v].score;
            bye.single_downfloater = bye.score >= top
                && (0..n)
                    .take_while(|&u| s.players[u].score >= top)
                    .all(|u| s.players[self.mate(u)].score >= top);
            let mut games: Vec<u32> =
                s.players.iter().filter(|p| p.score == bye.score).map(|p| p.played_games).collect();
            games.sort_unstable_by(|a, b| b.cmp(a));
            for (rank, &played) in games.iter().enumerate() {
                bye.unplayed_rank.insert(played, rank as u64);
            }
            let old = self.graph.matcher.store().clone_outside();
            self.outside_weights(&bye);
            #[cfg(debug_assertions)]
            self.check_outside(|engine, h, l| engine.edge_weight(h, l, false, false, &bye));
            let new = self.graph.matcher.store().clone_outside();
            for l in 1..n {
                for h in 0..l {
                    let weights = self.graph.matcher.store();
                    let (before, after) = (weights.free_with(&old, h, l), weights.free_with(&new, h, l));
                    if before != after {
                        self.graph.matcher.note(h, l, after);
                    }
                }
            }
        }

        let mut pairs = vec![usize::MAX; n];
        let mut matched = vec![false; n];
        let mut next = (0..n).find(|&v| s.players[v].score < top).unwrap_or(n);
        let mut bracket: Vec<usize> = (0..next).collect();
        let mut mdps = 0;
        let mut group_begin = 0;
        let mut guard = 0;
        while bracket.len() > 1 || next < n {
            guard += 1;
            if guard > 2 * n + 2 {
                return Err(PairError::NoValidPairing);
            }
            let current_end = bracket.len();
            let next_begin = group_begin + (current_end - mdps);
            let group_start = next;
            while next < n && s.players[next].score >= s.players[group_start].score {
                bracket.push(next);
                next += 1;
            }
            self.graph.weights().localize(&bracket);
            let mut base: Vec<Vec<W>> = vec![Vec::new(); bracket.len()];
            for larger in mdps..bracket.len() {
                base[larger] = (0..larger)
                    .map(|smaller| {
                        self.edge_weight(
                            bracket[smaller],
                            bracket[larger],
                            larger < current_end,
                            larger >= current_end,
                            &bye,
                        )
                    })
                    .collect();
                for smaller in 0..larger {
                    self.graph.set(bracket[larger], bracket[smaller], base[larger][smaller]);
                }
            }
            self.graph.solve();
            let resident = |v: usize| v >= group_begin && v < next_begin;

            // Which MDPs are paired: as many as possible, the highest first.
            let mut md_score = 0;
            let mut md_left = 0;
            let mut md_matched = 0;
            for i in 0..mdps {
                let v = bracket[i];
                if i == 0 || s.players[v].score < md_score {
                    md_score = s.players[v].score;
                    md_left = 0;
                    md_matched = 0;
                    for &u in bracket[i..].iter().take_while(|&&u| s.players[u].score >= md_score) {
                        md_left += 1;
                        if resident(self.mate(u)) {
                            md_matched += 1;
                        }
                    }
                }
                if md_matched == 0 {
                    continue;
                }
                if md_left <= md_matched {
                    matched[v] = true;
                    continue;
                }
                md_left -= 1;
                if !resident(self.mate(v)) {
                    for opp in mdps..current_end {
                        let w = base[opp][i];
                        if !w.is_zero() {
                            self.graph.set(v, bracket[opp], w.or(W::from_u64(1)));
                        }
                    }
                    self.graph.solve();
                }
                if resident(self.mate(v)) {
                    matched[v] = true;
                    md_matched -= 1;
                    for opp in mdps..current_end {
                        let w = base[opp][i];
                        if !w.is_zero() {
                            let bonus = (current_end - mdps) as u64;
                            self.graph.set(v, bracket[opp], w.or(W::from_u64(bonus)).add_u64(1));
                        }
                    }
                }
            }
            // Their opponents: the highest resident each can have, MDPs in order.
            for i in 0..mdps {
                let v = bracket[i];
                if !matched[v] {
                    continue;
                }
                let mut addend = bracket.len() as u64;
                for opp in (mdps..current_end).rev() {
                    let u = bracket[opp];
                    if matched[u] {
                        continue;
                    }
                    let w = base[opp][i];
                    if !w.is_zero() {
                        self.graph.set(v, u, w.add_u64(addend));
                        addend += 1;
                    }
                }
                self.graph.solve();
                let m = self.mate(v);
                matched[m] = true;
                self.graph.finalize(v, m);
            }

            // The remainder (or the homogeneous bracket): S1 is its first `pairs_in` players.
            let mut remainder = Vec::new();
            let mut pairs_in = 0;
            for idx in mdps..current_end {
                let v = bracket[idx];
                if self.mate(v) < group_begin {
                    continue;
                }
                remainder.push(idx);
                if self.mate(v) < v {
                    pairs_in += 1;
                }
            }
            let weight_in = |base: &Vec<Vec<W>>, smaller: usize, larger: usize, position: usize| -> W {
                let w = base[larger][smaller];
                if w.is_zero() {
                    return w;
                }
                let in_s1 = u64::from(position < pairs_in);
                // Fewest exchanges, then the smallest differences of the exchanged numbers.
                w.wrapping_add(W::from_u64(in_s1).shl(2 * g + 1)).sub_u64(2 * position as u64)
            };
            for (oi, &opp) in remainder.iter().enumerate() {
                for (pi, &pl) in remainder[..oi].iter().enumerate() {
                    let w = weight_in(&base, pl, opp, pi);
                    self.graph.set(bracket[pl], bracket[opp], w);
                }
            }
            self.graph.solve();
            let down_in_bracket = |mate: usize, v: usize| mate > v && mate < next_begin;
            let exchanges = remainder[..pairs_in]
                .iter()
                .filter(|&&idx| !down_in_bracket(self.mate(bracket[idx]), bracket[idx]))
                .count();

            // Exchange the lowest players of S1 first.
            let mut left = exchanges;
            let mut pos = pairs_in;
            while pos > 0 && left > 0 {
                let after = pos;
                pos -= 1;
                let pl = remainder[pos];
                let v = bracket[pl];
                if down_in_bracket(self.mate(v), v) {
                    for &opp in &remainder[after..] {
                        let w = weight_in(&base, pl, opp, pos);
                        if !w.is_zero() {
                            self.graph.set(v, bracket[opp], w.sub_u64(1));
                        }
                    }
                    self.graph.solve();
                }
                let exchange = !down_in_bracket(self.mate(v), v);
                left -= usize::from(exchange);
                for &opp in &remainder[pos + 1..] {
                    if exchange {
                        base[opp][pl] = W::zero();
                    }
                    let w = weight_in(&base, pl, opp, pos);
                    self.graph.set(v, bracket[opp], w);
                }
            }
            // ... with the highest players of S2.
            let mut left = exchanges;
            let mut pos = pairs_in;
            while pos < remainder.len() && left > 1 {
                let pl = remainder[pos];
                let v = bracket[pl];
                let already = down_in_bracket(self.mate(v), v);
                if !already {
                    for &opp in &remainder[pos + 1..] {
                        let w = weight_in(&base, pl, opp, pos);
                        if !w.is_zero() {
                            self.graph.set(v, bracket[opp], w.add_u64(1));
                        }
                    }
                    self.graph.solve();
                }
                if down_in_bracket(self.mate(v), v) {
                    left -= 1;
                    for &opp in &remainder[..pos] {
                        base[pl][opp] = W::zero();
                        self.graph.set(v, bracket[opp], W::zero());
                    }
                    for larger in current_end..bracket.len() {
                        base[larger][pl] = W::zero();
                        self.graph.set(v, bracket[larger], W::zero());
                    }
                }
                if !already {
                    for &opp in &remainder[pos + 1..] {
                        let w = weight_in(&base, pl, opp, pos);
                        self.graph.set(v, bracket[opp], w);
                    }
                }
                pos += 1;
            }
            // Only S1-to-S2 edges stay.
            for (pi, &pl) in remainder.iter().enumerate() {
                let v = bracket[pl];
                for &opp in &remainder[pi + 1..] {
                    let u = bracket[opp];
                    if !down_in_bracket(self.mate(v), v) || down_in_bracket(self.mate(u), u) {
                        base[opp][pl] = W::zero();
                    }
                    self.graph.set(v, u, base[opp][pl]);
                }
            }
            // Each S1 player in order takes the highest S2 player the rest allows.
            for &pl in &remainder {
                let v = bracket[pl];
                if !down_in_bracket(self.mate(v), v) {
                    continue;
                }
                let mut addend = 0;
                for &opp in remainder.iter().rev() {
                    let u = bracket[opp];
                    if opp <= pl || matched[u] {
                        continue;
                    }
                    let w = base[opp][pl];
                    if !w.is_zero() {
                        self.graph.set(v, u, w.add_u64(addend));
                    }
                    addend += 1;
                }
                self.graph.solve();
                let m = self.mate(v);
                matched[v] = true;
                matched[m] = true;
                self.graph.finalize(v, m);
            }

            // Whoever is left moves down.
            let mut carried = Vec::new();
            let mut new_mdps = 0;
            bye.single_downfloater =
                n % 2 == 1 && group_start < n && bye.score >= s.players[group_start].score;
            for (idx, &v) in bracket.iter().enumerate() {
                if idx < current_end && matched[v] {
                    let m = self.mate(v);
                    pairs[v] = m;
                    pairs[m] = v;
                } else {
                    carried.push(v);
                    if idx < current_end {
                        new_mdps += 1;
                    }
                    if bye.single_downfloater && s.players[self.mate(v)].score < s.players[group_start].score
                    {
                        bye.single_downfloater = false;
                    }
                }
            }
            bracket = carried;
            mdps = new_mdps;
            group_begin = next_begin;
        }
        Ok(pairs)
    }
}

/// The colour of `player` against `opponent` (C.04.3 article 5: colour allocation).
fn colour_of(setup: &Setup, player: usize, opponent: usize) -> Colour {
    let (p, o) = (&setup.players[player], &setup.players[opponent]);
    // Vertices are in rank order, so the lower vertex is the higher-ranked player.
    let player_is_lower = player > opponent;
    if let Some(colour) = neutral_colour(p, o) {
        return colour;
    }
    match p.preference {
        None => {
            let higher = if player_is_lower { o } else { p };
            let higher_gets = if higher.rank % 2 == 1 { setup.initial.invert() } else { setup.initial };
            if player_is_lower { higher_gets.invert() } else { higher_gets }
        }
        Some(preference) => {
            if player_is_lower {
                preference.invert()
            } else {
                preference
            }
        }
    }
}

/// The colour rules that do not depend on rank: grant both preferences, the stronger one, or alternate
/// from the last round the two had different colours.
fn neutral_colour(p: &Entrant, o: &Entrant) -> Option<Colour> {
    if p.preference != o.preference || p.preference.is_none() || o.preference.is_none() {
        return p.preference.or(o.preference.map(Colour::invert));
    }
    let preference = p.preference?;
    if p.absolute() && (p.imbalance > o.imbalance || !o.absolute()) {
        return Some(preference);
    }
    if o.absolute() && (o.imbalance > p.imbalance || !p.absolute()) {
        return Some(preference.invert());
    }
    if p.strong && !o.strong {
        return Some(preference);
    }
    if o.strong && !p.strong {
        return Some(preference.invert());
    }
    p.colours.iter().rev().zip(o.colours.iter().rev()).find(|(a, b)| a != b).map(|(_, &theirs)| theirs)
}

macro_rules! dispatch {
    ($limbs:expr, $setup:expr, $($l:literal),*) => {
        match $limbs {
            $(x if x <= $l => solve::<$l>($setup),)*
            _ => Err(PairError::NoValidPairing),
        }
    };
}

fn solve<const L: usize>(setup: &Setup) -> Result<Vec<usize>, PairError> {
    let layout = Layout::new(setup);
    let n = setup.players.len();
    let max = Wide::<L>::pow2(layout.total + 2).sub_u64(1);
    let graph = Graph { n, matcher: Matcher::with_store(n, Weights::new(setup, max)) };
    let mut engine = Engine { setup, layout, graph };
    engine.run()
}

/// Pairs the next round of `tournament` by the Dutch system.
pub(crate) fn pair(tournament: &Tournament) -> Result<Pairings, PairError> {
    let setup = setup(tournament)?;
    let n = setup.players.len();
    if n == 0 {
        return Ok(Pairings { boards: Vec::new(), bye: None });
    }
    let layout = Layout::new(&setup);
    // Weights, doubled and summed inside the matching, need a few bits of headroom.
    let limbs = (layout.total as usize + 2 + 8).div_ceil(64);
    let pairs = dispatch!(limbs, &setup, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128)?;
    let mut boards = Vec::new();
    let mut bye = None;
    for v in 0..n {
        let m = pairs[v];
        if m == usize::MAX || m == v {
            bye = Some(setup.players[v].id);
            continue;
        }
        let (a, b) = if setup.players[v].id < setup.players[m].id { (v, m) } else { continue };
        let (white, black) = if colour_of(&setup, a, b) == Colour::White { (a, b) } else { (b, a) };
        boards.push((white, black));
    }
    // Boards: by the higher player's score, then the lower player's, then the higher player's rank.
    boards.sort_by_key(|&(w, b)| {
        let (hi, lo) = if w < b { (w, b) } else { (b, w) };
        let (ph, pl) = (&setup.players[hi], &setup.players[lo]);
        (std::cmp::Reverse(ph.score), std::cmp::Reverse(pl.score), ph.rank)
    });
    let _ = PointSystem::default;
    Ok(Pairings {
        boards: boards.into_iter().map(|(w, b)| (setup.players[w].id, setup.players[b].id)).collect(),
        bye,
    })
}
