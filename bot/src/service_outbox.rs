//! The service's side of the outbox ([`crate::outbox`]): claims, and a stored notice made into
//! what is posted (a round's pairings read, a finished game's board and GIF drawn).

use super::*;
use crate::outbox::{CLAIM_MS, Claim, NoticeKind, OutboxRow};

/// Notices claimed at once by one look.
const CLAIM_BATCH: usize = 50;

impl<S: Store> Service<S> {
    /// A fresh claim for notices this call writes and posts itself as part of its answer.
    pub(crate) fn new_claim(&self) -> Claim {
        let n = self.claims.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Claim { holder: format!("{}/{n}", self.holder), until_ms: self.db_ms() + CLAIM_MS }
    }

    /// Milliseconds by the database's clock, which times the claims as it times the leases.
    fn db_ms(&self) -> i64 {
        self.store.clock_ms().unwrap_or_else(|_| crate::outbox::now_ms())
    }

    /// The notices `claim` holds, as replies that mark them sent once posted.
    pub(crate) fn held_replies(&self, claim: &Claim) -> Vec<Reply> {
        match self.store.outbox_held(&claim.holder) {
            Ok(rows) => rows.iter().map(|r| self.compose(r).into_reply()).collect(),
            Err(e) => {
                tracing::error!("could not read the notices just written: {e:#}");
                Vec::new()
            }
        }
    }

    /// Claims the notices waiting to be posted on `platforms` (every platform with `None`) and
    /// returns them, each to be marked sent ([`Service::notice_sent`]) once posted.
    pub fn outbox_due(&self, platforms: Option<&[&str]>) -> Vec<Notice> {
        let holder = self.new_claim().holder;
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
        rows.iter().map(|r| self.compose(r)).collect()
    }

    /// Marks a posted notice sent. A failure is logged: the notice may then be posted again when
    /// its claim runs out.
    pub fn notice_sent(&self, notice: i64) {
        if let Err(e) = self.store.outbox_sent(notice, unix_now()) {
            tracing::error!(notice, "a posted notice could not be marked sent: {e:#}");
        }
    }

    /// Whether a claim still leaves time to post (see [`crate::outbox::POST_MARGIN_MS`]).
    pub fn may_post(&self, notice: &Notice) -> bool {
        notice.claimed_until.is_none_or(|until| self.db_ms() + crate::outbox::POST_MARGIN_MS < until)
    }

    /// A stored notice as it is posted.
    fn compose(&self, row: &OutboxRow) -> Notice {
        let mut notice = Notice {
            platform: row.platform.clone(),
            channel: row.channel.clone(),
            text: row.text.clone(),
            notify: row.notify.clone(),
            outbox: Some(row.id),
            claimed_until: row.claimed_until,
            ..Notice::default()
        };
        match (row.kind, row.subject) {
            (NoticeKind::Round, Some(t)) => {
                if let Some(r) = self.round_reply(t, row.round.unwrap_or(0)) {
                    notice.text = r.text;
                    notice.notify = r.notify;
                    notice.image = r.image;
                    notice.direct = r.direct;
                }
            }
            (NoticeKind::GameOver, Some(game)) => {
                if let Ok(Some(g)) = self.store.game(game)
                    && let Ok(loaded) = self.load(g)
                {
                    let board = self.board_reply(&loaded, None, false, row.created_at);
                    notice.image = board.image;
                    notice.diagram = board.diagram;
                    notice.animation = self.game_gif(game);
                }
            }
            _ => {}
        }
        notice
    }
}
