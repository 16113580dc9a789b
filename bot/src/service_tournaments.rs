//! Tournaments and ratings in the game service: the chat commands, and moving a tournament on by
//! itself when the last game of a round ends (or on the clock's tick).
//!
//! Every change is committed before it is announced: a round is paired, stored and its games
//! created in one transaction ([`TournamentStore::pair_round`]), and only the process whose
//! transaction moved the round counter announces it.

use std::collections::HashMap;

use super::*;
use crate::commands::{TournamentCommand, TournamentRef, TournamentSettings};
use crate::ratings::Ratings;
use crate::store::{GameId, PlayerId};
use crate::tournament::{Entry, Snapshot, points_text};
use crate::tournament_store::{
    Entry as EntryOutcome, Format, GameTemplate, NewTournament, PairingKind, TournamentRow, TournamentStatus,
};

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
}

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
            TournamentCommand::List => self.list_tournaments(msg),
            TournamentCommand::Join(t) => self.join_tournament(msg, t),
            TournamentCommand::Leave(t) => self.leave_tournament(msg, t),
            TournamentCommand::Start(t) => self.start_tournament(msg, t),
            TournamentCommand::Standings(t) => self.standings(msg, t),
            TournamentCommand::Pairings(t, round) => self.pairings(msg, t, round),
            TournamentCommand::Withdraw(t) => self.withdraw(msg, t),
            TournamentCommand::Result { tournament, game, result, reason } => {
                self.set_result(msg, tournament, game, &result, &reason)
            }
            TournamentCommand::Pause(t) => self.pause_or_resume(msg, t, true),
            TournamentCommand::Resume(t) => self.pause_or_resume(msg, t, false),
            TournamentCommand::Cancel(t) => self.cancel_tournament(msg, t),
            TournamentCommand::Export(t) => {
                let t = self.pick_tournament(msg, t, false)?;
                let snapshot = self.snapshot(&t)?;
                Ok(vec![Reply::text(format!("```\n{}```", snapshot.to_trf()))])
            }
        }
    }

    /// The tournament a command is about: the one named, or the one still to be played here.
    fn pick_tournament(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        live_only: bool,
    ) -> Result<TournamentRow, String> {
        if let Some(id) = id {
            return self
                .store
                .tournament(id)
                .map_err(internal)?
                .filter(|t| t.platform == msg.platform)
                .ok_or_else(|| format!("there is no tournament t{id}"));
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

    fn may_administer(&self, msg: &Incoming, me: &Player, t: &TournamentRow) -> bool {
        msg.is_admin || me.id == t.organiser
    }

    fn require_admin(&self, msg: &Incoming, t: &TournamentRow) -> Result<Player, String> {
        let me = self.me(msg)?;
        if !self.may_administer(msg, &me, t) {
            let organiser = self.store.player_by_id(t.organiser).map_err(internal)?;
            return Err(format!(
                "only the organiser ({}) or a moderator can do that",
                organiser.map_or("unknown".into(), |p| p.name)
            ));
        }
        Ok(me)
    }

    /// The stored facts of a tournament, brought together.
    fn snapshot(&self, t: &TournamentRow) -> Result<Snapshot, String> {
        Ok(self.snapshot_with_games(t)?.0)
    }

    /// The snapshot, and the losers of games lost on time (for the two-in-a-row rule).
    fn snapshot_with_games(
        &self,
        t: &TournamentRow,
    ) -> Result<(Snapshot, HashMap<GameId, PlayerId>), String> {
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
        let pairings = self.store.pairings(t.id).map_err(internal)?;
        // Results only: replaying or even loading each game's moves would cost a tournament's
        // every game on each game end.
        let mut results = HashMap::new();
        let mut time_losses = HashMap::new();
        for g in self.store.finished_games(t.id).map_err(internal)? {
            if g.reason.as_deref() == Some("time") {
                time_losses.insert(g.game, if g.result == "1-0" { g.black } else { g.white });
            }
            results.insert(g.game, g.result);
        }
        Ok((Snapshot::new(t.clone(), entries, &pairings, &results), time_losses))
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
                max_players: s.max_players,
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

    fn list_tournaments(&self, msg: &Incoming) -> Replies {
        let all = self.store.channel_tournaments(msg.platform, msg.channel).map_err(internal)?;
        if all.is_empty() {
            return Ok(vec![Reply::text(
                "No tournaments here yet. Create one with `!t tournament create swiss hans38 rounds 5`.",
            )]);
        }
        let mut lines = Vec::new();
        for t in all.iter().rev().take(15) {
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
        Ok(vec![Reply::text(lines.join("\n"))])
    }

    fn join_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let me = self.me(msg)?;
        let t = self.pick_tournament(msg, id, true)?;
        let late = t.status != TournamentStatus::Open;
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
            EntryOutcome::Full => return Err(format!("t{} is full", t.id)),
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
        let t = self.pick_tournament(msg, id, true)?;
        if t.status != TournamentStatus::Open {
            return Err(format!("t{} has started; withdraw with `!t tournament withdraw`", t.id));
        }
        if !self.store.remove_entrant(t.id, me.id).map_err(internal)? {
            return Err(format!("you are not in t{}", t.id));
        }
        Ok(vec![Reply::text(format!("{} leaves t{} ({}).", me.name, t.id, t.name))])
    }

    fn start_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, true)?;
        self.require_admin(msg, &t)?;
        if t.status != TournamentStatus::Open {
            return Err(format!("t{} has already started", t.id));
        }
        let announcements = self.start(&t, msg.now)?;
        Ok(announcements.into_iter().map(Announcement::reply).collect())
    }

    /// Fixes the rounds and seeds, then pairs round 1.
    fn start(&self, t: &TournamentRow, now: i64) -> Result<Vec<Announcement>, String> {
        let entrants = self.store.entrants(t.id).map_err(internal)?;
        let n = entrants.len();
        let (least, most) = match t.format {
            Format::RoundRobin | Format::DoubleRoundRobin => (3, 16),
            Format::Swiss | Format::Knockout => (2, 4000),
        };
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
        self.advance(t.id, now, true)
    }

    /// Moves a tournament on as far as its games allow: replays of drawn knockout games, players
    /// out after two losses on time, the next round, the end. Pairs at most one round per
    /// completed round; a lost race with another process pairs nothing and announces nothing.
    fn advance(&self, id: i64, now: i64, starting: bool) -> Result<Vec<Announcement>, String> {
        let mut out = Vec::new();
        for _ in 0..64 {
            let Some(t) = self.store.tournament(id).map_err(internal)? else { break };
            let may_pair =
                t.status == TournamentStatus::Running || (starting && t.status == TournamentStatus::Open);
            if !may_pair {
                break;
            }
            let (snapshot, time_losses) = self.snapshot_with_games(&t)?;
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
                    if let Some(game) =
                        self.store.add_leg(t.id, t.current_round, &leg, &template).map_err(internal)?
                    {
                        replayed = true;
                        let names = self.names(&[leg.white, leg.black.unwrap_or(leg.white)])?;
                        out.push(Announcement {
                            text: format!(
                                "t{} round {}, board {}: the game was drawn, so it is replayed with colours reversed: game #{game}, {} (white) vs {} (black).",
                                t.id, t.current_round, leg.board, names[0].name, names[1].name
                            ),
                            notify: names.iter().map(|p| p.user_id.clone()).collect(),
                            image: None,
                            direct: Vec::new(),
                        });
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
            let timed_out = snapshot.lost_twice_on_time(&time_losses);
            if !timed_out.is_empty() {
                for p in timed_out {
                    let reason = "lost two games in a row on time";
                    if self
                        .store
                        .withdraw_entrant(t.id, p, t.current_round, reason, now)
                        .map_err(internal)?
                        .is_some()
                    {
                        let player = self.names(&[p])?.remove(0);
                        out.push(Announcement {
                            text: format!("{} is withdrawn from t{}: {reason}.", player.name, t.id),
                            notify: vec![player.user_id],
                            image: None,
                            direct: Vec::new(),
                        });
                    }
                }
                continue;
            }
            if snapshot.finished() {
                if self
                    .store
                    .set_tournament_status(t.id, &[TournamentStatus::Running], TournamentStatus::Finished)
                    .map_err(internal)?
                {
                    out.push(self.final_announcement(&snapshot));
                }
                break;
            }
            let pairings = match snapshot.next_round() {
                Ok(p) => p,
                Err(why) => {
                    // Nothing can be paired: stop and tell the organiser rather than loop.
                    self.store
                        .set_tournament_status(t.id, &[TournamentStatus::Running], TournamentStatus::Paused)
                        .map_err(internal)?;
                    out.push(Announcement {
                        text: format!(
                            "t{} is paused: {why}. The organiser can withdraw players or set results, then `!t tournament resume`.",
                            t.id
                        ),
                        notify: Vec::new(),
                        image: None,
                            direct: Vec::new(),
                    });
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
            if !self.store.pair_round(t.id, round, &seeds, &pairings, &template).map_err(internal)? {
                break;
            }
            let mut announcement = self.round_announcement(t.id, round)?;
            // From round 2 on, the standings so far come with the pairings.
            if round > 1 {
                announcement.image = self.standings_picture(&snapshot);
                announcement.text.push_str("\nStandings so far: `!t tournament standings`.");
            }
            out.push(announcement);
        }
        Ok(out)
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
        let Ok(Some((t, _))) = self.store.tournament_of_game(game) else { return };
        match self.advance(t, now, false) {
            Ok(a) => replies.extend(a.into_iter().map(Announcement::reply)),
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

    /// The tournaments' part of the clock's tick: starts that are due, rounds to pair.
    pub(super) fn tournament_tick(&self, now: i64, served: &dyn Fn(&str) -> bool) -> Result<Vec<Notice>> {
        let mut notices = Vec::new();
        for t in self.store.live_tournaments()?.into_iter().filter(|t| served(&t.platform)) {
            let announcements = if t.status == TournamentStatus::Open {
                if t.starts_at.is_none_or(|at| at > now) {
                    continue;
                }
                match self.start(&t, now) {
                    Ok(a) => a,
                    Err(why) => {
                        // Not enough players at the set time: cancelled, and said why.
                        self.store.set_tournament_status(
                            t.id,
                            &[TournamentStatus::Open],
                            TournamentStatus::Cancelled,
                        )?;
                        vec![Announcement {
                            text: format!("t{} {} is cancelled: {why}.", t.id, t.name),
                            notify: Vec::new(),
                            image: None,
                            direct: Vec::new(),
                        }]
                    }
                }
            } else {
                match self.advance(t.id, now, false) {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::error!(tournament = t.id, "the tournament could not move on: {e:#}");
                        continue;
                    }
                }
            };
            for a in announcements {
                notices.push(Notice {
                    platform: t.platform.clone(),
                    channel: t.channel.clone(),
                    text: a.text,
                    notify: a.notify,
                    ..Notice::default()
                });
            }
        }
        Ok(notices)
    }

    fn standings(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, false)?;
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
        let t = self.pick_tournament(msg, id, false)?;
        let round = round.unwrap_or(t.current_round);
        if round == 0 || round > t.current_round {
            return Err(format!(
                "t{} has paired {} round{} so far",
                t.id,
                t.current_round,
                if t.current_round == 1 { "" } else { "s" }
            ));
        }
        let snapshot = self.snapshot(&t)?;
        let mut lines = vec![format!("t{} {}, round {round} of {}:", t.id, t.name, t.rounds)];
        for p in self.store.pairings(t.id).map_err(internal)?.iter().filter(|p| p.round == round) {
            let name = |id: PlayerId| snapshot.entry(id).map_or("?".to_string(), |e| e.name.clone());
            // The row's own result: a player's cell holds only their last game of the round,
            // the replay of a drawn knockout game.
            let state = match snapshot.pairing_outcome(p) {
                Some(crate::tournament::Outcome::Pending) => "playing".to_string(),
                Some(o) => outcome_text(o, p.result.as_deref()),
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

    fn withdraw(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let me = self.me(msg)?;
        let t = self.pick_tournament(msg, id, true)?;
        let target = match msg.mentions.first() {
            Some(user) if user.id != msg.author.id => {
                if !self.may_administer(msg, &me, &t) {
                    return Err("only the organiser or a moderator can withdraw another player".into());
                }
                self.store.player(msg.platform, &user.id, &user.name).map_err(internal)?
            }
            _ => me.clone(),
        };
        if t.status == TournamentStatus::Open {
            if !self.store.remove_entrant(t.id, target.id).map_err(internal)? {
                return Err(format!("{} is not in t{}", target.name, t.id));
            }
            return Ok(vec![Reply::text(format!("{} leaves t{} ({}).", target.name, t.id, t.name))]);
        }
        let by = if target.id == me.id { "withdrew" } else { "withdrawn by the organiser" };
        // Withdrawn, and a game in progress lost by forfeit, in one transaction.
        let Some(forfeits) =
            self.store.withdraw_entrant(t.id, target.id, t.current_round, by, msg.now).map_err(internal)?
        else {
            return Err(format!("{} is not playing in t{}", target.name, t.id));
        };
        let mut text = format!("{} is withdrawn from t{} and will not be paired again.", target.name, t.id);
        let mut notify = Vec::new();
        for (game, winner) in forfeits {
            let opponent = self.names(&[winner])?.remove(0);
            text.push_str(&format!(" {} wins game #{game} by forfeit.", opponent.name));
            notify.push(opponent.user_id);
        }
        let mut replies = vec![Reply { text, notify, ..Reply::default() }];
        replies.extend(self.advance(t.id, msg.now, false)?.into_iter().map(Announcement::reply));
        Ok(replies)
    }

    fn set_result(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        game: i64,
        result: &str,
        reason: &str,
    ) -> Replies {
        let t = match id {
            Some(_) => self.pick_tournament(msg, id, false)?,
            None => {
                let (tid, _) = self
                    .store
                    .tournament_of_game(game)
                    .map_err(internal)?
                    .ok_or_else(|| format!("game #{game} is not a tournament game"))?;
                self.pick_tournament(msg, Some(tid), false)?
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
        self.store.set_pairing_result(t.id, pairing.at(), result, reason, msg.now).map_err(internal)?;
        let mut replies =
            vec![Reply::text(format!("t{}: game #{game} is set to {result} ({reason}).", t.id))];
        replies.extend(self.advance(t.id, msg.now, false)?.into_iter().map(Announcement::reply));
        Ok(replies)
    }

    fn pause_or_resume(&self, msg: &Incoming, id: TournamentRef, pause: bool) -> Replies {
        let t = self.pick_tournament(msg, id, true)?;
        self.require_admin(msg, &t)?;
        let (from, to) = if pause {
            (TournamentStatus::Running, TournamentStatus::Paused)
        } else {
            (TournamentStatus::Paused, TournamentStatus::Running)
        };
        if !self.store.set_tournament_status(t.id, &[from], to).map_err(internal)? {
            return Err(format!("t{} is {}, not {}", t.id, t.status.name(), from.name()));
        }
        let mut replies = vec![Reply::text(if pause {
            format!("t{} is paused: games in progress go on, no new round is paired.", t.id)
        } else {
            format!("t{} resumes.", t.id)
        })];
        if !pause {
            replies.extend(self.advance(t.id, msg.now, false)?.into_iter().map(Announcement::reply));
        }
        Ok(replies)
    }

    fn cancel_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
        let t = self.pick_tournament(msg, id, true)?;
        self.require_admin(msg, &t)?;
        let live = [TournamentStatus::Open, TournamentStatus::Running, TournamentStatus::Paused];
        if !self.store.set_tournament_status(t.id, &live, TournamentStatus::Cancelled).map_err(internal)? {
            return Err(format!("t{} is already over", t.id));
        }
        Ok(vec![Reply::text(format!(
            "t{} {} is cancelled. Games in progress may be played out; they no longer count for it.",
            t.id, t.name
        ))])
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
