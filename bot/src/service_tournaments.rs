//! Tournaments and ratings in the game service: the chat commands, and moving a tournament on by
//! itself when the last game of a round ends (or on the clock's tick).
//!
//! Every change is committed before it is announced, and its announcement is stored with it: a
//! round is paired, stored, its games created and its notice written in one transaction
//! ([`TournamentStore::pair_round`]); only the process whose transaction moved the round counter
//! wrote the notice, and the outbox posts it ([`crate::outbox`]). Chat mode pairs on a worker
//! thread ([`crate::practice::Worker::pairing`]), so a large round never holds up an answer.

use std::collections::HashMap;

use super::*;
use crate::commands::{TournamentCommand, TournamentRef, TournamentSettings};
use crate::outbox::{Claim, NewNotice, NoticeKind};
use crate::ratings::Ratings;
use crate::store::{GameId, PlayerId};
use crate::tournament::{Entry, Snapshot, points_text};
use crate::tournament_store::{
    Entry as EntryOutcome, Format, GameTemplate, NewTournament, PairingKind, PairingRow, ResultSetting,
    SetResult, TournamentRow, TournamentStatus, tournament_result,
};

/// The most players a format takes: a round robin's crosstable stays readable, a Swiss or a
/// knockout pairs within a command's patience.
pub fn most_players(format: Format) -> usize {
    match format {
        Format::RoundRobin | Format::DoubleRoundRobin => 16,
        Format::Swiss | Format::Knockout => tessera_pairing::MAX_PLAYERS,
    }
}

/// Something the tournament says on its own: the next round, a withdrawal, the winner.
struct Announcement {
    text: String,
    notify: Vec<String>,
    /// The standings after the round before, where there is one.
    image: Option<Vec<u8>>,
    /// Each player's own word, privately where the platform can.
    direct: Vec<(String, String)>,
}

impl Announcement {
    fn reply(self) -> Reply {
        Reply {
            text: self.text,
            notify: self.notify,
            image: self.image,
            direct: self.direct,
            ..Reply::default()
        }
    }

    /// As a notice stored in the tournament's channel.
    fn notice(self, t: &TournamentRow, claim: Option<&Claim>) -> NewNotice {
        NewNotice::text(&t.platform, &t.channel, self.text, self.notify).claimed(claim)
    }

    fn text(text: String, notify: Vec<String>) -> Announcement {
        Announcement { text, notify, image: None, direct: Vec::new() }
    }
}

/// A tournament's finished games, as its snapshot read them.
struct Played {
    /// Each game's result in the tournament's notation (a forfeit as one).
    results: HashMap<GameId, String>,
    /// The loser of each game lost on time (for the two-in-a-row rule).
    time_losses: HashMap<GameId, PlayerId>,
}

/// Live tournaments one player may run in a channel, and a channel may hold.
const MAX_LIVE_TOURNAMENTS_EACH: usize = 3;
const MAX_LIVE_TOURNAMENTS_CHANNEL: usize = 20;
/// Tournaments `!t tournaments` lists on one page.
const TOURNAMENTS_PER_PAGE: usize = 10;
/// A name that does not resolve to an entrant is answered with at most this many near names.
const NEAR_NAMES: usize = 5;

/// Live statuses in which players may still join a tournament.
const JOINABLE: [TournamentStatus; 3] =
    [TournamentStatus::Open, TournamentStatus::Running, TournamentStatus::Paused];

impl<S: Store> Service<S> {
    /// A tournament as FIDE TRF-16 (for `tessera tournament export`).
    pub fn export_trf(&self, id: i64) -> Result<String, String> {
        let t = self
            .store
            .tournament(id)
            .map_err(internal)?
            .ok_or_else(|| format!("there is no tournament t{id}"))?;
        Ok(self.snapshot(&t)?.to_trf())
    }

    /// Tournaments in the author's channel, live ones first, for autocomplete; the value is the
    /// tournament's number.
    pub fn suggest_tournaments(&self, msg: &Incoming, typed: &str, limit: usize) -> Vec<Suggestion> {
        let Ok(mut all) = self.store.channel_tournaments(msg.platform, msg.channel) else {
            return Vec::new();
        };
        all.sort_by_key(|t| (!t.status.is_live(), -t.id));
        let typed = typed.trim().trim_start_matches(['t', 'T', '#']).to_lowercase();
        all.into_iter()
            .map(|t| {
                let label =
                    format!("t{} {}: {} {}, {}", t.id, t.name, t.variant, t.format.name(), t.status.name());
                Suggestion { label, value: t.id.to_string() }
            })
            .filter(|s| s.label.to_lowercase().contains(&typed))
            .take(limit)
            .collect()
    }

