//! The service's side of the outbox ([`crate::outbox`]): claims, and a stored notice made into
//! what is posted (a round's pairings read, a finished game's board and GIF drawn).

use super::*;
use crate::outbox::{CLAIM_MS, Claim, NoticeKind, OutboxRow};

/// Notices claimed at once by one look.
const CLAIM_BATCH: usize = 50;

/// At most this many players are pinged by one message (Discord takes 100 named mentions).
const MAX_PINGS: usize = 50;

/// Posts a channel refuses in a row, for lack of permission, before the bot stops posting its
/// notices there.
pub const REFUSALS_TO_STOP: u32 = 3;

/// The channel setting that counts a channel's refusals in a row.
const REFUSED: &str = "posts-refused";

impl<S: Store> Service<S> {
    /// A post to this channel was refused for lack of permission: counted. True once it has
    /// refused [`REFUSALS_TO_STOP`] in a row: from then on its notices go to the players
    /// privately instead ([`Service::posting_stopped`], [`Reply::words_instead`]), until a post
    /// there goes through again.
    pub fn post_refused(&self, platform: &str, channel: &str) -> bool {
        let refusals = self.refusals(platform, channel) + 1;
        if let Err(e) = self.store.set_channel_setting(platform, channel, REFUSED, &refusals.to_string()) {
            tracing::error!(platform, channel, "could not count a refused post: {e:#}");
        }
        if refusals == REFUSALS_TO_STOP {
            tracing::warn!(
                platform,
                channel,
                "the channel refused {refusals} posts in a row: no more notices there"
            );
        }
        refusals >= REFUSALS_TO_STOP
    }

    /// A post to this channel went through: it is written to again.
    pub fn post_taken(&self, platform: &str, channel: &str) {
        if self.refusals(platform, channel) > 0
            && let Err(e) = self.store.set_channel_setting(platform, channel, REFUSED, "0")
        {
            tracing::error!(platform, channel, "could not clear a channel's refused posts: {e:#}");
        }
    }

    /// Whether the bot has stopped posting notices in this channel after repeated refusals.
    pub fn posting_stopped(&self, platform: &str, channel: &str) -> bool {
        self.refusals(platform, channel) >= REFUSALS_TO_STOP
    }

    fn refusals(&self, platform: &str, channel: &str) -> u32 {
        match self.store.channel_setting(platform, channel, REFUSED) {
            Ok(v) => v.and_then(|v| v.parse().ok()).unwrap_or(0),
            Err(_) => 0,
        }
    }

    /// A fresh claim for notices this call writes and posts itself as part of its answer.
    pub(crate) fn new_claim(&self) -> Claim {
        Claim { holder: self.claim_name(), until_ms: self.db_ms() + CLAIM_MS }
    }

    /// A name no other claim has: this process's, and a count.
    fn claim_name(&self) -> String {
        let n = self.claims.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("{}/{n}", self.holder)
    }

    /// Milliseconds by the database's clock, which times the claims as it times the leases.
    fn db_ms(&self) -> i64 {
        self.store.clock_ms().unwrap_or_else(|_| crate::process::local_ms())
    }

    /// The notices `claim` holds, as replies that mark them sent once posted.
    pub(crate) fn held_replies(&self, claim: &Claim) -> Vec<Reply> {
        match self.store.outbox_held(&claim.holder) {
            Ok(rows) => rows.iter().filter_map(|r| self.compose(r)).map(Notice::into_reply).collect(),
            Err(e) => {
                tracing::error!("could not read the notices just written: {e:#}");
                Vec::new()
            }
        }
    }

    /// Claims the notices waiting to be posted on `platforms` (every platform with `None`) and
    /// returns them, each to be marked sent ([`Service::notice_sent`]) once posted.
    pub fn outbox_due(&self, platforms: Option<&[&str]>) -> Vec<Notice> {
        let holder = self.claim_name();
        let now = self.db_ms();
        let wanted: Vec<Option<&str>> = match platforms {
            Some(ps) => ps.iter().map(|p| Some(*p)).collect(),
            None => vec![None],
        };
        let mut rows = Vec::new();
        for platform in wanted {
            match self.store.outbox_claim(platform, &holder, now, CLAIM_BATCH) {
                Ok(mut claimed) => rows.append(&mut claimed),
                Err(e) => tracing::error!("could not claim the notices to post: {e:#}"),
            }
        }
        rows.sort_by_key(|r| r.id);
        rows.dedup_by_key(|r| r.id);
        rows.iter()
            .filter_map(|r| self.compose(r))
            .map(|n| Notice { claim_holder: Some(holder.clone()), ..n })
            .collect()
    }

