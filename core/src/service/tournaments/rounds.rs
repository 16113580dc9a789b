//! A tournament moving on by itself: rounds paired when the last result is in (or at start-up),
//! and what is announced then.

use super::*;

impl<S: Store> Service<S> {
    /// Moves a tournament on after a change, and says what came of it: at once, its
    /// announcements as part of the answer (the local mode, tests); or, on the pairing worker
    /// (chat), a word that the next round is being paired, the pairings posted when they are.
    pub(in crate::service) fn move_on(&self, t: i64, now: i64) -> Replies {
        if self.pair_on_worker {
            self.tournaments.push(t);
            let Some(row) = self.store.tournament(t).map_err(internal)? else { return Ok(Vec::new()) };
            if row.status != TournamentStatus::Running {
                return Ok(Vec::new());
            }
            let snapshot = self.snapshot(&row)?;
            if !snapshot.round_complete() || snapshot.finished() {
                return Ok(Vec::new());
            }
            return Ok(vec![Reply::text(format!(
                "t{}: round {} is being paired; the pairings follow here in a moment.",
                row.id,
                row.current_round + 1
            ))]);
        }
        let claim = self.new_claim();
        self.advance(t, now, Some(&claim))?;
        Ok(self.held_replies(&claim))
    }

    /// The pairing worker's step: the next queued tournament moved on, its notices left for the
    /// outbox. False once the queue is closed.
    pub fn pairing_step(&self) -> bool {
        let Some((t, _)) = self.tournaments.pop_wait() else { return false };
        if let Err(e) = self.advance(t, unix_now(), None) {
            tracing::error!(tournament = t, "the tournament could not move on: {e}");
        }
        self.ring_bells();
        true
    }

    /// The tournaments waiting for the pairing worker.
    pub fn tournament_queue(&self) -> &crate::queue::Queue {
        &self.tournaments
    }

    /// At start-up: every running tournament of `platforms` is moved on, so a round whose last
    /// result a crash left unpaired is paired now (on the worker in chat mode), and starts that
    /// fell due meanwhile are made. Returns how many tournaments were looked at.
    pub fn resume_tournaments(&self, platforms: &[&str]) -> Result<usize> {
        let served = |p: &str| platforms.contains(&p);
        self.tournament_tick(unix_now(), &served)
    }

    /// Moves a tournament on as far as its games allow: replays of drawn knockout games, players
    /// out after two losses on time, the next round, the end. Each announcement is stored with
    /// its change (with `claim`, held for the caller to post in its answer). Pairs at most one
    /// round per completed round; a lost race with another process pairs and announces nothing.
    pub(in crate::service) fn advance(&self, id: i64, now: i64, claim: Option<&Claim>) -> Result<(), String> {
        for _ in 0..64 {
            let Some(t) = self.store.tournament(id).map_err(internal)? else { break };
            if t.status != TournamentStatus::Running {
                break;
            }
            let (snapshot, played) = self.snapshot_with_games(&t)?;
            let variant = self.tournament_variant(&t)?;
            let start_fen = Position::start(variant).fen();
            let template = GameTemplate {
                platform: &t.platform,
                channel: &t.channel,
                variant: variant.name(),
                start_fen: &start_fen,
                days_per_move: t.days_per_move,
                rated: t.rated,
                now,
                definition: StoredDefinition::of(variant),
            };
            if t.format == Format::Knockout && t.current_round > 0 {
                let mut replayed = false;
                for leg in snapshot.replays() {
                    let names = self.names(&[leg.white, leg.black.unwrap_or(leg.white)])?;
                    // `{game}`: the replay's number, known once the store has created it.
                    let text = format!(
                        "t{} round {}, board {}: the game was drawn, so it is replayed with colours reversed: game #{{game}}, {} (white) vs {} (black).",
                        t.id, t.current_round, leg.board, names[0].name, names[1].name
                    );
                    let notify = names.iter().map(|p| p.user_id.clone()).collect();
                    let notice = Announcement::text(text, notify).notice(&t, claim);
                    if self
                        .store
                        .add_leg(t.id, t.current_round, &leg, &template, &[notice])
                        .map_err(internal)?
                        .is_some()
                    {
                        replayed = true;
                    }
                }
                if replayed {
                    break;
                }
            }
            if !snapshot.round_complete() {
                break;
            }
            // Two losses on time in a row: out of the tournament.
            let timed_out = snapshot.lost_twice_on_time(&played.time_losses);
            if !timed_out.is_empty() {
                for p in timed_out {
                    let reason = "lost two games in a row on time";
                    let player = self.names(&[p])?.remove(0);
                    let text = format!("{} is withdrawn from t{}: {reason}.", player.name, t.id);
                    let notice = Announcement::text(text, vec![player.user_id]).notice(&t, claim);
                    self.store
                        .withdraw_entrant(t.id, p, t.current_round, reason, now, &[notice])
                        .map_err(internal)?;
                }
                continue;
            }
            if snapshot.finished() {
                let notice = self.final_announcement(&snapshot).notice(&t, claim);
                self.store
                    .set_tournament_status(
                        t.id,
                        &[TournamentStatus::Running],
                        TournamentStatus::Finished,
                        &[notice],
                    )
                    .map_err(internal)?;
                break;
            }
            let pairings = match snapshot.next_round() {
                Ok(p) => p,
                Err(why) => {
                    // Nothing can be paired: stop and tell the organiser rather than loop.
                    let text = format!(
                        "t{} is paused: {why}. The organiser can withdraw players or set results, then `!t tournament resume`.",
                        t.id
                    );
                    let notice = Announcement::text(text, Vec::new()).notice(&t, claim);
                    self.store
                        .set_tournament_status(
                            t.id,
                            &[TournamentStatus::Running],
                            TournamentStatus::Paused,
                            &[notice],
                        )
                        .map_err(internal)?;
                    break;
                }
            };
            let round = t.current_round + 1;
            // Seeds are fixed when the first round is paired, by the ratings then.
            let seeds: Vec<(PlayerId, i64)> = if round == 1 {
                let ratings = self.ratings()?;
                snapshot
                    .entries
                    .iter()
                    .map(|e| (e.player, ratings.get(variant.name(), e.player).rating.round() as i64))
                    .collect()
            } else {
                Vec::new()
            };
            // The pairings are read from the store when the notice is posted.
            let notice = NewNotice {
                kind: NoticeKind::Round,
                subject: Some(t.id),
                round: Some(round),
                ..NewNotice::text(&t.platform, &t.channel, "", Vec::new())
            }
            .claimed(claim);
            if !self
                .store
                .pair_round(t.id, round, &seeds, &pairings, &template, &[notice])
                .map_err(internal)?
            {
                break;
            }
        }
        Ok(())
    }

