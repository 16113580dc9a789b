//! Maximum weight matching in a general graph: Edmonds' blossom algorithm with Galil's primal-dual
//! bookkeeping, kept between solves so that changing the weights of the edges at a few vertices costs a
//! few augmentations rather than a new O(n³) solve.
//!
//! The graph is complete on `n` vertices; an edge of weight zero is no edge. Weights are exact wide
//! integers, so criteria packed into bit fields compare exactly. Every weight is stored times four, and the
//! duals obey `y(u) + y(v) + 2·Σ z(B) ≥ 4·w(u, v)` over the blossoms `B` holding both ends; the duals of
//! the vertices in a search tree all have one parity (the unmatched ones are made even before a search),
//! so halving a slack stays exact.
//!
//! After [`Matcher::solve`] the matching is optimal: every edge feasible, every matched edge tight, every
//! unmatched vertex at dual zero. A later [`Matcher::set`] keeps that unless the edge is matched, lies
//! inside a blossom, or now violates its dual constraint; then one end is *prepared* at the next solve:
//! unmatched (with its blossom's base), its blossoms dissolved with their duals handed to their vertices,
//! and its dual raised just enough for all its edges. The search then runs from the vertices left
//! unmatched with a positive dual, and ends when none is left: an augmenting path between two of them,
//! to an unmatched vertex of dual zero, or a vertex of one's tree whose dual reaches zero (which then
//! becomes the unmatched one).

use crate::wide::Weight;

const NONE: usize = usize::MAX;

/// An endpoint: the edge between `source` and `target`, seen at `target`.
#[inline]
fn ep(target: usize, source: usize) -> usize {
    (target << 32) | source
}

#[inline]
fn tgt(p: usize) -> usize {
    p >> 32
}

#[inline]
fn src(p: usize) -> usize {
    p & 0xffff_ffff
}

/// The same edge seen at its other end.
#[inline]
fn rev(p: usize) -> usize {
    ep(src(p), tgt(p))
}

#[inline]
fn flip(p: usize, trick: usize) -> usize {
    if trick == 1 { rev(p) } else { p }
}

/// The mate of every vertex (`mate[v] == v` when unmatched) in a maximum weight matching of the graph
/// with `vertices` vertices and the given edges `(u, v, weight)`. Zero-weight edges are left out.
#[cfg(test)]
pub fn max_weight_matching<W: Weight>(vertices: usize, edges: &[(usize, usize, W)]) -> Vec<usize> {
    let mut matcher = Matcher::new(vertices);
    for &(u, v, w) in edges {
        if u != v {
            matcher.set(u, v, w);
        }
    }
    matcher.solve();
    (0..vertices).map(|v| matcher.mate(v)).collect()
}

/// Where a matcher keeps its edge weights (each times four): a dense table, or anything that can say
/// the weight of any edge at once.
pub trait Store<W: Weight> {
    /// Four times the weight of the edge `a`–`b`.
    fn get(&self, a: usize, b: usize) -> W;
    /// Sets four times the weight of the edge `a`–`b`.
    fn put(&mut self, a: usize, b: usize, w: W);
    /// What [`Store::slack`] needs of a row: `v` and its dual.
    type Row;
    fn row(&self, v: usize, yv: W) -> Self::Row;
    /// `yv + yw - get(v, w)` for the row of `v`, or `None` when the edge `v`–`w` has weight zero.
    fn slack(&self, row: &Self::Row, w: usize, yw: W) -> Option<W>;
}

/// All `n²` weights, by rows.
#[cfg(test)]
#[derive(Debug)]
pub struct Dense<W> {
    n: usize,
    weights: Vec<W>,
}

#[cfg(test)]
impl<W: Weight> Store<W> for Dense<W> {
    #[inline]
    fn get(&self, a: usize, b: usize) -> W {
        self.weights[a * self.n + b]
    }
    fn put(&mut self, a: usize, b: usize, w: W) {
        self.weights[a * self.n + b] = w;
        self.weights[b * self.n + a] = w;
    }
    type Row = (usize, W);
    fn row(&self, v: usize, yv: W) -> (usize, W) {
        (v, yv)
    }
    fn slack(&self, &(v, yv): &(usize, W), w: usize, yw: W) -> Option<W> {
        let weight = self.get(v, w);
        if weight.is_zero() { None } else { Some(yv.add_sub(yw, weight)) }
    }
}

#[cfg(test)]
impl<W: Weight> Matcher<W, Dense<W>> {
    /// `n` vertices, no edges.
    pub fn new(n: usize) -> Self {
        Self::with_store(n, Dense { n, weights: vec![W::zero(); n * n] })
    }
}