    pub(super) fn tournament_command(&self, msg: &Incoming, cmd: TournamentCommand) -> Replies {
        match cmd {
            TournamentCommand::Create(settings) => self.create_tournament(msg, settings),
            TournamentCommand::List(page) => self.list_tournaments(msg, page),
            TournamentCommand::Join(t) => self.join_tournament(msg, t),
            TournamentCommand::Leave(t) => self.leave_tournament(msg, t),
            TournamentCommand::Start(t) => self.start_tournament(msg, t),
            TournamentCommand::Standings(t) => self.standings(msg, t),
            TournamentCommand::Pairings(t, round) => self.pairings(msg, t, round),
            TournamentCommand::Withdraw(t, name) => self.withdraw(msg, t, name.as_deref()),
            TournamentCommand::Result { tournament, game, result, reason, correct } => {
                self.set_result(msg, tournament, game, &result, &reason, correct)
            }
            TournamentCommand::Pause(t) => self.pause_or_resume(msg, t, true),
            TournamentCommand::Resume(t) => self.pause_or_resume(msg, t, false),
            TournamentCommand::Cancel(t) => self.cancel_tournament(msg, t),
            TournamentCommand::Export(t) => {
                let t = self.pick_tournament(msg, t, false, false)?;
                let snapshot = self.snapshot(&t)?;
                Ok(vec![Reply::text(format!("```\n{}```", snapshot.to_trf()))])
            }
        }
    }

    /// The tournament a command is about: the one named, or the one still to be played here. A
    /// tournament is `acting` on (joined, run, its results set) only in its own channel; its
    /// standings and pairings may be read anywhere on its platform.
    fn pick_tournament(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        live_only: bool,
        acting: bool,
    ) -> Result<TournamentRow, String> {
        if let Some(id) = id {
            let t = self
                .store
                .tournament(id)
                .map_err(internal)?
                .filter(|t| t.platform == msg.platform)
                .ok_or_else(|| format!("there is no tournament t{id}"))?;
            if acting && t.channel != msg.channel {
                return Err(format!(
                    "t{id} belongs to another channel: it is joined and run only there. Here, `!t tournament standings t{id}` shows how it stands"
                ));
            }
            return Ok(t);
        }
        let all = self.store.channel_tournaments(msg.platform, msg.channel).map_err(internal)?;
        let live: Vec<&TournamentRow> = all.iter().filter(|t| t.status.is_live()).collect();
        match (live.as_slice(), live_only) {
            ([one], _) => Ok((*one).clone()),
            ([], false) if !all.is_empty() => Ok(all[all.len() - 1].clone()),
            ([], _) => Err(
                "there is no tournament in this channel; create one with `!t tournament create swiss hans38 rounds 5`"
                    .into(),
            ),
            (many, _) => {
                let list: Vec<String> = many.iter().map(|t| format!("t{} ({})", t.id, t.name)).collect();
                Err(format!(
                    "this channel has {} tournaments: {}. Name one, like `!t tournament standings t{}`",
                    many.len(),
                    list.join(", "),
                    many[0].id
                ))
            }
        }
    }

    /// The organiser, or an administrator of the tournament's own channel (Discord: its server).
    /// Commands reach here only from that channel ([`Self::pick_tournament`]), where the
    /// platform's `is_admin` is about the right room.
    fn may_administer(&self, msg: &Incoming, me: &Player, t: &TournamentRow) -> bool {
        msg.channel == t.channel && msg.platform == t.platform && (msg.is_admin || me.id == t.organiser)
    }

    fn require_admin(&self, msg: &Incoming, t: &TournamentRow) -> Result<Player, String> {
        let me = self.me(msg)?;
        if !self.may_administer(msg, &me, t) {
            let organiser = self.store.player_by_id(t.organiser).map_err(internal)?;
            return Err(format!(
                "only the organiser ({}) or a moderator of this channel can do that",
                organiser.map_or("unknown".into(), |p| p.name)
            ));
        }
        Ok(me)
    }

    /// The stored facts of a tournament, brought together.
    fn snapshot(&self, t: &TournamentRow) -> Result<Snapshot, String> {
        Ok(self.snapshot_with_games(t)?.0)
    }