    /// Marks a posted notice sent. A failure is logged: the notice may then be posted again when
    /// its claim runs out.
    pub fn notice_sent(&self, notice: i64) {
        if let Err(e) = self.store.outbox_sent(notice, unix_now()) {
            tracing::error!(notice, "a posted notice could not be marked sent: {e:#}");
        }
    }

    /// Whether the notice may be posted now: one not from the outbox always; a stored one only
    /// while this process still holds its claim, which is renewed for the post (an adapter gives
    /// a post [`crate::outbox::POST_TIMEOUT`], well within it). False leaves it to whoever
    /// claims it next.
    pub fn may_post(&self, notice: &Notice) -> bool {
        let (Some(id), Some(holder)) = (notice.outbox, &notice.claim_holder) else { return true };
        match self.store.outbox_renew(id, holder, self.db_ms() + CLAIM_MS) {
            Ok(held) => held,
            Err(e) => {
                tracing::error!(notice = id, "could not renew a notice's claim: {e:#}");
                false
            }
        }
    }

    /// Frees the claims of this machine's processes that died holding them (the local mode's
    /// start-up: what a killed terminal claimed but never showed is shown now). A live
    /// process's claims are left alone.
    pub fn release_dead_claims(&self, platform: &str) -> Result<u64> {
        let mut freed = 0;
        for holder in self.store.outbox_holders(platform)? {
            let process = holder.rsplit_once('/').map_or(holder.as_str(), |(p, _)| p);
            if crate::process::dead_here(process) {
                freed += self.store.outbox_release(&holder)?;
            }
        }
        Ok(freed)
    }

    /// A stored notice as it is posted, cut to what a platform takes in one go; `None` when what
    /// it announces cannot be read now (it stays unsent, to be tried again).
    fn compose(&self, row: &OutboxRow) -> Option<Notice> {
        let mut notice = Notice {
            platform: row.platform.clone(),
            channel: row.channel.clone(),
            text: row.text.clone(),
            notify: row.notify.clone(),
            outbox: Some(row.id),
            ..Notice::default()
        };
        match (row.kind, row.subject) {
            (NoticeKind::Round, Some(t)) => {
                let r = self.round_reply(t, row.round.unwrap_or(0))?.capped();
                notice.text = r.text;
                notice.notify = r.notify;
                notice.image = r.image;
                notice.direct = r.direct;
                notice.files = r.files;
                // A crowd is not pinged in the channel: each player has their own word privately.
                if notice.notify.len() > MAX_PINGS {
                    notice.notify.clear();
                }
            }
            (NoticeKind::Game, Some(game)) => {
                let loaded = self.load(self.store.game(game).ok()??).ok()?;
                let board = self.board_reply(&loaded, None, false, row.created_at);
                notice.image = board.image;
                notice.diagram = board.diagram;
                notice.actions = board.actions;
                notice.animation = self.game_gif(game);
                notice.game = Some(game);
                notice.thread = loaded.row.thread().map(str::to_string);
                notice.open_thread = self.thread_opening(&loaded);
            }
            // A text about a game (a reminder, a knockout's replay begun) goes to its thread.
            (NoticeKind::Text, Some(game)) => {
                notice.game = Some(game);
                notice.thread = self.game_thread(game);
            }
            (NoticeKind::Analysis, Some(game)) => {
                let loaded = self.load_to_read(self.store.game(game).ok()??).ok()?;
                let evals = self.store.analysis_evals(game).ok()?;
                notice.image = self.analysis_picture(&loaded, &evals);
                // Asked in the game's channel: to its thread, where it has one.
                if row.channel == loaded.row.channel {
                    notice.thread = loaded.row.thread().map(str::to_string);
                }
            }
            (NoticeKind::Direct, _) => {
                let text = std::mem::take(&mut notice.text);
                notice.direct =
                    std::mem::take(&mut notice.notify).into_iter().map(|u| (u, text.clone())).collect();
            }
            _ => {}
        }
        notice.about = match (row.kind, row.subject) {
            (NoticeKind::Round, Some(t)) => Some(format!("tournament #{t}")),
            (NoticeKind::Game | NoticeKind::Analysis, Some(g)) => Some(format!("game #{g}")),
            _ => None,
        };
        // Every notice within what one post takes, its private words too (a clock's notice is
        // written by the clock, not cut on the way as a reply is).
        let reply = Reply {
            text: std::mem::take(&mut notice.text),
            direct: std::mem::take(&mut notice.direct),
            files: std::mem::take(&mut notice.files),
            ..Reply::default()
        }
        .capped();
        notice.text = reply.text;
        notice.direct = reply.direct;
        notice.files = reply.files;
        Some(notice)
    }
}