/// A weighted complete graph and a maximum weight matching of it, updated as weights change.
#[derive(Debug)]
pub struct Matcher<W: Weight, S: Store<W>> {
    n: usize,
    /// Weights times four.
    store: S,
    /// Vertices that may still have edges, in order; the others are retired pairs.
    active: Vec<usize>,
    retired: Vec<bool>,
    to_retire: Vec<usize>,
    dirty: Vec<bool>,
    dirty_list: Vec<usize>,
    fresh: bool,
    mate: Vec<usize>,
    label: Vec<u8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<W>,
    queue: std::collections::VecDeque<usize>,
    /// The slack of `bestedge[v]` for an unlabelled vertex, valid while `bestepoch[v] == epoch`.
    bestslack: Vec<W>,
    bestepoch: Vec<u64>,
    /// Bumped at every change of the duals.
    epoch: u64,
    /// The root of each labelled top blossom's tree.
    tree: Vec<usize>,
    /// Tight edges inside one tree, made blossoms once the search has nothing else to do.
    pending: Vec<(usize, usize)>,
    scratch: Vec<usize>,
}

impl<W: Weight, S: Store<W>> Matcher<W, S> {
    /// `n` vertices with the weights of `store` (all zero for a fresh solve to start from).
    pub fn with_store(n: usize, store: S) -> Self {
        assert!(n < 1 << 31, "too many vertices");
        Matcher {
            n,
            store,
            active: (0..n).collect(),
            retired: vec![false; n],
            to_retire: Vec::new(),
            dirty: vec![false; n],
            dirty_list: Vec::new(),
            fresh: true,
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).rev().collect(),
            dualvar: vec![W::zero(); 2 * n],
            queue: std::collections::VecDeque::new(),
            tree: vec![NONE; 2 * n],
            bestslack: vec![W::zero(); n],
            bestepoch: vec![0; n],
            epoch: 1,
            pending: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Four times the weight of the edge `a`–`b`: what its duals must cover.
    #[inline]
    fn w4(&self, a: usize, b: usize) -> W {
        self.store.get(a, b)
    }

    /// The store of the weights.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The store of the weights, to change them behind the matcher's back: every change must then be
    /// told with [`Matcher::note`].
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The weight of the edge `a`–`b` as last set.
    #[cfg(test)]
    pub fn weight(&self, a: usize, b: usize) -> W {
        self.w4(a, b).half().half()
    }

    /// The mate of `v` in the matching of the last solve, or `v` itself when unmatched.
    pub fn mate(&self, v: usize) -> usize {
        if self.mate[v] == NONE { v } else { tgt(self.mate[v]) }
    }

    /// Sets the weight of the edge `a`–`b` (zero: no edge). When the current optimum cannot stand, `a`
    /// is re-matched at the next solve.
    pub fn set(&mut self, a: usize, b: usize, weight: W) {
        if a == b {
            return;
        }
        let w = weight.shl(2);
        let old = self.store.get(a, b);
        if old == w {
            return;
        }
        self.store.put(a, b, w);
        self.note(a, b, w);
    }

    /// Takes note that the edge `a`–`b` (`a != b`) now has four times the weight `w`, a change made in
    /// the store directly.
    pub fn note(&mut self, a: usize, b: usize, w: W) {
        if !w.is_zero() {
            for v in [a, b] {
                if self.retired[v] {
                    self.retired[v] = false;
                    self.active.push(v);
                    self.active.sort_unstable();
                }
            }
        }
        if self.fresh || self.dirty[a] || self.dirty[b] {
            return;
        }
        let stands = self.inblossom[a] != self.inblossom[b]
            && self.mate[a] != ep(b, a)
            && (w.is_zero() || self.dualvar[a].wrapping_add(self.dualvar[b]) >= w);
        if !stands {
            self.dirty[a] = true;
            self.dirty_list.push(a);
        }
    }

    /// Takes `a` and `b`, matched to each other with no other edge, out of later searches.
    pub fn retire(&mut self, a: usize) {
        self.to_retire.push(a);
    }

    #[inline]
    fn slack(&self, i: usize, j: usize) -> W {
        self.dualvar[i].add_sub(self.dualvar[j], self.w4(i, j))
    }

    fn slack_p(&self, p: usize) -> W {
        self.slack(tgt(p), src(p))
    }

    fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b < self.n {
            out.push(b);
        } else {
            for &t in &self.blossomchilds[b] {
                self.leaves(t, out);
            }
        }
    }

