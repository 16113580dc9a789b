//! Standings, their picture, the pairings of a round, and results set by the organiser.

use super::*;

impl<S: Store> Service<S> {
    pub(in crate::service) fn standings(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, false, false)?;
        let snapshot = self.snapshot(&t)?;
        if t.status == TournamentStatus::Open {
            let names: Vec<String> = snapshot.entries.iter().map(|e| e.name.clone()).collect();
            return Ok(vec![Reply::text(format!(
                "t{} {} has not started; {} entered: {}",
                t.id,
                t.name,
                names.len(),
                if names.is_empty() { "nobody yet".into() } else { names.join(", ") }
            ))]);
        }
        let progress = if snapshot.round_complete() {
            format!("after round {} of {}", t.current_round, t.rounds)
        } else {
            format!("round {} of {} in play", t.current_round, t.rounds)
        };
        let head = format!(
            "t{} {} ({} {}), {}, {progress}",
            t.id,
            t.name,
            t.variant,
            t.format.name(),
            t.status.name()
        );
        let text = if t.format == Format::Knockout {
            format!("{head}\n{}", bracket_text(&snapshot))
        } else {
            format!("{head}\n```\n{}```", snapshot.standings().text(40))
        };
        let mut reply = Reply::text(text);
        reply.image = self.standings_picture(&snapshot);
        Ok(vec![reply])
    }

    /// The standings as a picture: a crosstable for a round robin, a table for a Swiss, a
    /// bracket for a knockout.
    pub(in crate::service) fn standings_picture(&self, s: &Snapshot) -> Option<Vec<u8>> {
        use tessera_render::tables as pic;
        let opts = pic::TableOptions { theme: self.render.theme, ..pic::TableOptions::default() };
        let t = &s.row;
        let finished_rounds =
            if s.round_complete() { t.current_round } else { t.current_round.saturating_sub(1) };
        let standings = s.standings();
        let tb_names: Vec<String> = standings.tie_breaks.iter().map(|tb| tb.short().to_string()).collect();
        let tb_values = |line: &crate::tournament::StandingLine| -> Vec<f64> {
            standings
                .tie_breaks
                .iter()
                .zip(&line.tie_breaks)
                .map(|(tb, v)| if tb.is_count() { f64::from(*v) } else { f64::from(*v) / 4.0 })
                .collect()
        };
        let rating = |r: i64| u32::try_from(r).ok().filter(|r| *r > 0);
        let result = match t.format {
            Format::Swiss => {
                let table = pic::StandingsTable {
                    title: t.name.clone(),
                    variant: t.variant.clone(),
                    round: finished_rounds,
                    rounds: t.rounds,
                    tie_breaks: tb_names,
                    rows: standings
                        .lines
                        .iter()
                        .map(|l| pic::StandingsRow {
                            rank: l.rank,
                            name: l.name.clone(),
                            rating: rating(l.rating),
                            provisional: false,
                            points: f64::from(l.halves) / 2.0,
                            tie_breaks: tb_values(l),
                            withdrawn: l.withdrawn,
                        })
                        .collect(),
                };
                pic::render_standings_png(&table, &opts)
            }
            Format::RoundRobin | Format::DoubleRoundRobin => {
                let order: Vec<PlayerId> = standings.lines.iter().map(|l| l.player).collect();
                let players = standings
                    .lines
                    .iter()
                    .map(|l| pic::CrosstablePlayer {
                        name: l.name.clone(),
                        rating: rating(l.rating),
                        provisional: false,
                        points: f64::from(l.halves) / 2.0,
                        tie_breaks: tb_values(l),
                        withdrawn: l.withdrawn,
                        results: order
                            .iter()
                            .map(|&other| {
                                s.cells
                                    .iter()
                                    .filter_map(|c| c.get(&l.player))
                                    .filter(|c| c.opponent == Some(other))
                                    .map(|c| picture_result(c.outcome))
                                    .collect()
                            })
                            .collect(),
                    })
                    .collect();
                let table = pic::Crosstable {
                    title: t.name.clone(),
                    variant: t.variant.clone(),
                    round: finished_rounds,
                    rounds: t.rounds,
                    double: t.format == Format::DoubleRoundRobin,
                    tie_breaks: tb_names,
                    players,
                };
                pic::render_crosstable_png(&table, &opts)
            }
            Format::Knockout => {
                let seed = |p: PlayerId| s.entries.iter().position(|e| e.player == p).map(|i| i as u32 + 1);
                let slot = |p: PlayerId| pic::BracketSlot::Player {
                    seed: seed(p),
                    name: s.entry(p).map_or("?".into(), |e| e.name.clone()),
                };
                let rounds = s
                    .matches
                    .iter()
                    .map(|round| pic::BracketRound {
                        name: String::new(),
                        matches: round
                            .iter()
                            .map(|m| {
                                let (mut top, mut bottom, mut decided) = (0u32, 0u32, 0);
                                for (white, outcome, _) in &m.legs {
                                    let halves = s.halves(*outcome);
                                    let other = 2u32.saturating_sub(halves);
                                    let counted = matches!(
                                        outcome,
                                        crate::tournament::Outcome::Win
                                            | crate::tournament::Outcome::Draw
                                            | crate::tournament::Outcome::Loss
                                            | crate::tournament::Outcome::ForfeitWin
                                            | crate::tournament::Outcome::ForfeitLoss
                                    );
                                    if !counted {
                                        continue;
                                    }
                                    decided += 1;
                                    if *white == m.higher {
                                        top += halves;
                                        bottom += other;
                                    } else {
                                        bottom += halves;
                                        top += other;
                                    }
                                }
                                let winner = m.winner().map(|w| {
                                    if w == m.higher {
                                        pic::BracketSide::Top
                                    } else {
                                        pic::BracketSide::Bottom
                                    }
                                });
                                pic::BracketMatch {
                                    top: slot(m.higher),
                                    bottom: m.lower.map_or(pic::BracketSlot::Bye, slot),
                                    winner,
                                    score: if decided == 0 {
                                        String::new()
                                    } else {
                                        format!("{}–{}", points_text(top), points_text(bottom))
                                    },
                                }
                            })
                            .collect(),
                    })
                    .collect();
                let bracket = pic::Bracket { title: t.name.clone(), variant: t.variant.clone(), rounds };
                pic::render_bracket_png(&bracket, &opts)
            }
        };
        result.map_err(|e| tracing::warn!(tournament = t.id, "no standings picture: {e}")).ok()
    }

    pub(in crate::service) fn pairings(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        round: Option<u32>,
    ) -> Replies {
        let t = self.pick_tournament(msg, id, false, false)?;
        let round = round.unwrap_or(t.current_round);
        if round == 0 || round > t.current_round {
            return Err(format!(
                "t{} has paired {} round{} so far",
                t.id,
                t.current_round,
                if t.current_round == 1 { "" } else { "s" }
            ));
        }
        // Each game's result as the tournament states it (a forfeit as one), kept in the game.
        let (snapshot, Played { results: stated, .. }) = self.snapshot_with_games(&t)?;
        let mut lines = vec![format!("t{} {}, round {round} of {}:", t.id, t.name, t.rounds)];
        for p in self.store.pairings(t.id).map_err(internal)?.iter().filter(|p| p.round == round) {
            let name = |id: PlayerId| snapshot.entry(id).map_or("?".to_string(), |e| e.name.clone());
            // The row's own result: a player's cell holds only their last game of the round,
            // the replay of a drawn knockout game.
            let state = match snapshot.pairing_outcome(p) {
                Some(crate::tournament::Outcome::Pending) => "playing".to_string(),
                Some(o) => outcome_text(
                    o,
                    p.result.as_deref().or_else(|| p.game.and_then(|g| stated.get(&g)).map(String::as_str)),
                ),
                None => String::new(),
            };
            lines.push(match (p.kind, p.black) {
                (PairingKind::Game, Some(b)) => {
                    let game = p.game.map_or(String::new(), |g| format!("#{g} "));
                    let leg = if p.leg > 0 { format!(" (replay {})", p.leg) } else { String::new() };
                    format!("Board {}{leg}: {game}{} – {}: {state}", p.board, name(p.white), name(b))
                }
                (PairingKind::Bye, _) => format!("Bye: {}", name(p.white)),
                _ => format!("Free round: {}", name(p.white)),
            });
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    /// A pairing's result as it stands, in the tournament's notation: the game's, where it has one.
    pub(in crate::service) fn pairing_result(&self, p: &PairingRow) -> Result<Option<String>, String> {
        if let Some(result) = &p.result {
            return Ok(Some(result.clone()));
        }
        let Some(game) = p.game else { return Ok(None) };
        let row = self.store.game(game).map_err(internal)?.ok_or("the game has vanished")?;
        Ok(row.result.map(|r| tournament_result(&r, row.result_reason.as_deref())))
    }

    pub(in crate::service) fn set_result(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        game: i64,
        result: &str,
        reason: &str,
        correct: bool,
    ) -> Replies {
        let t = match id {
            Some(_) => self.pick_tournament(msg, id, false, true)?,
            None => {
                let (tid, _) = self
                    .store
                    .tournament_of_game(game)
                    .map_err(internal)?
                    .ok_or_else(|| format!("game #{game} is not a tournament game"))?;
                self.pick_tournament(msg, Some(tid), false, true)?
            }
        };
        self.require_admin(msg, &t)?;
        if !t.status.is_live() {
            return Err(format!("t{} is {}; its results stand", t.id, t.status.name()));
        }
        let pairing = self
            .store
            .pairings(t.id)
            .map_err(internal)?
            .into_iter()
            .find(|p| p.game == Some(game))
            .ok_or_else(|| format!("game #{game} is not in t{}", t.id))?;
        let before = self.pairing_result(&pairing)?;
        if before.as_deref() == Some(result) {
            return Err(format!("game #{game} is already {result}; nothing changed"));
        }
        if let (Some(set), false) = (&before, correct) {
            return Err(format!(
                "game #{game} already has a result, {set}; nothing changed. To change it, say `!t tournament result #{game} {result} correct`"
            ));
        }
        let players = self.names(&[pairing.white, pairing.black.unwrap_or(pairing.white)])?;
        let verb = if before.is_some() { "corrected" } else { "set" };
        let text = format!(
            "t{}: game #{game}, {} vs {}, is {verb} to {result} ({reason}).",
            t.id, players[0].name, players[1].name
        );
        let notify = players.iter().map(|p| p.user_id.clone()).collect();
        let claim = self.new_claim();
        let notice = Announcement::text(text, notify).notice(&t, Some(&claim));
        // Set only if it is still what was read: of two organisers at once, one wins.
        match self
            .store
            .set_pairing_result(
                t.id,
                pairing.at(),
                &ResultSetting { result, reason, now: msg.now, expected: Some(before.as_deref()) },
                &[notice],
            )
            .map_err(internal)?
        {
            SetResult::Set => {}
            SetResult::NoPairing => return Err(format!("game #{game} is not in t{}", t.id)),
            SetResult::Changed(now) => {
                return Err(format!(
                    "game #{game} was set to {} a moment ago, by someone else or by play; yours was not applied. Send it again to correct that result",
                    now.as_deref().unwrap_or("no result")
                ));
            }
        }
        self.games.forget(game);
        let mut replies = self.held_replies(&claim);
        replies.extend(self.move_on(t.id, msg.now)?);
        Ok(replies)
    }
}

fn picture_result(o: crate::tournament::Outcome) -> tessera_render::tables::GameResult {
    use crate::tournament::Outcome as O;
    use tessera_render::tables::GameResult as G;
    match o {
        O::Win => G::Win,
        O::Draw => G::Draw,
        O::Loss => G::Loss,
        O::ForfeitWin => G::ForfeitWin,
        O::ForfeitLoss => G::ForfeitLoss,
        _ => G::Pending,
    }
}

fn outcome_text(outcome: crate::tournament::Outcome, stated: Option<&str>) -> String {
    use crate::tournament::Outcome as O;
    let forfeit = stated.is_some_and(|r| matches!(r, "+-" | "-+" | "--"));
    match outcome {
        O::Win if !forfeit => "1-0".into(),
        O::Loss if !forfeit => "0-1".into(),
        O::Draw => "½-½".into(),
        O::ForfeitWin => "+ – − (forfeit)".into(),
        O::ForfeitLoss if stated == Some("--") => "− – − (double forfeit)".into(),
        O::ForfeitLoss => "− – + (forfeit)".into(),
        _ => stated.unwrap_or("").to_string(),
    }
}

/// A knockout as text: each round's matches and who went through.
fn bracket_text(s: &Snapshot) -> String {
    let name = |id: PlayerId| s.entry(id).map_or("?".to_string(), |e| e.name.clone());
    let mut out = String::new();
    for (i, round) in s.matches.iter().enumerate() {
        out.push_str(&format!("Round {}:\n", i + 1));
        for m in round {
            let Some(lower) = m.lower else {
                out.push_str(&format!("  {} — bye\n", name(m.higher)));
                continue;
            };
            let games: Vec<&str> = m
                .legs
                .iter()
                .map(|(white, o, _)| {
                    let for_higher = if *white == m.higher { *o } else { o.flipped() };
                    match for_higher {
                        crate::tournament::Outcome::Win | crate::tournament::Outcome::ForfeitWin => "1-0",
                        crate::tournament::Outcome::Loss | crate::tournament::Outcome::ForfeitLoss => "0-1",
                        crate::tournament::Outcome::Draw => "½-½",
                        _ => "…",
                    }
                })
                .collect();
            let through = m.winner().map_or(String::new(), |w| format!(" → {}", name(w)));
            out.push_str(&format!("  {} – {}: {}{through}\n", name(m.higher), name(lower), games.join(", ")));
        }
    }
    out
}