    /// The tournament as it stood before `round` was paired.
    pub(in crate::service) fn snapshot_before(
        &self,
        t: &TournamentRow,
        round: u32,
    ) -> Result<Snapshot, String> {
        let mut row = t.clone();
        row.current_round = round - 1;
        let (snapshot, _) = self.snapshot_with_games(&row)?;
        Ok(snapshot)
    }

    pub(in crate::service) fn names(&self, ids: &[PlayerId]) -> Result<Vec<Player>, String> {
        ids.iter()
            .map(|&id| {
                self.store
                    .player_by_id(id)
                    .map_err(internal)?
                    .ok_or_else(|| "a player has vanished".to_string())
            })
            .collect()
    }

    /// The pairings of a round just made, naming every player.
    pub(in crate::service) fn round_announcement(&self, id: i64, round: u32) -> Result<Announcement, String> {
        let t = self.store.tournament(id).map_err(internal)?.ok_or("the tournament has vanished")?;
        let pairings = self.store.pairings(id).map_err(internal)?;
        let mut lines =
            vec![format!("t{} {}: round {round} of {} is paired. Good luck!", t.id, t.name, t.rounds)];
        let mut notify = Vec::new();
        let mut direct = Vec::new();
        for p in pairings.iter().filter(|p| p.round == round) {
            let white = self.names(&[p.white])?.remove(0);
            notify.push(white.user_id.clone());
            let line = match (p.kind, p.black) {
                (PairingKind::Game, Some(black)) => {
                    let black = self.names(&[black])?.remove(0);
                    notify.push(black.user_id.clone());
                    if let Some(game) = p.game {
                        for (me, other, colour) in [(&white, &black, "White"), (&black, &white, "Black")] {
                            direct.push((
                                me.user_id.clone(),
                                format!(
                                    "t{} {}, round {round}: your game #{game} against {} has begun; you play {colour}. \
                                     Play it in the tournament's channel.",
                                    t.id, t.name, other.name
                                ),
                            ));
                        }
                    }
                    match (&p.game, &p.result) {
                        (Some(game), _) => format!(
                            "Board {}: game #{game}, {} (white) vs {} (black)",
                            p.board, white.name, black.name
                        ),
                        (None, result) => format!(
                            "Board {}: {} vs {}: {} by forfeit",
                            p.board,
                            white.name,
                            black.name,
                            result.as_deref().unwrap_or("?")
                        ),
                    }
                }
                (PairingKind::Bye, _) => {
                    format!(
                        "Bye: {} ({} point{})",
                        white.name,
                        points_text(t.bye_halves),
                        if t.bye_halves == 2 { "" } else { "s" }
                    )
                }
                _ => format!("Free round: {}", white.name),
            };
            lines.push(line);
        }
        if t.days_per_move.is_some() {
            lines.push(format!(
                "{} days per move. Play your moves in this channel.",
                t.days_per_move.unwrap_or(0)
            ));
        }
        Ok(Announcement { text: lines.join("\n"), notify, image: None, direct })
    }

    pub(in crate::service) fn final_announcement(&self, snapshot: &Snapshot) -> Announcement {
        let standings = snapshot.standings();
        let mut text = format!("t{} {} is over.", snapshot.row.id, snapshot.row.name);
        match snapshot.row.format {
            Format::Knockout => {
                if let Some(winner) = snapshot.matches.last().and_then(|m| m.first()).and_then(|m| m.winner())
                {
                    let name = snapshot.entry(winner).map_or("?", |e| e.name.as_str());
                    text.push_str(&format!(" {name} wins the knockout!"));
                }
            }
            _ => {
                if let Some(first) = standings.lines.first() {
                    text.push_str(&format!(
                        " {} wins with {} points!",
                        first.name,
                        points_text(first.halves)
                    ));
                }
                text.push_str(&format!("\n```\n{}```", standings.text(20)));
            }
        }
        Announcement { text, notify: Vec::new(), image: None, direct: Vec::new() }
    }
}