    fn leaves_of(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        self.leaves(b, &mut out);
        out
    }

    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.inblossom[w];
        self.tree[b] = if p == NONE { b } else { self.tree[self.inblossom[tgt(p)]] };
        self.label[w] = t;
        self.label[b] = t;
        self.labelend[w] = p;
        self.labelend[b] = p;
        self.bestedge[w] = NONE;
        self.bestedge[b] = NONE;
        if t == 1 {
            if b < self.n {
                self.queue.push_back(b);
            } else {
                let mut leaves = std::mem::take(&mut self.scratch);
                leaves.clear();
                self.leaves(b, &mut leaves);
                self.queue.extend(leaves.iter().copied());
                self.scratch = leaves;
            }
        } else if t == 2 {
            let base = self.blossombase[b];
            let m = self.mate[base];
            self.assign_label(tgt(m), 1, rev(m));
        }
    }

    /// Traces back from both ends of an S–S edge: the base of the new blossom, or `NONE` when the
    /// two trees differ (an augmenting path).
    fn scan_blossom(&mut self, mut v: usize, mut w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = tgt(self.labelend[b]);
                b = self.inblossom[v];
                v = tgt(self.labelend[b]);
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    fn add_blossom(&mut self, base: usize, mut v: usize, mut w: usize) {
        let k = ep(v, w);
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self.unusedblossoms.pop().expect("a free blossom slot always exists");
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = tgt(self.labelend[bv]);
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(rev(self.labelend[bw]));
            w = tgt(self.labelend[bw]);
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
        self.labelend[b] = self.labelend[bb];
        self.tree[b] = self.tree[bb];
        self.dualvar[b] = W::zero();
        for leaf in self.leaves_of_path(&path) {
            if self.label[self.inblossom[leaf]] == 2 {
                self.queue.push_back(leaf);
            }
            self.inblossom[leaf] = b;
        }
        // Least-slack edges from the new blossom to each other S-blossom.
        let mut bestedgeto: Vec<(usize, usize, W)> = Vec::new();
        let mut slot = std::mem::take(&mut self.scratch);
        slot.clear();
        slot.resize(2 * self.n, NONE);
        let mut leaves = Vec::new();
        for &child in &path {
            match self.blossombestedges[child].take() {
                Some(list) => {
                    for p in list {
                        let j = if self.inblossom[tgt(p)] == b { src(p) } else { tgt(p) };
                        let bj = self.inblossom[j];
                        if bj != b && self.label[bj] == 1 {
                            let slack = self.slack_p(p);
                            Self::offer(&mut slot, &mut bestedgeto, bj, p, slack);
                        }
                    }
                }
                None => {
                    leaves.clear();
                    self.leaves(child, &mut leaves);
                    for &leaf in &leaves {
                        let y = self.dualvar[leaf];
                        for &w in &self.active {
                            let bj = self.inblossom[w];
                            if bj == b || self.label[bj] != 1 || w == leaf {
                                continue;
                            }
                            let weight = self.store.get(leaf, w);
                            if !weight.is_zero() {
                                let slack = y.wrapping_add(self.dualvar[w]).wrapping_sub(weight);
                                Self::offer(&mut slot, &mut bestedgeto, bj, ep(w, leaf), slack);
                            }
                        }
                    }
                }
            }
            self.bestedge[child] = NONE;
        }
        for &(bj, _, _) in &bestedgeto {
            slot[bj] = NONE;
        }
        self.scratch = slot;
        self.bestedge[b] = NONE;
        let mut least = None;
        for &(_, p, slack) in &bestedgeto {
            if least.is_none_or(|l| slack < l) {
                least = Some(slack);
                self.bestedge[b] = p;
            }
        }
        let best: Vec<usize> = bestedgeto.into_iter().map(|(_, p, _)| p).collect();
        self.blossombestedges[b] = Some(best);
        self.blossomchilds[b] = path;
        self.blossomendps[b] = endps;
    }

    fn offer(slot: &mut [usize], best: &mut Vec<(usize, usize, W)>, bj: usize, p: usize, slack: W) {
        let at = slot[bj];
        if at == NONE {
            slot[bj] = best.len();
            best.push((bj, p, slack));
        } else if slack < best[at].2 {
            best[at] = (bj, p, slack);
        }
    }

    fn leaves_of_path(&self, path: &[usize]) -> Vec<usize> {
        let mut out = Vec::new();
        for &t in path {
            self.leaves(t, &mut out);
        }
        out
    }

    fn free_blossom(&mut self, b: usize) {
        self.label[b] = 0;
        self.labelend[b] = NONE;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.dualvar[b] = W::zero();
        self.unusedblossoms.push(b);
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = NONE;
            self.tree[s] = self.tree[b];
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s].is_zero() {
                self.expand_blossom(s, endstage);
            } else {
                for leaf in self.leaves_of(s) {
                    self.inblossom[leaf] = s;
                }
            }
        }
        if !endstage && self.label[b] == 2 {
            let len = childs.len() as isize;
            let at = |j: isize| -> usize { j.rem_euclid(len) as usize };
            let entrychild = self.inblossom[src(self.labelend[b])];
            let mut j = childs.iter().position(|&c| c == entrychild).expect("entry child") as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = self.labelend[b];
            let endps = self.blossomendps[b].clone();
            while j != 0 {
                let v = src(p);
                self.label[v] = 0;
                let q = rev(flip(endps[at(j - endptrick as isize)], endptrick));
                self.label[tgt(q)] = 0;
                self.assign_label(v, 2, p);
                j += jstep;
                p = flip(endps[at(j - endptrick as isize)], endptrick);
                j += jstep;
            }
            let bv = childs[at(j)];
            let v = src(p);
            self.label[v] = 2;
            self.label[bv] = 2;
            self.labelend[v] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while childs[at(j)] != entrychild {
                let bv = childs[at(j)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let leaves = self.leaves_of(bv);
                if let Some(&v) = leaves.iter().find(|&&v| self.label[v] != 0) {
                    self.label[v] = 0;
                    let base_mate = self.mate[self.blossombase[bv]];
                    self.label[tgt(base_mate)] = 0;
                    self.assign_label(v, 2, self.labelend[v]);
                }
                j += jstep;
            }
        }
        self.free_blossom(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len() as isize;
        let at = |j: isize| -> usize { j.rem_euclid(len) as usize };
        let i = self.blossomchilds[b].iter().position(|&c| c == t).expect("child") as isize;
        let mut j = i;
        let (jstep, endptrick): (isize, usize) = if i & 1 == 1 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t = self.blossomchilds[b][at(j)];
            let p = flip(self.blossomendps[b][at(j - endptrick as isize)], endptrick);
            if t >= self.n {
                self.augment_blossom(t, tgt(p));
            }
            j += jstep;
            let t = self.blossomchilds[b][at(j)];
            if t >= self.n {
                self.augment_blossom(t, src(p));
            }
            self.mate[tgt(p)] = rev(p);
            self.mate[src(p)] = p;
        }
        let i = i as usize;
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    /// Flips the alternating path from `s` back to the root of its tree, `s` taking `p` as its mate
    /// (`NONE`: the root gets matched and `s` is left unmatched).
    fn augment_path(&mut self, mut s: usize, mut p: usize) {
        loop {
            let bs = self.inblossom[s];
            if bs >= self.n {
                self.augment_blossom(bs, s);
            }
            self.mate[s] = p;
            if self.labelend[bs] == NONE {
                break;
            }
            let t = tgt(self.labelend[bs]);
            let bt = self.inblossom[t];
            s = tgt(self.labelend[bt]);
            let j = src(self.labelend[bt]);
            if bt >= self.n {
                self.augment_blossom(bt, j);
            }
            self.mate[j] = self.labelend[bt];
            p = rev(self.labelend[bt]);
        }
    }

    /// Dissolves every blossom holding `v`, the base of its top blossom, handing each blossom's dual to
    /// its vertices so that every edge keeps its constraint and every edge inside a part stays tight.
    fn dissolve_around(&mut self, v: usize) {
        let mut b = self.inblossom[v];
        while b >= self.n {
            let z = self.dualvar[b];
            let childs = std::mem::take(&mut self.blossomchilds[b]);
            let mut next = NONE;
            for &s in &childs {
                self.blossomparent[s] = NONE;
                let mut leaves = Vec::new();
                self.leaves(s, &mut leaves);
                for &leaf in &leaves {
                    self.inblossom[leaf] = s;
                    self.dualvar[leaf] = self.dualvar[leaf].wrapping_add(z);
                    if leaf == v {
                        next = s;
                    }
                }
            }
            self.free_blossom(b);
            b = next;
        }
    }

    /// Frees `v` (and its mate) for new weights: see the module text.
    fn prepare(&mut self, v: usize) {
        let b = self.inblossom[v];
        let base = if b == v { v } else { self.blossombase[b] };
        if self.mate[base] != NONE {
            let x = tgt(self.mate[base]);
            self.mate[base] = NONE;
            self.mate[x] = NONE;
        }
        if b != v {
            self.augment_blossom(b, v);
            self.mate[v] = NONE;
            self.dissolve_around(v);
        }
        let mut y = W::zero();
        for &x in &self.active {
            if x == v {
                continue;
            }
            let need = self.w4(v, x);
            if need > self.dualvar[x] {
                let lack = need.wrapping_sub(self.dualvar[x]);
                if lack > y {
                    y = lack;
                }
            }
        }
        self.dualvar[v] = y;
    }

    fn odd(w: W) -> bool {
        w.half().shl(1) != w
    }

    /// Computes the optimum after the weights set since the last solve.
    pub fn solve(&mut self) {
        let n = self.n;
        if self.fresh {
            self.fresh = false;
            self.dirty_list.clear();
            // Every vertex dual at its heaviest (doubled, so even) edge, then greedy on tight edges.
            for v in 0..n {
                let mut y = W::zero();
                for u in 0..n {
                    if u != v && self.w4(v, u) > y {
                        y = self.w4(v, u);
                    }
                }
                self.dualvar[v] = y.half();
            }
            for v in 0..n {
                if self.mate[v] != NONE || self.dualvar[v].is_zero() {
                    continue;
                }
                for u in v + 1..n {
                    if self.mate[u] == NONE && !self.w4(v, u).is_zero() && self.slack(v, u).is_zero() {
                        self.mate[v] = ep(u, v);
                        self.mate[u] = ep(v, u);
                        break;
                    }
                }
            }
        } else {
            let dirty = std::mem::take(&mut self.dirty_list);
            for &v in &dirty {
                if self.dirty[v] {
                    self.dirty[v] = false;
                    self.prepare(v);
                }
            }
            self.dirty_list = dirty;
            self.dirty_list.clear();
            // Every root's dual even; then tight edges between roots matched at once.
            let mut roots = Vec::new();
            for i in 0..self.active.len() {
                let v = self.active[i];
                if self.mate[v] != NONE || self.dualvar[v].is_zero() {
                    continue;
                }
                if Self::odd(self.dualvar[v]) {
                    if self.inblossom[v] != v {
                        self.dissolve_around(v);
                    }
                    if Self::odd(self.dualvar[v]) {
                        self.dualvar[v] = self.dualvar[v].add_u64(1);
                    }
                }
                roots.push(v);
            }
            for i in 0..roots.len() {
                let v = roots[i];
                if self.mate[v] != NONE {
                    continue;
                }
                for &u in &roots[i + 1..] {
                    if self.mate[u] == NONE
                        && self.inblossom[u] != self.inblossom[v]
                        && !self.w4(v, u).is_zero()
                        && self.slack(v, u).is_zero()
                    {
                        self.mate[v] = ep(u, v);
                        self.mate[u] = ep(v, u);
                        break;
                    }
                }
            }
        }
        while self.stage() {}
        for v in std::mem::take(&mut self.to_retire) {
            if !self.retired[v] {
                self.retired[v] = true;
            }
        }
        if self.active.iter().any(|&v| self.retired[v]) {
            let retired = &self.retired;
            self.active.retain(|&v| !retired[v]);
        }
    }

    /// Checks the invariants between stages (tests only).
    #[cfg(test)]
    fn check(&self, when: &str) {
        let n = self.n;
        let mut parity = None;
        for &a in &self.active {
            if self.mate[a] != NONE {
                let b = tgt(self.mate[a]);
                assert_eq!(self.mate[b], ep(a, a) >> 32 << 32 | b, "{when}: mate symmetric");
            } else if !self.dualvar[a].is_zero() {
                let odd = Self::odd(self.dualvar[a]);
                assert!(*parity.get_or_insert(odd) == odd, "{when}: root {a} parity");
                assert_eq!(self.blossombase[self.inblossom[a]], a, "{when}: exposed not base");
            }
            for &b in &self.active {
                if b >= a || self.w4(a, b).is_zero() {
                    continue;
                }
                let mut lhs = self.dualvar[a].wrapping_add(self.dualvar[b]);
                // Blossoms holding both.
                let mut x = a;
                let mut anc = Vec::new();
                while self.blossomparent[x] != NONE {
                    x = self.blossomparent[x];
                    anc.push(x);
                }
                let mut y = b;
                while self.blossomparent[y] != NONE {
                    y = self.blossomparent[y];
                    if anc.contains(&y) {
                        lhs = lhs.wrapping_add(self.dualvar[y].shl(1));
                    }
                }
                let need = self.w4(a, b);
                assert!(lhs >= need, "{when}: edge {a}-{b} infeasible");
                if self.mate[a] == ep(b, a) {
                    assert!(lhs == need, "{when}: matched edge {a}-{b} not tight");
                }
            }
        }
        let _ = n;
    }

    /// One search from every unmatched vertex with a positive dual; false when there is none.
    fn stage(&mut self) -> bool {
        #[cfg(test)]
        self.check("stage start");
        let n = self.n;
        self.label.iter_mut().for_each(|l| *l = 0);
        self.bestedge.iter_mut().for_each(|e| *e = NONE);
        for b in n..2 * n {
            self.blossombestedges[b] = None;
        }
        self.queue.clear();
        self.pending.clear();
        self.epoch += 1;
        let mut any = false;
        for i in 0..self.active.len() {
            let v = self.active[i];
            if self.mate[v] == NONE && !self.dualvar[v].is_zero() && self.label[self.inblossom[v]] == 0 {
                self.assign_label(v, 1, NONE);
                any = true;
            }
        }
        if !any {
            return false;
        }
        loop {
            while let Some(v) = self.queue.pop_front() {
                let bv = self.inblossom[v];
                let row = self.store.row(v, self.dualvar[v]);
                let mut best_b =
                    if self.bestedge[bv] == NONE { None } else { Some(self.slack_p(self.bestedge[bv])) };
                let mut idx = 0;
                while idx < self.active.len() {
                    let w = self.active[idx];
                    idx += 1;
                    let bw = self.inblossom[w];
                    if bv == bw || (self.label[bw] == 2 && self.label[w] != 0) {
                        // Inside the blossom, or already in a tree as T: nothing to learn.
                        continue;
                    }
                    let Some(kslack) = self.store.slack(&row, w, self.dualvar[w]) else {
                        continue;
                    };
                    if kslack.is_zero() {
                        if self.label[bw] == 0 {
                            if self.mate[self.blossombase[bw]] == NONE {
                                // An unmatched vertex with dual zero: augment to it.
                                if bw >= n {
                                    self.augment_blossom(bw, w);
                                }
                                self.mate[w] = ep(v, w);
                                self.augment_path(v, ep(w, v));
                                self.end_stage();
                                return true;
                            }
                            self.assign_label(w, 2, ep(v, w));
                        } else if self.label[bw] == 1 {
                            if self.tree[bw] == self.tree[bv] {
                                self.pending.push((v, w));
                            } else {
                                self.augment_path(v, ep(w, v));
                                self.augment_path(w, ep(v, w));
                                self.end_stage();
                                return true;
                            }
                        } else if self.label[w] == 0 {
                            self.label[w] = 2;
                            self.labelend[w] = ep(v, w);
                        }
                    } else if self.label[bw] == 1 {
                        if best_b.is_none_or(|best| kslack < best) {
                            best_b = Some(kslack);
                            self.bestedge[bv] = ep(w, v);
                        }
                    } else if self.label[w] == 0 {
                        let better = self.bestedge[w] == NONE
                            || kslack
                                < if self.bestepoch[w] == self.epoch {
                                    self.bestslack[w]
                                } else {
                                    self.slack_p(self.bestedge[w])
                                };
                        if better {
                            self.bestedge[w] = ep(w, v);
                            self.bestslack[w] = kslack;
                            self.bestepoch[w] = self.epoch;
                        }
                    }
                }
            }
            if !self.pending.is_empty() {
                let pending = std::mem::take(&mut self.pending);
                for &(v, w) in &pending {
                    if self.inblossom[v] != self.inblossom[w] {
                        let base = self.scan_blossom(v, w);
                        debug_assert!(base != NONE, "one tree");
                        self.add_blossom(base, v, w);
                    }
                }
                self.pending = pending;
                self.pending.clear();
                continue;
            }
            // No augmenting path with tight edges: change the duals.
            let mut deltatype = 0;
            let mut delta = W::zero();
            let mut deltaedge = NONE;
            let mut deltablossom = NONE;
            for &v in &self.active {
                if self.label[self.inblossom[v]] == 1 && (deltatype == 0 || self.dualvar[v] < delta) {
                    delta = self.dualvar[v];
                    deltatype = 1;
                    deltablossom = v;
                }
            }
            for &v in &self.active {
                if self.label[self.inblossom[v]] == 0 && self.bestedge[v] != NONE {
                    let d = self.slack_p(self.bestedge[v]);
                    if d < delta {
                        delta = d;
                        deltatype = 2;
                        deltaedge = self.bestedge[v];
                    }
                }
            }
            for b in 0..2 * n {
                if self.blossomparent[b] == NONE && self.label[b] == 1 && self.bestedge[b] != NONE {
                    let d = self.slack_p(self.bestedge[b]).half();
                    if d < delta {
                        delta = d;
                        deltatype = 3;
                        deltaedge = self.bestedge[b];
                    }
                }
            }
            for b in n..2 * n {
                if self.blossombase[b] != NONE
                    && self.blossomparent[b] == NONE
                    && self.label[b] == 2
                    && self.dualvar[b] < delta
                {
                    delta = self.dualvar[b];
                    deltatype = 4;
                    deltablossom = b;
                }
            }
            self.epoch += 1;
            if !delta.is_zero() {
                for &v in &self.active {
                    match self.label[self.inblossom[v]] {
                        1 => self.dualvar[v] = self.dualvar[v].wrapping_sub(delta),
                        2 => self.dualvar[v] = self.dualvar[v].wrapping_add(delta),
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            1 => self.dualvar[b] = self.dualvar[b].wrapping_add(delta),
                            2 => self.dualvar[b] = self.dualvar[b].wrapping_sub(delta),
                            _ => {}
                        }
                    }
                }
            }
            match deltatype {
                1 => {
                    // A vertex of a tree reached dual zero: it is left unmatched, its root matched.
                    self.augment_path(deltablossom, NONE);
                    self.end_stage();
                    return true;
                }
                2 => {
                    let (i, j) = (tgt(deltaedge), src(deltaedge));
                    self.queue.push_back(if self.label[self.inblossom[i]] == 0 { j } else { i });
                }
                3 => self.queue.push_back(tgt(deltaedge)),
                _ => self.expand_blossom(deltablossom, false),
            }
        }
    }

    fn end_stage(&mut self) {
        let n = self.n;
        for b in n..2 * n {
            if self.blossomparent[b] == NONE
                && self.blossombase[b] != NONE
                && self.label[b] == 1
                && self.dualvar[b].is_zero()
            {
                self.expand_blossom(b, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::Wide;

    type W = Wide<1>;

    fn run(n: usize, edges: &[(usize, usize, u64)]) -> Vec<usize> {
        let edges: Vec<_> = edges.iter().map(|&(a, b, w)| (a, b, W::from_u64(w))).collect();
        max_weight_matching(n, &edges)
    }

    fn weight(mate: &[usize], edges: &[(usize, usize, u64)]) -> u64 {
        edges.iter().filter(|e| mate[e.0] == e.1).map(|e| e.2).sum()
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn small_cases() {
        assert_eq!(run(2, &[(0, 1, 1)]), vec![1, 0]);
        assert_eq!(run(3, &[(0, 1, 10), (1, 2, 11)]), vec![0, 2, 1]);
        assert_eq!(run(4, &[(0, 1, 5), (1, 2, 11), (2, 3, 5)]), vec![0, 2, 1, 3]);
        // A blossom: the triangle 0-1-2 with a pendant.
        let e = [(0, 1, 8), (0, 2, 9), (1, 2, 10), (2, 3, 7)];
        assert_eq!(weight(&run(4, &e), &e), 15);
        // Nested blossoms and expansion (van Rantwijk's classic cases).
        let e = [(0, 1, 9), (0, 2, 9), (1, 2, 10), (1, 3, 8), (2, 4, 8), (3, 4, 10), (4, 5, 6)];
        assert_eq!(weight(&run(6, &e), &e), 23);
        let e =
            [(0, 1, 23), (0, 4, 22), (0, 5, 15), (1, 2, 25), (2, 3, 22), (3, 4, 25), (3, 7, 14), (4, 6, 13)];
        assert_eq!(weight(&run(8, &e), &e), 67);
    }

    #[test]
    fn agrees_with_brute_force() {
        let mut rng = Rng(12345);
        for _ in 0..1500 {
            let n = (rng.next() % 12 + 1) as usize;
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    if !rng.next().is_multiple_of(3) {
                        edges.push((a, b, rng.next() % 8 + 1));
                    }
                }
            }
            let m = run(n, &edges);
            for v in 0..n {
                assert_eq!(m[m[v]], v);
            }
            assert_eq!(weight(&m, &edges), brute(n, &edges, 0, &mut vec![false; n]));
        }
    }

    /// Random weights with a unique optimum: a random value above, a distinct power of two per edge
    /// below, so that the matching itself, not only its weight, must agree.
    fn unique_weight(rng: &mut Rng, a: usize, b: usize, spread: u64) -> Wide<3> {
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        let edge = (hi * (hi - 1) / 2 + lo) as u32;
        match rng.next() % 5 {
            0 => Wide::zero(),
            _ => Wide::<3>::from_u64(rng.next() % spread + 1).shl(128).or(Wide::pow2(edge)),
        }
    }

    #[test]
    fn incremental_updates_give_the_matching_a_fresh_solve_gives() {
        let mut rng = Rng(987654321);
        for case in 0..400 {
            let n = (rng.next() % 15 + 2) as usize;
            let spread = [2, 4, 16, 1000][case % 4];
            let mut matcher = Matcher::<Wide<3>, Dense<Wide<3>>>::new(n);
            for a in 0..n {
                for b in 0..a {
                    let w = unique_weight(&mut rng, a, b, spread);
                    matcher.set(a, b, w);
                }
            }
            matcher.solve();
            for _update in 0..30 {
                // Change some edges at one to three vertices, sometimes a whole row, then re-solve.
                for _ in 0..rng.next() % 3 + 1 {
                    let v = (rng.next() % n as u64) as usize;
                    let whole = rng.next().is_multiple_of(3);
                    for u in 0..n {
                        if u != v && (whole || rng.next().is_multiple_of(3)) {
                            let w = if rng.next().is_multiple_of(4) {
                                // A nudge of the lowest bits, as the pairing does.
                                let old = matcher.weight(v, u);
                                if old.is_zero() { old } else { old.add_u64(rng.next() % 3) }
                            } else {
                                unique_weight(&mut rng, v, u, spread)
                            };
                            matcher.set(v, u, w);
                        }
                    }
                }
                matcher.solve();
                let mut edges = Vec::new();
                for a in 0..n {
                    for b in 0..a {
                        edges.push((a, b, matcher.weight(a, b)));
                    }
                }
                let fresh = max_weight_matching(n, &edges);
                let incremental: Vec<usize> = (0..n).map(|v| matcher.mate(v)).collect();
                let total = |m: &[usize]| {
                    edges.iter().filter(|e| m[e.0] == e.1).fold(Wide::<3>::zero(), |s, e| s.wrapping_add(e.2))
                };
                assert_eq!(total(&incremental), total(&fresh), "case {case}: weights differ");
                assert_eq!(incremental, fresh, "case {case}");
            }
        }
    }

    #[test]
    fn incremental_updates_keep_the_optimum_weight_with_ties() {
        let mut rng = Rng(4242);
        for case in 0..600 {
            let n = (rng.next() % 11 + 2) as usize;
            let mut matcher = Matcher::<W, Dense<W>>::new(n);
            let mut w = vec![vec![0u64; n]; n];
            for a in 0..n {
                for b in 0..a {
                    w[a][b] = if rng.next().is_multiple_of(4) { 0 } else { rng.next() % 5 + 1 };
                    matcher.set(a, b, W::from_u64(w[a][b]));
                }
            }
            matcher.solve();
            for _ in 0..20 {
                let v = (rng.next() % n as u64) as usize;
                for u in 0..n {
                    if u != v && rng.next().is_multiple_of(2) {
                        let (a, b) = if u > v { (u, v) } else { (v, u) };
                        w[a][b] = if rng.next().is_multiple_of(4) { 0 } else { rng.next() % 5 + 1 };
                        matcher.set(v, u, W::from_u64(w[a][b]));
                    }
                }
                matcher.solve();
                let edges: Vec<(usize, usize, u64)> =
                    (0..n).flat_map(|a| (0..a).map(move |b| (a, b))).map(|(a, b)| (a, b, w[a][b])).collect();
                let m: Vec<usize> = (0..n).map(|v| matcher.mate(v)).collect();
                for v in 0..n {
                    assert_eq!(m[m[v]], v, "case {case}");
                    if m[v] != v {
                        let (a, b) = if m[v] > v { (m[v], v) } else { (v, m[v]) };
                        assert!(w[a][b] > 0, "case {case}: matched on no edge");
                    }
                }
                assert_eq!(weight(&m, &edges), brute(n, &edges, 0, &mut vec![false; n]), "case {case}");
            }
        }
    }

    fn brute(n: usize, edges: &[(usize, usize, u64)], from: usize, used: &mut Vec<bool>) -> u64 {
        let Some(v) = (from..n).find(|&v| !used[v]) else { return 0 };
        used[v] = true;
        let mut best = brute(n, edges, v + 1, used);
        for e in edges {
            let o = if e.0 == v {
                e.1
            } else if e.1 == v {
                e.0
            } else {
                continue;
            };
            if used[o] || e.2 == 0 {
                continue;
            }
            used[o] = true;
            best = best.max(e.2 + brute(n, edges, v + 1, used));
            used[o] = false;
        }
        used[v] = false;
        best
    }
}