    /// The snapshot, and what it was made of: each game's result, and who lost on time.
    fn snapshot_with_games(&self, t: &TournamentRow) -> Result<(Snapshot, Played), String> {
        let entries: Vec<Entry> = self
            .store
            .entrants(t.id)
            .map_err(internal)?
            .into_iter()
            .map(|e| Entry {
                player: e.player,
                name: e.name,
                seed_rating: e.seed_rating,
                joined_at: e.joined_at,
                first_round: e.first_round,
                withdrawn_after: e.withdrawn_after,
            })
            .collect();
        // Rounds up to the row's own (all of them, unless it is a look at an earlier moment).
        let mut pairings = self.store.pairings(t.id).map_err(internal)?;
        pairings.retain(|p| p.round <= t.current_round);
        // Results only: replaying or even loading each game's moves would cost a tournament's
        // every game on each game end.
        let mut results = HashMap::new();
        let mut time_losses = HashMap::new();
        for g in self.store.finished_games(t.id).map_err(internal)? {
            if g.reason.as_deref() == Some("time") {
                time_losses.insert(g.game, if g.result == "1-0" { g.black } else { g.white });
            }
            results.insert(g.game, tournament_result(&g.result, g.reason.as_deref()));
        }
        Ok((Snapshot::new(t.clone(), entries, &pairings, &results), Played { results, time_losses }))
    }

    fn ratings(&self) -> Result<Ratings, String> {
        Ok(Ratings::compute(&self.store.rated_results().map_err(internal)?))
    }

    fn create_tournament(&self, msg: &Incoming, s: TournamentSettings) -> Replies {
        let me = self.me(msg)?;
        let name = s
            .name
            .as_deref()
            .and_then(crate::names::title)
            .unwrap_or_else(|| format!("{} {}", s.variant, s.format.name()));
        let rounds = s.rounds.unwrap_or(0);
        let most = most_players(s.format);
        if s.max_players.is_some_and(|m| m as usize > most) {
            return Err(format!("a {} takes at most {most} players", s.format.name()));
        }
        // As with challenges: a few live tournaments each, a bounded number per channel.
        let here = self.store.channel_tournaments(msg.platform, msg.channel).map_err(internal)?;
        let live: Vec<&TournamentRow> = here.iter().filter(|t| t.status.is_live()).collect();
        if live.iter().filter(|t| t.organiser == me.id).count() >= MAX_LIVE_TOURNAMENTS_EACH {
            return Err(format!(
                "you already run {MAX_LIVE_TOURNAMENTS_EACH} tournaments here that are not over; finish or cancel one first"
            ));
        }
        if live.len() >= MAX_LIVE_TOURNAMENTS_CHANNEL {
            return Err(format!(
                "this channel already has {MAX_LIVE_TOURNAMENTS_CHANNEL} tournaments that are not over; finish or cancel one first"
            ));
        }
        let id = self
            .store
            .create_tournament(&NewTournament {
                platform: msg.platform,
                channel: msg.channel,
                name: &name,
                organiser: me.id,
                variant: s.variant.name(),
                format: s.format,
                rounds,
                days_per_move: s.days,
                rated: s.rated,
                starts_at: s.starts_in.map(|d| msg.now + d),
                // The format's limit is kept with the tournament: an entry past it is refused in the
                // transaction that would add it.
                max_players: Some(s.max_players.unwrap_or(most as u32)),
                bye_halves: s.bye_halves,
                now: msg.now,
            })
            .map_err(internal)?;
        let mut details = vec![
            s.format.name().replace('-', " "),
            s.variant.name().to_string(),
            if s.rated { "rated".into() } else { "casual".into() },
        ];
        if rounds > 0 {
            details.push(format!("{rounds} rounds"));
        }
        details.push(s.days.map_or("no clock".into(), |d| format!("{d} days per move")));
        if let Some(max) = s.max_players {
            details.push(format!("at most {max} players"));
        }
        if s.bye_halves != 2 {
            details.push(format!("a bye scores {}", points_text(s.bye_halves)));
        }
        let start = match s.starts_in {
            Some(d) => format!(" It starts by itself in {}.", duration_text(d)),
            None => format!(" {} starts it with `!t tournament start`.", me.name),
        };
        let mut reply = Reply::text(format!(
            "Tournament t{id}, {name}: {}. Join with `!t tournament join`.{start}",
            details.join(", ")
        ));
        reply.actions = Some(Actions::Tournament(id));
        Ok(vec![reply])
    }

