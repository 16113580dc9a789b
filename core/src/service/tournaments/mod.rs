//! Tournaments and ratings in the game service: the chat commands, and moving a tournament on by
//! itself when the last game of a round ends (or on the clock's tick).
//!
//! Every change is committed before it is announced, and its announcement is stored with it: a
//! round is paired, stored, its games created and its notice written in one transaction
//! ([`TournamentStore::pair_round`]); only the process whose transaction moved the round counter
//! wrote the notice, and the outbox posts it ([`crate::outbox`]). Chat mode pairs on a worker
//! thread ([`tessera_bot::practice::Worker::pairing`]), so a large round never holds up an answer.

use std::collections::HashMap;

use super::*;
use crate::commands::{TournamentCommand, TournamentRef, TournamentSettings};
use crate::model::{
    Entry as EntryOutcome, Format, GameTemplate, NewTournament, PairingKind, PairingRow, ResultSetting,
    SetResult, TournamentRow, TournamentStatus, tournament_result,
};
use crate::model::{GameId, PlayerId};
use crate::outbox::{Claim, NewNotice, NoticeKind};
use crate::ratings::Ratings;
use crate::tournament::{Entry, Snapshot, points_text};

mod ratings;
mod rounds;
mod standings;

/// The most players a format takes: a round robin's crosstable stays readable, a Swiss or a
/// knockout pairs within a command's patience.
pub fn most_players(format: Format) -> usize {
    match format {
        Format::RoundRobin | Format::DoubleRoundRobin => 16,
        Format::Swiss | Format::Knockout => tessera_pairing::MAX_PLAYERS,
    }
}

/// Something the tournament says on its own: the next round, a withdrawal, the winner.
pub(in crate::service) struct Announcement {
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
pub(in crate::service) struct Played {
    /// Each game's result in the tournament's notation (a forfeit as one).
    pub(in crate::service) results: HashMap<GameId, String>,
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
            TournamentCommand::Publish(t, on) => self.publish_tournament(msg, t, on),
            TournamentCommand::Export(t) => {
                let t = self.pick_tournament(msg, t, false, false)?;
                let snapshot = self.snapshot(&t)?;
                let summary = format!(
                    "The TRF-16 of {} ({} players) is attached as tournament-{}.trf.",
                    t.name,
                    snapshot.entries.len(),
                    t.id
                );
                let reply =
                    Reply::export(format!("tournament-{}.trf", t.id), snapshot.to_trf(), true, summary);
                Ok(vec![Reply { about: Some(format!("tournament #{}", t.id)), ..reply }])
            }
        }
    }

    /// The tournament a command is about: the one named, or the one still to be played here. A
    /// tournament is `acting` on (joined, run, its results set) only in its own channel; its
    /// standings and pairings may be read anywhere on its platform.
    pub(in crate::service) fn pick_tournament(
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
    pub(in crate::service) fn may_administer(&self, msg: &Incoming, me: &Player, t: &TournamentRow) -> bool {
        msg.channel == t.channel && msg.platform == t.platform && (msg.is_admin || me.id == t.organiser)
    }

    pub(in crate::service) fn require_admin(
        &self,
        msg: &Incoming,
        t: &TournamentRow,
    ) -> Result<Player, String> {
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
    pub(in crate::service) fn snapshot(&self, t: &TournamentRow) -> Result<Snapshot, String> {
        Ok(self.snapshot_with_games(t)?.0)
    }

    /// The snapshot, and what it was made of: each game's result, and who lost on time.
    pub(in crate::service) fn snapshot_with_games(
        &self,
        t: &TournamentRow,
    ) -> Result<(Snapshot, Played), String> {
        self.snapshot_with_pairings(t).map(|(snapshot, played, _)| (snapshot, played))
    }

    /// The snapshot, what it was made of, and the pairings read for it (the rounds up to the
    /// row's own).
    pub(in crate::service) fn snapshot_with_pairings(
        &self,
        t: &TournamentRow,
    ) -> Result<(Snapshot, Played, Vec<PairingRow>), String> {
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
        let snapshot = Snapshot::new(t.clone(), entries, &pairings, &results);
        Ok((snapshot, Played { results, time_losses }, pairings))
    }

    pub(in crate::service) fn ratings(&self) -> Result<Ratings, String> {
        Ok(Ratings::compute(&self.store.rated_results().map_err(internal)?))
    }

    pub(in crate::service) fn create_tournament(&self, msg: &Incoming, s: TournamentSettings) -> Replies {
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
                vacation_days: s.vacation_days,
                definition: StoredDefinition::of(s.variant),
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

    pub(in crate::service) fn list_tournaments(&self, msg: &Incoming, page: Option<u32>) -> Replies {
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

    pub(in crate::service) fn join_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
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
        let variant = self.tournament_variant(&t)?;
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

    pub(in crate::service) fn leave_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
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

    pub(in crate::service) fn start_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
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
    pub(in crate::service) fn start(
        &self,
        t: &TournamentRow,
        notice: Option<NewNotice>,
    ) -> Result<(), String> {
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
        let views = loaded.game.views();
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

    /// Whom `withdraw` is about: a mention, a name (`@name` or plain) that must be an entrant's,
    /// `me`, or with nothing said, the author.
    pub(in crate::service) fn withdraw_target(
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

    pub(in crate::service) fn withdraw(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        name: Option<&str>,
    ) -> Replies {
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

    pub(in crate::service) fn pause_or_resume(
        &self,
        msg: &Incoming,
        id: TournamentRef,
        pause: bool,
    ) -> Replies {
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

    pub(in crate::service) fn cancel_tournament(&self, msg: &Incoming, id: TournamentRef) -> Replies {
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
}

fn duration_text(seconds: i64) -> String {
    match seconds {
        s if s % 86_400 == 0 => format!("{} day{}", s / 86_400, if s == 86_400 { "" } else { "s" }),
        s if s % 3600 == 0 => format!("{} hour{}", s / 3600, if s == 3600 { "" } else { "s" }),
        s => format!("{} minutes", s / 60),
    }
}
