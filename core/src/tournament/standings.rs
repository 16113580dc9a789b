//! Standings with the FIDE tie-breaks (Handbook C.07): scores, the adjustments for unplayed
//! rounds, and the direct encounter.

use super::*;

impl Snapshot {
    /// The standings after the rounds completed so far (all paired rounds, pending games
    /// counting nothing), with the tie-breaks of the format.
    ///
    /// Unplayed rounds follow FIDE C.07 of 1 August 2024: in a round robin (pairings
    /// fixed in advance) a forfeit is a game against the scheduled opponent (15.2); in a Swiss
    /// event, and in a knockout, Article 16 applies (see [`Snapshot::adjusted_score`] and
    /// [`Snapshot::dummy_score`]).
    pub fn standings(&self) -> Standings {
        let rounds = self.cells.len();
        let tie_breaks: Vec<TieBreak> = match self.row.format {
            Format::Swiss | Format::Knockout => {
                vec![
                    TieBreak::BuchholzCut1,
                    TieBreak::Buchholz,
                    TieBreak::SonnebornBerger,
                    TieBreak::DirectEncounter,
                ]
            }
            Format::RoundRobin | Format::DoubleRoundRobin => {
                vec![TieBreak::SonnebornBerger, TieBreak::DirectEncounter, TieBreak::Wins, TieBreak::Koya]
            }
        };
        let final_score: HashMap<PlayerId, u32> =
            self.entries.iter().map(|e| (e.player, self.score(e.player, rounds))).collect();
        let adjusted: HashMap<PlayerId, u32> =
            self.entries.iter().map(|e| (e.player, self.adjusted_score(e.player))).collect();
        let mut lines: Vec<StandingLine> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| StandingLine {
                player: e.player,
                name: e.name.clone(),
                start_no: i as u32 + 1,
                rating: e.seed_rating,
                halves: final_score[&e.player],
                tie_breaks: Vec::new(),
                order: Vec::new(),
                withdrawn: e.withdrawn_after.is_some(),
                rank: 0,
            })
            .collect();
        for tb in &tie_breaks {
            if *tb == TieBreak::DirectEncounter {
                continue;
            }
            for line in &mut lines {
                let v = self.tie_break(*tb, line.player, &final_score, &adjusted);
                line.tie_breaks.push(v);
            }
        }
        for line in &mut lines {
            line.order = line.tie_breaks.clone();
        }
        // Direct encounter among players still level on points and the tie-breaks before it
        // (C.07 4.2, Article 6): it shows each one's score against the others of the group, and
        // ranks them by Article 6, which may take several passes.
        if let Some(de) = tie_breaks.iter().position(|t| *t == TieBreak::DirectEncounter) {
            let mut groups: BTreeMap<(u32, Vec<u32>), Vec<PlayerId>> = BTreeMap::new();
            for line in &lines {
                groups.entry((line.halves, line.order[..de].to_vec())).or_default().push(line.player);
            }
            let mut shown: HashMap<PlayerId, u32> = HashMap::new();
            let mut order: HashMap<PlayerId, u32> = HashMap::new();
            for group in groups.values() {
                let table = self.encounters(group);
                for &p in group {
                    shown.insert(p, if group.len() < 2 { 0 } else { table.quarters(p) });
                }
                let tiers = self.ranked_by_encounters(group.clone(), table);
                for (i, tier) in tiers.iter().enumerate() {
                    for &p in tier {
                        order.insert(p, (tiers.len() - i) as u32);
                    }
                }
            }
            for line in &mut lines {
                line.tie_breaks.insert(de, shown[&line.player]);
                line.order.insert(de, order[&line.player]);
            }
        }
        lines.sort_by(|a, b| {
            b.halves.cmp(&a.halves).then_with(|| b.order.cmp(&a.order)).then(a.start_no.cmp(&b.start_no))
        });
        // Equal points and tie-breaks share a rank.
        for i in 0..lines.len() {
            lines[i].rank =
                if i > 0 && lines[i].halves == lines[i - 1].halves && lines[i].order == lines[i - 1].order {
                    lines[i - 1].rank
                } else {
                    i as u32 + 1
                };
        }
        Standings { tie_breaks, lines, rounds: rounds as u32 }
    }

    /// Pairings fixed in advance (a round robin): C.07 15.2 counts a forfeit as a game against
    /// the scheduled opponent, and the free round of an odd number is no element of any sum.
    pub(super) fn predetermined(&self) -> bool {
        matches!(self.row.format, Format::RoundRobin | Format::DoubleRoundRobin)
    }

    /// C.07 16.1.2: a voluntary unplayed round: a requested bye (a late entry's missed round,
    /// worth half a point, or a round after withdrawing, which 16.1.1 counts as a zero-point
    /// bye) or a forfeit loss. A pairing-allocated bye and a forfeit win are not voluntary.
    pub(super) fn voluntary(outcome: Outcome) -> bool {
        matches!(outcome, Outcome::HalfBye | Outcome::Absent | Outcome::ForfeitLoss)
    }

    /// A player's outcome in each round counted, in order.
    pub(super) fn outcomes(&self, player: PlayerId) -> Vec<Outcome> {
        self.cells.iter().map(|c| c.get(&player).map_or(Outcome::Absent, |c| c.outcome)).collect()
    }

    /// A player's score in halves as their opponents' tie-breaks see it (C.07 16.3): every round
    /// as awarded, except a requested bye followed only by voluntary unplayed rounds (or in the
    /// last round), which counts as a draw (16.2.5, 16.3.2) - so a player who withdrew is, to
    /// the people they played, one who drew the rest. Round robins count scores as they are.
    pub fn adjusted_score(&self, player: PlayerId) -> u32 {
        let outcomes = self.outcomes(player);
        outcomes
            .iter()
            .enumerate()
            .map(|(i, &o)| {
                let requested = matches!(o, Outcome::HalfBye | Outcome::Absent);
                if !self.predetermined() && requested && outcomes[i + 1..].iter().all(|&l| Self::voluntary(l))
                {
                    1
                } else {
                    self.halves(o)
                }
            })
            .sum()
    }

    /// The score in halves of the dummy a player's unplayed round is counted against (C.07 of
    /// 1 August 2024, 16.4): the player's own score, whatever the round was. (The edition of
    /// 1 March 2026 caps it: for a forfeit at the scheduled opponent's adjusted score, for a bye
    /// at a draw in every round; the issue that set our rules names the 2024 edition.)
    pub fn dummy_score(&self, own: u32) -> u32 {
        own
    }

    /// What one round adds to a player's opponents' sums: the opponent's (or the dummy's) score
    /// in halves, and whether the round is a voluntary unplayed one. `None`: no element (a game
    /// still being played, a round robin's free round).
    pub(super) fn element(
        &self,
        own: u32,
        cell: &Cell,
        final_score: &HashMap<PlayerId, u32>,
        adjusted: &HashMap<PlayerId, u32>,
    ) -> Option<(u32, bool)> {
        if cell.outcome == Outcome::Pending {
            return None;
        }
        if self.predetermined() {
            return cell.opponent.map(|o| (final_score.get(&o).copied().unwrap_or(0), false));
        }
        match cell.opponent {
            Some(o) if cell.outcome.played() => Some((adjusted.get(&o).copied().unwrap_or(0), false)),
            _ => Some((self.dummy_score(own), Self::voluntary(cell.outcome))),
        }
    }

    /// One tie-break value: points in quarters (Sonneborn-Berger multiplies half points), wins as
    /// a count.
    pub(super) fn tie_break(
        &self,
        tb: TieBreak,
        player: PlayerId,
        final_score: &HashMap<PlayerId, u32>,
        adjusted: &HashMap<PlayerId, u32>,
    ) -> u32 {
        let own = final_score[&player];
        // A game still being played is no round yet.
        let cells: Vec<Cell> = self
            .cells
            .iter()
            .filter_map(|c| c.get(&player).copied())
            .filter(|c| c.outcome != Outcome::Pending)
            .collect();
        match tb {
            TieBreak::Buchholz | TieBreak::BuchholzCut1 => {
                // In quarters, like the other point values.
                let mut values: Vec<(u32, bool)> = cells
                    .iter()
                    .filter_map(|c| self.element(own, c, final_score, adjusted))
                    .map(|(v, vur)| (2 * v, vur))
                    .collect();
                if tb == TieBreak::BuchholzCut1 && !values.is_empty() {
                    // C.07 14.1 cuts the least significant value; 16.5 cuts the lowest value
                    // coming from a voluntary unplayed round instead, when there is one (for
                    // Buchholz it is never below the least significant value).
                    let cut = values
                        .iter()
                        .enumerate()
                        .filter(|(_, (_, vur))| *vur)
                        .min_by_key(|(_, (v, _))| *v)
                        .or_else(|| values.iter().enumerate().min_by_key(|(_, (v, _))| *v))
                        .map(|(i, _)| i);
                    if let Some(i) = cut {
                        values.remove(i);
                    }
                }
                values.iter().map(|(v, _)| v).sum()
            }
            // The opponent's (or the dummy's) score times the points scored against them: halves
            // times halves are quarters.
            TieBreak::SonnebornBerger => cells
                .iter()
                .filter_map(|c| {
                    self.element(own, c, final_score, adjusted).map(|(v, _)| v * self.halves(c.outcome))
                })
                .sum(),
            // C.07 7.1: rounds that brought a win's points, played or not.
            TieBreak::Wins => cells.iter().filter(|c| self.halves(c.outcome) == 2).count() as u32,
            TieBreak::Koya => {
                // C.07 9.2: points against those who scored at least half the most a player could
                // score; in a round robin that is a win against each of the others (the free
                // round of an odd number scores nothing).
                let games = if self.predetermined() {
                    let legs = if self.row.format == Format::DoubleRoundRobin { 2 } else { 1 };
                    legs * (self.entries.len() as u32).saturating_sub(1)
                } else {
                    self.row.rounds.max(self.cells.len() as u32)
                };
                // Half of `games` wins is `games` half points.
                cells
                    .iter()
                    .filter(|c| c.opponent.is_some_and(|o| final_score[&o] >= games))
                    .map(|c| 2 * self.halves(c.outcome))
                    .sum()
            }
            TieBreak::DirectEncounter => 0,
        }
    }

    /// The games a direct encounter counts (C.07 6.1.1): those played over the board, and in a
    /// round robin forfeits too (15.2).
    pub(super) fn counts_as_encounter(&self, cell: &Cell) -> bool {
        cell.outcome.played()
            || (self.predetermined() && matches!(cell.outcome, Outcome::ForfeitWin | Outcome::ForfeitLoss))
    }

    /// The separate standings of a tied group (C.07 6.1): each player's score against the others
    /// of the group, two players who met more than once counting the average of those games
    /// (6.1.2).
    pub(super) fn encounters(&self, group: &[PlayerId]) -> Encounters {
        // Work linear in the group and its games: a Swiss of thousands has groups of hundreds
        // tied in its first rounds, where a look at every pair would cost millions.
        let members: std::collections::HashSet<PlayerId> = group.iter().copied().collect();
        // (player, opponent) -> (halves scored, games)
        let mut met: HashMap<(PlayerId, PlayerId), (u32, u32)> = HashMap::new();
        for c in &self.cells {
            for &p in group {
                if let Some(cell) = c.get(&p)
                    && let Some(o) = cell.opponent.filter(|o| *o != p && members.contains(o))
                    && self.counts_as_encounter(cell)
                {
                    let e = met.entry((p, o)).or_insert((0, 0));
                    e.0 += self.halves(cell.outcome);
                    e.1 += 1;
                }
            }
        }
        // Averages over 1, 2, ... games, in units of 1 / (2 * scale) of a point.
        let scale = met.values().fold(1u32, |l, &(_, n)| lcm(l, n));
        let mut score: HashMap<PlayerId, u32> = group.iter().map(|&p| (p, 0)).collect();
        // Each one's others of the group, less those met.
        let others = members.len().saturating_sub(1) as u32;
        let mut missing: HashMap<PlayerId, u32> = group.iter().map(|&p| (p, others)).collect();
        for (&(p, _), &(halves, n)) in &met {
            *score.get_mut(&p).unwrap() += halves * scale / n;
            *missing.get_mut(&p).unwrap() -= 1;
        }
        Encounters { scale, score, missing }
    }

    /// Ranks a tied group by direct encounter (C.07 Article 6): tiers, best first, the players
    /// of one tier still tied. When all of them met, their scores against each other rank them,
    /// and the article is applied again to each subgroup still level (6.2). In a Swiss event,
    /// when some did not meet, a player who stays alone on top whatever the missing games'
    /// results is ranked first, then the same for the next place, and the article is applied
    /// again to those left (6.3).
    pub(super) fn direct_encounter(&self, group: Vec<PlayerId>) -> Vec<Vec<PlayerId>> {
        if group.len() < 2 {
            return vec![group];
        }
        let table = self.encounters(&group);
        self.ranked_by_encounters(group, table)
    }

    /// [`Snapshot::direct_encounter`] with the group's table already worked out.
    fn ranked_by_encounters(&self, group: Vec<PlayerId>, table: Encounters) -> Vec<Vec<PlayerId>> {
        if group.len() < 2 {
            return vec![group];
        }
        let mut sorted = group.clone();
        sorted.sort_by_key(|p| std::cmp::Reverse(table.score[p]));
        if table.missing.values().all(|&m| m == 0) {
            let mut tiers: Vec<Vec<PlayerId>> = Vec::new();
            for p in sorted {
                match tiers.last_mut() {
                    Some(tier) if table.score[&tier[0]] == table.score[&p] => tier.push(p),
                    _ => tiers.push(vec![p]),
                }
            }
            if tiers.len() == 1 {
                return tiers;
            }
            return tiers.into_iter().flat_map(|t| self.direct_encounter(t)).collect();
        }
        if self.row.format != Format::Swiss {
            return vec![group];
        }
        // A missing game won is worth a win against them.
        let best = |p: &PlayerId| table.score[p] + table.missing[p] * 2 * table.scale;
        let mut ranked: Vec<Vec<PlayerId>> = Vec::new();
        let mut rest = sorted;
        while rest.len() >= 2 && rest[1..].iter().all(|o| table.score[&rest[0]] > best(o)) {
            ranked.push(vec![rest.remove(0)]);
        }
        if ranked.is_empty() {
            return vec![rest];
        }
        ranked.extend(self.direct_encounter(rest));
        ranked
    }
}