    fn list_tournaments(&self, msg: &Incoming, page: Option<u32>) -> Replies {
        let mut all = self.store.channel_tournaments(msg.platform, msg.channel).map_err(internal)?;
        if all.is_empty() {
            return Ok(vec![Reply::text(
                "No tournaments here yet. Create one with `!t tournament create swiss hans38 rounds 5`.",
            )]);
        }
        // Live ones first, newest first within each.
        all.sort_by_key(|t| (!t.status.is_live(), -t.id));
        let pages = all.len().div_ceil(TOURNAMENTS_PER_PAGE);
        let page = page.unwrap_or(1) as usize;
        if page == 0 || page > pages {
            return Err(format!(
                "there {} {pages} page{} of tournaments here; ask for one from 1 to {pages}",
                if pages == 1 { "is" } else { "are" },
                if pages == 1 { "" } else { "s" }
            ));
        }
        let mut lines = Vec::new();
        if pages > 1 {
            lines.push(format!("Tournaments here, page {page} of {pages} ({} in all):", all.len()));
        }
        for t in all.iter().skip((page - 1) * TOURNAMENTS_PER_PAGE).take(TOURNAMENTS_PER_PAGE) {
            let players = self.store.entrants(t.id).map_err(internal)?.len();
            let state = match t.status {
                TournamentStatus::Running | TournamentStatus::Paused => {
                    format!("{}, round {} of {}", t.status.name(), t.current_round, t.rounds)
                }
                other => other.name().to_string(),
            };
            lines.push(format!(
                "t{} {}: {} {}, {players} players, {state}",
                t.id,
                t.name,
                t.variant,
                t.format.name()
            ));
        }
        if page < pages {
            lines.push(format!("More: `!t tournaments {}`.", page + 1));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    fn join_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let me = self.me(msg)?;
        let t = self.pick_tournament(msg, id, true, true)?;
        let late = t.status != TournamentStatus::Open;
        // Tournaments made before the limit was stored with them.
        let most = most_players(t.format);
        if t.max_players.is_none() && self.store.entrants(t.id).map_err(internal)?.len() >= most {
            return Err(format!("t{} is full: a {} takes at most {most} players", t.id, t.format.name()));
        }
        if late {
            // Late entries: only a Swiss, until half its rounds have started; the rounds missed
            // count half a point each.
            if t.format != Format::Swiss {
                return Err(format!("t{} has started; a {} takes no late entries", t.id, t.format.name()));
            }
            if 2 * t.current_round >= t.rounds {
                return Err(format!(
                    "t{} is past half its rounds ({} of {} started); entries are closed",
                    t.id, t.current_round, t.rounds
                ));
            }
        }
        let variant: Variant =
            t.variant.parse().map_err(|_| "that tournament names an unknown variant".to_string())?;
        let seed = self.ratings()?.get(variant.name(), me.id).rating.round() as i64;
        let first_round = if late { t.current_round + 1 } else { 1 };
        match self.store.add_entrant(t.id, me.id, first_round, seed, &JOINABLE, msg.now).map_err(internal)? {
            EntryOutcome::Joined => {}
            EntryOutcome::AlreadyIn => return Err(format!("you are already in t{}", t.id)),
            EntryOutcome::Full => {
                return Err(format!(
                    "t{} is full: it takes at most {} players",
                    t.id,
                    t.max_players.unwrap_or(0)
                ));
            }
            EntryOutcome::Closed => return Err(format!("t{} takes no more entries", t.id)),
        }
        let count = self.store.entrants(t.id).map_err(internal)?.len();
        let missed = if late && t.current_round > 0 {
            format!(
                " Joining late, {} missed round{} count{} half a point each.",
                me.name,
                if t.current_round == 1 { "" } else { "s" },
                if t.current_round == 1 { "s" } else { "" }
            )
        } else {
            String::new()
        };
        let mut reply = Reply::text(format!(
            "{} joins t{} ({}): {count} player{} now.{missed}",
            me.name,
            t.id,
            t.name,
            if count == 1 { "" } else { "s" }
        ));
        reply.actions = (t.status == TournamentStatus::Open).then_some(Actions::Tournament(t.id));
        Ok(vec![reply])
    }

    fn leave_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let me = self.me(msg)?;
        let t = self.pick_tournament(msg, id, true, true)?;
        if t.status != TournamentStatus::Open {
            return Err(format!("t{} has started; withdraw with `!t tournament withdraw`", t.id));
        }
        if !self.store.remove_entrant(t.id, me.id).map_err(internal)? {
            return Err(format!("you are not in t{}", t.id));
        }
        Ok(vec![Reply::text(format!("{} leaves t{} ({}).", me.name, t.id, t.name))])
    }

    fn start_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, true, true)?;
        self.require_admin(msg, &t)?;
        if t.status != TournamentStatus::Open {
            return Err(format!("t{} has already started", t.id));
        }
        self.start(&t, None)?;
        self.move_on(t.id, msg.now)
    }

    /// Fixes the rounds and marks the tournament running; its first round is paired as any next
    /// one is ([`Self::advance`]), so a crash between the two leaves a round that any start-up
    /// or tick pairs.
    fn start(&self, t: &TournamentRow, notice: Option<NewNotice>) -> Result<(), String> {
        let n = self.store.entrants(t.id).map_err(internal)?.len();
        let least = if t.format.is_round_robin() { 3 } else { 2 };
        let most = most_players(t.format);
        if n < least || n > most {
            return Err(format!("a {} needs {least} to {most} players; t{} has {n}", t.format.name(), t.id));
        }
        let rounds = match t.format {
            Format::Swiss => t.rounds,
            Format::RoundRobin => (n + n % 2 - 1) as u32,
            Format::DoubleRoundRobin => 2 * (n + n % 2 - 1) as u32,
            Format::Knockout => Snapshot::knockout_rounds(n),
        };
        if rounds != t.rounds {
            self.store.set_tournament_rounds(t.id, rounds).map_err(internal)?;
        }
        let notices: Vec<NewNotice> = notice.into_iter().collect();
        if !self
            .store
            .set_tournament_status(t.id, &[TournamentStatus::Open], TournamentStatus::Running, &notices)
            .map_err(internal)?
        {
            return Err(format!("t{} has already started", t.id));
        }
        Ok(())
    }

    /// Moves a tournament on after a change, and says what came of it: at once, its
    /// announcements as part of the answer (the local mode, tests); or, on the pairing worker
    /// (chat), a word that the next round is being paired, the pairings posted when they are.
    fn move_on(&self, t: i64, now: i64) -> Replies {
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
        self.outbox_ready.notify_one();
        true
    }

    /// The tournaments waiting for the pairing worker.
    pub fn tournament_queue(&self) -> &crate::practice::Queue {
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
    fn advance(&self, id: i64, now: i64, claim: Option<&Claim>) -> Result<(), String> {
        for _ in 0..64 {
            let Some(t) = self.store.tournament(id).map_err(internal)? else { break };
            if t.status != TournamentStatus::Running {
                break;
            }
            let (snapshot, played) = self.snapshot_with_games(&t)?;
            let variant: Variant =
                t.variant.parse().map_err(|_| "the tournament names an unknown variant".to_string())?;
            let start_fen = Position::start(variant).fen();
            let template = GameTemplate {
                platform: &t.platform,
                channel: &t.channel,
                variant: variant.name(),
                start_fen: &start_fen,
                days_per_move: t.days_per_move,
                rated: t.rated,
                now,
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

    /// A round's announcement as posted: its pairings, each player's own word, and from round 2
    /// on the standings before it.
    pub(super) fn round_reply(&self, id: i64, round: u32) -> Option<Reply> {
        let mut announcement = match self.round_announcement(id, round) {
            Ok(a) => a,
            Err(e) => {
                tracing::error!(tournament = id, round, "the round's announcement could not be made: {e}");
                return None;
            }
        };
        if round > 1
            && let Ok(Some(t)) = self.store.tournament(id)
            && let Ok(before) = self.snapshot_before(&t, round)
        {
            announcement.image = self.standings_picture(&before);
            announcement.text.push_str("\nStandings so far: `!t tournament standings`.");
        }
        Some(announcement.reply())
    }

    /// The tournament as it stood before `round` was paired.
    fn snapshot_before(&self, t: &TournamentRow, round: u32) -> Result<Snapshot, String> {
        let mut row = t.clone();
        row.current_round = round - 1;
        let (snapshot, _) = self.snapshot_with_games(&row)?;
        Ok(snapshot)
    }

    fn names(&self, ids: &[PlayerId]) -> Result<Vec<Player>, String> {
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
    fn round_announcement(&self, id: i64, round: u32) -> Result<Announcement, String> {
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

    fn final_announcement(&self, snapshot: &Snapshot) -> Announcement {
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

    /// After a game ends: the game as a GIF (unless the channel turned them off), and its
    /// tournament moved on, if it has one.
    /// The GIF goes with the first of `replies` (the one saying how the game ended).
    pub(super) fn after_game(&self, replies: &mut Vec<Reply>, game: GameId, now: i64) {
        if let Some(first) = replies.first_mut() {
            first.animation = self.game_gif(game);
        }
        self.tournament_after_game(replies, game, now);
    }

    /// The game's tournament, if it has one, moved on after the game ended.
    pub(super) fn tournament_after_game(&self, replies: &mut Vec<Reply>, game: GameId, now: i64) {
        let Ok(Some((t, _))) = self.store.tournament_of_game(game) else { return };
        match self.move_on(t, now) {
            Ok(more) => replies.extend(more),
            Err(e) => replies.push(Reply::text(format!("Tournament t{t}: {e}"))),
        }
    }

    /// A finished game, every position in turn, with its result; none where the channel said
    /// `!t channel gifs off`, for a game that never began, or one too long to animate.
    pub(super) fn game_gif(&self, game: GameId) -> Option<Vec<u8>> {
        let row = self.store.game(game).ok()??;
        let off = self.store.channel_setting(&row.platform, &row.channel, "gifs").ok()?;
        if off.as_deref() == Some("off") || row.moves.is_empty() {
            return None;
        }
        let loaded = self.load(row).ok()?;
        if loaded.game.moves().len() + 1 > tessera_render::MAX_GIF_FRAMES {
            return None;
        }
        let views = BoardView::of_game(&loaded.game);
        // Smaller than a board picture: a game is many frames. The names above and below, the
        // side to move marked; the result is in the message it comes with.
        let caption = tessera_render::Caption {
            names: [loaded.white.name.clone(), loaded.black.name.clone()],
            ..Default::default()
        };
        let opts = tessera_render::RenderOptions { size: 320, caption: Some(caption), ..self.render.clone() };
        tessera_render::render_gif(&views, &opts, 80).ok()
    }

    /// The tournaments' part of the clock's tick: starts that are due, rounds to pair. The
    /// announcements are stored for the outbox. Returns how many tournaments were looked at.
    pub(super) fn tournament_tick(&self, now: i64, served: &dyn Fn(&str) -> bool) -> Result<usize> {
        let live: Vec<TournamentRow> =
            self.store.live_tournaments()?.into_iter().filter(|t| served(&t.platform)).collect();
        for t in &live {
            if t.status == TournamentStatus::Open {
                if t.starts_at.is_none_or(|at| at > now) {
                    continue;
                }
                if let Err(why) = self.start(t, None) {
                    // Not enough players at the set time: cancelled, and said why.
                    let text = format!("t{} {} is cancelled: {why}.", t.id, t.name);
                    let notice = Announcement::text(text, Vec::new()).notice(t, None);
                    self.store.set_tournament_status(
                        t.id,
                        &[TournamentStatus::Open],
                        TournamentStatus::Cancelled,
                        &[notice],
                    )?;
                    continue;
                }
            }
            // On the pairing worker where there is one: a large round holds up no clock.
            if self.pair_on_worker {
                self.tournaments.push(t.id);
            } else if let Err(e) = self.advance(t.id, now, None) {
                tracing::error!(tournament = t.id, "the tournament could not move on: {e:#}");
            }
        }
        Ok(live.len())
    }

    fn standings(&self, msg: &Incoming, id: TournamentRef) -> Replies {
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
    fn standings_picture(&self, s: &Snapshot) -> Option<Vec<u8>> {
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

    fn pairings(&self, msg: &Incoming, id: TournamentRef, round: Option<u32>) -> Replies {
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

    /// Whom `withdraw` is about: a mention, a name (`@name` or plain) that must be an entrant's,
    /// `me`, or with nothing said, the author.
    fn withdraw_target(
        &self,
        msg: &Incoming,
        t: &TournamentRow,
        me: &Player,
        name: Option<&str>,
    ) -> Result<Player, String> {
        if let Some(user) = msg.mentions.first() {
            return self.store.player(msg.platform, &user.id, &user.name).map_err(internal);
        }
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else { return Ok(me.clone()) };
        if name.eq_ignore_ascii_case("me") || name.eq_ignore_ascii_case("myself") {
            return Ok(me.clone());
        }
        let wanted = name.trim_start_matches('@').to_lowercase();
        let entrants = self.store.entrants(t.id).map_err(internal)?;
        let matching: Vec<_> = entrants.iter().filter(|e| e.name.to_lowercase() == wanted).collect();
        if let [one] = matching.as_slice() {
            return self
                .store
                .player_by_id(one.player)
                .map_err(internal)?
                .ok_or_else(|| "that player has vanished".into());
        }
        let shown: String = name.chars().take(40).collect();
        if matching.len() > 1 {
            return Err(format!(
                "{} entrants of t{} are called \"{shown}\"; mention the one you mean, like `!t tournament withdraw @name`",
                matching.len(),
                t.id
            ));
        }
        // Near names: the entrants whose names contain what was typed, or the other way round.
        let near: Vec<&str> = entrants
            .iter()
            .filter(|e| {
                let n = e.name.to_lowercase();
                !wanted.is_empty()
                    && (n.contains(&wanted) || wanted.contains(&n) || strsim::levenshtein(&n, &wanted) <= 2)
            })
            .map(|e| e.name.as_str())
            .take(NEAR_NAMES)
            .collect();
        let hint =
            if near.is_empty() { String::new() } else { format!(" Did you mean {}?", near.join(", ")) };
        Err(format!(
            "nobody in t{} is called \"{shown}\", so nobody was withdrawn.{hint} Name an entrant (`!t tournament withdraw @name`), or say `!t tournament withdraw me` to withdraw yourself",
            t.id
        ))
    }

    fn withdraw(&self, msg: &Incoming, id: TournamentRef, name: Option<&str>) -> Replies {
        let me = self.me(msg)?;
        let t = self.pick_tournament(msg, id, true, true)?;
        let target = self.withdraw_target(msg, &t, &me, name)?;
        if target.id != me.id && !self.may_administer(msg, &me, &t) {
            return Err(
                "only the organiser or a moderator of this channel can withdraw another player".into()
            );
        }
        if t.status == TournamentStatus::Open {
            if !self.store.remove_entrant(t.id, target.id).map_err(internal)? {
                return Err(format!("{} is not in t{}", target.name, t.id));
            }
            return Ok(vec![Reply::text(format!("{} leaves t{} ({}).", target.name, t.id, t.name))]);
        }
        let by = if target.id == me.id { "withdrew" } else { "withdrawn by the organiser" };
        // `{forfeits}`: the games it forfeits, said by the store from what it recorded.
        let text =
            format!("{} is withdrawn from t{} and will not be paired again.{{forfeits}}", target.name, t.id);
        let notify = Vec::new();
        // Withdrawn, a game in progress lost by forfeit, and the notice, in one transaction.
        let claim = self.new_claim();
        let notice = Announcement::text(text, notify).notice(&t, Some(&claim));
        if self
            .store
            .withdraw_entrant(t.id, target.id, t.current_round, by, msg.now, &[notice])
            .map_err(internal)?
            .is_none()
        {
            return Err(format!("{} is not playing in t{}", target.name, t.id));
        }
        let mut replies = self.held_replies(&claim);
        replies.extend(self.move_on(t.id, msg.now)?);
        Ok(replies)
    }

    /// A pairing's result as it stands, in the tournament's notation: the game's, where it has one.
    fn pairing_result(&self, p: &PairingRow) -> Result<Option<String>, String> {
        if let Some(result) = &p.result {
            return Ok(Some(result.clone()));
        }
        let Some(game) = p.game else { return Ok(None) };
        let row = self.store.game(game).map_err(internal)?.ok_or("the game has vanished")?;
        Ok(row.result.map(|r| tournament_result(&r, row.result_reason.as_deref())))
    }

    fn set_result(
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

    fn pause_or_resume(&self, msg: &Incoming, id: TournamentRef, pause: bool) -> Replies {
        let t = self.pick_tournament(msg, id, true, true)?;
        self.require_admin(msg, &t)?;
        let (from, to) = if pause {
            (TournamentStatus::Running, TournamentStatus::Paused)
        } else {
            (TournamentStatus::Paused, TournamentStatus::Running)
        };
        if !self.store.set_tournament_status(t.id, &[from], to, &[]).map_err(internal)? {
            return Err(format!("t{} is {}, not {}", t.id, t.status.name(), from.name()));
        }
        let mut replies = vec![Reply::text(if pause {
            format!("t{} is paused: games in progress go on, no new round is paired.", t.id)
        } else {
            format!("t{} resumes.", t.id)
        })];
        if !pause {
            replies.extend(self.move_on(t.id, msg.now)?);
        }
        Ok(replies)
    }

    fn cancel_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, true, true)?;
        self.require_admin(msg, &t)?;
        let live = [TournamentStatus::Open, TournamentStatus::Running, TournamentStatus::Paused];
        let claim = self.new_claim();
        let text = format!(
            "t{} {} is cancelled. Games in progress may be played out; they no longer count for it.",
            t.id, t.name
        );
        let notice = Announcement::text(text, Vec::new()).notice(&t, Some(&claim));
        if !self
            .store
            .set_tournament_status(t.id, &live, TournamentStatus::Cancelled, &[notice])
            .map_err(internal)?
        {
            return Err(format!("t{} is already over", t.id));
        }
        Ok(self.held_replies(&claim))
    }

    pub(super) fn rating(&self, msg: &Incoming, variant: Option<Variant>) -> Replies {
        let who = match msg.mentions.first() {
            Some(u) => self.store.player(msg.platform, &u.id, &u.name).map_err(internal)?,
            None => self.me(msg)?,
        };
        let ratings = self.ratings()?;
        let text = match variant {
            Some(v) => {
                let r = ratings.get(v.name(), who.id);
                format!(
                    "{} in {v}: {} (deviation {:.0}; {} games: +{} ={} -{})",
                    who.name,
                    r.display(),
                    r.deviation,
                    r.games(),
                    r.wins,
                    r.draws,
                    r.losses
                )
            }
            None => {
                let all = ratings.of_player(who.id);
                if all.is_empty() {
                    format!("{} has no rated games yet; every variant starts at 1500?.", who.name)
                } else {
                    let list: Vec<String> = all
                        .iter()
                        .map(|(v, r)| format!("{v} {} ({} games)", r.display(), r.games()))
                        .collect();
                    format!("{}: {}", who.name, list.join(" · "))
                }
            }
        };
        Ok(vec![Reply::text(text)])
    }

    pub(super) fn leaderboard(&self, msg: &Incoming, variant: Option<Variant>) -> Replies {
        let results = self.store.rated_results().map_err(internal)?;
        let variant = match variant {
            Some(v) => v,
            None => {
                // The variant most played here.
                let mut counts: HashMap<&str, usize> = HashMap::new();
                for r in results.iter().filter(|r| r.platform == msg.platform && r.channel == msg.channel) {
                    *counts.entry(r.variant.as_str()).or_default() += 1;
                }
                let top = counts.into_iter().max_by_key(|(v, n)| (*n, std::cmp::Reverse(*v))).map(|(v, _)| v);
                match top.and_then(|v| v.parse::<Variant>().ok()) {
                    Some(v) => v,
                    None => {
                        return Ok(vec![Reply::text(
                            "No rated games here yet. Play one with `!t challenge @name hans38 rated`.",
                        )]);
                    }
                }
            }
        };
        // Players who played rated games of this variant here.
        let here: std::collections::HashSet<PlayerId> = results
            .iter()
            .filter(|r| r.platform == msg.platform && r.channel == msg.channel && r.variant == variant.name())
            .flat_map(|r| [r.white, r.black])
            .collect();
        let ratings = Ratings::compute(&results);
        let board = ratings.leaderboard(variant.name(), |p| here.contains(&p));
        if board.is_empty() {
            return Ok(vec![Reply::text(format!("No rated {variant} games here yet."))]);
        }
        let mut lines = vec![format!("{variant} leaderboard:")];
        for (i, (player, r)) in board.iter().take(20).enumerate() {
            let name = self.store.player_by_id(*player).map_err(internal)?.map_or("?".into(), |p| p.name);
            lines.push(format!("{:>2}. {name} {} ({} games)", i + 1, r.display(), r.games()));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    pub(super) fn profile(&self, msg: &Incoming) -> Replies {
        let who = match msg.mentions.first() {
            Some(u) => self.store.player(msg.platform, &u.id, &u.name).map_err(internal)?,
            None => self.me(msg)?,
        };
        let ratings = self.ratings()?;
        let mut lines = vec![format!("{}:", who.name)];
        let rated = ratings.of_player(who.id);
        if rated.is_empty() {
            lines.push("no rated games yet".into());
        }
        for (v, r) in &rated {
            lines.push(format!(
                "{v}: {} — {} games, +{} ={} -{}",
                r.display(),
                r.games(),
                r.wins,
                r.draws,
                r.losses
            ));
        }
        let recent = self.store.recent_games(who.id, 5).map_err(internal)?;
        if !recent.is_empty() {
            lines.push("Recent games:".into());
        }
        for g in recent.iter().rev() {
            let opponent = self
                .store
                .player_by_id(if g.white == who.id { g.black } else { g.white })
                .map_err(internal)?;
            let white = g.white == who.id;
            let colour = if white { "white" } else { "black" };
            // Told from the profile owner's side, not as a score.
            let had = if who.user_id == msg.author.id { "you".to_string() } else { who.name.clone() };
            let result = match (g.result.as_deref(), white) {
                (None, _) => "in play",
                (Some("1-0"), true) | (Some("0-1"), false) => "won",
                // A double forfeit (0-0) is lost by both.
                (Some("1-0"), false) | (Some("0-1"), true) | (Some("0-0"), _) => "lost",
                (Some(_), _) => "drawn",
            };
            lines.push(format!(
                "#{} {} vs {} ({had} had {colour}{}): {result}",
                g.id,
                g.variant,
                opponent.map_or("?".into(), |p| p.name),
                if g.rated { ", rated" } else { "" },
            ));
        }
        Ok(vec![Reply::text(lines.join("\n"))])
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

fn duration_text(seconds: i64) -> String {
    match seconds {
        s if s % 86_400 == 0 => format!("{} day{}", s / 86_400, if s == 86_400 { "" } else { "s" }),
        s if s % 3600 == 0 => format!("{} hour{}", s / 3600, if s == 3600 { "" } else { "s" }),
        s => format!("{} minutes", s / 60),
    }
}
